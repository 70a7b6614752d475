"""Reads fp8-run's dynamic-M model lines ("M = m: t us  f TFLOP/s") and
checks what follows from the grid alone: time never decreases with M, and
TFLOP/s equals 2 M N K / t (N = 4096, K = 7168) to the printed precision."""
import re
import sys

rows = []
for line in sys.stdin:
    match = re.match(r"\s*M =\s*(\d+):\s*([\d.]+) us\s+([\d.]+) TFLOP/s", line)
    if match:
        rows.append(tuple(float(g) for g in match.groups()))
assert len(rows) == 7, rows
for (m0, t0, _), (m1, t1, _) in zip(rows, rows[1:]):
    assert m1 > m0 and t1 >= t0, (m0, t0, m1, t1)
for m, t, tflops in rows:
    expected = 2 * m * 4096 * 7168 / (t * 1e-6) / 1e12
    assert abs(expected - tflops) <= 0.05 + 0.002 * expected, (m, t, tflops, expected)
print("ok", len(rows))
