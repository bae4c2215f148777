// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_query.c - what a datatype says of itself: its envelope and
 * contents, size and extents, name; addresses; counts in a status
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"

/* ------------------------------------------------------------ decoding */

/*
 * The envelope: @nc is NULL for MPI_Type_get_envelope, which cannot say
 * that a type has large counts (MPI_ERR_TYPE: decode it with the _c form).
 */
static int envelope(MPI_Datatype datatype, MPI_Count *ni, MPI_Count *na,
		    MPI_Count *nc, MPI_Count *nt, int *combiner)
{
	struct mpirma_dtype *t;
	int ret = mpirma_dtype_check(datatype, false, &t);

	if (ret)
		return ret;
	if (!combiner)
		return mpirma_err(MPI_ERR_ARG, "NULL output argument");
	if (!nc && t->args.nc)
		return mpirma_err(MPI_ERR_TYPE, "datatype %d was built by a "
				  "large-count constructor: decode it with "
				  "MPI_Type_get_envelope_c", datatype);
	*ni = t->args.ni;
	*na = t->args.na;
	if (nc)
		*nc = t->args.nc;
	*nt = t->args.nt;
	*combiner = t->predefined ? MPI_COMBINER_NAMED : t->combiner;
	return MPI_SUCCESS;
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
			   int *num_addresses, int *num_datatypes,
			   int *combiner)
{
	MPI_Count ni, na, nt;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!num_integers || !num_addresses || !num_datatypes)
		return RAISE(MPI_ERR_ARG, "NULL output argument");
	ret = envelope(datatype, &ni, &na, NULL, &nt, combiner);
	if (!ret) {
		*num_integers = ni;
		*num_addresses = na;
		*num_datatypes = nt;
	}
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_get_envelope)

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
			     MPI_Count *num_addresses,
			     MPI_Count *num_large_counts,
			     MPI_Count *num_datatypes, int *combiner)
{
	MPIRMA_CHECK_INIT();
	if (!num_integers || !num_addresses || !num_large_counts ||
	    !num_datatypes)
		return RAISE(MPI_ERR_ARG, "NULL output argument");
	return RAISE(envelope(datatype, num_integers, num_addresses,
			      num_large_counts, num_datatypes, combiner),
		     NULL);
}
MPIRMA_ALIAS(Type_get_envelope_c)

/*
 * The contents into arrays of room for @max_*; MPI_Type_get_contents
 * (not @large) refuses a type with large counts.
 *
 * The types come back as handles the caller owns: a predefined type (and
 * an f90 one) as itself, a derived one as a new handle to the same
 * (immutable) object, which MPI_Type_free releases like any other.
 */
