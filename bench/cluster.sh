#!/usr/bin/env bash
# Evaluation and the dashboard on a loopback cluster beside the local run, in one run:
# a converted synthetic study of OUTPUTS safe outputs is evaluated and reported locally,
# then on a scheduler with 1, 2 and 4 executors (or EXECUTORS, comma-separated; each
# executor taking one task at a time, all on this machine). Prints a Markdown table with
# each cluster run's time as a ratio of the local one, the bytes each executor read while
# judging its bands (what it says: files and sockets, `rchar`) and all of them together
# against the dataset's Parquet bytes, and checks that every cluster evaluation wrote the
# local run's outcomes.parquet byte for byte.
# With STORE `s3`, the dataset is in an object store instead of a folder the executors
# share: moto's S3 server on loopback (from .venv, which scripts/test installs), each
# executor with a temporary folder of its own; the bytes are those each executor fetched
# from the store for its bands, the outcomes compared are the new version's, and a row
# before the cluster's gives the same commands in one process on the dataset in the store.
# Usage: bench/cluster.sh BINARY [OUTPUTS] [EXECUTORS] [STORE]   (a release binary built
# with --features cluster; OUTPUTS 1000000, EXECUTORS 1,2,4 and STORE `folder` unless given)
set -euo pipefail
bin=$(realpath "$1"); n=${2:-1000000}; executors=${3:-1,2,4}; store=${4:-folder}
case "$store" in folder|s3) ;; *) echo "STORE: expected folder or s3, not $store" >&2; exit 2 ;; esac
py="$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python"
if [ "$store" = s3 ] && ! "$py" -c 'import moto.server' 2>/dev/null; then echo "STORE s3 needs moto in .venv: run scripts/test once" >&2; exit 2; fi
work=$(mktemp -d)
pids=()
pids_store=""
cleanup() { for p in "${pids[@]}" $pids_store; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
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

# The object store: moto's server, the dataset's files uploaded under bench/d, each process
# reaching it with the AWS variables a researcher sets.
s3() { "$py" -c "$1" "${@:2}"; }
# A large object goes up in parts; its checksum, as moto gives it, is not the whole body's.
client='import sys, boto3, botocore.config; s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id="bench", aws_secret_access_key="bench", config=botocore.config.Config(response_checksum_validation="when_required"))'
if [ "$store" = s3 ]; then
  mp=$(free_port)
  "$py" -m moto.server -H 127.0.0.1 -p "$mp" >/dev/null 2>&1 &
  pids_store=$!; wait_port "$mp"
  export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1 AWS_ENDPOINT_URL="http://127.0.0.1:$mp" AWS_ALLOW_HTTP=true
  s3 "$client"'
import os
s3.create_bucket(Bucket="bench")
for name in sorted(os.listdir(sys.argv[2])):
    if os.path.isfile(os.path.join(sys.argv[2], name)):
        s3.upload_file(os.path.join(sys.argv[2], name), "bench", "d/" + name)' "$AWS_ENDPOINT_URL" "$work/d"
  dataset="s3://bench/d"
else
  dataset="$work/d"
fi
# The outcomes the last evaluation wrote (in the store: the version the manifest names).
outcomes() {
  if [ "$store" = s3 ]; then
    s3 "$client"'
import json
under = json.loads(s3.get_object(Bucket="bench", Key="d/manifest.json")["Body"].read())["tables_under"]
sys.stdout.buffer.write(s3.get_object(Bucket="bench", Key="d/" + under + "/outcomes.parquet")["Body"].read())' "$AWS_ENDPOINT_URL" > "$work/cluster-outcomes.parquet"
  else
    cp "$work/d/outcomes.parquet" "$work/cluster-outcomes.parquet"
  fi
}

start_cluster() { # $1 executors
  local port; port=$(free_port)
  "$bin" cluster scheduler --quiet --bind-host 127.0.0.1 --external-host 127.0.0.1 --port "$port" 2>"$work/scheduler.log" &
  pids+=($!); wait_port "$port"
  for i in $(seq "$1"); do
    local fp gp; fp=$(free_port); gp=$(free_port); mkdir -p "$work/ex$i" "$work/ex$i-tmp"
    TMPDIR="$work/ex$i-tmp" "$bin" cluster executor --scheduler "df://127.0.0.1:$port" --bind-host 127.0.0.1 --external-host 127.0.0.1 \
      --port "$fp" --grpc-port "$gp" --work-dir "$work/ex$i" --concurrency 1 2>"$work/ex$i.log" &
    pids+=($!); wait_port "$fp"
  done
  sleep 2 # the executors register with the scheduler
  address="df://127.0.0.1:$port"
}
stop_cluster() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; pids=(); }

