// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll_count.c - the large-count forms of the collectives (MPI_Bcast_c,
 * MPI_Ibcast_c, MPI_Bcast_init_c ... MPI_Neighbor_alltoallw_init_c) over
 * the int forms (count.h).  The blocking, nonblocking and persistent form
 * of each collective differ only in their last arguments (none; a
 * request; an info and a request), so one macro writes the three.  The
 * int forms build their schedules at the call (nbc_sched.c), so the int
 * arrays made here are freed when it returns.
 */
#include <limits.h>
#include <stdlib.h>

#include "runtime.h"
#include "datatype.h"
#include "topo.h"
#include "op.h"
#include "count.h"

/*
 * The last parameters (TD_) and arguments (TA_) of a form: B blocking,
 * NB nonblocking, P persistent.  Macros take the letter and paste it, so
 * the commas inside are not split into arguments on the way.
 */
#define TD_B
#define TA_B
#define TD_NB , MPI_Request *request
#define TA_NB , request
#define TD_P , MPI_Info info, MPI_Request *request
#define TA_P , info, request
#define NONE

/* The three forms of collective @F (@in for the nonblocking one's name). */
#define THREE(MAC, F, in)						\
	MAC(F, B)							\
	MAC(in, NB)							\
	MAC(F##_init, P)

#define RAISE(comm, ret) mpirma_raise_comm((comm), (ret), MPIRMA_FUNC, NULL)

/* The peers a v or w form's arrays name; 0 for the int form to report a
 * bad communicator. */
static int peers(MPI_Comm comm)
{
	struct mpirma_comm *c = mpirma_comm_get(comm);

	return c ? mpirma_comm_peer_size(c) : 0;
}

/* Are the root's arrays significant here? */
static bool at_root(MPI_Comm comm, int root)
{
	struct mpirma_comm *c = mpirma_comm_get(comm);

	if (!c)
		return false;
	return c->inter ? root == MPI_ROOT : c->rank == root;
}

/* Sources (*@nin) and destinations (*@nout) of a neighborhood form. */
static void neighbors(MPI_Comm comm, int *nin, int *nout)
{
	struct mpirma_comm *c = mpirma_comm_get(comm);
	int *ranks = NULL;

	*nin = *nout = 0;
	if (c && mpirma_topo_neighbors(c, nin, nout, &ranks))
		*nin = *nout = 0;
	free(ranks);
}

/* A user op takes elements it can count in an int. */
static int op_fits(MPI_Op op, MPI_Count count)
{
	if (count > INT_MAX && mpirma_op_kernel(op) < 0 && mpirma_op_valid(op))
		return mpirma_err(MPI_ERR_COUNT, "a user op on %lld elements: "
				  "above 2^31 - 1 only predefined ops",
				  (long long)count);
	return MPI_SUCCESS;
}

/* ------------------------------------------------------------ counts */

#define BCAST_C(F, T)						\
int PMPI_##F##_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, \
		 MPI_Comm comm TD_##T)					\
{									\
	struct mpirma_count_arg b;						\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	ret = mpirma_count_fit(count, dt, &b);				\
	if (ret)							\
		return RAISE(comm, ret);				\
	ret = PMPI_##F(buf, b.n, b.dt, root, comm TA_##T);			\
	mpirma_count_done(&b);						\
	return ret;							\
}									\
MPIRMA_ALIAS(F##_c)

THREE(BCAST_C, Bcast, Ibcast)

/* Two (count, type) pairs; ROOT_D/ROOT_A: the root argument or nothing. */
#define PAIR_C(F, ROOT_D, ROOT_A, T)				\
int PMPI_##F##_c(const void *sendbuf, MPI_Count sendcount,		\
		 MPI_Datatype sendtype, void *recvbuf,			\
		 MPI_Count recvcount, MPI_Datatype recvtype ROOT_D,	\
		 MPI_Comm comm TD_##T)					\
{									\
	struct mpirma_count_arg s, r;					\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	ret = mpirma_count_fit2(sendcount, sendtype, recvcount, recvtype, \
				&s, &r);				\
	if (ret)							\
		return RAISE(comm, ret);				\
	ret = PMPI_##F(sendbuf, s.n, s.dt, recvbuf, r.n, r.dt ROOT_A,	\
		       comm TA_##T);					\
	mpirma_count_done(&s);						\
	mpirma_count_done(&r);						\
	return ret;							\
}									\
MPIRMA_ALIAS(F##_c)

#define ROOT_D , int root
#define ROOT_A , root
#define ROOTED_C(F, T) PAIR_C(F, ROOT_D, ROOT_A, T)
#define ALL_C(F, T) PAIR_C(F, NONE, NONE, T)

THREE(ROOTED_C, Gather, Igather)
THREE(ROOTED_C, Scatter, Iscatter)
THREE(ALL_C, Allgather, Iallgather)
THREE(ALL_C, Alltoall, Ialltoall)
THREE(ALL_C, Neighbor_allgather, Ineighbor_allgather)
THREE(ALL_C, Neighbor_alltoall, Ineighbor_alltoall)

/* A reduction: a count of an op's elements. */
#define RED_C(F, ROOT_D, ROOT_A, T)				\
int PMPI_##F##_c(const void *sendbuf, void *recvbuf, MPI_Count count,	\
		 MPI_Datatype dt, MPI_Op op ROOT_D, MPI_Comm comm TD_##T)	\
{									\
	struct mpirma_count_arg b;						\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	ret = op_fits(op, count);					\
	if (!ret)							\
		ret = mpirma_count_fit(count, dt, &b);			\
	if (ret)							\
		return RAISE(comm, ret);				\
	ret = PMPI_##F(sendbuf, recvbuf, b.n, b.dt, op ROOT_A, comm TA_##T); \
	mpirma_count_done(&b);						\
	return ret;							\
}									\
MPIRMA_ALIAS(F##_c)

#define REDUCE_C(F, T) RED_C(F, ROOT_D, ROOT_A, T)
#define ALLRED_C(F, T) RED_C(F, NONE, NONE, T)

THREE(REDUCE_C, Reduce, Ireduce)
THREE(ALLRED_C, Allreduce, Iallreduce)
THREE(ALLRED_C, Scan, Iscan)
THREE(ALLRED_C, Exscan, Iexscan)
THREE(ALLRED_C, Reduce_scatter_block, Ireduce_scatter_block)

/* ------------------------------------------------------------ arrays */

/*
 * The v and w forms: scalar counts and the arrays' entries must fit an
 * int (count.h).  Each macro fits what its form has, calls the int form,
 * and frees the arrays.
 */
#define GATHERV_C(F, T)						\
int PMPI_##F##_c(const void *sendbuf, MPI_Count sendcount,		\
		 MPI_Datatype sendtype, void *recvbuf,			\
		 const MPI_Count recvcounts[], const MPI_Aint displs[],	\
		 MPI_Datatype recvtype, int root, MPI_Comm comm TD_##T)	\
{									\
	int sc, *rc = NULL, *rd = NULL, ret;				\
									\
	MPIRMA_CHECK_INIT();						\
	ret = mpirma_count_int(sendcount, &sc);				\
	if (!ret && at_root(comm, root))				\
		ret = mpirma_count_arrays(peers(comm), recvcounts,	\
					  displs, &rc, &rd);		\
	if (ret)							\
		return RAISE(comm, ret);				\
	ret = PMPI_##F(sendbuf, sc, sendtype, recvbuf, rc, rd, recvtype, \
		       root, comm TA_##T);					\
	free(rc);							\
	free(rd);							\
	return ret;							\
}									\
MPIRMA_ALIAS(F##_c)

THREE(GATHERV_C, Gatherv, Igatherv)

#define SCATTERV_C(F, T)						\
int PMPI_##F##_c(const void *sendbuf, const MPI_Count sendcounts[],	\
		 const MPI_Aint displs[], MPI_Datatype sendtype,	\
		 void *recvbuf, MPI_Count recvcount,			\
		 MPI_Datatype recvtype, int root, MPI_Comm comm TD_##T)	\
{									\
	int *sc = NULL, *sd = NULL, rc, ret;				\
									\
	MPIRMA_CHECK_INIT();						\
	ret = mpirma_count_int(recvcount, &rc);				\
	if (!ret && at_root(comm, root))				\
		ret = mpirma_count_arrays(peers(comm), sendcounts,	\
					  displs, &sc, &sd);		\
	if (ret)							\
		return RAISE(comm, ret);				\
	ret = PMPI_##F(sendbuf, sc, sd, sendtype, recvbuf, rc, recvtype, \
		       root, comm TA_##T);					\
	free(sc);							\
	free(sd);							\
	return ret;							\
}									\
MPIRMA_ALIAS(F##_c)

THREE(SCATTERV_C, Scatterv, Iscatterv)

/*
 * Allgatherv: @nrecv(comm) entries (the peers, or a neighborhood's
 * sources: NIN/NOUT fill nin and nout first).
 */
#define ALLGATHERV_C(F, NEIGH, T)					\
int PMPI_##F##_c(const void *sendbuf, MPI_Count sendcount,		\
		 MPI_Datatype sendtype, void *recvbuf,			\
		 const MPI_Count recvcounts[], const MPI_Aint displs[],	\
		 MPI_Datatype recvtype, MPI_Comm comm TD_##T)		\
{									\
	int sc, *rc, *rd, nin, nout, ret;				\
									\
	MPIRMA_CHECK_INIT();						\
	NEIGH;								\
	(void)nout;							\
	ret = mpirma_count_int(sendcount, &sc);				\
	if (!ret)							\
		ret = mpirma_count_arrays(nin, recvcounts, displs,	\
					  &rc, &rd);			\
	if (ret)							\
		return RAISE(comm, ret);				\
	ret = PMPI_##F(sendbuf, sc, sendtype, recvbuf, rc, rd, recvtype, \
		       comm TA_##T);					\
	free(rc);							\
	free(rd);							\
	return ret;							\
}									\
MPIRMA_ALIAS(F##_c)

/* Whom the arrays name: every peer both ways, or the neighbourhood. */
#define PEERS (nin = nout = peers(comm))
#define NEIGHBORS neighbors(comm, &nin, &nout)
#define ALLGATHERV_PEERS_C(F, T) ALLGATHERV_C(F, PEERS, T)
#define ALLGATHERV_NEIGH_C(F, T) ALLGATHERV_C(F, NEIGHBORS, T)

THREE(ALLGATHERV_PEERS_C, Allgatherv, Iallgatherv)
THREE(ALLGATHERV_NEIGH_C, Neighbor_allgatherv, Ineighbor_allgatherv)

#define ALLTOALLV_C(F, NEIGH, T)					\
int PMPI_##F##_c(const void *sendbuf, const MPI_Count sendcounts[],	\
		 const MPI_Aint sdispls[], MPI_Datatype sendtype,	\
		 void *recvbuf, const MPI_Count recvcounts[],		\
		 const MPI_Aint rdispls[], MPI_Datatype recvtype,	\
		 MPI_Comm comm TD_##T)					\
{									\
	int *sc, *sd, *rc = NULL, *rd = NULL, nin, nout, ret;		\
									\
	MPIRMA_CHECK_INIT();						\
	NEIGH;								\
	ret = mpirma_count_arrays(nout, sendcounts, sdispls, &sc, &sd);	\
	if (!ret)							\
		ret = mpirma_count_arrays(nin, recvcounts, rdispls,	\
					  &rc, &rd);			\
	if (ret) {							\
		free(sc);						\
		free(sd);						\
		return RAISE(comm, ret);				\
	}								\
	ret = PMPI_##F(sendbuf, sc, sd, sendtype, recvbuf, rc, rd,	\
		       recvtype, comm TA_##T);				\
	free(sc);							\
	free(sd);							\
	free(rc);							\
	free(rd);							\
	return ret;							\
}									\
MPIRMA_ALIAS(F##_c)

#define ALLTOALLV_PEERS_C(F, T) ALLTOALLV_C(F, PEERS, T)
#define ALLTOALLV_NEIGH_C(F, T) ALLTOALLV_C(F, NEIGHBORS, T)

THREE(ALLTOALLV_PEERS_C, Alltoallv, Ialltoallv)
THREE(ALLTOALLV_NEIGH_C, Neighbor_alltoallv, Ineighbor_alltoallv)

/*
 * The w forms: MPI_Alltoallw's int form takes int displacements, the
 * neighborhood's MPI_Aint ones (DISPLS: which to convert).
 */
#define ALLTOALLW_C(F, NEIGH, D_T, SD, RD, T)			\
int PMPI_##F##_c(const void *sendbuf, const MPI_Count sendcounts[],	\
		 const MPI_Aint sdispls[],				\
		 const MPI_Datatype sendtypes[], void *recvbuf,		\
		 const MPI_Count recvcounts[], const MPI_Aint rdispls[],	\
		 const MPI_Datatype recvtypes[], MPI_Comm comm TD_##T)	\
{									\
	int *sc, *sd, *rc = NULL, *rd = NULL, nin, nout, ret;		\
									\
	MPIRMA_CHECK_INIT();						\
	NEIGH;								\
	ret = mpirma_count_arrays(nout, sendcounts, SD, &sc, &sd);	\
	if (!ret)							\
		ret = mpirma_count_arrays(nin, recvcounts, RD, &rc, &rd); \
	if (ret) {							\
		free(sc);						\
		free(sd);						\
		return RAISE(comm, ret);				\
	}								\
	ret = PMPI_##F(sendbuf, sc, (D_T)(SD ? (void *)sd : (void *)sdispls), \
		       sendtypes, recvbuf, rc,				\
		       (D_T)(RD ? (void *)rd : (void *)rdispls),	\
		       recvtypes, comm TA_##T);				\
	free(sc);							\
	free(sd);							\
	free(rc);							\
	free(rd);							\
	return ret;							\
}									\
MPIRMA_ALIAS(F##_c)

#define ALLTOALLW_PEERS_C(F, T)					\
	ALLTOALLW_C(F, PEERS, const int *, sdispls, rdispls, T)
#define ALLTOALLW_NEIGH_C(F, T)					\
	ALLTOALLW_C(F, NEIGHBORS, const MPI_Aint *, NULL, NULL, T)

THREE(ALLTOALLW_PEERS_C, Alltoallw, Ialltoallw)
THREE(ALLTOALLW_NEIGH_C, Neighbor_alltoallw, Ineighbor_alltoallw)

/* Reduce_scatter: an entry per member of the local group. */
#define REDUCE_SCATTER_C(F, T)					\
int PMPI_##F##_c(const void *sendbuf, void *recvbuf,			\
		 const MPI_Count recvcounts[], MPI_Datatype dt,		\
		 MPI_Op op, MPI_Comm comm TD_##T)				\
{									\
	struct mpirma_comm *c;						\
	int *rc, *unused, ret;						\
									\
	MPIRMA_CHECK_INIT();						\
	c = mpirma_comm_get(comm);					\
	ret = mpirma_count_arrays(c ? c->size : 0, recvcounts, NULL,	\
				  &rc, &unused);			\
	if (ret)							\
		return RAISE(comm, ret);				\
	ret = PMPI_##F(sendbuf, recvbuf, rc, dt, op, comm TA_##T);		\
	free(rc);							\
	return ret;							\
}									\
MPIRMA_ALIAS(F##_c)

THREE(REDUCE_SCATTER_C, Reduce_scatter, Ireduce_scatter)

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
			MPI_Datatype dt, MPI_Op op)
{
	struct mpirma_count_arg b;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = op_fits(op, count);
	if (!ret)
		ret = mpirma_count_fit(count, dt, &b);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	ret = PMPI_Reduce_local(inbuf, inoutbuf, b.n, b.dt, op);
	mpirma_count_done(&b);
	return ret;
}
MPIRMA_ALIAS(Reduce_local_c)
