// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * op.c - MPI reduction operations: the predefined ops on the kernel's
 * reduction engine, user ops (MPI_Op_create), and the op/type table of the
 * standard (see op.h).
 *
 * MPI's user function computes inout = in op inout; the engine computes
 * tgt = OP(tgt, src).  With tgt = inout and src = in the two agree for every
 * predefined op, all of which are commutative (MAXLOC/MINLOC break ties by
 * the smaller index, which is symmetric too).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "datatype.h"
#include "op.h"
#include "reduce.h"

#define NR_PREDEF_OPS (MPI_NO_OP + 1)

/* MPI_Op -> MPIRMA_OP_*; [0] unused. */
static const int kernel_op[NR_PREDEF_OPS] = {
	[MPI_OP_NULL] = -1,
	[MPI_MAX] = MPIRMA_OP_MAX,
	[MPI_MIN] = MPIRMA_OP_MIN,
	[MPI_SUM] = MPIRMA_OP_SUM,
	[MPI_PROD] = MPIRMA_OP_PROD,
	[MPI_LAND] = MPIRMA_OP_LAND,
	[MPI_BAND] = MPIRMA_OP_BAND,
	[MPI_LOR] = MPIRMA_OP_LOR,
	[MPI_BOR] = MPIRMA_OP_BOR,
	[MPI_LXOR] = MPIRMA_OP_LXOR,
	[MPI_BXOR] = MPIRMA_OP_BXOR,
	[MPI_MAXLOC] = MPIRMA_OP_MAXLOC,
	[MPI_MINLOC] = MPIRMA_OP_MINLOC,
	[MPI_REPLACE] = MPIRMA_OP_REPLACE,
	[MPI_NO_OP] = MPIRMA_OP_NO_OP,
};

static const char *const op_names[NR_PREDEF_OPS] = {
	"MPI_OP_NULL", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD",
	"MPI_LAND", "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR",
	"MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP",
};

#define B(op) (1U << (op))

/* The standard's op/type table (MPI 3.1, 5.9.2), by type group. */
static const unsigned int group_ops[] = {
	[MPIRMA_MC_NONE] = 0,
	[MPIRMA_MC_CINT] = B(MPI_MAX) | B(MPI_MIN) | B(MPI_SUM) | B(MPI_PROD) |
			   B(MPI_LAND) | B(MPI_LOR) | B(MPI_LXOR) |
			   B(MPI_BAND) | B(MPI_BOR) | B(MPI_BXOR),
	[MPIRMA_MC_FINT] = B(MPI_MAX) | B(MPI_MIN) | B(MPI_SUM) | B(MPI_PROD) |
			   B(MPI_BAND) | B(MPI_BOR) | B(MPI_BXOR),
	[MPIRMA_MC_FLOAT] = B(MPI_MAX) | B(MPI_MIN) | B(MPI_SUM) | B(MPI_PROD),
	[MPIRMA_MC_LOGICAL] = B(MPI_LAND) | B(MPI_LOR) | B(MPI_LXOR),
	[MPIRMA_MC_COMPLEX] = B(MPI_SUM) | B(MPI_PROD),
	[MPIRMA_MC_BYTE] = B(MPI_BAND) | B(MPI_BOR) | B(MPI_BXOR),
	[MPIRMA_MC_PAIR] = B(MPI_MAXLOC) | B(MPI_MINLOC),
	[MPIRMA_MC_FPAIR] = B(MPI_MAXLOC) | B(MPI_MINLOC),
};

/*
 * A user op.  @refs: pending operations using it (nonblocking and
 * persistent collectives, mpirma_op_ref()); MPI_Op_free while some are
 * pending only marks it @freed, and the last of them frees it.
 */
struct mpirma_uop {
	MPI_User_function *fn;
	MPI_User_function_c *fn_c;	/* MPI_Op_create_c's, instead of @fn */
	int commute;
	int refs;
	bool freed;
};

static bool is_predefined(MPI_Op op)
{
	return op > MPI_OP_NULL && op < NR_PREDEF_OPS;
}

static struct mpirma_uop *uop_get(MPI_Op op)
{
	return is_predefined(op) ? NULL : mpirma_handle_get(MPIRMA_HK_OP, op);
}

int mpirma_op_kernel(MPI_Op op)
{
	return is_predefined(op) ? kernel_op[op] : -1;
}

bool mpirma_op_valid(MPI_Op op)
{
	struct mpirma_uop *u = uop_get(op);

	return is_predefined(op) || (u && !u->freed);
}

bool mpirma_op_commutative(MPI_Op op)
{
	struct mpirma_uop *u;

	if (is_predefined(op))
		return true;
	u = uop_get(op);
	return u && u->commute;
}

/* op.h */
void mpirma_op_ref(MPI_Op op)
{
	struct mpirma_uop *u = uop_get(op);

	if (u)
		u->refs++;
}

static void uop_free(MPI_Op op, struct mpirma_uop *u)
{
	mpirma_handle_free(MPIRMA_HK_OP, op);
	free(u);
}

