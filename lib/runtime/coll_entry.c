// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll_entry.c - the entry points of the collective operations, blocking,
 * nonblocking (MPI_Ibcast...) and persistent (MPI_Bcast_init...): their
 * arguments checked in the order the error classes suggest, once for the
 * three forms, then the algorithm run (lib/runtime/coll.c,
 * mpirma_coll_run_*()) or its schedule started, or made a persistent
 * request (lib/runtime/nbc.h, mpirma_nbc_*()), and the error raised on
 * the communicator in the name of the call.
 */
#include <stdlib.h>

#include "runtime.h"
#include "coll.h"
#include "datatype.h"
#include "nbc.h"
#include "op.h"

/* ------------------------------------------------------------ checks */

/* Count arrays of the -v collectives. */
static int counts_check(const struct mpirma_comm *c, const int *counts,
			const int *displs)
{
	int i;

	if (!counts)
		return mpirma_err(MPI_ERR_ARG, "counts array is NULL");
	for (i = 0; i < mpirma_comm_peer_size(c); i++)
		if (counts[i] < 0)
			return mpirma_err(MPI_ERR_COUNT, "negative count %d for "
					  "rank %d", counts[i], i);
	if (!displs)
		return mpirma_err(MPI_ERR_ARG, "displacements array is NULL");
	return MPI_SUCCESS;
}

/* A (counts, displacements, datatype) buffer argument of the -v forms. */
static int vbuf_check(const struct mpirma_comm *c, const int *counts,
		      const int *displs, MPI_Datatype dt, struct mpirma_dtype **t)
{
	int ret = mpirma_dtype_check(dt, true, t);

	if (!ret)
		ret = counts_check(c, counts, displs);
	return ret;
}

/* The communicator of a collective that inter-communicators do not have. */
static int intra_comm_check(MPI_Comm comm, struct mpirma_comm **c)
{
	int ret = mpirma_comm_check(comm, c);

	return ret ? ret : mpirma_comm_intra_only(*c, "this collective");
}

/* Bcast's root: on an inter-communicator MPI_ROOT, MPI_PROC_NULL or remote. */
static int bcast_root_check(const struct mpirma_comm *c, int root)
{
	int n = mpirma_comm_peer_size(c);

	if (c->inter && (root == MPI_ROOT || root == MPI_PROC_NULL))
		return MPI_SUCCESS;
	if (root < 0 || root >= n)
		return mpirma_err(MPI_ERR_ROOT, "root %d not in 0..%d%s", root,
				  n - 1, c->inter ? " (nor MPI_ROOT, "
				  "MPI_PROC_NULL)" : "");
	return MPI_SUCCESS;
}

static int root_check(const struct mpirma_comm *c, int root)
{
	if (root < 0 || root >= c->size)
		return mpirma_err(MPI_ERR_ROOT, "root %d not in 0..%d", root,
				  c->size - 1);
	return MPI_SUCCESS;
}

/*
 * What every rank of Gather(v) and Scatter(v) passes: the root, and its own
 * buffer (@count, @dt), unless @inplace, which only the root may give.
 */
static int rooted_check(const struct mpirma_comm *c, int root, bool inplace,
			int count, MPI_Datatype dt, struct mpirma_dtype **t)
{
	int ret = root_check(c, root);

	if (ret)
		return ret;
	if (inplace && c->rank != root)
		return mpirma_err(MPI_ERR_BUFFER, "MPI_IN_PLACE only at the root");
	return inplace ? MPI_SUCCESS : mpirma_buf_check(count, dt, t);
}

/*
 * The root's side of Gather(v) and Scatter(v): (@count, @dt), or with
 * @counts the -v form's (@counts, @displs, @dt).
 */
static int root_buf_check(const struct mpirma_comm *c, int count,
			  const int *counts, const int *displs,
			  MPI_Datatype dt, struct mpirma_dtype **t)
{
	if (counts)
		return vbuf_check(c, counts, displs, dt, t);
	return mpirma_buf_check(count, dt, t);
}

static int reduce_check(int count, MPI_Datatype dt, MPI_Op op,
			struct mpirma_dtype **t)
{
	int ret = mpirma_buf_check(count, dt, t);

