! ops: every op on every Fortran type, through MPI_ACCUMULATE,
! MPI_GET_ACCUMULATE and MPI_FETCH_AND_OP, against a reference computed
! here in Fortran.  Allowed combinations (the standard's op/type table, seed
! 003: MAX/MIN on integers and reals, SUM/PROD also on complex, LAND/LOR/
! LXOR on LOGICAL, BAND/BOR/BXOR on INTEGER, MAXLOC/MINLOC on the pairs,
! REPLACE and NO_OP on everything) must give the reference's bits, LOGICAL
! results .TRUE. = 1 as gfortran has it; every other combination must fail
! with MPI_ERR_OP and leave the target alone.  Each rank targets its right
! neighbour; every element has one origin, so float rounding is exact.
PROGRAM ops
  USE MPI
  IMPLICIT NONE
  INTEGER, PARAMETER :: nt = 10, nop = 14, ne = 8, maxsz = 16, region = ne * maxsz
  INTEGER :: types(nt), sizes(nt), opl(nop)
  CHARACTER(LEN=22) :: tnames(nt)
  CHARACTER(LEN=11) :: onames(nop)
  INTEGER(KIND=1) :: wmem(region * nop)
  INTEGER(KIND=1) :: init(region, nop), org(region, nop), res(region, nop), want(maxsz)
  INTEGER :: rank, p, ierr, nbad, win, t, o, sz, right, left, tsize, e, cls, n1
  INTEGER(KIND=MPI_ADDRESS_KIND) :: d
  CHARACTER(LEN=120) :: what
  LOGICAL :: ok

  types = (/ MPI_REAL, MPI_DOUBLE_PRECISION, MPI_INTEGER, MPI_LOGICAL, MPI_COMPLEX, &
             MPI_DOUBLE_COMPLEX, MPI_CHARACTER, MPI_2REAL, MPI_2INTEGER, MPI_2DOUBLE_PRECISION /)
  tnames = (/ 'MPI_REAL              ', 'MPI_DOUBLE_PRECISION  ', 'MPI_INTEGER           ', &
              'MPI_LOGICAL           ', 'MPI_COMPLEX           ', 'MPI_DOUBLE_COMPLEX    ', &
              'MPI_CHARACTER         ', 'MPI_2REAL             ', 'MPI_2INTEGER          ', &
              'MPI_2DOUBLE_PRECISION ' /)
  sizes = (/ 4, 8, 4, 4, 8, 16, 1, 8, 8, 16 /)
  opl = (/ MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, &
           MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP /)
  onames = (/ 'MPI_MAX    ', 'MPI_MIN    ', 'MPI_SUM    ', 'MPI_PROD   ', 'MPI_LAND   ', &
              'MPI_BAND   ', 'MPI_LOR    ', 'MPI_BOR    ', 'MPI_LXOR   ', 'MPI_BXOR   ', &
              'MPI_MAXLOC ', 'MPI_MINLOC ', 'MPI_REPLACE', 'MPI_NO_OP  ' /)

  CALL MPI_INIT(ierr)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  right = MOD(rank + 1, p)
  left = MOD(rank - 1 + p, p)
  nbad = 0
  CALL MPI_WIN_CREATE(wmem, INT(SIZE(wmem), MPI_ADDRESS_KIND), 1, MPI_INFO_NULL, &
                      MPI_COMM_WORLD, win, ierr)
  CALL MPI_WIN_SET_ERRHANDLER(win, MPI_ERRORS_RETURN, ierr)

  DO t = 1, nt
    sz = sizes(t)
    CALL MPI_TYPE_SIZE(types(t), tsize, ierr)
    CALL ft_expect(tsize == sz, nbad, 'MPI_TYPE_SIZE of ' // tnames(t))
    DO o = 1, nop
      CALL gen(t, o, 0, rank, init(:, o))
      CALL gen(t, o, 1, rank, org(:, o))
    END DO

    ! MPI_ACCUMULATE: NO_OP is not an accumulate op
    CALL fill_window()
    CALL MPI_WIN_FENCE(0, win, ierr)
    DO o = 1, nop
      d = (o - 1) * region
      CALL MPI_ACCUMULATE(org(1, o), ne, types(t), right, d, ne, types(t), opl(o), win, e)
      ok = allowed(t, o) .AND. opl(o) /= MPI_NO_OP
      CALL check_class(e, ok, 'MPI_ACCUMULATE')
    END DO
    CALL MPI_WIN_FENCE(0, win, ierr)
    DO o = 1, nop
      ok = allowed(t, o) .AND. opl(o) /= MPI_NO_OP
      CALL check_target(o, ne, ok, 'MPI_ACCUMULATE')
    END DO

    ! MPI_GET_ACCUMULATE on ne-1 elements, MPI_FETCH_AND_OP on the last
    n1 = ne - 1
    CALL fill_window()
    res = 0
    CALL MPI_WIN_FENCE(0, win, ierr)
    DO o = 1, nop
      d = (o - 1) * region
      CALL MPI_GET_ACCUMULATE(org(1, o), n1, types(t), res(1, o), n1, types(t), right, d, &
                              n1, types(t), opl(o), win, e)
      CALL check_class(e, allowed(t, o), 'MPI_GET_ACCUMULATE')
      d = d + n1 * sz
      CALL MPI_FETCH_AND_OP(org(n1 * sz + 1, o), res(n1 * sz + 1, o), types(t), right, d, &
                            opl(o), win, e)
      CALL check_class(e, allowed(t, o), 'MPI_FETCH_AND_OP')
    END DO
    CALL MPI_WIN_FENCE(0, win, ierr)
    DO o = 1, nop
      CALL check_target(o, ne, allowed(t, o), 'MPI_GET_ACCUMULATE/MPI_FETCH_AND_OP')
      IF (.NOT. allowed(t, o)) CYCLE
      ! the results are the right neighbour's initial values
      CALL check_fetched(o)
    END DO
  END DO

  CALL MPI_WIN_FREE(win, ierr)
  CALL ft_finish(nbad, 'Fortran op x type matrix (10 types x 14 ops)')

CONTAINS

  ! May op o be applied to type t (the table; REPLACE and NO_OP always)?
  LOGICAL FUNCTION allowed(t, o)
    INTEGER, INTENT(IN) :: t, o
    INTEGER :: op
    op = opl(o)
    IF (op == MPI_REPLACE .OR. op == MPI_NO_OP) THEN
      allowed = .TRUE.
      RETURN
    END IF
    SELECT CASE (t)
    CASE (1, 2)
      allowed = op == MPI_MAX .OR. op == MPI_MIN .OR. op == MPI_SUM .OR. op == MPI_PROD
    CASE (3)
      allowed = op == MPI_MAX .OR. op == MPI_MIN .OR. op == MPI_SUM .OR. op == MPI_PROD &
                .OR. op == MPI_BAND .OR. op == MPI_BOR .OR. op == MPI_BXOR
    CASE (4)
      allowed = op == MPI_LAND .OR. op == MPI_LOR .OR. op == MPI_LXOR
    CASE (5, 6)
      allowed = op == MPI_SUM .OR. op == MPI_PROD
    CASE (8, 9, 10)
      allowed = op == MPI_MAXLOC .OR. op == MPI_MINLOC
    CASE DEFAULT
      allowed = .FALSE.
    END SELECT
  END FUNCTION allowed

  SUBROUTINE fill_window()
    INTEGER :: oo
    DO oo = 1, nop
      wmem((oo - 1) * region + 1:oo * region) = init(:, oo)
    END DO
  END SUBROUTINE fill_window

  ! Allowed: MPI_SUCCESS; refused: the class MPI_ERR_OP.
  SUBROUTINE check_class(e, ok, call)
    INTEGER, INTENT(IN) :: e
    LOGICAL, INTENT(IN) :: ok
    CHARACTER(LEN=*), INTENT(IN) :: call
    INTEGER :: ee
    cls = MPI_SUCCESS
    IF (e /= MPI_SUCCESS) CALL MPI_ERROR_CLASS(e, cls, ee)
    IF (ok) THEN
      WRITE (what, '(A, 1X, A, " on ", A, ": error ", I0)') call, TRIM(onames(o)), &
            TRIM(tnames(t)), cls
      CALL ft_expect(cls == MPI_SUCCESS, nbad, what)
    ELSE
      WRITE (what, '(A, 1X, A, " on ", A, ": class ", I0, ", expected MPI_ERR_OP")') call, &
            TRIM(onames(o)), TRIM(tnames(t)), cls
      CALL ft_expect(cls == MPI_ERR_OP, nbad, what)
    END IF
  END SUBROUTINE check_class

  ! The first n elements of region o of the window: the reference's result
  ! of init op (left's origin) when applied, else init unchanged.
  SUBROUTINE check_target(o, n, applied, call)
    INTEGER, INTENT(IN) :: o, n
    LOGICAL, INTENT(IN) :: applied
    CHARACTER(LEN=*), INTENT(IN) :: call
    INTEGER(KIND=1) :: src(region)
    INTEGER :: k, at
    CALL gen(t, o, 1, left, src)
    DO k = 1, n
      at = (k - 1) * sz
      IF (applied) THEN
        CALL ref(t, opl(o), init(at + 1:at + sz, o), src(at + 1:at + sz), want(1:sz))
      ELSE
        want(1:sz) = init(at + 1:at + sz, o)
      END IF
      WRITE (what, '(A, 1X, A, " on ", A, ": element ", I0, " differs from the reference")') &
            call, TRIM(onames(o)), TRIM(tnames(t)), k
      CALL ft_expect(ALL(wmem((o - 1) * region + at + 1:(o - 1) * region + at + sz) == &
                         want(1:sz)), nbad, what)
    END DO
  END SUBROUTINE check_target

  SUBROUTINE check_fetched(o)
    INTEGER, INTENT(IN) :: o
    INTEGER(KIND=1) :: v(region)
    CALL gen(t, o, 0, right, v)
    WRITE (what, '("fetched values of ", A, " on ", A)') TRIM(onames(o)), TRIM(tnames(t))
    CALL ft_expect(ALL(res(1:ne * sz, o) == v(1:ne * sz)), nbad, what)
  END SUBROUTINE check_fetched

  ! The ne elements of type t for op o, role 0 (target) or 1 (origin), of
  ! rank r: inexact reals (sums and products round), ties among the pairs.
  SUBROUTINE gen(t, o, role, r, buf)
    INTEGER, INTENT(IN) :: t, o, role, r
    INTEGER(KIND=1), INTENT(OUT) :: buf(:)
    INTEGER :: i, k, at
    REAL :: x
    DOUBLE PRECISION :: y
    buf = 0
    DO i = 1, MIN(ne, SIZE(buf) / sizes(t))
      k = i + 3 * r + 5 * o + 11 * role
      at = (i - 1) * sizes(t)
      x = REAL(k) * 0.1 - 0.35
      y = DBLE(k) * 0.1D0 - 0.35D0
      IF (role == 1) THEN
        x = REAL(k) * 0.7 + 1.0 / 3.0
        y = DBLE(k) * 0.7D0 + 1.0D0 / 3.0D0
      END IF
      SELECT CASE (t)
      CASE (1)
        buf(at + 1:at + 4) = TRANSFER(x, buf(1:4))
      CASE (2)
        buf(at + 1:at + 8) = TRANSFER(y, buf(1:8))
      CASE (3)
        buf(at + 1:at + 4) = TRANSFER((2 * role - 1) * (k * 37 - 150), buf(1:4))
      CASE (4)
        IF (role == 0) THEN
          buf(at + 1:at + 4) = TRANSFER(MOD(i, 2) == 1, buf(1:4))
        ELSE
          buf(at + 1:at + 4) = TRANSFER(MOD((i - 1) / 2, 2) == 1, buf(1:4))
        END IF
      CASE (5)
        buf(at + 1:at + 8) = TRANSFER(CMPLX(x, 0.5 - 0.3 * x), buf(1:8))
      CASE (6)
        buf(at + 1:at + 16) = TRANSFER(CMPLX(y, 0.5D0 - 0.3D0 * y, KIND=8), buf(1:16))
      CASE (7)
        buf(at + 1) = INT(65 + MOD(k, 26), 1)
      CASE (8)
        buf(at + 1:at + 8) = TRANSFER((/ REAL(MOD(k, 3)), REAL(k) /), buf(1:8))
      CASE (9)
        buf(at + 1:at + 8) = TRANSFER((/ MOD(k, 3), k /), buf(1:8))
      CASE (10)
        buf(at + 1:at + 16) = TRANSFER((/ DBLE(MOD(k, 3)) - 0.5D0, DBLE(k) /), buf(1:16))
      END SELECT
    END DO
  END SUBROUTINE gen

  ! c = a op b for one element of type t (a the target, b the origin).
  SUBROUTINE ref(t, op, a, b, c)
    INTEGER, INTENT(IN) :: t, op
    INTEGER(KIND=1), INTENT(IN) :: a(:), b(:)
    INTEGER(KIND=1), INTENT(OUT) :: c(:)
    REAL :: ra, rb, pa(2), pb(2)
    DOUBLE PRECISION :: da, db, qa(2), qb(2)
    INTEGER :: ia, ib, ja(2), jb(2)
    LOGICAL :: la, lb
    COMPLEX :: ca, cb
    COMPLEX(KIND=8) :: za, zb

    IF (op == MPI_REPLACE) THEN
      c = b
      RETURN
    END IF
    c = a
    IF (op == MPI_NO_OP) RETURN
    SELECT CASE (t)
    CASE (1)
      ra = TRANSFER(a, 0.0)
      rb = TRANSFER(b, 0.0)
      c = TRANSFER(rop(op, ra, rb), c)
    CASE (2)
      da = TRANSFER(a, 0.0D0)
      db = TRANSFER(b, 0.0D0)
      c = TRANSFER(dop(op, da, db), c)
    CASE (3)
      ia = TRANSFER(a, 0)
      ib = TRANSFER(b, 0)
      SELECT CASE (op)
      CASE (MPI_MAX)
        ia = MAX(ia, ib)
      CASE (MPI_MIN)
        ia = MIN(ia, ib)
      CASE (MPI_SUM)
        ia = ia + ib
      CASE (MPI_PROD)
        ia = ia * ib
      CASE (MPI_BAND)
        ia = IAND(ia, ib)
      CASE (MPI_BOR)
        ia = IOR(ia, ib)
      CASE (MPI_BXOR)
        ia = IEOR(ia, ib)
      END SELECT
      c = TRANSFER(ia, c)
    CASE (4)
      la = TRANSFER(a, .FALSE.)
      lb = TRANSFER(b, .FALSE.)
      SELECT CASE (op)
      CASE (MPI_LAND)
        la = la .AND. lb
      CASE (MPI_LOR)
        la = la .OR. lb
      CASE (MPI_LXOR)
        la = la .NEQV. lb
      END SELECT
      c = TRANSFER(la, c)
    CASE (5)
      ca = TRANSFER(a, (0.0, 0.0))
      cb = TRANSFER(b, (0.0, 0.0))
      IF (op == MPI_SUM) THEN
        ca = CMPLX(REAL(ca) + REAL(cb), AIMAG(ca) + AIMAG(cb))
      ELSE
        ca = CMPLX(REAL(ca) * REAL(cb) - AIMAG(ca) * AIMAG(cb), &
                   REAL(ca) * AIMAG(cb) + AIMAG(ca) * REAL(cb))
      END IF
      c = TRANSFER(ca, c)
    CASE (6)
      za = TRANSFER(a, (0.0D0, 0.0D0))
      zb = TRANSFER(b, (0.0D0, 0.0D0))
      IF (op == MPI_SUM) THEN
        za = CMPLX(REAL(za, 8) + REAL(zb, 8), AIMAG(za) + AIMAG(zb), KIND=8)
      ELSE
        za = CMPLX(REAL(za, 8) * REAL(zb, 8) - AIMAG(za) * AIMAG(zb), &
                   REAL(za, 8) * AIMAG(zb) + AIMAG(za) * REAL(zb, 8), KIND=8)
      END IF
      c = TRANSFER(za, c)
    CASE (8)
      pa = (/ TRANSFER(a(1:4), 0.0), TRANSFER(a(5:8), 0.0) /)
      pb = (/ TRANSFER(b(1:4), 0.0), TRANSFER(b(5:8), 0.0) /)
      SELECT CASE (locpick(op, pb(1) > pa(1), pb(1) < pa(1), pb(2) < pa(2)))
      CASE (1)
        pa = pb
      CASE (2)
        pa(2) = pb(2)
      END SELECT
      c = TRANSFER(pa, c)
    CASE (9)
      ja = (/ TRANSFER(a(1:4), 0), TRANSFER(a(5:8), 0) /)
      jb = (/ TRANSFER(b(1:4), 0), TRANSFER(b(5:8), 0) /)
      SELECT CASE (locpick(op, jb(1) > ja(1), jb(1) < ja(1), jb(2) < ja(2)))
      CASE (1)
        ja = jb
      CASE (2)
        ja(2) = jb(2)
      END SELECT
      c = TRANSFER(ja, c)
    CASE (10)
      qa = (/ TRANSFER(a(1:8), 0.0D0), TRANSFER(a(9:16), 0.0D0) /)
      qb = (/ TRANSFER(b(1:8), 0.0D0), TRANSFER(b(9:16), 0.0D0) /)
      SELECT CASE (locpick(op, qb(1) > qa(1), qb(1) < qa(1), qb(2) < qa(2)))
      CASE (1)
        qa = qb
      CASE (2)
        qa(2) = qb(2)
      END SELECT
      c = TRANSFER(qa, c)
    END SELECT

  END SUBROUTINE ref

  ! MAXLOC/MINLOC, given how the origin's value compares with the target's
  ! (greater, less, else equal) and whether its index is smaller: 1 take
  ! the origin's pair, 2 only its index, 0 keep the target.
  INTEGER FUNCTION locpick(op, gt, lt, ilt)
    INTEGER, INTENT(IN) :: op
    LOGICAL, INTENT(IN) :: gt, lt, ilt
    IF ((op == MPI_MAXLOC .AND. gt) .OR. (op == MPI_MINLOC .AND. lt)) THEN
      locpick = 1
    ELSE IF (.NOT. gt .AND. .NOT. lt .AND. ilt) THEN
      locpick = 2
    ELSE
      locpick = 0
    END IF
  END FUNCTION locpick

  REAL FUNCTION rop(op, x, y)
    INTEGER, INTENT(IN) :: op
    REAL, INTENT(IN) :: x, y
    SELECT CASE (op)
    CASE (MPI_MAX)
      rop = MERGE(y, x, y > x)
    CASE (MPI_MIN)
      rop = MERGE(y, x, y < x)
    CASE (MPI_SUM)
      rop = x + y
    CASE DEFAULT
      rop = x * y
    END SELECT
  END FUNCTION rop

  DOUBLE PRECISION FUNCTION dop(op, x, y)
    INTEGER, INTENT(IN) :: op
    DOUBLE PRECISION, INTENT(IN) :: x, y
    SELECT CASE (op)
    CASE (MPI_MAX)
      dop = MERGE(y, x, y > x)
    CASE (MPI_MIN)
      dop = MERGE(y, x, y < x)
    CASE (MPI_SUM)
      dop = x + y
    CASE DEFAULT
      dop = x * y
    END SELECT
  END FUNCTION dop

END PROGRAM ops

INCLUDE 'ftlib.f90'
