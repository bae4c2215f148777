// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * error.c - error classes and codes, error handlers, and the one errno ->
 * MPI error class table of the library.
 *
 * Error codes are error classes: the library reports only classes, so
 * MPI_Error_class is the identity on them.  MPI_Add_error_class/_code add
 * numbers above MPI_ERR_LASTCODE, each code remembering its class.
 *
 * How an error travels: a helper records its cause with mpirma_err() (one
 * pending message, the library is MPI_THREAD_SERIALIZED), the API function
 * raises the class on its communicator or window, and the handler of that
 * object decides: MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT print
 * "mpirma: rank R: MPI_X: MPI_ERR_Y: cause" and end the job,
 * MPI_ERRORS_RETURN returns the class, a user handler is called and then the
 * class is returned.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* ------------------------------------------------------------ classes */

struct mpirma_class_desc {
	const char *name;
	const char *text;
};

/* Each class by its name in mpi.h, and what it means. */
#define CLASS(c, text) [c] = { #c, text }

static const struct mpirma_class_desc classes[] = {
	CLASS(MPI_SUCCESS, "no error"),
	CLASS(MPI_ERR_BUFFER, "invalid buffer pointer"),
	CLASS(MPI_ERR_COUNT, "invalid count argument"),
	CLASS(MPI_ERR_TYPE, "invalid datatype"),
	CLASS(MPI_ERR_TAG, "invalid tag"),
	CLASS(MPI_ERR_COMM, "invalid communicator"),
	CLASS(MPI_ERR_RANK, "invalid rank"),
	CLASS(MPI_ERR_REQUEST, "invalid request"),
	CLASS(MPI_ERR_ROOT, "invalid root"),
	CLASS(MPI_ERR_GROUP, "invalid group"),
	CLASS(MPI_ERR_OP, "invalid operation"),
	CLASS(MPI_ERR_TOPOLOGY, "invalid topology"),
	CLASS(MPI_ERR_DIMS, "invalid dimension argument"),
	CLASS(MPI_ERR_ARG, "invalid argument"),
	CLASS(MPI_ERR_UNKNOWN, "unknown error"),
	CLASS(MPI_ERR_TRUNCATE, "message truncated on receive"),
	CLASS(MPI_ERR_OTHER, "other error"),
	CLASS(MPI_ERR_INTERN, "internal error"),
	CLASS(MPI_ERR_IN_STATUS, "error code is in status"),
	CLASS(MPI_ERR_PENDING, "pending request"),
	CLASS(MPI_ERR_KEYVAL, "invalid attribute key"),
	CLASS(MPI_ERR_NO_MEM, "out of memory"),
	CLASS(MPI_ERR_BASE, "invalid base address"),
	CLASS(MPI_ERR_INFO_KEY, "info key too long or empty"),
	CLASS(MPI_ERR_INFO_VALUE, "info value too long"),
	CLASS(MPI_ERR_INFO_NOKEY, "info key not defined"),
	CLASS(MPI_ERR_SPAWN, "error spawning processes"),
	CLASS(MPI_ERR_PORT, "invalid port name"),
	CLASS(MPI_ERR_SERVICE, "invalid service name"),
	CLASS(MPI_ERR_NAME, "invalid service name in lookup"),
	CLASS(MPI_ERR_WIN, "invalid window"),
	CLASS(MPI_ERR_SIZE, "invalid size"),
	CLASS(MPI_ERR_DISP, "invalid displacement"),
	CLASS(MPI_ERR_INFO, "invalid info object"),
	CLASS(MPI_ERR_LOCKTYPE, "invalid lock type"),
	CLASS(MPI_ERR_ASSERT, "invalid assertion"),
	CLASS(MPI_ERR_RMA_CONFLICT, "conflicting accesses to a window"),
	CLASS(MPI_ERR_RMA_SYNC, "wrong synchronization of RMA calls"),
	CLASS(MPI_ERR_RMA_RANGE, "target memory is not part of the window"),
	CLASS(MPI_ERR_RMA_ATTACH, "memory cannot be attached"),
	CLASS(MPI_ERR_RMA_SHARED, "memory cannot be shared"),
	CLASS(MPI_ERR_RMA_FLAVOR, "wrong window flavor for this call"),
	CLASS(MPI_ERR_FILE, "invalid file handle"),
	CLASS(MPI_ERR_NOT_SAME,
	      "collective arguments differ between processes"),
	CLASS(MPI_ERR_AMODE, "invalid file access mode"),
	CLASS(MPI_ERR_UNSUPPORTED_DATAREP, "unsupported data representation"),
	CLASS(MPI_ERR_UNSUPPORTED_OPERATION, "unsupported operation"),
	CLASS(MPI_ERR_NO_SUCH_FILE, "no such file"),
	CLASS(MPI_ERR_FILE_EXISTS, "file exists"),
	CLASS(MPI_ERR_BAD_FILE, "invalid file name"),
	CLASS(MPI_ERR_ACCESS, "permission denied"),
	CLASS(MPI_ERR_NO_SPACE, "not enough space"),
	CLASS(MPI_ERR_QUOTA, "quota exceeded"),
	CLASS(MPI_ERR_READ_ONLY, "read-only file or file system"),
	CLASS(MPI_ERR_FILE_IN_USE, "file in use"),
	CLASS(MPI_ERR_DUP_DATAREP, "data representation already defined"),
	CLASS(MPI_ERR_CONVERSION, "error in a data conversion function"),
	CLASS(MPI_ERR_IO, "I/O error"),
	CLASS(MPI_ERR_PROC_ABORTED, "a process of the job has died or left it"),
	CLASS(MPI_ERR_SESSION, "invalid session"),
	CLASS(MPI_ERR_VALUE_TOO_LARGE, "a value is too large for its argument"),
	/* what the tool information interface returns (tool.c) */
	CLASS(MPI_T_ERR_MEMORY, "out of memory"),
	CLASS(MPI_T_ERR_NOT_INITIALIZED,
	      "the tool information interface is not initialized"),
	CLASS(MPI_T_ERR_CANNOT_INIT,
	      "the tool information interface cannot be initialized"),
	CLASS(MPI_T_ERR_INVALID_INDEX, "invalid variable, category or "
	      "enumeration item index"),
	CLASS(MPI_T_ERR_INVALID_ITEM, "enumeration item index out of range"),
	CLASS(MPI_T_ERR_INVALID_HANDLE, "invalid tool handle"),
	CLASS(MPI_T_ERR_OUT_OF_HANDLES, "no more tool handles"),
	CLASS(MPI_T_ERR_OUT_OF_SESSIONS, "no more performance variable "
	      "sessions"),
	CLASS(MPI_T_ERR_INVALID_SESSION, "invalid performance variable "
	      "session"),
	CLASS(MPI_T_ERR_CVAR_SET_NOT_NOW, "the control variable cannot be "
	      "set now"),
	CLASS(MPI_T_ERR_CVAR_SET_NEVER, "the control variable cannot be set "
	      "any more"),
	CLASS(MPI_T_ERR_PVAR_NO_STARTSTOP, "the performance variable cannot "
	      "be started or stopped"),
	CLASS(MPI_T_ERR_PVAR_NO_WRITE, "the performance variable cannot be "
	      "written or reset"),
	CLASS(MPI_T_ERR_PVAR_NO_ATOMIC, "the performance variable cannot be "
	      "read and written atomically"),
	CLASS(MPI_T_ERR_INVALID_NAME, "no variable or category of that name"),
	CLASS(MPI_T_ERR_INVALID, "invalid use of the tool information "
	      "interface, or a bad argument"),
	CLASS(MPI_T_ERR_NOT_ACCESSIBLE, "not accessible"),
	CLASS(MPI_T_ERR_NOT_SUPPORTED, "not supported"),
};
#undef CLASS

