// SPDX-License-Identifier: GPL-2.0
/*
 * unit_costs.c - what the machine charges for the few things the fast
 * paths are made of: a call and its return (to the same page of code and
 * to another), a branch not taken, a load, a full fence, a copy (also of
 * 8 KiB to a destination 8 bytes past its source's page offset; of 16 KiB
 * by three ways of copying), a read of the TSC (alone, and while another
 * thread reads it as Open MPI's progress engine does while it waits), a
 * short sleep.  Every figure in make bench
 * comes from QEMU's emulation (TCG), where these costs are not in the
 * proportions of hardware: a return or a jump to another page of code is a
 * lookup in the emulator's table, a copy runs at a tenth of memory speed,
 * and a sleep takes tens of microseconds however short.  Run on the host
 * and in the VM (make bench-costs), the two columns say how far a ratio
 * measured in the VM carries to hardware.
 *
 * Usage: unit_costs [--quick] [--against FILE]; prints "name ns" lines,
 * or with --against (a file of an earlier run) both columns and their
 * ratio.
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "../lib/base/copy.h"

#define NAME_MAX_LEN	40
#define MAX_ROWS	40

static long iters = 20000000;
volatile long sink;
static volatile long cells[8];
static char src[8192] __attribute__((aligned(4096)));
static char dst[8192 + 4096] __attribute__((aligned(4096)));
static char big_src[16384] __attribute__((aligned(4096)));
static char big_dst[16384] __attribute__((aligned(4096)));

struct row {
	char name[NAME_MAX_LEN];
	double ns;
};

static struct row rows[MAX_ROWS];
static int nrows;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void record(const char *name, double ns)
{
	if (nrows == MAX_ROWS)
		return;
	snprintf(rows[nrows].name, NAME_MAX_LEN, "%s", name);
	rows[nrows++].ns = ns;
}

/* The callees: one beside its caller, one a page away (own sections). */
__attribute__((noinline, section(".text.uc_near"), aligned(64)))
static void callee_near(long x)
{
	sink += x;
}

__attribute__((noinline, section(".text.uc_near")))
static void loop_near(long n)
{
	for (long i = 0; i < n; i++)
		callee_near(i);
}

__attribute__((noinline, section(".text.uc_far1"), aligned(4096)))
static void callee_far(long x)
{
	sink += x;
}

__attribute__((noinline, section(".text.uc_far2"), aligned(4096)))
static void loop_far(long n)
{
	for (long i = 0; i < n; i++)
		callee_far(i);
}

