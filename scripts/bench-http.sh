#!/usr/bin/env bash
# Guest HTTP against a native client, on one local server: a task doing one GET
# (tests/guests/http-client), concurrency 1, with keep-alive (the default) and with
# --http-keep-alive=false, against the native keep-alive client of the `http_load` bench (and
# a native client that reconnects for every request).
#
# Usage: scripts/bench-http.sh [REQUESTS] [RUNS]     (defaults 20000 and 5)
#        PROFILE=dev scripts/bench-http.sh            (a dev build instead of release)
#
# Guest requests/s is REQUESTS / (t(REQUESTS) - t(1)): the whole `bench run` process, start-up
# taken out. Prints min and median over RUNS runs of each, and the ratio of the medians.
set -euo pipefail

requests=${1:-20000}
runs=${2:-5}
profile=${PROFILE:-release}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

executable() { # the executable a `cargo build --message-format=json` run produced
  jq -r 'select(.executable != null) | .executable' | tail -n 1
}
bench=$(cargo build --quiet --profile "$profile" -p bench --message-format=json | executable)
load=$(cargo build --quiet --profile "$profile" -p bench-runtime --bench http_load \
  --message-format=json | executable)
CARGO_TARGET_DIR="$root/target/guests" cargo build --quiet --release --target wasm32-wasip2 \
  --manifest-path tests/guests/http-client/Cargo.toml
component="$root/target/guests/wasm32-wasip2/release/http_client.wasm"

work=$(mktemp -d)
server_out="$work/server"
"$load" serve >"$server_out" &
server=$!
trap 'kill "$server"; rm -rf "$work"' EXIT
until [ -s "$server_out" ]; do sleep 0.05; done
port=$(head -n 1 "$server_out")
url="http://127.0.0.1:$port/"

seconds() { # wall seconds of a command
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

guest_rate() { # requests/s of the guest, start-up taken out
  local n=$1
  shift
  local args=(run "$component" --provider client --allow-host "http://127.0.0.1:$port"
    --urls "$url" --concurrency 1 "$@")
  local one many
  one=$(seconds "$bench" "${args[@]}" --iterations 1 --out "$work/one-$RANDOM")
  many=$(seconds "$bench" "${args[@]}" --iterations "$n" --out "$work/many-$RANDOM")
  printf '%.0f\n' "$(echo "$n / ($many - $one)" | bc -l)"
}

summary() { # "min median" of numbers on stdin
  sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%d %d\n", v[1], m }'
}

native=() native_reconnect=() guest=() guest_reconnect=()
for _ in $(seq "$runs"); do # interleaved, so load changes hit every figure alike
  native+=("$("$load" get "$url" "$requests")")
  native_reconnect+=("$("$load" get-reconnect "$url" "$requests")")
  guest+=("$(guest_rate "$requests")")
  guest_reconnect+=("$(guest_rate "$requests" --http-keep-alive=false)")
done

report() { # label values...
  local label=$1
  shift
  read -r min median < <(printf '%s\n' "$@" | summary)
  printf '%-38s min %7d  median %7d req/s\n' "$label" "$min" "$median"
  echo "$median" >"$work/median-${label%% *}"
}
echo "$requests GETs per run, concurrency 1, $runs runs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
report "native keep-alive client" "${native[@]}"
report "native-reconnect client (new connection per request)" "${native_reconnect[@]}"
report "guest keep-alive (default)" "${guest[@]}"
report "guest-reconnect --http-keep-alive=false" "${guest_reconnect[@]}"
ratio=$(echo "$(cat "$work/median-guest") / $(cat "$work/median-native")" | bc -l)
printf 'guest keep-alive / native keep-alive: %.0f %%\n' "$(echo "$ratio * 100" | bc -l)"
