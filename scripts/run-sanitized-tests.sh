#!/usr/bin/env bash
# The test suite on an AddressSanitizer + UndefinedBehaviorSanitizer build
# (build-asan/: g++, -fsanitize=address,undefined -fno-sanitize-recover=all,
# -O1 -g1), every target, the Python package included: any report aborts
# the tool (or the Python test) and fails its test. scripts/run-tests.sh
# (the test command) is this. Prints "lit: N passed, M failed".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"

build_dir="${QMM_ASAN_BUILD_DIR:-$root/build-asan}"
lock=/tmp/qmm-build.lock
# -O1: the usual optimization for ASan builds, and a faster build than
# -O3; -g1: line numbers in reports.
flock "$lock" bash "$root/scripts/configure.sh" "$build_dir" \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" \
  -DQMM_SANITIZERS=address,undefined -DQMM_BUILD_PYTHON=ON >/dev/null
# A folder configured before the Python package was built here.
grep -q '^QMM_BUILD_PYTHON:BOOL=ON' "$build_dir/CMakeCache.txt" ||
  cmake -DQMM_BUILD_PYTHON=ON "$build_dir" >/dev/null
start=$SECONDS
flock "$lock" cmake --build "$build_dir"
echo "qmm: sanitized build: $((SECONDS - start)) s"
exec bash "$root/scripts/run-lit.sh" "$build_dir" sanitized
