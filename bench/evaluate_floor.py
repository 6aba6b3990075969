"""The I/O an evaluate run does, done by pyarrow on the same machine: a peer for
evaluate's time, to be read as a ratio in the same run (seconds move between machines).

Reads the dataset's `responses.parquet` (every column, the bodies decompressed) and
`safe_outputs.parquet`, then writes `outcomes.parquet`'s rows again with evaluate's settings
(zstd level 3, row groups of 65,536, dictionaries), ROUNDS times (default 3). Needs a dataset
that was evaluated already. Usage: .venv/bin/python bench/evaluate_floor.py DATASET [ROUNDS]
"""

import os
import sys
import tempfile
import time

import pyarrow.parquet as pq


def main():
    ds = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    # The rows to write, read once: only the reading of the inputs and the writing are timed.
    outcomes = pq.read_table(os.path.join(ds, "outcomes.parquet"))
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            t = time.perf_counter()
            read = [pq.read_table(os.path.join(ds, f)) for f in ("responses.parquet", "safe_outputs.parquet")]
            t_read = time.perf_counter() - t
            del read
            t = time.perf_counter()
            pq.write_table(outcomes, os.path.join(tmp, "outcomes.parquet"), compression="zstd", compression_level=3, row_group_size=65536, use_dictionary=True)
            t_write = time.perf_counter() - t
            print(f"round {r + 1}: read {t_read:.2f} s, write {t_write:.2f} s, together {t_read + t_write:.2f} s")


if __name__ == "__main__":
    main()
