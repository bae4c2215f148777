! errors: a bad argument from Fortran gets the same error as from C.
!
! Without arguments, under MPI_ERRORS_RETURN: each bad call is made through
! the Fortran binding and through the C function itself (BIND(C); mpirma's
! handles are the same integers in both languages), and both must return
! the same code, of the expected class, whose MPI_ERROR_STRING names it.
! With the argument "fatal": an MPI_PUT outside any epoch under the default
! MPI_ERRORS_ARE_FATAL, which must end the job with the library's message
! ("mpirma: rank R: MPI_Put: MPI_ERR_RMA_SYNC: ..."), as from C.
PROGRAM errors
  USE MPI
  USE, INTRINSIC :: ISO_C_BINDING
  IMPLICIT NONE
  INTERFACE
    INTEGER(C_INT) FUNCTION c_put(oaddr, ocount, otype, trank, tdisp, tcount, ttype, win) &
        BIND(C, NAME='MPI_Put')
      IMPORT :: C_INT, C_LONG, C_PTR
      TYPE(C_PTR), VALUE :: oaddr
      INTEGER(C_INT), VALUE :: ocount, otype, trank, tcount, ttype, win
      INTEGER(C_LONG), VALUE :: tdisp
    END FUNCTION c_put
    INTEGER(C_INT) FUNCTION c_acc(oaddr, ocount, otype, trank, tdisp, tcount, ttype, op, win) &
        BIND(C, NAME='MPI_Accumulate')
      IMPORT :: C_INT, C_LONG, C_PTR
      TYPE(C_PTR), VALUE :: oaddr
      INTEGER(C_INT), VALUE :: ocount, otype, trank, tcount, ttype, op, win
      INTEGER(C_LONG), VALUE :: tdisp
    END FUNCTION c_acc
    INTEGER(C_INT) FUNCTION c_lock(ltype, rank, assert, win) BIND(C, NAME='MPI_Win_lock')
      IMPORT :: C_INT
      INTEGER(C_INT), VALUE :: ltype, rank, assert, win
    END FUNCTION c_lock
    INTEGER(C_INT) FUNCTION c_fence(assert, win) BIND(C, NAME='MPI_Win_fence')
      IMPORT :: C_INT
      INTEGER(C_INT), VALUE :: assert, win
    END FUNCTION c_fence
    INTEGER(C_INT) FUNCTION c_win_create(base, size, disp_unit, info, comm, win) &
        BIND(C, NAME='MPI_Win_create')
      IMPORT :: C_INT, C_LONG, C_PTR
      TYPE(C_PTR), VALUE :: base
      INTEGER(C_LONG), VALUE :: size
      INTEGER(C_INT), VALUE :: disp_unit, info, comm
      INTEGER(C_INT) :: win
    END FUNCTION c_win_create
  END INTERFACE
  INTEGER, TARGET :: v(4), mem(16)
  INTEGER :: rank, p, ierr, nbad, win, w2, right, ef, ec, ef2, ec2
  INTEGER(KIND=MPI_ADDRESS_KIND) :: baseptr
  CHARACTER(LEN=16) :: arg

  CALL MPI_INIT(ierr)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  right = MOD(rank + 1, p)
  nbad = 0
  v = (/ 1, 2, 3, 4 /)
  CALL MPI_WIN_ALLOCATE(64_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierr)
  CALL GET_COMMAND_ARGUMENT(1, arg)
  IF (arg == 'fatal') THEN
    ! no epoch: the default handler ends the job with the library's message
    CALL MPI_PUT(v, 1, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
    PRINT '("rank ", I0, ": MPI_PUT outside an epoch returned ", I0)', rank, ierr
    CALL MPI_FINALIZE(ierr)
    STOP 1
  END IF
  CALL MPI_WIN_SET_ERRHANDLER(win, MPI_ERRORS_RETURN, ierr)
  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)

  CALL MPI_PUT(v, 1, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ef)
  ec = c_put(C_LOC(v), 1, MPI_INTEGER, right, 0_C_LONG, 1, MPI_INTEGER, win)
  CALL same(ef, ec, MPI_ERR_RMA_SYNC, 'MPI_PUT outside an epoch')

  CALL MPI_WIN_LOCK(12345, right, 0, win, ef)
  ec = c_lock(12345, right, 0, win)
  CALL same(ef, ec, MPI_ERR_LOCKTYPE, 'MPI_WIN_LOCK with lock type 12345')

  CALL MPI_WIN_FENCE(0, 777, ef)
  ec = c_fence(0, 777)
  CALL same(ef, ec, MPI_ERR_WIN, 'MPI_WIN_FENCE on window handle 777')

  CALL MPI_WIN_FENCE(0, win, ierr)
  CALL MPI_PUT(v, 1, MPI_INTEGER, p, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ef)
  ec = c_put(C_LOC(v), 1, MPI_INTEGER, p, 0_C_LONG, 1, MPI_INTEGER, win)
  CALL same(ef, ec, MPI_ERR_RANK, 'MPI_PUT to rank nranks')

  CALL MPI_PUT(v, -1, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ef)
  ec = c_put(C_LOC(v), -1, MPI_INTEGER, right, 0_C_LONG, 1, MPI_INTEGER, win)
  CALL same(ef, ec, MPI_ERR_COUNT, 'MPI_PUT with count -1')

  CALL MPI_PUT(v, 1, 12345, right, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ef)
  ec = c_put(C_LOC(v), 1, 12345, right, 0_C_LONG, 1, MPI_INTEGER, win)
  CALL same(ef, ec, MPI_ERR_TYPE, 'MPI_PUT with datatype handle 12345')

  ! a range error may be reported when the epoch ends (as from C)
  CALL MPI_PUT(v, 4, MPI_INTEGER, right, 15_MPI_ADDRESS_KIND, 4, MPI_INTEGER, win, ef)
  CALL MPI_WIN_FENCE(0, win, ef2)
  ec = c_put(C_LOC(v), 4, MPI_INTEGER, right, 15_C_LONG, 4, MPI_INTEGER, win)
  ec2 = c_fence(0, win)
  IF (ef == MPI_SUCCESS .AND. ec == MPI_SUCCESS) THEN
    ef = ef2
    ec = ec2
  END IF
  CALL same(ef, ec, MPI_ERR_RMA_RANGE, 'MPI_PUT past the end of the window')

  CALL MPI_ACCUMULATE(v, 1, MPI_REAL, right, 0_MPI_ADDRESS_KIND, 1, MPI_REAL, MPI_LAND, win, ef)
  ec = c_acc(C_LOC(v), 1, MPI_REAL, right, 0_C_LONG, 1, MPI_REAL, MPI_LAND, win)
  CALL same(ef, ec, MPI_ERR_OP, 'MPI_ACCUMULATE MPI_LAND on MPI_REAL')

  ! the generic's address-kind disp_unit, beyond any INTEGER: the same
  ! error as C's MPI_Win_create with INT_MIN
  CALL MPI_WIN_CREATE(mem, 64_MPI_ADDRESS_KIND, 2_MPI_ADDRESS_KIND**40, MPI_INFO_NULL, &
                      MPI_COMM_WORLD, w2, ef)
  ec = c_win_create(C_LOC(mem), 64_C_LONG, -HUGE(0) - 1, MPI_INFO_NULL, MPI_COMM_WORLD, w2)
  CALL same(ef, ec, -1, 'MPI_WIN_CREATE with disp_unit 2**40')
  CALL MPI_WIN_FENCE(0, win, ierr)
  CALL ft_ok(ierr, nbad, 'the window after the errors')

  CALL MPI_WIN_FREE(win, ierr)
  CALL ft_finish(nbad, 'Fortran errors: the same as C')

CONTAINS

  ! Fortran's and C's codes equal, of class want (-1: any error).
  SUBROUTINE same(ef, ec, want, what)
    INTEGER, INTENT(IN) :: ef, ec, want
    CHARACTER(LEN=*), INTENT(IN) :: what
    CHARACTER(LEN=MPI_MAX_ERROR_STRING) :: msg
    CHARACTER(LEN=200) :: line
    INTEGER :: cls, len, e

    cls = -1
    msg = ''
    len = 0
    IF (ef /= MPI_SUCCESS) THEN
      CALL MPI_ERROR_CLASS(ef, cls, e)
      CALL MPI_ERROR_STRING(ef, msg, len, e)
    END IF
    WRITE (line, '(A, ": Fortran ", I0, ", C ", I0, ", class ", I0, ": ", A)') what, ef, ec, &
          cls, msg(1:len)
    CALL ft_expect(ef == ec .AND. ef /= MPI_SUCCESS .AND. (want < 0 .OR. cls == want) &
                   .AND. msg(1:8) == 'MPI_ERR_' .AND. msg(len + 1:) == '', nbad, line)
  END SUBROUTINE same

END PROGRAM errors

INCLUDE 'ftlib.f90'
