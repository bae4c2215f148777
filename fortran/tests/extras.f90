! extras: the MPI-4.0 calls added for a complete MPI on one node, from
! Fortran (`use mpi`): MPI_COMM_IDUP and MPI_COMM_IDUP_WITH_INFO (a
! complete request, a working communicator), MPI_COMM_GET_PARENT
! (MPI_COMM_NULL), the port and name calls failing with
! MPI_ERR_UNSUPPORTED_OPERATION, MPI_GREQUEST_COMPLETE of a request that
! is not generalized and the datatype attribute calls with a bad keyval
! failing with their classes.
! The datatypes: MPI_TYPE_CREATE_F90_INTEGER/REAL/COMPLEX give the type of
! a SELECTED_*_KIND variable, which reductions take and MPI_TYPE_FREE
! refuses; MPI_TYPE_CREATE_DARRAY; MPI_PACK_EXTERNAL of INTEGERs.
! What needs callbacks or new handle kinds (ex_* below): matched probes,
! a session, MPI_INFO_GET_STRING and MPI_INFO_CREATE_ENV, MPI_ALLTOALLW,
! keyvals with Fortran and predefined callbacks, a generalized request.

! What the callbacks below tell the test.
MODULE extras_cb
  USE MPI, ONLY: MPI_ADDRESS_KIND
  IMPLICIT NONE
  INTEGER :: ndeleted = 0, ncancelled = 0, nfreed = 0, session_err = 0
  INTEGER(KIND=MPI_ADDRESS_KIND) :: deleted_val = -1
END MODULE extras_cb

