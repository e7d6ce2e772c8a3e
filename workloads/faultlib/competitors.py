"""Busy processes beside a workload: other tenants of the machine taking its CPUs (serve.py's
thread_oversubscription at strong, train.py's host_input_bound). Each multiplies small matrices in a loop,
single-threaded, until its parent is gone (or it is stopped)."""
import contextlib
import os
import subprocess
import sys

BUSY_SIDECAR = """
import os, time, numpy as np
a = np.random.rand(160, 160)
while os.getppid() != 1:            # until the parent is gone
    for _ in range(20):
        a = np.tanh(a @ a * 1e-2)
"""


def start(count):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return [subprocess.Popen([sys.executable, "-c", BUSY_SIDECAR], env=env, stdin=subprocess.DEVNULL)
            for _ in range(count)]


def stop(procs):
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait()


@contextlib.contextmanager
def running(count):
    """`count` busy processes for the duration of a with block."""
    procs = start(count)
    try:
        yield procs
    finally:
        stop(procs)
