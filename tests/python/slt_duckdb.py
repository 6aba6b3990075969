"""Run the SQL of sqllogictest records (tests/slt/) with DuckDB, for tests/it/slt.rs.

    python slt_duckdb.py REQUEST.json

REQUEST is {"files": [{"views": "VIEWS.sql", "records": ["SQL", ...]}, ...]}: for each
file, a fresh connection runs the statements `hindsight views --dialect duckdb` printed,
then each record's SQL in order. Printed on stdout, as JSON:
{"files": [{"results": [{"columns": [NAME, ...], "rows": [[CELL, ...], ...]} or {"error": "..."}]}]}.

A cell is what DuckDB returned, left for the Rust side to print as the record's rows are
printed: null, true/false, a string, {"int": "DIGITS"}, {"float": "TEXT"} (Python's repr of
a float, or a DECIMAL's exact text: parsing it loses nothing) or {"other": "TEXT"} (str() of
any other value). Exit status 3 (with a message on stderr): the duckdb package is missing.
"""
import decimal
import json
import sys

try:
    import duckdb
except ImportError as e:
    print(f"cannot import duckdb ({e}): run scripts/test, which installs tests/requirements.txt into .venv", file=sys.stderr)
    sys.exit(3)


def cell(v):
    if v is None or isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, decimal.Decimal):
        return {"float": str(v)}
    return {"other": str(v)}


def run(con, sql):
    try:
        cur = con.execute(sql)
        if cur.description is None:
            return {"columns": [], "rows": []}
        rows = [[cell(v) for v in row] for row in cur.fetchall()]
        return {"columns": [d[0] for d in cur.description], "rows": rows}
    except duckdb.Error as e:
        return {"error": str(e)}


def main():
    with open(sys.argv[1]) as f:
        request = json.load(f)
    out = []
    for file in request["files"]:
        con = duckdb.connect()
        with open(file["views"]) as f:
            con.execute(f.read())
        out.append({"results": [run(con, sql) for sql in file["records"]]})
        con.close()
    json.dump({"files": out}, sys.stdout)


if __name__ == "__main__":
    main()
