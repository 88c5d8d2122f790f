"""Checks the action items: same owners and due dates in the same order, each task naming its subject."""
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

# (owner, due date or None, words of which the task must contain at least one, ignoring case)
EXPECTED = json.loads("[[\"Malik\", \"2025-06-03\", [\"alert\"]], [\"Bongani\", \"2025-06-30\", [\"tls\", \"certificate\"]], [\"Freya\", \"2025-06-05\", [\"handover\", \"on-call\"]]]")


def run():
    try:
        data = json.loads(read_output().strip())
    except Exception:
        return False, "the output is not valid JSON"
    items = data.get("action_items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return False, "no action_items array"
    if len(items) != len(EXPECTED):
        return False, "found " + str(len(items)) + " action items, expected " + str(len(EXPECTED))
    for i, (item, (owner, due, words)) in enumerate(zip(items, EXPECTED), 1):
        if not isinstance(item, dict):
            return False, "item " + str(i) + " is not an object"
        got_owner = item.get("owner")
        if not isinstance(got_owner, str) or got_owner.strip().casefold() != owner.casefold():
            return False, "item " + str(i) + ": owner " + short(got_owner, 30) + ", expected " + short(owner)
        if item.get("due") != due:
            return False, "item " + str(i) + " (" + owner + "): due " + short(item.get("due"), 30) + ", expected " + short(due)
        task = item.get("task")
        if not isinstance(task, str) or not any(w in task.casefold() for w in words):
            return False, "item " + str(i) + " (" + owner + "): the task " + short(task, 40) + " does not say what the action is"
    return True, "all " + str(len(EXPECTED)) + " action items match (owner, due date, task)"


finish(run)
