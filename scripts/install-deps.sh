#!/usr/bin/env bash
# Installs, with apt, whatever the build and the tests need and the machine
# lacks. Safe to run repeatedly: it does nothing when all is present.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache python3 python3-numpy python3-dev
  pybind11-dev python3-pytest
  llvm-22-dev libmlir-22-dev mlir-22-tools lld-22 llvm-22-tools
  libamdhip64-5
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

echo "qmm: installing missing packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "qmm: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
