#!/usr/bin/env python3
"""Benchmark hindsight against DuckDB and pyarrow on the same synthetic studies.

    bench/run.sh [--sizes 10000,100000,1000000] [--threads 1,2] [--instructions 100000] [--rounds 3] [--bin BINARY] [--out BENCHMARKS.md] [--compact]
    bench/run.py --rows FILE [--out BENCHMARKS.md]

--threads takes any core counts (`--threads 1,2,4,8,16`); counts above the machine's cores run
unpinned.

For each size it writes a study with `hindsight synth` (once; deleted after that size's runs;
real-shaped bodies with every key GitHub sends, or with --compact only the keys hindsight reads),
then measures, at each core count (1: pinned to one core with `taskset -c 0`, the programs at
their default thread count; N > 1: N threads on cores 0..N-1):
- convert: `hindsight convert` vs DuckDB's plain JSON->Parquet (`read_json` of the cassettes +
  `COPY ... TO` Parquet), vs DuckDB doing the same typed job (bench/duckdb_typed.sql:
  `responses` and the nine typed tables with `json_extract` and `unnest`; its tables are
  compared with hindsight's at the smallest size, untimed) and vs pyarrow
  (`pyarrow.json.read_json` + `write_table`), as input MB/s (the snapshot cassettes' size
  over the time) and µs of wall time per safe output. The peers' time is taken inside their
  Python process, from the connection or first read to the last file written (the
  interpreter's start-up is not counted against them); hindsight's is its process's wall
  time. pyarrow's JSON reader needs one type per column and `body` changes shape between
  lines, so when its full read fails it is timed again reading every line but keeping only
  path/status/page (the failed attempt is not counted), and the output says which mode was
  used; it is skipped where its read would need more than half the memory available;
- evaluate: `hindsight evaluate`, safe outputs per second over all five windows, µs of wall
  time per safe output, and its time over the pyarrow floor (`bench/evaluate_floor.py`, the
  best of its rounds, on the same dataset and cores);
- report: `hindsight report` (the whole dashboard) vs the same `queries/*.sql` in DuckDB
  over the same Parquet;
- peak memory of each, from `/usr/bin/time -v`, and cores busy ((user + sys) / wall);
- with 1 and some N > 1 asked for, for every such N, convert's (the whole study) and
  evaluate's speed-up from one core to N threads, interleaved (each round N threads, then one
  core, on the same input), the machine's ceiling for it (N one-core copies at once, each on
  its own core with its own output: convert's its own dataset, evaluate's its own dataset
  copy), the speed-up's share of the ceiling (median of the rounds) and the peak memory at N
  threads against one core's; with fewer cores than N there is a speed-up but no ceiling,
  and the pair says why; see `speed_up_pairs`;
- at one size (`--instructions`, 100000 unless given; 0: not at all) the instructions
  convert and evaluate execute at 1 thread, under valgrind's callgrind, SHA-256's counted
  apart (valgrind runs sha2's portable code; see `sha256_instructions`).
It prints a JSON line of the run (date, machine, the peers' versions), one JSON line per
measured row (and one for each interleaved pair: stage, size and N; one for the instruction
counts), a table of ratios (hindsight / peer), the table of speed-ups against the machine's
ceiling, and the targets checked against them (issue 42's, and issue 59's speed-up against
the ceiling: on 2 cores evaluate one core -> two >= 0.9 of it; on 16, convert and evaluate
1 -> 16 >= 0.75 of it, never slower at more threads, evaluate's peak at 16 <= 1.25x its
one-thread peak; n/a, with why, where not measured), and writes BENCHMARKS.md: one table per
stage, the speed-ups against the ceiling, the targets and the method, this run only (earlier
runs are in git's history of the file). The sections from "The SQL shell's first look" on
are written by hand and kept as they are. `--rows FILE` writes the file again from what an
earlier run printed, measuring nothing (pair lines without a stage, from runs before convert
had pairs, are evaluate's). Timings belong here, never in tests.
"""
import argparse
import concurrent.futures
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
HERE = os.path.join(ROOT, "bench")

# Prints {"seconds": time from the connection to the file written} as its last line.
DUCK_CONVERT = r"""
import duckdb, json, sys, time
t0 = time.perf_counter()
con = duckdb.connect(); con.execute("SET threads=%s" % sys.argv[3])
con.execute("COPY (SELECT * FROM read_json(%r, format='newline_delimited', columns={'path': 'VARCHAR', 'status': 'INTEGER', 'page': 'INTEGER', 'body': 'JSON'})) TO %r (FORMAT PARQUET, COMPRESSION ZSTD)" % (sys.argv[1], sys.argv[2]))
con.close()
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""
# Prints {"mode": "full"|"slim", "failed_s": seconds spent on a failed full read, "seconds":
# the time of the read that counted and the write} as its last line.
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
print(json.dumps({"mode": mode, "failed_s": failed, "rows": table.num_rows, "seconds": time.perf_counter() - t0 - failed}))
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


def median_of(rounds, run):
    """The run (a `timed` result) of median wall time among `rounds` runs of `run()`: one
    slow or fast run does not decide a row. A failed run is returned as soon as it fails."""
    results = []
    for _ in range(max(rounds, 1)):
        res = run()
        if not res[2]:
            return res
        results.append(res)
    return middle(results, key=lambda res: res[0])


def middle(xs, key=None):
    """The median element of `xs` (the upper one of an even count)."""
    return sorted(xs, key=key)[len(xs) // 2]


def cores_busy(res):
    """(user + sys) / wall of a timed run: how many cores it kept busy (None when it failed)."""
    return round(res[5] / res[0], 2) if res[2] and res[0] > 0 else None


def mb(path_glob):
    return sum(os.path.getsize(p) for p in glob.glob(path_glob)) / 1e6


def last_json(res):
    """The JSON object a peer's snippet printed as its last stdout line ({} when none)."""
    try:
        v = json.loads(res[4].strip().splitlines()[-1])
        return v if isinstance(v, dict) else {}
    except (IndexError, ValueError, AttributeError):
        return {}


def own_time(res):
    """A peer's run with its wall time replaced by the time it measured itself (from its
    connection or first read to its last file written), when it printed one."""
    secs = last_json(res).get("seconds")
    if res[2] and isinstance(secs, (int, float)):
        return (float(secs),) + tuple(res[1:])
    return res


def arrow_mode(res):
    """pyarrow's mode and the seconds of its failed full read, from the snippet's last stdout line."""
    info = last_json(res)
    try:
        return info["mode"], float(info["failed_s"])
    except (KeyError, TypeError, ValueError):
        return None, 0.0


def floor_time(res):
    """(seconds, ok) of the pyarrow floor: the best of its rounds' read + write times, as
    `bench/evaluate_floor.py` prints them ("... together S s")."""
    rounds = [float(m) for m in re.findall(r"together ([0-9.]+) s", res[4] or "")]
    return (min(rounds), res[1], True, "") if res[2] and rounds else (0.0, res[1], False, res[3])


def rm(path):
    if os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.exists(path):
        os.remove(path)


