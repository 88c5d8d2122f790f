"""Runs the model's SQLite query on fixed fixture rows and compares the result with the case's expected rows.
The expectations are the sandbox assertion's value (value.json):
  {"ordered": true or false (whether the rows must come in this order), "rows": [[column values], ...]}
Numbers are compared rounded to 2 decimals."""
import json
import sqlite3
import time

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

ALLOW_FENCES = False
SCHEMA = """
CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE subscriptions (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), plan TEXT NOT NULL, mrr_cents INTEGER NOT NULL, started_on TEXT NOT NULL, ended_on TEXT);
CREATE TABLE events (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), kind TEXT NOT NULL, occurred_at TEXT NOT NULL);
"""
FIXTURES = """
INSERT INTO accounts VALUES
 (1,'Alderpoint Studio','2024-10-03'),(2,'Brackenfield Co','2024-11-20'),(3,'Cinderpath Labs','2025-01-06'),
 (4,'Dovetail Partners','2024-08-14'),(5,'Eastwater Clinic','2025-02-01'),(6,'Foxglove Media','2024-12-12'),
 (7,'Greyling Freight','2025-01-28');
INSERT INTO subscriptions VALUES
 (1,1,'team',4900,'2024-10-03','2025-01-31'),(2,1,'business',19900,'2025-02-01',NULL),
 (3,2,'team',4900,'2024-11-20','2025-02-15'),
 (4,3,'starter',1200,'2025-01-06',NULL),
 (5,4,'business',24900,'2024-08-14','2025-03-31'),(6,4,'team',4900,'2025-04-01',NULL),
 (7,5,'team',5900,'2025-02-01',NULL),
 (8,6,'starter',1500,'2024-12-12','2025-03-10'),
 (9,7,'team',4900,'2025-04-02',NULL);
INSERT INTO events VALUES
 (1,1,'login','2025-03-02 09:14:00'),(2,1,'login','2025-03-05 10:01:00'),(3,1,'export','2024-10-20 16:40:00'),
 (4,1,'login','2025-03-11 08:55:00'),(5,1,'login','2025-03-19 13:30:00'),(6,1,'invite','2025-01-14 11:00:00'),
 (7,2,'login','2025-01-09 09:00:00'),(8,2,'export','2025-01-30 17:45:00'),(9,2,'login','2025-02-03 10:10:00'),
 (10,3,'login','2025-03-03 12:00:00'),(11,3,'login','2025-03-04 12:05:00'),(12,3,'login','2025-03-20 09:30:00'),
 (13,3,'login','2025-03-28 15:00:00'),(14,3,'export','2025-03-01 23:59:00'),(15,3,'export','2025-02-10 08:00:00'),
 (16,4,'login','2025-02-27 07:45:00'),(17,4,'login','2025-04-01 08:00:00'),(18,4,'export','2024-08-20 10:00:00'),
 (19,5,'login','2025-02-14 09:00:00'),(20,5,'invite','2025-03-12 09:20:00'),(21,6,'login','2025-03-01 00:05:00'),
 (22,6,'login','2025-03-09 18:00:00'),(23,6,'login','2025-03-15 18:20:00'),(24,6,'login','2025-03-30 21:00:00'),
 (25,6,'login','2025-03-31 23:50:00'),(26,7,'login','2025-01-29 10:00:00'),(27,5,'export','2025-02-01 09:30:00'),
 (28,1,'login','2025-04-01 00:00:01'),(29,3,'login','2025-02-28 23:59:59');
"""


def expectations():
    """(whether the order counts, the expected rows)."""
    with open("value.json", encoding="utf-8") as f:
        value = json.load(f)
    ordered, rows = value["ordered"], value["rows"]
    if not isinstance(ordered, bool) or not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise ValueError("value.json")
    return ordered, rows


def norm(value):
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return round(float(value), 2)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def row_text(row):
    return "(" + ", ".join(short(v, 30) for v in row) + ")"


def run():
    try:
        ordered, expected = expectations()
    except Exception:
        return False, "the checker's expectations (value.json) are missing or malformed"
    sql = read_output().strip()
    if ALLOW_FENCES:
        sql = strip_fences(sql)
        if sql is None:
            return False, "the output has an unclosed code fence"
    elif "```" in sql:
        return False, "the output contains Markdown code fences; bare SQL was required"
    if not sql:
        return False, "the output is empty"
    body = "\n".join(line for line in sql.splitlines() if not line.strip().startswith("--")).strip()
    first_word = body.lstrip("(").split(None, 1)[0].upper() if body.split() else ""
    if first_word not in ("SELECT", "WITH"):
        return False, "the output does not start with SELECT or WITH (found " + short(sql[:20]) + ")"
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    conn.executescript(FIXTURES)
    conn.execute("PRAGMA query_only = ON")
    deadline = time.process_time() + 0.3
    conn.set_progress_handler(lambda: 1 if time.process_time() > deadline else 0, 1000)
    try:
        cursor = conn.execute(sql)
        rows = cursor.fetchmany(1001)
    except Exception as error:
        return False, "the query failed: " + str(error)[:120]
    if len(rows) > 1000:
        return False, "the query returned more than 1000 rows"
    got = [[norm(v) for v in row] for row in rows]
    want = [[norm(v) for v in row] for row in expected]
    width = len(want[0]) if want else None
    if width is not None and got and len(got[0]) != width:
        return False, "the query returns " + str(len(got[0])) + " columns, expected " + str(width)
    if len(got) != len(want):
        return False, "the query returned " + str(len(got)) + " rows, expected " + str(len(want))
    if not ordered:
        key = lambda r: json.dumps(r, sort_keys=True, default=str)
        got, want = sorted(got, key=key), sorted(want, key=key)
    for i, (g, w) in enumerate(zip(got, want), 1):
        if g != w:
            where = "row " + str(i) if ordered else "a row"
            return False, where + " is " + row_text(g) + ", expected " + row_text(w) + ("" if ordered else " (order ignored)")
    return True, "all " + str(len(want)) + " rows match" + (" in order" if ordered else " (order ignored)")


finish(run)
