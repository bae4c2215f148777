// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shmq_lean.c - the lean lane of MPI_Send, MPI_Isend, MPI_Recv,
 * MPI_Irecv and MPI_Sendrecv: a small message of a contiguous predefined
 * datatype goes straight into its ring, and a receive takes it straight
 * out when it is the next unit from its sender and nothing else could be
 * owed it.  An 8-byte send and its receive otherwise passed five layers
 * of checks and dispatch each (about 530 and 550 instructions under
 * callgrind); under emulation, where every call and return costs a
 * lookup, that was the whole of a ping-pong's latency.
 *
 * The lane only ever takes the commonest case and answers false for the
 * rest before it has changed anything: the general path (p2p.c) then
 * runs the call from the start, with every check and error.  So it needs
 * no error of its own: a bad argument simply is not the common case.
 */
#include "datatype.h"
#include "nbc.h"
#include "p2p.h"
#include "reduce.h"
#include "request.h"
#include "shmq.h"
#include "tool.h"

/*
 * The largest message the lane takes: one REC_DATA unit (shmq_ring.c,
 * unit_chunk(): up to 4 KiB a message is one unit).
 */
#define LEAN_MAX	4096

/*
 * The communicator of a call the lane may take (@peer a rank of it, not
 * MPI_PROC_NULL or MPI_ANY_SOURCE) with the bytes of its message in
 * *@len, or NULL.
 */
static __always_inline struct mpirma_comm *lean_args(MPI_Comm comm, int count,
						     MPI_Datatype dt, int peer,
						     size_t *len)
{
	int kt = mpirma_dtype_elem_ktype(dt);
	struct mpirma_comm *c;

	if (mpirma_threads || !shmq.on || kt < 0 || count < 0 ||
	    count > LEAN_MAX)
		return NULL;
	*len = (size_t)count * mpirma_type_info[kt].size;
	if (*len > LEAN_MAX || *len > shmq.frag)
		return NULL;
	c = mpirma_comm_get(comm);
	if (!c || peer < 0 || peer >= mpirma_comm_peer_size(c))
		return NULL;
	return c;
}

/* p2p.h */
bool mpirma_lean_send(const void *buf, int count, MPI_Datatype dt, int dest,
		      int tag, MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct shmq_rec h;
	uint32_t dst;
	size_t len;

	c = lean_args(comm, count, dt, dest, &len);
	if (!c || tag < 0)
		return false;
	dst = (uint32_t)mpirma_comm_job_rank(c, dest);
	/* room counts a REC_PAD to the ring's end, which the write puts */
	if (!shmq_ring_room(dst, len))
		return false;
	h = (struct shmq_rec){
		.kind = REC_DATA, .tag = tag, .ctx = mpirma_ctx_p2p(c),
		.len = len, .chunk = len, .seq = shmq.out[dst].seq + 1,
	};
	shmq_ring_write(dst, &h, buf);
	shmq_unit_publish(dst, h.seq);
	mpirma_counters.msgs_sent++;
	mpirma_counters.bytes_sent += len;
	return true;
}

/*
 * Is the unit due from @src in its ring (not spilled), now or (@wait)
 * within shmq_spin()'s looks?  Its header then, else NULL.
 */
static const struct shmq_rec *lean_due(uint32_t src, bool wait)
{
	const struct shmq_ring *rg = shmq_ring_of(shmq.me, src);
	uint64_t due = shmq.next[src], head;
	const struct shmq_rec *r;

	if (!shmq_unit_ready(src) && !(wait && shmq_spin(src)))
		return NULL;
	head = rg->head;
	if (head == __atomic_load_n(&rg->tail, __ATOMIC_ACQUIRE))
		return NULL;
	r = (const struct shmq_rec *)(shmq_ring_data(shmq.me, src) +
				      (head & (shmq.ring - 1)));
	return r->kind == REC_DATA && r->seq == due ? r : NULL;
}

/* The communicator of a receive the lane may take, with its capacity. */
static struct mpirma_comm *lean_recv_args(int count, MPI_Datatype dt,
					  int source, int tag, MPI_Comm comm,
					  size_t *cap)
{
	struct mpirma_comm *c = lean_args(comm, count, dt, source, cap);

	return c && (tag >= 0 || tag == MPI_ANY_TAG) ? c : NULL;
}

/* p2p.h */
bool mpirma_lean_recv_ok(int count, MPI_Datatype dt, int source, int tag,
			 MPI_Comm comm)
{
	size_t cap;

	return lean_recv_args(count, dt, source, tag, comm, &cap);
}

