// SPDX-License-Identifier: GPL-2.0
/*
 * datatype: derived datatypes, locally and on both sides of every RMA
 * operation and of messages.
 *
 * Each test type is built with one constructor (contiguous, vector,
 * hvector, indexed, hindexed, indexed_block, hindexed_block, struct,
 * resized, dup, subarray, darray in block, cyclic and undistributed
 * dimensions, C and Fortran order, nested) over MPI_INT, next to the list
 * of the int offsets it selects, written out by hand from the
 * constructor's definition.  The list predicts size, lb, extent, true extent, and where
 * every element of a put, get, accumulate and get_accumulate lands, with
 * the type on the origin side, the target side, or both, and count 1 or 2.
 * Also: the sizes and extents of the predefined pair types (their padding
 * is where peers go wrong), MPI_Get_count / MPI_Get_elements of a message
 * received with a derived type, MPI_Get_address, MPI_Aint_add/diff.
 * Churn: vector types built, used in a put and freed again and again, in
 * more shapes than the hybrid layer keeps converted (its cache of shapes,
 * hybrid/convert.c), the same shape under several live handles at once,
 * freed in another order than built.
 * external32: MPI_Pack_external's bytes against the standard's big-endian
 * images, sizes, round trips through MPI_Unpack_external, errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define MAXOFF	16	/* offsets per instance */
#define WIN_INTS 64

struct ttype {
	const char *name;
	MPI_Datatype type;
	int n;			/* elements per instance */
	int off[MAXOFF];	/* their int offsets, in type order */
	long lb, extent;	/* in ints */
};

static struct ttype types[16];
static int ntypes;

static struct ttype *add(const char *name, MPI_Datatype t, long lb, long extent,
			 int n, const int *off)
{
	struct ttype *tt = &types[ntypes++];

	tt->name = name;
	tt->type = t;
	tt->n = n;
	memcpy(tt->off, off, n * sizeof(int));
	tt->lb = lb;
	tt->extent = extent;
	CHECK_MPI(MPI_Type_commit(&tt->type));
	return tt;
}

#define ADD(name, t, lb, ext, ...)					\
	do {								\
		static const int __o[] = { __VA_ARGS__ };		\
		add(name, t, lb, ext, sizeof(__o) / sizeof(int), __o);	\
	} while (0)

/*
 * Darrays, their offsets worked out by hand from the standard's
 * definition (the process grid is row-major in either order).
 */
static void build_darrays(void)
{
	MPI_Datatype t;

	/*
	 * 4 x 6 ints on a 2 x 2 grid, rank 1 = (0, 1): rows in blocks of 2
	 * (rows 0, 1), columns dealt one by one (columns 1, 3, 5).
	 */
	MPI_Type_create_darray(4, 1, 2, (int[]){ 4, 6 },
			       (int[]){ MPI_DISTRIBUTE_BLOCK,
					MPI_DISTRIBUTE_CYCLIC },
			       (int[]){ MPI_DISTRIBUTE_DFLT_DARG,
					MPI_DISTRIBUTE_DFLT_DARG },
			       (int[]){ 2, 2 }, MPI_ORDER_C, MPI_INT, &t);
	ADD("darray(4x6,block x cyclic,rank 1 of 2x2)", t, 0, 24,
	    1, 3, 5, 7, 9, 11);
	/*
	 * 5 x 3 ints in Fortran order on a 3 x 1 grid, rank 2 = (2, 0):
	 * rows dealt in twos ({0,1} {2,3} {4}: row 4), columns whole;
	 * int (i, j) is at i + 5 j.
	 */
	MPI_Type_create_darray(3, 2, 2, (int[]){ 5, 3 },
			       (int[]){ MPI_DISTRIBUTE_CYCLIC,
					MPI_DISTRIBUTE_NONE },
			       (int[]){ 2, MPI_DISTRIBUTE_DFLT_DARG },
			       (int[]){ 3, 1 }, MPI_ORDER_FORTRAN, MPI_INT, &t);
	ADD("darray(5x3 F,cyclic(2) x none,rank 2 of 3x1)", t, 0, 15, 4, 9, 14);
	/* 11 ints dealt in twos to 2: rank 1 has 2 3, 6 7 and the short 10 */
	MPI_Type_create_darray(2, 1, 1, (int[]){ 11 },
			       (int[]){ MPI_DISTRIBUTE_CYCLIC }, (int[]){ 2 },
			       (int[]){ 2 }, MPI_ORDER_C, MPI_INT, &t);
	ADD("darray(11,cyclic(2),rank 1 of 2)", t, 0, 11, 2, 3, 6, 7, 10);
}

