#!/usr/bin/env bash
# Byte-identity guard for refactors of the evaluate stage: runs the demo, the bad-input study
# and a synthetic study with a hindsight binary and prints the sha256 of every file each
# dataset holds (Parquet tables, manifest, enriched traces) and of the rules catalogue.
# Usage: bench/identity.sh [BINARY] [OUTPUTS] > sums.txt ; diff two such files.
# BINARY defaults to target/debug/hindsight; OUTPUTS (synthetic study size) to 20000.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/debug/hindsight}")
n=${2:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sums() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs sha256sum | sed "s|  \./|  $2/|"); }
"$bin" run --quiet --out "$work/demo" >/dev/null
sums "$work/demo" demo
"$bin" run --quiet --snapshot fixtures/bad-input/snapshot --runs fixtures/bad-input/runs --out "$work/bad" >/dev/null || true
sums "$work/bad" bad-input
"$bin" synth --quiet --outputs "$n" --repos 100 --out "$work/synth-in" >/dev/null
"$bin" run --threads 2 --quiet --snapshot "$work/synth-in/snapshot" --runs "$work/synth-in/runs" --out "$work/synth" >/dev/null
sums "$work/synth" "synth-$n"
"$bin" evaluate --threads 1 --quiet --dataset "$work/synth" >/dev/null
sums "$work/synth" "synth-$n-1thread"
echo "$("$bin" rules --format json | sha256sum | cut -d' ' -f1)  rules.json"
echo "$("$bin" rules --format markdown | sha256sum | cut -d' ' -f1)  rules.md"
