"""Writes fp8-run --load directories with NaN, Inf or huge inputs.

  make_nonfinite.py DIR

DIR/base holds a `fp8-run --save` of a 32x48x256 per-row GEMM; each case
is DIR/<case>/, a copy of it with one change."""
import os
import shutil
import sys

import numpy as np

root = sys.argv[1]
base = os.path.join(root, "base")

def case(name, edit):
    d = os.path.join(root, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(base, d)
    edit(d)

def edit_npy(d, fname, fn):
    p = os.path.join(d, fname)
    x = np.load(p)
    fn(x)
    np.save(p, x)

def drop_quantized(d):
    for f in ("a.npy", "a_scale.npy", "b.npy", "b_scale.npy"):
        os.remove(os.path.join(d, f))

def hp_nan(d):
    drop_quantized(d)
    edit_npy(d, "a_hp.npy", lambda x: x.__setitem__((3, 5), np.nan))
    edit_npy(d, "b_hp.npy", lambda x: x.__setitem__((7, 1), np.inf))

def scale_inf(d):
    edit_npy(d, "a_scale.npy", lambda x: x.__setitem__((2, 0), np.inf))

def scale_huge(d):
    edit_npy(d, "a_scale.npy", lambda x: x.__setitem__((2, 0), np.float32(3e38)))

case("hp_nan", hp_nan)
case("scale_inf", scale_inf)
case("scale_huge", scale_huge)
