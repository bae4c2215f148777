// SPDX-License-Identifier: GPL-2.0
/*
 * typedecode: MPI_Type_get_envelope and MPI_Type_get_contents.
 *
 * Every constructor of the library gives back its combiner and exactly the
 * arguments it was called with (MPI 3.1, 4.1.13); named types are
 * MPI_COMBINER_NAMED with nothing to decode (get_contents on them is
 * MPI_ERR_TYPE); too small arrays are MPI_ERR_ARG.  The datatypes
 * get_contents returns are handles of their own: a derived one is usable
 * (same size and extent as the original) and freed by the caller, also
 * after the original handle and the decoded type are gone.  A recursive
 * walk over a nested type, as datatype-walking libraries do, reaches named
 * types at every leaf.
 *
 * MPI 4.0's additions: darray decodes to its arguments; every large-count
 * (_c) constructor builds what its int form builds (size, extents, data
 * moved) and records its MPI_Count arguments as large counts, which only
 * the _c decoders return (the int ones fail with MPI_ERR_TYPE); the f90
 * types are one permanent handle per (p, r), decoded to p and r, usable
 * in messages and reductions, never freed; the large-count queries, pack
 * calls and counts agree with the int forms; values past what the library
 * supports are MPI_ERR_COUNT.
 *
 * A subarray type made again after a free (as ARMCI-MPI does for every
 * strided call, and mpirma then hands back the freed one) is a new type:
 * uncommitted, no name, no attributes, its own elements; a freed type
 * that another type still holds keeps serving that one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define MAXN	32

struct contents {
	int ni, na, nt, combiner;
	int ints[MAXN];
	MPI_Aint aints[MAXN];
	MPI_Datatype types[MAXN];
};

static void decode(MPI_Datatype t, struct contents *c)
{
	memset(c, 0, sizeof(*c));
	CHECK_MPI(MPI_Type_get_envelope(t, &c->ni, &c->na, &c->nt,
					&c->combiner));
	if (c->combiner == MPI_COMBINER_NAMED)
		return;
	CHECK(c->ni <= MAXN && c->na <= MAXN && c->nt <= MAXN,
	      "envelope %d %d %d too large", c->ni, c->na, c->nt);
	CHECK_MPI(MPI_Type_get_contents(t, MAXN, MAXN, MAXN, c->ints,
					c->aints, c->types));
}

/* Frees what decode() returned that the caller owns. */
static void release(struct contents *c)
{
	int i, ni, na, nt, comb;

	for (i = 0; i < c->nt; i++) {
		MPI_Type_get_envelope(c->types[i], &ni, &na, &nt, &comb);
		if (comb != MPI_COMBINER_NAMED)
			CHECK_MPI(MPI_Type_free(&c->types[i]));
	}
}

static void expect(MPI_Datatype t, int combiner, int ni, const int *ints,
		   int na, const MPI_Aint *aints, int nt,
		   const MPI_Datatype *types, const char *what)
{
	struct contents c;
	int i;

	mtest_section(what);
	decode(t, &c);
	CHECK_EQ(c.combiner, combiner, "combiner");
	CHECK_EQ(c.ni, ni, "num_integers");
	CHECK_EQ(c.na, na, "num_addresses");
	CHECK_EQ(c.nt, nt, "num_datatypes");
	for (i = 0; i < ni && i < c.ni; i++)
		CHECK_EQ(c.ints[i], ints[i], "integer argument");
	for (i = 0; i < na && i < c.na; i++)
		CHECK_EQ(c.aints[i], aints[i], "address argument");
	for (i = 0; i < nt && i < c.nt; i++) {
		int s1, s2;
		MPI_Aint lb1, e1, lb2, e2;

		MPI_Type_size(c.types[i], &s1);
		MPI_Type_size(types[i], &s2);
		MPI_Type_get_extent(c.types[i], &lb1, &e1);
		MPI_Type_get_extent(types[i], &lb2, &e2);
		CHECK(s1 == s2 && lb1 == lb2 && e1 == e2, "datatype argument "
		      "%d: size %d lb %ld extent %ld, want %d %ld %ld", i, s1,
		      (long)lb1, (long)e1, s2, (long)lb2, (long)e2);
	}
	release(&c);
}

