// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype.c - MPI datatypes: the predefined types, the constructors, and
 * the flattening into the kernel's layout form (see datatype.h).
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
#include "reduce.h"

/* ------------------------------------------------------------ predefined */

/*
 * One predefined type: MPI size and extent, alignment, kernel element type,
 * op class, basic elements, and its bytes (one or two pieces).
 */
struct predef {
	const char *name;
	int size;
	int extent;
	int align;
	int ktype;
	int mclass;
	int nbasic;
	int len0;		/* first piece: [0, len0) */
	int disp1, len1;	/* second piece, if len1 */
};

#define T(h, sz, al, kt, mc)						\
	[h] = { #h, sz, sz, al, MPIRMA_TYPE_##kt, MPIRMA_MC_##mc, 1, sz, 0, 0 }
/* A {value, int} pair: value of @vsz bytes at 0, the index at @idx. */
#define PAIR(h, sz, ext, al, kt, vsz, idx)				\
	[h] = { #h, sz, ext, al, MPIRMA_TYPE_##kt, MPIRMA_MC_PAIR, 2, vsz, idx, 4 }

#define NR_PREDEF MPIRMA_DTYPE_NR_PREDEF

static const struct predef predefs[NR_PREDEF] = {
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
	T(MPI_C_FLOAT_COMPLEX, 8, 4, C_FLOAT_COMPLEX, COMPLEX),
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
		const struct predef *p = &predefs[h];
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
	if (dt <= 0 || dt >= NR_PREDEF || !predefs[dt].name)
		return MPIRMA_MC_NONE;
	if (char_type(dt) && !mpirma_strict_types())
		return MPIRMA_MC_CINT;
	return predefs[dt].mclass;
}

/*
 * Two predefined types are the same basic type for accumulate and for
 * homogeneity when nothing an operation does can tell them apart: same
 * kernel type, same op class, same size (MPI_INT and MPI_INT32_T).
 */
static bool same_basic(MPI_Datatype a, MPI_Datatype b)
{
	return a == b || (predefs[a].ktype == predefs[b].ktype &&
			  predefs[a].mclass == predefs[b].mclass &&
			  predefs[a].size == predefs[b].size);
}

/* ------------------------------------------------------------ objects */

struct mpirma_dtype *mpirma_dtype_get(MPI_Datatype dt)
{
	if (mpirma_unlikely(!predef_ready))
		predef_init();
	if (dt > 0 && dt < NR_PREDEF)
		return predefs[dt].name ? &predef_obj[dt] : NULL;
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
	int ret = mpirma_dtype_check(dt, true, out);

	if (!ret && count < 0)
		ret = mpirma_err(MPI_ERR_COUNT, "negative count %d", count);
	return ret;
}

int mpirma_dtype_ktype(MPI_Datatype dt)
{
	struct mpirma_dtype *t = mpirma_dtype_get(dt);

	if (!t || t->basic <= 0)
		return -1;
	return t->ktype;
}

static MPI_Aint min_aint(MPI_Aint a, MPI_Aint b)
{
	return a < b ? a : b;
}

static MPI_Aint max_aint(MPI_Aint a, MPI_Aint b)
{
	return a > b ? a : b;
}

/*
 * A new type from its runs (taken over, freed on failure): computes size,
 * bounds, alignment and basic type, and references the children.  NULL when
 * out of memory.
 */
static struct mpirma_dtype *dtype_build(int combiner,
					struct mpirma_dtype_run *runs,
					int nruns)
{
	struct mpirma_dtype *t = calloc(1, sizeof(*t));
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
			  !same_basic(t->basic, c->basic)))
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
		t->ktype = predefs[t->basic].ktype;
	else
		t->padded = false;	/* no element view at all */
	return t;
}

/* ------------------------------------------------------------ flattening */

struct blist {
	struct mpirma_block *b;
	size_t n, cap;
};

static int blist_add(struct blist *l, int64_t disp, uint64_t len)
{
	if (!len)
		return 0;
	if (l->n && l->b[l->n - 1].disp + (int64_t)l->b[l->n - 1].len == disp) {
		l->b[l->n - 1].len += len;
		return 0;
	}
	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 8;
		struct mpirma_block *nb = realloc(l->b, ncap * sizeof(*nb));

		if (!nb)
			return -1;
		l->b = nb;
		l->cap = ncap;
	}
	l->b[l->n++] = (struct mpirma_block){ disp, len };
	return 0;
}

/* The blocks of @t's runs in one view (@elem: element view). */
static int flatten_view(struct mpirma_dtype *t, bool elem, struct blist *out)
{
	int i;

	for (i = 0; i < t->nruns; i++) {
		const struct mpirma_dtype_run *r = &t->runs[i];
		const struct mpirma_dtype *c = r->type;
		const struct mpirma_block *cb = elem ? c->eblocks : c->blocks;
		size_t cn = elem ? c->neblocks : c->nblocks, k;
		MPI_Aint ext = mpirma_dtype_extent(c);
		MPI_Count j;

		if (r->n <= 0 || c->size == 0 || !cn)
			continue;
		/* Instances that touch each other: one block for the run. */
		if (cn == 1 && (MPI_Aint)cb[0].len == ext) {
			if (blist_add(out, r->disp + cb[0].disp, r->n * cb[0].len))
				return -1;
			continue;
		}
		for (j = 0; j < r->n; j++)
			for (k = 0; k < cn; k++)
				if (blist_add(out, r->disp + j * ext + cb[k].disp,
					      cb[k].len))
					return -1;
	}
	return 0;
}

static struct mpirma_block *shrink(struct blist *l)
{
	struct mpirma_block *b;

