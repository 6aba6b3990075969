"""A first look at a large table, side by side with DuckDB on the same Parquet.

`SELECT * FROM outcomes` on a synthetic study of --outputs safe outputs (every window, so
about 4x as many outcome rows): hindsight's SQL shell printing its 40-row preview with the
row count, DuckDB's `.show()` (its CLI's boxed preview, 40 rows), and both writing every row
as CSV to /dev/null (flat memory). Each pair runs --rounds times, alternating; the table is
the median wall seconds and peak RSS of each, and their ratio. Run through bench/preview.sh
(release binary)."""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from run import timed  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("HINDSIGHT_BIN", os.path.join(ROOT, "target", "release", "hindsight"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outputs", type=int, default=250000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="hindsight-preview-")
    study, ds = os.path.join(work, "study"), os.path.join(work, "ds")
    subprocess.run([BIN, "synth", "--outputs", str(args.outputs), "--repos", "200", "--out", study], check=True, capture_output=True)
    subprocess.run([BIN, "run", "--quiet", "--snapshot", f"{study}/snapshot", "--runs", f"{study}/runs", "--out", ds], check=True, stdout=subprocess.DEVNULL)
    parquet = os.path.join(ds, "outcomes.parquet")
    sql = "SELECT * FROM outcomes;"
    q = f"SELECT * FROM '{parquet}'"
    py = sys.executable
    cases = {
        "preview": (
            ["sh", "-c", f"echo '{sql}' | {BIN} sql --dataset {ds}"],
            [py, "-c", f"import duckdb; duckdb.sql(\"{q}\").show(max_rows=40)"],
        ),
        "csv": (
            ["sh", "-c", f"echo '{sql}' | {BIN} sql --dataset {ds} --format csv > /dev/null"],
            [py, "-c", f"import duckdb; duckdb.sql(\"COPY ({q}) TO '/dev/null' (FORMAT csv, HEADER)\")"],
        ),
    }
    rows = subprocess.run([BIN, "report", "--dataset", ds, "--sql", "SELECT COUNT(*) AS n FROM outcomes", "--format", "csv"], check=True, capture_output=True, text=True).stdout.split()[1]
    print(f"| what ({rows} outcome rows) | hindsight s | DuckDB s | ratio | hindsight MiB | DuckDB MiB |")
    print("|---|---|---|---|---|---|")
    for name, (ours, theirs) in cases.items():
        a, b = [], []
        for _ in range(args.rounds):
            a.append(timed(ours))
            b.append(timed(theirs))
        for r in a + b:
            if not r[2]:
                sys.exit(f"{name}: a run failed: {r[3]}")
        s_a, s_b = statistics.median(r[0] for r in a), statistics.median(r[0] for r in b)
        m_a, m_b = statistics.median(r[1] for r in a), statistics.median(r[1] for r in b)
        print(f"| {name} | {s_a:.2f} | {s_b:.2f} | {s_a / s_b:.2f} | {m_a:.0f} | {m_b:.0f} |")


if __name__ == "__main__":
    main()
