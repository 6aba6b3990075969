#!/usr/bin/env python3
"""Run bench/duckdb_typed.sql (DuckDB doing convert's typed job) on a snapshot.

    .venv/bin/python bench/duckdb_typed.py SNAPSHOT OUT [THREADS] [--check DATASET]

Writes OUT/responses.parquet and the nine typed tables' files. With --check DATASET (a
dataset `hindsight convert` wrote from the same snapshot) it then compares, table by table,
the columns and types, the row counts and the rows themselves (every column but `body` of
`responses`, which DuckDB's JSON reader re-writes), and prints what differs; exit 1 when
anything does. The check is not part of what bench/run.py times.
"""
import argparse
import os
import sys

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
SQL = os.path.join(HERE, "duckdb_typed.sql")
TABLES = ("responses", "issues", "pull_requests", "issue_comments", "review_comments", "reviews", "commits",
          "timeline_events", "reactions", "issue_labels")


def script(snapshot, out, threads):
    """The script with its placeholders filled in (paths absolute, quotes doubled)."""
    q = lambda p: os.path.abspath(p).replace("'", "''")
    return open(SQL).read().replace("{SNAPSHOT}", q(snapshot)).replace("{OUT}", q(out)).replace("{THREADS}", str(int(threads)))


def run(snapshot, out, threads):
    os.makedirs(out, exist_ok=True)
    con = duckdb.connect()
    con.execute(script(snapshot, out, threads))
    con.close()


def check(out, dataset):
    """What differs between DuckDB's tables (OUT) and hindsight's (DATASET): a line each."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    problems = []
    for t in TABLES:
        mine, theirs = os.path.join(out, t + ".parquet"), os.path.join(dataset, t + ".parquet")
        cols = lambda p: [(r[0], r[1]) for r in con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [p]).fetchall()]
        a, b = cols(mine), cols(theirs)
        if a != b:
            problems.append("%s: columns differ: DuckDB %s, hindsight %s" % (t, a, b))
            continue
        keep = ", ".join('"%s"' % c for c, _ in a if not (t == "responses" and c == "body"))
        n = lambda p: con.execute("SELECT count(*) FROM read_parquet(?)", [p]).fetchone()[0]
        na, nb = n(mine), n(theirs)
        # Row order too: each side numbered in file order.
        numbered = "SELECT row_number() OVER () AS r, %s FROM read_parquet('%s')"
        diff = con.execute("SELECT count(*) FROM ((%s) EXCEPT ALL (%s))" % (
            numbered % (keep, mine.replace("'", "''")), numbered % (keep, theirs.replace("'", "''")))).fetchone()[0]
        status = "same" if na == nb and diff == 0 else "DIFFERENT"
        print("%-16s %8d rows (hindsight %d), %d rows differ: %s" % (t, na, nb, diff, status))
        if status != "same":
            problems.append("%s: %d rows differ" % (t, diff))
    for p in problems:
        print(p)
    return not problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshot")
    ap.add_argument("out")
    ap.add_argument("threads", nargs="?", default=os.cpu_count() or 1, type=int)
    ap.add_argument("--check", metavar="DATASET")
    args = ap.parse_args()
    run(args.snapshot, args.out, args.threads)
    if args.check:
        return 0 if check(args.out, args.check) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
