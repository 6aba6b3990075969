#!/usr/bin/env python3
"""Benchmark hindsight against DuckDB and pyarrow on the same synthetic studies.

    bench/run.sh [--sizes 10000,100000] [--threads 1,2] [--out BENCHMARKS.md]

For each size it writes a study with `hindsight synth`, then measures, at each thread count:
- convert: `hindsight convert` vs DuckDB (`read_json` of the cassettes + `COPY ... TO`
  Parquet) vs pyarrow (`pyarrow.json.read_json` + `write_table`), as input MB/s (the
  snapshot cassettes' size over wall time);
- evaluate: `hindsight evaluate`, safe outputs per second over all five windows;
- report: `hindsight report` (the whole dashboard) vs the same `queries/*.sql` in DuckDB
  over the same Parquet;
- peak memory of each, from `/usr/bin/time -v`.
It prints a table of ratios (hindsight / peer) and writes BENCHMARKS.md.
Timings belong here, never in tests.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "hindsight")
PY = os.path.join(ROOT, ".venv", "bin", "python")

DUCK_CONVERT = r"""
import duckdb, sys
con = duckdb.connect(); con.execute("SET threads=%s" % sys.argv[3])
con.execute("COPY (SELECT * FROM read_json(%r, format='newline_delimited', columns={'path': 'VARCHAR', 'status': 'INTEGER', 'page': 'INTEGER', 'body': 'JSON'})) TO %r (FORMAT PARQUET, COMPRESSION ZSTD)" % (sys.argv[1], sys.argv[2]))
"""
ARROW_CONVERT = r"""
import sys, pyarrow as pa, pyarrow.json as pj, pyarrow.parquet as pq, glob
pa.set_cpu_count(int(sys.argv[3]))
tables = [pj.read_json(f, read_options=pj.ReadOptions(use_threads=int(sys.argv[3]) > 1, block_size=1 << 24)) for f in sorted(glob.glob(sys.argv[1]))]
pq.write_table(pa.concat_tables(tables, promote_options="permissive"), sys.argv[2], compression="zstd")
"""
DUCK_REPORT = r"""
import duckdb, glob, os, sys
con = duckdb.connect(); con.execute("SET threads=%s" % sys.argv[3])
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.parquet"))):
    con.execute("CREATE VIEW %s AS SELECT * FROM read_parquet('%s')" % (os.path.basename(p)[:-8], p))
for q in sorted(glob.glob(os.path.join(sys.argv[2], "*.sql"))):
    con.execute(open(q).read()).fetchall()
