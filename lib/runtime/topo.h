/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * topo.h - the process topology a communicator carries (struct
 * mpirma_comm.topo): Cartesian (lib/runtime/topo.c), graph and distributed
 * graph (lib/runtime/topo_graph.c).
 *
 * A topology is one malloc'ed block, so that MPI_Comm_free frees it with
 * free() and MPI_Comm_dup copies it whole (mpirma_topo_copy).  It never
 * changes once attached.
 */
#ifndef MPIRMA_LIB_TOPO_H
#define MPIRMA_LIB_TOPO_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime.h"

/**
 * struct mpirma_topo - a communicator's topology
 * @kind: MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH (what MPI_Topo_test answers)
 * @bytes: size of the whole block
 * @cart: @data is dims[ndims], then periods[ndims] (0 or 1)
 * @graph: @data is index[nnodes], then edges[nedges], as the caller of
 *	MPI_Graph_create gave them
 * @dist: @data is sources[indegree], sourceweights[indegree],
 *	destinations[outdegree], destweights[outdegree] (weights 1 when
 *	!weighted)
 */
struct mpirma_topo {
	int kind;
	size_t bytes;
	union {
		struct {
			int ndims;
		} cart;
		struct {
			int nnodes;
			int nedges;
		} graph;
		struct {
			int indegree;
			int outdegree;
			bool weighted;
		} dist;
	};
	int data[];
};

/* A topology of @kind with room for @nints ints of data, or NULL. */
struct mpirma_topo *mpirma_topo_alloc(int kind, size_t nints);

/*
 * @comm's topology if it is of @kind: MPI_SUCCESS with *@c and *@t set;
 * otherwise MPI_ERR_COMM or MPI_ERR_TOPOLOGY recorded, naming what the
 * communicator has instead.
 */
int mpirma_topo_get(MPI_Comm comm, int kind, struct mpirma_comm **c,
		    struct mpirma_topo **t);

/*
 * The caller's neighbours in @c's topology, as the neighborhood
 * collectives take them (lib/runtime/coll_neighbor.c): *@nin sources to
 * receive from, then *@nout destinations to send to, in one malloc'ed
 * array *@ranks, each list in the standard's order (Cartesian: per
 * dimension the -1 then the +1 neighbour, MPI_PROC_NULL off a
 * non-periodic edge, both lists alike; graph: MPI_Graph_neighbors' order
 * both ways; distributed graph: the sources and destinations as given).
 * MPI class: MPI_ERR_TOPOLOGY without a topology, MPI_ERR_NO_MEM.
 */
int mpirma_topo_neighbors(const struct mpirma_comm *c, int *nin, int *nout,
			  int **ranks);

/* In an API function: mpirma_topo_get() or the function raises its error. */
#define MPIRMA_GET_TOPO(c, t, handle, kind)				\
	do {								\
		int topo_ret_ = mpirma_topo_get((handle), (kind), &(c), &(t)); \
									\
		if (topo_ret_)						\
			return mpirma_raise_comm((handle), topo_ret_,	\
						 MPIRMA_FUNC, NULL);	\
	} while (0)

#endif /* MPIRMA_LIB_TOPO_H */
