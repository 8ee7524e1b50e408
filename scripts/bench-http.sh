#!/usr/bin/env bash
# Guest HTTP against a native client, on one local server (the `http_load` bench): a task
# doing one GET (tests/guests/http-client, one reused sandbox, concurrency 1) with keep-alive
# (the default) and with keep-alive off, against a native keep-alive client and a native
# client that reconnects for every request. Runs are interleaved so load changes hit every
# figure alike; prints min and median requests/s of each and the ratio of the medians.
#
# Usage: scripts/bench-http.sh [REQUESTS] [RUNS]     (defaults 20000 and 5)
set -euo pipefail

requests=${1:-20000}
runs=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

load=$(cargo build --quiet --release -p bench-runtime --bench http_load --message-format=json |
  jq -r 'select(.executable != null) | .executable' | tail -n 1)
CARGO_TARGET_DIR="$root/target/guests" cargo build --quiet --release --target wasm32-wasip2 \
  --manifest-path tests/guests/http-client/Cargo.toml
component="$root/target/guests/wasm32-wasip2/release/http_client.wasm"

work=$(mktemp -d)
"$load" serve >"$work/port" &
server=$!
trap 'kill "$server"; rm -rf "$work"' EXIT
until [ -s "$work/port" ]; do sleep 0.05; done
url="http://127.0.0.1:$(head -n 1 "$work/port")/"

for _ in $(seq "$runs"); do
  "$load" get "$url" "$requests" >>"$work/native"
  "$load" get-reconnect "$url" "$requests" >>"$work/native-reconnect"
  "$load" guest "$component" "$url" "$requests" keep-alive >>"$work/guest"
  "$load" guest "$component" "$url" "$requests" reconnect >>"$work/guest-reconnect"
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "$requests GETs per run, concurrency 1, $runs runs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for figure in native native-reconnect guest guest-reconnect; do
  printf '%-17s min %6d  median %6d req/s\n' "$figure" "$(sort -n "$work/$figure" | head -n 1)" "$(median "$work/$figure")"
done
awk -v g="$(median "$work/guest")" -v n="$(median "$work/native")" \
  'BEGIN { printf "guest keep-alive / native keep-alive: %.0f %%\n", 100 * g / n }'
