! served.f90 - ft_served through `use mpi` (served_f08.f90: through mpi_f08),
! INCLUDEd by the programs that check it, beside ftlib.f90.

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
  INTEGER :: node, rank, ierr
  INTEGER, EXTERNAL :: ft_logical_nodes
  LOGICAL :: served

  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SPLIT_TYPE(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, &
                           MPI_INFO_NULL, node, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_COMM_SPLIT_TYPE')
  CALL ft_expect(ft_win_served(node, nbad), nbad, &
                 'a window on the node''s ranks is not served by mpirma')
  CALL MPI_COMM_FREE(node, ierr)

  IF (ft_logical_nodes() <= 1) THEN
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
    ! (into a variable of its own: the function's name as an actual
    ! argument may be taken for the function, through a trampoline)
    CALL MPI_INFO_GET(info, 'mpirma_atomicity', MPI_MAX_INFO_VAL, val, flag, ierr)
    ft_win_served = flag
    CALL MPI_INFO_FREE(info, ierr)
    CALL MPI_WIN_FREE(win, ierr)
  END FUNCTION ft_win_served
END SUBROUTINE ft_served
