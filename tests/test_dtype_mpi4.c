// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of the datatype calls MPI 4.0 has and MPI 3.1 did not
 * (lib/base/datatype_array.c, datatype_ext32.c, datatype_f90.c, the _c
 * forms), no kernel and no VM, as test_datatype.c.
 *
 * Covers: darray block lists worked out by hand (block, cyclic with whole
 * and partial periods, none, C and Fortran order, an empty part), a darray
 * far larger than memory built in a few runs; external32 byte images of
 * every conversion that is not a plain byte swap (4-byte long, 2-byte
 * wchar, bool, x87 long double as IEEE quad, pairs without their hole,
 * complex halves, a struct of long and int64_t, which the library counts
 * as one basic type) and their round trips; the errors of values past what
 * the library supports; the f90 types' one handle per (p, r).
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <float.h>
#include <math.h>

#include "dtype_unit.h"

/* ------------------------------------------------------------ darray */

static MPI_Datatype mk_darray(int size, int rank, int ndims, const int *g,
			   const int *distrib, const int *darg,
			   const int *psize, int order)
{
	MPI_Datatype t = MPI_DATATYPE_NULL;

	CHECK_EQ(PMPI_Type_create_darray(size, rank, ndims, g, distrib, darg,
					 psize, order, MPI_INT, &t),
		 MPI_SUCCESS);
	PMPI_Type_commit(&t);
	return t;
}

static void test_darray(void)
{
	const int dflt = MPI_DISTRIBUTE_DFLT_DARG, blk = MPI_DISTRIBUTE_BLOCK,
		  cyc = MPI_DISTRIBUTE_CYCLIC, none = MPI_DISTRIBUTE_NONE;
	MPI_Datatype t;
	MPI_Count s, lb, ext;

	/* 4 x 6, rank 1 of 2 x 2 = (0, 1): rows 0-1, columns 1 3 5 */
	t = mk_darray(4, 1, 2, (int[]){ 4, 6 }, (int[]){ blk, cyc },
		   (int[]){ dflt, dflt }, (int[]){ 2, 2 }, MPI_ORDER_C);
	check_blocks("darray block x cyclic", t, false, 6, 4LL, 4LL, 12LL, 4LL,
		     20LL, 4LL, 28LL, 4LL, 36LL, 4LL, 44LL, 4LL);
	check_bounds("darray block x cyclic", t, 24, 0, 96, 4, 44);
	PMPI_Type_free(&t);

	/* 11 dealt in twos to 2, rank 1: 2 whole periods and a short block */
	t = mk_darray(2, 1, 1, (int[]){ 11 }, (int[]){ cyc }, (int[]){ 2 },
		   (int[]){ 2 }, MPI_ORDER_C);
	check_blocks("darray cyclic(2)", t, false, 3, 8LL, 8LL, 24LL, 8LL,
		     40LL, 4LL);
	check_bounds("darray cyclic(2)", t, 20, 0, 44, 8, 36);
	PMPI_Type_free(&t);

	/* Fortran 5 x 3 on 3 x 1, rank 2 = (2, 0): row 4 of every column */
	t = mk_darray(3, 2, 2, (int[]){ 5, 3 }, (int[]){ cyc, none },
		   (int[]){ 2, dflt }, (int[]){ 3, 1 }, MPI_ORDER_FORTRAN);
	check_blocks("darray Fortran cyclic x none", t, false, 3, 16LL, 4LL,
		     36LL, 4LL, 56LL, 4LL);
	PMPI_Type_free(&t);

	/* 5 in blocks of 2 over 4: the last process holds nothing */
	t = mk_darray(4, 3, 1, (int[]){ 5 }, (int[]){ blk }, (int[]){ dflt },
		   (int[]){ 4 }, MPI_ORDER_C);
	check_bounds("darray empty part", t, 0, 0, 20, 0, 0);
	PMPI_Type_free(&t);
	t = mk_darray(4, 2, 1, (int[]){ 5 }, (int[]){ blk }, (int[]){ dflt },
		   (int[]){ 4 }, MPI_ORDER_C);
	check_blocks("darray short block", t, false, 1, 16LL, 4LL);
	PMPI_Type_free(&t);

	/* 2^40 bytes dealt one by one to 2: a few runs, never 2^39 */
	CHECK_EQ(PMPI_Type_create_darray_c(2, 1, 1,
					   (MPI_Count[]){ (MPI_Count)1 << 40 },
					   (int[]){ cyc }, (int[]){ 1 },
					   (int[]){ 2 }, MPI_ORDER_C, MPI_BYTE,
					   &t), MPI_SUCCESS);
	PMPI_Type_size_x(t, &s);
	PMPI_Type_get_extent_x(t, &lb, &ext);
	CHECK_EQ(s, (MPI_Count)1 << 39);
	CHECK_EQ(ext, (MPI_Count)1 << 40);
	CHECK(mpirma_dtype_get(t)->nruns <= 2);
	PMPI_Type_free(&t);

	/* errors */
	CHECK_EQ(PMPI_Type_create_darray(4, 0, 1, (int[]){ 8 }, (int[]){ blk },
					 (int[]){ 1 }, (int[]){ 4 },
					 MPI_ORDER_C, MPI_INT, &t),
		 MPI_ERR_ARG);
	CHECK_EQ(PMPI_Type_create_darray(2, 0, 1, (int[]){ 8 }, (int[]){ 99 },
					 (int[]){ 1 }, (int[]){ 2 },
					 MPI_ORDER_C, MPI_INT, &t),
		 MPI_ERR_ARG);
	CHECK_EQ(PMPI_Type_create_darray(2, 0, 1, (int[]){ 8 }, (int[]){ cyc },
					 (int[]){ 0 }, (int[]){ 2 },
					 MPI_ORDER_C, MPI_INT, &t),
		 MPI_ERR_ARG);
	CHECK_EQ(PMPI_Type_create_darray(2, 0, 1, (int[]){ 8 }, (int[]){ cyc },
					 (int[]){ 1 }, (int[]){ 2 }, 3,
					 MPI_INT, &t), MPI_ERR_ARG);
}

