// SPDX-License-Identifier: GPL-2.0
/*
 * osu_bench: the values rows move and how they are checked: the elements
 * of each datatype, the running sums a row's accumulates reach (tri()),
 * the byte patterns of puts and gets, and an MPI error kept for the row.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "osu.h"

/* ------------------------------------------------------------ helpers */

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void *xalloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, (size_t)sysconf(_SC_PAGESIZE), len ? len : 1)) {
		fprintf(stderr, "%s: rank %d: out of memory (%zu bytes)\n", PROG, rank, len);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(p, 0, len);
	return p;
}

MPI_Datatype mpi_type(enum type t)
{
	switch (t) {
	case T_INT:
		return MPI_INT;
	case T_FLOAT:
		return MPI_FLOAT;
	case T_DOUBLE:
		return MPI_DOUBLE;
	default:
		return MPI_CHAR;
	}
}

void fill_typed(enum type t, void *p, size_t count, int64_t v)
{
	unsigned char e[8];

	typed_value(t, v, e);
	for (size_t i = 0; i < count; i++)
		memcpy((unsigned char *)p + i * type_sizes[t], e, type_sizes[t]);
}

/* The index of the first of @count elements at @p that is not @v, or -1. */
long typed_mismatch(enum type t, const void *p, size_t count, int64_t v)
{
	unsigned char e[8];

	typed_value(t, v, e);
	for (size_t i = 0; i < count; i++)
		if (memcmp((const unsigned char *)p + i * type_sizes[t], e, type_sizes[t]))
			return (long)i;
	return -1;
}

/* The bytes a row puts (pat 0) and the bytes a get reads (pat 1). */
unsigned char pattern(int pat, unsigned int seed, size_t i)
{
	return (unsigned char)((i * (pat ? 151 : 131) + seed * 7 + 1) ^ (i >> 8));
}

long pattern_mismatch(int pat, unsigned int seed, const unsigned char *p,
		      size_t from, size_t len)
{
	for (size_t i = from; i < len; i++)
		if (p[i] != pattern(pat, seed, i))
			return (long)i;
	return -1;
}

/*
 * "element I holds X, expected Y" for the element at @at of @p, the
 * expected one after @n operations (typed rows) or the pattern's byte.
 */
void describe(const struct row *r, const unsigned char *p, size_t at, uint64_t n,
		     char *why, size_t len)
{
	const bool typed = r->op == OP_ACC || r->op == OP_GACC || r->op == OP_FOP ||
			   r->op == OP_CAS;
	const size_t sz = typed ? type_sizes[r->type] : 1;
	unsigned char want[8];
	char got_s[40] = "", want_s[40] = "";

	if (typed)
		typed_value(r->type, expected(r, n), want);
	else
		want[0] = pattern(r->op == OP_GET || r->op == OP_GET_BW, r->seed, at);
	for (size_t i = 0; i < sz; i++) {
		snprintf(got_s + 2 * i, 3, "%02x", p[at * sz + i]);
		snprintf(want_s + 2 * i, 3, "%02x", want[i]);
	}
	snprintf(why, len, "element %zu holds 0x%s, expected 0x%s after %" PRIu64
		 " operations", at, got_s, want_s, n);
}

/* An MPI call's result: the first failure of a row is kept, the rest ignored. */
void check_rc(struct row *r, int rc, const char *call)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (rc == MPI_SUCCESS || r->err)
		return;
	r->err = rc;
	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "error %d", rc);
	snprintf(r->errstr, sizeof(r->errstr), "%.*s: %s",
		 (int)strcspn(call, "("), call, msg);
}

#define CK(r, call)	check_rc((r), (call), #call)
