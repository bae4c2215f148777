// SPDX-License-Identifier: GPL-2.0
/*
 * xnode: RMA between every pair of ranks, with exact checks: the program
 * of the two-VM check (tools/vm-2node), where half the ranks are on the
 * other machine, and of the MPI-level suite.  Standard MPI only, so the
 * same source builds with mpirma's, Open MPI's and MPICH's mpicc.
 *
 * For each window flavor (MPI_Win_create on user memory, MPI_Win_allocate),
 * first on windows of the whole job, then on windows of each node's ranks
 * (MPI_COMM_TYPE_SHARED):
 *   put       fence epoch: every rank puts its stamp into its slot of every
 *             rank; each checks all slots
 *   get       fence epoch: every rank gets every rank's slots back
 *   acc       passive target (lock_all, flush): every rank adds 1..ITERS
 *             to one counter on every rank; the totals are exact
 *   fop       fetch_and_op(+1) on rank 0: the fetched values of all ranks
 *             are a permutation of 0..size*ITERS-1
 *   excl      read-modify-write (get, flush, put) under MPI_LOCK_EXCLUSIVE:
 *             no increment is lost only if the lock excludes
 *
 * Usage: xnode [-i ITERS] [-k RANK] [-m]
 *   -i ITERS  operations per rank and target in acc, fop and excl (default 20)
 *   -k RANK   that rank kills itself with SIGKILL in the middle of the
 *             first fence epoch, after its puts: the job must end (the
 *             launcher's doing) instead of hanging
 *   -m        the node windows must be mpirma's (the hybrid layer preloaded:
 *             their info has the mpirma_atomicity key); fail otherwise
 * Prints one "ok" line per check and, from rank 0, the nodes the ranks
 * run on; exits 1 after the first wrong value.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define SLOT_INTS	4	/* ints each rank owns in every window */

enum {
	W_COUNT,		/* acc: sum of the increments */
	W_FOP,			/* fop: next ticket */
	W_EXCL,			/* excl: incremented under the lock */
	W_SPARE,
	W_HDR			/* then the slots: 16-byte aligned */
};

/* The communicator of the windows being tested (the job, then one node's
 * ranks), this rank in it, its size; wrank: the rank in comm. */
static MPI_Comm comm;
static int rank, size, wrank, iters = 20, kill_rank = -1, want_mpirma;

