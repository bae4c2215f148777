! SPDX-License-Identifier: GPL-2.0
!
! caf_test: Fortran coarrays through OpenCoarrays (Debian's libcaf_mpi for
! each host MPI) on mpirma's layer, every result checked: puts and gets of
! a static coarray (whole, section, strided, scalar), an allocatable
! coarray, an allocatable component of a derived-type coarray (libcaf_mpi's
! dynamic window), atomics (add, fetch_add, define/ref, cas), event
! post/wait, lock/unlock, critical, sync images, teams (form team, change
! team, collectives inside), co_sum and co_broadcast.  Any number of images
! from 2.  Prints "caf_test: N images, C checks, F failed" from image 1 and
! stops with a non-zero code when a check failed anywhere.
program caf_test
  use, intrinsic :: iso_fortran_env, only: real64, int64, atomic_int_kind, &
                                           event_type, lock_type, team_type
  implicit none

  type :: holder
    real(real64), allocatable :: v(:)
  end type holder

  real(real64) :: a(32)[*]
  integer :: s[*]
  real(real64), allocatable :: d(:)[:]
  type(holder) :: b[*]
  integer(atomic_int_kind) :: c[*], f[*]
  type(event_type) :: ev[*]
  type(lock_type) :: lk[*]
  integer :: guarded[*]
  type(team_type) :: half
  real(real64) :: x(32), g(32)
  integer :: me, np, right, left, i, k, fails, checks, old, cnt, tn
  integer(atomic_int_kind) :: got
  logical :: ok

  me = this_image()
  np = num_images()
  right = modulo(me, np) + 1
  left = modulo(me - 2, np) + 1
  fails = 0
  checks = 0

  ! Static coarray: whole array, section, strided section, scalar.
  do i = 1, 32
    x(i) = 1000 * me + i
  end do
  a = 0
  s = 0
  sync all
  a(:)[right] = x
  s[right] = me
  sync all
  call check(all(a == [(1000 * left + i, i = 1, 32)]), 'put of a whole array')
  call check(s == left, 'put of a scalar')
  g = a(:)[right]
  call check(all(g == [(1000 * me + i, i = 1, 32)]), 'get of a whole array')
  sync all
  a(1:32:2)[right] = -x(1:16)
  sync all
  call check(all(a(1:32:2) == -[(1000 * left + i, i = 1, 16)]) .and. &
             all(a(2:32:2) == [(1000 * left + i, i = 2, 32, 2)]), &
             'strided put keeps the gaps')
  ! What this image left at its right neighbour, read back as a section.
  g(1:8) = a(5:12)[right]
  do i = 5, 12
    x(i) = merge(-(1000 * me + (i + 1) / 2), 1000 * me + i, mod(i, 2) == 1)
  end do
  call check(all(g(1:8) == x(5:12)), 'get of a section')
  sync all

  ! Allocatable coarray.
  allocate (d(16)[*])
  d = me
  sync all
  g(1:16) = d(:)[right]
  call check(all(g(1:16) == right), 'get of an allocatable coarray')
  sync all
  d(3)[right] = 100 * me
  sync all
  call check(d(3) == 100 * left .and. d(4) == me, 'put into an allocatable coarray')
  deallocate (d)

  ! Allocatable component (dynamic window), put and get by reference.
  allocate (b%v(8))
  b%v = 0
  sync all
  b[right]%v(:) = [(10 * me + i, i = 1, 8)]
  sync all
  call check(all(b%v == [(10 * left + i, i = 1, 8)]), 'put into a component')
  g(1:8) = b[right]%v(:)
  call check(all(g(1:8) == [(10 * me + i, i = 1, 8)]), 'get of a component')
  sync all

  ! Atomics on image 1: every image adds, fetch-adds, then one CAS wins.
  c = 0
  f = 0
  sync all
  do k = 1, 20
    call atomic_add(c[1], 1)
  end do
  ! OpenCoarrays 2.10 fetches into a buffer of its own and never stores
  ! OLD (garbage under either host alone too): only the total is checked.
  call atomic_fetch_add(f[1], me, old)
  sync all
  if (me == 1) then
    call atomic_ref(got, c)
    call check(got == 20 * np, 'atomic_add total')
    call atomic_ref(got, f)
    call check(got == np * (np + 1) / 2, 'atomic_fetch_add total')
    call atomic_define(c, 0)
  end if
  sync all
  call atomic_cas(c[1], old, 0, me)
  sync all
  if (me == 1) then
    call atomic_ref(got, c)
    call check(got >= 1 .and. got <= np, 'one compare-and-swap won')
  end if
  sync all

  ! Events: each image posts to its right neighbour twice, waits for two.
  event post (ev[right])
  event post (ev[right])
  event wait (ev, until_count=2)
  call check(.true., 'event post and wait')
  sync all

  ! A lock on image 1 guards a plain read-modify-write of its coarray.
  guarded = 0
  sync all
  do k = 1, 10
    lock (lk[1])
    guarded[1] = guarded[1] + 1
    unlock (lk[1])
  end do
  sync all
  if (me == 1) call check(guarded == 10 * np, 'lock/unlock mutual exclusion')
  sync all

  ! Critical: the same through a critical construct.
  guarded = 0
  sync all
  do k = 1, 10
    critical
      guarded[1] = guarded[1] + 1
    end critical
  end do
  sync all
  if (me == 1) call check(guarded == 10 * np, 'critical mutual exclusion')

  ! A token around the ring, passed on with sync images.
  s = 0
  sync all
  if (me == 1) then
    s[right] = 1
    sync images (right)
    sync images (left)
    call check(s == np, 'token around the ring')
  else
    sync images (left)
    s[right] = s + 1
    sync images (right)
  end if
  sync all

  ! Teams: odd and even images; collectives and sync inside the team.
  tn = 2 - modulo(me, 2)
  form team (tn, half)
  change team (half)
    cnt = 1
    call co_sum(cnt)
    ok = cnt == num_images()
    sync all
  end team
  call check(ok, 'co_sum inside a team')
  call check(team_number() == -1, 'back in the initial team')

  ! Collectives of the initial team.
  cnt = me
  call co_sum(cnt)
  call check(cnt == np * (np + 1) / 2, 'co_sum')
  cnt = 0
  if (me == np) cnt = 42
  call co_broadcast(cnt, np)
  call check(cnt == 42, 'co_broadcast')

  call co_sum(fails)
  call co_sum(checks)
  if (me == 1) write (*, '(a,i0,a,i0,a,i0,a)') 'caf_test: ', np, ' images, ', &
       checks, ' checks, ', fails, ' failed'
  if (fails /= 0) error stop 1

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what

    checks = checks + 1
    if (cond) return
    fails = fails + 1
    write (*, '(a,a,a,i0)') 'caf_test: FAIL ', what, ' on image ', me
  end subroutine check
end program caf_test
