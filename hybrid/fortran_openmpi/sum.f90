! sum.f90: the standard's SUBROUTINE SUM (Example 11.3) for Open MPI's
! `use mpi`: a copy of fortran/tests/seeds/sum.f90 (the text as printed)
! with its two argument-kind slips corrected, nothing else changed:
!  - `k` is declared INTEGER (KIND=MPI_ADDRESS_KIND) (it was implicitly a
!    default INTEGER), since it is MPI_ACCUMULATE's target_disp;
!  - MPI_WIN_CREATE gets INT(sizeofreal), a default INTEGER, as its
!    disp_unit (sizeofreal is INTEGER (KIND=MPI_ADDRESS_KIND), as
!    MPI_TYPE_GET_EXTENT returns it).
! Why: Debian's Open MPI `use mpi` has specific interfaces with the
! standard's kinds and rejects the printed text at compile time ("There is
! no specific subroutine for the generic"); mpirma's own `mpi` module
! accepts either kind, and MPICH's does not check.  hybrid/hybrid.mk builds
! the Open MPI tests with this directory ahead of fortran/tests/seeds.
SUBROUTINE SUM(A, B, map, m, comm, p)
USE MPI
INTEGER m, map(m), comm, p, win, ierr
REAL A(m), B(m)
INTEGER (KIND=MPI_ADDRESS_KIND) lowerbound, sizeofreal, k

CALL MPI_TYPE_GET_EXTENT(MPI_REAL, lowerbound, sizeofreal, ierr)
CALL MPI_WIN_CREATE(B, m*sizeofreal, INT(sizeofreal), MPI_INFO_NULL, &
                    comm, win, ierr)

CALL MPI_WIN_FENCE(0, win, ierr)
DO i=1,m
  j = map(i)/m
  k = MOD(map(i),m)
  CALL MPI_ACCUMULATE(A(i), 1, MPI_REAL, j, k, 1, MPI_REAL, &
                      MPI_SUM, win, ierr)
END DO
CALL MPI_WIN_FENCE(0, win, ierr)

CALL MPI_WIN_FREE(win, ierr)
RETURN
END
