#!/usr/bin/env bash
# The evaluate stage alone, two binaries compared by the instructions they execute
# (valgrind's callgrind) rather than by time: on this shared machine the same binary's time
# moves by 5-10% between runs, so a change of 1-2% shows only in a count that does not
# depend on the load. Each binary evaluates its own copy of one converted synthetic study
# at 1 thread; the outcomes' sha256 must agree. Usage: bench/instructions.sh PREV NEW [SIZE]
# (release binaries; SIZE outputs, 10000 unless given, made and converted by PREV; ~10 s of
# valgrind per binary at 10000).
set -euo pipefail
prev=$(realpath "$1"); new=$(realpath "$2"); n=${3:-10000}
command -v valgrind >/dev/null || { echo "bench/instructions.sh needs valgrind (Debian's valgrind package)" >&2; exit 2; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
"$prev" synth --quiet --outputs "$n" --repos 100 --out "$w/s" >/dev/null
"$prev" convert --threads 2 --quiet --snapshot "$w/s/snapshot" --runs "$w/s/runs" --out "$w/d" >/dev/null
echo "| binary | instructions (M) | vs PREV | outcomes sha256 |"
echo "|---|---|---|---|"
base=""
for b in prev new; do
  cp -r "$w/d" "$w/$b"
  valgrind --tool=callgrind --callgrind-out-file="$w/$b.cg" "${!b}" evaluate --threads 1 --quiet --dataset "$w/$b" 2>"$w/$b.log" >/dev/null
  ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$w/$b.log" | head -1)
  sum=$(sha256sum "$w/$b/outcomes.parquet" | cut -c1-16)
  base=${base:-$ir}
  awk -v b="$b" -v ir="$ir" -v base="$base" -v sum="$sum" 'BEGIN { printf "| %s | %.1f | %+.2f%% | %s |\n", b, ir / 1e6, (ir - base) * 100 / base, sum }'
done