__attribute__((noinline)) static void loop_plain(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

/* Eight loads, then the same with a branch after each (never taken). */
__attribute__((noinline)) static void loop_loads(long n)
{
	for (long i = 0; i < n; i++)
		sink += cells[0] + cells[1] + cells[2] + cells[3] +
			cells[4] + cells[5] + cells[6] + cells[7];
}

#define NOT_TAKEN(k)							\
	do {								\
		if (__builtin_expect(cells[k] == -1, 0)) {		\
			sink++;						\
			__asm__ volatile("" ::: "memory");		\
		}							\
		x += cells[k];						\
	} while (0)

__attribute__((noinline)) static void loop_branches(long n)
{
	for (long i = 0; i < n; i++) {
		long x = 0;

		NOT_TAKEN(0); NOT_TAKEN(1); NOT_TAKEN(2); NOT_TAKEN(3);
		NOT_TAKEN(4); NOT_TAKEN(5); NOT_TAKEN(6); NOT_TAKEN(7);
		sink += x;
	}
}

/* The library's fence (a locked instruction on the stack), and mfence. */
__attribute__((noinline)) static void loop_lock_or(long n)
{
	for (long i = 0; i < n; i++) {
		sink = i;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
}

__attribute__((noinline)) static void loop_mfence(long n)
{
	for (long i = 0; i < n; i++) {
		sink = i;
#if defined(__x86_64__) || defined(__i386__)
		__asm__ volatile("mfence" ::: "memory");
#else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
	}
}

static double per_iter(void (*loop)(long), long n)
{
	double best = 0;

	for (int round = 0; round < 3; round++) {
		double t = now_ns();

		loop(n);
		t = (now_ns() - t) / (double)n;
		if (!round || t < best)
			best = t;
	}
	return best;
}

typedef void *copy_fn(void *, const void *, size_t);

/* ns per @copy of @len bytes from @s to @d, best of three rounds of @n. */
static double time_copy(copy_fn *copy, char *d, const char *s, size_t len,
			long n)
{
	copy_fn *volatile call = copy;	/* a real call, as the library's */
	double best = 0;

	for (int round = 0; round < 3; round++) {
		double t = now_ns();

		for (long i = 0; i < n; i++) {
			call(d, s, len);
			__asm__ volatile("" : : : "memory");
		}
		t = (now_ns() - t) / (double)n;
		if (!round || t < best)
			best = t;
	}
	return best;
}

static void copies(void)
{
	static const size_t sizes[] = { 64, 256, 1024, 4096 };
	char name[NAME_MAX_LEN];

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		long n = iters / 10 / (long)(1 + sizes[k] / 256);

		snprintf(name, sizeof(name), "memcpy_%zu", sizes[k]);
		record(name, time_copy(memcpy, dst, src, sizes[k], n));
	}
}

static void *mpirma_copy_call(void *d, const void *s, size_t n)
{
	mpirma_copy(d, s, n);
	return d;
}

/*
 * 8 KiB to a destination 8 bytes past the source's offset in its page,
 * by glibc (rep movsb at this size: 4 KiB aliasing on some processors)
 * and by mpirma's copy (lib/base/copy.h), beside an aligned memcpy().
 */
static void alias_copies(void)
{
	long n = iters / 10 / 33;

	record("memcpy_8192_aligned",
	       time_copy(memcpy, dst, src, sizeof(src), n));
	record("memcpy_8192_8_past",
	       time_copy(memcpy, dst + 8, src, sizeof(src), n));
	record("mpirma_copy_8192_8_past",
	       time_copy(mpirma_copy_call, dst + 8, src, sizeof(src), n));
}

static void *copy_movsq(void *d, const void *s, size_t n)
{
	void *ret = d;
	size_t q = n / 8;

	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(q) : : "memory");
	return ret;
}

/* 128 bytes a step in 32-byte vectors, as glibc's AVX memcpy() loops. */
__attribute__((target("avx2")))
static void *copy_avx2(void *dv, const void *sv, size_t n)
{
	char *d = dv;
	const char *s = sv;

	for (size_t i = 0; i + 128 <= n; i += 128)
		for (int k = 0; k < 128; k += 32)
			_mm256_storeu_si256((__m256i *)(void *)(d + i + k),
					    _mm256_loadu_si256((const __m256i *)
							       (const void *)(s + i + k)));
	return dv;
}

/*
 * 16 KiB three ways: glibc's memcpy(), rep movsq and an AVX2 loop.  Every
 * MPI makes the same single copy in the OSU one-sided rows of this size;
 * one copy faster than glibc's would be needed to lead them by much.
 */
static void big_copies(void)
{
	long n = iters / 10 / 65;

	record("memcpy_16384", time_copy(memcpy, big_dst, big_src,
					 sizeof(big_src), n));
	record("rep_movsq_16384", time_copy(copy_movsq, big_dst, big_src,
					    sizeof(big_src), n));
	if (__builtin_cpu_supports("avx2"))
		record("avx2_loop_16384", time_copy(copy_avx2, big_dst, big_src,
						    sizeof(big_src), n));
}

/* A read of the TSC, as the clock of mpirma's MPI_Wtime and the vDSO's. */
__attribute__((noinline)) static void loop_rdtsc(long n)
{
	for (long i = 0; i < n; i++)
		sink += (long)__rdtsc();
}

static volatile int tsc_stop;

