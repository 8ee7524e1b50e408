#!/usr/bin/env bash
# Guest HTTP against a native client and wrk, on one local server (the `http_load` bench): a
# task doing one GET (tests/guests/http-client, reused sandboxes, keep-alive), a native
# hyper keep-alive client and wrk (Debian package `wrk`: apt-get install -y wrk), at
# concurrency 1 and 64, and one GET of a 1 MiB body (guest and native client); and the same
# task under `bench run` (its records' durationUs, the whole process's CPU, start-up included:
# a few ms against seconds of requests). Every
# figure is taken once per round, the rounds interleaved so load changes hit every figure
# alike; prints min and median over the rounds of requests/s, p50 and p99 latency of one
# request and CPU time per request, then the ratios the targets are judged by.
#
# Usage: scripts/bench-http.sh [REQUESTS] [ROUNDS] [SECONDS]   (defaults 20000, 5 and 3: wrk runs SECONDS)
#        PROFILE=dev scripts/bench-http.sh                       (a dev build instead of release)
#        LOAD_BIN=path scripts/bench-http.sh                     (measure that build of the bench instead)
#        BENCH_BIN=path scripts/bench-http.sh                    (that build of `bench` for the bench-run rows)
set -euo pipefail

requests=${1:-20000}
rounds=${2:-5}
seconds=${3:-3}
big_requests=$((requests / 20 > 100 ? requests / 20 : 100))
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }

if [ -n "${LOAD_BIN:-}" ]; then
  load=$(realpath "$LOAD_BIN")
else
  load=$(cargo build --quiet --profile "${PROFILE:-release}" -p bench-runtime --bench http_load --message-format=json |
    jq -r 'select(.executable != null) | .executable' | tail -n 1)
fi
if [ -n "${BENCH_BIN:-}" ]; then
  bench=$(realpath "$BENCH_BIN")
else
  bench=$(cargo build --quiet --profile "${PROFILE:-release}" -p bench --message-format=json |
    jq -r 'select(.executable != null) | .executable' | tail -n 1)
fi
CARGO_TARGET_DIR="$root/target/guests" cargo build --quiet --release --target wasm32-wasip2 \
  --manifest-path tests/guests/http-client/Cargo.toml
component="$root/target/guests/wasm32-wasip2/release/http_client.wasm"

work=$(mktemp -d)
"$load" serve >"$work/port" &
server=$!
trap 'kill "$server"; rm -rf "$work"' EXIT
until [ -s "$work/port" ]; do sleep 0.05; done
url="http://127.0.0.1:$(head -n 1 "$work/port")/"

wrk_figures() { # connections threads -> "req/s p50-µs p99-µs cpu-µs-per-request"
  /usr/bin/time -o "$work/time" -f '%U %S' wrk -t"$2" -c"$1" -d"${seconds}s" --latency "$url" >"$work/wrk"
  awk -v cpu="$(awk '{ print $1 + $2 }' "$work/time")" '
    function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1e6; return v }
    $1 == "50%" { p50 = us($2) } $1 == "99%" { p99 = us($2) }
    / requests in / { n = $1 } $1 == "Requests/sec:" { rate = $2 }
    END { printf "%.0f %.1f %.1f %.2f\n", rate, p50, p99, cpu / n * 1e6 }' "$work/wrk"
}

