"""Checks fp8-run's model-guided default choice against the pass's own.

usage: check_selection.py MODEL_JSON PASS_JSON
  MODEL_JSON: fp8-run --model-only --json (--select model, the default)
  PASS_JSON:  the same with --select pass
The chosen config's modeled time is at most the pass's (the pass's choice
is one of the candidates), the report says how many were modeled, and the
chosen config neither spills nor uses scratch.
"""
import json
import re
import sys

chosen = json.load(open(sys.argv[1]))
alone = json.load(open(sys.argv[2]))
errors = []
note = chosen.get("selection", "")
match = re.match(r"config chosen by modeling (\d+) candidates", note)
if not match:
    errors.append("no selection note: %r" % note)
if "selection" in alone:
    errors.append("--select pass reported a selection")
seconds = lambda report: sum(k["seconds"] for k in report["model"])
if seconds(chosen) > seconds(alone) * (1 + 1e-9):
    errors.append("chosen %g s slower than the pass's %g s" %
                  (seconds(chosen), seconds(alone)))
if any(k["spills"] or k["scratch_bytes"] for k in chosen["model"]):
    errors.append("the chosen config spills")
if errors:
    print("FAIL: " + "; ".join(errors))
    sys.exit(1)
print("selection OK: modeled %s candidates, %.3f us (pass's %.3f us)" %
      (match.group(1), seconds(chosen) * 1e6, seconds(alone) * 1e6))
