"""Run one hindsight query file with DuckDB over a dataset's Parquet; print the rows as JSON.

    python duckdb_query.py DATASET_DIR QUERY.sql

Every `*.parquet` in the dataset is a view named after its file, as in DataFusion.
"""
import glob
import json
import os
import sys

import duckdb


def main():
    dataset, query = sys.argv[1], sys.argv[2]
    con = duckdb.connect()
    # hindsight's times are UTC; DuckDB reads a TIMESTAMPTZ's parts in the session's zone.
    con.execute("SET TimeZone = 'UTC'")
    for path in sorted(glob.glob(os.path.join(dataset, "*.parquet"))):
        name = os.path.splitext(os.path.basename(path))[0]
        con.execute("CREATE VIEW %s AS SELECT * FROM read_parquet('%s')" % (name, path.replace("'", "''")))
    cur = con.execute(open(query).read())
    cols = [d[0] for d in cur.description]
    rows = [dict(zip(cols, [int(v) if isinstance(v, int) else v for v in r])) for r in cur.fetchall()]
    json.dump(rows, sys.stdout, default=str)


if __name__ == "__main__":
    main()
