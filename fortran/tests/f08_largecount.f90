! f08_largecount: MPI 4.0's large counts, which mpi_f08 gives as overloads
! of the plain names: INTEGER(KIND=MPI_COUNT_KIND) counts and an
! address-kind disp_unit reach the _c forms (window allocation, shared
! query, put, rput, get, accumulate, get_accumulate); a count above 2^31
! of a type with no data moves nothing, and one that reaches beyond the
! window fails with MPI_ERR_RMA_RANGE (a count cut to 32 bits would pass).
PROGRAM f08_largecount
  USE mpi_f08
  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR, C_F_POINTER
  IMPLICIT NONE
  INTEGER :: rank, p, nbad

  CALL MPI_Init()
  CALL MPI_Comm_rank(MPI_COMM_WORLD, rank)
  CALL MPI_Comm_size(MPI_COMM_WORLD, p)
  nbad = 0
  CALL ft_served(nbad)
  CALL large_counts()
  CALL ft_finish(nbad, 'Fortran mpi_f08 large counts')

CONTAINS

  ! The large-count overloads: the generic names with MPI_COUNT_KIND
  ! counts and an address-kind disp_unit reach the _c forms.
  SUBROUTINE large_counts()
    INTEGER(KIND=MPI_COUNT_KIND), PARAMETER :: one_c = 1, big = 2_MPI_COUNT_KIND**31 + 1
    INTEGER(KIND=MPI_COUNT_KIND), PARAMETER :: past = 2_MPI_COUNT_KIND**32 + 4
    INTEGER(KIND=MPI_ADDRESS_KIND), PARAMETER :: du8 = 8
    DOUBLE PRECISION, POINTER, ASYNCHRONOUS :: lmem(:)
    DOUBLE PRECISION, ASYNCHRONOUS :: v, r, big_buf(1)
    INTEGER(KIND=MPI_ADDRESS_KIND) :: qs, qdu
    TYPE(MPI_Datatype) :: empty
    TYPE(MPI_Request) :: req
    TYPE(MPI_Win) :: lw
    TYPE(C_PTR) :: lp
    INTEGER :: e, cls

    CALL MPI_Win_allocate(8 * du8, du8, MPI_INFO_NULL, MPI_COMM_WORLD, lp, lw, e)
    CALL ft_ok(e, nbad, 'MPI_Win_allocate (large-count form)')
    CALL C_F_POINTER(lp, lmem, (/ 8 /))
    lmem = 0.0D0
    CALL MPI_Win_shared_query(lw, rank, qs, qdu, lp, e)
    CALL ft_expect(e == MPI_SUCCESS .AND. qs == 64 .AND. qdu == 8, nbad, &
                   'MPI_Win_shared_query (large-count form)')
    CALL MPI_Type_contiguous(0, MPI_DOUBLE_PRECISION, empty)
    CALL MPI_Type_commit(empty)
    CALL MPI_Barrier(MPI_COMM_WORLD)
    CALL MPI_Win_lock_all(0, lw)
    v = REAL(rank + 1, KIND(v))
    CALL MPI_Accumulate(v, one_c, MPI_DOUBLE_PRECISION, 0, 1_MPI_ADDRESS_KIND, one_c, &
                        MPI_DOUBLE_PRECISION, MPI_SUM, lw, e)
    CALL ft_ok(e, nbad, 'MPI_Accumulate (large-count form)')
    CALL MPI_Put(v, one_c, MPI_DOUBLE_PRECISION, MOD(rank + 1, p), INT(2 + rank, MPI_ADDRESS_KIND), &
                 one_c, MPI_DOUBLE_PRECISION, lw, e)
    CALL ft_ok(e, nbad, 'MPI_Put (large-count form)')
    CALL MPI_Rput(v, one_c, MPI_DOUBLE_PRECISION, MOD(rank + 1, p), 0_MPI_ADDRESS_KIND, one_c, &
                  MPI_DOUBLE_PRECISION, lw, req, e)
    CALL ft_ok(e, nbad, 'MPI_Rput (large-count form)')
    CALL MPI_Wait(req, MPI_STATUS_IGNORE)
    ! 2^31 + 1 elements of no data: a count above INT_MAX that moves nothing
    CALL MPI_Put(big_buf, big, empty, MOD(rank + 1, p), 0_MPI_ADDRESS_KIND, big, empty, lw, e)
    CALL ft_ok(e, nbad, 'MPI_Put of 2^31 + 1 empty elements')
    CALL MPI_Win_flush_all(lw)
    CALL MPI_Win_unlock_all(lw)
    CALL MPI_Barrier(MPI_COMM_WORLD)
    CALL MPI_Win_lock_all(0, lw)
    CALL MPI_Get(r, one_c, MPI_DOUBLE_PRECISION, MOD(rank + 1, p), INT(2 + rank, MPI_ADDRESS_KIND), &
                 one_c, MPI_DOUBLE_PRECISION, lw, e)
    CALL MPI_Win_flush(MOD(rank + 1, p), lw)
    IF (.NOT. MPI_ASYNC_PROTECTS_NONBLOCKING) CALL MPI_F_sync_reg(r)
    CALL ft_expect(e == MPI_SUCCESS .AND. r == v, nbad, 'MPI_Get (large-count form)')
    CALL MPI_Get_accumulate(v, one_c, MPI_DOUBLE_PRECISION, r, one_c, MPI_DOUBLE_PRECISION, 0, &
                            7_MPI_ADDRESS_KIND, one_c, MPI_DOUBLE_PRECISION, MPI_NO_OP, lw, e)
    CALL ft_ok(e, nbad, 'MPI_Get_accumulate (large-count form)')
    ! 2^32 + 4 bytes from a window of 64: MPI_ERR_RMA_RANGE (cut to 32
    ! bits it would be 4 bytes and pass)
    CALL MPI_Win_set_errhandler(lw, MPI_ERRORS_RETURN)
    CALL MPI_Get(big_buf, past, MPI_BYTE, MOD(rank + 1, p), 0_MPI_ADDRESS_KIND, past, MPI_BYTE, lw, e)
    CALL ft_expect(e /= MPI_SUCCESS, nbad, 'MPI_Get of 2^32 + 4 bytes fails')
    IF (e /= MPI_SUCCESS) THEN
      CALL MPI_Error_class(e, cls)
      CALL ft_expect(cls == MPI_ERR_RMA_RANGE, nbad, 'MPI_Get of 2^32 + 4 bytes: MPI_ERR_RMA_RANGE')
    END IF
    CALL MPI_Win_unlock_all(lw)
    CALL MPI_Barrier(MPI_COMM_WORLD)
    IF (rank == 0) THEN
      CALL MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, lw)
      CALL ft_expect(lmem(2) == REAL(p * (p + 1) / 2, KIND(v)), nbad, &
                     'accumulated total (large-count form)')
      CALL MPI_Win_unlock(0, lw)
    END IF
    CALL MPI_Type_free(empty)
    CALL MPI_Win_free(lw)
  END SUBROUTINE large_counts

END PROGRAM f08_largecount

INCLUDE 'ftlib.f90'
INCLUDE 'served_f08.f90'
