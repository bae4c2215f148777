! f08_nbc: nonblocking collectives through `use mpi_f08`: typed handles
! and requests, ASYNCHRONOUS buffers, ierror left out; MPI_Iallreduce and
! MPI_Ibcast outstanding together, completed by MPI_Waitall.  Then the
! calls with new handle kinds or callbacks (f08_*() below):
! MPI_Ialltoallw, MPI_Alltoallw's large-count overload, MPI_Neighbor_alltoallw
! on a ring, TYPE(MPI_Message) with MPI_Improbe/MPI_Imrecv,
! TYPE(MPI_Session), keyval callbacks of the standard's abstract interfaces
! and MPI_COMM_DUP_FN, MPI_Op_create_c.
MODULE f08_nbc_cb
  USE mpi_f08
  IMPLICIT NONE
  INTEGER :: ndeleted = 0

CONTAINS

  ! An MPI_Comm_delete_attr_function
  SUBROUTINE count_delete(comm, keyval, attribute_val, extra_state, ierror)
    TYPE(MPI_Comm) :: comm
    INTEGER :: keyval, ierror
    INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state

    IF (attribute_val == extra_state) ndeleted = ndeleted + 1
    ierror = MPI_SUCCESS
  END SUBROUTINE count_delete

  ! An MPI_User_function_c: b = a + b + 1 (so that MPI_SUM cannot pass)
  SUBROUTINE plus_one_c(invec, inoutvec, len, datatype)
    USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR, C_F_POINTER
    TYPE(C_PTR), VALUE :: invec, inoutvec
    INTEGER(KIND=MPI_COUNT_KIND) :: len
    TYPE(MPI_Datatype) :: datatype
    INTEGER, POINTER :: a(:), b(:)

    CALL C_F_POINTER(invec, a, (/ len /))
    CALL C_F_POINTER(inoutvec, b, (/ len /))
    b = a + b + 1
  END SUBROUTINE plus_one_c
END MODULE f08_nbc_cb

PROGRAM f08_nbc
  USE mpi_f08
  IMPLICIT NONE
  INTEGER :: rank, np, nbad
  INTEGER, ASYNCHRONOUS :: s, b
  TYPE(MPI_Request) :: req(2)

  CALL MPI_Init()
  CALL MPI_Comm_rank(MPI_COMM_WORLD, rank)
  CALL MPI_Comm_size(MPI_COMM_WORLD, np)
  nbad = 0
  s = rank
  b = -1
  IF (rank == 0) b = 7
  CALL MPI_Iallreduce(MPI_IN_PLACE, s, 1, MPI_INTEGER, MPI_SUM, &
                      MPI_COMM_WORLD, req(1))
  CALL MPI_Ibcast(b, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req(2))
  CALL MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  CALL ft_expect(s == np * (np - 1) / 2, nbad, 'MPI_Iallreduce')
  CALL ft_expect(b == 7, nbad, 'MPI_Ibcast')
  CALL ft_expect(req(1) == MPI_REQUEST_NULL, nbad, 'request freed')
  CALL f08_w(rank, np, nbad)
  CALL f08_message(rank, np, nbad)
  CALL f08_session(np, nbad)
  CALL f08_keyval(nbad)
  CALL f08_op_c(rank, np, nbad)
  CALL ft_finish(nbad, 'nonblocking collectives through mpi_f08')
END PROGRAM f08_nbc

! MPI_Ialltoallw (one INTEGER per peer, byte displacements), then
! MPI_Neighbor_alltoallw on a periodic ring: block 1 to the left, 2 to
! the right.
SUBROUTINE f08_w(rank, np, nbad)
  USE mpi_f08
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: rank, np
  INTEGER, INTENT(INOUT) :: nbad
  INTEGER, ASYNCHRONOUS :: sbuf(np), rbuf(np)
  INTEGER :: cnt(np), displ(np), j, nb(2)
  INTEGER(KIND=MPI_ADDRESS_KIND) :: adispl(2)
  TYPE(MPI_Datatype) :: types(np)
  TYPE(MPI_Request) :: req
  TYPE(MPI_Comm) :: ring

  DO j = 1, np
    sbuf(j) = 100 * rank + j - 1
    cnt(j) = 1
    displ(j) = 4 * (j - 1)
    types(j) = MPI_INTEGER
  END DO
  rbuf = -1
  CALL MPI_Ialltoallw(sbuf, cnt, displ, types, rbuf, cnt, displ, types, MPI_COMM_WORLD, req)
  CALL MPI_Wait(req, MPI_STATUS_IGNORE)
  CALL ft_expect(ALL(rbuf == (/ (100 * j + rank, j = 0, np - 1) /)), nbad, 'MPI_Ialltoallw')
  rbuf = -1
  CALL MPI_Alltoallw(sbuf, INT(cnt, MPI_COUNT_KIND), INT(displ, MPI_ADDRESS_KIND), types, &
                     rbuf, INT(cnt, MPI_COUNT_KIND), INT(displ, MPI_ADDRESS_KIND), types, &
                     MPI_COMM_WORLD)
  CALL ft_expect(ALL(rbuf == (/ (100 * j + rank, j = 0, np - 1) /)), nbad, 'MPI_Alltoallw_c')

  CALL MPI_Cart_create(MPI_COMM_WORLD, 1, (/ np /), (/ .TRUE. /), .FALSE., ring)
  CALL MPI_Cart_shift(ring, 0, 1, nb(1), nb(2))
  sbuf(1:2) = (/ 10 * rank + 1, 10 * rank + 2 /)
  rbuf = -1
  adispl = (/ 0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND /)
  CALL MPI_Neighbor_alltoallw(sbuf, cnt, adispl, types, rbuf, cnt, adispl, types, ring)
  CALL ft_expect(rbuf(1) == 10 * nb(1) + 2 .AND. rbuf(2) == 10 * nb(2) + 1, nbad, &
                 'MPI_Neighbor_alltoallw')
  CALL MPI_Comm_free(ring)
