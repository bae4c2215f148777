// SPDX-License-Identifier: GPL-2.0
/*
 * topo_graph: graph and distributed graph topologies (lib/runtime/topo_graph.c).
 * A ring as an MPI_Graph (dims, index and edges, each node's neighbours,
 * Graph_map, fewer nodes than ranks); the ring and a complete digraph as
 * distributed graphs, made by create_adjacent and by create with the edges
 * given by their sources, by rank 0 alone, and by their destinations, with
 * weights, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY; MPI_Topo_test of every
 * kind, Cart_map, MPI_Dims_create's balance; that MPI_Comm_dup keeps the
 * topology and that messages flow on the new communicators; and the bad
 * arguments: each gets its class on every rank, also when only one rank
 * gave it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define POISON (-7)

static int left(void)
{
	return (mtest_rank + mtest_size - 1) % mtest_size;
}

static int right(void)
{
	return (mtest_rank + 1) % mtest_size;
}

static void check_topo(MPI_Comm c, int want, const char *what)
{
	int kind = -1;

	CHECK_MPI(MPI_Topo_test(c, &kind));
	CHECK(kind == want, "%s: MPI_Topo_test = %d, want %d", what, kind,
	      want);
}

/* A message to the right neighbour on @c arrives from the left one. */
static void check_ring_traffic(MPI_Comm c, const char *what)
{
	int got = -1;

	CHECK_MPI(MPI_Sendrecv(&mtest_rank, 1, MPI_INT, right(), 3, &got, 1,
			       MPI_INT, left(), 3, c, MPI_STATUS_IGNORE));
	CHECK(got == left(), "%s: got %d from the left, want %d", what, got,
	      left());
}

/* ------------------------------------------------------------ graph */

/* The ring as index and edges: node i's neighbours are i-1 and i+1. */
static void ring_graph(int n, int *index, int *edges)
{
	int i;

	for (i = 0; i < n; i++) {
		index[i] = 2 * (i + 1);
		edges[2 * i] = (i + n - 1) % n;
		edges[2 * i + 1] = (i + 1) % n;
	}
}

static void check_graph(MPI_Comm g, int n, const int *index, const int *edges,
			const char *what)
{
	int nn = -1, ne = -1, got_index[8], got_edges[16], nb[4], i, j, cnt;

	check_topo(g, MPI_GRAPH, what);
	CHECK_MPI(MPI_Graphdims_get(g, &nn, &ne));
	CHECK(nn == n && ne == 2 * n, "%s: graphdims %d, %d", what, nn, ne);
	CHECK_MPI(MPI_Graph_get(g, 8, 16, got_index, got_edges));
	CHECK(!memcmp(got_index, index, n * sizeof(int)) &&
	      !memcmp(got_edges, edges, 2 * n * sizeof(int)),
	      "%s: Graph_get differs", what);
	for (i = 0; i < n; i++) {
		cnt = -1;
		CHECK_MPI(MPI_Graph_neighbors_count(g, i, &cnt));
		CHECK_EQ(cnt, 2, "neighbours count");
		nb[0] = nb[1] = nb[2] = POISON;
		CHECK_MPI(MPI_Graph_neighbors(g, i, 4, nb));
		for (j = 0; j < 2; j++)
			CHECK(nb[j] == edges[2 * i + j], "%s: node %d neighbour "
			      "%d = %d, want %d", what, i, j, nb[j],
			      edges[2 * i + j]);
		CHECK_EQ(nb[2], POISON, "past the neighbours");
	}
	/* a short array gets what fits */
	nb[0] = nb[1] = POISON;
	CHECK_MPI(MPI_Graph_neighbors(g, 0, 1, nb));
	CHECK(nb[0] == edges[0] && nb[1] == POISON, "%s: one neighbour of "
	      "node 0: %d, %d", what, nb[0], nb[1]);
}

