"""expect_exit.py CODE COMMAND...: runs COMMAND, passes its output through,
and succeeds only when it exits with exactly CODE (lit's `not` accepts any
non-zero code)."""
import subprocess
import sys

expected = int(sys.argv[1])
result = subprocess.run(sys.argv[2:])
if result.returncode != expected:
    sys.stderr.write(f"expect_exit: exit code {result.returncode}, expected {expected}\n")
    sys.exit(1)
