! SUBROUTINE MAPVALS, the simple version (Example 11.2), rewritten for
! `use mpi_f08` as seeds/sum_f08.f90 is: typed handles, no ierror, the
! mpi_f08 kinds; the gets fill A at the fence, and
! MPI_F_SYNC_REG tells the compiler so where the standard says to.
SUBROUTINE MAPVALS(A, B, map, m, comm, p)
USE mpi_f08
INTEGER m, map(m), p
TYPE(MPI_Comm) comm
REAL A(m), B(m)
TYPE(MPI_Win) win
INTEGER (KIND=MPI_ADDRESS_KIND) lowerbound, sizeofreal

CALL MPI_Type_get_extent(MPI_REAL, lowerbound, sizeofreal)
CALL MPI_Win_create(B, m*sizeofreal, INT(sizeofreal), MPI_INFO_NULL, &
                   comm, win)

CALL MPI_Win_fence(0, win)
DO i=1,m
    j = map(i)/m
    k = MOD(map(i),m)
    CALL MPI_Get(A(i), 1, MPI_REAL, j, INT(k, MPI_ADDRESS_KIND), 1, MPI_REAL, win)
END DO
CALL MPI_Win_fence(0, win)
IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(A)
CALL MPI_Win_free(win)
RETURN
END
