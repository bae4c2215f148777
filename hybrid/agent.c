// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * agent.c - the agent thread: it receives the messages origins on other
 * nodes send to this process (wire.h) over the agents' transport
 * (net.h), applies each through the module, and replies.  Every origin's
 * messages are applied in the order it sent them (one stream per origin),
 * so accumulate_ordering holds.  Applying (apply.c) takes no lock of the
 * layer's but serve_lock (mpirma_rma_apply touches no engine state), so a
 * process blocked in an engine call under hy.lock, or in any call of the
 * host's, still serves the other nodes.  An epoch message (wire.h) takes
 * its lock in agent_slots.c first, and waits there when it must.
 *
 * Between messages the agent sleeps (hy_net_sleep): on its own transport
 * in epoll_wait(), taking no CPU and no lock of the host's, woken as a
 * message comes, or where ranks outnumber CPUs between polls of its rings
 * at its pace (net_serve.c, pace.h); on the host's, between polls of its
 * inbox at that pace (net_host.c).
 * While a program thread waits in the layer it serves instead
 * (hy_agent_assist, from waits.c), answering at once without a thread
 * switch, and the agent rests.  Lock requests go to agent_slots.c.
 * Started and stopped by node.c.
 */
#define _GNU_SOURCE		/* pthread_setname_np */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "apply.h"
#include "locks.h"
#include "net.h"
#include "net_host.h"
#include "node.h"
#include "transport.h"

#define HY_POLL_GAP	64	/* calls between a program thread's looks, at most */
#define HY_REST_NS	20000000 /* the agent's rests while threads wait: 20 ms */

static pthread_t agent_thread;

/*
 * Applying received messages and the epochs granted after they waited,
 * one thread at a time (the agent, or a program thread that gave back its
 * own lock), so that each origin's are applied in the order it sent them;
 * also protects what apply.c keeps (the reply buffer, a batch's
 * operations) and agent_stats.messages.
 */
static struct hy_mutex serve_lock = HY_MUTEX_INIT(HY_LOCK_SERVE);

/* hy_agent_stop asks the agent to end (atomic). */
static bool quit;

/* Program threads in a wait that serves (atomic): the agent rests. */
static int waiters;

/*
 * Program threads asleep in the module (atomic): the agent looks again
 * after a yield, not after its paced sleep, for the CPU is theirs.
 */
static int sleepers;

/*
 * The agent's rest while program threads serve (agent_rest): park_lock
 * protects the wait on park_cond, so that the stop's wake between the
 * agent's look at quit and its wait is not lost.
 */
static struct hy_mutex park_lock = HY_MUTEX_INIT(HY_LOCK_PARK);
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;

/* What the agent did, for hy_agent_stop's report. */
static struct {
	long long messages;	/* messages served, by anyone */
	long long assisted;	/* ... of them by a waiting program thread */
	long long cpu_ns;	/* the agent thread's CPU time */
	long long wall_ns;	/* its lifetime */
} agent_stats;

long long hy_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Applies epoch message @h of @n bytes from @origin, whose lock it holds:
 * its batch, the reply with the results on the slot's grant tag (the
 * epoch may have waited behind others: no reply order to keep), and the
 * release when the epoch ends with it.  serve_lock held.
 */
static void serve_epoch(const struct ship_hdr *h, size_t n, int origin)
{
	struct hy_slot_target s;
	struct ship_reply *r;
	uint32_t index = 0;
	size_t rbytes = 0;
	int status = -EBADF;

	hy_mutex_assert_held(&serve_lock);
	if (hy_slot_target(h->slot, &s))
		status = hy_apply_batch(h + 1, n - sizeof(*h), &s, &index, true,
					&rbytes);
	if (h->flags & HY_EPOCH_RELEASE)
		hy_slot_release((int)h->slot);
	r = hy_apply_reply(0);
	if (!r)
		PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
	r->status = status;
	r->index = index;
	hy_net_reply(origin, HY_TAG_GRANT + h->slot, r, sizeof(*r) + rbytes,
		     NULL, 0);
}

/* Applies the waiting epochs releases have granted; serve_lock held. */
static void serve_ready(void)
{
	struct ship_hdr *h;
	size_t n;
	int origin;

	while (hy_slot_ready(&h, &n, &origin)) {
		serve_epoch(h, n, origin);
		free(h);
	}
}

/*
 * Applies message @h of @n bytes from @origin, and replies.  serve_lock
 * held.  Out of memory it ends the job: an origin would otherwise wait
 * for its reply forever.
 */
