// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * topo.c - Cartesian process topologies (MPI_Cart_*, MPI_Dims_create),
 * which stencil codes use to find the neighbours they put to; and what
 * every topology shares (lib/runtime/topo.h): allocation, the check that a
 * communicator has the kind a call needs, the copy MPI_Comm_dup makes,
 * MPI_Topo_test.  Graphs are in topo_graph.c.
 *
 * A Cartesian communicator is an ordinary communicator with a struct
 * mpirma_topo attached.  Ranks are laid out in row-major order (the last
 * dimension varies fastest); "reorder" is ignored, so comm rank i of the new
 * communicator is rank i of the old one.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "topo.h"
#include "../fortran_hooks.h"

static int *topo_dims(struct mpirma_topo *t)
{
	return t->data;
}

static int *topo_periods(struct mpirma_topo *t)
{
	return t->data + t->cart.ndims;
}

struct mpirma_topo *mpirma_topo_alloc(int kind, size_t nints)
{
	size_t bytes = sizeof(struct mpirma_topo) + nints * sizeof(int);
	struct mpirma_topo *t = calloc(1, bytes);

	if (t) {
		t->kind = kind;
		t->bytes = bytes;
	}
	return t;
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case MPI_CART:
		return "a Cartesian topology";
	case MPI_GRAPH:
		return "a graph topology";
	default:
		return "a distributed graph topology";
	}
}

int mpirma_topo_get(MPI_Comm comm, int kind, struct mpirma_comm **c,
		    struct mpirma_topo **t)
{
	*c = mpirma_comm_get(comm);
	if (!*c)
		return mpirma_err(MPI_ERR_COMM, "invalid communicator %d", comm);
	*t = (*c)->topo;
	if (!*t)
		return mpirma_err(MPI_ERR_TOPOLOGY, "the communicator has no "
				  "topology, not %s", kind_name(kind));
	if ((*t)->kind != kind)
		return mpirma_err(MPI_ERR_TOPOLOGY, "the communicator has %s, "
				  "not %s", kind_name((*t)->kind),
				  kind_name(kind));
	return MPI_SUCCESS;
}

int mpirma_topo_copy(const struct mpirma_comm *from, struct mpirma_comm *to)
{
	if (!from->topo)
		return MPI_SUCCESS;
	to->topo = malloc(from->topo->bytes);
	if (!to->topo)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	memcpy(to->topo, from->topo, from->topo->bytes);
	return MPI_SUCCESS;
}

static void rank_to_coords(struct mpirma_topo *t, int rank, int *coords)
{
	int i;

	for (i = t->cart.ndims - 1; i >= 0; i--) {
		coords[i] = rank % topo_dims(t)[i];
		rank /= topo_dims(t)[i];
	}
}

