// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of the handle tables (lib/base/handle.c), no kernel and no
 * VM: handles name what they stored across the chunk boundaries, freed
 * handles stay invalid until the table has to reuse them, MPI_X_next order,
 * and lookups from other threads while one thread keeps creating handles
 * and the table grows (MPI_THREAD_MULTIPLE: lookups take no lock).
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lib/base/handle.c"

int mpirma_raise(int errclass, const char *fn, const char *fmt, ...)
{
	(void)fn;
	(void)fmt;
	return errclass;
}

#include "unit_check.h"

/* Objects are the addresses of this array's bytes: distinct, never NULL. */
#define N	20000
static char objs[N];
static int handles[N];

static void test_boundaries(void)
{
	enum mpirma_hkind k = MPIRMA_HK_GROUP;
	int i, h, prev, bad = 0;

	for (i = 0; i < N; i++) {
		handles[i] = mpirma_handle_alloc(k, &objs[i]);
		bad += handles[i] != mpirma_hbase[k] + i;
	}
	check(!bad, "handles in order", bad, 0);
	/* The first and last slot of each chunk, and everything. */
	for (i = 0, bad = 0; i < N; i++)
		bad += mpirma_handle_get(k, handles[i]) != &objs[i];
	check(!bad, "lookups", bad, 0);
	check(mpirma_handle_get(k, mpirma_hbase[k] + N) == NULL,
	      "one past the last", 0, 0);
	check(mpirma_handle_get(k, mpirma_hbase[k] - 1) == NULL,
	      "below the base", 0, 0);
	check(mpirma_htables[k].cap == MPIRMA_HCHUNK0 * ((1 << 9) - 1),
	      "capacity after 20000", mpirma_htables[k].cap, 0);

	/* Free every other one: gone, the rest intact, next skips them. */
	for (i = 0; i < N; i += 2)
		mpirma_handle_free(k, handles[i]);
	for (i = 0, bad = 0; i < N; i++)
		bad += mpirma_handle_get(k, handles[i]) !=
		       (i % 2 ? &objs[i] : NULL);
	check(!bad, "after freeing half", bad, 0);
	for (h = mpirma_handle_next(k, 0), prev = 0, bad = 0, i = 0; h;
	     prev = h, h = mpirma_handle_next(k, h), i++)
		bad += h <= prev || (h - mpirma_hbase[k]) % 2 != 1;
	check(!bad && i == N / 2, "next", bad, i);

	/*
	 * A table full of handed-out slots, less than half of them live,
	 * reuses freed ones (round robin from the start) instead of growing.
	 */
	while (mpirma_htables[k].used < mpirma_htables[k].cap)
		mpirma_handle_alloc(k, &objs[0]);
	for (h = mpirma_handle_next(k, 0); h; h = mpirma_handle_next(k, h))
		mpirma_handle_free(k, h);
	h = mpirma_handle_alloc(k, &objs[1]);
	check(h == handles[0] && mpirma_htables[k].cap ==
	      MPIRMA_HCHUNK0 * ((1 << 9) - 1), "a freed slot is reused", h,
	      handles[0]);
}

/* One thread creates handles while the others look up the ones it made. */
static int made;		/* handles created so far (release) */

static void *creator(void *arg)
{
	(void)arg;
	for (int i = 0; i < N; i++) {
		handles[i] = mpirma_handle_alloc(MPIRMA_HK_DATATYPE, &objs[i]);
		__atomic_store_n(&made, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *looker(void *arg)
{
	const struct mpirma_htable *t = &mpirma_htables[MPIRMA_HK_DATATYPE];
	int base = mpirma_hbase[MPIRMA_HK_DATATYPE], n, i;
	long bad = 0;

	(void)arg;
	do {
		n = __atomic_load_n(&made, __ATOMIC_ACQUIRE);
		for (int i = n > 64 ? n - 64 : 0; i < n; i++)
			bad += mpirma_handle_get(MPIRMA_HK_DATATYPE,
						 handles[i]) != &objs[i];
		/* The newest handle, as soon as the table counts it. */
		i = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE) - 1;
		if (i >= 0)
			bad += mpirma_handle_get(MPIRMA_HK_DATATYPE,
						 base + i) != &objs[i];
	} while (n < N);
	return (void *)bad;
}

static void test_threads(void)
{
	pthread_t c, l[3];
	void *bad;
	long sum = 0;

	for (int t = 0; t < 3; t++)
		pthread_create(&l[t], NULL, looker, NULL);
	pthread_create(&c, NULL, creator, NULL);
	pthread_join(c, NULL);
	for (int t = 0; t < 3; t++) {
		pthread_join(l[t], &bad);
		sum += (long)bad;
	}
	check(!sum, "lookups while the table grows", sum, 0);
}

int main(void)
{
	test_boundaries();
	test_threads();
	return unit_summary();
}