	if (!l->n) {
		free(l->b);
		return NULL;
	}
	b = realloc(l->b, l->n * sizeof(*b));
	return b ? b : l->b;
}

int mpirma_dtype_flatten(struct mpirma_dtype *t)
{
	struct blist bytes = { 0 }, elems = { 0 };
	int i;

	if (t->flat)
		return 0;
	for (i = 0; i < t->nruns; i++)
		if (mpirma_dtype_flatten(t->runs[i].type))
			return -ENOMEM;
	if (flatten_view(t, false, &bytes))
		goto out_nomem;
	if (t->basic > 0 && t->padded && flatten_view(t, true, &elems))
		goto out_nomem;
	t->nblocks = bytes.n;
	t->blocks = shrink(&bytes);
	if (t->basic > 0 && t->padded) {
		t->neblocks = elems.n;
		t->eblocks = shrink(&elems);
	} else if (t->basic > 0) {
		t->neblocks = t->nblocks;
		t->eblocks = t->blocks;
	}
	t->flat = true;
	return 0;

out_nomem:
	free(bytes.b);
	free(elems.b);
	return -ENOMEM;
}

/* ------------------------------------------------------------ layouts */

static int layout_fill(struct mpirma_dtype *t, MPI_Count count, const void *addr,
		       struct mpirma_layout *out, bool elem, unsigned int kt)
{
	const struct mpirma_block *b = elem ? t->eblocks : t->blocks;
	size_t n = elem ? t->neblocks : t->nblocks;
	unsigned int esz = mpirma_type_info[kt].size;
	MPI_Aint ext = mpirma_dtype_extent(t);

	memset(out, 0, sizeof(*out));
	out->addr = (uintptr_t)addr;
	if (count == 0 || t->size == 0 || !n)
		return MPI_SUCCESS;
	/* Plain contiguous elements from the address itself: no block list. */
	if (n == 1 && b[0].disp == 0 && (count == 1 || (MPI_Aint)b[0].len == ext)) {
		out->count = (uint64_t)count * (b[0].len / esz);
		return MPI_SUCCESS;
	}
	if (n > MPIRMA_MAX_BLOCKS)
		return mpirma_err(MPI_ERR_TYPE, "datatype %d has %zu blocks, "
				  "more than the kernel takes (%u)",
				  t->handle, n, MPIRMA_MAX_BLOCKS);
	out->blocks = (uintptr_t)b;
	out->nblocks = n;
	out->count = count;
	out->extent = ext;
	return MPI_SUCCESS;
}

static int layout_args(MPI_Datatype dt, MPI_Count count,
		       struct mpirma_dtype **t)
{
	MPI_Aint ext;
	int ret = mpirma_dtype_check(dt, true, t);

	if (ret)
		return ret;
	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative count %lld",
				  (long long)count);
	/* no byte count or address computed from it may overflow */
	ext = mpirma_dtype_extent(*t);
	if (count > 1 &&
	    ((MPI_Count)(*t)->size > MPIRMA_MAX_SPAN / count ||
	     (ext < 0 ? -ext : ext) > MPIRMA_MAX_SPAN / count))
		return mpirma_err(MPI_ERR_COUNT, "%lld elements of datatype %d "
				  "span more than 2^62 bytes", (long long)count,
				  dt);
	return MPI_SUCCESS;
}

int mpirma_dtype_layout(MPI_Datatype dt, MPI_Count count, const void *addr,
			struct mpirma_layout *out, unsigned int *ktype)
{
	struct mpirma_dtype *t;
	int ret = layout_args(dt, count, &t);
	bool elem;
	unsigned int kt;

	if (ret)
		return ret;
	elem = t->basic > 0 && t->ktype >= 0;
	kt = elem ? (unsigned int)t->ktype : MPIRMA_TYPE_BYTE;
	if (ktype)
		*ktype = kt;
	return layout_fill(t, count, addr, out, elem, kt);
}

int mpirma_dtype_layout_bytes(MPI_Datatype dt, MPI_Count count,
			      const void *addr, struct mpirma_layout *out)
{
	struct mpirma_dtype *t;
	int ret = layout_args(dt, count, &t);

	if (ret)
		return ret;
	return layout_fill(t, count, addr, out, false, MPIRMA_TYPE_BYTE);
}

int mpirma_dtype_acc_match(MPI_Datatype a, MPI_Datatype b)
{
	struct mpirma_dtype *ta = mpirma_dtype_get(a);
	struct mpirma_dtype *tb = mpirma_dtype_get(b);

	if (!ta || !tb)
		return mpirma_err(MPI_ERR_TYPE, "invalid datatype %d",
				  ta ? b : a);
	if (ta->basic == MPI_DATATYPE_NULL || tb->basic == MPI_DATATYPE_NULL)
		return MPI_SUCCESS;
	if (ta->basic == MPIRMA_DTYPE_MIXED || tb->basic == MPIRMA_DTYPE_MIXED)
		return mpirma_err(MPI_ERR_TYPE, "datatype %d is not built from "
				  "a single predefined type",
				  ta->basic == MPIRMA_DTYPE_MIXED ? a : b);
	if (!same_basic(ta->basic, tb->basic))
		return mpirma_err(MPI_ERR_TYPE, "datatypes of %s and of %s do not "
				  "match", predefs[ta->basic].name,
				  predefs[tb->basic].name);
	return MPI_SUCCESS;
}

/* ------------------------------------------------------------ data movement */

