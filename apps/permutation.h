/* SPDX-License-Identifier: GPL-2.0 */
/*
 * permutation.h - the check of fetch-and-add counters shared by the GA
 * programs (ga.c, ga_bench.c): every increment fetched a value of its own.
 */
#ifndef MPIRMA_APPS_PERMUTATION_H
#define MPIRMA_APPS_PERMUTATION_H

#include <stdbool.h>
#include <stdlib.h>

/* Does every value 0..n-1 occur exactly once in @v? */
static inline bool permutation(const long *v, long n)
{
	char *seen = calloc(n > 0 ? (size_t)n : 1, 1);
	bool ok = seen != NULL;

	for (long i = 0; ok && i < n; i++) {
		ok = v[i] >= 0 && v[i] < n && !seen[v[i]];
		if (ok)
			seen[v[i]] = 1;
	}
	free(seen);
	return ok;
}

#endif /* MPIRMA_APPS_PERMUTATION_H */
