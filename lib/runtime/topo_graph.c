// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * topo_graph.c - graph (MPI_Graph_*) and distributed graph
 * (MPI_Dist_graph_*) process topologies, which programs such as the OSU
 * benchmarks create to name their neighbours.
 *
 * Each is a struct mpirma_topo (topo.h) attached to a new communicator, as
 * a Cartesian one is (topo.c), so MPI_Comm_dup keeps it and MPI_Topo_test
 * reports it.  "reorder" is ignored: rank i of the new communicator is rank
 * i of the old one.  A graph keeps the index and edges arrays as given.  A
 * distributed graph keeps only the caller's own neighbours and weights: in
 * the order given (create_adjacent), or by the rank that named the edge and
 * then that rank's argument order (create).
 *
 * Creation is collective, and its arguments differ between ranks, so the
 * ranks first agree on them: a bad argument on one rank fails the call on
 * every rank (with the cause on that one) instead of leaving the others
 * waiting in a collective it never joins.
 *
 * Errors: a negative count or degree, a too short output array, a
 * negative weight or a weights argument that contradicts the degree is
 * MPI_ERR_ARG; a rank outside the communicator (or a node outside the
 * graph) MPI_ERR_RANK; a communicator without the topology a call needs
 * MPI_ERR_TOPOLOGY.  Graph_get and Graph_neighbors copy what fits, as
 * MPICH and Open MPI do for these MPI-1 calls.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "coll.h"
#include "datatype.h"
#include "topo.h"

/* ------------------------------------------------------------ agreement */

/* What each rank tells the others before a graph is built. */
struct graph_vote {
	int errclass;	/* of this rank's own checks */
	int unweighted;	/* distributed graphs: MPI_UNWEIGHTED given */
};

/*
 * Every member of @c learns every member's vote.  MPI class: @mine's
 * (cause already recorded), else the first other rank's, else
 * MPI_ERR_ARG when some ranks gave MPI_UNWEIGHTED and some did not.
 */
static int agree(struct mpirma_comm *c, struct graph_vote mine)
{
	struct graph_vote *all = malloc(c->size * sizeof(*all));
	int i, ret;

	if (!all)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	ret = mpirma_coll_allgather_bytes(c, &mine, sizeof(mine), all);
	if (!ret && mine.errclass)
		ret = mine.errclass;
	for (i = 0; !ret && i < c->size; i++)
		if (all[i].errclass)
			ret = mpirma_err(all[i].errclass, "rank %d gave an "
					 "invalid argument (%s)", i,
					 mpirma_class_name(all[i].errclass));
	for (i = 0; !ret && i < c->size; i++)
		if (all[i].unweighted != mine.unweighted)
			ret = mpirma_err(MPI_ERR_ARG, "rank %d gave %s weights "
					 "and rank %d %s: MPI_UNWEIGHTED must "
					 "be given by every rank or none "
					 "(MPI_WEIGHTS_EMPTY for no edges)",
					 c->rank, mine.unweighted ?
					 "MPI_UNWEIGHTED" : "real", i,
					 all[i].unweighted ?
					 "MPI_UNWEIGHTED" : "real ones");
	free(all);
	return ret;
}

/*
 * The communicator a topology is attached to: a copy of @c with the same
 * ranks, or MPI_COMM_NULL for the ranks past @members.  MPI class.
 */
static int topo_comm(struct mpirma_comm *c, int members, MPI_Comm *out)
{
	return mpirma_comm_split(c->handle,
				 c->rank < members ? 0 : MPI_UNDEFINED,
				 c->rank, out);
}

