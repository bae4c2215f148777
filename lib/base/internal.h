/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - what every file of libmpirma shares: the process state,
 * handles, communicators, groups, object headers (error handler, attributes,
 * name), errors, requests, and the one ioctl wrapper.
 *
 * Conventions (docs/lib.md):
 *  - Every API function is defined as PMPI_X and made MPI_X by MPIRMA_ALIAS(X)
 *    (a weak alias).  Inside the library call PMPI_X, never MPI_X, so a
 *    profiling tool that interposes MPI_X sees only the user's calls.
 *  - Every API function starts with MPIRMA_CHECK_INIT() (except the few the
 *    standard allows outside init/finalize).
 *  - Internal helpers that talk to the kernel return 0 or a negative errno;
 *    helpers at the MPI level return MPI_SUCCESS or an MPI error class and
 *    record the cause with mpirma_err()/mpirma_err_errno().  The API function
 *    then hands the class to mpirma_raise_comm/_win/mpirma_raise, which runs
 *    the object's error handler and returns the class.
 *  - Collective-context messages (mpirma_ctx_coll) are always received from
 *    a named source, never MPIRMA_ANY_SOURCE: messages from one sender in
 *    one context arrive in order, so collectives that every member calls in
 *    the same order cannot take each other's messages.
 *
 * Thread level: up to MPI_THREAD_MULTIPLE.  Below it nothing takes a lock.
 * With it, every API call but the RMA calls and flushes (lib/rma/rma_entry.c,
 * rma_entry()) holds the library lock (taken by MPIRMA_CHECK_INIT() or
 * MPIRMA_LOCK_GUARD(), released when the function returns) except while it
 * waits: a call that blocks (in the kernel, or polling for a message) lets
 * go of it meanwhile (mpirma_unlock_all()/mpirma_relock(),
 * mpirma_ioctl_wait()), so another thread can send what it waits for.
 * lib/base/thread.c.
 */
#ifndef MPIRMA_LIB_INTERNAL_H
#define MPIRMA_LIB_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi.h"
#include "mpirma_uapi.h"

/* ------------------------------------------------------------ conventions */

#define MPIRMA_PRAGMA(x) _Pragma(#x)
/* Makes MPI_<name> a weak alias of PMPI_<name>; write it after the function. */
#define MPIRMA_ALIAS(name) MPIRMA_PRAGMA(weak MPI_##name = PMPI_##name)
/* The MPI name of the API function we are in: "PMPI_Put" + 1. */
#define MPIRMA_FUNC (__func__ + 1)

#define mpirma_likely(x)	__builtin_expect(!!(x), 1)
#define mpirma_unlikely(x)	__builtin_expect(!!(x), 0)

#define MPIRMA_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* CLOCK_MONOTONIC in nanoseconds (MPI_Wtime's clock, lib/base/wtime.c). */
static inline int64_t mpirma_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------------ threads */

/* MPI_THREAD_MULTIPLE was granted: API calls take the library lock. */
extern bool mpirma_threads;

/*
 * Takes the library lock for this thread (MPI_THREAD_MULTIPLE only; again
 * from a call inside a call only counts).  Returns whether it did, for
 * mpirma_guard_leave().
 */
int mpirma_guard_enter(void);
void mpirma_guard_leave(const int *entered);

/*
 * The library lock for the rest of the enclosing block: released by the
 * compiler on every way out of it (a return included, after its value).
 */
#define MPIRMA_LOCK_GUARD()						\
	const int mpirma_guard_						\
		__attribute__((cleanup(mpirma_guard_leave), unused)) =	\
		mpirma_guard_enter()

/*
 * Around a wait: lets go of the lock however deep this thread holds it,
 * and takes it back as deep.  Nothing read under the lock before may be
 * trusted after, but what this call owns.
 */
int mpirma_unlock_all(void);
void mpirma_relock(int depth);

/*
 * How many times a thread has let go of the library lock inside a call
 * (read and changed under the lock): a walk of shared lists that calls
 * something which may wait compares it before and after, as every node it
 * held may have gone meanwhile.
 */
extern unsigned long mpirma_lock_drops;

/*
 * One pause of a polling wait, without the library lock: yields the CPU
 * the first 64 times (*@spins counts), then sleeps 1 us growing to 1 ms.
 */
void mpirma_wait_pause(int *spins);

/*
 * @n zeroed elements of @size bytes, or NULL: calloc() for objects made
 * per call (requests, a datatype's parts).  glibc's calloc() skips the
 * per-thread cache that malloc() and free() use: 330 instructions for a
 * datatype's object against about 40.  explicit_bzero() clears it, as the
 * compiler folds malloc() and memset() back into calloc().
 */
