// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * topo.c - Cartesian process topologies (MPI_Cart_*, MPI_Dims_create),
 * which stencil codes use to find the neighbours they put to.
 *
 * A Cartesian communicator is an ordinary communicator with a struct
 * mpirma_topo attached.  Ranks are laid out in row-major order (the last
 * dimension varies fastest); "reorder" is ignored, so comm rank i of the new
 * communicator is rank i of the old one.  Graph topologies do not exist.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

struct mpirma_topo {
	int ndims;
	int dims_periods[];	/* dims[ndims], then periods[ndims] */
};

static int *topo_dims(struct mpirma_topo *t)
{
	return t->dims_periods;
}

static int *topo_periods(struct mpirma_topo *t)
{
	return t->dims_periods + t->ndims;
}

static size_t topo_size(int ndims)
{
	return sizeof(struct mpirma_topo) + 2 * (size_t)ndims * sizeof(int);
}

int mpirma_topo_copy(const struct mpirma_comm *from, struct mpirma_comm *to)
{
	if (!from->topo)
		return MPI_SUCCESS;
	to->topo = malloc(topo_size(from->topo->ndims));
	if (!to->topo)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	memcpy(to->topo, from->topo, topo_size(from->topo->ndims));
	return MPI_SUCCESS;
}

static void rank_to_coords(struct mpirma_topo *t, int rank, int *coords)
{
	int i;

	for (i = t->ndims - 1; i >= 0; i--) {
		coords[i] = rank % topo_dims(t)[i];
		rank /= topo_dims(t)[i];
	}
}

/* Rank of @coords, wrapping periodic dimensions; -1 when outside. */
static int coords_to_rank(struct mpirma_topo *t, const int *coords)
{
	int i, rank = 0;

	for (i = 0; i < t->ndims; i++) {
		int d = topo_dims(t)[i], c = coords[i];

		if (topo_periods(t)[i])
			c = ((c % d) + d) % d;
		else if (c < 0 || c >= d)
			return -1;
		rank = rank * d + c;
	}
	return rank;
}

/* The communicator and its Cartesian topology, or a raised error. */
#define GET_CART(c, t, handle)						\
	do {								\
		MPIRMA_GET_COMM(c, handle);				\
		t = c->topo;						\
		if (!t)							\
			return mpirma_raise_comm(handle, MPI_ERR_TOPOLOGY, \
						 MPIRMA_FUNC, "the "	\
						 "communicator has no "	\
						 "Cartesian topology");	\
	} while (0)

