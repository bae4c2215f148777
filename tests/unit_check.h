/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * unit_check.h - the tally of the host unit tests that compare numbers:
 * check() counts a pass or prints the first failures with the two values,
 * checkf() the same with a message, and main() ends with unit_summary(),
 * the "N passed, M failed" line.  Included once per test program.
 */
#ifndef MPIRMA_UNIT_CHECK_H
#define MPIRMA_UNIT_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int passed, failed;

static void __attribute__((unused))
check(int ok, const char *what, long a, long b)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	if (failed < 20)
		printf("FAIL %s: %ld, %ld\n", what, a, b);
}

static void __attribute__((unused, format(printf, 2, 3)))
checkf(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int unit_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}

#endif /* MPIRMA_UNIT_CHECK_H */
