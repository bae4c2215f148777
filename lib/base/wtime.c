// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wtime.c - MPI_Wtime and MPI_Wtick: CLOCK_MONOTONIC, one clock for the
 * node (MPI_WTIME_IS_GLOBAL).
 *
 * Where the kernel keeps that clock on the TSC (its clocksource is "tsc":
 * it found the counters steady and in step on every CPU, or was told so),
 * each thread reads it from the counter (tsc_clock.h); elsewhere, on other
 * architectures and with MPIRMA_WTIME_TSC=0, from clock_gettime().  The
 * kernel may give up the TSC while it runs (its watchdog found it drift),
 * so the clocksource is read again about once a second.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "rma_args.h"
#include "tool.h"

int64_t mpirma_wtime_shift;

/*
 * MPI_Wtime's answer for @ns of CLOCK_MONOTONIC, shifted in integers: QEMU
 * runs each floating-point instruction as a call.
 */
static inline double wtime_seconds(int64_t ns)
{
	return (double)(ns - mpirma_wtime_shift) * 1e-9;
}

#if defined(__x86_64__) || defined(__i386__)
#define WTIME_RECHECK	1024	/* anchors (milliseconds) between reads */

#ifndef WTIME_CLOCKSOURCE
#define WTIME_CLOCKSOURCE \
	"/sys/devices/system/clocksource/clocksource0/current_clocksource"
#endif

/* 0: not decided yet, 1: from the TSC, 2: from clock_gettime() */
static int wtime_how;
static __thread unsigned int wtime_anchors
	__attribute__((tls_model("initial-exec")));

static bool clocksource_is_tsc(void)
{
	char buf[16];
	ssize_t n;
	int fd = open(WTIME_CLOCKSOURCE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n == 4 && !memcmp(buf, "tsc\n", 4);
}

/* Now and then a new anchor asks: is the kernel's clock still the TSC? */
#define TSC_ANCHORED(c)							\
	do {								\
		if (++wtime_anchors % WTIME_RECHECK == 0 &&		\
		    !clocksource_is_tsc())				\
			__atomic_store_n(&wtime_how, 2, __ATOMIC_RELAXED); \
	} while (0)
#include "tsc_clock.h"

static __thread struct tsc_clock wtime_clock
	__attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) double wtime_other(int how)
{
	if (!how) {
		how = mpirma_env_on("MPIRMA_WTIME_TSC") &&
		      clocksource_is_tsc() ? 1 : 2;
		__atomic_store_n(&wtime_how, how, __ATOMIC_RELAXED);
		if (how == 1)
			return wtime_seconds(tsc_clock_ns(&wtime_clock));
	}
	return wtime_seconds(TSC_CLOCK_NS());
}

/* After the layer's MPI_Wtime, which jumps here, in its page. */
MPIRMA_AT_ENTRY(Wtime) double PMPI_Wtime(void)
{
	int how = __atomic_load_n(&wtime_how, __ATOMIC_RELAXED);

	if (mpirma_likely(how == 1))
		return wtime_seconds(tsc_clock_ns(&wtime_clock));
	return wtime_other(how);
}
#else
double PMPI_Wtime(void)
{
	return wtime_seconds(mpirma_clock_ns());
}
#endif
MPIRMA_ALIAS(Wtime)

double PMPI_Wtick(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC, &ts))
		return 1e-9;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
MPIRMA_ALIAS(Wtick)

static int wtime_tsc_read(void)
{
#if defined(__x86_64__) || defined(__i386__)
	int how = __atomic_load_n(&wtime_how, __ATOMIC_RELAXED);

	if (how)
		return how == 1;
#endif
	return mpirma_env_on("MPIRMA_WTIME_TSC");
}

MPIRMA_CVARS(wtime,
	{
		.name = "MPIRMA_WTIME_TSC",
		.desc = "1: MPI_Wtime reads the TSC, scaled to CLOCK_MONOTONIC, "
			"where the kernel's clocksource is tsc (the default); "
			"0: clock_gettime() every call",
		.cat = MPIRMA_TCAT_ALL,
		.scope = MPI_T_SCOPE_READONLY,
		.read = wtime_tsc_read,
	});
