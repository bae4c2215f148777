// SPDX-License-Identifier: GPL-2.0
/* copy_vec.c's loop with 32-byte vectors, built with AVX (Kbuild). */
#define MPIRMA_COPY_AVX
#include "copy_vec.c"
