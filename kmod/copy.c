// SPDX-License-Identifier: GPL-2.0
/*
 * Bulk copies for one-copy messages (copy.h): memcpy() or a vector loop of
 * copy_vec.c, whichever copies 64 KiB fastest on this machine, measured
 * once at load (the copy_engine parameter forces the choice).  A copy whose
 * destination lies 1-63 bytes past its source's offset in a page gets its
 * own choice, measured at that distance: rep movsb, which memcpy() is on
 * processors with ERMS or FSRM, meets 4 KiB aliasing there and ran 20-40x
 * slower on an AMD EPYC (docs/kmod.md, "One-copy messages").
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
#define PICK_NEAR	8

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

static int copy_engine_near = ENGINE_AUTO;
module_param(copy_engine_near, int, 0444);
MODULE_PARM_DESC(copy_engine_near,
		 "the same, for a destination 1-63 bytes past its source in a page (-1: copy_engine's if forced, else measured)");

static bool engine_usable(int e)
{
	return e == ENGINE_MEMCPY || e == ENGINE_SSE ||
	       (e == ENGINE_AVX && boot_cpu_has(X86_FEATURE_AVX) &&
		boot_cpu_has(X86_FEATURE_OSXSAVE));
}

/* @e, the value of parameter @name, if usable here; else ENGINE_AUTO. */
static int usable_or_auto(int e, const char *name)
{
	if (e == ENGINE_AUTO || (e >= 0 && e < NR_ENGINES && engine_usable(e)))
		return e;
	pr_warn("%s=%d is not usable here: measuring\n", name, e);
	return ENGINE_AUTO;
}

static u64 time_engine(int e, void *dst, const void *src, size_t n)
{
	u64 best = U64_MAX, t;
	int i;

	for (i = 0; i < PICK_ROUNDS; i++) {
		t = ktime_get_ns();
		if (engines[e]) {
			kernel_fpu_begin();
			engines[e](dst, src, n);
			kernel_fpu_end();
		} else {
			memcpy(dst, src, n);
		}
		best = min(best, ktime_get_ns() - t);
	}
	return best;
}

/*
 * The usable engine that copies fastest into @buf + @dst_off from the
 * second half of @buf; memcpy() when there is no @buf to time on.
 */
static int fastest_engine(char *buf, size_t dst_off)
{
	u64 t, best = U64_MAX;
	int e, pick = ENGINE_MEMCPY;

	if (!buf)
		return pick;
	for (e = 0; e < NR_ENGINES; e++) {
		if (!engine_usable(e))
			continue;
		t = time_engine(e, buf + dst_off, buf + PICK_BYTES, PICK_BYTES - dst_off);
		if (t < best) {
			best = t;
			pick = e;
		}
	}
	return pick;
}

void mpirma_copy_init(void)
{
	char *buf = NULL;

	copy_engine = usable_or_auto(copy_engine, "copy_engine");
	copy_engine_near = usable_or_auto(copy_engine_near, "copy_engine_near");
	/* a forced copy_engine holds for both; measured, each is measured */
	if (copy_engine_near == ENGINE_AUTO)
		copy_engine_near = copy_engine;
	if (copy_engine == ENGINE_AUTO || copy_engine_near == ENGINE_AUTO) {
		buf = kmalloc(2 * PICK_BYTES, GFP_KERNEL);
		if (buf)
			memset(buf, 0x5a, 2 * PICK_BYTES);
	}
	if (copy_engine == ENGINE_AUTO)
		copy_engine = fastest_engine(buf, 0);
	if (copy_engine_near == ENGINE_AUTO)
		copy_engine_near = fastest_engine(buf, PICK_NEAR);
	kfree(buf);
}

void mpirma_copy_begin(struct mpirma_copier *c, u64 dst_off, u64 src_off)
{
	bool near = ((dst_off - src_off) & (PAGE_SIZE - 1)) - 1 < 63;

	c->engine = near ? copy_engine_near : copy_engine;
	if (engines[c->engine])
		kernel_fpu_begin();
}

void mpirma_copy(const struct mpirma_copier *c, void *dst, const void *src, size_t n)
{
	if (engines[c->engine])
		engines[c->engine](dst, src, n);
	else
		memcpy(dst, src, n);
}

void mpirma_copy_end(const struct mpirma_copier *c)
{
	if (engines[c->engine])
		kernel_fpu_end();
}
