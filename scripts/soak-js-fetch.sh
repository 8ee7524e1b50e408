#!/usr/bin/env bash
# Soak of one reused JavaScript instance: TASKS tasks of tests/guests-js/fetch (one GET per
# task, the whole body read) in one sandbox against a local keep-alive server answering
# BODY-byte bodies (the `js_soak` bench). Prints, at ten points of the run, the tasks done and
# failed, the host resources the instance holds, the process's resident memory and the time.
#
# Usage: scripts/soak-js-fetch.sh [TASKS] [BODY] [COMPONENT]   (defaults 100000, 65536, and
#        the component `bench build tests/guests-js/fetch` makes)
set -euo pipefail

tasks=${1:-100000}
body=${2:-65536}
source "$(dirname "$0")/lib.sh"

export BENCH_CACHE_DIR=${BENCH_CACHE_DIR:-$root/target/bench-cache}
component=${3:-$(BENCH_WEVAL=${BENCH_WEVAL:-off} "$bench" build tests/guests-js/fetch | tail -n 1)}
soak=$(cargo build --quiet --profile "${PROFILE:-release}" -p bench-runtime --bench js_soak \
  --message-format=json | jq -r 'select(.executable != null) | .executable' | tail -n 1)

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$soak" "$component" "$tasks" "$body"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
