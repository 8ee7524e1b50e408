#!/usr/bin/env bash
# End-to-end throughput of a distributed run: nats-servers (JetStream, temporary store) on
# free loopback ports, WORKERS `bench worker`s with SLOTS slots each on each, and the
# coordinator running TASKS `examples/rust-noop` tasks at CONCURRENCY (units in flight):
# unsigned (workers with --trust-any), signed both ways (the coordinator signs the run with
# --sign and checks the workers' records with --trust-worker; the workers check the run with
# --trust and sign their records with --sign), and the same run locally for the transport's
# overhead. Prints wall time, tasks/s and the records' mean task latency (timed inside the
# worker) of each, interleaved, RUNS times.
#
# Usage: scripts/bench-dispatch.sh [TASKS] [RUNS]   (defaults 20000 and 3)
#        WORKERS=3 SLOTS=4 CONCURRENCY=6 PROFILE=dev scripts/bench-dispatch.sh
set -euo pipefail

tasks=${1:-20000}
runs=${2:-3}
workers=${WORKERS:-3}
slots=${SLOTS:-4}
concurrency=${CONCURRENCY:-6}
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
start_nats() { # name: a nats-server on a free port; sets `url`
  local port
  port=$(free_port)
  nats-server -a 127.0.0.1 -p "$port" -js -sd "$work/$1-js" >/dev/null 2>&1 &
  pids+=($!)
  url="nats://127.0.0.1:$port"
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do sleep 0.05; done
}
start_workers() { # name, worker flags…: WORKERS workers on $url
  local name=$1
  shift
  for n in $(seq 1 "$workers"); do
    "$bench" worker "$url" --name "$name$n" --slots "$slots" "$@" 2>"$work/$name$n.log" &
    pids+=($!)
  done
}

"$bench" keygen "$work/run.key" >/dev/null
"$bench" keygen "$work/worker.key" >/dev/null
start_nats plain
plain_url=$url
start_workers plain --trust-any
start_nats signed
signed_url=$url
start_workers signed --trust "$work/run.key.pub" --sign "$work/worker.key"

mean_latency() { # mean latencyMs of a results directory's records
  jq -s 'map(.latencyMs) | add / length' "$1/records.ndjson"
}
measure() { # label, out dir, extra flags…
  local label=$1 out=$2
  shift 2
  local start end
  start=$(date +%s.%N)
  "$bench" run "$noop" --no-ingest -q --iterations "$tasks" --concurrency "$concurrency" \
    --out "$out" "$@" >/dev/null
  end=$(date +%s.%N)
  local lines
  lines=$(wc -l <"$out/records.ndjson")
  python3 -c "import sys; w=$end-$start; print(f'$label: {w:.2f} s wall, {$lines/w:,.0f} tasks/s, $lines records, mean latency $(mean_latency "$out") ms')"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq 1 "$runs"); do
  measure "dispatched ($workers workers × $slots slots)" "$work/d$run" --dispatch "$plain_url"
  measure "dispatched, signed both ways" "$work/s$run" --dispatch "$signed_url" \
    --sign "$work/run.key" --trust-worker "$work/worker.key.pub"
  measure "local" "$work/l$run"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
