// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of the library's datatypes and ops (lib/base/datatype*.c,
 * lib/base/op.c, with lib/base/handle.c), no kernel and no VM: the library sources are
 * included here and the few process-level functions they call are stubbed.
 *
 * Covers: predefined sizes and bounds, each constructor's block list (type
 * map order, merging, holes, negative displacements), lb/ub/true extent
 * rules including resized markers and struct padding, kernel layouts
 * (element and byte views), accumulate type matching, pack/unpack round
 * trips and partial unpacks, MPI_Get_elements, the op/type table of the
 * standard (written out independently below), MAXLOC/MINLOC with the
 * MPI_Reduce man page examples, derived types in reductions, and user ops.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include "dtype_unit.h"

/* ------------------------------------------------------------ tests */

/* A committed struct of an int and a float: two element types in one. */
static MPI_Datatype int_float_type(void)
{
	int b2[2] = { 1, 1 };
	MPI_Aint d2[2] = { 0, 4 };
	MPI_Datatype ty[2] = { MPI_INT, MPI_FLOAT }, t;

	PMPI_Type_create_struct(2, b2, d2, ty, &t);
	PMPI_Type_commit(&t);
	return t;
}


static void test_predefined(void)
{
	check_bounds("MPI_INT", MPI_INT, 4, 0, 4, 0, 4);
	check_bounds("MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, 16, 0, 16, 0, 16);
	check_bounds("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 12, 0, 16, 0, 12);
	check_bounds("MPI_SHORT_INT", MPI_SHORT_INT, 6, 0, 8, 0, 8);
	check_bounds("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, 20, 0, 32, 0, 20);
	check_bounds("MPI_2INT", MPI_2INT, 8, 0, 8, 0, 8);
	check_bounds("MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, 16, 0, 16, 0, 16);
	check_bounds("MPI_WCHAR", MPI_WCHAR, 4, 0, 4, 0, 4);
	check_blocks("SHORT_INT bytes", MPI_SHORT_INT, false, 2, 0LL, 2LL, 4LL, 4LL);
	check_blocks("SHORT_INT elems", MPI_SHORT_INT, true, 1, 0LL, 8LL);
	CHECK_EQ(mpirma_dtype_ktype(MPI_OFFSET), MPIRMA_TYPE_INT64);
	CHECK_EQ(mpirma_dtype_ktype(MPI_AINT), MPIRMA_TYPE_INT64);
	/* as the platform's char and wchar_t */
	CHECK_EQ(mpirma_strict_types(), false);
	CHECK_EQ(mpirma_dtype_ktype(MPI_CHAR),
		 (char)-1 < 0 ? MPIRMA_TYPE_INT8 : MPIRMA_TYPE_UINT8);
	CHECK_EQ(mpirma_dtype_ktype(MPI_WCHAR),
		 (wchar_t)-1 < 0 ? MPIRMA_TYPE_INT32 : MPIRMA_TYPE_UINT32);
	CHECK_EQ(mpirma_dtype_ktype(MPI_SIGNED_CHAR), MPIRMA_TYPE_INT8);
	CHECK_EQ(mpirma_dtype_ktype(MPI_UNSIGNED_CHAR), MPIRMA_TYPE_UINT8);
	CHECK_EQ(mpirma_dtype_ktype(MPI_C_BOOL), MPIRMA_TYPE_BOOL);
	CHECK_EQ(mpirma_dtype_ktype(MPI_LONG), MPIRMA_TYPE_INT64);
	CHECK_EQ(mpirma_dtype_ktype(MPI_UNSIGNED_LONG), MPIRMA_TYPE_UINT64);
	CHECK_EQ(mpirma_dtype_ktype(MPI_SHORT), MPIRMA_TYPE_INT16);
	CHECK_EQ(mpirma_dtype_ktype(MPI_C_COMPLEX), MPIRMA_TYPE_C_FLOAT_COMPLEX);
	CHECK_EQ(mpirma_dtype_ktype(MPI_LONG_DOUBLE_INT), MPIRMA_TYPE_LONG_DOUBLE_INT);
	CHECK(mpirma_dtype_get(0) == NULL);
	CHECK(mpirma_dtype_get(47) == NULL);
	CHECK(mpirma_dtype_get(12345) == NULL);
	{
		char name[MPI_MAX_OBJECT_NAME];
		int len;

		PMPI_Type_get_name(MPI_DOUBLE, name, &len);
		CHECK(!strcmp(name, "MPI_DOUBLE") && len == 10);
	}
}

static void test_constructors(void)
{
	MPI_Datatype t1, t2, t3;
	int bl[3] = { 2, 1, 1 }, disp[3] = { 3, 0, 1 };
	MPI_Aint hd[3] = { 16, 0, -8 };

	PMPI_Type_contiguous(3, MPI_INT, &t1);
	check_bounds("contig(3,int)", t1, 12, 0, 12, 0, 12);
	check_blocks("contig(3,int)", t1, false, 1, 0LL, 12LL);
	PMPI_Type_free(&t1);
	CHECK_EQ(t1, MPI_DATATYPE_NULL);

	PMPI_Type_vector(3, 2, 4, MPI_INT, &t1);
	check_bounds("vector(3,2,4,int)", t1, 24, 0, 40, 0, 40);
	check_blocks("vector(3,2,4,int)", t1, false, 3, 0LL, 8LL, 16LL, 8LL, 32LL, 8LL);
	/* A vector of vectors: count 2 at the inner extent 40. */
	PMPI_Type_contiguous(2, t1, &t2);
	check_blocks("contig(2,vector)", t2, false, 5, 0LL, 8LL, 16LL, 8LL,
		     32LL, 16LL, 56LL, 8LL, 72LL, 8LL);
	PMPI_Type_free(&t1);	/* t2 still holds it */
	check_bounds("contig(2,vector) after free", t2, 48, 0, 80, 0, 80);
	PMPI_Type_free(&t2);

	/* Negative stride: the type map goes backwards; order is kept. */
	PMPI_Type_create_hvector(2, 1, -8, MPI_INT, &t1);
	check_bounds("hvector(2,1,-8)", t1, 8, -8, 12, -8, 12);
	check_blocks("hvector(2,1,-8)", t1, false, 2, 0LL, 4LL, -8LL, 4LL);
	PMPI_Type_free(&t1);

	PMPI_Type_indexed(2, bl, disp, MPI_INT, &t1);
	check_bounds("indexed", t1, 12, 0, 20, 0, 20);
	check_blocks("indexed", t1, false, 2, 12LL, 8LL, 0LL, 4LL);
	PMPI_Type_free(&t1);

	/* Adjacent pieces in type-map order merge. */
	{
		int b1[2] = { 1, 1 }, d1[2] = { 0, 1 };

		PMPI_Type_indexed(2, b1, d1, MPI_INT, &t1);
		check_blocks("indexed merge", t1, false, 1, 0LL, 8LL);
		PMPI_Type_free(&t1);
	}

	PMPI_Type_create_hindexed(3, bl, hd, MPI_SHORT, &t1);
	check_bounds("hindexed", t1, 8, -8, 28, -8, 28);
	check_blocks("hindexed", t1, false, 3, 16LL, 4LL, 0LL, 2LL, -8LL, 2LL);
	PMPI_Type_free(&t1);

	PMPI_Type_create_indexed_block(3, 2, disp, MPI_DOUBLE, &t1);
	check_bounds("indexed_block", t1, 48, 0, 40, 0, 40);
	/* Overlapping blocks stay separate: 24..40, then 0..16, 8..24. */
	check_blocks("indexed_block", t1, false, 3, 24LL, 16LL, 0LL, 16LL, 8LL, 16LL);
	PMPI_Type_free(&t1);

	PMPI_Type_create_hindexed_block(3, 1, hd, MPI_INT, &t1);
	check_blocks("hindexed_block", t1, false, 3, 16LL, 4LL, 0LL, 4LL, -8LL, 4LL);
	check_bounds("hindexed_block", t1, 12, -8, 28, -8, 28);
	PMPI_Type_free(&t1);

	/* Struct with a hole and C padding: {char; double} */
	{
		int b2[2] = { 1, 1 };
		MPI_Aint d2[2] = { 0, 8 };
		MPI_Datatype ty[2] = { MPI_CHAR, MPI_DOUBLE };

		PMPI_Type_create_struct(2, b2, d2, ty, &t1);
		check_bounds("struct{char,double}", t1, 9, 0, 16, 0, 16);
		check_blocks("struct{char,double}", t1, false, 2, 0LL, 1LL, 8LL, 8LL);
		CHECK_EQ(mpirma_dtype_get(t1)->basic, MPIRMA_DTYPE_MIXED);
		CHECK_EQ(mpirma_dtype_ktype(t1), -1);
		PMPI_Type_free(&t1);

		/* {double; char}: padded to 16 at the end. */
		d2[1] = 8;
		ty[0] = MPI_DOUBLE;
		ty[1] = MPI_CHAR;
		PMPI_Type_create_struct(2, b2, d2, ty, &t1);
		check_bounds("struct{double,char}", t1, 9, 0, 16, 0, 9);
		PMPI_Type_free(&t1);

		/* Negative displacement, homogeneous ints. */
		ty[0] = MPI_INT;
		ty[1] = MPI_INT32_T;
		d2[0] = 4;
		d2[1] = -4;
		PMPI_Type_create_struct(2, b2, d2, ty, &t1);
		check_bounds("struct neg", t1, 8, -4, 12, -4, 12);
		check_blocks("struct neg", t1, false, 2, 4LL, 4LL, -4LL, 4LL);
		CHECK_EQ(mpirma_dtype_ktype(t1), MPIRMA_TYPE_INT32);
		PMPI_Type_free(&t1);
	}

	/* Resized: explicit markers win, also inside other types. */
	PMPI_Type_create_resized(MPI_INT, -4, 12, &t1);
	check_bounds("resized(int,-4,12)", t1, 4, -4, 12, 0, 4);
	PMPI_Type_contiguous(2, t1, &t2);
	check_bounds("contig(2,resized)", t2, 8, -4, 24, 0, 16);
	check_blocks("contig(2,resized)", t2, false, 2, 0LL, 4LL, 12LL, 4LL);
	{
		int b2[2] = { 1, 1 };
		MPI_Aint d2[2] = { 0, 20 };
		MPI_Datatype ty[2] = { MPI_DATATYPE_NULL, MPI_INT };

		PMPI_Type_create_resized(MPI_INT, 0, 16, &t3);
		ty[0] = t3;
		PMPI_Type_create_struct(2, b2, d2, ty, &t2 /* reuse */);
		check_bounds("struct{resized,int}", t2, 8, 0, 16, 0, 24);
		PMPI_Type_free(&t2);
		PMPI_Type_free(&t3);
	}
	PMPI_Type_free(&t1);

	/* Gap-free after resizing to the size: one block for a run. */
	PMPI_Type_create_resized(MPI_DOUBLE_INT, 0, 12, &t1);
	PMPI_Type_contiguous(4, t1, &t2);
	check_blocks("contig(4,resized double_int)", t2, false, 1, 0LL, 48LL);
	PMPI_Type_free(&t1);
	PMPI_Type_free(&t2);

	/* dup keeps everything. */
	PMPI_Type_vector(2, 1, 3, MPI_FLOAT, &t1);
	PMPI_Type_commit(&t1);
	PMPI_Type_dup(t1, &t2);
	CHECK(mpirma_dtype_get(t2)->committed);
	check_bounds("dup(vector)", t2, 8, 0, 16, 0, 16);
	check_blocks("dup(vector)", t2, false, 2, 0LL, 4LL, 12LL, 4LL);
	PMPI_Type_free(&t1);
	PMPI_Type_free(&t2);

	/* Subarray 4x5 ints, 2x3 from (1,1), C order. */
	{
		int sizes[2] = { 4, 5 }, sub[2] = { 2, 3 }, st[2] = { 1, 1 };

		PMPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, MPI_INT, &t1);
		check_bounds("subarray C", t1, 24, 0, 80, 24, 32);
		check_blocks("subarray C", t1, false, 2, 24LL, 12LL, 44LL, 12LL);
		PMPI_Type_free(&t1);
		PMPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_FORTRAN,
					  MPI_INT, &t1);
		/* Fortran: dim 0 fastest: 2 ints per column of 4, 3 columns. */
		check_blocks("subarray F", t1, false, 3, 20LL, 8LL, 36LL, 8LL,
			     52LL, 8LL);
		PMPI_Type_free(&t1);
	}

	/* Zero counts and errors. */
	PMPI_Type_contiguous(0, MPI_INT, &t1);
	check_bounds("contig(0)", t1, 0, 0, 0, 0, 0);
	PMPI_Type_free(&t1);
	CHECK_EQ(PMPI_Type_contiguous(-1, MPI_INT, &t1), MPI_ERR_COUNT);
	CHECK_EQ(PMPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t1), MPI_ERR_TYPE);
	t1 = MPI_INT;
	CHECK_EQ(PMPI_Type_free(&t1), MPI_ERR_TYPE);
}

/* Block lists summed up: order, overlap, empty blocks, lengths, overflow. */
static void test_blocks_sum(void)
{
	static const struct mpirma_block b1[] = { { 8, 12 }, { 24, 0 }, { 32, 4 } };
	static const struct mpirma_block b2[] = { { 16, 8 }, { 0, 8 } };
	static const struct mpirma_block b3[] = { { 0, 8 }, { 4, 8 } };
	static const struct mpirma_block b4[] = { { INT64_MAX - 4, 8 } };
	struct mpirma_blocks_sum s;

	mpirma_blocks_sum(b1, 3, &s);
	CHECK(s.fits && s.ordered && s.lo == 8 && s.hi == 36 && s.data == 16 &&
	      s.lens_or == 12);
	mpirma_blocks_sum(b2, 2, &s);
	CHECK(s.fits && !s.ordered && s.lo == 0 && s.hi == 24 && s.data == 16);
	mpirma_blocks_sum(b3, 2, &s);
	CHECK(s.fits && !s.ordered && s.lo == 0 && s.hi == 12);
	mpirma_blocks_sum(b4, 1, &s);
	CHECK(!s.fits);
	mpirma_blocks_sum(b1, 0, &s);
	CHECK(s.fits && s.ordered && !s.data && s.lo == 0 && s.hi == 0);
}

static void test_layouts(void)
{
	const struct mpirma_blocks_sum *sum;
	struct mpirma_blocks_sum own;
	struct mpirma_layout l;
	unsigned int kt;
	MPI_Datatype t1;
	static char buf[64];

	CHECK_EQ(mpirma_dtype_layout(MPI_INT, 5, buf, &l, &kt, NULL), MPI_SUCCESS);
	CHECK(kt == MPIRMA_TYPE_INT32 && l.nblocks == 0 && l.count == 5 &&
	      l.addr == (uintptr_t)buf);
	/* Pairs with a hole: element view of whole 16-byte elements. */
	CHECK_EQ(mpirma_dtype_layout(MPI_DOUBLE_INT, 3, buf, &l, &kt, NULL), MPI_SUCCESS);
	CHECK(kt == MPIRMA_TYPE_DOUBLE_INT && l.nblocks == 0 && l.count == 3);
	CHECK_EQ(mpirma_dtype_layout_bytes(MPI_DOUBLE_INT, 3, buf, &l, NULL), MPI_SUCCESS);
	CHECK(l.nblocks == 1 && l.count == 3 && l.extent == 16);

	PMPI_Type_vector(3, 2, 4, MPI_INT, &t1);
	CHECK_EQ(mpirma_dtype_layout(t1, 1, NULL, &l, &kt, NULL), MPI_ERR_TYPE);
	PMPI_Type_commit(&t1);
	CHECK_EQ(mpirma_dtype_layout(t1, 2, NULL, &l, &kt, &sum), MPI_SUCCESS);
	CHECK(kt == MPIRMA_TYPE_INT32 && l.nblocks == 3 && l.count == 2 &&
	      l.extent == 40 && l.addr == 0);
	/* One instance of the list: ints 0-1, 4-5, 8-9, as the list sums up. */
	CHECK(sum && sum->fits && sum->ordered && sum->lo == 0 &&
	      sum->hi == 40 && sum->data == 24 && sum->lens_or == 8);
	mpirma_blocks_sum((const struct mpirma_block *)(uintptr_t)l.blocks,
			  l.nblocks, &own);
	CHECK(!memcmp(&own, sum, sizeof(own)));
	CHECK_EQ(mpirma_dtype_layout(t1, -1, NULL, &l, &kt, NULL), MPI_ERR_COUNT);
	PMPI_Type_free(&t1);

	/* Mixed types: bytes. */
	t1 = int_float_type();
	CHECK_EQ(mpirma_dtype_layout(t1, 4, buf, &l, &kt, NULL), MPI_SUCCESS);
	CHECK(kt == MPIRMA_TYPE_BYTE && l.nblocks == 0 && l.count == 32);
	CHECK_EQ(mpirma_dtype_acc_match(t1, t1), MPI_ERR_TYPE);
	PMPI_Type_free(&t1);
	/* A leading hole: a one-block list rather than a moved address. */
	{
		int d1 = 1, b1 = 2;

		PMPI_Type_indexed(1, &b1, &d1, MPI_INT, &t1);
		PMPI_Type_commit(&t1);
		CHECK_EQ(mpirma_dtype_layout(t1, 1, NULL, &l, &kt, NULL), MPI_SUCCESS);
		CHECK(l.nblocks == 1 && l.addr == 0);
		PMPI_Type_free(&t1);
	}
	/* Accumulate matching. */
	PMPI_Type_contiguous(4, MPI_INT32_T, &t1);
	CHECK_EQ(mpirma_dtype_acc_match(MPI_INT, t1), MPI_SUCCESS);
	CHECK_EQ(mpirma_dtype_acc_match(MPI_INT, MPI_FLOAT), MPI_ERR_TYPE);
	CHECK_EQ(mpirma_dtype_acc_match(MPI_INT, MPI_UNSIGNED), MPI_ERR_TYPE);
	CHECK_EQ(mpirma_dtype_acc_match(MPI_INT, MPI_INTEGER), MPI_ERR_TYPE);
	CHECK_EQ(mpirma_dtype_acc_match(MPI_LONG, MPI_LONG_LONG), MPI_SUCCESS);
	CHECK_EQ(mpirma_dtype_acc_match(MPI_CHAR, MPI_SIGNED_CHAR), MPI_ERR_TYPE);
	CHECK_EQ(mpirma_dtype_acc_match(MPI_2INT, MPI_INT), MPI_ERR_TYPE);
	CHECK_EQ(mpirma_dtype_acc_match(MPI_DOUBLE_INT, MPI_DOUBLE_INT), MPI_SUCCESS);
	PMPI_Type_free(&t1);
}

static void test_pack(void)
{
	int src[12], dst[12], packed[12], pos = 0, i;
	MPI_Datatype vec, st;
	MPI_Status status;
	int count;

	for (i = 0; i < 12; i++)
		src[i] = 100 + i;
	PMPI_Type_vector(3, 1, 4, MPI_INT, &vec);
	PMPI_Type_commit(&vec);
	CHECK_EQ(PMPI_Pack(src, 1, vec, packed, sizeof(packed), &pos,
			   MPI_COMM_WORLD), MPI_SUCCESS);
	CHECK(pos == 12 && packed[0] == 100 && packed[1] == 104 && packed[2] == 108);
	memset(dst, 0, sizeof(dst));
	pos = 0;
	CHECK_EQ(PMPI_Unpack(packed, 12, &pos, dst, 1, vec, MPI_COMM_WORLD),
		 MPI_SUCCESS);
	CHECK(dst[0] == 100 && dst[4] == 104 && dst[8] == 108 && dst[1] == 0);
	pos = 8;
	CHECK_EQ(PMPI_Pack(src, 1, vec, dst, 16, &pos, MPI_COMM_WORLD),
		 MPI_ERR_TRUNCATE);
	PMPI_Pack_size(5, vec, MPI_COMM_WORLD, &count);
	CHECK_EQ(count, 60);
	/* Partial unpack fills as far as the bytes go. */
	memset(dst, 0, sizeof(dst));
	mpirma_dtype_unpack(mpirma_dtype_get(vec), packed, 10, dst, 1);
	CHECK(dst[0] == 100 && dst[4] == 104 && dst[8] == (108 & 0xffff));

	/* Get_count / Get_elements on a struct {int x2; double}. */
	{
		int b2[2] = { 2, 1 };
		MPI_Aint d2[2] = { 0, 8 };
		MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };

		PMPI_Type_create_struct(2, b2, d2, ty, &st);
		PMPI_Type_commit(&st);
		status.mpirma_count = 16 * 2;
		PMPI_Get_count(&status, st, &count);
		CHECK_EQ(count, 2);
		PMPI_Get_elements(&status, st, &count);
		CHECK_EQ(count, 6);
		status.mpirma_count = 16 + 8;
		PMPI_Get_count(&status, st, &count);
		CHECK_EQ(count, MPI_UNDEFINED);
		PMPI_Get_elements(&status, st, &count);
		CHECK_EQ(count, 5);
		status.mpirma_count = 12;
		PMPI_Get_elements(&status, MPI_DOUBLE_INT, &count);
		CHECK_EQ(count, 2);
		status.mpirma_count = 20;
		PMPI_Get_elements(&status, MPI_DOUBLE_INT, &count);
		CHECK_EQ(count, 3);
		PMPI_Type_free(&st);
	}
	/* Round trip of a struct with holes through pack/unpack. */
	{
		struct { char c; double d; short s; } a[3], b[3];
		int b3[3] = { 1, 1, 1 };
		MPI_Aint d3[3];
		MPI_Datatype ty[3] = { MPI_CHAR, MPI_DOUBLE, MPI_SHORT };
		char pk[64];

		d3[0] = offsetof(typeof(a[0]), c);
		d3[1] = offsetof(typeof(a[0]), d);
		d3[2] = offsetof(typeof(a[0]), s);
		PMPI_Type_create_struct(3, b3, d3, ty, &st);
		PMPI_Type_commit(&st);
		{
			MPI_Aint lb, ext;

			PMPI_Type_get_extent(st, &lb, &ext);
			CHECK_EQ(ext, sizeof(a[0]));
		}
		memset(a, 0x5a, sizeof(a));
		memset(b, 0x11, sizeof(b));
		for (i = 0; i < 3; i++) {
			a[i].c = 'a' + i;
			a[i].d = i * 1.5;
			a[i].s = -i;
		}
		pos = 0;
		PMPI_Pack(a, 3, st, pk, sizeof(pk), &pos, MPI_COMM_WORLD);
		CHECK_EQ(pos, 33);
		pos = 0;
		PMPI_Unpack(pk, 33, &pos, b, 3, st, MPI_COMM_WORLD);
		for (i = 0; i < 3; i++)
			CHECK(b[i].c == 'a' + i && b[i].d == i * 1.5 && b[i].s == -i);
		/* Holes untouched. */
		CHECK(((unsigned char *)b)[1] == 0x11);
		PMPI_Type_free(&st);
	}
	PMPI_Type_free(&vec);
}

