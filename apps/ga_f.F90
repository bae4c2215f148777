! SPDX-License-Identifier: GPL-2.0
!
! ga_f: Global Arrays from Fortran (Debian's libga-HOST.a, built with
! 8-byte default integers as NWChem wants: this file is compiled with
! -fdefault-integer-8) on mpirma's hybrid layer, each result checked
! exactly: a 2-D array's patches put and read back, nga_acc of every rank,
! nga_read_inc under contention (every value fetched once), ga_dgemm, and
! an array on the even ranks' process group.  MPI is only initialized and
! finalized here (with 4-byte arguments, no mpif.h): everything else is
! GA's.  Prints "# ga_f: N rank(s), C checks on rank 0, F failed on all
! ranks" and exits 1 when a check failed.
program ga_f
  implicit none
#include "mafdecls.fh"
#include "global.fh"
  integer, parameter :: n = 16, incs = 30
  integer(kind=4) :: ierr
  integer :: me, np, g, gc, ga, gb, gd, gp, pg, i, j, r, lo(2), hi(2), ld
  integer :: dims(2), chunk(2), list(64), nlist, fails, checks
  integer :: got(incs), allgot(incs * 64), one(1), sub(1), total(1)
  double precision :: buf(n, n), alpha
  logical :: status

  call mpi_init(ierr)
  call ga_initialize()
  status = ma_init(MT_DBL, 200000, 200000)
  me = ga_nodeid()
  np = ga_nnodes()
  fails = 0
  checks = 0
  dims = (/ n, n /)
  chunk = (/ -1, -1 /)
  lo = (/ 1, 1 /)
  hi = (/ n, n /)
  ld = n

  ! patches: rank 0 puts the whole array, everyone reads it back
  status = nga_create(MT_DBL, 2, dims, 'a', chunk, g)
  call check(status, 'nga_create')
  if (me == 0) then
    do j = 1, n
      do i = 1, n
        buf(i, j) = val(i, j)
      end do
    end do
    call nga_put(g, lo, hi, buf, ld)
  end if
  call ga_sync()
  call nga_get(g, lo, hi, buf, ld)
  do j = 1, n
    do i = 1, n
      call check(buf(i, j) == val(i, j), 'nga_put/nga_get')
    end do
  end do
  call ga_sync()

  ! every rank adds 0.5 x val
  do j = 1, n
    do i = 1, n
      buf(i, j) = val(i, j)
    end do
  end do
  alpha = 0.5d0
  call nga_acc(g, lo, hi, buf, ld, alpha)
  call ga_sync()
  call nga_get(g, lo, hi, buf, ld)
  do j = 1, n
    do i = 1, n
      call check(buf(i, j) == val(i, j) * (1d0 + 0.5d0 * np), 'nga_acc')
    end do
  end do
  call ga_sync()

  ! a shared counter: every value 0 .. np*incs-1 fetched once
  one(1) = 1
  status = nga_create(MT_INT, 1, one, 'counter', one, gc)
  call check(status, 'nga_create counter')
  call ga_zero(gc)
  sub(1) = 1
  do i = 1, incs
    got(i) = nga_read_inc(gc, sub, 1)
  end do
  call ga_sync()
  if (np <= 64) then
    allgot = 0
    allgot(me * incs + 1:me * incs + incs) = got
    call ga_igop(1, allgot, np * incs, '+')
    do i = 0, np * incs - 1
      call check(count(allgot(1:np * incs) == i) == 1, 'nga_read_inc')
    end do
  end if

  ! C = A x B with A(i,k) = i + k, B = 2 x identity
  status = ga_duplicate(g, ga, 'a2')
  status = ga_duplicate(g, gb, 'b') .and. status
  status = ga_duplicate(g, gd, 'c') .and. status
  call check(status, 'ga_duplicate')
  if (me == 0) then
    do j = 1, n
      do i = 1, n
        buf(i, j) = i + j
      end do
    end do
    call nga_put(ga, lo, hi, buf, ld)
    buf = 0
    do i = 1, n
      buf(i, i) = 2
    end do
    call nga_put(gb, lo, hi, buf, ld)
  end if
  call ga_sync()
  call ga_dgemm('n', 'n', n, n, n, 1d0, ga, gb, 0d0, gd)
  call nga_get(gd, lo, hi, buf, ld)
  do j = 1, n
    do i = 1, n
      call check(buf(i, j) == 2d0 * (i + j), 'ga_dgemm')
    end do
  end do
  call ga_sync()

  ! an array on the even ranks' group
  nlist = 0
  do r = 0, np - 1, 2
    if (nlist < 64) then
      nlist = nlist + 1
      list(nlist) = r
    end if
  end do
  pg = ga_pgroup_create(list, nlist)
  if (mod(me, 2) == 0) then
    gp = ga_create_handle()
    call ga_set_data(gp, 2, dims, MT_DBL)
    call ga_set_pgroup(gp, pg)
    call check(ga_allocate(gp), 'ga_allocate on a group')
    call ga_pgroup_sync(pg)
    if (me == 0) then
      do j = 1, n
        do i = 1, n
          buf(i, j) = -val(i, j)
        end do
      end do
      call nga_put(gp, lo, hi, buf, ld)
    end if
    call ga_pgroup_sync(pg)
    call nga_get(gp, lo, hi, buf, ld)
    do j = 1, n
      do i = 1, n
        call check(buf(i, j) == -val(i, j), 'group array')
      end do
    end do
    call ga_pgroup_sync(pg)
    status = ga_destroy(gp)
  end if
  call ga_sync()

  status = ga_destroy(gd)
  status = ga_destroy(gb)
  status = ga_destroy(ga)
  status = ga_destroy(gc)
  status = ga_destroy(g)
  total(1) = fails
  call ga_igop(2, total, 1, '+')
  if (me == 0) print '(a, i0, a, i0, a, i0, a)', '# ga_f: ', np, ' rank(s), ', &
       checks, ' checks on rank 0, ', total(1), ' failed on all ranks'
  call ga_terminate()
  call mpi_finalize(ierr)
  if (total(1) /= 0 .or. fails /= 0) call exit(1)

contains

  double precision function val(i, j)
    integer, intent(in) :: i, j

    val = i * 100d0 + j
  end function val

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what

    checks = checks + 1
    if (.not. ok) then
      fails = fails + 1
      if (fails <= 10) print '(a, i0, a, a)', 'rank ', me, ': failed: ', what
    end if
  end subroutine check
end program ga_f
