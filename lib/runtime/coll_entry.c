// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll_entry.c - the entry points of the collective operations: their
 * arguments checked in the order the error classes suggest, then the
 * algorithm run (lib/runtime/coll.c, mpirma_coll_run_*()) and its error
 * raised on the communicator in the name of the call.
 */
#include <stdlib.h>

#include "runtime.h"
#include "coll.h"
#include "datatype.h"
#include "op.h"

/* ------------------------------------------------------------ checks */

#define RAISE_COMM(comm, cls) \
	mpirma_raise_comm((comm), (cls), MPIRMA_FUNC, NULL)

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

/*
 * The counts of Gatherv and Scatterv, which only the root reads: NULL
 * there is MPI_ERR_ARG ("@name is NULL").
 */
static int root_counts_check(const struct mpirma_comm *c, int root,
			     const int *counts, const char *name)
{
	if (mpirma_coll_is_root(c, root) && !counts)
		return mpirma_err(MPI_ERR_ARG, "%s is NULL", name);
	return MPI_SUCCESS;
}

/* Both buffers of Allgather and Alltoall (the send one unless in place). */
static int pair_check(const void *sendbuf, int sendcount,
		      MPI_Datatype sendtype, int recvcount,
		      MPI_Datatype recvtype, struct mpirma_dtype **st,
		      struct mpirma_dtype **rt)
{
	int ret = mpirma_buf_check(recvcount, recvtype, rt);

	if (!ret && sendbuf != MPI_IN_PLACE)
		ret = mpirma_buf_check(sendcount, sendtype, st);
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

int PMPI_Barrier(MPI_Comm comm)
{
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = mpirma_coll_barrier(c);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Barrier)

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
	       MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = mpirma_buf_check(count, datatype, &t);
	if (!ret)
		ret = bcast_root_check(c, root);
	if (!ret)
		ret = mpirma_coll_run_bcast(c, buffer, count, t, root);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Bcast)

/*
 * Gather(v) and Scatter(v): mpirma_coll_run_rooted() after the checks, of
 * datatypes @bdt (the root's side) and @odt.  @counts NULL means @count to
 * each at i * count.
 */