/* ------------------------------------------------------------ ops */

enum grp { G_NONE, G_CINT, G_FINT, G_FLOAT, G_LOGICAL, G_COMPLEX, G_BYTE, G_PAIR };

/* The standard's type groups, written out again independently of datatype.c. */
static const struct { MPI_Datatype t; enum grp g; } types[] = {
	/* MPI_CHAR and MPI_WCHAR: C integers, as the hosts take them */
	{ MPI_CHAR, G_CINT }, { MPI_WCHAR, G_CINT }, { MPI_PACKED, G_NONE },
	{ MPI_CHARACTER, G_NONE },
	{ MPI_SIGNED_CHAR, G_CINT }, { MPI_UNSIGNED_CHAR, G_CINT },
	{ MPI_SHORT, G_CINT }, { MPI_UNSIGNED_SHORT, G_CINT }, { MPI_INT, G_CINT },
	{ MPI_UNSIGNED, G_CINT }, { MPI_LONG, G_CINT }, { MPI_UNSIGNED_LONG, G_CINT },
	{ MPI_LONG_LONG, G_CINT }, { MPI_UNSIGNED_LONG_LONG, G_CINT },
	{ MPI_INT8_T, G_CINT }, { MPI_INT16_T, G_CINT }, { MPI_INT32_T, G_CINT },
	{ MPI_INT64_T, G_CINT }, { MPI_UINT8_T, G_CINT }, { MPI_UINT16_T, G_CINT },
	{ MPI_UINT32_T, G_CINT }, { MPI_UINT64_T, G_CINT },
	{ MPI_AINT, G_CINT }, { MPI_OFFSET, G_CINT }, { MPI_COUNT, G_CINT },
	{ MPI_INTEGER, G_FINT }, { MPI_INTEGER1, G_FINT }, { MPI_INTEGER8, G_FINT },
	{ MPI_FLOAT, G_FLOAT }, { MPI_DOUBLE, G_FLOAT }, { MPI_LONG_DOUBLE, G_FLOAT },
	{ MPI_REAL, G_FLOAT }, { MPI_DOUBLE_PRECISION, G_FLOAT }, { MPI_REAL8, G_FLOAT },
	{ MPI_C_BOOL, G_LOGICAL }, { MPI_CXX_BOOL, G_LOGICAL }, { MPI_LOGICAL, G_LOGICAL },
	{ MPI_C_FLOAT_COMPLEX, G_COMPLEX }, { MPI_C_DOUBLE_COMPLEX, G_COMPLEX },
	{ MPI_C_LONG_DOUBLE_COMPLEX, G_COMPLEX }, { MPI_COMPLEX, G_COMPLEX },
	{ MPI_DOUBLE_COMPLEX, G_COMPLEX }, { MPI_CXX_DOUBLE_COMPLEX, G_COMPLEX },
	{ MPI_BYTE, G_BYTE },
	{ MPI_FLOAT_INT, G_PAIR }, { MPI_DOUBLE_INT, G_PAIR }, { MPI_LONG_INT, G_PAIR },
	{ MPI_2INT, G_PAIR }, { MPI_SHORT_INT, G_PAIR }, { MPI_LONG_DOUBLE_INT, G_PAIR },
	{ MPI_2INTEGER, G_PAIR }, { MPI_2REAL, G_PAIR }, { MPI_2DOUBLE_PRECISION, G_PAIR },
};

