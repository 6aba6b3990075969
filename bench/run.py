#!/usr/bin/env python3
"""Benchmark hindsight against DuckDB and pyarrow on the same synthetic studies.

    bench/run.sh [--sizes 10000,100000] [--threads 1,2] [--out BENCHMARKS.md]

For each size it writes a study with `hindsight synth` (once; deleted after that size's runs),
then measures, at each thread count:
- convert: `hindsight convert` vs DuckDB (`read_json` of the cassettes + `COPY ... TO`
  Parquet) vs pyarrow (`pyarrow.json.read_json` + `write_table`), as input MB/s (the
  snapshot cassettes' size over wall time) and µs of wall time per safe output. pyarrow's
  JSON reader needs one type per column and `body` changes shape between lines, so when its
  full read fails it is timed again reading every line but keeping only path/status/page
  (the failed attempt is not counted), and the output says which mode was used;
- evaluate: `hindsight evaluate`, safe outputs per second over all five windows, and µs of
  wall time per safe output;
- report: `hindsight report` (the whole dashboard) vs the same `queries/*.sql` in DuckDB
  over the same Parquet;
- peak memory of each, from `/usr/bin/time -v`.
It prints a JSON line of the run (date, machine, the peers' versions), one JSON line per
measured row, a table of ratios (hindsight / peer) and the targets of issue 6 checked against
the rows, and writes BENCHMARKS.md: one table per stage, the targets and the method, this run
only (earlier runs are in git's history of the file). The sections from "The SQL shell's first
look" on are written by hand and kept as they are. `--rows FILE` writes the file again from
what an earlier run printed, measuring nothing. Timings belong here, never in tests.
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
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "hindsight")
PY = os.path.join(ROOT, ".venv", "bin", "python")

DUCK_CONVERT = r"""
import duckdb, sys
con = duckdb.connect(); con.execute("SET threads=%s" % sys.argv[3])
con.execute("COPY (SELECT * FROM read_json(%r, format='newline_delimited', columns={'path': 'VARCHAR', 'status': 'INTEGER', 'page': 'INTEGER', 'body': 'JSON'})) TO %r (FORMAT PARQUET, COMPRESSION ZSTD)" % (sys.argv[1], sys.argv[2]))
"""
# Prints {"mode": "full"|"slim", "failed_s": seconds spent on a failed full read} as its last line.
ARROW_CONVERT = r"""
import glob, json, sys, time, pyarrow as pa, pyarrow.json as pj, pyarrow.parquet as pq
pa.set_cpu_count(int(sys.argv[3]))
ro = pj.ReadOptions(use_threads=int(sys.argv[3]) > 1, block_size=1 << 24)
files = sorted(glob.glob(sys.argv[1]))
t0, failed = time.perf_counter(), 0.0
try:
    table = pa.concat_tables([pj.read_json(f, read_options=ro) for f in files], promote_options="permissive")
    mode = "full"
except pa.ArrowInvalid:
    # One type per column: `body` changing shape between lines stops the full read. Parse every
    # line anyway, keeping path/status/page and dropping the body.
    mode, failed = "slim", time.perf_counter() - t0
    schema = pa.schema([("path", pa.string()), ("status", pa.int64()), ("page", pa.int64())])
    po = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    table = pa.concat_tables([pj.read_json(f, read_options=ro, parse_options=po) for f in files])
pq.write_table(table, sys.argv[2], compression="zstd")
print(json.dumps({"mode": mode, "failed_s": failed, "rows": table.num_rows}))
"""
DUCK_REPORT = r"""
import duckdb, glob, os, sys
con = duckdb.connect(); con.execute("SET threads=%s" % sys.argv[3])
# The tables and the views the queries read, as `hindsight views` writes them (argv[4]).
con.execute(open(sys.argv[4]).read())
# The sections hindsight's dashboard showed on this dataset (argv[5]: their names, a line each),
# so both engines run the same queries (a section over a table the dataset lacks is left out).
shown = set(open(sys.argv[5]).read().split())
for q in sorted(glob.glob(os.path.join(sys.argv[2], "*.sql"))):
    name = os.path.basename(q)[:-4]
    if name in shown:
        con.execute(open(q).read()).fetchall()