static void test_constructors(void)
{
	int bl[3] = { 1, 2, 3 }, d[3] = { 0, 4, 10 };
	MPI_Aint ad[3] = { 0, 16, 40 };
	MPI_Datatype t, vec, st[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
	int sizes[2] = { 6, 8 }, subs[2] = { 2, 3 }, starts[2] = { 1, 4 };

	MPI_Type_contiguous(5, MPI_INT, &t);
	expect(t, MPI_COMBINER_CONTIGUOUS, 1, (int[]){ 5 }, 0, NULL, 1,
	       (MPI_Datatype[]){ MPI_INT }, "contiguous");
	MPI_Type_free(&t);

	MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &vec);
	expect(vec, MPI_COMBINER_VECTOR, 3, (int[]){ 3, 2, 5 }, 0, NULL, 1,
	       (MPI_Datatype[]){ MPI_DOUBLE }, "vector");

	MPI_Type_create_hvector(4, 1, 24, vec, &t);
	expect(t, MPI_COMBINER_HVECTOR, 2, (int[]){ 4, 1 }, 1,
	       (MPI_Aint[]){ 24 }, 1, &vec, "hvector of a vector");
	MPI_Type_free(&t);

	MPI_Type_indexed(3, bl, d, MPI_INT, &t);
	expect(t, MPI_COMBINER_INDEXED, 7, (int[]){ 3, 1, 2, 3, 0, 4, 10 }, 0,
	       NULL, 1, (MPI_Datatype[]){ MPI_INT }, "indexed");
	MPI_Type_free(&t);

	MPI_Type_create_hindexed(3, bl, ad, MPI_SHORT, &t);
	expect(t, MPI_COMBINER_HINDEXED, 4, (int[]){ 3, 1, 2, 3 }, 3, ad, 1,
	       (MPI_Datatype[]){ MPI_SHORT }, "hindexed");
	MPI_Type_free(&t);

	MPI_Type_create_indexed_block(3, 2, d, MPI_LONG, &t);
	expect(t, MPI_COMBINER_INDEXED_BLOCK, 5, (int[]){ 3, 2, 0, 4, 10 }, 0,
	       NULL, 1, (MPI_Datatype[]){ MPI_LONG }, "indexed_block");
	MPI_Type_free(&t);

	MPI_Type_create_hindexed_block(3, 2, ad, MPI_FLOAT, &t);
	expect(t, MPI_COMBINER_HINDEXED_BLOCK, 2, (int[]){ 3, 2 }, 3, ad, 1,
	       (MPI_Datatype[]){ MPI_FLOAT }, "hindexed_block");
	MPI_Type_free(&t);

	st[2] = vec;
	MPI_Type_create_struct(3, bl, ad, st, &t);
	expect(t, MPI_COMBINER_STRUCT, 4, (int[]){ 3, 1, 2, 3 }, 3, ad, 3, st,
	       "struct");
	MPI_Type_free(&t);

	MPI_Type_create_resized(vec, -8, 100, &t);
	expect(t, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Aint[]){ -8, 100 }, 1,
	       &vec, "resized");
	MPI_Type_free(&t);

	MPI_Type_dup(vec, &t);
	expect(t, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &vec, "dup");
	MPI_Type_free(&t);

	MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN,
				 MPI_INT, &t);
	expect(t, MPI_COMBINER_SUBARRAY, 8,
	       (int[]){ 2, 6, 8, 2, 3, 1, 4, MPI_ORDER_FORTRAN }, 0, NULL, 1,
	       (MPI_Datatype[]){ MPI_INT }, "subarray");
	MPI_Type_free(&t);

	/* the MPI-1 names decode as their MPI-2 replacements */
	MPI_Type_hvector(2, 3, 64, MPI_INT, &t);
	expect(t, MPI_COMBINER_HVECTOR, 2, (int[]){ 2, 3 }, 1,
	       (MPI_Aint[]){ 64 }, 1, (MPI_Datatype[]){ MPI_INT },
	       "MPI_Type_hvector");
	MPI_Type_free(&t);
	MPI_Type_free(&vec);
}