def mem_available_mib():
    try:
        for l in open("/proc/meminfo"):
            if l.startswith("MemAvailable:"):
                return int(l.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


# pyarrow's JSON read holds about this many bytes per input byte at its peak (1.5 measured at
# 100k outputs: 302 MiB for 199 MB of cassettes), rounded up.
ARROW_BYTES_PER_INPUT_BYTE = 2.0


def arrow_skip(size_mb):
    """Why pyarrow is not run on `size_mb` of cassettes (None: it runs): its read would need
    more than half the memory available now."""
    avail = mem_available_mib()
    need = size_mb * 1e6 / 2**20 * ARROW_BYTES_PER_INPUT_BYTE
    if avail is not None and need > avail / 2:
        return "skipped: its read would need ~%.1f GiB, more than half of the %.1f GiB available" % (need / 1024, avail / 1024)
    return None


def pinned(t):
    """The command prefix and hindsight's thread option for a row of `t` cores: 1 is one core
    (`taskset -c 0`) at the default thread count; N > 1 is N threads on cores 0..N-1. Without
    taskset, or with fewer cores than N, nothing is pinned."""
    pin = []
    if shutil.which("taskset") and (os.cpu_count() or 1) >= t:
        pin = ["taskset", "-c", "0" if t == 1 else "0-%d" % (t - 1)]
    return pin, ([] if t == 1 and pin else ["--threads", str(t)])


def hindsight(binary, t, *args):
    """`binary` quiet with `args` (the command first), on `t` cores as `pinned` places a
    row's programs; the thread option goes after the command, which takes it."""
    pin, topt = pinned(t)
    return pin + [binary, args[0]] + topt + ["--quiet"] + list(args[1:])


def sha256_instructions(callgrind_out):
    """Instructions of SHA-256's block function (`sha2::sha256::compress256`, all it calls
    included) in a callgrind output file; None when callgrind_annotate cannot tell.

    valgrind's CPU has no SHA extensions, so under it the sha2 crate runs its portable code:
    a large share of convert's count (it hashes every input and output file), where a CPU
    with the extensions spends a few percent of the time (perf). The count is kept apart so
    the rest reads as the work any CPU does."""
    try:
        r = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", callgrind_out], capture_output=True, text=True)
    except OSError:
        return None
    for line in r.stdout.splitlines():
        if "sha2::sha256::compress256 [" in line:
            m = re.match(r"\s*([\d,]+)", line)
            if m:
                return int(m.group(1).replace(",", ""))
    # Not found is "cannot tell", not zero: the function may be named otherwise.
    return None


def instructions(binary, study, work):
    """Instructions convert (the whole study) and evaluate execute at 1 thread, under
    valgrind's callgrind: {"convert": n, "evaluate": n, "convert_sha256": n, ...} (None for a
    stage that failed; `STAGE_sha256` is the part of it `sha256_instructions` counts)."""
    out = {"convert": None, "evaluate": None}
    if not shutil.which("valgrind"):
        out["error"] = "valgrind is not installed"
        return out
    ds = os.path.join(work, "ds-instructions")
    cg = os.path.join(work, "callgrind.out")
    steps = (
        ("convert", ["convert", "--snapshot", os.path.join(study, "snapshot"), "--runs", os.path.join(study, "runs"), "--out", ds]),
        ("evaluate", ["evaluate", "--dataset", ds]),
    )
    try:
        for stage, args in steps:
            r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg, binary, args[0], "--threads", "1", "--quiet"] + args[1:],
                               capture_output=True, text=True)
            m = re.search(r"Collected : (\d+)", r.stderr)
            if r.returncode != 0 or not m:
                out["error"] = "%s under callgrind: %s" % (stage, (r.stderr.strip().splitlines() or ["?"])[-1])
                break
            out[stage] = int(m.group(1))
            out[stage + "_sha256"] = sha256_instructions(cg)
    finally:
        rm(ds)
        rm(cg)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--threads", default="1,2", help="core counts, any number of them (1,2,4,8,16): 1 is one core (taskset -c 0) at the default thread count, N > 1 is N threads on N cores (unpinned where the machine has fewer)")
    ap.add_argument("--repos", type=int, default=200)
    ap.add_argument("--instructions", type=int, default=100000, metavar="SIZE",
                    help="count instructions (callgrind, 1 thread) of convert and evaluate at SIZE outputs; 0: not at all")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each timed command; a row keeps the run of median wall time (default 3)")
    ap.add_argument("--bin", default=BIN, help="the hindsight binary (default: target/release/hindsight)")
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--compact", action="store_true",
                    help="studies with synth's compact bodies (only the keys hindsight reads) instead of real-shaped ones (every key GitHub sends)")
    ap.add_argument("--rows", help="re-write the report from the JSON rows an earlier run printed (its stdout), measuring nothing")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    threads = [int(x) for x in args.threads.split(",")]
    binary = os.path.abspath(args.bin)
    if args.rows:
        rows, run, instr, pairs = [], None, None, []
        for l in open(args.rows):
            if l.startswith("{"):
                r = json.loads(l)
                if "run" in r:
                    run = r["run"]
                elif "pair" in r:
                    pairs.append(dict(r["pair"], stage=stage_of(r["pair"])))
                elif "instructions" in r:
                    instr = r["instructions"]
                else:
                    # [seconds, MiB, ok] and, for a failed run, what it said.
                    rows.append({k: ((tuple(v) + ("",))[:4] if isinstance(v, list) else v) for k, v in r.items()})
        sizes = sorted({r["outputs"] for r in rows})
        threads = sorted({r["threads"] for r in rows})
        cores = (run or {}).get("cores") or next((p["cores"] for p in pairs if p.get("cores")), None)
        target_lines = targets(rows, sizes, threads, pairs, cores)
        print("\n".join(ratio_table(rows) + [""] + ceiling_lines(rows, pairs) + instruction_lines(instr) + [""] + target_lines + ["", WITHIN_ONE_RUN]))
        write(args.out, rows, sizes, threads, (run or {}).get("repos", args.repos), target_lines, run, instr, (run or {}).get("instructions_size"), pairs)
        return
    # The run's own line, first: what --rows needs to say where and when it was measured.
    run = dict(machine(binary), repos=args.repos, instructions_size=args.instructions, rounds=args.rounds, compact=args.compact)
    print(json.dumps({"run": run}), flush=True)
    work = tempfile.mkdtemp(prefix="hindsight-bench-")
    empty_runs = os.path.join(work, "no-runs")
    os.makedirs(empty_runs)
    rows, instr, pairs = [], None, []
    instr_sizes = [args.instructions] if args.instructions > 0 else []
    try:
        for n in sorted(set(sizes) | set(instr_sizes)):
            study = os.path.join(work, "study-%d" % n)
            shape = ["--compact"] if args.compact else []
            subprocess.run([binary, "synth", "--repos", str(args.repos), "--outputs", str(n), "--seed", "1", "--out", study, "--quiet"] + shape, check=True)
            snapshot = os.path.join(study, "snapshot")
            cassettes = os.path.join(snapshot, "*.jsonl")
            size_mb = mb(cassettes)
            try:
                for t in (threads if n in sizes else []):
                    rows.append(measure(binary, n, t, study, size_mb, work, empty_runs, check_typed=(n == min(sizes) and t == threads[0]), rounds=args.rounds))
                    r = rows[-1]
                    x = derive(r)
                    # Seconds as measured (not rounded), so that --rows writes the same file again.
                    line = {k: (v if not isinstance(v, tuple) else [v[0], round(v[1]), v[2]] + ([] if v[2] else [v[3]])) for k, v in r.items()}
                    line.update({"convert_us_per_output": rnd(x["convert_us"]), "evaluate_us_per_output": rnd(x["eval_us"])})
                    print(json.dumps(line), flush=True)
                if n in sizes and 1 in threads and max(threads) > 1:
                    for pair in speed_up_pairs(binary, n, study, work, threads, args.rounds):
                        pairs.append(pair)
                        print(json.dumps({"pair": pair}), flush=True)
                if n in instr_sizes:
                    instr = dict(instructions(binary, study, work), outputs=n)
                    print(json.dumps({"instructions": instr}), flush=True)
            finally:
                shutil.rmtree(study, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ratio_lines = ratio_table(rows)
    target_lines = targets(rows, sizes, threads, pairs, run["cores"])
    print()
    print("\n".join(ratio_lines))
    print()
    against = ceiling_lines(rows, pairs)
    if against:
        print("\n".join(against))
    print("\n".join(instruction_lines(instr)))
    print()
    print("\n".join(target_lines))
    print()
    print(WITHIN_ONE_RUN)
    write(args.out, rows, sizes, threads, args.repos, target_lines, run, instr, args.instructions, pairs)


PAIR_STAGES = ("convert", "evaluate")
STAGE_KEY = {"convert": "h_convert", "evaluate": "h_evaluate"}


def speed_up_pairs(binary, n, study, work, threads, rounds):
    """The interleaved pairs of study `study` (n outputs): for every N > 1 of `threads`, convert
    (the whole study) and then evaluate, each as `speed_up_pair` measures it. A generator, so
    each pair is printed as soon as it is measured."""
    for t in sorted({x for x in threads if x > 1}):
        for stage in PAIR_STAGES:
            yield speed_up_pair(binary, stage, n, study, work, t, rounds)


def no_ceiling(t):
    """Why `t` one-core copies cannot each run on a core of its own here (None: they can)."""
    if not shutil.which("taskset"):
        return "taskset is not installed: nothing is pinned, so there is no ceiling"
    cores = os.cpu_count() or 1
    if cores < t:
        return "this machine has %d cores, fewer than %d: the copies cannot each have a core of their own, so there is no ceiling" % (cores, t)
    return None


def mean(xs):
    return sum(xs) / len(xs)


def speed_up_pair(binary, stage, n, study, work, t, rounds):
    """`stage`'s speed-up from one core to `t` threads, measured interleaved: each round runs
    it with `t` threads on `t` cores and then on one core, on the same input, one right after
    the other, and the figure is the median of the rounds' ratios. The rows' own seconds are
    measured minutes apart, so the machine's drift between them entered a ratio of the two.
    convert is the whole study (its output removed before each run); evaluate reads a
    dataset converted once at `t` threads.

    Each round then runs `t` one-core copies of the stage at once, each on a core of its own
    (`taskset -c i`) with an output of its own (convert: the study's files read by all of
    them, each written to its own dataset; evaluate: a dataset copy each): what the cores give
    work that shares nothing (`ceiling`, `t` x the one-core time over the copies' mean time).
    Cores that slow each other down (a shared cache, the host's other guests, a lower clock
    with every core busy) show there, and no program's speed-up on this machine is expected
    above it. The one-core run sits between the two it is compared with, so drift weighs on
    both ratios alike. `share` is each round's speed-up over its ceiling (the copies' mean
    time over `t` x the `t`-thread time), the median of the rounds. Where the copies cannot
    each have a core (`no_ceiling`) the pair gives the speed-up alone and says why. The peaks
    (MiB, `/usr/bin/time -v`) of every run at `t` threads and on one core are kept too."""
    base = os.path.join(work, "pair-%s-%d-%d" % (stage, n, t))
    ds = base + "-ds"
    copies = [base + "-copy-%d" % i for i in range(t)]
    pair = {"stage": stage, "outputs": n, "threads": t, "cores": os.cpu_count() or 0,
            "one_core_s": [], "threads_s": [], "copies_s": [], "one_core_mib": [], "threads_mib": []}
    why = no_ceiling(t)
    if why:
        pair["no_ceiling"] = why
    study_args = ["--snapshot", os.path.join(study, "snapshot"), "--runs", os.path.join(study, "runs")]
    if stage == "convert":
        args, fresh = (lambda out: study_args + ["--out", out]), rm
    else:
        args, fresh = (lambda d: ["--dataset", d]), (lambda d: None)
    try:
        if stage == "evaluate":
            conv = timed(hindsight(binary, t, "convert", *study_args, "--out", ds))
            if not conv[2]:
                return dict(pair, failed="convert: " + conv[3])
            for c in copies if not why else []:
                shutil.copytree(ds, c)
        # The inputs' pages on disk, not flushed by the kernel while the stage runs.
        os.sync()
        for _ in range(max(rounds, 1)):
            for k, key in ((t, "threads"), (1, "one_core")):
                fresh(ds)
                res = timed(hindsight(binary, k, stage, *args(ds)))
                if not res[2]:
                    return dict(pair, failed="%s at %d: %s" % (stage, k, res[3]))
                pair[key + "_s"].append(round(res[0], 3))
                pair[key + "_mib"].append(round(res[1]))
            if why:
                continue
            for c in copies:
                fresh(c)
            with concurrent.futures.ThreadPoolExecutor(t) as pool:
                runs = list(pool.map(lambda ic: timed(["taskset", "-c", str(ic[0]), binary, stage, "--quiet"] + args(ic[1])), enumerate(copies)))
            if not all(res[2] for res in runs):
                return dict(pair, failed="%s, one-core copies at once: %s" % (stage, next(res[3] for res in runs if not res[2])))
            pair["copies_s"].append([round(res[0], 3) for res in runs])
        pair["speed_up"] = round(middle([a / b for a, b in zip(pair["one_core_s"], pair["threads_s"])]), 3)
        if pair["copies_s"]:
            pair["ceiling"] = round(middle([t * a / mean(c) for a, c in zip(pair["one_core_s"], pair["copies_s"])]), 3)
            pair["share"] = round(middle([mean(c) / (t * b) for b, c in zip(pair["threads_s"], pair["copies_s"])]), 3)
        pair["one_core_peak_mib"], pair["peak_mib"] = max(pair["one_core_mib"]), max(pair["threads_mib"])
        pair["peak_vs_one_core"] = round(pair["peak_mib"] / pair["one_core_peak_mib"], 3) if pair["one_core_peak_mib"] else None
        return pair
    finally:
        for p in [ds] + copies:
            rm(p)


def measure(binary, n, t, study, size_mb, work, empty_runs, check_typed, rounds=1):
    """One row: every program on study `study` (n outputs) at `t` cores, each timed command
    run `rounds` times, its run of median wall time kept (the floor keeps its best round)."""
    pin = pinned(t)[0]
    h = lambda *a: hindsight(binary, t, *a)
    snapshot = os.path.join(study, "snapshot")
    cassettes = os.path.join(snapshot, "*.jsonl")
    ds = os.path.join(work, "ds-%d-%d" % (n, t))
    duck_out = os.path.join(work, "duck-%d-%d.parquet" % (n, t))
    typed_out = os.path.join(work, "duck-typed-%d-%d" % (n, t))
    arrow_out = os.path.join(work, "arrow-%d-%d.parquet" % (n, t))
    r = {"outputs": n, "threads": t, "input_mb": size_mb}
    try:
        # Like for like with the peers: the same cassettes in, Parquet out (no runs).
        med = lambda run: median_of(rounds, run)

        def into(out, cmd):
            rm(out)
            return timed(cmd)

        r["h_convert_snap"] = med(lambda: into(ds, h("convert", "--snapshot", snapshot, "--runs", empty_runs, "--out", ds)))
        r["h_convert"] = med(lambda: into(ds, h("convert", "--snapshot", snapshot, "--runs", os.path.join(study, "runs"), "--out", ds)))
        r["h_convert_cores"] = cores_busy(r["h_convert"])
        r["h_evaluate"] = med(lambda: timed(h("evaluate", "--dataset", ds)))
        r["h_evaluate_cores"] = cores_busy(r["h_evaluate"])
        r["floor"] = floor_time(timed(pin + [PY, os.path.join(HERE, "evaluate_floor.py"), ds, "3"])) if r["h_evaluate"][2] else (0.0, 0.0, False, "no dataset evaluated")
        r["h_report"] = med(lambda: timed(h("report", "--dataset", ds, "--format", "json")))
        r["d_convert"] = med(lambda: own_time(into(duck_out, pin + [PY, "-c", DUCK_CONVERT, cassettes, duck_out, str(t)])))
        rm(duck_out)
        r["d_typed"] = med(lambda: own_time(into(typed_out, pin + [PY, os.path.join(HERE, "duckdb_typed.py"), snapshot, typed_out, str(t)])))
        if check_typed and r["d_typed"][2] and r["h_convert"][2]:
            # Untimed: DuckDB's tables against hindsight's, row by row.
            c = subprocess.run([PY, os.path.join(HERE, "duckdb_typed.py"), "--compare", typed_out, ds], capture_output=True, text=True)
            r["typed_check"] = "same" if c.returncode == 0 else "; ".join(l for l in c.stdout.splitlines() if ":" in l and "rows (" not in l) or c.stderr.strip()[-300:]
        rm(typed_out)
        skip = arrow_skip(size_mb)
        if skip:
            r["a_skipped"] = skip
            r["a_convert"] = None
        else:
            a = med(lambda: own_time(into(arrow_out, pin + [PY, "-c", ARROW_CONVERT, cassettes, arrow_out, str(t)])))
            r["a_mode"], r["a_failed_s"] = arrow_mode(a)
            r["a_failed_s"] = round(r["a_failed_s"], 3)
            r["a_convert"] = a
        views_sql = os.path.join(work, "views-%d.sql" % t)
        with open(views_sql, "w") as f:
            views = subprocess.run([binary, "views", "--dataset", ds, "--absolute"], stdout=f, stderr=subprocess.PIPE, text=True)
        shown = os.path.join(work, "sections-%d.txt" % t)
        with open(shown, "w") as f:
            f.write("\n".join(json.loads(r["h_report"][4]).keys()) if r["h_report"][2] else "")
        if views.returncode == 0:
            r["d_report"] = med(lambda: timed(pin + [PY, "-c", DUCK_REPORT, ds, os.path.join(ROOT, "queries"), str(t), views_sql, shown]))
        else:
            # No dataset to register (convert failed): a failed row, not a stopped run.
            r["d_report"] = (0.0, 0.0, False, "hindsight views: " + ((views.stderr or "").strip().splitlines() or ["?"])[-1])
    finally:
        for p in (ds, duck_out, typed_out, arrow_out):
            rm(p)
    return r


def rnd(v, digits=1):
    return None if v is None else round(v, digits)


def good(res):
    return bool(res) and res[2] and res[0] > 0


def derive(r):
    """The derived numbers of one row; None where a run failed or was not made."""
    n, size = r["outputs"], r["input_mb"]
    h, d, p, ev, hr, dr = (r.get(k) for k in ("h_convert", "d_convert", "a_convert", "h_evaluate", "h_report", "d_report"))
    hs, dt, fl = r.get("h_convert_snap"), r.get("d_typed"), r.get("floor")
    return {
        "h_mbs": size / hs[0] if good(hs) else None,
        "d_mbs": size / d[0] if good(d) else None,
        "dt_mbs": size / dt[0] if good(dt) else None,
        "a_mbs": size / p[0] if good(p) else None,
        "vs_duck": d[0] / hs[0] if good(hs) and good(d) else None,
        "vs_typed": dt[0] / hs[0] if good(hs) and good(dt) else None,
        "vs_arrow": p[0] / hs[0] if good(hs) and good(p) else None,
        "convert_us": h[0] / n * 1e6 if good(h) else None,
        "eval_ops": n / ev[0] if good(ev) else None,
        "eval_us": ev[0] / n * 1e6 if good(ev) else None,
        "vs_floor": ev[0] / fl[0] if good(ev) and good(fl) else None,
        "report_ratio": dr[0] / hr[0] if good(hr) and good(dr) else None,
    }


def num(v, spec):
    return "n/a" if v is None else spec % v


def cell(res, value, spec="%.1f"):
    if res is None:
        return "skipped"
    return "failed" if not res[2] else num(value, spec)


def slim(r):
    return r.get("a_mode") == "slim"


def cores_label(t):
    return "1 (one core)" if t == 1 else "%d (%d threads)" % (t, t)


def ratio_table(rows):
    """The compact stdout table: speed ratios hindsight / peer (> 1: hindsight faster) and cost per output."""
    head = ("outputs", "cores", "convert/DuckDB", "convert/DuckDB typed", "convert/pyarrow", "evaluate/floor", "report/DuckDB",
            "convert µs/out", "evaluate µs/out")
    body = []
    for r in rows:
        x = derive(r)
        body.append((
            str(r["outputs"]), str(r["threads"]), num(x["vs_duck"], "%.2fx"), num(x["vs_typed"], "%.2fx"),
            ("skipped" if r.get("a_skipped") else num(x["vs_arrow"], "%.2fx") + ("*" if slim(r) else "")),
            num(x["vs_floor"], "%.2fx"), num(x["report_ratio"], "%.2fx"),
            num(x["convert_us"], "%.1f"), num(x["eval_us"], "%.1f"),
        ))
    widths = [max(len(c[i]) for c in [head] + body) for i in range(len(head))]
    out = ["Speed ratios, peer / hindsight (> 1: hindsight faster; evaluate/floor is hindsight / the floor, <= 1.2 wanted):", ""]
    out += ["  ".join(c[i].rjust(widths[i]) for i in range(len(head))) for c in [head] + body]
    if any(slim(r) for r in rows):
        out += ["", "* pyarrow kept path/status/page only (it cannot keep `body`): less work than hindsight does."]
    return out


def instruction_lines(instr):
    """The instructions table (markdown), or a line saying why there is none."""
    if not instr:
        return ["Instructions per output: not counted (--instructions 0)."]
    n = instr.get("outputs") or 0

    def row(stage):
        total, sha = instr.get(stage), instr.get(stage + "_sha256")
        rest = total - sha if total is not None and sha is not None else None
        per = lambda v: v / n if v is not None and n else None
        return [stage, num(total / 1e6 if total is not None else None, "%.0f"), num(sha / 1e6 if sha is not None else None, "%.0f"),
                num(per(total), "%.0f"), num(per(rest), "%.0f")]

    lines = table(["stage (%s outputs, 1 thread)" % "{:,}".format(n), "instructions (M)", "of them SHA-256 in portable code (M)",
                   "instructions per output", "per output, SHA-256 aside"], [row(stage) for stage in ("convert", "evaluate")])
    if instr.get("error"):
        lines += ["", "Not counted: %s." % instr["error"]]
    return lines


def at_least(value, target, unit="x", spec="%.1f"):
    """PASS/MISS for a value that must be >= target, and by how much."""
    if value >= target:
        return "**PASS** (%.0f%% above)" % ((value / target - 1) * 100)
    return ("**MISS** (%.0f%% short of " + spec + "%s)") % ((1 - value / target) * 100, target, unit)


def at_most(value, limit):
    """PASS/MISS for a value that must be <= limit, and by how much."""
    if value <= limit:
        return "**PASS** (%.0f%% under)" % ((1 - value / limit) * 100)
    return "**MISS** (%.2fx the limit)" % (value / limit)


def below(value, limit):
    """PASS/MISS for a value that must be < limit, and by how much."""
    if value < limit:
        return "**PASS** (%.0f%% under)" % ((1 - value / limit) * 100)
    return "**MISS** (%.2fx the limit)" % (value / limit)


def per_size(rows, key, target, label, spec="%.2fx"):
    """A per-row value that must be >= target at every size: each size's value, the verdict
    on the worst."""
    vals = [(derive(r)[key], r["outputs"]) for r in rows]
    got = [(v, n) for v, n in vals if v is not None]
    if not got:
        return "- %s: no successful runs to compare." % label
    missing = [n for v, n in vals if v is None]
    return "- %s: %s: %s%s." % (
        label, ", ".join((spec + " at %d") % (v, n) for v, n in got), at_least(min(got)[0], target),
        "; no number at %s" % ", ".join(map(str, missing)) if missing else "",
    )


def targets(rows, sizes, threads, pairs=(), cores=None):
    """The targets of issue 42, one bullet each, computed from the measured rows. They are
    stated for two cores: every target but the speed-up from one core reads the rows of 2
    cores (of the most cores run where 2 were not). Then those of the speed-up
    against this machine's ceiling (`ceiling_targets`; `cores`: the machine's)."""
    # Two cores, the count these targets are stated for, wherever 2 was run.
    t_max = 2 if 2 in threads else max(threads)
    top = sorted((r for r in rows if r["threads"] == t_max), key=lambda r: r["outputs"])
    by = {(r["outputs"], r["threads"]): r for r in rows}
    small, large = min(sizes), max(sizes)
    at = "" if t_max == 2 else " (rows of %d cores: 2 were not run)" % t_max
    out = ["## Against the targets (issue 42), computed from the figures above", "",
           "Two cores%s, one run; each bullet names the rows it reads." % at, ""]
    out.append(per_size(top, "vs_duck", 1.0, "convert vs DuckDB's plain JSON->Parquet, snapshot alone (target >= 1.0x at every size)"))
    typed = per_size(top, "vs_typed", 1.5, "convert vs DuckDB doing the same typed job, snapshot alone (target >= 1.5x at every size)")
    checks = [r.get("typed_check") for r in rows if r.get("typed_check")]
    if checks:
        typed += " DuckDB's tables against hindsight's at %d outputs: %s." % (
            min(r["outputs"] for r in rows if r.get("typed_check")),
            "the same columns, types and rows" if checks[0] == "same" else "they differ (%s)" % checks[0])
    out.append(typed)

    if small != large:
        parts, notes = [], []
        for stage, key in (("convert (whole study)", "convert_us"), ("evaluate", "eval_us")):
            a, b = by.get((small, t_max)), by.get((large, t_max))
            va, vb = (derive(a)[key] if a else None), (derive(b)[key] if b else None)
            if not (va and vb):
                parts.append("%s: no successful pair" % stage)
                continue
            q = vb / va
            parts.append("%s %.1f -> %.1f µs (%+.0f%%): %s" % (stage, va, vb, (q - 1) * 100,
                         "**PASS**" if q <= 1.2 else "**MISS** (%.0f points over)" % ((q - 1.2) * 100)))
            if q < 0.8:
                notes.append(stage.split()[0])
        note = " %s cost%s more than 20%% less per output at the larger size: fixed start-up costs weigh on the smallest one." % (
            " and ".join(notes).capitalize(), "s" if len(notes) == 1 else "") if notes else ""
        out.append("- cost per output from %d to %d outputs (target: grows by at most 20%%): %s.%s" % (small, large, "; ".join(parts), note))
    else:
        out.append("- cost per output from the smallest to the largest size (target: grows by at most 20%): n/a (one size run).")

    busy = [(r["h_convert_cores"], r["outputs"]) for r in top if r.get("h_convert_cores") is not None]
    if busy:
        out.append("- cores busy in convert, whole study (target >= 1.8 on 2): %s: %s." % (
            ", ".join("%.2f at %d" % b for b in busy), at_least(min(busy)[0], 1.8, "")))
    else:
        out.append("- cores busy in convert (target >= 1.8 on 2): n/a (no run with CPU times).")

    if 1 in threads and t_max > 1:
        parts = []
        done = [p for p in pairs if p.get("speed_up") is not None and p["threads"] == t_max and stage_of(p) == "evaluate"]
        paired = [(p["speed_up"], p["outputs"]) for p in done]
        if paired:
            parts.append("evaluate, interleaved (median of %d rounds' ratios) %s: %s" % (
                min(len(p["one_core_s"]) for p in done), ", ".join("%.2fx at %d" % u for u in paired), at_least(min(paired)[0], 1.8)))
            ceilings = [(p["ceiling"], p["outputs"]) for p in done if p.get("ceiling") is not None]
            if ceilings:
                parts.append("this machine's ceiling (%d one-core copies at once, each on its own core and dataset) %s" % (
                    t_max, ", ".join("%.2fx at %d" % c for c in ceilings)))
        failed = ["%d: %s" % (p["outputs"], p["failed"]) for p in pairs if p.get("failed") and p["threads"] == t_max and stage_of(p) == "evaluate"]
        if failed:
            parts.append("interleaved pairs failed at " + "; ".join(failed))
        for stage, key, target in (("evaluate, from the rows%s" % (" (no target: the interleaved figure decides)" if paired else ""), "h_evaluate", None if paired else 1.8),
                                   ("convert (whole study, no target)", "h_convert", None)):
            ups = []
            for n in sizes:
                a, b = by.get((n, 1)), by.get((n, t_max))
                if a and b and good(a.get(key)) and good(b.get(key)):
                    ups.append((a[key][0] / b[key][0], n))
            if not ups:
                parts.append("%s: no successful pair" % stage)
            else:
                parts.append("%s %s%s" % (stage, ", ".join("%.2fx at %d" % u for u in ups), ": " + at_least(min(ups)[0], target) if target else ""))
        out.append("- speed-up from one core (`taskset -c 0`, default threads) to %d threads on %d cores (target >= 1.8x for evaluate): %s." % (
            t_max, t_max, "; ".join(parts)))
    else:
        out.append("- speed-up from one core to two (target >= 1.8x for evaluate): n/a (1 and 2 cores not both run).")

    r = by.get((large, t_max))
    x = derive(r) if r else {}
    if x.get("vs_floor") is not None:
        out.append("- evaluate at %d outputs against the pyarrow floor (`bench/evaluate_floor.py`, best of 3 rounds, same run) "
                   "(target <= 1.2x): %.2f s / %.2f s = %.2fx: %s." % (large, r["h_evaluate"][0], r["floor"][0], x["vs_floor"], at_most(x["vs_floor"], 1.2)))
    else:
        out.append("- evaluate at %d outputs against the pyarrow floor (target <= 1.2x): no successful pair." % large)

    for stage, key, limit in (("convert (whole study)", "h_convert", 1024.0), ("evaluate", "h_evaluate", 1536.0)):
        peaks = [(r[key][1], r["threads"]) for r in rows if r["outputs"] == large and r["threads"] <= t_max and good(r.get(key))]
        if peaks:
            peak, t = max(peaks)
            small_peak = max((r[key][1] for r in rows if r["outputs"] == small and r["threads"] <= t_max and good(r.get(key))), default=None)
            growth = "; %.0f MiB at %d outputs (%.1fx for %.0fx the outputs)" % (small_peak, small, peak / small_peak, large / small) if small != large and small_peak else ""
            out.append("- peak memory of %s at %d outputs: %.0f MiB at %d core%s (target < %.0f MiB): %s%s." % (
                stage, large, peak, t, "" if t == 1 else "s", limit, below(peak, limit), growth))
        else:
            out.append("- peak memory of %s at %d outputs (target < %.0f MiB): no successful run." % (stage, large, limit))
    out.append("- outcomes, review_feedback and pr_feedback byte-identical: not measured here; `bench/identity.sh` checks it.")
    return out + [""] + ceiling_targets(rows, threads, pairs, cores)


def stage_of(p):
    """A pair's stage (runs before convert had pairs recorded none: theirs were evaluate's)."""
    return p.get("stage", "evaluate")


def share_of(p):
    """A pair's speed-up over its ceiling (the median of its rounds' shares; from a run that
    recorded none, the speed-up over the ceiling), None without both."""
    if p.get("share") is not None:
        return p["share"]
    if p.get("speed_up") is not None and p.get("ceiling"):
        return round(p["speed_up"] / p["ceiling"], 3)
    return None


def peak_at(rows, pairs, stage, n, t):
    """`stage`'s peak MiB at `n` outputs and `t` threads: the largest over the pairs' runs
    (t = 1: the one-core runs of every pair of that stage and size), else the row's."""
    mine = [p for p in pairs if stage_of(p) == stage and p["outputs"] == n]
    got = [m for p in mine for m in p.get("one_core_mib", [])] if t == 1 else \
          [m for p in mine if p["threads"] == t for m in p.get("threads_mib", [])]
    if got:
        return max(got)
    res = next((r.get(STAGE_KEY[stage]) for r in rows if r["outputs"] == n and r["threads"] == t), None)
    return res[1] if good(res) else None


def ceiling_lines(rows, pairs):
    """The stdout's copy of the table of speed-ups against the ceiling, a blank line after it
    (nothing when no pair was measured)."""
    lines = ceiling_table(rows, pairs)
    return ["Speed-up against this machine's ceiling:", ""] + lines + [""] if lines else []


def ceiling_table(rows, pairs):
    """The table of speed-ups against the machine's ceiling (markdown) and its footnotes:
    per stage and size, a one-core row (the peak the others are read against), then one row
    per thread count paired with it. Empty when no pair was measured."""
    body, notes = [], []
    keys = sorted({(PAIR_STAGES.index(stage_of(p)) if stage_of(p) in PAIR_STAGES else 9, stage_of(p), p["outputs"]) for p in pairs})
    for _, stage, n in keys:
        one = peak_at(rows, pairs, stage, n, 1)
        body.append([stage, str(n), "1 (one core)", "—", "—", "—", num(one, "%.0f"), "1.00" if one else "n/a"])
        for p in sorted((p for p in pairs if stage_of(p) == stage and p["outputs"] == n), key=lambda p: p["threads"]):
            t, peak = p["threads"], peak_at(rows, pairs, stage, n, p["threads"])
            failed = p.get("failed")
            if failed:
                notes.append("%s at %d outputs, %d threads failed: `%s`." % (stage, n, t, failed))
            elif p.get("no_ceiling"):
                notes.append("%s at %d outputs, %d threads: %s." % (stage, n, t, p["no_ceiling"]))
            body.append([stage, str(n), "%d threads" % t, "failed" if failed else num(p.get("speed_up"), "%.2fx"),
                         num(p.get("ceiling"), "%.2fx"), num(share_of(p), "%.2f"), num(peak, "%.0f"),
                         num(peak / one if peak and one else None, "%.2f")])
    if not body:
        return []
    lines = table(["stage", "outputs", "threads", "speed-up", "ceiling", "share of ceiling", "peak MiB", "peak vs one thread"], body)
    return lines + ([""] + ["- " + x for x in notes] if notes else [])


def share_bullet(pairs, stages, t, target, label):
    """A bullet for a share of the ceiling that must be >= target at `t` threads, for each
    of `stages` at every size: each pair's share (its speed-up of its ceiling), the verdict
    on the worst; n/a with the reason where no pair has one."""
    got, missing = [], []
    for stage in stages:
        mine = sorted((p for p in pairs if stage_of(p) == stage and p["threads"] == t), key=lambda p: p["outputs"])
        if not mine:
            missing.append("%s: no interleaved pair at %d threads was recorded" % (stage, t))
        for p in mine:
            s = share_of(p)
            if s is not None:
                got.append((s, "%s %.2f at %d (%.2fx of %.2fx)" % (stage, s, p["outputs"], p["speed_up"], p["ceiling"])))
            else:
                missing.append("%s at %d: %s" % (stage, p["outputs"], p.get("failed") or p.get("no_ceiling") or "no ceiling recorded"))
    if not got:
        return "- %s: n/a (%s)." % (label, "; ".join(missing))
    return "- %s: %s: %s%s." % (label, ", ".join(g[1] for g in got), at_least(min(got)[0], target, " of the ceiling", "%.2f"),
                                "; n/a for %s" % "; ".join(missing) if missing else "")


def never_slower(rows, threads):
    """A bullet: convert's and evaluate's time at each thread count <= at the count before
    (the rows' seconds), at every size."""
    counts = sorted(threads)
    parts, slower = [], []
    for stage in PAIR_STAGES:
        key = STAGE_KEY[stage]
        for n in sorted({r["outputs"] for r in rows}):
            by = {r["threads"]: r.get(key) for r in rows if r["outputs"] == n}
            secs = [(t, by[t][0]) for t in counts if good(by.get(t))]
            if len(secs) < len(counts):
                slower.append("%s at %d: a count has no time" % (stage, n))
            parts.append("%s at %d: %s s" % (stage, n, " -> ".join("%.2f" % s for _, s in secs)))
            slower += ["%s at %d: %d -> %d threads %.2f -> %.2f s" % (stage, n, a[0], b[0], a[1], b[1])
                       for a, b in zip(secs, secs[1:]) if b[1] > a[1]]
    verdict = "**MISS** (%s)" % "; ".join(slower) if slower else "**PASS**"
    return "- never slower at more threads (convert, whole study, and evaluate; each count's time <= the previous count's, %s threads, from the rows): %s: %s." % (
        ", ".join(map(str, counts)), "; ".join(parts), verdict)


def ceiling_targets(rows, threads, pairs, cores):
    """The targets of the speed-up against this machine's ceiling (issue 59), one bullet
    each, from the pairs and the rows; a target whose figures were not measured says n/a and
    why."""
    out = ["## Against the targets (issue 59): speed-up against this machine's ceiling", "",
           "This machine has %s; the figures are those of the table \"Speed-up against this machine's ceiling\": each "
           "share is an interleaved speed-up over the ceiling measured in the same run (the median of the rounds)." % (
               "%d cores" % cores if cores else "an unrecorded number of cores"), ""]
    if 1 not in threads or 2 not in threads:
        out.append("- evaluate, one core -> two threads, against the ceiling (target >= 0.9 of it, on 2 cores): n/a (--threads did not include 1 and 2).")
    else:
        out.append(share_bullet(pairs, ["evaluate"], 2, 0.9, "evaluate, one core -> two threads on two cores, against the ceiling (target >= 0.9 of it)"))
    sixteen = [("convert and evaluate, one core -> 16 threads, against the ceiling (target >= 0.75 of it, on 16 cores)",
                lambda: share_bullet(pairs, PAIR_STAGES, 16, 0.75, "convert and evaluate, one core -> 16 threads on 16 cores, against the ceiling (target >= 0.75 of it)")),
               ("never slower at more threads, convert and evaluate (on 16 cores)", lambda: never_slower(rows, threads)),
               ("evaluate's peak memory at 16 threads (target <= 1.25x its one-thread peak, on 16 cores)", lambda: peak_bullet(rows, pairs))]
    why = ("16 threads were not run: --threads %s" % ",".join(map(str, sorted(threads))) if 16 not in threads else
           "1 thread was not run" if 1 not in threads else
           "this machine has %s cores: 16 threads cannot each have a core of their own" % (cores or "an unrecorded number of") if not cores or cores < 16 else None)
    for label, bullet in sixteen:
        out.append("- %s: n/a (%s)." % (label, why) if why else bullet())
    return out


def peak_bullet(rows, pairs):
    """A bullet: evaluate's peak at 16 threads over its one-thread peak <= 1.25, at every size."""
    got, missing = [], []
    for n in sorted({r["outputs"] for r in rows} | {p["outputs"] for p in pairs}):
        one, top = peak_at(rows, pairs, "evaluate", n, 1), peak_at(rows, pairs, "evaluate", n, 16)
        if one and top:
            got.append((top / one, "%.2fx at %d (%.0f / %.0f MiB)" % (top / one, n, top, one)))
        else:
            missing.append(str(n))
    label = "evaluate's peak memory at 16 threads against its one-thread peak (target <= 1.25x)"
    if not got:
        return "- %s: n/a (no successful runs at 1 and 16 threads)." % label
    return "- %s: %s: %s%s." % (label, ", ".join(g[1] for g in got), at_most(max(got)[0], 1.25),
                                "; no number at %s" % ", ".join(missing) if missing else "")


SHELL_HEADING = "## The SQL shell's first look"
WITHIN_ONE_RUN = "Timings on a shared machine move between runs; compare ratios within one run, not across runs."


def machine(binary=BIN):
    """Where and with what this run measures: the date, the machine, the binary and the peers' versions."""
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        version = "?"
    return {
        "date": datetime.date.today().isoformat(),
        "platform": platform.platform(),
        "cores": os.cpu_count() or 0,
        "cpu": cpu,
        "hindsight": version,
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


def write(path, rows, sizes, threads, repos, target_lines, run=None, instr=None, instr_size=None, pairs=()):
    """BENCHMARKS.md: this run's figures, one table per stage against the peers, the targets,
    and how they were measured. Earlier runs are in git's history of this file, not in it; the
    sections from the SQL shell's on are written by hand and kept."""
    rows = sorted(rows, key=lambda r: (r["outputs"], r["threads"]))
    kept = kept_sections(path)
    at = lambda r: [str(r["outputs"]), cores_label(r["threads"])]
    convert, evaluate, report, scaling = [], [], [], []
    for r in rows:
        h, hs, d, dt, p, ev, hr, dr, fl = (r.get(k) for k in ("h_convert", "h_convert_snap", "d_convert", "d_typed", "a_convert", "h_evaluate", "h_report", "d_report", "floor"))
        x = derive(r)
        mark = " †" if slim(r) else (" ‡" if r.get("a_skipped") else "")
        convert.append(at(r) + [
            "%.1f" % r["input_mb"], cell(hs, x["h_mbs"]), cell(d, x["d_mbs"]), cell(dt, x["dt_mbs"]), cell(p, x["a_mbs"]) + mark,
            num(x["vs_duck"], "%.2f"), num(x["vs_typed"], "%.2f"), num(x["vs_arrow"], "%.2f") + (mark if x["vs_arrow"] is not None or r.get("a_skipped") else ""),
            cell(h, h and h[0], "%.2f"), cell(h, x["convert_us"]), num(r.get("h_convert_cores"), "%.2f"),
            " / ".join(cell(res, res and res[1], "%.0f") for res in (h, d, dt, p)),
        ])
        evaluate.append(at(r) + [cell(ev, x["eval_ops"], "%.0f"), cell(ev, x["eval_us"]), cell(fl, fl and fl[0], "%.2f"),
                                 num(x["vs_floor"], "%.2f"), num(r.get("h_evaluate_cores"), "%.2f"), cell(ev, ev and ev[1], "%.0f")])
        report.append(at(r) + [cell(hr, hr and hr[0], "%.2f"), cell(dr, dr and dr[0], "%.2f"), num(x["report_ratio"], "%.2f")])
    t_max = max(threads)
    if 1 in threads and t_max > 1:
        by = {(r["outputs"], r["threads"]): r for r in rows}
        for n in sizes:
            a, b = by.get((n, 1)), by.get((n, t_max))
            if not (a and b):
                continue
            up = lambda k: num(a[k][0] / b[k][0], "%.2f") if good(a.get(k)) and good(b.get(k)) else "n/a"
            scaling.append([str(n), cell(a["h_convert"], a["h_convert"][0], "%.2f"), cell(b["h_convert"], b["h_convert"][0], "%.2f"), up("h_convert"),
                            cell(a["h_evaluate"], a["h_evaluate"][0], "%.2f"), cell(b["h_evaluate"], b["h_evaluate"][0], "%.2f"), up("h_evaluate")])
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
        "The plain peers' job: the snapshot's cassettes in, Parquet out. \"DuckDB typed\" does hindsight's job in SQL "
        "(`bench/duckdb_typed.sql`): `responses` and the nine typed tables, the same columns and rows. hindsight also checks "
        "every line, drops duplicates, hashes the inputs and writes the CI and review feedback tables.",
        "",
    ]
    lines += table(
        ["outputs", "cores", "input MB", "hindsight MB/s", "DuckDB MB/s", "DuckDB typed MB/s", "pyarrow MB/s", "vs DuckDB", "vs DuckDB typed",
         "vs pyarrow", "whole study s", "whole study µs/output", "cores busy (whole study)",
         "peak MiB (hindsight whole study / DuckDB / DuckDB typed / pyarrow)"],
        convert,
    )
    if any(slim(r) for r in rows):
        lines += ["", "† " + SLIM_NOTE]
    skipped = {r["outputs"]: r["a_skipped"] for r in sorted(rows, key=lambda r: -r["threads"]) if r.get("a_skipped")}
    if skipped:
        lines += ["", "‡ pyarrow was not run at %s: %s." % (", ".join("%d outputs" % n for n in sorted(skipped)), skipped[max(skipped)].replace("skipped: ", ""))]
    checks = [(r["outputs"], r["typed_check"]) for r in rows if r.get("typed_check")]
    for n, c in checks:
        lines += ["", "DuckDB typed's tables against hindsight's at %d outputs (`bench/duckdb_typed.py --compare`): %s." % (
            n, "the same columns, types and rows, in the same order (`responses.body` aside: DuckDB re-writes it)" if c == "same" else "they differ: " + c)]
    lines += [
        "",
        "## Evaluate",
        "",
        "Every safe output judged in all five windows; no peer does this job. The floor is pyarrow reading the tables "
        "evaluate reads and writing its outcomes (`bench/evaluate_floor.py`, best of 3 rounds, on the same dataset and cores); "
        "vs floor is evaluate's time over it.",
        "",
    ]
    lines += table(["outputs", "cores", "outputs/s", "µs/output", "floor s", "vs floor", "cores busy", "peak MiB"], evaluate)
    if scaling:
        lines += [
            "",
            "## One core to %s" % ({2: "two", 3: "three", 4: "four"}.get(t_max) or t_max),
            "",
            "Wall seconds of the rows on one core (`taskset -c 0`, the default thread count) and with %d threads on %d cores; "
            "the speed-up is the first over the second. The rows' runs are minutes apart: the targets read the interleaved "
            "speed-ups of the next table." % (t_max, t_max),
            "",
        ]
        lines += table(["outputs", "convert s, 1 core", "convert s, %d" % t_max, "convert speed-up", "evaluate s, 1 core",
                        "evaluate s, %d" % t_max, "evaluate speed-up"], scaling)
    against = ceiling_table(rows, pairs)
    if against:
        lines += [
            "",
            "## Speed-up against this machine's ceiling",
            "",
            "For each thread count N > 1, convert (the whole study) and evaluate, interleaved: each round runs the stage with N "
            "threads on N cores and then on one core (`taskset -c 0`), one right after the other on the same input, and the "
            "speed-up is the median of the rounds' ratios (one core over N threads). The ceiling is what the cores give work that "
            "shares nothing: each round, N one-core copies of the stage run at once, each on a core of its own (`taskset -c i`) "
            "with an output of its own (convert: the same study read, each its own dataset written; evaluate: a dataset copy "
            "each); N x the one-core time over the copies' mean time, the median of the rounds. No speed-up is expected above it "
            "on this machine. The share of the ceiling is each round's speed-up over its ceiling, the median of the rounds; with "
            "more threads than the machine has cores nothing is pinned and there is no ceiling. Peak MiB is the largest resident "
            "set over the pair's runs at that count (one core: over every pair's one-core runs), from `/usr/bin/time -v`.",
            "",
        ]
        lines += against
    lines += ["", "## Instructions", "",
              "Instructions executed at 1 thread (valgrind's callgrind; helper threads count as the work they do): convert of "
              "the whole study, then evaluate of its dataset. A count does not move with the load of the machine. valgrind's CPU "
              "has no SHA instructions, so there SHA-256 (convert hashes every input and output file, evaluate its tables) runs "
              "the sha2 crate's portable code, counted apart: on a CPU with SHA extensions, such as this one, it is a few "
              "percent of convert's time (perf); the last column leaves it out.", ""]
    lines += instruction_lines(instr)
    lines += [
        "",
        "## Report",
        "",
        "The whole dashboard: `hindsight report` against the same `queries/*.sql` run in DuckDB over the same Parquet.",
        "",
    ]
    lines += table(["outputs", "cores", "hindsight s", "DuckDB s", "vs DuckDB"], report)
    keys = ("h_convert_snap", "h_convert", "h_evaluate", "floor", "h_report", "d_convert", "d_typed", "a_convert", "d_report")
    fails = [(r["outputs"], r["threads"], k, r[k][3]) for r in rows for k in keys if r.get(k) is not None and not r[k][2]]
    if fails:
        lines += ["", "Failures (the program could not do the job on this input):", ""]
        lines += ["- %d outputs, %d cores, %s: `%s`" % (n, t, k, e or "?") for n, t, k, e in fails]
    lines += [""] + target_lines + [""]
    machine_line = (
        "%s, %d cores, %s; release binary (%s); DuckDB %s and pyarrow %s from `.venv`."
        % (m["platform"], m["cores"], m["cpu"] or "processor not named", m.get("hindsight") or "version not recorded", m["duckdb"], m["pyarrow"])
        if m.get("platform") else "not recorded (the rows were re-written with `--rows` from a file without its run line)."
    )
    rounds = (run or {}).get("rounds", 1)
    opts = ("" if repos == 200 else " --repos %d" % repos) + ("" if rounds == 3 else " --rounds %d" % rounds)
    if instr_size is not None and instr_size != 100000:
        opts += " --instructions %d" % instr_size
    # Runs before synth wrote real-shaped bodies recorded no `compact`: theirs were compact.
    compact = (run or {}).get("compact", run is not None)
    if compact:
        opts += " --compact"
    bodies = ("compact bodies (`synth --compact`: only the keys hindsight reads)" if compact
              else "real-shaped bodies (every key GitHub's REST API sends for the endpoint, as recorded in `fixtures/real/bodies/`)")
    lines += [
        "## Method",
        "",
        "- Machine: %s" % machine_line,
        "- Command: `bench/run.sh --sizes %s --threads %s%s`. Each size is a study `hindsight synth` writes (seed 1, %d repositories, %s); "
        "every program runs %s per size and core count, %speak memory from `/usr/bin/time -v`."
        % (",".join(map(str, sizes)), ",".join(map(str, threads)), opts, repos, bodies,
           "once" if rounds == 1 else "%d times" % rounds,
           "" if rounds == 1 else "and a row shows the run of median time (each peer's and hindsight's alike; the pyarrow floor is the best of its own 3 rounds), with its cores busy and "),
        "- Cores: 1 is one core (`taskset -c 0`) with each program at its default thread count (hindsight's is the cores it may "
        "use: one, and its helper threads share it); N > 1 is N threads (`--threads N`, DuckDB's `threads`, pyarrow's CPU count) "
        "on cores 0..N-1. Every program of a row runs on the same cores.",
        "- Times: hindsight's is its process's wall time; DuckDB's and pyarrow's are taken inside their Python process, from "
        "the connection or first read to the last file written, so the interpreter's start-up is not counted against them. "
        "DuckDB typed runs with `memory_limit` at half the memory available when it starts (beyond it DuckDB spills to disk).",
        "- Columns: input MB is the snapshot's cassettes; MB/s is that over the time of convert on the snapshot alone "
        "(hindsight with no runs, as the peers), which the ratios use; \"whole study\" is hindsight's convert of the snapshot "
        "and its runs, which the cost per output, the speed-up from one core and convert's peak memory in the targets use; "
        "outputs/s counts each safe output once, judged in all five windows; µs/output is wall time over safe outputs "
        "(not multiplied by cores); cores busy is (user + sys CPU seconds) / wall seconds, from `/usr/bin/time -v` "
        "(2.00 on two cores is every core busy the whole time); vs DuckDB, vs DuckDB typed and vs pyarrow are the peer's time over "
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
