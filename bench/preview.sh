#!/usr/bin/env bash
# A first look at a large table (the SQL shell's preview, and all rows as CSV) side by side
# with DuckDB on the same Parquet. Builds the release binary; arguments go to bench/preview.py.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
if ! .venv/bin/python -c 'import duckdb' 2>/dev/null; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
fi
exec .venv/bin/python bench/preview.py "$@"
