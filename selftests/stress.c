// SPDX-License-Identifier: GPL-2.0
/*
 * stress: more rank processes than CPUs, each with several threads,
 * hammering one window with accumulate, get_accumulate, fetch_and_op and
 * compare_and_swap, on the same locations and on disjoint ones, while a
 * thread per process keeps creating and freeing windows of its own.
 *
 * The run is a sequence of rounds; each round creates a window over all
 * ranks (flavor and atomicity strategy cycling through USER/ALLOC x every
 * strategy of MT_FOR_EACH_STRATEGY), hammers it for its share of the time,
 * then checks exactly:
 *  - the shared accumulate location holds the sum of everything every
 *    thread added with accumulate and get_accumulate;
 *  - the values fetch_and_op (SUM 1) returned are a permutation of
 *    0..N-1, N the number of calls;
 *  - a lock built from compare_and_swap excludes: no two threads are ever
 *    inside at once, and the counter it protects (updated by a plain get
 *    and put) equals the number of acquisitions;
 *  - a BXOR location holds the XOR of every value sent;
 *  - each thread's disjoint slots, on rank 0 and on the next rank, hold
 *    exactly what that thread added;
 *  - every other byte of every rank's memory is still zero.
 *
 * Usage: stress [--procs P] [--threads T] [--seconds S]
 *   defaults: 2 x the CPUs (at least 3) processes, 2 threads, 20 seconds;
 *   MPIRMA_STRESS_PROCS, _THREADS, _SECONDS set them from the environment.
 * Prints TAP (one case per round) and the operations done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mpirma_test.h"

#define MAX_P		16
#define MAX_T		8
#define MAX_FOP		20000	/* fetch_and_op values kept per thread and round */
#define WIN_LEN		8192	/* per rank: two pages */

/* Byte offsets in every rank's memory (int64 / uint64 elements). */
#define OFF_SUM		0	/* ACC + GET_ACC SUM, rank 0 */
#define OFF_FOP		8	/* fetch_and_op SUM 1, rank 0 */
#define OFF_LOCK	16	/* CAS lock word, rank 0 */
#define OFF_LOCKED	24	/* counter under the CAS lock, rank 0 */
#define OFF_XOR		32	/* BXOR, rank 0 */
/* the slots straddle the page boundary: two stripes, two delegation pages */
#define OFF_SLOTS	(4096 - 8 * 8)

struct thread_res {
	int64_t sum;			/* added to OFF_SUM */
	uint64_t xor;
	uint64_t nfop;
	uint64_t fop[MAX_FOP];
	uint64_t locked;		/* acquisitions of the CAS lock */
	int64_t slot0, slot1;		/* added to my slot on rank 0 / rank + 1 */
	uint64_t ops;
	uint64_t churn;			/* windows created and freed */
	int err;			/* first failure, -errno */
	char what[96];
};

struct shared {
	uint32_t procs, threads;
	uint32_t round, flavor, strategy;
	int inside;			/* threads inside the CAS lock */
	int violations;
	volatile int stop_churn;
	struct thread_res res[MAX_P][MAX_T + 1];	/* + 1: the churn thread */
	uint64_t total_ops;		/* over all rounds, by rank 0 */
	int failed;
};

static struct shared *sh;
static unsigned int round_ms;

