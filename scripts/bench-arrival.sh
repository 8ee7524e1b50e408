#!/usr/bin/env bash
# Arrival-rate precision and the highest sustained rate of `bench run` with
# `examples/rust-noop` (an empty task) under `constant-arrival-rate`.
#
# Usage: scripts/bench-arrival.sh [SECONDS] [RATES...]   (defaults 5 and 100 1000 5000 10000 20000 50000)
#        PROFILE=dev scripts/bench-arrival.sh             (a dev build instead of release)
#        SANDBOXES=N scripts/bench-arrival.sh             (pre-allocated and most sandboxes, default 4)
#
# For each rate: tasks intended, started and dropped, the achieved rate, and the start lag
# (intended → actual start, from every record's `arrival.startLagMs`) at p50, p99 and max.
# A rate is sustained when nothing was dropped (every arrival found a free sandbox in time).
set -euo pipefail

seconds=${1:-5}
shift || true
rates=("$@")
[ ${#rates[@]} -eq 0 ] && rates=(100 1000 5000 10000 20000 50000)
sandboxes=${SANDBOXES:-4}
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s %9s %9s %8s %10s %9s %9s %9s %s\n' rate/s intended started dropped achieved/s \
  lag-p50 lag-p99 lag-max sustained
for rate in "${rates[@]}"; do
  out="$work/r$rate"
  "$bench" run "$noop" --out "$out" --rate "$rate/s" --duration "${seconds}s" \
    --pre-allocated "$sandboxes" --max-sandboxes "$sandboxes" >/dev/null 2>&1
  jq -r '.load.participants[0] | "\(.intended) \(.started) \(.dropped) \(.achievedRate)"' \
    "$out/summary.json" >"$work/counts"
  jq -r '.arrival.startLagMs' "$out/records.ndjson" | sort -g >"$work/lags"
  read -r intended started dropped achieved <"$work/counts"
  awk -v rate="$rate" -v intended="$intended" -v started="$started" -v dropped="$dropped" \
    -v achieved="$achieved" '{ lag[NR] = $1 } END {
      p50 = lag[int((NR - 1) * 0.50) + 1]; p99 = lag[int((NR - 1) * 0.99) + 1]; max = lag[NR]
      ok = (dropped == 0) ? "yes" : "no"
      printf "%8d %9d %9d %8d %10s %7.3fms %7.3fms %7.3fms %s\n",
        rate, intended, started, dropped, achieved, p50, p99, max, ok }' "$work/lags"
  rm -rf "$out"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
