// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_array.c - the array datatype constructors: subarray
 */
#include <stdlib.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"

/*
 * A subarray is a nest of hvectors over the dimensions, slowest outside,
 * moved to the start of the subarray and resized to the whole array.
 * Intermediate types have no handle; the result holds them.
 */
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
			      const int array_of_subsizes[],
			      const int array_of_starts[], int order,
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL, *t, *prev;
	struct mpirma_dtype_run *runs;
	MPI_Aint ext, stride, offset = 0, total;
	int i, d, ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_dtype_ctor_check(0, oldtype, newtype, &old);
	if (ret)
		return RAISE(ret, NULL);
	if (ndims <= 0 || !array_of_sizes || !array_of_subsizes ||
	    !array_of_starts)
		return RAISE(MPI_ERR_ARG, "bad dimensions");
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return RAISE(MPI_ERR_ARG, "bad order %d", order);
	for (i = 0; i < ndims; i++)
		if (array_of_sizes[i] <= 0 || array_of_subsizes[i] <= 0 ||
		    array_of_subsizes[i] > array_of_sizes[i] ||
		    array_of_starts[i] < 0 ||
		    array_of_starts[i] > array_of_sizes[i] - array_of_subsizes[i])
			return RAISE(MPI_ERR_ARG, "bad size, subsize or start in "
				     "dimension %d", i);
	ext = mpirma_dtype_extent(old);
	t = old;
	mpirma_dtype_ref(t);
	stride = ext;
	/* From the fastest-varying dimension outwards. */
	for (i = 0; i < ndims; i++) {
		d = order == MPI_ORDER_C ? ndims - 1 - i : i;
		runs = mpirma_dtype_runs_alloc(array_of_subsizes[d]);
		prev = t;
		if (!runs) {
			t = NULL;
		} else {
			int k;

			for (k = 0; k < array_of_subsizes[d]; k++)
				runs[k] = (struct mpirma_dtype_run){ k * stride, 1, prev };
			t = mpirma_dtype_build(MPIRMA_COMBINER_HVECTOR, runs,
					array_of_subsizes[d]);
		}
		mpirma_dtype_unref(prev);
		if (!t)
			return RAISE(MPI_ERR_NO_MEM, "out of memory");
		offset += array_of_starts[d] * stride;
		stride *= array_of_sizes[d];
	}
	total = stride;
	runs = mpirma_dtype_runs_alloc(1);
	prev = t;
	if (runs) {
		runs[0] = (struct mpirma_dtype_run){ offset, 1, prev };
		t = mpirma_dtype_build(MPIRMA_COMBINER_SUBARRAY, runs, 1);
	} else {
		t = NULL;
	}
	mpirma_dtype_unref(prev);
	prev = t;
	t = t ? mpirma_dtype_resized(t, 0, total) : NULL;
	mpirma_dtype_unref(prev);
	if (t)
		t->combiner = MPIRMA_COMBINER_SUBARRAY;
	ret = mpirma_dtype_register(t, newtype);
	ret = mpirma_dtype_args_one(newtype, ret, old,
		       PIECES({ 1, &ndims }, { ndims, array_of_sizes },
			      { ndims, array_of_subsizes },
			      { ndims, array_of_starts }, { 1, &order }), 0, NULL);
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_create_subarray)
