"""Runs the model's Python code in a child interpreter and calls group_by_domain() on fixed inputs.
Specification: Write `group_by_domain(emails: list[str]) -> dict[str, list[str]]`, which groups email addresses by domain."""
import ast
import json
import subprocess

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

FUNCTION = 'group_by_domain'
CHECK_INPUT_UNCHANGED = False
TESTS = [((['ana@Example.com', 'bo@example.com', 'x@y.org'],), {'example.com': ['ana@Example.com', 'bo@example.com'], 'y.org': ['x@y.org']}), (([' c@Z.io ', 'bad', 'a@@b.com', '@nolocal.com', 'd@'],), {'z.io': ['c@Z.io']}), (([],), {}), ((['k@a.dk', 'k@a.dk', 'L@A.DK'],), {'a.dk': ['k@a.dk', 'k@a.dk', 'L@A.DK']})]

# Runs in the child: exec()s the code in a fresh dict, calls the function on each input, reports repr()s.
CHILD = r"""
import contextlib, copy, io, json, os, sys
job = json.loads(sys.stdin.read())
out = os.dup(1)
def report(obj):
    os.write(out, ("\n@@RESULT@@" + json.dumps(obj) + "\n").encode())
namespace = {"__name__": "candidate"}
try:
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(job["code"], "<candidate>", "exec"), namespace)
except BaseException as error:
    report({"load_error": type(error).__name__ + ": " + str(error)[:80]})
    raise SystemExit(0)
fn = namespace.get(job["function"])
if not callable(fn):
    report({"missing": True})
    raise SystemExit(0)
import ast
results = []
for text in job["calls"]:
    args = ast.literal_eval(text)
    given = copy.deepcopy(args)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            value = fn(*given)
        try:
            shown = repr(value)[:2000]
        except BaseException:
            shown = "<unprintable>"
        results.append({"value": shown, "type": type(value).__name__, "changed": given != args})
    except BaseException as error:
        results.append({"raised": [k.__name__ for k in type(error).__mro__]})
report({"results": results})
"""


def norm(value):
    if isinstance(value, (list, tuple)):
        return [norm(v) for v in value]
    if isinstance(value, dict):
        return {k: norm(v) for k, v in value.items()}
    return value


def same(got, want):
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    return type(norm(got)) is type(norm(want)) and norm(got) == norm(want)


def call(args):
    return FUNCTION + "(" + ", ".join(short(a, 40) for a in args) + ")"


def run():
    code = strip_fences(read_output())
    if code is None:
        return False, "the output has an unclosed code fence"
    if not code:
        return False, "the output is empty"
    job = json.dumps({"code": code, "function": FUNCTION, "calls": [repr(args) for args, _ in TESTS]})
    try:
        child = subprocess.run([sys.executable or "python3", "-I", "-c", CHILD], input=job.encode(),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=0.45)
    except subprocess.TimeoutExpired:
        return False, "the code took too long (it may loop forever)"
    lines = [l for l in child.stdout.decode("utf-8", "replace").splitlines() if l.startswith("@@RESULT@@")]
    if not lines:
        return False, "the code stopped the interpreter before the function could be tested"
    report = json.loads(lines[-1][len("@@RESULT@@"):])
    if "load_error" in report:
        return False, "the code does not run: " + report["load_error"]
    if report.get("missing"):
        return False, "the code does not define a function " + FUNCTION + "()"
    results = report.get("results")
    if not isinstance(results, list) or len(results) != len(TESTS):
        return False, "the function could not be called on every input"
    for (args, want), result in zip(TESTS, results):
        expects_error = isinstance(want, tuple) and len(want) == 2 and want[0] == "raises"
        if "raised" in result:
            if expects_error and want[1] in result["raised"]:
                continue
            raised = result["raised"][0] if result["raised"] else "an exception"
            return False, call(args) + " raised " + raised + (", expected " + want[1] if expects_error else "")
        if expects_error:
            return False, call(args) + " returned " + short(result.get("value"), 40) + ", expected it to raise " + want[1]
        try:
            got = ast.literal_eval(result.get("value"))
        except Exception:
            return False, call(args) + " returned " + short(result.get("value"), 40) + ", expected " + short(want, 40)
        if not same(got, want):
            return False, call(args) + " returned " + short(got, 50) + ", expected " + short(want, 50)
        if CHECK_INPUT_UNCHANGED and result.get("changed"):
            return False, call(args) + " modified its input"
    return True, "all " + str(len(TESTS)) + " calls of " + FUNCTION + "() returned the expected results"


finish(run)
