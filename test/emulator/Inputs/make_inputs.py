"""Writes the small input arrays of the emulator tests into DIR."""
import sys

import numpy as np

d = sys.argv[1]
np.save(f"{d}/a32.npy", np.arange(32, dtype=np.float32) + 1)
np.save(f"{d}/a64.npy", np.arange(64, dtype=np.float32) + 1)
np.save(f"{d}/o64.npy", np.zeros(64, np.float32))
np.save(f"{d}/o128.npy", np.zeros(128, np.float32))
np.save(f"{d}/i64.npy", np.zeros(64, np.int32))
np.save(f"{d}/i512.npy", np.zeros(512, np.int32))
np.save(f"{d}/i210.npy", np.zeros(210, np.int32))
np.save(f"{d}/f64x64.npy", np.zeros(64, np.float64))
np.save(f"{d}/o63.npy", np.zeros(63, np.float32))
np.save(f"{d}/o256.npy", np.zeros(256, np.float32))
