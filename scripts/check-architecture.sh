#!/usr/bin/env bash
# Architecture check of every crate in the workspace (CI runs it after clippy): fails on a
# module cycle among sibling modules at any level of a crate's module tree, and on a non-test
# function longer than 120 lines. The work is done by check_architecture.py (Python 3.11,
# standard library only).
#
# Usage: scripts/check-architecture.sh [--refs N] [--max-lines N]   (N references per edge, 0: all)
#        scripts/check-architecture.sh --self-test                  (the checker's own tests)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = "--self-test" ]; then
  exec python3 "$here/test_check_architecture.py"
fi
exec python3 "$here/check_architecture.py" --root "$here/.." "$@"
