// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p_count.c - the large-count forms of point-to-point communication
 * (MPI_Send_c ... MPI_Imrecv_c) over the int forms, and count.h's
 * helpers, which the collectives' forms (coll_count.c) share.
 */
#include <limits.h>
#include <stdlib.h>

#include "runtime.h"
#include "datatype.h"
#include "count.h"

/* count.h */
int mpirma_count_fit(MPI_Count count, MPI_Datatype dt,
		     struct mpirma_count_arg *out)
{
	out->dt = dt;
	out->temp = false;
	if (count <= INT_MAX) {
		out->n = count < INT_MIN ? INT_MIN : (int)count;
		return MPI_SUCCESS;
	}
	/* one element of a type of @count; an invalid @dt stays the int
	 * form's to report, as is */
	out->n = 1;
	if (mpirma_dtype_check(dt, true, NULL))
		return MPI_SUCCESS;
	if (PMPI_Type_contiguous_c(count, dt, &out->dt) ||
	    PMPI_Type_commit(&out->dt)) {
		out->dt = dt;
		return mpirma_err(MPI_ERR_NO_MEM, "cannot make a type of %lld elements",
				  (long long)count);
	}
	out->temp = true;
	return MPI_SUCCESS;
}

/* count.h */
void mpirma_count_done(struct mpirma_count_arg *c)
{
	if (c->temp)
		PMPI_Type_free(&c->dt);
	c->temp = false;
}

/* count.h */
int mpirma_count_fit2(MPI_Count scount, MPI_Datatype stype,
		      MPI_Count rcount, MPI_Datatype rtype,
		      struct mpirma_count_arg *s, struct mpirma_count_arg *r)
{
	int ret = mpirma_count_fit(scount, stype, s);

	if (!ret) {
		ret = mpirma_count_fit(rcount, rtype, r);
		if (ret)
			mpirma_count_done(s);
	}
	return ret;
}

/* count.h */
int mpirma_count_int(MPI_Count count, int *out)
{
	if (count > INT_MAX)
		return mpirma_err(MPI_ERR_COUNT, "count %lld: above 2^31 - 1 only "
				  "messages and collectives that move data take it",
				  (long long)count);
	*out = count < INT_MIN ? INT_MIN : (int)count;
	return MPI_SUCCESS;
}

/* count.h */
int mpirma_count_arrays(int n, const MPI_Count *counts, const MPI_Aint *displs,
			int **icounts, int **idispls)
{
	int i;

	*icounts = NULL;
	*idispls = NULL;
	if (n < 0)
		n = 0;
	if (counts && !(*icounts = malloc(sizeof(int) * (size_t)(n + 1))))
		goto no_mem;
	if (displs && !(*idispls = malloc(sizeof(int) * (size_t)(n + 1))))
		goto no_mem;
	for (i = 0; i < n; i++) {
		if (counts && (counts[i] > INT_MAX || counts[i] < INT_MIN))
			goto too_large;
		if (displs && (displs[i] > INT_MAX || displs[i] < INT_MIN))
			goto too_large;
		if (counts)
			(*icounts)[i] = (int)counts[i];
		if (displs)
			(*idispls)[i] = (int)displs[i];
	}
	return MPI_SUCCESS;
too_large:
	free(*icounts);
	free(*idispls);
	*icounts = *idispls = NULL;
	return mpirma_err(MPI_ERR_COUNT, "entry %d of the counts or displacements "
			  "is beyond an int: the v and w collectives take them "
			  "up to 2^31 - 1", i);
no_mem:
	free(*icounts);
	*icounts = NULL;
	return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
}

/* ------------------------------------------------------------ the forms */

/*
 * Each form fits its counts, calls the int form (which raises its own
 * errors) and drops the temporary types.  A fit that fails raises here.
 */
#define FIT(comm, b, count, dt)						\
	do {								\
		int fit_ret_ = mpirma_count_fit((count), (dt), &(b));	\
									\
		if (fit_ret_)						\
			return mpirma_raise_comm((comm), fit_ret_,	\
						 MPIRMA_FUNC, NULL);	\
	} while (0)