/* ------------------------------------------------------------ external32 */

/* @n of @t at @buf must pack to the @len bytes @img and back to @buf. */
static void x32(const char *what, MPI_Datatype t, const void *buf, int n,
		const unsigned char *img, int len, size_t cmp)
{
	unsigned char out[64], back[64];
	MPI_Aint size = -1, pos = 0;

	PMPI_Pack_external_size("external32", n, t, &size);
	checkf(size == len, "%s: size %ld, want %d", what, (long)size, len);
	memset(out, 0xcc, sizeof(out));
	CHECK_EQ(PMPI_Pack_external("external32", buf, n, t, out, sizeof(out),
				    &pos), MPI_SUCCESS);
	checkf(pos == len && !memcmp(out, img, len), "%s: bytes", what);
	if (memcmp(out, img, len)) {
		for (int i = 0; i < len; i++)
			printf(" %02x", out[i]);
		printf("\n");
	}
	memset(back, 0, sizeof(back));
	pos = 0;
	CHECK_EQ(PMPI_Unpack_external("external32", out, len, &pos, back, n,
				      t), MPI_SUCCESS);
	checkf(!memcmp(back, buf, cmp), "%s: round trip", what);
}

#define IMG(...) (const unsigned char[]){ __VA_ARGS__ }, \
	(int)sizeof((const unsigned char[]){ __VA_ARGS__ })