static inline void *mpirma_zalloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	p = malloc(n * size);
	if (p)
		explicit_bzero(p, n * size);
	return p;
}

/* One round of a spin on memory another CPU will write: the CPU's hint. */
static inline void mpirma_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/*
 * mpirma_reduce() for a long run of elements: by the build of the engine
 * that this CPU runs faster for @type (lib/base/reduce_pick.c).
 */
void mpirma_reduce_run(unsigned int type, unsigned int op, void *tgt,
		       const void *src, void *old, size_t n);

/*
 * Per element size (1, 2, 4): 0 while unknown, 1 when this CPU runs the
 * integer sums of that size faster eight bytes at a time in the scalar
 * build (mpirma_swar_sum()) than in a vectorized one, 2 when not.
 */
extern uint8_t mpirma_swar_verdict[5];
bool mpirma_swar_learn(unsigned int size);

/*
 * Is a sum of 1-, 2- or 4-byte integers (@size) best left to the scalar
 * build, here?  The first asking picks the engine's build for that size.
 */
static inline bool mpirma_swar_wins(unsigned int size)
{
	uint8_t v = __atomic_load_n(&mpirma_swar_verdict[size],
				    __ATOMIC_RELAXED);

	return mpirma_likely(v) ? v == 1 : mpirma_swar_learn(size);
}

/* The same without learning it: false while unknown. */
static inline bool mpirma_swar_known(unsigned int size)
{
	return __atomic_load_n(&mpirma_swar_verdict[size], __ATOMIC_RELAXED) ==
	       1;
}

/* This thread's number: 0, 1, 2... in the order threads first ask. */
int mpirma_thread_index(void);

/* ------------------------------------------------------------ process */

enum mpirma_state {
	MPIRMA_STATE_PRE_INIT = 0,
	MPIRMA_STATE_RUNNING,
	MPIRMA_STATE_FINALIZED,
};

/**
 * struct mpirma_proc - this process's view of the job
 * @state: enum mpirma_state
 * @fd: the member fd (-1 before init and after finalize)
 * @rank: job rank (== rank in MPI_COMM_WORLD)
 * @size: number of ranks in the job
 * @singleton: started without the launcher
 * @thread_level: the level MPI_Init_thread provided
 * @next_ctx: the lowest context id this process has not used; a new
 *	communicator takes the MAX of its members' next_ctx (see
 *	mpirma_comm_new_context)
 * @job_id: the kernel's job id
 * @query: the kernel's MPIRMA_IOC_QUERY answer (features, page size...)
 * @spin: how long a waiting receive polls its mailbox before it sleeps in
 *	the kernel (mpirma_msg_recv), in seconds; 0: it sleeps at once
 * @yield_spin: how long it then polls yielding its CPU after each look
 */
struct mpirma_proc {
	int state;
	int fd;
	int rank;
	int size;
	bool singleton;
	int thread_level;
	uint64_t next_ctx;
	uint64_t job_id;
	struct mpirma_query query;
	double spin;
	double yield_spin;
};

extern struct mpirma_proc mpirma_proc;

/* Context ids of the predefined communicators; created ones start at 16. */
#define MPIRMA_CTX_WORLD	1
#define MPIRMA_CTX_SELF		2
#define MPIRMA_CTX_FIRST	16

/*
 * Fails the call when MPI is not initialized or already finalized: prints
 * and exits (there is no error handler to call yet, or any more).
 */
int mpirma_not_running(const char *fn);
/* ... and takes the library lock for the rest of the call (threads above). */
#define MPIRMA_CHECK_INIT()						\
	MPIRMA_LOCK_GUARD();						\
	do {								\
		if (mpirma_unlikely(mpirma_proc.state !=		\
				    MPIRMA_STATE_RUNNING))		\
			return mpirma_not_running(MPIRMA_FUNC);		\
	} while (0)

/*
 * ioctl on the member fd; repeats on EINTR (the ABI says nothing was
 * consumed).  Returns 0 (or the ioctl's non-negative result) or -errno.
 */
int mpirma_ioctl(unsigned long cmd, void *arg);
/* mpirma_ioctl() of one that may block, without the library lock meanwhile. */
int mpirma_ioctl_wait(unsigned long cmd, void *arg);

