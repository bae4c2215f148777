// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * errors.c - errors across the two MPIs: the engine's error codes become
 * the host's classes, and every failed call on an engine window goes to
 * the error handler the program set on its (host) window, so
 * MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL and user handlers behave as on
 * the host MPI alone.  The engine's message, which names the cause, is
 * printed before a fatal handler ends the job.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errors.h"
#include "rma_args.h"

struct class_pair {
	int h;
	int i;
};

/* Error classes both MPIs define. */
static const struct class_pair class_pairs[] = {
#ifdef MPI_ERR_BUFFER
	{ MPI_ERR_BUFFER, MPII_ERR_BUFFER },
#endif
#ifdef MPI_ERR_COUNT
	{ MPI_ERR_COUNT, MPII_ERR_COUNT },
#endif
#ifdef MPI_ERR_TYPE
	{ MPI_ERR_TYPE, MPII_ERR_TYPE },
#endif
#ifdef MPI_ERR_TAG
	{ MPI_ERR_TAG, MPII_ERR_TAG },
#endif
#ifdef MPI_ERR_COMM
	{ MPI_ERR_COMM, MPII_ERR_COMM },
#endif
#ifdef MPI_ERR_RANK
	{ MPI_ERR_RANK, MPII_ERR_RANK },
#endif
#ifdef MPI_ERR_REQUEST
	{ MPI_ERR_REQUEST, MPII_ERR_REQUEST },
#endif
#ifdef MPI_ERR_ROOT
	{ MPI_ERR_ROOT, MPII_ERR_ROOT },
#endif
#ifdef MPI_ERR_GROUP
	{ MPI_ERR_GROUP, MPII_ERR_GROUP },
#endif
#ifdef MPI_ERR_OP
	{ MPI_ERR_OP, MPII_ERR_OP },
#endif
#ifdef MPI_ERR_TOPOLOGY
	{ MPI_ERR_TOPOLOGY, MPII_ERR_TOPOLOGY },
#endif
#ifdef MPI_ERR_DIMS
	{ MPI_ERR_DIMS, MPII_ERR_DIMS },
#endif
#ifdef MPI_ERR_ARG
	{ MPI_ERR_ARG, MPII_ERR_ARG },
#endif
#ifdef MPI_ERR_UNKNOWN
	{ MPI_ERR_UNKNOWN, MPII_ERR_UNKNOWN },
#endif
#ifdef MPI_ERR_TRUNCATE
	{ MPI_ERR_TRUNCATE, MPII_ERR_TRUNCATE },
#endif
#ifdef MPI_ERR_OTHER
	{ MPI_ERR_OTHER, MPII_ERR_OTHER },
#endif
#ifdef MPI_ERR_INTERN
	{ MPI_ERR_INTERN, MPII_ERR_INTERN },
#endif
#ifdef MPI_ERR_IN_STATUS
	{ MPI_ERR_IN_STATUS, MPII_ERR_IN_STATUS },
#endif
#ifdef MPI_ERR_PENDING
	{ MPI_ERR_PENDING, MPII_ERR_PENDING },
#endif
#ifdef MPI_ERR_KEYVAL
	{ MPI_ERR_KEYVAL, MPII_ERR_KEYVAL },
#endif
#ifdef MPI_ERR_NO_MEM
	{ MPI_ERR_NO_MEM, MPII_ERR_NO_MEM },
#endif
#ifdef MPI_ERR_BASE
	{ MPI_ERR_BASE, MPII_ERR_BASE },
#endif
#ifdef MPI_ERR_INFO_KEY
	{ MPI_ERR_INFO_KEY, MPII_ERR_INFO_KEY },
#endif
#ifdef MPI_ERR_INFO_VALUE
	{ MPI_ERR_INFO_VALUE, MPII_ERR_INFO_VALUE },
#endif
#ifdef MPI_ERR_INFO_NOKEY
	{ MPI_ERR_INFO_NOKEY, MPII_ERR_INFO_NOKEY },
#endif
#ifdef MPI_ERR_SPAWN
	{ MPI_ERR_SPAWN, MPII_ERR_SPAWN },
#endif
#ifdef MPI_ERR_PORT
	{ MPI_ERR_PORT, MPII_ERR_PORT },
#endif
#ifdef MPI_ERR_SERVICE
	{ MPI_ERR_SERVICE, MPII_ERR_SERVICE },
#endif
#ifdef MPI_ERR_NAME
	{ MPI_ERR_NAME, MPII_ERR_NAME },
#endif
#ifdef MPI_ERR_WIN
	{ MPI_ERR_WIN, MPII_ERR_WIN },
#endif
#ifdef MPI_ERR_SIZE
	{ MPI_ERR_SIZE, MPII_ERR_SIZE },
#endif
#ifdef MPI_ERR_DISP
	{ MPI_ERR_DISP, MPII_ERR_DISP },
#endif
#ifdef MPI_ERR_INFO
	{ MPI_ERR_INFO, MPII_ERR_INFO },
#endif
#ifdef MPI_ERR_LOCKTYPE
	{ MPI_ERR_LOCKTYPE, MPII_ERR_LOCKTYPE },
#endif
#ifdef MPI_ERR_ASSERT
	{ MPI_ERR_ASSERT, MPII_ERR_ASSERT },
#endif
#ifdef MPI_ERR_RMA_CONFLICT
	{ MPI_ERR_RMA_CONFLICT, MPII_ERR_RMA_CONFLICT },
#endif
#ifdef MPI_ERR_RMA_SYNC
	{ MPI_ERR_RMA_SYNC, MPII_ERR_RMA_SYNC },
#endif
#ifdef MPI_ERR_RMA_RANGE
	{ MPI_ERR_RMA_RANGE, MPII_ERR_RMA_RANGE },
#endif
#ifdef MPI_ERR_RMA_ATTACH
	{ MPI_ERR_RMA_ATTACH, MPII_ERR_RMA_ATTACH },
#endif
#ifdef MPI_ERR_RMA_SHARED
	{ MPI_ERR_RMA_SHARED, MPII_ERR_RMA_SHARED },
#endif
#ifdef MPI_ERR_RMA_FLAVOR
	{ MPI_ERR_RMA_FLAVOR, MPII_ERR_RMA_FLAVOR },
#endif
#ifdef MPI_ERR_FILE
	{ MPI_ERR_FILE, MPII_ERR_FILE },
#endif
#ifdef MPI_ERR_NOT_SAME
	{ MPI_ERR_NOT_SAME, MPII_ERR_NOT_SAME },
#endif
#ifdef MPI_ERR_AMODE
	{ MPI_ERR_AMODE, MPII_ERR_AMODE },
#endif
#ifdef MPI_ERR_UNSUPPORTED_DATAREP
	{ MPI_ERR_UNSUPPORTED_DATAREP, MPII_ERR_UNSUPPORTED_DATAREP },
#endif
#ifdef MPI_ERR_UNSUPPORTED_OPERATION
	{ MPI_ERR_UNSUPPORTED_OPERATION, MPII_ERR_UNSUPPORTED_OPERATION },
#endif
#ifdef MPI_ERR_NO_SUCH_FILE
	{ MPI_ERR_NO_SUCH_FILE, MPII_ERR_NO_SUCH_FILE },
#endif
#ifdef MPI_ERR_FILE_EXISTS
	{ MPI_ERR_FILE_EXISTS, MPII_ERR_FILE_EXISTS },
#endif
#ifdef MPI_ERR_BAD_FILE
	{ MPI_ERR_BAD_FILE, MPII_ERR_BAD_FILE },
#endif
#ifdef MPI_ERR_ACCESS
	{ MPI_ERR_ACCESS, MPII_ERR_ACCESS },
#endif
#ifdef MPI_ERR_NO_SPACE
	{ MPI_ERR_NO_SPACE, MPII_ERR_NO_SPACE },
#endif
#ifdef MPI_ERR_QUOTA
	{ MPI_ERR_QUOTA, MPII_ERR_QUOTA },
#endif
#ifdef MPI_ERR_READ_ONLY
	{ MPI_ERR_READ_ONLY, MPII_ERR_READ_ONLY },
#endif
#ifdef MPI_ERR_FILE_IN_USE
	{ MPI_ERR_FILE_IN_USE, MPII_ERR_FILE_IN_USE },
#endif
#ifdef MPI_ERR_DUP_DATAREP
	{ MPI_ERR_DUP_DATAREP, MPII_ERR_DUP_DATAREP },
#endif
#ifdef MPI_ERR_CONVERSION
	{ MPI_ERR_CONVERSION, MPII_ERR_CONVERSION },
#endif
#ifdef MPI_ERR_IO
	{ MPI_ERR_IO, MPII_ERR_IO },
#endif
#ifdef MPI_ERR_PROC_ABORTED
	{ MPI_ERR_PROC_ABORTED, MPII_ERR_PROC_ABORTED },
#endif
};