static void build_types(void)
{
	MPI_Datatype t, inner;
	int bl[3], d[3], sizes[2] = { 4, 5 }, subs[2] = { 2, 3 },
	    starts[2] = { 1, 1 };
	MPI_Aint ad[3];
	MPI_Datatype ts[3] = { MPI_INT, MPI_INT, MPI_INT };

	mtest_section("build");
	MPI_Type_contiguous(3, MPI_INT, &t);
	ADD("contiguous(3)", t, 0, 3, 0, 1, 2);

	MPI_Type_vector(3, 2, 4, MPI_INT, &t);
	ADD("vector(3,2,4)", t, 0, 10, 0, 1, 4, 5, 8, 9);

	MPI_Type_create_hvector(2, 3, 7 * sizeof(int), MPI_INT, &t);
	ADD("hvector(2,3,28B)", t, 0, 10, 0, 1, 2, 7, 8, 9);

	bl[0] = 2; bl[1] = 1; bl[2] = 3;
	d[0] = 5; d[1] = 0; d[2] = 9;
	MPI_Type_indexed(3, bl, d, MPI_INT, &t);
	ADD("indexed({2,1,3},{5,0,9})", t, 0, 12, 5, 6, 0, 9, 10, 11);

	bl[0] = 1; bl[1] = 2;
	ad[0] = 3 * sizeof(int); ad[1] = 0;
	MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &t);
	ADD("hindexed({1,2},{12B,0})", t, 0, 4, 3, 0, 1);

	{
		static const int di[4] = { 7, 3, 0, 5 };

		MPI_Type_create_indexed_block(4, 1, di, MPI_INT, &t);
		ADD("indexed_block(4,1,{7,3,0,5})", t, 0, 8, 7, 3, 0, 5);
	}

	ad[0] = 4 * sizeof(int); ad[1] = 0;
	MPI_Type_create_hindexed_block(2, 2, ad, MPI_INT, &t);
	ADD("hindexed_block(2,2,{16B,0})", t, 0, 6, 4, 5, 0, 1);

	bl[0] = 2; bl[1] = 1;
	ad[0] = 0; ad[1] = 5 * sizeof(int);
	MPI_Type_create_struct(2, bl, ad, ts, &t);
	ADD("struct({2,1},{0,20B})", t, 0, 6, 0, 1, 5);

	/* a vector squeezed to an extent of 2 ints: instances interleave */
	MPI_Type_vector(2, 1, 3, MPI_INT, &inner);
	MPI_Type_create_resized(inner, 0, 2 * sizeof(int), &t);
	MPI_Type_free(&inner);
	ADD("resized(vector(2,1,3),0,8B)", t, 0, 2, 0, 3);

	/* a resized type with a lower bound below its data */
	MPI_Type_contiguous(2, MPI_INT, &inner);
	MPI_Type_create_resized(inner, -(MPI_Aint)sizeof(int), 4 * sizeof(int),
				&t);
	MPI_Type_free(&inner);
	ADD("resized(contiguous(2),-4B,16B)", t, -1, 4, 0, 1);

	MPI_Type_vector(3, 2, 4, MPI_INT, &inner);
	MPI_Type_dup(inner, &t);
	MPI_Type_free(&inner);	/* the dup lives on */
	ADD("dup(vector(3,2,4))", t, 0, 10, 0, 1, 4, 5, 8, 9);

	MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT,
				 &t);
	ADD("subarray(4x5,2x3,at 1,1)", t, 0, 20, 6, 7, 8, 11, 12, 13);

	MPI_Type_contiguous(2, MPI_INT, &inner);
	MPI_Type_vector(2, 1, 3, inner, &t);
	MPI_Type_free(&inner);
	ADD("vector(2,1,3,contiguous(2))", t, 0, 8, 0, 1, 6, 7);
	build_darrays();
}

