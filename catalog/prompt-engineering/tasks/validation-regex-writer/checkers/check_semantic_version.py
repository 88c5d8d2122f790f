"""Compiles the model's regular expression and tests it with re.fullmatch on fixed strings.
Requirement: A semantic version MAJOR.MINOR.PATCH: three non-negative integers separated by dots, with no leading zeros (a lone 0 is fine), optionally followed by a hyphen and a pre-release label made of one or more dot-separated parts of ASCII letters, digits and hyphens (no empty parts). Examples: 1.0.0, 10.20.3, 2.1.0-rc.1."""
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

SHOULD_MATCH = ['1.0.0', '10.20.3', '2.1.0-rc.1', '0.0.0', '3.4.5-alpha', '1.2.3-beta-2.x.7']
SHOULD_NOT_MATCH = ['01.0.0', '1.02.0', '1.0', '1.0.0-', '1.0.0-rc..1', '1.0.0.0', 'v1.0.0', '1.0.0-rc.1.', '1.0.0-é']


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
