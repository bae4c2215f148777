/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mpi.h - the MPI C API of libmpirma (MPI 3.1, the parts mpirma implements).
 *
 * Handles are plain ints (docs/lib.md, "Handles"): every predefined
 * handle is a compile-time constant usable in static initializers and in
 * switch statements, 0 is the null handle of every kind, and objects created
 * at run time are numbered past the predefined range of their kind.
 *
 * Every function exists as MPI_X and as PMPI_X (the profiling interface):
 * MPI_X is a weak alias of PMPI_X in the library.
 */
#ifndef MPIRMA_MPI_H
#define MPIRMA_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIRMA 1
#define MPIRMA_VERSION "0.1"

/*
 * MPI 4.0's C API is here but MPI-IO and process creation, which fail at
 * the call with MPI_ERR_UNSUPPORTED_OPERATION (docs/lib.md).
 */
#define MPI_VERSION	4
#define MPI_SUBVERSION	0

/* ------------------------------------------------------------ basic types */

typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Win;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_File;
typedef int MPI_Message;
typedef int MPI_Session;

typedef struct MPI_Status {
	int MPI_SOURCE;
	int MPI_TAG;
	int MPI_ERROR;
	/* private: */
	int mpirma_cancelled;
	MPI_Count mpirma_count;		/* bytes received */
} MPI_Status;

/* ------------------------------------------------------------ handles */

#define MPI_COMM_NULL		0
#define MPI_COMM_WORLD		1
#define MPI_COMM_SELF		2

#define MPI_GROUP_NULL		0
#define MPI_GROUP_EMPTY		1

#define MPI_WIN_NULL		0
#define MPI_REQUEST_NULL	0
#define MPI_MESSAGE_NULL	0
#define MPI_MESSAGE_NO_PROC	(-1)	/* MPI_Mprobe of MPI_PROC_NULL */
#define MPI_SESSION_NULL	0

#define MPI_ERRHANDLER_NULL	0
#define MPI_ERRORS_ARE_FATAL	1
#define MPI_ERRORS_RETURN	2
#define MPI_ERRORS_ABORT	3

#define MPI_INFO_NULL		0
#define MPI_INFO_ENV		1

/* MPI-IO is not provided (lib/runtime/absent.c): no file is ever open. */
#define MPI_FILE_NULL		0

/* Predefined datatypes: 1..127, created ones >= 256. */
#define MPI_DATATYPE_NULL		0
#define MPI_CHAR			1
#define MPI_SIGNED_CHAR			2
#define MPI_UNSIGNED_CHAR		3
#define MPI_BYTE			4
#define MPI_WCHAR			5
#define MPI_SHORT			6
#define MPI_UNSIGNED_SHORT		7
#define MPI_INT				8
#define MPI_UNSIGNED			9
#define MPI_LONG			10
#define MPI_UNSIGNED_LONG		11
#define MPI_LONG_LONG_INT		12
#define MPI_LONG_LONG			MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG		13
#define MPI_FLOAT			14
#define MPI_DOUBLE			15
#define MPI_LONG_DOUBLE			16
#define MPI_C_BOOL			17
#define MPI_INT8_T			18
#define MPI_INT16_T			19
#define MPI_INT32_T			20
#define MPI_INT64_T			21
#define MPI_UINT8_T			22
#define MPI_UINT16_T			23
#define MPI_UINT32_T			24
#define MPI_UINT64_T			25
#define MPI_AINT			26
#define MPI_OFFSET			27
#define MPI_COUNT			28
#define MPI_C_FLOAT_COMPLEX		29
#define MPI_C_COMPLEX			MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX		30
#define MPI_C_LONG_DOUBLE_COMPLEX	31
#define MPI_PACKED			32
#define MPI_FLOAT_INT			33
#define MPI_DOUBLE_INT			34
#define MPI_LONG_INT			35
#define MPI_2INT			36
#define MPI_SHORT_INT			37
#define MPI_LONG_DOUBLE_INT		38
#define MPI_CXX_BOOL			39
#define MPI_CXX_FLOAT_COMPLEX		40
#define MPI_CXX_DOUBLE_COMPLEX		41
#define MPI_CXX_LONG_DOUBLE_COMPLEX	42
/*
 * Fortran COMPLEX*8, COMPLEX*16, INTEGER*16 (moved, never reduced: no op
 * takes it).  No MPI_COMPLEX32, MPI_REAL16: gfortran's REAL*16 is IEEE quad
 * precision, which no C type here is.
 */
#define MPI_COMPLEX8			43
#define MPI_COMPLEX16			44
#define MPI_INTEGER16			45
/* Fortran types, usable from C (Fortran INTEGER = int, REAL = float). */
#define MPI_CHARACTER			48
#define MPI_INTEGER			49
#define MPI_REAL			50
#define MPI_DOUBLE_PRECISION		51
#define MPI_LOGICAL			52
#define MPI_COMPLEX			53
#define MPI_DOUBLE_COMPLEX		54
#define MPI_INTEGER1			55
#define MPI_INTEGER2			56
#define MPI_INTEGER4			57
#define MPI_INTEGER8			58
#define MPI_REAL4			59
#define MPI_REAL8			60
#define MPI_2INTEGER			61
#define MPI_2REAL			62
#define MPI_2DOUBLE_PRECISION		63

/* Predefined ops: 1..14, created ones >= 32. */
#define MPI_OP_NULL	0
#define MPI_MAX		1
#define MPI_MIN		2
#define MPI_SUM		3
#define MPI_PROD	4
#define MPI_LAND	5
#define MPI_BAND	6
#define MPI_LOR		7
#define MPI_BOR		8
#define MPI_LXOR	9
#define MPI_BXOR	10
#define MPI_MAXLOC	11
#define MPI_MINLOC	12
#define MPI_REPLACE	13
#define MPI_NO_OP	14

/* Attribute keys: predefined 1..15, created ones >= 32. */
#define MPI_KEYVAL_INVALID	0
#define MPI_TAG_UB		1
#define MPI_HOST		2
#define MPI_IO			3
#define MPI_WTIME_IS_GLOBAL	4
#define MPI_UNIVERSE_SIZE	5
#define MPI_LASTUSEDCODE	6
#define MPI_APPNUM		7
#define MPI_WIN_BASE		8
#define MPI_WIN_SIZE		9
#define MPI_WIN_DISP_UNIT	10
#define MPI_WIN_CREATE_FLAVOR	11
#define MPI_WIN_MODEL		12

/* ------------------------------------------------------------ constants */

#define MPI_PROC_NULL		(-1)
#define MPI_ANY_SOURCE		(-2)
#define MPI_ROOT		(-3)
#define MPI_ANY_TAG		(-1)
#define MPI_UNDEFINED		(-32766)

#define MPI_BOTTOM		((void *)0)
#define MPI_IN_PLACE		((void *)-1)
#define MPI_STATUS_IGNORE	((MPI_Status *)1)
#define MPI_STATUSES_IGNORE	((MPI_Status *)1)
#define MPI_ERRCODES_IGNORE	((int *)0)
/*
 * Weight arrays of distributed graphs: no weights, and weights of no edges.
 * Not NULL, which may be a real empty array.
 */
#define MPI_UNWEIGHTED		((int *)2)
#define MPI_WEIGHTS_EMPTY	((int *)3)

#define MPI_MAX_PROCESSOR_NAME		128
#define MPI_MAX_ERROR_STRING		512
#define MPI_MAX_INFO_KEY		255
#define MPI_MAX_INFO_VAL		1024
#define MPI_MAX_OBJECT_NAME		128
#define MPI_MAX_LIBRARY_VERSION_STRING	256
/* Bytes MPI_Bsend needs in the attached buffer beyond the message. */
#define MPI_BSEND_OVERHEAD		0

/* Results of MPI_Comm_compare and MPI_Group_compare. */
#define MPI_IDENT	0
#define MPI_CONGRUENT	1
#define MPI_SIMILAR	2
#define MPI_UNEQUAL	3

#define MPI_THREAD_SINGLE	0
#define MPI_THREAD_FUNNELED	1
#define MPI_THREAD_SERIALIZED	2
#define MPI_THREAD_MULTIPLE	3

#define MPI_COMM_TYPE_SHARED	1

/* Window flavors, memory models, lock types and assertions. */
#define MPI_WIN_FLAVOR_CREATE	1
#define MPI_WIN_FLAVOR_ALLOCATE	2
#define MPI_WIN_FLAVOR_DYNAMIC	3
#define MPI_WIN_FLAVOR_SHARED	4

#define MPI_WIN_SEPARATE	1
#define MPI_WIN_UNIFIED		2

#define MPI_LOCK_EXCLUSIVE	234
#define MPI_LOCK_SHARED		235

#define MPI_MODE_NOCHECK	1024
#define MPI_MODE_NOSTORE	2048
#define MPI_MODE_NOPUT		4096
#define MPI_MODE_NOPRECEDE	8192
#define MPI_MODE_NOSUCCEED	16384

/* Topologies (MPI_Topo_test) */
#define MPI_CART		1
#define MPI_GRAPH		2
#define MPI_DIST_GRAPH		3

/* MPI_Type_create_subarray, MPI_Type_create_darray */
#define MPI_ORDER_C		56
#define MPI_ORDER_FORTRAN	57
#define MPI_DISTRIBUTE_BLOCK	121
#define MPI_DISTRIBUTE_CYCLIC	122
#define MPI_DISTRIBUTE_NONE	123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* ------------------------------------------------------------ error classes */

#define MPI_SUCCESS			0
#define MPI_ERR_BUFFER			1
#define MPI_ERR_COUNT			2
#define MPI_ERR_TYPE			3
#define MPI_ERR_TAG			4
#define MPI_ERR_COMM			5
#define MPI_ERR_RANK			6
#define MPI_ERR_REQUEST			7
#define MPI_ERR_ROOT			8
#define MPI_ERR_GROUP			9
#define MPI_ERR_OP			10
#define MPI_ERR_TOPOLOGY		11
#define MPI_ERR_DIMS			12
#define MPI_ERR_ARG			13
#define MPI_ERR_UNKNOWN			14
#define MPI_ERR_TRUNCATE		15
#define MPI_ERR_OTHER			16
#define MPI_ERR_INTERN			17
#define MPI_ERR_IN_STATUS		18
#define MPI_ERR_PENDING			19
#define MPI_ERR_KEYVAL			20
#define MPI_ERR_NO_MEM			21
#define MPI_ERR_BASE			22
#define MPI_ERR_INFO_KEY		23
#define MPI_ERR_INFO_VALUE		24
#define MPI_ERR_INFO_NOKEY		25
#define MPI_ERR_SPAWN			26
#define MPI_ERR_PORT			27
#define MPI_ERR_SERVICE			28
#define MPI_ERR_NAME			29
#define MPI_ERR_WIN			30
#define MPI_ERR_SIZE			31
#define MPI_ERR_DISP			32
#define MPI_ERR_INFO			33
#define MPI_ERR_LOCKTYPE		34
#define MPI_ERR_ASSERT			35
#define MPI_ERR_RMA_CONFLICT		36
#define MPI_ERR_RMA_SYNC		37
#define MPI_ERR_RMA_RANGE		38
#define MPI_ERR_RMA_ATTACH		39
#define MPI_ERR_RMA_SHARED		40
#define MPI_ERR_RMA_FLAVOR		41
#define MPI_ERR_FILE			42
#define MPI_ERR_NOT_SAME		43
#define MPI_ERR_AMODE			44
#define MPI_ERR_UNSUPPORTED_DATAREP	45
#define MPI_ERR_UNSUPPORTED_OPERATION	46
#define MPI_ERR_NO_SUCH_FILE		47
#define MPI_ERR_FILE_EXISTS		48
#define MPI_ERR_BAD_FILE		49
#define MPI_ERR_ACCESS			50
#define MPI_ERR_NO_SPACE		51
#define MPI_ERR_QUOTA			52
#define MPI_ERR_READ_ONLY		53
#define MPI_ERR_FILE_IN_USE		54
#define MPI_ERR_DUP_DATAREP		55
#define MPI_ERR_CONVERSION		56
#define MPI_ERR_IO			57
/* MPI 4.0: a process the operation depends on has ended. */
#define MPI_ERR_PROC_ABORTED		58
/* MPI 4.0: a session argument is wrong; a value does not fit its type. */
#define MPI_ERR_SESSION			59
#define MPI_ERR_VALUE_TOO_LARGE		60
/* The tool information interface's own (MPI_T_*, lib/base/tool.c). */
#define MPI_T_ERR_MEMORY		61
#define MPI_T_ERR_NOT_INITIALIZED	62
#define MPI_T_ERR_CANNOT_INIT		63
#define MPI_T_ERR_INVALID_INDEX		64
#define MPI_T_ERR_INVALID_ITEM		65
#define MPI_T_ERR_INVALID_HANDLE	66
#define MPI_T_ERR_OUT_OF_HANDLES	67
#define MPI_T_ERR_OUT_OF_SESSIONS	68
#define MPI_T_ERR_INVALID_SESSION	69
#define MPI_T_ERR_CVAR_SET_NOT_NOW	70
#define MPI_T_ERR_CVAR_SET_NEVER	71
#define MPI_T_ERR_PVAR_NO_STARTSTOP	72
#define MPI_T_ERR_PVAR_NO_WRITE		73
#define MPI_T_ERR_PVAR_NO_ATOMIC	74
#define MPI_T_ERR_INVALID_NAME		75
#define MPI_T_ERR_INVALID		76
#define MPI_T_ERR_NOT_ACCESSIBLE	77
#define MPI_T_ERR_NOT_SUPPORTED		78
#define MPI_ERR_LASTCODE		79

/* ------------------------------------------------------------ callbacks */

typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
			       MPI_Datatype *datatype);
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
				 MPI_Datatype *datatype);

typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errcode, ...);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errcode, ...);
typedef void MPI_Session_errhandler_function(MPI_Session *session,
					    int *errcode, ...);
/* MPI-2 names of the same types. */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;

typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval,
					void *extra_state,
					void *attribute_val_in,
					void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval,
					  void *attribute_val,
					  void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval,
				       void *extra_state,
				       void *attribute_val_in,
				       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval,
					 void *attribute_val,
					 void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval,
					void *extra_state,
					void *attribute_val_in,
					void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype,
					  int type_keyval,
					  void *attribute_val,
					  void *extra_state);