bool mpirma_dtype_contig(const struct mpirma_dtype *t, MPI_Count count,
			 const void *buf, const void **data)
{
	if (t->size == 0 || count == 0) {
		*data = buf;
		return true;
	}
	if (t->nblocks == 1 &&
	    (count == 1 || (MPI_Aint)t->blocks[0].len == mpirma_dtype_extent(t))) {
		*data = (const char *)buf + t->blocks[0].disp;
		return true;
	}
	return false;
}

/* Address @off bytes from @p, computed as integers (the offset may be negative). */
static inline char *at(const void *p, int64_t off)
{
	return (char *)((uintptr_t)p + (uintptr_t)off);
}

void mpirma_dtype_pack(const struct mpirma_dtype *t, const void *buf,
		       MPI_Count count, void *out)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	const void *data;
	char *o = out;
	MPI_Count i;
	size_t k;

	if (mpirma_dtype_contig(t, count, buf, &data)) {
		if (count && t->size)
			memcpy(o, data, count * t->size);
		return;
	}
	for (i = 0; i < count; i++)
		for (k = 0; k < t->nblocks; k++) {
			memcpy(o, at(buf, i * ext + t->blocks[k].disp),
			       t->blocks[k].len);
			o += t->blocks[k].len;
		}
}

void mpirma_dtype_unpack(const struct mpirma_dtype *t, const void *in,
			 size_t nbytes, void *buf, MPI_Count count)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	const char *p = in;
	const void *data;
	MPI_Count i;
	size_t k;

	if ((MPI_Count)nbytes > count * t->size)
		nbytes = count * t->size;
	if (mpirma_dtype_contig(t, count, buf, &data)) {
		if (nbytes)
			memcpy((void *)data, p, nbytes);
		return;
	}
	for (i = 0; i < count && nbytes; i++)
		for (k = 0; k < t->nblocks && nbytes; k++) {
			size_t len = t->blocks[k].len;

			if (len > nbytes)
				len = nbytes;
			memcpy(at(buf, i * ext + t->blocks[k].disp), p, len);
			p += len;
			nbytes -= len;
		}
}

void mpirma_dtype_copy_same(const struct mpirma_dtype *t, MPI_Count count,
			    void *dst, const void *src)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	const void *data;
	MPI_Count i;
	size_t k;

	if (dst == src || !count || !t->size)
		return;
	if (mpirma_dtype_contig(t, count, src, &data)) {
		memmove(at(dst, (const char *)data - (const char *)src), data,
			count * t->size);
		return;
	}
	for (i = 0; i < count; i++)
		for (k = 0; k < t->nblocks; k++) {
			int64_t off = i * ext + t->blocks[k].disp;

			memmove(at(dst, off), at(src, off), t->blocks[k].len);
		}
}

int mpirma_dtype_copy(const void *src, MPI_Count scount,
		      struct mpirma_dtype *st, void *dst, MPI_Count rcount,
		      struct mpirma_dtype *rt)
{
	MPI_Count sbytes = scount * st->size;
	void *tmp;

	if (sbytes > rcount * rt->size)
		return mpirma_err(MPI_ERR_TRUNCATE, "%lld bytes sent, room for "
				  "%lld", (long long)sbytes,
				  (long long)(rcount * rt->size));
	if (st == rt && scount == rcount) {
		mpirma_dtype_copy_same(st, scount, dst, src);
		return MPI_SUCCESS;
	}
	if (!sbytes)
		return MPI_SUCCESS;
	tmp = malloc(sbytes);
	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	mpirma_dtype_pack(st, src, scount, tmp);
	mpirma_dtype_unpack(rt, tmp, sbytes, dst, rcount);
	free(tmp);
	return MPI_SUCCESS;
}

void mpirma_dtype_span(const struct mpirma_dtype *t, MPI_Count count,
		       MPI_Aint *lo, MPI_Aint *hi)
{
	MPI_Aint last = (count - 1) * mpirma_dtype_extent(t);

	if (!count || !t->size) {
		*lo = *hi = 0;
		return;
	}
	*lo = min_aint(t->true_lb, last + t->true_lb);
	*hi = max_aint(t->true_ub, last + t->true_ub);
}

void *mpirma_dtype_scratch(const struct mpirma_dtype *t, MPI_Count count,
			   void **alloc)
{
	MPI_Aint lo, hi;

	mpirma_dtype_span(t, count, &lo, &hi);
	*alloc = malloc(hi - lo ? hi - lo : 1);
	if (!*alloc)
		return NULL;
	return at(*alloc, -lo);
}

/* Basic elements in the first @rem bytes (less than one element) of @t. */
static MPI_Count partial_elements(const struct mpirma_dtype *t, MPI_Count rem)
{
	MPI_Count cnt = 0;
	int i;

	if (t->predefined) {
		/* Only a pair has a basic element smaller than itself. */
		const struct predef *p = &predefs[t->handle];
		int first = p->mclass == MPIRMA_MC_FPAIR ? p->size / 2 :
			    p->size - 4;

		return p->nbasic == 2 && rem >= first;
	}
	for (i = 0; i < t->nruns && rem > 0; i++) {
		const struct mpirma_dtype_run *r = &t->runs[i];
		const struct mpirma_dtype *c = r->type;
		MPI_Count k;

		if (r->n <= 0 || !c->size)
			continue;
		k = rem / c->size;
		if (k >= r->n) {
			cnt += r->n * c->nbasic;
			rem -= r->n * c->size;
			continue;
		}
		cnt += k * c->nbasic;
		rem -= k * c->size;
		return cnt + partial_elements(c, rem);
	}
	return cnt;
}

MPI_Count mpirma_dtype_elements(const struct mpirma_dtype *t, MPI_Count nbytes)
{
	if (!t->size)
		return 0;
	return nbytes / t->size * t->nbasic +
	       partial_elements(t, nbytes % t->size);
}