/* The int offset of element k of @count instances of @tt. */
static long off_of(const struct ttype *tt, long k)
{
	return (k / tt->n) * tt->extent + tt->off[k % tt->n];
}

static void test_properties(void)
{
	int i, k, size;
	MPI_Aint lb, extent, tlb, textent;
	MPI_Count size_x, lb_x, extent_x;

	mtest_section("properties");
	for (i = 0; i < ntypes; i++) {
		const struct ttype *tt = &types[i];
		int min = tt->off[0], max = tt->off[0];

		for (k = 1; k < tt->n; k++) {
			if (tt->off[k] < min)
				min = tt->off[k];
			if (tt->off[k] > max)
				max = tt->off[k];
		}
		CHECK_MPI(MPI_Type_size(tt->type, &size));
		CHECK(size == tt->n * 4, "%s: size %d, want %d", tt->name, size,
		      tt->n * 4);
		CHECK_MPI(MPI_Type_size_x(tt->type, &size_x));
		CHECK(size_x == size, "%s: size_x %lld", tt->name, (long long)size_x);
		CHECK_MPI(MPI_Type_get_extent(tt->type, &lb, &extent));
		CHECK(lb == tt->lb * 4 && extent == tt->extent * 4,
		      "%s: lb %ld extent %ld, want %ld %ld", tt->name, (long)lb,
		      (long)extent, tt->lb * 4, tt->extent * 4);
		CHECK_MPI(MPI_Type_get_extent_x(tt->type, &lb_x, &extent_x));
		CHECK(lb_x == lb && extent_x == extent, "%s: extent_x", tt->name);
		CHECK_MPI(MPI_Type_get_true_extent(tt->type, &tlb, &textent));
		CHECK(tlb == min * 4 && textent == (max - min + 1) * 4,
		      "%s: true lb %ld extent %ld, want %d %d", tt->name,
		      (long)tlb, (long)textent, min * 4, (max - min + 1) * 4);
	}
}

