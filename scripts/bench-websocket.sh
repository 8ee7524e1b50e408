#!/usr/bin/env bash
# WebSocket echo round trips: a Rust and a JS guest (tests/guests/websocket and
# tests/guests-js/websocket with `--ws-count N`, through the host's `bench:task/websocket`)
# against a native tokio-tungstenite client, all on one local echo server (the
# `websocket_echo` bench). Each round runs every client once, interleaved so load changes hit
# all alike. Figures: the p50 round trip of one short text message (each client times its own
# round trips) and the CPU time per message of the client's whole process (bench run with N
# messages minus bench run with 1, divided by N-1: start-up and compilation cancel out; the
# server's process is not counted for anyone). Prints min and median over the rounds and the
# ratios of the medians to the native client's.
#
# Usage: scripts/bench-websocket.sh [MESSAGES] [ROUNDS]   (defaults 20000 and 5)
#        PROFILE=dev scripts/bench-websocket.sh            (a dev build of bench)
set -euo pipefail

messages=${1:-20000}
rounds=${2:-5}
source "$(dirname "$0")/lib.sh"

echo_bin=$(cargo build --quiet --profile "$profile" -p bench-runtime --bench websocket_echo --message-format=json |
  jq -r 'select(.executable != null) | .executable' | tail -n 1)
CARGO_TARGET_DIR="$root/target/guests" cargo build --quiet --release --target wasm32-wasip2 \
  --manifest-path tests/guests/websocket/Cargo.toml
rust="$root/target/guests/wasm32-wasip2/release/websocket.wasm"
export BENCH_CACHE_DIR=${BENCH_CACHE_DIR:-$root/target/bench-cache}
js=$("$bench" build tests/guests-js/websocket | tail -n 1)

work=$(mktemp -d)
"$echo_bin" serve >"$work/port" &
server=$!
trap 'kill "$server"; rm -rf "$work"' EXIT
until [ -s "$work/port" ]; do sleep 0.05; done
port=$(head -n 1 "$work/port")
url="ws://127.0.0.1:$port/"

cpu_of() { # command...: user+system seconds of the command
  /usr/bin/time -f '%U %S' -o "$work/time" "$@" >/dev/null
  awk '{ print $1 + $2 }' "$work/time"
}

guest() { # component name: appends the p50 (µs) and the CPU per message (µs)
  local out="$work/run" one many
  rm -rf "$out"
  one=$(cpu_of "$bench" run "$1" -q --allow-host "http://127.0.0.1:$port" --ws-url "$url" --ws-count 1 --out "$work/one")
  many=$(cpu_of "$bench" run "$1" -q --allow-host "http://127.0.0.1:$port" --ws-url "$url" --ws-count "$messages" --out "$out")
  jq -r '.data.p50Us' "$out/records.ndjson" >>"$work/$2-p50"
  awk -v a="$many" -v b="$one" -v n="$messages" 'BEGIN { print (a - b) * 1e6 / (n - 1) }' >>"$work/$2-cpu"
  rm -rf "$work/one"
}

native() { # appends the native client's p50 (µs) and CPU per message (µs)
  local one many
  one=$(cpu_of "$echo_bin" client "$url" 1)
  "$echo_bin" client "$url" "$messages" >"$work/native-line"
  many=$(cpu_of "$echo_bin" client "$url" "$messages")
  cut -d' ' -f1 "$work/native-line" >>"$work/native-p50"
  awk -v a="$many" -v b="$one" -v n="$messages" 'BEGIN { print (a - b) * 1e6 / (n - 1) }' >>"$work/native-cpu"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
  native
  guest "$rust" rust
  guest "$js" js
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "$messages messages per client, $rounds rounds ($profile)"
printf '%-44s %10s %10s %9s\n' "" "min" "median" "÷ native"
row "p50 round trip µs   native client" native-p50 native-p50
row "p50 round trip µs   Rust guest" rust-p50 native-p50
row "p50 round trip µs   JS guest" js-p50 native-p50
row "CPU µs per message  native client" native-cpu native-cpu
row "CPU µs per message  Rust guest (bench)" rust-cpu native-cpu
row "CPU µs per message  JS guest (bench)" js-cpu native-cpu
