#!/usr/bin/env bash
# Evaluation and the dashboard on a loopback cluster beside the local run, in one run:
# a converted synthetic study of OUTPUTS safe outputs is evaluated and reported locally,
# then on a scheduler with one executor, then with two (each executor taking one task at a
# time, all on this machine). Prints a Markdown table with each cluster run's time as a
# ratio of the local one, and checks that every cluster evaluation wrote the local run's
# outcomes.parquet byte for byte.
# Usage: bench/cluster.sh BINARY [OUTPUTS]   (a release binary built with --features cluster;
# OUTPUTS 1000000 unless given)
set -euo pipefail
bin=$(realpath "$1"); n=${2:-1000000}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'; }

"$bin" synth --quiet --outputs "$n" --repos 40 --seed 7 --out "$work/s" >/dev/null
"$bin" convert --quiet --snapshot "$work/s/snapshot" --runs "$work/s/runs" --out "$work/d" >/dev/null
local_eval=$(secs "$bin" evaluate --quiet --dataset "$work/d")
cp "$work/d/outcomes.parquet" "$work/local-outcomes.parquet"
local_report=$(secs "$bin" report --quiet --dataset "$work/d")

start_cluster() { # $1 executors
  local port; port=$(free_port)
  "$bin" cluster scheduler --quiet --bind-host 127.0.0.1 --external-host 127.0.0.1 --port "$port" 2>"$work/scheduler.log" &
  pids+=($!); wait_port "$port"
  for i in $(seq "$1"); do
    local fp gp; fp=$(free_port); gp=$(free_port); mkdir -p "$work/ex$i"
    "$bin" cluster executor --quiet --scheduler "df://127.0.0.1:$port" --bind-host 127.0.0.1 --external-host 127.0.0.1 \
      --port "$fp" --grpc-port "$gp" --work-dir "$work/ex$i" --concurrency 1 2>"$work/ex$i.log" &
    pids+=($!); wait_port "$fp"
  done
  sleep 2 # the executors register with the scheduler
  address="df://127.0.0.1:$port"
}
stop_cluster() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }

echo "| where | evaluate s | vs local | dashboard s | vs local | outcomes as local |"
echo "|---|---|---|---|---|---|"
printf '| local (one process, all cores) | %.2f | 1.00 | %.2f | 1.00 | — |\n' "$local_eval" "$local_report"
for e in 1 2; do
  start_cluster "$e"
  ce=$(secs "$bin" evaluate --quiet --dataset "$work/d" --cluster "$address")
  same=$(cmp -s "$work/d/outcomes.parquet" "$work/local-outcomes.parquet" && echo yes || echo NO)
  cr=$(secs "$bin" report --quiet --dataset "$work/d" --cluster "$address")
  stop_cluster
  awk -v e="$e" -v ce="$ce" -v le="$local_eval" -v cr="$cr" -v lr="$local_report" -v same="$same" \
    'BEGIN { printf "| loopback cluster, %d executor%s | %.2f | %.2f | %.2f | %.2f | %s |\n", e, (e > 1 ? "s" : ""), ce, le / ce, cr, lr / cr, same }'
done
