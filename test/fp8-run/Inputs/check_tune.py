"""Checks fp8-run --tune --model-only --json output against an independent
model run of the default config and of the best config, and the lower
bound each ranked config carries against its modeled time.

usage: check_tune.py TUNE_JSON DEFAULT_MODEL_JSON BEST_MODEL_JSON
  TUNE_JSON: fp8-run --tune --model-only --json
  DEFAULT_MODEL_JSON: fp8-run --model-only --json (no config: the
    default choice), a separate compile
  BEST_MODEL_JSON: fp8-run --model-only --json --config <rank 1's config>
"""
import json
import sys

tune = json.load(open(sys.argv[1]))
default = json.load(open(sys.argv[2]))["model"]
best = json.load(open(sys.argv[3]))["model"]
ranking = tune["tune"]
errors = []

def check(ok, what):
    if not ok:
        errors.append(what)

check(len(ranking) >= 2, "fewer than two candidates")
check([r["rank"] for r in ranking] == list(range(1, len(ranking) + 1)),
      "ranks are not 1..n")
configs = [r["config"] for r in ranking]
check(len(set(configs)) == len(configs), "a config is listed twice")
kept = [r for r in ranking if not r["rejected"]]
times = [r["modeled_us"] for r in kept]
check(times == sorted(times), "non-rejected candidates not in time order")
check(all(not r["rejected"] for r in ranking[:len(kept)]),
      "a rejected candidate ranks above an accepted one")

# The default config is in the ranking once, with the time a separate
# model run of the default choice gives.
marked = [r for r in ranking if r["default"]]
check(len(marked) == 1, "the default config is not marked exactly once")
default_us = sum(k["seconds"] for k in default) * 1e6
if marked:
    check(marked[0]["config"] == default[0]["config"],
          "marked %s, the default is %s" % (marked[0]["config"],
                                            default[0]["config"]))
    check(abs(marked[0]["modeled_us"] - default_us) <= 1e-6 * default_us,
          "default time %g vs separate run %g" % (marked[0]["modeled_us"],
                                                  default_us))
# No ranked config models faster than its lower bound (ConfigCost.h): the
# pruning of --tune relies on it.
for r in ranking:
    check(r["bound_us"] <= r["modeled_us"] * (1 + 1e-9),
          "%s: bound %g us above its modeled %g us" % (r["config"],
                                                       r["bound_us"],
                                                       r["modeled_us"]))
# The best is no slower than the default, and the model printed after the
# ranking is the best's (the run compiles with it), equal to a separate
# model run of that config.
check(ranking[0]["modeled_us"] <= default_us * (1 + 1e-9),
      "best slower than the default")
check(tune["model"][0]["config"] == ranking[0]["config"],
      "the modeled program is not compiled with the best config")
best_us = sum(k["seconds"] for k in best) * 1e6
check(abs(best_us - ranking[0]["modeled_us"]) <= 1e-6 * best_us,
      "best time %g vs separate run %g" % (ranking[0]["modeled_us"], best_us))
check(all(k["scratch_bytes"] == 0 and not k["spills"] for k in tune["model"]),
      "the chosen config spills")

if errors:
    print("FAIL: " + "; ".join(errors))
    sys.exit(1)
print("tune ranking OK: %d candidates, best %s %.3f us, default %.3f us"
      % (len(ranking), ranking[0]["config"], ranking[0]["modeled_us"],
         default_us))