static void test_graph(void)
{
	int index[4], edges[8], newrank = -2;
	MPI_Comm g, dup;

	mtest_section("graph");
	ring_graph(mtest_size, index, edges);
	CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, mtest_size, index, edges,
				&newrank));
	CHECK_EQ(newrank, mtest_rank, "Graph_map");
	CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, mtest_size, index, edges, 1,
				   &g));
	check_graph(g, mtest_size, index, edges, "graph");
	check_ring_traffic(g, "graph");

	CHECK_MPI(MPI_Comm_dup(g, &dup));
	CHECK_MPI(MPI_Comm_free(&g));
	check_graph(dup, mtest_size, index, edges, "dup of a graph");
	check_ring_traffic(dup, "dup of a graph");
	CHECK_MPI(MPI_Comm_free(&dup));

	/* fewer nodes than ranks: the last rank is left out */
	if (mtest_size < 2)
		return;
	ring_graph(mtest_size - 1, index, edges);
	CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, mtest_size - 1, index, edges,
				&newrank));
	CHECK_EQ(newrank, mtest_rank < mtest_size - 1 ? mtest_rank :
		 MPI_UNDEFINED, "Graph_map of fewer nodes");
	CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, mtest_size - 1, index,
				   edges, 0, &g));
	if (mtest_rank == mtest_size - 1) {
		CHECK(g == MPI_COMM_NULL, "the rank past the nodes gets "
		      "MPI_COMM_NULL");
		return;
	}
	check_graph(g, mtest_size - 1, index, edges, "smaller graph");
	CHECK_MPI(MPI_Comm_free(&g));
}

/* ------------------------------------------------------------ dist graph */

/* A neighbour and the weight of the edge to it. */
struct nbr {
	int rank;
	int weight;
};

static int cmp_nbr(const void *a, const void *b)
{
	const struct nbr *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->weight > y->weight) - (x->weight < y->weight);
}

/*
 * @g's neighbours must be @in and @out as sets (create gives no order) or,
 * with @ordered, in this order; weights compared when @weighted.
 */
static void check_dist(MPI_Comm g, struct nbr *in, int nin, struct nbr *out,
		       int nout, int weighted, int ordered, const char *what)
{
	int indeg = -1, outdeg = -1, w = -1, i;
	int src[16], srcw[16], dst[16], dstw[16];
	struct nbr gin[16], gout[16];

	check_topo(g, MPI_DIST_GRAPH, what);
	CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w));
	CHECK(indeg == nin && outdeg == nout && w == weighted, "%s: indegree "
	      "%d, outdegree %d, weighted %d; want %d, %d, %d", what, indeg,
	      outdeg, w, nin, nout, weighted);
	if (indeg != nin || outdeg != nout)
		return;
	for (i = 0; i < 16; i++)
		src[i] = srcw[i] = dst[i] = dstw[i] = POISON;
	CHECK_MPI(MPI_Dist_graph_neighbors(g, 16, src, srcw, 16, dst, dstw));
	for (i = 0; i < nin; i++)
		gin[i] = (struct nbr){ src[i], weighted ? srcw[i] : 0 };
	for (i = 0; i < nout; i++)
		gout[i] = (struct nbr){ dst[i], weighted ? dstw[i] : 0 };
	if (!weighted)
		CHECK(srcw[0] == POISON && dstw[0] == POISON, "%s: weights "
		      "written for an unweighted graph", what);
	CHECK(src[nin] == POISON && dst[nout] == POISON, "%s: written past "
	      "the degree", what);
	if (!ordered) {
		qsort(gin, nin, sizeof(*gin), cmp_nbr);
		qsort(gout, nout, sizeof(*gout), cmp_nbr);
		qsort(in, nin, sizeof(*in), cmp_nbr);
		qsort(out, nout, sizeof(*out), cmp_nbr);
	}
	for (i = 0; i < nin; i++)
		CHECK(gin[i].rank == in[i].rank && gin[i].weight == in[i].weight,
		      "%s: source %d = (%d, weight %d), want (%d, %d)", what, i,
		      gin[i].rank, gin[i].weight, in[i].rank, in[i].weight);
	for (i = 0; i < nout; i++)
		CHECK(gout[i].rank == out[i].rank &&
		      gout[i].weight == out[i].weight, "%s: destination %d = "
		      "(%d, weight %d), want (%d, %d)", what, i, gout[i].rank,
		      gout[i].weight, out[i].rank, out[i].weight);
}

/* The weight of the edge s -> d in the tests. */
static int wt(int s, int d)
{
	return 100 * s + d + 1;
}

