"""Compiles the model's regular expression and tests it with re.fullmatch on fixed strings.
Requirement: An ISO date YYYY-MM-DD with a year from 2000 to 2099, a month 01-12 and a day 01-31 (the day does not need to be checked against the month's length). Examples: 2000-01-01, 2099-12-31."""
import re

import sys


def read_output():
    try:
        return sys.stdin.buffer.read().decode("utf-8", "replace")
    except Exception:
        return ""


def short(value, limit=60):
    try:
        text = repr(value)
    except Exception:
        text = "<unprintable>"
    return text if len(text) <= limit else text[:limit] + "..."


def strip_fences(text):
    """Removes one pair of Markdown code fences around the whole output, if present."""
    t = text.strip()
    if t.startswith("```"):
        first_newline = t.find("\n")
        if first_newline == -1 or not t.endswith("```") or len(t) < 6:
            return None
        t = t[first_newline + 1:-3]
    return t.strip()


def finish(run):
    try:
        ok, reason = run()
    except BaseException as error:  # never a traceback, whatever the output was
        ok, reason = False, "could not check the output (" + type(error).__name__ + ")"
    print(reason)
    sys.stdout.flush()
    sys.exit(0 if ok else 1)

SHOULD_MATCH = ['2000-01-01', '2099-12-31', '2024-02-30', '2031-10-09']
SHOULD_NOT_MATCH = ['1999-12-31', '2100-01-01', '2024-13-01', '2024-00-10', '2024-01-00', '2024-01-32', '2024-1-05', '24-01-05', '2024/01/05']


def run():
    text = read_output().strip()
    if not text:
        return False, "the output is empty"
    if "\n" in text:
        return False, "the output has more than one line; only the pattern was expected"
    if len(text) > 400:
        return False, "the pattern is longer than 400 characters"
    try:
        pattern = re.compile(text)
    except Exception as error:
        return False, "the output is not a valid Python regular expression: " + str(error)[:80]
    for s in SHOULD_MATCH:
        if not pattern.fullmatch(s):
            return False, "does not match " + short(s) + ", which is valid"
    for s in SHOULD_NOT_MATCH:
        if pattern.fullmatch(s):
            return False, "matches " + short(s) + ", which is invalid"
    return True, "matches all " + str(len(SHOULD_MATCH)) + " valid and rejects all " + str(len(SHOULD_NOT_MATCH)) + " invalid strings"


finish(run)
