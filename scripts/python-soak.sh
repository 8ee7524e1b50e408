#!/usr/bin/env bash
# Resource hygiene of a reused Python instance: one task of tests/guests-python/libraries
# (`--case soak`) sends REQUESTS GETs through one `requests.Session`, in one sandbox, to a
# local keep-alive server (the `http_load` bench's). Prints the handle a new wasi:http
# resource gets and the objects the interpreter tracks after the first 100 requests and at
# the end (both equal when nothing leaks), the task's duration and guest CPU, and bench's
# peak RSS, with the load average.
#
# Usage: scripts/python-soak.sh [REQUESTS]     (default 100000)
set -euo pipefail

requests=${1:-100000}
source "$(dirname "$0")/lib.sh"
project=tests/guests-python/libraries

load=$(cargo build --quiet --release -p bench-runtime --bench http_load --message-format=json |
  jq -r 'select(.executable != null) | .executable' | tail -n 1)
work=$(mktemp -d)
"$load" serve >"$work/port" &
server=$!
trap 'kill "$server"; rm -rf "$work"' EXIT
until [ -s "$work/port" ]; do sleep 0.05; done
url="http://127.0.0.1:$(head -n 1 "$work/port")/"
"$bench" build "$project" >/dev/null

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -o "$work/time" -f '%e s wall, %M KB peak RSS' "$bench" run "$project" \
  --case soak --requests "$requests" --url "$url" --out "$work/out" -q >/dev/null
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
jq -c '{status, errorCode, data, durationUs, guestCpuUs}' "$work/out/records.ndjson"
cat "$work/time"
