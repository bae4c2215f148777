! seed_sum21: SUBROUTINE SUM as printed in the MPI-2.1 text
! (seeds/sum_mpi21.f90), whose map is divided by p instead of m.
PROGRAM seed_sum21
  USE MPI
  IMPLICIT NONE
  INTEGER, PARAMETER :: div_by_p = 1
  INCLUDE 'sum_main.inc'
END PROGRAM seed_sum21

INCLUDE 'sum_mpi21.f90'
INCLUDE 'ftlib.f90'
INCLUDE 'served.f90'
