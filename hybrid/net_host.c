// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net_host.c - the agents' frames as the host's messages (net.h), on a
 * communicator of the layer's (a duplicate of MPI_COMM_WORLD, so a peer's
 * world rank is its rank there), which needs MPI_THREAD_MULTIPLE of the
 * host.  transport.c picks it only with MPIRMA_AGENT_TRANSPORT=host.
 *
 * A frame is one message, its tag the frame's.  Frames to the agent
 * (HY_TAG_OP) come into the inbox, a receive from any origin posted
 * ahead; one longer than the inbox comes as a message of no bytes there
 * (no frame of the agents' has none) and then its bytes on long_tag, past
 * the grant tags.  Replies and grants go to the receives their origins
 * posted first.
 *
 * A waiting program thread that serves waits in one call of the host for
 * its own requests and the inbox together (net_host_waitsome): where
 * ranks outnumber CPUs the host's own wait loop was 2-3 times faster than
 * polling the two in turn.  A wake (net_host_wake) ends such a wait with
 * a nudge, a message of one byte to the process's own inbox.
 *
 * The agent polls the inbox and sleeps between polls at its pace
 * (net_host_sleep, pace.h), and rests while its process has no window
 * that spans nodes (nobody ships to it then).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "errors.h"
#include "locks.h"
#include "net.h"
#include "net_host.h"
#include "pace.h"
#include "wire.h"

#define HOST_INBOX_BYTES (HY_BATCH_BYTES + 1024)	/* a batch and its header */

_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t),
	       "a host request fits struct hy_nrecv.host_req");

static MPI_Comm ship_comm = MPI_COMM_NULL;
static int long_tag;		/* a long frame's bytes: the host's MPI_TAG_UB */
static int me;			/* this process's rank */

/*
 * The inbox; touched only by the thread that drains (under the agent's
 * serve lock, net.h), or at start and stop.
 */
static MPI_Request inbox = MPI_REQUEST_NULL;
static char *inbox_buf;
static bool drained;		/* the last drain served a frame (atomic) */

/*
 * Threads blocked in net_host_waitsome (atomic), and whether a nudge is
 * on its way to end their wait (atomic; cleared as it is received).
 */
static int blocked;
static int nudged;

/* Keeps a reply's receive with its message's send (net.h). */
static struct hy_mutex order_lock = HY_MUTEX_INIT(HY_LOCK_NET_CONN);

/*
 * The agent's rest while no slot is in use: park_lock protects the wait
 * on park_cond, so that a wake between the look at woken and the wait is
 * not lost.  woken (atomic): a hy_net_wake() not drained yet.
 */
static struct hy_mutex park_lock = HY_MUTEX_INIT(HY_LOCK_PARK);
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static int woken;

static MPI_Request req_of(const struct hy_nrecv *r)
{
	MPI_Request q;

	memcpy(&q, &r->host_req, sizeof(q));
	return q;
}

static void req_set(struct hy_nrecv *r, MPI_Request q)
{
	memcpy(&r->host_req, &q, sizeof(q));
}

int net_host_start(void)
{
	int *ub = NULL, flag = 0;

	PMPI_Comm_rank(MPI_COMM_WORLD, &me);
	PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	long_tag = flag && ub ? *ub : 32767;	/* the least allowed */
	/* grant tags below long_tag; MPIRMA_TAG_UB may lower them */
	if (!hy.tag_ub || hy.tag_ub >= long_tag)
		hy.tag_ub = long_tag - 1;
	inbox_buf = malloc(HOST_INBOX_BYTES);
	if (!inbox_buf)
		return hy_fail(MPI_ERR_NO_MEM, "out of memory");
	__atomic_store_n(&woken, 0, __ATOMIC_RELAXED);
	return PMPI_Comm_dup(MPI_COMM_WORLD, &ship_comm);
}

void net_host_stop(void)
{
	if (inbox != MPI_REQUEST_NULL) {
		PMPI_Cancel(&inbox);
		PMPI_Wait(&inbox, MPI_STATUS_IGNORE);
	}
	if (ship_comm != MPI_COMM_NULL)
		PMPI_Comm_free(&ship_comm);
	free(inbox_buf);
	inbox_buf = NULL;
}

/* @a then @b as one buffer: @a itself without @b; *@own to free. */
static const void *joined(const void *a, size_t alen, const void *b,
			  size_t blen, void **own)
{
	char *p;

	*own = NULL;
	if (!blen)
		return a;
	p = malloc(alen + blen);
	if (!p)
		PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
	memcpy(p, a, alen);
	memcpy(p + alen, b, blen);
	*own = p;
	return p;
}

