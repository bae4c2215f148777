// SPDX-License-Identifier: GPL-2.0
/*
 * The nbc test's neighborhood collectives: MPI_Neighbor_allgather(v) and
 * _alltoall(v/w), blocking, nonblocking and persistent (started twice),
 * on a periodic ring (of 1 or 2 ranks: one neighbour in both directions),
 * a grid (MPI_PROC_NULL neighbours, whose blocks stay untouched), a graph
 * and a distributed graph with several edges between two ranks; every
 * result checked bit for bit against what this file computes from the
 * topology on its own.  And the errors: no topology, MPI_IN_PLACE, a
 * negative count, a NULL counts array.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"
#include "nbc_test.h"

#define W	MPI_COMM_WORLD
#define MAXD	4	/* the largest degree here */
#define NMAX	300	/* the largest count */
#define BUFD	(MAXD * (2 * NMAX + 8))	/* doubles a buffer holds */

enum { RING, GRID, GRAPH, DIST, NTOPO };
enum { AG, AGV, A2A, A2AV, A2AW, NOPS };

static const char *const topo_names[] = {
	"periodic ring", "grid", "graph", "distributed graph",
};
static const char *const op_names[] = {
	"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
};
static const int sizes[] = { 0, NMAX };	/* -v and -w add 0 to 2 */

static int dims[2];
static double in[BUFD], out[BUFD], want[BUFD];
static MPI_Datatype every2nd;

/*
 * @rank's sources and destinations in topology @k, in the standard's
 * order, as this test builds them.
 */
static void lists(int k, int rank, int *nin, int *src, int *nout, int *dst)
{
	int p = mtest_size, row, col;

	*nin = 2;
	if (k == RING) {
		src[0] = (rank + p - 1) % p;
		src[1] = (rank + 1) % p;
	} else if (k == GRID) {
		row = rank / dims[1];
		col = rank % dims[1];
		src[0] = row > 0 ? rank - dims[1] : MPI_PROC_NULL;
		src[1] = row < dims[0] - 1 ? rank + dims[1] : MPI_PROC_NULL;
		src[2] = col > 0 ? rank - 1 : MPI_PROC_NULL;
		src[3] = col < dims[1] - 1 ? rank + 1 : MPI_PROC_NULL;
		*nin = 4;
	} else if (k == GRAPH) {
		src[0] = (rank + 1) % p;
		src[1] = (rank + p - 1) % p;
	} else {
		/* r + 1 twice, itself, r + 2; so r - 1 twice, r - 2, r */
		*nin = *nout = 4;
		src[0] = (rank + p - 1) % p;
		src[1] = (rank + 2 * p - 2) % p;
		src[2] = rank;
		src[3] = src[0];
		dst[0] = dst[1] = (rank + 1) % p;
		dst[2] = rank;
		dst[3] = (rank + 2) % p;
		return;
	}
	*nout = *nin;
	memcpy(dst, src, *nin * sizeof(int));
}

/*
 * The block of source src[@i] that rank @r receives in slot @i: on a
 * Cartesian grid, the one sent the other way along the dimension; on a
 * graph, the k-th edge to @r of the k-th edge from it.
 */
static int match(int k, int r, int i, const int *src)
{
	int nin, nout, qs[MAXD], qd[MAXD], j, m = 0;

	if (k == RING || k == GRID)
		return i ^ 1;
	for (j = 0; j < i; j++)
		m += src[j] == src[i];
	lists(k, src[i], &nin, qs, &nout, qd);
	for (j = 0; j < nout; j++)
		if (qd[j] == r && m-- == 0)
			return j;
	return -1;
}

static double val(int rank, int block, int e)
{
	return rank * 100000 + block * 1000 + e + 0.25;
}

/**
 * struct lay - one rank's arguments of one call
 * @scnt, @sdsp: send counts, displacements (doubles); @sbd in bytes
 * @rcnt, @rdsp: receive counts, displacements (elements); @rbd in bytes
 * @st, @rt: the -w form's datatypes; @rstride: doubles between elements
 */