static void test_named_and_errors(void)
{
	MPI_Datatype named[] = { MPI_INT, MPI_DOUBLE, MPI_BYTE, MPI_2INT,
				 MPI_DOUBLE_INT, MPI_LONG_DOUBLE };
	int ni, na, nt, comb, ints[4];
	MPI_Aint aints[4];
	MPI_Datatype types[4], t;
	size_t i;

	mtest_section("named types and errors");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		CHECK_MPI(MPI_Type_get_envelope(named[i], &ni, &na, &nt,
						&comb));
		CHECK(comb == MPI_COMBINER_NAMED && !ni && !na && !nt,
		      "named type %zu: combiner %d, %d %d %d", i, comb, ni, na,
		      nt);
		CHECK_CLASS(MPI_Type_get_contents(named[i], 4, 4, 4, ints,
						  aints, types), MPI_ERR_TYPE);
	}
	CHECK_CLASS(MPI_Type_get_envelope(MPI_DATATYPE_NULL, &ni, &na, &nt,
					  &comb), MPI_ERR_TYPE);
	MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &t);
	CHECK_CLASS(MPI_Type_get_contents(t, 2, 0, 1, ints, aints, types),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Type_get_contents(t, 3, 0, 0, ints, aints, types),
		    MPI_ERR_ARG);
	MPI_Type_free(&t);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A returned derived handle outlives the original and its parent. */
static void test_ownership(void)
{
	MPI_Datatype vec, outer, got;
	struct contents c;
	int size;

	mtest_section("returned handles");
	MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
	MPI_Type_contiguous(4, vec, &outer);
	MPI_Type_free(&vec);
	decode(outer, &c);
	CHECK_EQ(c.nt, 1, "num_datatypes");
	got = c.types[0];
	MPI_Type_free(&outer);
	CHECK_MPI(MPI_Type_size(got, &size));
	CHECK_EQ(size, 2 * sizeof(int), "size of the decoded vector");
	CHECK_MPI(MPI_Type_commit(&got));
	CHECK_MPI(MPI_Type_free(&got));
}

/* Counts the named leaves of @t, walking as a datatype library would. */
static int walk(MPI_Datatype t, int depth)
{
	struct contents c;
	int i, leaves = 0;

	decode(t, &c);
	if (c.combiner == MPI_COMBINER_NAMED)
		return 1;
	CHECK(depth < 10, "decoding does not end");
	for (i = 0; i < c.nt && depth < 10; i++)
		leaves += walk(c.types[i], depth + 1);
	release(&c);
	return leaves;
}

static void test_walk(void)
{
	MPI_Datatype a, b, s, r, types[2];
	int bl[2] = { 1, 1 };
	MPI_Aint d[2] = { 0, 64 };

	mtest_section("recursive walk");
	MPI_Type_vector(2, 1, 2, MPI_INT, &a);
	MPI_Type_create_resized(a, 0, 32, &b);
	types[0] = b;
	types[1] = MPI_DOUBLE;
	MPI_Type_create_struct(2, bl, d, types, &s);
	MPI_Type_dup(s, &r);
	CHECK_EQ(walk(r, 0), 2, "named leaves of dup(struct(resized(vector)"
		 ", double))");
	MPI_Type_free(&a);
	MPI_Type_free(&b);
	MPI_Type_free(&s);
	MPI_Type_free(&r);
}

/* ------------------------------------------------------------ MPI 4.0 */

