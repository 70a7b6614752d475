"""Every program the frontend lowering raises runs on every device: the
programs of linalg-to-qmm-scalar-scales.mlir (scalar and 0-d scales),
-conversion-attributes.mlir (scale conversions with rounding modes and
fast-math flags) and -fusion-independent.mlir (variants of the accepted
forms) run as they are on the cpu device (upstream linalg semantics, no
qmm op involved) and, raised before and after upstream fusion
(generalize, fuse, canonicalize: fp8-opt), on the cpu device and on the
emulator for both chips. Each result agrees with the linalg program's
within twice the f32 accumulation bound."""
import os
import re
import subprocess

import numpy as np
import pytest

import qmm
from conftest import SOURCE_DIR, TOOLS_DIR

TESTS = os.path.join(SOURCE_DIR, "test", "Conversion", "LinalgToQMM")
FILES = ["linalg-to-qmm-scalar-scales.mlir",
         "linalg-to-qmm-conversion-attributes.mlir",
         "linalg-to-qmm-fusion-independent.mlir"]
FUSION = ["--linalg-generalize-named-ops", "--linalg-fuse-elementwise-ops",
          "--canonicalize"]
# The rows of a dynamic M in these runs.
M = 40


def programs():
    """(file, function, text) of every program taking tensors only."""
    found = []
    for name in FILES:
        with open(os.path.join(TESTS, name)) as f:
            for chunk in f.read().split("// -----"):
                match = re.search(r"func\.func @(\w+)\((.*?)\)\s*->", chunk,
                                  re.S)
                if match and not re.search(r"%\w+: f\d+", match.group(2)):
                    found.append(pytest.param(chunk, match.group(1),
                                              id=match.group(1)))
    return found


def argument_types(text, function):
    """[(shape, element type)] of the function's tensor arguments."""
    signature = re.search(r"func\.func @%s\((.*?)\)\s*->" % function, text,
                          re.S).group(1)
    types = []
    for match in re.finditer(r"%\w+: tensor<([^>]*)>", signature):
        *extents, element = match.group(1).split("x")
        types.append(([M if e == "?" else int(e) for e in extents], element))
    return types


def make_argument(rng, shape, element):
    """Random values of the type, and their absolute values (for the
    bound): FP8 codes of normal data (the sign is the top bit), E8M0
    codes of 2^-3 .. 2^3, other floats of magnitude 0.5 .. 1.5 (bf16 and
    f16 values: exactly representable)."""
    count = int(np.prod(shape, dtype=np.int64))
    if element == "f8E8M0FNU":
        codes = rng.integers(124, 131, count).astype(np.uint8).reshape(shape)
        return codes, codes
    if element.startswith("f8"):
        x = rng.standard_normal((1, count)).astype(np.float32)
        codes = qmm.quantize(x, element, "tensor")[0].reshape(shape)
        return codes, codes & np.uint8(0x7F)
    x = (rng.random(count) + 0.5).astype(np.float32)
    x *= np.where(rng.random(count) < 0.5, -1, 1).astype(np.float32)
    if element == "bf16":
        x = (x.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    elif element == "f16":
        x = x.astype(np.float16).astype(np.float32)
    x = np.array(x.reshape(shape), order="C")
    return x, np.array(np.abs(x))  # (0-d stays an array)


def static(text):
    """The program with its dynamic M (if any) made M."""
    return (text.replace("?x", f"{M}x")
            .replace("output_shape [%m,", f"output_shape [{M},")
            .replace("tensor.empty(%m)", "tensor.empty()"))


def fused(text):
    return subprocess.run([os.path.join(TOOLS_DIR, "fp8-opt"), "-", *FUSION],
                          input=text, capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.parametrize("text,function", programs())
def test_raised_program_runs_on_every_device(text, function):
    rng = np.random.default_rng(11)
    types = argument_types(text, function)
    made = [make_argument(rng, shape, element) for shape, element in types]
    args = [value for value, _ in made]
    # A is the first argument: K is its last extent.
    k = types[0][0][-1]
    original = static(text)
    expected = qmm.run(original, function, args, device="cpu")[0]
    magnitude = qmm.run(original, function, [a for _, a in made],
                        device="cpu")[0]
    bound = 2 * (k + 2) * 2.0 ** -24 * np.abs(magnitude)
    for form, transform in (("unfused", lambda t: t), ("fused", fused)):
        raised = qmm.linalg_to_qmm(transform(text))
        assert "qmm.matmul" in raised, form
        assert not re.search(r"linalg\.(matmul|batch_matmul)", raised), form
        # The cpu device runs static shapes only: there, the program with
        # M made static, raised.
        raised_static = qmm.linalg_to_qmm(transform(original))
        for device, chip in (("cpu", "gfx942"), ("emu", "gfx942"),
                             ("emu", "gfx950")):
            program = raised_static if device == "cpu" else raised
            got = qmm.run(program, function, args, device=device,
                          chip=chip)[0]
            where = f"{form} on {device} ({chip})"
            assert got.shape == expected.shape, where
            assert (np.abs(got - expected) <= bound).all(), where