/* The predefined pair types: size without padding, extent with it. */
static void test_predefined(void)
{
	static const struct {
		const char *name;
		MPI_Datatype t;
		int size;
		long extent;
	} p[] = {
		{ "MPI_INT", MPI_INT, 4, 4 },
		{ "MPI_DOUBLE", MPI_DOUBLE, 8, 8 },
		{ "MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, sizeof(long double),
		  sizeof(long double) },
		{ "MPI_C_BOOL", MPI_C_BOOL, sizeof(_Bool), sizeof(_Bool) },
		{ "MPI_CHAR", MPI_CHAR, 1, 1 },
		{ "MPI_BYTE", MPI_BYTE, 1, 1 },
		{ "MPI_AINT", MPI_AINT, sizeof(MPI_Aint), sizeof(MPI_Aint) },
		{ "MPI_OFFSET", MPI_OFFSET, 8, 8 },
		{ "MPI_COUNT", MPI_COUNT, 8, 8 },
		{ "MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, 16, 16 },
		{ "MPI_FLOAT_INT", MPI_FLOAT_INT, 8, 8 },
		{ "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 12, 16 },
		{ "MPI_LONG_INT", MPI_LONG_INT, 12, 16 },
		{ "MPI_2INT", MPI_2INT, 8, 8 },
		{ "MPI_SHORT_INT", MPI_SHORT_INT, 6, 8 },
		{ "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT,
		  sizeof(long double) + 4, 2 * sizeof(long double) },
	};
	unsigned int i;
	MPI_Aint lb, extent;
	int size;

	mtest_section("predefined");
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		CHECK_MPI(MPI_Type_size(p[i].t, &size));
		CHECK_MPI(MPI_Type_get_extent(p[i].t, &lb, &extent));
		CHECK(size == p[i].size && lb == 0 && extent == p[i].extent,
		      "%s: size %d lb %ld extent %ld, want %d 0 %ld", p[i].name,
		      size, (long)lb, (long)extent, p[i].size, p[i].extent);
	}
}

enum kind { PUT, GET, ACC, GET_ACC, NKINDS };
static const char *const kind_name[] = { "put", "get", "accumulate",
					 "get_accumulate" };

static int win_val(int rank, long i)
{
	return rank * 1000 + (int)i;
}

static int org_val(int rank, long i)
{
	return -(rank * 1000 + (int)i) - 1;
}

#define RES_FILL	0x7777

/*
 * One operation with @o x @oc on the origin side and @t x @tc on the
 * target side (the result side of get_accumulate is @o x @oc too), to the
 * right neighbour under fences, whose window starts at displacement @tbase
 * and counts an int as @tunit; every rank checks what it can see: its
 * window (written by its left neighbour) and its origin or result buffer.
 */
static void rma_case(MPI_Win win, int *winbuf, MPI_Aint tbase,
		     MPI_Aint tunit, enum kind kind, const struct ttype *o,
		     int oc, const struct ttype *t, int tc)
{
	int org[WIN_INTS], res[WIN_INTS], want_win[WIN_INTS];
	int want_org[WIN_INTS], want_res[WIN_INTS];
	int right = (mtest_rank + 1) % mtest_size;
	int left = (mtest_rank + mtest_size - 1) % mtest_size;
	long n = (long)o->n * oc, k, i;
	/* the target side may start below its lb: aim past it */
	MPI_Aint disp = MPI_Aint_add(tbase, -t->lb * tunit);
	int *oaddr = org - o->lb, *raddr = res - o->lb;
	int rc;

	for (i = 0; i < WIN_INTS; i++) {
		winbuf[i] = want_win[i] = win_val(mtest_rank, i);
		org[i] = want_org[i] = org_val(mtest_rank, i);
		res[i] = want_res[i] = RES_FILL;
	}
	/* what should happen, seen from here */
	for (k = 0; k < n; k++) {
		long ow = off_of(o, k) - o->lb, tw = off_of(t, k) - t->lb;

		switch (kind) {
		case PUT:
			want_win[tw] = org_val(left, ow);
			break;
		case GET:
			want_org[ow] = win_val(right, tw);
			break;
		case ACC:
			want_win[tw] = win_val(mtest_rank, tw) + org_val(left, ow);
			break;
		case GET_ACC:
			want_win[tw] = win_val(mtest_rank, tw) + org_val(left, ow);
			want_res[ow] = win_val(right, tw);
			break;
		default:
			break;
		}
	}

	MPI_Win_fence(0, win);
	switch (kind) {
	case PUT:
		rc = MPI_Put(oaddr, oc, o->type, right, disp, tc, t->type, win);
		break;
	case GET:
		rc = MPI_Get(oaddr, oc, o->type, right, disp, tc, t->type, win);
		break;
	case ACC:
		rc = MPI_Accumulate(oaddr, oc, o->type, right, disp, tc, t->type,
				    MPI_SUM, win);
		break;
	default:
		rc = MPI_Get_accumulate(oaddr, oc, o->type, raddr, oc, o->type,
					right, disp, tc, t->type, MPI_SUM, win);
		break;
	}
	CHECK(rc == MPI_SUCCESS, "%s %s x%d -> %s x%d: %s", kind_name[kind],
	      o->name, oc, t->name, tc, mtest_class_name(mtest_class(rc)));
	MPI_Win_fence(0, win);

	for (i = 0; i < WIN_INTS; i++) {
		if (!CHECK(winbuf[i] == want_win[i] && org[i] == want_org[i] &&
			   res[i] == want_res[i],
			   "%s %s x%d -> %s x%d: int %ld: window %d origin %d "
			   "result %d, want %d %d %d", kind_name[kind], o->name,
			   oc, t->name, tc, i, winbuf[i], org[i], res[i],
			   want_win[i], want_org[i], want_res[i]))
			break;
	}
}

/*
 * Every kind between every type and plain MPI_INT on a window of @flavor
 * (MPI_WIN_FLAVOR_CREATE, _ALLOCATE or _DYNAMIC): all are mapped, so the
 * direct path walks the block lists (lib/rma/rma_blocks.c) where it can.
 */
static void test_rma_on(int flavor)
{
	MPI_Aint tbase = 0, tunit = 1, *bases;
	struct ttype contig[3];
	int *winbuf, i, c, kind;
	MPI_Win win;

	/* plain MPI_INT x n as the other side */
	for (c = 0; c < 3; c++) {
		contig[c].name = "MPI_INT";
		contig[c].type = MPI_INT;
		contig[c].n = 1;
		contig[c].off[0] = 0;
		contig[c].lb = 0;
		contig[c].extent = 1;
	}
	if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
		CHECK_MPI(MPI_Win_allocate(WIN_INTS * sizeof(int), sizeof(int),
					   MPI_INFO_NULL, MPI_COMM_WORLD,
					   &winbuf, &win));
	} else {
		CHECK_MPI(MPI_Alloc_mem(WIN_INTS * sizeof(int), MPI_INFO_NULL,
					&winbuf));
	}
	if (flavor == MPI_WIN_FLAVOR_CREATE)
		CHECK_MPI(MPI_Win_create(winbuf, WIN_INTS * sizeof(int),
					 sizeof(int), MPI_INFO_NULL,
					 MPI_COMM_WORLD, &win));
	if (flavor == MPI_WIN_FLAVOR_DYNAMIC) {
		/* displacements are addresses: the right neighbour's base */
		bases = malloc(mtest_size * sizeof(*bases));
		CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD,
						 &win));
		CHECK_MPI(MPI_Win_attach(win, winbuf,
					 WIN_INTS * sizeof(int)));
		CHECK_MPI(MPI_Get_address(winbuf, &tbase));
		CHECK_MPI(MPI_Allgather(&tbase, 1, MPI_AINT, bases, 1,
					MPI_AINT, MPI_COMM_WORLD));
		tbase = bases[(mtest_rank + 1) % mtest_size];
		tunit = sizeof(int);
		free(bases);
	}
	for (i = 0; i < ntypes; i++) {
		const struct ttype *tt = &types[i];

		for (kind = 0; kind < NKINDS; kind++) {
			/* derived on both sides, two instances */
			rma_case(win, winbuf, tbase, tunit, kind, tt, 2, tt, 2);
			/* derived origin, plain target; and the reverse */
			rma_case(win, winbuf, tbase, tunit, kind, tt, 1,
				 &contig[0], tt->n);
			rma_case(win, winbuf, tbase, tunit, kind, &contig[0],
				 tt->n, tt, 1);
		}
		/* two different types with as many elements */
		if (i > 0 && types[i - 1].n == tt->n)
			for (kind = 0; kind < NKINDS; kind++)
				rma_case(win, winbuf, tbase, tunit, kind,
					 &types[i - 1], 1, tt, 1);
	}
	if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
		CHECK_MPI(MPI_Win_detach(win, winbuf));
	CHECK_MPI(MPI_Win_free(&win));
	if (flavor != MPI_WIN_FLAVOR_ALLOCATE)
		CHECK_MPI(MPI_Free_mem(winbuf));
}

