"""Runs the model's Python code in a child interpreter and calls the case's function on fixed inputs.
The case's expectations are the sandbox assertion's value (value.json), read here in the parent (then the file
is removed) and never given to the child, which receives only the code, the function's name and the arguments:
  {"function": "to_roman", "check_input_unchanged": false,
   "tests": [{"args": "(4,)", "returns": "'IV'"}, {"args": "(0,)", "raises": "ValueError"}, ...]}
"args" is the Python literal of the argument tuple; "returns" the Python literal of the expected result."""
import ast
import json
import os
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


def expectations():
    """(function name, whether inputs must stay unchanged, [(args, expected value or None, exception name or None)])."""
    with open("value.json", encoding="utf-8") as f:
        value = json.load(f)
    function = value["function"]
    if not isinstance(function, str) or not function.isidentifier():
        raise ValueError("function")
    tests = []
    for test in value["tests"]:
        args = ast.literal_eval(test["args"])
        if not isinstance(args, tuple):
            raise ValueError("args")
        if "raises" in test:
            tests.append((args, None, str(test["raises"])))
        else:
            tests.append((args, ast.literal_eval(test["returns"]), None))
    if not tests:
        raise ValueError("tests")
    return function, value.get("check_input_unchanged") is True, tests


def protect_memory():
    """Makes this process non-dumpable, so the candidate's code (a child under the same user) cannot read the
    expectations out of its memory through /proc/<pid>/mem or ptrace. Without that protection nothing is checked."""
    import ctypes
    PR_SET_DUMPABLE = 4
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError("prctl")


def hide_expectations():
    """Removes value.json once read, so the candidate's code (in the child, same directory) cannot read it."""
    try:
        os.remove("value.json")
    except OSError:
        pass


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


def call(function, args):
    return function + "(" + ", ".join(short(a, 40) for a in args) + ")"


def run():
    try:
        protect_memory()
    except Exception:
        return False, "the checker could not protect its expectations, so nothing was checked"
    try:
        function, check_input_unchanged, tests = expectations()
    except Exception:
        return False, "the checker's expectations (value.json) are missing or malformed"
    hide_expectations()
    code = strip_fences(read_output())
    if code is None:
        return False, "the output has an unclosed code fence"
    if not code:
        return False, "the output is empty"
    job = json.dumps({"code": code, "function": function, "calls": [repr(args) for args, _, _ in tests]})
    # Wall-clock time is generous (a busy machine slows a correct function down); code that runs away is stopped by
    # the sandbox's CPU limit on the whole check.
    try:
        child = subprocess.run([sys.executable or "python3", "-I", "-c", CHILD], input=job.encode(),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=3)
    except subprocess.TimeoutExpired:
        return False, "the code took too long (it may loop forever)"
    lines = [l for l in child.stdout.decode("utf-8", "replace").splitlines() if l.startswith("@@RESULT@@")]
    if not lines:
        return False, "the code stopped the interpreter before the function could be tested"
    report = json.loads(lines[-1][len("@@RESULT@@"):])
    if "load_error" in report:
        return False, "the code does not run: " + report["load_error"]
    if report.get("missing"):
        return False, "the code does not define a function " + function + "()"
    results = report.get("results")
    if not isinstance(results, list) or len(results) != len(tests):
        return False, "the function could not be called on every input"
    for (args, want, error), result in zip(tests, results):
        if "raised" in result:
            if error is not None and error in result["raised"]:
                continue
            raised = result["raised"][0] if result["raised"] else "an exception"
            return False, call(function, args) + " raised " + raised + (", expected " + error if error is not None else "")
        if error is not None:
            return False, call(function, args) + " returned " + short(result.get("value"), 40) + ", expected it to raise " + error
        try:
            got = ast.literal_eval(result.get("value"))
        except Exception:
            return False, call(function, args) + " returned " + short(result.get("value"), 40) + ", expected " + short(want, 40)
        if not same(got, want):
            return False, call(function, args) + " returned " + short(got, 50) + ", expected " + short(want, 50)
        if check_input_unchanged and result.get("changed"):
            return False, call(function, args) + " modified its input"
    return True, "all " + str(len(tests)) + " calls of " + function + "() returned the expected results"


finish(run)