/* ------------------------------------------------------------ constructors */

#define RAISE(cls, ...) mpirma_raise((cls), MPIRMA_FUNC, __VA_ARGS__)

/*
 * Frees the type @t of handle *@datatype: its attributes are deleted first
 * (their callbacks see the handle), then the handle; the object lives on
 * while types built from it hold it.  MPI class of the first failing
 * delete callback (recorded); the type is gone regardless.
 */
static int dtype_free(struct mpirma_dtype *t, MPI_Datatype *datatype)
{
	int ret = mpirma_attrs_delete_all(&t->hdr, MPIRMA_HK_DATATYPE,
					  *datatype);

	mpirma_handle_free(MPIRMA_HK_DATATYPE, *datatype);
	t->handle = 0;
	mpirma_dtype_unref(t);
	*datatype = MPI_DATATYPE_NULL;
	if (ret)
		return mpirma_err(ret, "the delete callback of an attribute "
				  "failed with %d", ret);
	return MPI_SUCCESS;
}

/* Registers a new type: handle or MPI_ERR_NO_MEM (recorded). */
static int dtype_register(struct mpirma_dtype *t, MPI_Datatype *newtype)
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

/*
 * Room for the arguments of the constructor that made *@newtype (when @ret
 * is MPI_SUCCESS), which the caller fills in (args_type() for the types).
 * Out of memory, the new type is freed again.  MPI class (recorded).
 */
static int args_alloc(MPI_Datatype *newtype, int ret, int ni, int na, int nt,
		      struct mpirma_dtype_args **out)
{
	struct mpirma_dtype *t;
	struct mpirma_dtype_args *a;

	if (ret)
		return ret;
	t = mpirma_dtype_get(*newtype);
	a = &t->args;
	a->ints = malloc((ni ? ni : 1) * sizeof(*a->ints));
	a->aints = malloc((na ? na : 1) * sizeof(*a->aints));
	a->types = calloc(nt ? nt : 1, sizeof(*a->types));
	if (!a->ints || !a->aints || !a->types) {
		mpirma_handle_free(MPIRMA_HK_DATATYPE, *newtype);
		t->handle = 0;
		mpirma_dtype_unref(t);
		*newtype = MPI_DATATYPE_NULL;
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	a->ni = ni;
	a->na = na;
	a->nt = nt;
	*out = a;
	return MPI_SUCCESS;
}

static void args_type(struct mpirma_dtype_args *a, int i,
		      struct mpirma_dtype *t)
{
	mpirma_dtype_ref(t);
	a->types[i] = t;
}

/* @n integers at @p: a piece of a constructor's integer arguments. */
struct ints_piece {
	int n;
	const int *p;
};

/*
 * The arguments of a constructor of one old type: the integers of the
 * @npieces @pieces one after the other, @na addresses from @aints.
 */
static int args_one(MPI_Datatype *newtype, int ret, struct mpirma_dtype *old,
		    const struct ints_piece *pieces, int npieces, int na,
		    const MPI_Aint *aints)
{
	struct mpirma_dtype_args *a;
	int i, ni = 0;

	for (i = 0; i < npieces; i++)
		ni += pieces[i].n;
	ret = args_alloc(newtype, ret, ni, na, 1, &a);
	if (ret)
		return ret;
	for (i = 0, ni = 0; i < npieces; ni += pieces[i].n, i++)
		if (pieces[i].n)
			memcpy(a->ints + ni, pieces[i].p,
			       pieces[i].n * sizeof(int));
	if (na)
		memcpy(a->aints, aints, na * sizeof(MPI_Aint));
	args_type(a, 0, old);
	return MPI_SUCCESS;
}

#define PIECES(...)							\
	(const struct ints_piece[]){ __VA_ARGS__ },			\
	(int)(sizeof((const struct ints_piece[]){ __VA_ARGS__ }) /	\
	      sizeof(struct ints_piece))

/* Argument checks of every constructor; MPI class, recorded. */
static int ctor_count_check(int count, MPI_Datatype *newtype)
{
	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative count %d", count);
	if (!newtype)
		return mpirma_err(MPI_ERR_ARG, "newtype is NULL");
	return MPI_SUCCESS;
}

/* ... and of those built from one old type. */
static int ctor_check(int count, MPI_Datatype oldtype, MPI_Datatype *newtype,
		      struct mpirma_dtype **old)
{
	int ret = ctor_count_check(count, newtype);

