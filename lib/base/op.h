/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * op.h - MPI reduction operations inside the library (lib/rma/op.c).
 *
 * Predefined ops (MPI_MAX .. MPI_NO_OP) are the kernel's MPIRMA_OP_* and
 * compute with the kernel's own engine (common/reduce.c, built into the
 * library), so a reduction in the library and an accumulate in the kernel
 * give the same bits.  Which ops a type admits follows the standard's
 * op/type table by type group (enum mpirma_mclass in datatype.h), a little
 * stricter than the kernel's table where Fortran types alias C ones.
 * User ops (MPI_Op_create) are MPI_User_function callbacks.
 */
#ifndef MPIRMA_LIB_OP_H
#define MPIRMA_LIB_OP_H

#include <stdbool.h>

#include "internal.h"

/* The MPIRMA_OP_* of a predefined op, or -1 (user op, null, invalid). */
int mpirma_op_kernel(MPI_Op op);

/* The op exists (predefined or a live user op). */
bool mpirma_op_valid(MPI_Op op);

/* Predefined ops are commutative; user ops as created.  false if invalid. */
bool mpirma_op_commutative(MPI_Op op);

/* Where an op is used: a reduction (collectives, MPI_Reduce_local) or RMA. */
#define MPIRMA_OP_USE_REDUCE	0
#define MPIRMA_OP_USE_RMA	1

/*
 * May @op be applied to @dt?  MPI class, cause recorded with mpirma_err():
 *  - MPI_ERR_OP: invalid op; a predefined op the type's group does not
 *    admit; REPLACE/NO_OP in a reduction; a user op in RMA; MAXLOC/MINLOC
 *    on MPI_2REAL/MPI_2DOUBLE_PRECISION in RMA when the kernel predates
 *    their element types (MPIRMA_TYPE_2FLOAT, _2DOUBLE).
 *  - MPI_ERR_TYPE: invalid datatype; a predefined op on a datatype whose
 *    basic components are not all one predefined type.
 * A datatype without data admits every valid op.  For RMA, the kernel's
 * type and op are then mpirma_dtype_ktype(dt) and mpirma_op_kernel(op).
 */
int mpirma_op_check(MPI_Op op, MPI_Datatype dt, int use);

/* The same for the type @t of handle @dt (@dt may have been freed since). */
int mpirma_op_check_type(MPI_Op op, struct mpirma_dtype *t, MPI_Datatype dt,
			 int use);

/*
 * inout[i] = in[i] op inout[i] for @count elements of @dt laid out as in
 * user memory (MPI_User_function's argument order).  Predefined ops run the
 * kernel's engine on the element view of @dt; user ops get the buffers as
 * they are.  MPI class (mpirma_op_check's, or MPI_ERR_NO_MEM).
 */
int mpirma_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout,
		    int count);

/*
 * The same for the type @t of handle @dt, which a pending operation holds
 * (mpirma_dtype_ref()) while the program may have freed the handle: a user
 * op still gets @dt.
 */
int mpirma_op_apply_type(MPI_Op op, struct mpirma_dtype *t, MPI_Datatype dt,
			 const void *in, void *inout, int count);

/*
 * A reduction that runs straight on the kernel's elements (the small
 * allreduce's lane, coll_allreduce.c): @kop and @ktype of a predefined op
 * on a predefined datatype that is one kernel element of @esz bytes, which
 * the op/type table admits for reductions.
 */
struct mpirma_op_lane {
	int kop;
	int ktype;
	size_t esz;
};

/* Fills *@l if @op on @dt can take the lane; false: check as usual. */
bool mpirma_op_lane(MPI_Op op, MPI_Datatype dt, struct mpirma_op_lane *l);

/*
 * The same for a datatype @t whose data are all one kernel element type,
 * unpadded (a large allreduce's packed vector, coll_allreduce.c), after
 * mpirma_op_check_type() passed; false for user ops and other datatypes.
 */
bool mpirma_op_lane_type(MPI_Op op, const struct mpirma_dtype *t,
			 struct mpirma_op_lane *l);

/*
 * Does lane @l give the same bits with its operands swapped?  Integer
 * elements under every op a lane takes but MINLOC and MAXLOC, and sums
 * (and products of real numbers) of floating-point ones, which round the
 * same either way (the build does not contract into fused multiply-adds);
 * not the floating-point MIN and MAX, whose comparisons pick between -0
 * and +0 by order.
 */
bool mpirma_op_lane_symmetric(const struct mpirma_op_lane *l);

/* inout[i] = in[i] op inout[i] for @n elements of lane @l. */
void mpirma_op_lane_apply(const struct mpirma_op_lane *l, const void *in,
			  void *inout, size_t n);

/*
 * A pending operation (a nonblocking or persistent collective) takes a
 * reference on user op @op, so that MPI_Op_free before its completion, as
 * the standard allows, frees it only after; predefined ops: nothing.
 */
void mpirma_op_ref(MPI_Op op);
void mpirma_op_unref(MPI_Op op);

#endif /* MPIRMA_LIB_OP_H */
