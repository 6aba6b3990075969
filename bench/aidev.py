"""The AIDev import at growing sizes, beside DuckDB copying the same Parquet tables.

`bench/aidev.sh` runs it on the release binary. For each size, `hindsight synth --aidev REL
--prs N` writes a release in its own layout; then, each timed under /usr/bin/time -v:
- hindsight: `import aidev` (read, rebuild the captures, write the tables, evaluate);
- DuckDB: every table of the release read and written back as zstd Parquet, the I/O floor of
  any import of the same files (a peer doing less: no typing, no captures, no evaluation).
It prints one JSON line per size and the table, and replaces the "AIDev import" section of
BENCHMARKS.md. The targets are ratios within this run: cost per PR against the smallest size
(flat: within +20%), and peak memory (under 1.5 GiB) at every size.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADING = "## AIDev import"
LIMIT_MIB = 1.5 * 1024

DUCK = r"""
import duckdb, glob, json, os, sys, time
src, dst = sys.argv[1], sys.argv[2]
con = duckdb.connect()
t0 = time.perf_counter()
for f in sorted(glob.glob(os.path.join(src, "*.parquet"))):
    out = os.path.join(dst, os.path.basename(f)).replace("'", "''")
    con.execute("COPY (SELECT * FROM read_parquet('%s')) TO '%s' (FORMAT parquet, COMPRESSION zstd)" % (f.replace("'", "''"), out))
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""


def timed(cmd):
    """(wall seconds, peak RSS MiB, ok, stdout, the command's last line of error, stderr) of a command under /usr/bin/time -v."""
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr)
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-2000:])
    said = [l for l in r.stderr.splitlines() if l.strip() and not l.startswith(("\t", "Command "))]
    return secs, (int(rss.group(1)) / 1024 if rss else 0.0), r.returncode == 0, r.stdout, said[-1] if said and r.returncode else "", r.stderr


def size_mb(folder):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs) / 1e6


def measure(binary, python, release, n, work, log=None):
    src = os.path.join(work, "aidev-%d" % n)
    subprocess.run([binary, "synth", "--aidev", release, "--prs", str(n), "--seed", "1", "--out", src], check=True, capture_output=True)
    ds = os.path.join(work, "ds-%d" % n)
    h = timed([binary, "--quiet", "import", "aidev", src, "--out", ds])
    if log:
        # With HINDSIGHT_PHASES=1 set, where the time and memory went.
        with open(os.path.join(log, "import-%d.log" % n), "w") as f:
            f.write(h[5])
    copy = os.path.join(work, "copy-%d" % n)
    os.makedirs(copy)
    d = timed([python, "-c", DUCK, src, copy])
    try:
        d_secs = json.loads(d[3].strip().splitlines()[-1])["seconds"]
    except (IndexError, ValueError, KeyError):
        d_secs = d[0]
    row = {"prs": n, "input_mb": round(size_mb(src), 1), "hindsight_s": round(h[0], 2), "hindsight_mib": round(h[1]), "hindsight_ok": h[2], "hindsight_error": h[4],
           "duckdb_s": round(d_secs, 2), "duckdb_mib": round(d[1]), "duckdb_ok": d[2]}
    for p in (src, ds, copy):
        shutil.rmtree(p, ignore_errors=True)
    return row


def lines(rows, release, run):
    base = rows[0]
    per = lambda r: r["hindsight_s"] / r["prs"] * 1e6
    done = [r for r in rows if r["hindsight_ok"]]
    failed = [r for r in rows if not r["hindsight_ok"]]
    out = [HEADING, "",
           "`bench/aidev.sh` (%s; release binary; synthetic AIDev %s from `hindsight synth --aidev %s --seed 1`). "
           "hindsight: `import aidev`, evaluation included. DuckDB: every table read and written back as zstd Parquet, "
           "the I/O floor of any import of the same files (less work: no typing, captures or evaluation)." % (run, release, release), "",
           "| PRs | input MB | hindsight s | µs per PR | vs %d PRs | peak MiB | DuckDB copy s | hindsight / DuckDB | DuckDB peak MiB |" % base["prs"],
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = r["hindsight_s"] / r["duckdb_s"] if r["duckdb_s"] else float("nan")
        if not r["hindsight_ok"]:
            out.append("| %d | %.1f | failed after %.0f s | - | - | %d at the failure | %.2f | - | %d |" % (
                r["prs"], r["input_mb"], r["hindsight_s"], r["hindsight_mib"], r["duckdb_s"], r["duckdb_mib"]))
            continue
        out.append("| %d | %.1f | %.2f | %.0f | %.2fx | %d | %.2f | %.1fx | %d |" % (
            r["prs"], r["input_mb"], r["hindsight_s"], per(r), per(r) / per(base), r["hindsight_mib"], r["duckdb_s"], ratio, r["duckdb_mib"]))
    worst = max(per(r) / per(base) for r in done) if base["hindsight_ok"] else float("nan")
    peak = max(r["hindsight_mib"] for r in rows)
    out += ["",
            "Against the targets: cost per PR at most %.2fx the %d-PR run's (target: within 1.20x): %s; peak %d MiB (target: under %d MiB): %s." % (
                worst, base["prs"], "met" if worst <= 1.2 and not failed else "**not met**", peak, LIMIT_MIB, "met" if peak < LIMIT_MIB and not failed else "**not met**")]
    for r in failed:
        out.append("The %d-PR import failed: `%s`." % (r["prs"], r["hindsight_error"] or "no message"))
    return out + [""]


def write(path, section):
    """Replace the section under HEADING (to the next `## ` heading or the end), or add it."""
    text = open(path).read() if os.path.exists(path) else ""
    at = text.find(HEADING)
    if at < 0:
        text = text.rstrip("\n") + "\n\n" + "\n".join(section) + "\n"
    else:
        end = text.find("\n## ", at + len(HEADING))
        rest = text[end + 1:] if end >= 0 else ""
        text = text[:at] + "\n".join(section) + "\n" + ("\n" + rest if rest else "")
    open(path, "w").write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="33596,100000,300000")
    ap.add_argument("--release", default="v3", choices=["v1", "v3", "v4", "v5"])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "hindsight"))
    ap.add_argument("--python", default=os.path.join(ROOT, ".venv", "bin", "python"))
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--log", help="a folder for each import's stderr (HINDSIGHT_PHASES=1 gives its phases)")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    run = "%d cores, %s" % (os.cpu_count() or 1, time.strftime("%Y-%m-%d"))
    work = tempfile.mkdtemp(prefix="hindsight-aidev-bench-")
    rows = []
    try:
        for n in sorted(int(x) for x in args.sizes.split(",")):
            rows.append(measure(binary, args.python, args.release, n, work, args.log))
            print(json.dumps(rows[-1]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    section = lines(rows, args.release, run)
    print("\n".join(section))
    write(args.out, section)


if __name__ == "__main__":
    main()
