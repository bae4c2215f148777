// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * agent.c - the agent thread: it receives the messages origins on other
 * nodes send to this process (wire.h), applies each through the module,
 * and replies.  Every origin's messages are applied in the order it sent
 * them (one ordered channel per origin: source, tag and communicator), so
 * accumulate_ordering holds.  Applying (apply.c) takes no lock of the
 * layer's but serve_lock (mpirma_rma_apply touches no engine state), so a
 * process blocked in an engine call under hy.lock still serves the other
 * nodes.  An epoch message (wire.h) takes its lock in agent_slots.c
 * first, and waits there when it must.
 *
 * The agent polls and sleeps (its pace, below), and rests while its process
 * has no window that spans nodes, or while a program thread waiting in the
 * layer serves in its stead (hy_agent_assist, from waits.c).
 * Lock requests go to agent_slots.c.  Started and stopped by node.c.
 */
#define _GNU_SOURCE		/* pthread_setname_np */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "agent.h"
#include "apply.h"
#include "locks.h"
#include "rma_args.h"

#define HY_IDLE_MIN_NS	2000	/* the agent's sleeps between polls: 2 us ... */
#define HY_IDLE_MAX_NS	2000000	/* ... to 2 ms */
#define HY_IDLE_SHARE	20	/* idle, a sleep of 20 rounds' cost per round */
#define HY_POLL_GAP	64	/* calls between a program thread's looks, at most */
#define HY_REST_NS	20000000 /* the agent's rests while threads wait: 20 ms */

static pthread_t agent_thread;

/*
 * Receiving and applying the shipped messages, one thread at a time (the
 * agent, or a program thread in an assisted wait), so that each origin's
 * are applied in the order it sent them; also protects serving, what
 * apply.c keeps (the reply buffer, a batch's operations) and
 * agent_stats.messages.
 */
static struct hy_mutex serve_lock = HY_MUTEX_INIT(HY_LOCK_SERVE);

static struct {
	bool quit;			/* HY_QUIT has come */
	MPI_Request inbox;		/* the receive of the next message */
	struct ship_hdr *inbox_buf;	/* ... into HY_INBOX_BYTES */
} serving = { .inbox = MPI_REQUEST_NULL };

/* Program threads in an assisted wait (atomic): they serve, the agent rests. */
static int waiters;

/*
 * A nudge is on its way to this process's inbox (atomic): epochs became
 * ready while another thread held serve_lock, maybe blocked in the host's
 * wait for its own requests and the inbox (hy_agent_assist), which only a
 * message ends.  Its origins wait for their replies, and the blocked
 * thread may wait for them in turn.
 */
static int nudged;

/*
 * The agent's rest while this process has no window that spans nodes (no
 * slot in use, so no origin ships to it): it waits on park_cond and makes
 * no polls, which took the host's progress lock and a time slice from the
 * program's threads; and its timed rest while program threads wait
 * (agent_rest).  park_lock protects park_stop and the waits, so that a
 * wake between the agent's look at the slot count and its wait is not
 * lost.
 */
static struct hy_mutex park_lock = HY_MUTEX_INIT(HY_LOCK_PARK);
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static bool park_stop;		/* hy_agent_stop: rest no more */

/* What the agent did, for hy_agent_stop's report. */
static struct {
	long long messages;	/* messages served, by anyone */
	long long assisted;	/* ... of them by a waiting program thread */
	long long cpu_ns;	/* the agent thread's CPU time */
	long long wall_ns;	/* its lifetime */
} agent_stats;