/* Deprecated MPI-1 keyval callbacks (MPI_Keyval_create). */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
			      void *attribute_val_in, void *attribute_val_out,
			      int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval,
				void *attribute_val, void *extra_state);

/*
 * What the library exports: the library is built with hidden visibility,
 * so that its own globals are reached without the GOT (the hybrid engine,
 * one relocatable object, has no version script to say so).
 */
#if defined(__GNUC__)
#define MPIRMA_API __attribute__((visibility("default")))
#else
#define MPIRMA_API
#endif

/* The predefined callbacks are real functions, as the standard has them. */
MPIRMA_API int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *,
			int *);
MPIRMA_API int MPI_COMM_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
MPIRMA_API int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void *, void *);
MPIRMA_API int MPI_WIN_NULL_COPY_FN(MPI_Win, int, void *, void *, void *,
			int *);
MPIRMA_API int MPI_WIN_DUP_FN(MPI_Win, int, void *, void *, void *, int *);
MPIRMA_API int MPI_WIN_NULL_DELETE_FN(MPI_Win, int, void *, void *);
MPIRMA_API int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void *, void *, void *,
			int *);
MPIRMA_API int MPI_TYPE_DUP_FN(MPI_Datatype, int, void *, void *, void *,
			int *);
MPIRMA_API int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void *, void *);
#define MPI_NULL_COPY_FN	MPI_COMM_NULL_COPY_FN
#define MPI_DUP_FN		MPI_COMM_DUP_FN
#define MPI_NULL_DELETE_FN	MPI_COMM_NULL_DELETE_FN

/* ------------------------------------------------------------ functions */

/* Declares MPI_<name> and its profiling name PMPI_<name>. */
#define MPIRMA_DECL(ret, name, args) \
	MPIRMA_API ret MPI_##name args; MPIRMA_API ret PMPI_##name args;

/* Environment (lib/runtime/init.c) */
MPIRMA_DECL(int, Init, (int *argc, char ***argv))
MPIRMA_DECL(int, Init_thread, (int *argc, char ***argv, int required,
			       int *provided))
MPIRMA_DECL(int, Finalize, (void))
MPIRMA_DECL(int, Initialized, (int *flag))
MPIRMA_DECL(int, Finalized, (int *flag))
MPIRMA_DECL(int, Abort, (MPI_Comm comm, int errorcode))
MPIRMA_DECL(double, Wtime, (void))
MPIRMA_DECL(double, Wtick, (void))
MPIRMA_DECL(int, Get_version, (int *version, int *subversion))
MPIRMA_DECL(int, Get_library_version, (char *version, int *resultlen))
MPIRMA_DECL(int, Get_processor_name, (char *name, int *resultlen))
MPIRMA_DECL(int, Query_thread, (int *provided))
MPIRMA_DECL(int, Is_thread_main, (int *flag))
MPIRMA_DECL(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
MPIRMA_DECL(int, Free_mem, (void *base))
MPIRMA_DECL(int, Pcontrol, (const int level, ...))

/* Errors (lib/base/error.c) */
MPIRMA_DECL(int, Error_class, (int errorcode, int *errorclass))
MPIRMA_DECL(int, Error_string, (int errorcode, char *string, int *resultlen))
MPIRMA_DECL(int, Add_error_class, (int *errorclass))
MPIRMA_DECL(int, Add_error_code, (int errorclass, int *errorcode))
MPIRMA_DECL(int, Add_error_string, (int errorcode, const char *string))
MPIRMA_DECL(int, Comm_create_errhandler,
	    (MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler))
MPIRMA_DECL(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
MPIRMA_DECL(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
MPIRMA_DECL(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
/* MPI-1's names of the three above (removed in MPI-3) */
typedef MPI_Comm_errhandler_function MPI_Handler_function;
MPIRMA_DECL(int, Errhandler_create, (MPI_Handler_function *fn,
				     MPI_Errhandler *errhandler))
MPIRMA_DECL(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
MPIRMA_DECL(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))
MPIRMA_DECL(int, Win_create_errhandler,
	    (MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler))
MPIRMA_DECL(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
MPIRMA_DECL(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
MPIRMA_DECL(int, Win_call_errhandler, (MPI_Win win, int errorcode))
MPIRMA_DECL(int, Errhandler_free, (MPI_Errhandler *errhandler))

/* Communicators (lib/runtime/comm.c) */
MPIRMA_DECL(int, Comm_rank, (MPI_Comm comm, int *rank))
MPIRMA_DECL(int, Comm_size, (MPI_Comm comm, int *size))
MPIRMA_DECL(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
MPIRMA_DECL(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info,
				      MPI_Comm *newcomm))
/* The dup is done at once: the request is complete. */
MPIRMA_DECL(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm,
			     MPI_Request *request))
MPIRMA_DECL(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info,
				       MPI_Comm *newcomm,
				       MPI_Request *request))
MPIRMA_DECL(int, Comm_split, (MPI_Comm comm, int color, int key,
			      MPI_Comm *newcomm))
MPIRMA_DECL(int, Comm_split_type, (MPI_Comm comm, int split_type, int key,
				   MPI_Info info, MPI_Comm *newcomm))
MPIRMA_DECL(int, Comm_create, (MPI_Comm comm, MPI_Group group,
			       MPI_Comm *newcomm))
MPIRMA_DECL(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag,
				     MPI_Comm *newcomm))
MPIRMA_DECL(int, Comm_free, (MPI_Comm *comm))
/* waits for the communicator's pending communication, then frees it */
MPIRMA_DECL(int, Comm_disconnect, (MPI_Comm *comm))
MPIRMA_DECL(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
MPIRMA_DECL(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
MPIRMA_DECL(int, Comm_test_inter, (MPI_Comm comm, int *flag))
MPIRMA_DECL(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
MPIRMA_DECL(int, Comm_get_name, (MPI_Comm comm, char *comm_name,
				 int *resultlen))
MPIRMA_DECL(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
MPIRMA_DECL(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
/* No inter-communicators exist: these fail with MPI_ERR_COMM. */
MPIRMA_DECL(int, Comm_remote_size, (MPI_Comm comm, int *size))
MPIRMA_DECL(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))

/* Cartesian topologies (lib/runtime/topo.c) */
MPIRMA_DECL(int, Dims_create, (int nnodes, int ndims, int dims[]))
MPIRMA_DECL(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[],
			       const int periods[], int reorder,
			       MPI_Comm *comm_cart))
MPIRMA_DECL(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[],
			    int periods[], int coords[]))
MPIRMA_DECL(int, Cartdim_get, (MPI_Comm comm, int *ndims))
MPIRMA_DECL(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
MPIRMA_DECL(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims,
			       int coords[]))
MPIRMA_DECL(int, Cart_shift, (MPI_Comm comm, int direction, int disp,
			      int *rank_source, int *rank_dest))
MPIRMA_DECL(int, Cart_sub, (MPI_Comm comm, const int remain_dims[],
			    MPI_Comm *newcomm))
MPIRMA_DECL(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[],
			    const int periods[], int *newrank))
MPIRMA_DECL(int, Topo_test, (MPI_Comm comm, int *status))

/* Graph and distributed graph topologies (lib/runtime/topo_graph.c) */
MPIRMA_DECL(int, Graph_create, (MPI_Comm comm_old, int nnodes,
				const int index[], const int edges[],
				int reorder, MPI_Comm *comm_graph))
MPIRMA_DECL(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
MPIRMA_DECL(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges,
			     int index[], int edges[]))
MPIRMA_DECL(int, Graph_neighbors_count, (MPI_Comm comm, int rank,
					 int *nneighbors))
MPIRMA_DECL(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors,
				   int neighbors[]))
MPIRMA_DECL(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[],
			     const int edges[], int *newrank))
/*
 * Weights are pointers, not arrays: GCC warns when MPI_UNWEIGHTED, a
 * constant address, is passed for an array parameter.
 */
MPIRMA_DECL(int, Dist_graph_create_adjacent, (MPI_Comm comm_old,
			int indegree, const int sources[],
			const int *sourceweights, int outdegree,
			const int destinations[], const int *destweights,
			MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
MPIRMA_DECL(int, Dist_graph_create, (MPI_Comm comm_old, int n,
			const int sources[], const int degrees[],
			const int destinations[], const int *weights,
			MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
MPIRMA_DECL(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree,
					      int *outdegree, int *weighted))
MPIRMA_DECL(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree,
			int sources[], int *sourceweights, int maxoutdegree,
			int destinations[], int *destweights))

/* Groups (lib/runtime/group.c) */
MPIRMA_DECL(int, Group_size, (MPI_Group group, int *size))
MPIRMA_DECL(int, Group_rank, (MPI_Group group, int *rank))
MPIRMA_DECL(int, Group_free, (MPI_Group *group))
MPIRMA_DECL(int, Group_incl, (MPI_Group group, int n, const int ranks[],
			      MPI_Group *newgroup))
MPIRMA_DECL(int, Group_excl, (MPI_Group group, int n, const int ranks[],
			      MPI_Group *newgroup))
MPIRMA_DECL(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3],
				    MPI_Group *newgroup))
MPIRMA_DECL(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3],
				    MPI_Group *newgroup))
MPIRMA_DECL(int, Group_translate_ranks, (MPI_Group group1, int n,
					 const int ranks1[], MPI_Group group2,
					 int ranks2[]))
MPIRMA_DECL(int, Group_compare, (MPI_Group group1, MPI_Group group2,
				 int *result))
MPIRMA_DECL(int, Group_union, (MPI_Group group1, MPI_Group group2,
			       MPI_Group *newgroup))
MPIRMA_DECL(int, Group_intersection, (MPI_Group group1, MPI_Group group2,
				      MPI_Group *newgroup))
MPIRMA_DECL(int, Group_difference, (MPI_Group group1, MPI_Group group2,
				    MPI_Group *newgroup))

/* Attributes (lib/base/attr.c) */
MPIRMA_DECL(int, Comm_create_keyval,
	    (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
	     MPI_Comm_delete_attr_function *comm_delete_attr_fn,
	     int *comm_keyval, void *extra_state))
MPIRMA_DECL(int, Comm_free_keyval, (int *comm_keyval))
MPIRMA_DECL(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval,
				 void *attribute_val))
MPIRMA_DECL(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval,
				 void *attribute_val, int *flag))
MPIRMA_DECL(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
MPIRMA_DECL(int, Win_create_keyval,
	    (MPI_Win_copy_attr_function *win_copy_attr_fn,
	     MPI_Win_delete_attr_function *win_delete_attr_fn,
	     int *win_keyval, void *extra_state))
MPIRMA_DECL(int, Win_free_keyval, (int *win_keyval))
MPIRMA_DECL(int, Win_set_attr, (MPI_Win win, int win_keyval,
				void *attribute_val))
MPIRMA_DECL(int, Win_get_attr, (MPI_Win win, int win_keyval,
				void *attribute_val, int *flag))
MPIRMA_DECL(int, Win_delete_attr, (MPI_Win win, int win_keyval))
MPIRMA_DECL(int, Type_create_keyval,
	    (MPI_Type_copy_attr_function *type_copy_attr_fn,
	     MPI_Type_delete_attr_function *type_delete_attr_fn,
	     int *type_keyval, void *extra_state))
MPIRMA_DECL(int, Type_free_keyval, (int *type_keyval))
MPIRMA_DECL(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval,
				 void *attribute_val))
MPIRMA_DECL(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval,
				 void *attribute_val, int *flag))