static void test_rma(void)
{
	mtest_section("rma");
	test_rma_on(MPI_WIN_FLAVOR_CREATE);
	test_rma_on(MPI_WIN_FLAVOR_ALLOCATE);
	test_rma_on(MPI_WIN_FLAVOR_DYNAMIC);
}

/*
 * Put of vector(@count, 1, @stride) ints into the next rank's window at
 * int 0, fenced: the ints it selects hold the origin's, the others -1.
 */
static void churn_put(MPI_Win win, int *winbuf, MPI_Datatype vec, int count,
		      int stride, int round)
{
	int right = (mtest_rank + 1) % mtest_size;
	int left = (mtest_rank + mtest_size - 1) % mtest_size;
	int org[WIN_INTS], i;

	for (i = 0; i < WIN_INTS; i++) {
		winbuf[i] = -1;
		org[i] = 1000 * round + mtest_rank * 100 + i;
	}
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_MPI(MPI_Put(org, count, MPI_INT, right, 0, 1, vec, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	for (i = 0; i < WIN_INTS; i++) {
		int want = i % stride == 0 && i / stride < count ?
			   1000 * round + left * 100 + i / stride : -1;

		if (!CHECK(winbuf[i] == want, "churn round %d, vector(%d, 1, "
			   "%d): int %d is %d, want %d", round, count, stride,
			   i, winbuf[i], want))
			break;
	}
}

static void test_churn(void)
{
	MPI_Datatype live[3];
	int *winbuf, round;
	MPI_Win win;

	mtest_section("churn");
	CHECK_MPI(MPI_Alloc_mem(WIN_INTS * sizeof(int), MPI_INFO_NULL, &winbuf));
	CHECK_MPI(MPI_Win_create(winbuf, WIN_INTS * sizeof(int), sizeof(int),
				 MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	for (round = 0; round < 120; round++) {
		/* 40 shapes, each again three rounds later and every 40 */
		int shape = (round * 3) % 40;
		int count = 2 + shape % 5, stride = 2 + shape / 5;
		MPI_Datatype vec;

		CHECK_MPI(MPI_Type_vector(count, 1, stride, MPI_INT, &vec));
		CHECK_MPI(MPI_Type_commit(&vec));
		churn_put(win, winbuf, vec, count, stride, round);
		CHECK_MPI(MPI_Type_free(&vec));
	}
	/* one shape under three live handles, freed out of order */
	for (int k = 0; k < 3; k++) {
		CHECK_MPI(MPI_Type_vector(3, 1, 4, MPI_INT, &live[k]));
		CHECK_MPI(MPI_Type_commit(&live[k]));
	}
	churn_put(win, winbuf, live[1], 3, 4, 200);
	CHECK_MPI(MPI_Type_free(&live[1]));
	churn_put(win, winbuf, live[0], 3, 4, 201);
	CHECK_MPI(MPI_Type_free(&live[0]));
	churn_put(win, winbuf, live[2], 3, 4, 202);
	CHECK_MPI(MPI_Type_free(&live[2]));
	CHECK_MPI(MPI_Win_free(&win));
	CHECK_MPI(MPI_Free_mem(winbuf));
}

/* A message with derived types on both ends; counts in the status. */
static void test_p2p(void)
{
	const struct ttype *vec = &types[1];	/* vector(3,2,4): 6 ints */
	int sbuf[32], rbuf[32], i, count = -1;
	int right = (mtest_rank + 1) % mtest_size;
	int left = (mtest_rank + mtest_size - 1) % mtest_size;
	MPI_Status st;

	mtest_section("p2p");
	for (i = 0; i < 32; i++) {
		sbuf[i] = win_val(mtest_rank, i);
		rbuf[i] = -1;
	}
	/* two vectors (12 ints) sent, received as 12 contiguous ints */
	CHECK_MPI(MPI_Sendrecv(sbuf, 2, vec->type, right, 3, rbuf, 12, MPI_INT,
			       left, 3, MPI_COMM_WORLD, &st));
	for (i = 0; i < 12; i++)
		CHECK_EQ(rbuf[i], win_val(left, off_of(vec, i)), "received int");
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
	CHECK_EQ(count, 12, "MPI_Get_count(MPI_INT)");

	/* 9 ints received as vectors: 1 whole vector and a half */
	for (i = 0; i < 32; i++)
		rbuf[i] = -1;
	CHECK_MPI(MPI_Sendrecv(sbuf, 9, MPI_INT, right, 4, rbuf, 2, vec->type,
			       left, 4, MPI_COMM_WORLD, &st));
	for (i = 0; i < 9; i++)
		CHECK_EQ(rbuf[off_of(vec, i)], win_val(left, i), "scattered int");
	CHECK_EQ(rbuf[off_of(vec, 9)], -1, "beyond the message");
	CHECK_MPI(MPI_Get_count(&st, vec->type, &count));
	CHECK_EQ(count, MPI_UNDEFINED, "MPI_Get_count of 1.5 vectors");
	CHECK_MPI(MPI_Get_elements(&st, vec->type, &count));
	CHECK_EQ(count, 9, "MPI_Get_elements");
}

static void test_address(void)
{
	int a[10];
	MPI_Aint p0, p5;

	mtest_section("address");
	CHECK_MPI(MPI_Get_address(&a[0], &p0));
	CHECK_MPI(MPI_Get_address(&a[5], &p5));
	CHECK_EQ(p5 - p0, 5 * sizeof(int), "address difference");
	CHECK_EQ(MPI_Aint_diff(p5, p0), 5 * sizeof(int), "MPI_Aint_diff");
	CHECK_EQ(MPI_Aint_add(p0, 5 * sizeof(int)), p5, "MPI_Aint_add");
}

/* The status setters (generalized requests' and layered libraries'). */
static void test_status_setters(void)
{
	MPI_Datatype t;
	MPI_Status st;
	MPI_Count cx = 0;
	int count = 0, flag = 0;

	mtest_section("status setters, MPI_Type_match_size");
	memset(&st, 0, sizeof(st));
	CHECK_MPI(MPI_Status_set_elements(&st, MPI_DOUBLE, 5));
	CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
	CHECK_EQ(count, 5, "MPI_Get_count after MPI_Status_set_elements");
	CHECK_MPI(MPI_Get_elements_x(&st, MPI_DOUBLE, &cx));
	CHECK_EQ(cx, 5, "MPI_Get_elements_x after MPI_Status_set_elements");
	CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)7));
	CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &count));
	CHECK_EQ(count, 7, "MPI_Get_elements after _set_elements_x");
	CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
	CHECK_MPI(MPI_Test_cancelled(&st, &flag));
	CHECK_EQ(flag, 1, "MPI_Test_cancelled after MPI_Status_set_cancelled");
	CHECK_MPI(MPI_Status_set_cancelled(&st, 0));
	CHECK_MPI(MPI_Test_cancelled(&st, &flag));
	CHECK_EQ(flag, 0, "cancelled cleared");

	CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t));
	CHECK_MPI(MPI_Type_size(t, &count));
	CHECK_EQ(count, 8, "MPI_Type_match_size(INTEGER, 8)");
	CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t));
	CHECK_MPI(MPI_Type_size(t, &count));
	CHECK_EQ(count, 4, "MPI_Type_match_size(REAL, 4)");
	CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
	CHECK_MPI(MPI_Type_size(t, &count));
	CHECK_EQ(count, 16, "MPI_Type_match_size(COMPLEX, 16)");