static void test_adjacent(void)
{
	int src[2] = { left(), right() }, dst[1] = { right() };
	int srcw[2] = { wt(left(), mtest_rank), wt(right(), mtest_rank) };
	int dstw[1] = { wt(mtest_rank, right()) };
	struct nbr in[2] = { { src[0], srcw[0] }, { src[1], srcw[1] } };
	struct nbr out[1] = { { dst[0], dstw[0] } };
	struct nbr uin[2] = { { src[0], 0 }, { src[1], 0 } };
	struct nbr uout[1] = { { dst[0], 0 } };
	MPI_Comm g, dup;

	mtest_section("create_adjacent");
	CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, srcw,
						 1, dst, dstw, MPI_INFO_NULL,
						 0, &g));
	check_dist(g, in, 2, out, 1, 1, 1, "adjacent");
	check_ring_traffic(g, "adjacent");
	CHECK_MPI(MPI_Comm_dup(g, &dup));
	CHECK_MPI(MPI_Comm_free(&g));
	check_dist(dup, in, 2, out, 1, 1, 1, "dup of adjacent");
	check_ring_traffic(dup, "dup of adjacent");
	CHECK_MPI(MPI_Comm_free(&dup));

	CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src,
						 MPI_UNWEIGHTED, 1, dst,
						 MPI_UNWEIGHTED, MPI_INFO_NULL,
						 1, &g));
	check_dist(g, uin, 2, uout, 1, 0, 1, "adjacent unweighted");
	CHECK_MPI(MPI_Comm_free(&g));

	/* no edges: weighted all the same, through MPI_WEIGHTS_EMPTY */
	CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL,
						 MPI_WEIGHTS_EMPTY, 0, NULL,
						 MPI_WEIGHTS_EMPTY,
						 MPI_INFO_NULL, 0, &g));
	check_dist(g, NULL, 0, NULL, 0, 1, 1, "adjacent without edges");
	CHECK_MPI(MPI_Comm_free(&g));
}

/*
 * The complete digraph (self-loops included) through Dist_graph_create,
 * the edges given by @who: 0 by their sources, 1 all by rank 0, 2 by their
 * destinations; @weighted or not.
 */
static void complete_graph(int who, int weighted)
{
	int p = mtest_size, me = mtest_rank, i, j, n = 0, k = 0;
	int sources[4], degrees[4], dests[16], weights[16];
	struct nbr in[4], out[4];
	const int *w = weights;
	char what[64];
	MPI_Comm g;

	for (i = 0; i < p; i++) {
		for (j = 0; j < p; j++) {
			int s = who == 2 ? j : i, d = who == 2 ? i : j;

			if ((who == 0 && s != me) || (who == 1 && me != 0) ||
			    (who == 2 && d != me))
				continue;
			if (n == 0 || sources[n - 1] != s) {
				sources[n] = s;
				degrees[n++] = 0;
			}
			degrees[n - 1]++;
			dests[k] = d;
			weights[k++] = wt(s, d);
		}
		in[i] = (struct nbr){ i, weighted ? wt(i, me) : 0 };
		out[i] = (struct nbr){ i, weighted ? wt(me, i) : 0 };
	}
	if (!weighted)
		w = MPI_UNWEIGHTED;
	else if (k == 0)
		w = MPI_WEIGHTS_EMPTY;
	snprintf(what, sizeof(what), "create, edges given by %s%s",
		 who == 0 ? "sources" : who == 1 ? "rank 0" : "destinations",
		 weighted ? "" : ", unweighted");
	CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees,
					dests, w, MPI_INFO_NULL, 0, &g));
	check_dist(g, in, p, out, p, weighted, 0, what);
	check_ring_traffic(g, what);
	CHECK_MPI(MPI_Comm_free(&g));
}

static void test_create(void)
{
	int who;

	mtest_section("create");
	for (who = 0; who < 3; who++)
		complete_graph(who, 1);
	complete_graph(0, 0);
	complete_graph(1, 0);
}

/* ------------------------------------------------------------ cart, test */

