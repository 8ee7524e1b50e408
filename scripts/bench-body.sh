#!/usr/bin/env bash
# Raw HTTP response bodies read by guests against native clients: one GET of a 1, 4 and 16
# MiB body from a local keep-alive server (Node's http, serving `/<bytes>`), read whole by
#   - a Rust guest (tests/guests/http-client, bench_guest::http: the task's duration),
#   - a JS guest (tests/guests-js/fetch: `fetch` + arrayBuffer, a stream reader's chunks, and
#     node:http's 'data' events), step `body`,
#   - a Python guest (tests/guests-python/body-bench: urllib3, and the SDK's wasi:http helper),
#     step `body`,
# and by Node (the same JS task under scripts/node-task.mjs) and CPython (the same urllib3
# workload), one reused instance or process per figure, interleaved round by round so load
# changes hit every figure alike. Prints min and median milliseconds and the ratio of the
# medians to the native client of the same language (Rust: to CPython's urllib3, the faster
# native client here).
#
# Usage: scripts/bench-body.sh [ROUNDS] [TASKS] [SIZES]   (defaults 5, 5 and 1,4,16; MiB)
#        BEFORE_BIN=path scripts/bench-body.sh            (adds that build's guest rows, interleaved)
set -euo pipefail

rounds=${1:-5}
tasks=${2:-5}
sizes=${3:-1,4,16}
source "$(dirname "$0")/lib.sh"
export BENCH_CACHE_DIR=${BENCH_CACHE_DIR:-$root/target/bench-cache}

work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null; rm -rf "$work"' EXIT
node -e '
  const bodies = new Map();
  const server = require("node:http").createServer((request, response) => {
    const size = Number(request.url.slice(1)) || 0;
    if (!bodies.has(size)) bodies.set(size, Buffer.alloc(size, 97));
    response.writeHead(200, { "content-length": size });
    response.end(bodies.get(size));
  });
  server.keepAliveTimeout = 60000;
  server.listen(0, "127.0.0.1", () => console.log(server.address().port));' >"$work/port" &
server=$!
until [ -s "$work/port" ]; do sleep 0.05; done
url="http://127.0.0.1:$(cat "$work/port")"

CARGO_TARGET_DIR="$root/target/guests" cargo build --quiet --release --target wasm32-wasip2 \
  --manifest-path tests/guests/http-client/Cargo.toml
rust="$root/target/guests/wasm32-wasip2/release/http_client.wasm"
builds=("now:$bench")
[ -n "${BEFORE_BIN:-}" ] && builds+=("before:$(realpath "$BEFORE_BIN")")
for build in "${builds[@]}"; do # each build's own components (its SDKs and JS engine)
  cp "$("${build#*:}" build tests/guests-js/fetch | tail -n 1)" "$work/${build%%:*}-js.wasm"
  cp "$("${build#*:}" build tests/guests-python/body-bench | tail -n 1)" "$work/${build%%:*}-python.wasm"
done

steps() { # binary component label flag... : appends the `body` step of each task (ms) to $work/<label>
  local binary=$1 component=$2 label=$3
  shift 3
  rm -rf "$work/out"
  "$binary" run "$component" --iterations "$tasks" --out "$work/out" -q "$@" >/dev/null
  jq -r 'if .status != "success" then error("task failed: \(.errorMessage // .)") else
    .steps[] | select(.name == "body") | .durationUs / 1000 end' "$work/out/records.ndjson" >>"$work/$label"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
  for mib in ${sizes//,/ }; do
    target="$url/$((mib << 20))"
    for read in array node; do
      node scripts/node-task.mjs tests/guests-js/fetch/fetch.bench.js "$tasks" --url "$target" --read "$read" |
        jq -r '.steps.body' >>"$work/$mib-node-$read"
    done
    (cd tests/guests-python/body-bench && python3 native.py "$target" "$tasks") >>"$work/$mib-cpython-urllib3"
    for build in "${builds[@]}"; do
      name=${build%%:*} binary=${build#*:}
      rm -rf "$work/out"
      "$binary" run "$rust" --iterations "$tasks" --urls "$target" --allow-host "$url" --out "$work/out" -q >/dev/null
      jq -r '.durationUs / 1000' "$work/out/records.ndjson" >>"$work/$mib-$name-rust"
      for read in array reader node; do
        steps "$binary" "$work/$name-js.wasm" "$mib-$name-js-$read" --url "$target" --read "$read"
      done
      for read in urllib3 raw; do
        steps "$binary" "$work/$name-python.wasm" "$mib-$name-python-$read" --url "$target" --read "$read"
      done
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "$rounds rounds of $tasks GETs per figure ($profile)"
printf '%-6s %-24s %22s %s\n' size figure "min / median ms" "÷ native (medians)"
row() { # size figure reference
  read -r min median < <(summary <"$work/$1-$2")
  ratio=$(awk -v a="$median" -v b="$(summary <"$work/$1-$3" | cut -d' ' -f2)" 'BEGIN { printf "%.2f", a / b }')
  printf '%-6s %-24s %10s / %-10s %s\n' "${1}MiB" "$2" "$min" "$median" "$ratio"
}
for mib in ${sizes//,/ }; do
  for reference in node-array node-node cpython-urllib3; do row "$mib" "$reference" "$reference"; done
  for build in "${builds[@]}"; do
    name=${build%%:*}
    row "$mib" "$name-rust" cpython-urllib3
    row "$mib" "$name-js-array" node-array
    row "$mib" "$name-js-reader" node-array
    row "$mib" "$name-js-node" node-node
    row "$mib" "$name-python-urllib3" cpython-urllib3
    row "$mib" "$name-python-raw" cpython-urllib3
  done
done
