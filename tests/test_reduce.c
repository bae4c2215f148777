// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the reduction engine (common/reduce.c, compiled for user
 * space with -DMPIRMA_USERSPACE) against the independent reference in
 * selftests/lib/reference.c.
 *
 * For every allowed (op, type) pair the engine and the reference reduce the
 * same generated values (every interesting target value against every
 * interesting source value, then random ones) at several misalignments; the
 * results must agree bit for bit (any NaN matching any NaN for arithmetic),
 * padding bytes must survive (REPLACE may copy them), the "old" buffer must
 * hold the previous target, and no byte outside the buffers may change.
 * The op/type tables must equal the reference table.  The native element
 * update (common/native_elem.c) is checked the same way, one element at a
 * time, with its neighbours, and so is its stepped form over runs of
 * elements.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_elem.h"
#include "reduce.h"
#include "reference.h"
#include "unit_check.h"

#define GUARD		16	/* bytes checked on each side of a buffer */
#define GUARD_BYTE	0xe7
#define MAX_ELEMS	8192
#define MAX_DETAILS	30	/* failure messages printed in full */

static unsigned int ndetails;

/* Print details of a failing element, a bounded number of times. */
static void detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void detail(const char *fmt, ...)
{
	va_list ap;

	if (ndetails++ >= MAX_DETAILS)
		return;
	printf("  ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* A buffer of @len bytes at misalignment @off, with guard bytes around. */
struct gbuf {
	uint8_t *alloc;
	uint8_t *p;
	size_t len;
};

/* malloc() that ends the test when there is no memory. */
static void *xmalloc(size_t len)
{
	void *p = malloc(len);

	if (!p) {
		perror("malloc");
		exit(2);
	}
	return p;
}

static void gbuf_init(struct gbuf *b, size_t len, size_t off)
{
	b->alloc = xmalloc(GUARD + off + len + GUARD);
	memset(b->alloc, GUARD_BYTE, GUARD + off + len + GUARD);
	b->p = b->alloc + GUARD + off;
	b->len = len;
}

static bool gbuf_guards_ok(const struct gbuf *b)
{
	const uint8_t *p;

	for (p = b->alloc; p < b->p; p++)
		if (*p != GUARD_BYTE)
			return false;
	for (p = b->p + b->len; p < b->p + b->len + GUARD; p++)
		if (*p != GUARD_BYTE)
			return false;
	return true;
}

static void gbuf_free(struct gbuf *b)
{
	free(b->alloc);
}

static void test_tables(void)
{
	unsigned int op, type;
	bool ok;

	for (op = 0; op <= MPIRMA_NR_OPS; op++) {
		for (type = 0; type <= MPIRMA_NR_TYPES; type++) {
			bool want = ref_op_allowed(op, type);
			bool got = mpirma_op_allowed(op, type);

			checkf(want == got, "mpirma_op_allowed(%s, %s) = %d, expected %d",
			       ref_op_name(op), ref_type_name(type), got, want);
		}
		checkf(mpirma_op_type_mask(op) == ref_op_type_mask(op),
		       "mpirma_op_type_mask(%s) = %#llx, expected %#llx",
		       ref_op_name(op),
		       (unsigned long long)mpirma_op_type_mask(op),
		       (unsigned long long)ref_op_type_mask(op));
	}
	checkf(!mpirma_op_allowed(0xffff, 0) && !mpirma_op_allowed(0, 0xffff),
	       "mpirma_op_allowed accepts out-of-range values");

	for (type = 0; type <= MPIRMA_NR_TYPES; type++)
		checkf(mpirma_cas_allowed(type) == ref_cas_allowed(type),
		       "mpirma_cas_allowed(%s) = %d, expected %d",
		       ref_type_name(type), mpirma_cas_allowed(type),
		       ref_cas_allowed(type));
	checkf(!mpirma_cas_allowed(0xffff),
	       "mpirma_cas_allowed accepts an out-of-range type");

	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		const struct mpirma_type_info *ti = &mpirma_type_info[type];
		size_t size = ref_type_size(type);

		checkf(ti->size == size, "type_info[%s].size = %u, expected %zu",
		       ref_type_name(type), ti->size, size);
		ok = ti->align && !(ti->align & (ti->align - 1)) &&
		     ti->align <= size && size % ti->align == 0;
		checkf(ok, "type_info[%s].align = %u is not a power of two dividing %zu",
		       ref_type_name(type), ti->align, size);
	}
	/* types computed in floating point must say so (the kernel wraps them
	 * in kernel_fpu_begin); plain integer types must not
	 */
	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		bool fp = type == MPIRMA_TYPE_FLOAT || type == MPIRMA_TYPE_DOUBLE ||
			  type == MPIRMA_TYPE_LONG_DOUBLE ||
			  type == MPIRMA_TYPE_C_FLOAT_COMPLEX ||
			  type == MPIRMA_TYPE_C_DOUBLE_COMPLEX ||
			  type == MPIRMA_TYPE_C_LONG_DOUBLE_COMPLEX;
		bool fp_pair = type == MPIRMA_TYPE_FLOAT_INT ||
			       type == MPIRMA_TYPE_DOUBLE_INT ||
			       type == MPIRMA_TYPE_LONG_DOUBLE_INT ||
			       type == MPIRMA_TYPE_2FLOAT || type == MPIRMA_TYPE_2DOUBLE;

		if (fp_pair)
			continue;	/* either answer is defensible */
		checkf(!!mpirma_type_info[type].is_float == fp,
		       "type_info[%s].is_float = %u", ref_type_name(type),
		       mpirma_type_info[type].is_float);
	}
}

