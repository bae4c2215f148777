/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Glue between the kselftest harness and mpirma_test.h.  Include after
 * kselftest_harness.h.
 *
 * MT_RANK_FN(name) { ... } defines a rank body in which the harness's
 * ASSERT_* and EXPECT_* work: the rank runs in its own process, so it takes
 * its own copy of _metadata (passed through mt_rank.meta) and catches the
 * ASSERT longjmp itself; the process exits 1 if any check failed,
 * which mt_reap() reports to the test.  Pass _metadata as @meta to
 * mt_spawn()/mt_run()/mt_run_job().
 */
#ifndef MPIRMA_MT_HARNESS_H
#define MPIRMA_MT_HARNESS_H

#include <setjmp.h>

#include "mpirma_test.h"

#define MT_RANK_FN(name)						\
	static void name##_body(struct __test_metadata *_metadata,	\
				struct mt_rank *r);			\
	static int name(struct mt_rank *r)				\
	{								\
		struct __test_metadata *_metadata = r->meta;		\
									\
		/* a copy: the parent's earlier failures are not ours */ \
		_metadata->passed = 1;					\
		_metadata->trigger = 0;					\
		if (setjmp(_metadata->env) == 0)			\
			name##_body(_metadata, r);			\
		return _metadata->passed ? 0 : 1;			\
	}								\
	static void name##_body(struct __test_metadata __attribute__((unused)) *_metadata, \
				struct mt_rank __attribute__((unused)) *r)

/* Every test needs the device: skip (not fail) when the module is absent. */
#define MT_REQUIRE_DEVICE()						\
	do {								\
		if (!mt_device_present())				\
			SKIP(return, "%s missing (mpirma.ko not loaded)", \
			     MPIRMA_DEVICE);				\
	} while (0)

/*
 * The opening of most FIXTURE_SETUPs: self->dev is -1 until the device is
 * open, so that the teardown (MT_FIXTURE_TEARDOWN) closes only what was
 * opened; a missing module skips.
 */
#define MT_FIXTURE_OPEN()						\
	do {								\
		self->dev = -1;						\
		MT_REQUIRE_DEVICE();					\
		self->dev = mt_open();					\
		ASSERT_LE(0, self->dev);				\
	} while (0)

/* QUERY into @q; skip unless it reports every MPIRMA_FEAT_* bit of @feat. */
#define MT_FIXTURE_QUERY(q, feat)					\
	do {								\
		ASSERT_EQ(0, mt_query(self->dev, (q)));			\
		if (((q)->features & (feat)) != (feat))			\
			SKIP(return, "no MPIRMA_FEAT_* 0x%llx",		\
			     (unsigned long long)((feat) & ~(q)->features)); \
	} while (0)

/*
 * A job of @n ranks, every one joined by this process: self->job and
 * self->m[@n] (-1 until open; the teardown closes them with mt_job_stop()),
 * after MT_FIXTURE_OPEN() and MT_FIXTURE_QUERY(@q, @feat).
 */
#define MT_FIXTURE_JOB(q, feat, n)					\
	do {								\
		self->job = -1;						\
		for (int r_ = 0; r_ < (n); r_++)			\
			self->m[r_] = -1;				\
		MT_FIXTURE_OPEN();					\
		MT_FIXTURE_QUERY(q, feat);				\
		ASSERT_EQ(0, mt_job_start(self->dev, (n), &self->job,	\
					  self->m, (n)));		\
	} while (0)

/* Zeroed MAP_SHARED memory for the ranks, of the size @p points to. */
#define MT_FIXTURE_SHM(p)						\
	do {								\
		(p) = mt_shm(sizeof(*(p)));				\
		ASSERT_NE(NULL, (p));					\
	} while (0)

/* The teardown of a fixture opened by MT_FIXTURE_OPEN(). */
#define MT_FIXTURE_TEARDOWN(name)					\
	FIXTURE_TEARDOWN(name)						\
	{								\
		mt_close(&self->dev);					\
	}

/*
 * The whole fixture of suites whose ranks share the file's struct shared:
 * self->dev, self->q (the module's QUERY, which must report every bit of
 * @feat, else the test skips) and self->sh.
 */
#define MT_SHARED_FIXTURE(name, feat)					\
	FIXTURE(name) {							\
		int dev;						\
		struct mpirma_query q;					\
		struct shared *sh;					\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		MT_FIXTURE_OPEN();					\
		MT_FIXTURE_QUERY(&self->q, feat);			\
		MT_FIXTURE_SHM(self->sh);				\
	}								\
	MT_FIXTURE_TEARDOWN(name)

/* In an MT_SHARED_FIXTURE test: run @fn on a job of @n ranks. */
#define MT_RUN_SHARED(n, fn)						\
	ASSERT_EQ(0, mt_run_job(self->dev, n, fn, self->sh, _metadata,	\
				MT_TIMEOUT_MS))

/* An MT_SHARED_FIXTURE test that only runs @fn on @n ranks. */
#define MT_RANKS_TEST(fixture, name, n, fn)				\
	TEST_F(fixture, name)						\
	{								\
		MT_SETUP_SKIPPED();					\
		MT_RUN_SHARED(n, fn);					\
	}

#define MT_FLAVOR_STRATEGY_VARIANT(name, ID, f, alloc_flags)		\
	FIXTURE_VARIANT_ADD(f, user_##name) {				\
		.flavor = MPIRMA_FLAVOR_USER,				\
		.strategy = MPIRMA_ATOM_##ID,				\
	};								\
	FIXTURE_VARIANT_ADD(f, alloc_##name) {				\
		.flavor = MPIRMA_FLAVOR_ALLOC,				\
		.strategy = MPIRMA_ATOM_##ID,				\
		.flags = (alloc_flags),					\
	};

/*
 * The variants of fixture @f: user_lock, alloc_lock, user_striped, ...,
 * every window flavor with every strategy; ALLOC windows are created with
 * the window flags @alloc_flags.
 */
#define MT_FLAVOR_STRATEGY_VARIANTS(f, alloc_flags)			\
	FIXTURE_VARIANT(f) {						\
		uint32_t flavor;					\
		uint32_t strategy;					\
		uint32_t flags;						\
	};								\
	MT_FOR_EACH_STRATEGY(MT_FLAVOR_STRATEGY_VARIANT, f, alloc_flags)

/*
 * In the 6.1 harness a SKIP() in FIXTURE_SETUP does not stop the test body:
 * start every TEST_F body with MT_SETUP_SKIPPED().
 */
#define MT_SETUP_SKIPPED()						\
	do {								\
		if (_metadata->skip)					\
			return;						\
	} while (0)

/* The module counters must be back at zero (after everything is closed). */
#define MT_EXPECT_COUNTERS_ZERO()					\
	do {								\
		char __why[64];						\
		bool __zero = mt_counters_zero(5000, __why, sizeof(__why)); \
									\
		if (!__zero)						\
			TH_LOG("counter not zero: %s", __why);		\
		EXPECT_TRUE(__zero);					\
	} while (0)

/* Default budget for a group of ranks: QEMU's TCG is slow. */
#define MT_TIMEOUT_MS	20000

#endif /* MPIRMA_MT_HARNESS_H */