struct lay {
	int nin, nout, src[MAXD], dst[MAXD];
	int scnt[MAXD], sdsp[MAXD], rcnt[MAXD], rdsp[MAXD], rstride[MAXD];
	MPI_Aint sbd[MAXD], rbd[MAXD];
	MPI_Datatype st[MAXD], rt[MAXD];
};

/* Elements on the edge @a -> @b of a call of @op with @n. */
static int edge_count(int op, int n, int a, int b)
{
	if (a == MPI_PROC_NULL || (op != AGV && b == MPI_PROC_NULL))
		return n;
	return op == AGV ? n + a % 2 :
	       op == A2AV || op == A2AW ? n + (a + b) % 3 : n;
}

/* Lays out the buffers, fills in, and computes want. */
static void prepare(int k, int op, int n, struct lay *L)
{
	int me = mtest_rank, i, j, e, off, gap = op != AG && op != A2A;

	lists(k, me, &L->nin, L->src, &L->nout, L->dst);
	memset(in, 0, sizeof(in));
	for (j = 0, off = 0; j < L->nout; j++) {
		L->scnt[j] = edge_count(op, n, me, L->dst[j]);
		L->sdsp[j] = op <= AGV ? 0 : off;
		L->sbd[j] = L->sdsp[j] * (MPI_Aint)sizeof(double);
		L->st[j] = MPI_DOUBLE;
		for (e = 0; e < L->scnt[j]; e++)
			in[L->sdsp[j] + e] = val(me, op <= AGV ? 0 : j, e);
		off += L->scnt[j] + gap;
	}
	memset(want, 0x5a, sizeof(want));
	for (i = 0, off = 0; i < L->nin; i++) {
		int q = L->src[i], c = edge_count(op, n, q, me);

		L->rcnt[i] = c;
		L->rstride[i] = op == A2AW && i % 2 ? 2 : 1;
		L->rt[i] = L->rstride[i] == 2 ? every2nd : MPI_DOUBLE;
		L->rdsp[i] = off;
		L->rbd[i] = off * (MPI_Aint)sizeof(double);
		off += c * L->rstride[i] + gap;
		if (q == MPI_PROC_NULL)
			continue;
		j = op <= AGV ? 0 : match(k, me, i, L->src);
		for (e = 0; e < c; e++)
			want[L->rdsp[i] + e * L->rstride[i]] = val(q, j, e);
	}
}

static int call(int op, int n, MPI_Comm comm, struct lay *L,
		MPI_Request *req)
{
	switch (op) {
	case AG:
		return NBS(Neighbor_allgather, Ineighbor_allgather, in, n,
			   MPI_DOUBLE, out, n, MPI_DOUBLE, comm);
	case AGV:
		return NBS(Neighbor_allgatherv, Ineighbor_allgatherv, in,
			   L->scnt[0], MPI_DOUBLE, out, L->rcnt, L->rdsp,
			   MPI_DOUBLE, comm);
	case A2A:
		return NBS(Neighbor_alltoall, Ineighbor_alltoall, in, n,
			   MPI_DOUBLE, out, n, MPI_DOUBLE, comm);
	case A2AV:
		return NBS(Neighbor_alltoallv, Ineighbor_alltoallv, in,
			   L->scnt, L->sdsp, MPI_DOUBLE, out, L->rcnt,
			   L->rdsp, MPI_DOUBLE, comm);
	default:
		return NBS(Neighbor_alltoallw, Ineighbor_alltoallw, in,
			   L->scnt, L->sbd, L->st, out, L->rcnt, L->rbd,
			   L->rt, comm);
	}
}

