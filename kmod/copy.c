// SPDX-License-Identifier: GPL-2.0
/*
 * Bulk copies for one-copy messages (copy.h): memcpy() or a vector loop of
 * copy_vec.c, whichever copies 64 KiB fastest on this machine, measured
 * once at load (the copy_engine parameter forces the choice).
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>

#include "copy.h"

#define PICK_BYTES	(64 * 1024)
#define PICK_ROUNDS	4

enum { ENGINE_AUTO = -1, ENGINE_MEMCPY, ENGINE_SSE, ENGINE_AVX, NR_ENGINES };

static void (*const engines[NR_ENGINES])(void *, const void *, size_t) = {
	[ENGINE_MEMCPY] = NULL,
	[ENGINE_SSE] = mpirma_copy_sse,
	[ENGINE_AVX] = mpirma_copy_avx,
};

static int copy_engine = ENGINE_AUTO;
module_param(copy_engine, int, 0444);
MODULE_PARM_DESC(copy_engine,
		 "one-copy messages: -1 measure at load (default), 0 memcpy, 1 SSE2, 2 AVX");

static bool engine_usable(int e)
{
	return e == ENGINE_MEMCPY || e == ENGINE_SSE ||
	       (e == ENGINE_AVX && boot_cpu_has(X86_FEATURE_AVX) &&
		boot_cpu_has(X86_FEATURE_OSXSAVE));
}

static u64 time_engine(int e, void *dst, const void *src)
{
	u64 best = U64_MAX, t;
	int i;

	for (i = 0; i < PICK_ROUNDS; i++) {
		t = ktime_get_ns();
		if (engines[e]) {
			kernel_fpu_begin();
			engines[e](dst, src, PICK_BYTES);
			kernel_fpu_end();
		} else {
			memcpy(dst, src, PICK_BYTES);
		}
		best = min(best, ktime_get_ns() - t);
	}
	return best;
}

void mpirma_copy_init(void)
{
	u64 t, best = U64_MAX;
	char *buf;
	int e;

	if (copy_engine >= NR_ENGINES || copy_engine < ENGINE_AUTO ||
	    (copy_engine != ENGINE_AUTO && !engine_usable(copy_engine))) {
		pr_warn("copy_engine=%d is not usable here: measuring\n", copy_engine);
		copy_engine = ENGINE_AUTO;
	}
	if (copy_engine != ENGINE_AUTO)
		return;
	copy_engine = ENGINE_MEMCPY;
	buf = kmalloc(2 * PICK_BYTES, GFP_KERNEL);
	if (!buf)
		return;
	memset(buf, 0x5a, 2 * PICK_BYTES);
	for (e = 0; e < NR_ENGINES; e++) {
		if (!engine_usable(e))
			continue;
		t = time_engine(e, buf, buf + PICK_BYTES);
		if (t < best) {
			best = t;
			copy_engine = e;
		}
	}
	kfree(buf);
}

void mpirma_copy_begin(void)
{
	if (engines[copy_engine])
		kernel_fpu_begin();
}

void mpirma_copy(void *dst, const void *src, size_t n)
{
	if (engines[copy_engine])
		engines[copy_engine](dst, src, n);
	else
		memcpy(dst, src, n);
}

void mpirma_copy_end(void)
{
	if (engines[copy_engine])
		kernel_fpu_end();
}
