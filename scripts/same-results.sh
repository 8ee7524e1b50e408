#!/usr/bin/env bash
# Runs each example task with two bench binaries and compares what they leave behind
# (run.json, records.ndjson, summary.json): the same files, keys in the same order, the same
# strings, statuses and counts; every other number (times, durations, statistics, scores)
# and the ids, paths, hashes and versions that change from run to run are masked.
# A refactor that must not change results shows no difference.
#
#   scripts/same-results.sh BEFORE_BIN AFTER_BIN [EXAMPLE_DIR...]
#
# Examples default to the Rust ones (no JS/Python toolchain needed); pass JS/Python example
# directories to compare those too.
set -euo pipefail
before=${1:?usage: same-results.sh BEFORE_BIN AFTER_BIN [EXAMPLE_DIR...]}
after=${2:?usage: same-results.sh BEFORE_BIN AFTER_BIN [EXAMPLE_DIR...]}
shift 2
cd "$(dirname "$0")/.."
examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=(examples/rust-hello examples/rust-scored examples/rust-noop)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mask() {
  python3 - "$1" <<'EOF'
import json, re, sys
VARYING = re.compile(r"(At|Id|Sha|Sha256|Path|Version)$|^(timestamp|host|instrumentFloor|origin|component)$")
COUNTS = re.compile(r"^(iterations|concurrency|tasks|total|succeeded|failed|count|index|taskIndex|warmup|round|first|step|errors|dropped|skipped)$|(Count|Tasks|Index)$")
def walk(value, key=""):
    if isinstance(value, dict):
        return {k: walk(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [walk(v, key) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return value if COUNTS.search(key) else "<number>"
    if VARYING.search(key):
        return "<masked>"
    return value
path = sys.argv[1]
with open(path) as f:
    if path.endswith(".ndjson"):
        lines = [json.dumps(walk(json.loads(line))) for line in f if line.strip()]
    else:
        lines = [json.dumps(walk(json.load(f)), indent=1)]
print("\n".join(lines))
EOF
}

status=0
for example in "${examples[@]}"; do
  for side in before after; do
    bin=$before; [ "$side" = after ] && bin=$after
    "$bin" run "$example" --no-ingest --quiet --out "$work/$side/$(basename "$example")" >/dev/null 2>&1 || true
  done
  for file in run.json records.ndjson summary.json; do
    a="$work/before/$(basename "$example")/$file"
    b="$work/after/$(basename "$example")/$file"
    if [ ! -f "$a" ] || [ ! -f "$b" ]; then
      echo "$example $file: missing ($( [ -f "$a" ] && echo after || echo before ))"
      status=1
    elif diff <(mask "$a") <(mask "$b") >"$work/diff"; then
      echo "$example $file: same"
    else
      echo "$example $file: DIFFERENT"; head -20 "$work/diff"; status=1
    fi
  done
done
exit $status