static int largest_prime_factor(int n)
{
	int f, last = n;

	for (f = 2; (long)f * f <= n; f++)
		while (n % f == 0) {
			last = f;
			n /= f;
		}
	return n > 1 ? n : last;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
	int i, rest = nnodes, nfree = 0, p;

	MPIRMA_CHECK_INIT();
	if (nnodes < 1 || ndims < 0)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "nnodes %d, ndims "
				    "%d", nnodes, ndims);
	for (i = 0; i < ndims; i++) {
		if (dims[i] < 0)
			return mpirma_raise(MPI_ERR_DIMS, MPIRMA_FUNC,
					    "dims[%d] is negative", i);
		if (dims[i] == 0) {
			nfree++;
			continue;
		}
		if (rest % dims[i])
			return mpirma_raise(MPI_ERR_DIMS, MPIRMA_FUNC,
					    "the fixed dimensions do not "
					    "divide %d", nnodes);
		rest /= dims[i];
	}
	if (!nfree) {
		if (rest != 1)
			return mpirma_raise(MPI_ERR_DIMS, MPIRMA_FUNC,
					    "the dimensions do not multiply "
					    "to %d", nnodes);
		return MPI_SUCCESS;
	}
	for (i = 0; i < ndims; i++)
		if (dims[i] == 0)
			dims[i] = -1;	/* free, product 1 so far */
	/*
	 * Largest prime factors first, each to the free dimension with the
	 * smallest product: as square as a greedy split gets.
	 */
	while (rest > 1) {
		int best = -1;

		p = largest_prime_factor(rest);
		for (i = 0; i < ndims; i++)
			if (dims[i] < 0 && (best < 0 || -dims[i] < -dims[best]))
				best = i;
		dims[best] *= p;
		rest /= p;
	}
	/* Free dimensions in non-increasing order, as the standard wants. */
	for (i = 0; i < ndims; i++) {
		int j;

		if (dims[i] > 0)
			continue;
		for (j = i + 1; j < ndims; j++)
			if (dims[j] < 0 && -dims[j] > -dims[i]) {
				int tmp = dims[i];

				dims[i] = dims[j];
				dims[j] = tmp;
			}
		dims[i] = -dims[i];
	}
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Dims_create)

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
		     const int periods[], int reorder, MPI_Comm *comm_cart)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;
	long total = 1;
	int i, ret;

	(void)reorder;
	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm_old);
	if (ndims < 0)
		return mpirma_raise_comm(comm_old, MPI_ERR_DIMS, MPIRMA_FUNC,
					 "negative ndims %d", ndims);
	for (i = 0; i < ndims; i++) {
		if (dims[i] <= 0)
			return mpirma_raise_comm(comm_old, MPI_ERR_DIMS,
						 MPIRMA_FUNC, "dims[%d] = %d",
						 i, dims[i]);
		total *= dims[i];
		if (total > c->size)
			return mpirma_raise_comm(comm_old, MPI_ERR_DIMS,
						 MPIRMA_FUNC, "the grid has "
						 "more points than the %d "
						 "processes", c->size);
	}
	ret = mpirma_comm_split(comm_old, c->rank < total ? 0 : MPI_UNDEFINED,
				c->rank, comm_cart);
	if (ret || *comm_cart == MPI_COMM_NULL)
		return mpirma_raise_comm(comm_old, ret, MPIRMA_FUNC, NULL);
	t = malloc(topo_size(ndims));
	if (!t) {
		PMPI_Comm_free(comm_cart);
		return mpirma_raise_comm(comm_old, MPI_ERR_NO_MEM, MPIRMA_FUNC,
					 NULL);
	}
	t->ndims = ndims;
	for (i = 0; i < ndims; i++) {
		topo_dims(t)[i] = dims[i];
		topo_periods(t)[i] = periods[i] != 0;
	}
	mpirma_comm_get(*comm_cart)->topo = t;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cart_create)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;

	MPIRMA_CHECK_INIT();
	GET_CART(c, t, comm);
	*ndims = t->ndims;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cartdim_get)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
		  int coords[])
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;
	int i, *mine;

	MPIRMA_CHECK_INIT();
	GET_CART(c, t, comm);
	if (maxdims < t->ndims)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "maxdims %d < ndims %d", maxdims,
					 t->ndims);
	mine = malloc((t->ndims + 1) * sizeof(int));
	if (!mine)
		return mpirma_raise_comm(comm, MPI_ERR_NO_MEM, MPIRMA_FUNC, NULL);
	rank_to_coords(t, c->rank, mine);
	for (i = 0; i < t->ndims; i++) {
		dims[i] = topo_dims(t)[i];
		periods[i] = topo_periods(t)[i];
		coords[i] = mine[i];
	}
	free(mine);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cart_get)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;

	MPIRMA_CHECK_INIT();
	GET_CART(c, t, comm);
	*rank = coords_to_rank(t, coords);
	if (*rank < 0)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "coordinates outside a non-periodic "
					 "dimension");
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cart_rank)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;

	MPIRMA_CHECK_INIT();
	GET_CART(c, t, comm);
	if (rank < 0 || rank >= c->size)
		return mpirma_raise_comm(comm, MPI_ERR_RANK, MPIRMA_FUNC,
					 "rank %d of %d", rank, c->size);
	if (maxdims < t->ndims)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "maxdims %d < ndims %d", maxdims,
					 t->ndims);
	rank_to_coords(t, rank, coords);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cart_coords)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
		    int *rank_dest)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;
	int *co, keep, r;

	MPIRMA_CHECK_INIT();
	GET_CART(c, t, comm);
	if (direction < 0 || direction >= t->ndims)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "direction %d of %d dimensions",
					 direction, t->ndims);
	co = malloc(t->ndims * sizeof(int));
	if (!co)
		return mpirma_raise_comm(comm, MPI_ERR_NO_MEM, MPIRMA_FUNC, NULL);
	rank_to_coords(t, c->rank, co);
	keep = co[direction];
	co[direction] = keep + disp;
	r = coords_to_rank(t, co);
	*rank_dest = r < 0 ? MPI_PROC_NULL : r;
	co[direction] = keep - disp;
	r = coords_to_rank(t, co);
	*rank_source = r < 0 ? MPI_PROC_NULL : r;
	free(co);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cart_shift)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t, *nt;
	int *co, i, n = 0, color = 0, key = 0, ret;

	MPIRMA_CHECK_INIT();
	GET_CART(c, t, comm);
	co = malloc((t->ndims + 1) * sizeof(int));
	nt = malloc(topo_size(t->ndims));
	if (!co || !nt) {
		free(co);
		free(nt);
		return mpirma_raise_comm(comm, MPI_ERR_NO_MEM, MPIRMA_FUNC, NULL);
	}
	rank_to_coords(t, c->rank, co);
	/* Colour: the coordinates dropped; key: those kept (row-major). */
	for (i = 0; i < t->ndims; i++) {
		if (remain_dims[i]) {
			key = key * topo_dims(t)[i] + co[i];
			topo_dims(nt)[n] = topo_dims(t)[i];
			nt->dims_periods[t->ndims + n] = topo_periods(t)[i];
			n++;
		} else {
			color = color * topo_dims(t)[i] + co[i];
		}
	}
	free(co);
	ret = mpirma_comm_split(comm, color, key, newcomm);
	if (ret) {
		free(nt);
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	}
	/* Pack periods right after the n kept dims. */
	memmove(nt->dims_periods + n, nt->dims_periods + t->ndims,
		n * sizeof(int));
	nt->ndims = n;
	mpirma_comm_get(*newcomm)->topo = nt;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cart_sub)

MPIRMA_COMM_QUERY(Topo_test, int, o->topo ? MPI_CART : MPI_UNDEFINED)
