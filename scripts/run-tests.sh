#!/usr/bin/env bash
# Builds the project and runs the whole test suite (lit), then the same
# suite on an ASan + UBSan build (scripts/run-sanitized-tests.sh; skipped
# with QMM_SANITIZE=0). Prints a closing "lit: N passed, N failed" line
# over both runs and exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh"

build_dir="${QMM_BUILD_DIR:-$root/build}"
llvm_prefix="$(llvm-config-22 --prefix 2>/dev/null || echo /usr/lib/llvm-22)"
log="$(mktemp)"
asan_log="$(mktemp)"
trap 'rm -f "$log" "$asan_log"' EXIT

status=0
/usr/bin/python3 "$llvm_prefix/bin/lit" -sv "$build_dir/test" 2>&1 | tee "$log" || status=$?

passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
passed=${passed:-0}
failed=${failed:-0}
echo "lit (normal build): $passed passed, $failed failed"
if [ "$status" -eq 0 ] && [ "$passed" -eq 0 ]; then
  echo "qmm: no test ran" >&2
  exit 1
fi

if [ "${QMM_SANITIZE:-1}" != 0 ]; then
  asan_status=0
  bash "$root/scripts/run-sanitized-tests.sh" 2>&1 | tee "$asan_log" || asan_status=$?
  asan_passed=$(sed -n 's/^lit (asan): \([0-9]*\) passed.*/\1/p' "$asan_log" | tail -n 1)
  asan_failed=$(sed -n 's/^lit (asan): [0-9]* passed, \([0-9]*\) failed.*/\1/p' "$asan_log" | tail -n 1)
  if [ "$asan_status" -ne 0 ] && [ -z "${asan_failed:-}" ]; then
    echo "qmm: the sanitized build or run failed" >&2
    asan_failed=1
  fi
  passed=$((passed + ${asan_passed:-0}))
  failed=$((failed + ${asan_failed:-0}))
  [ "$asan_status" -ne 0 ] && status=$asan_status
else
  echo "qmm: QMM_SANITIZE=0: sanitized suite skipped"
fi
echo "lit: $passed passed, $failed failed"
exit "$status"
