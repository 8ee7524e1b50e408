#!/usr/bin/env bash
# Arrival-rate precision, CPU per arrival and drops of `bench run` with `examples/rust-noop`
# (an empty task) under `constant-arrival-rate`, side by side with a native open loop (the
# `arrival_loop` bench: one thread sleeping to each due time, the machine's floor), the two
# interleaved in every round so load changes hit both alike.
#
# Usage: scripts/bench-arrival.sh [SECONDS] [ROUNDS] [RATES...]   (defaults 3, 5 and 1000 10000 50000)
#        PROFILE=dev scripts/bench-arrival.sh                      (a dev build instead of release)
#        SANDBOXES=N scripts/bench-arrival.sh                      (pre-allocated and most sandboxes, default 4)
#        BEFORE_BIN=path scripts/bench-arrival.sh                  (also that `bench` binary, a "before" row)
#
# Per rate and figure, min and median over the rounds of: the start lag (intended → actual
# start; bench: every record's `arrival.startLagMs`) at p50, p99 and max; the CPU time
# (user + sys, /usr/bin/time) per arrival, bench's with its start-up taken out (the CPU of
# a one-task run); and the arrivals dropped. Then bench ÷ native of the medians.
set -euo pipefail

seconds=${1:-3}
rounds=${2:-5}
shift 2 || shift $# || true
rates=("$@")
[ ${#rates[@]} -eq 0 ] && rates=(1000 10000 50000)
sandboxes=${SANDBOXES:-4}
source "$(dirname "$0")/lib.sh"
native=$(cargo build --quiet --profile "${PROFILE:-release}" -p bench-runtime --bench arrival_loop \
  --message-format=json | jq -r 'select(.executable != null) | .executable' | tail -n 1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cpu_of() { awk '{ printf "%.6f\n", $1 + $2 }' "$work/time"; }

bench_cpu_at_start() { # binary: CPU seconds of a one-task run (start-up, config, summary)
  /usr/bin/time -o "$work/time" -f '%U %S' "$1" run "$noop" --iterations 1 \
    --out "$work/one" >/dev/null 2>&1
  rm -rf "$work/one"
  cpu_of
}

bench_round() { # binary rate figure: one `bench run` at the rate, a line appended to $work/figure-rate
  local binary=$1 rate=$2 figure=$3 start_cpu out="$work/r$2"
  start_cpu=$(bench_cpu_at_start "$binary")
  /usr/bin/time -o "$work/time" -f '%U %S' "$binary" run "$noop" --out "$out" \
    --rate "$rate/s" --duration "${seconds}s" \
    --pre-allocated "$sandboxes" --max-sandboxes "$sandboxes" >/dev/null 2>&1
  jq -r '.load.participants[0] | "\(.started) \(.dropped)"' "$out/summary.json" >"$work/counts"
  read -r started dropped <"$work/counts"
  jq -r '.arrival.startLagMs' "$out/records.ndjson" | sort -g >"$work/lags"
  awk -v cpu="$(cpu_of)" -v start="$start_cpu" -v n="$started" -v dropped="$dropped" \
    '{ lag[NR] = $1 } END {
      p50 = lag[int((NR - 1) * 0.50) + 1]; p99 = lag[int((NR - 1) * 0.99) + 1]
      printf "%.3f %.3f %.3f %.2f %d\n", p50, p99, lag[NR], (cpu - start) / n * 1e6, dropped }' \
    "$work/lags" >>"$work/$figure-$rate"
  rm -rf "$out"
}

figures=(native)
[ -n "${BEFORE_BIN:-}" ] && figures+=(before)
figures+=(bench)

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for rate in "${rates[@]}"; do
  for _ in $(seq "$rounds"); do
    # Native open loop: "arrivals p50 p99 max", CPU per arrival in µs.
    /usr/bin/time -o "$work/time" -f '%U %S' "$native" "$rate" "$seconds" >"$work/native-line"
    read -r arrivals p50 p99 max <"$work/native-line"
    echo "$p50 $p99 $max $(awk -v c="$(cpu_of)" -v n="$arrivals" 'BEGIN { printf "%.2f", c / n * 1e6 }') 0" \
      >>"$work/native-$rate"
    # bench run at the same rate (and the binary before, when given).
    [ -n "${BEFORE_BIN:-}" ] && bench_round "$(realpath "$BEFORE_BIN")" "$rate" before
    bench_round "$bench" "$rate" bench
  done
done

column_summary() { # file column -> "min median"
  awk -v c="$2" '{ print $c }' "$1" | summary
}

echo "$seconds s per run, $rounds rounds, $sandboxes sandboxes, $profile build"
printf '%8s %-7s %19s %19s %19s %21s %13s\n' rate/s figure "lag p50 ms min/med" \
  "lag p99 ms min/med" "lag max ms min/med" "CPU/arrival µs min/med" "dropped med"
for rate in "${rates[@]}"; do
  for figure in "${figures[@]}"; do
    file="$work/$figure-$rate"
    read -r p50_min p50_med < <(column_summary "$file" 1)
    read -r p99_min p99_med < <(column_summary "$file" 2)
    read -r max_min max_med < <(column_summary "$file" 3)
    read -r cpu_min cpu_med < <(column_summary "$file" 4)
    read -r _ dropped_med < <(column_summary "$file" 5)
    printf '%8d %-7s %9s %9s %9s %9s %9s %9s %10s %10s %13s\n' "$rate" "$figure" \
      "$p50_min" "$p50_med" "$p99_min" "$p99_med" "$max_min" "$max_med" "$cpu_min" "$cpu_med" "$dropped_med"
  done
  read -r _ n50 < <(column_summary "$work/native-$rate" 1)
  read -r _ b50 < <(column_summary "$work/bench-$rate" 1)
  read -r _ n99 < <(column_summary "$work/native-$rate" 2)
  read -r _ b99 < <(column_summary "$work/bench-$rate" 2)
  read -r _ ncpu < <(column_summary "$work/native-$rate" 4)
  read -r _ bcpu < <(column_summary "$work/bench-$rate" 4)
  awk -v rate="$rate" -v n50="$n50" -v b50="$b50" -v n99="$n99" -v b99="$b99" -v ncpu="$ncpu" -v bcpu="$bcpu" \
    'function ratio(b, n) { return n > 0 ? sprintf("%.2f", b / n) : "-" }
     BEGIN { printf "%8d bench ÷ native (medians): lag p50 %s×, lag p99 %s×, CPU per arrival %s×\n",
       rate, ratio(b50, n50), ratio(b99, n99), ratio(bcpu, ncpu) }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