	return ret ? ret : mpirma_dtype_check(oldtype, false, old);
}

static struct mpirma_dtype_run *runs_alloc(int n)
{
	return calloc(n ? n : 1, sizeof(struct mpirma_dtype_run));
}

/*
 * The runs of the vector-like constructors: @count blocks of @bl[i]
 * (or @blconst) elements of @old at byte displacement disp(i).
 */
static int ctor_blocks(int combiner, int count, const int *bl, int blconst,
		       const int *idisp, const MPI_Aint *bdisp,
		       MPI_Aint stride_bytes, struct mpirma_dtype *old,
		       MPI_Datatype *newtype)
{
	struct mpirma_dtype_run *runs = runs_alloc(count);
	MPI_Aint ext = mpirma_dtype_extent(old);
	int i;

	if (!runs)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < count; i++) {
		int n = bl ? bl[i] : blconst;

		if (n < 0) {
			free(runs);
			return mpirma_err(MPI_ERR_ARG, "negative block length %d",
					  n);
		}
		runs[i].n = n;
		runs[i].type = old;
		if (idisp)
			runs[i].disp = (MPI_Aint)idisp[i] * ext;
		else if (bdisp)
			runs[i].disp = bdisp[i];
		else
			runs[i].disp = i * stride_bytes;
	}
	return dtype_register(dtype_build(combiner, runs, count), newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = ctor_check(count, oldtype, newtype, &old);
	if (!ret)
		ret = ctor_blocks(MPIRMA_COMBINER_CONTIGUOUS, 1, NULL, count,
				  NULL, NULL, 0, old, newtype);
	ret = args_one(newtype, ret, old, PIECES({ 1, &count }), 0, NULL);
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_contiguous)

/*
 * MPI_Type_vector (@elems: the stride in elements of @oldtype) and
 * _create_hvector (@bytes: in bytes); the other is NULL.
 */
static int vector_ctor(int combiner, int count, int blocklength,
		       const int *elems, const MPI_Aint *bytes,
		       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	int ret = ctor_check(count, oldtype, newtype, &old);

	if (!ret)
		ret = ctor_blocks(combiner, count, NULL, blocklength, NULL,
				  NULL, elems ? (MPI_Aint)*elems *
						mpirma_dtype_extent(old) :
						*bytes, old, newtype);
	if (elems)
		return args_one(newtype, ret, old,
				PIECES({ 1, &count }, { 1, &blocklength },
				       { 1, elems }), 0, NULL);
	return args_one(newtype, ret, old,
			PIECES({ 1, &count }, { 1, &blocklength }), 1, bytes);
}

int PMPI_Type_vector(int count, int blocklength, int stride,
		     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(vector_ctor(MPIRMA_COMBINER_VECTOR, count, blocklength,
				 &stride, NULL, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(vector_ctor(MPIRMA_COMBINER_HVECTOR, count, blocklength,
				 NULL, &stride, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hvector)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
		      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return PMPI_Type_create_hvector(count, blocklength, stride, oldtype,
					newtype);
}
MPIRMA_ALIAS(Type_hvector)

/*
 * The indexed constructors: MPI_Type_indexed and _create_hindexed, blocks
 * of @bl[i] elements, and their _block forms, @blconst each (@bl NULL);
 * displacements in elements of @oldtype (@elems) or in bytes (@bytes), the
 * other array NULL.  @combiner tells which.
 */
static int indexed_ctor(int combiner, int count, const int *bl, int blconst,
			const int *elems, const MPI_Aint *bytes,
			MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	const bool block = combiner == MPIRMA_COMBINER_INDEXED_BLOCK ||
			   combiner == MPIRMA_COMBINER_HINDEXED_BLOCK;
	const bool in_elems = combiner == MPIRMA_COMBINER_INDEXED ||
			      combiner == MPIRMA_COMBINER_INDEXED_BLOCK;
	const struct ints_piece lens = block ?
		(struct ints_piece){ 1, &blconst } :
		(struct ints_piece){ count, bl };
	struct mpirma_dtype *old = NULL;
	int ret = ctor_check(count, oldtype, newtype, &old);

	if (!ret && count && ((!block && !bl) ||
			      !(in_elems ? (const void *)elems : bytes)))
		ret = mpirma_err(MPI_ERR_ARG, "NULL array");
	if (!ret)
		ret = ctor_blocks(combiner, count, bl, blconst, elems, bytes, 0,
				  old, newtype);
	if (in_elems)
		return args_one(newtype, ret, old,
				PIECES({ 1, &count }, lens, { count, elems }),
				0, NULL);
	return args_one(newtype, ret, old, PIECES({ 1, &count }, lens), count,
			bytes);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
		      const int array_of_displacements[], MPI_Datatype oldtype,
		      MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor(MPIRMA_COMBINER_INDEXED, count,
				  array_of_blocklengths, 0,
				  array_of_displacements, NULL, oldtype,
				  newtype), NULL);
}
MPIRMA_ALIAS(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
			      const MPI_Aint array_of_displacements[],
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor(MPIRMA_COMBINER_HINDEXED, count,
				  array_of_blocklengths, 0, NULL,
				  array_of_displacements, oldtype, newtype),
		     NULL);
}
MPIRMA_ALIAS(Type_create_hindexed)

int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
		       MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
		       MPI_Datatype *newtype)
{
	return PMPI_Type_create_hindexed(count, array_of_blocklengths,
					 array_of_displacements, oldtype,
					 newtype);
}
MPIRMA_ALIAS(Type_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength,
				   const int array_of_displacements[],
				   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor(MPIRMA_COMBINER_INDEXED_BLOCK, count, NULL,
				  blocklength, array_of_displacements, NULL,
				  oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
				    const MPI_Aint array_of_displacements[],
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor(MPIRMA_COMBINER_HINDEXED_BLOCK, count, NULL,
				  blocklength, NULL, array_of_displacements,
				  oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
			    const MPI_Aint array_of_displacements[],
			    const MPI_Datatype array_of_types[],
			    MPI_Datatype *newtype)
{
	struct mpirma_dtype_args *args;
	struct mpirma_dtype_run *runs;
	int i, ret;

	MPIRMA_CHECK_INIT();
	ret = ctor_count_check(count, newtype);
	if (!ret && count && (!array_of_blocklengths ||
			      !array_of_displacements || !array_of_types))
		ret = mpirma_err(MPI_ERR_ARG, "NULL array");
	if (ret)
		return RAISE(ret, NULL);
	runs = runs_alloc(count);
	if (!runs)
		return RAISE(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < count; i++) {
		ret = mpirma_dtype_check(array_of_types[i], false,
					 &runs[i].type);
		if (!ret && array_of_blocklengths[i] < 0)
			ret = mpirma_err(MPI_ERR_ARG, "negative block length %d",
					 array_of_blocklengths[i]);
		if (ret) {
			free(runs);
			return RAISE(ret, NULL);
		}
		runs[i].n = array_of_blocklengths[i];
		runs[i].disp = array_of_displacements[i];
	}
	ret = dtype_register(dtype_build(MPIRMA_COMBINER_STRUCT, runs, count),
			     newtype);
	ret = args_alloc(newtype, ret, count + 1, count, count, &args);
	if (!ret) {
		args->ints[0] = count;
		memcpy(args->ints + 1, array_of_blocklengths,
		       count * sizeof(int));
		memcpy(args->aints, array_of_displacements,
		       count * sizeof(MPI_Aint));
		for (i = 0; i < count; i++)
			args_type(args, i, mpirma_dtype_get(array_of_types[i]));
	}
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_create_struct)

int PMPI_Type_struct(int count, int array_of_blocklengths[],
		     MPI_Aint array_of_displacements[],
		     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
	return PMPI_Type_create_struct(count, array_of_blocklengths,
				       array_of_displacements, array_of_types,
				       newtype);
}
MPIRMA_ALIAS(Type_struct)

/* One instance of @old at 0, then bounds set explicitly (resized, dup). */
static struct mpirma_dtype *dtype_wrap(int combiner, struct mpirma_dtype *old)
{
	struct mpirma_dtype_run *runs = runs_alloc(1);

	if (!runs)
		return NULL;
	runs[0] = (struct mpirma_dtype_run){ 0, 1, old };
	return dtype_build(combiner, runs, 1);
}

static struct mpirma_dtype *dtype_resized(struct mpirma_dtype *old,
					  MPI_Aint lb, MPI_Aint extent)
{
	struct mpirma_dtype *t = dtype_wrap(MPIRMA_COMBINER_RESIZED, old);

	if (t) {
		t->lb = lb;
		t->ub = lb + extent;
		t->lb_marked = t->ub_marked = true;
	}
	return t;
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb,
			     MPI_Aint extent, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = ctor_check(0, oldtype, newtype, &old);
	if (!ret)
		ret = dtype_register(dtype_resized(old, lb, extent), newtype);
	ret = args_one(newtype, ret, old, NULL, 0, 2,
		       (const MPI_Aint[]){ lb, extent });
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL, *t;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = ctor_check(0, oldtype, newtype, &old);
	if (ret)
		return RAISE(ret, NULL);
	t = dtype_wrap(MPIRMA_COMBINER_DUP, old);
	if (t)
		t->committed = old->committed;
	if (t && t->committed && mpirma_dtype_flatten(t)) {
		mpirma_dtype_unref(t);
		t = NULL;
	}
	ret = dtype_register(t, newtype);
	ret = args_one(newtype, ret, old, NULL, 0, 0, NULL);
	if (!ret) {
		ret = mpirma_attrs_copy(oldtype, &old->hdr, &t->hdr);
		if (ret)	/* the cause is the copy's, not a delete's */
			dtype_free(t, newtype);
	}
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_dup)

/*
 * A subarray is a nest of hvectors over the dimensions, slowest outside,
 * moved to the start of the subarray and resized to the whole array.
 * Intermediate types have no handle; the result holds them.
 */
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
			      const int array_of_subsizes[],
			      const int array_of_starts[], int order,
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL, *t, *prev;
	struct mpirma_dtype_run *runs;
	MPI_Aint ext, stride, offset = 0, total;
	int i, d, ret;

	MPIRMA_CHECK_INIT();
	ret = ctor_check(0, oldtype, newtype, &old);
	if (ret)
		return RAISE(ret, NULL);
	if (ndims <= 0 || !array_of_sizes || !array_of_subsizes ||
	    !array_of_starts)
		return RAISE(MPI_ERR_ARG, "bad dimensions");
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return RAISE(MPI_ERR_ARG, "bad order %d", order);
	for (i = 0; i < ndims; i++)
		if (array_of_sizes[i] <= 0 || array_of_subsizes[i] <= 0 ||
		    array_of_subsizes[i] > array_of_sizes[i] ||
		    array_of_starts[i] < 0 ||
		    array_of_starts[i] > array_of_sizes[i] - array_of_subsizes[i])
			return RAISE(MPI_ERR_ARG, "bad size, subsize or start in "
				     "dimension %d", i);
	ext = mpirma_dtype_extent(old);
	t = old;
	mpirma_dtype_ref(t);
	stride = ext;
	/* From the fastest-varying dimension outwards. */
	for (i = 0; i < ndims; i++) {
		d = order == MPI_ORDER_C ? ndims - 1 - i : i;
		runs = runs_alloc(array_of_subsizes[d]);
		prev = t;
		if (!runs) {
			t = NULL;
		} else {
			int k;

			for (k = 0; k < array_of_subsizes[d]; k++)
				runs[k] = (struct mpirma_dtype_run){ k * stride, 1, prev };
			t = dtype_build(MPIRMA_COMBINER_HVECTOR, runs,
					array_of_subsizes[d]);
		}
		mpirma_dtype_unref(prev);
		if (!t)
			return RAISE(MPI_ERR_NO_MEM, "out of memory");
		offset += array_of_starts[d] * stride;
		stride *= array_of_sizes[d];
	}
	total = stride;
	runs = runs_alloc(1);
	prev = t;
	if (runs) {
		runs[0] = (struct mpirma_dtype_run){ offset, 1, prev };
		t = dtype_build(MPIRMA_COMBINER_SUBARRAY, runs, 1);
	} else {
		t = NULL;
	}
	mpirma_dtype_unref(prev);
	prev = t;
	t = t ? dtype_resized(t, 0, total) : NULL;
	mpirma_dtype_unref(prev);
	if (t)
		t->combiner = MPIRMA_COMBINER_SUBARRAY;
	ret = dtype_register(t, newtype);
	ret = args_one(newtype, ret, old,
		       PIECES({ 1, &ndims }, { ndims, array_of_sizes },
			      { ndims, array_of_subsizes },
			      { ndims, array_of_starts }, { 1, &order }), 0, NULL);
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_create_subarray)

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
	return RAISE(dtype_free(t, datatype), NULL);
}
MPIRMA_ALIAS(Type_free)

/* ------------------------------------------------------------ decoding */

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
			   int *num_addresses, int *num_datatypes,
			   int *combiner)
{
	struct mpirma_dtype *t;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_dtype_check(datatype, false, &t);
	if (ret)
		return RAISE(ret, NULL);
	if (!num_integers || !num_addresses || !num_datatypes || !combiner)
		return RAISE(MPI_ERR_ARG, "NULL output argument");
	*num_integers = t->args.ni;
	*num_addresses = t->args.na;
	*num_datatypes = t->args.nt;
	*combiner = t->predefined ? MPI_COMBINER_NAMED : t->combiner;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_get_envelope)

