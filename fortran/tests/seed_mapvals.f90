! seed_mapvals: the standard's simple SUBROUTINE MAPVALS (seeds/mapvals.f90,
! Example 11.2) as printed: one MPI_GET per entry, with a default-integer
! target_disp.
PROGRAM seed_mapvals
  USE MPI
  IMPLICIT NONE
  CHARACTER(LEN=*), PARAMETER :: test_name = 'MAPVALS (Example 11.2)'
  INCLUDE 'mapvals_main.inc'
END PROGRAM seed_mapvals

INCLUDE 'mapvals.f90'
INCLUDE 'ftlib.f90'
INCLUDE 'served.f90'
