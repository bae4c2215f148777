/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * keyval.h - window attributes' delete callbacks (keyval.c).
 */
#ifndef MPIRMA_HYBRID_KEYVAL_H
#define MPIRMA_HYBRID_KEYVAL_H

#include "hybrid.h"

/*
 * hybrid/keyval.c: the errors of window attributes' delete callbacks.
 * Every window keyval the program creates in C calls its delete callback
 * through the layer, which raises a failure on the window's handler and
 * tells the host it succeeded, so that the host always deletes the
 * attribute and frees the window (Open MPI 4.1 ignores such a failure,
 * MPICH 4.0.2 keeps the window, whose free is collective).  A call that
 * deletes attributes (MPI_Win_free, MPI_Win_delete_attr, MPI_Win_set_attr
 * over an old value) is bracketed: hy_keyval_watch() before the host's
 * call, hy_keyval_done(ret) after, which returns the first callback's
 * failure in this thread since, or @ret.
 */
void hy_keyval_watch(void);
int hy_keyval_done(int ret);
void hy_keyval_stop(void);

#endif /* MPIRMA_HYBRID_KEYVAL_H */