"""

SLIM_NOTE = (
    "pyarrow could not keep `body` (its JSON reader needs one type per column, and `body` changes shape "
    "between lines), so it was timed parsing every line and writing path/status/page only: less work than "
    "hindsight and DuckDB do, so the ratio against it is conservative. Its failed full read is not counted."
)


def timed(cmd, env=None):
    """(wall seconds, peak RSS MiB, ok, stderr tail, stdout) of a command under /usr/bin/time -v.

    Wall time is measured here (finer than /usr/bin/time's 10 ms); the peak RSS comes from it."""
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env)
    secs = time.perf_counter() - t0
    err = r.stderr
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    # What the program itself printed comes before /usr/bin/time's report.
    own = [l for l in err.split("\tCommand being timed")[0].strip().splitlines() if not l.startswith("Command exited")]
    tail = own[-1] if own else ""
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", err))
    return secs, (int(rss.group(1)) / 1024 if rss else 0.0), r.returncode == 0, tail, r.stdout, cpu


def cores_busy(res):
    """(user + sys) / wall of a timed run: how many cores it kept busy (None when it failed)."""
    return round(res[5] / res[0], 2) if res[2] and res[0] > 0 else None


def mb(path_glob):
    return sum(os.path.getsize(p) for p in glob.glob(path_glob)) / 1e6


def arrow_mode(res):
    """pyarrow's mode and the seconds of its failed full read, from the snippet's last stdout line."""
    try:
        info = json.loads(res[4].strip().splitlines()[-1])
        return info["mode"], float(info["failed_s"])
    except (IndexError, ValueError, KeyError, TypeError):
        return None, 0.0