/* User-added classes and codes: MPI_ERR_LASTCODE + 1 ... */
#define MPIRMA_MAX_DYN_CODES 1024
static int dyn_class[MPIRMA_MAX_DYN_CODES];	/* class of each added code */
static char *dyn_text[MPIRMA_MAX_DYN_CODES];
static int dyn_count;

static bool is_predefined_class(int c)
{
	return c >= 0 && c < (int)MPIRMA_ARRAY_SIZE(classes) && classes[c].name;
}

/* The class of a code, or -1 for a value that is no code. */
static int class_of(int code)
{
	if (is_predefined_class(code))
		return code;
	if (code > MPI_ERR_LASTCODE && code <= MPI_ERR_LASTCODE + dyn_count)
		return dyn_class[code - MPI_ERR_LASTCODE - 1];
	return -1;
}

const char *mpirma_class_name(int errclass)
{
	int c = class_of(errclass);

	if (c < 0)
		return "MPI_ERR_UNKNOWN";
	if (c > MPI_ERR_LASTCODE)
		return "user-defined error class";
	return classes[c].name;
}

int mpirma_last_used_code(void)
{
	return MPI_ERR_LASTCODE + dyn_count;
}

/* ------------------------------------------------------------ errno table */

int mpirma_errno_to_class(int negerrno)
{
	switch (negerrno < 0 ? -negerrno : negerrno) {
	case 0:
		return MPI_SUCCESS;
	case EINVAL:
		return MPI_ERR_ARG;
	case EOPNOTSUPP:
		return MPI_ERR_OP;
	case ENOENT:
	case EBUSY:		/* the window is being freed */
		return MPI_ERR_WIN;
	case ENXIO:
		return MPI_ERR_RANK;
	case ERANGE:
	case EOVERFLOW:		/* a displacement or count far out of range */
		return MPI_ERR_RMA_RANGE;
	case EFAULT:
		return MPI_ERR_BUFFER;
	case ENOMEM:
		return MPI_ERR_NO_MEM;
	case EOWNERDEAD:
		return MPI_ERR_PROC_ABORTED;
	case EDEADLK:
	case ENOLCK:
		return MPI_ERR_RMA_SYNC;
	case ENOTTY:		/* library and module do not agree */
	case E2BIG:
	case EAGAIN:		/* a non-blocking request the caller should handle */
		return MPI_ERR_INTERN;
	default:
		return MPI_ERR_OTHER;
	}
}