static void test_darray(void)
{
	int g[2] = { 4, 6 }, di[2] = { MPI_DISTRIBUTE_BLOCK,
				       MPI_DISTRIBUTE_CYCLIC };
	int da[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[2] = { 2, 2 };
	MPI_Datatype t;

	MPI_Type_create_darray(4, 3, 2, g, di, da, ps, MPI_ORDER_FORTRAN,
			       MPI_DOUBLE, &t);
	expect(t, MPI_COMBINER_DARRAY, 12,
	       (int[]){ 4, 3, 2, 4, 6, MPI_DISTRIBUTE_BLOCK,
			MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 2, 2,
			2, MPI_ORDER_FORTRAN }, 0, NULL, 1,
	       (MPI_Datatype[]){ MPI_DOUBLE }, "darray");
	MPI_Type_free(&t);
}

/* A _c-built type and its int twin: one envelope, the same data. */
struct ltest {
	const char *name;
	MPI_Datatype c, i;
	int combiner, ni, nc, na;
	MPI_Count counts[12];
};

static void large_case(struct ltest *l)
{
	MPI_Count ni, na, nc, nt, cnt[12], s1, s2, lb1, lb2, e1, e2;
	int comb, ints[12], n1, n2, n3, c2;
	MPI_Aint aints[12];
	MPI_Datatype types[4];

	mtest_section(l->name);
	CHECK_MPI(MPI_Type_get_envelope_c(l->c, &ni, &na, &nc, &nt, &comb));
	CHECK(comb == l->combiner && ni == l->ni && na == l->na &&
	      nc == l->nc && nt == (comb == MPI_COMBINER_STRUCT ? 3 : 1),
	      "envelope_c %d %lld %lld %lld %lld",
	      comb, (long long)ni, (long long)na, (long long)nc,
	      (long long)nt);
	CHECK_MPI(MPI_Type_get_contents_c(l->c, 12, 12, 12, 4, ints, aints,
					  cnt, types));
	for (n1 = 0; n1 < nc && n1 < 12; n1++)
		CHECK_EQ(cnt[n1], l->counts[n1], "large count argument");
	if (nt == 1 && types[0] != MPI_INT)
		MPI_Type_free(&types[0]);
	CHECK_CLASS(MPI_Type_get_envelope(l->c, &n1, &n2, &n3, &comb),
		    MPI_ERR_TYPE);
	CHECK_CLASS(MPI_Type_get_contents(l->c, 12, 12, 4, ints, aints,
					  types), MPI_ERR_TYPE);
	/* the int twin decodes through the _c call too, without counts */
	CHECK_MPI(MPI_Type_get_envelope_c(l->i, &ni, &na, &nc, &nt, &c2));
	CHECK(c2 == comb && nc == 0, "int form: combiner %d, %lld counts",
	      c2, (long long)nc);
	CHECK_MPI(MPI_Type_size_c(l->c, &s1));
	CHECK_MPI(MPI_Type_size_x(l->i, &s2));
	CHECK_EQ(s1, s2, "size");
	CHECK_MPI(MPI_Type_get_extent_c(l->c, &lb1, &e1));
	CHECK_MPI(MPI_Type_get_extent_x(l->i, &lb2, &e2));
	CHECK(lb1 == lb2 && e1 == e2, "extent %lld %lld, want %lld %lld",
	      (long long)lb1, (long long)e1, (long long)lb2, (long long)e2);
	CHECK_MPI(MPI_Type_get_true_extent_c(l->c, &lb1, &e1));
	CHECK_MPI(MPI_Type_get_true_extent_x(l->i, &lb2, &e2));
	CHECK(lb1 == lb2 && e1 == e2, "true extent");
	{	/* the same ints moved: packed by one, unpacked by the other */
		int src[64], a[64], b[64], k;
		char pk[256];
		MPI_Count pos = 0;

		for (k = 0; k < 64; k++) {
			src[k] = k + 1;
			a[k] = b[k] = 0;
		}
		MPI_Type_commit(&l->c);
		MPI_Type_commit(&l->i);
		CHECK_MPI(MPI_Pack_c(src, 1, l->c, pk, sizeof(pk), &pos,
				     MPI_COMM_WORLD));
		CHECK_EQ(pos, s2, "MPI_Pack_c position");
		pos = 0;
		CHECK_MPI(MPI_Unpack_c(pk, sizeof(pk), &pos, a, 1, l->i,
				       MPI_COMM_WORLD));
		CHECK_MPI(MPI_Sendrecv(src, 1, l->i, 0, 0, b, 1, l->c, 0, 0,
				       MPI_COMM_SELF, MPI_STATUS_IGNORE));
		CHECK(!memcmp(a, b, sizeof(a)), "%s: data moved differs",
		      l->name);
	}
	MPI_Type_free(&l->c);
	MPI_Type_free(&l->i);
}

static void test_large_ctors(void)
{
	static const int bli[3] = { 2, 1, 3 }, dii[3] = { 5, 0, 9 };
	static const MPI_Count blc[3] = { 2, 1, 3 }, dic[3] = { 5, 0, 9 };
	static const MPI_Aint dia[3] = { 20, 0, 36 };
	static const MPI_Count dbc[3] = { 20, 0, 36 };
	static const int sz[2] = { 4, 5 }, sub[2] = { 2, 3 }, st[2] = { 1, 1 };
	static const MPI_Count szc[2] = { 4, 5 }, subc[2] = { 2, 3 },
			       stc[2] = { 1, 1 };
	MPI_Datatype ty3[3] = { MPI_INT, MPI_INT, MPI_INT };
	struct ltest l[] = {
		{ "contiguous_c", 0, 0, MPI_COMBINER_CONTIGUOUS, 0, 1, 0,
		  { 3 } },
		{ "vector_c", 0, 0, MPI_COMBINER_VECTOR, 0, 3, 0, { 3, 2, 4 } },
		{ "hvector_c", 0, 0, MPI_COMBINER_HVECTOR, 0, 3, 0,
		  { 2, 3, 28 } },
		{ "indexed_c", 0, 0, MPI_COMBINER_INDEXED, 0, 7, 0,
		  { 3, 2, 1, 3, 5, 0, 9 } },
		{ "hindexed_c", 0, 0, MPI_COMBINER_HINDEXED, 0, 7, 0,
		  { 3, 2, 1, 3, 20, 0, 36 } },
		{ "indexed_block_c", 0, 0, MPI_COMBINER_INDEXED_BLOCK, 0, 5, 0,
		  { 3, 2, 5, 0, 9 } },
		{ "hindexed_block_c", 0, 0, MPI_COMBINER_HINDEXED_BLOCK, 0, 5,
		  0, { 3, 2, 20, 0, 36 } },
		{ "struct_c", 0, 0, MPI_COMBINER_STRUCT, 0, 7, 0,
		  { 3, 2, 1, 3, 20, 0, 36 } },
		{ "subarray_c", 0, 0, MPI_COMBINER_SUBARRAY, 2, 6, 0,
		  { 4, 5, 2, 3, 1, 1 } },
		{ "darray_c", 0, 0, MPI_COMBINER_DARRAY, 10, 2, 0, { 4, 6 } },
		{ "resized_c", 0, 0, MPI_COMBINER_RESIZED, 0, 2, 0, { -4, 32 } },
	};
	int di[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
	    da[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG },
	    ps[2] = { 2, 2 };
	size_t k;

	MPI_Type_contiguous_c(3, MPI_INT, &l[0].c);
	MPI_Type_contiguous(3, MPI_INT, &l[0].i);
	MPI_Type_vector_c(3, 2, 4, MPI_INT, &l[1].c);
	MPI_Type_vector(3, 2, 4, MPI_INT, &l[1].i);
	MPI_Type_create_hvector_c(2, 3, 28, MPI_INT, &l[2].c);
	MPI_Type_create_hvector(2, 3, 28, MPI_INT, &l[2].i);
	MPI_Type_indexed_c(3, blc, dic, MPI_INT, &l[3].c);
	MPI_Type_indexed(3, bli, dii, MPI_INT, &l[3].i);
	MPI_Type_create_hindexed_c(3, blc, dbc, MPI_INT, &l[4].c);
	MPI_Type_create_hindexed(3, bli, dia, MPI_INT, &l[4].i);
	MPI_Type_create_indexed_block_c(3, 2, dic, MPI_INT, &l[5].c);
	MPI_Type_create_indexed_block(3, 2, dii, MPI_INT, &l[5].i);
	MPI_Type_create_hindexed_block_c(3, 2, dbc, MPI_INT, &l[6].c);
	MPI_Type_create_hindexed_block(3, 2, dia, MPI_INT, &l[6].i);
	MPI_Type_create_struct_c(3, blc, dbc, ty3, &l[7].c);
	MPI_Type_create_struct(3, bli, dia, ty3, &l[7].i);
	MPI_Type_create_subarray_c(2, szc, subc, stc, MPI_ORDER_C, MPI_INT,
				   &l[8].c);
	MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT,
				 &l[8].i);
	MPI_Type_create_darray_c(4, 1, 2, (MPI_Count[]){ 4, 6 }, di, da, ps,
				 MPI_ORDER_C, MPI_INT, &l[9].c);
	MPI_Type_create_darray(4, 1, 2, (int[]){ 4, 6 }, di, da, ps,
			       MPI_ORDER_C, MPI_INT, &l[9].i);
	MPI_Type_create_resized_c(MPI_INT, -4, 32, &l[10].c);
	MPI_Type_create_resized(MPI_INT, -4, 32, &l[10].i);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (k = 0; k < sizeof(l) / sizeof(l[0]); k++)
		large_case(&l[k]);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* One f90 type: its size, decoding, and use. */
static void f90_case(int rc, MPI_Datatype t, int combiner, int ni,
		     int i0, int i1, int size)
{
	int n1, n2, n3, comb, ints[2], sz;
	double in[4] = { 1, 2, 3, 4 }, out[4] = { 0 };
	MPI_Datatype again;

	CHECK(rc == MPI_SUCCESS, "f90 type: %s",
	      mtest_class_name(mtest_class(rc)));
	if (rc)
		return;
	CHECK_MPI(MPI_Type_get_envelope(t, &n1, &n2, &n3, &comb));
	CHECK(comb == combiner && n1 == ni && !n2 && !n3,
	      "envelope %d %d %d %d", comb, n1, n2, n3);
	CHECK_MPI(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
	CHECK(ints[0] == i0 && (ni < 2 || ints[1] == i1), "contents %d %d",
	      ints[0], ints[1]);
	CHECK_MPI(MPI_Type_size(t, &sz));
	CHECK_EQ(sz, size, "size");
	CHECK_MPI(MPI_Sendrecv(in, 2, t, 0, 0, out, 2, t, 0, 0, MPI_COMM_SELF,
			       MPI_STATUS_IGNORE));
	CHECK(!memcmp(in, out, 2 * size), "sent and received");
	CHECK_MPI(MPI_Reduce_local(in, out, 2, t, MPI_SUM));
	CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
	/* a dup decodes to the very handle */
	CHECK_MPI(MPI_Type_dup(t, &again));
	CHECK_MPI(MPI_Type_get_contents(again, 0, 0, 1, NULL, NULL, &t));
	CHECK_MPI(MPI_Type_free(&again));
}

static void test_f90(void)
{
	MPI_Datatype t, t2;
	int rc, size;
	char name[MPI_MAX_OBJECT_NAME];

	mtest_section("f90 types");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t);
	f90_case(rc, t, MPI_COMBINER_F90_REAL, 2, 6, MPI_UNDEFINED, 4);
	CHECK_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t2));
	CHECK_EQ(t2, t, "the same (p, r), the same handle");
	rc = MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &t);
	f90_case(rc, t, MPI_COMBINER_F90_REAL, 2, MPI_UNDEFINED, 300, 8);
	rc = MPI_Type_create_f90_complex(15, 307, &t);
	f90_case(rc, t, MPI_COMBINER_F90_COMPLEX, 2, 15, 307, 16);
	rc = MPI_Type_create_f90_complex(3, MPI_UNDEFINED, &t);
	f90_case(rc, t, MPI_COMBINER_F90_COMPLEX, 2, 3, MPI_UNDEFINED, 8);
	rc = MPI_Type_create_f90_integer(9, &t);
	f90_case(rc, t, MPI_COMBINER_F90_INTEGER, 1, 9, 0, 4);
	rc = MPI_Type_create_f90_integer(18, &t);
	f90_case(rc, t, MPI_COMBINER_F90_INTEGER, 1, 18, 0, 8);
	CHECK_CLASS(MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Type_create_f90_real(16, MPI_UNDEFINED, &t),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Type_create_f90_complex(MPI_UNDEFINED, MPI_UNDEFINED,
						&t), MPI_ERR_ARG);
	/* the Fortran sized complex types */
	CHECK_MPI(MPI_Type_size(MPI_COMPLEX8, &size));
	CHECK_EQ(size, 8, "MPI_COMPLEX8");
	CHECK_MPI(MPI_Type_size(MPI_COMPLEX16, &size));
	CHECK_EQ(size, 16, "MPI_COMPLEX16");
	CHECK_MPI(MPI_Type_get_name(MPI_COMPLEX16, name, &size));
	CHECK(!strcmp(name, "MPI_COMPLEX16"), "name %s", name);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* The large-count queries and pack calls against the int ones; limits. */