/* op.h */
void mpirma_op_unref(MPI_Op op)
{
	struct mpirma_uop *u = uop_get(op);

	if (u && --u->refs == 0 && u->freed)
		uop_free(op, u);
}

int mpirma_op_check(MPI_Op op, MPI_Datatype dt, int use)
{
	struct mpirma_dtype *t = mpirma_dtype_get(dt);

	if (!t)
		return mpirma_err(MPI_ERR_TYPE, "invalid datatype %d", dt);
	return mpirma_op_check_type(op, t, dt, use);
}

/* op.h */
int mpirma_op_check_type(MPI_Op op, struct mpirma_dtype *t, MPI_Datatype dt,
			 int use)
{
	struct mpirma_dtype *bt;
	int mc;

	if (!is_predefined(op)) {
		if (!uop_get(op))
			return mpirma_err(MPI_ERR_OP, op == MPI_OP_NULL ?
					  "MPI_OP_NULL" : "invalid op %d", op);
		if (use == MPIRMA_OP_USE_RMA)
			return mpirma_err(MPI_ERR_OP, "a user-defined op cannot "
					  "be used in RMA");
		return MPI_SUCCESS;
	}
	if (use == MPIRMA_OP_USE_REDUCE && (op == MPI_REPLACE || op == MPI_NO_OP))
		return mpirma_err(MPI_ERR_OP, "%s is only for RMA", op_names[op]);
	if (t->basic == MPI_DATATYPE_NULL)
		return MPI_SUCCESS;
	if (t->basic == MPIRMA_DTYPE_MIXED)
		return mpirma_err(MPI_ERR_TYPE, "%s needs a datatype built from "
				  "one predefined type", op_names[op]);
	if (op == MPI_REPLACE || op == MPI_NO_OP)
		return MPI_SUCCESS;
	bt = mpirma_dtype_get(t->basic);
	mc = mpirma_dtype_mclass(t->basic);
	if (!(group_ops[mc] & B(op)))
		return mpirma_err(MPI_ERR_OP, "%s is not defined on %s%s",
				  op_names[op], bt->hdr.name,
				  mpirma_dtype_strict_note(dt));
	if (use == MPIRMA_OP_USE_RMA && !mpirma_op_allowed(kernel_op[op], t->ktype))
		return mpirma_err(MPI_ERR_OP, "%s on %s is not supported in RMA",
				  op_names[op], bt->hdr.name);
	/* The Fortran real pairs came later than the other kernel types. */
	if (use == MPIRMA_OP_USE_RMA && mc == MPIRMA_MC_FPAIR &&
	    (unsigned int)t->ktype >= mpirma_proc.query.nr_types)
		return mpirma_err(MPI_ERR_OP, "%s on %s needs a newer mpirma module",
				  op_names[op], bt->hdr.name);
	return MPI_SUCCESS;
}

int mpirma_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout,
		    int count)
{
	struct mpirma_dtype *t = mpirma_dtype_get(dt);

	if (!t)
		return mpirma_err(MPI_ERR_TYPE, "invalid datatype %d", dt);
	return mpirma_op_apply_type(op, t, dt, in, inout, count);
}

/* op.h */
int mpirma_op_apply_type(MPI_Op op, struct mpirma_dtype *t, MPI_Datatype dt,
			 const void *in, void *inout, int count)
{
	const struct mpirma_block *b;
	MPI_Aint ext;
	size_t esz, k;
	int ret, i;

	ret = mpirma_op_check_type(op, t, dt, MPIRMA_OP_USE_REDUCE);
	if (ret)
		return ret;
	if (count <= 0)
		return MPI_SUCCESS;
	if (!is_predefined(op)) {
		struct mpirma_uop *u = uop_get(op);
		MPI_Count len = count;

		if (u->fn_c)
			u->fn_c((void *)in, inout, &len, &dt);
		else
			u->fn((void *)in, inout, &count, &dt);
		return MPI_SUCCESS;
	}
	if (t->basic <= 0)
		return MPI_SUCCESS;	/* no data */
	if (mpirma_dtype_flatten(t))
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	esz = mpirma_type_info[t->ktype].size;
	b = t->eblocks;
	ext = mpirma_dtype_extent(t);
	if (t->neblocks == 1 && (count == 1 || (MPI_Aint)b[0].len == ext)) {
		mpirma_reduce(t->ktype, kernel_op[op], (char *)inout + b[0].disp,
			      (const char *)in + b[0].disp, NULL,
			      (size_t)count * (b[0].len / esz));
		return MPI_SUCCESS;
	}
	for (i = 0; i < count; i++)
		for (k = 0; k < t->neblocks; k++) {
			MPI_Aint off = i * ext + b[k].disp;

			mpirma_reduce(t->ktype, kernel_op[op], (char *)inout + off,
				      (const char *)in + off, NULL, b[k].len / esz);
		}
	return MPI_SUCCESS;
}

