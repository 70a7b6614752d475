#!/usr/bin/env python3
"""Writes the PTX of the INDEX-th gpu.binary object in MLIR text on stdin
(`assembly = "..."`, with MLIR's string escapes undone) to stdout; exit 1
if there is no such object. usage: extract_ptx.py INDEX < module.mlir"""
import re
import sys

ESCAPE = re.compile(r'\\([0-9A-Fa-f]{2}|["\\nt])')


def unescape(text):
    def one(match):
        code = match.group(1)
        return {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}.get(
            code, None) or chr(int(code, 16))
    return ESCAPE.sub(one, text)


def main():
    index = int(sys.argv[1])
    objects = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', sys.stdin.read())
    if index >= len(objects):
        sys.exit(f"extract_ptx.py: {len(objects)} objects, no object {index}")
    sys.stdout.write(unescape(objects[index]))


if __name__ == "__main__":
    main()
