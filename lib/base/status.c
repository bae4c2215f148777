// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * status.c - the status setters for generalized requests and layered
 * libraries: MPI_Status_set_elements(_x) and MPI_Status_set_cancelled;
 * the library's own (mpirma_status_*), which the requests use.
 * A status holds the bytes received (mpirma_count), from which
 * MPI_Get_count and MPI_Get_elements (datatype.c) compute their answers,
 * so a setter stores the bytes that @count elements of the type occupy.
 */
#include "datatype.h"
#include "internal.h"

/* The bytes of @count basic elements of @t: whole instances, then a part. */
static MPI_Count elements_bytes(const struct mpirma_dtype *t, MPI_Count count)
{
	if (!t->nbasic)
		return 0;
	/* a partial instance: its elements taken as all of one size */
	return count / t->nbasic * t->size +
	       count % t->nbasic * (t->size / t->nbasic);
}

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
			       MPI_Count count)
{
	struct mpirma_dtype *t;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_dtype_check(datatype, false, &t);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	if (!status || status == MPI_STATUS_IGNORE)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "status is NULL");
	if (count < 0)
		return mpirma_raise(MPI_ERR_COUNT, MPIRMA_FUNC,
				    "negative count %lld", (long long)count);
	status->mpirma_count = elements_bytes(t, count);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Status_set_elements_x)

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype,
			     int count)
{
	return PMPI_Status_set_elements_x(status, datatype, count);
}
MPIRMA_ALIAS(Status_set_elements)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
	MPIRMA_CHECK_INIT();
	if (!status || status == MPI_STATUS_IGNORE)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "status is NULL");
	status->mpirma_cancelled = !!flag;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Status_set_cancelled)

/*
 * MPI_Type_match_size: the Fortran-sized type of @typeclass and @size, as
 * Fortran's SELECTED_INT_KIND and SELECTED_REAL_KIND results map onto.
 */
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
	static const struct {
		int typeclass, size;
		MPI_Datatype type;
	} match[] = {
		{ MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 },
		{ MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },
		{ MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 },
		{ MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
		{ MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16 },
		{ MPI_TYPECLASS_REAL, 4, MPI_REAL4 },
		{ MPI_TYPECLASS_REAL, 8, MPI_REAL8 },
		/* no REAL*16 (quad): C's long double is the 16-byte real */
		{ MPI_TYPECLASS_REAL, 16, MPI_LONG_DOUBLE },
		{ MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX },
		{ MPI_TYPECLASS_COMPLEX, 16, MPI_DOUBLE_COMPLEX },
		{ MPI_TYPECLASS_COMPLEX, 32, MPI_C_LONG_DOUBLE_COMPLEX },
	};
	size_t k;

	MPIRMA_CHECK_INIT();
	if (!datatype)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "datatype is NULL");
	for (k = 0; k < sizeof(match) / sizeof(match[0]); k++) {
		if (match[k].typeclass == typeclass && match[k].size == size) {
			*datatype = match[k].type;
			return MPI_SUCCESS;
		}
	}
	return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "no predefined type of "
			    "type class %d has %d bytes", typeclass, size);
}
MPIRMA_ALIAS(Type_match_size)

void mpirma_status_empty(MPI_Status *st)
{
	mpirma_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
}

void mpirma_status_set(MPI_Status *st, int source, int tag, int error,
		       MPI_Count bytes)
{
	st->MPI_SOURCE = source;
	st->MPI_TAG = tag;
	st->MPI_ERROR = error;
	st->mpirma_cancelled = 0;
	st->mpirma_count = bytes;
}

void mpirma_status_out(MPI_Status *out, const MPI_Status *st)
{
	int err;

	if (!out || out == MPI_STATUS_IGNORE)
		return;
	err = out->MPI_ERROR;
	*out = *st;
	out->MPI_ERROR = err;
}

void mpirma_status_user(MPI_Status *out, int source, int tag,
			MPI_Count bytes)
{
	MPI_Status st;

	mpirma_status_set(&st, source, tag, MPI_SUCCESS, bytes);
	mpirma_status_out(out, &st);
}
