#!/usr/bin/env bash
# The test command. Builds the project once, with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/, scripts/run-sanitized-tests.sh),
# and runs the whole lit suite on that build, the Python API's tests
# included: every check of the suite, with every tool it runs sanitized.
# One build rather than a release build and a sanitized one: the second
# build and a second run of the suite doubled the command's time.
#   --release   the suite on the release build (build/), unsanitized
# Prints a closing "lit: N passed, N failed" line; exits non-zero on any
# failure or when no test ran.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
  "") exec bash "$root/scripts/run-sanitized-tests.sh" ;;
  --release) ;;
  *) echo "usage: $0 [--release]" >&2; exit 2 ;;
esac

bash "$root/scripts/build.sh"
build_dir="${QMM_BUILD_DIR:-$root/build}"
exec bash "$root/scripts/run-lit.sh" "$build_dir" release