static void test_kinds(void)
{
	int dims[1] = { mtest_size }, periods[1] = { 1 }, newrank = -2;
	MPI_Comm cart, dup;

	mtest_section("topo_test");
	check_topo(MPI_COMM_WORLD, MPI_UNDEFINED, "world");
	check_topo(MPI_COMM_SELF, MPI_UNDEFINED, "self");
	CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank));
	CHECK_EQ(newrank, mtest_rank, "Cart_map");
	CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
	check_topo(cart, MPI_CART, "cart");
	CHECK_MPI(MPI_Comm_dup(cart, &dup));
	check_topo(dup, MPI_CART, "dup of cart");
	CHECK_MPI(MPI_Comm_free(&dup));
	CHECK_MPI(MPI_Comm_free(&cart));
	if (mtest_size > 1) {
		dims[0] = mtest_size - 1;
		CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods,
				       &newrank));
		CHECK_EQ(newrank, mtest_rank < mtest_size - 1 ? mtest_rank :
			 MPI_UNDEFINED, "Cart_map of a smaller grid");
	}
}

/* ------------------------------------------------------------ errors */

/* Bad arguments to the creation calls, some on one rank only. */
static void test_create_errors(void)
{
	int p = mtest_size, last = mtest_rank == p - 1;
	int index[4], edges[8], one[1] = { 0 }, w[1] = { 1 }, neg[1] = { -1 };
	int far[1] = { p }, minus[1] = { -1 }, deg[1] = { 1 };
	MPI_Comm g = MPI_COMM_NULL;

	mtest_section("create errors");
	ring_graph(p, index, edges);
	CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &g),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, p + 1, index, edges, 0,
				     &g), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Graph_map(MPI_COMM_WORLD, p + 1, index, edges, one),
		    MPI_ERR_ARG);
	index[0] = -1;		/* node 0 of negative degree */
	CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, 0, &g),
		    MPI_ERR_ARG);
	ring_graph(p, index, edges);
	if (last)
		edges[0] = p;	/* not a node, on one rank */
	CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, 0, &g),
		    MPI_ERR_RANK);
	CHECK_CLASS(MPI_Graph_create(MPI_COMM_NULL, p, index, edges, 0, &g),
		    MPI_ERR_COMM);

	CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, one, w,
						   0, NULL, NULL,
						   MPI_INFO_NULL, 0, &g),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1,
						   last ? far : one, w, 0,
						   NULL, NULL, MPI_INFO_NULL,
						   0, &g), MPI_ERR_RANK);
	CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL,
						   NULL, 1, minus, w,
						   MPI_INFO_NULL, 0, &g),
		    MPI_ERR_RANK);
	CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, one,
						   MPI_UNWEIGHTED, 1, one, w,
						   MPI_INFO_NULL, 0, &g),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, one,
						   last ? neg : w, 0, NULL,
						   NULL, MPI_INFO_NULL, 0, &g),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, one,
						   MPI_WEIGHTS_EMPTY, 0, NULL,
						   MPI_WEIGHTS_EMPTY,
						   MPI_INFO_NULL, 0, &g),
		    MPI_ERR_ARG);
	if (p > 1)	/* MPI_UNWEIGHTED on one rank, weights elsewhere */
		CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0,
				NULL, last ? MPI_UNWEIGHTED : MPI_WEIGHTS_EMPTY,
				0, NULL, last ? MPI_UNWEIGHTED :
				MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g),
			    MPI_ERR_ARG);

	CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, one, deg, one, w,
					  MPI_INFO_NULL, 0, &g), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one,
					  last ? minus : deg, one, w,
					  MPI_INFO_NULL, 0, &g), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, last ? far : one,
					  deg, one, w, MPI_INFO_NULL, 0, &g),
		    MPI_ERR_RANK);
	CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one, deg,
					  last ? minus : one, w,
					  MPI_INFO_NULL, 0, &g), MPI_ERR_RANK);
	CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one, deg, one,
					  MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0,
					  &g), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one, deg, one,
					  last ? neg : w, MPI_INFO_NULL, 0,
					  &g), MPI_ERR_ARG);
	CHECK(g == MPI_COMM_NULL, "a failed creation made a communicator");
	/* every rank is still in step: a collective works */
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* The queries on communicators of the wrong kind, and bad ranks and sizes. */
static void test_query_errors(void)
{
	int index[4], edges[8], dims[1] = { mtest_size }, periods[1] = { 0 };
	int a = 0, b = 0, c = 0, arr[16], w[1] = { 1 };
	int src[1] = { left() }, dst[1] = { right() };
	MPI_Comm graph, dist, cart;

	mtest_section("query errors");
	ring_graph(mtest_size, index, edges);
	CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, mtest_size, index, edges, 0,
				   &graph));
	CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, w, 1,
						 dst, w, MPI_INFO_NULL, 0,
						 &dist));
	CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));

	CHECK_CLASS(MPI_Graphdims_get(MPI_COMM_WORLD, &a, &b),
		    MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Graphdims_get(dist, &a, &b), MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Graph_get(cart, 4, 8, arr, arr), MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Graph_neighbors_count(dist, 0, &a), MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Graph_neighbors(cart, 0, 4, arr), MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Dist_graph_neighbors_count(graph, &a, &b, &c),
		    MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Dist_graph_neighbors_count(cart, &a, &b, &c),
		    MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Dist_graph_neighbors(MPI_COMM_WORLD, 1, arr, arr, 1,
					     arr, arr), MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Cartdim_get(graph, &a), MPI_ERR_TOPOLOGY);
	CHECK_CLASS(MPI_Cart_shift(dist, 0, 1, &a, &b), MPI_ERR_TOPOLOGY);

	CHECK_CLASS(MPI_Graph_neighbors_count(graph, mtest_size, &a),
		    MPI_ERR_RANK);
	CHECK_CLASS(MPI_Graph_neighbors(graph, -1, 4, arr), MPI_ERR_RANK);
	CHECK_CLASS(MPI_Graph_neighbors(graph, 0, -1, arr), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Graph_get(graph, -1, 8, arr, arr), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Dist_graph_neighbors(dist, 0, arr, arr, 1, arr, arr),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Dist_graph_neighbors(dist, 1, arr, arr, 0, arr, arr),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Graphdims_get(12345, &a, &b), MPI_ERR_COMM);
	CHECK_CLASS(MPI_Dist_graph_neighbors_count(MPI_COMM_NULL, &a, &b, &c),
		    MPI_ERR_COMM);

	CHECK_MPI(MPI_Comm_free(&graph));
	CHECK_MPI(MPI_Comm_free(&dist));
	CHECK_MPI(MPI_Comm_free(&cart));
}

