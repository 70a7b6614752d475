"""Low-precision float formats for the tests, from their definitions
(exponent and mantissa widths, bias, special encodings) -- independent of the
compiler, which reads LLVM's APFloat semantics, and of fp8-run's host codec.
"""
import numpy as np

# name: (exponent bits, mantissa bits, bias, specials)
FORMATS = {
    "f8E4M3FN": (4, 3, 7, "fn"),
    "f8E5M2": (5, 2, 15, "ieee"),
    "f8E4M3FNUZ": (4, 3, 8, "fnuz"),
    "f8E5M2FNUZ": (5, 2, 16, "fnuz"),
    "f6E2M3FN": (2, 3, 1, "finite"),
    "f6E3M2FN": (3, 2, 3, "finite"),
    "f4E2M1FN": (2, 1, 1, "finite"),
}


def width(name):
    e_bits, m_bits, _, _ = FORMATS[name]
    return 1 + e_bits + m_bits


def table(name):
    """Value of every code of a format, as float64 (NaN for NaN codes)."""
    e_bits, m_bits, bias, specials = FORMATS[name]
    bits = width(name)
    values = []
    for code in range(1 << bits):
        sign = -1.0 if code >> (bits - 1) else 1.0
        exp = (code >> m_bits) & ((1 << e_bits) - 1)
        man = code & ((1 << m_bits) - 1)
        if exp == 0:
            value = man * 2.0 ** (1 - bias - m_bits)
        else:
            value = (1 + man / 2.0 ** m_bits) * 2.0 ** (exp - bias)
        magnitude_bits = code & ((1 << (bits - 1)) - 1)
        if specials == "fn" and magnitude_bits == (1 << (bits - 1)) - 1:
            value = np.nan
        if specials == "fnuz" and code == 1 << (bits - 1):
            value = np.nan
        if specials == "ieee" and exp == (1 << e_bits) - 1:
            value = np.inf if man == 0 else np.nan
        values.append(sign * value)
    return np.array(values)


def encode_exact(values, name):
    """Codes of values that the format represents exactly."""
    lookup = {}
    for code, value in enumerate(table(name)):
        if np.isfinite(value) and value not in lookup:
            if value == 0 and code != 0:
                continue  # +0 is code 0
            lookup[value] = code
    flat = [lookup[float(v)] for v in np.asarray(values).ravel()]
    return np.array(flat, dtype=np.uint8).reshape(np.shape(values))


def pack_rows(codes, bits):
    """Packs each row's codes into a little-endian bit stream of bytes."""
    rows, cols = codes.shape
    stream = ((codes[..., None].astype(np.uint16) >> np.arange(bits)) & 1)
    stream = stream.reshape(rows, cols * bits).astype(np.uint8)
    return np.packbits(stream, axis=1, bitorder="little")


def unpack_rows(raw, name, cols):
    """The inverse of pack_rows: each row's `cols` codes of format `name`
    from its little-endian bit stream (8-bit formats are returned as they
    are)."""
    bits = width(name)
    if bits == 8:
        return raw
    stream = np.unpackbits(raw, axis=1, bitorder="little")
    stream = stream[:, : cols * bits].reshape(raw.shape[0], cols, bits)
    return (stream * (1 << np.arange(bits))).sum(axis=2).astype(np.uint8)
