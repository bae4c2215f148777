! nbc: nonblocking collectives from Fortran (`use mpi`): MPI_IBARRIER,
! MPI_IBCAST, MPI_IALLREDUCE in place, MPI_IALLGATHER, MPI_IREDUCE,
! MPI_ISCAN, MPI_IALLTOALL outstanding together and completed by
! MPI_WAITALL and MPI_TEST; MPI_ALLREDUCE_INIT started twice;
! MPI_NEIGHBOR_ALLGATHER and MPI_INEIGHBOR_ALLTOALL on a periodic ring; a
! bad root and count failing with their classes.  (MPI_IALLTOALLW is C
! only, as MPI_ALLTOALLW and MPI_NEIGHBOR_ALLTOALLW are.)
PROGRAM nbc
  USE MPI
  IMPLICIT NONE
  INTEGER :: rank, np, ierr, nbad, i, b, s, sc, red
  INTEGER :: req(7), ring, k, nb(2), lr(2)
  ! MPI_START and MPI_WAIT do not name them: keep the compiler from
  ! caching them in registers (the standard's MPI_F_SYNC_REG problem)
  INTEGER, VOLATILE :: ps, pr
  INTEGER, ALLOCATABLE :: g(:), a2a(:), got(:)
  DOUBLE PRECISION :: x(3)
  LOGICAL :: flag

  CALL MPI_INIT(ierr)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  ALLOCATE (g(np), a2a(np), got(np))
  nbad = 0

  b = -1
  IF (rank == np - 1) b = 42
  s = rank
  x = (/ 1.5D0, rank * 1.0D0, 2.0D0 /)
  DO i = 1, np
    a2a(i) = rank * 100 + i - 1
  END DO
  CALL MPI_IBARRIER(MPI_COMM_WORLD, req(1), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_IBARRIER')
  CALL MPI_IBCAST(b, 1, MPI_INTEGER, np - 1, MPI_COMM_WORLD, req(2), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_IBCAST')
  CALL MPI_IALLREDUCE(MPI_IN_PLACE, x, 3, MPI_DOUBLE_PRECISION, MPI_SUM, &
                      MPI_COMM_WORLD, req(3), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_IALLREDUCE')
  CALL MPI_IALLGATHER(rank, 1, MPI_INTEGER, g, 1, MPI_INTEGER, &
                      MPI_COMM_WORLD, req(4), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_IALLGATHER')
  CALL MPI_IREDUCE(s, red, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, &
                   req(5), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_IREDUCE')
  CALL MPI_ISCAN(s, sc, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(6), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_ISCAN')
  CALL MPI_IALLTOALL(a2a, 1, MPI_INTEGER, got, 1, MPI_INTEGER, &
                     MPI_COMM_WORLD, req(7), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_IALLTOALL')
  flag = .FALSE.
  DO WHILE (.NOT. flag)
    CALL MPI_TEST(req(7), flag, MPI_STATUS_IGNORE, ierr)
  END DO
  CALL MPI_WAITALL(6, req, MPI_STATUSES_IGNORE, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_WAITALL')
  CALL ft_expect(b == 42, nbad, 'ibcast')
  CALL ft_expect(x(1) == 1.5D0 * np .AND. x(2) == np * (np - 1) / 2.0D0, &
                 nbad, 'iallreduce in place')
  CALL ft_expect(sc == rank * (rank + 1) / 2, nbad, 'iscan')
  IF (rank == 0) CALL ft_expect(red == np - 1, nbad, 'ireduce')
  DO i = 1, np
    CALL ft_expect(g(i) == i - 1, nbad, 'iallgather')
    CALL ft_expect(got(i) == (i - 1) * 100 + rank, nbad, 'ialltoall')
  END DO

  CALL MPI_ALLREDUCE_INIT(ps, pr, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                          MPI_INFO_NULL, req(1), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_ALLREDUCE_INIT')
  DO k = 1, 2
    ps = rank * k
    CALL MPI_START(req(1), ierr)
    CALL MPI_WAIT(req(1), MPI_STATUS_IGNORE, ierr)
    CALL ft_expect(pr == k * np * (np - 1) / 2, nbad, 'allreduce_init')
  END DO
  CALL MPI_REQUEST_FREE(req(1), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_REQUEST_FREE')

  ! left then right neighbour; what goes right arrives from the left
  CALL MPI_CART_CREATE(MPI_COMM_WORLD, 1, (/ np /), (/ .TRUE. /), .FALSE., &
                       ring, ierr)
  CALL MPI_NEIGHBOR_ALLGATHER(rank, 1, MPI_INTEGER, nb, 1, MPI_INTEGER, &
                              ring, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_NEIGHBOR_ALLGATHER')
  CALL ft_expect(nb(1) == MOD(rank + np - 1, np) .AND. &
                 nb(2) == MOD(rank + 1, np), nbad, 'neighbor_allgather')
  lr = (/ -rank - 1, rank + 1 /)
  CALL MPI_INEIGHBOR_ALLTOALL(lr, 1, MPI_INTEGER, nb, 1, MPI_INTEGER, ring, &
                              req(1), ierr)
  CALL MPI_WAIT(req(1), MPI_STATUS_IGNORE, ierr)
  CALL ft_expect(nb(1) == MOD(rank + np - 1, np) + 1 .AND. &
                 nb(2) == -MOD(rank + 1, np) - 1, nbad, 'ineighbor_alltoall')
  CALL MPI_COMM_FREE(ring, ierr)

  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  CALL MPI_IBCAST(b, 1, MPI_INTEGER, np, MPI_COMM_WORLD, req(1), ierr)
  CALL ft_class(ierr, MPI_ERR_ROOT, nbad, 'MPI_IBCAST to a bad root')
  CALL MPI_IALLREDUCE(s, red, -1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                      req(1), ierr)
  CALL ft_class(ierr, MPI_ERR_COUNT, nbad, 'MPI_IALLREDUCE of a bad count')
  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  CALL ft_finish(nbad, 'nonblocking collectives from Fortran')
END PROGRAM nbc

INCLUDE 'ftlib.f90'