/*
 * The API call PMPI_@name(@handle_t h, @type *out), and its MPI_ alias,
 * that answers one value of an object: @expr of @obj_t *o, which @get (an
 * MPIRMA_GET_COMM()-like macro) finds for h or raises the error of.
 */
#define MPIRMA_QUERY(name, handle_t, obj_t, get, type, expr)		\
int PMPI_##name(handle_t h, type *out)					\
{									\
	obj_t *o;							\
									\
	MPIRMA_CHECK_INIT();						\
	get(o, h);							\
	*out = (expr);							\
	return MPI_SUCCESS;						\
}									\
MPIRMA_ALIAS(name)

/* ------------------------------------------------------------ handles */

/* One table per kind.  Created handles start at the kind's base. */
enum mpirma_hkind {
	MPIRMA_HK_COMM,		/* base 16 */
	MPIRMA_HK_GROUP,	/* base 16 */
	MPIRMA_HK_DATATYPE,	/* base 256 */
	MPIRMA_HK_OP,		/* base 32 */
	MPIRMA_HK_WIN,		/* base 1 */
	MPIRMA_HK_REQUEST,	/* base 1 */
	MPIRMA_HK_ERRHANDLER,	/* base 16 */
	MPIRMA_HK_INFO,		/* base 16 */
	MPIRMA_HK_KEYVAL,	/* base 32 */
	MPIRMA_HK_MESSAGE,	/* base 1 */
	MPIRMA_HK_SESSION,	/* base 1 */
	MPIRMA_HK_TOOL,		/* base 1: MPI_T handles and sessions */
	MPIRMA_NR_HKINDS
};

/*
 * Stores @obj (not NULL) and returns its new handle, or 0 when out of
 * memory.  Freed slots are reused late (round robin), so a stale handle
 * usually stays invalid for a while instead of naming a new object.
 */
int mpirma_handle_alloc(enum mpirma_hkind kind, void *obj);

/*
 * The tables (lib/base/handle.c), seen here for mpirma_handle_get().  Slots
 * live in chunks that never move: chunk c holds slots [64 (2^c - 1),
 * 64 (2^(c+1) - 1)).  So with MPI_THREAD_MULTIPLE a lookup needs no lock
 * while another thread creates an object and the table grows (creation and
 * freeing hold the library lock; a slot is filled before @used counts it).
 */
#define MPIRMA_HCHUNK0		64
#define MPIRMA_HCHUNKS		22	/* up to 2^28 - 64 slots */
struct mpirma_htable {
	void **chunk[MPIRMA_HCHUNKS];
	int cap;	/* slots in the chunks allocated */
	int used;	/* slots ever handed out: [used, cap) never used */
	int live;	/* non-NULL entries */
	int cursor;	/* where the round-robin search for a free slot resumes */
};

extern struct mpirma_htable mpirma_htables[MPIRMA_NR_HKINDS];
/* Here, not in handle.c: a lookup of a known kind folds its base. */
static const int mpirma_hbase[MPIRMA_NR_HKINDS] __attribute__((unused)) = {
	[MPIRMA_HK_COMM] = 16,
	[MPIRMA_HK_GROUP] = 16,
	[MPIRMA_HK_DATATYPE] = 256,
	[MPIRMA_HK_OP] = 32,
	[MPIRMA_HK_WIN] = 1,
	[MPIRMA_HK_REQUEST] = 1,
	[MPIRMA_HK_ERRHANDLER] = 16,
	[MPIRMA_HK_INFO] = 16,
	[MPIRMA_HK_KEYVAL] = 32,
	[MPIRMA_HK_MESSAGE] = 1,
	[MPIRMA_HK_SESSION] = 1,
	[MPIRMA_HK_TOOL] = 1,
};

/* Where slot @i (< cap) of @t is. */
static inline void **mpirma_handle_slot(const struct mpirma_htable *t, int i)
{
	int c;

	if (mpirma_likely((unsigned int)i < MPIRMA_HCHUNK0))
		return &t->chunk[0][i];		/* most programs' handles */
	c = 31 - __builtin_clz((unsigned int)i / MPIRMA_HCHUNK0 + 1);

	return &t->chunk[c][i - MPIRMA_HCHUNK0 * ((1 << c) - 1)];
}

/*
 * The object of a created handle, or NULL (never created, freed, null).
 * Inline: every call on an object starts with it.
 */
