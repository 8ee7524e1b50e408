#!/usr/bin/env bash
# boto3 under bench against the same code under CPython: upload and download of a 1 MiB and
# a 16 MiB object to a local S3-compatible server (moto's, installed from
# tests/guests-python/requirements-server.txt). tests/guests-python/boto3-bench/workload.py
# runs under CPython (native.py) and under bench (app.py, one reused sandbox), interleaved
# round by round so load changes hit both alike; prints min and median milliseconds of each
# and the ratio of the medians (bench / CPython), and the load average before and after.
#
# Usage: scripts/boto3-bench.sh [TRANSFERS] [ROUNDS]     (defaults 5 and 3)
#        BEFORE_BIN=path scripts/boto3-bench.sh           (adds that build of bench, interleaved)
set -euo pipefail

transfers=${1:-5}
rounds=${2:-3}
source "$(dirname "$0")/lib.sh"
project=tests/guests-python/boto3-bench

work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null; rm -rf "$work"' EXIT
start_moto "$work/moto.log"
(cd "$project" && python3 -c "import sys, workload; workload.client(sys.argv[1]).create_bucket(Bucket='bench')" "$url")
builds=("bench:$bench")
[ -n "${BEFORE_BIN:-}" ] && builds+=("before:$(realpath "$BEFORE_BIN")")
for build in "${builds[@]}"; do # each build's own component (its SDK)
  cp "$("${build#*:}" build "$project" | tail -n 1)" "$work/${build%%:*}.wasm"
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for size in 1048576 16777216; do
  for _ in $(seq "$rounds"); do
    (cd "$project" && python3 native.py "$url" "$size" "$transfers") >>"$work/native-$size"
    for build in "${builds[@]}"; do
      "${build#*:}" run "$work/${build%%:*}.wasm" --url "$url" --size "$size" --iterations "$transfers" \
        --out "$work/out" -q >/dev/null
      jq -r '"\(.data.uploadMs) \(.data.downloadMs)"' "$work/out/records.ndjson" >>"$work/${build%%:*}-$size"
      rm -rf "$work/out"
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '%-10s %-9s %-7s %-22s %-22s %s\n' size transfer build "CPython min / median" "bench min / median" "bench / CPython (medians)"
for size in 1048576 16777216; do
  for column in 1 2; do
    name=$([ "$column" = 1 ] && echo upload || echo download)
    native=$(cut -d' ' -f"$column" "$work/native-$size" | summary)
    for build in "${builds[@]}"; do
      inside=$(cut -d' ' -f"$column" "$work/${build%%:*}-$size" | summary)
      ratio=$(awk -v a="$native" -v b="$inside" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.2f", y[2] / x[2] }')
      printf '%-10s %-9s %-7s %-22s %-22s %s\n' "$((size / 1048576)) MiB" "$name" "${build%%:*}" "$native ms" "$inside ms" "$ratio"
    done
  done
done