/* The engine's two builds in the library (common/reduce.h). */
typedef void (*reduce_fn)(unsigned int type, unsigned int op, void *tgt,
			  const void *src, void *old, size_t n);
static const reduce_fn builds[] = { mpirma_reduce, mpirma_reduce_vec, mpirma_reduce_avx2 };
static const char *const build_names[] = {
	"mpirma_reduce", "mpirma_reduce_vec", "mpirma_reduce_avx2"
};

static void test_reduce_pair(unsigned int type, unsigned int op, size_t off,
			     bool with_old, uint64_t *seed, unsigned int b)
{
	size_t size = ref_type_size(type);
	size_t n = ref_pairs_count(type, 64, MAX_ELEMS);
	size_t len = n * size, k, bad = 0;
	uint8_t *rt = xmalloc(len), *rs = xmalloc(len), *ro = xmalloc(len);
	uint8_t *orig = xmalloc(len);
	struct gbuf t, s, o;
	char b1[128], b2[128], b3[128], b4[128];

	gbuf_init(&t, len, off);
	gbuf_init(&s, len, (off * 3 + 1) % 8);
	gbuf_init(&o, len, (off + 5) % 8);

	ref_fill_pairs(type, rt, rs, n, seed, 0x5a, 0xa5);
	memcpy(orig, rt, len);
	memcpy(t.p, rt, len);
	memcpy(s.p, rs, len);
	memset(o.p, 0x3c, len);

	ref_reduce(type, op, rt, rs, ro, n);
	builds[b](type, op, t.p, s.p, with_old ? o.p : NULL, n);

	for (k = 0; k < n; k++) {
		const uint8_t *got = t.p + k * size, *want = rt + k * size;
		const uint8_t *org = orig + k * size, *src = rs + k * size;
		bool ok = ref_result_ok(type, op, got, want, org, src);

		if (ok && with_old)
			ok = ref_same_bits(type, o.p + k * size, org);
		if (ok)
			continue;
		if (!bad++)
			detail("%s %s off %zu elem %zu: tgt %s src %s: got %s, expected %s%s",
			       ref_op_name(op), ref_type_name(type), off, k,
			       ref_format(type, org, b1, sizeof(b1)),
			       ref_format(type, src, b2, sizeof(b2)),
			       ref_format(type, got, b3, sizeof(b3)),
			       ref_format(type, want, b4, sizeof(b4)),
			       ref_same_padding(type, got, org) ? "" :
			       " (padding changed)");
	}
	if (!gbuf_guards_ok(&t) || !gbuf_guards_ok(&o) || !gbuf_guards_ok(&s)) {
		detail("%s %s off %zu: bytes outside the buffers changed",
		       ref_op_name(op), ref_type_name(type), off);
		bad++;
	}
	if (memcmp(s.p, rs, len)) {
		detail("%s %s off %zu: the source buffer changed",
		       ref_op_name(op), ref_type_name(type), off);
		bad++;
	}
	checkf(!bad, "%s(%s, %s) at misalignment %zu%s: %zu of %zu elements wrong",
	       build_names[b], ref_type_name(type), ref_op_name(op), off,
	       with_old ? " with old" : "", bad, n);

	gbuf_free(&t);
	gbuf_free(&s);
	gbuf_free(&o);
	free(rt);
	free(rs);
	free(ro);
	free(orig);
}

