// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll.c - small collectives over the host's point-to-point, for the waits
 * that serve (waits.c).
 *
 * While agents run, a process inside MPI_Barrier, MPI_Allreduce or
 * MPI_Bcast must keep serving the other nodes, so it cannot sit in the
 * host's blocking call.  The host's nonblocking collectives plus a wait
 * that serves did that, but cost 4-5x the blocking ones (Open MPI's
 * MPI_Ibarrier through libnbc, 12 us against 3.4 at two logical nodes in
 * the VM).  These are the classic algorithms over PMPI_Isend/PMPI_Irecv,
 * each round one wait that also serves (hy_wait): a dissemination
 * barrier, recursive doubling for small allreduces on power-of-two
 * groups, a binomial tree for small broadcasts.  Anything else (an
 * inter-communicator, a large or derived-datatype reduction) is the
 * host's nonblocking call, as before.
 *
 * Their messages travel on a private duplicate of the communicator, made
 * at its first such collective (every member reaches that point, as they
 * call collectives in the same order) and kept in an attribute that MPI
 * frees with the communicator; successive collectives on it match in
 * order, which the standard's collective ordering guarantees.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "coll.h"
#include "errors.h"
#include "waits.h"

#define COLL_TAG	1
#define COLL_SMALL	8192	/* bytes: allreduce and bcast done here, at most */

/* The attribute holding a communicator's private duplicate. */
static int dup_keyval = MPI_KEYVAL_INVALID;

static int dup_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
	MPI_Comm dup = (MPI_Comm)(uintptr_t)attr;

	(void)comm;
	(void)keyval;
	(void)extra;
	return PMPI_Comm_free(&dup);
}

