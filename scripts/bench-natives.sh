#!/usr/bin/env bash
# SHA-256 and CRC-32 of a large payload computed by a guest through the host's natives
# (`bench:task/natives`), side by side with the same digest in native processes: Node's
# `crypto` and CPython's `hashlib`/`zlib` (both OpenSSL/zlib in C).
#
# Usage: scripts/bench-natives.sh [MIB] [ROUNDS] [TASKS]   (defaults 16, 5 and 5)
#        PROFILE=dev scripts/bench-natives.sh               (a dev build of bench)
#
# Guests: tests/guests-js/natives and tests/guests-python/natives run with `--digest-mib MIB`,
# which times steps over the payload (the step's `durationUs`: the copy of the payload into
# the host and the digest). The Python task also times CPython's own `hashlib.sha256` and
# `zlib.crc32` inside the sandbox (steps `hashlib-sha256`, `zlib-crc32`). The native
# references time the same calls around the digest only. Every round runs each once, so load
# changes hit all alike; prints min and median in milliseconds over every sample and the
# ratios of the medians to the native ones.
set -euo pipefail

mib=${1:-16}
rounds=${2:-5}
tasks=${3:-5}
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BENCH_CACHE_DIR=${BENCH_CACHE_DIR:-$root/target/bench-cache}
js=$("$bench" build tests/guests-js/natives | tail -n 1)
python=$("$bench" build tests/guests-python/natives | tail -n 1)

native_python() { # "sha256-ms crc32-ms" of CPython over the payload
  python3 - "$mib" <<'EOF'
import hashlib, sys, time, zlib
data = bytes(int(sys.argv[1]) << 20)
start = time.perf_counter(); hashlib.sha256(data).digest(); middle = time.perf_counter()
zlib.crc32(data); end = time.perf_counter()
print(f"{(middle - start) * 1e3:.3f} {(end - middle) * 1e3:.3f}")
EOF
}

native_node() { # sha256-ms of Node over the payload
  node -e '
    const data = Buffer.alloc(Number(process.argv[1]) << 20);
    const start = process.hrtime.bigint();
    require("crypto").createHash("sha256").update(data).digest();
    console.log((Number(process.hrtime.bigint() - start) / 1e6).toFixed(3));' "$mib"
}

steps_of() { # component name: appends each task's step durations (ms) to $work/<name>-<step>
  local out="$work/run"
  rm -rf "$out"
  "$bench" run "$1" --iterations "$tasks" --digest-mib "$mib" --out "$out" -q >/dev/null
  jq -r '.steps[] | select(.durationUs != null) | "\(.name) \(.durationUs / 1000)"' \
    "$out/records.ndjson" | while read -r step ms; do echo "$ms" >>"$work/$2-$step"; done
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
  read -r sha crc < <(native_python)
  echo "$sha" >>"$work/cpython-sha256"
  echo "$crc" >>"$work/cpython-crc32"
  native_node >>"$work/node-sha256"
  steps_of "$js" js
  steps_of "$python" python
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "$mib MiB, $rounds rounds, $tasks tasks per bench run ($profile)"
printf '%-44s %10s %10s %9s\n' "" "min ms" "median ms" "÷ native"
row "SHA-256  Node crypto (native)" node-sha256 node-sha256
row "SHA-256  CPython hashlib (native)" cpython-sha256 cpython-sha256
row "SHA-256  JS guest, natives.createHash" js-sha256 node-sha256
row "SHA-256  Python guest, natives.create_hash" python-sha256 cpython-sha256
row "SHA-256  Python guest, hashlib.sha256" python-hashlib-sha256 cpython-sha256
row "CRC-32   CPython zlib (native)" cpython-crc32 cpython-crc32
row "CRC-32   JS guest, natives.crc32" js-crc32 cpython-crc32
row "CRC-32   Python guest, natives.crc32" python-crc32 cpython-crc32
row "CRC-32   Python guest, zlib.crc32" python-zlib-crc32 cpython-crc32