static inline void *mpirma_handle_get(enum mpirma_hkind kind, int handle)
{
	const struct mpirma_htable *t;
	int i;

	if ((unsigned int)kind >= MPIRMA_NR_HKINDS ||
	    handle < mpirma_hbase[kind])
		return NULL;
	t = &mpirma_htables[kind];
	i = handle - mpirma_hbase[kind];
	if (i >= __atomic_load_n(&t->used, __ATOMIC_ACQUIRE))
		return NULL;
	return __atomic_load_n(mpirma_handle_slot(t, i), __ATOMIC_ACQUIRE);
}
/* Forgets the handle (the caller frees the object). */
void mpirma_handle_free(enum mpirma_hkind kind, int handle);
/* Created handles in increasing order: the first live one > @prev, or 0. */
int mpirma_handle_next(enum mpirma_hkind kind, int prev);

/* ------------------------------------------------------------ objects */

struct mpirma_attr;

/**
 * struct mpirma_objhdr - what communicators, windows and datatypes have in
 * common
 * @errhandler: the object's error handler (a reference is held); unused
 *	for datatypes, which have none
 * @attrs: the attribute list (lib/base/attr.c)
 * @name: MPI_Comm_set_name / MPI_Win_set_name / MPI_Type_set_name
 */
struct mpirma_objhdr {
	MPI_Errhandler errhandler;
	struct mpirma_attr *attrs;
	char name[MPI_MAX_OBJECT_NAME];
};

/* Fresh header: MPI_ERRORS_ARE_FATAL, no attributes, @name. */
void mpirma_objhdr_init(struct mpirma_objhdr *h, const char *name);

/**
 * struct mpirma_kind_ops - what the error and attribute code asks of a
 * kind of object: of those that live above base/ (communicators and
 * sessions in runtime/, windows in rma/), and of datatypes (lib/base/datatype.c),
 * registered by their file when the library is loaded
 * (mpirma_kind_register()): so base/ calls nothing above it, and its
 * errors and attributes still reach every object
 * @hdr: the header of the live object @handle names, or NULL
 * @predefined_attr: NULL, or the kind's own attribute keys (windows:
 *	MPI_WIN_BASE ... MPI_WIN_MODEL) for MPI_X_get_attr: sets *@flag and
 *	stores a pointer to the value in *(void **)@val, as the standard
 *	wants; MPI class
 */
struct mpirma_kind_ops {
	struct mpirma_objhdr *(*hdr)(int handle);
	int (*predefined_attr)(int handle, int keyval, void *val, int *flag);
};

/* Registers @ops for @kind (MPIRMA_HK_COMM, _WIN, _DATATYPE); at load time. */
void mpirma_kind_register(enum mpirma_hkind kind,
			  const struct mpirma_kind_ops *ops);

/*
 * The header of a live communicator, window or datatype (@kind
 * MPIRMA_HK_COMM, _WIN, _DATATYPE), or NULL (lib/base/attr.c).  Records
 * nothing.
 */
struct mpirma_objhdr *mpirma_objhdr_get(enum mpirma_hkind kind, int handle);

/*
 * mpirma_objhdr_get() for an object argument: MPI_SUCCESS with *@h set, or
 * MPI_ERR_COMM ("invalid communicator N") / MPI_ERR_WIN ("invalid window
 * N") / MPI_ERR_TYPE ("invalid datatype N"), recorded.
 */
int mpirma_objhdr_check(enum mpirma_hkind kind, int handle,
			struct mpirma_objhdr **h);

/*
 * Before an object's handle goes away (MPI_Comm_free, MPI_Win_free): runs
 * the attribute delete callbacks, drops the error handler reference.
 * @kind: MPIRMA_HK_COMM or MPIRMA_HK_WIN.  Returns MPI_SUCCESS or the first
 * failing delete callback's code (the object is torn down regardless).
 */
int mpirma_objhdr_destroy(struct mpirma_objhdr *h, enum mpirma_hkind kind,
			  int handle);

/* ------------------------------------------------------------ info */

/*
 * The value of @key in @info, or NULL (no such key, MPI_INFO_NULL, invalid
 * handle).  Valid until the info object changes.
 */
const char *mpirma_info_lookup(MPI_Info info, const char *key);

/*
 * An info argument that may be MPI_INFO_NULL (hints only): MPI_SUCCESS, or
 * MPI_ERR_INFO recorded for an invalid handle.
 */
int mpirma_info_arg_check(MPI_Info info);

/* ------------------------------------------------------------ attributes */

/*
 * Runs the delete callbacks of every attribute of an object and empties its
 * list (MPI_Comm_free, MPI_Win_free, MPI_Type_free: call before the handle
 * goes away).  @kind: MPIRMA_HK_COMM, _WIN or _DATATYPE; @handle: the
 * object's handle.
 * Returns MPI_SUCCESS or the first failing callback's code.
 */