static const char *errno_text(int e)
{
	switch (e) {
	case EOWNERDEAD:
		return "a process of the job has died or left it";
	case ENOTTY:
	case E2BIG:
		return "the mpirma module does not understand the library "
		       "(version mismatch?)";
	case ENOMEM:
		return "out of memory (or RLIMIT_MEMLOCK reached)";
	default:
		return strerror(e);
	}
}

/* ------------------------------------------------------------ causes */

static __thread char pending[512];	/* each thread its own */
/* The cause of the last error raised in this thread (mpirma_last_cause). */
static __thread char last_cause[512];

int mpirma_err(int errclass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pending, sizeof(pending), fmt, ap);
	va_end(ap);
	return errclass;
}

int mpirma_err_errno(int negerrno, const char *fmt, ...)
{
	int e = negerrno < 0 ? -negerrno : negerrno;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pending, sizeof(pending), fmt, ap);
	va_end(ap);
	n = strlen(pending);
	snprintf(pending + n, sizeof(pending) - n, "%s%s",
		 n ? ": " : "", errno_text(e));
	return mpirma_errno_to_class(e);
}

/* ------------------------------------------------------------ the end */

void mpirma_abort_job(int code)
{
	fflush(NULL);
	/* _exit: atexit handlers might call MPI again and wait forever. */
	_exit(code & 0xff);
}

int mpirma_not_running(const char *fn)
{
	fprintf(stderr, "mpirma: %s called %s\n", fn,
		mpirma_proc.state == MPIRMA_STATE_FINALIZED ?
		"after MPI_Finalize" : "before MPI_Init");
	mpirma_abort_job(MPI_ERR_OTHER);
}

static void fatal(int errclass, const char *fn, const char *cause)
{
	if (mpirma_proc.state == MPIRMA_STATE_RUNNING)
		fprintf(stderr, "mpirma: rank %d: %s: %s: %s\n", mpirma_proc.rank,
			fn, mpirma_class_name(errclass), cause);
	else
		fprintf(stderr, "mpirma: %s: %s: %s\n", fn,
			mpirma_class_name(errclass), cause);
	mpirma_abort_job(errclass ? errclass : 1);
}

/* ------------------------------------------------------------ errhandlers */

struct mpirma_errh {
	enum mpirma_hkind kind;		/* MPIRMA_HK_COMM, _WIN or _SESSION */
	void (*fn)(void);
	int refs;
};

static bool is_predefined_eh(MPI_Errhandler e)
{
	return e == MPI_ERRORS_ARE_FATAL || e == MPI_ERRORS_RETURN ||
	       e == MPI_ERRORS_ABORT;
}

static struct mpirma_errh *errh_get(MPI_Errhandler e)
{
	return mpirma_handle_get(MPIRMA_HK_ERRHANDLER, e);
}

void mpirma_errhandler_ref(MPI_Errhandler e)
{
	struct mpirma_errh *h = errh_get(e);

	if (h)
		h->refs++;
}

void mpirma_errhandler_unref(MPI_Errhandler e)
{
	struct mpirma_errh *h = errh_get(e);

	if (h && --h->refs == 0) {
		mpirma_handle_free(MPIRMA_HK_ERRHANDLER, e);
		free(h);
	}
}

