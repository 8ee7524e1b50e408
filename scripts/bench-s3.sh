#!/usr/bin/env bash
# The storage benchmark of examples/js-s3 (the AWS SDK for JavaScript uploading and
# downloading objects of 1, 4, 10 and 16 MiB) against a local S3-compatible server (moto's,
# installed from tests/guests-python/requirements-server.txt), the same task module under
# plain Node (scripts/node-task.mjs) and under bench (one reused instance), interleaved round
# by round so load changes hit both alike. Prints min and median milliseconds of each step
# in each, the ratio of the medians (bench / Node), and the load average before and after.
#
# Usage: scripts/bench-s3.sh [ROUNDS] [TASKS] [SIZES]   (defaults 5, 3 and 1,4,10,16; MiB)
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
"$bench" build "$project" >/dev/null

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
  node scripts/node-task.mjs "$project/storage.bench.js" "$tasks" --endpoint "$url" --sizes "$sizes" 2>/dev/null |
    jq -r '.steps | to_entries[] | "node \(.key) \(.value)"' >>"$work/steps"
  "$bench" run "$project" --iterations "$tasks" --endpoint "$url" --sizes "$sizes" --out "$work/out" -q >/dev/null
  jq -r 'if .status != "success" then error("bench task failed: \(.data.errorMessage // .errorMessage)") else .steps[] | "bench \(.name) \(.durationUs / 1000)" end' \
    "$work/out/records.ndjson" >>"$work/steps"
  rm -rf "$work/out"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '%-15s %-22s %-22s %s\n' step "Node min / median" "bench min / median" "bench / Node (medians)"
for size in ${sizes//,/ }; do
  for transfer in upload download; do
    step="$transfer-${size}MiB"
    native=$(awk -v s="$step" '$1 == "node" && $2 == s { print $3 }' "$work/steps" | summary)
    inside=$(awk -v s="$step" '$1 == "bench" && $2 == s { print $3 }' "$work/steps" | summary)
    ratio=$(awk -v a="$native" -v b="$inside" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.2f", y[2] / x[2] }')
    printf '%-15s %-22s %-22s %s\n' "$step" "$native ms" "$inside ms" "$ratio"
  done
done
