#!/usr/bin/env bash
# The test suite again, on an AddressSanitizer + UndefinedBehaviorSanitizer
# build (build-asan/, g++, -fsanitize=address,undefined
# -fno-sanitize-recover=all): any report aborts the tool and fails its test.
# scripts/run-tests.sh runs it after the normal suite unless QMM_SANITIZE=0.
# Prints a closing "lit (asan): N passed, M failed" line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"

build_dir="${QMM_ASAN_BUILD_DIR:-$root/build-asan}"
llvm_prefix="$(llvm-config-22 --prefix 2>/dev/null || echo /usr/lib/llvm-22)"
lock=/tmp/qmm-build.lock
# -O1: the usual optimization for ASan builds, and a faster build than
# -O3; -g1: line numbers in reports.
flock "$lock" bash "$root/scripts/configure.sh" "$build_dir" \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" \
  -DQMM_SANITIZERS=address,undefined >/dev/null
# The tools the lit tests run (the Python package is not built: see
# test/lit.cfg.py).
start=$SECONDS
flock "$lock" cmake --build "$build_dir" --target fp8-opt fp8-run qmm-compile \
  qmm-cuda-run \
  qmm-gen-program qmm-model qmm-intrinsic-table-check qmm-wgmma-plan-check
echo "qmm: sanitized build: $((SECONDS - start)) s"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
start=$SECONDS
/usr/bin/python3 "$llvm_prefix/bin/lit" -sv "$build_dir/test" 2>&1 | tee "$log" || status=$?
echo "qmm: sanitized suite: $((SECONDS - start)) s"
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
echo "lit (asan): ${passed:-0} passed, ${failed:-0} failed"
if [ "$status" -eq 0 ] && [ "${passed:-0}" -eq 0 ]; then
  echo "qmm: no test ran" >&2
  exit 1
fi
exit "$status"