MPIRMA_DECL(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
MPIRMA_DECL(int, Win_set_name, (MPI_Win win, const char *win_name))
MPIRMA_DECL(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
/* Deprecated MPI-1 names, still used by old tests. */
MPIRMA_DECL(int, Keyval_create, (MPI_Copy_function *copy_fn,
				 MPI_Delete_function *delete_fn, int *keyval,
				 void *extra_state))
MPIRMA_DECL(int, Keyval_free, (int *keyval))
MPIRMA_DECL(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
MPIRMA_DECL(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val,
			    int *flag))
MPIRMA_DECL(int, Attr_delete, (MPI_Comm comm, int keyval))

/* Info (lib/base/info.c) */
MPIRMA_DECL(int, Info_create, (MPI_Info *info))
MPIRMA_DECL(int, Info_create_env, (int argc, char *argv[], MPI_Info *info))
MPIRMA_DECL(int, Info_free, (MPI_Info *info))
MPIRMA_DECL(int, Info_set, (MPI_Info info, const char *key, const char *value))
MPIRMA_DECL(int, Info_get, (MPI_Info info, const char *key, int valuelen,
			    char *value, int *flag))
MPIRMA_DECL(int, Info_get_string, (MPI_Info info, const char *key,
				   int *buflen, char *value, int *flag))
MPIRMA_DECL(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
MPIRMA_DECL(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
MPIRMA_DECL(int, Info_get_valuelen, (MPI_Info info, const char *key,
				     int *valuelen, int *flag))
MPIRMA_DECL(int, Info_delete, (MPI_Info info, const char *key))
MPIRMA_DECL(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))

/* Handle conversion (lib/base/handle.c): handles are already ints. */
MPIRMA_DECL(MPI_Fint, Comm_c2f, (MPI_Comm comm))
MPIRMA_DECL(MPI_Comm, Comm_f2c, (MPI_Fint comm))
MPIRMA_DECL(MPI_Fint, Group_c2f, (MPI_Group group))
MPIRMA_DECL(MPI_Group, Group_f2c, (MPI_Fint group))
MPIRMA_DECL(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
MPIRMA_DECL(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
MPIRMA_DECL(MPI_Fint, Op_c2f, (MPI_Op op))
MPIRMA_DECL(MPI_Op, Op_f2c, (MPI_Fint op))
MPIRMA_DECL(MPI_Fint, Win_c2f, (MPI_Win win))
MPIRMA_DECL(MPI_Win, Win_f2c, (MPI_Fint win))
MPIRMA_DECL(MPI_Fint, Request_c2f, (MPI_Request request))
MPIRMA_DECL(MPI_Request, Request_f2c, (MPI_Fint request))
MPIRMA_DECL(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
MPIRMA_DECL(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
MPIRMA_DECL(MPI_Fint, Info_c2f, (MPI_Info info))
MPIRMA_DECL(MPI_Info, Info_f2c, (MPI_Fint info))

/* Datatypes (lib/base/datatype*.c) */
MPIRMA_DECL(int, Type_contiguous, (int count, MPI_Datatype oldtype,
				   MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_vector, (int count, int blocklength, int stride,
			       MPI_Datatype oldtype, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_hvector, (int count, int blocklength,
				       MPI_Aint stride, MPI_Datatype oldtype,
				       MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_indexed, (int count, const int array_of_blocklengths[],
				const int array_of_displacements[],
				MPI_Datatype oldtype, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_hindexed,
	    (int count, const int array_of_blocklengths[],
	     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
	     MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_indexed_block,
	    (int count, int blocklength, const int array_of_displacements[],
	     MPI_Datatype oldtype, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_hindexed_block,
	    (int count, int blocklength,
	     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
	     MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_struct,
	    (int count, const int array_of_blocklengths[],
	     const MPI_Aint array_of_displacements[],
	     const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_subarray,
	    (int ndims, const int array_of_sizes[],
	     const int array_of_subsizes[], const int array_of_starts[],
	     int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb,
				       MPI_Aint extent, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_commit, (MPI_Datatype *datatype))
MPIRMA_DECL(int, Type_free, (MPI_Datatype *datatype))
MPIRMA_DECL(int, Type_size, (MPI_Datatype datatype, int *size))
MPIRMA_DECL(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
MPIRMA_DECL(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb,
				   MPI_Aint *extent))
MPIRMA_DECL(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb,
				     MPI_Count *extent))
MPIRMA_DECL(int, Type_get_true_extent, (MPI_Datatype datatype,
					MPI_Aint *true_lb,
					MPI_Aint *true_extent))
MPIRMA_DECL(int, Type_get_true_extent_x, (MPI_Datatype datatype,
					  MPI_Count *true_lb,
					  MPI_Count *true_extent))
MPIRMA_DECL(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
MPIRMA_DECL(int, Type_get_name, (MPI_Datatype datatype, char *type_name,
				 int *resultlen))
/* MPI-1 names removed in MPI 3.0, still used by older programs. */
MPIRMA_DECL(int, Type_hvector, (int count, int blocklength, MPI_Aint stride,
				MPI_Datatype oldtype, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_hindexed, (int count, int array_of_blocklengths[],
				 MPI_Aint array_of_displacements[],
				 MPI_Datatype oldtype, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_struct, (int count, int array_of_blocklengths[],
			       MPI_Aint array_of_displacements[],
			       MPI_Datatype array_of_types[],
			       MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
MPIRMA_DECL(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
MPIRMA_DECL(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))
MPIRMA_DECL(int, Address, (void *location, MPI_Aint *address))
MPIRMA_DECL(int, Get_address, (const void *location, MPI_Aint *address))
MPIRMA_DECL(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
MPIRMA_DECL(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
MPIRMA_DECL(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype,
			     int *count))
MPIRMA_DECL(int, Get_elements, (const MPI_Status *status,
				MPI_Datatype datatype, int *count))
MPIRMA_DECL(int, Status_set_elements, (MPI_Status *status,
				       MPI_Datatype datatype, int count))
MPIRMA_DECL(int, Status_set_elements_x, (MPI_Status *status,
					 MPI_Datatype datatype,
					 MPI_Count count))
MPIRMA_DECL(int, Status_set_cancelled, (MPI_Status *status, int flag))
#define MPI_TYPECLASS_INTEGER	1
#define MPI_TYPECLASS_REAL	2
#define MPI_TYPECLASS_COMPLEX	3
MPIRMA_DECL(int, Type_match_size, (int typeclass, int size,
				   MPI_Datatype *datatype))
MPIRMA_DECL(int, Get_elements_x, (const MPI_Status *status,
				  MPI_Datatype datatype, MPI_Count *count))
MPIRMA_DECL(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype,
			void *outbuf, int outsize, int *position,
			MPI_Comm comm))
MPIRMA_DECL(int, Unpack, (const void *inbuf, int insize, int *position,
			  void *outbuf, int outcount, MPI_Datatype datatype,
			  MPI_Comm comm))
MPIRMA_DECL(int, Pack_size, (int incount, MPI_Datatype datatype,
			     MPI_Comm comm, int *size))
MPIRMA_DECL(int, Type_create_darray,
	    (int size, int rank, int ndims, const int array_of_gsizes[],
	     const int array_of_distribs[], const int array_of_dargs[],
	     const int array_of_psizes[], int order, MPI_Datatype oldtype,
	     MPI_Datatype *newtype))
/* The portable packed form: only "external32" (lib/base/datatype_ext32.c). */
MPIRMA_DECL(int, Pack_external, (const char *datarep, const void *inbuf,
				 int incount, MPI_Datatype datatype,
				 void *outbuf, MPI_Aint outsize,
				 MPI_Aint *position))
MPIRMA_DECL(int, Unpack_external, (const char *datarep, const void *inbuf,
				   MPI_Aint insize, MPI_Aint *position,
				   void *outbuf, int outcount,
				   MPI_Datatype datatype))
MPIRMA_DECL(int, Pack_external_size, (const char *datarep, int incount,
				      MPI_Datatype datatype, MPI_Aint *size))
/*
 * The Fortran 90 parameterized types: a handle per (p, r) that behaves as
 * the predefined type it matches and must not be freed.
 */
MPIRMA_DECL(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_f90_complex, (int p, int r,
					   MPI_Datatype *newtype))

/*
 * The large-count forms (MPI 4.0).  A type they build records its MPI_Count
 * arguments as large counts: decode it with MPI_Type_get_envelope_c and
 * MPI_Type_get_contents_c.
 */
MPIRMA_DECL(int, Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype,
				     MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_vector_c, (MPI_Count count, MPI_Count blocklength,
				 MPI_Count stride, MPI_Datatype oldtype,
				 MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_hvector_c, (MPI_Count count,
					 MPI_Count blocklength,
					 MPI_Count stride, MPI_Datatype oldtype,
					 MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_indexed_c,
	    (MPI_Count count, const MPI_Count array_of_blocklengths[],
	     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
	     MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_hindexed_c,
	    (MPI_Count count, const MPI_Count array_of_blocklengths[],
	     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
	     MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_indexed_block_c,
	    (MPI_Count count, MPI_Count blocklength,
	     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
	     MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_hindexed_block_c,
	    (MPI_Count count, MPI_Count blocklength,
	     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
	     MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_struct_c,
	    (MPI_Count count, const MPI_Count array_of_blocklengths[],
	     const MPI_Count array_of_displacements[],
	     const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_subarray_c,
	    (int ndims, const MPI_Count array_of_sizes[],
	     const MPI_Count array_of_subsizes[],
	     const MPI_Count array_of_starts[], int order,
	     MPI_Datatype oldtype, MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_darray_c,
	    (int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
	     const int array_of_distribs[], const int array_of_dargs[],
	     const int array_of_psizes[], int order, MPI_Datatype oldtype,
	     MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_create_resized_c, (MPI_Datatype oldtype, MPI_Count lb,
					 MPI_Count extent,
					 MPI_Datatype *newtype))
MPIRMA_DECL(int, Type_size_c, (MPI_Datatype datatype, MPI_Count *size))
MPIRMA_DECL(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb,
				     MPI_Count *extent))
MPIRMA_DECL(int, Type_get_true_extent_c, (MPI_Datatype datatype,
					  MPI_Count *true_lb,
					  MPI_Count *true_extent))
MPIRMA_DECL(int, Get_count_c, (const MPI_Status *status,
			       MPI_Datatype datatype, MPI_Count *count))
MPIRMA_DECL(int, Get_elements_c, (const MPI_Status *status,
				  MPI_Datatype datatype, MPI_Count *count))
MPIRMA_DECL(int, Pack_c, (const void *inbuf, MPI_Count incount,
			  MPI_Datatype datatype, void *outbuf,
			  MPI_Count outsize, MPI_Count *position,
			  MPI_Comm comm))
MPIRMA_DECL(int, Unpack_c, (const void *inbuf, MPI_Count insize,
			    MPI_Count *position, void *outbuf,
			    MPI_Count outcount, MPI_Datatype datatype,
			    MPI_Comm comm))
MPIRMA_DECL(int, Pack_size_c, (MPI_Count incount, MPI_Datatype datatype,
			       MPI_Comm comm, MPI_Count *size))
MPIRMA_DECL(int, Pack_external_c, (const char *datarep, const void *inbuf,
				   MPI_Count incount, MPI_Datatype datatype,
				   void *outbuf, MPI_Count outsize,
				   MPI_Count *position))
MPIRMA_DECL(int, Unpack_external_c, (const char *datarep, const void *inbuf,
				     MPI_Count insize, MPI_Count *position,
				     void *outbuf, MPI_Count outcount,
				     MPI_Datatype datatype))
MPIRMA_DECL(int, Pack_external_size_c, (const char *datarep,
					MPI_Count incount,
					MPI_Datatype datatype,
					MPI_Count *size))

/* Ops (lib/rma/op.c) */
MPIRMA_DECL(int, Op_create, (MPI_User_function *user_fn, int commute,
			     MPI_Op *op))
MPIRMA_DECL(int, Op_free, (MPI_Op *op))
MPIRMA_DECL(int, Op_commutative, (MPI_Op op, int *commute))
MPIRMA_DECL(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count,
				MPI_Datatype datatype, MPI_Op op))

/* Point-to-point (lib/p2p.c) */
MPIRMA_DECL(int, Send, (const void *buf, int count, MPI_Datatype datatype,
			int dest, int tag, MPI_Comm comm))
MPIRMA_DECL(int, Ssend, (const void *buf, int count, MPI_Datatype datatype,
			 int dest, int tag, MPI_Comm comm))
MPIRMA_DECL(int, Rsend, (const void *buf, int count, MPI_Datatype datatype,
			 int dest, int tag, MPI_Comm comm))
MPIRMA_DECL(int, Recv, (void *buf, int count, MPI_Datatype datatype,
			int source, int tag, MPI_Comm comm,
			MPI_Status *status))
MPIRMA_DECL(int, Isend, (const void *buf, int count, MPI_Datatype datatype,
			 int dest, int tag, MPI_Comm comm,
			 MPI_Request *request))
MPIRMA_DECL(int, Issend, (const void *buf, int count, MPI_Datatype datatype,
			  int dest, int tag, MPI_Comm comm,
			  MPI_Request *request))
MPIRMA_DECL(int, Irsend, (const void *buf, int count, MPI_Datatype datatype,
			  int dest, int tag, MPI_Comm comm,
			  MPI_Request *request))
MPIRMA_DECL(int, Irecv, (void *buf, int count, MPI_Datatype datatype,
			 int source, int tag, MPI_Comm comm,
			 MPI_Request *request))
MPIRMA_DECL(int, Sendrecv, (const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, int dest, int sendtag,
			    void *recvbuf, int recvcount,
			    MPI_Datatype recvtype, int source, int recvtag,
			    MPI_Comm comm, MPI_Status *status))
MPIRMA_DECL(int, Sendrecv_replace, (void *buf, int count,
				    MPI_Datatype datatype, int dest,
				    int sendtag, int source, int recvtag,
				    MPI_Comm comm, MPI_Status *status))
MPIRMA_DECL(int, Isendrecv, (const void *sendbuf, int sendcount,
			     MPI_Datatype sendtype, int dest, int sendtag,
			     void *recvbuf, int recvcount,
			     MPI_Datatype recvtype, int source, int recvtag,
			     MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Isendrecv_replace, (void *buf, int count,
				     MPI_Datatype datatype, int dest,
				     int sendtag, int source, int recvtag,
				     MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Probe, (int source, int tag, MPI_Comm comm,
			 MPI_Status *status))
MPIRMA_DECL(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag,
			  MPI_Status *status))
/* Matched probes: the message is taken out of matching at the probe. */
MPIRMA_DECL(int, Mprobe, (int source, int tag, MPI_Comm comm,
			  MPI_Message *message, MPI_Status *status))
MPIRMA_DECL(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag,
			   MPI_Message *message, MPI_Status *status))
MPIRMA_DECL(int, Mrecv, (void *buf, int count, MPI_Datatype datatype,
			 MPI_Message *message, MPI_Status *status))
MPIRMA_DECL(int, Imrecv, (void *buf, int count, MPI_Datatype datatype,
			  MPI_Message *message, MPI_Request *request))
MPIRMA_DECL(MPI_Fint, Message_c2f, (MPI_Message message))
MPIRMA_DECL(MPI_Message, Message_f2c, (MPI_Fint message))
/* Buffered sends: every send is buffered in the kernel already. */
MPIRMA_DECL(int, Bsend, (const void *buf, int count, MPI_Datatype datatype,
			 int dest, int tag, MPI_Comm comm))
MPIRMA_DECL(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype,
			  int dest, int tag, MPI_Comm comm,
			  MPI_Request *request))
MPIRMA_DECL(int, Buffer_attach, (void *buffer, int size))
MPIRMA_DECL(int, Buffer_detach, (void *buffer_addr, int *size))
/* MPI 4.1: nothing is ever pending in the attached buffer */
MPIRMA_DECL(int, Buffer_flush, (void))
MPIRMA_DECL(int, Buffer_iflush, (MPI_Request *request))
/* Persistent requests (lib/runtime/p2p_persist.c) */
MPIRMA_DECL(int, Send_init, (const void *buf, int count,
			     MPI_Datatype datatype, int dest, int tag,
			     MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Bsend_init, (const void *buf, int count,
			      MPI_Datatype datatype, int dest, int tag,
			      MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Ssend_init, (const void *buf, int count,
			      MPI_Datatype datatype, int dest, int tag,
			      MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Rsend_init, (const void *buf, int count,
			      MPI_Datatype datatype, int dest, int tag,
			      MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Recv_init, (void *buf, int count, MPI_Datatype datatype,
			     int source, int tag, MPI_Comm comm,
			     MPI_Request *request))
MPIRMA_DECL(int, Start, (MPI_Request *request))
MPIRMA_DECL(int, Startall, (int count, MPI_Request array_of_requests[]))

/*
 * MPI 4.0 partitioned communication (lib/runtime/p2p_part.c): persistent
 * requests started by MPI_Start and MPI_Startall.
 */
MPIRMA_DECL(int, Psend_init, (const void *buf, int partitions,
			      MPI_Count count, MPI_Datatype datatype,
			      int dest, int tag, MPI_Comm comm, MPI_Info info,
			      MPI_Request *request))
MPIRMA_DECL(int, Precv_init, (void *buf, int partitions, MPI_Count count,
			      MPI_Datatype datatype, int source, int tag,
			      MPI_Comm comm, MPI_Info info,
			      MPI_Request *request))
MPIRMA_DECL(int, Pready, (int partition, MPI_Request request))
MPIRMA_DECL(int, Pready_range, (int partition_low, int partition_high,
				MPI_Request request))
MPIRMA_DECL(int, Pready_list, (int length, const int array_of_partitions[],
			       MPI_Request request))
MPIRMA_DECL(int, Parrived, (MPI_Request request, int partition, int *flag))
MPIRMA_DECL(int, Cancel, (MPI_Request *request))
MPIRMA_DECL(int, Test_cancelled, (const MPI_Status *status, int *flag))

/* Requests (lib/runtime/request.c) */
MPIRMA_DECL(int, Wait, (MPI_Request *request, MPI_Status *status))
MPIRMA_DECL(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
MPIRMA_DECL(int, Waitall, (int count, MPI_Request array_of_requests[],
			   MPI_Status *array_of_statuses))
MPIRMA_DECL(int, Testall, (int count, MPI_Request array_of_requests[],
			   int *flag, MPI_Status *array_of_statuses))
MPIRMA_DECL(int, Waitany, (int count, MPI_Request array_of_requests[],
			   int *index, MPI_Status *status))
MPIRMA_DECL(int, Testany, (int count, MPI_Request array_of_requests[],
			   int *index, int *flag, MPI_Status *status))
MPIRMA_DECL(int, Waitsome, (int incount, MPI_Request array_of_requests[],
			    int *outcount, int array_of_indices[],
			    MPI_Status *array_of_statuses))
MPIRMA_DECL(int, Testsome, (int incount, MPI_Request array_of_requests[],
			    int *outcount, int array_of_indices[],
			    MPI_Status *array_of_statuses))
MPIRMA_DECL(int, Request_free, (MPI_Request *request))
MPIRMA_DECL(int, Request_get_status, (MPI_Request request, int *flag,
				      MPI_Status *status))

/* Generalized requests (lib/runtime/grequest.c) */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
MPIRMA_DECL(int, Grequest_start, (MPI_Grequest_query_function *query_fn,
				  MPI_Grequest_free_function *free_fn,
				  MPI_Grequest_cancel_function *cancel_fn,
				  void *extra_state, MPI_Request *request))
MPIRMA_DECL(int, Grequest_complete, (MPI_Request request))

/* Collectives (lib/runtime/coll.c) */
MPIRMA_DECL(int, Barrier, (MPI_Comm comm))
MPIRMA_DECL(int, Bcast, (void *buffer, int count, MPI_Datatype datatype,
			 int root, MPI_Comm comm))
MPIRMA_DECL(int, Gather, (const void *sendbuf, int sendcount,
			  MPI_Datatype sendtype, void *recvbuf, int recvcount,
			  MPI_Datatype recvtype, int root, MPI_Comm comm))
MPIRMA_DECL(int, Gatherv, (const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf,
			   const int recvcounts[], const int displs[],
			   MPI_Datatype recvtype, int root, MPI_Comm comm))
MPIRMA_DECL(int, Allgather, (const void *sendbuf, int sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     int recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm))
MPIRMA_DECL(int, Allgatherv, (const void *sendbuf, int sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      const int recvcounts[], const int displs[],
			      MPI_Datatype recvtype, MPI_Comm comm))
MPIRMA_DECL(int, Scatter, (const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf, int recvcount,
			   MPI_Datatype recvtype, int root, MPI_Comm comm))
MPIRMA_DECL(int, Scatterv, (const void *sendbuf, const int sendcounts[],
			    const int displs[], MPI_Datatype sendtype,
			    void *recvbuf, int recvcount,
			    MPI_Datatype recvtype, int root, MPI_Comm comm))
MPIRMA_DECL(int, Alltoall, (const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    int recvcount, MPI_Datatype recvtype,
			    MPI_Comm comm))
MPIRMA_DECL(int, Alltoallv, (const void *sendbuf, const int sendcounts[],
			     const int sdispls[], MPI_Datatype sendtype,
			     void *recvbuf, const int recvcounts[],
			     const int rdispls[], MPI_Datatype recvtype,
			     MPI_Comm comm))
/* Intra-communicators only (MPI_ERR_COMM on an inter-communicator). */
MPIRMA_DECL(int, Alltoallw, (const void *sendbuf, const int sendcounts[],
			     const int sdispls[],
			     const MPI_Datatype sendtypes[], void *recvbuf,
			     const int recvcounts[], const int rdispls[],
			     const MPI_Datatype recvtypes[], MPI_Comm comm))
MPIRMA_DECL(int, Reduce, (const void *sendbuf, void *recvbuf, int count,
			  MPI_Datatype datatype, MPI_Op op, int root,
			  MPI_Comm comm))
MPIRMA_DECL(int, Allreduce, (const void *sendbuf, void *recvbuf, int count,
			     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
MPIRMA_DECL(int, Reduce_scatter, (const void *sendbuf, void *recvbuf,
				  const int recvcounts[],
				  MPI_Datatype datatype, MPI_Op op,
				  MPI_Comm comm))
MPIRMA_DECL(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf,
					int recvcount, MPI_Datatype datatype,
					MPI_Op op, MPI_Comm comm))
MPIRMA_DECL(int, Scan, (const void *sendbuf, void *recvbuf, int count,
			MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
MPIRMA_DECL(int, Exscan, (const void *sendbuf, void *recvbuf, int count,
			  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))


/*
 * Nonblocking collectives (lib/runtime/nbc.c): the blocking forms'
 * arguments and a request; intra-communicators only (MPI_ERR_COMM on an
 * inter-communicator).
 */
MPIRMA_DECL(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype,
			  int root, MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Igather, (const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf, int recvcount,
			   MPI_Datatype recvtype, int root, MPI_Comm comm,
			   MPI_Request *request))
MPIRMA_DECL(int, Igatherv, (const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    const int recvcounts[], const int displs[],
			    MPI_Datatype recvtype, int root, MPI_Comm comm,
			    MPI_Request *request))
MPIRMA_DECL(int, Iallgather, (const void *sendbuf, int sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      int recvcount, MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Iallgatherv, (const void *sendbuf, int sendcount,
			       MPI_Datatype sendtype, void *recvbuf,
			       const int recvcounts[], const int displs[],
			       MPI_Datatype recvtype, MPI_Comm comm,
			       MPI_Request *request))
MPIRMA_DECL(int, Iscatter, (const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    int recvcount, MPI_Datatype recvtype, int root,
			    MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Iscatterv, (const void *sendbuf, const int sendcounts[],
			     const int displs[], MPI_Datatype sendtype,
			     void *recvbuf, int recvcount,
			     MPI_Datatype recvtype, int root, MPI_Comm comm,
			     MPI_Request *request))
MPIRMA_DECL(int, Ialltoall, (const void *sendbuf, int sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     int recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Ialltoallv, (const void *sendbuf, const int sendcounts[],
			      const int sdispls[], MPI_Datatype sendtype,
			      void *recvbuf, const int recvcounts[],
			      const int rdispls[], MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Ialltoallw, (const void *sendbuf, const int sendcounts[],
			      const int sdispls[],
			      const MPI_Datatype sendtypes[], void *recvbuf,
			      const int recvcounts[], const int rdispls[],
			      const MPI_Datatype recvtypes[], MPI_Comm comm,
			      MPI_Request *request))
MPIRMA_DECL(int, Ireduce, (const void *sendbuf, void *recvbuf, int count,
			   MPI_Datatype datatype, MPI_Op op, int root,
			   MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count,
			      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			      MPI_Request *request))
MPIRMA_DECL(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf,
				   const int recvcounts[],
				   MPI_Datatype datatype, MPI_Op op,
				   MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf,
					 int recvcount, MPI_Datatype datatype,
					 MPI_Op op, MPI_Comm comm,
					 MPI_Request *request))
MPIRMA_DECL(int, Iscan, (const void *sendbuf, void *recvbuf, int count,
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			 MPI_Request *request))
MPIRMA_DECL(int, Iexscan, (const void *sendbuf, void *recvbuf, int count,
			   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			   MPI_Request *request))

/*
 * Persistent collectives (MPI-4; lib/runtime/nbc.c): the blocking forms'
 * arguments, checked here, an info (hints; none is used) and an inactive
 * persistent request, which MPI_Start and MPI_Startall start again and
 * again (not while active: MPI_ERR_REQUEST) and MPI_Request_free frees
 * when inactive; intra-communicators only.  Every rank makes the init
 * calls of a communicator in the same order; the starts may differ.
 */
MPIRMA_DECL(int, Barrier_init, (MPI_Comm comm, MPI_Info info,
				MPI_Request *request))
MPIRMA_DECL(int, Bcast_init, (void *buffer, int count, MPI_Datatype datatype,
			      int root, MPI_Comm comm, MPI_Info info,
			      MPI_Request *request))
MPIRMA_DECL(int, Gather_init, (const void *sendbuf, int sendcount,
			       MPI_Datatype sendtype, void *recvbuf,
			       int recvcount, MPI_Datatype recvtype, int root,
			       MPI_Comm comm, MPI_Info info,
			       MPI_Request *request))
MPIRMA_DECL(int, Gatherv_init, (const void *sendbuf, int sendcount,
				MPI_Datatype sendtype, void *recvbuf,
				const int recvcounts[], const int displs[],
				MPI_Datatype recvtype, int root, MPI_Comm comm,
				MPI_Info info, MPI_Request *request))
MPIRMA_DECL(int, Scatter_init, (const void *sendbuf, int sendcount,
				MPI_Datatype sendtype, void *recvbuf,
				int recvcount, MPI_Datatype recvtype, int root,
				MPI_Comm comm, MPI_Info info,
				MPI_Request *request))
MPIRMA_DECL(int, Scatterv_init, (const void *sendbuf, const int sendcounts[],
				 const int displs[], MPI_Datatype sendtype,
				 void *recvbuf, int recvcount,
				 MPI_Datatype recvtype, int root,
				 MPI_Comm comm, MPI_Info info,
				 MPI_Request *request))
MPIRMA_DECL(int, Allgather_init, (const void *sendbuf, int sendcount,
				  MPI_Datatype sendtype, void *recvbuf,
				  int recvcount, MPI_Datatype recvtype,
				  MPI_Comm comm, MPI_Info info,
				  MPI_Request *request))
MPIRMA_DECL(int, Allgatherv_init, (const void *sendbuf, int sendcount,
				   MPI_Datatype sendtype, void *recvbuf,
				   const int recvcounts[], const int displs[],
				   MPI_Datatype recvtype, MPI_Comm comm,
				   MPI_Info info, MPI_Request *request))
MPIRMA_DECL(int, Alltoall_init, (const void *sendbuf, int sendcount,
				 MPI_Datatype sendtype, void *recvbuf,
				 int recvcount, MPI_Datatype recvtype,
				 MPI_Comm comm, MPI_Info info,
				 MPI_Request *request))
MPIRMA_DECL(int, Alltoallv_init, (const void *sendbuf, const int sendcounts[],
				  const int sdispls[], MPI_Datatype sendtype,
				  void *recvbuf, const int recvcounts[],
				  const int rdispls[], MPI_Datatype recvtype,
				  MPI_Comm comm, MPI_Info info,
				  MPI_Request *request))
MPIRMA_DECL(int, Alltoallw_init, (const void *sendbuf, const int sendcounts[],
				  const int sdispls[],
				  const MPI_Datatype sendtypes[],
				  void *recvbuf, const int recvcounts[],
				  const int rdispls[],
				  const MPI_Datatype recvtypes[],
				  MPI_Comm comm, MPI_Info info,
				  MPI_Request *request))
MPIRMA_DECL(int, Reduce_init, (const void *sendbuf, void *recvbuf, int count,
			       MPI_Datatype datatype, MPI_Op op, int root,
			       MPI_Comm comm, MPI_Info info,
			       MPI_Request *request))
MPIRMA_DECL(int, Allreduce_init, (const void *sendbuf, void *recvbuf,
				  int count, MPI_Datatype datatype, MPI_Op op,
				  MPI_Comm comm, MPI_Info info,
				  MPI_Request *request))
MPIRMA_DECL(int, Reduce_scatter_init, (const void *sendbuf, void *recvbuf,
				       const int recvcounts[],
				       MPI_Datatype datatype, MPI_Op op,
				       MPI_Comm comm, MPI_Info info,
				       MPI_Request *request))
MPIRMA_DECL(int, Reduce_scatter_block_init, (const void *sendbuf,
					     void *recvbuf, int recvcount,
					     MPI_Datatype datatype, MPI_Op op,
					     MPI_Comm comm, MPI_Info info,
					     MPI_Request *request))
MPIRMA_DECL(int, Scan_init, (const void *sendbuf, void *recvbuf, int count,
			     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			     MPI_Info info, MPI_Request *request))
MPIRMA_DECL(int, Exscan_init, (const void *sendbuf, void *recvbuf, int count,
			       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			       MPI_Info info, MPI_Request *request))

/*
 * Neighborhood collectives (lib/runtime/coll_neighbor.c) on a
 * communicator with a topology (MPI_ERR_TOPOLOGY without one): blocking,
 * nonblocking and persistent.
 */
MPIRMA_DECL(int, Neighbor_allgather, (const void *sendbuf, int sendcount,
				      MPI_Datatype sendtype, void *recvbuf,
				      int recvcount, MPI_Datatype recvtype,
				      MPI_Comm comm))
MPIRMA_DECL(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount,
				       MPI_Datatype sendtype, void *recvbuf,
				       const int recvcounts[],
				       const int displs[],
				       MPI_Datatype recvtype, MPI_Comm comm))
MPIRMA_DECL(int, Neighbor_alltoall, (const void *sendbuf, int sendcount,
				     MPI_Datatype sendtype, void *recvbuf,
				     int recvcount, MPI_Datatype recvtype,
				     MPI_Comm comm))
MPIRMA_DECL(int, Neighbor_alltoallv, (const void *sendbuf,
				      const int sendcounts[],
				      const int sdispls[],
				      MPI_Datatype sendtype, void *recvbuf,
				      const int recvcounts[],
				      const int rdispls[],
				      MPI_Datatype recvtype, MPI_Comm comm))
MPIRMA_DECL(int, Neighbor_alltoallw, (const void *sendbuf,
				      const int sendcounts[],
				      const MPI_Aint sdispls[],
				      const MPI_Datatype sendtypes[],
				      void *recvbuf, const int recvcounts[],
				      const MPI_Aint rdispls[],
				      const MPI_Datatype recvtypes[],
				      MPI_Comm comm))
MPIRMA_DECL(int, Ineighbor_allgather, (const void *sendbuf, int sendcount,
				       MPI_Datatype sendtype, void *recvbuf,
				       int recvcount, MPI_Datatype recvtype,
				       MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount,
					MPI_Datatype sendtype, void *recvbuf,
					const int recvcounts[],
					const int displs[],
					MPI_Datatype recvtype, MPI_Comm comm,
					MPI_Request *request))
MPIRMA_DECL(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount,
				      MPI_Datatype sendtype, void *recvbuf,
				      int recvcount, MPI_Datatype recvtype,
				      MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Ineighbor_alltoallv, (const void *sendbuf,
				       const int sendcounts[],
				       const int sdispls[],
				       MPI_Datatype sendtype, void *recvbuf,
				       const int recvcounts[],
				       const int rdispls[],
				       MPI_Datatype recvtype, MPI_Comm comm,
				       MPI_Request *request))
MPIRMA_DECL(int, Ineighbor_alltoallw, (const void *sendbuf,
				       const int sendcounts[],
				       const MPI_Aint sdispls[],
				       const MPI_Datatype sendtypes[],
				       void *recvbuf, const int recvcounts[],
				       const MPI_Aint rdispls[],
				       const MPI_Datatype recvtypes[],
				       MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Neighbor_allgather_init, (const void *sendbuf, int sendcount,
					   MPI_Datatype sendtype,
					   void *recvbuf, int recvcount,
					   MPI_Datatype recvtype,
					   MPI_Comm comm, MPI_Info info,
					   MPI_Request *request))
MPIRMA_DECL(int, Neighbor_allgatherv_init, (const void *sendbuf, int sendcount,
					    MPI_Datatype sendtype,
					    void *recvbuf,
					    const int recvcounts[],
					    const int displs[],
					    MPI_Datatype recvtype,
					    MPI_Comm comm, MPI_Info info,
					    MPI_Request *request))
MPIRMA_DECL(int, Neighbor_alltoall_init, (const void *sendbuf, int sendcount,
					  MPI_Datatype sendtype, void *recvbuf,
					  int recvcount, MPI_Datatype recvtype,
					  MPI_Comm comm, MPI_Info info,
					  MPI_Request *request))
MPIRMA_DECL(int, Neighbor_alltoallv_init, (const void *sendbuf,
					   const int sendcounts[],
					   const int sdispls[],
					   MPI_Datatype sendtype,
					   void *recvbuf,
					   const int recvcounts[],
					   const int rdispls[],
					   MPI_Datatype recvtype,
					   MPI_Comm comm, MPI_Info info,
					   MPI_Request *request))
MPIRMA_DECL(int, Neighbor_alltoallw_init, (const void *sendbuf,
					   const int sendcounts[],
					   const MPI_Aint sdispls[],
					   const MPI_Datatype sendtypes[],
					   void *recvbuf,
					   const int recvcounts[],
					   const MPI_Aint rdispls[],
					   const MPI_Datatype recvtypes[],
					   MPI_Comm comm, MPI_Info info,
					   MPI_Request *request))

/*
 * Large-count forms (MPI 4.0) of messages and collectives
 * (lib/runtime/p2p_count.c, coll_count.c): a count above INT_MAX moves as
 * one element of a contiguous type; the count and displacement arrays of
 * the v and w forms, and a user op's count, must fit an int
 * (MPI_ERR_COUNT otherwise).
 */
MPIRMA_DECL(int, Send_c, (const void *buf, MPI_Count count,
			  MPI_Datatype datatype, int dest, int tag,
			  MPI_Comm comm))
MPIRMA_DECL(int, Bsend_c, (const void *buf, MPI_Count count,
			   MPI_Datatype datatype, int dest, int tag,
			   MPI_Comm comm))
MPIRMA_DECL(int, Ssend_c, (const void *buf, MPI_Count count,
			   MPI_Datatype datatype, int dest, int tag,
			   MPI_Comm comm))
MPIRMA_DECL(int, Rsend_c, (const void *buf, MPI_Count count,
			   MPI_Datatype datatype, int dest, int tag,
			   MPI_Comm comm))
MPIRMA_DECL(int, Isend_c, (const void *buf, MPI_Count count,
			   MPI_Datatype datatype, int dest, int tag,
			   MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Ibsend_c, (const void *buf, MPI_Count count,
			    MPI_Datatype datatype, int dest, int tag,
			    MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Issend_c, (const void *buf, MPI_Count count,
			    MPI_Datatype datatype, int dest, int tag,
			    MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Irsend_c, (const void *buf, MPI_Count count,
			    MPI_Datatype datatype, int dest, int tag,
			    MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Send_init_c, (const void *buf, MPI_Count count,
			       MPI_Datatype datatype, int dest, int tag,
			       MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Bsend_init_c, (const void *buf, MPI_Count count,
				MPI_Datatype datatype, int dest, int tag,
				MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Ssend_init_c, (const void *buf, MPI_Count count,
				MPI_Datatype datatype, int dest, int tag,
				MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Rsend_init_c, (const void *buf, MPI_Count count,
				MPI_Datatype datatype, int dest, int tag,
				MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Recv_c, (void *buf, MPI_Count count, MPI_Datatype datatype,
			  int source, int tag, MPI_Comm comm,
			  MPI_Status *status))
MPIRMA_DECL(int, Irecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype,
			   int source, int tag, MPI_Comm comm,
			   MPI_Request *request))
MPIRMA_DECL(int, Recv_init_c, (void *buf, MPI_Count count,
			       MPI_Datatype datatype, int source, int tag,
			       MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Sendrecv_c, (const void *sendbuf, MPI_Count sendcount,
			      MPI_Datatype sendtype, int dest, int sendtag,
			      void *recvbuf, MPI_Count recvcount,
			      MPI_Datatype recvtype, int source, int recvtag,
			      MPI_Comm comm, MPI_Status *status))
MPIRMA_DECL(int, Isendrecv_c, (const void *sendbuf, MPI_Count sendcount,
			       MPI_Datatype sendtype, int dest, int sendtag,
			       void *recvbuf, MPI_Count recvcount,
			       MPI_Datatype recvtype, int source, int recvtag,
			       MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Sendrecv_replace_c, (void *buf, MPI_Count count,
				      MPI_Datatype datatype, int dest,
				      int sendtag, int source, int recvtag,
				      MPI_Comm comm, MPI_Status *status))
MPIRMA_DECL(int, Isendrecv_replace_c, (void *buf, MPI_Count count,
				       MPI_Datatype datatype, int dest,
				       int sendtag, int source, int recvtag,
				       MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Mrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype,
			   MPI_Message *message, MPI_Status *status))
MPIRMA_DECL(int, Imrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype,
			    MPI_Message *message, MPI_Request *request))
MPIRMA_DECL(int, Buffer_attach_c, (void *buffer, MPI_Count size))
MPIRMA_DECL(int, Buffer_detach_c, (void *buffer_addr, MPI_Count *size))
MPIRMA_DECL(int, Op_create_c, (MPI_User_function_c *user_fn, int commute,
			       MPI_Op *op))
MPIRMA_DECL(int, Reduce_local_c, (const void *inbuf, void *inoutbuf,
				  MPI_Count count, MPI_Datatype datatype,
				  MPI_Op op))
MPIRMA_DECL(int, Bcast_c, (void *buffer, MPI_Count count,
			   MPI_Datatype datatype, int root, MPI_Comm comm))
MPIRMA_DECL(int, Ibcast_c, (void *buffer, MPI_Count count,
			    MPI_Datatype datatype, int root, MPI_Comm comm,
			    MPI_Request *request))
MPIRMA_DECL(int, Bcast_init_c, (void *buffer, MPI_Count count,
				MPI_Datatype datatype, int root, MPI_Comm comm,
				MPI_Info info, MPI_Request *request))
MPIRMA_DECL(int, Gather_c, (const void *sendbuf, MPI_Count sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    MPI_Count recvcount, MPI_Datatype recvtype,
			    int root, MPI_Comm comm))
MPIRMA_DECL(int, Igather_c, (const void *sendbuf, MPI_Count sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     MPI_Count recvcount, MPI_Datatype recvtype,
			     int root, MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Gather_init_c, (const void *sendbuf, MPI_Count sendcount,
				 MPI_Datatype sendtype, void *recvbuf,
				 MPI_Count recvcount, MPI_Datatype recvtype,
				 int root, MPI_Comm comm, MPI_Info info,
				 MPI_Request *request))
MPIRMA_DECL(int, Scatter_c, (const void *sendbuf, MPI_Count sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     MPI_Count recvcount, MPI_Datatype recvtype,
			     int root, MPI_Comm comm))
MPIRMA_DECL(int, Iscatter_c, (const void *sendbuf, MPI_Count sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      MPI_Count recvcount, MPI_Datatype recvtype,
			      int root, MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Scatter_init_c, (const void *sendbuf, MPI_Count sendcount,
				  MPI_Datatype sendtype, void *recvbuf,
				  MPI_Count recvcount, MPI_Datatype recvtype,
				  int root, MPI_Comm comm, MPI_Info info,
				  MPI_Request *request))
MPIRMA_DECL(int, Allgather_c, (const void *sendbuf, MPI_Count sendcount,
			       MPI_Datatype sendtype, void *recvbuf,
			       MPI_Count recvcount, MPI_Datatype recvtype,
			       MPI_Comm comm))
MPIRMA_DECL(int, Iallgather_c, (const void *sendbuf, MPI_Count sendcount,
				MPI_Datatype sendtype, void *recvbuf,
				MPI_Count recvcount, MPI_Datatype recvtype,
				MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Allgather_init_c, (const void *sendbuf, MPI_Count sendcount,
				    MPI_Datatype sendtype, void *recvbuf,
				    MPI_Count recvcount, MPI_Datatype recvtype,
				    MPI_Comm comm, MPI_Info info,
				    MPI_Request *request))
MPIRMA_DECL(int, Alltoall_c, (const void *sendbuf, MPI_Count sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      MPI_Count recvcount, MPI_Datatype recvtype,
			      MPI_Comm comm))
MPIRMA_DECL(int, Ialltoall_c, (const void *sendbuf, MPI_Count sendcount,
			       MPI_Datatype sendtype, void *recvbuf,
			       MPI_Count recvcount, MPI_Datatype recvtype,
			       MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Alltoall_init_c, (const void *sendbuf, MPI_Count sendcount,
				   MPI_Datatype sendtype, void *recvbuf,
				   MPI_Count recvcount, MPI_Datatype recvtype,
				   MPI_Comm comm, MPI_Info info,
				   MPI_Request *request))
MPIRMA_DECL(int, Neighbor_allgather_c, (const void *sendbuf,
					MPI_Count sendcount,
					MPI_Datatype sendtype, void *recvbuf,
					MPI_Count recvcount,
					MPI_Datatype recvtype, MPI_Comm comm))
MPIRMA_DECL(int, Ineighbor_allgather_c, (const void *sendbuf,
					 MPI_Count sendcount,
					 MPI_Datatype sendtype, void *recvbuf,
					 MPI_Count recvcount,
					 MPI_Datatype recvtype, MPI_Comm comm,
					 MPI_Request *request))
MPIRMA_DECL(int, Neighbor_allgather_init_c, (const void *sendbuf,
					     MPI_Count sendcount,
					     MPI_Datatype sendtype,
					     void *recvbuf,
					     MPI_Count recvcount,
					     MPI_Datatype recvtype,
					     MPI_Comm comm, MPI_Info info,
					     MPI_Request *request))
MPIRMA_DECL(int, Neighbor_alltoall_c, (const void *sendbuf,
				       MPI_Count sendcount,
				       MPI_Datatype sendtype, void *recvbuf,
				       MPI_Count recvcount,
				       MPI_Datatype recvtype, MPI_Comm comm))
MPIRMA_DECL(int, Ineighbor_alltoall_c, (const void *sendbuf,
					MPI_Count sendcount,
					MPI_Datatype sendtype, void *recvbuf,
					MPI_Count recvcount,
					MPI_Datatype recvtype, MPI_Comm comm,
					MPI_Request *request))
MPIRMA_DECL(int, Neighbor_alltoall_init_c, (const void *sendbuf,
					    MPI_Count sendcount,
					    MPI_Datatype sendtype,
					    void *recvbuf, MPI_Count recvcount,
					    MPI_Datatype recvtype,
					    MPI_Comm comm, MPI_Info info,
					    MPI_Request *request))
MPIRMA_DECL(int, Reduce_c, (const void *sendbuf, void *recvbuf,
			    MPI_Count count, MPI_Datatype datatype, MPI_Op op,
			    int root, MPI_Comm comm))
MPIRMA_DECL(int, Ireduce_c, (const void *sendbuf, void *recvbuf,
			     MPI_Count count, MPI_Datatype datatype, MPI_Op op,
			     int root, MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Reduce_init_c, (const void *sendbuf, void *recvbuf,
				 MPI_Count count, MPI_Datatype datatype,
				 MPI_Op op, int root, MPI_Comm comm,
				 MPI_Info info, MPI_Request *request))
MPIRMA_DECL(int, Allreduce_c, (const void *sendbuf, void *recvbuf,
			       MPI_Count count, MPI_Datatype datatype,
			       MPI_Op op, MPI_Comm comm))
MPIRMA_DECL(int, Iallreduce_c, (const void *sendbuf, void *recvbuf,
				MPI_Count count, MPI_Datatype datatype,
				MPI_Op op, MPI_Comm comm,
				MPI_Request *request))
MPIRMA_DECL(int, Allreduce_init_c, (const void *sendbuf, void *recvbuf,
				    MPI_Count count, MPI_Datatype datatype,
				    MPI_Op op, MPI_Comm comm, MPI_Info info,
				    MPI_Request *request))
MPIRMA_DECL(int, Scan_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
			  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
MPIRMA_DECL(int, Iscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
			   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			   MPI_Request *request))
MPIRMA_DECL(int, Scan_init_c, (const void *sendbuf, void *recvbuf,
			       MPI_Count count, MPI_Datatype datatype,
			       MPI_Op op, MPI_Comm comm, MPI_Info info,
			       MPI_Request *request))
MPIRMA_DECL(int, Exscan_c, (const void *sendbuf, void *recvbuf,
			    MPI_Count count, MPI_Datatype datatype, MPI_Op op,
			    MPI_Comm comm))
MPIRMA_DECL(int, Iexscan_c, (const void *sendbuf, void *recvbuf,
			     MPI_Count count, MPI_Datatype datatype, MPI_Op op,
			     MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Exscan_init_c, (const void *sendbuf, void *recvbuf,
				 MPI_Count count, MPI_Datatype datatype,
				 MPI_Op op, MPI_Comm comm, MPI_Info info,
				 MPI_Request *request))
MPIRMA_DECL(int, Reduce_scatter_block_c, (const void *sendbuf, void *recvbuf,
					  MPI_Count recvcount,
					  MPI_Datatype datatype, MPI_Op op,
					  MPI_Comm comm))
MPIRMA_DECL(int, Ireduce_scatter_block_c, (const void *sendbuf, void *recvbuf,
					   MPI_Count recvcount,
					   MPI_Datatype datatype, MPI_Op op,
					   MPI_Comm comm,
					   MPI_Request *request))
MPIRMA_DECL(int, Reduce_scatter_block_init_c, (const void *sendbuf,
					       void *recvbuf,
					       MPI_Count recvcount,
					       MPI_Datatype datatype,
					       MPI_Op op, MPI_Comm comm,
					       MPI_Info info,
					       MPI_Request *request))
MPIRMA_DECL(int, Reduce_scatter_c, (const void *sendbuf, void *recvbuf,
				    const MPI_Count recvcounts[],
				    MPI_Datatype datatype, MPI_Op op,
				    MPI_Comm comm))
MPIRMA_DECL(int, Ireduce_scatter_c, (const void *sendbuf, void *recvbuf,
				     const MPI_Count recvcounts[],
				     MPI_Datatype datatype, MPI_Op op,
				     MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Reduce_scatter_init_c, (const void *sendbuf, void *recvbuf,
					 const MPI_Count recvcounts[],
					 MPI_Datatype datatype, MPI_Op op,
					 MPI_Comm comm, MPI_Info info,
					 MPI_Request *request))
MPIRMA_DECL(int, Gatherv_c, (const void *sendbuf, MPI_Count sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     const MPI_Count recvcounts[],
			     const MPI_Aint displs[], MPI_Datatype recvtype,
			     int root, MPI_Comm comm))
MPIRMA_DECL(int, Igatherv_c, (const void *sendbuf, MPI_Count sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      const MPI_Count recvcounts[],
			      const MPI_Aint displs[], MPI_Datatype recvtype,
			      int root, MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Gatherv_init_c, (const void *sendbuf, MPI_Count sendcount,
				  MPI_Datatype sendtype, void *recvbuf,
				  const MPI_Count recvcounts[],
				  const MPI_Aint displs[],
				  MPI_Datatype recvtype, int root,
				  MPI_Comm comm, MPI_Info info,
				  MPI_Request *request))
MPIRMA_DECL(int, Scatterv_c, (const void *sendbuf,
			      const MPI_Count sendcounts[],
			      const MPI_Aint displs[], MPI_Datatype sendtype,
			      void *recvbuf, MPI_Count recvcount,
			      MPI_Datatype recvtype, int root, MPI_Comm comm))
MPIRMA_DECL(int, Iscatterv_c, (const void *sendbuf,
			       const MPI_Count sendcounts[],
			       const MPI_Aint displs[], MPI_Datatype sendtype,
			       void *recvbuf, MPI_Count recvcount,
			       MPI_Datatype recvtype, int root, MPI_Comm comm,
			       MPI_Request *request))
MPIRMA_DECL(int, Scatterv_init_c, (const void *sendbuf,
				   const MPI_Count sendcounts[],
				   const MPI_Aint displs[],
				   MPI_Datatype sendtype, void *recvbuf,
				   MPI_Count recvcount, MPI_Datatype recvtype,
				   int root, MPI_Comm comm, MPI_Info info,
				   MPI_Request *request))
MPIRMA_DECL(int, Allgatherv_c, (const void *sendbuf, MPI_Count sendcount,
				MPI_Datatype sendtype, void *recvbuf,
				const MPI_Count recvcounts[],
				const MPI_Aint displs[], MPI_Datatype recvtype,
				MPI_Comm comm))
MPIRMA_DECL(int, Iallgatherv_c, (const void *sendbuf, MPI_Count sendcount,
				 MPI_Datatype sendtype, void *recvbuf,
				 const MPI_Count recvcounts[],
				 const MPI_Aint displs[],
				 MPI_Datatype recvtype, MPI_Comm comm,
				 MPI_Request *request))
MPIRMA_DECL(int, Allgatherv_init_c, (const void *sendbuf, MPI_Count sendcount,
				     MPI_Datatype sendtype, void *recvbuf,
				     const MPI_Count recvcounts[],
				     const MPI_Aint displs[],
				     MPI_Datatype recvtype, MPI_Comm comm,
				     MPI_Info info, MPI_Request *request))
MPIRMA_DECL(int, Neighbor_allgatherv_c, (const void *sendbuf,
					 MPI_Count sendcount,
					 MPI_Datatype sendtype, void *recvbuf,
					 const MPI_Count recvcounts[],
					 const MPI_Aint displs[],
					 MPI_Datatype recvtype, MPI_Comm comm))
MPIRMA_DECL(int, Ineighbor_allgatherv_c, (const void *sendbuf,
					  MPI_Count sendcount,
					  MPI_Datatype sendtype, void *recvbuf,
					  const MPI_Count recvcounts[],
					  const MPI_Aint displs[],
					  MPI_Datatype recvtype, MPI_Comm comm,
					  MPI_Request *request))
MPIRMA_DECL(int, Neighbor_allgatherv_init_c, (const void *sendbuf,
					      MPI_Count sendcount,
					      MPI_Datatype sendtype,
					      void *recvbuf,
					      const MPI_Count recvcounts[],
					      const MPI_Aint displs[],
					      MPI_Datatype recvtype,
					      MPI_Comm comm, MPI_Info info,
					      MPI_Request *request))
MPIRMA_DECL(int, Alltoallv_c, (const void *sendbuf,
			       const MPI_Count sendcounts[],
			       const MPI_Aint sdispls[], MPI_Datatype sendtype,
			       void *recvbuf, const MPI_Count recvcounts[],
			       const MPI_Aint rdispls[], MPI_Datatype recvtype,
			       MPI_Comm comm))
MPIRMA_DECL(int, Ialltoallv_c, (const void *sendbuf,
				const MPI_Count sendcounts[],
				const MPI_Aint sdispls[],
				MPI_Datatype sendtype, void *recvbuf,
				const MPI_Count recvcounts[],
				const MPI_Aint rdispls[],
				MPI_Datatype recvtype, MPI_Comm comm,
				MPI_Request *request))
MPIRMA_DECL(int, Alltoallv_init_c, (const void *sendbuf,
				    const MPI_Count sendcounts[],
				    const MPI_Aint sdispls[],
				    MPI_Datatype sendtype, void *recvbuf,
				    const MPI_Count recvcounts[],
				    const MPI_Aint rdispls[],
				    MPI_Datatype recvtype, MPI_Comm comm,
				    MPI_Info info, MPI_Request *request))
MPIRMA_DECL(int, Neighbor_alltoallv_c, (const void *sendbuf,
					const MPI_Count sendcounts[],
					const MPI_Aint sdispls[],
					MPI_Datatype sendtype, void *recvbuf,
					const MPI_Count recvcounts[],
					const MPI_Aint rdispls[],
					MPI_Datatype recvtype, MPI_Comm comm))
MPIRMA_DECL(int, Ineighbor_alltoallv_c, (const void *sendbuf,
					 const MPI_Count sendcounts[],
					 const MPI_Aint sdispls[],
					 MPI_Datatype sendtype, void *recvbuf,
					 const MPI_Count recvcounts[],
					 const MPI_Aint rdispls[],
					 MPI_Datatype recvtype, MPI_Comm comm,
					 MPI_Request *request))
MPIRMA_DECL(int, Neighbor_alltoallv_init_c, (const void *sendbuf,
					     const MPI_Count sendcounts[],
					     const MPI_Aint sdispls[],
					     MPI_Datatype sendtype,
					     void *recvbuf,
					     const MPI_Count recvcounts[],
					     const MPI_Aint rdispls[],
					     MPI_Datatype recvtype,
					     MPI_Comm comm, MPI_Info info,
					     MPI_Request *request))
MPIRMA_DECL(int, Alltoallw_c, (const void *sendbuf,
			       const MPI_Count sendcounts[],
			       const MPI_Aint sdispls[],
			       const MPI_Datatype sendtypes[], void *recvbuf,
			       const MPI_Count recvcounts[],
			       const MPI_Aint rdispls[],
			       const MPI_Datatype recvtypes[], MPI_Comm comm))
MPIRMA_DECL(int, Ialltoallw_c, (const void *sendbuf,
				const MPI_Count sendcounts[],
				const MPI_Aint sdispls[],
				const MPI_Datatype sendtypes[], void *recvbuf,
				const MPI_Count recvcounts[],
				const MPI_Aint rdispls[],
				const MPI_Datatype recvtypes[], MPI_Comm comm,
				MPI_Request *request))
MPIRMA_DECL(int, Alltoallw_init_c, (const void *sendbuf,
				    const MPI_Count sendcounts[],
				    const MPI_Aint sdispls[],
				    const MPI_Datatype sendtypes[],
				    void *recvbuf,
				    const MPI_Count recvcounts[],
				    const MPI_Aint rdispls[],
				    const MPI_Datatype recvtypes[],
				    MPI_Comm comm, MPI_Info info,
				    MPI_Request *request))
MPIRMA_DECL(int, Neighbor_alltoallw_c, (const void *sendbuf,
					const MPI_Count sendcounts[],
					const MPI_Aint sdispls[],
					const MPI_Datatype sendtypes[],
					void *recvbuf,
					const MPI_Count recvcounts[],
					const MPI_Aint rdispls[],
					const MPI_Datatype recvtypes[],
					MPI_Comm comm))
MPIRMA_DECL(int, Ineighbor_alltoallw_c, (const void *sendbuf,
					 const MPI_Count sendcounts[],
					 const MPI_Aint sdispls[],
					 const MPI_Datatype sendtypes[],
					 void *recvbuf,
					 const MPI_Count recvcounts[],
					 const MPI_Aint rdispls[],
					 const MPI_Datatype recvtypes[],
					 MPI_Comm comm, MPI_Request *request))
MPIRMA_DECL(int, Neighbor_alltoallw_init_c, (const void *sendbuf,
					     const MPI_Count sendcounts[],
					     const MPI_Aint sdispls[],
					     const MPI_Datatype sendtypes[],
					     void *recvbuf,
					     const MPI_Count recvcounts[],
					     const MPI_Aint rdispls[],
					     const MPI_Datatype recvtypes[],
					     MPI_Comm comm, MPI_Info info,
					     MPI_Request *request))

/* Windows (lib/rma/win.c) */
MPIRMA_DECL(int, Win_create, (void *base, MPI_Aint size, int disp_unit,
			      MPI_Info info, MPI_Comm comm, MPI_Win *win))
MPIRMA_DECL(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info,
				MPI_Comm comm, void *baseptr, MPI_Win *win))
MPIRMA_DECL(int, Win_allocate_shared, (MPI_Aint size, int disp_unit,
				       MPI_Info info, MPI_Comm comm,
				       void *baseptr, MPI_Win *win))
MPIRMA_DECL(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size,
				    int *disp_unit, void *baseptr))
MPIRMA_DECL(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm,
				      MPI_Win *win))
MPIRMA_DECL(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
MPIRMA_DECL(int, Win_detach, (MPI_Win win, const void *base))
MPIRMA_DECL(int, Win_free, (MPI_Win *win))
MPIRMA_DECL(int, Win_get_group, (MPI_Win win, MPI_Group *group))
MPIRMA_DECL(int, Win_set_info, (MPI_Win win, MPI_Info info))
MPIRMA_DECL(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))

/* RMA operations (lib/rma/rma_entry.c) */
MPIRMA_DECL(int, Put, (const void *origin_addr, int origin_count,
		       MPI_Datatype origin_datatype, int target_rank,
		       MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Win win))
MPIRMA_DECL(int, Get, (void *origin_addr, int origin_count,
		       MPI_Datatype origin_datatype, int target_rank,
		       MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Win win))
MPIRMA_DECL(int, Accumulate, (const void *origin_addr, int origin_count,
			      MPI_Datatype origin_datatype, int target_rank,
			      MPI_Aint target_disp, int target_count,
			      MPI_Datatype target_datatype, MPI_Op op,
			      MPI_Win win))
MPIRMA_DECL(int, Get_accumulate, (const void *origin_addr, int origin_count,
				  MPI_Datatype origin_datatype,
				  void *result_addr, int result_count,
				  MPI_Datatype result_datatype,
				  int target_rank, MPI_Aint target_disp,
				  int target_count,
				  MPI_Datatype target_datatype, MPI_Op op,
				  MPI_Win win))
MPIRMA_DECL(int, Fetch_and_op, (const void *origin_addr, void *result_addr,
				MPI_Datatype datatype, int target_rank,
				MPI_Aint target_disp, MPI_Op op, MPI_Win win))
MPIRMA_DECL(int, Compare_and_swap, (const void *origin_addr,
				    const void *compare_addr,
				    void *result_addr, MPI_Datatype datatype,
				    int target_rank, MPI_Aint target_disp,
				    MPI_Win win))
MPIRMA_DECL(int, Rput, (const void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, int target_rank,
			MPI_Aint target_disp, int target_count,
			MPI_Datatype target_datatype, MPI_Win win,
			MPI_Request *request))
MPIRMA_DECL(int, Rget, (void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, int target_rank,
			MPI_Aint target_disp, int target_count,
			MPI_Datatype target_datatype, MPI_Win win,
			MPI_Request *request))
MPIRMA_DECL(int, Raccumulate, (const void *origin_addr, int origin_count,
			       MPI_Datatype origin_datatype, int target_rank,
			       MPI_Aint target_disp, int target_count,
			       MPI_Datatype target_datatype, MPI_Op op,
			       MPI_Win win, MPI_Request *request))
MPIRMA_DECL(int, Rget_accumulate, (const void *origin_addr, int origin_count,
				   MPI_Datatype origin_datatype,
				   void *result_addr, int result_count,
				   MPI_Datatype result_datatype,
				   int target_rank, MPI_Aint target_disp,
				   int target_count,
				   MPI_Datatype target_datatype, MPI_Op op,
				   MPI_Win win, MPI_Request *request))

/*
 * MPI 4.0's large-count forms of the window and RMA calls: counts are
 * MPI_Count and displacement units MPI_Aint; otherwise each is its plain
 * call (window creation in lib/rma/win.c, operations in lib/rma/rma.c).
 * mpirma takes displacement units up to INT_MAX (MPI_ERR_DISP beyond), so
 * that MPI_WIN_DISP_UNIT, an int attribute, can hold every one.
 */
#define MPIRMA_HAVE_LARGE_COUNT_RMA 1
/* ... and of messages and collectives */
#define MPIRMA_HAVE_LARGE_COUNT 1
MPIRMA_DECL(int, Win_create_c, (void *base, MPI_Aint size, MPI_Aint disp_unit,
				MPI_Info info, MPI_Comm comm, MPI_Win *win))
MPIRMA_DECL(int, Win_allocate_c, (MPI_Aint size, MPI_Aint disp_unit,
				  MPI_Info info, MPI_Comm comm, void *baseptr,
				  MPI_Win *win))
MPIRMA_DECL(int, Win_allocate_shared_c, (MPI_Aint size, MPI_Aint disp_unit,
					 MPI_Info info, MPI_Comm comm,
					 void *baseptr, MPI_Win *win))
MPIRMA_DECL(int, Win_shared_query_c, (MPI_Win win, int rank, MPI_Aint *size,
				      MPI_Aint *disp_unit, void *baseptr))
MPIRMA_DECL(int, Put_c, (const void *origin_addr, MPI_Count origin_count,
			 MPI_Datatype origin_datatype, int target_rank,
			 MPI_Aint target_disp, MPI_Count target_count,
			 MPI_Datatype target_datatype, MPI_Win win))
MPIRMA_DECL(int, Get_c, (void *origin_addr, MPI_Count origin_count,
			 MPI_Datatype origin_datatype, int target_rank,
			 MPI_Aint target_disp, MPI_Count target_count,
			 MPI_Datatype target_datatype, MPI_Win win))
MPIRMA_DECL(int, Accumulate_c, (const void *origin_addr, MPI_Count origin_count,
				MPI_Datatype origin_datatype, int target_rank,
				MPI_Aint target_disp, MPI_Count target_count,
				MPI_Datatype target_datatype, MPI_Op op,
				MPI_Win win))
MPIRMA_DECL(int, Get_accumulate_c, (const void *origin_addr,
				    MPI_Count origin_count,
				    MPI_Datatype origin_datatype,
				    void *result_addr, MPI_Count result_count,
				    MPI_Datatype result_datatype,
				    int target_rank, MPI_Aint target_disp,
				    MPI_Count target_count,
				    MPI_Datatype target_datatype, MPI_Op op,
				    MPI_Win win))
MPIRMA_DECL(int, Rput_c, (const void *origin_addr, MPI_Count origin_count,
			  MPI_Datatype origin_datatype, int target_rank,
			  MPI_Aint target_disp, MPI_Count target_count,
			  MPI_Datatype target_datatype, MPI_Win win,
			  MPI_Request *request))
MPIRMA_DECL(int, Rget_c, (void *origin_addr, MPI_Count origin_count,
			  MPI_Datatype origin_datatype, int target_rank,
			  MPI_Aint target_disp, MPI_Count target_count,
			  MPI_Datatype target_datatype, MPI_Win win,
			  MPI_Request *request))
MPIRMA_DECL(int, Raccumulate_c, (const void *origin_addr,
				 MPI_Count origin_count,
				 MPI_Datatype origin_datatype, int target_rank,
				 MPI_Aint target_disp, MPI_Count target_count,
				 MPI_Datatype target_datatype, MPI_Op op,
				 MPI_Win win, MPI_Request *request))
MPIRMA_DECL(int, Rget_accumulate_c, (const void *origin_addr,
				     MPI_Count origin_count,
				     MPI_Datatype origin_datatype,
				     void *result_addr, MPI_Count result_count,
				     MPI_Datatype result_datatype,
				     int target_rank, MPI_Aint target_disp,
				     MPI_Count target_count,
				     MPI_Datatype target_datatype, MPI_Op op,
				     MPI_Win win, MPI_Request *request))

/* RMA synchronization (lib/rma/win_sync.c) */
MPIRMA_DECL(int, Win_fence, (int assert, MPI_Win win))
MPIRMA_DECL(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
MPIRMA_DECL(int, Win_unlock, (int rank, MPI_Win win))
MPIRMA_DECL(int, Win_lock_all, (int assert, MPI_Win win))
MPIRMA_DECL(int, Win_unlock_all, (MPI_Win win))
MPIRMA_DECL(int, Win_flush, (int rank, MPI_Win win))
MPIRMA_DECL(int, Win_flush_all, (MPI_Win win))
MPIRMA_DECL(int, Win_flush_local, (int rank, MPI_Win win))
MPIRMA_DECL(int, Win_flush_local_all, (MPI_Win win))
MPIRMA_DECL(int, Win_sync, (MPI_Win win))
MPIRMA_DECL(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
MPIRMA_DECL(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
MPIRMA_DECL(int, Win_complete, (MPI_Win win))
MPIRMA_DECL(int, Win_wait, (MPI_Win win))
MPIRMA_DECL(int, Win_test, (MPI_Win win, int *flag))

/* ------------------------------------------------------------ tool information interface */
/*
 * MPI 4.0 chapter 15 (lib/base/tool.c, docs/lib.md "Tool interface").
 * Its handles are ints as every other handle here: 0 is null.  Its calls
 * return MPI_T_ERR_* classes and never call an error handler; they may be
 * called before MPI_Init and after MPI_Finalize, between
 * MPI_T_init_thread and MPI_T_finalize.
 */
typedef int MPI_T_enum;
typedef int MPI_T_cvar_handle;
typedef int MPI_T_pvar_handle;
typedef int MPI_T_pvar_session;
typedef int MPI_T_event_registration;
typedef int MPI_T_event_instance;

#define MPI_T_ENUM_NULL			0
#define MPI_T_CVAR_HANDLE_NULL		0
#define MPI_T_PVAR_HANDLE_NULL		0
#define MPI_T_PVAR_SESSION_NULL		0
#define MPI_T_EVENT_REGISTRATION_NULL	0
#define MPI_T_EVENT_INSTANCE_NULL	0
/* Every handle of a session (start, stop, reset). */
#define MPI_T_PVAR_ALL_HANDLES		(-1)

/* Verbosity, in increasing order of detail. */
#define MPI_T_VERBOSITY_USER_BASIC	1
#define MPI_T_VERBOSITY_USER_DETAIL	2
#define MPI_T_VERBOSITY_USER_ALL	3
#define MPI_T_VERBOSITY_TUNER_BASIC	4
#define MPI_T_VERBOSITY_TUNER_DETAIL	5
#define MPI_T_VERBOSITY_TUNER_ALL	6
#define MPI_T_VERBOSITY_MPIDEV_BASIC	7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL	8
#define MPI_T_VERBOSITY_MPIDEV_ALL	9

/* The kind of object a variable is bound to. */
#define MPI_T_BIND_NO_OBJECT		20
#define MPI_T_BIND_MPI_COMM		21
#define MPI_T_BIND_MPI_DATATYPE		22
#define MPI_T_BIND_MPI_ERRHANDLER	23
#define MPI_T_BIND_MPI_FILE		24
#define MPI_T_BIND_MPI_GROUP		25
#define MPI_T_BIND_MPI_OP		26
#define MPI_T_BIND_MPI_REQUEST		27
#define MPI_T_BIND_MPI_WIN		28
#define MPI_T_BIND_MPI_MESSAGE		29
#define MPI_T_BIND_MPI_INFO		30
#define MPI_T_BIND_MPI_SESSION		31

/* Who may change a control variable, and how far a change reaches. */
#define MPI_T_SCOPE_CONSTANT		40
#define MPI_T_SCOPE_READONLY		41
#define MPI_T_SCOPE_LOCAL		42
#define MPI_T_SCOPE_GROUP		43
#define MPI_T_SCOPE_GROUP_EQ		44
#define MPI_T_SCOPE_ALL			45
#define MPI_T_SCOPE_ALL_EQ		46

/* Classes of performance variables. */
#define MPI_T_PVAR_CLASS_STATE		60
#define MPI_T_PVAR_CLASS_LEVEL		61
#define MPI_T_PVAR_CLASS_SIZE		62
#define MPI_T_PVAR_CLASS_PERCENTAGE	63
#define MPI_T_PVAR_CLASS_HIGHWATERMARK	64
#define MPI_T_PVAR_CLASS_LOWWATERMARK	65
#define MPI_T_PVAR_CLASS_COUNTER	66
#define MPI_T_PVAR_CLASS_AGGREGATE	67
#define MPI_T_PVAR_CLASS_TIMER		68
#define MPI_T_PVAR_CLASS_GENERIC	69

typedef enum MPI_T_cb_safety {
	MPI_T_CB_REQUIRE_NONE = 0,
	MPI_T_CB_REQUIRE_MPI_RESTRICTED,
	MPI_T_CB_REQUIRE_THREAD_SAFE,
	MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;

typedef enum MPI_T_source_order {
	MPI_T_SOURCE_ORDERED = 0,
	MPI_T_SOURCE_UNORDERED
} MPI_T_source_order;

typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
				     MPI_T_event_registration event_registration,
				     MPI_T_cb_safety cb_safety,
				     void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
					  MPI_T_cb_safety cb_safety,
					  void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
					     MPI_T_event_registration event_registration,
					     int source_index,
					     MPI_T_cb_safety cb_safety,
					     void *user_data);

MPIRMA_DECL(int, T_init_thread, (int required, int *provided))
MPIRMA_DECL(int, T_finalize, (void))
MPIRMA_DECL(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name,
				   int *name_len))
MPIRMA_DECL(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value,
				   char *name, int *name_len))
MPIRMA_DECL(int, T_cvar_get_num, (int *num_cvar))
MPIRMA_DECL(int, T_cvar_get_info, (int cvar_index, char *name, int *name_len,
				   int *verbosity, MPI_Datatype *datatype,
				   MPI_T_enum *enumtype, char *desc,
				   int *desc_len, int *bind, int *scope))
MPIRMA_DECL(int, T_cvar_get_index, (const char *name, int *cvar_index))
MPIRMA_DECL(int, T_cvar_handle_alloc, (int cvar_index, void *obj_handle,
				       MPI_T_cvar_handle *handle, int *count))
MPIRMA_DECL(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle))
MPIRMA_DECL(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf))
MPIRMA_DECL(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf))
MPIRMA_DECL(int, T_pvar_get_num, (int *num_pvar))
MPIRMA_DECL(int, T_pvar_get_info, (int pvar_index, char *name, int *name_len,
				   int *verbosity, int *var_class,
				   MPI_Datatype *datatype, MPI_T_enum *enumtype,
				   char *desc, int *desc_len, int *bind,
				   int *readonly, int *continuous,
				   int *atomic))
MPIRMA_DECL(int, T_pvar_get_index, (const char *name, int var_class,
				    int *pvar_index))
MPIRMA_DECL(int, T_pvar_session_create, (MPI_T_pvar_session *session))
MPIRMA_DECL(int, T_pvar_session_free, (MPI_T_pvar_session *session))
MPIRMA_DECL(int, T_pvar_handle_alloc, (MPI_T_pvar_session session,
				       int pvar_index, void *obj_handle,
				       MPI_T_pvar_handle *handle, int *count))
MPIRMA_DECL(int, T_pvar_handle_free, (MPI_T_pvar_session session,
				      MPI_T_pvar_handle *handle))
MPIRMA_DECL(int, T_pvar_start, (MPI_T_pvar_session session,
				MPI_T_pvar_handle handle))
MPIRMA_DECL(int, T_pvar_stop, (MPI_T_pvar_session session,
			       MPI_T_pvar_handle handle))
MPIRMA_DECL(int, T_pvar_read, (MPI_T_pvar_session session,
			       MPI_T_pvar_handle handle, void *buf))
MPIRMA_DECL(int, T_pvar_write, (MPI_T_pvar_session session,
				MPI_T_pvar_handle handle, const void *buf))
MPIRMA_DECL(int, T_pvar_reset, (MPI_T_pvar_session session,
				MPI_T_pvar_handle handle))
MPIRMA_DECL(int, T_pvar_readreset, (MPI_T_pvar_session session,
				    MPI_T_pvar_handle handle, void *buf))
MPIRMA_DECL(int, T_category_get_num, (int *num_cat))
MPIRMA_DECL(int, T_category_get_info, (int cat_index, char *name,
				       int *name_len, char *desc,
				       int *desc_len, int *num_cvars,
				       int *num_pvars, int *num_categories))
MPIRMA_DECL(int, T_category_get_index, (const char *name, int *cat_index))
MPIRMA_DECL(int, T_category_get_cvars, (int cat_index, int len,
					int indices[]))
MPIRMA_DECL(int, T_category_get_pvars, (int cat_index, int len,
					int indices[]))
MPIRMA_DECL(int, T_category_get_categories, (int cat_index, int len,
					     int indices[]))
MPIRMA_DECL(int, T_category_changed, (int *update_number))
MPIRMA_DECL(int, T_category_get_num_events, (int cat_index, int *num_events))
MPIRMA_DECL(int, T_category_get_events, (int cat_index, int len,
					 int indices[]))
MPIRMA_DECL(int, T_source_get_num, (int *num_sources))
MPIRMA_DECL(int, T_source_get_info, (int source_index, char *name,
				     int *name_len, char *desc, int *desc_len,
				     MPI_T_source_order *ordering,
				     MPI_Count *ticks_per_second,
				     MPI_Count *max_ticks, MPI_Info *info))
MPIRMA_DECL(int, T_source_get_timestamp, (int source_index,
					  MPI_Count *timestamp))
MPIRMA_DECL(int, T_event_get_num, (int *num_events))
MPIRMA_DECL(int, T_event_get_info, (int event_index, char *name,
				    int *name_len, int *verbosity,
				    MPI_Datatype array_of_datatypes[],
				    MPI_Aint array_of_displacements[],
				    int *num_elements, MPI_T_enum *enumtype,
				    MPI_Info *info, char *desc, int *desc_len,
				    int *bind))
MPIRMA_DECL(int, T_event_get_index, (const char *name, int *event_index))
MPIRMA_DECL(int, T_event_handle_alloc, (int event_index, void *obj_handle,
					MPI_Info info,
					MPI_T_event_registration *event_registration))
MPIRMA_DECL(int, T_event_handle_set_info, (MPI_T_event_registration event_registration,
					   MPI_Info info))
MPIRMA_DECL(int, T_event_handle_get_info, (MPI_T_event_registration event_registration,
					   MPI_Info *info_used))
MPIRMA_DECL(int, T_event_register_callback, (MPI_T_event_registration event_registration,
					     MPI_T_cb_safety cb_safety,
					     MPI_Info info, void *user_data,
					     MPI_T_event_cb_function *event_cb_function))
MPIRMA_DECL(int, T_event_callback_set_info, (MPI_T_event_registration event_registration,
					     MPI_T_cb_safety cb_safety,
					     MPI_Info info))
MPIRMA_DECL(int, T_event_callback_get_info, (MPI_T_event_registration event_registration,
					     MPI_T_cb_safety cb_safety,
					     MPI_Info *info_used))
MPIRMA_DECL(int, T_event_handle_free, (MPI_T_event_registration event_registration,
				       void *user_data,
				       MPI_T_event_free_cb_function *free_cb_function))
MPIRMA_DECL(int, T_event_set_dropped_handler, (MPI_T_event_registration event_registration,
					       MPI_T_event_dropped_cb_function *dropped_cb_function))
MPIRMA_DECL(int, T_event_read, (MPI_T_event_instance event_instance,
				int element_index, void *buffer))
MPIRMA_DECL(int, T_event_copy, (MPI_T_event_instance event_instance,
				void *buffer))
MPIRMA_DECL(int, T_event_get_timestamp, (MPI_T_event_instance event_instance,
					 MPI_Count *event_timestamp))
MPIRMA_DECL(int, T_event_get_source, (MPI_T_event_instance event_instance,
				      int *source_index))

/* ------------------------------------------------------------ not provided */
/*
 * MPI-IO and dynamic processes link, and fail with
 * MPI_ERR_UNSUPPORTED_OPERATION: run the program under Open MPI or MPICH
 * with mpirma's layer for them (lib/runtime/absent.c, docs/hybrid.md).
 * MPI_Comm_get_parent succeeds with MPI_COMM_NULL.
 */
#define MPI_MODE_CREATE			1
#define MPI_MODE_RDONLY			2
#define MPI_MODE_WRONLY			4
#define MPI_MODE_RDWR			8
#define MPI_MODE_DELETE_ON_CLOSE	16
#define MPI_MODE_UNIQUE_OPEN		32
#define MPI_MODE_EXCL			64
#define MPI_MODE_APPEND			128
#define MPI_MODE_SEQUENTIAL		256
#define MPI_MAX_PORT_NAME		256
#define MPI_ARGV_NULL			((char **)0)
#define MPI_ARGVS_NULL			((char ***)0)

MPIRMA_DECL(int, File_open, (MPI_Comm comm, const char *filename, int amode,
			     MPI_Info info, MPI_File *fh))
MPIRMA_DECL(int, File_close, (MPI_File *fh))
MPIRMA_DECL(int, File_delete, (const char *filename, MPI_Info info))
MPIRMA_DECL(int, File_set_view, (MPI_File fh, MPI_Offset disp,
				 MPI_Datatype etype, MPI_Datatype filetype,
				 const char *datarep, MPI_Info info))
MPIRMA_DECL(int, File_get_size, (MPI_File fh, MPI_Offset *size))
MPIRMA_DECL(int, File_read, (MPI_File fh, void *buf, int count,
			     MPI_Datatype datatype, MPI_Status *status))
MPIRMA_DECL(int, File_read_at, (MPI_File fh, MPI_Offset offset, void *buf,
				int count, MPI_Datatype datatype,
				MPI_Status *status))
MPIRMA_DECL(int, File_read_all, (MPI_File fh, void *buf, int count,
				 MPI_Datatype datatype, MPI_Status *status))
MPIRMA_DECL(int, File_write, (MPI_File fh, const void *buf, int count,
			      MPI_Datatype datatype, MPI_Status *status))
MPIRMA_DECL(int, File_write_at, (MPI_File fh, MPI_Offset offset,
				 const void *buf, int count,
				 MPI_Datatype datatype, MPI_Status *status))
MPIRMA_DECL(int, File_write_all, (MPI_File fh, const void *buf, int count,
				  MPI_Datatype datatype, MPI_Status *status))
MPIRMA_DECL(int, Comm_spawn, (const char *command, char *argv[], int maxprocs,
			      MPI_Info info, int root, MPI_Comm comm,
			      MPI_Comm *intercomm, int array_of_errcodes[]))
MPIRMA_DECL(int, Comm_spawn_multiple, (int count, char *array_of_commands[],
				       char **array_of_argv[],
				       const int array_of_maxprocs[],
				       const MPI_Info array_of_info[],
				       int root, MPI_Comm comm,
				       MPI_Comm *intercomm,
				       int array_of_errcodes[]))
MPIRMA_DECL(int, Comm_accept, (const char *port_name, MPI_Info info, int root,
			       MPI_Comm comm, MPI_Comm *newcomm))
MPIRMA_DECL(int, Comm_connect, (const char *port_name, MPI_Info info,
				int root, MPI_Comm comm, MPI_Comm *newcomm))
MPIRMA_DECL(int, Comm_join, (int fd, MPI_Comm *intercomm))
MPIRMA_DECL(int, Comm_get_parent, (MPI_Comm *parent))
MPIRMA_DECL(int, Open_port, (MPI_Info info, char *port_name))
MPIRMA_DECL(int, Close_port, (const char *port_name))
MPIRMA_DECL(int, Publish_name, (const char *service_name, MPI_Info info,
				const char *port_name))
MPIRMA_DECL(int, Unpublish_name, (const char *service_name, MPI_Info info,
				  const char *port_name))
MPIRMA_DECL(int, Lookup_name, (const char *service_name, MPI_Info info,
			       char *port_name))

/* ------------------------------------------------------------ datatype decoding */
/*
 * MPI_Type_get_envelope / MPI_Type_get_contents
 * (lib/base/datatype_query.c).  Every combiner of the standard has its
 * constant, so that code that switches over them compiles; the library's
 * constructors produce all but the _INTEGER ones (MPI-1 Fortran forms).
 */
#define MPI_COMBINER_NAMED		1
#define MPI_COMBINER_DUP		2
#define MPI_COMBINER_CONTIGUOUS		3
#define MPI_COMBINER_VECTOR		4
#define MPI_COMBINER_HVECTOR_INTEGER	5
#define MPI_COMBINER_HVECTOR		6
#define MPI_COMBINER_INDEXED		7
#define MPI_COMBINER_HINDEXED_INTEGER	8
#define MPI_COMBINER_HINDEXED		9
#define MPI_COMBINER_INDEXED_BLOCK	10
#define MPI_COMBINER_STRUCT_INTEGER	11
#define MPI_COMBINER_STRUCT		12
#define MPI_COMBINER_SUBARRAY		13
#define MPI_COMBINER_DARRAY		14
#define MPI_COMBINER_F90_REAL		15
#define MPI_COMBINER_F90_COMPLEX	16
#define MPI_COMBINER_F90_INTEGER	17
#define MPI_COMBINER_RESIZED		18
#define MPI_COMBINER_HINDEXED_BLOCK	19

MPIRMA_DECL(int, Type_get_envelope, (MPI_Datatype datatype,
				     int *num_integers, int *num_addresses,
				     int *num_datatypes, int *combiner))
MPIRMA_DECL(int, Type_get_contents, (MPI_Datatype datatype,
				     int max_integers, int max_addresses,
				     int max_datatypes, int array_of_integers[],
				     MPI_Aint array_of_addresses[],
				     MPI_Datatype array_of_datatypes[]))
MPIRMA_DECL(int, Type_get_envelope_c, (MPI_Datatype datatype,
				       MPI_Count *num_integers,
				       MPI_Count *num_addresses,
				       MPI_Count *num_large_counts,
				       MPI_Count *num_datatypes, int *combiner))
MPIRMA_DECL(int, Type_get_contents_c, (MPI_Datatype datatype,
				       MPI_Count max_integers,
				       MPI_Count max_addresses,
				       MPI_Count max_large_counts,
				       MPI_Count max_datatypes,
				       int array_of_integers[],
				       MPI_Aint array_of_addresses[],
				       MPI_Count array_of_large_counts[],
				       MPI_Datatype array_of_datatypes[]))

/* ------------------------------------------------------------ inter-communicators */
/*
 * lib/runtime/intercomm.c.  MPI_Comm_test_inter, MPI_Comm_remote_size and
 * MPI_Comm_remote_group are declared with the communicator calls.
 */
MPIRMA_DECL(int, Intercomm_create, (MPI_Comm local_comm, int local_leader,
				    MPI_Comm peer_comm, int remote_leader,
				    int tag, MPI_Comm *newintercomm))
MPIRMA_DECL(int, Intercomm_merge, (MPI_Comm intercomm, int high,
				   MPI_Comm *newintracomm))

/* ------------------------------------------------------------ sessions */
/*
 * MPI 4.0 sessions (lib/runtime/session.c; the two create_from_group calls
 * in lib/runtime/comm_pset.c).  The process sets are "mpi://WORLD" and
 * "mpi://SELF"; a pset's info has "mpi_size".
 */
#define MPI_MAX_PSET_NAME_LEN	256
#define MPI_MAX_STRINGTAG_LEN	256

MPIRMA_DECL(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler,
				MPI_Session *session))
MPIRMA_DECL(int, Session_finalize, (MPI_Session *session))
MPIRMA_DECL(int, Session_get_num_psets, (MPI_Session session, MPI_Info info,
					 int *npset_names))
MPIRMA_DECL(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info,
					int n, int *pset_len,
					char *pset_name))
MPIRMA_DECL(int, Session_get_pset_info, (MPI_Session session,
					 const char *pset_name,
					 MPI_Info *info))
MPIRMA_DECL(int, Session_get_info, (MPI_Session session,
				    MPI_Info *info_used))
MPIRMA_DECL(int, Session_create_errhandler,
	    (MPI_Session_errhandler_function *session_errhandler_fn,
	     MPI_Errhandler *errhandler))
MPIRMA_DECL(int, Session_set_errhandler, (MPI_Session session,
					  MPI_Errhandler errhandler))
MPIRMA_DECL(int, Session_get_errhandler, (MPI_Session session,
					  MPI_Errhandler *errhandler))
MPIRMA_DECL(int, Session_call_errhandler, (MPI_Session session,
					   int errorcode))
MPIRMA_DECL(int, Group_from_session_pset, (MPI_Session session,
					   const char *pset_name,
					   MPI_Group *newgroup))
MPIRMA_DECL(int, Comm_create_from_group, (MPI_Group group,
					  const char *stringtag,
					  MPI_Info info,
					  MPI_Errhandler errhandler,
					  MPI_Comm *newcomm))
MPIRMA_DECL(int, Intercomm_create_from_groups,
	    (MPI_Group local_group, int local_leader, MPI_Group remote_group,
	     int remote_leader, const char *stringtag, MPI_Info info,
	     MPI_Errhandler errhandler, MPI_Comm *newintercomm))
MPIRMA_DECL(MPI_Fint, Session_c2f, (MPI_Session session))
MPIRMA_DECL(MPI_Session, Session_f2c, (MPI_Fint session))

/* ------------------------------------------------------------ Fortran */

/*
 * Fortran support (fortran/, lib/base/handle.c).  A Fortran status is
 * MPI_F_STATUS_SIZE INTEGERs (the `mpi` module's MPI_STATUS_SIZE); the
 * MPI_F_* indexes are 0-based, Fortran's MPI_SOURCE, MPI_TAG and MPI_ERROR
 * 1-based.  The handle conversions are with the handle functions above.
 */
#define MPI_F_STATUS_SIZE	6
#define MPI_F_SOURCE		0
#define MPI_F_TAG		1
#define MPI_F_ERROR		2

MPIRMA_DECL(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))
MPIRMA_DECL(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))

/*
 * The Fortran MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE as C sees them:
 * the common blocks the `mpi` and `mpi_f08` modules and mpif.h name,
 * defined in libmpirma (lib/base/status.c).
 */
extern MPIRMA_API MPI_Fint mpirma_status_ignore_[];
extern MPIRMA_API MPI_Fint mpirma_statuses_ignore_[];
#define MPI_F_STATUS_IGNORE	((MPI_Fint *)mpirma_status_ignore_)
#define MPI_F_STATUSES_IGNORE	((MPI_Fint *)mpirma_statuses_ignore_)

/*
 * `use mpi_f08`'s TYPE(MPI_Status) from C: the layout of the `mpi`
 * status array, so every conversion is a copy.
 */
typedef struct MPI_F08_status {
	MPI_Fint MPI_SOURCE;
	MPI_Fint MPI_TAG;
	MPI_Fint MPI_ERROR;
	/* private: */
	MPI_Fint mpirma_private[MPI_F_STATUS_SIZE - 3];
} MPI_F08_status;
#define MPI_F08_STATUS_IGNORE	((MPI_F08_status *)mpirma_status_ignore_)
#define MPI_F08_STATUSES_IGNORE	((MPI_F08_status *)mpirma_statuses_ignore_)

MPIRMA_DECL(int, Status_c2f08, (const MPI_Status *c_status,
				MPI_F08_status *f08_status))
MPIRMA_DECL(int, Status_f082c, (const MPI_F08_status *f08_status,
				MPI_Status *c_status))
MPIRMA_DECL(int, Status_f2f08, (const MPI_Fint *f_status,
				MPI_F08_status *f08_status))
MPIRMA_DECL(int, Status_f082f, (const MPI_F08_status *f08_status,
				MPI_Fint *f_status))

#ifdef __cplusplus
}
#endif

#endif /* MPIRMA_MPI_H */