static unsigned int test_reduce(void)
{
	static const size_t offs[] = { 0, 1, 3, 6 };
	unsigned int op, type, i, b, pairs = 0;
	uint64_t seed = 12345;

	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		for (op = 0; op < MPIRMA_NR_OPS; op++) {
			if (!ref_op_allowed(op, type))
				continue;
			pairs++;
			for (b = 0; b < 3; b++) {
				/* the AVX2 build only where the CPU runs it */
				if (b == 2 && !__builtin_cpu_supports("avx2"))
					continue;
				for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
					test_reduce_pair(type, op, offs[i], i & 1, &seed, b);
			}
		}
	}
	return pairs;
}

/*
 * mpirma_swar_sum() against a lane-by-lane sum: every length up to 40
 * bytes at every misalignment of both buffers, the values random but with
 * carries out of every lane's top bit (0xff.. + 0x01..) in turn, and
 * nothing past the whole words it reports touched.
 */
static void test_swar_sum(void)
{
	static const unsigned int sizes[] = { 1, 2, 4 };
	uint8_t t[64], s[64], want[64];
	uint64_t seed = 777;
	unsigned int si, bad = 0, runs = 0;
	size_t len, off, k, done, e;

	for (si = 0; si < 3; si++) {
		unsigned int size = sizes[si];

		for (len = 0; len <= 40; len += size) {
			for (off = 0; off < 8; off++) {
				for (k = 0; k < sizeof(t); k++) {
					seed = seed * 6364136223846793005ULL +
					       1442695040888963407ULL;
					t[k] = (uint8_t)(seed >> 56);
					s[k] = (uint8_t)(seed >> 48);
					if ((k + off) % 3 == 0) {
						t[k] = 0xff;
						s[k] = (k % size) ? 0xff : 0x01;
					}
				}
				memcpy(want, t, sizeof(t));
				for (e = 0; e < len; e += size) {
					uint32_t a = 0, b = 0;

					memcpy(&a, want + off + e, size);
					memcpy(&b, s + 8 - off + e, size);
					a += b;
					memcpy(want + off + e, &a, size);
				}
				done = mpirma_swar_sum(t + off, s + 8 - off, len,
						       size);
				/* the elements it left: the caller's */
				memcpy(t + off + done, want + off + done,
				       len - done);
				runs++;
				if (done != (len & ~(size_t)7) ||
				    memcmp(t, want, sizeof(t))) {
					if (!bad++)
						detail("swar size %u len %zu off %zu: done %zu",
						       size, len, off, done);
				}
			}
		}
	}
	checkf(!bad, "mpirma_swar_sum(): %u of %u runs wrong", bad, runs);
}

/* n == 0 touches nothing. */
static void test_reduce_empty(void)
{
	uint8_t t[32], s[32], o[32], t0[32];
	unsigned int type;

	memset(t, 0x11, sizeof(t));
	memset(s, 0x22, sizeof(s));
	memset(o, 0x33, sizeof(o));
	memcpy(t0, t, sizeof(t));
	for (type = 0; type < MPIRMA_NR_TYPES; type++)
		mpirma_reduce(type, MPIRMA_OP_REPLACE, t, s, o, 0);
	checkf(!memcmp(t, t0, sizeof(t)) && o[0] == 0x33 && o[31] == 0x33,
	       "mpirma_reduce with n == 0 wrote memory");
}

