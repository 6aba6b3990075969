#!/usr/bin/env bash
# The benchmark: builds the release binary, installs DuckDB and pyarrow (tests/requirements.txt)
# in .venv, and runs bench/run.py. Arguments go to bench/run.py (--sizes, --threads, --instructions,
# --bin, --out, --rows, --compact); the instruction counts need valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
if ! .venv/bin/python -c 'import duckdb, pyarrow' 2>/dev/null; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
fi
exec .venv/bin/python bench/run.py "$@"
