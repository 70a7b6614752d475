#!/usr/bin/env bash
# The default config choice against --tune's best, on GEMMs that are in no
# tuning table (held out: none of these shapes' buckets has a built-in
# entry). For each: fp8-run's default (--select=model: the model's best of
# a few candidates), qmm-select-config's choice alone (--select=pass), and
# --tune (every legal config, pruned by the lower bound), all MODELED by the
# same performance model; the time each takes to choose and compile.
# Writes benchmarks/results/<date>-selector.md.
# Usage: benchmarks/selector.sh [--build DIR] [--out FILE]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
out="$root/benchmarks/results/$(date +%F)-selector.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "selector.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$build/bin/fp8-run" ] || { echo "selector.sh: no $build/bin/fp8-run" >&2; exit 1; }
# chip gemm a b a-scale b-scale
shapes=(
  "gfx950 4096x4096x4096   f8E4M3FN f8E4M3FN tensor tensor"
  "gfx950 3000x5000x7000   f8E4M3FN f8E4M3FN tensor tensor"
  "gfx950 6144x6144x6144   f8E4M3FN f8E4M3FN tensor tensor"
  "gfx950 2048x2048x8192   f8E4M3FN f8E4M3FN tensor tensor"
  "gfx950 512x4096x8192    f8E4M3FN f8E4M3FN tensor tensor"
  "gfx950 1536x12288x4096  f8E4M3FN f8E4M3FN row row"
  "gfx950 8192x1024x4096   f8E4M3FN f8E4M3FN row row"
  "gfx950 2048x8192x3072   f8E4M3FN f8E4M3FN 1x128 128x128"
  "gfx950 12288x4096x2048  f8E4M3FN f8E4M3FN 1x128 128x128"
  "gfx950 2048x7168x7168   f8E4M3FN f8E4M3FN 1x128 128x128"
  "gfx950 4096x4096x4096   f8E4M3FN f8E4M3FN mx32 mx32"
  "gfx950 4096x8192x8192   f4E2M1FN f4E2M1FN mx32 mx32"
  "gfx942 4096x4096x4096   f8E4M3FNUZ f8E4M3FNUZ tensor tensor"
  "gfx942 1024x8192x8192   f8E4M3FNUZ f8E4M3FNUZ tensor tensor"
  "gfx942 3072x3072x12288  f8E4M3FNUZ f8E4M3FNUZ tensor tensor"
  "gfx942 5000x3000x6000   f8E4M3FNUZ f8E4M3FNUZ row row"
  "gfx942 6144x6144x6144   f8E4M3FNUZ f8E4M3FNUZ row row"
  "gfx942 2048x8192x4096   f8E4M3FNUZ f8E4M3FNUZ 1x128 128x128"
)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
: >"$work/rows.tsv"
for s in "${shapes[@]}"; do
  read -r chip gemm a b as bs <<<"$s"
  args=(--chip "$chip" --gemm "$gemm" --a-type "$a" --b-type "$b" --a-scale "$as" --b-scale "$bs" --model-only --json)
  for mode in model pass; do
    start=$(date +%s.%N)
    "$build/bin/fp8-run" "${args[@]}" --select=$mode >"$work/$mode.json"
    end=$(date +%s.%N)
    echo "$end - $start" | bc >"$work/$mode.time"
  done
  start=$(date +%s.%N)
  "$build/bin/fp8-run" "${args[@]}" --tune >"$work/tune.json"
  end=$(date +%s.%N)
  tuneTime=$(echo "$end - $start" | bc)
  /usr/bin/python3 - "$work" "$s" "$tuneTime" >>"$work/rows.tsv" <<'PY'
import json, sys
work, shape, tune_time = sys.argv[1], sys.argv[2], float(sys.argv[3])
def main(name):
    d = json.load(open(f"{work}/{name}.json"))
    k = max(d["model"], key=lambda p: p["seconds"])
    return sum(p["seconds"] for p in d["model"]) * 1e6, k["config"], k["tflops"]
model_us, model_cfg, model_tf = main("model")
pass_us, pass_cfg, _ = main("pass")
tune = json.load(open(f"{work}/tune.json"))
best_us, best_cfg, best_tf = main("tune")
ranked = len(tune["tune"])
times = [float(open(f"{work}/{m}.time").read()) for m in ("model", "pass")]
print("\t".join(map(str, [shape, model_us, pass_us, best_us, model_tf, best_tf,
                          times[0], times[1], tune_time, ranked, model_cfg, best_cfg])))
PY
done
/usr/bin/python3 - "$work/rows.tsv" "$out" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" <<'PY'
import sys, datetime
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
out, commit = sys.argv[2], sys.argv[3]
def short(c):
    import re
    m = re.search(r"tile = \[(\d+), (\d+), (\d+)\], waves = \[(\d+), (\d+)\], mfma = (\w+) \[(\d+), (\d+), (\d+)\], stages = (\d)(?:, split = (\d+))?", c)
    if not m: return c
    g = m.groups()
    s = f"{g[0]}x{g[1]}x{g[2]} w{g[3]}x{g[4]} {g[5]}-{g[6]}x{g[7]}x{g[8]} s{g[9]}"
    s += f" k{g[10]}" if g[10] else ""
    return s + (" direct" if "lds_copy = direct" in c else "")
lines = [f"# Default config choice vs --tune, {datetime.date.today()} (commit {commit})", "",
         "All times MODELED by the performance model (mi355x for gfx950, mi300x for gfx942), "
         "none measured. Shapes are held out: no built-in tuning-table entry has their buckets. "
         "default = fp8-run's choice (--select=model: the model's best of a few candidates); "
         "pass = qmm-select-config alone (nearest table entry, else the rule); "
         "tune = the best of every legal config (--tune, exact: pruned only by a lower bound). "
         "Choose times are wall-clock seconds of the whole fp8-run call (compile + model) on "
         "this machine (2 cores).", "",
         "| chip | GEMM | A/B | scales | default us | pass us | tune us | default/tune | pass/tune | default TFLOP/s | default s | tune s (configs modeled) | default config | tune's config |",
         "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
worst = 0; within = 0; worst_pass = 0
for r in rows:
    chip, gemm, a, b, sa, sb = r[0].split()
    model_us, pass_us, best_us, model_tf, best_tf, t_model, t_pass, t_tune = map(float, r[1:9])
    ranked, mcfg, bcfg = r[9], r[10], r[11]
    ratio = model_us / best_us; pratio = pass_us / best_us
    worst = max(worst, ratio); worst_pass = max(worst_pass, pratio); within += ratio <= 1.05
    lines.append(f"| {chip} | {gemm} | {a}/{b} | {sa}/{sb} | {model_us:.1f} | {pass_us:.1f} | {best_us:.1f} | "
                 f"{ratio:.3f} | {pratio:.3f} | {model_tf:.0f} | {t_model:.2f} | {t_tune:.1f} ({ranked}) | "
                 f"{short(mcfg)} | {short(bcfg)} |")
lines += ["", f"Default within 5% of --tune's best: {within} of {len(rows)} shapes; worst default/tune {worst:.3f}; "
          f"worst pass/tune {worst_pass:.3f}."]
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
print(text)
PY