static int rooted(struct mpirma_comm *c, bool gather, void *buf, int count,
		  const int *counts, const int *displs, MPI_Datatype bdt,
		  void *obuf, int ocount, MPI_Datatype odt, int root)
{
	struct mpirma_dtype *bt = NULL, *ot = NULL;
	int ret;

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
	return ret ? ret : mpirma_coll_run_rooted(c, gather, buf, count, counts,
						  displs, bt, obuf, ocount, ot,
						  root);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		MPI_Comm comm)
{
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = rooted(c, true, recvbuf, recvcount, NULL, NULL,
			     recvtype, (void *)sendbuf, sendcount, sendtype,
			     root);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Gather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 void *recvbuf, const int recvcounts[], const int displs[],
		 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = root_counts_check(c, root, recvcounts, "recvcounts");
	if (!ret)
		ret = rooted(c, true, recvbuf, 0,
			     mpirma_coll_is_root(c, root) ? recvcounts : NULL,
			     displs, recvtype, (void *)sendbuf, sendcount,
			     sendtype, root);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Gatherv)

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		 MPI_Comm comm)
{
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = rooted(c, false, (void *)sendbuf, sendcount, NULL, NULL,
			     sendtype, recvbuf, recvcount, recvtype, root);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Scatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[],
		  const int displs[], MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = root_counts_check(c, root, sendcounts, "sendcounts");
	if (!ret)
		ret = rooted(c, false, (void *)sendbuf, 0,
			     mpirma_coll_is_root(c, root) ? sendcounts : NULL,
			     displs, sendtype, recvbuf, recvcount, recvtype,
			     root);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Scatterv)

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		   void *recvbuf, int recvcount, MPI_Datatype recvtype,
		   MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *st = NULL, *rt;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = pair_check(sendbuf, sendcount, sendtype, recvcount,
				 recvtype, &st, &rt);
	if (!ret)
		ret = mpirma_coll_run_allgatherv(c, sendbuf, sendcount, st,
						 recvbuf, recvcount, NULL, NULL,
						 rt);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Allgather)

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		    void *recvbuf, const int recvcounts[], const int displs[],
		    MPI_Datatype recvtype, MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *st = NULL, *rt;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = vbuf_check(c, recvcounts, displs, recvtype, &rt);
	if (!ret && sendbuf != MPI_IN_PLACE)
		ret = mpirma_buf_check(sendcount, sendtype, &st);
	if (!ret)
		ret = mpirma_coll_run_allgatherv(c, sendbuf, sendcount, st,
						 recvbuf, 0, recvcounts, displs,
						 rt);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Allgatherv)

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		  void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *st = NULL, *rt;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = pair_check(sendbuf, sendcount, sendtype, recvcount,
				 recvtype, &st, &rt);
	if (!ret)
		ret = mpirma_coll_run_alltoallv(c, sendbuf, sendcount, NULL,
						NULL, st, recvbuf, recvcount,
						NULL, NULL, rt);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Alltoall)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[],
		   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		   const int recvcounts[], const int rdispls[],
		   MPI_Datatype recvtype, MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *st = NULL, *rt;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = vbuf_check(c, recvcounts, rdispls, recvtype, &rt);
	if (!ret && sendbuf != MPI_IN_PLACE)
		ret = vbuf_check(c, sendcounts, sdispls, sendtype, &st);
	if (!ret)
		ret = mpirma_coll_run_alltoallv(c, sendbuf, 0, sendcounts,
						sdispls, st, recvbuf, 0,
						recvcounts, rdispls, rt);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Alltoallv)

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
	for (i = 0; !ret && i < c->size; i++)
		ret = mpirma_dtype_check(dts[i], true, &t[i]);
	return ret;
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[],
		   const int sdispls[], const MPI_Datatype sendtypes[],
		   void *recvbuf, const int recvcounts[], const int rdispls[],
		   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	struct mpirma_dtype **t = NULL;
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = intra_comm_check(comm, &c);
	if (!ret) {
		t = malloc(2 * c->size * sizeof(*t));
		if (!t)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (!ret)
		ret = wbuf_check(c, recvcounts, rdispls, recvtypes, t);
	if (!ret && sendbuf != MPI_IN_PLACE)
		ret = wbuf_check(c, sendcounts, sdispls, sendtypes,
				 t + c->size);
	if (!ret)
		ret = mpirma_coll_run_alltoallw(c, sendbuf, sendcounts,
						sdispls, t + c->size, recvbuf,
						recvcounts, rdispls, t);
	free(t);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Alltoallw)

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count,
		MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = reduce_check(count, datatype, op, &t);
	if (!ret)
		ret = bcast_root_check(c, root);
	if (!ret && !c->inter && sendbuf == MPI_IN_PLACE && c->rank != root)
		ret = mpirma_err(MPI_ERR_BUFFER, "MPI_IN_PLACE only at the root");
	if (!ret)
		ret = mpirma_coll_run_reduce(c, sendbuf, recvbuf, count, t,
					     datatype, op, root);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Reduce)

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
		   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_comm_check(comm, &c);
	if (!ret)
		ret = reduce_check(count, datatype, op, &t);
	if (!ret)
		ret = mpirma_coll_run_allreduce(c, sendbuf, recvbuf, count, t,
						datatype, op);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Allreduce)

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
			      int recvcount, MPI_Datatype datatype, MPI_Op op,
			      MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = intra_comm_check(comm, &c);
	if (!ret)
		ret = reduce_check(recvcount, datatype, op, &t);
	if (!ret)
		ret = mpirma_coll_run_reduce_scatter(c, sendbuf, recvbuf,
						     recvcount, NULL, t,
						     datatype, op);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Reduce_scatter_block)

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
			const int recvcounts[], MPI_Datatype datatype,
			MPI_Op op, MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int i, ret;

	MPIRMA_CHECK_INIT();
	ret = intra_comm_check(comm, &c);
	if (!ret)
		ret = reduce_check(0, datatype, op, &t);
	if (!ret && !recvcounts)
		ret = mpirma_err(MPI_ERR_ARG, "recvcounts is NULL");
	for (i = 0; !ret && i < c->size; i++)
		if (recvcounts[i] < 0)
			ret = mpirma_err(MPI_ERR_COUNT, "negative count %d",
					 recvcounts[i]);
	if (!ret)
		ret = mpirma_coll_run_reduce_scatter(c, sendbuf, recvbuf, 0,
						     recvcounts, t, datatype,
						     op);
	return RAISE_COMM(comm, ret);
}
MPIRMA_ALIAS(Reduce_scatter)

/* Scan and Exscan (@exclusive): one signature, one body. */
#define SCAN_DEFINE(name, exclusive)					\
int PMPI_##name(const void *sendbuf, void *recvbuf, int count,		\
		MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)	\
{									\
	struct mpirma_comm *c;						\
	struct mpirma_dtype *t;						\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	ret = intra_comm_check(comm, &c);				\
	if (!ret)							\
		ret = reduce_check(count, datatype, op, &t);		\
	if (!ret)							\
		ret = mpirma_coll_run_scan(c, sendbuf, recvbuf, count, t, \
					   datatype, op, exclusive);	\
	return RAISE_COMM(comm, ret);					\
}									\
MPIRMA_ALIAS(name)

SCAN_DEFINE(Scan, false)
SCAN_DEFINE(Exscan, true)