/*
 * The unit due from job rank @src when a receive of transport tag @tag on
 * @ctx into @cap bytes may take it by the lane: in the ring (@wait:
 * within shmq_spin()'s looks), matching, fitting, with nothing unexpected
 * or half put together from @src that it could be owed to and no
 * nonblocking collective pending.  Else NULL.
 */
static const struct shmq_rec *lean_match(uint32_t src, int32_t tag,
					 uint64_t ctx, size_t cap, bool wait)
{
	const struct shmq_rec *r;

	if (shmq.uhead || shmq.build[src].active || mpirma_nbc_pending())
		return NULL;
	r = lean_due(src, wait);
	if (!r || r->ctx != ctx || r->len > cap ||
	    (tag != MPIRMA_ANY_TAG && r->tag != tag))
		return NULL;
	return r;
}

/*
 * The unit a receive may take by the lane, from job rank *@src, with no
 * receive posted that it could be owed to (lean_match()).  Else NULL;
 * *@cp is the communicator when the arguments are the lane's case.
 */
static const struct shmq_rec *lean_find(int count, MPI_Datatype dt,
					int source, int tag, MPI_Comm comm,
					bool wait, uint32_t *src,
					struct mpirma_comm **cp)
{
	struct mpirma_comm *c;
	size_t cap;

	*cp = c = lean_recv_args(count, dt, source, tag, comm, &cap);
	if (!c || mpirma_p2p_posted())
		return NULL;
	*src = (uint32_t)mpirma_comm_job_rank(c, source);
	return lean_match(*src, mpirma_p2p_tag(tag), mpirma_ctx_p2p(c), cap,
			  wait);
}

/* Takes unit @r, found by lean_find(), into @buf: its header in *@h. */
static void lean_take(uint32_t src, const struct shmq_rec *r, void *buf,
		      struct shmq_rec *h)
{
	struct shmq_ring *rg = shmq_ring_of(shmq.me, src);

	*h = *r;
	if (h->len)
		mpirma_copy(buf, r + 1, h->len);
	__atomic_store_n(&rg->head, rg->head + shmq_rec_bytes(h->chunk),
			 __ATOMIC_RELEASE);
	shmq.next[src]++;
	shmq_sync_taken(src, h);
	mpirma_counters.msgs_received++;
	mpirma_counters.bytes_received += h->len;
}

/* p2p.h */
bool mpirma_lean_take(uint32_t src, int32_t tag, uint64_t ctx, void *buf,
		      size_t cap, struct mpirma_msg *m)
{
	const struct shmq_rec *r;
	struct shmq_rec h;

	if (mpirma_threads || !shmq.on || src >= shmq.n)
		return false;
	r = lean_match(src, tag, ctx, cap, false);
	if (!r)
		return false;
	lean_take(src, r, buf, &h);
	m->source = src;
	m->msg_tag = h.tag;
	m->msg_len = h.len;
	return true;
}

/* p2p.h */
bool mpirma_lean_recv(void *buf, int count, MPI_Datatype dt, int source,
		      int tag, MPI_Comm comm, MPI_Status *status)
{
	const struct shmq_rec *r;
	struct mpirma_comm *c;
	struct shmq_rec h;
	uint32_t src;

	r = lean_find(count, dt, source, tag, comm, true, &src, &c);
	if (!r)
		return false;
	lean_take(src, r, buf, &h);
	mpirma_status_user(status, source, h.tag, (MPI_Count)h.len);
	return true;
}

/* p2p.h */
bool mpirma_lean_irecv(void *buf, int count, MPI_Datatype dt, int source,
		       int tag, MPI_Comm comm, MPI_Request *request, int *ret,
		       struct mpirma_comm **c)
{
	struct mpirma_request *req;
	const struct shmq_rec *r;
	struct shmq_rec h;
	uint32_t src;

	*c = NULL;
	r = request ? lean_find(count, dt, source, tag, comm, false, &src, c) :
		      NULL;
	if (!r)
		return false;
	/* The request first: without one the message stays where it is. */
	req = mpirma_request_recvd(comm, request);
	if (!req) {
		*ret = MPI_ERR_NO_MEM;
		return true;
	}
	*ret = MPI_SUCCESS;
	lean_take(src, r, buf, &h);
	mpirma_status_set(&req->status, source, h.tag, MPI_SUCCESS,
			  (MPI_Count)h.len);
	return true;
}
