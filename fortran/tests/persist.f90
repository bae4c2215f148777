! persist: persistent requests from Fortran (`use mpi`): a ring exchanged
! ten times through MPI_RECV_INIT and MPI_SEND_INIT with MPI_STARTALL and
! MPI_WAITALL, the handles kept; MPI_START and MPI_WAIT of an MPI_SSEND_INIT;
! MPI_REQUEST_FREE; starting an active request fails with MPI_ERR_REQUEST.
PROGRAM persist
  USE MPI
  IMPLICIT NONE
  INTEGER :: rank, np, left, right, ierr, nbad, i, round, cls
  INTEGER :: req(2), s, r, v, got
  INTEGER :: sbuf(8), rbuf(8)
  INTEGER :: statuses(MPI_STATUS_SIZE, 2)

  CALL MPI_INIT(ierr)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  right = MOD(rank + 1, np)
  left = MOD(rank + np - 1, np)
  nbad = 0

  CALL MPI_RECV_INIT(rbuf, 8, MPI_INTEGER, left, 4, MPI_COMM_WORLD, req(1), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_RECV_INIT')
  CALL MPI_SEND_INIT(sbuf, 8, MPI_INTEGER, right, 4, MPI_COMM_WORLD, req(2), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_SEND_INIT')
  DO round = 1, 10
    DO i = 1, 8
      sbuf(i) = 1000 * round + 10 * rank + i
    END DO
    rbuf = -1
    CALL MPI_STARTALL(2, req, ierr)
    CALL ft_ok(ierr, nbad, 'MPI_STARTALL')
    CALL MPI_WAITALL(2, req, statuses, ierr)
    CALL ft_ok(ierr, nbad, 'MPI_WAITALL')
    DO i = 1, 8
      CALL ft_expect(rbuf(i) == 1000 * round + 10 * left + i, nbad, 'ring data')
    END DO
    CALL ft_expect(statuses(MPI_SOURCE, 1) == left, nbad, 'status source')
  END DO
  CALL ft_expect(req(1) /= MPI_REQUEST_NULL, nbad, 'the handle is kept')
  CALL MPI_REQUEST_FREE(req(1), ierr)
  CALL MPI_REQUEST_FREE(req(2), ierr)
  CALL ft_expect(req(1) == MPI_REQUEST_NULL, nbad, 'MPI_REQUEST_FREE')

  v = rank
  got = -1
  CALL MPI_RECV_INIT(got, 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, r, ierr)
  CALL MPI_SSEND_INIT(v, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, s, ierr)
  CALL MPI_START(r, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_START')
  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  CALL MPI_START(r, ierr)
  CALL MPI_ERROR_CLASS(ierr, cls, i)
  CALL ft_expect(cls == MPI_ERR_REQUEST, nbad, 'an active request: MPI_ERR_REQUEST')
  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  CALL MPI_START(s, ierr)
  CALL MPI_WAIT(s, MPI_STATUS_IGNORE, ierr)
  CALL MPI_WAIT(r, MPI_STATUS_IGNORE, ierr)
  CALL ft_expect(got == left, nbad, 'MPI_SSEND_INIT data')
  CALL MPI_REQUEST_FREE(r, ierr)
  CALL MPI_REQUEST_FREE(s, ierr)

  CALL ft_finish(nbad, 'persistent requests from Fortran')
END PROGRAM persist

INCLUDE 'ftlib.f90'