/*
 * Runs handler @e of an object of @kind with handle @handle.  Returns the
 * class unless the handler ends the job.
 */
static int invoke(MPI_Errhandler e, enum mpirma_hkind kind, int handle,
		  int errclass, const char *fn, const char *cause)
{
	struct mpirma_errh *h;
	int code = errclass;

	if (e == MPI_ERRORS_RETURN)
		return errclass;
	h = errh_get(e);
	if (!h || mpirma_proc.state != MPIRMA_STATE_RUNNING)
		fatal(errclass, fn, cause);
	if (kind == MPIRMA_HK_WIN) {
		MPI_Win w = handle;

		((MPI_Win_errhandler_function *)h->fn)(&w, &code);
	} else if (kind == MPIRMA_HK_SESSION) {
		MPI_Session s = handle;

		((MPI_Session_errhandler_function *)h->fn)(&s, &code);
	} else {
		MPI_Comm c = handle;

		((MPI_Comm_errhandler_function *)h->fn)(&c, &code);
	}
	return errclass;
}

/* The cause: the format's text, else the pending message, else the class. */
static const char *cause_of(char *buf, size_t len, int errclass,
			    const char *fmt, va_list ap)
{
	if (fmt) {
		vsnprintf(buf, len, fmt, ap);
		return buf;
	}
	if (pending[0])
		return pending;
	return classes[class_of(errclass) >= 0 &&
		       class_of(errclass) <= MPI_ERR_LASTCODE ?
		       class_of(errclass) : MPI_ERR_UNKNOWN].text;
}

static int raise_on(enum mpirma_hkind kind, int handle, int errclass,
		    const char *fn, const char *fmt, va_list ap)
{
	MPI_Errhandler e = MPI_ERRORS_ARE_FATAL;
	char buf[512];
	const char *cause;
	int ret;

	if (errclass == MPI_SUCCESS)
		return MPI_SUCCESS;
	cause = cause_of(buf, sizeof(buf), errclass, fmt, ap);
	if (mpirma_proc.state == MPIRMA_STATE_RUNNING) {
		struct mpirma_objhdr *h = mpirma_objhdr_get(kind, handle);

		if (!h) {
			/* No such object: its errors go to MPI_COMM_WORLD. */
			kind = MPIRMA_HK_COMM;
			handle = MPI_COMM_WORLD;
			h = mpirma_objhdr_get(kind, handle);
		}
		e = h->errhandler;
	}
	if (e == MPI_ERRORS_ARE_FATAL || e == MPI_ERRORS_ABORT)
		fatal(errclass, fn, cause);
	snprintf(last_cause, sizeof(last_cause), "%s", cause);
	ret = invoke(e, kind, handle, errclass, fn, cause);
	pending[0] = '\0';
	return ret;
}

const char *mpirma_last_cause(void)
{
	return last_cause;
}

/*
 * The body of the variadic raises below: raise_on() of object @handle of
 * @kind with the caller's @errclass, @fn and @fmt and what follows it.
 */
#define RAISE_VA(kind, handle)						\
	({								\
		va_list ap_;						\
		int ret_;						\
									\
		va_start(ap_, fmt);					\
		ret_ = raise_on(kind, handle, errclass, fn, fmt, ap_);	\
		va_end(ap_);						\
		ret_;							\
	})

int mpirma_raise_comm(MPI_Comm comm, int errclass, const char *fn,
		      const char *fmt, ...)
{
	return RAISE_VA(MPIRMA_HK_COMM, comm);
}

int mpirma_raise_win_failed(MPI_Win win, int errclass, const char *fn,
			    const char *fmt, ...)
{
	return RAISE_VA(MPIRMA_HK_WIN, win);
}

int mpirma_raise_session(MPI_Session session, int errclass, const char *fn,
			 const char *fmt, ...)
{
	return RAISE_VA(MPIRMA_HK_SESSION, session);
}

/* mpirma_raise_comm or mpirma_raise_win, as @kind says. */
static int __attribute__((format(printf, 5, 6)))
raise_obj(enum mpirma_hkind kind, int handle, int errclass, const char *fn,
	  const char *fmt, ...)
{
	return RAISE_VA(kind, handle);
}

int mpirma_raise(int errclass, const char *fn, const char *fmt, ...)
{
	return RAISE_VA(MPIRMA_HK_COMM, MPI_COMM_WORLD);
}

