#!/usr/bin/env bash
# Cost of a run's page: `bench report --html` of a saved run (wall time, peak RSS, file size,
# against `bench report` alone), and the `bench serve` dashboard's run page of a reported run
# (time to answer, the server's peak RSS), with `examples/rust-noop --step` (one step that
# records one measurement per task).
#
# Usage: scripts/bench-html.sh [TASKS] [SERVED_TASKS] [RUNS]   (defaults 1000000 100000 5)
#        PROFILE=dev scripts/bench-html.sh                        (a dev build instead of release)
#
# Prints min and median over RUNS of each figure, and the load average before and after.
set -euo pipefail

tasks=${1:-1000000}
served_tasks=${2:-100000}
runs=${3:-5}
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

report() { # label unit values...
  local label=$1 unit=$2
  shift 2
  read -r min median < <(printf '%s\n' "$@" | summary)
  printf '%-52s min %9s  median %9s %s\n' "$label" "$min" "$median" "$unit"
}

timed() { # "wall max-rss-MiB" of a command
  /usr/bin/time -o "$work/time" -f '%e %M' "$@" >/dev/null 2>&1
  awk '{ printf "%s %d\n", $1, $2 / 1024 }' "$work/time"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
saved="$work/saved"
"$bench" run "$noop" --step --iterations "$tasks" --concurrency 4 --out "$saved" >/dev/null 2>&1
plain_wall=() plain_rss=() html_wall=() html_rss=()
for i in $(seq "$runs"); do
  read -r wall rss < <(timed "$bench" report "$saved")
  plain_wall+=("$wall") plain_rss+=("$rss")
  read -r wall rss < <(timed "$bench" report "$saved" --html "$work/page-$i.html")
  html_wall+=("$wall") html_rss+=("$rss")
done
size=$(stat -c %s "$work/page-1.html")
rm -rf "$saved"

db="$work/platform.db"
"$bench" serve --db "$db" --port 0 --create-key --public-read >"$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 50); do
  [ "$(wc -l <"$work/serve.out")" -ge 2 ] && break
  sleep 0.1
done
url=$(sed -n 's/^Listening on //p' "$work/serve.out")
key=$(sed -n 's/^API key: //p' "$work/serve.out")
view_at=$(HOME="$work" BENCHMARKS_PLATFORM_URL="$url" BENCHMARKS_PLATFORM_API_KEY="$key" \
  "$bench" run "$noop" --step --iterations "$served_tasks" --concurrency 4 --out "$work/reported" \
  2>/dev/null | sed -n 's/^View at: //p' | head -n 1)
page_wall=()
for _ in $(seq "$runs"); do
  page_wall+=("$(curl -s -o "$work/run-page.html" -w '%{time_total}' "$view_at")")
done
server_rss=$(awk '/^VmHWM:/ { printf "%d", $2 / 1024 }' "/proc/$server/status")

report "bench report, $tasks records: wall" s "${plain_wall[@]}"
report "bench report --html, $tasks records: wall" s "${html_wall[@]}"
report "bench report, $tasks records: peak RSS" MiB "${plain_rss[@]}"
report "bench report --html, $tasks records: peak RSS" MiB "${html_rss[@]}"
echo "HTML report size: $size bytes"
report "dashboard run page, $served_tasks records: answer" s "${page_wall[@]}"
echo "bench serve peak RSS (whole session): $server_rss MiB"
echo "dashboard run page size: $(stat -c %s "$work/run-page.html") bytes"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
