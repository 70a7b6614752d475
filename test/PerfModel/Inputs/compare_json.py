"""compare_json.py FILE_A OP FILE_B FIELD [FIELD...]

Compares a numeric field of the first kernel in two model reports (the
JSON of `qmm-model --json`, or `fp8-run --model-only --json`), e.g.
`slower.json ge base.json seconds` asserts slower.seconds >= base.seconds.
FIELD is a dotted path ("main_loop.mfma_busy"). OP: lt, le, eq, ge, gt,
or within=R (|a - b| <= R |b|: the relative difference at most R).
Also: compare_json.py FILE OP VALUE FIELD compares with a number.
Exits 1 with the values when the relation does not hold.
"""
import json
import operator
import sys

OPS = {"lt": operator.lt, "le": operator.le, "eq": operator.eq,
       "ge": operator.ge, "gt": operator.gt}


def field(path, name):
    with open(path) as f:
        report = json.load(f)
    kernel = report["model"][0] if "model" in report else report
    value = kernel
    for part in name.split("."):
        value = value[part]
    return value


def main():
    a, op, b, *names = sys.argv[1:]
    failed = False
    for name in names:
        left = field(a, name)
        try:
            right = float(b)
            where = b
        except ValueError:
            right = field(b, name)
            where = "%s (%s)" % (right, b)
        if op.startswith("within="):
            ok = abs(left - right) <= float(op.split("=", 1)[1]) * abs(right)
        else:
            ok = OPS[op](left, right)
        print("%s: %s (%s) %s %s: %s" % (name, left, a, op, where,
                                          "ok" if ok else "FAILED"))
        failed |= not ok
    sys.exit(1 if failed else 0)


main()
