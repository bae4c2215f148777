// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll.c - collective operations over a communicator's collective context
 * (docs/lib.md, "Collectives"): barrier, bcast, reduce, the
 * inter-communicator steps, and the messages of coll_msg.h;
 * coll_allreduce.c has allreduce, coll_spread.c the rest.
 *
 * Every message here is received from a named source: messages from one
 * sender in one context arrive in order, and all members call collectives
 * in the same order, so each receive gets the message meant for it without
 * any sequence number.  The tag only names the collective, which turns a
 * program that mismatches collectives into a hang rather than into
 * corrupted data.
 *
 * Sends never wait (the transport buffers them: p2p.h).  That makes the simple
 * algorithms safe and lets MPI_IN_PLACE work for all-to-all: a rank sends
 * everything first and only then overwrites its buffer with what it
 * receives.
 *
 *  - Barrier: a dissemination barrier of empty messages (the kernel's job
 *    barrier on MPI_COMM_WORLD when messages go through the kernel).
 *  - Bcast: binomial tree from the root, the data packed once.
 *  - Gather(v), Scatter(v), Allgather(v), Alltoall(v): direct messages.
 *  - Reduce: a binomial tree towards rank 0 that keeps rank order (each
 *    rank combines its range with the next higher range: acc op recv), so
 *    non-commutative user ops are evaluated in the canonical order; rank 0
 *    forwards the result to another root.  Allreduce: coll_allreduce.c.
 *    Reduce_scatter(_block) is reduce + scatter.  Scan and Exscan pass
 *    the prefix along the ranks.
 *
 * Reduction buffers are laid out as the datatype lays out user memory
 * (mpirma_dtype_scratch), so user ops see what the standard promises.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "coll.h"
#include "datatype.h"
#include "op.h"
#include "p2p.h"
#include "coll_msg.h"

/* ------------------------------------------------------------ messages */

/* coll_msg.h */
int mpirma_coll_send_bytes(struct mpirma_comm *c, int peer, int tag,
			   const void *buf, size_t len)
{
	int ret = mpirma_msg_send(mpirma_comm_job_rank(c, peer), tag,
				  mpirma_ctx_coll(c), buf, len);

	if (ret < 0)
		return mpirma_err_errno(ret, "collective send to rank %d",
					peer);
	return MPI_SUCCESS;
}

int mpirma_coll_recv_bytes(struct mpirma_comm *c, int peer, int tag,
			   void *buf, size_t len, size_t *got)
{
	struct mpirma_msg m;
	int ret = mpirma_msg_recv(0, mpirma_comm_job_rank(c, peer), tag,
				  mpirma_ctx_coll(c), buf, len, &m);

	if (ret < 0)
		return mpirma_err_errno(ret, "collective receive from rank %d",
					peer);
	if (m.msg_len > len)
		return mpirma_err(MPI_ERR_TRUNCATE, "rank %d sent %llu bytes, "
				  "%zu expected", peer,
				  (unsigned long long)m.msg_len, len);
	if (got)
		*got = m.msg_len;
	return MPI_SUCCESS;
}

/* Sends @count elements of @t at @buf, packed when not contiguous. */
int mpirma_coll_send(struct mpirma_comm *c, int peer, int tag,
		     const void *buf, MPI_Count count, struct mpirma_dtype *t)
{
	size_t len = count * t->size;
	const void *data;
	void *tmp;
	int ret;

	if (mpirma_dtype_contig(t, count, buf, &data))
		return mpirma_coll_send_bytes(c, peer, tag, data, len);
	tmp = malloc(len);
	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	mpirma_dtype_pack(t, buf, count, tmp);
	ret = mpirma_coll_send_bytes(c, peer, tag, tmp, len);
	free(tmp);
	return ret;
}