#ifdef MPIRMA	/* the classes the hosts give differ */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &t));
	CHECK_EQ(t, MPI_LONG_DOUBLE, "MPI_Type_match_size(REAL, 16)");
	CHECK_CLASS(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
}

/* One type's external32 image of @n elements at @buf, and back. */
static void x32_case(const char *what, MPI_Datatype t, const void *buf,
		     int n, const unsigned char *img, int ilen, size_t esz)
{
	unsigned char out[64], back[64];
	MPI_Aint size = -1, pos = 0;
	int i;

	CHECK_MPI(MPI_Pack_external_size("external32", n, t, &size));
	CHECK(size == ilen, "%s: external32 size %ld, want %d", what,
	      (long)size, ilen);
	memset(out, 0xcc, sizeof(out));
	CHECK_MPI(MPI_Pack_external("external32", buf, n, t, out, sizeof(out),
				    &pos));
	CHECK(pos == ilen, "%s: position %ld after packing", what, (long)pos);
	for (i = 0; i < ilen; i++)
		if (!CHECK(out[i] == img[i], "%s: byte %d is %02x, want %02x",
			   what, i, out[i], img[i]))
			break;
	memset(back, 0, sizeof(back));
	pos = 0;
	CHECK_MPI(MPI_Unpack_external("external32", out, ilen, &pos, back, n,
				      t));
	CHECK(pos == ilen && !memcmp(back, buf, esz), "%s: round trip", what);
}

