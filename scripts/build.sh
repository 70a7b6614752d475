#!/usr/bin/env bash
# Configures (once) and builds the project into build/. Installs missing
# packages first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"

build_dir="${QMM_BUILD_DIR:-$root/build}"

bash "$root/scripts/configure.sh" "$build_dir"
cmake --build "$build_dir"