	if (!ret)
		ret = mpirma_op_check(op, dt, MPIRMA_OP_USE_REDUCE);
	return ret;
}

/* ------------------------------------------------------------ API */

/*
 * Each collective has one body: its checks, then the algorithm (coll.c),
 * or with @request its schedule started (nbc.h), or kept in a persistent
 * request when *@request is MPIRMA_NBC_PERSISTENT.  COLL_FORMS() makes the
 * three entry points of a body: PMPI_@name, blocking; PMPI_@iname, which
 * has a request as its last parameter; and PMPI_@name_init, an info and a
 * request (nbc.h).
 */
#define COLL_FORMS MPIRMA_COLL_FORMS

static int barrier_body(MPI_Comm comm, MPI_Request *request)
{
	struct mpirma_comm *c;
	int ret = mpirma_comm_check(comm, &c);

	if (ret)
		return ret;
	return request ? mpirma_nbc_barrier(c, request) :
	       mpirma_coll_barrier(c);
}
COLL_FORMS(Barrier, Ibarrier, barrier_body, (MPI_Comm comm), (comm))

static int bcast_body(void *buffer, int count, MPI_Datatype datatype,
		      int root, MPI_Comm comm, MPI_Request *request)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret = mpirma_comm_check(comm, &c);

	if (!ret)
		ret = mpirma_buf_check(count, datatype, &t);
	if (!ret)
		ret = bcast_root_check(c, root);
	if (ret)
		return ret;
	if (request)
		return mpirma_nbc_bcast(c, buffer, count, t, root, request);
	return mpirma_coll_run_bcast(c, buffer, count, t, root);
}
COLL_FORMS(Bcast, Ibcast, bcast_body,
	   (void *buffer, int count, MPI_Datatype datatype, int root,
	    MPI_Comm comm),
	   (buffer, count, datatype, root, comm))

/*
 * Gather(v) and Scatter(v): mpirma_coll_run_rooted() after the checks, of
 * datatypes @bdt (the root's side) and @odt.  @counts NULL means @count to
 * each at i * count.
 */
static int rooted(MPI_Comm comm, bool gather, void *buf, int count,
		  const int *counts, const int *displs, MPI_Datatype bdt,
		  void *obuf, int ocount, MPI_Datatype odt, int root,
		  MPI_Request *request)
{
	struct mpirma_dtype *bt = NULL, *ot = NULL;
	struct mpirma_comm *c;
	int ret = mpirma_comm_check(comm, &c);

	if (ret)
		return ret;
	if (c->inter) {
		ret = bcast_root_check(c, root);
		if (!ret && root == MPI_ROOT)
			ret = root_buf_check(c, count, counts, displs, bdt,
					     &bt);
		else if (!ret && root != MPI_PROC_NULL)
			ret = mpirma_buf_check(ocount, odt, &ot);
	} else {
		ret = rooted_check(c, root, obuf == MPI_IN_PLACE, ocount, odt,
				   &ot);
		/* The root's side matters at the root only. */
		if (!ret && c->rank == root)
			ret = root_buf_check(c, count, counts, displs, bdt,
					     &bt);
	}
	if (ret)
		return ret;
	if (request)
		return mpirma_nbc_rooted(c, gather, buf, count, counts, displs,
					 bt, obuf, ocount, ot, root, request);
	return mpirma_coll_run_rooted(c, gather, buf, count, counts, displs,
				      bt, obuf, ocount, ot, root);
}

COLL_FORMS(Gather, Igather, rooted,
	   (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	    MPI_Comm comm),
	   (comm, true, recvbuf, recvcount, NULL, NULL, recvtype,
	    (void *)sendbuf, sendcount, sendtype, root))

/*
 * Gatherv and Scatterv: the counts, which only the root reads (NULL
 * there is MPI_ERR_ARG, "@name is NULL"), then rooted().
 */