static int contents(MPI_Datatype datatype, MPI_Count max_integers,
		    MPI_Count max_addresses, MPI_Count max_counts,
		    MPI_Count max_datatypes, bool large, int *ints,
		    MPI_Aint *aints, MPI_Count *counts, MPI_Datatype *types)
{
	struct mpirma_dtype_args *a;
	struct mpirma_dtype *t;
	int i, h, ret = mpirma_dtype_check(datatype, false, &t);

	if (ret)
		return ret;
	if (t->predefined)
		return mpirma_err(MPI_ERR_TYPE, "%s is a named type: it has no "
				  "contents", t->hdr.name);
	a = &t->args;
	if (!large && a->nc)
		return mpirma_err(MPI_ERR_TYPE, "datatype %d was built by a "
				  "large-count constructor: decode it with "
				  "MPI_Type_get_contents_c", datatype);
	if (max_integers < a->ni || max_addresses < a->na ||
	    max_counts < a->nc || max_datatypes < a->nt)
		return mpirma_err(MPI_ERR_ARG, "room for %lld integers, %lld "
				  "addresses, %lld large counts and %lld "
				  "datatypes; the type needs %d, %d, %d and %d",
				  (long long)max_integers,
				  (long long)max_addresses,
				  (long long)max_counts,
				  (long long)max_datatypes, a->ni, a->na,
				  a->nc, a->nt);
	if ((a->ni && !ints) || (a->na && !aints) || (a->nc && !counts) ||
	    (a->nt && !types))
		return mpirma_err(MPI_ERR_ARG, "NULL array");
	for (i = 0; i < a->nt; i++) {
		struct mpirma_dtype *c = a->types[i];

		if (c->predefined || c->permanent) {
			types[i] = c->handle;
			continue;
		}
		h = mpirma_handle_alloc(MPIRMA_HK_DATATYPE, c);
		if (!h) {
			while (i-- > 0)
				PMPI_Type_free(&types[i]);
			return mpirma_err(MPI_ERR_NO_MEM,
					  "out of datatype handles");
		}
		mpirma_dtype_ref(c);
		types[i] = h;
	}
	if (a->ni)
		memcpy(ints, a->ints, a->ni * sizeof(int));
	if (a->na)
		memcpy(aints, a->aints, a->na * sizeof(MPI_Aint));
	if (a->nc)
		memcpy(counts, a->counts, a->nc * sizeof(MPI_Count));
	return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
			   int max_addresses, int max_datatypes,
			   int array_of_integers[],
			   MPI_Aint array_of_addresses[],
			   MPI_Datatype array_of_datatypes[])
{
	MPIRMA_CHECK_INIT();
	return RAISE(contents(datatype, max_integers, max_addresses, 0,
			      max_datatypes, false, array_of_integers,
			      array_of_addresses, NULL, array_of_datatypes),
		     NULL);
}
MPIRMA_ALIAS(Type_get_contents)

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
			     MPI_Count max_addresses,
			     MPI_Count max_large_counts,
			     MPI_Count max_datatypes, int array_of_integers[],
			     MPI_Aint array_of_addresses[],
			     MPI_Count array_of_large_counts[],
			     MPI_Datatype array_of_datatypes[])
{
	MPIRMA_CHECK_INIT();
	return RAISE(contents(datatype, max_integers, max_addresses,
			      max_large_counts, max_datatypes, true,
			      array_of_integers, array_of_addresses,
			      array_of_large_counts, array_of_datatypes), NULL);
}
MPIRMA_ALIAS(Type_get_contents_c)

/* Looks a datatype argument up for the query functions. */
#define QUERY_TYPE(dt, t)						\
	do {								\
		int qret_ = mpirma_dtype_check((dt), false, &(t));	\
		if (qret_)						\
			return RAISE(qret_, NULL);			\
	} while (0)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!size)
		return RAISE(MPI_ERR_ARG, "size is NULL");
	*size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!size)
		return RAISE(MPI_ERR_ARG, "size is NULL");
	*size = t->size;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_size_x)

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
	return PMPI_Type_size_x(datatype, size);
}
MPIRMA_ALIAS(Type_size_c)

/*
 * The extent queries: lb and extent of @datatype, or with @true_bounds its
 * true lb and true extent.  A NULL output is MPI_ERR_ARG.  MPI class
 * (recorded).
 */
static int extent_query(MPI_Datatype datatype, bool true_bounds,
			MPI_Count *lb, MPI_Count *extent)
{
	struct mpirma_dtype *t = NULL;
	int ret = mpirma_dtype_check(datatype, false, &t);

	if (ret)
		return ret;
	if (!lb || !extent)
		return mpirma_err(MPI_ERR_ARG, "NULL argument");
	*lb = true_bounds ? t->true_lb : t->lb;
	*extent = true_bounds ? t->true_ub - t->true_lb :
		  mpirma_dtype_extent(t);
	return MPI_SUCCESS;
}

/* extent_query() into MPI_Aint outputs. */
static int extent_query_aint(MPI_Datatype datatype, bool true_bounds,
			     MPI_Aint *lb, MPI_Aint *extent)
{
	MPI_Count l, e;
	int ret = extent_query(datatype, true_bounds, lb ? &l : NULL,
			       extent ? &e : NULL);

	if (!ret) {
		*lb = l;
		*extent = e;
	}
	return ret;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	MPIRMA_CHECK_INIT();
	return RAISE(extent_query_aint(datatype, false, lb, extent), NULL);
}
MPIRMA_ALIAS(Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
			   MPI_Count *extent)
{
	MPIRMA_CHECK_INIT();
	return RAISE(extent_query(datatype, false, lb, extent), NULL);
}
MPIRMA_ALIAS(Type_get_extent_x)

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb,
			   MPI_Count *extent)
{
	return PMPI_Type_get_extent_x(datatype, lb, extent);
}
MPIRMA_ALIAS(Type_get_extent_c)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
			      MPI_Aint *true_extent)
{
	MPIRMA_CHECK_INIT();
	return RAISE(extent_query_aint(datatype, true, true_lb, true_extent),
		     NULL);
}
MPIRMA_ALIAS(Type_get_true_extent)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
				MPI_Count *true_extent)
{
	MPIRMA_CHECK_INIT();
	return RAISE(extent_query(datatype, true, true_lb, true_extent), NULL);
}
MPIRMA_ALIAS(Type_get_true_extent_x)

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
				MPI_Count *true_extent)
{
	return PMPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}