static void fail(const char *what, int at, long got, long want)
{
	fprintf(stderr, "xnode: rank %d: %s: element %d is %ld, expected %ld\n",
		wrank, what, at, got, want);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void ok(const char *flavor, const char *what)
{
	MPI_Barrier(comm);
	if (rank == 0)
		printf("ok %s %s\n", flavor, what);
	fflush(stdout);
}

static int stamp(int origin, int i)
{
	return origin * 1000 + i + 1;
}

/* put and get: every rank's SLOT_INTS stamps in every rank's window. */
static void put_get(MPI_Win win, int *base, const char *flavor)
{
	int src[SLOT_INTS], *back, t, i;

	for (i = 0; i < SLOT_INTS; i++)
		src[i] = stamp(rank, i);
	MPI_Win_fence(0, win);
	for (t = 0; t < size; t++)
		MPI_Put(src, SLOT_INTS, MPI_INT, t, W_HDR + rank * SLOT_INTS, SLOT_INTS,
			MPI_INT, win);
	if (wrank == kill_rank && comm == MPI_COMM_WORLD) {
		const char *mark = getenv("XNODE_KILL_MARK");

		/* A launcher may drop the victim's last output: leave a mark. */
		if (mark)
			fclose(fopen(mark, "w"));
		printf("xnode: rank %d kills itself\n", wrank);
		fflush(stdout);
		/* Let the others block in the fence first. */
		usleep(300000);
		raise(SIGKILL);
	}
	MPI_Win_fence(0, win);
	for (t = 0; t < size; t++)
		for (i = 0; i < SLOT_INTS; i++)
			if (base[W_HDR + t * SLOT_INTS + i] != stamp(t, i))
				fail("put", W_HDR + t * SLOT_INTS + i,
				     base[W_HDR + t * SLOT_INTS + i], stamp(t, i));
	ok(flavor, "put");

	back = calloc((size_t)size * size * SLOT_INTS, sizeof(int));
	if (!back)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Win_fence(0, win);
	for (t = 0; t < size; t++)
		MPI_Get(back + t * size * SLOT_INTS, size * SLOT_INTS, MPI_INT, t, W_HDR,
			size * SLOT_INTS, MPI_INT, win);
	MPI_Win_fence(0, win);
	for (t = 0; t < size; t++)
		for (i = 0; i < size * SLOT_INTS; i++)
			if (back[t * size * SLOT_INTS + i] != stamp(i / SLOT_INTS, i % SLOT_INTS))
				fail("get", i, back[t * size * SLOT_INTS + i],
				     stamp(i / SLOT_INTS, i % SLOT_INTS));
	free(back);
	ok(flavor, "get");
}

/* acc, fop, excl: passive target, exact totals. */
static void atomics(MPI_Win win, int *base, const char *flavor)
{
	int one = 1, fetched, *all, *seen, *vals, t, i, v, want;

	/* One origin element per value: an origin buffer may not change
	 * before the flush completes the operation. */
	vals = malloc(sizeof(int) * iters);
	if (!vals)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < iters; i++)
		vals[i] = i + 1;
	MPI_Win_lock_all(0, win);
	for (i = 0; i < iters; i++)
		for (t = 0; t < size; t++)
			MPI_Accumulate(&vals[i], 1, MPI_INT, t, W_COUNT, 1, MPI_INT, MPI_SUM,
				       win);
	MPI_Win_flush_all(win);
	MPI_Win_unlock_all(win);
	free(vals);
	MPI_Barrier(comm);
	MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
	want = size * iters * (iters + 1) / 2;
	if (base[W_COUNT] != want)
		fail("acc", W_COUNT, base[W_COUNT], want);
	MPI_Win_unlock(rank, win);
	ok(flavor, "acc");

	all = malloc(sizeof(int) * size * iters);
	seen = calloc((size_t)size * iters, 1);
	if (!all || !seen)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < iters; i++) {
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		MPI_Fetch_and_op(&one, &fetched, MPI_INT, 0, W_FOP, MPI_SUM, win);
		MPI_Win_unlock(0, win);
		all[i] = fetched;
	}
	MPI_Gather(rank ? all : MPI_IN_PLACE, iters, MPI_INT, all, iters, MPI_INT, 0,
		   comm);
	if (rank == 0) {
		for (i = 0; i < size * iters; i++) {
			v = all[i];
			if (v < 0 || v >= size * iters || ((char *)seen)[v])
				fail("fop (ticket twice or out of range)", i, v, -1);
			((char *)seen)[v] = 1;
		}
	}
	free(all);
	free(seen);
	ok(flavor, "fop");

	for (i = 0; i < iters; i++) {
		t = (rank + i) % size;
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
		MPI_Get(&v, 1, MPI_INT, t, W_EXCL, 1, MPI_INT, win);
		MPI_Win_flush(t, win);
		v++;
		MPI_Put(&v, 1, MPI_INT, t, W_EXCL, 1, MPI_INT, win);
		MPI_Win_unlock(t, win);
	}
	MPI_Barrier(comm);
	MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
	/* Target t gets one increment from each rank per round that reaches it. */
	want = 0;
	for (t = 0; t < size; t++)
		for (i = 0; i < iters; i++)
			want += (t + i) % size == rank;
	if (base[W_EXCL] != want)
		fail("excl", W_EXCL, base[W_EXCL], want);
	MPI_Win_unlock(rank, win);
	ok(flavor, "excl");
}

