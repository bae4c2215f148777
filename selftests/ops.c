// SPDX-License-Identifier: GPL-2.0
/*
 * Every RMA operation kind on every element type and op, against the
 * independent reference (selftests/lib/reference.c), bit for bit:
 * ACC and GET_ACC for every op x type pair (disallowed pairs must be
 * EOPNOTSUPP and leave the target alone), PUT/GET on every type, CAS on
 * every type.  Each is done at an aligned displacement and at an odd one
 * whose elements straddle a page boundary (disp_unit 1), with misaligned
 * origin and result buffers.  Large counts exercise the kernel's chunking,
 * single elements its fast path.
 * The per-op validation errors are checked here too.
 *
 * A one-rank job targets itself; the window is USER (the test's own
 * memory) or ALLOC (read through mmap), under every atomicity strategy
 * (MT_FOR_EACH_STRATEGY): one suite, whose variants are flavor_strategy,
 * so each strategy must compute exactly what the reference computes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"
#include "reference.h"

#define WIN_LEN		((1UL << 20) + 3 * 4096)
#define MAX_ELEMS	6000	/* per op x type case */
#define REFUSED_ELEMS	64	/* ... of a case the op/type table refuses */
#define GUARD		32	/* bytes around the target checked unchanged */
#define GUARD_BYTE	0x6b

FIXTURE(ops) {
	struct mt_solo s;	/* the window, mapped */
	size_t page;
	uint8_t *tgt, *src, *res, *want, *orig;	/* scratch, WIN_LEN each */
};

MT_FLAVOR_STRATEGY_VARIANTS(ops, 0)

FIXTURE_SETUP(ops)
{
	mt_solo_init(&self->s);
	MT_REQUIRE_DEVICE();
	self->page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, mt_solo_open_strategy(&self->s, variant->flavor,
					   variant->strategy, WIN_LEN));
	self->tgt = mt_anon(WIN_LEN);
	self->src = mt_anon(WIN_LEN + 16);
	self->res = mt_anon(WIN_LEN + 16);
	self->want = mt_anon(WIN_LEN);
	self->orig = mt_anon(WIN_LEN);
	ASSERT_TRUE(self->tgt && self->src && self->res && self->want &&
		    self->orig);
}

FIXTURE_TEARDOWN(ops)
{
	mt_solo_close(&self->s);
}

/* Displacements: aligned, and odd so that the elements cross a page. */
static uint64_t case_disp(size_t page, unsigned int i, size_t n, size_t size)
{
	uint64_t d;

	if (i == 0)
		return 0;
	d = n * size / 2;
	d = d < page ? page - d : 0;
	return d | 3;
}

static void set_guards(uint8_t *mem, uint64_t disp, size_t len)
{
	memset(mem + disp - (disp < GUARD ? disp : GUARD), GUARD_BYTE,
	       disp < GUARD ? disp : GUARD);
	memset(mem + disp + len, GUARD_BYTE, GUARD);
}

static bool guards_ok(const uint8_t *mem, uint64_t disp, size_t len)
{
	size_t before = disp < GUARD ? disp : GUARD, i;

	for (i = 0; i < before; i++)
		if (mem[disp - before + i] != GUARD_BYTE)
			return false;
	for (i = 0; i < GUARD; i++)
		if (mem[disp + len + i] != GUARD_BYTE)
			return false;
	return true;
}

/* Count and describe the first wrong element of @got against @want. */
static size_t check_elems(struct __test_metadata *_metadata, const char *what,
			  unsigned int type, unsigned int op, const uint8_t *got,
			  const uint8_t *want, const uint8_t *orig,
			  const uint8_t *src, size_t n, bool bits)
{
	size_t size = ref_type_size(type), k, bad = 0;
	char b[4][128];

	for (k = 0; k < n; k++) {
		const uint8_t *g = got + k * size, *w = want + k * size;
		bool ok = bits ? ref_same_bits(type, g, w) :
			  ref_result_ok(type, op, g, w, orig + k * size,
					src + k * size);

		if (ok)
			continue;
		if (!bad++)
			TH_LOG("%s %s %s: element %zu of %zu: target %s source %s: got %s, expected %s",
			       what, ref_op_name(op), ref_type_name(type), k, n,
			       ref_format(type, orig + k * size, b[0], 128),
			       src ? ref_format(type, src + k * size, b[1], 128) : "-",
			       ref_format(type, g, b[2], 128),
			       ref_format(type, w, b[3], 128));
	}
	return bad;
}

