#!/usr/bin/env bash
# Registers and spills of saved NVIDIA launch plans' kernels, as ptxas
# reports them (`ptxas -v`; no GPU needed, only a CUDA toolkit's ptxas):
# a kernel that spills pays local-memory traffic that its timings alone do
# not explain, so spills are worth knowing before a plan spends device time.
#   benchmarks/nvidia_ptxas_spills.sh DIR... (plan directories, or
#   directories of plans such as benchmarks/nvidia_plans.sh writes)
# Prints one Markdown row per kernel (entry function): plan, PTX file and
# entry, registers, stack frame, spill stores, spill loads (bytes per
# thread). Exit 1 where a directory holds no plan or ptxas fails on a
# kernel, 2 without ptxas.
set -uo pipefail
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
[ -x "$ptxas" ] || { echo "$0: no ptxas (set PTXAS)" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: $0 DIR..." >&2; exit 2; }
echo "ptxas: $("$ptxas" --version | tail -1)"
echo
echo "| plan | kernel | registers | stack frame | spill stores | spill loads |"
echo "|---|---|---|---|---|---|"
status=0
report() { # plan directory
  local plan=$1 chip ptx info
  chip=$(awk '$1 == "chip" { print $2 }' "$plan/plan.txt")
  for ptx in "$plan"/*.ptx; do
    [ -f "$ptx" ] || continue
    if ! info=$("$ptxas" -arch="$chip" -v "$ptx" -o /dev/null 2>&1); then
      echo "$0: ptxas failed on $ptx:" >&2
      echo "$info" | head -5 >&2
      status=1
      continue
    fi
    # A row per entry function (ptxas reports each in turn).
    echo "$info" | awk -v plan="$(basename "$plan")" \
        -v file="$(basename "$ptx")" '
      function flush() {
        if (entry != "")
          printf "| %s | %s (%s) | %s | %s | %s | %s |\n", plan, file,
                 entry, registers, frame, stores, loads
        entry = ""
      }
      /Compiling entry function/ {
        flush()
        entry = $0
        sub(/.*entry function \047/, "", entry)
        sub(/\047.*/, "", entry)
      }
      /bytes stack frame/ { frame = $1; stores = $5; loads = $9 }
      /Used [0-9]+ registers/ {
        for (i = 1; i <= NF; ++i) if ($i == "Used") registers = $(i + 1)
      }
      END { flush() }'
  done
}
for dir in "$@"; do
  plans=0
  if [ -f "$dir/plan.txt" ]; then
    report "$dir"
    plans=1
  else
    for plan in "$dir"/*/; do
      [ -f "$plan/plan.txt" ] || continue
      report "${plan%/}"
      plans=$((plans + 1))
    done
  fi
  if [ $plans -eq 0 ]; then
    echo "$0: $dir: no launch plan (plan.txt) there" >&2
    status=1
  fi
done
exit $status