static int rooted_v(MPI_Comm comm, bool gather, void *buf,
		    const int *counts, const int *displs, MPI_Datatype bdt,
		    void *obuf, int ocount, MPI_Datatype odt, int root,
		    MPI_Request *request)
{
	const char *name = gather ? "recvcounts" : "sendcounts";
	struct mpirma_comm *c;
	int ret = mpirma_comm_check(comm, &c);

	if (ret)
		return ret;
	if (!mpirma_coll_is_root(c, root))
		counts = NULL;
	else if (!counts)
		return mpirma_err(MPI_ERR_ARG, "%s is NULL", name);
	return rooted(comm, gather, buf, 0, counts, displs, bdt, obuf, ocount,
		      odt, root, request);
}

COLL_FORMS(Gatherv, Igatherv, rooted_v,
	   (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	    void *recvbuf, const int recvcounts[], const int displs[],
	    MPI_Datatype recvtype, int root, MPI_Comm comm),
	   (comm, true, recvbuf, recvcounts, displs, recvtype,
	    (void *)sendbuf, sendcount, sendtype, root))

COLL_FORMS(Scatter, Iscatter, rooted,
	   (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	    MPI_Comm comm),
	   (comm, false, (void *)sendbuf, sendcount, NULL, NULL, sendtype,
	    recvbuf, recvcount, recvtype, root))

COLL_FORMS(Scatterv, Iscatterv, rooted_v,
	   (const void *sendbuf, const int sendcounts[], const int displs[],
	    MPI_Datatype sendtype, void *recvbuf, int recvcount,
	    MPI_Datatype recvtype, int root, MPI_Comm comm),
	   (comm, false, (void *)sendbuf, sendcounts, displs, sendtype,
	    recvbuf, recvcount, recvtype, root))

/*
 * Allgather(v): the receive side (@rcount, or with @v @counts and @displs,
 * of @rdt), then the send side unless in place.
 */
static int allgather_body(const void *sendbuf, int scount, MPI_Datatype sdt,
			  void *recvbuf, int rcount, const int *counts,
			  const int *displs, MPI_Datatype rdt, MPI_Comm comm,
			  bool v, MPI_Request *request)
{
	struct mpirma_dtype *st = NULL, *rt;
	struct mpirma_comm *c;
	int ret = mpirma_comm_check(comm, &c);

	if (!ret && v)
		ret = vbuf_check(c, counts, displs, rdt, &rt);
	else if (!ret)
		ret = mpirma_buf_check(rcount, rdt, &rt);
	if (!ret && sendbuf != MPI_IN_PLACE)
		ret = mpirma_buf_check(scount, sdt, &st);
	if (ret)
		return ret;
	if (request)
		return mpirma_nbc_allgatherv(c, sendbuf, scount, st, recvbuf,
					     rcount, counts, displs, rt,
					     request);
	return mpirma_coll_run_allgatherv(c, sendbuf, scount, st, recvbuf,
					  rcount, counts, displs, rt);
}

COLL_FORMS(Allgather, Iallgather, allgather_body,
	   (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	    void *recvbuf, int recvcount, MPI_Datatype recvtype,
	    MPI_Comm comm),
	   (sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
	    recvtype, comm, false))

COLL_FORMS(Allgatherv, Iallgatherv, allgather_body,
	   (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	    void *recvbuf, const int recvcounts[], const int displs[],
	    MPI_Datatype recvtype, MPI_Comm comm),
	   (sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
	    recvtype, comm, true))

/*
 * Alltoall(v): each side (@count, or @counts and @displs), the send side
 * unless in place; @v: the -v form, whose counts NULL is MPI_ERR_ARG.
 */
static int alltoall_body(const void *sendbuf, int scount,
			 const int *scounts, const int *sdispls,
			 MPI_Datatype sdt, void *recvbuf, int rcount,
			 const int *rcounts, const int *rdispls,
			 MPI_Datatype rdt, MPI_Comm comm, bool v,
			 MPI_Request *request)
{
	struct mpirma_dtype *st = NULL, *rt;
	struct mpirma_comm *c;
	int ret = mpirma_comm_check(comm, &c);

	if (!ret && v)
		ret = vbuf_check(c, rcounts, rdispls, rdt, &rt);
	else if (!ret)
		ret = mpirma_buf_check(rcount, rdt, &rt);
	if (!ret && sendbuf != MPI_IN_PLACE && v)
		ret = vbuf_check(c, scounts, sdispls, sdt, &st);
	else if (!ret && sendbuf != MPI_IN_PLACE)
		ret = mpirma_buf_check(scount, sdt, &st);
	if (ret)
		return ret;
	if (request)
		return mpirma_nbc_alltoallv(c, sendbuf, scount, scounts,
					    sdispls, st, recvbuf, rcount,
					    rcounts, rdispls, rt, request);
	return mpirma_coll_run_alltoallv(c, sendbuf, scount, scounts, sdispls,
					 st, recvbuf, rcount, rcounts, rdispls,
					 rt);
}

