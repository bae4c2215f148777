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
 */
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

int main(int argc, char **argv)
{
	static const mtest_fn tests[] = {
		test_constructors, test_named_and_errors, test_ownership,
		test_walk, NULL,
	};

	return mtest_run(&argc, &argv, "typedecode", tests);
}
