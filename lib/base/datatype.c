// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype.c - MPI datatypes: the predefined types, the objects and their
 * handles, a type built from its runs, commit and free (see datatype.h;
 * datatype_impl.h lists the other datatype files).
 *
 * Bounds follow the standard's definition for a type map (MPI 3.1, 4.1):
 * lb is the lowest displacement and ub the highest end of the entries,
 * except that bounds set by MPI_Type_create_resized are explicit markers
 * that win over the data wherever the type is used (the MPI-1 MPI_LB/MPI_UB
 * rule the standard still defines resized types by).  A struct's ub without
 * a marker is rounded up so that the extent is a multiple of the largest
 * alignment of its basic components, as C pads a struct; the other
 * constructors take their children's extents as they are (as the common
 * implementations do).
 *
 * Block lists keep the type map's order (a struct may go backwards in
 * memory): only pieces that follow each other both in the type map and in
 * memory are merged.  Packing, unpacking and the kernel walk the blocks in
 * that order, so the n-th byte of a message is the n-th byte of the type
 * map on both sides.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"
#include "reduce.h"

/* ------------------------------------------------------------ predefined */

#define T(h, sz, al, kt, mc)						\
	[h] = { #h, sz, sz, al, MPIRMA_TYPE_##kt, MPIRMA_MC_##mc, 1, sz, 0, 0 }
/* A {value, int} pair: value of @vsz bytes at 0, the index at @idx. */
#define PAIR(h, sz, ext, al, kt, vsz, idx)				\
	[h] = { #h, sz, ext, al, MPIRMA_TYPE_##kt, MPIRMA_MC_PAIR, 2, vsz, idx, 4 }

#define NR_PREDEF MPIRMA_DTYPE_NR_PREDEF

const struct mpirma_predef mpirma_dtype_predefs[NR_PREDEF] = {
	T(MPI_CHAR, 1, 1, CHAR, NONE),
	T(MPI_SIGNED_CHAR, 1, 1, INT8, CINT),
	T(MPI_UNSIGNED_CHAR, 1, 1, UINT8, CINT),
	T(MPI_BYTE, 1, 1, BYTE, BYTE),
	T(MPI_WCHAR, 4, 4, WCHAR, NONE),
	T(MPI_SHORT, 2, 2, INT16, CINT),
	T(MPI_UNSIGNED_SHORT, 2, 2, UINT16, CINT),
	T(MPI_INT, 4, 4, INT32, CINT),
	T(MPI_UNSIGNED, 4, 4, UINT32, CINT),
	T(MPI_LONG, 8, 8, INT64, CINT),
	T(MPI_UNSIGNED_LONG, 8, 8, UINT64, CINT),
	T(MPI_LONG_LONG_INT, 8, 8, INT64, CINT),
	T(MPI_UNSIGNED_LONG_LONG, 8, 8, UINT64, CINT),
	T(MPI_FLOAT, 4, 4, FLOAT, FLOAT),
	T(MPI_DOUBLE, 8, 8, DOUBLE, FLOAT),
	T(MPI_LONG_DOUBLE, 16, 16, LONG_DOUBLE, FLOAT),
	T(MPI_C_BOOL, 1, 1, BOOL, LOGICAL),
	T(MPI_INT8_T, 1, 1, INT8, CINT),
	T(MPI_INT16_T, 2, 2, INT16, CINT),
	T(MPI_INT32_T, 4, 4, INT32, CINT),
	T(MPI_INT64_T, 8, 8, INT64, CINT),
	T(MPI_UINT8_T, 1, 1, UINT8, CINT),
	T(MPI_UINT16_T, 2, 2, UINT16, CINT),
	T(MPI_UINT32_T, 4, 4, UINT32, CINT),
	T(MPI_UINT64_T, 8, 8, UINT64, CINT),
	/* Signed, whatever others do: an MPI_Aint or MPI_Offset is a long. */
	T(MPI_AINT, 8, 8, INT64, CINT),
	T(MPI_OFFSET, 8, 8, INT64, CINT),
	T(MPI_COUNT, 8, 8, INT64, CINT),
	/* named by its shorter synonym, as MPICH does and its tests expect */
	[MPI_C_FLOAT_COMPLEX] = { "MPI_C_COMPLEX", 8, 8, 4,
				  MPIRMA_TYPE_C_FLOAT_COMPLEX, MPIRMA_MC_COMPLEX,
				  1, 8, 0, 0 },
	T(MPI_C_DOUBLE_COMPLEX, 16, 8, C_DOUBLE_COMPLEX, COMPLEX),
	T(MPI_C_LONG_DOUBLE_COMPLEX, 32, 16, C_LONG_DOUBLE_COMPLEX, COMPLEX),
	/* Packed data moves as bytes and admits no arithmetic. */
	T(MPI_PACKED, 1, 1, BYTE, NONE),
	PAIR(MPI_FLOAT_INT, 8, 8, 4, FLOAT_INT, 4, 4),
	PAIR(MPI_DOUBLE_INT, 12, 16, 8, DOUBLE_INT, 8, 8),
	PAIR(MPI_LONG_INT, 12, 16, 8, LONG_INT, 8, 8),
	PAIR(MPI_2INT, 8, 8, 4, 2INT, 4, 4),
	PAIR(MPI_SHORT_INT, 6, 8, 4, SHORT_INT, 2, 4),
	PAIR(MPI_LONG_DOUBLE_INT, 20, 32, 16, LONG_DOUBLE_INT, 16, 16),
	T(MPI_CXX_BOOL, 1, 1, BOOL, LOGICAL),
	T(MPI_CXX_FLOAT_COMPLEX, 8, 4, C_FLOAT_COMPLEX, COMPLEX),
	T(MPI_CXX_DOUBLE_COMPLEX, 16, 8, C_DOUBLE_COMPLEX, COMPLEX),
	T(MPI_CXX_LONG_DOUBLE_COMPLEX, 32, 16, C_LONG_DOUBLE_COMPLEX, COMPLEX),
	T(MPI_COMPLEX8, 8, 4, C_FLOAT_COMPLEX, COMPLEX),
	T(MPI_COMPLEX16, 16, 8, C_DOUBLE_COMPLEX, COMPLEX),
	/* INTEGER*16 moves but admits no op: the kernel has no 128-bit integer */
	T(MPI_INTEGER16, 16, 16, BYTE, NONE),
	T(MPI_CHARACTER, 1, 1, CHAR, NONE),
	T(MPI_INTEGER, 4, 4, INT32, FINT),
	T(MPI_REAL, 4, 4, FLOAT, FLOAT),
	T(MPI_DOUBLE_PRECISION, 8, 8, DOUBLE, FLOAT),
	/* gfortran's LOGICAL: 4 bytes, .TRUE. is 1; only LAND/LOR/LXOR. */
	T(MPI_LOGICAL, 4, 4, INT32, LOGICAL),
	T(MPI_COMPLEX, 8, 4, C_FLOAT_COMPLEX, COMPLEX),
	T(MPI_DOUBLE_COMPLEX, 16, 8, C_DOUBLE_COMPLEX, COMPLEX),
	T(MPI_INTEGER1, 1, 1, INT8, FINT),
	T(MPI_INTEGER2, 2, 2, INT16, FINT),
	T(MPI_INTEGER4, 4, 4, INT32, FINT),
	T(MPI_INTEGER8, 8, 8, INT64, FINT),
	T(MPI_REAL4, 4, 4, FLOAT, FLOAT),
	T(MPI_REAL8, 8, 8, DOUBLE, FLOAT),
	/*
	 * The Fortran pairs are two of the same type (index coerced): 2INTEGER
	 * is the kernel's 2INT, the real ones its 2FLOAT and 2DOUBLE.
	 */
	[MPI_2INTEGER] = { "MPI_2INTEGER", 8, 8, 4, MPIRMA_TYPE_2INT, MPIRMA_MC_PAIR, 2, 8, 0, 0 },
	[MPI_2REAL] = { "MPI_2REAL", 8, 8, 4, MPIRMA_TYPE_2FLOAT, MPIRMA_MC_FPAIR, 2, 8, 0, 0 },
	[MPI_2DOUBLE_PRECISION] = { "MPI_2DOUBLE_PRECISION", 16, 16, 8, MPIRMA_TYPE_2DOUBLE,
				    MPIRMA_MC_FPAIR, 2, 16, 0, 0 },
};

#undef T
#undef PAIR

static struct mpirma_dtype predef_obj[NR_PREDEF];
signed char mpirma_dtype_elem[NR_PREDEF];

/*
 * MPI_CHAR and MPI_WCHAR in arithmetic and compare_and_swap: the
 * standard's op/type table puts them in no group, while Open MPI and MPICH
 * take them for the C integers they are (char and wchar_t, signed or not
 * as the platform has them; OSU's one-sided benchmarks default to MPI_CHAR
 * with MPI_SUM).  MPIRMA_STRICT_TYPES=1 keeps the standard's table
 * (mpirma_strict_types() says whether it is set).
 */
static int chars_as_ints = -1;

bool mpirma_strict_types(void)
{
	const char *v;

	if (chars_as_ints < 0) {
		v = getenv("MPIRMA_STRICT_TYPES");
		chars_as_ints = !(v && !strcmp(v, "1"));
	}
	return !chars_as_ints;
}

/* The C integer type (MPIRMA_TYPE_*) MPI_CHAR and MPI_WCHAR compute as. */
#if CHAR_MIN < 0
#define CHAR_KTYPE	MPIRMA_TYPE_INT8
#else
#define CHAR_KTYPE	MPIRMA_TYPE_UINT8
#endif
#if WCHAR_MIN < 0
#define WCHAR_KTYPE	MPIRMA_TYPE_INT32
#else
#define WCHAR_KTYPE	MPIRMA_TYPE_UINT32
#endif

static bool char_type(MPI_Datatype dt)
{
	return dt == MPI_CHAR || dt == MPI_WCHAR;
}

const char *mpirma_dtype_strict_note(MPI_Datatype dt)
{
	const struct mpirma_dtype *t = mpirma_dtype_get(dt);

	return t && char_type(t->basic) && mpirma_strict_types() ?
	       " (MPIRMA_STRICT_TYPES=1)" : "";
}
/* Byte view (two pieces at most) and element view of each predefined type. */
static struct mpirma_block predef_blocks[NR_PREDEF][2];
static struct mpirma_block predef_eblocks[NR_PREDEF];
static bool predef_ready;

static void __attribute__((noinline, cold)) predef_init(void)
{
	int h;

	for (h = 1; h < NR_PREDEF; h++) {
		const struct mpirma_predef *p = &mpirma_dtype_predefs[h];
		struct mpirma_dtype *t = &predef_obj[h];

		if (!p->name)
			continue;
		t->refs = 1;
		t->handle = h;
		t->predefined = true;
		t->committed = true;
		t->combiner = MPIRMA_COMBINER_NAMED;
		t->size = p->size;
		t->nbasic = p->nbasic;
		t->lb = 0;
		t->ub = p->extent;
		t->true_lb = 0;
		t->true_ub = p->len1 ? p->disp1 + p->len1 : p->len0;
		t->align = p->align;
		t->basic = h;
		t->ktype = p->ktype;
		if (char_type(h) && !mpirma_strict_types())
			t->ktype = h == MPI_CHAR ? CHAR_KTYPE : WCHAR_KTYPE;
		t->flat = true;
		predef_blocks[h][0] = (struct mpirma_block){ 0, p->len0 };
		t->nblocks = 1;
		if (p->len1) {
			if (p->disp1 == p->len0)
				predef_blocks[h][0].len += p->len1;
			else
				predef_blocks[h][t->nblocks++] =
					(struct mpirma_block){ p->disp1, p->len1 };
		}
		t->blocks = predef_blocks[h];
		/*
		 * The kernel's element of a pair includes its hole: the element
		 * view of a pair whose size is smaller than its extent is the
		 * whole extent.
		 */
		if (p->mclass == MPIRMA_MC_PAIR && p->size != p->extent) {
			t->padded = true;
			predef_eblocks[h] = (struct mpirma_block){ 0, p->extent };
			t->eblocks = &predef_eblocks[h];
			t->neblocks = 1;
		} else {
			t->eblocks = t->blocks;
			t->neblocks = t->nblocks;
		}
		mpirma_dtype_sum_views(t);
		t->summed = true;
		snprintf(t->hdr.name, sizeof(t->hdr.name), "%s", p->name);
		if (t->ktype >= 0 && !t->padded &&
		    t->size == mpirma_type_info[t->ktype].size &&
		    t->size == mpirma_dtype_extent(t))
			mpirma_dtype_elem[h] = (signed char)(t->ktype + 1);
	}
	predef_ready = true;
}

int mpirma_dtype_mclass(MPI_Datatype dt)
{
	if (dt <= 0 || dt >= NR_PREDEF || !mpirma_dtype_predefs[dt].name)
		return MPIRMA_MC_NONE;
	if (char_type(dt) && !mpirma_strict_types())
		return MPIRMA_MC_CINT;
	return mpirma_dtype_predefs[dt].mclass;
}

/*
 * Two predefined types are the same basic type for accumulate and for
 * homogeneity when nothing an operation does can tell them apart: same
 * kernel type, same op class, same size (MPI_INT and MPI_INT32_T).
 */
bool mpirma_dtype_same_basic(MPI_Datatype a, MPI_Datatype b)
{
	const struct mpirma_predef *pa = &mpirma_dtype_predefs[a];
	const struct mpirma_predef *pb = &mpirma_dtype_predefs[b];

	return a == b || (pa->ktype == pb->ktype && pa->mclass == pb->mclass &&
			  pa->size == pb->size);
}

/* ------------------------------------------------------------ objects */

struct mpirma_dtype *mpirma_dtype_get(MPI_Datatype dt)
{
	if (mpirma_unlikely(!predef_ready))
		predef_init();
	if (dt > 0 && dt < NR_PREDEF)
		return mpirma_dtype_predefs[dt].name ? &predef_obj[dt] : NULL;
	return mpirma_handle_get(MPIRMA_HK_DATATYPE, dt);
}

/* What the attribute code asks of datatypes: their header. */
static struct mpirma_objhdr *dtype_hdr(int handle)
{
	struct mpirma_dtype *t = mpirma_dtype_get(handle);

	return t ? &t->hdr : NULL;
}

static const struct mpirma_kind_ops dtype_kind_ops = { .hdr = dtype_hdr };

static void __attribute__((constructor)) dtype_kind_register(void)
{
	mpirma_kind_register(MPIRMA_HK_DATATYPE, &dtype_kind_ops);
}

const char *mpirma_dtype_describe(MPI_Datatype dt, char *buf, size_t len)
{
	const struct mpirma_dtype *t = mpirma_dtype_get(dt);

	if (!t)
		snprintf(buf, len, "an invalid datatype (%d)", dt);
	else if (t->predefined)
		snprintf(buf, len, "%s", t->hdr.name);
	else if (t->hdr.name[0])
		snprintf(buf, len, "derived datatype \"%s\" of %zu bytes",
			 t->hdr.name, (size_t)t->size);
	else
		snprintf(buf, len, "a derived datatype of %zu bytes",
			 (size_t)t->size);
	return buf;
}

void mpirma_dtype_ref(struct mpirma_dtype *t)
{
	if (t && !t->predefined)
		t->refs++;
}

void mpirma_dtype_unref(struct mpirma_dtype *t)
{
	int i;

	if (!t || t->predefined || --t->refs > 0)
		return;
	for (i = 0; i < t->nruns; i++)
		mpirma_dtype_unref(t->runs[i].type);
	for (i = 0; i < t->args.nt; i++)
		mpirma_dtype_unref(t->args.types[i]);
	free(t->args.ints);
	free(t->args.aints);
	free(t->args.counts);
	free(t->args.types);
	if (t->eblocks != t->blocks)
		free(t->eblocks);
	free(t->blocks);
	free(t->runs);
	free(t);
}

int mpirma_dtype_check(MPI_Datatype dt, bool need_commit,
		       struct mpirma_dtype **out)
{
	struct mpirma_dtype *t = mpirma_dtype_get(dt);

	if (!t)
		return mpirma_err(MPI_ERR_TYPE, dt == MPI_DATATYPE_NULL ?
				  "MPI_DATATYPE_NULL" :
				  "invalid datatype %d", dt);
	if (need_commit) {
		if (!t->committed)
			return mpirma_err(MPI_ERR_TYPE,
					  "datatype %d is not committed", dt);
		if (mpirma_dtype_flatten(t))
			return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (out)
		*out = t;
	return MPI_SUCCESS;
}

int mpirma_buf_check(int count, MPI_Datatype dt, struct mpirma_dtype **out)
{
	int ret;

	/* No data: MPICH takes MPI_DATATYPE_NULL there, and programs use it. */
	if (dt == MPI_DATATYPE_NULL && count == 0)
		dt = MPI_BYTE;
	ret = mpirma_dtype_check(dt, true, out);

	if (!ret && count < 0)
		ret = mpirma_err(MPI_ERR_COUNT, "negative count %d", count);
	return ret;
}

int mpirma_dtype_size_check(MPI_Count count, MPI_Datatype dt,
			    bool need_commit, struct mpirma_dtype **out,
			    MPI_Count *bytes)
{
	struct mpirma_dtype *t;
	int ret = mpirma_dtype_check(dt, need_commit, &t);

	if (ret)
		return ret;
	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative count %lld",
				  (long long)count);
	if (!mpirma_span_ok(count, t->size))
		return mpirma_err(MPI_ERR_COUNT, "%lld elements of %lld bytes: "
				  "more than 2^62 bytes", (long long)count,
				  (long long)t->size);
	*bytes = count * t->size;
	if (out)
		*out = t;
	return MPI_SUCCESS;
}

int mpirma_dtype_ktype(MPI_Datatype dt)
{
	struct mpirma_dtype *t = mpirma_dtype_get(dt);

	if (!t || t->basic <= 0)
		return -1;
	return t->ktype;
}

/*
 * A new type from its runs (taken over, freed on failure): computes size,
 * bounds, alignment and basic type, and references the children.  NULL when
 * out of memory.
 */
struct mpirma_dtype *mpirma_dtype_build(int combiner,
					struct mpirma_dtype_run *runs,
					int nruns)
{
	struct mpirma_dtype *t = mpirma_zalloc(1, sizeof(*t));
	MPI_Aint lbm = 0, ubm = 0, lbp = 0, ubp = 0;
	bool have_lbm = false, have_ubm = false, have_plain = false;
	bool have_data = false;
	int i;

	if (!t) {
		free(runs);
		return NULL;
	}
	t->refs = 1;
	t->combiner = combiner;
	t->runs = runs;
	t->nruns = nruns;
	t->align = 1;
	t->basic = MPI_DATATYPE_NULL;
	t->ktype = -1;
	for (i = 0; i < nruns; i++) {
		struct mpirma_dtype_run *r = &runs[i];
		struct mpirma_dtype *c = r->type;
		MPI_Aint ext = mpirma_dtype_extent(c);
		MPI_Aint lo, hi;

		mpirma_dtype_ref(c);
		if (r->n <= 0)
			continue;
		/* Instances sit at disp + j * ext; the extremes are j = 0, n-1. */
		lo = min_aint(r->disp, r->disp + (r->n - 1) * ext);
		hi = max_aint(r->disp, r->disp + (r->n - 1) * ext);
		if (c->lb_marked) {
			lbm = have_lbm ? min_aint(lbm, lo + c->lb) : lo + c->lb;
			have_lbm = true;
		}
		if (c->ub_marked) {
			ubm = have_ubm ? max_aint(ubm, hi + c->ub) : hi + c->ub;
			have_ubm = true;
		}
		if (c->size > 0 || c->lb_marked || c->ub_marked) {
			lbp = have_plain ? min_aint(lbp, lo + c->lb) : lo + c->lb;
			ubp = have_plain ? max_aint(ubp, hi + c->ub) : hi + c->ub;
			have_plain = true;
		}
		if (c->size == 0)
			continue;
		if (!have_data) {
			t->true_lb = lo + c->true_lb;
			t->true_ub = hi + c->true_ub;
		} else {
			t->true_lb = min_aint(t->true_lb, lo + c->true_lb);
			t->true_ub = max_aint(t->true_ub, hi + c->true_ub);
		}
		have_data = true;
		t->size += r->n * c->size;
		t->nbasic += r->n * c->nbasic;
		if (c->align > t->align)
			t->align = c->align;
		if (c->padded)
			t->padded = true;
		/* Homogeneity: the first basic type seen, unless another differs. */
		if (t->basic == MPI_DATATYPE_NULL)
			t->basic = c->basic;
		else if (t->basic != MPIRMA_DTYPE_MIXED &&
			 (c->basic == MPIRMA_DTYPE_MIXED ||
			  !mpirma_dtype_same_basic(t->basic, c->basic)))
			t->basic = MPIRMA_DTYPE_MIXED;
	}
	t->lb = have_lbm ? lbm : lbp;
	t->ub = have_ubm ? ubm : ubp;
	t->lb_marked = have_lbm;
	t->ub_marked = have_ubm;
	if (combiner == MPIRMA_COMBINER_STRUCT && !have_ubm) {
		MPI_Aint ext = t->ub - t->lb, r = ext % t->align;

		if (r)
			t->ub += t->align - r;
	}
	if (t->basic > 0)
		t->ktype = mpirma_dtype_predefs[t->basic].ktype;
	else
		t->padded = false;	/* no element view at all */
	return t;
}

/* ------------------------------------------------------------ handles */

/*
 * Frees the type @t of handle *@datatype: its attributes are deleted first
 * (their callbacks see the handle), then the handle; the object lives on
 * while types built from it hold it.  MPI class of the first failing
 * delete callback (recorded); the type is gone regardless.
 */
int mpirma_dtype_release(struct mpirma_dtype *t, MPI_Datatype *datatype)
{
	int ret = mpirma_attrs_delete_all(&t->hdr, MPIRMA_HK_DATATYPE,
					  *datatype);

	mpirma_handle_free(MPIRMA_HK_DATATYPE, *datatype);
	t->handle = 0;
	if (!mpirma_dtype_keep(t))
		mpirma_dtype_unref(t);
	*datatype = MPI_DATATYPE_NULL;
	if (ret)
		return mpirma_err(ret, "the delete callback of an attribute "
				  "failed with %d", ret);
	return MPI_SUCCESS;
}

/* Registers a new type: handle or MPI_ERR_NO_MEM (recorded). */
int mpirma_dtype_register(struct mpirma_dtype *t, MPI_Datatype *newtype)
{
	int h;

	if (!t)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	h = mpirma_handle_alloc(MPIRMA_HK_DATATYPE, t);
	if (!h) {
		mpirma_dtype_unref(t);
		return mpirma_err(MPI_ERR_NO_MEM, "out of datatype handles");
	}
	t->handle = h;
	*newtype = h;
	return MPI_SUCCESS;
}

/* ------------------------------------------------------------ management */

int PMPI_Type_commit(MPI_Datatype *datatype)
{
	struct mpirma_dtype *t;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!datatype)
		return RAISE(MPI_ERR_ARG, "datatype is NULL");
	ret = mpirma_dtype_check(*datatype, false, &t);
	if (ret)
		return RAISE(ret, NULL);
	if (mpirma_dtype_flatten(t))
		return RAISE(MPI_ERR_NO_MEM, "out of memory");
	t->committed = true;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
	struct mpirma_dtype *t;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!datatype)
		return RAISE(MPI_ERR_ARG, "datatype is NULL");
	ret = mpirma_dtype_check(*datatype, false, &t);
	if (ret)
		return RAISE(ret, NULL);
	if (t->predefined)
		return RAISE(MPI_ERR_TYPE, "%s is predefined", t->hdr.name);
	if (t->permanent)
		return RAISE(MPI_ERR_TYPE, "datatype %d is an f90 type of "
			     "MPI_Type_create_f90_*: it must not be freed",
			     *datatype);
	return RAISE(mpirma_dtype_release(t, datatype), NULL);
}
MPIRMA_ALIAS(Type_free)