/* The send modes, blocking (TD, TA empty) and nonblocking or persistent. */
#define SEND_C(name, TD, TA)						\
int PMPI_##name##_c(const void *buf, MPI_Count count, MPI_Datatype dt,	\
		    int dest, int tag, MPI_Comm comm TD)		\
{									\
	struct mpirma_count_arg b;						\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	FIT(comm, b, count, dt);					\
	ret = PMPI_##name(buf, b.n, b.dt, dest, tag, comm TA);		\
	mpirma_count_done(&b);						\
	return ret;							\
}									\
MPIRMA_ALIAS(name##_c)

#define NONE
#define REQ_D , MPI_Request *request
#define REQ_A , request

SEND_C(Send, NONE, NONE)
SEND_C(Bsend, NONE, NONE)
SEND_C(Ssend, NONE, NONE)
SEND_C(Rsend, NONE, NONE)
SEND_C(Isend, REQ_D, REQ_A)
SEND_C(Ibsend, REQ_D, REQ_A)
SEND_C(Issend, REQ_D, REQ_A)
SEND_C(Irsend, REQ_D, REQ_A)
SEND_C(Send_init, REQ_D, REQ_A)
SEND_C(Bsend_init, REQ_D, REQ_A)
SEND_C(Ssend_init, REQ_D, REQ_A)
SEND_C(Rsend_init, REQ_D, REQ_A)

/* The receives: blocking (a status) and nonblocking or persistent. */
#define RECV_C(name, last_t, last)					\
int PMPI_##name##_c(void *buf, MPI_Count count, MPI_Datatype dt,	\
		    int source, int tag, MPI_Comm comm, last_t last)	\
{									\
	struct mpirma_count_arg b;						\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	FIT(comm, b, count, dt);					\
	ret = PMPI_##name(buf, b.n, b.dt, source, tag, comm, last);	\
	mpirma_count_done(&b);						\
	return ret;							\
}									\
MPIRMA_ALIAS(name##_c)

RECV_C(Recv, MPI_Status *, status)
RECV_C(Irecv, MPI_Request *, request)
RECV_C(Recv_init, MPI_Request *, request)

#define SENDRECV_C(name, last_t, last)					\
int PMPI_##name##_c(const void *sendbuf, MPI_Count sendcount,		\
		    MPI_Datatype sendtype, int dest, int sendtag,	\
		    void *recvbuf, MPI_Count recvcount,			\
		    MPI_Datatype recvtype, int source, int recvtag,	\
		    MPI_Comm comm, last_t last)				\
{									\
	struct mpirma_count_arg s, r;					\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	ret = mpirma_count_fit2(sendcount, sendtype, recvcount, recvtype, \
				&s, &r);				\
	if (ret)							\
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);	\
	ret = PMPI_##name(sendbuf, s.n, s.dt, dest, sendtag, recvbuf,	\
			  r.n, r.dt, source, recvtag, comm, last);	\
	mpirma_count_done(&s);						\
	mpirma_count_done(&r);						\
	return ret;							\
}									\
MPIRMA_ALIAS(name##_c)

SENDRECV_C(Sendrecv, MPI_Status *, status)
SENDRECV_C(Isendrecv, MPI_Request *, request)

#define SENDRECV_REPLACE_C(name, last_t, last)				\
int PMPI_##name##_c(void *buf, MPI_Count count, MPI_Datatype dt,	\
		    int dest, int sendtag, int source, int recvtag,	\
		    MPI_Comm comm, last_t last)				\
{									\
	struct mpirma_count_arg b;						\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	FIT(comm, b, count, dt);					\
	ret = PMPI_##name(buf, b.n, b.dt, dest, sendtag, source,	\
			  recvtag, comm, last);				\
	mpirma_count_done(&b);						\
	return ret;							\
}									\
MPIRMA_ALIAS(name##_c)

SENDRECV_REPLACE_C(Sendrecv_replace, MPI_Status *, status)
SENDRECV_REPLACE_C(Isendrecv_replace, MPI_Request *, request)

/* A message's errors go to MPI_COMM_WORLD before it is received. */
#define MRECV_C(name, last_t, last)					\
int PMPI_##name##_c(void *buf, MPI_Count count, MPI_Datatype dt,	\
		    MPI_Message *message, last_t last)			\
{									\
	struct mpirma_count_arg b;						\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	FIT(MPI_COMM_WORLD, b, count, dt);				\
	ret = PMPI_##name(buf, b.n, b.dt, message, last);		\
	mpirma_count_done(&b);						\
	return ret;							\
}									\
MPIRMA_ALIAS(name##_c)

MRECV_C(Mrecv, MPI_Status *, status)
MRECV_C(Imrecv, MPI_Request *, request)