/* @n ints; arrays of no elements may be NULL. */
static void copy_ints(int *to, const int *from, int n)
{
	if (n > 0)
		memcpy(to, from, n * sizeof(int));
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

/* ------------------------------------------------------------ graphs */

static int *graph_index(struct mpirma_topo *t)
{
	return t->data;
}

static int *graph_edges(struct mpirma_topo *t)
{
	return t->data + t->graph.nnodes;
}

/* The arguments of Graph_create and Graph_map.  MPI class. */
static int graph_check(const struct mpirma_comm *c, int nnodes,
		       const int index[], const int edges[], int *nedges)
{
	int i;

	*nedges = 0;
	if (nnodes < 0)
		return mpirma_err(MPI_ERR_ARG, "negative nnodes %d", nnodes);
	if (nnodes > c->size)
		return mpirma_err(MPI_ERR_ARG, "nnodes %d is more than the %d "
				  "processes", nnodes, c->size);
	for (i = 0; i < nnodes; i++) {
		int prev = i ? index[i - 1] : 0;

		if (index[i] < prev)
			return mpirma_err(MPI_ERR_ARG, "index[%d] = %d is below "
					  "%d: node %d has a negative degree",
					  i, index[i], prev, i);
	}
	*nedges = nnodes ? index[nnodes - 1] : 0;
	for (i = 0; i < *nedges; i++)
		if (edges[i] < 0 || edges[i] >= nnodes)
			return mpirma_err(MPI_ERR_RANK, "edges[%d] = %d is not a "
					  "node of the %d", i, edges[i],
					  nnodes);
	return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
		      const int edges[], int reorder, MPI_Comm *comm_graph)
{
	struct graph_vote vote = { 0, 0 };
	struct mpirma_comm *c;
	struct mpirma_topo *t;
	int nedges, ret;

	(void)reorder;
	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm_old);
	ret = mpirma_comm_intra_only(c, "a graph topology");
	if (ret)
		return mpirma_raise_comm(comm_old, ret, MPIRMA_FUNC, NULL);
	vote.errclass = graph_check(c, nnodes, index, edges, &nedges);
	ret = agree(c, vote);
	if (!ret)
		ret = topo_comm(c, nnodes, comm_graph);
	if (ret || *comm_graph == MPI_COMM_NULL)
		return mpirma_raise_comm(comm_old, ret, MPIRMA_FUNC, NULL);
	t = mpirma_topo_alloc(MPI_GRAPH, (size_t)nnodes + nedges);
	if (!t) {
		PMPI_Comm_free(comm_graph);
		return mpirma_raise_comm(comm_old, MPI_ERR_NO_MEM, MPIRMA_FUNC,
					 "out of memory");
	}
	t->graph.nnodes = nnodes;
	t->graph.nedges = nedges;
	copy_ints(graph_index(t), index, nnodes);
	copy_ints(graph_edges(t), edges, nedges);
	mpirma_comm_get(*comm_graph)->topo = t;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Graph_create)

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_TOPO(c, t, comm, MPI_GRAPH);
	*nnodes = t->graph.nnodes;
	*nedges = t->graph.nedges;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Graphdims_get)


int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[],
		   int edges[])
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_TOPO(c, t, comm, MPI_GRAPH);
	if (maxindex < 0 || maxedges < 0)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "maxindex %d, maxedges %d", maxindex,
					 maxedges);
	copy_ints(index, graph_index(t), min_int(maxindex, t->graph.nnodes));
	copy_ints(edges, graph_edges(t), min_int(maxedges, t->graph.nedges));
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Graph_get)

/* Node @rank's neighbours in @t: *@first is its first edge.  MPI class. */
static int graph_node(struct mpirma_topo *t, int rank, int *first, int *n)
{
	if (rank < 0 || rank >= t->graph.nnodes)
		return mpirma_err(MPI_ERR_RANK, "rank %d of %d", rank,
				  t->graph.nnodes);
	*first = rank ? graph_index(t)[rank - 1] : 0;
	*n = graph_index(t)[rank] - *first;
	return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;
	int first;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_TOPO(c, t, comm, MPI_GRAPH);
	return mpirma_raise_comm(comm, graph_node(t, rank, &first, nneighbors),
				 MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
			 int neighbors[])
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;
	int first, n, ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_TOPO(c, t, comm, MPI_GRAPH);
	ret = graph_node(t, rank, &first, &n);
	if (!ret && maxneighbors < 0)
		ret = mpirma_err(MPI_ERR_ARG, "negative maxneighbors %d",
				 maxneighbors);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	copy_ints(neighbors, graph_edges(t) + first, min_int(maxneighbors, n));
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Graph_neighbors)

/* The rank Graph_create would give the caller: reorder is identity. */
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[],
		   const int edges[], int *newrank)
{
	struct mpirma_comm *c;
	int nedges, ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	ret = graph_check(c, nnodes, index, edges, &nedges);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Graph_map)

/* ------------------------------------------------------------ distributed */

static int *dist_sources(struct mpirma_topo *t)
{
	return t->data;
}

static int *dist_sourceweights(struct mpirma_topo *t)
{
	return t->data + t->dist.indegree;
}