static void test_cas(void)
{
	static const size_t offs[] = { 0, 1, 5 };
	unsigned int type, i;
	uint64_t seed = 777;

	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		size_t size = ref_type_size(type), ni = ref_ninteresting(type);
		unsigned int bad = 0;
		size_t a, b;

		if (!ref_cas_allowed(type))
			continue;
		for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
			for (a = 0; a < ni + 4; a++) {
				for (b = 0; b < ni + 4; b++) {
					struct gbuf t, s, c, o;
					uint8_t rt[32], rs[32], rc[32], ro[32];

					gbuf_init(&t, size, offs[i]);
					gbuf_init(&s, size, offs[i] + 1);
					gbuf_init(&c, size, offs[i] + 2);
					gbuf_init(&o, size, offs[i] + 3);
					ref_value(type, a, &seed, rt);
					/* half the time compare equal */
					if (b & 1)
						memcpy(rc, rt, size);
					else
						ref_value(type, b, &seed, rc);
					ref_value(type, (a + b) % (ni + 4), &seed, rs);
					memcpy(t.p, rt, size);
					memcpy(s.p, rs, size);
					memcpy(c.p, rc, size);
					memset(o.p, 0x3c, size);

					ref_cas(type, rt, rs, rc, ro);
					mpirma_cas(type, t.p, s.p, c.p, o.p);
					if (memcmp(t.p, rt, size) || memcmp(o.p, ro, size) ||
					    memcmp(s.p, rs, size) || memcmp(c.p, rc, size) ||
					    !gbuf_guards_ok(&t) || !gbuf_guards_ok(&o)) {
						if (!bad)
							detail("mpirma_cas(%s) case %zu/%zu misalignment %zu differs",
							       ref_type_name(type), a, b, offs[i]);
						bad++;
					}
					gbuf_free(&t);
					gbuf_free(&s);
					gbuf_free(&c);
					gbuf_free(&o);
				}
			}
		}
		checkf(!bad, "mpirma_cas(%s): %u cases wrong", ref_type_name(type),
		       bad);
	}
}

/*
 * mpirma_native_element(), element by element, against the reference: every
 * allowed (op, type) pair of 1, 2, 4 or 8 bytes, as accumulate and as
 * get_accumulate, at every aligned position of a 16-byte word group whose
 * other bytes must not change (1- and 2-byte bitwise ops update the 4-byte
 * word around the element; see mpirma_native_one_instr()).
 */
static void test_native_element(void)
{
	enum { SPAN = 16 };
	unsigned int type, op, kind, elems = 0;
	uint64_t seed = 777;

	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		size_t size = ref_type_size(type), n = ref_pairs_count(type, 8, 512), k, pos;
		uint8_t *tv, *sv;

		if (size != 1 && size != 2 && size != 4 && size != 8)
			continue;
		tv = xmalloc(n * size);
		sv = xmalloc(n * size);
		for (op = 0; op < MPIRMA_NR_OPS; op++) {
			if (!ref_op_allowed(op, type))
				continue;
			for (kind = MPIRMA_KIND_ACC; kind <= MPIRMA_KIND_GET_ACC; kind++) {
				unsigned int bad = 0;

				if (kind == MPIRMA_KIND_ACC && op == MPIRMA_OP_NO_OP)
					continue;
				ref_fill_pairs(type, tv, sv, n, &seed, 0x5a, 0xa5);
				for (k = 0; k < n; k++) {
					_Alignas(8) uint8_t mem[SPAN], want[SPAN];
					uint8_t old[8], *t, *src = sv + k * size;

					pos = (k * size) % SPAN;
					for (size_t b = 0; b < SPAN; b++)
						mem[b] = (uint8_t)(0x91 + 37 * b);
					t = mem + pos;
					memcpy(t, tv + k * size, size);
					memcpy(want, mem, SPAN);
					ref_reduce(type, op, want + pos, src, NULL, 1);
					memset(old, 0x3c, sizeof(old));
					mpirma_native_element(kind, type, op, t,
							      op == MPIRMA_OP_NO_OP ? NULL : src,
							      NULL,
							      kind == MPIRMA_KIND_GET_ACC ? old : NULL,
							      size);
					elems++;
					if (!ref_result_ok(type, op, t, want + pos,
							   tv + k * size, src) ||
					    memcmp(mem, want, pos) ||
					    memcmp(mem + pos + size, want + pos + size,
						   SPAN - pos - size) ||
					    (kind == MPIRMA_KIND_GET_ACC &&
					     memcmp(old, tv + k * size, size)))
						bad++;
				}
				checkf(!bad, "mpirma_native_element(%s, %s, %s): %u of %zu wrong",
				       kind == MPIRMA_KIND_ACC ? "acc" : "get_acc",
				       ref_type_name(type), ref_op_name(op), bad, n);
			}
		}
		free(tv);
		free(sv);
	}
	printf("test_reduce: %u native element updates checked\n", elems);
}

/* The verdict on @fn for one pair, as accumulate or get_accumulate. */
static void check_native(const char *fn, bool fetch, unsigned int type,
			 unsigned int op, unsigned int bad)
{
	checkf(!bad, "%s(%s, %s, %s): %u wrong", fn, fetch ? "get_acc" : "acc",
	       ref_type_name(type), ref_op_name(op), bad);
}