MPI_Errhandler mpirma_win_errhandler(MPI_Win win)
{
	struct mpirma_objhdr *h = mpirma_objhdr_get(MPIRMA_HK_WIN, win);

	return h ? h->errhandler : MPI_ERRORS_ARE_FATAL;
}

/* ------------------------------------------------------------ API: classes */

int PMPI_Error_class(int errorcode, int *errorclass)
{
	MPIRMA_LOCK_GUARD();
	int c = class_of(errorcode);

	if (c < 0)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "%d is not an error code", errorcode);
	*errorclass = c;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Error_class)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
	MPIRMA_LOCK_GUARD();
	int c = class_of(errorcode);
	const char *s;

	if (c < 0)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "%d is not an error code", errorcode);
	if (errorcode > MPI_ERR_LASTCODE) {
		s = dyn_text[errorcode - MPI_ERR_LASTCODE - 1];
		if (!s)
			s = "";
		*resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
	} else {
		*resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s",
				      classes[c].name, classes[c].text);
	}
	if (*resultlen >= MPI_MAX_ERROR_STRING)
		*resultlen = MPI_MAX_ERROR_STRING - 1;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Error_string)

static int add_code(int errclass, int *out)
{
	if (dyn_count == MPIRMA_MAX_DYN_CODES)
		return mpirma_err(MPI_ERR_OTHER, "too many error codes (%d)",
				  MPIRMA_MAX_DYN_CODES);
	*out = MPI_ERR_LASTCODE + 1 + dyn_count;
	dyn_class[dyn_count] = errclass < 0 ? *out : errclass;
	dyn_count++;
	return MPI_SUCCESS;
}

int PMPI_Add_error_class(int *errorclass)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise(add_code(-1, errorclass), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
	MPIRMA_CHECK_INIT();
	if (class_of(errorclass) != errorclass)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "%d is not an error class", errorclass);
	return mpirma_raise(add_code(errorclass, errorcode), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
	char **slot;

	MPIRMA_CHECK_INIT();
	if (errorcode <= MPI_ERR_LASTCODE || class_of(errorcode) < 0)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "%d is not a user-added error code",
				    errorcode);
	if (strlen(string) >= MPI_MAX_ERROR_STRING)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "string longer than MPI_MAX_ERROR_STRING");
	slot = &dyn_text[errorcode - MPI_ERR_LASTCODE - 1];
	free(*slot);
	*slot = strdup(string);
	if (!*slot)
		return mpirma_raise(MPI_ERR_NO_MEM, MPIRMA_FUNC, NULL);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Add_error_string)

/* ------------------------------------------------------------ API: handlers */

static int create_eh(enum mpirma_hkind kind, void (*fn)(void),
		     MPI_Errhandler *out, const char *func)
{
	struct mpirma_errh *h;

	if (!fn)
		return mpirma_raise(MPI_ERR_ARG, func, "NULL handler function");
	h = calloc(1, sizeof(*h));
	if (!h)
		return mpirma_raise(MPI_ERR_NO_MEM, func, NULL);
	h->kind = kind;
	h->fn = fn;
	h->refs = 1;
	*out = mpirma_handle_alloc(MPIRMA_HK_ERRHANDLER, h);
	if (!*out) {
		free(h);
		return mpirma_raise(MPI_ERR_NO_MEM, func, NULL);
	}
	return MPI_SUCCESS;
}

/* internal.h */
bool mpirma_errhandler_fits(MPI_Errhandler e, enum mpirma_hkind kind)
{
	struct mpirma_errh *h;

	if (is_predefined_eh(e))
		return true;
	h = errh_get(e);
	return h && h->kind == kind;
}

/*
 * MPI_Comm_set_errhandler, MPI_Win_set_errhandler: @handle is a
 * communicator or a window (@kind).  Raised as @fn.
 */
static int set_eh(enum mpirma_hkind kind, int handle, MPI_Errhandler e,
		  const char *fn)
{
	struct mpirma_objhdr *h;
	int ret = mpirma_objhdr_check(kind, handle, &h);

	if (ret)
		return mpirma_raise(ret, fn, NULL);
	if (!mpirma_errhandler_fits(e, kind))
		return raise_obj(kind, handle, MPI_ERR_ARG, fn,
				 "%d is not a %s error handler", e,
				 kind == MPIRMA_HK_WIN ? "window" :
				 kind == MPIRMA_HK_SESSION ? "session" :
				 "communicator");
	mpirma_errhandler_ref(e);
	mpirma_errhandler_unref(h->errhandler);
	h->errhandler = e;
	return MPI_SUCCESS;
}