static int send_frame(int peer, uint32_t tag, const void *a, size_t alen,
		      const void *b, size_t blen)
{
	size_t len = alen + blen;
	void *own;
	const void *p = joined(a, alen, b, blen, &own);
	int ret;

	if (len > INT_MAX) {
		ret = MPI_ERR_COUNT;
	} else if (tag == HY_TAG_OP && len > HOST_INBOX_BYTES) {
		ret = PMPI_Send(NULL, 0, MPI_BYTE, peer, HY_TAG_OP, ship_comm);
		if (ret == MPI_SUCCESS)
			ret = PMPI_Send(p, (int)len, MPI_BYTE, peer, long_tag,
					ship_comm);
	} else {
		ret = PMPI_Send(p, (int)len, MPI_BYTE, peer, (int)tag,
				ship_comm);
	}
	free(own);
	return ret;
}

void net_host_post(struct hy_nrecv *r, int peer, uint32_t tag, void *buf,
		   size_t cap)
{
	MPI_Request q;

	*r = (struct hy_nrecv){ .buf = buf, .cap = cap, .tag = tag,
				.peer = peer };
	if (PMPI_Irecv(buf, cap > INT_MAX ? INT_MAX : (int)cap, MPI_BYTE,
		       peer, (int)tag, ship_comm, &q) != MPI_SUCCESS) {
		r->status = -EIO;
		r->done = true;
		q = MPI_REQUEST_NULL;
	}
	req_set(r, q);
}

int net_host_send(int peer, uint32_t tag, const void *a, size_t alen,
		  const void *b, size_t blen, struct hy_nrecv *r, void *rbuf,
		  size_t rcap, uint32_t rtag)
{
	int ret;

	hy_mutex_lock(&order_lock);
	if (r)
		net_host_post(r, peer, rtag, rbuf, rcap);
	ret = send_frame(peer, tag, a, alen, b, blen);
	hy_mutex_unlock(&order_lock);
	if (ret == MPI_SUCCESS)
		return 0;
	if (r && !r->done) {
		MPI_Request q = req_of(r);

		PMPI_Cancel(&q);
		PMPI_Wait(&q, MPI_STATUS_IGNORE);
		req_set(r, MPI_REQUEST_NULL);
		r->status = -EIO;
		r->done = true;
	}
	return -EIO;
}

/* @r ended with the host's @ret, and status @st when MPI_SUCCESS. */
static void recv_end(struct hy_nrecv *r, MPI_Request q, int ret,
		     const MPI_Status *st)
{
	int n = 0;

	if (ret != MPI_SUCCESS) {
		r->status = -EIO;
	} else {
		PMPI_Get_count(st, MPI_BYTE, &n);
		r->len = n > 0 ? (size_t)n : 0;
	}
	req_set(r, q);
	r->done = true;
}

void net_host_wake(void)
{
	static const char one;
	MPI_Request q;

	hy_mutex_lock(&park_lock);
	__atomic_store_n(&woken, 1, __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&park_cond);
	hy_mutex_unlock(&park_lock);
	if (!__atomic_load_n(&blocked, __ATOMIC_SEQ_CST) ||
	    __atomic_exchange_n(&nudged, 1, __ATOMIC_SEQ_CST))
		return;
	if (PMPI_Isend(&one, 1, MPI_BYTE, me, HY_TAG_OP, ship_comm,
		       &q) == MPI_SUCCESS)
		PMPI_Request_free(&q);
	else	/* none on its way: the next wake tries again */
		__atomic_store_n(&nudged, 0, __ATOMIC_SEQ_CST);
}

/* The agent's pace between polls of the inbox (pace.h). */
void net_host_sleep(void)
{
	static struct hy_pace pace = HY_PACE_INIT;	/* the agent's alone */
	struct timespec ts;

	if (__atomic_load_n(&woken, __ATOMIC_ACQUIRE))
		return;
	if (!hy_slots_live()) {
		hy_mutex_lock(&park_lock);
		while (!hy_slots_live() &&
		       !__atomic_load_n(&woken, __ATOMIC_ACQUIRE))
			pthread_cond_wait(&park_cond, &park_lock.m);
		hy_mutex_unlock(&park_lock);
		hy_pace_reset(&pace);
		return;
	}
	if (hy_pace_next(&pace, __atomic_load_n(&drained, __ATOMIC_RELAXED),
			 &ts))
		nanosleep(&ts, NULL);
}

