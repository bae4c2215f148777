/* SPDX-License-Identifier: GPL-2.0 */
/*
 * window.h - what the window selftests share (window.c, window_map.c,
 * window_numa.c, window_group.c: one program per subject, as the
 * kselftest harness keeps its tests per program): their headers, and the
 * data the ranks of a test on the "win" fixture share.
 */
#ifndef MPIRMA_SELFTEST_WINDOW_H
#define MPIRMA_SELFTEST_WINDOW_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"
#include "reference.h"

/* Data the ranks of one test share (MAP_SHARED, set up before fork). */
struct shared {
	int win_id[8][8];	/* [rank][window] */
	int flag[8];
	uint64_t addr[8];
	int32_t status[8];
};

#endif /* MPIRMA_SELFTEST_WINDOW_H */