int mpirma_attrs_delete_all(struct mpirma_objhdr *h, enum mpirma_hkind kind,
			    int handle);

/*
 * Copies @from's attributes to @to through their copy callbacks, which
 * get @old, the handle of @from's object (MPI_Comm_dup, MPI_Type_dup).
 * MPI class.
 */
int mpirma_attrs_copy(int old, struct mpirma_objhdr *from,
		      struct mpirma_objhdr *to);

/* ------------------------------------------------------------ windows */

/*
 * The window's error handler, MPI_ERRORS_ARE_FATAL for an invalid handle
 * (lib/base/error.c, through the windows' registered header).
 */
MPI_Errhandler mpirma_win_errhandler(MPI_Win win);

/* ------------------------------------------------------------ errors */

/*
 * Records the cause of the error about to be raised and returns @errclass.
 * The message is printed by MPI_ERRORS_ARE_FATAL.
 */
int mpirma_err(int errclass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Like mpirma_err() with the class from the errno table and the errno's
 * explanation appended to the message.  @negerrno is -errno (or errno).
 */
int mpirma_err_errno(int negerrno, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The one errno -> MPI error class table.  0 -> MPI_SUCCESS. */
int mpirma_errno_to_class(int negerrno);

/*
 * Raise @errclass on a communicator / a window / no object (MPI_COMM_WORLD's
 * handler): run the error handler with the cause (the format, or the message
 * recorded by mpirma_err when @fmt is NULL).  MPI_ERRORS_ARE_FATAL prints
 * "mpirma: rank R: MPI_X: MPI_ERR_Y: cause" and ends the job; otherwise the
 * class is returned.  MPI_SUCCESS returns MPI_SUCCESS and calls nothing.
 * An invalid @comm or @win falls back to MPI_COMM_WORLD.
 */
int mpirma_raise_comm(MPI_Comm comm, int errclass, const char *fn,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int mpirma_raise_win_failed(MPI_Win win, int errclass, const char *fn,
			    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Every RMA call ends here: success costs a compare, not a variadic call. */
#define mpirma_raise_win(win, errclass, ...)				\
	({								\
		int raise_class_ = (errclass);				\
									\
		raise_class_ == MPI_SUCCESS ? MPI_SUCCESS :		\
		mpirma_raise_win_failed(win, raise_class_, __VA_ARGS__);	\
	})
int mpirma_raise(int errclass, const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ... on a session (lib/runtime/session.c registers its header). */
int mpirma_raise_session(MPI_Session session, int errclass, const char *fn,
			 const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "MPI_ERR_RMA_SYNC" for a class; "MPI_ERR_UNKNOWN" for other values. */
const char *mpirma_class_name(int errclass);

/* Ends the job now: flush stdio, exit with @code (MPI_Abort semantics). */
void mpirma_abort_job(int code) __attribute__((noreturn));

/* May @e be set on an object of @kind?  (the predefined ones may) */
bool mpirma_errhandler_fits(MPI_Errhandler e, enum mpirma_hkind kind);

/* Errhandler references (MPI_ERRORS_* are static and need none). */
void mpirma_errhandler_ref(MPI_Errhandler e);
void mpirma_errhandler_unref(MPI_Errhandler e);

/* status.c: the library's statuses */
/*
 * The status of a request that communicated nothing: source MPI_ANY_SOURCE,
 * tag MPI_ANY_TAG, error MPI_SUCCESS, count 0, not cancelled.
 */
void mpirma_status_empty(MPI_Status *st);

/* Fills a status (not cancelled). */
void mpirma_status_set(MPI_Status *st, int source, int tag, int error,
		       MPI_Count bytes);

/*
 * A user's status from a call that returns one: all but MPI_ERROR, which
 * "message-passing calls do not modify" but for MPI_ERR_IN_STATUS of the
 * calls with arrays of statuses (MPI 3.2.5).  @out may be
 * MPI_STATUS_IGNORE or NULL.  mpirma_status_out copies @st, _user sets.
 */
void mpirma_status_out(MPI_Status *out, const MPI_Status *st);
void mpirma_status_user(MPI_Status *out, int source, int tag,
			MPI_Count bytes);

/* ------------------------------------------------------------ base-private */

/* error.c: the value of the MPI_LASTUSEDCODE attribute. */
int mpirma_last_used_code(void);

#endif /* MPIRMA_LIB_INTERNAL_H */