/*
 * One accumulate-like case: (kind, type, op) on n elements at disp (n 0:
 * the type's default count).  Returns true when the pair was allowed.
 */
static bool acc_case(struct __test_metadata *_metadata,
		     FIXTURE_DATA(ops) *self, unsigned int kind,
		     unsigned int type, unsigned int op, unsigned int dcase,
		     size_t n, uint64_t *seed)
{
	size_t size = ref_type_size(type);
	size_t len;
	uint64_t disp;
	uint8_t *src = self->src + dcase, *res = self->res + 2 * dcase;
	bool allowed = ref_op_allowed(op, type) &&
		       !(kind == MPIRMA_KIND_ACC && op == MPIRMA_OP_NO_OP);

	if (!n)
		n = ref_pairs_count(type, 40, MAX_ELEMS);
	/*
	 * A refusal is the call's, whatever its count: a short one (the
	 * pairs' 6000 elements under ops the table forbids were half of
	 * the test's time in the VM).
	 */
	if (!allowed && n > REFUSED_ELEMS)
		n = REFUSED_ELEMS;
	len = n * size;
	disp = case_disp(self->page, dcase, n, size);
	struct mpirma_op o;
	int ret;

	ref_fill_pairs(type, self->tgt, src, n, seed, 0x5a, 0xa5);
	memcpy(self->orig, self->tgt, len);
	memcpy(self->want, self->tgt, len);
	if (allowed)
		ref_reduce(type, op, self->want, src, NULL, n);
	memcpy(self->s.mem + disp, self->tgt, len);
	set_guards(self->s.mem, disp, len);
	memset(res, 0x3c, len);

	if (kind == MPIRMA_KIND_ACC)
		o = mt_acc(type, op, 0, disp, src, n);
	else
		o = mt_get_acc(type, op, 0, disp,
			       op == MPIRMA_OP_NO_OP ? NULL : src, res, n);
	ret = mt_rma1(self->s.mfd, self->s.win, &o);

	if (!allowed) {
		if (ret != -EOPNOTSUPP)
			TH_LOG("%s %s %s: status %d, expected EOPNOTSUPP",
			       ref_kind_name(kind), ref_op_name(op),
			       ref_type_name(type), ret);
		EXPECT_EQ(-EOPNOTSUPP, ret);
		EXPECT_EQ(0, memcmp(self->s.mem + disp, self->orig, len));
		return false;
	}
	if (ret)
		TH_LOG("%s %s %s at disp %llu: status %d (%s)",
		       ref_kind_name(kind), ref_op_name(op), ref_type_name(type),
		       (unsigned long long)disp, ret, strerror(-ret));
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, check_elems(_metadata, ref_kind_name(kind), type, op,
				 self->s.mem + disp, self->want, self->orig, src,
				 n, false));
	if (kind == MPIRMA_KIND_GET_ACC)
		EXPECT_EQ(0, check_elems(_metadata, "GET_ACC result", type, op,
					 res, self->orig, self->orig, NULL, n,
					 true));
	EXPECT_TRUE(guards_ok(self->s.mem, disp, len));
	return true;
}

/* Every op x type pair of @kind, on @n elements (0: the default count). */
static void all_pairs(struct __test_metadata *_metadata,
		      FIXTURE_DATA(ops) *self, unsigned int kind, size_t n)
{
	unsigned int type, op, dcase, allowed = 0, refused = 0;
	uint64_t seed = 42 + kind;

	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		for (op = 0; op < MPIRMA_NR_OPS; op++) {
			bool ok = false;

			for (dcase = 0; dcase < 2; dcase++)
				ok = acc_case(_metadata, self, kind, type, op,
					      dcase, n, &seed);
			if (ok)
				allowed++;
			else
				refused++;
		}
	}
	ksft_print_msg("%s: %u op x type pairs covered (%u allowed, %u refused)\n",
		       ref_kind_name(kind), allowed + refused, allowed, refused);
}

