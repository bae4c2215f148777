#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""py_rma: MPI one-sided communication from Python (Debian's mpi4py) on
mpirma's layer, every result checked.

Every window flavor (Create, Allocate, Allocate_shared on the ranks that
share memory, Create_dynamic with an attached NumPy array) on every
communicator shape (COMM_WORLD, COMM_SELF, the ranks of one node, a
duplicate, an odd/even split, the world reversed), and on each: Put under
fence, Accumulate under fence, a PSCW epoch with the neighbours,
Fetch_and_op and Compare_and_swap under Lock_all with Flush, Get_accumulate
under an exclusive Lock, and the request-based Rput, Rget, Raccumulate and
Rget_accumulate.  NumPy arrays are the buffers throughout.

Prints "py_rma: N ranks, C checks, F failed" from rank 0 and exits 1 when
a check failed on any rank.  mpi4py on Open MPI alone turns its RMA off
(MPI.Win.Create on COMM_SELF fails in its check), so this program is for
the layer: run it with libmpirma-openmpi.so preloaded.
"""
import sys

import numpy as np
from mpi4py import MPI

N = 8
world = MPI.COMM_WORLD
me = world.Get_rank()
fails = 0
checks = 0


def check(ok, what):
    global fails, checks
    checks += 1
    if not ok:
        fails += 1
        print(f"py_rma: FAIL {what} on rank {me}", flush=True)


def shapes():
    """(name, communicator, free it after) for every shape tested."""
    yield "world", world, False
    yield "self", MPI.COMM_SELF, False
    # at several logical nodes, windows of mpirma's node alone
    yield "node", world.Split_type(MPI.COMM_TYPE_SHARED), True
    yield "dup", world.Dup(), True
    yield "split", world.Split(me % 2, me), True
    yield "reversed", world.Split(0, -me), True


def own_memory(win):
    """An allocated window's memory as int64 elements, zeroed."""
    buf = np.frombuffer(win.tomemory(), dtype="i8")
    buf[:] = 0
    return buf


def windows(comm):
    """(name, window's communicator, window, local array, per rank the
    byte address of element 0 for a dynamic window, else None).  The
    shared window is made on the ranks of comm that share memory, as the
    standard asks (on a node of several, that is all of comm)."""
    buf = np.zeros(N, dtype="i8")
    win = MPI.Win.Create(buf, disp_unit=8, comm=comm)
    yield "create", comm, win, buf, None
    win.Free()

    win = MPI.Win.Allocate(N * 8, disp_unit=8, comm=comm)
    yield "allocate", comm, win, own_memory(win), None
    win.Free()

    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    win = MPI.Win.Allocate_shared(N * 8, disp_unit=8, comm=node)
    yield "shared", node, win, own_memory(win), None
    win.Free()
    node.Free()

    win = MPI.Win.Create_dynamic(comm=comm)
    buf = np.zeros(N, dtype="i8")
    win.Attach(buf)
    # A dynamic window's displacements are addresses, in bytes.
    yield "dynamic", comm, win, buf, comm.allgather(MPI.Get_address(buf))
    comm.Barrier()
    win.Detach(buf)
    win.Free()


def exercise(tag, comm, win, buf, base):
    r, k = comm.Get_rank(), comm.Get_size()
    right, left = (r + 1) % k, (r - 1) % k

    def disp(t, i):
        """Element i of rank t: an index (disp_unit 8), or an address."""
        return i if base is None else base[t] + 8 * i

    def spec(t, i):
        return (disp(t, i), 1, MPI.INT64_T)

    one = np.ones(1, dtype="i8")

    # Fence: each rank puts r + 1 into its right neighbour's element 0,
    # and every rank adds 1 to rank 0's element 1.
    win.Fence()
    win.Put(np.array([r + 1], dtype="i8"), right, spec(right, 0))
    win.Accumulate(one, 0, spec(0, 1), MPI.SUM)
    win.Fence()
    check(buf[0] == left + 1, f"{tag}: put under fence")
    if r == 0:
        check(buf[1] == k, f"{tag}: accumulate under fence")
    win.Fence()

    # PSCW with both neighbours: write r + 100 into the right one's
    # element 2.
    grp = comm.Get_group()
    nb = grp.Incl(sorted({left, right}))
    win.Post(nb)
    win.Start(nb)
    win.Put(np.array([r + 100], dtype="i8"), right, spec(right, 2))
    win.Complete()
    win.Wait()
    check(buf[2] == left + 100, f"{tag}: put in a PSCW epoch")
    nb.Free()
    grp.Free()
    comm.Barrier()

    # Passive target: fetch_and_op on rank 0's element 3 from everyone,
    # a CAS race for element 4, get_accumulate under an exclusive lock.
    win.Lock_all()
    old = np.zeros(1, dtype="i8")
    win.Fetch_and_op(np.array([r + 1], dtype="i8"), old, 0, disp(0, 3))
    win.Flush(0)
    check(0 <= old[0] <= k * (k + 1) // 2, f"{tag}: fetch_and_op old value")
    res = np.zeros(1, dtype="i8")
    win.Compare_and_swap(np.array([r + 1], dtype="i8"),
                         np.zeros(1, dtype="i8"), res, 0, disp(0, 4))
    win.Flush_all()
    win.Unlock_all()
    comm.Barrier()
    if r == 0:
        check(buf[3] == k * (k + 1) // 2, f"{tag}: fetch_and_op total")
        check(1 <= buf[4] <= k, f"{tag}: one compare_and_swap won")
    comm.Barrier()
    win.Lock(0, MPI.LOCK_EXCLUSIVE)
    got = np.zeros(1, dtype="i8")
    win.Get_accumulate(one, got, 0, spec(0, 5), MPI.SUM)
    win.Unlock(0)
    check(0 <= got[0] < k, f"{tag}: get_accumulate old value")
    comm.Barrier()
    if r == 0:
        check(buf[5] == k, f"{tag}: get_accumulate total")

    # Request-based operations in a lock_all epoch.
    comm.Barrier()
    win.Lock_all()
    reqs = [win.Rput(np.array([r + 7], dtype="i8"), right, spec(right, 6)),
            win.Raccumulate(one, 0, spec(0, 7), MPI.SUM)]
    MPI.Request.Waitall(reqs)
    win.Flush_all()
    win.Unlock_all()
    comm.Barrier()
    win.Lock_all()
    peer = np.zeros(1, dtype="i8")
    acc = np.zeros(1, dtype="i8")
    reqs = [win.Rget(peer, right, spec(right, 6)),
            win.Rget_accumulate(np.zeros(1, dtype="i8"), acc, 0,
                                spec(0, 7), MPI.NO_OP)]
    MPI.Request.Waitall(reqs)
    win.Unlock_all()
    check(peer[0] == r + 7, f"{tag}: rput then rget")
    check(acc[0] == k, f"{tag}: raccumulate then rget_accumulate")
    comm.Barrier()


def main():
    for sname, comm, free in shapes():
        for wname, wcomm, win, buf, base in windows(comm):
            try:
                exercise(f"{sname}/{wname}", wcomm, win, buf, base)
            except MPI.Exception as e:
                print(f"py_rma: FAIL {sname}/{wname}: {e.Get_error_string()}",
                      flush=True)
                raise
        if free:
            comm.Free()
    total = world.allreduce(fails)
    count = world.allreduce(checks)
    if me == 0:
        print(f"py_rma: {world.Get_size()} ranks, {count} checks, "
              f"{total} failed", flush=True)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
