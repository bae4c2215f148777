/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * p2p.h - point-to-point messages inside the library (lib/p2p.c): the raw
 * kernel mailbox calls that coll.c builds on, and the hooks request.c uses
 * to progress and to wait for posted receives.
 */
#ifndef MPIRMA_LIB_P2P_H
#define MPIRMA_LIB_P2P_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* MPIRMA_IOC_MSG_SEND of @len bytes to job rank @job_rank.  0 or -errno. */
int mpirma_msg_send(int job_rank, int tag, uint64_t ctx, const void *buf,
		    size_t len);

/*
 * MPIRMA_IOC_MSG_RECV: @flags MPIRMA_MSG_*, @peer a job rank or
 * MPIRMA_ANY_SOURCE, @tag or MPIRMA_ANY_TAG.  *@m receives the kernel's
 * answer (msg_len, source, msg_tag).  0 or -errno (-EAGAIN with NOWAIT).
 */
int mpirma_msg_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
		    void *buf, size_t len, struct mpirma_msg *m);

/* One non-blocking pass over the posted receives, in posting order. */
void mpirma_p2p_progress(void);

/*
 * Waits in the kernel until a message may have arrived for one of the @n
 * pending requests (Waitany/Waitsome).  Returns true when it did wait
 * there; false when it cannot (not all of them are posted receives of one
 * communicator), and the caller must poll.
 */
bool mpirma_p2p_block_any(struct mpirma_request *const *reqs, int n);

#endif /* MPIRMA_LIB_P2P_H */
