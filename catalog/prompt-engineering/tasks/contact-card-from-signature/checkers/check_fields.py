"""Checks the extracted contact fields: the output must be a JSON object whose fields equal the expected values.
The expected fields are the sandbox assertion's value (value.json): a JSON object, e.g. {"field": value or null, ...}."""
import json

import sys
import unicodedata


def read_output():
    try:
        # NFC: "É" written as "E" plus a combining accent is the same letter (the built-in assertions compare so too).
        return unicodedata.normalize("NFC", sys.stdin.buffer.read().decode("utf-8", "replace"))
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
    """The expected fields, in the order they are checked."""
    with open("value.json", encoding="utf-8") as f:
        value = json.load(f)
    if not isinstance(value, dict) or not value:
        raise ValueError("value.json")
    return value


def same(got, want):
    if want is None:
        return got is None
    if isinstance(want, bool):
        return isinstance(got, bool) and got == want
    if isinstance(want, (int, float)):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and abs(got - want) < 0.005
    if isinstance(want, str):
        if not isinstance(got, str):
            return False
        return got.strip() == want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    return got == want


def run():
    try:
        expected = expectations()
    except Exception:
        return False, "the checker's expectations (value.json) are missing or malformed"
    raw = read_output().strip()
    try:
        data = json.loads(raw)
    except Exception:
        return False, "the output is not valid JSON"
    if not isinstance(data, dict):
        return False, "the output is not a JSON object"
    wrong = []
    for key, want in expected.items():
        if key not in data:
            wrong.append(key + " is missing")
        elif not same(data[key], want):
            wrong.append(key + " is " + short(data[key], 40) + ", expected " + short(want, 40))
    if wrong:
        return False, str(len(wrong)) + " wrong: " + "; ".join(wrong)
    return True, "all " + str(len(expected)) + " contact fields match"


finish(run)