/*
 * The agent's pace.  A blocking probe would keep a CPU busy in
 * the host's progress loop (and its lock) for the agent's whole life, taken
 * from the program's threads, which usually have every core of the node:
 * so the agent polls and sleeps.  What a round of poll and sleep costs is
 * measured, not guessed: the CPU time the agent itself spent in it (the
 * poll, and the system calls, timer and context switches of the sleep), or
 * the poll's wall time if longer (then it waited for the host's lock, which
 * the program's own calls wanted too).  That is a microsecond or two on a
 * quiet node, a hundred times more on a busy or emulated one.  The first
 * sleep after a poll lasts as long as a round costs, and the sleeps double
 * up to HY_IDLE_SHARE rounds' cost, so an idle agent takes about 5% of a
 * CPU, while one that is being sent a stream polls often.  A sleep lasts
 * HY_IDLE_MAX_NS at most, for the latency of the first operation after a
 * pause: where a round costs more than HY_IDLE_MAX_NS / HY_IDLE_SHARE, the
 * share grows.
 */
static long long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long clamp_ns(long long ns, long long lo, long long hi)
{
	return ns < lo ? lo : ns > hi ? hi : ns;
}

/*
 * The inbox: a receive of the next message from any origin, posted ahead,
 * so that a waiting program thread tests its own requests and the inbox
 * with one call of the host (hy_wait), where a probe beside them cost
 * a second pass of the host's progress engine each round.  A message
 * longer than the inbox comes as a HY_KIND_LONG header, then its bytes on
 * HY_TAG_LONG (send_msg).  Posts the receive unless it is posted or
 * HY_QUIT has come; serve_lock held.  Out of memory it ends the job.
 */
static int inbox_post(void)
{
	if (serving.inbox != MPI_REQUEST_NULL || serving.quit)
		return MPI_SUCCESS;
	if (!serving.inbox_buf) {
		serving.inbox_buf = malloc(HY_INBOX_BYTES);
		if (!serving.inbox_buf)
			PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
	}
	return PMPI_Irecv(serving.inbox_buf, HY_INBOX_BYTES, MPI_BYTE,
			  MPI_ANY_SOURCE, HY_TAG_OP, hy.ship_comm,
			  &serving.inbox);
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
	PMPI_Send(r, (int)(sizeof(*r) + rbytes),
		  MPI_BYTE, origin, HY_TAG_GRANT + (int)h->slot, hy.ship_comm);
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
 * Applies the message the inbox received (@st its status), and replies.
 * Returns 1, 0 for this process's own nudge (no origin's message), or -1
 * at HY_QUIT or when the host failed.  serve_lock held;
 * the inbox is not posted again yet.  Out of memory it ends the job: an
 * origin would otherwise wait for its reply forever.
 */
static int serve_arrived(const MPI_Status *st)
{
	struct ship_hdr *h = serving.inbox_buf, *lng = NULL;
	int n = 0, rlen, status, origin = st->MPI_SOURCE;
	struct ship_reply *reply;
	uint32_t index;

	PMPI_Get_count(st, MPI_BYTE, &n);
	if (n == (int)sizeof(*h) && h->slot == HY_QUIT) {
		serving.quit = true;
		return -1;
	}
	if (n == (int)sizeof(*h) && h->kind == HY_KIND_NUDGE) {
		/* cleared first: a later release nudges again */
		__atomic_store_n(&nudged, 0, __ATOMIC_SEQ_CST);
		serve_ready();
		return 0;	/* no origin's message */
	}
	if (n == (int)sizeof(*h) && h->kind == HY_KIND_LONG) {
		if (h->nelem > INT_MAX)
			PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_INTERN);
		n = (int)h->nelem;
		lng = malloc((size_t)n);
		if (!lng)
			PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
		/* sent right after the header: it is on its way */
		if (PMPI_Recv(lng, n, MPI_BYTE, origin, HY_TAG_LONG,
			      hy.ship_comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
			free(lng);
			return -1;
		}
		h = lng;
	}
	if (!hy_apply_reply(0))
		PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
	agent_stats.messages++;
	if (n == (int)sizeof(*h) && (h->kind == HY_KIND_LOCK ||
				     h->kind == HY_KIND_UNLOCK)) {
		hy_slot_serve_lock(h, origin);
		serve_ready();	/* an unlock may have granted epochs */
		return 1;
	}
	if (n >= (int)sizeof(*h) && h->kind == HY_KIND_EPOCH) {
		if (hy_slot_epoch(h, (size_t)n, origin))
			serve_epoch(h, (size_t)n, origin);
		free(lng);
		serve_ready();
		return 1;
	}
	status = hy_apply_msg(h, (size_t)n, &rlen, &index);
	free(lng);
	reply = hy_apply_reply(0);
	reply->status = status;
	reply->index = index;
	PMPI_Send(reply, rlen, MPI_BYTE, origin, HY_TAG_REPLY,
		  hy.ship_comm);
	return 1;
}

