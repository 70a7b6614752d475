"""Deeply nested program text: the C++ side refuses it before parsing with
an exception (5,000 nested modules overflowed the parser's recursion and
killed the interpreter; lib/Support/NestingLimit.cpp)."""
import numpy as np
import pytest

import qmm


def nested_modules(levels):
    return "module {" * levels + "}" * levels


@pytest.mark.parametrize("levels", [5000, 100000])
def test_deep_nesting_raises(levels):
    ir = nested_modules(levels)
    message = "brackets nest deeper than 512 levels"
    # compile() reports what the embedding API returns (RuntimeError: cannot
    # parse the program); the others parse in the module (ValueError).
    with pytest.raises(RuntimeError, match=message):
        qmm.compile(ir, "gfx942")
    with pytest.raises(ValueError, match=message):
        qmm.linalg_to_qmm(ir)
    with pytest.raises(ValueError, match=message):
        qmm.run(ir, "f", [], device="cpu")
    with pytest.raises(ValueError, match=message):
        qmm.Program(ir, "f", "emu", "gfx950")
    with pytest.raises(ValueError, match=message):
        qmm.model(ir, "gfx942")


def test_deep_type_name_is_a_value_error():
    x = np.zeros((1, 32), np.float32)
    with pytest.raises(ValueError, match="is not an MLIR type"):
        qmm.quantize(x, "tuple<" * 100000, "tensor")


def test_nesting_at_the_limit_parses():
    # 512 levels are accepted: the program parses (and has no function).
    assert qmm.linalg_to_qmm(nested_modules(512)).count("module") == 512