PROGRAM extras
  USE MPI
  IMPLICIT NONE
  INTEGER :: rank, np, ierr, nbad, flag
  INTEGER :: dup, dup2, parent, info, sum, req(2), s, v, got
  INTEGER(KIND=MPI_ADDRESS_KIND) :: val
  LOGICAL :: found
  CHARACTER(LEN=MPI_MAX_PORT_NAME) :: port
  INTEGER, PARAMETER :: rk = SELECTED_REAL_KIND(12), ik = SELECTED_INT_KIND(4)
  INTEGER, PARAMETER :: ck = SELECTED_REAL_KIND(6)
  REAL(KIND=rk) :: x, y
  INTEGER(KIND=ik) :: i2, j2
  COMPLEX(KIND=ck) :: z, w
  INTEGER :: tr, ti, tc, sz, darr, ints(4)
  INTEGER(KIND=MPI_ADDRESS_KIND) :: apos, asz
  CHARACTER(LEN=1) :: packed(16)

  CALL MPI_INIT(ierr)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  nbad = 0

  CALL MPI_COMM_IDUP(MPI_COMM_WORLD, dup, req(1), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_COMM_IDUP')
  CALL MPI_INFO_CREATE(info, ierr)
  CALL MPI_COMM_IDUP_WITH_INFO(MPI_COMM_WORLD, info, dup2, req(2), ierr)
  CALL ft_ok(ierr, nbad, 'MPI_COMM_IDUP_WITH_INFO')
  CALL MPI_INFO_FREE(info, ierr)
  CALL MPI_WAITALL(2, req, MPI_STATUSES_IGNORE, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_WAITALL of the idups')
  CALL ft_expect(req(1) == MPI_REQUEST_NULL, nbad, 'idup request freed')
  CALL MPI_ALLREDUCE(rank, sum, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
  CALL ft_expect(sum == np * (np - 1) / 2, nbad, 'allreduce on the idup')
  CALL MPI_ALLREDUCE(rank, sum, 1, MPI_INTEGER, MPI_SUM, dup2, ierr)
  CALL ft_expect(sum == np * (np - 1) / 2, nbad, 'allreduce on the idup_with_info')
  CALL MPI_COMM_FREE(dup, ierr)
  CALL MPI_COMM_FREE(dup2, ierr)

  CALL MPI_COMM_GET_PARENT(parent, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_COMM_GET_PARENT')
  CALL ft_expect(parent == MPI_COMM_NULL, nbad, 'no parent')

  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  CALL MPI_OPEN_PORT(MPI_INFO_NULL, port, ierr)
  CALL ft_class(ierr, MPI_ERR_UNSUPPORTED_OPERATION, nbad, 'MPI_OPEN_PORT')
  CALL MPI_LOOKUP_NAME('svc', MPI_INFO_NULL, port, ierr)
  CALL ft_class(ierr, MPI_ERR_UNSUPPORTED_OPERATION, nbad, 'MPI_LOOKUP_NAME')
  CALL MPI_COMM_CONNECT('port', MPI_INFO_NULL, 0, MPI_COMM_WORLD, dup, ierr)
  CALL ft_class(ierr, MPI_ERR_UNSUPPORTED_OPERATION, nbad, 'MPI_COMM_CONNECT')
  CALL ft_expect(dup == MPI_COMM_NULL, nbad, 'MPI_COMM_CONNECT: no communicator')

  v = rank
  CALL MPI_ISEND(v, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, s, ierr)
  CALL MPI_GREQUEST_COMPLETE(s, ierr)
  CALL ft_class(ierr, MPI_ERR_REQUEST, nbad, 'MPI_GREQUEST_COMPLETE of a send')
  CALL MPI_WAIT(s, MPI_STATUS_IGNORE, ierr)
  CALL MPI_RECV(got, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)

  CALL MPI_TYPE_GET_ATTR(MPI_INTEGER, 12345, val, found, ierr)
  CALL ft_class(ierr, MPI_ERR_KEYVAL, nbad, 'MPI_TYPE_GET_ATTR of a bad keyval')
  CALL MPI_TYPE_DELETE_ATTR(MPI_INTEGER, 12345, ierr)
  CALL ft_class(ierr, MPI_ERR_KEYVAL, nbad, 'MPI_TYPE_DELETE_ATTR of a bad keyval')
  flag = 12345
  CALL MPI_TYPE_FREE_KEYVAL(flag, ierr)
  CALL ft_class(ierr, MPI_ERR_KEYVAL, nbad, 'MPI_TYPE_FREE_KEYVAL of a bad keyval')

  CALL MPI_TYPE_CREATE_F90_REAL(12, MPI_UNDEFINED, tr, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_TYPE_CREATE_F90_REAL')
  CALL MPI_TYPE_SIZE(tr, sz, ierr)
  CALL ft_expect(sz == 8, nbad, 'real(12) is 8 bytes')
  x = REAL(rank + 1, KIND=rk)
  CALL MPI_ALLREDUCE(x, y, 1, tr, MPI_SUM, MPI_COMM_WORLD, ierr)
  CALL ft_expect(y == REAL(np * (np + 1) / 2, KIND=rk), nbad, 'sum of f90 reals')
  CALL MPI_TYPE_CREATE_F90_INTEGER(4, ti, ierr)
  CALL MPI_TYPE_SIZE(ti, sz, ierr)
  CALL ft_expect(sz == 2, nbad, 'integer range 4 is 2 bytes')
  i2 = INT(rank, KIND=ik)
  CALL MPI_ALLREDUCE(i2, j2, 1, ti, MPI_MAX, MPI_COMM_WORLD, ierr)
  CALL ft_expect(j2 == np - 1, nbad, 'max of f90 integers')
  CALL MPI_TYPE_CREATE_F90_COMPLEX(6, MPI_UNDEFINED, tc, ierr)
  z = CMPLX(rank, 1, KIND=ck)
  CALL MPI_ALLREDUCE(z, w, 1, tc, MPI_SUM, MPI_COMM_WORLD, ierr)
  CALL ft_expect(w == CMPLX(np * (np - 1) / 2, np, KIND=ck), nbad, 'sum of f90 complexes')
  CALL MPI_TYPE_FREE(tr, ierr)
  CALL ft_class(ierr, MPI_ERR_TYPE, nbad, 'MPI_TYPE_FREE of an f90 type')
  CALL MPI_TYPE_CREATE_F90_REAL(40, MPI_UNDEFINED, tr, ierr)
  CALL ft_class(ierr, MPI_ERR_ARG, nbad, 'no real of precision 40')

  ! rank 1 of 2: ints 2 and 3 of 4 (blocks of 2)
  CALL MPI_TYPE_CREATE_DARRAY(2, 1, 1, (/ 4 /), (/ MPI_DISTRIBUTE_BLOCK /), &
       (/ MPI_DISTRIBUTE_DFLT_DARG /), (/ 2 /), MPI_ORDER_FORTRAN, MPI_INTEGER, darr, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_TYPE_CREATE_DARRAY')
  CALL MPI_TYPE_COMMIT(darr, ierr)
  ints = (/ 1, 2, 3, 4 /)
  CALL MPI_PACK_EXTERNAL_SIZE('external32', 1, darr, asz, ierr)
  CALL ft_expect(asz == 8, nbad, 'external32 size of the darray')
  apos = 0
  CALL MPI_PACK_EXTERNAL('external32', ints, 1, darr, packed, 16_MPI_ADDRESS_KIND, apos, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_PACK_EXTERNAL')
  CALL ft_expect(apos == 8 .AND. ICHAR(packed(4)) == 3 .AND. ICHAR(packed(8)) == 4, &
       nbad, 'big-endian INTEGERs 3 and 4')
  CALL MPI_TYPE_FREE(darr, ierr)
  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  CALL ex_mprobe(rank, np, nbad)
  CALL ex_session(np, nbad)
  CALL ex_info(nbad)
  CALL ex_alltoallw(rank, np, nbad)
  CALL ex_keyvals(nbad)
  CALL ex_grequest(nbad)
  CALL ft_finish(nbad, 'MPI-4.0 extras from Fortran')
END PROGRAM extras

! MPI_MPROBE + MPI_MRECV and MPI_IMPROBE + MPI_IMRECV from the left
! neighbour; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC.
SUBROUTINE ex_mprobe(rank, np, nbad)
  USE MPI
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: rank, np
  INTEGER, INTENT(INOUT) :: nbad
  INTEGER :: right, left, v(2), got, msg, req(2), rreq, st(MPI_STATUS_SIZE), ierr
  LOGICAL :: flag

  right = MOD(rank + 1, np)
  left = MOD(rank - 1 + np, np)
  v = (/ 100 + rank, 200 + rank /)
  CALL MPI_ISEND(v(1), 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, req(1), ierr)
  CALL MPI_ISEND(v(2), 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD, req(2), ierr)
  CALL MPI_MPROBE(left, 5, MPI_COMM_WORLD, msg, st, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_MPROBE')
  CALL ft_expect(msg /= MPI_MESSAGE_NULL .AND. st(MPI_SOURCE) == left, nbad, 'a message')
  got = -1
  CALL MPI_MRECV(got, 1, MPI_INTEGER, msg, st, ierr)
  CALL ft_expect(ierr == MPI_SUCCESS .AND. got == 100 + left .AND. st(MPI_TAG) == 5 &
       .AND. msg == MPI_MESSAGE_NULL, nbad, 'MPI_MRECV')
  flag = .FALSE.
  DO WHILE (.NOT. flag)
    CALL MPI_IMPROBE(left, 6, MPI_COMM_WORLD, flag, msg, st, ierr)
  END DO
  CALL MPI_IMRECV(got, 1, MPI_INTEGER, msg, rreq, ierr)
  CALL ft_expect(msg == MPI_MESSAGE_NULL, nbad, 'MPI_IMRECV takes the message')
  CALL MPI_WAIT(rreq, st, ierr)
  CALL ft_expect(got == 200 + left .AND. st(MPI_TAG) == 6, nbad, 'MPI_IMPROBE, MPI_IMRECV')
  CALL MPI_WAITALL(2, req, MPI_STATUSES_IGNORE, ierr)
  CALL MPI_MPROBE(MPI_PROC_NULL, 0, MPI_COMM_WORLD, msg, st, ierr)
  CALL ft_expect(msg == MPI_MESSAGE_NO_PROC, nbad, 'MPI_MESSAGE_NO_PROC')
  CALL MPI_MRECV(got, 1, MPI_INTEGER, msg, st, ierr)
  CALL ft_expect(ierr == MPI_SUCCESS .AND. st(MPI_SOURCE) == MPI_PROC_NULL .AND. &
       msg == MPI_MESSAGE_NULL, nbad, 'MPI_MRECV of MPI_MESSAGE_NO_PROC')
END SUBROUTINE ex_mprobe

! A session: its process sets by number and name, a communicator from
! mpi://WORLD's group, its info and error handler, finalized to NULL.
SUBROUTINE ex_session(np, nbad)
  USE MPI
  USE extras_cb
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: np
  INTEGER, INTENT(INOUT) :: nbad
  EXTERNAL :: ses_handler
  INTEGER :: ses, n, i, plen, grp, comm, sz, info, eh, ierr
  CHARACTER(LEN=32) :: pname, val
  LOGICAL :: world, flag

  CALL MPI_SESSION_INIT(MPI_INFO_NULL, MPI_ERRORS_RETURN, ses, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_SESSION_INIT')
  CALL MPI_SESSION_GET_NUM_PSETS(ses, MPI_INFO_NULL, n, ierr)
  CALL ft_expect(n >= 2, nbad, 'MPI_SESSION_GET_NUM_PSETS')
  world = .FALSE.
  DO i = 0, n - 1
    plen = 0
    CALL MPI_SESSION_GET_NTH_PSET(ses, MPI_INFO_NULL, i, plen, pname, ierr)
    IF (plen == 11) THEN
      CALL MPI_SESSION_GET_NTH_PSET(ses, MPI_INFO_NULL, i, plen, pname, ierr)
      IF (pname == 'mpi://WORLD' .AND. plen == 11) world = .TRUE.
    END IF
  END DO
  CALL ft_expect(world, nbad, 'MPI_SESSION_GET_NTH_PSET: mpi://WORLD')
  plen = 5
  pname = 'x'
  CALL MPI_SESSION_GET_NTH_PSET(ses, MPI_INFO_NULL, 0, plen, pname, ierr)
  CALL ft_expect(plen >= 10 .AND. LEN_TRIM(pname) == 5, nbad, 'a name cut to pset_len')
  CALL MPI_SESSION_GET_PSET_INFO(ses, 'mpi://WORLD', info, ierr)
  plen = LEN(val)
  CALL MPI_INFO_GET_STRING(info, 'mpi_size', plen, val, flag, ierr)
  READ (val(1:plen), *) sz
  CALL ft_expect(flag .AND. sz == np, nbad, 'MPI_SESSION_GET_PSET_INFO mpi_size')
  CALL MPI_INFO_FREE(info, ierr)
  CALL MPI_SESSION_GET_INFO(ses, info, ierr)
  CALL ft_expect(ierr == MPI_SUCCESS .AND. info /= MPI_INFO_NULL, nbad, 'MPI_SESSION_GET_INFO')
  CALL MPI_INFO_FREE(info, ierr)
  CALL MPI_SESSION_GET_ERRHANDLER(ses, eh, ierr)
  CALL ft_expect(eh == MPI_ERRORS_RETURN, nbad, 'MPI_SESSION_GET_ERRHANDLER')
  CALL MPI_SESSION_SET_ERRHANDLER(ses, eh, ierr)
  CALL MPI_ERRHANDLER_FREE(eh, ierr)
  CALL MPI_GROUP_FROM_SESSION_PSET(ses, 'mpi://WORLD', grp, ierr)
  CALL MPI_COMM_CREATE_FROM_GROUP(grp, 'org.mpirma.extras', MPI_INFO_NULL, &
       MPI_ERRORS_RETURN, comm, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_COMM_CREATE_FROM_GROUP')
  CALL MPI_ALLREDUCE(1, sz, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  CALL ft_expect(sz == np, nbad, 'allreduce on the session communicator')
  CALL MPI_COMM_FREE(comm, ierr)
  CALL MPI_GROUP_FREE(grp, ierr)
  CALL MPI_SESSION_CREATE_ERRHANDLER(ses_handler, eh, ierr)
  CALL MPI_SESSION_SET_ERRHANDLER(ses, eh, ierr)
  CALL MPI_ERRHANDLER_FREE(eh, ierr)
  CALL MPI_SESSION_CALL_ERRHANDLER(ses, MPI_ERR_OTHER, ierr)
  CALL ft_expect(session_err == MPI_ERR_OTHER, nbad, 'a Fortran session error handler')
  CALL MPI_SESSION_FINALIZE(ses, ierr)
  CALL ft_expect(ierr == MPI_SUCCESS .AND. ses == MPI_SESSION_NULL, nbad, 'MPI_SESSION_FINALIZE')
END SUBROUTINE ex_session

SUBROUTINE ses_handler(session, code)
  USE extras_cb
  IMPLICIT NONE
  INTEGER :: session, code

  session_err = code
END SUBROUTINE ses_handler

! MPI_INFO_GET_STRING: the length alone, a value cut short, a missing key;
! MPI_INFO_CREATE_ENV without argc and argv.
SUBROUTINE ex_info(nbad)
  USE MPI
  IMPLICIT NONE
  INTEGER, INTENT(INOUT) :: nbad
  INTEGER :: info, n, ierr
  CHARACTER(LEN=8) :: val
  LOGICAL :: flag

  CALL MPI_INFO_CREATE(info, ierr)
  CALL MPI_INFO_SET(info, 'colour', 'ultramarine', ierr)
  n = 0
  val = 'unset'
  CALL MPI_INFO_GET_STRING(info, 'colour', n, val, flag, ierr)
  CALL ft_expect(flag .AND. n == 11 .AND. val == 'unset', nbad, 'MPI_INFO_GET_STRING length')
  n = 100
  CALL MPI_INFO_GET_STRING(info, 'colour', n, val, flag, ierr)
  CALL ft_expect(flag .AND. n == 11 .AND. val == 'ultramar', nbad, 'MPI_INFO_GET_STRING cut')
  n = 4
  CALL MPI_INFO_GET_STRING(info, 'nothing', n, val, flag, ierr)
  CALL ft_expect(ierr == MPI_SUCCESS .AND. .NOT. flag .AND. n == 4, nbad, 'no such key')
  CALL MPI_INFO_FREE(info, ierr)
  CALL MPI_INFO_CREATE_ENV(info, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_INFO_CREATE_ENV')
  CALL MPI_INFO_GET_NKEYS(info, n, ierr)
  CALL ft_expect(n >= 1, nbad, 'MPI_INFO_CREATE_ENV keys')
  CALL MPI_INFO_FREE(info, ierr)
END SUBROUTINE ex_info

! MPI_ALLTOALLW: one INTEGER to a peer of even rank sum, MPI_2INTEGER to
! one of odd sum, at byte displacements; then MPI_ALLTOALLW_INIT, started
! twice after the call returned (its datatypes were converted for the call).
SUBROUTINE ex_alltoallw(rank, np, nbad)
  USE MPI
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: rank, np
  INTEGER, INTENT(INOUT) :: nbad
  INTEGER, ASYNCHRONOUS :: sbuf(2 * np), rbuf(2 * np)
  INTEGER :: cnt(np), displ(np), types(np), j, ierr, req, k

  DO j = 0, np - 1
    sbuf(2 * j + 1) = 100 * rank + j
    sbuf(2 * j + 2) = -(100 * rank + j)
    cnt(j + 1) = 1
    displ(j + 1) = 8 * j
    types(j + 1) = MERGE(MPI_INTEGER, MPI_2INTEGER, MOD(rank + j, 2) == 0)
  END DO
  rbuf = -1
  CALL MPI_ALLTOALLW(sbuf, cnt, displ, types, rbuf, cnt, displ, types, MPI_COMM_WORLD, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_ALLTOALLW')
  CALL ft_expect(ok_w(), nbad, 'MPI_ALLTOALLW results')
  CALL MPI_ALLTOALLW_INIT(sbuf, cnt, displ, types, rbuf, cnt, displ, types, MPI_COMM_WORLD, &
       MPI_INFO_NULL, req, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_ALLTOALLW_INIT')
  types = MPI_DATATYPE_NULL
  DO k = 1, 2
    rbuf = -1
    CALL MPI_START(req, ierr)
    CALL MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    CALL MPI_F_SYNC_REG(rbuf)
    CALL ft_expect(ok_w(), nbad, 'MPI_ALLTOALLW_INIT results')
  END DO
  CALL MPI_REQUEST_FREE(req, ierr)

CONTAINS

  LOGICAL FUNCTION ok_w()
    ok_w = .TRUE.
    DO j = 0, np - 1
      ok_w = ok_w .AND. rbuf(2 * j + 1) == 100 * j + rank
      IF (MOD(rank + j, 2) == 0) THEN
        ok_w = ok_w .AND. rbuf(2 * j + 2) == -1
      ELSE
        ok_w = ok_w .AND. rbuf(2 * j + 2) == -(100 * j + rank)
      END IF
    END DO
  END FUNCTION ok_w
END SUBROUTINE ex_alltoallw

! Fortran keyval callbacks: the copy callback's value on MPI_COMM_DUP, the
! delete callback's at MPI_COMM_FREE (also after MPI_COMM_FREE_KEYVAL);
! MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, MPI_TYPE_DUP_FN, and
! MPI_KEYVAL_CREATE's default INTEGER values with MPI_DUP_FN.
SUBROUTINE ex_keyvals(nbad)
  USE MPI
  USE extras_cb
  IMPLICIT NONE
  INTEGER, INTENT(INOUT) :: nbad
  EXTERNAL :: kv_copy, kv_delete
  INTEGER :: key, key2, key3, tkey, ikey, c1, c2, t2, ival, ierr
  INTEGER(KIND=MPI_ADDRESS_KIND) :: val
  LOGICAL :: found

  CALL MPI_COMM_CREATE_KEYVAL(kv_copy, kv_delete, key, 5_MPI_ADDRESS_KIND, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_COMM_CREATE_KEYVAL')
  CALL MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key2, &
       0_MPI_ADDRESS_KIND, ierr)
  CALL MPI_COMM_CREATE_KEYVAL(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key3, &
       0_MPI_ADDRESS_KIND, ierr)
  CALL MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, ikey, 0, ierr)
  CALL MPI_COMM_DUP(MPI_COMM_WORLD, c1, ierr)
  CALL MPI_COMM_SET_ATTR(c1, key, 100_MPI_ADDRESS_KIND, ierr)
  CALL MPI_COMM_SET_ATTR(c1, key2, 77_MPI_ADDRESS_KIND, ierr)
  CALL MPI_COMM_SET_ATTR(c1, key3, 78_MPI_ADDRESS_KIND, ierr)
  CALL MPI_ATTR_PUT(c1, ikey, 79, ierr)
  CALL MPI_COMM_DUP(c1, c2, ierr)
  CALL MPI_COMM_GET_ATTR(c2, key, val, found, ierr)
  CALL ft_expect(found .AND. val == 105, nbad, 'the Fortran copy callback')
  CALL MPI_COMM_GET_ATTR(c2, key2, val, found, ierr)
  CALL ft_expect(found .AND. val == 77, nbad, 'MPI_COMM_DUP_FN')
  CALL MPI_COMM_GET_ATTR(c2, key3, val, found, ierr)
  CALL ft_expect(.NOT. found, nbad, 'MPI_COMM_NULL_COPY_FN')
  CALL MPI_ATTR_GET(c2, ikey, ival, found, ierr)
  CALL ft_expect(found .AND. ival == 79, nbad, 'MPI_KEYVAL_CREATE with MPI_DUP_FN')
  CALL MPI_COMM_FREE(c2, ierr)
  CALL ft_expect(ndeleted == 1 .AND. deleted_val == 105, nbad, 'the Fortran delete callback')
  CALL MPI_COMM_FREE_KEYVAL(key, ierr)
  CALL MPI_COMM_FREE(c1, ierr)
  CALL ft_expect(ndeleted == 2 .AND. deleted_val == 100, nbad, 'delete after MPI_COMM_FREE_KEYVAL')
  CALL MPI_COMM_FREE_KEYVAL(key2, ierr)
  CALL MPI_COMM_FREE_KEYVAL(key3, ierr)
  CALL MPI_KEYVAL_FREE(ikey, ierr)

  CALL MPI_TYPE_CREATE_KEYVAL(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkey, &
       0_MPI_ADDRESS_KIND, ierr)
  CALL MPI_TYPE_DUP(MPI_INTEGER, t2, ierr)
  CALL MPI_TYPE_SET_ATTR(t2, tkey, 9_MPI_ADDRESS_KIND, ierr)
  CALL MPI_TYPE_DUP(t2, c2, ierr)
  CALL MPI_TYPE_GET_ATTR(c2, tkey, val, found, ierr)
  CALL ft_expect(found .AND. val == 9, nbad, 'MPI_TYPE_DUP_FN')
  CALL MPI_TYPE_FREE(c2, ierr)
  CALL MPI_TYPE_FREE(t2, ierr)
  CALL MPI_TYPE_FREE_KEYVAL(tkey, ierr)
END SUBROUTINE ex_keyvals

! The copy callback: the value plus the extra state (5).
SUBROUTINE kv_copy(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
  USE MPI
  IMPLICIT NONE
  INTEGER :: oldcomm, keyval, ierror
  INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
  LOGICAL :: flag

  val_out = val_in + extra_state
  flag = .TRUE.
  ierror = MPI_SUCCESS
END SUBROUTINE kv_copy

SUBROUTINE kv_delete(comm, keyval, val, extra_state, ierror)
  USE MPI
  USE extras_cb
  IMPLICIT NONE
  INTEGER :: comm, keyval, ierror
  INTEGER(KIND=MPI_ADDRESS_KIND) :: val, extra_state

  ndeleted = ndeleted + 1
  deleted_val = val
  ierror = MPI_SUCCESS
END SUBROUTINE kv_delete

! A generalized request: MPI_CANCEL reaches cancel_fn, MPI_WAIT sees the
! status query_fn fills (source from the extra state, a tag, 3 INTEGERs),
! free_fn runs once.
SUBROUTINE ex_grequest(nbad)
  USE MPI
  USE extras_cb
  IMPLICIT NONE
  INTEGER, INTENT(INOUT) :: nbad
  EXTERNAL :: gq_query, gq_free, gq_cancel
  INTEGER :: req, st(MPI_STATUS_SIZE), cnt, ierr

  CALL MPI_GREQUEST_START(gq_query, gq_free, gq_cancel, 42_MPI_ADDRESS_KIND, req, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_GREQUEST_START')
  CALL MPI_CANCEL(req, ierr)
  CALL ft_expect(ncancelled == 1, nbad, 'cancel_fn, not complete')
  CALL MPI_GREQUEST_COMPLETE(req, ierr)
  CALL MPI_WAIT(req, st, ierr)
  CALL MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
  CALL ft_expect(ierr == MPI_SUCCESS .AND. st(MPI_SOURCE) == 42 .AND. st(MPI_TAG) == 7 &
       .AND. cnt == 3 .AND. req == MPI_REQUEST_NULL, nbad, 'query_fn status in MPI_WAIT')
  CALL ft_expect(nfreed == 1, nbad, 'free_fn')
END SUBROUTINE ex_grequest

SUBROUTINE gq_query(extra_state, status, ierror)
  USE MPI
  IMPLICIT NONE
  INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
  INTEGER :: status(MPI_STATUS_SIZE), ierror

  CALL MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, 3, ierror)
  CALL MPI_STATUS_SET_CANCELLED(status, .FALSE., ierror)
  status(MPI_SOURCE) = INT(extra_state)
  status(MPI_TAG) = 7
  ierror = MPI_SUCCESS
END SUBROUTINE gq_query

SUBROUTINE gq_free(extra_state, ierror)
  USE MPI
  USE extras_cb
  IMPLICIT NONE
  INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
  INTEGER :: ierror

  nfreed = nfreed + 1
  ierror = MPI_SUCCESS
END SUBROUTINE gq_free

SUBROUTINE gq_cancel(extra_state, complete, ierror)
  USE MPI
  USE extras_cb
  IMPLICIT NONE
  INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
  LOGICAL :: complete
  INTEGER :: ierror

  IF (.NOT. complete) ncancelled = ncancelled + 1
  ierror = MPI_SUCCESS
END SUBROUTINE gq_cancel

INCLUDE 'ftlib.f90'