/* Receives up to @count elements of @t into @buf. */
int mpirma_coll_recv(struct mpirma_comm *c, int peer, int tag, void *buf,
		     MPI_Count count, struct mpirma_dtype *t)
{
	size_t len = count * t->size, got;
	const void *data;
	void *tmp;
	int ret;

	if (mpirma_dtype_contig(t, count, buf, &data))
		return mpirma_coll_recv_bytes(c, peer, tag, (void *)data, len,
					      NULL);
	tmp = malloc(len ? len : 1);
	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	ret = mpirma_coll_recv_bytes(c, peer, tag, tmp, len, &got);
	if (!ret)
		mpirma_dtype_unpack(t, tmp, got, buf, count);
	free(tmp);
	return ret;
}

/* ------------------------------------------------------------ internal API */

static int inter_barrier(struct mpirma_comm *c);

int mpirma_coll_barrier(struct mpirma_comm *c)
{
	int k, ret;

	if (c->inter)
		return inter_barrier(c);
	if (c->size == 1)
		return MPI_SUCCESS;
	/* The module's barrier sleeps; the queues' messages need not. */
	if (c->handle == MPI_COMM_WORLD && !mpirma_shmq_on()) {
		ret = mpirma_ioctl_wait(MPIRMA_IOC_JOB_BARRIER, NULL);
		return ret < 0 ? mpirma_err_errno(ret, "job barrier") :
		       MPI_SUCCESS;
	}
	/* Round k: tell rank + k, hear from rank - k. */
	for (k = 1; k < c->size; k <<= 1) {
		int to = wrap_rank(c->rank + k, c->size);
		int from = wrap_rank(c->rank - k + c->size, c->size);

		ret = mpirma_coll_send_bytes(c, to, TAG_BARRIER, NULL, 0);
		if (!ret)
			ret = mpirma_coll_recv_bytes(c, from, TAG_BARRIER, NULL,
						     0, NULL);
		if (ret)
			return ret;
	}
	return MPI_SUCCESS;
}