COLL_FORMS(Alltoall, Ialltoall, alltoall_body,
	   (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	    void *recvbuf, int recvcount, MPI_Datatype recvtype,
	    MPI_Comm comm),
	   (sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
	    NULL, NULL, recvtype, comm, false))

COLL_FORMS(Alltoallv, Ialltoallv, alltoall_body,
	   (const void *sendbuf, const int sendcounts[], const int sdispls[],
	    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
	    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
	   (sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
	    recvcounts, rdispls, recvtype, comm, true))

/*
 * A (counts, byte displacements, datatypes) buffer argument of Alltoallw:
 * each datatype checked into @t[i].
 */
static int wbuf_check(const struct mpirma_comm *c, const int *counts,
		      const int *displs, const MPI_Datatype *dts,
		      struct mpirma_dtype **t)
{
	int i, ret = counts_check(c, counts, displs);

	if (!ret && !dts)
		ret = mpirma_err(MPI_ERR_ARG, "datatypes array is NULL");
	for (i = 0; !ret && i < mpirma_comm_peer_size(c); i++)
		ret = mpirma_dtype_check(dts[i], true, &t[i]);
	return ret;
}

static int alltoallw_body(const void *sendbuf, const int *sendcounts,
			  const int *sdispls, const MPI_Datatype *sendtypes,
			  void *recvbuf, const int *recvcounts,
			  const int *rdispls, const MPI_Datatype *recvtypes,
			  MPI_Comm comm, MPI_Request *request)
{
	struct mpirma_dtype **t = NULL;
	struct mpirma_comm *c;
	int n = 0, ret = mpirma_comm_check(comm, &c);

	if (!ret) {
		n = mpirma_comm_peer_size(c);
		t = malloc(2 * n * sizeof(*t));
		if (!t)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (!ret)
		ret = wbuf_check(c, recvcounts, rdispls, recvtypes, t);
	if (!ret && sendbuf != MPI_IN_PLACE)
		ret = wbuf_check(c, sendcounts, sdispls, sendtypes, t + n);
	if (!ret && request)
		ret = mpirma_nbc_alltoallw(c, sendbuf, sendcounts, sdispls,
					   t + n, recvbuf, recvcounts,
					   rdispls, t, request);
	else if (!ret)
		ret = mpirma_coll_run_alltoallw(c, sendbuf, sendcounts,
						sdispls, t + n, recvbuf,
						recvcounts, rdispls, t);
	free(t);
	return ret;
}

COLL_FORMS(Alltoallw, Ialltoallw, alltoallw_body,
	   (const void *sendbuf, const int sendcounts[], const int sdispls[],
	    const MPI_Datatype sendtypes[], void *recvbuf,
	    const int recvcounts[], const int rdispls[],
	    const MPI_Datatype recvtypes[], MPI_Comm comm),
	   (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
	    rdispls, recvtypes, comm))

static int reduce_body(const void *sendbuf, void *recvbuf, int count,
		       MPI_Datatype datatype, MPI_Op op, int root,
		       MPI_Comm comm, MPI_Request *request)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret = mpirma_comm_check(comm, &c);

	if (!ret)
		ret = reduce_check(count, datatype, op, &t);
	if (!ret)
		ret = bcast_root_check(c, root);
	if (!ret && !c->inter && sendbuf == MPI_IN_PLACE && c->rank != root)
		ret = mpirma_err(MPI_ERR_BUFFER, "MPI_IN_PLACE only at the root");
	if (ret)
		return ret;
	if (request)
		return mpirma_nbc_reduce(c, sendbuf, recvbuf, count, t,
					 datatype, op, root, request);
	return mpirma_coll_run_reduce(c, sendbuf, recvbuf, count, t, datatype,
				      op, root);
}

COLL_FORMS(Reduce, Ireduce, reduce_body,
	   (const void *sendbuf, void *recvbuf, int count,
	    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm),
	   (sendbuf, recvbuf, count, datatype, op, root, comm))

static int allreduce_body(const void *sendbuf, void *recvbuf, int count,
			  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			  MPI_Request *request)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret = mpirma_comm_check(comm, &c);

	if (ret)
		return ret;
	if (!request) {
		ret = mpirma_coll_allreduce_small(c, sendbuf, recvbuf, count,
						  datatype, op);
		if (ret != MPIRMA_COLL_GENERAL)
			return ret;
	}
	ret = reduce_check(count, datatype, op, &t);
	if (ret)
		return ret;
	if (request)
		return mpirma_nbc_allreduce(c, sendbuf, recvbuf, count, t,
					    datatype, op, request);
	return mpirma_coll_run_allreduce(c, sendbuf, recvbuf, count, t,
					 datatype, op);
}