struct thr {
	int mfd;
	uint32_t win, rank, t;
	uint64_t deadline;
	uint64_t rng;
	struct thread_res *res;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fail(struct thread_res *res, int err, const char *what)
{
	if (res->err)
		return;
	res->err = err ? err : -EIO;
	snprintf(res->what, sizeof(res->what), "%s", what);
}

static int rma(struct thr *t, struct mpirma_op *ops, uint32_t n, const char *what)
{
	uint32_t nfailed = 0, i;
	int ret = mt_rma(t->mfd, t->win, ops, n, &nfailed);

	if (!ret && nfailed) {
		for (i = 0; i < n; i++)
			if (ops[i].status)
				ret = ops[i].status;
	}
	if (ret)
		fail(t->res, ret, what);
	t->res->ops += n;
	return ret;
}

static uint32_t slot_of(struct thr *t)
{
	return OFF_SLOTS + 8 * (t->rank * sh->threads + t->t);
}

/* The CAS lock on rank 0: take it, bump the counter with get + put, leave. */
static void locked_section(struct thr *t)
{
	uint64_t me = ((uint64_t)t->rank << 8 | t->t) + 1, zero = 0, old = 1, val;
	struct mpirma_op op;
	unsigned int tries;

	for (tries = 0; tries < 64 && old; tries++) {
		op = mt_cas(MPIRMA_TYPE_UINT64, 0, OFF_LOCK, &me, &zero, &old);
		if (rma(t, &op, 1, "CAS acquire"))
			return;
		if (old)
			sched_yield();
	}
	if (old)
		return;		/* busy: count only acquisitions */
	if (__atomic_add_fetch(&sh->inside, 1, __ATOMIC_SEQ_CST) != 1)
		__atomic_add_fetch(&sh->violations, 1, __ATOMIC_SEQ_CST);
	op = mt_get(MPIRMA_TYPE_UINT64, 0, OFF_LOCKED, &val, 1);
	if (!rma(t, &op, 1, "get under the lock")) {
		val++;
		op = mt_put(MPIRMA_TYPE_UINT64, 0, OFF_LOCKED, &val, 1);
		rma(t, &op, 1, "put under the lock");
	}
	t->res->locked++;
	__atomic_sub_fetch(&sh->inside, 1, __ATOMIC_SEQ_CST);
	op = mt_cas(MPIRMA_TYPE_UINT64, 0, OFF_LOCK, &zero, &me, &old);
	if (!rma(t, &op, 1, "CAS release") && old != me)
		fail(t->res, -EIO, "CAS release found another owner");
}

static void *hammer(void *arg)
{
	struct thr *t = arg;
	struct thread_res *res = t->res;
	uint32_t next = (t->rank + 1) % sh->procs;
	struct mpirma_op ops[8];
	int64_t v[8], old[8];
	uint64_t one = 1, x;
	unsigned int i, n;

	while (!res->err && mt_now_ms() < t->deadline) {
		switch (rnd(&t->rng) % 7) {
		case 0:		/* a batch of accumulates on the shared location */
			n = 1 + rnd(&t->rng) % 8;
			for (i = 0; i < n; i++) {
				v[i] = (int64_t)(rnd(&t->rng) % 2001) - 1000;
				ops[i] = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, OFF_SUM,
						&v[i], 1);
			}
			if (!rma(t, ops, n, "accumulate"))
				for (i = 0; i < n; i++)
					res->sum += v[i];
			break;
		case 1:		/* get_accumulate on the same location */
			v[0] = (int64_t)(rnd(&t->rng) % 100);
			ops[0] = mt_get_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, OFF_SUM,
					    &v[0], &old[0], 1);
			if (!rma(t, ops, 1, "get_accumulate"))
				res->sum += v[0];
			break;
		case 2:		/* fetch_and_op: tickets */
			if (res->nfop >= MAX_FOP)
				break;
			ops[0] = mt_get_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, OFF_FOP,
					    &one, &old[0], 1);
			if (!rma(t, ops, 1, "fetch_and_op"))
				res->fop[res->nfop++] = old[0];
			break;
		case 3:
			locked_section(t);
			break;
		case 4:		/* XOR on the shared location */
			x = rnd(&t->rng);
			ops[0] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_BXOR, 0, OFF_XOR, &x, 1);
			if (!rma(t, ops, 1, "accumulate BXOR"))
				res->xor ^= x;
			break;
		default:	/* disjoint: my slot on rank 0 and on the next rank */
			v[0] = (int64_t)(rnd(&t->rng) % 1000);
			v[1] = (int64_t)(rnd(&t->rng) % 1000);
			ops[0] = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, slot_of(t), &v[0], 1);
			ops[1] = mt_get_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, next, slot_of(t),
					    &v[1], &old[1], 1);
			if (!rma(t, ops, 2, "disjoint accumulate")) {
				/* the last rank's next is rank 0: both go to one slot */
				int64_t want = next ? res->slot1 : res->slot0 + v[0] + res->slot1;

				if (old[1] != want)
					fail(res, -EIO, "a disjoint slot changed under its owner");
				res->slot0 += v[0];
				res->slot1 += v[1];
			}
			break;
		}
	}
	return NULL;
}

