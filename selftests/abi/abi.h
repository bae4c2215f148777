/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What selftests/abi.c and abi/cmds.c share: the context of one test (its
 * job, window and fds) and the table of commands, each with valid
 * arguments and the hooks that set up and undo its effects.
 */
#ifndef MPIRMA_ABI_H
#define MPIRMA_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpirma_test.h"

#define BUF_SIZE	8192
#ifndef offsetofend
#define offsetofend(T, m)	(offsetof(T, m) + sizeof(((T *)0)->m))
#endif
#define MAX_ARG_SIZE	4096	/* larger sizes are E2BIG */

struct abi_ctx {
	int dev;
	int job;
	int mfd;
	uint32_t win;		/* ALLOC, 4096 bytes, group {0} */
	uint64_t features;
	int tmp_fd;		/* a per-call job fd */
	uint32_t tmp_win;	/* a per-call window */
};

enum fd_kind { FD_DEV, FD_JOB, FD_MEMBER, FD_TMP_JOB };

struct abi_cmd {
	const char *name;
	unsigned long cmd;
	size_t size;
	enum fd_kind fd;
	uint64_t feature;	/* required MPIRMA_FEAT_*, or 0 */
	size_t reserved_off;	/* offset of a reserved __u32, or 0 */
	uint32_t bad_flags[4];	/* flag values that must be EINVAL */
	unsigned int nbad_flags;
	void (*fill)(struct abi_ctx *c, void *buf);
	int (*before)(struct abi_ctx *c);
	int (*after_ok)(struct abi_ctx *c, void *buf);
	int (*after_fail)(struct abi_ctx *c, void *buf);
	size_t v0_size;		/* the struct's first version, if it grew */
};

/* Every command, in the order the tests issue them. */
extern const struct abi_cmd abi_cmds[];
extern const unsigned int abi_ncmds;

/* The fd of kind @k in @c. */
int abi_cmd_fd(struct abi_ctx *c, enum fd_kind k);

#endif
