#!/usr/bin/env bash
# Configures (once) and builds the project into build/. Installs missing
# packages first. Arguments go to `cmake --build` (e.g. --target fp8-run:
# what the main job needs; none: everything the tests need).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"

build_dir="${QMM_BUILD_DIR:-$root/build}"

bash "$root/scripts/configure.sh" "$build_dir"
cmake --build "$build_dir" "$@"
