! extras: the MPI-4.0 calls added for a complete MPI on one node, from
! Fortran (`use mpi`): MPI_COMM_IDUP and MPI_COMM_IDUP_WITH_INFO (a
! complete request, a working communicator), MPI_COMM_GET_PARENT
! (MPI_COMM_NULL), the port and name calls failing with
! MPI_ERR_UNSUPPORTED_OPERATION, MPI_GREQUEST_COMPLETE of a request that
! is not generalized and the datatype attribute calls with a bad keyval
! failing with their classes.  (The keyval and generalized-request
! constructors are C only: their callbacks take Fortran arguments.)
! The datatypes: MPI_TYPE_CREATE_F90_INTEGER/REAL/COMPLEX give the type of
! a SELECTED_*_KIND variable, which reductions take and MPI_TYPE_FREE
! refuses; MPI_TYPE_CREATE_DARRAY; MPI_PACK_EXTERNAL of INTEGERs.
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

  CALL ft_finish(nbad, 'MPI-4.0 extras from Fortran')
END PROGRAM extras

INCLUDE 'ftlib.f90'
