#!/usr/bin/env bash
# Wall time, CPU time and peak memory of `bench compare` of two saved runs of
# `examples/rust-noop --step` (each record: latency, one step, one step measure, so three
# metrics per participant), for several run sizes.
#
# Usage: scripts/bench-compare.sh [SIZES] [RUNS]   (defaults "1000 100000 1000000" and 3)
#        PROFILE=dev scripts/bench-compare.sh        (a dev build instead of release)
#
# Prints, per size, the min and median over RUNS of `bench compare A B` (10 000 resamples)
# and of the same with `--resamples 1000000`, and the load average before and after.
set -euo pipefail

sizes=${1:-"1000 100000 1000000"}
runs=${2:-3}
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$profile build, $runs runs per figure"
for size in $sizes; do
  for run in a b; do
    "$bench" run "$noop" --step --iterations "$size" --concurrency 1 --out "$work/$run" \
      >/dev/null 2>&1
  done
  for resamples in 10000 1000000; do
    wall=() cpu=() rss=()
    for _ in $(seq "$runs"); do
      /usr/bin/time -o "$work/time" -f '%e %U %S %M' \
        "$bench" compare "$work/a" "$work/b" --resamples "$resamples" >/dev/null
      read -r w u s m <"$work/time"
      wall+=("$w") cpu+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')")
      rss+=("$((m / 1024))")
    done
    read -r wall_min wall_median < <(printf '%s\n' "${wall[@]}" | summary)
    read -r cpu_min cpu_median < <(printf '%s\n' "${cpu[@]}" | summary)
    read -r rss_min rss_median < <(printf '%s\n' "${rss[@]}" | summary)
    printf '%8s records per run, %7s resamples: wall %6s / %6s s, CPU %6s / %6s s, peak RSS %4s / %4s MiB (min / median)\n' \
      "$size" "$resamples" "$wall_min" "$wall_median" "$cpu_min" "$cpu_median" "$rss_min" "$rss_median"
  done
  rm -rf "$work/a" "$work/b"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