/* MPI 3.1 5.9.2: is @op defined on group @g? */
static bool std_allowed(MPI_Op op, enum grp g)
{
	switch (op) {
	case MPI_MAX:
	case MPI_MIN:
		return g == G_CINT || g == G_FINT || g == G_FLOAT;
	case MPI_SUM:
	case MPI_PROD:
		return g == G_CINT || g == G_FINT || g == G_FLOAT || g == G_COMPLEX;
	case MPI_LAND:
	case MPI_LOR:
	case MPI_LXOR:
		return g == G_CINT || g == G_LOGICAL;
	case MPI_BAND:
	case MPI_BOR:
	case MPI_BXOR:
		return g == G_CINT || g == G_FINT || g == G_BYTE;
	case MPI_MAXLOC:
	case MPI_MINLOC:
		return g == G_PAIR;
	default:
		return false;
	}
}

static void test_op_table(void)
{
	size_t i;
	MPI_Op op;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		for (op = MPI_MAX; op <= MPI_MINLOC; op++) {
			int want = std_allowed(op, types[i].g) ? MPI_SUCCESS : MPI_ERR_OP;
			int got = mpirma_op_check(op, types[i].t, MPIRMA_OP_USE_REDUCE);

			const char *name = mpirma_dtype_get(types[i].t)->hdr.name;

			checkf(got == want, "op %d on %s: %d, want %d", op,
			       name, got, want);
			/* RMA: the same, except the Fortran real pairs, which
			 * need a kernel that has them (there is none here).
			 */
			if (types[i].t == MPI_2REAL || types[i].t == MPI_2DOUBLE_PRECISION)
				want = MPI_ERR_OP;
			got = mpirma_op_check(op, types[i].t, MPIRMA_OP_USE_RMA);
			checkf(got == want, "RMA op %d on %s: %d, want %d", op,
			       name, got, want);
		}
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		CHECK_EQ(mpirma_op_check(MPI_REPLACE, types[i].t, MPIRMA_OP_USE_RMA), 0);
		CHECK_EQ(mpirma_op_check(MPI_NO_OP, types[i].t, MPIRMA_OP_USE_RMA), 0);
		CHECK_EQ(mpirma_op_check(MPI_REPLACE, types[i].t, MPIRMA_OP_USE_REDUCE),
			 MPI_ERR_OP);
	}
	CHECK_EQ(mpirma_op_check(MPI_OP_NULL, MPI_INT, 0), MPI_ERR_OP);
	CHECK_EQ(mpirma_op_check(999, MPI_INT, 0), MPI_ERR_OP);
	CHECK_EQ(mpirma_op_check(MPI_SUM, 0, 0), MPI_ERR_TYPE);
	CHECK_EQ(mpirma_op_kernel(MPI_BXOR), MPIRMA_OP_BXOR);
	CHECK_EQ(mpirma_op_kernel(MPI_REPLACE), MPIRMA_OP_REPLACE);
}

