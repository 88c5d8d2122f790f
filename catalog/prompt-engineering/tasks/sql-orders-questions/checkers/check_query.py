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

ALLOW_FENCES = True
SCHEMA = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL, signup_date TEXT NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), order_date TEXT NOT NULL, status TEXT NOT NULL);
CREATE TABLE order_items (order_id INTEGER NOT NULL REFERENCES orders(id), product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL, unit_price REAL NOT NULL);
"""
FIXTURES = """
INSERT INTO customers VALUES
 (1,'Ava Lindholm','SE','2023-11-02'),(2,'Bram de Vries','NL','2024-01-15'),(3,'Chidi Okafor','NG','2024-03-09'),
 (4,'Dana Whitcombe','GB','2024-07-21'),(5,'Emre Yilmaz','TR','2024-12-31'),(6,'Fenna Jansen','NL','2025-01-03'),
 (7,'Gustavo Reyes','MX','2023-06-30'),(8,'Hiroko Sato','JP','2024-09-12'),(9,'Isla Mackenzie','GB','2025-02-18');
INSERT INTO products VALUES
 (1,'Trail Flask 750ml','outdoor'),(2,'Alpine Tent 2P','outdoor'),(3,'Merino Beanie','apparel'),(4,'Rain Shell Jacket','apparel'),
 (5,'Camp Stove Mini','outdoor'),(6,'Wool Socks 3-pack','apparel'),(7,'Headlamp 300lm','electronics'),(8,'Solar Charger 10W','electronics'),
 (9,'Trekking Poles','outdoor'),(10,'Bivvy Bag','outdoor');
INSERT INTO orders VALUES
 (101,1,'2024-01-20','delivered'),(102,2,'2024-02-03','delivered'),(103,1,'2024-02-28','cancelled'),(104,3,'2024-03-15','shipped'),
 (105,4,'2024-03-30','delivered'),(106,2,'2024-05-11','delivered'),(107,7,'2024-05-19','cancelled'),(108,8,'2024-09-14','shipped'),
 (109,4,'2024-09-30','pending'),(110,5,'2025-01-04','delivered'),(111,3,'2025-01-22','delivered'),(112,1,'2025-02-10','shipped'),
 (113,8,'2024-11-05','delivered'),(114,2,'2024-11-27','cancelled');
INSERT INTO order_items VALUES
 (101,1,2,18.50),(101,3,1,24.00),(102,2,1,289.00),(102,6,2,15.00),(103,7,1,39.90),(104,4,1,129.00),(104,1,1,18.50),
 (105,5,1,54.00),(105,6,3,15.00),(106,8,2,49.00),(106,7,1,39.90),(107,2,1,289.00),(108,3,2,24.00),(108,4,1,129.00),
 (109,1,4,18.50),(110,7,2,39.90),(111,2,1,279.00),(111,5,1,54.00),(112,6,1,15.00),(113,4,1,119.00),(113,3,1,24.00),
 (114,9,1,64.00);
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