def rm(path):
    if os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.exists(path):
        os.remove(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repos", type=int, default=200)
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--rows", help="re-write the report from the JSON rows an earlier run printed (its stdout), measuring nothing")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    threads = [int(x) for x in args.threads.split(",")]
    if args.rows:
        rows, run = [], None
        for l in open(args.rows):
            if l.startswith("{"):
                r = json.loads(l)
                if "run" in r:
                    run = r["run"]
                    continue
                rows.append({k: (tuple(v) + ("",) if isinstance(v, list) else v) for k, v in r.items()})
        sizes = sorted({r["outputs"] for r in rows})
        threads = sorted({r["threads"] for r in rows})
        target_lines = targets(rows, sizes, threads)
        print("\n".join(ratio_table(rows) + [""] + target_lines + ["", WITHIN_ONE_RUN]))
        write(args.out, rows, sizes, threads, (run or {}).get("repos", args.repos), target_lines, run)
        return
    # The run's own line, first: what --rows needs to say where and when it was measured.
    run = dict(machine(), repos=args.repos)
    print(json.dumps({"run": run}), flush=True)
    work = tempfile.mkdtemp(prefix="hindsight-bench-")
    empty_runs = os.path.join(work, "no-runs")
    os.makedirs(empty_runs)
    rows = []
    try:
        for n in sizes:
            study = os.path.join(work, "study-%d" % n)
            subprocess.run([BIN, "synth", "--repos", str(args.repos), "--outputs", str(n), "--seed", "1", "--out", study, "--quiet"], check=True)
            cassettes = os.path.join(study, "snapshot", "*.jsonl")
            size_mb = mb(cassettes)
            try:
                for t in threads:
                    ds = os.path.join(work, "ds-%d-%d" % (n, t))
                    duck_out = os.path.join(work, "duck-%d-%d.parquet" % (n, t))
                    arrow_out = os.path.join(work, "arrow-%d-%d.parquet" % (n, t))
                    r = {"outputs": n, "threads": t, "input_mb": size_mb}
                    try:
                        # Like for like with the peers: the same cassettes in, Parquet out (no runs).
                        r["h_convert_snap"] = timed([BIN, "--threads", str(t), "--quiet", "convert", "--snapshot", os.path.join(study, "snapshot"), "--runs", empty_runs, "--out", ds])
                        rm(ds)
                        r["h_convert"] = timed([BIN, "--threads", str(t), "--quiet", "convert", "--snapshot", os.path.join(study, "snapshot"), "--runs", os.path.join(study, "runs"), "--out", ds])
                        r["h_convert_cores"] = cores_busy(r["h_convert"])
                        r["h_evaluate"] = timed([BIN, "--threads", str(t), "--quiet", "evaluate", "--dataset", ds])
                        r["h_evaluate_cores"] = cores_busy(r["h_evaluate"])
                        r["h_report"] = timed([BIN, "--threads", str(t), "--quiet", "report", "--dataset", ds, "--format", "json"])
                        r["d_convert"] = timed([PY, "-c", DUCK_CONVERT, cassettes, duck_out, str(t)])
                        a = timed([PY, "-c", ARROW_CONVERT, cassettes, arrow_out, str(t)])
                        r["a_mode"], r["a_failed_s"] = arrow_mode(a)
                        r["a_failed_s"] = round(r["a_failed_s"], 3)
                        if a[2] and r["a_failed_s"]:
                            a = (max(a[0] - r["a_failed_s"], 0.0),) + a[1:]
                        r["a_convert"] = a
                        views_sql = os.path.join(work, "views-%d.sql" % t)
                        with open(views_sql, "w") as f:
                            subprocess.run([BIN, "views", "--dataset", ds, "--absolute"], check=True, stdout=f)
                        shown = os.path.join(work, "sections-%d.txt" % t)
                        with open(shown, "w") as f:
                            f.write("\n".join(json.loads(r["h_report"][4]).keys()) if r["h_report"][2] else "")
                        r["d_report"] = timed([PY, "-c", DUCK_REPORT, ds, os.path.join(ROOT, "queries"), str(t), views_sql, shown])
                    finally:
                        for p in (ds, duck_out, arrow_out):
                            rm(p)
                    rows.append(r)
                    x = derive(r)
                    line = {k: (v if not isinstance(v, tuple) else [round(v[0], 3), round(v[1]), v[2]]) for k, v in r.items()}
                    line.update({"convert_us_per_output": rnd(x["convert_us"]), "evaluate_us_per_output": rnd(x["eval_us"])})
                    print(json.dumps(line), flush=True)
            finally:
                shutil.rmtree(study, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ratio_lines = ratio_table(rows)
    target_lines = targets(rows, sizes, threads)
    print()
    print("\n".join(ratio_lines))
    print()
    print("\n".join(target_lines))
    print()
    print(WITHIN_ONE_RUN)
    write(args.out, rows, sizes, threads, args.repos, target_lines, run)


def rnd(v, digits=1):
    return None if v is None else round(v, digits)


def good(res):
    return res[2] and res[0] > 0


def derive(r):
    """The derived numbers of one row; None where a run failed."""
    n, size = r["outputs"], r["input_mb"]
    h, d, p, ev, hr, dr = (r[k] for k in ("h_convert", "d_convert", "a_convert", "h_evaluate", "h_report", "d_report"))
    hs = r["h_convert_snap"]
    return {
        "h_mbs": size / hs[0] if good(hs) else None,
        "d_mbs": size / d[0] if good(d) else None,
        "a_mbs": size / p[0] if good(p) else None,
        "vs_duck": d[0] / hs[0] if good(hs) and good(d) else None,
        "vs_arrow": p[0] / hs[0] if good(hs) and good(p) else None,
        "convert_us": h[0] / n * 1e6 if good(h) else None,
        "eval_ops": n / ev[0] if good(ev) else None,
        "eval_us": ev[0] / n * 1e6 if good(ev) else None,
        "report_ratio": dr[0] / hr[0] if good(hr) and good(dr) else None,
    }


def num(v, spec):
    return "n/a" if v is None else spec % v


def cell(res, value, spec="%.1f"):
    return "failed" if not res[2] else num(value, spec)


def slim(r):
    return r.get("a_mode") == "slim"


def ratio_table(rows):
    """The compact stdout table: speed ratios hindsight / peer (> 1: hindsight faster) and cost per output."""
    head = ("outputs", "threads", "convert/DuckDB", "convert/pyarrow", "report/DuckDB", "convert µs/out", "evaluate µs/out", "evaluate out/s")
    body = []
    for r in rows:
        x = derive(r)
        body.append((
            str(r["outputs"]), str(r["threads"]), num(x["vs_duck"], "%.2fx"),
            num(x["vs_arrow"], "%.2fx") + ("*" if slim(r) else ""), num(x["report_ratio"], "%.2fx"),
            num(x["convert_us"], "%.1f"), num(x["eval_us"], "%.1f"), num(x["eval_ops"], "%.0f"),
        ))
    widths = [max(len(c[i]) for c in [head] + body) for i in range(len(head))]
    out = ["Speed ratios, hindsight / peer (> 1: hindsight faster):", ""]
    out += ["  ".join(c[i].rjust(widths[i]) for i in range(len(head))) for c in [head] + body]
    if any(slim(r) for r in rows):
        out += ["", "* pyarrow kept path/status/page only (it cannot keep `body`): less work than hindsight does."]
    return out


def at_least(value, target):
    """PASS/MISS for a value that must be >= target, and by how much."""
    if value >= target:
        return "**PASS** (%.0f%% above)" % ((value / target - 1) * 100)
    return "**MISS** (%.0f%% short of %.1fx)" % ((1 - value / target) * 100, target)


def below(value, limit):
    """PASS/MISS for a value that must be < limit, and by how much."""
    if value < limit:
        return "**PASS** (%.0f%% under)" % ((1 - value / limit) * 100)
    return "**MISS** (%.2fx the limit)" % (value / limit)


def where(r):
    return "%d outputs, %d thread%s" % (r["outputs"], r["threads"], "" if r["threads"] == 1 else "s")


def spread(rows, key, target, label):
    """Worst and best of a per-row ratio that must be >= target."""
    vals = [(derive(r)[key], r) for r in rows if derive(r)[key] is not None]
    if not vals:
        return "- %s (target >= %.1fx): no successful runs to compare." % (label, target)
    (lo, rlo), (hi, rhi) = min(vals, key=lambda v: v[0]), max(vals, key=lambda v: v[0])
    missing = len(rows) - len(vals)
    return "- %s (target >= %.1fx): worst %.2fx (%s), best %.2fx (%s): %s%s." % (
        label, target, lo, where(rlo), hi, where(rhi), at_least(lo, target),
        "; %d row%s without a number" % (missing, "" if missing == 1 else "s") if missing else "",
    )


def targets(rows, sizes, threads):
    """The targets of issue 6, one bullet each, computed from the measured rows."""
    by = {(r["outputs"], r["threads"]): r for r in rows}
    small, large = min(sizes), max(sizes)
    out = ["## Against the targets (issue 6), computed from the figures above", ""]
    out.append(spread(rows, "vs_duck", 1.0, "convert throughput vs DuckDB"))
    arrow = spread(rows, "vs_arrow", 1.5, "convert throughput vs pyarrow")
    nslim = sum(1 for r in rows if slim(r))
    if nslim:
        arrow += " pyarrow kept path/status/page only in %d of %d rows (see the note under the table), so this ratio is conservative." % (nslim, len(rows))
    out.append(arrow)

    t_eval = 2 if 2 in threads else max(threads)
    r = by.get((large, t_eval))
    ops = derive(r)["eval_ops"] if r else None
    if ops:
        proj = 1e6 / ops
        out.append("- evaluate at %s: %s outputs/s, so 1M outputs would take ~%.1f s (target < 10 s): %s%s." % (
            where(r), "{:,.0f}".format(ops), proj, below(proj, 10.0), "" if t_eval == 2 else " (2 threads not run)"))
    else:
        out.append("- evaluate at %d outputs, %d threads (target: 1M outputs in < 10 s): no successful run." % (large, t_eval))

    out.append(spread(rows, "report_ratio", 1.0, "report: DuckDB's time / hindsight's, whole dashboard"))

    if len(set(sizes)) > 1:
        parts, notes = [], []
        for stage, key in (("convert", "convert_us"), ("evaluate", "eval_us")):
            ratios = []
            for t in threads:
                a, b = by.get((small, t)), by.get((large, t))
                va, vb = (derive(a)[key] if a else None), (derive(b)[key] if b else None)
                if va and vb:
                    ratios.append((vb / va, "%d thr %.1f -> %.1f µs (%+.0f%%)" % (t, va, vb, (vb / va - 1) * 100)))
            if not ratios:
                parts.append("%s: no successful pair" % stage)
                continue
            worst = max(q for q, _ in ratios)
            verdict = "**PASS**" if worst <= 1.2 else "**MISS** (%.1f points over)" % ((worst - 1.2) * 100)
            parts.append("%s %s: %s" % (stage, ", ".join(s for _, s in ratios), verdict))
            if min(q for q, _ in ratios) < 0.8:
                notes.append(stage)
        note = " %s cost%s more than 20%% less per output at the larger size: fixed start-up costs weigh on the smallest one." % (
            " and ".join(notes).capitalize(), "s" if len(notes) == 1 else "") if notes else ""
        out.append("- cost per output, %d -> %d outputs (target: grows by at most 20%%): %s.%s" % (small, large, "; ".join(parts), note))
    else:
        out.append("- cost per output flat within 20%: n/a (one size run).")

    if 1 in threads and 2 in threads:
        parts = []
        for stage, key in (("convert", "h_convert"), ("evaluate", "h_evaluate")):
            ups = []
            for n in sizes:
                a, b = by.get((n, 1)), by.get((n, 2))
                if a and b and good(a[key]) and good(b[key]):
                    ups.append((a[key][0] / b[key][0], n))
            if ups:
                worst = min(ups)
                parts.append("%s %s: %s" % (stage, ", ".join("%.2fx at %d" % u for u in ups), at_least(worst[0], 1.7)))
            else:
                parts.append("%s: no successful pair" % stage)
        out.append("- speed-up from 1 to 2 threads (target >= 1.7x): %s." % "; ".join(parts))
    else:
        out.append("- speed-up from 1 to 2 threads (target >= 1.7x): n/a (threads 1 and 2 not both run).")

    busy = [(r["h_convert_cores"], r["outputs"]) for r in rows if r["threads"] == 2 and r.get("h_convert_cores") is not None]
    if busy:
        out.append("- cores busy in convert at 2 threads, whole study (target >= 1.8): %s: %s." % (
            ", ".join("%.2f at %d" % b for b in busy), at_least(min(busy)[0], 1.8)))
    else:
        out.append("- cores busy in convert at 2 threads (target >= 1.8): n/a (no 2-thread run with CPU times).")

    peak = {n: max((r["h_convert"][1] for r in rows if r["outputs"] == n and r["h_convert"][2]), default=None) for n in sizes}
    if peak.get(large) is not None:
        s = "- peak memory of convert at %d outputs: %.0f MiB (target < 1024 MiB): %s" % (large, peak[large], below(peak[large], 1024.0))
        if small != large and peak.get(small):
            s += "; %.0f -> %.0f MiB from %d to %d outputs (%.1fx for %.1fx the outputs)" % (
                peak[small], peak[large], small, large, peak[large] / peak[small], large / small)
        out.append(s + ".")
    else:
        out.append("- peak memory of convert at %d outputs (target < 1024 MiB): no successful run." % large)
    return out


SHELL_HEADING = "## The SQL shell's first look"
WITHIN_ONE_RUN = "Timings on a shared machine move between runs; compare ratios within one run, not across runs."


def machine():
    """Where and with what this run measures: the date, the machine and the peers' versions."""
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "date": datetime.date.today().isoformat(),
        "platform": platform.platform(),
        "cores": os.cpu_count() or 0,
        "cpu": cpu,
        "duckdb": pkg("duckdb"),
        "pyarrow": pkg("pyarrow"),
    }


def kept_sections(path):
    """What this file holds from the SQL shell's section on: written by hand, kept as it is."""
    try:
        text = open(path).read()
    except OSError:
        return [SHELL_HEADING]
    at = text.find(SHELL_HEADING)
    return text[at:].rstrip("\n").split("\n") if at >= 0 else [SHELL_HEADING]


def table(head, body):
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in body]


