"""Compiles the model's regular expression and tests it with re.fullmatch on fixed strings.
The strings are the sandbox assertion's value (value.json):
  {"should_match": [valid strings], "should_not_match": [invalid strings]}"""
import json
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


def finish(run):
    try:
        ok, reason = run()
    except BaseException as error:  # never a traceback, whatever the output was
        ok, reason = False, "could not check the output (" + type(error).__name__ + ")"
    print(reason)
    sys.stdout.flush()
    sys.exit(0 if ok else 1)


def expectations():
    """(strings the pattern must match, strings it must not match)."""
    with open("value.json", encoding="utf-8") as f:
        value = json.load(f)
    good, bad = value["should_match"], value["should_not_match"]
    if not all(isinstance(v, list) and all(isinstance(s, str) for s in v) for v in (good, bad)):
        raise ValueError("value.json")
    return good, bad


def run():
    try:
        should_match, should_not_match = expectations()
    except Exception:
        return False, "the checker's expectations (value.json) are missing or malformed"
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
    for s in should_match:
        if not pattern.fullmatch(s):
            return False, "does not match " + short(s) + ", which is valid"
    for s in should_not_match:
        if pattern.fullmatch(s):
            return False, "matches " + short(s) + ", which is invalid"
    return True, "matches all " + str(len(should_match)) + " valid and rejects all " + str(len(should_not_match)) + " invalid strings"


finish(run)
