/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ulock.h - passive-target locks taken in user space on a ULOCK window's
 * lock table (lib/rma/ulock.c; the table's layout is in mpirma_uapi.h,
 * DOC: user-space locks).
 */
#ifndef MPIRMA_ULOCK_H
#define MPIRMA_ULOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mpirma_ulock;

/*
 * What the protocol needs of the kernel: sleep until the table's seq is no
 * longer @seq (0, or a negative errno), and bump seq and wake the sleepers.
 * MPIRMA_IOC_WIN_LOCK_WAIT in the library; a fake in the unit test.
 */
struct mpirma_ulock_ops {
	int (*sleep)(struct mpirma_ulock *ul, uint32_t seq);
	void (*wake)(struct mpirma_ulock *ul);
};

/**
 * struct mpirma_ulock - this process's view of a window's lock table
 * @seq: the table's sequence number
 * @word: per target, owner and waiters bits
 * @held: held[origin * n + target]
 * @n: the window's ranks
 * @me: this process's window rank
 * @ops: sleep and wake
 * @ctx: for @ops (the window's kernel id in the library)
 * @map: the mapping, @map_len its length (NULL, 0: not mapped here)
 */
struct mpirma_ulock {
	uint32_t *seq;
	uint32_t *word;
	uint8_t *held;
	uint32_t n;
	uint32_t me;
	const struct mpirma_ulock_ops *ops;
	uint32_t ctx;
	void *map;
	size_t map_len;
};

/* Point @ul at a table of @n ranks at @table (MPIRMA_ULOCK_TABLE_SIZE(n)). */
void mpirma_ulock_init(struct mpirma_ulock *ul, void *table, uint32_t n,
		       uint32_t me, const struct mpirma_ulock_ops *ops,
		       uint32_t ctx);

/*
 * Take target @t's lock, shared or exclusive (@t not held by this process);
 * lock_all takes every target's shared lock, all at once or none.  0, or a
 * negative errno from sleeping (nothing is held then).
 */
int mpirma_ulock_lock(struct mpirma_ulock *ul, uint32_t t, bool excl);
int mpirma_ulock_lock_all(struct mpirma_ulock *ul);

/* Release what this process holds on @t, or on every target. */
void mpirma_ulock_unlock(struct mpirma_ulock *ul, uint32_t t);
void mpirma_ulock_unlock_all(struct mpirma_ulock *ul);

#endif /* MPIRMA_ULOCK_H */
