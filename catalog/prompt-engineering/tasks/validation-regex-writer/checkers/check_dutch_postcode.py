"""Compiles the model's regular expression and tests it with re.fullmatch on fixed strings.
Requirement: A Dutch postcode: four digits where the first is not 0, an optional single space, then two upper-case letters; the letter pairs SA, SD and SS are not allowed. Examples: 1012 AB, 3511AX."""
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

SHOULD_MATCH = ['1012 AB', '3511AX', '9999 ZZ', '1000 AA', '2500 SB']
SHOULD_NOT_MATCH = ['0123 AB', '1012 ab', '1012  AB', '1012 SA', '1012SS', '1012 SD', '101 AB', '1012 ABC']


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