END SUBROUTINE f08_w

! TYPE(MPI_Message): MPI_Improbe and MPI_Imrecv from the left neighbour.
SUBROUTINE f08_message(rank, np, nbad)
  USE mpi_f08
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: rank, np
  INTEGER, INTENT(INOUT) :: nbad
  INTEGER, ASYNCHRONOUS :: v, got
  TYPE(MPI_Message) :: msg
  TYPE(MPI_Request) :: req(2)
  TYPE(MPI_Status) :: st
  LOGICAL :: flag

  v = rank
  CALL MPI_Isend(v, 1, MPI_INTEGER, MOD(rank + 1, np), 9, MPI_COMM_WORLD, req(1))
  flag = .FALSE.
  DO WHILE (.NOT. flag)
    CALL MPI_Improbe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, flag, msg, st)
  END DO
  CALL MPI_Imrecv(got, 1, MPI_INTEGER, msg, req(2))
  CALL ft_expect(msg == MPI_MESSAGE_NULL, nbad, 'MPI_Imrecv takes the message')
  CALL MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  CALL ft_expect(got == MOD(rank - 1 + np, np), nbad, 'MPI_Improbe, MPI_Imrecv')
END SUBROUTINE f08_message

! TYPE(MPI_Session): a communicator of mpi://WORLD.
SUBROUTINE f08_session(np, nbad)
  USE mpi_f08
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: np
  INTEGER, INTENT(INOUT) :: nbad
  TYPE(MPI_Session) :: ses
  TYPE(MPI_Group) :: grp
  TYPE(MPI_Comm) :: comm
  INTEGER :: n

  CALL MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, ses)
  CALL MPI_Group_from_session_pset(ses, 'mpi://WORLD', grp)
  CALL MPI_Comm_create_from_group(grp, 'org.mpirma.f08', MPI_INFO_NULL, MPI_ERRORS_RETURN, comm)
  CALL MPI_Comm_size(comm, n)
  CALL ft_expect(n == np, nbad, 'a session communicator')
  CALL MPI_Comm_free(comm)
  CALL MPI_Group_free(grp)
  CALL MPI_Session_finalize(ses)
  CALL ft_expect(ses == MPI_SESSION_NULL, nbad, 'MPI_Session_finalize')
END SUBROUTINE f08_session

! MPI_COMM_DUP_FN copies, count_delete (a module procedure) deletes.
SUBROUTINE f08_keyval(nbad)
  USE mpi_f08
  USE f08_nbc_cb
  IMPLICIT NONE
  INTEGER, INTENT(INOUT) :: nbad
  INTEGER :: key
  TYPE(MPI_Comm) :: c1, c2
  INTEGER(KIND=MPI_ADDRESS_KIND) :: val
  LOGICAL :: found

  CALL MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, key, 33_MPI_ADDRESS_KIND)
  CALL MPI_Comm_dup(MPI_COMM_WORLD, c1)
  CALL MPI_Comm_set_attr(c1, key, 33_MPI_ADDRESS_KIND)
  CALL MPI_Comm_dup(c1, c2)
  CALL MPI_Comm_get_attr(c2, key, val, found)
  CALL ft_expect(found .AND. val == 33, nbad, 'MPI_COMM_DUP_FN from mpi_f08')
  CALL MPI_Comm_free(c2)
  CALL MPI_Comm_free(c1)
  CALL MPI_Comm_free_keyval(key)
  CALL ft_expect(ndeleted == 2, nbad, 'a module procedure as delete callback')
END SUBROUTINE f08_keyval

! MPI_Op_create_c, a name of its own: the op's function takes a
! MPI_COUNT_KIND length.
SUBROUTINE f08_op_c(rank, np, nbad)
  USE mpi_f08
  USE f08_nbc_cb
  IMPLICIT NONE
  INTEGER, INTENT(IN) :: rank, np
  INTEGER, INTENT(INOUT) :: nbad
  INTEGER :: v(2), r(2)
  TYPE(MPI_Op) :: op

  CALL MPI_Op_create_c(plus_one_c, .TRUE., op)
  v = (/ rank, 2 * rank /)
  CALL MPI_Allreduce(v, r, 2, MPI_INTEGER, op, MPI_COMM_WORLD)
  CALL ft_expect(r(1) == np * (np - 1) / 2 + np - 1 .AND. r(2) == np * (np - 1) + np - 1, &
                 nbad, 'MPI_Op_create_c')
  CALL MPI_Op_free(op)
END SUBROUTINE f08_op_c

INCLUDE 'ftlib.f90'
