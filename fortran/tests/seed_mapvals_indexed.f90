! seed_mapvals_indexed: the standard's SUBROUTINE MAPVALS with indexed-block
! datatypes (Example 11.1).  The seed has its end (seeds/
! mapvals_indexed_tail.f90, verbatim) from the last line of the index loop
! on; the beginning below is written after the standard's, with 0-based
! displacements, which is what MPI_TYPE_CREATE_INDEXED_BLOCK takes and what
! the seed's tindex(...) = k line needs.
PROGRAM seed_mapvals_indexed
  USE MPI
  IMPLICIT NONE
  CHARACTER(LEN=*), PARAMETER :: test_name = 'MAPVALS (Example 11.1, indexed blocks)'
  INCLUDE 'mapvals_main.inc'
END PROGRAM seed_mapvals_indexed

SUBROUTINE MAPVALS(A, B, map, m, comm, p)
USE MPI
INTEGER m, map(m), comm, p
REAL A(m), B(m)

INTEGER otype(p), oindex(m),   & ! used to construct origin datatypes
     ttype(p), tindex(m),      & ! used to construct target datatypes
     count(p), total(p),       &
     disp_int, win, ierr
INTEGER (KIND=MPI_ADDRESS_KIND) lowerbound, size, realextent

! This part does the work that depends on the locations of B.
CALL MPI_TYPE_GET_EXTENT(MPI_REAL, lowerbound, realextent, ierr)
disp_int = INT(realextent)
size = m * realextent
CALL MPI_WIN_CREATE(B, size, disp_int, MPI_INFO_NULL, comm, win, ierr)

! Number of entries to be received from each process
DO i=1,p
  count(i) = 0
END DO
DO i=1,m
  j = map(i)/m+1
  count(j) = count(j)+1
END DO

total(1) = 0
DO i=2,p
  total(i) = total(i-1) + count(i-1)
END DO

DO i=1,p
  count(i) = 0
END DO

! Origin and target displacements (0-based) of the entries: entry i here
! comes from element k+1 of process j-1, where map(i) = (j-1)*m + k.
DO i=1,m
  j = map(i)/m+1
  k = MOD(map(i),m)
  count(j) = count(j)+1
  oindex(total(j) + count(j)) = i-1
INCLUDE 'mapvals_indexed_tail.f90'

INCLUDE 'ftlib.f90'
INCLUDE 'served.f90'