bench_run_figures() { # concurrency -> "req/s p50-µs p99-µs cpu-µs-per-request" of `bench run`
  /usr/bin/time -o "$work/time" -f '%e %U %S' "$bench" run "$component" --provider client \
    --urls "$url" --allow-host "${url%/}" --iterations "$requests" --concurrency "$1" \
    --out "$work/run" -q >/dev/null 2>&1
  jq -r '.durationUs' "$work/run/records.ndjson" | sort -g | awk -v n="$requests" -v t="$(cat "$work/time")" '
    function rank(p,  r) { r = int(NR * p); if (r < NR * p) r++; return v[r] }
    { v[NR] = $1 }
    END { split(t, x, " "); printf "%.0f %.1f %.1f %.2f\n", n / x[1], rank(0.5), rank(0.99), (x[2] + x[3]) / n * 1e6 }'
  rm -rf "$work/run"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
  "$load" get "$url" "$requests" 1 >>"$work/native-c1"
  "$load" guest "$component" "$url" "$requests" 1 >>"$work/guest-c1"
  bench_run_figures 1 >>"$work/run-c1"
  wrk_figures 1 1 >>"$work/wrk-c1"
  "$load" get "$url" "$requests" 64 >>"$work/native-c64"
  "$load" guest "$component" "$url" "$requests" 64 >>"$work/guest-c64"
  bench_run_figures 64 >>"$work/run-c64"
  wrk_figures 64 2 >>"$work/wrk-c64"
  "$load" get "${url}1m" "$big_requests" 1 >>"$work/native-1m"
  "$load" guest "$component" "${url}1m" "$big_requests" 1 >>"$work/guest-1m"
done

stat() { # file column -> "min median"
  awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END {
    printf "%g %g\n", v[1], (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
med() { stat "$1" "$2" | cut -d' ' -f2; }

echo "$requests GETs per run ($big_requests of 1 MiB), wrk ${seconds}s per run, $rounds rounds, ${LOAD_BIN:-${PROFILE:-release} build}"
printf '%-11s %17s %19s %19s %19s\n' figure "req/s min/med" "p50 µs min/med" "p99 µs min/med" "CPU/req µs min/med"
for figure in native-c1 guest-c1 run-c1 wrk-c1 native-c64 guest-c64 run-c64 wrk-c64 native-1m guest-1m; do
  printf '%-11s' "$figure"
  for column in 1 2 3 4; do
    read -r min median < <(stat "$work/$figure" "$column")
    printf ' %9s %9s' "$min" "$median"
  done
  echo
done
awk -v g1="$(med "$work/guest-c1" 1)" -v w1="$(med "$work/wrk-c1" 1)" \
  -v g64="$(med "$work/guest-c64" 1)" -v w64="$(med "$work/wrk-c64" 1)" \
  -v gc1="$(med "$work/guest-c1" 4)" -v wc1="$(med "$work/wrk-c1" 4)" \
  -v gc64="$(med "$work/guest-c64" 4)" -v wc64="$(med "$work/wrk-c64" 4)" \
  -v g50="$(med "$work/guest-c1" 2)" -v n50="$(med "$work/native-c1" 2)" \
  -v g99="$(med "$work/guest-c1" 3)" -v n99="$(med "$work/native-c1" 3)" \
  -v gbig="$(med "$work/guest-1m" 2)" -v nbig="$(med "$work/native-1m" 2)" \
  -v r1="$(med "$work/run-c1" 1)" -v r64="$(med "$work/run-c64" 1)" \
  -v rc1="$(med "$work/run-c1" 4)" -v rc64="$(med "$work/run-c64" 4)" \
  -v r50="$(med "$work/run-c1" 2)" 'BEGIN {
    printf "guest ÷ wrk req/s (medians): %.2f at concurrency 1, %.2f at 64\n", g1 / w1, g64 / w64
    printf "guest ÷ wrk CPU per request: %.2f at concurrency 1, %.2f at 64\n", gc1 / wc1, gc64 / wc64
    printf "guest added latency over the native client: %+.1f µs p50, %+.1f µs p99\n", g50 - n50, g99 - n99
    printf "1 MiB body, guest ÷ native p50: %.2f\n", gbig / nbig
    printf "bench run ÷ wrk req/s: %.2f at concurrency 1, %.2f at 64; CPU per request %.2f and %.2f\n", r1 / w1, r64 / w64, rc1 / wc1, rc64 / wc64
    printf "bench run added latency over the native client: %+.1f µs p50\n", r50 - n50 }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
