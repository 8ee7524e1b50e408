#!/usr/bin/env bash
# Whether the heavy pages of one organization hold up everyone's authentication on
# `bench serve`: two runs of TASKS `examples/rust-noop` tasks reported to a fresh server,
# then CONCURRENT compare pages of the two at once, and meanwhile `GET /api/v1/me` timed
# PROBES times (one after another). Prints the min / median / max of /me under load, the
# same with nothing else going on, and how long the compare pages took; the load average.
#
# Usage: scripts/bench-serve-fairness.sh [TASKS] [CONCURRENT] [PROBES]   (defaults 200000 8 20)
#        PROFILE=dev scripts/bench-serve-fairness.sh        (a dev build instead of release)
#        BENCH_BIN=path/to/bench scripts/bench-serve-fairness.sh   (another build, for A/B)
set -euo pipefail

tasks=${1:-200000}
concurrent=${2:-8}
probes=${3:-20}
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$bench" serve --db "$work/bench.db" --port 0 --create-key >"$work/serve.out" 2>&1 &
server=$!
until [ "$(wc -l <"$work/serve.out" 2>/dev/null || echo 0)" -ge 2 ]; do sleep 0.05; done
url=$(sed -n 's/^Listening on //p' "$work/serve.out")
key=$(sed -n 's/^API key: //p' "$work/serve.out")
export BENCHMARKS_PLATFORM_URL=$url BENCHMARKS_PLATFORM_API_KEY=$key
export BENCHMARK_METRICS_INTERVAL_MS=0
curl -sf -X PUT -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
  -d '{"name": "fair"}' "$url/api/v1/benchmarks/fair" >/dev/null
for run in a b; do
  "$bench" run "$noop" -q --iterations "$tasks" --concurrency 1 --slug fair --out "$work/run-$run" \
    >/dev/null 2>&1
done
runs=$(curl -sf -H "Authorization: Bearer $key" "$url/api/v1/benchmarks/fair/runs")
a=$(jq -r '.items[0].id' <<<"$runs")
b=$(jq -r '.items[1].id' <<<"$runs")
cookie=$(curl -si -H "Origin: $url" --data-urlencode "key=$key" "$url/login" |
  sed -n 's/^[Ss]et-[Cc]ookie: \([^;]*\).*/\1/p')

probe() { # the min / median / max seconds of PROBES `GET /api/v1/me`
  for _ in $(seq "$probes"); do
    curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $key" "$url/api/v1/me"
  done | sort -g | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "min %.3f s, median %.3f s, max %.3f s\n", v[1], m, v[NR] }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$profile build, $tasks records per run, $concurrent compare pages at once"
echo "GET /api/v1/me alone: $(probe)"
start=$(date +%s.%N)
pages=()
for n in $(seq "$concurrent"); do
  curl -s -o /dev/null -w "%{http_code} %{time_total}\n" -H "Cookie: $cookie" \
    "$url/local/benchmarks/fair/compare?a=$a&b=$b" >"$work/page$n" &
  pages+=($!)
done
echo "GET /api/v1/me during the compares: $(probe)"
wait "${pages[@]}"
end=$(date +%s.%N)
echo "compare pages (status seconds): $(cat "$work"/page* | sort | tr '\n' ' ')"
echo "all compares done in $(python3 -c "print(f'{$end - $start:.1f}')") s"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