/* The last failure's message; per thread, as calls may run in several. */
static __thread char last_msg[MPI_MAX_ERROR_STRING];

int hy_inner_failed(int code)
{
	int cls = MPII_ERR_OTHER, len = 0;

	if (code == MPII_SUCCESS)
		return MPI_SUCCESS;
	MPII_Error_class(code, &cls);
	if (mpirma_last_cause()[0])
		snprintf(last_msg, sizeof(last_msg), "%s", mpirma_last_cause());
	else
		MPII_Error_string(code, last_msg, &len);
	for (size_t k = 0; k < sizeof(class_pairs) / sizeof(class_pairs[0]); k++)
		if (class_pairs[k].i == cls)
			return class_pairs[k].h;
	return MPI_ERR_OTHER;
}

int hy_fail(int host_class, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	return host_class;
}

int hy_raise_failed(MPI_Win host, int cls, const char *fn)
{
	MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
	int rank = 0;

	PMPI_Win_get_errhandler(host, &eh);
	if (eh == MPI_ERRORS_ARE_FATAL) {
		PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
		fprintf(stderr, "mpirma: rank %d: %s: %s\n", rank, fn,
			last_msg[0] ? last_msg : "error");
	}
	hy_errhandler_put(&eh);
	last_msg[0] = 0;
	PMPI_Win_call_errhandler(host, cls);
	return cls;
}
