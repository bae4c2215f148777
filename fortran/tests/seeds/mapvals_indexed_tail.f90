! The end of SUBROUTINE MAPVALS, Example 11.1 (one MPI_GET per process
! with MPI_TYPE_CREATE_INDEXED_BLOCK types), verbatim from
! seed 004_563cd53cacf0c2b6.txt, whose text starts at the
! last line of the index loop; the page's line numbers 1-27 and trailing
! blanks dropped.  The beginning is in ../mapvals_indexed.f90.
  tindex(total(j) + count(j)) = k
END DO

  ! create origin and target datatypes for each get operation
DO i=1,p
  CALL MPI_TYPE_CREATE_INDEXED_BLOCK(count(i), 1, oindex(total(i)+1), &
                                      MPI_REAL, otype(i), ierr)
  CALL MPI_TYPE_COMMIT(otype(i), ierr)
  CALL MPI_TYPE_CREATE_INDEXED_BLOCK(count(i), 1, tindex(total(i)+1), &
                                     MPI_REAL, ttype(i), ierr)
 CALL MPI_TYPE_COMMIT(ttype(i), ierr)
END DO

! this part does the assignment itself
CALL MPI_WIN_FENCE(0, win, ierr)
DO i=1,p
 CALL MPI_GET(A, 1, otype(i), i-1, 0, 1, ttype(i), win, ierr)
END DO
CALL MPI_WIN_FENCE(0, win, ierr)

CALL MPI_WIN_FREE(win, ierr)
DO i=1,p
 CALL MPI_TYPE_FREE(otype(i), ierr)
 CALL MPI_TYPE_FREE(ttype(i), ierr)
END DO
RETURN
END