TEST_F_TIMEOUT(ops, acc_all_pairs, 120)
{
	MT_SETUP_SKIPPED();
	all_pairs(_metadata, self, MPIRMA_KIND_ACC, 0);
}

TEST_F_TIMEOUT(ops, get_acc_all_pairs, 120)
{
	MT_SETUP_SKIPPED();
	all_pairs(_metadata, self, MPIRMA_KIND_GET_ACC, 0);
}

/*
 * One element: the kernel's single-element fast path (kmod/rma.c,
 * rma_element()) and, under native, the one-instruction updates of
 * integers, whose 1- and 2-byte bitwise ops act on the whole 4-byte word
 * around the element: the guards around it must not change.
 */
TEST_F_TIMEOUT(ops, one_element_all_pairs, 120)
{
	MT_SETUP_SKIPPED();
	all_pairs(_metadata, self, MPIRMA_KIND_ACC, 1);
	all_pairs(_metadata, self, MPIRMA_KIND_GET_ACC, 1);
}

TEST_F(ops, put_get_all_types)
{
	unsigned int type, dcase;
	uint64_t seed = 7;

	MT_SETUP_SKIPPED();
	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		for (dcase = 0; dcase < 2; dcase++) {
			size_t size = ref_type_size(type);
			size_t n = ref_pairs_count(type, 40, MAX_ELEMS);
			size_t len = n * size;
			uint64_t disp = case_disp(self->page, dcase, n, size);
			uint8_t *src = self->src + dcase;
			uint8_t *res = self->res + 2 * dcase;
			struct mpirma_op o;

			ref_fill_pairs(type, self->tgt, src, n, &seed, 0x5a, 0xa5);
			memcpy(self->s.mem + disp, self->tgt, len);
			set_guards(self->s.mem, disp, len);

			o = mt_put(type, 0, disp, src, n);
			ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &o));
			/* a PUT is REPLACE without atomicity: same bits */
			memcpy(self->want, src, len);
			EXPECT_EQ(0, check_elems(_metadata, "PUT", type,
						 MPIRMA_OP_REPLACE,
						 self->s.mem + disp, self->want,
						 self->tgt, src, n, false));
			EXPECT_TRUE(guards_ok(self->s.mem, disp, len));

			memset(res, 0x3c, len);
			o = mt_get(type, 0, disp, res, n);
			ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &o));
			EXPECT_EQ(0, check_elems(_metadata, "GET", type, 0, res,
						 self->s.mem + disp, NULL, NULL, n,
						 true));
			EXPECT_TRUE(guards_ok(self->s.mem, disp, len));
		}
	}
}

/*
 * CAS on every type at two displacements: naturally aligned (the native
 * strategy's cmpxchg path) and odd, across a page (its lock fallback, and
 * two pages' owners under delegation).
 */
