// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * agent.c - the agent thread: it receives the messages origins on other
 * nodes send to this process (wire.h), applies each through the module,
 * and replies.  Every origin's messages are applied in the order it sent
 * them (one ordered channel per origin: source, tag and communicator), so
 * accumulate_ordering holds.  Applying takes no lock of the layer's but
 * serve_lock (mpirma_rma_apply touches no engine state), so a process
 * blocked in an engine call under hy.lock still serves the other nodes.
 * A batch of puts and accumulates is applied with one MPIRMA_IOC_RMA and
 * acknowledged with one reply (the first failure's status and place); a
 * run whose entries touch no element twice is one kernel operation with
 * block lists (run_ops).  The kernel checks every operation again here.
 *
 * The agent polls and sleeps (its pace, below); a program thread waiting
 * in the layer serves in its stead (hy_agent_assist, from waits.c).
 * Lock requests go to agent_slots.c.  Started and stopped by node.c.
 */
#define _GNU_SOURCE		/* pthread_setname_np */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "locks.h"
#include "rma_args.h"

#define HY_IDLE_MIN_NS	2000	/* the agent's sleeps between polls: 2 us ... */
#define HY_IDLE_MAX_NS	2000000	/* ... to 2 ms */
#define HY_IDLE_SHARE	20	/* idle, a sleep of 20 rounds' cost per round */

/* A run entry's target offset in bytes, and its place in the run. */
struct run_key {
	uint64_t off;
	uint32_t entry;
};

static pthread_t agent_thread;

/*
 * Receiving and applying the shipped messages, one thread at a time (the
 * agent, or a program thread in an assisted wait), so that each origin's
 * are applied in the order it sent them; also protects serving, the
 * reply buffer and agent_stats.messages.
 */
static struct hy_mutex serve_lock = HY_MUTEX_INIT(HY_LOCK_SERVE);

static struct {
	struct ship_reply *reply;	/* grown as results need */
	size_t cap;
	/* a batch's kernel operations, with room for nops of each: */
	struct mpirma_op *ops;
	uint32_t *first;		/* an operation's index in the message */
	struct mpirma_block *blocks;	/* 2 per operation: a run's target, origin */
	struct run_key *keys;		/* a run's entries by target offset */
	uint32_t nops;
	bool quit;			/* HY_QUIT has come */
	MPI_Request inbox;		/* the receive of the next message */
	struct ship_hdr *inbox_buf;	/* ... into HY_INBOX_BYTES */
} serving = { .inbox = MPI_REQUEST_NULL };

/* Program threads in an assisted wait (atomic): they serve, the agent rests. */
static int waiters;

/* What the agent did, for hy_agent_stop's report. */
static struct {
	long long messages;	/* messages served, by anyone */
	long long assisted;	/* ... of them by a waiting program thread */
	long long cpu_ns;	/* the agent thread's CPU time */
	long long wall_ns;	/* its lifetime */
} agent_stats;

/* A kernel operation of record @h's kind, type and op on the agent's @s. */
static void op_head(struct mpirma_op *op, const struct ship_hdr *h,
		    const struct hy_slot_target *s)
{
	memset(op, 0, sizeof(*op));
	op->kind = h->kind;
	op->type = h->type;
	op->op = h->op;
	op->target_rank = s->erank;
}

/*
 * The kernel operation of record @h on the agent's window @s; @result
 * receives the previous target contents when the kind has them.
 */
static void record_op(const struct ship_hdr *h,
		      const struct hy_slot_target *s, void *result,
		      struct mpirma_op *op)
{
	unsigned int size = mpirma_rma_elem_size(h->type);
	const char *p = (const char *)(h + 1);

	op_head(op, h, s);
	op->target_disp = h->disp;
	op->target.nblocks = h->nblocks;
	op->target.count = h->count;
	op->target.extent = h->extent;
	if (h->nblocks)
		op->target.blocks = (uint64_t)(uintptr_t)p;
	p += h->nblocks * sizeof(struct mpirma_block);
	if (wire_has_origin(h->kind, h->op)) {
		op->origin.addr = (uint64_t)(uintptr_t)p;
		op->origin.count = h->nelem;
		p += h->nelem * size;
	}
	if (wire_has_result(h->kind)) {
		op->result.addr = (uint64_t)(uintptr_t)result;
		op->result.count = h->nelem;
	}
	if (h->kind == MPIRMA_KIND_CAS)
		op->compare = (uint64_t)(uintptr_t)p;
}

/*
 * Sorts the @n keys @k by offset; do entries of @len bytes there overlap?
 * A shell sort: no comparison callback, whose indirect calls cost much.
 */
static bool run_keys_overlap(struct run_key *k, uint32_t n, uint64_t len)
{
	static const uint32_t gaps[] = { 57, 23, 10, 4, 1 };

	for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++)
		for (uint32_t i = gaps[g]; i < n; i++) {
			struct run_key v = k[i];
			uint32_t j = i;

			for (; j >= gaps[g] && k[j - gaps[g]].off > v.off;
			     j -= gaps[g])
				k[j] = k[j - gaps[g]];
			k[j] = v;
		}
	for (uint32_t i = 1; i < n; i++)
		if (k[i].off - k[i - 1].off < len)
			return true;
	return false;
}

