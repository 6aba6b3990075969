"""Check `hindsight export --sqlite` against the dataset's Parquet tables, with Python's own
sqlite3 module and pyarrow, and make the tables that stretch the writer.

    python sqlite_export.py check DB DATASET [DB DATASET...]  # integrity, then every table row by row; a JSON summary of the first
    python sqlite_export.py extend DATASET  # add `types` (every kind of column) and `big` (deep and long) tables
    python sqlite_export.py wide DATASET N...  # DATASET-N for each N: DATASET's manifest with one table, whose column name is N characters

The expected values are worked out here from the documented conversions (docs/SQLITE.md),
independently of hindsight's code.
"""
import datetime
import decimal
import hashlib
import json
import math
import os
import sqlite3
import sys

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

EPOCH = datetime.datetime(1970, 1, 1)
PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def iso(ticks, unit, zone):
    secs, frac = divmod(ticks, PER_SECOND[unit])
    nanos = frac * (10**9 // PER_SECOND[unit])
    s = (EPOCH + datetime.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%S")
    if nanos % 10**9 == 0:
        pass
    elif nanos % 10**6 == 0:
        s += ".%03d" % (nanos // 10**6)
    elif nanos % 1000 == 0:
        s += ".%06d" % (nanos // 1000)
    else:
        s += ".%09d" % nanos
    return s + ("Z" if zone else "")


def nested(t):
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_struct(t) or pa.types.is_map(t)


def expected(col, t):
    """A column's values as SQLite should hold them."""
    if pa.types.is_dictionary(t):
        return expected(col.cast(t.value_type), t.value_type)
    if pa.types.is_timestamp(t):
        return [None if v is None else iso(v, t.unit, t.tz) for v in col.cast(pa.int64()).to_pylist()]
    if pa.types.is_duration(t):
        return [None if v is None else v / PER_SECOND[t.unit] for v in col.cast(pa.int64()).to_pylist()]
    values = col.to_pylist()
    if pa.types.is_date(t):
        return [None if v is None else v.isoformat() for v in values]
    if pa.types.is_boolean(t):
        return [None if v is None else int(v) for v in values]
    if pa.types.is_integer(t):
        return [v if v is None or v < 2**63 else str(v) for v in values]
    if pa.types.is_floating(t):
        return [None if v is None or math.isnan(v) else v for v in values]
    if pa.types.is_decimal(t):
        return [None if v is None else str(v) for v in values]
    if pa.types.is_map(t):
        return [None if v is None else dict(v) for v in values]
    return values


STORAGE = {"INTEGER": "integer", "REAL": "real", "TEXT": "text", "BLOB": "blob", "": "integer"}


def check_table(con, ds, table):
    t = pq.read_table(f"{ds}/{table}.parquet")
    cur = con.execute(f'SELECT * FROM "{table}" ORDER BY rowid')
    assert [d[0] for d in cur.description] == t.column_names, (table, cur.description)
    rows = cur.fetchall()
    assert len(rows) == t.num_rows, (table, len(rows), t.num_rows)
    rowids = [r[0] for r in con.execute(f'SELECT rowid FROM "{table}"')]
    assert rowids == list(range(1, t.num_rows + 1)), table
    declared = {r[1]: r[2] for r in con.execute(f'PRAGMA table_info("{table}")')}
    for k, f in enumerate(t.schema):
        want = expected(t.column(k), f.type)
        got = [r[k] for r in rows]
        if nested(f.type):
            got = [None if g is None else json.loads(g) for g in got]
        for i, (g, w) in enumerate(zip(got, want)):
            assert g == w, f"{table}.{f.name} row {i + 1}: SQLite {g!r}, Parquet {w!r}"
        # Every value is stored as its declared type says (a uint64 past SQLite's integers
        # aside, which is documented as text).
        kinds = {r[0] for r in con.execute(f'SELECT DISTINCT typeof("{f.name}") FROM "{table}"')} - {"null"}
        allowed = {STORAGE[declared[f.name]]} | ({"text"} if pa.types.is_uint64(f.type) else set())
        assert kinds <= allowed, (table, f.name, declared[f.name], kinds)
    return t.num_rows


def check(db, ds, say=True):
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    manifest = json.load(open(f"{ds}/manifest.json"))
    tables = sorted(manifest["tables"])
    schema = [r[0] for r in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid")]
    assert schema == tables + ["hindsight_manifest", "hindsight_columns"], schema
    rows = {t: check_table(con, ds, t) for t in tables}
    kept = dict(con.execute("SELECT key, value FROM hindsight_manifest"))
    assert kept.keys() == manifest.keys(), kept.keys()
    for k, v in manifest.items():
        assert (kept[k] if isinstance(v, str) else json.loads(kept[k])) == v, k
    columns = con.execute("SELECT COUNT(*) FROM hindsight_columns").fetchone()[0]
    assert columns == sum(len(pq.read_schema(f"{ds}/{t}.parquet")) for t in tables)
    summary = {"tables": rows, "columns": columns}
    if "outcomes" in tables:
        summary.update(outcomes(con, ds))
    if say:
        json.dump(summary, sys.stdout)


def outcomes(con, ds):
    """A query's answer from SQLite and from pandas on the Parquet."""
    lite = dict(con.execute("SELECT outcome_status, COUNT(*) FROM outcomes GROUP BY 1"))
    frame = pd.read_parquet(f"{ds}/outcomes.parquet")
    assert lite == frame.outcome_status.value_counts().to_dict(), lite
    week = con.execute("SELECT COUNT(*) FROM outcomes WHERE eval_window = '7d' AND outcome_status = 'accepted'").fetchone()[0]
    assert week == int(((frame.eval_window == "7d") & (frame.outcome_status == "accepted")).sum())
    # SQLite's date functions read the times as written.
    unread = con.execute("SELECT COUNT(*) FROM outcomes WHERE created_at IS NOT NULL AND julianday(created_at) IS NULL").fetchone()[0]
    assert unread == 0
    first = con.execute("SELECT MIN(created_at) FROM outcomes").fetchone()[0]
    assert first == frame.created_at.min().strftime("%Y-%m-%dT%H:%M:%SZ"), first
    return {"by_status": lite}


def register(ds, table):
    """`table`, written as DS/table.parquet, listed in the manifest."""
    path = f"{ds}/{table}.parquet"
    manifest = json.load(open(f"{ds}/manifest.json"))
    data = open(path, "rb").read()
    rows = pq.read_metadata(path).num_rows
    manifest["tables"][table] = {"rows": rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    json.dump(manifest, open(f"{ds}/manifest.json", "w"), indent=2)


def types_table():
    n = 7
    when = [datetime.datetime(2025, 6, 1, 12, 0, 0), datetime.datetime(2025, 6, 1, 12, 0, 0, 123000), datetime.datetime(1969, 12, 31, 23, 59, 59, 999999)]
    cols = {
        "flag": pa.array([True, False, None] + [True] * (n - 3)),
        "tiny": pa.array([-128, 127, None, 0, 1, 2, 3], pa.int8()),
        "big_unsigned": pa.array([2**64 - 1, 2**63, 2**63 - 1, 0, 1, None, 5], pa.uint64()),
        "wide": pa.array([-(2**63), 2**63 - 1, 2**40, -(2**23), 2**23, 70000, None], pa.int64()),
        "half": pa.array([1.5, float("nan"), None, float("inf"), -0.25, 3.0, 1e-300], pa.float32()),
        "label": pa.array(["a", "b", None, "a", "é ü 中", "", "x"]).dictionary_encode(),
        "view": pa.array(["v", None, "w", "", "y", "z", "q"], pa.string_view()),
        "bytes": pa.array([b"\x00\x01", None, b"", b"abc", b"\xff", b"z", b"q"], pa.binary()),
        "fixed": pa.array([b"ab", b"cd", None, b"ef", b"gh", b"ij", b"kl"], pa.binary(2)),
        "at_utc": pa.array(when + [None, datetime.datetime(2000, 2, 29), datetime.datetime(2030, 1, 1, 0, 0, 0, 1), datetime.datetime(2025, 1, 1)], pa.timestamp("us", tz="UTC")),
        "at_ns": pa.array([1, 1_000_000_000, None, 1_500_000_000, 123_456_789, 0, 10**18], pa.timestamp("ns", tz="+02:00")),
        "local": pa.array(when + [None] * 4, pa.timestamp("ms")),
        "day": pa.array([datetime.date(2025, 6, 1), None, datetime.date(1960, 1, 1)] + [datetime.date(2026, 2, 1)] * 4, pa.date32()),
        "took": pa.array([1500, None, 0, -250, 1, 2, 3], pa.duration("ms")),
        "price": pa.array([decimal.Decimal("1.50"), None, decimal.Decimal("-0.01")] + [decimal.Decimal("123456.78")] * 4, pa.decimal128(10, 2)),
        "tags": pa.array([["a", "b"], [], None, ["c"], ["d", None], ["e"], ["f"]], pa.list_(pa.string())),
        "point": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": "b"}] + [{"x": 2, "y": "c"}] * 4),
        "attrs": pa.array([[("k", 1)], None, [], [("a", 2), ("b", 3)], [("z", None)], [("q", 4)], [("r", 5)]], pa.map_(pa.string(), pa.int64())),
        "nothing": pa.nulls(n),
    }
    return pa.table(cols)


def big_table():
    """Enough rows for two levels of interior pages, and texts long enough for chains of
    overflow pages (a few bytes past each local-payload threshold too)."""
    n = 300_000
    ids = pa.array(range(n), pa.int64())
    text = pa.array([f"row {i}" for i in range(n)])
    long = [None] * n
    for k, size in enumerate([4000, 4061, 4062, 4100, 4582, 8000, 20_000, 100_000, 1_000_000]):
        long[k * 1000 + 7] = "".join(chr(ord("a") + (i * 7 + k) % 26) for i in range(size))
    return pa.table({"id": ids, "text": text, "long": pa.array(long, pa.large_string())})


def extend(ds):
    pq.write_table(types_table(), f"{ds}/types.parquet")
    register(ds, "types")
    pq.write_table(big_table(), f"{ds}/big.parquet", row_group_size=50_000)
    register(ds, "big")


def wide(base, n):
    ds = f"{base}-{n}"
    os.makedirs(ds)
    manifest = json.load(open(f"{base}/manifest.json"))
    manifest["tables"] = {}
    json.dump(manifest, open(f"{ds}/manifest.json", "w"), indent=2)
    pq.write_table(pa.table({"c" * n: pa.array([1, 2])}), f"{ds}/wide.parquet")
    register(ds, "wide")


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "check":
        pairs = list(zip(sys.argv[2::2], sys.argv[3::2]))
        for k, (db, ds) in enumerate(pairs):
            check(db, ds, say=k == 0)
    elif what == "extend":
        extend(sys.argv[2])
    elif what == "wide":
        for n in sys.argv[3:]:
            wide(sys.argv[2], int(n))