/*
 * The types come back as handles the caller owns: a predefined type as
 * itself, a derived one as a new handle to the same (immutable) object,
 * which MPI_Type_free releases like any other.
 */
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
			   int max_addresses, int max_datatypes,
			   int array_of_integers[],
			   MPI_Aint array_of_addresses[],
			   MPI_Datatype array_of_datatypes[])
{
	struct mpirma_dtype_args *a;
	struct mpirma_dtype *t;
	int i, h, ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_dtype_check(datatype, false, &t);
	if (ret)
		return RAISE(ret, NULL);
	if (t->predefined)
		return RAISE(MPI_ERR_TYPE, "%s is a named type: it has no "
			     "contents", t->hdr.name);
	a = &t->args;
	if (max_integers < a->ni || max_addresses < a->na ||
	    max_datatypes < a->nt)
		return RAISE(MPI_ERR_ARG, "room for %d integers, %d addresses "
			     "and %d datatypes; the type needs %d, %d and %d",
			     max_integers, max_addresses, max_datatypes,
			     a->ni, a->na, a->nt);
	if ((a->ni && !array_of_integers) || (a->na && !array_of_addresses) ||
	    (a->nt && !array_of_datatypes))
		return RAISE(MPI_ERR_ARG, "NULL array");
	for (i = 0; i < a->nt; i++) {
		struct mpirma_dtype *c = a->types[i];

		if (c->predefined) {
			array_of_datatypes[i] = c->handle;
			continue;
		}
		h = mpirma_handle_alloc(MPIRMA_HK_DATATYPE, c);
		if (!h) {
			while (i-- > 0)
				PMPI_Type_free(&array_of_datatypes[i]);
			return RAISE(MPI_ERR_NO_MEM, "out of datatype handles");
		}
		mpirma_dtype_ref(c);
		array_of_datatypes[i] = h;
	}
	if (a->ni)
		memcpy(array_of_integers, a->ints, a->ni * sizeof(int));
	if (a->na)
		memcpy(array_of_addresses, a->aints, a->na * sizeof(MPI_Aint));
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_get_contents)