/*
 * The kernel operations of run @h on the agent's window @s, into @op (with
 * @b: room for two blocks per entry); their number.  Entries that touch
 * no element twice are one operation whose block lists name them in target
 * order (their order does not matter then, and the kernel's overlap check
 * of a sorted list is one pass), which the kernel applies in one pass, per
 * element atomic as ever; others are an operation each, in order.
 */
static uint32_t run_ops(const struct ship_hdr *h,
			const struct hy_slot_target *s, struct mpirma_op *op,
			struct mpirma_block *b)
{
	unsigned int size = mpirma_rma_elem_size(h->type);
	uint64_t unit = (uint64_t)h->extent, len = h->count * size, disp;
	size_t e = wire_run_entry_len(h->count, size);
	const char *p = (const char *)(h + 1);
	uint32_t n = (uint32_t)h->nelem, i;
	struct run_key *k = serving.keys;
	bool one = n > 1 && unit;

	for (i = 0; one && i < n; i++) {
		memcpy(&disp, p + i * e, sizeof(disp));
		if (disp > (uint64_t)INT64_MAX / unit)
			one = false;
		k[i] = (struct run_key){ .off = disp * unit, .entry = i };
	}
	if (one && !run_keys_overlap(k, n, len)) {
		for (i = 0; i < n; i++) {
			b[i] = (struct mpirma_block){ .disp = (int64_t)k[i].off,
						      .len = len };
			b[n + i] = (struct mpirma_block){
				.disp = (int64_t)(k[i].entry * e +
						  sizeof(uint64_t)),
				.len = len };
		}
		op_head(op, h, s);
		op->target = (struct mpirma_layout){
			.blocks = (uint64_t)(uintptr_t)b, .nblocks = n,
			.count = 1 };
		op->origin = (struct mpirma_layout){
			.addr = (uint64_t)(uintptr_t)p,
			.blocks = (uint64_t)(uintptr_t)(b + n), .nblocks = n,
			.count = 1 };
		return 1;
	}
	for (i = 0; i < n; i++, p += e, op++) {
		op_head(op, h, s);
		memcpy(&op->target_disp, p, sizeof(op->target_disp));
		op->target.count = h->count;
		op->origin.addr = (uint64_t)(uintptr_t)(p + sizeof(uint64_t));
		op->origin.count = h->count;
	}
	return n;
}

/* Room in serving for the kernel operations of a batch of @n operations. */
static bool serving_room(uint32_t n)
{
	void *q;

	if (n <= serving.nops)
		return true;
	q = realloc(serving.ops, n * sizeof(*serving.ops));
	if (q)
		serving.ops = q;
	q = q ? realloc(serving.first, n * sizeof(*serving.first)) : NULL;
	if (q)
		serving.first = q;
	q = q ? realloc(serving.blocks, 2 * n * sizeof(*serving.blocks)) : NULL;
	if (q)
		serving.blocks = q;
	q = q ? realloc(serving.keys, n * sizeof(*serving.keys)) : NULL;
	if (q) {
		serving.keys = q;
		serving.nops = n;
	}
	return q;
}

/*
 * A batch of @n bytes: plain accumulates on one window, applied in order
 * with one ioctl.  Returns the first failure's status (its place in
 * *@index), or 0.
 */
static int serve_batch(const struct ship_hdr *h, size_t n,
		       const struct hy_slot_target *s, uint32_t *index)
{
	const char *m = (const char *)h;
	const struct ship_hdr *r;
	struct mpirma_op *ops;
	uint32_t nops = 0, done, nfailed;
	size_t off, len;
	int ret;

	for (off = 0; off < n; off += len, nops += wire_record_ops(r)) {
		r = (const struct ship_hdr *)(m + off);
		if (n - off < sizeof(*r) || wire_has_result(r->kind) ||
		    r->slot != h->slot ||
		    wire_record_ops(r) > HY_BATCH_OPS - nops)
			return -EINVAL;
		len = wire_record_len(r);
		if (!len || len > n - off)
			return -EINVAL;
	}
	if (!serving_room(nops))
		return -ENOMEM;
	ops = serving.ops;
	for (off = 0, nops = 0, done = 0; off < n; off += wire_record_len(r)) {
		uint32_t k = 1;

		r = (const struct ship_hdr *)(m + off);
		if (r->flags == HY_REC_RUN)
			k = run_ops(r, s, &ops[nops], &serving.blocks[2 * done]);
		else
			record_op(r, s, NULL, &ops[nops]);
		for (uint32_t j = 0; j < k; j++)
			serving.first[nops + j] = done + (k > 1 ? j : 0);
		nops += k;
		done += wire_record_ops(r);
	}
	ret = mpirma_rma_apply(s->win_id, ops, nops, &nfailed);
	for (uint32_t k = 0; !ret && nfailed && k < nops; k++)
		if (ops[k].status) {
			*index = serving.first[k];
			ret = ops[k].status;
		}
	return ret;
}

