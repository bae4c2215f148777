/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dtype_unit.h - what the host unit tests of the datatypes share: the
 * library's datatype sources (and the op engine) included whole, the few
 * process-level functions they call stubbed, and the checks of a type's
 * block list and bounds.  Included once per test program.
 */
#ifndef MPIRMA_TESTS_DTYPE_UNIT_H
#define MPIRMA_TESTS_DTYPE_UNIT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "../lib/base/handle.c"
#include "../lib/base/thread.c"
#include "../lib/base/datatype.c"
#include "../lib/base/datatype_flat.c"
#include "../lib/base/datatype_ctor.c"
#include "../lib/base/datatype_array.c"
#include "../lib/base/datatype_reuse.c"
#include "../lib/base/datatype_query.c"
#include "../lib/base/datatype_pack.c"
#include "../lib/base/datatype_ext32.c"
#include "../lib/base/datatype_f90.c"
#include "../lib/base/op.c"
#include "unit_check.h"

/* ------------------------------------------------------------ stubs */

struct mpirma_proc mpirma_proc = { .state = MPIRMA_STATE_RUNNING, .size = 1 };
static int last_class;

int mpirma_ioctl(unsigned long cmd, void *arg)
{
	(void)cmd;
	(void)arg;
	return -ENOSYS;		/* no kernel here */
}

int mpirma_not_running(const char *fn)
{
	fprintf(stderr, "%s: not running\n", fn);
	exit(2);
}

int mpirma_err(int errclass, const char *fmt, ...)
{
	(void)fmt;
	last_class = errclass;
	return errclass;
}

int mpirma_raise(int errclass, const char *fn, const char *fmt, ...)
{
	(void)fn;
	(void)fmt;
	return errclass;
}

int mpirma_raise_comm(MPI_Comm comm, int errclass, const char *fn,
		      const char *fmt, ...)
{
	(void)comm;
	(void)fn;
	(void)fmt;
	return errclass;
}

static struct mpirma_objhdr world;

struct mpirma_objhdr *mpirma_objhdr_get(enum mpirma_hkind kind, int handle)
{
	return kind == MPIRMA_HK_COMM && handle == MPI_COMM_WORLD ? &world : NULL;
}

/* Datatype attributes are attr.c's, not tested here. */
void mpirma_kind_register(enum mpirma_hkind kind,
			  const struct mpirma_kind_ops *ops)
{
	(void)kind;
	(void)ops;
}

int mpirma_attrs_copy(int old, struct mpirma_objhdr *from,
		      struct mpirma_objhdr *to)
{
	(void)old;
	(void)from;
	(void)to;
	return MPI_SUCCESS;
}

int mpirma_attrs_delete_all(struct mpirma_objhdr *h, enum mpirma_hkind kind,
			    int handle)
{
	(void)h;
	(void)kind;
	(void)handle;
	return MPI_SUCCESS;
}

/* ------------------------------------------------------------ harness */

#define CHECK(cond) checkf((cond), "%s:%d: %s", __FILE__, __LINE__, #cond)
/* Evaluates each argument once. */
#define CHECK_EQ(a, b) do {						\
	long long a_ = (long long)(a), b_ = (long long)(b);		\
	checkf(a_ == b_, "%s:%d: %s == %lld, want %lld", __FILE__,	\
	       __LINE__, #a, a_, b_);					\
} while (0)

/* The block list of @dt must be exactly @n pairs (disp, len). */
static void check_blocks(const char *what, MPI_Datatype dt, bool elem, int n, ...)
{
	struct mpirma_dtype *t = mpirma_dtype_get(dt);
	const struct mpirma_block *b;
	size_t nb;
	va_list ap;
	int i, ok;

	if (!t || mpirma_dtype_flatten(t)) {
		checkf(0, "%s: no datatype", what);
		return;
	}
	b = elem ? t->eblocks : t->blocks;
	nb = elem ? t->neblocks : t->nblocks;
	ok = nb == (size_t)n;
	va_start(ap, n);
	for (i = 0; i < n; i++) {
		long long d = va_arg(ap, long long), l = va_arg(ap, long long);

		if (ok && (b[i].disp != d || (long long)b[i].len != l))
			ok = 0;
	}
	va_end(ap);
	checkf(ok, "%s: block list", what);
	if (!ok) {
		printf("  got %zu:", nb);
		for (i = 0; i < (int)nb; i++)
			printf(" {%lld,%llu}", (long long)b[i].disp,
			       (unsigned long long)b[i].len);
		printf("\n");
	}
}

static void check_bounds(const char *what, MPI_Datatype dt, MPI_Aint size,
			 MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb,
			 MPI_Aint textent)
{
	MPI_Aint l, e, tl, te;
	int s;

	PMPI_Type_size(dt, &s);
	PMPI_Type_get_extent(dt, &l, &e);
	PMPI_Type_get_true_extent(dt, &tl, &te);
	checkf(s == size && l == lb && e == extent && tl == tlb && te == textent,
	       "%s: size %d lb %ld extent %ld true %ld/%ld, want %ld %ld %ld %ld/%ld",
	       what, s, l, e, tl, te, size, lb, extent, tlb, textent);
}

#endif /* MPIRMA_TESTS_DTYPE_UNIT_H */