/* -m: the hybrid layer says through the window's info who serves it. */
static void check_mpirma(MPI_Win win, const char *flavor)
{
	char v[MPI_MAX_INFO_VAL + 1] = "";
	MPI_Info info;
	int flag = 0;

	MPI_Win_get_info(win, &info);
	MPI_Info_get(info, "mpirma_atomicity", MPI_MAX_INFO_VAL, v, &flag);
	MPI_Info_free(&info);
	if (!flag) {
		fprintf(stderr, "xnode: rank %d: %s: window not served by mpirma\n", wrank,
			flavor);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (rank == 0)
		printf("xnode: %s window served by mpirma (atomicity %s)\n", flavor, v);
}

static void one_flavor(int allocate, const char *scope)
{
	char flavor[32];
	/* A multiple of 16 bytes: MPICH 4.0.2 puts RMA to rank k at the wrong
	 * offset in windows of other sizes (docs: semantics notes). */
	MPI_Aint bytes = (MPI_Aint)(W_HDR + size * SLOT_INTS) * sizeof(int);
	int *base = NULL;
	MPI_Win win;

	snprintf(flavor, sizeof(flavor), "%s %s", scope, allocate ? "allocate" : "create");
	if (allocate) {
		MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, comm, &base,
				 &win);
	} else {
		MPI_Alloc_mem(bytes, MPI_INFO_NULL, &base);
		MPI_Win_create(base, bytes, sizeof(int), MPI_INFO_NULL, comm,
			       &win);
	}
	if (want_mpirma && comm != MPI_COMM_WORLD)
		check_mpirma(win, flavor);
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
	memset(base, 0, bytes);
	MPI_Win_unlock(rank, win);
	MPI_Barrier(comm);

	put_get(win, base, flavor);
	atomics(win, base, flavor);

	MPI_Win_free(&win);
	if (!allocate)
		MPI_Free_mem(base);
}

/* Rank 0 prints the distinct processor names, in rank order. */
static void show_nodes(void)
{
	char name[MPI_MAX_PROCESSOR_NAME] = "", *all = NULL;
	int len, i, j, dup, nodes = 0;

	MPI_Get_processor_name(name, &len);
	if (rank == 0)
		all = calloc(size, MPI_MAX_PROCESSOR_NAME);
	MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME,
		   MPI_CHAR, 0, MPI_COMM_WORLD);
	if (rank != 0)
		return;
	printf("xnode: %d ranks on", size);
	for (i = 0; i < size; i++) {
		for (dup = 0, j = 0; j < i; j++)
			dup |= !strcmp(all + i * MPI_MAX_PROCESSOR_NAME,
				       all + j * MPI_MAX_PROCESSOR_NAME);
		if (!dup) {
			printf(" %s", all + i * MPI_MAX_PROCESSOR_NAME);
			nodes++;
		}
	}
	printf(" (%d node%s)\n", nodes, nodes == 1 ? "" : "s");
	fflush(stdout);
	free(all);
}

int main(int argc, char **argv)
{
	int opt;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	rank = wrank;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "i:k:m")) != -1) {
		switch (opt) {
		case 'i':
			iters = atoi(optarg);
			break;
		case 'k':
			kill_rank = atoi(optarg);
			break;
		case 'm':
			want_mpirma = 1;
			break;
		default:
			if (rank == 0)
				fprintf(stderr, "usage: xnode [-i ITERS] [-k RANK] [-m]\n");
			MPI_Finalize();
			return 2;
		}
	}
	if (iters < 1 || iters > 100000) {
		if (rank == 0)
			fprintf(stderr, "xnode: -i wants 1..100000\n");
		MPI_Finalize();
		return 2;
	}
	show_nodes();
	comm = MPI_COMM_WORLD;
	one_flavor(0, "job");
	one_flavor(1, "job");
	/* Windows of one node's ranks: what a hybrid program keeps on a node,
	 * and what the hybrid layer serves through the module there. */
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &comm);
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	one_flavor(0, "node");
	one_flavor(1, "node");
	MPI_Comm_free(&comm);
	MPI_Finalize();
	return 0;
}
