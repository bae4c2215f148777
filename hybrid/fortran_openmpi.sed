# fortran_openmpi.sed: the MPI standard's SUM and MAPVALS examples
# (fortran/tests/seeds/, the text as printed) with their two argument-kind
# slips corrected, for Open MPI's `use mpi` (hybrid/hybrid.mk):
#  - `k`, MPI_ACCUMULATE's and MPI_GET's target_disp, is declared
#    INTEGER (KIND=MPI_ADDRESS_KIND) (it was implicitly a default INTEGER);
#  - MPI_WIN_CREATE gets INT(sizeofreal), a default INTEGER, as its
#    disp_unit (sizeofreal is address-kind, as MPI_TYPE_GET_EXTENT returns
#    it).
# Debian's Open MPI `use mpi` has specific interfaces with the standard's
# kinds and rejects the printed text at compile time ("There is no
# specific subroutine for the generic"); MPICH's does not check and builds
# the printed text.  hybrid.mk checks that exactly these two lines change.
s/^\(INTEGER (KIND=MPI_ADDRESS_KIND) lowerbound, sizeofreal\)$/\1, k/
s/^\(CALL MPI_WIN_CREATE(B, m\*sizeofreal, \)sizeofreal,/\1INT(sizeofreal),/