/* Looks a datatype argument up for the query functions. */
#define QUERY_TYPE(dt, t)						\
	do {								\
		int qret_ = mpirma_dtype_check((dt), false, &(t));	\
		if (qret_)						\
			return RAISE(qret_, NULL);			\
	} while (0)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!size)
		return RAISE(MPI_ERR_ARG, "size is NULL");
	*size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!size)
		return RAISE(MPI_ERR_ARG, "size is NULL");
	*size = t->size;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_size_x)

/*
 * The extent queries: lb and extent of @datatype, or with @true_bounds its
 * true lb and true extent.  A NULL output is MPI_ERR_ARG.  MPI class
 * (recorded).
 */
static int extent_query(MPI_Datatype datatype, bool true_bounds,
			MPI_Count *lb, MPI_Count *extent)
{
	struct mpirma_dtype *t = NULL;
	int ret = mpirma_dtype_check(datatype, false, &t);

	if (ret)
		return ret;
	if (!lb || !extent)
		return mpirma_err(MPI_ERR_ARG, "NULL argument");
	*lb = true_bounds ? t->true_lb : t->lb;
	*extent = true_bounds ? t->true_ub - t->true_lb :
		  mpirma_dtype_extent(t);
	return MPI_SUCCESS;
}

/* extent_query() into MPI_Aint outputs. */
static int extent_query_aint(MPI_Datatype datatype, bool true_bounds,
			     MPI_Aint *lb, MPI_Aint *extent)
{
	MPI_Count l, e;
	int ret = extent_query(datatype, true_bounds, lb ? &l : NULL,
			       extent ? &e : NULL);

	if (!ret) {
		*lb = l;
		*extent = e;
	}
	return ret;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	MPIRMA_CHECK_INIT();
	return RAISE(extent_query_aint(datatype, false, lb, extent), NULL);
}
MPIRMA_ALIAS(Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
			   MPI_Count *extent)
{
	MPIRMA_CHECK_INIT();
	return RAISE(extent_query(datatype, false, lb, extent), NULL);
}
MPIRMA_ALIAS(Type_get_extent_x)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
			      MPI_Aint *true_extent)
{
	MPIRMA_CHECK_INIT();
	return RAISE(extent_query_aint(datatype, true, true_lb, true_extent),
		     NULL);
}
MPIRMA_ALIAS(Type_get_true_extent)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
				MPI_Count *true_extent)
{
	MPIRMA_CHECK_INIT();
	return RAISE(extent_query(datatype, true, true_lb, true_extent), NULL);
}
MPIRMA_ALIAS(Type_get_true_extent_x)

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
	MPI_Aint lb;

	return PMPI_Type_get_extent(datatype, &lb, extent);
}
MPIRMA_ALIAS(Type_extent)

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
	MPI_Aint extent;

	return PMPI_Type_get_extent(datatype, displacement, &extent);
}
MPIRMA_ALIAS(Type_lb)

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
	MPI_Aint lb = 0, extent = 0;
	int ret = PMPI_Type_get_extent(datatype, &lb, &extent);

	if (!ret && displacement)
		*displacement = lb + extent;
	return ret;
}
MPIRMA_ALIAS(Type_ub)

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!type_name)
		return RAISE(MPI_ERR_ARG, "type_name is NULL");
	snprintf(t->hdr.name, sizeof(t->hdr.name), "%s", type_name);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!type_name || !resultlen)
		return RAISE(MPI_ERR_ARG, "NULL argument");
	snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", t->hdr.name);
	*resultlen = strlen(type_name);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_get_name)

