#!/usr/bin/env python3
"""Convert and evaluate at several thread counts on one study: wall time, cores busy, peak
memory and the serial share of CPU, one row per count, as a Markdown table.

    bench/threads.py --bin BINARY --study DIR [--threads 1,2,4,8,16] [--rounds 1]

DIR is a study `hindsight synth` wrote (snapshot/ and runs/). Thread count 1 is pinned to one
core (`taskset -c 0`); N > 1 runs `--threads N` on cores 0..N-1 where the machine has them, and
unpinned where it has fewer (then the row shows what more threads than cores cost: memory and
time must not grow). The serial share is what `HINDSIGHT_PHASES` samples: the CPU spent while
one thread alone was running, over all the CPU sampled (more cores cannot shorten that part).
Peak memory and cores busy come from `/usr/bin/time -v`. Each row is the round of median wall
time. Only the standard library is needed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def pin(t):
    cores = os.cpu_count() or 1
    if not shutil.which("taskset") or cores < t:
        return [], ["--threads", str(t)]
    return ["taskset", "-c", "0" if t == 1 else "0-%d" % (t - 1)], ([] if t == 1 else ["--threads", str(t)])


def timed(cmd):
    """(wall s, cores busy, peak MiB, serial %, ok, message)"""
    env = dict(os.environ, HINDSIGHT_PHASES="1")
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env)
    err = r.stderr
    field = lambda name: re.search(r"^\s*%s: (.*)$" % re.escape(name), err, re.M)
    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    secs = 0.0
    if wall:
        for part in wall.group(1).split(":"):
            secs = secs * 60 + float(part)
    user, sys_ = field("User time (seconds)"), field("System time (seconds)")
    busy = (float(user.group(1)) + float(sys_.group(1))) / secs if user and sys_ and secs else 0.0
    peak = field("Maximum resident set size (kbytes)")
    serial = re.search(r"phase \(the whole stage\), serial ([0-9.]+)% of cpu", err)
    ok = r.returncode == 0
    return (secs, busy, int(peak.group(1)) / 1024 if peak else 0.0, float(serial.group(1)) if serial else None, ok,
            "" if ok else (err.strip().splitlines() or ["?"])[-1])


def median_round(rounds, run):
    results = sorted((run() for _ in range(rounds)), key=lambda r: r[0])
    return results[len(results) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--study", required=True)
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    snapshot, runs = os.path.join(args.study, "snapshot"), os.path.join(args.study, "runs")
    work = tempfile.mkdtemp(prefix="threads-", dir=os.environ.get("TMPDIR"))
    rows = []
    try:
        for t in threads:
            p, flags = pin(t)
            ds = os.path.join(work, "ds")

            def convert():
                shutil.rmtree(ds, ignore_errors=True)
                return timed(p + [args.bin, "--quiet"] + ["convert"] + flags + ["--snapshot", snapshot, "--runs", runs, "--out", ds])

            c = median_round(args.rounds, convert)
            e = median_round(args.rounds, lambda: timed(p + [args.bin, "--quiet", "evaluate"] + flags + ["--dataset", ds])) if c[4] else (0, 0, 0, None, False, "no dataset")
            rows.append((t, "pinned" if p else "unpinned", c, e))
            print("threads %d: convert %.2f s, evaluate %.2f s" % (t, c[0], e[0]), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    one = {"c": rows[0][2], "e": rows[0][3]} if rows and rows[0][0] == 1 else None
    print("| threads | cores | convert s | speed-up | cores busy | peak MiB | serial % of CPU | evaluate s | speed-up | cores busy | peak MiB | peak vs one thread | serial % of CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    # On one core every sample has at most one thread running: no serial share to tell.
    serial = lambda r, t: "—" if t == 1 else ("%.1f" % r[3] if r[4] and r[3] is not None else "n/a")
    for t, pinned, c, e in rows:
        cell = lambda r, i, spec: (spec % r[i]) if r[4] and r[i] is not None else ("failed: " + r[5] if not r[4] else "n/a")
        up = lambda r, k: "%.2f" % (one[k][0] / r[0]) if one and r[4] and r[0] else "n/a"
        vs = "%.2f" % (e[2] / one["e"][2]) if one and e[4] and one["e"][2] else "n/a"
        print("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            t, pinned, cell(c, 0, "%.2f"), up(c, "c"), cell(c, 1, "%.2f"), cell(c, 2, "%.0f"), serial(c, t),
            cell(e, 0, "%.2f"), up(e, "e"), cell(e, 1, "%.2f"), cell(e, 2, "%.0f"), vs, serial(e, t)))


if __name__ == "__main__":
    main()