static void serve_msg(struct ship_hdr *h, size_t n, int origin)
{
	struct ship_reply *reply;
	uint32_t index;
	int rlen, status;

	hy_mutex_assert_held(&serve_lock);
	if (!hy_apply_reply(0))
		PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
	agent_stats.messages++;
	if (n == sizeof(*h) && (h->kind == HY_KIND_LOCK ||
				h->kind == HY_KIND_UNLOCK ||
				h->kind == HY_KIND_RETRY)) {
		hy_slot_serve_lock(h, origin);
		serve_ready();	/* an unlock may have granted epochs */
		return;
	}
	if (n >= sizeof(*h) && h->kind == HY_KIND_EPOCH) {
		if (hy_slot_epoch(h, n, origin))
			serve_epoch(h, n, origin);
		serve_ready();
		return;
	}
	status = hy_apply_msg(h, n, &rlen, &index);
	reply = hy_apply_reply(0);
	reply->status = status;
	reply->index = index;
	hy_net_reply(origin, HY_TAG_REPLY, reply, (size_t)rlen, NULL, 0);
}

/* hy_net_drain's call per frame (origin -1: a wake); serve_lock held. */
static int serve_frame(int origin, uint32_t tag, void *data, size_t len)
{
	hy_mutex_assert_held(&serve_lock);
	if (origin < 0) {	/* hy_agent_serve_ready's, or the stop's */
		serve_ready();
		return 0;
	}
	if (tag != HY_TAG_OP)
		return 0;
	serve_msg(data, len, origin);
	return 1;
}

/*
 * Rests while program threads wait, and so serve: HY_REST_NS at most, then
 * looks again, or until the stop.  Not in epoll_wait(), where every frame
 * would wake it for nothing (the waiting thread serves it), and not woken
 * as a wait ends: under emulation each such wake-up took a CPU from a
 * waiting rank (a put and its flush at two logical nodes 300 us against
 * 25; with 4 ranks on 2 CPUs, waking it when a frame was left as the last
 * wait ended made put, flush and barrier 1.4-1.8x slower).  The price: a
 * frame that comes just after the last wait ended waits for the rest's
 * end, 20 ms at most, as on the host before.
 */
static void agent_rest(void)
{
	long long end = hy_clock_ns(CLOCK_MONOTONIC) + HY_REST_NS;
	const struct timespec until = { .tv_sec = end / 1000000000LL,
					.tv_nsec = (long)(end % 1000000000LL) };

	hy_mutex_lock(&park_lock);
	if (__atomic_load_n(&waiters, __ATOMIC_SEQ_CST) &&
	    !__atomic_load_n(&quit, __ATOMIC_ACQUIRE))
		pthread_cond_clockwait(&park_cond, &park_lock.m,
				       CLOCK_MONOTONIC, &until);
	hy_mutex_unlock(&park_lock);
}

static void park_wake(void)
{
	hy_mutex_lock(&park_lock);
	pthread_cond_broadcast(&park_cond);
	hy_mutex_unlock(&park_lock);
}

/* The agent: serves every origin until hy_agent_stop. */
static void *agent(void *unused)
{
	long long born = hy_clock_ns(CLOCK_MONOTONIC);

	(void)unused;
	while (!__atomic_load_n(&quit, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&waiters, __ATOMIC_SEQ_CST)) {
			agent_rest();
			continue;
		}
		if (__atomic_load_n(&sleepers, __ATOMIC_SEQ_CST) &&
		    hy_slots_live())
			sched_yield();
		else
			hy_net_sleep();
		if (__atomic_load_n(&waiters, __ATOMIC_SEQ_CST))
			continue;	/* the waiting thread serves it */
		hy_mutex_lock(&serve_lock);
		agent_stats.messages += hy_net_drain(serve_frame);
		hy_mutex_unlock(&serve_lock);
	}
	agent_stats.cpu_ns = hy_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	agent_stats.wall_ns = hy_clock_ns(CLOCK_MONOTONIC) - born;
	return NULL;
}

/* Messages this program thread has served (hy_agent_assisted). */
static __thread unsigned int assisted_here;

unsigned int hy_agent_assisted(void)
{
	return assisted_here;
}

void hy_agent_waiting(int delta)
{
	__atomic_add_fetch(&waiters, delta, __ATOMIC_SEQ_CST);
}

void hy_agent_sleeping(int delta)
{
	__atomic_add_fetch(&sleepers, delta, __ATOMIC_SEQ_CST);
}

int hy_agent_serve(void)
{
	int n;

	if (!hy.agent || hy_mutex_trylock(&serve_lock))
		return 0;
	n = hy_net_drain(serve_frame);
	agent_stats.messages += n;
	agent_stats.assisted += n;
	hy_mutex_unlock(&serve_lock);
	assisted_here += (unsigned int)n;
	return n;
}

/* Testall of @req, their statuses into @stat (NULL: ignored) once done. */
static int test_all(int n, MPI_Request *req, MPI_Status *stat)
{
	MPI_Status st[HY_WAIT_REQS];
	bool was[HY_WAIT_REQS];
	int flag = 0, ret, k;

	for (k = 0; k < n; k++)
		was[k] = req[k] != MPI_REQUEST_NULL;
	ret = PMPI_Testall(n, req, &flag, st);
	for (k = 0; stat && ret == MPI_SUCCESS && flag && k < n; k++)
		if (was[k])
			stat[k] = st[k];
	return ret;
}

