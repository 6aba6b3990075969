#!/usr/bin/env bash
# The AIDev import benchmark: builds the release binary, installs DuckDB (tests/requirements.txt)
# in .venv, and runs bench/aidev.py (arguments: --sizes, --release, --bin, --out).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
if ! .venv/bin/python -c 'import duckdb' 2>/dev/null; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
fi
exec .venv/bin/python bench/aidev.py "$@"
