#!/usr/bin/env bash
# Builds the libFuzzer targets into build-fuzz/ (clang-22, ASan + UBSan,
# libFuzzer coverage on the project's code) and runs each for MINUTES
# minutes, one after the other; prints runs, exec/s, crashes, timeouts,
# out-of-memory inputs and leaks per target, and for each reproducer kept
# the error it reproduces.
#
#   bash fuzz/run.sh [MINUTES [TARGET...]]     (default: 1 minute, both)
#
# Targets: qmm-fuzz-ir (MLIR text, seeded from the lit tests' programs) and
# qmm-fuzz-structured (the structured generator driven by the bytes).
# Corpora persist in build-fuzz/fuzz/corpus-<target>/; reproducers land in
# build-fuzz/fuzz/findings/<target>/ (QMM_FUZZ_FINDINGS overrides the
# folder), logs in build-fuzz/fuzz/logs/. QMM_FUZZ_AMD_FORMAT picks the AMD
# pipeline's last stage (gpu, default; llvm; isa); QMM_FUZZ_SKIP_BUILD=1
# runs the targets as last built. Replay one input:
#   build-fuzz/bin/qmm-fuzz-ir FILE
#   QMM_FUZZ_PRINT=1 build-fuzz/bin/qmm-fuzz-structured FILE   (prints it)
# Installs clang-22 and libfuzzer-22-dev with apt when missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
minutes="${1:-1}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  targets=(qmm-fuzz-ir qmm-fuzz-structured)
fi

bash "$root/scripts/install-deps.sh"
missing=()
for pkg in clang-22 libfuzzer-22-dev libclang-rt-22-dev; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "qmm-fuzz: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

build_dir="${QMM_FUZZ_BUILD_DIR:-$root/build-fuzz}"
lock=/tmp/qmm-build.lock
flock "$lock" bash "$root/scripts/configure.sh" "$build_dir" \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DQMM_SANITIZERS=address,undefined -DQMM_BUILD_FUZZERS=ON >/dev/null
if [ "${QMM_FUZZ_SKIP_BUILD:-0}" = 1 ]; then
  echo "qmm-fuzz: QMM_FUZZ_SKIP_BUILD=1: running the targets as last built"
else
  flock "$lock" cmake --build "$build_dir" --target "${targets[@]}"
fi

work="$build_dir/fuzz"
findings="${QMM_FUZZ_FINDINGS:-$work/findings}"
mkdir -p "$work/logs"

# Seeds of qmm-fuzz-ir: every program of the lit tests, examples and
# benchmarks, split on `// -----` as -split-input-file does.
seeds_ir="$work/seeds-qmm-fuzz-ir"
rm -rf "$seeds_ir"
mkdir -p "$seeds_ir"
/usr/bin/python3 - "$root" "$seeds_ir" <<'PY'
import hashlib, pathlib, re, sys
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
files = [p for d in ("test", "examples", "benchmarks") for p in (root / d).rglob("*.mlir")]
count = 0
for path in sorted(files):
    for piece in re.split(r"^// -----\s*$", path.read_text(), flags=re.M):
        if piece.strip():
            name = hashlib.sha1(piece.encode()).hexdigest()[:16]
            (out / f"{name}.mlir").write_text(piece)
            count += 1
print(f"qmm-fuzz: {count} seed programs from {len(files)} files")
PY
# Seeds of qmm-fuzz-structured: fixed pseudo-random byte strings.
seeds_structured="$work/seeds-qmm-fuzz-structured"
rm -rf "$seeds_structured"
mkdir -p "$seeds_structured"
/usr/bin/python3 - "$seeds_structured" <<'PY'
import random, sys
rng = random.Random(2026)
for i in range(32):
    size = rng.choice([16, 64, 256, 1024])
    with open(f"{sys.argv[1]}/seed{i}", "wb") as f:
        f.write(bytes(rng.randrange(256) for _ in range(size)))
PY

# Reports abort the process. allow_user_poisoning=0: LLVM's BumpPtrAllocator
# poisons its slabs when compiled with ASan, which our code is and
# libMLIR.so is not, so memory poisoned by our copy of the allocator is then
# handed out by libMLIR's unpoisoned copy (false use-after-poison reports).
# Leaks are checked: libFuzzer reports an input after which memory stays
# allocated (each input gets its own MLIRContext, freed after it).
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

summary=()
for target in "${targets[@]}"; do
  corpus="$work/corpus-$target"
  artifacts="$findings/$target"
  mkdir -p "$corpus" "$artifacts"
  log="$work/logs/$target.log"
  extra=()
  if [ "$target" = qmm-fuzz-ir ]; then
    extra=(-dict="$root/fuzz/qmm.dict" "$seeds_ir")
  else
    extra=("$seeds_structured")
  fi
  echo "qmm-fuzz: running $target for $minutes min (log: $log)"
  # Fork mode: one worker on its own process, which goes on after a crash,
  # timeout or OOM; each is saved as a reproducer.
  status=0
  "$build_dir/bin/$target" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -max_total_time=$((minutes * 60)) -timeout=10 \
    -rss_limit_mb=4096 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" "${extra[@]}" >"$log" 2>&1 ||
    status=$?
  stats=$(grep -E '^#[0-9]+:' "$log" | tail -n 1 || true)
  runs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$stats")
  execs=$(sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p' <<<"$stats")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$stats")
  crashes=$(find "$artifacts" -maxdepth 1 -name 'crash-*' | wc -l)
  timeouts=$(find "$artifacts" -maxdepth 1 -name 'timeout-*' | wc -l)
  ooms=$(find "$artifacts" -maxdepth 1 -name 'oom-*' | wc -l)
  leaks=$(find "$artifacts" -maxdepth 1 -name 'leak-*' | wc -l)
  line="$target: ${runs:-0} runs, ${execs:-0} exec/s, coverage ${cov:-0}, crashes $crashes, timeouts $timeouts, ooms $ooms, leaks $leaks"
  summary+=("$line")
  echo "$line"
  # What each reproducer does, replayed once (its output beside it).
  for file in $(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | sort | head -n 20); do
    { QMM_FUZZ_PRINT=1 timeout 60 "$build_dir/bin/$target" -timeout=10 \
        -rss_limit_mb=4096 "$file" >"$file.txt" 2>&1; } 2>/dev/null || true
    first=$(grep -m1 -E 'ERROR|runtime error|LLVM ERROR|qmm-fuzz:|Assertion|deadly signal|timeout' "$file.txt" || echo "(did not reproduce)")
    echo "  $(basename "$file"): $first"
  done
done
echo "qmm-fuzz: ${minutes} min per target"
printf '%s\n' "${summary[@]}"
