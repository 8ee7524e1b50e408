#!/usr/bin/env bash
# The storage benchmark of examples/js-s3 (the AWS SDK for JavaScript uploading and
# downloading objects of 1, 4, 10 and 16 MiB) against a local S3-compatible server (moto's,
# installed from tests/guests-python/requirements-server.txt), the same task module under
# plain Node (scripts/node-task.mjs) and under bench (one reused instance), interleaved round
# by round so load changes hit both alike. Prints min and median milliseconds of each step
# in each, the ratio of the medians (bench / Node), and the load average before and after.
#
# Usage: scripts/bench-s3.sh [ROUNDS] [TASKS] [SIZES]   (defaults 5, 3 and 1,4,10,16; MiB)
#        BEFORE_BIN=path scripts/bench-s3.sh            (adds that build of bench, interleaved)
# Needs: npm ci (the example's packages), moto_server.
set -euo pipefail

rounds=${1:-5}
tasks=${2:-3}
sizes=${3:-1,4,10,16}
source "$(dirname "$0")/lib.sh"
project=examples/js-s3

work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null; rm -rf "$work"' EXIT
start_moto "$work/moto.log"
builds=("bench:$bench")
[ -n "${BEFORE_BIN:-}" ] && builds+=("before:$(realpath "$BEFORE_BIN")")
for build in "${builds[@]}"; do # each build's own component (its SDK and engine)
  cp "$("${build#*:}" build "$project" | tail -n 1)" "$work/${build%%:*}.wasm"
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
  node scripts/node-task.mjs "$project/storage.bench.js" "$tasks" --endpoint "$url" --sizes "$sizes" 2>/dev/null |
    jq -r '.steps | to_entries[] | "node \(.key) \(.value)"' >>"$work/steps"
  for build in "${builds[@]}"; do
    "${build#*:}" run "$work/${build%%:*}.wasm" --iterations "$tasks" --endpoint "$url" --sizes "$sizes" --out "$work/out" -q >/dev/null
    jq -r --arg name "${build%%:*}" 'if .status != "success" then error("bench task failed: \(.data.errorMessage // .errorMessage)") else .steps[] | "\($name) \(.name) \(.durationUs / 1000)" end' \
      "$work/out/records.ndjson" >>"$work/steps"
    rm -rf "$work/out"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '%-15s %-7s %-22s %-22s %s\n' step build "Node min / median" "bench min / median" "bench / Node (medians)"
for size in ${sizes//,/ }; do
  for transfer in upload download; do
    step="$transfer-${size}MiB"
    native=$(awk -v s="$step" '$1 == "node" && $2 == s { print $3 }' "$work/steps" | summary)
    for build in "${builds[@]}"; do
      name=${build%%:*}
      inside=$(awk -v n="$name" -v s="$step" '$1 == n && $2 == s { print $3 }' "$work/steps" | summary)
      ratio=$(awk -v a="$native" -v b="$inside" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.2f", y[2] / x[2] }')
      printf '%-15s %-7s %-22s %-22s %s\n' "$step" "$name" "$native ms" "$inside ms" "$ratio"
    done
  done
done