/*
 * mpirma_native_steps() against the reference: every allowed pair it serves
 * (mpirma_native_stepped()), as accumulate and get_accumulate, with counts
 * around the step (partial, whole, several steps) and every start (part of
 * 4): each element once, the elements past the run untouched, the previous
 * values fetched.
 */
static void test_native_steps(void)
{
	static const size_t counts[] = { 2, 31, 32, 33, 511, 512, 513, 1500 };
	unsigned int type, op, kind, runs = 0;
	uint64_t seed = 4242;

	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		size_t size = ref_type_size(type), c;
		uint8_t *tv, *sv, *t, *want, *old;
		size_t max = 1500 + 1;

		if (size != 1 && size != 2 && size != 4 && size != 8)
			continue;
		tv = xmalloc(max * size);
		sv = xmalloc(max * size);
		t = xmalloc(max * size);	/* malloc: 16-byte aligned */
		want = xmalloc(max * size);
		old = xmalloc(max * size);
		for (op = 0; op < MPIRMA_NR_OPS; op++) {
			if (!ref_op_allowed(op, type))
				continue;
			for (kind = MPIRMA_KIND_ACC; kind <= MPIRMA_KIND_GET_ACC; kind++) {
				unsigned int bad = 0;
				bool fetch = kind == MPIRMA_KIND_GET_ACC;

				if (!mpirma_native_stepped(kind, type, op, fetch))
					continue;
				for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
					size_t n = counts[c], k;
					unsigned int part = (unsigned int)(c % 4);

					ref_fill_pairs(type, tv, sv, max, &seed, 0x5a, 0xa5);
					memcpy(t, tv, max * size);
					memcpy(want, tv, max * size);
					ref_reduce(type, op, want, sv, NULL, n);
					memset(old, 0x3c, max * size);
					mpirma_native_steps(kind, type, op, t, sv,
							    fetch ? old : NULL, n, size, part, 4);
					runs++;
					for (k = 0; k < n; k++)
						if (!ref_result_ok(type, op, t + k * size,
								   want + k * size, tv + k * size,
								   sv + k * size) ||
						    (fetch && memcmp(old + k * size,
								     tv + k * size, size)))
							bad++;
					if (memcmp(t + n * size, tv + n * size, size))
						bad++;	/* past the run */
				}
				check_native("mpirma_native_steps", fetch, type, op, bad);
			}
		}
		free(tv);
		free(sv);
		free(t);
		free(want);
		free(old);
	}
	printf("test_reduce: %u stepped native updates checked\n", runs);
}

/*
 * mpirma_native_gathered() against the reference: every pair it serves, as
 * accumulate and get_accumulate, on up to MPIRMA_NATIVE_GATHER scattered
 * elements, distinct or with one element named twice (whose second update
 * must see the first): each result as applied in order, the elements not
 * named untouched, the previous values fetched.
 */
