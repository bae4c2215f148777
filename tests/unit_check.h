/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * unit_check.h - the tally of the host unit tests that compare numbers:
 * check() counts a pass or prints the first failures with the two values,
 * and main() ends with unit_summary(), the "N passed, M failed" line.
 * Included once per test program.
 */
#ifndef MPIRMA_UNIT_CHECK_H
#define MPIRMA_UNIT_CHECK_H

#include <stdio.h>

static int passed, failed;

static void check(int ok, const char *what, long a, long b)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	if (failed < 20)
		printf("FAIL %s: %ld, %ld\n", what, a, b);
}

static int unit_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}

#endif /* MPIRMA_UNIT_CHECK_H */