/* Rank of @coords, wrapping periodic dimensions; -1 when outside. */
static int coords_to_rank(struct mpirma_topo *t, const int *coords)
{
	int i, rank = 0;

	for (i = 0; i < t->cart.ndims; i++) {
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
#define GET_CART(c, t, handle) MPIRMA_GET_TOPO(c, t, handle, MPI_CART)

/*
 * The search for MPI_Dims_create's split of n into k factors: cur[] the
 * factors chosen so far, non-decreasing; best[] (range: its largest minus
 * its smallest, -1 before the first) the best complete split found.
 */
struct dims_search {
	int k;
	const int *divs;	/* the divisors of n, increasing */
	int ndivs;
	int *cur;
	int *best;
	int range;
};

/* Is @f to the power @m more than @rest? */
static bool pow_exceeds(int f, int m, int rest)
{
	long long v = 1;

	while (m-- > 0) {
		v *= f;
		if (v > rest)
			return true;
	}
	return false;
}

/*
 * Factor @i onwards of a split of @rest.  The best split has the smallest
 * range; of equal ranges, the one whose smallest factors are the largest
 * (compared from the smallest up), which is MPICH's choice too.
 */
static void dims_try(struct dims_search *s, int i, int rest)
{
	int j, lo = i ? s->cur[i - 1] : 1;

	if (i == s->k - 1) {
		int range;

		if (rest < lo)
			return;
		s->cur[i] = rest;
		range = rest - s->cur[0];
		if (s->range >= 0 && range > s->range)
			return;
		if (s->range >= 0 && range == s->range) {
			for (j = 0; j < s->k && s->cur[j] == s->best[j]; j++)
				;
			if (j == s->k || s->cur[j] < s->best[j])
				return;
		}
		memcpy(s->best, s->cur, s->k * sizeof(int));
		s->range = range;
		return;
	}
	for (j = 0; j < s->ndivs; j++) {
		int f = s->divs[j];

		if (f < lo || rest % f)
			continue;
		/* the factors after it are at least f */
		if (pow_exceeds(f, s->k - i, rest))
			break;
		if (i && s->range >= 0 && f - s->cur[0] > s->range)
			break;
		s->cur[i] = f;
		dims_try(s, i + 1, rest / f);
	}
}

/*
 * The most balanced split of @n into @k factors, into @out in
 * non-increasing order (the standard's "as close to each other as
 * possible").  MPI class.
 */
static int dims_balance(int n, int k, int *out)
{
	struct dims_search s = { .k = k, .range = -1 };
	int *divs, d, i, ret = MPI_SUCCESS;

	divs = malloc(2 * 1600 * sizeof(int));	/* an int has < 1600 */
	s.cur = malloc(2 * k * sizeof(int));
	if (!divs || !s.cur) {
		ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		goto out;
	}
	s.best = s.cur + k;
	for (d = 1; (long)d * d <= n; d++)
		if (n % d == 0) {
			divs[s.ndivs++] = d;
			if (d != n / d)
				divs[1600 + s.ndivs - 1] = n / d;
		}
	/* the large halves, increasing after the small ones */
	for (i = s.ndivs - 1, d = s.ndivs; i >= 0; i--)
		if (divs[i] != n / divs[i])
			divs[d++] = divs[1600 + i];
	s.divs = divs;
	s.ndivs = d;
	dims_try(&s, 0, n);
	for (i = 0; i < k; i++)
		out[i] = s.best[k - 1 - i];
out:
	free(divs);
	free(s.cur);
	return ret;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
	int i, rest = nnodes, nfree = 0, p, *split, ret;

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
	split = malloc(nfree * sizeof(int));
	ret = split ? dims_balance(rest, nfree, split) :
	      mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	/* the free dimensions in non-increasing order, as the standard wants */
	for (i = 0, p = 0; !ret && i < ndims; i++)
		if (dims[i] == 0)
			dims[i] = split[p++];
	free(split);
	return mpirma_raise(ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Dims_create)

/* The grid of Cart_create and Cart_map: *@total points.  MPI class. */
static int grid_check(const struct mpirma_comm *c, int ndims,
		      const int dims[], long *total)
{
	int i;

	*total = 1;
	if (ndims < 0)
		return mpirma_err(MPI_ERR_DIMS, "negative ndims %d", ndims);
	for (i = 0; i < ndims; i++) {
		if (dims[i] <= 0)
			return mpirma_err(MPI_ERR_DIMS, "dims[%d] = %d", i,
					  dims[i]);
		*total *= dims[i];
		if (*total > c->size)
			return mpirma_err(MPI_ERR_DIMS, "the grid has more "
					  "points than the %d processes",
					  c->size);
	}
	return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
		     const int periods[], int reorder, MPI_Comm *comm_cart)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;
	long total;
	int i, ret;

	(void)reorder;
	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm_old);
	ret = grid_check(c, ndims, dims, &total);
	if (ret)
		return mpirma_raise_comm(comm_old, ret, MPIRMA_FUNC, NULL);
	ret = mpirma_comm_split(comm_old, c->rank < total ? 0 : MPI_UNDEFINED,
				c->rank, comm_cart);
	if (ret || *comm_cart == MPI_COMM_NULL)
		return mpirma_raise_comm(comm_old, ret, MPIRMA_FUNC, NULL);
	t = mpirma_topo_alloc(MPI_CART, 2 * (size_t)ndims);
	if (!t) {
		PMPI_Comm_free(comm_cart);
		return mpirma_raise_comm(comm_old, MPI_ERR_NO_MEM, MPIRMA_FUNC,
					 NULL);
	}
	t->cart.ndims = ndims;
	for (i = 0; i < ndims; i++) {
		topo_dims(t)[i] = dims[i];
		topo_periods(t)[i] = periods[i] != 0;
	}
	mpirma_comm_get(*comm_cart)->topo = t;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cart_create)

/* The rank Cart_create would give the caller: reorder is identity. */
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[],
		  const int periods[], int *newrank)
{
	struct mpirma_comm *c;
	long total;
	int ret;

	(void)periods;
	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	ret = grid_check(c, ndims, dims, &total);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*newrank = c->rank < total ? c->rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cart_map)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;

	MPIRMA_CHECK_INIT();
	GET_CART(c, t, comm);
	*ndims = t->cart.ndims;
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
	if (maxdims < t->cart.ndims)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "maxdims %d < ndims %d", maxdims,
					 t->cart.ndims);
	mine = malloc((t->cart.ndims + 1) * sizeof(int));
	if (!mine)
		return mpirma_raise_comm(comm, MPI_ERR_NO_MEM, MPIRMA_FUNC, NULL);
	rank_to_coords(t, c->rank, mine);
	for (i = 0; i < t->cart.ndims; i++) {
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
	if (maxdims < t->cart.ndims)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "maxdims %d < ndims %d", maxdims,
					 t->cart.ndims);
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
	if (direction < 0 || direction >= t->cart.ndims)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "direction %d of %d dimensions",
					 direction, t->cart.ndims);
	co = malloc(t->cart.ndims * sizeof(int));
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
	co = malloc((t->cart.ndims + 1) * sizeof(int));
	nt = mpirma_topo_alloc(MPI_CART, 2 * (size_t)t->cart.ndims);
	if (!co || !nt) {
		free(co);
		free(nt);
		return mpirma_raise_comm(comm, MPI_ERR_NO_MEM, MPIRMA_FUNC, NULL);
	}
	rank_to_coords(t, c->rank, co);
	/* Colour: the coordinates dropped; key: those kept (row-major). */
	for (i = 0; i < t->cart.ndims; i++) {
		if (remain_dims[i]) {
			key = key * topo_dims(t)[i] + co[i];
			topo_dims(nt)[n] = topo_dims(t)[i];
			nt->data[t->cart.ndims + n] = topo_periods(t)[i];
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
	memmove(nt->data + n, nt->data + t->cart.ndims, n * sizeof(int));
	nt->cart.ndims = n;
	mpirma_comm_get(*newcomm)->topo = nt;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cart_sub)

/*
 * The Cartesian neighbours: per dimension the rank at -1, then at +1, into
 * @out[0 .. 2 * ndims); @out[2 * ndims .. 3 * ndims) is scratch.
 */
static void cart_neighbors(struct mpirma_topo *t, int rank, int *out)
{
	int *co = out + 2 * t->cart.ndims, d, s, r;

	rank_to_coords(t, rank, co);
	for (d = 0; d < t->cart.ndims; d++)
		for (s = -1; s <= 1; s += 2) {
			co[d] += s;
			r = coords_to_rank(t, co);
			co[d] -= s;
			*out++ = r < 0 ? MPI_PROC_NULL : r;
		}
}

/* @c's in- and out-degree in its topology @t. */
static void topo_degrees(const struct mpirma_comm *c,
			 const struct mpirma_topo *t, int *nin, int *nout)
{
	switch (t->kind) {
	case MPI_CART:
		*nin = *nout = 2 * t->cart.ndims;
		break;
	case MPI_GRAPH:	/* edges[index[r - 1] .. index[r]) both ways */
		*nin = *nout = t->data[c->rank] -
			       (c->rank ? t->data[c->rank - 1] : 0);
		break;
	default:
		*nin = t->dist.indegree;
		*nout = t->dist.outdegree;
		break;
	}
}

int mpirma_topo_neighbors(const struct mpirma_comm *c, int *nin, int *nout,
			  int **ranks)
{
	struct mpirma_topo *t = c->topo;
	const int *from = NULL;
	size_t n;

	*ranks = NULL;
	if (!t)
		return mpirma_err(MPI_ERR_TOPOLOGY, "the communicator has no "
				  "topology: a neighborhood collective needs "
				  "one");
	topo_degrees(c, t, nin, nout);
	n = (size_t)*nin + *nout;
	if (t->kind == MPI_GRAPH) {
		from = t->data + t->graph.nnodes;
		if (c->rank)
			from += t->data[c->rank - 1];
	}
	*ranks = malloc(n ? n * sizeof(int) : 1);
	if (!*ranks)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	if (t->kind == MPI_CART) {
		cart_neighbors(t, c->rank, *ranks);
		memcpy(*ranks + *nin, *ranks, *nin * sizeof(int));
	} else if (t->kind == MPI_GRAPH) {
		memcpy(*ranks, from, *nin * sizeof(int));
		memcpy(*ranks + *nin, from, *nin * sizeof(int));
	} else {
		memcpy(*ranks, t->data, *nin * sizeof(int));
		memcpy(*ranks + *nin, t->data + 2 * *nin, *nout * sizeof(int));
	}
	return MPI_SUCCESS;
}

MPIRMA_COMM_QUERY(Topo_test, int, o->topo ? o->topo->kind : MPI_UNDEFINED)

void mpirma_comm_w_lengths(MPI_Comm comm, int *peers, int *indeg,
			   int *outdeg)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_comm *c = NULL;

	*peers = *indeg = *outdeg = 0;
	if (mpirma_proc.state == MPIRMA_STATE_RUNNING)
		c = mpirma_comm_get(comm);
	if (!c)
		return;
	*peers = mpirma_comm_peer_size(c);
	if (c->topo)
		topo_degrees(c, c->topo, indeg, outdeg);
}
