! rma: the RMA suite from Fortran (`use mpi`), as mpitests/win.c and
! mpitests/sync.c do it from C: every window flavor (create with a
! disp_unit that differs between ranks, allocate, allocate_shared with
! direct loads, dynamic with attached memory) under every synchronization
! mode (fence; exclusive and shared locks; lock_all with flush and
! request-based operations; post/start/complete/wait, and MPI_WIN_TEST),
! with put, get, accumulate, get_accumulate, fetch_and_op,
! compare_and_swap, rput, rget and raccumulate; plus the window
! attributes, name and group as Fortran sees them.
PROGRAM rma
  USE MPI
  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR, C_F_POINTER
  IMPLICIT NONE
  INTEGER, PARAMETER :: n = 16
  INTEGER(KIND=MPI_ADDRESS_KIND), PARAMETER :: nbytes = 4 * n
  INTEGER, TARGET :: cmem(n), dmem(n)
  INTEGER, POINTER :: amem(:), smem(:), peer(:)
  INTEGER :: rank, p, ierr, nbad, win, du, psize, pdu
  INTEGER(KIND=MPI_ADDRESS_KIND) :: baseptr, addr, qsize
  INTEGER(KIND=MPI_ADDRESS_KIND), ALLOCATABLE :: addrs(:)
  INTEGER, ALLOCATABLE :: dus(:)
  TYPE(C_PTR) :: cp

  CALL MPI_INIT(ierr)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  ALLOCATE (addrs(0:p - 1), dus(0:p - 1))
  nbad = 0

  ! create: disp_unit 4 on even ranks, 1 on odd ones (the target's counts)
  du = 4
  IF (MOD(rank, 2) == 1) du = 1
  CALL MPI_ALLGATHER(du, 1, MPI_INTEGER, dus, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  addrs = 0
  CALL MPI_WIN_CREATE(cmem, nbytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_WIN_CREATE')
  CALL MPI_GET_ADDRESS(cmem, addr, ierr)
  CALL check_attrs(win, MPI_WIN_FLAVOR_CREATE, addr, du)
  CALL exercise(win, cmem, 'create')
  CALL MPI_WIN_FREE(win, ierr)
  CALL ft_expect(win == MPI_WIN_NULL, nbad, 'MPI_WIN_FREE leaves MPI_WIN_NULL')

  ! allocate: the library's memory, seen through a Fortran pointer
  dus = 4
  CALL MPI_WIN_ALLOCATE(nbytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_WIN_ALLOCATE')
  cp = TRANSFER(baseptr, cp)
  CALL C_F_POINTER(cp, amem, (/ n /))
  CALL check_attrs(win, MPI_WIN_FLAVOR_ALLOCATE, baseptr, 4)
  CALL exercise(win, amem, 'allocate')
  CALL MPI_WIN_FREE(win, ierr)

  ! allocate_shared: the same, and then direct loads of the right
  ! neighbour's memory
  CALL MPI_WIN_ALLOCATE_SHARED(nbytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_WIN_ALLOCATE_SHARED')
  cp = TRANSFER(baseptr, cp)
  CALL C_F_POINTER(cp, smem, (/ n /))
  CALL exercise(win, smem, 'shared')
  CALL MPI_WIN_SHARED_QUERY(win, right(), qsize, pdu, baseptr, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_WIN_SHARED_QUERY')
  psize = INT(qsize)
  CALL ft_expect(psize == 4 * n .AND. pdu == 4, nbad, 'shared_query size/disp_unit')
  cp = TRANSFER(baseptr, cp)
  CALL C_F_POINTER(cp, peer, (/ n /))
  CALL MPI_WIN_FENCE(0, win, ierr)
  ! element 1 of the right neighbour holds what this rank put there last
  CALL ft_expect(peer(1) == 100 * rank + 1, nbad, 'shared: direct load of the peer')
  CALL MPI_WIN_FENCE(0, win, ierr)
  CALL MPI_WIN_FREE(win, ierr)

  ! dynamic: attached memory, addressed by absolute addresses
  dus = 1
  CALL MPI_WIN_CREATE_DYNAMIC(MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_WIN_CREATE_DYNAMIC')
  CALL MPI_WIN_ATTACH(win, dmem, nbytes, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_WIN_ATTACH')
  CALL MPI_GET_ADDRESS(dmem, addr, ierr)
  CALL MPI_ALLGATHER(addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD, ierr)
  CALL exercise(win, dmem, 'dynamic')
  CALL MPI_WIN_DETACH(win, dmem, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_WIN_DETACH')
  CALL MPI_WIN_FREE(win, ierr)

  CALL ft_finish(nbad, 'Fortran RMA: 4 flavors x fence, locks, lock_all, PSCW')

CONTAINS

  INTEGER FUNCTION right()
    right = MOD(rank + 1, p)
  END FUNCTION right

  INTEGER FUNCTION left()
    left = MOD(rank - 1 + p, p)
  END FUNCTION left

  ! Displacement of element i (1-based) at rank t, in t's units.
  INTEGER(KIND=MPI_ADDRESS_KIND) FUNCTION disp(t, i)
    INTEGER, INTENT(IN) :: t, i
    disp = addrs(t) + INT(4 * (i - 1) / dus(t), MPI_ADDRESS_KIND)
  END FUNCTION disp

  SUBROUTINE check_attrs(w, flavor, base, unit)
    INTEGER, INTENT(IN) :: w, flavor, unit
    INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: base
    INTEGER(KIND=MPI_ADDRESS_KIND) :: v
    LOGICAL :: flag
    CHARACTER(LEN=MPI_MAX_OBJECT_NAME) :: name
    INTEGER :: len, g, gsize, e

    CALL MPI_WIN_GET_ATTR(w, MPI_WIN_CREATE_FLAVOR, v, flag, e)
    CALL ft_expect(flag .AND. v == flavor, nbad, 'MPI_WIN_CREATE_FLAVOR')
    CALL MPI_WIN_GET_ATTR(w, MPI_WIN_BASE, v, flag, e)
    CALL ft_expect(flag .AND. v == base, nbad, 'MPI_WIN_BASE')
    CALL MPI_WIN_GET_ATTR(w, MPI_WIN_SIZE, v, flag, e)
    CALL ft_expect(flag .AND. v == nbytes, nbad, 'MPI_WIN_SIZE')
    CALL MPI_WIN_GET_ATTR(w, MPI_WIN_DISP_UNIT, v, flag, e)
    CALL ft_expect(flag .AND. v == unit, nbad, 'MPI_WIN_DISP_UNIT')
    CALL MPI_WIN_GET_ATTR(w, MPI_WIN_MODEL, v, flag, e)
    CALL ft_expect(flag .AND. v == MPI_WIN_UNIFIED, nbad, 'MPI_WIN_MODEL')
    CALL MPI_WIN_SET_NAME(w, 'fortran window   ', e)
    CALL MPI_WIN_GET_NAME(w, name, len, e)
    CALL ft_expect(len == 14 .AND. name == 'fortran window', nbad, 'MPI_WIN_GET_NAME: ' // name)
    CALL MPI_WIN_GET_GROUP(w, g, e)
    CALL MPI_GROUP_SIZE(g, gsize, e)
    CALL ft_expect(gsize == p, nbad, 'MPI_WIN_GET_GROUP')
    CALL MPI_GROUP_FREE(g, e)
    CALL ft_expect(g == MPI_GROUP_NULL, nbad, 'MPI_GROUP_FREE leaves MPI_GROUP_NULL')
  END SUBROUTINE check_attrs

  ! Every synchronization mode on one window whose local memory is mem.
  SUBROUTINE exercise(w, mem, what)
    INTEGER, INTENT(IN) :: w
    INTEGER, VOLATILE :: mem(:)
    CHARACTER(LEN=*), INTENT(IN) :: what
    ! Origin buffers are variables: an expression's temporary would be gone
    ! before the epoch ends.
    INTEGER :: i, e, buf(4), buf2(2), res, one, two, three, cmp, org, flag_n
    INTEGER :: g, pg, sg, reqs(2), req, st(MPI_STATUS_SIZE)
    LOGICAL :: done

    mem = 0
    one = 1
    two = 2
    three = 3
    CALL MPI_BARRIER(MPI_COMM_WORLD, e)

    ! fence: put, get, accumulate
    CALL MPI_WIN_FENCE(MPI_MODE_NOPRECEDE, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_WIN_FENCE')
    buf = (/ (100 * rank + i, i = 1, 4) /)
    CALL MPI_PUT(buf, 4, MPI_INTEGER, right(), disp(right(), 1), 4, MPI_INTEGER, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_PUT')
    buf2 = rank + 1
    CALL MPI_ACCUMULATE(buf2, 2, MPI_INTEGER, right(), disp(right(), 5), &
                        2, MPI_INTEGER, MPI_SUM, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_ACCUMULATE')
    CALL MPI_WIN_FENCE(0, w, e)
    DO i = 1, 4
      CALL ft_expect(mem(i) == 100 * left() + i, nbad, what // ': fence + put')
    END DO
    CALL ft_expect(mem(5) == left() + 1 .AND. mem(6) == left() + 1, nbad, what // ': fence + accumulate')
    buf = -1
    CALL MPI_GET(buf, 4, MPI_INTEGER, right(), disp(right(), 1), 4, MPI_INTEGER, w, e)
    CALL MPI_WIN_FENCE(MPI_MODE_NOSUCCEED, w, e)
    CALL ft_expect(ALL(buf == (/ (100 * rank + i, i = 1, 4) /)), nbad, what // ': fence + get')

    ! exclusive lock: put; shared lock: fetch_and_op at rank 0, CAS
    CALL MPI_WIN_LOCK(MPI_LOCK_EXCLUSIVE, right(), 0, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_WIN_LOCK')
    org = rank + 1000
    CALL MPI_PUT(org, 1, MPI_INTEGER, right(), disp(right(), 9), 1, MPI_INTEGER, w, e)
    CALL MPI_WIN_UNLOCK(right(), w, e)
    CALL ft_ok(e, nbad, what // ': MPI_WIN_UNLOCK')
    CALL MPI_WIN_LOCK(MPI_LOCK_SHARED, 0, 0, w, e)
    CALL MPI_FETCH_AND_OP(one, res, MPI_INTEGER, 0, disp(0, 10), MPI_SUM, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_FETCH_AND_OP')
    CALL MPI_WIN_UNLOCK(0, w, e)
    CALL ft_expect(res >= 0 .AND. res < p, nbad, what // ': fetch_and_op result')
    CALL MPI_WIN_LOCK(MPI_LOCK_SHARED, right(), MPI_MODE_NOCHECK, w, e)
    cmp = 0
    org = rank + 1
    CALL MPI_COMPARE_AND_SWAP(org, cmp, res, MPI_INTEGER, right(), disp(right(), 11), w, e)
    CALL ft_ok(e, nbad, what // ': MPI_COMPARE_AND_SWAP')
    CALL MPI_WIN_UNLOCK(right(), w, e)
    CALL ft_expect(res == 0, nbad, what // ': compare_and_swap result')
    CALL MPI_BARRIER(MPI_COMM_WORLD, e)
    CALL MPI_WIN_SYNC(w, e)
    CALL ft_expect(mem(9) == left() + 1000, nbad, what // ': exclusive lock + put')
    IF (rank == 0) CALL ft_expect(mem(10) == p, nbad, what // ': shared lock + fetch_and_op total')
    CALL ft_expect(mem(11) == left() + 1, nbad, what // ': compare_and_swap swapped')

    ! lock_all: rput/rget completed by MPI_WAIT, raccumulate and
    ! get_accumulate, flush
    CALL MPI_WIN_LOCK_ALL(0, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_WIN_LOCK_ALL')
    org = rank + 7
    CALL MPI_RPUT(org, 1, MPI_INTEGER, right(), disp(right(), 12), 1, MPI_INTEGER, w, req, e)
    CALL MPI_WAIT(req, st, e)
    CALL ft_ok(e, nbad, what // ': MPI_RPUT + MPI_WAIT')
    CALL ft_expect(req == MPI_REQUEST_NULL, nbad, what // ': MPI_WAIT frees the request')
    CALL MPI_WIN_FLUSH(right(), w, e)
    CALL MPI_RGET(res, 1, MPI_INTEGER, right(), disp(right(), 12), 1, MPI_INTEGER, w, req, e)
    CALL MPI_WAIT(req, MPI_STATUS_IGNORE, e)
    CALL ft_expect(res == rank + 7, nbad, what // ': rget after rput and flush')
    CALL MPI_RACCUMULATE(two, 1, MPI_INTEGER, right(), disp(right(), 13), 1, MPI_INTEGER, &
                         MPI_SUM, w, reqs(1), e)
    CALL MPI_GET_ACCUMULATE(three, 1, MPI_INTEGER, res, 1, MPI_INTEGER, right(), disp(right(), 14), &
                            1, MPI_INTEGER, MPI_SUM, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_GET_ACCUMULATE')
    reqs(2) = MPI_REQUEST_NULL
    CALL MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, e)
    CALL ft_ok(e, nbad, what // ': MPI_WAITALL')
    CALL MPI_WIN_FLUSH_ALL(w, e)
    ! the result is there once the operation is complete
    CALL ft_expect(res == 0, nbad, what // ': get_accumulate result')
    CALL MPI_WIN_UNLOCK_ALL(w, e)
    CALL ft_ok(e, nbad, what // ': MPI_WIN_UNLOCK_ALL')
    CALL MPI_BARRIER(MPI_COMM_WORLD, e)
    CALL MPI_WIN_SYNC(w, e)
    CALL ft_expect(mem(12) == left() + 7, nbad, what // ': lock_all + rput')
    CALL ft_expect(mem(13) == 2 .AND. mem(14) == 3, nbad, what // ': raccumulate, get_accumulate')

    ! PSCW: expose to the left neighbour, access the right one; the
    ! second round waits with MPI_WIN_TEST
    CALL MPI_WIN_GET_GROUP(w, g, e)
    CALL MPI_GROUP_INCL(g, 1, (/ left() /), pg, e)
    CALL MPI_GROUP_INCL(g, 1, (/ right() /), sg, e)
    DO i = 1, 2
      CALL MPI_WIN_POST(pg, 0, w, e)
      CALL ft_ok(e, nbad, what // ': MPI_WIN_POST')
      CALL MPI_WIN_START(sg, 0, w, e)
      org = rank + 2000 * i
      CALL MPI_PUT(org, 1, MPI_INTEGER, right(), disp(right(), 14 + i), 1, &
                   MPI_INTEGER, w, e)
      CALL MPI_WIN_COMPLETE(w, e)
      CALL ft_ok(e, nbad, what // ': MPI_WIN_COMPLETE')
      IF (i == 1) THEN
        CALL MPI_WIN_WAIT(w, e)
      ELSE
        flag_n = 0
        done = .FALSE.
        DO WHILE (.NOT. done)
          CALL MPI_WIN_TEST(w, done, e)
          flag_n = flag_n + 1
        END DO
        CALL ft_expect(flag_n >= 1, nbad, what // ': MPI_WIN_TEST')
      END IF
      CALL ft_ok(e, nbad, what // ': MPI_WIN_WAIT/TEST')
      CALL ft_expect(mem(14 + i) == left() + 2000 * i, nbad, what // ': post/start/complete/wait')
    END DO
    CALL MPI_GROUP_FREE(pg, e)
    CALL MPI_GROUP_FREE(sg, e)
    CALL MPI_GROUP_FREE(g, e)
    CALL MPI_BARRIER(MPI_COMM_WORLD, e)
  END SUBROUTINE exercise

END PROGRAM rma

INCLUDE 'ftlib.f90'
