#!/usr/bin/env bash
# Whole-process cost per task of JavaScript and Python guests: `examples/js-noop` built with
# the interpreter and (when weval is installed) ahead of time, and `examples/python-noop`;
# each as an empty task and with `--step` (one step that records one measurement).
#
# Usage: scripts/bench-guests.sh [JS_TASKS] [PY_TASKS] [RUNS]   (defaults 20000, 5000 and 5)
#        PROFILE=dev scripts/bench-guests.sh                     (a dev build of bench)
#        BENCH_WEVAL=/path/to/weval scripts/bench-guests.sh      (that weval, not PATH's)
#        BASE=main scripts/bench-guests.sh                       (also the SDKs of that git
#                                                                 revision, "before" rows)
#
# Per task is (t(N) - t(1)) / N, start-up taken out, for CPU time (user + sys) and wall
# time of the whole `bench run` process, from /usr/bin/time. Prints min and median over
# RUNS runs (the components and variants interleaved, so load changes hit all alike) and the
# load average before and after. Every component is run once first, so the compile cache
# holds it and no run pays for Cranelift.
set -euo pipefail

js_tasks=${1:-20000}
py_tasks=${2:-5000}
runs=${3:-5}
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BENCH_CACHE_DIR=${BENCH_CACHE_DIR:-$root/target/bench-cache}

build() { # project weval-setting copy: builds the project and copies its component
  local built
  built=$(BENCH_WEVAL=$2 "$bench" build "$1" | tail -n 1)
  cp "$built" "$3"
}

components=() labels=() sizes=()
aot=
if [ -n "${BENCH_WEVAL:-}" ] || command -v weval >/dev/null; then
  aot=yes
else
  echo "weval not found: JS is measured with the interpreter only" >&2
fi

add_components() { # checkout label-suffix: the no-op examples of that checkout's SDKs
  local tree=$1 suffix=$2 name
  name=$(echo "$suffix" | tr -c 'a-z0-9\n' '-')
  build "$tree/examples/js-noop" off "$work/js-interpreted$name.wasm"
  components+=("$work/js-interpreted$name.wasm") labels+=("JS, interpreter$suffix") sizes+=("$js_tasks")
  if [ -n "$aot" ]; then
    build "$tree/examples/js-noop" "${BENCH_WEVAL:-}" "$work/js-aot$name.wasm"
    components+=("$work/js-aot$name.wasm") labels+=("JS, AOT (weval)$suffix") sizes+=("$js_tasks")
  fi
  BENCH_SDK_DIR=$tree build "$tree/examples/python-noop" "" "$work/python$name.wasm"
  components+=("$work/python$name.wasm") labels+=("Python$suffix") sizes+=("$py_tasks")
}

if [ -n "${BASE:-}" ]; then
  # A checkout of BASE whose node_modules are the repository's, with its own @bench/task.
  base="$work/base"
  git worktree add --quiet --detach "$base" "$BASE"
  trap 'git worktree remove --force "$base"; rm -rf "$work"' EXIT
  mkdir -p "$base/node_modules/@bench"
  for entry in "$root"/node_modules/* "$root"/node_modules/.bin; do
    [ "$(basename "$entry")" = @bench ] || ln -s "$entry" "$base/node_modules/"
  done
  ln -s "$base/guest-sdk/js" "$base/node_modules/@bench/task"
  add_components "$base" " (before)"
fi
add_components "$root" ""

measure() { # component args...: "wall cpu" of `bench run`
  local out="$work/run-$RANDOM$RANDOM"
  /usr/bin/time -o "$work/time" -f '%e %U %S' "$bench" run "$@" --out "$out" >/dev/null 2>&1
  rm -rf "$out"
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$work/time"
}

per_task() { # component tasks args...: "wall-µs cpu-µs" per task
  local component=$1 tasks=$2 one many
  shift 2
  one=$(measure "$component" --iterations 1 "$@")
  many=$(measure "$component" --iterations "$tasks" "$@")
  awk -v one="$one" -v many="$many" -v n="$tasks" 'BEGIN {
    split(one, a, " "); split(many, b, " ")
    printf "%.2f %.2f\n", (b[1] - a[1]) / n * 1e6, (b[2] - a[2]) / n * 1e6 }'
}

for component in "${components[@]}"; do
  measure "$component" --iterations 1 >/dev/null # compiles it into the cache
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A wall cpu
for _ in $(seq "$runs"); do
  for i in "${!components[@]}"; do
    for variant in noop step; do
      flags=()
      [ "$variant" = step ] && flags=(--step)
      read -r w c < <(per_task "${components[$i]}" "${sizes[$i]}" "${flags[@]}")
      wall[$i.$variant]+="$w " cpu[$i.$variant]+="$c "
    done
  done
done

echo "$profile build of bench, $runs runs; per task, µs: CPU min / median, wall min / median"
for i in "${!components[@]}"; do
  for variant in noop step; do
    read -r cpu_min cpu_median < <(printf '%s\n' ${cpu[$i.$variant]} | summary)
    read -r wall_min wall_median < <(printf '%s\n' ${wall[$i.$variant]} | summary)
    task=$([ "$variant" = step ] && echo "step + measure" || echo "no-op")
    printf '%-27s %-15s N = %-6s CPU %7s / %7s   wall %7s / %7s\n' "${labels[$i]}" "$task" \
      "${sizes[$i]}" "$cpu_min" "$cpu_median" "$wall_min" "$wall_median"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