/* Binomial tree over ranks relative to @root, moving @len packed bytes. */
static int bcast_bytes(struct mpirma_comm *c, void *data, size_t len,
		       int root)
{
	int size = c->size, rel = wrap_rank(c->rank - root + size, size);
	int mask, peer, ret = MPI_SUCCESS;

	for (mask = 1; mask < size; mask <<= 1)
		if (rel & mask) {
			peer = wrap_rank(rel - mask + root, size);
			ret = mpirma_coll_recv_bytes(c, peer, TAG_BCAST, data,
						     len, NULL);
			if (ret)
				return ret;
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (rel + mask < size) {
			peer = wrap_rank(rel + mask + root, size);
			ret = mpirma_coll_send_bytes(c, peer, TAG_BCAST, data,
						     len);
			if (ret)
				return ret;
		}
	return MPI_SUCCESS;
}

static int bcast(struct mpirma_comm *c, void *buf, int count,
		 struct mpirma_dtype *t, int root)
{
	size_t len = (size_t)count * t->size;
	const void *data;
	void *tmp;
	int ret;

	if (c->size == 1 || !len)
		return MPI_SUCCESS;
	if (mpirma_dtype_contig(t, count, buf, &data))
		return bcast_bytes(c, (void *)data, len, root);
	tmp = malloc(len);
	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	if (c->rank == root)
		mpirma_dtype_pack(t, buf, count, tmp);
	ret = bcast_bytes(c, tmp, len, root);
	if (!ret && c->rank != root)
		mpirma_dtype_unpack(t, tmp, len, buf, count);
	free(tmp);
	return ret;
}

static int inter_bcast(struct mpirma_comm *c, void *buf, int count,
		       struct mpirma_dtype *t, int root);

int mpirma_coll_bcast(struct mpirma_comm *c, void *buf, int count,
		      MPI_Datatype dt, int root)
{
	struct mpirma_dtype *t;
	int ret = mpirma_dtype_check(dt, true, &t);

	return ret ? ret : mpirma_coll_run_bcast(c, buf, count, t, root);
}

/* lib/runtime/coll.h */
int mpirma_coll_run_bcast(struct mpirma_comm *c, void *buf, int count,
			  struct mpirma_dtype *t, int root)
{
	return c->inter ? inter_bcast(c, buf, count, t, root) :
	       bcast(c, buf, count, t, root);
}

/* coll_msg.h */
int mpirma_coll_reduce_to0(struct mpirma_comm *c, const void *sendbuf,
			   void *result, int count, struct mpirma_dtype *t,
			   MPI_Datatype dt, MPI_Op op)
{
	void *alloc[2] = { NULL, NULL }, *buf[2] = { NULL, NULL };
	const void *acc = sendbuf;
	int mask, which = 0, ret = MPI_SUCCESS;

	for (mask = 1; mask < c->size; mask <<= 1) {
		if (c->rank & mask) {
			ret = mpirma_coll_send(c, c->rank - mask, TAG_REDUCE, acc, count, t);
			break;
		}
		if (c->rank + mask >= c->size)
			continue;
		if (!buf[which]) {
			buf[which] = mpirma_dtype_scratch(t, count, &alloc[which]);
			if (!buf[which]) {
				ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
				break;
			}
		}
		ret = mpirma_coll_recv(c, c->rank + mask, TAG_REDUCE, buf[which], count, t);
		if (ret)
			break;
		/* buf = acc op buf: lower ranks on the left. */
		ret = mpirma_op_apply(op, dt, acc, buf[which], count);
		if (ret)
			break;
		acc = buf[which];
		which ^= 1;
	}
	if (!ret && c->rank == 0 && acc != result)
		mpirma_dtype_copy_same(t, count, result, acc);
	free(alloc[0]);
	free(alloc[1]);
	return ret;
}

static int reduce(struct mpirma_comm *c, const void *sendbuf, void *recvbuf,
		  int count, struct mpirma_dtype *t, MPI_Datatype dt,
		  MPI_Op op, int root)
{
	void *alloc = NULL, *res = recvbuf;
	int ret;

	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	if (!count)
		return MPI_SUCCESS;
	if (root != 0 && c->rank == 0) {
		res = mpirma_dtype_scratch(t, count, &alloc);
		if (!res)
			return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	ret = mpirma_coll_reduce_to0(c, sendbuf, res, count, t, dt, op);
	if (!ret && root != 0) {
		if (c->rank == 0)
			ret = mpirma_coll_send(c, root, TAG_REDUCE_RESULT, res, count, t);
		else if (c->rank == root)
			ret = mpirma_coll_recv(c, 0, TAG_REDUCE_RESULT, recvbuf, count, t);
	}
	free(alloc);
	return ret;
}

/* ------------------------------------------------------------ inter */

/*
 * Inter-communicators (lib/runtime/intercomm.c): the local steps on
 * c->local, the leaders (local rank 0 of each group) swap the rest.  A
 * failed step still lets the later ones run, so that nobody is left
 * waiting; the first error is returned.
 */

/* Everyone of the local group is in, then the leaders swap, then release. */
static int inter_barrier(struct mpirma_comm *c)
{
	int ret = mpirma_coll_barrier(c->local), r2;

	if (c->rank == 0) {
		r2 = mpirma_coll_send_bytes(c, 0, TAG_BARRIER, NULL, 0);
		if (!r2)
			r2 = mpirma_coll_recv_bytes(c, 0, TAG_BARRIER, NULL, 0,
						    NULL);
		ret = ret ? ret : r2;
	}
	r2 = mpirma_coll_barrier(c->local);
	return ret ? ret : r2;
}

/*
 * @root: MPI_ROOT at the root, MPI_PROC_NULL at the rest of its group, the
 * root's rank in the other group.  The root sends to the receiving group's
 * leader, which broadcasts in its group.
 */
static int inter_bcast(struct mpirma_comm *c, void *buf, int count,
		       struct mpirma_dtype *t, int root)
{
	int ret = MPI_SUCCESS, r2;

	if (root == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (root == MPI_ROOT)
		return mpirma_coll_send(c, 0, TAG_BCAST, buf, count, t);
	if (c->rank == 0)
		ret = mpirma_coll_recv(c, root, TAG_BCAST, buf, count, t);
	r2 = bcast(c->local, buf, count, t, 0);
	return ret ? ret : r2;
}

/* Each group gets the reduction of the other group's data. */
static int inter_allreduce(struct mpirma_comm *c, const void *sendbuf,
			   void *recvbuf, int count, struct mpirma_dtype *t,
			   MPI_Datatype dt, MPI_Op op)
{
	void *alloc = NULL, *mine = NULL;
	int ret = mpirma_coll_inter_in_place(sendbuf), r2;

	if (ret || !count)
		return ret;
	if (c->rank == 0) {
		mine = mpirma_dtype_scratch(t, count, &alloc);
		if (!mine)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (!ret)
		ret = mpirma_coll_reduce_to0(c->local, sendbuf, mine, count, t, dt, op);
	if (!ret && c->rank == 0) {
		ret = mpirma_coll_send(c, 0, TAG_REDUCE, mine, count, t);
		if (!ret)
			ret = mpirma_coll_recv(c, 0, TAG_REDUCE, recvbuf, count, t);
	}
	r2 = bcast(c->local, recvbuf, count, t, 0);
	free(alloc);
	return ret ? ret : r2;
}

/*
 * Reduce: the root's group passes MPI_ROOT (the root) and MPI_PROC_NULL;
 * the other group reduces to its leader, which sends to the root.
 */
static int inter_reduce(struct mpirma_comm *c, const void *sendbuf,
			void *recvbuf, int count, struct mpirma_dtype *t,
			MPI_Datatype dt, MPI_Op op, int root)
{
	void *alloc = NULL, *mine = NULL;
	int ret = MPI_SUCCESS;

	if (root == MPI_PROC_NULL || !count)
		return MPI_SUCCESS;
	if (root == MPI_ROOT)
		return mpirma_coll_recv(c, 0, TAG_REDUCE, recvbuf, count, t);
	ret = mpirma_coll_inter_in_place(sendbuf);
	if (!ret && c->rank == 0) {
		mine = mpirma_dtype_scratch(t, count, &alloc);
		if (!mine)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	/* the group's reduction runs even after a local error: see above */
	if (!ret)
		ret = mpirma_coll_reduce_to0(c->local, sendbuf, mine, count, t, dt, op);
	if (!ret && c->rank == 0)
		ret = mpirma_coll_send(c, root, TAG_REDUCE, mine, count, t);
	free(alloc);
	return ret;
}

/* lib/runtime/coll.h */
int mpirma_coll_run_reduce(struct mpirma_comm *c, const void *sendbuf,
			   void *recvbuf, int count, struct mpirma_dtype *t,
			   MPI_Datatype dt, MPI_Op op, int root)
{
	if (c->inter)
		return inter_reduce(c, sendbuf, recvbuf, count, t, dt, op,
				    root);
	return reduce(c, sendbuf, recvbuf, count, t, dt, op, root);
}

int mpirma_coll_run_allreduce(struct mpirma_comm *c, const void *sendbuf,
			      void *recvbuf, int count, struct mpirma_dtype *t,
			      MPI_Datatype dt, MPI_Op op)
{
	if (c->inter)
		return inter_allreduce(c, sendbuf, recvbuf, count, t, dt, op);
	return mpirma_coll_allreduce_intra(c, sendbuf, recvbuf, count, t, dt,
					   op);
}

int mpirma_coll_allreduce(struct mpirma_comm *c, const void *sendbuf,
			  void *recvbuf, int count, MPI_Datatype dt, MPI_Op op)
{
	struct mpirma_dtype *t;
	int ret = mpirma_dtype_check(dt, true, &t);

	if (!ret)
		ret = mpirma_op_check(op, dt, MPIRMA_OP_USE_REDUCE);
	return ret ? ret : mpirma_coll_run_allreduce(c, sendbuf, recvbuf, count,
						     t, dt, op);
}