/* Rests while no slot is in use; true when it rested. */
static bool agent_park(void)
{
	bool rested = false;

	if (hy_slots_live())	/* the agent's every round: no lock then */
		return false;
	hy_mutex_lock(&park_lock);
	while (!park_stop && !hy_slots_live()) {
		pthread_cond_wait(&park_cond, &park_lock.m);
		rested = true;
	}
	hy_mutex_unlock(&park_lock);
	return rested;
}

/*
 * Rests while program threads wait in the layer, and so serve (waiters):
 * HY_REST_NS at most, then looks again, or until hy_agent_stop.  Each end
 * of a timed sleep costs a timer interrupt and two context switches, which
 * under emulation slowed every wait of the node that it interrupted: with
 * sleeps of 2 ms, four ranks on two CPUs at two logical nodes took 470 us
 * a barrier (330 at 20 ms, 370 with no window) and mpi4py's RMA tests 743
 * s (447 at 20 ms, 503 at 6 ms).  The price: a remote origin that comes
 * just after the last wait ended waits for the rest's end, 20 ms at most.
 */
static void agent_rest(void)
{
	long long end = clock_ns(CLOCK_MONOTONIC) + HY_REST_NS;
	const struct timespec until = { .tv_sec = end / 1000000000LL,
					.tv_nsec = (long)(end % 1000000000LL) };

	hy_mutex_lock(&park_lock);
	if (!park_stop && __atomic_load_n(&waiters, __ATOMIC_RELAXED))
		pthread_cond_clockwait(&park_cond, &park_lock.m,
				       CLOCK_MONOTONIC, &until);
	hy_mutex_unlock(&park_lock);
}

/* Ends the agent's rest; with @stop, for good. */
static void park_wake(bool stop)
{
	hy_mutex_lock(&park_lock);
	if (stop)
		park_stop = true;
	pthread_cond_broadcast(&park_cond);
	hy_mutex_unlock(&park_lock);
}

void hy_agent_wake(void)
{
	park_wake(false);
}

static void agent_sleep(long long ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };

	nanosleep(&ts, NULL);
}

/*
 * Receives and applies the next message, if one has come, and replies.
 * Returns 1 when it served one, 0 when none had come, -1 at HY_QUIT or
 * when the host failed.  serve_lock held.
 */
static int serve_next(void)
{
	MPI_Status st;
	int flag = 0;

	if (serving.quit)
		return -1;
	serve_ready();
	if (inbox_post() != MPI_SUCCESS ||
	    PMPI_Test(&serving.inbox, &flag, &st) != MPI_SUCCESS)
		return -1;
	return flag ? serve_arrived(&st) : 0;
}

/*
 * The agent: serves operations from every origin until its own process
 * sends HY_QUIT (hy_agent_stop).  Between messages it polls and sleeps
 * (see above).
 */
