#!/usr/bin/env bash
# Build times of the examples: `bench build` of each, ROUNDS times, every round in a fresh
# build cache (BENCH_CACHE_DIR) that already holds what a first build installs once (the
# unpacked SDKs and bench's JavaScript toolchain), so each figure is a project's whole build
# as its author sees it after the first. With BEFORE_BIN=<another bench binary> that build
# runs interleaved, round by round, with its own warmed cache. Prints min and median seconds
# per example and binary, and the load average before and after.
#
# Usage: scripts/bench-build.sh [ROUNDS] [EXAMPLES]   (defaults 3 and rust-hello,js-hello,ts-hello,python-hello)
#        BEFORE_BIN=/path/to/bench scripts/bench-build.sh
set -euo pipefail

rounds=${1:-3}
examples=${2:-rust-hello,js-hello,ts-hello,python-hello}
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
binaries=("after=$bench")
[ -n "${BEFORE_BIN:-}" ] && binaries=("before=$(realpath "$BEFORE_BIN")" "${binaries[@]}")

for entry in "${binaries[@]}"; do # a warm cache per binary: each example built once
  name=${entry%%=*} binary=${entry#*=}
  for example in ${examples//,/ }; do
    BENCH_CACHE_DIR="$work/warm-$name" "$binary" build "examples/$example" >/dev/null
  done
  rm -rf "$work/warm-$name/tasks"
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
  for example in ${examples//,/ }; do
    for entry in "${binaries[@]}"; do
      name=${entry%%=*} binary=${entry#*=}
      rm -rf "$work/cache"
      cp -al "$work/warm-$name" "$work/cache"
      start=$(date +%s.%N)
      BENCH_CACHE_DIR="$work/cache" "$binary" build "examples/$example" >/dev/null
      end=$(date +%s.%N)
      echo "$name $example $(echo "$end - $start" | bc)" >>"$work/times"
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '%-14s %-8s %s\n' example binary "min / median s"
for example in ${examples//,/ }; do
  for entry in "${binaries[@]}"; do
    name=${entry%%=*}
    printf '%-14s %-8s %s\n' "$example" "$name" \
      "$(awk -v n="$name" -v e="$example" '$1 == n && $2 == e { print $3 }' "$work/times" | summary)"
  done
done