/* Reduces @n "ranks" of @count elements in rank order into res (= rank 0 ... n-1). */
static int reduce_all(MPI_Op op, MPI_Datatype dt, void *data, size_t stride,
		      int n, int count, void *res, size_t bytes)
{
	int r, ret = 0;

	memcpy(res, (char *)data + (n - 1) * stride, bytes);
	/* res = v(r) op res, from the top down: v0 op (v1 op (... vn-1)). */
	for (r = n - 2; r >= 0 && !ret; r--)
		ret = mpirma_op_apply(op, dt, (char *)data + r * stride, res, count);
	return ret;
}

static void test_maxloc(void)
{
	/* Man page example 3: 30 doubles on each of 4 ranks, MAXLOC. */
	struct { double val; int rank; } in[4][30], out[30];
	/* Example 5: MINLOC of {float value; int index}. */
	struct { float value; int index; } fin[4], fout;
	int r, i, ok = 1;

	for (r = 0; r < 4; r++)
		for (i = 0; i < 30; i++) {
			in[r][i].val = (double)((i * 7 + r * 3) % 5);
			in[r][i].rank = r;
		}
	CHECK_EQ(reduce_all(MPI_MAXLOC, MPI_DOUBLE_INT, in, sizeof(in[0]), 4, 30,
			    out, sizeof(out)), MPI_SUCCESS);
	for (i = 0; i < 30; i++) {
		double best = -1;
		int who = -1;

		for (r = 0; r < 4; r++)
			if (in[r][i].val > best) {
				best = in[r][i].val;
				who = r;
			}
		if (out[i].val != best || out[i].rank != who)
			ok = 0;
	}
	checkf(ok, "MAXLOC example 3");

	for (r = 0; r < 4; r++) {
		fin[r].value = (r == 1 || r == 3) ? -2.5f : (float)r;
		fin[r].index = r * 1000 + 7;
	}
	CHECK_EQ(reduce_all(MPI_MINLOC, MPI_FLOAT_INT, fin, sizeof(fin[0]), 4, 1,
			    &fout, sizeof(fout)), MPI_SUCCESS);
	CHECK(fout.value == -2.5f && fout.index == 1007);
	CHECK(fout.index / 1000 == 1 && fout.index % 1000 == 7);

	/* SHORT_INT: the hole is never written. */
	{
		unsigned char a[8], b[8];
		short v = 5;
		int idx = 3;

		memset(a, 0xee, 8);
		memset(b, 0x77, 8);
		memcpy(a, &v, 2);
		memcpy(a + 4, &idx, 4);
		v = 9;
		idx = 1;
		memcpy(b, &v, 2);
		memcpy(b + 4, &idx, 4);
		mpirma_op_apply(MPI_MAXLOC, MPI_SHORT_INT, b, a, 1);
		memcpy(&v, a, 2);
		memcpy(&idx, a + 4, 4);
		CHECK(v == 9 && idx == 1 && a[2] == 0xee && a[3] == 0xee);
	}
	/* Fortran pairs computed in the library. */
	{
		float a[2] = { 3, 5 }, b[2] = { 3, 2 };

		mpirma_op_apply(MPI_MAXLOC, MPI_2REAL, b, a, 1);
		CHECK(a[0] == 3 && a[1] == 2);
		b[0] = 1;
		b[1] = 0;
		mpirma_op_apply(MPI_MINLOC, MPI_2REAL, b, a, 1);
		CHECK(a[0] == 1 && a[1] == 0);
	}
	/* Unsigned MAX compares as unsigned; MPI_OFFSET as signed. */
	{
		unsigned int ua = 1, ub = 0x80000000u;
		long long oa = -1, ob = 5;

		mpirma_op_apply(MPI_MAX, MPI_UNSIGNED, &ub, &ua, 1);
		CHECK(ua == 0x80000000u);
		mpirma_op_apply(MPI_MAX, MPI_OFFSET, &oa, &ob, 1);
		CHECK(ob == 5);
	}
}

