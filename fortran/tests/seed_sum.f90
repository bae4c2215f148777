! seed_sum: the standard's SUBROUTINE SUM as printed in the MPI-3 text
! (seeds/sum.f90, Example 11.3): MPI_WIN_CREATE gets an address-kind
! disp_unit and MPI_ACCUMULATE a default-integer target_disp, which the
! `mpi` module's generics accept and convert.
PROGRAM seed_sum
  USE MPI
  IMPLICIT NONE
  INTEGER, PARAMETER :: div_by_p = 0
  INCLUDE 'sum_main.inc'
END PROGRAM seed_sum

INCLUDE 'sum.f90'
INCLUDE 'ftlib.f90'
INCLUDE 'served.f90'
