"""Checks the extracted invoice fields: the output must be a JSON object whose fields equal the expected values."""
import json

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

EXPECTED = json.loads("{\"invoice_number\": \"RE-24-5581\", \"vendor\": \"Druckerei Vogelsang KG\", \"amount_due\": 1874.25, \"currency\": \"EUR\", \"due_date\": \"2025-01-15\"}")
STRING_MODE = 'exact'


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
        if STRING_MODE == "casefold":
            return " ".join(got.split()).casefold() == " ".join(want.split()).casefold()
        return got.strip() == want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    return got == want


def run():
    raw = read_output().strip()
    try:
        data = json.loads(raw)
    except Exception:
        return False, "the output is not valid JSON"
    if not isinstance(data, dict):
        return False, "the output is not a JSON object"
    wrong = []
    for key, want in EXPECTED.items():
        if key not in data:
            wrong.append(key + " is missing")
        elif not same(data[key], want):
            wrong.append(key + " is " + short(data[key], 40) + ", expected " + short(want, 40))
    if wrong:
        return False, str(len(wrong)) + " wrong: " + "; ".join(wrong)
    return True, "all " + str(len(EXPECTED)) + " invoice fields match"


finish(run)
