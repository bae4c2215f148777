// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll_neighbor.c - the neighborhood collectives: MPI_Neighbor_allgather,
 * _allgatherv, _alltoall, _alltoallv, _alltoallw, blocking, nonblocking
 * (MPI_Ineighbor_...) and persistent (MPI_Neighbor_..._init), on a
 * communicator with a topology (lib/runtime/topo.h,
 * mpirma_topo_neighbors(): whom, in which order).
 *
 * Each is one round of a schedule (nbc.h): a message to every destination,
 * one from every source, MPI_PROC_NULL neighbours skipped (their blocks
 * stay untouched).  The blocking forms run the schedule to its end.
 *
 * Several edges between two ranks (a graph that lists a neighbour twice,
 * a periodic dimension of 1 or 2 ranks) all carry the call's tag: the
 * k-th message a rank sends to a neighbour is the k-th it receives from
 * it (nbc.c takes a round's receives from one peer in order).  For a
 * graph that is the standard's rule.  For a Cartesian topology the block
 * received from the -1 neighbour is the one that neighbour sent in the +1
 * direction, and the other way round: so per dimension the +1 block is
 * sent before the -1 block, while the -1 block is received first.
 */
#include <stdlib.h>

#include "runtime.h"
#include "coll_msg.h"
#include "datatype.h"
#include "nbc.h"
#include "topo.h"

/**
 * struct nside - one side (send or receive) of a neighborhood collective
 * @buf: the buffer
 * @count, @dt: each block: @count of @dt at i * @count extents, unless:
 * @v: the -v form: @counts[i] of @dt at @displs[i] extents
 * @w: the -w form: @counts[i] of @dts[i] at @bdispls[i] bytes
 * @same: allgather's send side: the one block to every neighbour
 * @t, @ts: @dt, @dts checked
 */
struct nside {
	char *buf;
	int count;
	MPI_Datatype dt;
	bool v, w;
	const int *counts, *displs;
	const MPI_Datatype *dts;
	const MPI_Aint *bdispls;
	bool same;
	struct mpirma_dtype *t, **ts;
};

/* Block @i of @sd: its address, count and datatype. */
static void block(const struct nside *sd, int i, char **p, int *n,
		  struct mpirma_dtype **t)
{
	if (sd->w) {
		*p = at(sd->buf, sd->bdispls[i]);
		*n = sd->counts[i];
		*t = sd->ts[i];
		return;
	}
	*t = sd->t;
	*n = block_count(sd->count, sd->v ? sd->counts : NULL, i);
	*p = sd->same ? sd->buf :
	     block_at(sd->buf, mpirma_dtype_extent(sd->t), sd->count,
		      sd->v ? sd->counts : NULL, sd->displs, i);
}

/* @sd's arguments for @n neighbours (@what: "send", "receive").  MPI class. */
static int side_check(struct nside *sd, int n, const char *what)
{
	int i, ret = MPI_SUCCESS;

	if (!sd->v && !sd->w)
		return mpirma_buf_check(sd->count, sd->dt, &sd->t);
	if (n && (!sd->counts || (sd->w ? !sd->bdispls : !sd->displs)))
		return mpirma_err(MPI_ERR_ARG, "the %s counts or displacements "
				  "array is NULL", what);
	if (n && sd->w && !sd->dts)
		return mpirma_err(MPI_ERR_ARG, "the %s datatypes array is NULL",
				  what);
	for (i = 0; i < n; i++)
		if (sd->counts[i] < 0)
			return mpirma_err(MPI_ERR_COUNT, "negative %s count %d "
					  "for neighbour %d", what,
					  sd->counts[i], i);
	if (!sd->w)
		return mpirma_dtype_check(sd->dt, true, &sd->t);
	sd->ts = calloc(n > 0 ? (size_t)n : 1, sizeof(*sd->ts));
	if (!sd->ts)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; !ret && i < n; i++)
		ret = mpirma_dtype_check(sd->dts[i], true, &sd->ts[i]);
	return ret;
}

/* The schedule: every send, then every receive, in one round. */
static int schedule(struct mpirma_comm *c, const struct nside *sd,
		    const struct nside *rd, int nin, int nout,
		    const int *nb, MPI_Request *request)
{
	bool cart = c->topo->kind == MPI_CART;
	struct mpirma_dtype *t;
	struct mpirma_nbc *s;
	int i, k, n, ret;
	char *p;

	ret = mpirma_nbc_new(c, &s);
	if (ret)
		return ret;
	for (k = 0; k < nout; k++) {
		i = cart ? k ^ 1 : k;	/* +1 before -1: see the top */
		if (nb[nin + i] == MPI_PROC_NULL)
			continue;
		block(sd, i, &p, &n, &t);
		mpirma_nbc_send(s, nb[nin + i], p, n, t);
	}
	for (i = 0; i < nin; i++) {
		if (nb[i] == MPI_PROC_NULL)
			continue;
		block(rd, i, &p, &n, &t);
		mpirma_nbc_recv(s, nb[i], p, n, t);
	}
	return mpirma_nbc_start(s, request);
}