/* Windows of one rank coming and going while the others work. */
static void *churn(void *arg)
{
	struct thr *t = arg;
	struct thread_res *res = t->res;
	uint32_t me = t->rank;
	uint64_t val, back;
	struct mpirma_op op;
	int win;

	while (!sh->stop_churn && !res->err) {
		struct mt_win w = {
			.flavor = rnd(&t->rng) % 2 ? MPIRMA_FLAVOR_ALLOC : MPIRMA_FLAVOR_DYNAMIC,
			.strategy = 1 + rnd(&t->rng) % (MPIRMA_NR_STRATEGIES - 1),
			.ranks = &me, .nranks = 1, .context = 0xc0ffee,
		};

		if (w.flavor == MPIRMA_FLAVOR_ALLOC)
			w.length = 8 + rnd(&t->rng) % (3 * 4096);
		win = mt_win_create(t->mfd, &w);
		if (win < 0) {
			fail(res, win, "churn: window create");
			break;
		}
		if (w.flavor == MPIRMA_FLAVOR_ALLOC) {
			/* new memory is zero; a put shows up in a get */
			val = rnd(&t->rng);
			back = 1;
			op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, &back, 1);
			if (mt_rma1(t->mfd, win, &op) || back)
				fail(res, -EIO, "churn: new window not zero");
			op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, &val, 1);
			if (mt_rma1(t->mfd, win, &op))
				fail(res, -EIO, "churn: put");
			op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, &back, 1);
			if (mt_rma1(t->mfd, win, &op) || back != val)
				fail(res, -EIO, "churn: get after put");
			res->ops += 3;
		}
		if (mt_win_free(t->mfd, win))
			fail(res, -EIO, "churn: window free");
		res->churn++;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Rank 0, after the round's barrier: everything adds up?  "" if it does. */
static void verify(int mfd, uint32_t win, char *why, size_t len)
{
	uint32_t p, t, P = sh->procs, T = sh->threads;
	static uint8_t mem[MAX_P][WIN_LEN];
	uint64_t nfop = 0, locked = 0, xor = 0, i, *all;
	int64_t sum = 0;
	struct mpirma_op op;
	uint64_t *w0;

	why[0] = 0;
	for (p = 0; p < P; p++) {
		op = mt_get(MPIRMA_TYPE_BYTE, p, 0, mem[p], WIN_LEN);
		if (mt_rma1(mfd, win, &op)) {
			snprintf(why, len, "get of rank %u's window failed", p);
			return;
		}
	}
	for (p = 0; p < P; p++)
		for (t = 0; t < T; t++) {
			struct thread_res *r = &sh->res[p][t];

			sum += r->sum;
			xor ^= r->xor;
			nfop += r->nfop;
			locked += r->locked;
		}
	w0 = (uint64_t *)mem[0];
	if ((int64_t)w0[OFF_SUM / 8] != sum) {
		snprintf(why, len, "accumulate total %" PRId64 ", expected %" PRId64,
			 (int64_t)w0[OFF_SUM / 8], sum);
		return;
	}
	if (w0[OFF_FOP / 8] != nfop) {
		snprintf(why, len, "fetch_and_op counter %" PRIu64 " after %" PRIu64 " calls",
			 w0[OFF_FOP / 8], nfop);
		return;
	}
	all = malloc((nfop ? nfop : 1) * sizeof(*all));
	if (!all) {
		snprintf(why, len, "out of memory");
		return;
	}
	for (i = 0, p = 0; p < P; p++)
		for (t = 0; t < T; t++) {
			memcpy(all + i, sh->res[p][t].fop, sh->res[p][t].nfop * sizeof(*all));
			i += sh->res[p][t].nfop;
		}
	qsort(all, nfop, sizeof(*all), cmp_u64);
	for (i = 0; i < nfop; i++)
		if (all[i] != i) {
			snprintf(why, len, "fetch_and_op values are not a permutation: "
				 "sorted[%" PRIu64 "] = %" PRIu64, i, all[i]);
			break;
		}
	free(all);
	if (why[0])
		return;
	if (sh->violations) {
		snprintf(why, len, "CAS lock: %d times two threads inside", sh->violations);
		return;
	}
	if (w0[OFF_LOCK / 8] || w0[OFF_LOCKED / 8] != locked) {
		snprintf(why, len, "CAS lock word %" PRIu64 ", counter %" PRIu64
			 " after %" PRIu64 " acquisitions", w0[OFF_LOCK / 8],
			 w0[OFF_LOCKED / 8], locked);
		return;
	}
	if (w0[OFF_XOR / 8] != xor) {
		snprintf(why, len, "BXOR location wrong");
		return;
	}
	w0[OFF_SUM / 8] = w0[OFF_FOP / 8] = w0[OFF_LOCKED / 8] = w0[OFF_XOR / 8] = 0;
	for (p = 0; p < P; p++)
		for (t = 0; t < T; t++) {
			uint32_t off = OFF_SLOTS + 8 * (p * T + t), next = (p + 1) % P;
			int64_t got0, got1;

			memcpy(&got0, mem[0] + off, 8);
			memcpy(&got1, mem[next] + off, 8);
			if (next == 0)
				got1 -= sh->res[p][t].slot0;	/* both land on rank 0 */
			if (got0 != sh->res[p][t].slot0 + (next == 0 ? sh->res[p][t].slot1 : 0) ||
			    got1 != sh->res[p][t].slot1) {
				snprintf(why, len, "disjoint slot of rank %u thread %u wrong", p, t);
				return;
			}
			memset(mem[0] + off, 0, 8);
			memset(mem[next] + off, 0, 8);
		}
	for (p = 0; p < P; p++)
		for (i = 0; i < WIN_LEN; i++)
			if (mem[p][i]) {
				snprintf(why, len, "rank %u byte %" PRIu64 " is %#x, nobody wrote it",
					 p, i, mem[p][i]);
				return;
			}
}