static void test_derived_reduce(void)
{
	int a[12], b[12], i;
	MPI_Datatype vec;

	for (i = 0; i < 12; i++) {
		a[i] = i;
		b[i] = 1000;
	}
	PMPI_Type_vector(2, 2, 3, MPI_INT, &vec);	/* 0,1, 3,4; extent 5 */
	PMPI_Type_commit(&vec);
	CHECK_EQ(mpirma_op_apply(MPI_SUM, vec, a, b, 2), MPI_SUCCESS);
	/* Elements at 0,1,3,4 and 5,6,8,9 change; 2 and 7 do not. */
	CHECK(b[0] == 1000 && b[1] == 1001 && b[2] == 1000 && b[3] == 1003 &&
	      b[4] == 1004 && b[5] == 1005 && b[6] == 1006 && b[7] == 1000 &&
	      b[8] == 1008 && b[9] == 1009 && b[10] == 1000);
	PMPI_Type_free(&vec);
	/* Mixed struct with a predefined op: MPI_ERR_TYPE. */
	vec = int_float_type();
	CHECK_EQ(mpirma_op_apply(MPI_SUM, vec, a, b, 1), MPI_ERR_TYPE);
	PMPI_Type_free(&vec);
}

/* A non-commutative op on 2x2 matrices: inout = in * inout. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout, i;

	(void)dt;
	for (i = 0; i < *len; i++, a += 4, b += 4) {
		int c[4] = {
			a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
			a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
		};

		memcpy(b, c, sizeof(c));
	}
}

static void test_user_op(void)
{
	int m[3][4] = { { 1, 1, 0, 1 }, { 2, 0, 0, 1 }, { 1, 0, 3, 1 } };
	int res[4], commute;
	MPI_Datatype mat;
	MPI_Op op;

	PMPI_Type_contiguous(4, MPI_INT, &mat);
	PMPI_Type_commit(&mat);
	CHECK_EQ(PMPI_Op_create(matmul, 0, &op), MPI_SUCCESS);
	CHECK(op >= 32);
	PMPI_Op_commutative(op, &commute);
	CHECK_EQ(commute, 0);
	CHECK_EQ(reduce_all(op, mat, m, sizeof(m[0]), 3, 1, res, sizeof(res)), 0);
	/* m0 * m1 * m2 = [[1,1],[0,1]] * [[2,0],[0,1]] * [[1,0],[3,1]] */
	CHECK(res[0] == 5 && res[1] == 1 && res[2] == 3 && res[3] == 1);
	CHECK_EQ(mpirma_op_check(op, mat, MPIRMA_OP_USE_RMA), MPI_ERR_OP);
	CHECK_EQ(PMPI_Op_free(&op), MPI_SUCCESS);
	CHECK_EQ(op, MPI_OP_NULL);
	op = MPI_SUM;
	CHECK_EQ(PMPI_Op_free(&op), MPI_ERR_OP);
	PMPI_Type_free(&mat);
}

int main(void)
{
	test_predefined();
	test_constructors();
	test_blocks_sum();
	test_layouts();
	test_pack();
	test_op_table();
	test_maxloc();
	test_derived_reduce();
	test_user_op();
	return unit_summary();
}
