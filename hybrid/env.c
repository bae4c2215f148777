// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * env.c - reading the layer's environment variables (env.h).  Called
 * before MPI_Init too (node.c, transport.c): nothing here calls the host.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

int hy_env_number(const char *name, long min, long max, long *out)
{
	const char *v = getenv(name);
	char *end;

	if (!v || !*v)
		return 0;
	errno = 0;
	*out = strtol(v, &end, 10);
	return errno || *end || *out < min || *out > max ? -1 : 1;
}

int hy_env_int(const char *name, int dflt, int min, int max)
{
	long n;
	int got = hy_env_number(name, min, max, &n);

	if (got < 0)
		fprintf(stderr, "mpirma: %s=%s: not a number from %d to %d; "
			"using %d\n", name, getenv(name), min, max, dflt);
	return got > 0 ? (int)n : dflt;
}

/* A count in @name, or -1 when unset or not a count. */
static long count_of(const char *name)
{
	long n;

	return hy_env_number(name, 1, LONG_MAX, &n) > 0 ? n : -1;
}

bool hy_launcher_ranks(long *world, long *local)
{
	static const char *const counts[][2] = {
		{ "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE" },
		{ "PMI_SIZE", "MPI_LOCALNRANKS" },
	};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		*world = count_of(counts[i][0]);
		if (*world > 0) {
			*local = count_of(counts[i][1]);
			return true;
		}
	}
	return false;
}

/* Has @name's bad value been said?  Marks it said (a few names at most). */
static int said(const char *name)
{
	static const char *names[8];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i] && !strcmp(names[i], name))
			return 1;
		if (!names[i]) {
			names[i] = name;
			return 0;
		}
	}
	return 1;
}

int hy_env_word(const char *name, const char *const *words, int n)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(v, words[i]))
			return i;
	if (!said(name)) {
		fprintf(stderr, "mpirma: %s=%s: not", name, v);
		for (int i = 0; i < n; i++)
			fprintf(stderr, "%s %s", !i ? "" : i < n - 1 ? "," :
				" or", words[i]);
		fprintf(stderr, "; using %s\n", words[0]);
	}
	return 0;
}