static int *dist_destinations(struct mpirma_topo *t)
{
	return t->data + 2 * t->dist.indegree;
}

static int *dist_destweights(struct mpirma_topo *t)
{
	return t->data + 2 * t->dist.indegree + t->dist.outdegree;
}

static struct mpirma_topo *dist_alloc(int indegree, int outdegree,
				      bool weighted)
{
	struct mpirma_topo *t;

	t = mpirma_topo_alloc(MPI_DIST_GRAPH,
			      2 * ((size_t)indegree + outdegree));
	if (t) {
		t->dist.indegree = indegree;
		t->dist.outdegree = outdegree;
		t->dist.weighted = weighted;
	}
	return t;
}

/* @n ranks of @c named @what.  MPI class. */
static int ranks_check(const struct mpirma_comm *c, int n, const int *ranks,
		       const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		if (ranks[i] < 0 || ranks[i] >= c->size)
			return mpirma_err(MPI_ERR_RANK, "%s[%d] = %d is not a "
					  "rank of the %d", what, i, ranks[i],
					  c->size);
	return MPI_SUCCESS;
}

/* The weights of @n edges named @what: real, or one of the two constants. */
static int weights_check(int n, const int *w, const char *what)
{
	int i;

	if (w == MPI_UNWEIGHTED)
		return MPI_SUCCESS;
	if (w == MPI_WEIGHTS_EMPTY || (!w && n > 0))
		return n ? mpirma_err(MPI_ERR_ARG, "%s is %s for %d edges", what,
				      w ? "MPI_WEIGHTS_EMPTY" : "NULL", n) :
			   MPI_SUCCESS;
	for (i = 0; i < n; i++)
		if (w[i] < 0)
			return mpirma_err(MPI_ERR_ARG, "%s[%d] = %d is negative",
					  what, i, w[i]);
	return MPI_SUCCESS;
}

/*
 * The new communicator of Dist_graph_create(_adjacent), with @t attached
 * (or freed).  MPI class.
 */
