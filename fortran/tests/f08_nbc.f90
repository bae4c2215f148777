! f08_nbc: nonblocking collectives through `use mpi_f08`: typed handles
! and requests, ASYNCHRONOUS buffers, ierror left out; MPI_Iallreduce and
! MPI_Ibcast outstanding together, completed by MPI_Waitall.
PROGRAM f08_nbc
  USE mpi_f08
  IMPLICIT NONE
  INTEGER :: rank, np, nbad
  INTEGER, ASYNCHRONOUS :: s, b
  TYPE(MPI_Request) :: req(2)

  CALL MPI_Init()
  CALL MPI_Comm_rank(MPI_COMM_WORLD, rank)
  CALL MPI_Comm_size(MPI_COMM_WORLD, np)
  nbad = 0
  s = rank
  b = -1
  IF (rank == 0) b = 7
  CALL MPI_Iallreduce(MPI_IN_PLACE, s, 1, MPI_INTEGER, MPI_SUM, &
                      MPI_COMM_WORLD, req(1))
  CALL MPI_Ibcast(b, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req(2))
  CALL MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  CALL ft_expect(s == np * (np - 1) / 2, nbad, 'MPI_Iallreduce')
  CALL ft_expect(b == 7, nbad, 'MPI_Ibcast')
  CALL ft_expect(req(1) == MPI_REQUEST_NULL, nbad, 'request freed')
  CALL ft_finish(nbad, 'nonblocking collectives through mpi_f08')
END PROGRAM f08_nbc

INCLUDE 'ftlib.f90'