# The bytes an executor said it read while judging bands (its log's lines since the start),
# or, from an object store, fetched for them.
read_by() {
  case "$store" in
    folder) grep -h 'executor: evaluated band' "$1" | sed -E 's/.*, ([0-9]+) bytes read\)$/\1/' ;;
    s3) grep -h 'executor: evaluated band' "$1" | sed -E 's/.*, ([0-9]+) bytes fetched, .*/\1/' ;;
  esac | awk '{ s += $1 } END { print s + 0 }'
}
said=$([ "$store" = s3 ] && echo fetched || echo read)

echo "| where | evaluate s | vs local | dashboard s | vs local | MB $said per executor | $said / dataset | outcomes as local |"
echo "|---|---|---|---|---|---|---|---|"
printf '| local (one process, all cores) | %.2f | 1.00 | %.2f | 1.00 | — | — | — |\n' "$local_eval" "$local_report"
# In an object store: the same in one process first (copied here, evaluated, written back),
# what the cluster's time is to be read beside.
if [ "$store" = s3 ]; then
  se=$(secs "$bin" evaluate --quiet --dataset "$dataset")
  outcomes
  same=$(cmp -s "$work/cluster-outcomes.parquet" "$work/local-outcomes.parquet" && echo yes || echo NO)
  sr=$(secs "$bin" report --quiet --dataset "$dataset")
  awk -v se="$se" -v le="$local_eval" -v sr="$sr" -v lr="$local_report" -v same="$same" \
    'BEGIN { printf "| one process, from the object store | %.2f | %.2f | %.2f | %.2f | — | — | %s |\n", se, le / se, sr, lr / sr, same }'
fi
for e in ${executors//,/ }; do
  start_cluster "$e"
  ce=$(secs "$bin" evaluate --quiet --dataset "$dataset" --cluster "$address")
  outcomes
  same=$(cmp -s "$work/cluster-outcomes.parquet" "$work/local-outcomes.parquet" && echo yes || echo NO)
  per=(); total=0
  for i in $(seq "$e"); do r=$(read_by "$work/ex$i.log"); per+=("$(awk -v r="$r" 'BEGIN { printf "%.1f", r / 1e6 }')"); total=$((total + r)); done
  cr=$(secs "$bin" report --quiet --dataset "$dataset" --cluster "$address")
  stop_cluster
  awk -v e="$e" -v ce="$ce" -v le="$local_eval" -v cr="$cr" -v lr="$local_report" -v same="$same" -v per="${per[*]}" -v t="$total" -v d="$dataset_bytes" \
    'BEGIN { gsub(/ /, ", ", per); printf "| loopback cluster, %d executor%s | %.2f | %.2f | %.2f | %.2f | %s | %.2f | %s |\n", e, (e > 1 ? "s" : ""), ce, le / ce, cr, lr / cr, per, t / d, same }'
done
echo
echo "Dataset: $n outputs, $(awk -v d="$dataset_bytes" 'BEGIN { printf "%.1f", d / 1e6 }') MB of Parquet as converted, in $([ "$store" = s3 ] && echo "an object store (moto on loopback)" || echo "a folder every executor reads")."