COLL_FORMS(Allreduce, Iallreduce, allreduce_body,
	   (const void *sendbuf, void *recvbuf, int count,
	    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
	   (sendbuf, recvbuf, count, datatype, op, comm))

/*
 * Reduce_scatter (@counts) and Reduce_scatter_block (@count each); the
 * nonblocking and persistent forms on intra-communicators.
 */
static int reduce_scatter_body(const void *sendbuf, void *recvbuf, int count,
			       const int *counts, MPI_Datatype datatype,
			       MPI_Op op, MPI_Comm comm, bool v,
			       MPI_Request *request)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int i, ret = mpirma_comm_check(comm, &c);

	if (!ret)
		ret = reduce_check(count, datatype, op, &t);
	if (!ret && v && !counts)
		ret = mpirma_err(MPI_ERR_ARG, "recvcounts is NULL");
	for (i = 0; !ret && v && i < c->size; i++)
		if (counts[i] < 0)
			ret = mpirma_err(MPI_ERR_COUNT, "negative count %d",
					 counts[i]);
	if (ret)
		return ret;
	if (request)
		return mpirma_nbc_reduce_scatter(c, sendbuf, recvbuf, count,
						 counts, t, datatype, op,
						 request);
	return mpirma_coll_run_reduce_scatter(c, sendbuf, recvbuf, count,
					      counts, t, datatype, op);
}

COLL_FORMS(Reduce_scatter_block, Ireduce_scatter_block,
	   reduce_scatter_body,
	   (const void *sendbuf, void *recvbuf, int recvcount,
	    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
	   (sendbuf, recvbuf, recvcount, NULL, datatype, op, comm, false))

COLL_FORMS(Reduce_scatter, Ireduce_scatter, reduce_scatter_body,
	   (const void *sendbuf, void *recvbuf, const int recvcounts[],
	    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
	   (sendbuf, recvbuf, 0, recvcounts, datatype, op, comm, true))

/* Scan and Exscan (@exclusive). */
static int scan_body(const void *sendbuf, void *recvbuf, int count,
		     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		     bool exclusive, MPI_Request *request)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret = intra_comm_check(comm, &c);

	if (!ret)
		ret = reduce_check(count, datatype, op, &t);
	if (ret)
		return ret;
	if (request)
		return mpirma_nbc_scan(c, sendbuf, recvbuf, count, t, datatype,
				       op, exclusive, request);
	return mpirma_coll_run_scan(c, sendbuf, recvbuf, count, t, datatype,
				    op, exclusive);
}

COLL_FORMS(Scan, Iscan, scan_body,
	   (const void *sendbuf, void *recvbuf, int count,
	    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
	   (sendbuf, recvbuf, count, datatype, op, comm, false))

COLL_FORMS(Exscan, Iexscan, scan_body,
	   (const void *sendbuf, void *recvbuf, int count,
	    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
	   (sendbuf, recvbuf, count, datatype, op, comm, true))