static void *agent(void *unused)
{
	static long long round_ns = HY_IDLE_MIN_NS;	/* the agent's alone */
	long long born = clock_ns(CLOCK_MONOTONIC);
	long long sleep_ns = 0, t, cpu, last_cpu = -1, cost;
	int got;

	(void)unused;
	/*
	 * Sleeps as asked: the kernel's default slack (50 us) made every
	 * short sleep a long one, and an origin waiting for this agent's
	 * reply waited that much more per message.
	 */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
	for (;;) {
		if (agent_park()) {
			/* the rest was no round */
			sleep_ns = 0;
			last_cpu = -1;
		}
		if (__atomic_load_n(&waiters, __ATOMIC_RELAXED)) {
			/*
			 * A waiting program thread serves: the agent keeps
			 * off its CPU (agent_rest), which is no round to
			 * measure (an idle round costs little, and sleeps
			 * sized from it would wake the agent often, each time
			 * taking the CPU from the waiting thread).
			 */
			sleep_ns = HY_IDLE_MAX_NS;	/* then, the longest */
			last_cpu = -1;
			agent_rest();
			continue;
		}
		t = clock_ns(CLOCK_MONOTONIC);
		hy_mutex_lock(&serve_lock);
		got = serve_next();
		hy_mutex_unlock(&serve_lock);
		if (got < 0)
			break;
		if (got) {
			sleep_ns = 0;
			last_cpu = -1;
			continue;
		}
		t = clock_ns(CLOCK_MONOTONIC) - t;
		/* one reading a round: the last round's CPU time, all of it */
		cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		if (last_cpu >= 0) {
			cost = cpu - last_cpu > t ? cpu - last_cpu : t;
			/* a running mean over the last eight rounds or so */
			round_ns += (cost - round_ns) / 8;
		}
		last_cpu = cpu;
		sleep_ns = clamp_ns(sleep_ns ? 2 * sleep_ns : round_ns,
				    HY_IDLE_MIN_NS,
				    clamp_ns(HY_IDLE_SHARE * round_ns,
					     HY_IDLE_MIN_NS, HY_IDLE_MAX_NS));
		agent_sleep(sleep_ns);
	}
	agent_stats.cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	agent_stats.wall_ns = clock_ns(CLOCK_MONOTONIC) - born;
	return NULL;
}

/*
 * (agent.h) A waiting thread serving answers a remote origin at once; left
 * to the agent, the origin waited for the waiting thread's time slice to
 * end or for the agent's sleep, a millisecond or more on a busy node.
 */
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

int hy_agent_assist(int n, MPI_Request *req, MPI_Status *stat, bool block)
{
	MPI_Request all[HY_WAIT_REQS + 1];
	MPI_Status st[HY_WAIT_REQS + 1];
	int idx[HY_WAIT_REQS + 1], out = 0, ret;

	if (!hy.agent || hy_mutex_trylock(&serve_lock))
		return test_all(n, req, stat);
	serve_ready();
	ret = inbox_post();
	if (ret != MPI_SUCCESS || serving.inbox == MPI_REQUEST_NULL) {
		/* HY_QUIT has come: the agent is stopping */
		hy_mutex_unlock(&serve_lock);
		return ret ? ret : test_all(n, req, stat);
	}
	if (n)
		memcpy(all, req, sizeof(*req) * (size_t)n);
	all[n] = serving.inbox;
	ret = block ? PMPI_Waitsome(n + 1, all, &out, idx, st) :
		      PMPI_Testsome(n + 1, all, &out, idx, st);
	if (n)
		memcpy(req, all, sizeof(*req) * (size_t)n);
	serving.inbox = all[n];
	for (int k = 0; ret == MPI_SUCCESS && k < out; k++) {
		if (idx[k] == n) {
			if (serve_arrived(&st[k]) > 0)
				agent_stats.assisted++;
		} else if (stat) {
			stat[idx[k]] = st[k];
		}
	}
	hy_mutex_unlock(&serve_lock);
	return ret;
}

/* Ends the wait of a thread that holds serve_lock (see nudged). */
static void nudge(void)
{
	static const struct ship_hdr hdr = { .kind = HY_KIND_NUDGE };
	MPI_Request req;
	int me;

	if (__atomic_exchange_n(&nudged, 1, __ATOMIC_SEQ_CST))
		return;
	PMPI_Comm_rank(hy.ship_comm, &me);
	if (PMPI_Isend(&hdr, sizeof(hdr), MPI_BYTE, me, HY_TAG_OP,
		       hy.ship_comm, &req) == MPI_SUCCESS)
		PMPI_Request_free(&req);
	else	/* none on its way: the next release tries again */
		__atomic_store_n(&nudged, 0, __ATOMIC_SEQ_CST);
}