/* MPI_Comm_get_errhandler, MPI_Win_get_errhandler. */
static int get_eh(enum mpirma_hkind kind, int handle, MPI_Errhandler *e,
		  const char *fn)
{
	struct mpirma_objhdr *h;
	int ret = mpirma_objhdr_check(kind, handle, &h);

	if (ret)
		return mpirma_raise(ret, fn, NULL);
	/* The caller gets a reference, released by MPI_Errhandler_free. */
	*e = h->errhandler;
	mpirma_errhandler_ref(*e);
	return MPI_SUCCESS;
}

/* MPI_Comm_call_errhandler, MPI_Win_call_errhandler. */
static int call_eh(enum mpirma_hkind kind, int handle, int errorcode,
		   const char *fn)
{
	struct mpirma_objhdr *h;
	int ret = mpirma_objhdr_check(kind, handle, &h);

	if (ret)
		return mpirma_raise(ret, fn, NULL);
	raise_obj(kind, handle, errorcode, fn,
		  "error code %d raised by the program", errorcode);
	return MPI_SUCCESS;
}

/*
 * The error handler calls of communicators, windows and sessions (@Obj
 * Comm, Win or Session, handles of @obj_t, objects of @kind): one
 * definition makes every kind's set, get and call...
 */
#define EH_USE_CALLS(Obj, obj_t, kind)					\
int PMPI_##Obj##_set_errhandler(obj_t obj, MPI_Errhandler errhandler)	\
{									\
	MPIRMA_CHECK_INIT();						\
	return set_eh(kind, obj, errhandler, MPIRMA_FUNC);		\
}									\
MPIRMA_ALIAS(Obj##_set_errhandler)					\
									\
int PMPI_##Obj##_get_errhandler(obj_t obj, MPI_Errhandler *errhandler)	\
{									\
	MPIRMA_CHECK_INIT();						\
	return get_eh(kind, obj, errhandler, MPIRMA_FUNC);		\
}									\
MPIRMA_ALIAS(Obj##_get_errhandler)					\
									\
int PMPI_##Obj##_call_errhandler(obj_t obj, int errorcode)		\
{									\
	MPIRMA_CHECK_INIT();						\
	return call_eh(kind, obj, errorcode, MPIRMA_FUNC);		\
}									\
MPIRMA_ALIAS(Obj##_call_errhandler)

/*
 * ... and create: a session's handler may be made before any session,
 * before MPI_Init (@guard: MPIRMA_LOCK_GUARD), the others only while MPI
 * runs (MPIRMA_CHECK_INIT).
 */
#define EH_CALLS(Obj, obj_t, kind, guard)				\
int PMPI_##Obj##_create_errhandler(MPI_##Obj##_errhandler_function *fn, \
				   MPI_Errhandler *errhandler)		\
{									\
	guard();							\
	return create_eh(kind, (void (*)(void))fn, errhandler,		\
			 MPIRMA_FUNC);					\
}									\
MPIRMA_ALIAS(Obj##_create_errhandler)					\
EH_USE_CALLS(Obj, obj_t, kind)

EH_CALLS(Comm, MPI_Comm, MPIRMA_HK_COMM, MPIRMA_CHECK_INIT)
EH_CALLS(Win, MPI_Win, MPIRMA_HK_WIN, MPIRMA_CHECK_INIT)
EH_CALLS(Session, MPI_Session, MPIRMA_HK_SESSION, MPIRMA_LOCK_GUARD)

/*
 * MPI-1's names of the communicator calls, removed from MPI-3 and still
 * made by older codes and test suites.
 */
int PMPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *errhandler)
{
	MPIRMA_CHECK_INIT();
	return create_eh(MPIRMA_HK_COMM, (void (*)(void))fn, errhandler,
			 MPIRMA_FUNC);
}
MPIRMA_ALIAS(Errhandler_create)

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
	MPIRMA_CHECK_INIT();
	return set_eh(MPIRMA_HK_COMM, comm, errhandler, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Errhandler_set)

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	MPIRMA_CHECK_INIT();
	return get_eh(MPIRMA_HK_COMM, comm, errhandler, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Errhandler_get)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
	MPIRMA_CHECK_INIT();
	if (!is_predefined_eh(*errhandler) && !errh_get(*errhandler))
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "invalid error handler %d", *errhandler);
	mpirma_errhandler_unref(*errhandler);
	*errhandler = MPI_ERRHANDLER_NULL;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Errhandler_free)