/* *@kv made on first use; threads: the first keyval made stays. */
static int keyval_once(int *kv, MPI_Comm_copy_attr_function *copy,
		       MPI_Comm_delete_attr_function *del)
{
	int mine, none = MPI_KEYVAL_INVALID, ret;

	if (__atomic_load_n(kv, __ATOMIC_ACQUIRE) != MPI_KEYVAL_INVALID)
		return MPI_SUCCESS;
	ret = PMPI_Comm_create_keyval(copy, del, &mine, NULL);
	if (ret != MPI_SUCCESS)
		return ret;
	if (!__atomic_compare_exchange_n(kv, &none, mine, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		PMPI_Comm_free_keyval(&mine);
	return MPI_SUCCESS;
}

/*
 * The communicators whose collectives serve: those a window that spans
 * nodes was created over, marked by every member at the same point of the
 * creation (hy_coll_serve), and their duplicates (the mark is copied).
 * The program's collectives on any other are the host's blocking calls,
 * at the host's cost; its agent serves a process inside one.  A mark
 * stays for the communicator's life, so every member decides alike
 * whatever windows each has freed since.
 */
static int serve_keyval = MPI_KEYVAL_INVALID;

void hy_coll_serve(MPI_Comm comm)
{
	if (keyval_once(&serve_keyval, MPI_COMM_DUP_FN,
			MPI_COMM_NULL_DELETE_FN) == MPI_SUCCESS)
		PMPI_Comm_set_attr(comm, serve_keyval, (void *)1);
}

bool hy_coll_serves(MPI_Comm comm)
{
	int kv = __atomic_load_n(&serve_keyval, __ATOMIC_ACQUIRE);
	void *attr;
	int flag = 0;

	if (kv == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL)
		return false;
	return PMPI_Comm_get_attr(comm, kv, &attr, &flag) == MPI_SUCCESS &&
	       flag;
}

/*
 * @comm's private duplicate into *@priv, made on first use; MPI_COMM_NULL
 * when these collectives do not serve @comm (an inter-communicator, or
 * the duplicate could not be made).  Host class.
 */
static int coll_comm(MPI_Comm comm, MPI_Comm *priv)
{
	MPI_Comm dup;
	void *attr;
	int flag = 0, inter = 0, ret;

	*priv = MPI_COMM_NULL;
	if (comm == MPI_COMM_NULL)
		return MPI_SUCCESS;	/* the host's call reports it */
	ret = PMPI_Comm_test_inter(comm, &inter);
	if (ret != MPI_SUCCESS || inter)
		return ret;
	ret = keyval_once(&dup_keyval, MPI_COMM_NULL_COPY_FN, dup_delete);
	if (ret != MPI_SUCCESS)
		return ret;
	ret = PMPI_Comm_get_attr(comm, dup_keyval, &attr, &flag);
	if (ret != MPI_SUCCESS)
		return ret;
	if (flag) {
		*priv = (MPI_Comm)(uintptr_t)attr;
		return MPI_SUCCESS;
	}
	ret = hy_wait_comm_dup(comm, &dup);
	if (ret != MPI_SUCCESS)
		return ret;
	ret = PMPI_Comm_set_attr(comm, dup_keyval, (void *)(uintptr_t)dup);
	if (ret != MPI_SUCCESS) {
		PMPI_Comm_free(&dup);
		return ret;
	}
	*priv = dup;
	return MPI_SUCCESS;
}

/* One exchange: receive @rbytes from @from while sending @sbytes to @to. */
static int exchange(const void *sbuf, int sbytes, int to, void *rbuf,
		    int rbytes, int from, MPI_Comm c)
{
	MPI_Request req[2];
	int ret;

	ret = PMPI_Irecv(rbuf, rbytes, MPI_BYTE, from, COLL_TAG, c, &req[0]);
	if (ret != MPI_SUCCESS)
		return ret;
	ret = PMPI_Isend(sbuf, sbytes, MPI_BYTE, to, COLL_TAG, c, &req[1]);
	if (ret != MPI_SUCCESS) {
		PMPI_Cancel(&req[0]);
		PMPI_Request_free(&req[0]);
		return ret;
	}
	return hy_wait(2, req);
}

int hy_coll_barrier(MPI_Comm comm, bool *done)
{
	MPI_Comm c;
	int n, me, k, ret;

	*done = false;
	ret = coll_comm(comm, &c);
	if (ret != MPI_SUCCESS || c == MPI_COMM_NULL)
		return ret;
	*done = true;
	PMPI_Comm_size(c, &n);
	PMPI_Comm_rank(c, &me);
	for (k = 1; k < n && ret == MPI_SUCCESS; k <<= 1)
		ret = exchange(NULL, 0, (me + k) % n, NULL, 0,
			       (me - k + n) % n, c);
	return ret;
}

/*
 * Is @op on @type one these reductions compute, with its size in *@size?
 * The arithmetic and bitwise ops on C's integer and floating types: what
 * small allreduces use, and a pair every host accepts, so that the host's
 * own checks (and error handlers) are never bypassed; anything else is the
 * host's call.
 */
static bool plain_op(MPI_Op op, MPI_Datatype type, int *size)
{
	static const MPI_Datatype ints[] = {
		MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
		MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_SHORT,
		MPI_UNSIGNED_SHORT, MPI_INT32_T, MPI_INT64_T, MPI_UINT32_T,
		MPI_UINT64_T,
	};
	bool is_int = false;
	size_t k;

	for (k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
		is_int |= type == ints[k];
	if (!is_int && type != MPI_FLOAT && type != MPI_DOUBLE)
		return false;
	if (op != MPI_SUM && op != MPI_PROD && op != MPI_MAX && op != MPI_MIN &&
	    !(is_int && (op == MPI_LAND || op == MPI_LOR || op == MPI_BAND ||
			 op == MPI_BOR)))
		return false;
	return PMPI_Type_size(type, size) == MPI_SUCCESS && *size > 0;
}

/*
 * Recursive doubling: at each step the two partners hold the reductions of
 * two adjacent blocks of ranks and both compute lower block op higher
 * block, so every rank ends with the same bits in rank order (the op need
 * not commute).
 */
int hy_coll_allreduce(const void *in, void *out, int count,
		      MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool *done)
{
	char tmp[COLL_SMALL];
	MPI_Comm c;
	int n, me, mask, size, bytes, ret;

	*done = false;
	if (count <= 0 || !plain_op(op, type, &size) ||
	    count > COLL_SMALL / size || !out || in == out)
		return MPI_SUCCESS;
	ret = PMPI_Comm_size(comm, &n);
	if (ret != MPI_SUCCESS || n & (n - 1))
		return ret;
	ret = coll_comm(comm, &c);
	if (ret != MPI_SUCCESS || c == MPI_COMM_NULL)
		return ret;
	*done = true;
	bytes = count * size;
	PMPI_Comm_rank(c, &me);
	if (in != MPI_IN_PLACE)
		memcpy(out, in, (size_t)bytes);
	for (mask = 1; mask < n && ret == MPI_SUCCESS; mask <<= 1) {
		int partner = me ^ mask;

		ret = exchange(out, bytes, partner, tmp, bytes, partner, c);
		if (ret != MPI_SUCCESS)
			break;
		if (partner < me) {
			ret = PMPI_Reduce_local(tmp, out, count, type, op);
		} else {
			ret = PMPI_Reduce_local(out, tmp, count, type, op);
			memcpy(out, tmp, (size_t)bytes);
		}
	}
	return ret;
}

/* A binomial tree from @root: receive from the parent, send to children. */
int hy_coll_bcast(void *buf, int count, MPI_Datatype type, int root,
		  MPI_Comm comm, bool *done)
{
	MPI_Request req[HY_WAIT_REQS];
	MPI_Comm c;
	int n, me, rel, mask, size, nreq = 0, ret;

	*done = false;
	/* only where the host's call would take the arguments */
	if (type == MPI_DATATYPE_NULL || count < 0 ||
	    PMPI_Type_size(type, &size) != MPI_SUCCESS ||
	    (size && count > COLL_SMALL / size) || (count && size && !buf))
		return MPI_SUCCESS;
	ret = PMPI_Comm_size(comm, &n);
	if (ret != MPI_SUCCESS || root < 0 || root >= n)
		return ret;	/* the host's call reports a bad root */
	ret = coll_comm(comm, &c);
	if (ret != MPI_SUCCESS || c == MPI_COMM_NULL)
		return ret;
	*done = true;
	PMPI_Comm_rank(c, &me);
	rel = (me - root + n) % n;
	for (mask = 1; mask < n; mask <<= 1) {
		if (rel & mask) {
			ret = PMPI_Irecv(buf, count, type, (me - mask + n) % n,
					 COLL_TAG, c, &req[0]);
			if (ret == MPI_SUCCESS)
				ret = hy_wait(1, req);
			if (ret != MPI_SUCCESS)
				return ret;
			break;
		}
	}
	for (mask >>= 1; mask > 0; mask >>= 1) {
		if (rel + mask >= n)
			continue;
		ret = PMPI_Isend(buf, count, type, (me + mask) % n, COLL_TAG, c,
				 &req[nreq++]);
		if (ret == MPI_SUCCESS && nreq == HY_WAIT_REQS) {
			ret = hy_wait(nreq, req);
			nreq = 0;
		}
		if (ret != MPI_SUCCESS)
			break;
	}
	if (nreq) {
		int wret = hy_wait(nreq, req);

		if (ret == MPI_SUCCESS)
			ret = wret;
	}
	return ret;
}
