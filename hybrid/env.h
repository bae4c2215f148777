/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * env.h - the layer's environment variables, read one way (env.c): a bad
 * value is said on stderr and the default used.
 */
#ifndef MPIRMA_HYBRID_ENV_H
#define MPIRMA_HYBRID_ENV_H

#include <stdbool.h>

/*
 * @name's value as a number from @min to @max in *@out: 1; 0 when unset or
 * empty; -1 when it is not such a number.
 */
int hy_env_number(const char *name, long min, long max, long *out);

/* @name as a number from @min to @max, else @dflt (said when bad). */
int hy_env_int(const char *name, int dflt, int min, int max);

/*
 * @name as one of the @n words @words: its index; 0 (the default) when
 * unset, empty or another word (said once per variable).
 */
int hy_env_word(const char *name, const char *const *words, int n);

/*
 * The job's ranks and this node's, as the launcher that started it says
 * (Open MPI's mpirun, MPICH's Hydra): true when one did, *@local -1 when
 * it gave no node count.  Read before MPI_Init.
 */
bool hy_launcher_ranks(long *world, long *local);

#endif /* MPIRMA_HYBRID_ENV_H */