/* The inbox's frame (@st its status) to @frame: messages served. */
static int inbox_frame(const MPI_Status *st, hy_net_frame_fn *frame)
{
	int n = 0, origin = st->MPI_SOURCE, served;
	MPI_Status ls;
	char *lng;

	PMPI_Get_count(st, MPI_BYTE, &n);
	if (n == 1) {	/* a nudge: what woke is seen by the next look */
		__atomic_store_n(&nudged, 0, __ATOMIC_SEQ_CST);
		return 0;
	}
	if (n > 0)
		return frame(origin, HY_TAG_OP, inbox_buf, (size_t)n);
	/* a long frame: its bytes were sent right after */
	if (PMPI_Probe(origin, long_tag, ship_comm, &ls) != MPI_SUCCESS)
		PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_INTERN);
	PMPI_Get_count(&ls, MPI_BYTE, &n);
	lng = malloc(n > 0 ? (size_t)n : 1);
	if (!lng)
		PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
	PMPI_Recv(lng, n, MPI_BYTE, origin, long_tag, ship_comm,
		  MPI_STATUS_IGNORE);
	served = frame(origin, HY_TAG_OP, lng, (size_t)n);
	free(lng);
	return served;
}

/* Posts the inbox unless it is posted: MPI_SUCCESS or the host's error. */
static int inbox_post(void)
{
	if (inbox != MPI_REQUEST_NULL)
		return MPI_SUCCESS;
	return PMPI_Irecv(inbox_buf, HOST_INBOX_BYTES, MPI_BYTE, MPI_ANY_SOURCE,
			  HY_TAG_OP, ship_comm, &inbox);
}

/* A wake not seen yet to @frame (origin -1). */
static int woken_frame(hy_net_frame_fn *frame)
{
	if (!__atomic_exchange_n(&woken, 0, __ATOMIC_SEQ_CST))
		return 0;
	return frame(-1, 0, NULL, 0);
}

int net_host_drain(hy_net_frame_fn *frame)
{
	MPI_Status st;
	int served = woken_frame(frame), flag;

	for (int k = 0; k < 8; k++) {
		flag = 0;
		if (inbox_post() != MPI_SUCCESS ||
		    PMPI_Test(&inbox, &flag, &st) != MPI_SUCCESS || !flag)
			break;
		/* inbox is MPI_REQUEST_NULL: posted again next round */
		served += inbox_frame(&st, frame);
	}
	__atomic_store_n(&drained, served > 0, __ATOMIC_RELAXED);
	return served;
}

void net_host_reply(int origin, uint32_t tag, const void *a, size_t alen,
		    const void *b, size_t blen)
{
	/* its origin posted the receive first: the send completes */
	if (send_frame(origin, tag, a, alen, b, blen) != MPI_SUCCESS)
		PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_INTERN);
}

int net_host_waitsome(int n, MPI_Request *req, MPI_Status *stat, bool block,
		      hy_net_frame_fn *frame, int *served)
{
	MPI_Request all[HY_WAIT_REQS + 1];
	MPI_Status st[HY_WAIT_REQS + 1];
	int idx[HY_WAIT_REQS + 1], out = 0, ret;

	__atomic_add_fetch(&blocked, 1, __ATOMIC_SEQ_CST);
	*served = woken_frame(frame);
	/* a wake after this look nudges the wait below */
	block = block && !*served;
	ret = inbox_post();
	if (ret != MPI_SUCCESS)
		goto unblock;
	if (n)
		memcpy(all, req, sizeof(*req) * (size_t)n);
	all[n] = inbox;
	ret = block ? PMPI_Waitsome(n + 1, all, &out, idx, st) :
		      PMPI_Testsome(n + 1, all, &out, idx, st);
	if (n)
		memcpy(req, all, sizeof(*req) * (size_t)n);
	inbox = all[n];
	for (int k = 0; ret == MPI_SUCCESS && k < out; k++) {
		if (idx[k] == n)
			*served += inbox_frame(&st[k], frame);
		else if (stat)
			stat[idx[k]] = st[k];
	}
unblock:
	__atomic_sub_fetch(&blocked, 1, __ATOMIC_SEQ_CST);
	return ret;
}

int net_host_wait(struct hy_nrecv *r,
		  int (*wait)(int n, MPI_Request *req, MPI_Status *stat))
{
	MPI_Request q = req_of(r);
	MPI_Status st;

	if (!r->done)
		recv_end(r, q, wait(1, &q, &st), &st);
	return r->status;
}
