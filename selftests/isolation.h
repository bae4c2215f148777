/* SPDX-License-Identifier: GPL-2.0 */
/*
 * isolation.h - what the isolation tests share (isolation.c,
 * isolation_copy.c): poison values and a one-rank mapped ALLOC window.
 */
#ifndef MPIRMA_SELFTEST_ISOLATION_H
#define MPIRMA_SELFTEST_ISOLATION_H

#include <unistd.h>

#include "mpirma_test.h"

#define POISON64	0xccccccccccccccccULL
#define POISON32	0xccccccccU

static inline size_t page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* A one-rank ALLOC window of @len on @mfd, mapped; its id or -errno. */
static inline int solo_alloc(int mfd, uint32_t strategy, uint32_t flags, size_t len,
		      void **map, size_t *map_len)
{
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC, .strategy = strategy, .flags = flags,
		.length = len, .nranks = 1,
	};
	int win = mt_win_create(mfd, &w);

	if (win < 0 || !map)
		return win;
	*map = mt_win_map(mfd, win, map_len);
	return *map ? win : -errno;
}

#endif /* MPIRMA_SELFTEST_ISOLATION_H */
