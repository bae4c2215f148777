! f08_seed_sum: the standard's SUBROUTINE SUM rewritten for `use mpi_f08`
! (seeds/sum_f08.f90), run by the same body as seed_sum.
PROGRAM f08_seed_sum
  USE mpi_f08
  IMPLICIT NONE
  INTEGER, PARAMETER :: div_by_p = 0
  INCLUDE 'sum_main.inc'
END PROGRAM f08_seed_sum

INCLUDE 'sum_f08.f90'
INCLUDE 'ftlib.f90'
INCLUDE 'served_f08.f90'
