"""Checks that fp8-run --tune (configs whose lower bound cannot beat the
best time modeled so far are skipped) finds the same best config and time
as --tune --tune-all (every config modeled), and that it did skip some.

usage: check_pruning.py PRUNED_TUNE_JSON ALL_TUNE_JSON
"""
import json
import sys

pruned = json.load(open(sys.argv[1]))["tune"]
every = json.load(open(sys.argv[2]))["tune"]
errors = []
if pruned[0]["config"] != every[0]["config"]:
    errors.append("best %s with pruning, %s without" % (pruned[0]["config"],
                                                       every[0]["config"]))
if abs(pruned[0]["modeled_us"] - every[0]["modeled_us"]) > 1e-9 * every[0]["modeled_us"]:
    errors.append("best time %g with pruning, %g without" %
                  (pruned[0]["modeled_us"], every[0]["modeled_us"]))
if not len(pruned) < len(every):
    errors.append("nothing pruned (%d of %d modeled)" % (len(pruned), len(every)))
# Every config that was skipped has a bound no better than the best.
modeled = {r["config"] for r in pruned}
best = every[0]["modeled_us"]
for r in every:
    if r["config"] not in modeled and r["bound_us"] < best * (1 - 1e-9):
        errors.append("%s skipped with bound %g below the best %g" %
                      (r["config"], r["bound_us"], best))
if errors:
    print("FAIL: " + "; ".join(errors))
    sys.exit(1)
print("pruned tune OK: %d of %d modeled, best %s" % (len(pruned), len(every),
                                                     pruned[0]["config"]))
