"""Run one hindsight query file with DuckDB, after the statements `hindsight views
--dialect duckdb` printed; print the rows as JSON.

    python duckdb_query.py VIEWS.sql QUERY.sql
"""
import json
import sys

import duckdb


def main():
    views, query = sys.argv[1], sys.argv[2]
    con = duckdb.connect()
    con.execute(open(views).read())
    cur = con.execute(open(query).read())
    cols = [d[0] for d in cur.description]
    # Booleans stay booleans (Python's bool is an int).
    rows = [dict(zip(cols, [int(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in r])) for r in cur.fetchall()]
    json.dump(rows, sys.stdout, default=str)


if __name__ == "__main__":
    main()
