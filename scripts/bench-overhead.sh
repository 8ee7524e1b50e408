#!/usr/bin/env bash
# Whole-process host overhead per task and peak memory of `bench run` and `bench report`,
# with `examples/rust-noop` (an empty task; `--step`: one step that records one measurement).
#
# Usage: scripts/bench-overhead.sh [TASKS] [RUNS]     (defaults 100000 and 5)
#        BIG=0 scripts/bench-overhead.sh               (skip the 1 000 000-task memory runs)
#        PROFILE=dev scripts/bench-overhead.sh         (a dev build instead of release)
#
# Per task is (t(TASKS) - t(1)) / TASKS, start-up taken out, for wall time and for CPU time
# (user + sys) of the whole process, from /usr/bin/time. Prints min and median over RUNS
# runs of each figure (the runs of the figures interleaved, so load changes hit all alike),
# and the load average before and after.
set -euo pipefail

tasks=${1:-100000}
runs=${2:-5}
big=${BIG:-1}
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() { # "wall cpu max-rss-KiB" of `bench run` with these arguments
  local out="$work/run-$RANDOM$RANDOM"
  /usr/bin/time -o "$work/time" -f '%e %U %S %M' \
    "$bench" run "$noop" --out "$out" "$@" >/dev/null 2>&1
  rm -rf "$out"
  awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' "$work/time"
}

per_task() { # "wall-µs cpu-µs" per task: (t(tasks) - t(1)) / tasks
  local one many
  one=$(measure --iterations 1 "$@")
  many=$(measure --iterations "$tasks" "$@")
  awk -v one="$one" -v many="$many" -v n="$tasks" 'BEGIN {
    split(one, a, " "); split(many, b, " ")
    printf "%.3f %.3f\n", (b[1] - a[1]) / n * 1e6, (b[2] - a[2]) / n * 1e6 }'
}

report() { # label unit values...
  local label=$1 unit=$2
  shift 2
  read -r min median < <(printf '%s\n' "$@" | summary)
  printf '%-52s min %9s  median %9s %s\n' "$label" "$min" "$median" "$unit"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
noop_wall=() noop_cpu=() noop2_wall=() noop2_cpu=() step_wall=() step_cpu=()
rss_100k=() rss_1m=() report_rss=()
for _ in $(seq "$runs"); do
  read -r wall cpu < <(per_task --concurrency 1)
  noop_wall+=("$wall") noop_cpu+=("$cpu")
  read -r wall cpu < <(per_task --concurrency 2)
  noop2_wall+=("$wall") noop2_cpu+=("$cpu")
  read -r wall cpu < <(per_task --concurrency 1 --step)
  step_wall+=("$wall") step_cpu+=("$cpu")
  read -r _ _ rss < <(measure --iterations 100000 --concurrency 1)
  rss_100k+=("$((rss / 1024))")
  if [ "$big" = 1 ]; then
    saved="$work/saved"
    /usr/bin/time -o "$work/time" -f '%M' \
      "$bench" run "$noop" --iterations 1000000 --concurrency 1 --out "$saved" >/dev/null 2>&1
    rss_1m+=("$(($(cat "$work/time") / 1024))")
    /usr/bin/time -o "$work/time" -f '%M' "$bench" report "$saved" >/dev/null 2>&1
    report_rss+=("$(($(cat "$work/time") / 1024))")
    rm -rf "$saved"
  fi
done

echo "$tasks tasks per run, $runs runs, $profile build"
report "no-op task, concurrency 1, wall per task" µs "${noop_wall[@]}"
report "no-op task, concurrency 1, CPU per task" µs "${noop_cpu[@]}"
report "no-op task, concurrency 2, wall per task" µs "${noop2_wall[@]}"
report "no-op task, concurrency 2, CPU per task" µs "${noop2_cpu[@]}"
report "step + measure task, concurrency 1, wall per task" µs "${step_wall[@]}"
report "step + measure task, concurrency 1, CPU per task" µs "${step_cpu[@]}"
report "peak RSS, 100 000 no-op tasks" MiB "${rss_100k[@]}"
if [ "$big" = 1 ]; then
  report "peak RSS, 1 000 000 no-op tasks" MiB "${rss_1m[@]}"
  report "peak RSS, bench report of 1 000 000 records" MiB "${report_rss[@]}"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
