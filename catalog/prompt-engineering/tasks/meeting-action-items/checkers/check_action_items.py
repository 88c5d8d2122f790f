"""Checks the action items: same owners and due dates in the same order, each task naming its subject.
The expected items are the sandbox assertion's value (value.json):
  {"action_items": [{"owner": name, "due": "YYYY-MM-DD" or null, "task_words": [words]}, ...]}
where the task must contain at least one of task_words, ignoring case."""
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


def finish(run):
    try:
        ok, reason = run()
    except BaseException as error:  # never a traceback, whatever the output was
        ok, reason = False, "could not check the output (" + type(error).__name__ + ")"
    print(reason)
    sys.stdout.flush()
    sys.exit(0 if ok else 1)


def expectations():
    """[(owner, due date or None, words of which the task must contain at least one, ignoring case)]."""
    with open("value.json", encoding="utf-8") as f:
        value = json.load(f)
    items = []
    for item in value["action_items"]:
        owner, due, words = item["owner"], item["due"], item["task_words"]
        if not isinstance(owner, str) or not (due is None or isinstance(due, str)):
            raise ValueError("value.json")
        if not isinstance(words, list) or not words or not all(isinstance(w, str) for w in words):
            raise ValueError("value.json")
        items.append((owner, due, words))
    return items


def run():
    try:
        expected = expectations()
    except Exception:
        return False, "the checker's expectations (value.json) are missing or malformed"
    try:
        data = json.loads(read_output().strip())
    except Exception:
        return False, "the output is not valid JSON"
    items = data.get("action_items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return False, "no action_items array"
    if len(items) != len(expected):
        return False, "found " + str(len(items)) + " action items, expected " + str(len(expected))
    for i, (item, (owner, due, words)) in enumerate(zip(items, expected), 1):
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
    return True, "all " + str(len(expected)) + " action items match (owner, due date, task)"


finish(run)