static void test_native_gathered(void)
{
	enum { SPREAD = 3 * MPIRMA_NATIVE_GATHER };
	unsigned int type, op, kind, runs = 0;
	uint64_t seed = 999;

	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		size_t size = ref_type_size(type);
		uint8_t *tv, *sv, *t, *want, *prev, *old;
		unsigned int last[SPREAD];
		void *at[MPIRMA_NATIVE_GATHER];

		if (size != 1 && size != 2 && size != 4 && size != 8)
			continue;
		tv = xmalloc(SPREAD * size);
		sv = xmalloc(SPREAD * size);
		t = xmalloc(SPREAD * size);
		want = xmalloc(SPREAD * size);
		prev = xmalloc(SPREAD * size);
		old = xmalloc(MPIRMA_NATIVE_GATHER * size);
		for (op = 0; op < MPIRMA_NR_OPS; op++) {
			if (!ref_op_allowed(op, type))
				continue;
			for (kind = MPIRMA_KIND_ACC; kind <= MPIRMA_KIND_GET_ACC; kind++) {
				bool fetch = kind == MPIRMA_KIND_GET_ACC;
				unsigned int bad = 0, n, twice;

				if (!mpirma_native_stepped(kind, type, op, fetch))
					continue;
				for (n = 1; n <= MPIRMA_NATIVE_GATHER; n += 7)
					for (twice = 0; twice < 2 && (!twice || n > 1); twice++) {
						unsigned int k, e;

						ref_fill_pairs(type, tv, sv, SPREAD, &seed, 0x5a, 0xa5);
						memcpy(t, tv, SPREAD * size);
						memcpy(want, tv, SPREAD * size);
						memset(last, 0xff, sizeof(last));
						for (k = 0; k < n; k++) {
							/* distinct, out of order; or the last = the first */
							e = ((twice && k == n - 1 ? 0 : k) * 5 + 3) % SPREAD;
							at[k] = t + e * size;
							memcpy(prev + e * size, want + e * size, size);
							ref_reduce(type, op, want + e * size,
								   sv + k * size, NULL, 1);
							last[e] = k;
						}
						memset(old, 0x3c, MPIRMA_NATIVE_GATHER * size);
						mpirma_native_gathered(kind, type, op, at, sv,
								       fetch ? old : NULL, n, size);
						runs++;
						for (e = 0; e < SPREAD; e++) {
							if (last[e] == UINT_MAX) {
								bad += !!memcmp(t + e * size,
										tv + e * size, size);
								continue;
							}
							if (!ref_result_ok(type, op, t + e * size,
									   want + e * size,
									   prev + e * size,
									   sv + last[e] * size))
								bad++;
						}
						/* the fetches of elements named once */
						for (k = 0; fetch && k + twice < n; k++)
							if (memcmp(old + k * size,
									tv + (size_t)((uint8_t *)at[k] -
										      t), size))
								bad++;
					}
				check_native("mpirma_native_gathered", fetch, type, op, bad);
			}
		}
		free(tv);
		free(sv);
		free(t);
		free(want);
		free(prev);
		free(old);
	}
	printf("test_reduce: %u gathered native updates checked\n", runs);
}

/*
 * mpirma_native_move() for every type of 1, 2, 4 or 8 bytes: a NO_OP
 * get_accumulate fetches the elements and leaves them, a REPLACE writes the
 * origin's; the element past the run untouched, at any misaligned origin
 * or result.
 */
static void test_native_move(void)
{
	static const size_t counts[] = { 1, 2, 7, 64, 1500 };
	unsigned int type, runs = 0;
	uint64_t seed = 777;

	for (type = 0; type < MPIRMA_NR_TYPES; type++) {
		size_t size = ref_type_size(type), max = 1500 + 1, c;
		uint8_t *tv, *sv, *t, *old;
		unsigned int bad = 0;

		if (size != 1 && size != 2 && size != 4 && size != 8)
			continue;
		if (!mpirma_native_moved(MPIRMA_KIND_GET_ACC, MPIRMA_OP_NO_OP, true) ||
		    !mpirma_native_moved(MPIRMA_KIND_ACC, MPIRMA_OP_REPLACE, false) ||
		    mpirma_native_moved(MPIRMA_KIND_GET_ACC, MPIRMA_OP_REPLACE, true) ||
		    mpirma_native_moved(MPIRMA_KIND_ACC, MPIRMA_OP_SUM, false))
			bad++;
		tv = xmalloc(max * size);
		sv = xmalloc(max * size + 1);
		t = xmalloc(max * size);
		old = xmalloc(max * size + 1);
		for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			size_t n = counts[c];

			ref_fill_pairs(type, tv, sv + 1, max, &seed, 0x5a, 0xa5);
			memcpy(t, tv, max * size);
			memset(old, 0x3c, max * size + 1);
			mpirma_native_move(t, NULL, old + 1, n, size);
			if (memcmp(old + 1, tv, n * size) || memcmp(t, tv, max * size) ||
			    old[1 + n * size] != 0x3c)
				bad++;
			mpirma_native_move(t, sv + 1, NULL, n, size);
			if (memcmp(t, sv + 1, n * size) ||
			    memcmp(t + n * size, tv + n * size, size))
				bad++;
			runs += 2;
		}
		checkf(!bad, "mpirma_native_move(%s): %u wrong", ref_type_name(type), bad);
		free(tv);
		free(sv);
		free(t);
		free(old);
	}
	printf("test_reduce: %u native moves checked\n", runs);
}

int main(void)
{
	unsigned int pairs;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_tables();
	pairs = test_reduce();
	test_reduce_empty();
	test_swar_sum();
	test_cas();
	test_native_element();
	test_native_steps();
	test_native_gathered();
	test_native_move();
	printf("test_reduce: %u op x type pairs checked against the reference\n",
	       pairs);
	return unit_summary();
}
