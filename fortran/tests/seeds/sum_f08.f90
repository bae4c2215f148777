! SUBROUTINE SUM (Example 11.3) rewritten for `use mpi_f08`: handles are
! TYPE(MPI_Comm) and TYPE(MPI_Win), ierror is left out, the displacement
! unit is a default INTEGER and target_disp INTEGER(KIND=MPI_ADDRESS_KIND),
! as the mpi_f08 interfaces have them.  Otherwise as printed.
SUBROUTINE SUM(A, B, map, m, comm, p)
USE mpi_f08
INTEGER m, map(m), p
TYPE(MPI_Comm) comm
TYPE(MPI_Win) win
REAL A(m), B(m)
INTEGER (KIND=MPI_ADDRESS_KIND) lowerbound, sizeofreal

CALL MPI_Type_get_extent(MPI_REAL, lowerbound, sizeofreal)
CALL MPI_Win_create(B, m*sizeofreal, INT(sizeofreal), MPI_INFO_NULL, &
                    comm, win)

CALL MPI_Win_fence(0, win)
DO i=1,m
  j = map(i)/m
  k = MOD(map(i),m)
  CALL MPI_Accumulate(A(i), 1, MPI_REAL, j, INT(k, MPI_ADDRESS_KIND), &
                      1, MPI_REAL, MPI_SUM, win)
END DO
CALL MPI_Win_fence(0, win)
IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(B)

CALL MPI_Win_free(win)
RETURN
END