#define IMG(...) (const unsigned char[]){ __VA_ARGS__ }, \
	(int)sizeof((const unsigned char[]){ __VA_ARGS__ })

static void test_external32(void)
{
	int ints[4] = { 1, -2, 3, 4 };

	mtest_section("external32");
	x32_case("MPI_INT", MPI_INT, ints, 2,
		 IMG(0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe), 8);
#ifdef MPIRMA	/* the rest is mpirma's own; the hosts run the above */
	short sh = 0x0102;
	double d = 1.0;
	struct { double v; int i; } di = { 1.0, 7 };
	MPI_Datatype vec;

	x32_case("MPI_SHORT", MPI_SHORT, &sh, 1, IMG(1, 2), 2);
	x32_case("MPI_DOUBLE", MPI_DOUBLE, &d, 1,
		 IMG(0x3f, 0xf0, 0, 0, 0, 0, 0, 0), 8);
	x32_case("MPI_DOUBLE_INT", MPI_DOUBLE_INT, &di, 1,
		 IMG(0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7), 12);
	MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	x32_case("vector(2,1,2)", vec, (int[]){ 1, 0, 3 }, 1,
		 IMG(0, 0, 0, 1, 0, 0, 0, 3), 3 * sizeof(int));
	MPI_Type_free(&vec);
	{
		long l[2] = { -2, 5 };
		_Bool b = 1;
		long double ld = 1.0L;
		unsigned char out[8];
		MPI_Aint pos = 0;

		x32_case("MPI_LONG", MPI_LONG, l, 2,
			 IMG(0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 5), sizeof(l));
		x32_case("MPI_C_BOOL", MPI_C_BOOL, &b, 1, IMG(1), 1);
		x32_case("MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, &ld, 1,
			 IMG(0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			     0), 10);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		CHECK_CLASS(MPI_Pack_external("native", ints, 1, MPI_INT, out,
					      8, &pos),
			    MPI_ERR_UNSUPPORTED_DATAREP);
		CHECK_CLASS(MPI_Pack_external("external32", ints, 3, MPI_INT,
					      out, 8, &pos), MPI_ERR_TRUNCATE);
		CHECK_CLASS(MPI_Unpack_external("external32", out, 8, &pos,
						ints, -1, MPI_INT),
			    MPI_ERR_COUNT);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	}
#endif
}

int main(int argc, char **argv)
{
	int i;

	mtest_init(&argc, &argv, "datatype");
	build_types();
	test_properties();
	test_predefined();
	test_rma();
	test_churn();
	test_p2p();
	test_address();
	test_status_setters();
	test_external32();
	for (i = 0; i < ntypes; i++) {
		CHECK_MPI(MPI_Type_free(&types[i].type));
		CHECK_EQ(types[i].type, MPI_DATATYPE_NULL, "freed type");
	}
	return mtest_finish();
}
