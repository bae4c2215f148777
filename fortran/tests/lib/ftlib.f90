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

! An MPI call's IERROR must be of error class @want.
SUBROUTINE ft_class(ierr, want, nbad, what)
  USE MPI
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: ierr, want
  INTEGER, INTENT(INOUT) :: nbad
  CHARACTER(LEN=*), INTENT(IN) :: what
  INTEGER :: cls, e

  CALL MPI_ERROR_CLASS(ierr, cls, e)
  CALL ft_expect(cls == want, nbad, what)
END SUBROUTINE ft_class

! The job's logical node count under the hybrid layer
! (MPIRMA_LOGICAL_NODES; 1 when unset).
INTEGER FUNCTION ft_logical_nodes()
  IMPLICIT NONE
  CHARACTER(LEN=16) :: env
  INTEGER :: st

  CALL GET_ENVIRONMENT_VARIABLE('MPIRMA_LOGICAL_NODES', env, status=st)
  ft_logical_nodes = 1
  IF (st == 0 .AND. LEN_TRIM(env) > 0) READ (env, *, iostat=st) ft_logical_nodes
END FUNCTION ft_logical_nodes
