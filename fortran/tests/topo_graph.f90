! topo_graph: graph and distributed graph topologies from Fortran (`use mpi`).
! A ring as MPI_GRAPH_CREATE (dims, neighbours, MPI_TOPO_TEST); the ring as
! MPI_DIST_GRAPH_CREATE_ADJACENT with weights and with MPI_UNWEIGHTED; as
! MPI_DIST_GRAPH_CREATE with every edge given by rank 0 and MPI_WEIGHTS_EMPTY
! elsewhere; the LOGICAL weighted flag, MPI_UNWEIGHTED as an output array
! (not written), and a negative degree's MPI_ERR_ARG; MPI_NEIGHBOR_ALLTOALLW
! on the graph and MPI_INEIGHBOR_ALLTOALLW on the distributed graph (their
! datatype arrays as long as the degrees).
PROGRAM topo_graph
  USE MPI
  IMPLICIT NONE
  INTEGER :: rank, np, left, right, ierr, nbad, i, kind, g, nn, ne, cnt
  INTEGER :: indeg, outdeg, newrank
  INTEGER :: idx(4), edges(8), nb(4), src(4), srcw(4), dst(4), dstw(4)
  INTEGER :: sources(4), degrees(4), dests(4), w(4)
  INTEGER :: sbuf(2), rbuf(2), cnts(2), types(2), req
  INTEGER(KIND=MPI_ADDRESS_KIND) :: displs(2)
  LOGICAL :: weighted

  CALL MPI_INIT(ierr)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  right = MOD(rank + 1, np)
  left = MOD(rank + np - 1, np)
  nbad = 0

  ! the ring as a graph: node i's neighbours are i-1 and i+1
  DO i = 1, np
    idx(i) = 2 * i
    edges(2 * i - 1) = MOD(i - 2 + np, np)
    edges(2 * i) = MOD(i, np)
  END DO
  CALL MPI_GRAPH_MAP(MPI_COMM_WORLD, np, idx, edges, newrank, ierr)
  CALL ft_expect(ierr == MPI_SUCCESS .AND. newrank == rank, nbad, 'MPI_GRAPH_MAP')
  CALL MPI_GRAPH_CREATE(MPI_COMM_WORLD, np, idx, edges, .FALSE., g, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_GRAPH_CREATE')
  CALL MPI_TOPO_TEST(g, kind, ierr)
  CALL ft_expect(kind == MPI_GRAPH, nbad, 'MPI_TOPO_TEST of a graph')
  CALL MPI_GRAPHDIMS_GET(g, nn, ne, ierr)
  CALL ft_expect(nn == np .AND. ne == 2 * np, nbad, 'MPI_GRAPHDIMS_GET')
  CALL MPI_GRAPH_NEIGHBORS_COUNT(g, rank, cnt, ierr)
  CALL ft_expect(cnt == 2, nbad, 'MPI_GRAPH_NEIGHBORS_COUNT')
  nb = -7
  CALL MPI_GRAPH_NEIGHBORS(g, rank, 4, nb, ierr)
  CALL ft_expect(nb(1) == left .AND. nb(2) == right .AND. nb(3) == -7, nbad, &
                 'MPI_GRAPH_NEIGHBORS')
  ! block 1 to the left, 2 to the right; under 3 ranks both neighbours are
  ! one rank, whose two messages arrive in edge order
  sbuf = (/ 10 * rank + 1, 10 * rank + 2 /)
  rbuf = -1
  cnts = 1
  displs = (/ 0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND /)
  types = MPI_INTEGER
  CALL MPI_NEIGHBOR_ALLTOALLW(sbuf, cnts, displs, types, rbuf, cnts, displs, types, g, ierr)
  IF (np >= 3) THEN
    CALL ft_expect(rbuf(1) == 10 * left + 2 .AND. rbuf(2) == 10 * right + 1, nbad, &
                   'MPI_NEIGHBOR_ALLTOALLW on a graph')
  ELSE
    CALL ft_expect(rbuf(1) == 10 * left + 1 .AND. rbuf(2) == 10 * right + 2, nbad, &
                   'MPI_NEIGHBOR_ALLTOALLW on a graph')
  END IF
  CALL MPI_COMM_FREE(g, ierr)

  ! the ring as a distributed graph, weighted
  src(1) = left
  srcw(1) = 100 * left + rank
  dst(1) = right
  dstw(1) = 100 * rank + right
  CALL MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, src, srcw, 1, dst, dstw, &
                                      MPI_INFO_NULL, .FALSE., g, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_DIST_GRAPH_CREATE_ADJACENT')
  CALL MPI_TOPO_TEST(g, kind, ierr)
  CALL ft_expect(kind == MPI_DIST_GRAPH, nbad, 'MPI_TOPO_TEST of a distributed graph')
  CALL MPI_DIST_GRAPH_NEIGHBORS_COUNT(g, indeg, outdeg, weighted, ierr)
  CALL ft_expect(indeg == 1 .AND. outdeg == 1 .AND. weighted, nbad, &
                 'MPI_DIST_GRAPH_NEIGHBORS_COUNT, weighted')
  src = -7
  srcw = -7
  dst = -7
  dstw = -7
  CALL MPI_DIST_GRAPH_NEIGHBORS(g, 4, src, srcw, 4, dst, dstw, ierr)
  CALL ft_expect(src(1) == left .AND. srcw(1) == 100 * left + rank .AND. &
                 dst(1) == right .AND. dstw(1) == 100 * rank + right, nbad, &
                 'MPI_DIST_GRAPH_NEIGHBORS, weighted')
  ! MPI_UNWEIGHTED as the output: the weights are not wanted
  CALL MPI_DIST_GRAPH_NEIGHBORS(g, 4, src, MPI_UNWEIGHTED, 4, dst, MPI_UNWEIGHTED, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_DIST_GRAPH_NEIGHBORS into MPI_UNWEIGHTED')
  CALL MPI_COMM_FREE(g, ierr)

  ! the same unweighted
  src(1) = left
  dst(1) = right
  CALL MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .TRUE., g, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_DIST_GRAPH_CREATE_ADJACENT, MPI_UNWEIGHTED')
  CALL MPI_DIST_GRAPH_NEIGHBORS_COUNT(g, indeg, outdeg, weighted, ierr)
  CALL ft_expect(indeg == 1 .AND. outdeg == 1 .AND. .NOT. weighted, nbad, &
                 'MPI_DIST_GRAPH_NEIGHBORS_COUNT, unweighted')
  srcw = -7
  CALL MPI_DIST_GRAPH_NEIGHBORS(g, 1, src, srcw, 1, dst, dstw, ierr)
  CALL ft_expect(src(1) == left .AND. dst(1) == right .AND. srcw(1) == -7, nbad, &
                 'MPI_DIST_GRAPH_NEIGHBORS, unweighted')
  CALL MPI_COMM_FREE(g, ierr)

  ! the ring through MPI_DIST_GRAPH_CREATE: rank 0 gives every edge
  nn = 0
  IF (rank == 0) THEN
    nn = np
    DO i = 1, np
      sources(i) = i - 1
      degrees(i) = 1
      dests(i) = MOD(i, np)
      w(i) = 100 * (i - 1) + MOD(i, np)
    END DO
    CALL MPI_DIST_GRAPH_CREATE(MPI_COMM_WORLD, nn, sources, degrees, dests, w, &
                               MPI_INFO_NULL, .FALSE., g, ierr)
  ELSE
    CALL MPI_DIST_GRAPH_CREATE(MPI_COMM_WORLD, nn, sources, degrees, dests, &
                               MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, .FALSE., g, ierr)
  END IF
  CALL ft_ok(ierr, nbad, 'MPI_DIST_GRAPH_CREATE, MPI_WEIGHTS_EMPTY')
  CALL MPI_DIST_GRAPH_NEIGHBORS_COUNT(g, indeg, outdeg, weighted, ierr)
  CALL ft_expect(indeg == 1 .AND. outdeg == 1 .AND. weighted, nbad, &
                 'MPI_DIST_GRAPH_CREATE: degrees')
  CALL MPI_DIST_GRAPH_NEIGHBORS(g, 1, src, srcw, 1, dst, dstw, ierr)
  CALL ft_expect(src(1) == left .AND. srcw(1) == 100 * left + rank .AND. &
                 dst(1) == right .AND. dstw(1) == 100 * rank + right, nbad, &
                 'MPI_DIST_GRAPH_CREATE: neighbours')
  rbuf = -1
  CALL MPI_INEIGHBOR_ALLTOALLW(sbuf, cnts, displs, types, rbuf, cnts, displs, types, g, &
                               req, ierr)
  CALL MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  CALL ft_expect(rbuf(1) == 10 * left + 1 .AND. rbuf(2) == -1, nbad, &
                 'MPI_INEIGHBOR_ALLTOALLW on a distributed graph')
  CALL MPI_COMM_FREE(g, ierr)

  ! a negative degree, under MPI_ERRORS_RETURN
  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  CALL MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, -1, src, MPI_UNWEIGHTED, 0, dst, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .FALSE., g, ierr)
  CALL MPI_ERROR_CLASS(ierr, kind, i)
  CALL ft_expect(kind == MPI_ERR_ARG, nbad, 'a negative indegree: MPI_ERR_ARG')
  CALL MPI_GRAPHDIMS_GET(MPI_COMM_WORLD, nn, ne, ierr)
  CALL MPI_ERROR_CLASS(ierr, kind, i)
  CALL ft_expect(kind == MPI_ERR_TOPOLOGY, nbad, 'no graph: MPI_ERR_TOPOLOGY')
  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  CALL ft_finish(nbad, 'graph topologies from Fortran')
END PROGRAM topo_graph

INCLUDE 'ftlib.f90'
