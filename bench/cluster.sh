#!/usr/bin/env bash
# Evaluation and the dashboard on a loopback cluster beside the local run, in one run:
# a converted synthetic study of OUTPUTS safe outputs is evaluated and reported locally,
# then on a scheduler with 1, 2 and 4 executors (or EXECUTORS, comma-separated; each
# executor taking one task at a time, all on this machine). Prints a Markdown table with
# each cluster run's time as a ratio of the local one, the bytes each executor read while
# judging its bands (what it says: files and sockets, `rchar`) and all of them together
# against the dataset's Parquet bytes, and checks that every cluster evaluation wrote the
# local run's outcomes.parquet byte for byte.
# Usage: bench/cluster.sh BINARY [OUTPUTS] [EXECUTORS]   (a release binary built with
# --features cluster; OUTPUTS 1000000 and EXECUTORS 1,2,4 unless given)
set -euo pipefail
bin=$(realpath "$1"); n=${2:-1000000}; executors=${3:-1,2,4}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'; }

"$bin" synth --quiet --outputs "$n" --repos 40 --seed 7 --out "$work/s" >/dev/null
"$bin" convert --quiet --snapshot "$work/s/snapshot" --runs "$work/s/runs" --out "$work/d" >/dev/null
# The converted dataset's Parquet bytes: what an evaluation reads.
dataset_bytes=$(find "$work/d" -maxdepth 1 -name '*.parquet' -printf '%s\n' | awk '{ s += $1 } END { print s }')
local_eval=$(secs "$bin" evaluate --quiet --dataset "$work/d")
cp "$work/d/outcomes.parquet" "$work/local-outcomes.parquet"
local_report=$(secs "$bin" report --quiet --dataset "$work/d")

start_cluster() { # $1 executors
  local port; port=$(free_port)
  "$bin" cluster scheduler --quiet --bind-host 127.0.0.1 --external-host 127.0.0.1 --port "$port" 2>"$work/scheduler.log" &
  pids+=($!); wait_port "$port"
  for i in $(seq "$1"); do
    local fp gp; fp=$(free_port); gp=$(free_port); mkdir -p "$work/ex$i"
    "$bin" cluster executor --scheduler "df://127.0.0.1:$port" --bind-host 127.0.0.1 --external-host 127.0.0.1 \
      --port "$fp" --grpc-port "$gp" --work-dir "$work/ex$i" --concurrency 1 2>"$work/ex$i.log" &
    pids+=($!); wait_port "$fp"
  done
  sleep 2 # the executors register with the scheduler
  address="df://127.0.0.1:$port"
}
stop_cluster() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }

# The bytes an executor said it read while judging bands (its log's lines since the start).
read_by() { grep -h 'executor: evaluated band' "$1" | sed -E 's/.*, ([0-9]+) bytes read\)$/\1/' | awk '{ s += $1 } END { print s + 0 }'; }

echo "| where | evaluate s | vs local | dashboard s | vs local | MB read per executor | read / dataset | outcomes as local |"
echo "|---|---|---|---|---|---|---|---|"
printf '| local (one process, all cores) | %.2f | 1.00 | %.2f | 1.00 | — | — | — |\n' "$local_eval" "$local_report"
for e in ${executors//,/ }; do
  start_cluster "$e"
  ce=$(secs "$bin" evaluate --quiet --dataset "$work/d" --cluster "$address")
  same=$(cmp -s "$work/d/outcomes.parquet" "$work/local-outcomes.parquet" && echo yes || echo NO)
  per=(); total=0
  for i in $(seq "$e"); do r=$(read_by "$work/ex$i.log"); per+=("$(awk -v r="$r" 'BEGIN { printf "%.1f", r / 1e6 }')"); total=$((total + r)); done
  cr=$(secs "$bin" report --quiet --dataset "$work/d" --cluster "$address")
  stop_cluster
  awk -v e="$e" -v ce="$ce" -v le="$local_eval" -v cr="$cr" -v lr="$local_report" -v same="$same" -v per="${per[*]}" -v t="$total" -v d="$dataset_bytes" \
    'BEGIN { gsub(/ /, ", ", per); printf "| loopback cluster, %d executor%s | %.2f | %.2f | %.2f | %.2f | %s | %.2f | %s |\n", e, (e > 1 ? "s" : ""), ce, le / ce, cr, lr / cr, per, t / d, same }'
done
echo
echo "Dataset: $n outputs, $(awk -v d="$dataset_bytes" 'BEGIN { printf "%.1f", d / 1e6 }') MB of Parquet as converted."
