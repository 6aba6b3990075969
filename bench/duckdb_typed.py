#!/usr/bin/env python3
"""Run bench/duckdb_typed.sql (DuckDB doing convert's typed job) on a snapshot.

    .venv/bin/python bench/duckdb_typed.py SNAPSHOT OUT [THREADS] [--check DATASET]
    .venv/bin/python bench/duckdb_typed.py --compare OUT DATASET

Writes OUT/responses.parquet and the nine typed tables' files, and prints as its last line
{"seconds": S}: the time from DuckDB's connection to its last file written (bench/run.py
takes that, so the interpreter's start-up is not counted against DuckDB). With --check
DATASET (a dataset `hindsight convert` wrote from the same snapshot), or with --compare on
tables written earlier, it compares them table by table: the columns and types, the row
counts and the rows themselves in order (every column but `body` of `responses`, which
DuckDB's JSON reader re-writes), and prints what differs; exit 1 when anything does.
"""
import argparse
import json
import os
import sys
import time

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
SQL = os.path.join(HERE, "duckdb_typed.sql")
TABLES = ("responses", "issues", "pull_requests", "issue_comments", "review_comments", "reviews", "commits",
          "timeline_events", "reactions", "issue_labels")


def script(snapshot, out, threads):
    """The script with its placeholders filled in (paths absolute, quotes doubled)."""
    q = lambda p: os.path.abspath(p).replace("'", "''")
    return open(SQL).read().replace("{SNAPSHOT}", q(snapshot)).replace("{OUT}", q(out)).replace("{THREADS}", str(int(threads)))


def memory_limit():
    """Half the memory available now, for DuckDB's `memory_limit` (None when unknown). Its
    default, 80% of the machine's memory, is more than a shared machine may have free; beyond
    the limit DuckDB spills to its temp directory (in OUT) instead of failing."""
    try:
        for l in open("/proc/meminfo"):
            if l.startswith("MemAvailable:"):
                return "%dMB" % (int(l.split()[1]) // 1024 // 2)
    except (OSError, ValueError, IndexError):
        pass
    return None


def run(snapshot, out, threads):
    """Seconds from the connection to the last file written."""
    os.makedirs(out, exist_ok=True)
    sql = script(snapshot, out, threads)
    t0 = time.perf_counter()
    con = duckdb.connect()
    limit = memory_limit()
    if limit:
        con.execute("SET memory_limit = '%s'" % limit)
    con.execute(sql)
    con.close()
    return time.perf_counter() - t0


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
            da, db = dict(a), dict(b)
            parts = ["hindsight only: " + ", ".join(c for c, _ in b if c not in da),
                     "DuckDB only: " + ", ".join(c for c, _ in a if c not in db),
                     "types: " + ", ".join("%s %s (hindsight %s)" % (c, k, db[c]) for c, k in a if c in db and db[c] != k)]
            same = [c for c, _ in a if c in db]
            if [c for c, _ in b if c in da] != same:
                parts.append("order differs")
            problems.append("%s: columns differ: %s" % (t, "; ".join(p for p in parts if not p.endswith(": "))))
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
    if sys.argv[1:2] == ["--compare"]:
        if len(sys.argv) != 4:
            sys.exit("usage: duckdb_typed.py --compare OUT DATASET")
        return 0 if check(sys.argv[2], sys.argv[3]) else 1
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshot")
    ap.add_argument("out")
    ap.add_argument("threads", nargs="?", default=os.cpu_count() or 1, type=int)
    ap.add_argument("--check", metavar="DATASET")
    args = ap.parse_args()
    print(json.dumps({"seconds": run(args.snapshot, args.out, args.threads)}), flush=True)
    if args.check:
        return 0 if check(args.out, args.check) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
