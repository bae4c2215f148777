! SPDX-License-Identifier: GPL-2.0
!
! caf_bench: the coarray statements a Fortran program makes, one at a time,
! from image 1 to image 2, each result checked, as op/s (make bench-apps).
! Built with OpenCoarrays' caf for each host MPI; run with 2 or more images
! (the others only pass the SYNC ALLs).  Each row runs for SECONDS
! (argument 1, default 1.0) and prints "caf_bench: NAME OPS_PER_S COUNT";
! argument 2, a comma-separated list of row names, runs only those;
! a wrong result prints "caf_bench: FAIL ..." and stops the job with a
! non-zero code.
!
! Rows: put16 and get16 (16 doubles of a static coarray: libcaf_mpi's send
! and get on the coarray's own window), atomic_add (an atomic_int_kind
! coarray: MPI_Fetch_and_op under an exclusive lock), dput16 and dget16 (16
! doubles of an allocatable component of a derived-type coarray, which
! libcaf_mpi attaches to its dynamic window and reaches by reference).
program caf_bench
  use, intrinsic :: iso_fortran_env, only: real64, int64, atomic_int_kind
  implicit none

  type :: holder
    real(real64), allocatable :: v(:)
  end type holder

  real(real64) :: a(16)[*]
  integer(atomic_int_kind) :: c[*]
  integer(int64) :: last[*]
  type(holder) :: b[*]
  real(real64) :: x(16), s(16), secs
  integer(int64) :: n, kput
  integer(atomic_int_kind) :: got
  integer :: me, i
  character(len=32) :: arg
  character(len=128) :: rows

  secs = 1.0d0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) secs
  end if
  rows = 'put16,get16,atomic_add,dput16,dget16'
  if (command_argument_count() >= 2) call get_command_argument(2, rows)
  me = this_image()
  if (num_images() < 2) then
    if (me == 1) write (*, '(a)') 'caf_bench: FAIL needs 2 images'
    error stop 2
  end if
  do i = 1, 16
    x(i) = i
  end do
  a = x
  c = 0
  last = 0
  kput = 0
  allocate (b%v(16))
  b%v = x
  sync all

  ! Each put k writes x + k: image 2 checks the last one's values.
  call put_row('put16')
  if (me == 2) call check(all(a == x + last), 'put16 at the target')
  if (me == 1) call timed('get16', n)
  sync all

  if (me == 1) then
    call timed('atomic_add', n)
    last[2] = n
  end if
  sync all
  if (me == 2) then
    call atomic_ref(got, c)
    call check(got == last, 'atomic_add total at the target')
  end if
  sync all

  call put_row('dput16')
  if (me == 2) call check(all(b%v == x + last), 'dput16 at the target')
  if (me == 1) call timed('dget16', n)
  sync all
  if (me == 1) write (*, '(a)') 'caf_bench: done'

contains

  ! Image 1 runs put row @which; the gets check against its count, and
  ! image 2, after the SYNC ALL, against the count it is sent.
  subroutine put_row(which)
    character(len=*), intent(in) :: which

    if (me == 1) then
      call timed(which, n)
      kput = n
      last[2] = n
    end if
    sync all
  end subroutine put_row

  ! Runs statement @which for k = 1, 2, ... until @secs have passed; @n
  ! is the count.  A dispatch, not a procedure argument: an internal
  ! procedure passed as one needs a trampoline on an executable stack.
  subroutine timed(which, n)
    character(len=*), intent(in) :: which
    integer(int64), intent(out) :: n
    integer(int64) :: t0, t, rate
    real(real64) :: el

    n = 0
    if (index(',' // trim(rows) // ',', ',' // which // ',') == 0) return
    call system_clock(t0, rate)
    do
      n = n + 1
      select case (which)
      case ('put16')
        a(:)[2] = x + real(n, real64)
      case ('get16')
        s = a(:)[2]
        call check(all(s == x + real(kput, real64)), 'get16')
      case ('atomic_add')
        call atomic_add(c[2], 1)
      case ('dput16')
        b[2]%v(:) = x + real(n, real64)
      case ('dget16')
        s = b[2]%v(:)
        call check(all(s == x + real(kput, real64)), 'dget16')
      end select
      if (mod(n, 32_int64) /= 0) cycle
      call system_clock(t)
      el = real(t - t0, real64) / real(rate, real64)
      if (el >= secs) exit
    end do
    write (*, '(a,a,1x,f0.1,1x,i0)') 'caf_bench: ', which, n / el, n
  end subroutine timed

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what

    if (ok) return
    write (*, '(a,a,a,i0)') 'caf_bench: FAIL ', what, ' on image ', me
    error stop 1
  end subroutine check
end program caf_bench