static void test_external32(void)
{
	unsigned long ul = 0xfffffffeUL;
	long l = -3;
	wchar_t wc = L'A';
	struct { long v; int i; } li = { -3, 9 };
	struct { short v; int i; } si = { 0x0102, 5 };
	float fc[2] = { 1.0f, 2.0f };
	long double ld = -2.5L, tiny = LDBL_TRUE_MIN, inf = INFINITY;
	struct { int64_t a; long b; } mix = { -1, 1 };
	MPI_Datatype st, f90;
	unsigned char out[8];
	MPI_Aint pos = 0;

	x32("MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, &ul, 1,
	    IMG(0xff, 0xff, 0xff, 0xfe), sizeof(ul));
	x32("MPI_LONG", MPI_LONG, &l, 1, IMG(0xff, 0xff, 0xff, 0xfd),
	    sizeof(l));
	x32("MPI_WCHAR", MPI_WCHAR, &wc, 1, IMG(0, 0x41), sizeof(wc));
	x32("MPI_LONG_INT", MPI_LONG_INT, &li, 1,
	    IMG(0xff, 0xff, 0xff, 0xfd, 0, 0, 0, 9), 12);
	x32("MPI_SHORT_INT", MPI_SHORT_INT, &si, 1, IMG(1, 2, 0, 0, 0, 5), 2);
	x32("MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, fc, 1,
	    IMG(0x3f, 0x80, 0, 0, 0x40, 0, 0, 0), sizeof(fc));
	x32("MPI_COMPLEX8", MPI_COMPLEX8, fc, 1,
	    IMG(0x3f, 0x80, 0, 0, 0x40, 0, 0, 0), sizeof(fc));
	/* -2.5 = -1.01b x 2^1: sign, exponent 0x4000, fraction .01 */
	x32("MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, &ld, 1,
	    IMG(0xc0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 10);
	/* the x87 denormal 2^-16445: fraction bit 63 of 64, of quad 49 */
	x32("long double denormal", MPI_LONG_DOUBLE, &tiny, 1,
	    IMG(0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0), 10);
	x32("long double infinity", MPI_LONG_DOUBLE, &inf, 1,
	    IMG(0x7f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 10);
	/* long and int64_t are one basic type to the library, not here */
	PMPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, 8 },
				(MPI_Datatype[]){ MPI_INT64_T, MPI_LONG }, &st);
	PMPI_Type_commit(&st);
	x32("struct(int64_t, long)", st, &mix, 1,
	    IMG(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1),
	    sizeof(mix));
	PMPI_Type_free(&st);
	PMPI_Type_create_f90_real(6, MPI_UNDEFINED, &f90);
	x32("f90 real(6)", f90, fc, 1, IMG(0x3f, 0x80, 0, 0), 4);

	CHECK_EQ(PMPI_Pack_external("external64", &l, 1, MPI_INT, out, 8,
				    &pos), MPI_ERR_UNSUPPORTED_DATAREP);
	CHECK_EQ(PMPI_Pack_external(NULL, &l, 1, MPI_INT, out, 8, &pos),
		 MPI_ERR_ARG);
	CHECK_EQ(PMPI_Pack_external("external32", &l, 3, MPI_INT, out, 8,
				    &pos), MPI_ERR_TRUNCATE);
	pos = -1;
	CHECK_EQ(PMPI_Pack_external("external32", &l, 1, MPI_INT, out, 8,
				    &pos), MPI_ERR_ARG);
}

/* ------------------------------------------------------------ limits */