/* Address arithmetic is plain integer arithmetic on this ABI. */
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
	if (!address)
		return RAISE(MPI_ERR_ARG, "address is NULL");
	*address = (MPI_Aint)(uintptr_t)location;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Get_address)

int PMPI_Address(void *location, MPI_Aint *address)
{
	return PMPI_Get_address(location, address);
}
MPIRMA_ALIAS(Address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
	return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
MPIRMA_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
	return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
MPIRMA_ALIAS(Aint_diff)

/* ------------------------------------------------------------ statuses */

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	struct mpirma_dtype *t;
	MPI_Count bytes;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!status || status == MPI_STATUS_IGNORE || !count)
		return RAISE(MPI_ERR_ARG, "NULL argument");
	bytes = status->mpirma_count;
	if (!t->size)
		*count = bytes ? MPI_UNDEFINED : 0;
	else if (bytes % t->size || bytes / t->size > INT_MAX)
		*count = MPI_UNDEFINED;
	else
		*count = bytes / t->size;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Get_count)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
			MPI_Count *count)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!status || status == MPI_STATUS_IGNORE || !count)
		return RAISE(MPI_ERR_ARG, "NULL argument");
	*count = mpirma_dtype_elements(t, status->mpirma_count);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Get_elements_x)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
		      int *count)
{
	MPI_Count c;
	int ret;

	if (!count)
		return RAISE(MPI_ERR_ARG, "count is NULL");
	ret = PMPI_Get_elements_x(status, datatype, &c);
	if (!ret)
		*count = c > INT_MAX ? MPI_UNDEFINED : (int)c;
	return ret;
}
MPIRMA_ALIAS(Get_elements)

/* ------------------------------------------------------------ pack */

/*
 * The arguments MPI_Pack (@pack) and MPI_Unpack share: @count elements of
 * @datatype (*@t), *@need bytes of them, must fit at *@position in the
 * packed buffer of @size bytes.  MPI class (recorded).
 */
static int pack_check(MPI_Comm comm, int count, MPI_Datatype datatype,
		      const int *position, int size, bool pack,
		      struct mpirma_dtype **t, MPI_Count *need)
{
	int ret;

	if (!mpirma_objhdr_get(MPIRMA_HK_COMM, comm))
		return mpirma_err(MPI_ERR_COMM, "invalid communicator %d", comm);
	ret = mpirma_buf_check(count, datatype, t);
	if (!ret && (!position || *position < 0))
		ret = mpirma_err(MPI_ERR_ARG, "bad position");
	if (ret)
		return ret;
	*need = (MPI_Count)count * (*t)->size;
	if (*position + *need > size)
		return mpirma_err(MPI_ERR_TRUNCATE, pack ?
				  "%lld bytes do not fit at %d in %d" :
				  "%lld bytes wanted at %d of %d",
				  (long long)*need, *position, size);
	return MPI_SUCCESS;
}

/* Our packed format is the type map's bytes in order (one node, one ABI). */
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
	      void *outbuf, int outsize, int *position, MPI_Comm comm)
{
	struct mpirma_dtype *t;
	MPI_Count need;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = pack_check(comm, incount, datatype, position, outsize, true, &t,
			 &need);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	mpirma_dtype_pack(t, inbuf, incount, (char *)outbuf + *position);
	*position += need;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
		int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
	struct mpirma_dtype *t;
	MPI_Count need;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = pack_check(comm, outcount, datatype, position, insize, false, &t,
			 &need);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	mpirma_dtype_unpack(t, (const char *)inbuf + *position, need, outbuf,
			    outcount);
	*position += need;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Unpack)

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
		   int *size)
{
	struct mpirma_dtype *t;
	MPI_Count need;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!mpirma_objhdr_get(MPIRMA_HK_COMM, comm))
		return mpirma_raise_comm(comm, MPI_ERR_COMM, MPIRMA_FUNC,
					 "invalid communicator %d", comm);
	ret = mpirma_dtype_check(datatype, false, &t);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	if (incount < 0)
		return mpirma_raise_comm(comm, MPI_ERR_COUNT, MPIRMA_FUNC,
					 "negative count %d", incount);
	if (!size)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "size is NULL");
	need = (MPI_Count)incount * t->size;
	*size = need > INT_MAX ? MPI_UNDEFINED : (int)need;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Pack_size)
