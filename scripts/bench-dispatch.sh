#!/usr/bin/env bash
# End-to-end throughput of a distributed run: a nats-server (JetStream, temporary store) on a
# free loopback port, WORKERS `bench worker`s with SLOTS slots each, and the coordinator
# running TASKS `examples/rust-noop` tasks at CONCURRENCY (units in flight); then the same
# run locally for the transport's overhead. Prints wall time, tasks/s and the records' mean
# task latency (timed inside the worker) of each, RUNS times.
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

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
nats-server -a 127.0.0.1 -p "$port" -js -sd "$work/js" >/dev/null 2>&1 &
pids+=($!)
url="nats://127.0.0.1:$port"
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do sleep 0.05; done
for n in $(seq 1 "$workers"); do
  "$bench" worker "$url" --name "w$n" --slots "$slots" 2>"$work/w$n.log" &
  pids+=($!)
done

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
  measure "dispatched ($workers workers × $slots slots)" "$work/d$run" --dispatch "$url"
  measure "local" "$work/l$run"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