/*
 * Applies one received message of @n bytes: a batch of accumulates, or one
 * operation with a result, which goes to *@r (of *@cap bytes, grown as
 * needed), *@rlen bytes of it.  Returns the status; *@index: the failed
 * operation's place in the message.
 */
static int serve(const struct ship_hdr *h, size_t n, struct ship_reply **r,
		 size_t *cap, int *rlen, uint32_t *index)
{
	unsigned int size;
	struct hy_slot_target s;
	struct mpirma_op op;
	uint32_t nfailed;
	size_t need;
	int ret;

	*rlen = sizeof(**r);
	*index = 0;
	if (n < sizeof(*h))
		return -EINVAL;
	if (!hy_slot_target(h->slot, &s))
		return -EBADF;
	if (!wire_has_result(h->kind))
		return serve_batch(h, n, &s, index);
	size = mpirma_rma_elem_size(h->type);
	if (!size || h->kind > MPIRMA_KIND_CAS || wire_msg_len(h, size) != n)
		return -EINVAL;
	need = sizeof(**r) + h->nelem * size;
	if (need > *cap) {
		struct ship_reply *q = realloc(*r, need);

		if (!q)
			return -ENOMEM;
		*r = q;
		*cap = need;
	}
	record_op(h, &s, *r + 1, &op);
	ret = mpirma_rma_apply(s.win_id, &op, 1, &nfailed);
	if (!ret && !op.status)
		*rlen = (int)need;
	return ret ? ret : op.status;
}

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
 * Applies the message the inbox received (@st its status), and replies.
 * Returns 1, or -1 at HY_QUIT or when the host failed.  serve_lock held;
 * the inbox is not posted again yet.  Out of memory it ends the job: an
 * origin would otherwise wait for its reply forever.
 */
static int serve_arrived(const MPI_Status *st)
{
	struct ship_hdr *h = serving.inbox_buf, *lng = NULL;
	int n = 0, rlen, status, origin = st->MPI_SOURCE;
	uint32_t index;

	PMPI_Get_count(st, MPI_BYTE, &n);
	if (n == (int)sizeof(*h) && h->slot == HY_QUIT) {
		serving.quit = true;
		return -1;
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
	if (!serving.reply) {
		serving.cap = sizeof(struct ship_reply);
		serving.reply = malloc(serving.cap);
		if (!serving.reply)
			PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
	}
	agent_stats.messages++;
	if (n == (int)sizeof(*h) && (h->kind == HY_KIND_LOCK ||
				     h->kind == HY_KIND_UNLOCK)) {
		hy_slot_serve_lock(h, origin);
		return 1;
	}
	status = serve(h, (size_t)n, &serving.reply, &serving.cap, &rlen,
		       &index);
	free(lng);
	serving.reply->status = status;
	serving.reply->index = index;
	PMPI_Send(serving.reply, rlen, MPI_BYTE, origin, HY_TAG_REPLY,
		  hy.ship_comm);
	return 1;
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
	for (;;) {
		if (__atomic_load_n(&waiters, __ATOMIC_RELAXED)) {
			/*
			 * A waiting program thread serves: the agent keeps
			 * off its CPU, in the longest sleep, which is no round
			 * to measure (an idle round costs little, and sleeps
			 * sized from it would wake the agent often, each time
			 * taking the CPU from the waiting thread).
			 */
			sleep_ns = HY_IDLE_MAX_NS;
			last_cpu = -1;
			agent_sleep(sleep_ns);
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
int hy_agent_assist(int n, MPI_Request *req)
{
	MPI_Request all[HY_WAIT_REQS + 1];
	MPI_Status st[HY_WAIT_REQS + 1];
	int idx[HY_WAIT_REQS + 1], out = 0, flag, ret;

	if (!hy.agent || hy_mutex_trylock(&serve_lock))
		return PMPI_Testall(n, req, &flag, st);
	ret = inbox_post();
	if (ret != MPI_SUCCESS || serving.inbox == MPI_REQUEST_NULL) {
		/* HY_QUIT has come: the agent is stopping */
		hy_mutex_unlock(&serve_lock);
		return ret ? ret :
		       PMPI_Testall(n, req, &flag, st);
	}
	if (n)
		memcpy(all, req, sizeof(*req) * (size_t)n);
	all[n] = serving.inbox;
	ret = PMPI_Testsome(n + 1, all, &out, idx, st);
	if (n)
		memcpy(req, all, sizeof(*req) * (size_t)n);
	serving.inbox = all[n];
	for (int k = 0; ret == MPI_SUCCESS && k < out; k++)
		if (idx[k] == n) {
			serve_arrived(&st[k]);
			agent_stats.assisted++;
		}
	hy_mutex_unlock(&serve_lock);
	return ret;
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
	free(serving.reply);
	free(serving.inbox_buf);
	serving.inbox_buf = NULL;
	free(serving.ops);
	free(serving.first);
	free(serving.blocks);
	free(serving.keys);
	serving.ops = NULL;
	serving.nops = 0;
	serving.reply = NULL;
	serving.quit = false;
	hy_slots_free();
}