static void *tsc_reader(void *unused)
{
	(void)unused;
	while (!tsc_stop)
		sink += (long)__rdtsc();
	return NULL;
}

/*
 * QEMU's TCG takes one lock of the whole machine for each read of the
 * TSC: a waiting Open MPI rank, whose progress loop reads it, slows every
 * other CPU's clock reads (docs/benchmarks.md, "What the emulator
 * charges").  On hardware each core reads its own.
 */
static void tsc_reads(long n, double plain)
{
	pthread_t t;

	record("rdtsc", per_iter(loop_rdtsc, n) - plain);
	tsc_stop = 0;
	if (pthread_create(&t, NULL, tsc_reader, NULL))
		return;
	record("rdtsc_other_cpu_reading", per_iter(loop_rdtsc, n) - plain);
	tsc_stop = 1;
	pthread_join(t, NULL);
}

static volatile int spinners_stop;

static void *spinner(void *unused)
{
	(void)unused;
	while (!spinners_stop)
		;
	return NULL;
}

/* nanosleep(@us) as it lasts, mean of @n, with @spin threads busy. */
static void sleeps(int spin, long n)
{
	static const long us[] = { 10, 50, 200 };
	pthread_t t[8];
	char name[NAME_MAX_LEN];
	int started = 0;

	/* the agent's slack (hybrid/agent.c), not the default 50 us */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
	spinners_stop = 0;
	for (; started < spin && started < 8; started++)
		if (pthread_create(&t[started], NULL, spinner, NULL))
			break;
	for (size_t k = 0; k < sizeof(us) / sizeof(us[0]); k++) {
		struct timespec ts = { 0, us[k] * 1000 };
		double sum = 0;

		for (long i = 0; i < n; i++) {
			double t0 = now_ns();

			nanosleep(&ts, NULL);
			sum += now_ns() - t0;
		}
		snprintf(name, sizeof(name), "sleep_%ldus_%dbusy", us[k],
			 started);
		record(name, sum / (double)n);
	}
	spinners_stop = 1;
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
}

static int against(const char *path)
{
	FILE *f = fopen(path, "r");
	char name[NAME_MAX_LEN];
	double ns;

	if (!f) {
		perror(path);
		return 1;
	}
	printf("# here: this run; there: %s\n", path);
	printf("%-22s %12s %12s %8s\n", "cost (ns)", "here", "there",
	       "here/there");
	while (fscanf(f, "%39s %lf", name, &ns) == 2) {
		for (int i = 0; i < nrows; i++) {
			if (strcmp(rows[i].name, name))
				continue;
			printf("%-22s %12.1f %12.1f %8.2f\n", name,
			       rows[i].ns, ns, ns > 0 ? rows[i].ns / ns : 0);
		}
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	const char *other = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double plain, loads;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			iters /= 20;
		} else if (!strcmp(argv[i], "--against") && i + 1 < argc) {
			other = argv[++i];
		} else {
			fprintf(stderr, "usage: %s [--quick] [--against FILE]\n",
				argv[0]);
			return 2;
		}
	}
	plain = per_iter(loop_plain, iters);
	record("loop", plain);
	record("call_ret_same_page", per_iter(loop_near, iters) - plain);
	record("call_ret_other_page", per_iter(loop_far, iters) - plain);
	loads = per_iter(loop_loads, iters);
	record("load", (loads - plain) / 8);
	record("branch_not_taken", (per_iter(loop_branches, iters) - loads) / 8);
	record("fence_lock_or", per_iter(loop_lock_or, iters) - plain);
	record("fence_mfence", per_iter(loop_mfence, iters) - plain);
	if (cpus > 1)
		tsc_reads(iters / 10, plain);
	copies();
	alias_copies();
	big_copies();
	sleeps(0, iters / 100000);
	sleeps(cpus > 8 ? 8 : (int)cpus, iters / 100000);
	if (other)
		return against(other);
	for (int i = 0; i < nrows; i++)
		printf("%s %.1f\n", rows[i].name, rows[i].ns);
	return 0;
}