"""


def timed(cmd, env=None):
    """(wall seconds, peak RSS MiB, ok, stderr tail) of a command under /usr/bin/time -v."""
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env)
    err = r.stderr
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", err)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    secs = 0.0
    if wall:
        parts = [float(x) for x in wall.group(1).split(":")]
        for p in parts:
            secs = secs * 60 + p
    # What the program itself printed comes before /usr/bin/time's report.
    own = [l for l in err.split("\tCommand being timed")[0].strip().splitlines() if not l.startswith("Command exited")]
    tail = own[-1] if own else ""
    return secs, (int(rss.group(1)) / 1024 if rss else 0.0), r.returncode == 0, tail


def mb(path_glob):
    return sum(os.path.getsize(p) for p in glob.glob(path_glob)) / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repos", type=int, default=200)
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    threads = [int(x) for x in a.threads.split(",")]
    work = tempfile.mkdtemp(prefix="hindsight-bench-")
    rows = []
    try:
        for n in sizes:
            study = os.path.join(work, "study-%d" % n)
            subprocess.run([BIN, "synth", "--repos", str(a.repos), "--outputs", str(n), "--seed", "1", "--out", study, "--quiet"], check=True)
            cassettes = os.path.join(study, "snapshot", "*.jsonl")
            size_mb = mb(cassettes)
            for t in threads:
                ds = os.path.join(work, "ds-%d-%d" % (n, t))
                shutil.rmtree(ds, ignore_errors=True)
                r = {"outputs": n, "threads": t, "input_mb": size_mb}
                r["h_convert"] = timed([BIN, "--threads", str(t), "--quiet", "convert", "--snapshot", os.path.join(study, "snapshot"), "--runs", os.path.join(study, "runs"), "--out", ds])
                r["h_evaluate"] = timed([BIN, "--threads", str(t), "--quiet", "evaluate", "--dataset", ds])
                r["h_report"] = timed([BIN, "--threads", str(t), "--quiet", "report", "--dataset", ds, "--format", "json"])
                r["d_convert"] = timed([PY, "-c", DUCK_CONVERT, cassettes, os.path.join(work, "duck-%d-%d.parquet" % (n, t)), str(t)])
                r["a_convert"] = timed([PY, "-c", ARROW_CONVERT, cassettes, os.path.join(work, "arrow-%d-%d.parquet" % (n, t)), str(t)])
                r["d_report"] = timed([PY, "-c", DUCK_REPORT, ds, os.path.join(ROOT, "queries"), str(t)])
                rows.append(r)
                print(json.dumps({k: (v if not isinstance(v, tuple) else v[:3]) for k, v in r.items()}), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write(a.out, rows, sizes, threads)


def rate(mbs, t):
    return mbs / t if t > 0 else 0.0


def cell(res, value):
    return ("%.1f" % value) if res[2] else "failed"


def write(path, rows, sizes, threads):
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = [
        "# Benchmarks",
        "",
        "Written by `bench/run.sh` on %s (%s, %d cores, %s). Release binary; DuckDB %s and pyarrow %s from `.venv`."
        % (datetime.date.today().isoformat(), platform.platform(), os.cpu_count() or 0, cpu, pkg("duckdb"), pkg("pyarrow")),
        "",
        "Command: `bench/run.sh --sizes %s --threads %s`. Input MB = the snapshot cassettes; outputs/s counts all five windows." % (",".join(map(str, sizes)), ",".join(map(str, threads))),
        "",
        "| outputs | threads | input MB | hindsight convert MB/s | DuckDB MB/s | pyarrow MB/s | convert ratio vs DuckDB | vs pyarrow | evaluate outputs/s | hindsight report s | DuckDB report s | report ratio (DuckDB time / ours) | peak MiB convert (h / DuckDB / pyarrow) | peak MiB evaluate |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        h, d, p = r["h_convert"], r["d_convert"], r["a_convert"]
        hr, dr = rate(r["input_mb"], h[0]), rate(r["input_mb"], d[0])
        pr = rate(r["input_mb"], p[0])
        ev = r["h_evaluate"]
        lines.append(
            "| %d | %d | %.1f | %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %.0f / %s / %s | %.0f |"
            % (
                r["outputs"], r["threads"], r["input_mb"], cell(h, hr), cell(d, dr), cell(p, pr),
                ("%.2f" % (hr / dr)) if d[2] and dr else "n/a", ("%.2f" % (hr / pr)) if p[2] and pr else "n/a",
                ("%.0f" % (r["outputs"] / ev[0])) if ev[0] else "n/a", r["h_report"][0], ("%.2f" % r["d_report"][0]) if r["d_report"][2] else "failed",
                ("%.2f" % (r["d_report"][0] / r["h_report"][0])) if r["d_report"][2] and r["h_report"][0] else "n/a",
                h[1], ("%.0f" % d[1]) if d[2] else "failed", ("%.0f" % p[1]) if p[2] else "failed", ev[1],
            )
        )
    fails = [(r["outputs"], r["threads"], k, r[k][3]) for r in rows for k in ("d_convert", "a_convert", "d_report") if not r[k][2]]
    if fails:
        lines += ["", "Peer failures (the peer could not do the job on this input):", ""]
        lines += ["- %d outputs, %d threads, %s: `%s`" % (n, t, k, e or "?") for n, t, k, e in fails]
    open(path, "w").write("\n".join(lines) + "\n")
    print("wrote", path)


def pkg(name):
    try:
        return subprocess.run([PY, "-c", "import %s; print(%s.__version__)" % (name, name)], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
