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
