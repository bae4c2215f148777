// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_pack.c - MPI_Pack, MPI_Unpack, MPI_Pack_size
 */
#include <limits.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"

/* ------------------------------------------------------------ pack */

/*
 * The arguments MPI_Pack (@pack) and MPI_Unpack share: @count elements of
 * @datatype (*@t), *@need bytes of them, must fit at *@position in the
 * packed buffer of @size bytes.  MPI class (recorded).
 */
static int pack_check(MPI_Comm comm, int count, MPI_Datatype datatype,
		      const int *position, int size, bool pack,
		      struct mpirma_dtype **t, MPI_Count *need)
{
	int ret;

	if (!mpirma_objhdr_get(MPIRMA_HK_COMM, comm))
		return mpirma_err(MPI_ERR_COMM, "invalid communicator %d", comm);
	ret = mpirma_buf_check(count, datatype, t);
	if (!ret && (!position || *position < 0))
		ret = mpirma_err(MPI_ERR_ARG, "bad position");
	if (ret)
		return ret;
	*need = (MPI_Count)count * (*t)->size;
	if (*position + *need > size)
		return mpirma_err(MPI_ERR_TRUNCATE, pack ?
				  "%lld bytes do not fit at %d in %d" :
				  "%lld bytes wanted at %d of %d",
				  (long long)*need, *position, size);
	return MPI_SUCCESS;
}

/* Our packed format is the type map's bytes in order (one node, one ABI). */
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
	      void *outbuf, int outsize, int *position, MPI_Comm comm)
{
	struct mpirma_dtype *t;
	MPI_Count need;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = pack_check(comm, incount, datatype, position, outsize, true, &t,
			 &need);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	mpirma_dtype_pack(t, inbuf, incount, (char *)outbuf + *position);
	*position += need;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
		int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
	struct mpirma_dtype *t;
	MPI_Count need;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = pack_check(comm, outcount, datatype, position, insize, false, &t,
			 &need);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	mpirma_dtype_unpack(t, (const char *)inbuf + *position, need, outbuf,
			    outcount);
	*position += need;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Unpack)

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
		   int *size)
{
	struct mpirma_dtype *t;
	MPI_Count need;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!mpirma_objhdr_get(MPIRMA_HK_COMM, comm))
		return mpirma_raise_comm(comm, MPI_ERR_COMM, MPIRMA_FUNC,
					 "invalid communicator %d", comm);
	ret = mpirma_dtype_check(datatype, false, &t);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	if (incount < 0)
		return mpirma_raise_comm(comm, MPI_ERR_COUNT, MPIRMA_FUNC,
					 "negative count %d", incount);
	if (!size)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "size is NULL");
	need = (MPI_Count)incount * t->size;
	*size = need > INT_MAX ? MPI_UNDEFINED : (int)need;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Pack_size)
