/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * keyval_hook.h - the one thing libmpirmaf (fortran/fsupport.c) asks of
 * the keyvals beyond the MPI API: to hear when a keyval it made goes, so
 * that it frees the record its Fortran callbacks live in (the keyval's
 * extra_state).  Exported (lib/libmpirma.map), not part of the API.
 */
#ifndef MPIRMA_KEYVAL_HOOK_H
#define MPIRMA_KEYVAL_HOOK_H

/*
 * Calls @release(extra_state) when @keyval is gone: freed, and no
 * attribute set with it left.  MPI_SUCCESS, or MPI_ERR_KEYVAL when
 * @keyval is no keyval of this process.
 */
int mpirma_keyval_on_free(int keyval, void (*release)(void *extra_state));

#endif