static const uint32_t strategies[] = {
#define STRATEGY_ID(name, ID) MPIRMA_ATOM_##ID,
	MT_FOR_EACH_STRATEGY(STRATEGY_ID)
#undef STRATEGY_ID
};
#define NR_ROUND_KINDS	(2 * MT_ARRAY_SIZE(strategies))

static int rank_main(struct mt_rank *r)
{
	uint32_t T = sh->threads, nrounds = NR_ROUND_KINDS, round, t;
	struct thr thr[MAX_T + 1];
	pthread_t tid[MAX_T + 1];
	uint8_t *user = NULL;
	int failed = 0, win;

	memset(thr, 0, sizeof(thr));
	thr[T].mfd = r->mfd;
	thr[T].rank = r->rank;
	thr[T].rng = 0x9e3779b97f4a7c15ULL * (r->rank + 1) + T;
	thr[T].res = &sh->res[r->rank][T];
	if (pthread_create(&tid[T], NULL, churn, &thr[T]))
		return 1;
	user = mmap(NULL, WIN_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (user == MAP_FAILED)
		return 1;
	for (round = 0; round < nrounds; round++) {
		struct mt_win w = {
			.flavor = round % 2 ? MPIRMA_FLAVOR_ALLOC : MPIRMA_FLAVOR_USER,
			.strategy = strategies[(round / 2) % MT_ARRAY_SIZE(strategies)],
			.length = WIN_LEN, .nranks = r->nranks, .context = round,
		};

		if (w.flavor == MPIRMA_FLAVOR_USER) {
			memset(user, 0, WIN_LEN);
			w.base = user;
		}
		win = mt_win_create(r->mfd, &w);
		if (win < 0) {
			fail(&sh->res[r->rank][0], win, "window create");
			failed = 1;
			break;
		}
		for (t = 0; t < T; t++) {
			struct thread_res *res = &sh->res[r->rank][t];

			memset(res, 0, sizeof(*res));
			thr[t].mfd = r->mfd;
			thr[t].win = win;
			thr[t].rank = r->rank;
			thr[t].t = t;
			thr[t].deadline = mt_now_ms() + round_ms;
			thr[t].rng = 0x2545f4914f6cdd1dULL * (r->rank * 64 + t + 1) + round;
			thr[t].res = res;
			if (pthread_create(&tid[t], NULL, hammer, &thr[t]))
				return 1;
		}
		for (t = 0; t < T; t++)
			pthread_join(tid[t], NULL);
		/* everyone is done: rank 0 checks, then everyone frees */
		if (mt_job_barrier(r->mfd))
			failed = 1;
		if (r->rank == 0) {
			uint64_t ops = 0;
			uint32_t p;
			char why[200];
			int bad = 0;

			for (p = 0; p < sh->procs; p++)
				for (t = 0; t < T; t++)
					if (sh->res[p][t].err && !bad++)
						snprintf(why, sizeof(why), "rank %u thread %u: %s: %s",
							 p, t, sh->res[p][t].what,
							 strerror(-sh->res[p][t].err));
			if (!bad)
				verify(r->mfd, win, why, sizeof(why));
			for (p = 0; p < sh->procs; p++)
				for (t = 0; t < T; t++)
					ops += sh->res[p][t].ops;
			printf("%s %u %s_%s # %" PRIu64 " operations%s%s\n",
			       why[0] ? "not ok" : "ok", round + 1,
			       w.flavor == MPIRMA_FLAVOR_USER ? "user" : "alloc",
			       mt_strategy_name(w.strategy), ops, why[0] ? ": " : "", why);
			fflush(stdout);
			if (why[0])
				sh->failed = 1;
			sh->total_ops += ops;
			sh->violations = 0;
		}
		if (mt_job_barrier(r->mfd) || mt_win_free(r->mfd, win))
			failed = 1;
	}
	sh->stop_churn = 1;
	pthread_join(tid[T], NULL);
	if (sh->res[r->rank][T].err) {
		printf("# rank %u churn: %s: %s\n", r->rank, sh->res[r->rank][T].what,
		       strerror(-sh->res[r->rank][T].err));
		failed = 1;
	}
	munmap(user, WIN_LEN);
	return failed;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int procs = ncpu > 1 ? 2 * ncpu : 3, threads = 2, seconds = 20, p;
	uint64_t churn = 0, t0;
	int opt, dev, failed;

	if (getenv("MPIRMA_STRESS_SECONDS"))
		seconds = strtoul(getenv("MPIRMA_STRESS_SECONDS"), NULL, 0);
	if (getenv("MPIRMA_STRESS_PROCS"))
		procs = strtoul(getenv("MPIRMA_STRESS_PROCS"), NULL, 0);
	if (getenv("MPIRMA_STRESS_THREADS"))
		threads = strtoul(getenv("MPIRMA_STRESS_THREADS"), NULL, 0);
	while ((opt = getopt_long(argc, argv, "p:t:s:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': procs = strtoul(optarg, NULL, 0); break;
		case 't': threads = strtoul(optarg, NULL, 0); break;
		case 's': seconds = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [--procs P] [--threads T] [--seconds S]\n",
				argv[0]);
			return 2;
		}
	}
	if (procs < 2 || procs > MAX_P || !threads || threads > MAX_T || !seconds) {
		fprintf(stderr, "stress: 2 <= procs <= %d, 1 <= threads <= %d, seconds > 0\n",
			MAX_P, MAX_T);
		return 2;
	}
	printf("TAP version 13\n1..%zu\n", NR_ROUND_KINDS);
	printf("# stress: %u processes x %u threads (+1 creating and freeing windows) "
	       "on %ld CPUs, %u s\n", procs, threads, ncpu, seconds);
	fflush(stdout);
	if (!mt_device_present()) {
		for (p = 0; p < NR_ROUND_KINDS; p++)
			printf("ok %u stress # SKIP %s missing\n", p + 1, MPIRMA_DEVICE);
		return 0;
	}
	sh = mt_shm(sizeof(*sh));
	dev = mt_open();
	if (!sh || dev < 0) {
		printf("Bail out! setup failed\n");
		return 1;
	}
	sh->procs = procs;
	sh->threads = threads;
	round_ms = seconds * 1000 / NR_ROUND_KINDS;
	t0 = mt_now_ms();
	/* creation, checks and frees take time too: allow a generous margin */
	failed = mt_run_job(dev, procs, rank_main, NULL, NULL, (seconds + 120) * 1000);
	for (p = 0; p < procs; p++)
		churn += sh->res[p][threads].churn;
	printf("# stress: %" PRIu64 " RMA operations, %" PRIu64 " windows created and freed "
	       "by the churn threads, %.1f s in all\n", sh->total_ops, churn,
	       (mt_now_ms() - t0) / 1000.0);
	close(dev);
	if (failed || sh->failed) {
		printf("# stress: %d rank processes failed\n", failed);
		return 1;
	}
	return 0;
}