/*
 * On the host's transport: one call of the host waits for @req and the
 * agent's inbox together (net_host.c), unless another thread serves;
 * where the host spins (hy.yield) it only tests, and the wait yields
 * between rounds (waits.c).
 */
static int assist_host(int n, MPI_Request *req, MPI_Status *stat)
{
	int ret, served = 0;

	if (!hy.agent || hy_mutex_trylock(&serve_lock))
		return test_all(n, req, stat);
	ret = net_host_waitsome(n, req, stat, !hy.yield, serve_frame,
				&served);
	agent_stats.messages += served;
	agent_stats.assisted += served;
	hy_mutex_unlock(&serve_lock);
	assisted_here += (unsigned int)served;
	return ret;
}

int hy_agent_assist(int n, MPI_Request *req, MPI_Status *stat)
{
	MPI_Status st[HY_WAIT_REQS];
	int idx[HY_WAIT_REQS], out = 0, ret = MPI_SUCCESS, flag;

	if (hy_transport_on_host())
		return assist_host(n, req, stat);
	if (n == 1)
		ret = PMPI_Test(req, &flag, stat ? stat : MPI_STATUS_IGNORE);
	else if (n)
		ret = PMPI_Testsome(n, req, &out, idx, st);
	for (int k = 0; stat && ret == MPI_SUCCESS && k < out &&
	     out != MPI_UNDEFINED; k++)
		stat[idx[k]] = st[k];
	hy_agent_serve();
	return ret;
}

/*
 * (agent.h) A program thread busy in its own RMA is in the layer often: a
 * look then answers a remote origin without waking the agent.  A look
 * that finds nothing doubles the calls skipped before the next, up to
 * HY_POLL_GAP: a stream from a remote origin is served at every call, an
 * idle one costs little.
 */
void hy_agent_poll(void)
{
	static __thread unsigned int skip, gap;
	int got;

	if (!hy.agent)
		return;
	if (skip) {
		skip--;
		return;
	}
	got = hy_agent_serve();
	gap = got > 0 ? 0 : gap ? 2 * gap : 1;
	if (gap > HY_POLL_GAP)
		gap = HY_POLL_GAP;
	skip = gap;
}

void hy_agent_serve_ready(void)
{
	if (!hy.agent)
		return;
	if (hy_mutex_trylock(&serve_lock)) {
		hy_net_wake();	/* the agent applies them next */
		return;
	}
	serve_ready();
	hy_mutex_unlock(&serve_lock);
}

int hy_agent_start(void)
{
	bool words;
	int ok, all;

	if (!hy.span || hy.span_host_acc)
		return MPI_SUCCESS;
	/* 0: no limit but the slots' (MPIRMA_TAG_UB lowers it for tests) */
	if (!hy.tag_ub)
		hy.tag_ub = INT32_MAX;
	/* collective over the node: its result is agreed below */
	words = hy_slot_words_start();
	if (hy_net_start() != MPI_SUCCESS) {
		hy_slot_words_stop();
		hy.span = false;
		return MPI_SUCCESS;
	}
	ok = words && pthread_create(&agent_thread, NULL, agent, NULL) == 0;
	if (ok) {
		/* what top -H and /proc show for it */
		pthread_setname_np(agent_thread, "mpirma-agent");
		/*
		 * Not bound to its rank's core, where the rank spins in the
		 * host's waits: a message woke an agent there only when the
		 * rank's time slice ended (0.3-0.8 ms for a put and flush
		 * to a target in MPI_Barrier, in the VM), where another CPU
		 * of the node, its origin's, was idle.
		 */
		hy_node_affinity(agent_thread);
	}
	hy.agent = ok;
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		if (ok) {
			hy_agent_stop(false);
		} else {
			hy_net_stop();
			hy_slot_words_stop();
		}
		hy.span = false;
	}
	return MPI_SUCCESS;
}

void hy_agent_stop(bool report)
{
	int me;

	if (!hy.agent)
		return;
	PMPI_Comm_rank(MPI_COMM_WORLD, &me);
	__atomic_store_n(&quit, true, __ATOMIC_RELEASE);
	hy_net_wake();
	park_wake();
	pthread_join(agent_thread, NULL);
	if (report && agent_stats.wall_ns > 0)
		fprintf(stderr, "mpirma: agent of rank %d: %lld messages "
			"served (%lld by waiting program threads), %.1f%% of "
			"a CPU over %.1f s\n", me, agent_stats.messages,
			agent_stats.assisted,
			100.0 * (double)agent_stats.cpu_ns /
			(double)agent_stats.wall_ns,
			(double)agent_stats.wall_ns / 1e9);
	hy_net_stop();
	hy.span = false;
	hy.agent = false;
	__atomic_store_n(&quit, false, __ATOMIC_RELEASE);
	hy_apply_free();
	hy_slots_free();
	hy_slot_words_stop();
}
