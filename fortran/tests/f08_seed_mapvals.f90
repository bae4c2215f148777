! f08_seed_mapvals: the standard's simple SUBROUTINE MAPVALS rewritten for
! `use mpi_f08` (seeds/mapvals_f08.f90), run by the same body as
! seed_mapvals.
PROGRAM f08_seed_mapvals
  USE mpi_f08
  IMPLICIT NONE
  CHARACTER(LEN=*), PARAMETER :: test_name = 'MAPVALS (Example 11.2, mpi_f08)'
  INCLUDE 'mapvals_main.inc'
END PROGRAM f08_seed_mapvals

INCLUDE 'mapvals_f08.f90'
INCLUDE 'ftlib.f90'
INCLUDE 'served_f08.f90'
