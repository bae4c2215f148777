! extras: the MPI-4.0 calls added for a complete MPI on one node, from
! Fortran (`use mpi`): MPI_COMM_IDUP and MPI_COMM_IDUP_WITH_INFO (a
! complete request, a working communicator), MPI_COMM_GET_PARENT
! (MPI_COMM_NULL), the port and name calls failing with
! MPI_ERR_UNSUPPORTED_OPERATION, MPI_GREQUEST_COMPLETE of a request that
! is not generalized and the datatype attribute calls with a bad keyval
! failing with their classes.  (The keyval and generalized-request
! constructors are C only: their callbacks take Fortran arguments.)
PROGRAM extras
  USE MPI
  IMPLICIT NONE
  INTEGER :: rank, np, ierr, nbad, flag
  INTEGER :: dup, dup2, parent, info, sum, req(2), s, v, got
  INTEGER(KIND=MPI_ADDRESS_KIND) :: val
  LOGICAL :: found
  CHARACTER(LEN=MPI_MAX_PORT_NAME) :: port

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
  CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  CALL ft_finish(nbad, 'MPI-4.0 extras from Fortran')
END PROGRAM extras

INCLUDE 'ftlib.f90'
