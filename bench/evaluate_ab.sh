#!/usr/bin/env bash
# The evaluate stage alone, two binaries side by side on the same datasets: wall time, user
# and system CPU time and peak RSS (GNU time) per size and thread count, the two binaries
# alternating so that load on a shared machine falls on both. Usage: bench/evaluate_ab.sh
# PREV NEW SIZE... (release binaries; the synthetic studies are made and converted by PREV).
# Besides 1 and 2 threads, `1, one core` is 1 thread pinned to one core (taskset): the
# evaluate stage reads the next chunk of captures and writes spilled rows on threads of
# their own, so `--threads 1` alone keeps ~1.2 cores busy, and the 1 -> 2 threads ratio
# understates how the stage scales from one core to two: `cores busy` ((user + sys) / wall)
# shows it, and a 1-thread run keeping u cores busy bounds its 1 -> 2 threads ratio on two
# cores at 2 / u (BENCHMARKS.md, seventeenth step). ROUNDS=N (default 1) runs each
# pair N times, alternating, and reports for each binary its run of median wall time (for
# an even N the faster of the middle two): a shared machine's time moves by 5-10% between
# runs, more than many a change does.
set -euo pipefail
prev=$(realpath "$1"); new=$(realpath "$2"); shift 2
rounds=${ROUNDS:-1}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
echo "| outputs | threads | binary | evaluate s | µs/output | user s | sys s | cores busy | peak MiB |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in "$@"; do
  "$prev" synth --quiet --outputs "$n" --repos 100 --out "$w/s$n" >/dev/null
  "$prev" convert --threads 2 --quiet --snapshot "$w/s$n/snapshot" --runs "$w/s$n/runs" --out "$w/d$n" >/dev/null
  for t in 1 1c 2; do
    pin=(); label=$t
    if [ "$t" = 1c ]; then
      command -v taskset >/dev/null || continue
      pin=(taskset -c 0); t=1; label="1, one core"
    fi
    runs_prev=""; runs_new=""
    for _ in $(seq "$rounds"); do
      for b in prev new; do
        r=$( { /usr/bin/time -f "%e %U %S %M" ${pin[@]+"${pin[@]}"} "${!b}" evaluate --threads "$t" --quiet --dataset "$w/d$n" >/dev/null; } 2>&1 | tail -1)
        runs="runs_$b"; printf -v "$runs" '%s%s\n' "${!runs}" "$r"
      done
    done
    for b in prev new; do
      runs="runs_$b"
      r=$(printf '%s' "${!runs}" | sort -n -k1,1 | awk -v k=$(( (rounds + 1) / 2 )) 'NR == k')
      echo "$n|$label|$b|$r" | awk -F'|' '{split($4, v, " "); printf "| %s | %s | %s | %.2f | %.1f | %.1f | %.1f | %.2f | %.0f |\n", $1, $2, $3, v[1], v[1]*1e6/$1, v[2], v[3], (v[1] > 0 ? (v[2]+v[3])/v[1] : 0), v[4]/1024}'
    done
  done
done