def write(path, rows, sizes, threads, repos, target_lines, run=None):
    """BENCHMARKS.md: this run's figures, one table per stage against the peers, the targets,
    and how they were measured. Earlier runs are in git's history of this file, not in it; the
    sections from the SQL shell's on are written by hand and kept."""
    rows = sorted(rows, key=lambda r: (r["outputs"], r["threads"]))
    kept = kept_sections(path)
    at = lambda r: [str(r["outputs"]), str(r["threads"])]
    convert, evaluate, report = [], [], []
    for r in rows:
        h, hs, d, p, ev, hr, dr = (r[k] for k in ("h_convert", "h_convert_snap", "d_convert", "a_convert", "h_evaluate", "h_report", "d_report"))
        x = derive(r)
        mark = " †" if slim(r) else ""
        convert.append(at(r) + [
            "%.1f" % r["input_mb"], cell(hs, x["h_mbs"]), cell(d, x["d_mbs"]), cell(p, x["a_mbs"]) + mark,
            num(x["vs_duck"], "%.2f"), num(x["vs_arrow"], "%.2f") + (mark if x["vs_arrow"] is not None else ""),
            cell(h, h[0], "%.2f"), cell(h, x["convert_us"]), num(r.get("h_convert_cores"), "%.2f"),
            "%s / %s / %s" % (cell(h, h[1], "%.0f"), cell(d, d[1], "%.0f"), cell(p, p[1], "%.0f")),
        ])
        evaluate.append(at(r) + [cell(ev, x["eval_ops"], "%.0f"), cell(ev, x["eval_us"]), num(r.get("h_evaluate_cores"), "%.2f"), cell(ev, ev[1], "%.0f")])
        report.append(at(r) + [cell(hr, hr[0], "%.2f"), cell(dr, dr[0], "%.2f"), num(x["report_ratio"], "%.2f")])
    m = run or {}
    lines = [
        "# Benchmarks",
        "",
        "hindsight against DuckDB and pyarrow on the same synthetic studies, one table per stage: the figures of "
        "one run of `bench/run.sh` (%s), which writes this file. A ratio is the peer's time over hindsight's, "
        "within that run: above 1, hindsight is faster. How it was measured is under [Method](#method)."
        % (m.get("date") or "date not recorded"),
        "",
        "## Convert",
        "",
        "The peers' job: the snapshot's cassettes in, Parquet out. hindsight also checks every line, drops duplicates, "
        "sorts by repository, hashes the inputs and writes nine typed tables besides `responses`.",
        "",
    ]
    lines += table(
        ["outputs", "threads", "input MB", "hindsight MB/s", "DuckDB MB/s", "pyarrow MB/s", "vs DuckDB", "vs pyarrow",
         "whole study s", "whole study µs/output", "cores busy (whole study)", "peak MiB (hindsight whole study / DuckDB / pyarrow)"],
        convert,
    )
    if any(slim(r) for r in rows):
        lines += ["", "† " + SLIM_NOTE]
    lines += [
        "",
        "## Evaluate",
        "",
        "Every safe output judged in all five windows; no peer does this job (`bench/evaluate_floor.py` times "
        "pyarrow reading and writing the same tables, a floor, on its own).",
        "",
    ]
    lines += table(["outputs", "threads", "outputs/s", "µs/output", "cores busy", "peak MiB"], evaluate)
    lines += [
        "",
        "## Report",
        "",
        "The whole dashboard: `hindsight report` against the same `queries/*.sql` run in DuckDB over the same Parquet.",
        "",
    ]
    lines += table(["outputs", "threads", "hindsight s", "DuckDB s", "vs DuckDB"], report)
    fails = [(r["outputs"], r["threads"], k, r[k][3]) for r in rows for k in ("h_convert_snap", "h_convert", "h_evaluate", "h_report", "d_convert", "a_convert", "d_report") if not r[k][2]]
    if fails:
        lines += ["", "Failures (the program could not do the job on this input):", ""]
        lines += ["- %d outputs, %d threads, %s: `%s`" % (n, t, k, e or "?") for n, t, k, e in fails]
    lines += [""] + target_lines + [""]
    machine_line = (
        "%s, %d cores, %s; release binary; DuckDB %s and pyarrow %s from `.venv`."
        % (m["platform"], m["cores"], m["cpu"] or "processor not named", m["duckdb"], m["pyarrow"])
        if m.get("platform") else "not recorded (the rows were re-written with `--rows` from a file without its run line)."
    )
    lines += [
        "## Method",
        "",
        "- Machine: %s" % machine_line,
        "- Command: `bench/run.sh --sizes %s --threads %s%s`. Each size is a study `hindsight synth` writes (seed 1, %d repositories); "
        "every program runs once per size and thread count, wall time measured around it, peak memory from `/usr/bin/time -v`."
        % (",".join(map(str, sizes)), ",".join(map(str, threads)), "" if repos == 200 else " --repos %d" % repos, repos),
        "- Columns: input MB is the snapshot's cassettes; MB/s is that over the wall time of convert on the snapshot alone "
        "(hindsight with no runs, as the peers), which the ratios use; \"whole study\" is hindsight's convert of the snapshot "
        "and its runs, which the cost per output, the thread speed-up and convert's peak memory in the targets use; "
        "outputs/s counts each safe output once, judged in all five windows; µs/output is wall time over safe outputs "
        "(not multiplied by threads); cores busy is (user + sys CPU seconds) / wall seconds, from `/usr/bin/time -v` "
        "(2.00 on two cores is every core busy the whole time); vs DuckDB and vs pyarrow are the peer's time over "
        "hindsight's; peak MiB is the largest resident set.",
        "- Ratios within one run: timings on a shared machine move between runs, so compare ratios taken in the same run, "
        "not seconds across runs or machines.",
        "- `bench/run.py --rows FILE` writes this file again from the JSON rows a run printed (its stdout), measuring nothing. "
        "Earlier runs, and the measured steps of issue 17 that comments in `src/` cite (\"BENCHMARKS.md, eleventh step\"), "
        "are in this file's history (`git log -p BENCHMARKS.md`; the last file that held them: `git show d09ad4b:BENCHMARKS.md`) "
        "and in CHANGELOG.md.",
        "",
    ]
    lines += kept
    open(path, "w").write("\n".join(lines) + "\n")
    print("wrote", path)


def pkg(name):
    try:
        return subprocess.run([PY, "-c", "import %s; print(%s.__version__)" % (name, name)], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