static void test_large_calls(void)
{
	const MPI_Count big = (MPI_Count)1 << 40;
	int buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, got[8], n;
	unsigned char x[64];
	MPI_Count c, pos = 0, bl[1] = { 1 }, d[1] = { 0 };
	MPI_Aint apos = 0;
	MPI_Datatype t;
	MPI_Status st;

	mtest_section("large-count calls");
	CHECK_MPI(MPI_Sendrecv(buf, 7, MPI_INT, 0, 0, got, 8, MPI_INT, 0, 0,
			       MPI_COMM_SELF, &st));
	CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &c));
	CHECK_EQ(c, 7, "MPI_Get_count_c");
	CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &c));
	CHECK_EQ(c, MPI_UNDEFINED, "MPI_Get_count_c of 3.5 doubles");
	CHECK_MPI(MPI_Get_elements_c(&st, MPI_2INT, &c));
	CHECK_EQ(c, 7, "MPI_Get_elements_c");
	CHECK_MPI(MPI_Pack_size_c(5, MPI_INT, MPI_COMM_WORLD, &c));
	CHECK_EQ(c, 20, "MPI_Pack_size_c");
	CHECK_MPI(MPI_Pack_external_size_c("external32", 3, MPI_LONG, &c));
	CHECK_EQ(c, 12, "MPI_Pack_external_size_c of MPI_LONG");
	CHECK_MPI(MPI_Pack_external_c("external32", buf, 2, MPI_INT, x,
				      sizeof(x), &pos));
	CHECK(pos == 8 && x[3] == 1 && x[7] == 2, "MPI_Pack_external_c");
	memset(got, 0, sizeof(got));
	CHECK_MPI(MPI_Unpack_external("external32", x, 8, &apos, got, 2,
				      MPI_INT));
	CHECK(apos == 8 && got[0] == 1 && got[1] == 2, "unpacked");
	pos = 0;
	CHECK_MPI(MPI_Unpack_external_c("external32", x, 8, &pos, got, 2,
					MPI_INT));
	CHECK(pos == 8 && got[1] == 2, "MPI_Unpack_external_c");

	/* more than an int holds: the int queries say MPI_UNDEFINED */
	CHECK_MPI(MPI_Type_contiguous_c(big, MPI_INT, &t));
	CHECK_MPI(MPI_Type_size_c(t, &c));
	CHECK_EQ(c, 4 * big, "MPI_Type_size_c of 2^40 ints");
	CHECK_MPI(MPI_Type_size(t, &n));
	CHECK_EQ(n, MPI_UNDEFINED, "MPI_Type_size of 2^40 ints");
	MPI_Type_free(&t);

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Type_contiguous_c((MPI_Count)1 << 61, MPI_INT, &t),
		    MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Type_vector_c(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Type_indexed_c((MPI_Count)INT32_MAX + 1, bl, d,
				       MPI_INT, &t), MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Pack_size_c((MPI_Count)1 << 61, MPI_INT,
				    MPI_COMM_WORLD, &c), MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Type_create_darray(4, 0, 1, (int[]){ 8 },
					   (int[]){ MPI_DISTRIBUTE_BLOCK },
					   (int[]){ 1 }, (int[]){ 4 },
					   MPI_ORDER_C, MPI_INT, &t),
		    MPI_ERR_ARG);	/* 4 blocks of 1 do not cover 8 */
	CHECK_CLASS(MPI_Type_create_darray(4, 0, 1, (int[]){ 8 },
					   (int[]){ MPI_DISTRIBUTE_BLOCK },
					   (int[]){ MPI_DISTRIBUTE_DFLT_DARG },
					   (int[]){ 3 }, MPI_ORDER_C, MPI_INT,
					   &t), MPI_ERR_ARG);	/* 3 != 4 */
	CHECK_CLASS(MPI_Type_create_darray(2, 2, 1, (int[]){ 8 },
					   (int[]){ MPI_DISTRIBUTE_CYCLIC },
					   (int[]){ 1 }, (int[]){ 2 },
					   MPI_ORDER_C, MPI_INT, &t),
		    MPI_ERR_ARG);	/* rank 2 of 2 */
	CHECK_CLASS(MPI_Type_create_darray(2, 0, 1, (int[]){ 8 },
					   (int[]){ MPI_DISTRIBUTE_NONE },
					   (int[]){ 1 }, (int[]){ 2 },
					   MPI_ORDER_C, MPI_INT, &t),
		    MPI_ERR_ARG);	/* NONE over 2 processes */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* The ints MPI_Pack takes from 0..19 through @t (count 1), in *@n. */