MPIRMA_ALIAS(Type_get_true_extent_c)

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
	MPI_Aint lb;

	return PMPI_Type_get_extent(datatype, &lb, extent);
}
MPIRMA_ALIAS(Type_extent)

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
	MPI_Aint extent;

	return PMPI_Type_get_extent(datatype, displacement, &extent);
}
MPIRMA_ALIAS(Type_lb)

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
	MPI_Aint lb = 0, extent = 0;
	int ret = PMPI_Type_get_extent(datatype, &lb, &extent);

	if (!ret && displacement)
		*displacement = lb + extent;
	return ret;
}
MPIRMA_ALIAS(Type_ub)

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!type_name)
		return RAISE(MPI_ERR_ARG, "type_name is NULL");
	snprintf(t->hdr.name, sizeof(t->hdr.name), "%s", type_name);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!type_name || !resultlen)
		return RAISE(MPI_ERR_ARG, "NULL argument");
	snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", t->hdr.name);
	*resultlen = strlen(type_name);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Type_get_name)

/* Address arithmetic is plain integer arithmetic on this ABI. */
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
	if (!address)
		return RAISE(MPI_ERR_ARG, "address is NULL");
	*address = (MPI_Aint)(uintptr_t)location;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Get_address)

int PMPI_Address(void *location, MPI_Aint *address)
{
	return PMPI_Get_address(location, address);
}
MPIRMA_ALIAS(Address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
	return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
MPIRMA_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
	return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
MPIRMA_ALIAS(Aint_diff)

/* ------------------------------------------------------------ statuses */

/*
 * Whole elements of @datatype in @status (MPI_Get_count), MPI_UNDEFINED
 * when the bytes are not a whole number of them or they are more than
 * @max.  MPI class, recorded.
 */
static int count_of(const MPI_Status *status, MPI_Datatype datatype,
		    MPI_Count max, MPI_Count *count)
{
	struct mpirma_dtype *t;
	MPI_Count bytes;
	int ret = mpirma_dtype_check(datatype, false, &t);

	if (ret)
		return ret;
	if (!status || status == MPI_STATUS_IGNORE || !count)
		return mpirma_err(MPI_ERR_ARG, "NULL argument");
	bytes = status->mpirma_count;
	if (!t->size)
		*count = bytes ? MPI_UNDEFINED : 0;
	else if (bytes % t->size || bytes / t->size > max)
		*count = MPI_UNDEFINED;
	else
		*count = bytes / t->size;
	return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	MPI_Count c = 0;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = count_of(status, datatype, INT_MAX, count ? &c : NULL);
	if (!ret)
		*count = (int)c;
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Get_count)

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype,
		     MPI_Count *count)
{
	MPIRMA_CHECK_INIT();
	return RAISE(count_of(status, datatype, MPIRMA_MAX_SPAN, count), NULL);
}
MPIRMA_ALIAS(Get_count_c)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
			MPI_Count *count)
{
	struct mpirma_dtype *t;

	MPIRMA_CHECK_INIT();
	QUERY_TYPE(datatype, t);
	if (!status || status == MPI_STATUS_IGNORE || !count)
		return RAISE(MPI_ERR_ARG, "NULL argument");
	*count = mpirma_dtype_elements(t, status->mpirma_count);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Get_elements_x)

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype,
			MPI_Count *count)
{
	return PMPI_Get_elements_x(status, datatype, count);
}
MPIRMA_ALIAS(Get_elements_c)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
		      int *count)
{
	MPI_Count c;
	int ret;

	if (!count)
		return RAISE(MPI_ERR_ARG, "count is NULL");
	ret = PMPI_Get_elements_x(status, datatype, &c);
	if (!ret)
		*count = c > INT_MAX ? MPI_UNDEFINED : (int)c;
	return ret;
}
MPIRMA_ALIAS(Get_elements)