TEST_F(ops, cas_all_types)
{
	unsigned int type, dcase, covered = 0;
	uint64_t seed = 99;

	MT_SETUP_SKIPPED();
	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		size_t size = ref_type_size(type), ni = ref_ninteresting(type);
		uint8_t cur[32], nv[32], cmp[32], old[33], exp_t[32], exp_o[32];
		size_t a, b;

		if (!ref_cas_allowed(type)) {
			struct mpirma_op o;

			memset(cur, 0, sizeof(cur));
			memcpy(self->s.mem + self->page - size, cur, size);
			o = mt_cas(type, 0, self->page - size, cur, cur, old);
			EXPECT_EQ(-EOPNOTSUPP, mt_rma1(self->s.mfd, self->s.win, &o));
			covered++;
			continue;
		}
		for (dcase = 0; dcase < 2; dcase++) {
			/* the page is size-aligned; odd may cross into the next */
			uint64_t disp = dcase ? self->page - size / 2 - 1 :
					self->page - size;

			for (a = 0; a < ni + 2; a++) {
				for (b = 0; b < ni + 2; b++) {
					struct mpirma_op o;

					ref_value(type, a, &seed, cur);
					ref_value(type, b, &seed, nv);
					if ((a + b) & 1)
						memcpy(cmp, cur, size);	/* swaps */
					else
						ref_value(type, (a * 3 + b) % (ni + 2),
							  &seed, cmp);
					memcpy(exp_t, cur, size);
					ref_cas(type, exp_t, nv, cmp, exp_o);

					memcpy(self->s.mem + disp, cur, size);
					memset(old, 0x3c, sizeof(old));
					/* misaligned origin, compare and result */
					o = mt_cas(type, 0, disp, nv, cmp, old + 1);
					ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &o));
					if (memcmp(self->s.mem + disp, exp_t, size) ||
					    memcmp(old + 1, exp_o, size)) {
						char b1[64], b2[64], b3[64];

						TH_LOG("CAS %s at disp %llu: target %s compare %s new %s gave a wrong result",
						       ref_type_name(type),
						       (unsigned long long)disp,
						       ref_format(type, cur, b1, 64),
						       ref_format(type, cmp, b2, 64),
						       ref_format(type, nv, b3, 64));
						EXPECT_TRUE(false);
					}
					EXPECT_EQ(0x3c, old[0]);
				}
			}
		}
		covered++;
	}
	EXPECT_EQ(MPIRMA_NR_TYPES, covered);
}

/* Large counts: the kernel works in chunks; the result must not care. */
TEST_F_TIMEOUT(ops, large_count, 120)
{
	size_t n = (1UL << 20) / sizeof(double), k;
	double *t = (double *)self->s.mem, *s = (double *)self->src;
	double *r = (double *)self->res;
	uint8_t *bytes = self->src + 1;
	struct mpirma_op o;
	size_t bad = 0;

	MT_SETUP_SKIPPED();
	for (k = 0; k < n; k++) {
		t[k] = k;
		s[k] = 0.5 * k;
	}
	o = mt_acc(MPIRMA_TYPE_DOUBLE, MPIRMA_OP_SUM, 0, 0, s, n);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &o));
	for (k = 0; k < n; k++)
		bad += t[k] != 1.5 * k;
	EXPECT_EQ(0, bad);

	/* GET_ACC returns every old element, in order */
	for (k = 0; k < n; k++)
		s[k] = -(double)k;
	memset(r, 0, n * sizeof(double));
	o = mt_get_acc(MPIRMA_TYPE_DOUBLE, MPIRMA_OP_REPLACE, 0, 0, s, r, n);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &o));
	for (bad = 0, k = 0; k < n; k++)
		bad += r[k] != 1.5 * k || t[k] != -(double)k;
	EXPECT_EQ(0, bad);

	/* 1 MiB of bytes at an odd displacement from an odd address */
	n = 1UL << 20;
	for (k = 0; k < n; k++) {
		self->s.mem[4097 + k] = k * 7;
		bytes[k] = k >> 3;
	}
	o = mt_acc(MPIRMA_TYPE_UINT8, MPIRMA_OP_BXOR, 0, 4097, bytes, n);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &o));
	for (bad = 0, k = 0; k < n; k++)
		bad += self->s.mem[4097 + k] != (uint8_t)((k * 7) ^ (k >> 3));
	EXPECT_EQ(0, bad);

	/* and a large PUT then GET */
	o = mt_put(MPIRMA_TYPE_BYTE, 0, 5, bytes, n);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &o));
	EXPECT_EQ(0, memcmp(self->s.mem + 5, bytes, n));
	memset(self->res, 0, n);
	o = mt_get(MPIRMA_TYPE_BYTE, 0, 5, self->res, n);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &o));
	EXPECT_EQ(0, memcmp(self->res, bytes, n));
}

