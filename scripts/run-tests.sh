#!/usr/bin/env bash
# Builds the project and runs the whole test suite (lit). Prints a closing
# "N passed, N failed" line and exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh"

build_dir="${QMM_BUILD_DIR:-$root/build}"
llvm_prefix="$(llvm-config-22 --prefix 2>/dev/null || echo /usr/lib/llvm-22)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

status=0
/usr/bin/python3 "$llvm_prefix/bin/lit" -sv "$build_dir/test" 2>&1 | tee "$log" || status=$?

passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
echo "lit: ${passed:-0} passed, ${failed:-0} failed"
if [ "$status" -eq 0 ] && [ "${passed:-0}" -eq 0 ]; then
  echo "qmm: no test ran" >&2
  exit 1
fi
exit "$status"
