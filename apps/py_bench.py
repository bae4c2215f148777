#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""py_bench: what an mpi4py program does per remote access, timed from
rank 0 to rank 1, each result checked (make bench-apps).

For a Win.Create and a Win.Allocate window of 16 doubles per rank, one
passive-target epoch per access, as a Python program writes it:
  put16   Lock(1, EXCLUSIVE); Put(16 doubles); Unlock(1)
  get16   Lock(1, SHARED); Get(16 doubles); Unlock(1)
  acc16   Lock(1, SHARED); Accumulate(16 doubles, SUM); Unlock(1)
  fop     Lock(1, EXCLUSIVE); Fetch_and_op(1 int64, SUM); Unlock(1)
Each row runs for SECONDS (argument 1, default 1.0) and prints
"py_bench: FLAVOR.ROW OPS_PER_S COUNT"; a wrong result prints
"py_bench: FAIL ..." and exits 1.  The other ranks wait in a barrier.
"""
import sys
import time

import numpy as np
from mpi4py import MPI

world = MPI.COMM_WORLD
me = world.Get_rank()
secs = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0


def fail(what):
    print(f"py_bench: FAIL {what} on rank {me}", flush=True)
    world.Abort(1)


def timed(name, step):
    """Calls step(k) for k = 1, 2, ... until secs have passed."""
    n = 0
    t0 = time.perf_counter()
    while True:
        n += 1
        step(n)
        if n % 16 == 0:
            el = time.perf_counter() - t0
            if el >= secs:
                break
    print(f"py_bench: {name} {n / el:.1f} {n}", flush=True)
    return n


def windows():
    mem = np.zeros(16, dtype="f8")
    win = MPI.Win.Create(mem, disp_unit=8, comm=world)
    yield "create", win, mem
    win.Free()
    win = MPI.Win.Allocate(16 * 8, disp_unit=8, comm=world)
    mem = np.frombuffer(win.tomemory(), dtype="f8")
    mem[:] = 0
    yield "allocate", win, mem
    del mem
    win.Free()


def bench(flavor, win, mem):
    x = np.arange(1, 17, dtype="f8")
    got = np.zeros(16, dtype="f8")
    old = np.zeros(1, dtype="i8")
    one = np.ones(1, dtype="i8")
    nput = 0

    def put(k):
        win.Lock(1, MPI.LOCK_EXCLUSIVE)
        win.Put(x + k, 1)
        win.Unlock(1)

    def get(k):
        win.Lock(1, MPI.LOCK_SHARED)
        win.Get(got, 1)
        win.Unlock(1)
        if got[15] != 16 + nput or got[0] != 1 + nput:
            fail(f"{flavor}.get16 read {got[0]}..{got[15]}")

    def acc(k):
        win.Lock(1, MPI.LOCK_SHARED)
        win.Accumulate(x, 1, op=MPI.SUM)
        win.Unlock(1)

    def fop(k):
        win.Lock(1, MPI.LOCK_EXCLUSIVE)
        win.Fetch_and_op(one, old, 1, 0, MPI.SUM)
        win.Unlock(1)
        if old[0] != k - 1:
            fail(f"{flavor}.fop fetched {old[0]}, want {k - 1}")

    def phase(name, step):
        """Rank 0 runs the row; every rank learns its count."""
        world.Barrier()
        n = timed(f"{flavor}.{name}", step) if me == 0 else 0
        n = world.bcast(n, root=0)
        world.Barrier()
        return n

    nput = phase("put16", put)
    if me == 1 and not np.array_equal(mem, x + nput):
        fail(f"{flavor}.put16 left {mem[0]}..{mem[15]}")
    phase("get16", get)
    if me == 1:
        mem[:] = 0
    n = phase("acc16", acc)
    if me == 1 and not np.array_equal(mem, x * n):
        fail(f"{flavor}.acc16 left {mem[0]}..{mem[15]}, want {n} times")
    if me == 1:
        mem[:] = 0
    n = phase("fop", fop)
    if me == 1 and mem.view("i8")[0] != n:
        fail(f"{flavor}.fop total {mem.view('i8')[0]}, want {n}")


def main():
    if world.Get_size() < 2:
        print("py_bench: FAIL needs 2 ranks", flush=True)
        return 1
    for flavor, win, mem in windows():
        bench(flavor, win, mem)
    if me == 0:
        print("py_bench: done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