void hy_agent_serve_ready(void)
{
	if (!hy.agent)
		return;
	if (hy_mutex_trylock(&serve_lock)) {
		nudge();
		return;
	}
	serve_ready();
	hy_mutex_unlock(&serve_lock);
}

/*
 * (agent.h) A program thread busy in its own RMA is in the layer often: a
 * look at the inbox then answers a remote origin at once, where the agent
 * would at its next poll, after a sleep of up to HY_IDLE_MAX_NS.  A look
 * costs a pass of the host's progress engine (twice a lock/get/unlock of
 * this process's own part, under emulation), so one that finds nothing
 * doubles the calls skipped before the next, up to HY_POLL_GAP: a stream
 * from a remote origin is served at every call, an idle inbox costs little.
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
	if (hy_mutex_trylock(&serve_lock))
		return;
	got = serve_next();
	if (got > 0)
		agent_stats.assisted++;
	hy_mutex_unlock(&serve_lock);
	gap = got > 0 ? 0 : gap ? 2 * gap : 1;
	if (gap > HY_POLL_GAP)
		gap = HY_POLL_GAP;
	skip = gap;
}

void hy_agent_waiting(int delta)
{
	__atomic_add_fetch(&waiters, delta, __ATOMIC_RELAXED);
}

/*
 * hy.tag_ub: the host's MPI_TAG_UB, or MPIRMA_TAG_UB (node.c) when that is
 * lower, which tests use to run out of grant tags with a few windows.
 */
static void tag_ub_init(void)
{
	int *ub = NULL, flag = 0;

	PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	if (flag && ub && (!hy.tag_ub || *ub < hy.tag_ub))
		hy.tag_ub = *ub;
	if (!hy.tag_ub)
		hy.tag_ub = 32767;	/* the least the standard allows */
}

int hy_agent_start(void)
{
	int ok, all;

	if (!hy.span || hy.span_host_acc)
		return MPI_SUCCESS;
	tag_ub_init();
	PMPI_Comm_dup(MPI_COMM_WORLD, &hy.ship_comm);
	ok = pthread_create(&agent_thread, NULL, agent, NULL) == 0;
	if (ok)	/* what top -H and /proc show for it */
		pthread_setname_np(agent_thread, "mpirma-agent");
	hy.agent = ok;
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		if (ok)
			hy_agent_stop(false);	/* frees ship_comm */
		else
			PMPI_Comm_free(&hy.ship_comm);
		hy.span = false;
	}
	return MPI_SUCCESS;
}

void hy_agent_stop(bool report)
{
	struct ship_hdr quit = { .slot = HY_QUIT };
	int me;

	if (!hy.agent)
		return;
	PMPI_Comm_rank(hy.ship_comm, &me);
	park_wake(true);
	PMPI_Send(&quit, sizeof(quit), MPI_BYTE, me, HY_TAG_OP, hy.ship_comm);
	pthread_join(agent_thread, NULL);
	if (report && agent_stats.wall_ns > 0)
		fprintf(stderr, "mpirma: agent of rank %d: %lld messages "
			"served (%lld by waiting program threads), %.1f%% of "
			"a CPU over %.1f s\n", me,
			agent_stats.messages, agent_stats.assisted,
			100.0 * (double)agent_stats.cpu_ns /
			(double)agent_stats.wall_ns,
			(double)agent_stats.wall_ns / 1e9);
	PMPI_Comm_free(&hy.ship_comm);
	hy.span = false;
	hy.agent = false;
	hy_apply_free();
	free(serving.inbox_buf);
	serving.inbox_buf = NULL;
	serving.quit = false;
	park_stop = false;
	hy_slots_free();
}