static void test_limits(void)
{
	const MPI_Count huge = (MPI_Count)1 << 61;
	MPI_Count one[1] = { 1 }, zero[1] = { 0 }, ni, na, nc, nt;
	MPI_Datatype t, t2;
	int n1, n2, n3, comb;

	CHECK_EQ(PMPI_Type_contiguous_c(huge, MPI_INT, &t), MPI_ERR_COUNT);
	CHECK_EQ(PMPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT);
	CHECK_EQ(PMPI_Type_indexed_c((MPI_Count)INT_MAX + 1, one, zero,
				     MPI_INT, &t), MPI_ERR_COUNT);
	CHECK_EQ(PMPI_Type_vector_c(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
	CHECK_EQ(PMPI_Type_create_hvector_c(2, 1, ((MPI_Count)1 << 62) + 1,
					    MPI_INT, &t),
		 MPI_ERR_ARG);
	CHECK_EQ(PMPI_Type_create_resized_c(MPI_INT, 0, ((MPI_Count)1 << 62) + 1, &t),
		 MPI_ERR_ARG);
	CHECK_EQ(PMPI_Type_create_subarray_c(1, (MPI_Count[]){ huge },
					     one, zero, MPI_ORDER_C, MPI_INT,
					     &t), MPI_ERR_COUNT);
	CHECK_EQ(PMPI_Type_create_struct_c(1, (MPI_Count[]){ huge },
					   zero, (MPI_Datatype[]){ MPI_INT },
					   &t), MPI_ERR_COUNT);
	CHECK_EQ(PMPI_Pack_size_c(huge, MPI_INT, MPI_COMM_WORLD, &nc),
		 MPI_ERR_COUNT);
	/* an empty block may be anywhere (MPICH's indexed_misc) */
	CHECK_EQ(PMPI_Type_create_hindexed(3, (int[]){ 0, 4, 0 },
					   (MPI_Aint[]){ LLONG_MAX, 8,
							 LLONG_MAX },
					   MPI_INT, &t), MPI_SUCCESS);
	check_bounds("hindexed with far empty blocks", t, 16, 8, 16, 8, 16);
	PMPI_Type_free(&t);
	CHECK_EQ(PMPI_Type_indexed_c(2, (MPI_Count[]){ 0, 1 },
				     (MPI_Count[]){ LLONG_MAX, 1 }, MPI_INT,
				     &t), MPI_SUCCESS);
	check_bounds("indexed_c with a far empty block", t, 4, 4, 4, 4, 4);
	PMPI_Type_free(&t);
	/* fine as one block of 2^40 (never flattened here) */
	CHECK_EQ(PMPI_Type_contiguous_c((MPI_Count)1 << 40, MPI_INT, &t),
		 MPI_SUCCESS);
	CHECK_EQ(PMPI_Type_get_envelope(t, &n1, &n2, &n3, &comb),
		 MPI_ERR_TYPE);
	CHECK_EQ(PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nt, &comb),
		 MPI_SUCCESS);
	CHECK(comb == MPI_COMBINER_CONTIGUOUS && !ni && !na && nc == 1 &&
	      nt == 1);
	/* 2^40 of them is past what a type may span */
	CHECK_EQ(PMPI_Type_contiguous_c((MPI_Count)1 << 40, t, &t2),
		 MPI_ERR_COUNT);
	PMPI_Type_free(&t);
}

static void test_f90(void)
{
	MPI_Datatype a, b, c;

	CHECK_EQ(PMPI_Type_create_f90_integer(4, &a), MPI_SUCCESS);
	CHECK_EQ(PMPI_Type_create_f90_integer(4, &b), MPI_SUCCESS);
	CHECK_EQ(PMPI_Type_create_f90_real(4, MPI_UNDEFINED, &c), MPI_SUCCESS);
	CHECK(a == b && a != c);
	check_bounds("f90 integer(4)", a, 2, 0, 2, 0, 2);
	CHECK_EQ(mpirma_dtype_ktype(a), MPIRMA_TYPE_INT16);
	CHECK_EQ(PMPI_Type_free(&a), MPI_ERR_TYPE);
	CHECK(a == b);
	CHECK_EQ(PMPI_Type_create_f90_real(16, 100, &a), MPI_ERR_ARG);
	CHECK_EQ(PMPI_Type_create_f90_real(7, 307, &a), MPI_SUCCESS);
	check_bounds("f90 real(7, 307)", a, 8, 0, 8, 0, 8);
}

int main(void)
{
	test_darray();
	test_external32();
	test_limits();
	test_f90();
	return unit_summary();
}