static void pack_ints(MPI_Datatype t, int *out, int *n)
{
	int src[40], pos = 0, i;

	for (i = 0; i < 40; i++)
		src[i] = i;
	CHECK_MPI(MPI_Pack(src, 1, t, out, 40 * sizeof(int), &pos,
			   MPI_COMM_WORLD));
	*n = pos / (int)sizeof(int);
}

static int deletes;

static int count_delete(MPI_Datatype t, int key, void *val, void *extra)
{
	(void)t, (void)key, (void)val, (void)extra;
	deletes++;
	return MPI_SUCCESS;
}

/* subarray 4x5 of MPI_INT, 2x3 from (@r, @c) */
static MPI_Datatype sub45(int r, int c)
{
	int sizes[2] = { 4, 5 }, subs[2] = { 2, 3 }, starts[2] = { r, c };
	MPI_Datatype t = MPI_DATATYPE_NULL;

	CHECK_MPI(MPI_Type_create_subarray(2, sizes, subs, starts,
					   MPI_ORDER_C, MPI_INT, &t));
	return t;
}

static void test_made_again(void)
{
	char name[MPI_MAX_OBJECT_NAME];
	int got[40], n, key, flag, len, ni, na, nt, comb, k;
	MPI_Count szc[2] = { 4, 5 }, subc[2] = { 2, 3 }, stc[2] = { 1, 1 };
	MPI_Count cni, cna, cnc, cnt;
	MPI_Datatype t, u, pair, many[10];
	void *val;

	mtest_section("subarray made again");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_delete,
					 &key, NULL));
	t = sub45(1, 1);
	CHECK_MPI(MPI_Type_commit(&t));
	CHECK_MPI(MPI_Type_set_name(t, "first"));
	CHECK_MPI(MPI_Type_set_attr(t, key, &flag));
	CHECK_MPI(MPI_Type_free(&t));
	CHECK_EQ(deletes, 1, "attribute deleted at the free");

	t = sub45(1, 1);
	CHECK_MPI(MPI_Type_get_name(t, name, &len));
	CHECK_EQ(len, 0, "name of the type made again");
	CHECK_MPI(MPI_Type_get_attr(t, key, &val, &flag));
	CHECK_EQ(flag, 0, "attribute on the type made again");
	n = 0;
	CHECK_CLASS(MPI_Pack(got, 1, t, got, sizeof(got), &n, MPI_COMM_WORLD),
		    MPI_ERR_TYPE);
	CHECK_MPI(MPI_Type_commit(&t));
	pack_ints(t, got, &n);
	CHECK(n == 6 && got[0] == 6 && got[2] == 8 && got[3] == 11 &&
	      got[5] == 13, "made again: %d ints from %d", n, got[0]);
	CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
	CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && nt == 1,
	      "made again: combiner %d, %d ints", comb, ni);
	CHECK_MPI(MPI_Type_free(&t));

	/* other starts are another type */
	t = sub45(2, 2);
	CHECK_MPI(MPI_Type_commit(&t));
	pack_ints(t, got, &n);
	CHECK(n == 6 && got[0] == 12 && got[5] == 19, "starts 2,2: %d ints "
	      "from %d to %d", n, got[0], got[n > 0 ? n - 1 : 0]);
	CHECK_MPI(MPI_Type_free(&t));

	/* the large-count form records MPI_Counts: not the int form's type */
	t = sub45(1, 1);
	CHECK_MPI(MPI_Type_free(&t));
	CHECK_MPI(MPI_Type_create_subarray_c(2, szc, subc, stc, MPI_ORDER_C,
					     MPI_INT, &t));
	CHECK_MPI(MPI_Type_get_envelope_c(t, &cni, &cna, &cnc, &cnt, &comb));
	CHECK(cni == 2 && cnc == 6, "_c form: %lld ints, %lld counts",
	      (long long)cni, (long long)cnc);
	CHECK_MPI(MPI_Type_free(&t));

	/* freed while a pair of it holds it: the pair keeps its elements */
	t = sub45(1, 1);
	CHECK_MPI(MPI_Type_contiguous(2, t, &pair));
	CHECK_MPI(MPI_Type_commit(&pair));
	CHECK_MPI(MPI_Type_free(&t));
	u = sub45(0, 0);
	CHECK_MPI(MPI_Type_commit(&u));
	CHECK_MPI(MPI_Type_free(&u));
	pack_ints(pair, got, &n);
	CHECK(n == 12 && got[0] == 6 && got[6] == 26, "pair after the "
	      "free: %d ints, %d and %d", n, got[0], got[6]);
	CHECK_MPI(MPI_Type_free(&pair));

	/* more freed than are kept, then the first again */
	for (k = 0; k < 10; k++) {
		many[k] = sub45(k % 3, k % 3);
		CHECK_MPI(MPI_Type_commit(&many[k]));
	}
	for (k = 0; k < 10; k++)
		CHECK_MPI(MPI_Type_free(&many[k]));
	t = sub45(0, 0);
	CHECK_MPI(MPI_Type_commit(&t));
	pack_ints(t, got, &n);
	CHECK(n == 6 && got[0] == 0 && got[5] == 7, "after many: %d ints "
	      "from %d", n, got[0]);
	CHECK_MPI(MPI_Type_free(&t));
	CHECK_MPI(MPI_Type_free_keyval(&key));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	static const mtest_fn tests[] = {
		test_constructors, test_named_and_errors, test_ownership,
		test_walk, test_darray, test_large_ctors, test_f90,
		test_large_calls, test_made_again, NULL,
	};

	return mtest_run(&argc, &argv, "typedecode", tests);
}
