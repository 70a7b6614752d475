#!/usr/bin/env bash
# On the GPU machine: qmm beside cuBLASLt, DeepGEMM and Triton
# (benchmarks/nvidia_peers.py), after building DeepGEMM offline from the
# peers harness (its build_deepgemm.sh; DeepGEMM's sources under
# PEERS/DeepGEMM, exported here as the harness's README says).
#   benchmarks/nvidia_peers.sh PLANS PEERS [nvidia_peers.py flags...]
# PLANS: benchmarks/nvidia_plans.sh peers' directory; PEERS: the harness
# (.peers). Without nvcc, DeepGEMM and the decode cases' read floor
# (benchmarks/nvidia_read_floor.cu) are left out.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
plans=${1:?usage: $0 PLANS PEERS [flags...]}
peers=${2:?usage: $0 PLANS PEERS [flags...]}
shift 2
peers=$(cd "$peers" && pwd)

nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | head -1)
export TRITON_CACHE_DIR=${TRITON_CACHE_DIR:-/tmp/qmm-peers-triton}
export DG_JIT_CACHE_DIR=${DG_JIT_CACHE_DIR:-/tmp/qmm-peers-deepgemm}
if [ -n "$nvcc" ]; then
  nvcc=$(readlink -f "$nvcc")
  export CUDA_HOME=$(dirname "$(dirname "$nvcc")")
  if ! bash "$peers/build_deepgemm.sh" 400 /tmp/qmm-peers-dg.status \
      > /tmp/qmm-peers-dg-build.log 2>&1; then
    echo "DeepGEMM build failed: $(cat /tmp/qmm-peers-dg.status)"
    tail -20 /tmp/qmm-peers-dg-build.log
  fi
  # DeepGEMM's JIT runs $CUDA_HOME/bin/nvcc and cuobjdump; a toolkit
  # without cuobjdump gets a CUDA_HOME whose bin/ borrows Triton's.
  if [ ! -x "$CUDA_HOME/bin/cuobjdump" ]; then
    cuobjdump=$(python3 -c "import os, triton; print(os.path.join(os.path.dirname(triton.__file__), 'backends', 'nvidia', 'bin', 'cuobjdump'))")
    shim=/tmp/qmm-peers-cuda-home
    rm -rf "$shim" && mkdir -p "$shim/bin"
    ln -s "$cuobjdump" "$shim/bin/cuobjdump"
    ln -s "$nvcc" "$shim/bin/nvcc"
    for d in include lib64 lib nvvm targets; do
      [ -e "$CUDA_HOME/$d" ] && ln -s "$CUDA_HOME/$d" "$shim/$d"
    done
    export DG_JIT_NVCC_COMPILER=$nvcc CUDA_HOME=$shim
  fi
  # The decode cases' floor: a plain read of their bytes (nvidia_peers.py
  # --read-floor; not the grouped benchmark's).
  if [ -z "${QMM_PEERS_SCRIPT:-}" ] && "$nvcc" -O3 -arch=sm_90a -o /tmp/qmm-read-floor \
      benchmarks/nvidia_read_floor.cu; then
    set -- --read-floor /tmp/qmm-read-floor "$@"
  fi
else
  echo "no nvcc: DeepGEMM and the read floor left out"
fi
# DeepGEMM's module crashes in std::regex (its JIT's include parser) unless
# the system's libstdc++ is loaded first, before the one the interpreter's
# environment brings (seen with torch 2.11 in a venv, GCC 13).
for libstdcxx in /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
    "$(g++ -print-file-name=libstdc++.so.6 2>/dev/null)"; do
  [ -f "$libstdcxx" ] && export LD_PRELOAD=$(readlink -f "$libstdcxx") && break
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
# QMM_PEERS_SCRIPT=benchmarks/nvidia_grouped.py runs the grouped benchmark
# in the same environment.
python3 "${QMM_PEERS_SCRIPT:-benchmarks/nvidia_peers.py}" "$plans" --peers "$peers" "$@"