static void test_errors(void)
{
	CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	test_create_errors();
	test_query_errors();
	CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD,
					  MPI_ERRORS_ARE_FATAL));
}

/*
 * MPI_Dims_create's splits as balanced as they get (the smallest range;
 * cases from MPICH's topo/dims5, where a greedy split was off), fixed
 * dimensions kept, and a split that cannot be.
 */
static void test_dims(void)
{
	static const int want[][6] = {
		/* nnodes, ndims, dims */
		{ 72, 2, 9, 8 }, { 540, 2, 27, 20 }, { 432, 3, 9, 8, 6 },
		{ 1620, 3, 15, 12, 9 }, { 7, 3, 7, 1, 1 }, { 1, 1, 1 },
		{ 117936, 5, 14, 13, 9, 9 },	/* last: dims[4] checked below */
	};
	int i, j, dims[5];

	mtest_section("dims_create");
	for (i = 0; i < (int)(sizeof(want) / sizeof(want[0])); i++) {
		memset(dims, 0, sizeof(dims));
		CHECK_MPI(MPI_Dims_create(want[i][0], want[i][1], dims));
		for (j = 0; j < want[i][1] && j < 4; j++)
			CHECK(dims[j] == want[i][2 + j], "%d in %dd: dims[%d] "
			      "%d, want %d", want[i][0], want[i][1], j, dims[j],
			      want[i][2 + j]);
	}
	/* 117936 in 5d ends with 8 */
	CHECK_EQ(dims[4], 8, "117936 in 5d: dims[4]");
	dims[0] = 0;
	dims[1] = 5;
	dims[2] = 0;
	CHECK_MPI(MPI_Dims_create(60, 3, dims));
	CHECK(dims[0] == 4 && dims[1] == 5 && dims[2] == 3,
	      "60 with dims[1] = 5: %d %d %d", dims[0], dims[1], dims[2]);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	dims[0] = 7;
	dims[1] = 0;
	CHECK_CLASS(MPI_Dims_create(60, 2, dims), MPI_ERR_DIMS);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	static const mtest_fn tests[] = {
		test_graph, test_adjacent, test_create, test_kinds,
		test_errors, test_dims, NULL,
	};

	return mtest_run(&argc, &argv, "topo_graph", tests);
}
