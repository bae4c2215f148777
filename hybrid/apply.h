/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * apply.h - applying a received message through the module (apply.c);
 * every call with the agent's serve lock held.
 */
#ifndef MPIRMA_HYBRID_APPLY_H
#define MPIRMA_HYBRID_APPLY_H

#include "agent.h"

/*
 * Applies one message of @n bytes: a batch of accumulates, or one
 * operation with a result, which goes after hy_apply_reply()'s status,
 * *@rlen bytes of reply in all.  Returns the status; *@index: the failed
 * operation's place in the message.
 */
int hy_apply_msg(const struct ship_hdr *h, size_t n, int *rlen,
		 uint32_t *index);

/*
 * A batch of @n bytes on the window @s, applied in order with one ioctl:
 * puts and accumulates, and with @results (an epoch's) operations with a
 * result too, whose results go after the reply's status in record order
 * (*@rbytes of them).  Returns the first failure's status (its place in
 * *@index), or 0.
 */
int hy_apply_batch(const struct ship_hdr *h, size_t n,
		   const struct hy_slot_target *s, uint32_t *index,
		   bool results, size_t *rbytes);

/* The reply buffer, with room for @n bytes of results; NULL: no memory. */
struct ship_reply *hy_apply_reply(size_t n);

/* Frees what applying kept (the agent has stopped). */
void hy_apply_free(void);

#endif /* MPIRMA_HYBRID_APPLY_H */
