// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reduce_pick.c - which build of the reduction engine runs a long loop.
 *
 * The library holds the engine three times (Makefile, LIB_VECT_CFLAGS): as
 * the kernel builds it, vectorized for SSE2 and for AVX2.  Which is faster
 * depends on the CPU and the type: on hardware the vectorized loops win
 * 3-20x; under QEMU's TCG, which runs many SSE instructions through
 * helpers, the scalar ones often do (16 KiB SUM, us, scalar/SSE2/AVX2:
 * int8 57/24/13, int32 15/25/13, double 22/30/79, before the scalar build
 * added small integers eight bytes at a time).  So the first long loop on
 * a type times each build the CPU can run on a small buffer and keeps the
 * fastest.  All compute the same bits; only speed is at stake.
 *
 * The same verdict tells the direct path (lib/rma/update.h) how far its
 * own loop should run integer sums of 1, 2 and 4 bytes before it hands
 * them to the engine: where the scalar build wins, the engine would only
 * add its dispatch.
 */
#include <stdbool.h>
#include <string.h>

#include "internal.h"
#include "reduce.h"

/* Elements below which the choice does not matter: the scalar build. */
#define PICK_MIN_ELEMS	64
#define PICK_BYTES	4096	/* the timed loop's target */
#define PICK_ROUNDS	8	/* loops per timing */
#define PICK_TIMINGS	7	/* timings of each build, in turn; the best counts */

typedef void (*reduce_fn)(unsigned int type, unsigned int op, void *tgt,
			  const void *src, void *old, size_t n);

static bool any_cpu(void)
{
	return true;
}

static bool has_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

/* The builds, the scalar one first, and whether this CPU runs each. */
static const struct {
	reduce_fn fn;
	bool (*runs)(void);
} builds[] = {
	{ mpirma_reduce, any_cpu },
	{ mpirma_reduce_vec, any_cpu },
	{ mpirma_reduce_avx2, has_avx2 },
};

#define NR_BUILDS	(sizeof(builds) / sizeof(builds[0]))

/* Per type, the build picked (NULL: not yet); racing threads agree. */
static reduce_fn picked[MPIRMA_NR_TYPES];

/* One timing of PICK_ROUNDS SUMs (or REPLACEs) by @fn, ns. */
static long long time_build(reduce_fn fn, unsigned int type, void *t,
			    const void *s, size_t n)
{
	unsigned int op = mpirma_op_allowed(MPIRMA_OP_SUM, type) ?
			  MPIRMA_OP_SUM : MPIRMA_OP_REPLACE;
	long long t0 = mpirma_clock_ns();

	for (int r = 0; r < PICK_ROUNDS; r++)
		fn(type, op, t, s, NULL, n);
	return mpirma_clock_ns() - t0;
}

/*
 * The builds are timed in turn, PICK_TIMINGS times each, and each keeps
 * its best: a stall of the clock or the CPU then spoils one timing of one
 * build, not its verdict.  Under QEMU's TCG, where a read of the TSC waits
 * for every other CPU's and a waiting Open MPI rank reads it without end,
 * three timings of each build one after the other chose a vector build
 * for some integer type in 9 of 48 processes while another CPU read the
 * TSC (the scalar one in all alone; now in all either way), and an
 * accumulate of 64 chars under Open MPI + layer had taken three times as
 * long in every launch of a boot.
 */
static reduce_fn pick(unsigned int type)
{
	_Alignas(64) unsigned char t[PICK_BYTES], s[PICK_BYTES];
	size_t n = PICK_BYTES / mpirma_type_info[type].size, k;
	long long best[NR_BUILDS], d, min = -1;
	reduce_fn p = mpirma_reduce;
	int i;

	/* zeros: a valid value of every type, and no denormals or NaNs */
	memset(t, 0, sizeof(t));
	memset(s, 0, sizeof(s));
	for (k = 0; k < NR_BUILDS; k++)
		best[k] = -1;
	for (i = 0; i < PICK_TIMINGS; i++)
		for (k = 0; k < NR_BUILDS; k++) {
			if (!builds[k].runs())
				continue;
			d = time_build(builds[k].fn, type, t, s, n);
			if (best[k] < 0 || d < best[k])
				best[k] = d;
		}
	for (k = 0; k < NR_BUILDS; k++)
		if (best[k] >= 0 && (min < 0 || best[k] < min)) {
			min = best[k];
			p = builds[k].fn;
		}
	__atomic_store_n(&picked[type], p, __ATOMIC_RELAXED);
	return p;
}

uint8_t mpirma_swar_verdict[5];

bool mpirma_swar_learn(unsigned int size)
{
	unsigned int type = size == 1 ? MPIRMA_TYPE_UINT8 :
			    size == 2 ? MPIRMA_TYPE_UINT16 : MPIRMA_TYPE_UINT32;
	reduce_fn p = __atomic_load_n(&picked[type], __ATOMIC_RELAXED);
	bool wins;

	if (!p)
		p = pick(type);
	wins = p == mpirma_reduce;
	__atomic_store_n(&mpirma_swar_verdict[size], wins ? 1 : 2,
			 __ATOMIC_RELAXED);
	return wins;
}

void mpirma_reduce_run(unsigned int type, unsigned int op, void *tgt,
		       const void *src, void *old, size_t n)
{
	reduce_fn p;

	if (n < PICK_MIN_ELEMS || type >= MPIRMA_NR_TYPES) {
		mpirma_reduce(type, op, tgt, src, old, n);
		return;
	}
	p = __atomic_load_n(&picked[type], __ATOMIC_RELAXED);
	if (!p)
		p = pick(type);
	p(type, op, tgt, src, old, n);
}