/* Every per-operation error, in one batch with valid operations between:
 * each gets its own status, valid ones are applied in array order.
 */
TEST_F(ops, op_errors)
{
	static uint64_t v1 = 1, v2 = 2, v3 = 3, cmp, out, out2[2];
	struct {
		const char *what;
		struct mpirma_op op;
		int expect;
	} c[40];
	struct mpirma_op ops[40];
	unsigned int i, n = 0, nbad = 0;
	uint32_t nfailed;
	uint64_t x;
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

#define CASE(w, o, e) do {			\
		c[n].what = (w);		\
		c[n].op = (o);			\
		c[n].expect = (e);		\
		n++;				\
	} while (0)
#define U64	MPIRMA_TYPE_UINT64

	MT_SETUP_SKIPPED();
	ASSERT_NE(MAP_FAILED, ro);
	memset(self->s.mem, 0, 64);

	CASE("PUT 1", mt_put(U64, 0, 0, &v1, 1), 0);
	{
		struct mpirma_op o = mt_put(U64, 0, 0, &v1, 1);

		o.kind = MPIRMA_NR_KINDS;
		CASE("unknown kind", o, -EINVAL);
		o = mt_put(U64, 0, 0, &v1, 1);
		o.kind = 0xffff;
		CASE("kind 0xffff", o, -EINVAL);
		o = mt_acc(MPIRMA_NR_TYPES, MPIRMA_OP_SUM, 0, 0, &v1, 1);
		CASE("unknown type", o, -EINVAL);
		o = mt_acc(U64, MPIRMA_NR_OPS, 0, 0, &v1, 1);
		CASE("unknown op", o, -EINVAL);
		o = mt_acc(U64, MPIRMA_OP_SUM, 0, 0, &v1, 1);
		o.flags = 1;
		CASE("op flags", o, -EINVAL);
		o = mt_acc(U64, MPIRMA_OP_SUM, 0, 0, &v1, 1);
		o.origin.reserved = 1;
		CASE("origin reserved", o, -EINVAL);
		o = mt_acc(U64, MPIRMA_OP_SUM, 0, 0, &v1, 1);
		o.target.reserved = 1;
		CASE("target reserved", o, -EINVAL);
		o = mt_get(U64, 0, 0, &out, 1);
		o.result.reserved = 1;
		CASE("result reserved", o, -EINVAL);
		o = mt_put(U64, 0, 0, &v1, 1);
		o.op = MPIRMA_OP_SUM;
		CASE("PUT with an op", o, -EINVAL);
		o = mt_get(U64, 0, 0, &out, 1);
		o.op = MPIRMA_OP_NO_OP;
		CASE("GET with an op", o, -EINVAL);
		o = mt_cas(U64, 0, 0, &v1, &cmp, &out);
		o.op = MPIRMA_OP_REPLACE + 1;
		CASE("CAS with an op", o, -EINVAL);
		o = mt_get(U64, 0, 0, &out, 1);
		o.origin = mt_contig(&v1, 1);
		CASE("GET with an origin", o, -EINVAL);
		o = mt_get(U64, 0, 0, &out, 1);
		o.origin.extent = 8;
		CASE("GET with an origin extent", o, -EINVAL);
		o = mt_put(U64, 0, 0, &v1, 1);
		o.result = mt_contig(&out, 1);
		CASE("PUT with a result", o, -EINVAL);
		o = mt_acc(U64, MPIRMA_OP_SUM, 0, 0, &v1, 1);
		o.result.count = 1;
		CASE("ACC with a result count", o, -EINVAL);
		o = mt_get_acc(U64, MPIRMA_OP_NO_OP, 0, 0, NULL, &out, 1);
		o.origin = mt_contig(&v1, 1);
		CASE("GET_ACC NO_OP with an origin", o, -EINVAL);
		o = mt_put(U64, 0, 0, &v1, 1);
		o.compare = (uintptr_t)&cmp;
		CASE("PUT with a compare", o, -EINVAL);
		o = mt_get_acc(U64, MPIRMA_OP_SUM, 0, 0, &v1, &out, 1);
		o.compare = (uintptr_t)&cmp;
		CASE("GET_ACC with a compare", o, -EINVAL);
		o = mt_put(U64, 0, 0, out2, 2);
		o.target.count = 1;
		CASE("PUT counts differ", o, -EINVAL);
		o = mt_get_acc(U64, MPIRMA_OP_SUM, 0, 0, out2, out2, 1);
		o.result.count = 2;
		CASE("GET_ACC result count differs", o, -EINVAL);
		o = mt_put(U64, 0, 0, &v1, 1);
		o.target.addr = 8;
		CASE("target addr", o, -EINVAL);
		o = mt_acc(U64, MPIRMA_OP_NO_OP, 0, 0, &v1, 1);
		CASE("ACC NO_OP", o, -EOPNOTSUPP);
		o = mt_acc(U64, MPIRMA_OP_MAXLOC, 0, 0, &v1, 1);
		CASE("ACC MAXLOC on UINT64", o, -EOPNOTSUPP);
		o = mt_cas(MPIRMA_TYPE_DOUBLE, 0, 0, &v1, &cmp, &out);
		CASE("CAS on DOUBLE", o, -EOPNOTSUPP);
		o = mt_cas(U64, 0, 0, out2, out2, out2);
		o.origin.count = o.target.count = o.result.count = 2;
		CASE("CAS of two elements", o, -EINVAL);
		o = mt_cas(U64, 0, 0, &v1, &cmp, &out);
		o.result.count = 0;
		CASE("CAS without a result element", o, -EINVAL);
		o = mt_put(U64, 1, 0, &v1, 1);
		CASE("target rank 1 of 1", o, -ENXIO);
		o = mt_put(U64, 0xffffffff, 0, &v1, 1);
		CASE("target rank ~0", o, -ENXIO);
		o = mt_put(U64, 0, WIN_LEN - 7, &v1, 1);
		CASE("one byte past the end", o, -ERANGE);
		o = mt_put(U64, 0, WIN_LEN, &v1, 1);
		CASE("at the end", o, -ERANGE);
		o = mt_put(U64, 0, 0, (void *)8, 1);
		CASE("bad origin pointer", o, -EFAULT);
		o = mt_get(U64, 0, 0, ro, 1);
		CASE("read-only result", o, -EFAULT);
		o = mt_cas(U64, 0, 0, &v1, (void *)16, &out);
		CASE("bad compare pointer", o, -EFAULT);
		CASE("ACC SUM 2", mt_acc(U64, MPIRMA_OP_SUM, 0, 0, &v2, 1), 0);
		CASE("ACC PROD 3", mt_acc(U64, MPIRMA_OP_PROD, 0, 0, &v3, 1), 0);
		CASE("GET", mt_get(U64, 0, 0, &out, 1), 0);
		CASE("PUT at the last word", mt_put(U64, 0, WIN_LEN - 8, &v1, 1), 0);
	}
#undef CASE
#undef U64
	ASSERT_LE(n, MT_ARRAY_SIZE(ops));
	for (i = 0; i < n; i++) {
		ops[i] = c[i].op;
		nbad += c[i].expect != 0;
	}
	out = 0;
	ASSERT_EQ(0, mt_rma(self->s.mfd, self->s.win, ops, n, &nfailed));
	for (i = 0; i < n; i++) {
		if (ops[i].status != c[i].expect)
			TH_LOG("%s: status %d (%s), expected %d (%s)", c[i].what,
			       ops[i].status, strerror(-ops[i].status),
			       c[i].expect, strerror(-c[i].expect));
		EXPECT_EQ(c[i].expect, ops[i].status);
	}
	EXPECT_EQ(nbad, nfailed);
	/* (1 + 2) * 3, applied in array order; the failed ones did nothing */
	EXPECT_EQ(9, out);
	memcpy(&x, self->s.mem, 8);
	EXPECT_EQ(9, x);
	munmap(ro, 4096);
}

TEST_HARNESS_MAIN
