#!/usr/bin/env bash
# Runs the lit suite of BUILD_DIR and prints "lit: N passed, M failed"
# (LABEL: which build, in the timing line); exits non-zero on a failure or
# when no test ran.
#   bash scripts/run-lit.sh BUILD_DIR LABEL
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir=$1
label=$2
llvm_prefix="$(llvm-config-22 --prefix 2>/dev/null || echo /usr/lib/llvm-22)"
# lit starts the tests that took longest first (their times from an
# earlier run, or this scheduling hint in a fresh build folder), so that
# no long test starts last while the other worker idles.
times="$build_dir/test/.lit_test_times.txt"
[ -f "$times" ] || cp "$root/test/lit-test-times.txt" "$times"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
start=$SECONDS
/usr/bin/python3 "$llvm_prefix/bin/lit" -sv "$build_dir/test" 2>&1 | tee "$log" || status=$?
echo "qmm: $label suite: $((SECONDS - start)) s"
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
echo "lit: ${passed:-0} passed, ${failed:-0} failed"
if [ "$status" -eq 0 ] && [ "${passed:-0}" -eq 0 ]; then
  echo "qmm: no test ran" >&2
  exit 1
fi
exit "$status"