/*
 * Every neighborhood collective: the checks, then its schedule started,
 * kept (persistent) or, without @request, run to its end.
 */
static int neighbor(MPI_Comm comm, struct nside *sd, struct nside *rd,
		    MPI_Request *request)
{
	int nin = 0, nout = 0, *nb = NULL, ret;
	struct mpirma_comm *c;

	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = mpirma_topo_neighbors(c, &nin, &nout, &nb);
	if (!ret && sd->buf == MPI_IN_PLACE)
		ret = mpirma_err(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed "
				 "in a neighborhood collective");
	if (!ret)
		ret = side_check(rd, nin, "receive");
	if (!ret)
		ret = side_check(sd, nout, "send");
	if (!ret)
		ret = schedule(c, sd, rd, nin, nout, nb, request);
	free(nb);
	free(sd->ts);
	free(rd->ts);
	return ret;
}

/* Allgather(v): one send block for all; @rcounts NULL: the fixed form. */
static int allgather_body(const void *sendbuf, int scount, MPI_Datatype sdt,
			  void *recvbuf, int rcount, const int *rcounts,
			  const int *displs, MPI_Datatype rdt, bool v,
			  MPI_Comm comm, MPI_Request *request)
{
	struct nside sd = { .buf = (char *)sendbuf, .count = scount,
			    .dt = sdt, .same = true };
	struct nside rd = { .buf = recvbuf, .count = rcount, .dt = rdt,
			    .v = v, .counts = rcounts, .displs = displs };

	return neighbor(comm, &sd, &rd, request);
}

static int alltoall_body(const void *sendbuf, int scount, const int *scounts,
			 const int *sdispls, MPI_Datatype sdt, void *recvbuf,
			 int rcount, const int *rcounts, const int *rdispls,
			 MPI_Datatype rdt, bool v, MPI_Comm comm,
			 MPI_Request *request)
{
	struct nside sd = { .buf = (char *)sendbuf, .count = scount,
			    .dt = sdt, .v = v, .counts = scounts,
			    .displs = sdispls };
	struct nside rd = { .buf = recvbuf, .count = rcount, .dt = rdt,
			    .v = v, .counts = rcounts, .displs = rdispls };

	return neighbor(comm, &sd, &rd, request);
}

static int alltoallw_body(const void *sendbuf, const int *scounts,
			  const MPI_Aint *sdispls, const MPI_Datatype *sdts,
			  void *recvbuf, const int *rcounts,
			  const MPI_Aint *rdispls, const MPI_Datatype *rdts,
			  MPI_Comm comm, MPI_Request *request)
{
	struct nside sd = { .buf = (char *)sendbuf, .w = true,
			    .counts = scounts, .bdispls = sdispls,
			    .dts = sdts };
	struct nside rd = { .buf = recvbuf, .w = true, .counts = rcounts,
			    .bdispls = rdispls, .dts = rdts };

	return neighbor(comm, &sd, &rd, request);
}

/* The blocking, nonblocking and persistent forms of each (nbc.h). */
#define NEIGHBOR_FORMS MPIRMA_COLL_FORMS

NEIGHBOR_FORMS(Neighbor_allgather, Ineighbor_allgather, allgather_body,
	       (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, int recvcount, MPI_Datatype recvtype,
		MPI_Comm comm),
	       (sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
		recvtype, false, comm))

NEIGHBOR_FORMS(Neighbor_allgatherv, Ineighbor_allgatherv, allgather_body,
	       (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, const int recvcounts[], const int displs[],
		MPI_Datatype recvtype, MPI_Comm comm),
	       (sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
		recvtype, true, comm))

NEIGHBOR_FORMS(Neighbor_alltoall, Ineighbor_alltoall, alltoall_body,
	       (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, int recvcount, MPI_Datatype recvtype,
		MPI_Comm comm),
	       (sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
		NULL, NULL, recvtype, false, comm))

NEIGHBOR_FORMS(Neighbor_alltoallv, Ineighbor_alltoallv, alltoall_body,
	       (const void *sendbuf, const int sendcounts[],
		const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		const int recvcounts[], const int rdispls[],
		MPI_Datatype recvtype, MPI_Comm comm),
	       (sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
		recvcounts, rdispls, recvtype, true, comm))

NEIGHBOR_FORMS(Neighbor_alltoallw, Ineighbor_alltoallw, alltoallw_body,
	       (const void *sendbuf, const int sendcounts[],
		const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
		void *recvbuf, const int recvcounts[],
		const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
		MPI_Comm comm),
	       (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
		rdispls, recvtypes, comm))