/* Every op at every size in the four forms on @comm of topology @k. */
static void run_all(int k, MPI_Comm comm)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int op, s, form;
	struct lay L;

	mtest_section(topo_names[k]);
	for (op = 0; op < NOPS; op++)
		for (s = 0; s < (int)(sizeof(sizes) / sizeof(sizes[0])); s++) {
			prepare(k, op, sizes[s], &L);
			for (form = 0; form < 4; form++) {
				nbc_persist = form >= 2;
				memset(out, 0x5a, sizeof(out));
				CHECK_MPI(call(op, sizes[s], comm, &L,
					       form ? &req : NULL));
				if (form)
					nbc_complete(&req);
				CHECK(!memcmp(out, want, sizeof(out)),
				      "neighbor %s of %d on a %s, form %d: "
				      "wrong result", op_names[op], sizes[s],
				      topo_names[k], form);
			}
			CHECK_MPI(MPI_Request_free(&req));
			nbc_persist = false;
		}
}

static void errors(MPI_Comm ring)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int c[MAXD] = { 1, 1 }, d[MAXD] = { 0, 1 };

	mtest_section("neighbor errors");
	MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Neighbor_allgather(in, 1, MPI_DOUBLE, out, 1,
					   MPI_DOUBLE, W), MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Ineighbor_alltoall(in, 1, MPI_DOUBLE, out, 1,
					   MPI_DOUBLE, W, &req),
		    MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Neighbor_alltoallv_init(in, c, d, MPI_DOUBLE, out, c,
						d, MPI_DOUBLE, W,
						MPI_INFO_NULL, &req),
		    MPI_ERR_TOPOLOGY);
	CHECK_EQ(req, MPI_REQUEST_NULL, "request of a failed call");
	CHECK_CLASS(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_DOUBLE, out, 1,
					  MPI_DOUBLE, ring), MPI_ERR_BUFFER);
	CHECK_CLASS(MPI_Neighbor_allgather(in, -1, MPI_DOUBLE, out, 1,
					   MPI_DOUBLE, ring), MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Ineighbor_allgatherv(in, 1, MPI_DOUBLE, out, NULL, d,
					     MPI_DOUBLE, ring, &req),
		    MPI_ERR_ARG);
	c[1] = -2;
	CHECK_CLASS(MPI_Neighbor_alltoallv(in, c, d, MPI_DOUBLE, out, c, d,
					   MPI_DOUBLE, ring), MPI_ERR_COUNT);
	MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);
}

void test_neighbor(void)
{
	int p = mtest_size, me = mtest_rank, i;
	int periods[2] = { 1, 0 }, index[64], edges[128];
	int nin, nout, src[MAXD], dst[MAXD];
	MPI_Comm comm[NTOPO];

	MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &every2nd);
	MPI_Type_commit(&every2nd);
	CHECK_MPI(MPI_Cart_create(W, 1, &p, periods, 0, &comm[RING]));
	CHECK_MPI(MPI_Dims_create(p, 2, dims));
	periods[0] = 0;
	CHECK_MPI(MPI_Cart_create(W, 2, dims, periods, 0, &comm[GRID]));
	for (i = 0; i < p; i++) {
		index[i] = 2 * (i + 1);
		lists(GRAPH, i, &nin, edges + 2 * i, &nout, dst);
	}
	CHECK_MPI(MPI_Graph_create(W, p, index, edges, 0, &comm[GRAPH]));
	lists(DIST, me, &nin, src, &nout, dst);
	CHECK_MPI(MPI_Dist_graph_create_adjacent(W, nin, src, MPI_UNWEIGHTED,
						 nout, dst, MPI_UNWEIGHTED,
						 MPI_INFO_NULL, 0,
						 &comm[DIST]));
	for (i = 0; i < NTOPO; i++)
		run_all(i, comm[i]);
	errors(comm[RING]);
	for (i = 0; i < NTOPO; i++)
		CHECK_MPI(MPI_Comm_free(&comm[i]));
	MPI_Type_free(&every2nd);
}
