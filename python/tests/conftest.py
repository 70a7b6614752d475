"""pytest setup: the built package and the tools of the build tree.

QMM_BUILD_DIR (default: ../../build) holds python_packages/ and bin/.
"""
import os
import sys

BUILD_DIR = os.environ.get(
    "QMM_BUILD_DIR",
    os.path.join(os.path.dirname(__file__), "..", "..", "build"))
sys.path.insert(0, os.path.join(BUILD_DIR, "python_packages"))
TOOLS_DIR = os.path.join(BUILD_DIR, "bin")
SOURCE_DIR = os.path.join(os.path.dirname(__file__), "..", "..")
