! served_f08.f90 - ft_served through `use mpi_f08`: the windows are made,
! queried and freed by the f08 entry points, the ones an f08 program calls
! (MPICH's call its PMPI_ functions themselves, so a layer that did not
! define them would leave these windows to MPICH alone).

! Is mpirma serving this job's windows, and do the program's mpi_f08 calls
! reach it?  As served.f90: a window mpirma serves reports the info key
! mpirma_atomicity; under the hybrid layer one on the shared-memory
! communicator always is, one on MPI_COMM_WORLD when the job is one logical
! node.
SUBROUTINE ft_served(nbad)
  USE mpi_f08
  IMPLICIT NONE
  INTEGER, INTENT(INOUT) :: nbad
  TYPE(MPI_Comm) :: node
  INTEGER :: rank, ierr
  INTEGER, EXTERNAL :: ft_logical_nodes
  LOGICAL :: served

  CALL MPI_Comm_rank(MPI_COMM_WORLD, rank)
  CALL MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, &
                           MPI_INFO_NULL, node, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_Comm_split_type')
  CALL ft_expect(ft_win_served(node, nbad), nbad, &
                 'an mpi_f08 window on the node''s ranks is not served by mpirma')
  CALL MPI_Comm_free(node)

  IF (ft_logical_nodes() <= 1) THEN
    served = ft_win_served(MPI_COMM_WORLD, nbad)
    CALL ft_expect(served, nbad, 'an mpi_f08 window on MPI_COMM_WORLD is not served by mpirma')
  END IF

CONTAINS

  ! Does a window over @comm, created and allocated through mpi_f08,
  ! report mpirma_atomicity?
  LOGICAL FUNCTION ft_win_served(comm, nbad)
    USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR
    TYPE(MPI_Comm), INTENT(IN) :: comm
    INTEGER, INTENT(INOUT) :: nbad
    TYPE(MPI_Win) :: win
    TYPE(C_PTR) :: base
    REAL, ASYNCHRONOUS :: buf(4)
    LOGICAL :: served

    CALL MPI_Win_create(buf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, comm, win, ierr)
    CALL ft_ok(ierr, nbad, 'MPI_Win_create')
    ft_win_served = ierr == MPI_SUCCESS
    IF (.NOT. ft_win_served) RETURN
    ft_win_served = has_atomicity(win)
    CALL MPI_Win_free(win)
    CALL MPI_Win_allocate(16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, comm, base, win, ierr)
    CALL ft_ok(ierr, nbad, 'MPI_Win_allocate')
    IF (ierr /= MPI_SUCCESS) RETURN
    served = has_atomicity(win)
    ft_win_served = ft_win_served .AND. served
    CALL MPI_Win_free(win)
  END FUNCTION ft_win_served

  ! (The flag is a variable of its own: the function's name as an actual
  ! argument may be taken for the function, through a trampoline.)
  LOGICAL FUNCTION has_atomicity(win)
    TYPE(MPI_Win), INTENT(IN) :: win
    TYPE(MPI_Info) :: info
    CHARACTER(LEN=MPI_MAX_INFO_VAL) :: val
    LOGICAL :: flag

    CALL MPI_Win_get_info(win, info)
    CALL MPI_Info_get(info, 'mpirma_atomicity', MPI_MAX_INFO_VAL, val, flag)
    CALL MPI_Info_free(info)
    has_atomicity = flag
  END FUNCTION has_atomicity
END SUBROUTINE ft_served
