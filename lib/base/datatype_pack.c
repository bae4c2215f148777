// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_pack.c - MPI_Pack, MPI_Unpack, MPI_Pack_size and their large-count
 * forms (the portable "external32" ones are in datatype_ext32.c)
 */
#include <limits.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"

/* ------------------------------------------------------------ pack */

/*
 * The arguments MPI_Pack (@pack) and MPI_Unpack share: @count elements of
 * @datatype (*@t), *@need bytes of them, must fit at @position in the
 * packed buffer of @size bytes.  MPI class (recorded).
 */
static int pack_check(MPI_Comm comm, MPI_Count count, MPI_Datatype datatype,
		      const MPI_Count *position, MPI_Count size, bool pack,
		      struct mpirma_dtype **t, MPI_Count *need)
{
	int ret;

	if (!mpirma_objhdr_get(MPIRMA_HK_COMM, comm))
		return mpirma_err(MPI_ERR_COMM, "invalid communicator %d", comm);
	ret = mpirma_dtype_size_check(count, datatype, true, t, need);
	if (!ret && (!position || *position < 0))
		ret = mpirma_err(MPI_ERR_ARG, "bad position");
	if (ret)
		return ret;
	if (*position > size || *need > size - *position)
		return mpirma_err(MPI_ERR_TRUNCATE, pack ?
				  "%lld bytes do not fit at %lld in %lld" :
				  "%lld bytes wanted at %lld of %lld",
				  (long long)*need, (long long)*position,
				  (long long)size);
	return MPI_SUCCESS;
}

/* MPI_Pack with every number an MPI_Count.  MPI class (recorded). */
static int pack(const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
		void *outbuf, MPI_Count outsize, MPI_Count *position,
		MPI_Comm comm)
{
	struct mpirma_dtype *t;
	MPI_Count need;
	int ret = pack_check(comm, incount, datatype, position, outsize, true,
			     &t, &need);

	if (ret)
		return ret;
	mpirma_dtype_pack(t, inbuf, incount, (char *)outbuf + *position);
	*position += need;
	return MPI_SUCCESS;
}

static int unpack(const void *inbuf, MPI_Count insize, MPI_Count *position,
		  void *outbuf, MPI_Count outcount, MPI_Datatype datatype,
		  MPI_Comm comm)
{
	struct mpirma_dtype *t;
	MPI_Count need;
	int ret = pack_check(comm, outcount, datatype, position, insize, false,
			     &t, &need);

	if (ret)
		return ret;
	mpirma_dtype_unpack(t, (const char *)inbuf + *position, need, outbuf,
			    outcount);
	*position += need;
	return MPI_SUCCESS;
}

/* Our packed format is the type map's bytes in order (one node, one ABI). */
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
	      void *outbuf, int outsize, int *position, MPI_Comm comm)
{
	MPI_Count pos = position ? *position : -1;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = pack(inbuf, incount, datatype, outbuf, outsize, &pos, comm);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*position = (int)pos;	/* at most outsize */
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Pack)

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
		void *outbuf, MPI_Count outsize, MPI_Count *position,
		MPI_Comm comm)
{
	MPI_Count pos = position ? *position : -1;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = pack(inbuf, incount, datatype, outbuf, outsize, &pos, comm);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*position = pos;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Pack_c)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
		int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
	MPI_Count pos = position ? *position : -1;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = unpack(inbuf, insize, &pos, outbuf, outcount, datatype, comm);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*position = (int)pos;	/* at most insize */
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Unpack)

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position,
		  void *outbuf, MPI_Count outcount, MPI_Datatype datatype,
		  MPI_Comm comm)
{
	MPI_Count pos = position ? *position : -1;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = unpack(inbuf, insize, &pos, outbuf, outcount, datatype, comm);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*position = pos;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Unpack_c)

/* MPI_Pack_size: the bytes of @incount elements.  MPI class (recorded). */
static int pack_size(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
		     const void *size, MPI_Count *need)
{
	if (!mpirma_objhdr_get(MPIRMA_HK_COMM, comm))
		return mpirma_err(MPI_ERR_COMM, "invalid communicator %d", comm);
	if (!size)
		return mpirma_err(MPI_ERR_ARG, "size is NULL");
	return mpirma_dtype_size_check(incount, datatype, false, NULL, need);
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
		   int *size)
{
	MPI_Count need;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = pack_size(incount, datatype, comm, size, &need);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*size = need > INT_MAX ? MPI_UNDEFINED : (int)need;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Pack_size)

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
		     MPI_Count *size)
{
	MPI_Count need;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = pack_size(incount, datatype, comm, size, &need);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*size = need;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Pack_size_c)
