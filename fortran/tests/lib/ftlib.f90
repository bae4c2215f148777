! ftlib.f90 - what the Fortran tests share, INCLUDEd after each main program.

! The end of a test: the wrong results of every rank summed, one line from
! rank 0, MPI_FINALIZE, and exit status 1 if anything was wrong.
SUBROUTINE ft_finish(nbad, what)
  USE MPI
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: nbad
  CHARACTER(LEN=*), INTENT(IN) :: what
  INTEGER :: total, rank, nranks, ierr

  CALL MPI_ALLREDUCE(nbad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  IF (rank == 0) THEN
    IF (total == 0) THEN
      PRINT '(A, " at ", I0, " ranks: ok")', what, nranks
    ELSE
      PRINT '(A, " at ", I0, " ranks: ", I0, " wrong")', what, nranks, total
    END IF
  END IF
  CALL MPI_FINALIZE(ierr)
  IF (total /= 0) STOP 1
END SUBROUTINE ft_finish

! Counts a failed check in nbad and says which (the first 10 per rank).
SUBROUTINE ft_expect(ok, nbad, what)
  USE MPI
  IMPLICIT NONE
  LOGICAL, INTENT(IN) :: ok
  INTEGER, INTENT(INOUT) :: nbad
  CHARACTER(LEN=*), INTENT(IN) :: what
  INTEGER :: rank, ierr

  IF (ok) RETURN
  nbad = nbad + 1
  IF (nbad > 10) RETURN
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  PRINT '("rank ", I0, ": ", A)', rank, TRIM(what)
END SUBROUTINE ft_expect

! An MPI call's IERROR must be MPI_SUCCESS.
SUBROUTINE ft_ok(ierr, nbad, what)
  USE MPI
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: ierr
  INTEGER, INTENT(INOUT) :: nbad
  CHARACTER(LEN=*), INTENT(IN) :: what
  CHARACTER(LEN=MPI_MAX_ERROR_STRING) :: msg
  INTEGER :: len, e

  IF (ierr == MPI_SUCCESS) RETURN
  CALL MPI_ERROR_STRING(ierr, msg, len, e)
  CALL ft_expect(.FALSE., nbad, what // ': ' // msg(1:len))
END SUBROUTINE ft_ok

! Is mpirma serving this job's windows, and do the program's Fortran calls
! reach it?  A window mpirma serves reports the info key mpirma_atomicity.
! mpirma's own library serves every window.  The hybrid layer (hybrid/: a
! host MPI's job with libmpirma-HOST.so preloaded) serves a window whose
! ranks share a (logical) node: one on MPI_COMM_SPLIT_TYPE's shared-memory
! communicator always, one on MPI_COMM_WORLD when the job is one logical
! node (MPIRMA_LOGICAL_NODES unset or 1).  A window spanning logical nodes
! may be either's, and is not checked.  Without the layer's Fortran entry
! points these calls would go to the host's Fortran library and the host
! alone: the windows would not be mpirma's.
SUBROUTINE ft_served(nbad)
  USE MPI
  IMPLICIT NONE
  INTEGER, INTENT(INOUT) :: nbad
  INTEGER :: node, rank, ierr, st, k
  CHARACTER(LEN=16) :: env
  LOGICAL :: served

  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SPLIT_TYPE(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, &
                           MPI_INFO_NULL, node, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_COMM_SPLIT_TYPE')
  CALL ft_expect(ft_win_served(node, nbad), nbad, &
                 'a window on the node''s ranks is not served by mpirma')
  CALL MPI_COMM_FREE(node, ierr)

  CALL GET_ENVIRONMENT_VARIABLE('MPIRMA_LOGICAL_NODES', env, status=st)
  k = 1
  IF (st == 0 .AND. LEN_TRIM(env) > 0) READ (env, *, iostat=st) k
  IF (k <= 1) THEN
    served = ft_win_served(MPI_COMM_WORLD, nbad)
    CALL ft_expect(served, nbad, 'a window on MPI_COMM_WORLD is not served by mpirma')
  END IF

CONTAINS

  ! Does a window over @comm report mpirma_atomicity?  (And its size and
  ! displacement unit, Fortran's predefined attributes, by value.)
  LOGICAL FUNCTION ft_win_served(comm, nbad)
    INTEGER, INTENT(IN) :: comm
    INTEGER, INTENT(INOUT) :: nbad
    INTEGER :: win, info, ierr
    REAL :: buf(4)
    INTEGER(KIND=MPI_ADDRESS_KIND) :: sz, attr
    CHARACTER(LEN=MPI_MAX_INFO_VAL) :: val
    LOGICAL :: flag

    sz = 16
    ft_win_served = .FALSE.
    CALL MPI_WIN_CREATE(buf, sz, 4, MPI_INFO_NULL, comm, win, ierr)
    CALL ft_ok(ierr, nbad, 'MPI_WIN_CREATE')
    IF (ierr /= MPI_SUCCESS) RETURN
    CALL MPI_WIN_GET_ATTR(win, MPI_WIN_SIZE, attr, flag, ierr)
    CALL ft_expect(ierr == MPI_SUCCESS .AND. flag .AND. attr == sz, nbad, &
                   'MPI_WIN_GET_ATTR(MPI_WIN_SIZE) is not 16')
    CALL MPI_WIN_GET_ATTR(win, MPI_WIN_DISP_UNIT, attr, flag, ierr)
    CALL ft_expect(ierr == MPI_SUCCESS .AND. flag .AND. attr == 4, nbad, &
                   'MPI_WIN_GET_ATTR(MPI_WIN_DISP_UNIT) is not 4')
    CALL MPI_WIN_GET_INFO(win, info, ierr)
    CALL ft_ok(ierr, nbad, 'MPI_WIN_GET_INFO')
    CALL MPI_INFO_GET(info, 'mpirma_atomicity', MPI_MAX_INFO_VAL, val, &
                      ft_win_served, ierr)
    CALL MPI_INFO_FREE(info, ierr)
    CALL MPI_WIN_FREE(win, ierr)
  END FUNCTION ft_win_served
END SUBROUTINE ft_served