static int dist_attach(struct mpirma_comm *c, struct mpirma_topo *t,
		       MPI_Comm *out)
{
	int ret = topo_comm(c, c->size, out);

	if (!ret && !t) {
		PMPI_Comm_free(out);
		ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (ret) {
		free(t);
		return ret;
	}
	mpirma_comm_get(*out)->topo = t;
	return MPI_SUCCESS;
}

static void weights_copy(int *to, const int *w, int n)
{
	int i;

	for (i = 0; i < n; i++)
		to[i] = w == MPI_UNWEIGHTED ? 1 : w[i];
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
				    const int sources[],
				    const int *sourceweights, int outdegree,
				    const int destinations[],
				    const int *destweights, MPI_Info info,
				    int reorder, MPI_Comm *comm_dist_graph)
{
	struct graph_vote vote = { 0, 0 };
	struct mpirma_topo *t = NULL;
	struct mpirma_comm *c;
	int ret;

	(void)info;	/* hints: none changes the graph */
	(void)reorder;
	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm_old);
	ret = mpirma_comm_intra_only(c, "a distributed graph topology");
	if (ret)
		return mpirma_raise_comm(comm_old, ret, MPIRMA_FUNC, NULL);
	vote.unweighted = sourceweights == MPI_UNWEIGHTED;
	if (indegree < 0 || outdegree < 0)
		ret = mpirma_err(MPI_ERR_ARG, "indegree %d, outdegree %d",
				 indegree, outdegree);
	if (!ret && vote.unweighted != (destweights == MPI_UNWEIGHTED))
		ret = mpirma_err(MPI_ERR_ARG, "MPI_UNWEIGHTED for %s only: "
				 "give it for both or neither",
				 vote.unweighted ? "sourceweights" :
				 "destweights");
	if (!ret)
		ret = ranks_check(c, indegree, sources, "sources");
	if (!ret)
		ret = ranks_check(c, outdegree, destinations, "destinations");
	if (!ret)
		ret = weights_check(indegree, sourceweights, "sourceweights");
	if (!ret)
		ret = weights_check(outdegree, destweights, "destweights");
	vote.errclass = ret;
	ret = agree(c, vote);
	if (ret)
		return mpirma_raise_comm(comm_old, ret, MPIRMA_FUNC, NULL);
	t = dist_alloc(indegree, outdegree, !vote.unweighted);
	if (t) {
		copy_ints(dist_sources(t), sources, indegree);
		weights_copy(dist_sourceweights(t), sourceweights, indegree);
		copy_ints(dist_destinations(t), destinations, outdegree);
		weights_copy(dist_destweights(t), destweights, outdegree);
	}
	ret = dist_attach(c, t, comm_dist_graph);
	return mpirma_raise_comm(comm_old, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Dist_graph_create_adjacent)

/*
 * Dist_graph_create's exchange: each edge s -> d it was given goes to s as
 * an out-edge and to d as an in-edge, one record each.
 */
struct edge_rec {
	int out;	/* 1: an edge from the receiver to @peer */
	int peer;
	int weight;
};

#define REC_INTS ((int)(sizeof(struct edge_rec) / sizeof(int)))

/* The arguments of Dist_graph_create.  MPI class. */
static int dist_edges_check(const struct mpirma_comm *c, int n,
			    const int sources[], const int degrees[],
			    const int destinations[], const int *weights)
{
	long nedges = 0;
	int i, ret;

	if (n < 0)
		return mpirma_err(MPI_ERR_ARG, "negative n %d", n);
	ret = ranks_check(c, n, sources, "sources");
	for (i = 0; !ret && i < n; i++) {
		if (degrees[i] < 0)
			return mpirma_err(MPI_ERR_ARG, "degrees[%d] = %d is "
					  "negative", i, degrees[i]);
		nedges += degrees[i];
		/* each edge is one record to each end, and counts are ints */
		if (nedges > INT_MAX / REC_INTS / 2)
			return mpirma_err(MPI_ERR_ARG, "more than %d edges",
					  INT_MAX / REC_INTS / 2);
	}
	if (!ret)
		ret = ranks_check(c, (int)nedges, destinations,
				  "destinations");
	if (!ret)
		ret = weights_check((int)nedges, weights, "weights");
	return ret;
}

/*
 * The records each rank must learn of the @n sources' edges: *@send in
 * rank order, @counts[r] ints (rank r's) at @displs[r].  MPI class.
 */
static int edges_pack(const struct mpirma_comm *c, int n, const int sources[],
		      const int degrees[], const int destinations[],
		      const int *weights, int *counts, int *displs,
		      struct edge_rec **send)
{
	int *fill, i, j, k = 0, total = 0;

	memset(counts, 0, c->size * sizeof(int));
	for (i = 0; i < n; i++)
		for (j = 0; j < degrees[i]; j++, k++) {
			counts[sources[i]] += REC_INTS;
			counts[destinations[k]] += REC_INTS;
		}
	for (i = 0; i < c->size; i++) {
		displs[i] = total;
		total += counts[i];
	}
	*send = malloc(total ? total * sizeof(int) : 1);
	fill = calloc(c->size, sizeof(int));
	if (!*send || !fill) {
		free(fill);
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	for (i = 0, k = 0; i < n; i++)
		for (j = 0; j < degrees[i]; j++, k++) {
			int s = sources[i], d = destinations[k];
			int w = weights == MPI_UNWEIGHTED ? 1 : weights[k];

			(*send)[(displs[s] + fill[s]) / REC_INTS] =
				(struct edge_rec){ 1, d, w };
			fill[s] += REC_INTS;
			(*send)[(displs[d] + fill[d]) / REC_INTS] =
				(struct edge_rec){ 0, s, w };
			fill[d] += REC_INTS;
		}
	free(fill);
	return MPI_SUCCESS;
}

/* The caller's neighbours from the @nrec records it received, or NULL. */
static struct mpirma_topo *edges_unpack(const struct edge_rec *recs,
					int nrec, bool weighted)
{
	int i, in = 0, outd = 0;
	struct mpirma_topo *t;

	for (i = 0; i < nrec; i++)
		if (recs[i].out)
			outd++;
	t = dist_alloc(nrec - outd, outd, weighted);
	if (!t)
		return NULL;
	outd = 0;
	for (i = 0; i < nrec; i++) {
		if (recs[i].out) {
			dist_destinations(t)[outd] = recs[i].peer;
			dist_destweights(t)[outd++] = recs[i].weight;
		} else {
			dist_sources(t)[in] = recs[i].peer;
			dist_sourceweights(t)[in++] = recs[i].weight;
		}
	}
	return t;
}

/*
 * Dist_graph_create: the checks, the exchange of edge counts and then of
 * the edges, the communicator.  Whatever fails on one rank (an argument,
 * memory) is voted on before the next exchange, so no rank waits in an
 * exchange another has left.  MPI class.
 */
static int dist_create(struct mpirma_comm *c, int n, const int sources[],
		       const int degrees[], const int destinations[],
		       const int *weights, MPI_Comm *out)
{
	struct graph_vote vote = { 0, weights == MPI_UNWEIGHTED };
	struct mpirma_dtype *ints = mpirma_dtype_get(MPI_INT);
	int *scounts, *sdispls = NULL, *rcounts = NULL, *rdispls = NULL;
	int i, total = 0, ret;
	struct edge_rec *send = NULL, *recv = NULL;

	vote.errclass = dist_edges_check(c, n, sources, degrees, destinations,
					 weights);
	scounts = malloc(4 * c->size * sizeof(int));
	if (scounts) {
		sdispls = scounts + c->size;
		rcounts = sdispls + c->size;
		rdispls = rcounts + c->size;
	} else if (!vote.errclass) {
		vote.errclass = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (!vote.errclass)
		vote.errclass = edges_pack(c, n, sources, degrees, destinations,
					   weights, scounts, sdispls, &send);
	ret = agree(c, vote);
	if (!ret)
		ret = mpirma_coll_run_alltoallv(c, scounts, 1, NULL, NULL, ints,
						rcounts, 1, NULL, NULL, ints);
	if (ret)
		goto out_free;
	for (i = 0; !vote.errclass && i < c->size; i++) {
		rdispls[i] = total;
		if (rcounts[i] > INT_MAX - total)
			vote.errclass = mpirma_err(MPI_ERR_ARG, "more edges at "
						   "rank %d than an int "
						   "counts", c->rank);
		total += rcounts[i];
	}
	if (!vote.errclass) {
		recv = malloc(total ? total * sizeof(int) : 1);
		if (!recv)
			vote.errclass = mpirma_err(MPI_ERR_NO_MEM,
						   "out of memory");
	}
	ret = agree(c, vote);
	if (!ret)
		ret = mpirma_coll_run_alltoallv(c, send, 0, scounts, sdispls,
						ints, recv, 0, rcounts,
						rdispls, ints);
	if (!ret)
		ret = dist_attach(c, edges_unpack(recv, total / REC_INTS,
						  !vote.unweighted), out);
out_free:
	free(send);
	free(recv);
	free(scounts);
	return ret;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
			   const int degrees[], const int destinations[],
			   const int *weights, MPI_Info info, int reorder,
			   MPI_Comm *comm_dist_graph)
{
	struct mpirma_comm *c;
	int ret;

	(void)info;	/* hints: none changes the graph */
	(void)reorder;
	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm_old);
	ret = mpirma_comm_intra_only(c, "a distributed graph topology");
	if (!ret)
		ret = dist_create(c, n, sources, degrees, destinations, weights,
				  comm_dist_graph);
	return mpirma_raise_comm(comm_old, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
				    int *outdegree, int *weighted)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_TOPO(c, t, comm, MPI_DIST_GRAPH);
	*indegree = t->dist.indegree;
	*outdegree = t->dist.outdegree;
	*weighted = t->dist.weighted;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Dist_graph_neighbors_count)

/* Weights go out where the graph has them and the caller wants them. */
static void weights_out(int *to, const int *w, int n, bool weighted)
{
	if (weighted && to != MPI_UNWEIGHTED && to != MPI_WEIGHTS_EMPTY)
		copy_ints(to, w, n);
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
			      int *sourceweights, int maxoutdegree,
			      int destinations[], int *destweights)
{
	struct mpirma_comm *c;
	struct mpirma_topo *t;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_TOPO(c, t, comm, MPI_DIST_GRAPH);
	if (maxindegree < t->dist.indegree || maxoutdegree < t->dist.outdegree)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "maxindegree %d, maxoutdegree %d for "
					 "indegree %d, outdegree %d",
					 maxindegree, maxoutdegree,
					 t->dist.indegree, t->dist.outdegree);
	copy_ints(sources, dist_sources(t), t->dist.indegree);
	weights_out(sourceweights, dist_sourceweights(t), t->dist.indegree,
		    t->dist.weighted);
	copy_ints(destinations, dist_destinations(t), t->dist.outdegree);
	weights_out(destweights, dist_destweights(t), t->dist.outdegree,
		    t->dist.weighted);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Dist_graph_neighbors)
