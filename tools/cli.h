/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line helpers shared by the tools and bench/rma_bench.c, so that
 * they report bad arguments alike: "prog: what is wrong", then "Try 'prog
 * --help'." and exit status 2.
 *
 * The program defines usage_error() (rma_bench reports at rank 0 only and
 * finalizes MPI first); the parsers here call it.
 */
#ifndef MPIRMA_CLI_H
#define MPIRMA_CLI_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...);

/* "@prog: message" on stderr; with @hint, the line that points to --help. */
static inline void cli_vreport(const char *prog, bool hint, const char *fmt,
			       va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (hint)
		fprintf(stderr, "Try '%s --help'.\n", prog);
}

/* A decimal number in [min, max] for option @opt; else a usage error. */
static inline unsigned long cli_ulong(const char *opt, const char *s,
				      unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *s == '+' || v < min ||
	    v > max) {
		if (max == ULONG_MAX)
			usage_error("%s wants a number >= %lu, not '%s'", opt,
				    min, s);
		usage_error("%s wants a number from %lu to %lu, not '%s'", opt,
			    min, max, s);
	}
	return v;
}

/* Seconds in [min, max] for option @opt; else a usage error. */
static inline double cli_seconds(const char *opt, const char *s, double min,
				 double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* !(v >= min) also refuses NaN */
	if (errno || end == s || *end || !(v >= min) || v > max)
		usage_error("%s wants seconds from %g to %g, not '%s'", opt,
			    min, max, s);
	return v;
}

/*
 * The index of @s in @names (@n of them) for option @opt; else a usage
 * error that lists @choices.
 */
static inline int cli_choice(const char *opt, const char *s,
			     const char *const *names, int n,
			     const char *choices)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	usage_error("%s wants %s, not '%s'", opt, choices, s);
}

#endif /* MPIRMA_CLI_H */