/* Fills *@l for predefined @op on kernel type @ktype, if it reduces. */
static bool lane_fill(MPI_Op op, int ktype, struct mpirma_op_lane *l)
{
	if (!is_predefined(op) || op == MPI_REPLACE || op == MPI_NO_OP ||
	    ktype < 0)
		return false;
	l->kop = kernel_op[op];
	l->ktype = ktype;
	l->esz = mpirma_type_info[ktype].size;
	return true;
}

/* op.h */
bool mpirma_op_lane(MPI_Op op, MPI_Datatype dt, struct mpirma_op_lane *l)
{
	return lane_fill(op, mpirma_dtype_elem_ktype(dt), l) &&
	       (group_ops[mpirma_dtype_mclass(dt)] & B(op));
}

/* op.h */
bool mpirma_op_lane_type(MPI_Op op, const struct mpirma_dtype *t,
			 struct mpirma_op_lane *l)
{
	return !t->padded && lane_fill(op, t->ktype, l) && l->esz &&
	       t->size % l->esz == 0;
}

/* op.h */
bool mpirma_op_lane_symmetric(const struct mpirma_op_lane *l)
{
	switch (l->ktype) {
	case MPIRMA_TYPE_BOOL:
	case MPIRMA_TYPE_INT8:
	case MPIRMA_TYPE_UINT8:
	case MPIRMA_TYPE_INT16:
	case MPIRMA_TYPE_UINT16:
	case MPIRMA_TYPE_INT32:
	case MPIRMA_TYPE_UINT32:
	case MPIRMA_TYPE_INT64:
	case MPIRMA_TYPE_UINT64:
		return l->kop != MPIRMA_OP_MINLOC && l->kop != MPIRMA_OP_MAXLOC;
	case MPIRMA_TYPE_FLOAT:
	case MPIRMA_TYPE_DOUBLE:
	case MPIRMA_TYPE_LONG_DOUBLE:
		return l->kop == MPIRMA_OP_SUM || l->kop == MPIRMA_OP_PROD;
	case MPIRMA_TYPE_C_FLOAT_COMPLEX:
	case MPIRMA_TYPE_C_DOUBLE_COMPLEX:
	case MPIRMA_TYPE_C_LONG_DOUBLE_COMPLEX:
		return l->kop == MPIRMA_OP_SUM;
	default:
		return false;
	}
}

/* op.h */
void mpirma_op_lane_apply(const struct mpirma_op_lane *l, const void *in,
			  void *inout, size_t n)
{
	mpirma_reduce(l->ktype, l->kop, inout, in, NULL, n);
}

/* ------------------------------------------------------------ API */

/* A user op of @fn or (large-count) @fn_c. */
static int op_create(MPI_User_function *fn, MPI_User_function_c *fn_c,
		     int commute, MPI_Op *op)
{
	struct mpirma_uop *u;

	if ((!fn && !fn_c) || !op)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "NULL argument");
	u = malloc(sizeof(*u));
	if (!u)
		return mpirma_raise(MPI_ERR_NO_MEM, MPIRMA_FUNC, "out of memory");
	u->fn = fn;
	u->fn_c = fn_c;
	u->commute = !!commute;
	u->refs = 0;
	u->freed = false;
	*op = mpirma_handle_alloc(MPIRMA_HK_OP, u);
	if (!*op) {
		free(u);
		return mpirma_raise(MPI_ERR_NO_MEM, MPIRMA_FUNC,
				    "out of op handles");
	}
	return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
	MPIRMA_CHECK_INIT();
	return op_create(user_fn, NULL, commute, op);
}
MPIRMA_ALIAS(Op_create)

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
	MPIRMA_CHECK_INIT();
	return op_create(NULL, user_fn, commute, op);
}
MPIRMA_ALIAS(Op_create_c)

int PMPI_Op_free(MPI_Op *op)
{
	struct mpirma_uop *u;

	MPIRMA_CHECK_INIT();
	if (!op)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "op is NULL");
	if (is_predefined(*op))
		return mpirma_raise(MPI_ERR_OP, MPIRMA_FUNC, "%s is predefined",
				    op_names[*op]);
	u = uop_get(*op);
	if (!u)
		return mpirma_raise(MPI_ERR_OP, MPIRMA_FUNC, "invalid op %d", *op);
	/* A pending nonblocking collective may still use it. */
	if (u->refs)
		u->freed = true;
	else
		uop_free(*op, u);
	*op = MPI_OP_NULL;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Op_free)

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
	MPIRMA_CHECK_INIT();
	if (!mpirma_op_valid(op))
		return mpirma_raise(MPI_ERR_OP, MPIRMA_FUNC, "invalid op %d", op);
	if (!commute)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "commute is NULL");
	*commute = mpirma_op_commutative(op);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Op_commutative)

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
		      MPI_Datatype datatype, MPI_Op op)
{
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_dtype_check(datatype, true, NULL);
	if (!ret && count < 0)
		ret = mpirma_err(MPI_ERR_COUNT, "negative count %d", count);
	if (!ret && count > 0 && (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
		ret = mpirma_err(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed");
	if (!ret)
		ret = mpirma_op_apply(op, datatype, inbuf, inoutbuf, count);
	return mpirma_raise(ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Reduce_local)
