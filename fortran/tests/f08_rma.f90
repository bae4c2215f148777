! f08_rma: the RMA suite of rma.f90 through `use mpi_f08`: typed handles
! (and their == and /=), ierror left out or given, TYPE(C_PTR) base
! pointers, TYPE(MPI_Status), ASYNCHRONOUS buffers with MPI_F_SYNC_REG;
! every window flavor under fence, exclusive and shared locks, lock_all
! with request-based operations and flushes, and PSCW with MPI_Win_test;
! where MPI_SUBARRAYS_SUPPORTED, array sections with gaps as buffers; an
! f08 error handler and user op.
! First: windows made through mpi_f08 are mpirma's (ft_served).  (MPI
! 4.0's large counts are f08_largecount.f90.)
PROGRAM f08_rma
  USE mpi_f08
  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR, C_F_POINTER
  IMPLICIT NONE
  INTEGER, PARAMETER :: n = 16
  INTEGER(KIND=MPI_ADDRESS_KIND), PARAMETER :: nbytes = 4 * n
  INTEGER, TARGET, ASYNCHRONOUS :: cmem(n), dmem(n)
  INTEGER, POINTER, ASYNCHRONOUS :: amem(:), smem(:), peer(:)
  INTEGER :: rank, p, ierr, nbad, du, pdu
  TYPE(MPI_Win) :: win
  INTEGER(KIND=MPI_ADDRESS_KIND) :: addr, qsize
  INTEGER(KIND=MPI_ADDRESS_KIND), ALLOCATABLE :: addrs(:)
  INTEGER, ALLOCATABLE :: dus(:)
  TYPE(C_PTR) :: cp

  CALL MPI_Init()
  CALL MPI_Comm_rank(MPI_COMM_WORLD, rank)
  CALL MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  ALLOCATE (addrs(0:p - 1), dus(0:p - 1))
  nbad = 0
  CALL ft_served(nbad)
  CALL ft_expect(ierr == MPI_SUCCESS, nbad, 'MPI_Comm_size with ierror')
  CALL ft_expect(MPI_COMM_WORLD /= MPI_COMM_NULL .AND. MPI_SUM == MPI_SUM, nbad, &
                 'handle comparisons')

  ! create: disp_unit 4 on even ranks, 1 on odd ones (the target's counts)
  du = 4
  IF (MOD(rank, 2) == 1) du = 1
  CALL MPI_Allgather(du, 1, MPI_INTEGER, dus, 1, MPI_INTEGER, MPI_COMM_WORLD)
  addrs = 0
  CALL MPI_Win_create(cmem, nbytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_Win_create')
  CALL MPI_Get_address(cmem, addr)
  CALL check_attrs(win, MPI_WIN_FLAVOR_CREATE, addr, du)
  CALL exercise(win, cmem, 'create')
  CALL MPI_Win_free(win)
  CALL ft_expect(win == MPI_WIN_NULL, nbad, 'MPI_Win_free leaves MPI_WIN_NULL')

  ! allocate: the library's memory, through a TYPE(C_PTR)
  dus = 4
  CALL MPI_Win_allocate(nbytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, cp, win, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_Win_allocate')
  CALL C_F_POINTER(cp, amem, (/ n /))
  CALL check_attrs(win, MPI_WIN_FLAVOR_ALLOCATE, TRANSFER(cp, addr), 4)
  CALL exercise(win, amem, 'allocate')
  CALL MPI_Win_free(win)

  ! allocate_shared, then direct loads of the right neighbour's memory
  CALL MPI_Win_allocate_shared(nbytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, cp, win)
  CALL C_F_POINTER(cp, smem, (/ n /))
  CALL exercise(win, smem, 'shared')
  CALL MPI_Win_shared_query(win, right(), qsize, pdu, cp, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_Win_shared_query')
  CALL ft_expect(qsize == 4 * n .AND. pdu == 4, nbad, 'shared_query size/disp_unit')
  CALL C_F_POINTER(cp, peer, (/ n /))
  CALL MPI_Win_fence(0, win)
  CALL ft_expect(peer(1) == 100 * rank + 1, nbad, 'shared: direct load of the peer')
  CALL MPI_Win_fence(0, win)
  CALL MPI_Win_free(win)

  ! dynamic: attached memory, addressed by absolute addresses
  dus = 1
  CALL MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win)
  CALL MPI_Win_attach(win, dmem, nbytes, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_Win_attach')
  CALL MPI_Get_address(dmem, addr)
  CALL MPI_Allgather(addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD)
  CALL exercise(win, dmem, 'dynamic')
  CALL MPI_Win_detach(win, dmem, ierr)
  CALL ft_ok(ierr, nbad, 'MPI_Win_detach')
  CALL MPI_Win_free(win)

  ! array sections with gaps, where the module takes them
  IF (MPI_SUBARRAYS_SUPPORTED) CALL sections()
  CALL callbacks()

  CALL ft_finish(nbad, 'Fortran mpi_f08 RMA: 4 flavors x fence, locks, lock_all, PSCW')

CONTAINS

  LOGICAL FUNCTION open_mpi()
    CHARACTER(LEN=MPI_MAX_LIBRARY_VERSION_STRING) :: version
    INTEGER :: vlen

    CALL MPI_Get_library_version(version, vlen)
    open_mpi = INDEX(version(1:vlen), 'Open MPI') > 0
  END FUNCTION open_mpi

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
    TYPE(MPI_Win), INTENT(IN) :: w
    INTEGER, INTENT(IN) :: flavor, unit
    INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: base
    INTEGER(KIND=MPI_ADDRESS_KIND) :: v
    LOGICAL :: flag
    CHARACTER(LEN=MPI_MAX_OBJECT_NAME) :: name
    INTEGER :: len, gsize
    TYPE(MPI_Group) :: g

    CALL MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, v, flag)
    CALL ft_expect(flag .AND. v == flavor, nbad, 'MPI_WIN_CREATE_FLAVOR')
    CALL MPI_Win_get_attr(w, MPI_WIN_BASE, v, flag)
    CALL ft_expect(flag .AND. v == base, nbad, 'MPI_WIN_BASE')
    CALL MPI_Win_get_attr(w, MPI_WIN_SIZE, v, flag)
    CALL ft_expect(flag .AND. v == nbytes, nbad, 'MPI_WIN_SIZE')
    CALL MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, v, flag)
    CALL ft_expect(flag .AND. v == unit, nbad, 'MPI_WIN_DISP_UNIT')
    CALL MPI_Win_get_attr(w, MPI_WIN_MODEL, v, flag)
    CALL ft_expect(flag .AND. v == MPI_WIN_UNIFIED, nbad, 'MPI_WIN_MODEL')
    CALL MPI_Win_set_name(w, 'f08 window   ')
    CALL MPI_Win_get_name(w, name, len)
    ! Open MPI 4.1's own mpi_f08 returns garbage here (alone too): not RMA,
    ! and not the layer's, so only mpirma's answer is checked.
    IF (.NOT. open_mpi()) &
      CALL ft_expect(len == 10 .AND. name == 'f08 window', nbad, 'MPI_Win_get_name: ' // name)
    CALL MPI_Win_get_group(w, g)
    CALL MPI_Group_size(g, gsize)
    CALL ft_expect(gsize == p, nbad, 'MPI_Win_get_group')
    CALL MPI_Group_free(g)
    CALL ft_expect(g == MPI_GROUP_NULL, nbad, 'MPI_Group_free leaves MPI_GROUP_NULL')
  END SUBROUTINE check_attrs

  ! Every synchronization mode on one window whose local memory is mem.
  SUBROUTINE exercise(w, mem, what)
    TYPE(MPI_Win), INTENT(IN) :: w
    INTEGER, VOLATILE :: mem(:)
    CHARACTER(LEN=*), INTENT(IN) :: what
    INTEGER, ASYNCHRONOUS :: buf(4), buf2(2), res, one, two, three, cmp, org
    INTEGER :: i, e, flag_n
    TYPE(MPI_Group) :: g, pg, sg
    TYPE(MPI_Request) :: reqs(2), req
    TYPE(MPI_Status) :: st
    LOGICAL :: done

    mem = 0
    one = 1
    two = 2
    three = 3
    CALL MPI_Barrier(MPI_COMM_WORLD)

    ! fence: put, get, accumulate
    CALL MPI_Win_fence(MPI_MODE_NOPRECEDE, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_Win_fence')
    buf = (/ (100 * rank + i, i = 1, 4) /)
    CALL MPI_Put(buf, 4, MPI_INTEGER, right(), disp(right(), 1), 4, MPI_INTEGER, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_Put')
    buf2 = rank + 1
    CALL MPI_Accumulate(buf2, 2, MPI_INTEGER, right(), disp(right(), 5), &
                        2, MPI_INTEGER, MPI_SUM, w)
    CALL MPI_Win_fence(0, w)
    DO i = 1, 4
      CALL ft_expect(mem(i) == 100 * left() + i, nbad, what // ': fence + put')
    END DO
    CALL ft_expect(mem(5) == left() + 1 .AND. mem(6) == left() + 1, nbad, what // ': fence + accumulate')
    buf = -1
    CALL MPI_Get(buf, 4, MPI_INTEGER, right(), disp(right(), 1), 4, MPI_INTEGER, w)
    CALL MPI_Win_fence(MPI_MODE_NOSUCCEED, w)
    IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(buf)
    CALL ft_expect(ALL(buf == (/ (100 * rank + i, i = 1, 4) /)), nbad, what // ': fence + get')

    ! exclusive lock: put; shared lock: fetch_and_op at rank 0, CAS
    CALL MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right(), 0, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_Win_lock')
    org = rank + 1000
    CALL MPI_Put(org, 1, MPI_INTEGER, right(), disp(right(), 9), 1, MPI_INTEGER, w)
    CALL MPI_Win_unlock(right(), w, e)
    CALL ft_ok(e, nbad, what // ': MPI_Win_unlock')
    CALL MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w)
    CALL MPI_Fetch_and_op(one, res, MPI_INTEGER, 0, disp(0, 10), MPI_SUM, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_Fetch_and_op')
    CALL MPI_Win_unlock(0, w)
    IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(res)
    CALL ft_expect(res >= 0 .AND. res < p, nbad, what // ': fetch_and_op result')
    CALL MPI_Win_lock(MPI_LOCK_SHARED, right(), MPI_MODE_NOCHECK, w)
    cmp = 0
    org = rank + 1
    CALL MPI_Compare_and_swap(org, cmp, res, MPI_INTEGER, right(), disp(right(), 11), w, e)
    CALL ft_ok(e, nbad, what // ': MPI_Compare_and_swap')
    CALL MPI_Win_unlock(right(), w)
    IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(res)
    CALL ft_expect(res == 0, nbad, what // ': compare_and_swap result')
    CALL settle(w)
    CALL ft_expect(mem(9) == left() + 1000, nbad, what // ': exclusive lock + put')
    IF (rank == 0) CALL ft_expect(mem(10) == p, nbad, what // ': shared lock + fetch_and_op total')
    CALL ft_expect(mem(11) == left() + 1, nbad, what // ': compare_and_swap swapped')

    ! lock_all: rput/rget completed by MPI_Wait, raccumulate and
    ! get_accumulate, flush
    CALL MPI_Win_lock_all(0, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_Win_lock_all')
    org = rank + 7
    CALL MPI_Rput(org, 1, MPI_INTEGER, right(), disp(right(), 12), 1, MPI_INTEGER, w, req)
    CALL MPI_Wait(req, st, e)
    CALL ft_ok(e, nbad, what // ': MPI_Rput + MPI_Wait')
    CALL ft_expect(req == MPI_REQUEST_NULL, nbad, what // ': MPI_Wait frees the request')
    CALL MPI_Win_flush(right(), w)
    CALL MPI_Rget(res, 1, MPI_INTEGER, right(), disp(right(), 12), 1, MPI_INTEGER, w, req)
    CALL MPI_Wait(req, MPI_STATUS_IGNORE)
    IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(res)
    CALL ft_expect(res == rank + 7, nbad, what // ': rget after rput and flush')
    CALL MPI_Raccumulate(two, 1, MPI_INTEGER, right(), disp(right(), 13), 1, MPI_INTEGER, &
                         MPI_SUM, w, reqs(1))
    CALL MPI_Get_accumulate(three, 1, MPI_INTEGER, res, 1, MPI_INTEGER, right(), disp(right(), 14), &
                            1, MPI_INTEGER, MPI_SUM, w, e)
    CALL ft_ok(e, nbad, what // ': MPI_Get_accumulate')
    reqs(2) = MPI_REQUEST_NULL
    CALL MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, e)
    CALL ft_ok(e, nbad, what // ': MPI_Waitall')
    CALL MPI_Win_flush_all(w)
    IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(res)
    CALL ft_expect(res == 0, nbad, what // ': get_accumulate result')
    CALL MPI_Win_unlock_all(w)
    CALL settle(w)
    CALL ft_expect(mem(12) == left() + 7, nbad, what // ': lock_all + rput')
    CALL ft_expect(mem(13) == 2 .AND. mem(14) == 3, nbad, what // ': raccumulate, get_accumulate')

    ! PSCW: expose to the left neighbour, access the right one; the
    ! second round waits with MPI_Win_test
    CALL MPI_Win_get_group(w, g)
    CALL MPI_Group_incl(g, 1, (/ left() /), pg)
    CALL MPI_Group_incl(g, 1, (/ right() /), sg)
    DO i = 1, 2
      CALL MPI_Win_post(pg, 0, w, e)
      CALL ft_ok(e, nbad, what // ': MPI_Win_post')
      CALL MPI_Win_start(sg, 0, w)
      org = rank + 2000 * i
      CALL MPI_Put(org, 1, MPI_INTEGER, right(), disp(right(), 14 + i), 1, MPI_INTEGER, w)
      CALL MPI_Win_complete(w, e)
      CALL ft_ok(e, nbad, what // ': MPI_Win_complete')
      IF (i == 1) THEN
        CALL MPI_Win_wait(w, e)
      ELSE
        flag_n = 0
        done = .FALSE.
        DO WHILE (.NOT. done)
          CALL MPI_Win_test(w, done, e)
          flag_n = flag_n + 1
        END DO
        CALL ft_expect(flag_n >= 1, nbad, what // ': MPI_Win_test')
      END IF
      CALL ft_ok(e, nbad, what // ': MPI_Win_wait/test')
      CALL ft_expect(mem(14 + i) == left() + 2000 * i, nbad, what // ': post/start/complete/wait')
    END DO
    CALL MPI_Group_free(pg)
    CALL MPI_Group_free(sg)
    CALL MPI_Group_free(g)
    CALL MPI_Barrier(MPI_COMM_WORLD)
  END SUBROUTINE exercise

  ! After the others' passive-target updates (their unlocks, then a
  ! barrier), the local copy of @w is read: MPI_Win_sync, within a passive
  ! target epoch as the standard allows it (MPICH refuses it outside one,
  ! on a window it serves itself).
  SUBROUTINE settle(w)
    TYPE(MPI_Win), INTENT(IN) :: w

    CALL MPI_Barrier(MPI_COMM_WORLD)
    CALL MPI_Win_lock_all(MPI_MODE_NOCHECK, w)
    CALL MPI_Win_sync(w)
    CALL MPI_Win_unlock_all(w)
  END SUBROUTINE settle

  ! MPI_SUBARRAYS_SUPPORTED (MPICH's mpi_f08): an array section with gaps
  ! is a choice buffer read as if its elements were contiguous, in array
  ! element order; the count may stop short of its end, not go past it.
  SUBROUTINE sections()
    INTEGER, PARAMETER :: m = 24
    INTEGER, POINTER, ASYNCHRONOUS :: t(:)
    ! Not ASYNCHRONOUS: such a section may not be passed to a module
    ! without subarrays (its DIMENSION(*) ASYNCHRONOUS dummies), and this
    ! code is compiled there too; MPI_F_SYNC_REG and the waits order it.
    INTEGER :: src(4, 5), v(10), dst(8), res(6)
    INTEGER :: i, e, cls, l
    TYPE(MPI_Win) :: w
    TYPE(MPI_Request) :: req
    TYPE(C_PTR) :: cp

    l = left()
    CALL MPI_Win_allocate(INT(4 * m, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &
                          cp, w, e)
    CALL ft_ok(e, nbad, 'sections: MPI_Win_allocate')
    CALL C_F_POINTER(cp, t, (/ m /))
    t = 0
    CALL MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN)
    src = RESHAPE((/ (100 * rank + i, i = 1, 20) /), (/ 4, 5 /))
    v = (/ (1000 * rank + i, i = 1, 10) /)
    CALL MPI_Win_fence(0, w)
    ! two dimensions, the whole section: 2 elements of each of 3 columns
    CALL MPI_Put(src(2:3, 2:4), 6, MPI_INTEGER, right(), 0_MPI_ADDRESS_KIND, 6, MPI_INTEGER, w, e)
    CALL ft_ok(e, nbad, 'sections: MPI_Put of src(2:3, 2:4)')
    ! the first 2 of 4, and a negative stride (request-based)
    CALL MPI_Put(v(1:10:3), 2, MPI_INTEGER, right(), 6_MPI_ADDRESS_KIND, 2, MPI_INTEGER, w)
    CALL MPI_Rput(v(10:1:-3), 4, MPI_INTEGER, right(), 8_MPI_ADDRESS_KIND, 4, MPI_INTEGER, w, req)
    CALL MPI_Wait(req, MPI_STATUS_IGNORE)
    CALL MPI_Accumulate(v(2:10:4), 3, MPI_INTEGER, right(), 12_MPI_ADDRESS_KIND, 3, MPI_INTEGER, &
                        MPI_SUM, w)
    ! past the section's end: an error at the call, nothing moved
    CALL MPI_Put(v(1:10:3), 5, MPI_INTEGER, right(), 20_MPI_ADDRESS_KIND, 5, MPI_INTEGER, w, e)
    cls = MPI_SUCCESS
    IF (e /= MPI_SUCCESS) CALL MPI_Error_class(e, cls)
    CALL ft_expect(cls == MPI_ERR_COUNT, nbad, 'sections: a count past the section is MPI_ERR_COUNT')
    CALL MPI_Win_fence(0, w)
    CALL ft_expect(ALL(t(1:6) == 100 * l + (/ 6, 7, 10, 11, 14, 15 /)), nbad, &
                   'sections: put of a 2-D section')
    CALL ft_expect(ALL(t(7:8) == 1000 * l + (/ 1, 4 /)), nbad, 'sections: put of part of a section')
    CALL ft_expect(ALL(t(9:12) == 1000 * l + (/ 10, 7, 4, 1 /)), nbad, &
                   'sections: rput of a reversed section')
    CALL ft_expect(ALL(t(13:15) == 1000 * l + (/ 2, 6, 10 /)), nbad, &
                   'sections: accumulate of a section')
    CALL ft_expect(ALL(t(21:24) == 0), nbad, 'sections: the refused put moved nothing')

    ! into sections: get, and get_accumulate's result
    dst = -1
    res = -1
    CALL MPI_Get(dst(1:8:2), 4, MPI_INTEGER, right(), 0_MPI_ADDRESS_KIND, 4, MPI_INTEGER, w)
    CALL MPI_Get_accumulate(v(1:3), 3, MPI_INTEGER, res(1:6:2), 3, MPI_INTEGER, right(), &
                            15_MPI_ADDRESS_KIND, 3, MPI_INTEGER, MPI_SUM, w)
    CALL MPI_Win_fence(0, w)
    IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(dst)
    IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(res)
    CALL ft_expect(ALL(dst == (/ 100 * rank + 6, -1, 100 * rank + 7, -1, 100 * rank + 10, -1, &
                                 100 * rank + 11, -1 /)), nbad, 'sections: get into a section')
    CALL ft_expect(ALL(res == (/ 0, -1, 0, -1, 0, -1 /)), nbad, &
                   'sections: get_accumulate''s result into a section')
    CALL ft_expect(ALL(t(16:18) == 1000 * l + (/ 1, 2, 3 /)), nbad, &
                   'sections: get_accumulate''s sum')
    CALL MPI_Win_free(w)
  END SUBROUTINE sections

  ! f08 callbacks: a window error handler with a TYPE(MPI_Win) argument,
  ! a user op whose vectors are TYPE(C_PTR) by value (for a reduction:
  ! RMA takes predefined ops only).
  SUBROUTINE callbacks()
    PROCEDURE(MPI_Win_errhandler_function) :: f08_on_win_error
    PROCEDURE(MPI_User_function) :: f08_max_abs
    INTEGER :: handled_win, handled_code
    COMMON /f08_handled/ handled_win, handled_code
    TYPE(MPI_Errhandler) :: eh
    TYPE(MPI_Op) :: op
    TYPE(MPI_Win) :: w
    INTEGER, ASYNCHRONOUS :: mem(1)
    INTEGER :: e, x(2), y(2)

    CALL MPI_Win_create(mem, 4_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, w)
    CALL MPI_Win_create_errhandler(f08_on_win_error, eh, e)
    CALL ft_ok(e, nbad, 'MPI_Win_create_errhandler')
    CALL MPI_Win_set_errhandler(w, eh)
    handled_win = -1
    handled_code = MPI_SUCCESS
    CALL MPI_Win_call_errhandler(w, MPI_ERR_OTHER)
    CALL ft_expect(handled_code == MPI_ERR_OTHER .AND. handled_win == w%MPI_VAL, nbad, &
                   'an f08 window error handler is called with the window and the code')
    CALL MPI_Errhandler_free(eh)
    CALL ft_expect(eh == MPI_ERRHANDLER_NULL, nbad, 'MPI_Errhandler_free')
    CALL MPI_Win_free(w)

    CALL MPI_Op_create(f08_max_abs, .TRUE., op, e)
    CALL ft_ok(e, nbad, 'MPI_Op_create')
    x = (/ rank, -2 * rank /)
    CALL MPI_Allreduce(x, y, 2, MPI_INTEGER, op, MPI_COMM_WORLD)
    CALL ft_expect(y(1) == p - 1 .AND. y(2) == 2 * (p - 1), nbad, 'an f08 user op')
    CALL MPI_Op_free(op)
  END SUBROUTINE callbacks

END PROGRAM f08_rma

! The callbacks (external, not internal: no trampolines), their state in
! a common block.
SUBROUTINE f08_on_win_error(win, error_code)
  USE mpi_f08
  IMPLICIT NONE
  TYPE(MPI_Win) :: win
  INTEGER :: error_code
  INTEGER :: handled_win, handled_code
  COMMON /f08_handled/ handled_win, handled_code

  handled_win = win%MPI_VAL
  handled_code = error_code
END SUBROUTINE f08_on_win_error

SUBROUTINE f08_max_abs(invec, inoutvec, len, datatype)
  USE mpi_f08
  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR, C_F_POINTER
  IMPLICIT NONE
  TYPE(C_PTR), VALUE :: invec, inoutvec
  INTEGER :: len
  TYPE(MPI_Datatype) :: datatype
  INTEGER, POINTER :: a(:), b(:)

  CALL C_F_POINTER(invec, a, (/ len /))
  CALL C_F_POINTER(inoutvec, b, (/ len /))
  b = MAX(ABS(a), ABS(b))
END SUBROUTINE f08_max_abs

INCLUDE 'ftlib.f90'
INCLUDE 'served_f08.f90'
