# Shared by the bench-*.sh measurement scripts (sourced, not run): goes to the repository
# root, builds `bench` with $PROFILE (default release; BENCH_BIN=path measures that binary
# instead) and the no-op example task, and sets `root`, `profile`, `bench` (the binary) and
# `noop` (the component).

profile=${PROFILE:-release}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [ -n "${BENCH_BIN:-}" ]; then
  bench=$(realpath "$BENCH_BIN") profile="given ($BENCH_BIN)"
else
  bench=$(cargo build --quiet --profile "$profile" -p bench --message-format=json |
    jq -r 'select(.executable != null) | .executable' | tail -n 1)
fi
CARGO_TARGET_DIR="$root/target/guests" cargo build --quiet --release --target wasm32-wasip2 \
  --manifest-path examples/rust-noop/Cargo.toml
noop="$root/target/guests/wasm32-wasip2/release/rust_noop.wasm"

summary() { # "min median" of numbers on stdin
  sort -g | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%g %g\n", v[1], m }'
}

start_moto() { # moto's S3-compatible server on a free loopback port, its log in $1: sets `server` (its pid) and `url`
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  moto_server -H 127.0.0.1 -p "$port" >"$1" 2>&1 &
  server=$!
  url="http://127.0.0.1:$port"
  until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
    sleep 0.1
  done
}

median_of() { # file under $work: the median of its numbers
  summary <"$work/$1" | cut -d' ' -f2
}

row() { # label file reference-file (under $work): min, median and the ratio of the medians
  read -r min median < <(summary <"$work/$2")
  printf '%-44s %10.2f %10.2f %8.2fx\n' "$1" "$min" "$median" \
    "$(awk -v a="$median" -v b="$(median_of "$3")" 'BEGIN { print a / b }')"
}
