// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tool_pvar.c - MPI_T performance variables and their sessions (MPI 4.0
 * 15.3.7): the counters the library keeps per process (tool.h: messages
 * and bytes sent and received, spills, sleeps, RMA operations) and the
 * numbers of live objects of a few kinds.
 *
 * A counter is MPI_T_PVAR_CLASS_COUNTER, an MPI_UNSIGNED_LONG_LONG that a
 * handle may start, stop, reset and write: each handle keeps its own
 * value, what the counter moved while the handle was started, from 0 at
 * allocation (@acc, plus the counter's move since @base while started).
 * So sessions never disturb each other or the library, which keeps one
 * counter and never resets it.  A number of live objects is
 * MPI_T_PVAR_CLASS_LEVEL, continuous (always started) and read-only.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tool_impl.h"

struct pvar {
	const char *name;
	const char *desc;
	enum mpirma_tool_cat cat;
	int klass;		/* MPI_T_PVAR_CLASS_COUNTER or _LEVEL */
	int verbosity;
	size_t counter;		/* COUNTER: its offset in mpirma_counters */
	enum mpirma_hkind kind;	/* LEVEL: the live handles of this kind */
};

#define COUNTER(n, d, c, field)						\
	{ .name = n, .desc = d, .cat = c,				\
	  .klass = MPI_T_PVAR_CLASS_COUNTER,				\
	  .verbosity = MPI_T_VERBOSITY_USER_BASIC,			\
	  .counter = offsetof(struct mpirma_counters, field) }
#define LEVEL(n, d, k)							\
	{ .name = n, .desc = d, .cat = MPIRMA_TCAT_OBJECTS,		\
	  .klass = MPI_T_PVAR_CLASS_LEVEL,				\
	  .verbosity = MPI_T_VERBOSITY_USER_DETAIL, .kind = k }

static const struct pvar pvars[] = {
	COUNTER("mpirma_msgs_sent", "messages this process sent: "
		"point-to-point and the collectives' own", MPIRMA_TCAT_MSG,
		msgs_sent),
	COUNTER("mpirma_bytes_sent", "bytes of the messages this process "
		"sent", MPIRMA_TCAT_MSG, bytes_sent),
	COUNTER("mpirma_msgs_received", "messages this process received: "
		"point-to-point and the collectives' own", MPIRMA_TCAT_MSG,
		msgs_received),
	COUNTER("mpirma_bytes_received", "bytes of the messages this process "
		"received", MPIRMA_TCAT_MSG, bytes_received),
	COUNTER("mpirma_msg_spills", "message units this process sent that "
		"found their shared-memory ring full and went through the "
		"kernel mailbox", MPIRMA_TCAT_MSG, spills),
	COUNTER("mpirma_wait_sleeps", "times a receive of this process "
		"waited long enough (MPIRMA_SPIN_US, MPIRMA_YIELD_US) to "
		"sleep in the kernel", MPIRMA_TCAT_WAIT, sleeps),
	COUNTER("mpirma_rma_ops", "RMA operations this process issued "
		"(put, get, accumulates, fetch_and_op, compare_and_swap)",
		MPIRMA_TCAT_RMA, rma_ops),
	COUNTER("mpirma_rma_direct", "of those, the ones done in user space "
		"on mapped window memory (the direct path), without the "
		"kernel", MPIRMA_TCAT_RMA, rma_direct),
	LEVEL("mpirma_windows", "windows this process has", MPIRMA_HK_WIN),
	LEVEL("mpirma_comms", "communicators this process created and has "
	      "not freed", MPIRMA_HK_COMM),
	LEVEL("mpirma_requests", "requests this process has", MPIRMA_HK_REQUEST),
};
#undef COUNTER
#undef LEVEL

#define NR_PVARS ((int)MPIRMA_ARRAY_SIZE(pvars))

static bool pvar_is_counter(const struct pvar *p)
{
	return p->klass == MPI_T_PVAR_CLASS_COUNTER;
}

/* The variable's value now, for the whole process. */
static uint64_t pvar_now(const struct pvar *p)
{
	if (pvar_is_counter(p))
		return __atomic_load_n((uint64_t *)((char *)&mpirma_counters +
						    p->counter),
				       __ATOMIC_RELAXED);
	return (uint64_t)__atomic_load_n(&mpirma_htables[p->kind].live,
					 __ATOMIC_RELAXED);
}

static int pvar_cat(int i)
{
	return (int)pvars[i].cat;
}

int mpirma_tool_pvars_of(int cat, int len, int *indices)
{
	return mpirma_tool_select(NR_PVARS, pvar_cat, cat, len, indices);
}

MPIRMA_TOOL_GET_NUM(pvar, NR_PVARS)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len,
			 int *verbosity, int *var_class,
			 MPI_Datatype *datatype, MPI_T_enum *enumtype,
			 char *desc, int *desc_len, int *bind, int *readonly,
			 int *continuous, int *atomic)
{
	const struct pvar *p;

	MPIRMA_TOOL_ENTER();
	if (pvar_index < 0 || pvar_index >= NR_PVARS)
		return MPI_T_ERR_INVALID_INDEX;
	p = &pvars[pvar_index];
	mpirma_tool_string(p->name, name, name_len);
	MPIRMA_TOOL_OUT(verbosity, p->verbosity);
	MPIRMA_TOOL_OUT(var_class, p->klass);
	MPIRMA_TOOL_OUT(datatype, MPI_UNSIGNED_LONG_LONG);
	MPIRMA_TOOL_OUT(enumtype, MPI_T_ENUM_NULL);
	mpirma_tool_string(p->desc, desc, desc_len);
	MPIRMA_TOOL_OUT(bind, MPI_T_BIND_NO_OBJECT);
	MPIRMA_TOOL_OUT(readonly, !pvar_is_counter(p));
	MPIRMA_TOOL_OUT(continuous, !pvar_is_counter(p));
	/* a counter handle's read and reset take one look at the counter */
	MPIRMA_TOOL_OUT(atomic, pvar_is_counter(p));
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_pvar_get_info)

/* A variable's name if it is of class @klass: names are per class. */
static const char *pvar_name(int i, int klass)
{
	return pvars[i].klass == klass ? pvars[i].name : NULL;
}

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
	MPIRMA_TOOL_ENTER();
	return mpirma_tool_lookup(name, NR_PVARS, pvar_name, var_class,
				  pvar_index);
}
MPIRMA_ALIAS(T_pvar_get_index)

/* ------------------------------------------------------------ sessions */

struct session {
	int kind;	/* MPIRMA_TOBJ_SESSION */
};

struct pvar_handle {
	int kind;	/* MPIRMA_TOBJ_PVAR */
	MPI_T_pvar_session session;
	const struct pvar *p;
	bool started;
	uint64_t acc;	/* the value while stopped */
	uint64_t base;	/* the counter when last started, reset or written */
};

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
	struct session *s;

	MPIRMA_TOOL_ENTER();
	if (!session)
		return MPI_T_ERR_INVALID;
	s = malloc(sizeof(*s));
	if (s)
		s->kind = MPIRMA_TOBJ_SESSION;
	return mpirma_tool_new(s, MPI_T_ERR_OUT_OF_SESSIONS, session);
}
MPIRMA_ALIAS(T_pvar_session_create)

/* The handles of @session in turn: the one after handle @prev (0: first). */
static struct pvar_handle *next_handle(MPI_T_pvar_session session, int *prev)
{
	struct pvar_handle *ph;

	while ((*prev = mpirma_handle_next(MPIRMA_HK_TOOL, *prev))) {
		ph = mpirma_tool_obj(*prev, MPIRMA_TOBJ_PVAR);
		if (ph && ph->session == session)
			return ph;
	}
	return NULL;
}

static void handle_drop(int h, struct pvar_handle *ph)
{
	mpirma_handle_free(MPIRMA_HK_TOOL, h);
	free(ph);
}

/* Freeing a session frees its handles. */
int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
	struct pvar_handle *ph;
	struct session *s;
	int h = 0;

	MPIRMA_TOOL_ENTER();
	s = session ? mpirma_tool_obj(*session, MPIRMA_TOBJ_SESSION) : NULL;
	if (!s)
		return MPI_T_ERR_INVALID_SESSION;
	while ((ph = next_handle(*session, &h)))
		handle_drop(h, ph);
	mpirma_handle_free(MPIRMA_HK_TOOL, *session);
	free(s);
	*session = MPI_T_PVAR_SESSION_NULL;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
			     void *obj_handle, MPI_T_pvar_handle *handle,
			     int *count)
{
	struct pvar_handle *ph;
	int ret;

	(void)obj_handle;	/* bound to no object: ignored */
	MPIRMA_TOOL_ENTER();
	if (!mpirma_tool_obj(session, MPIRMA_TOBJ_SESSION))
		return MPI_T_ERR_INVALID_SESSION;
	if (pvar_index < 0 || pvar_index >= NR_PVARS)
		return MPI_T_ERR_INVALID_INDEX;
	if (!handle)
		return MPI_T_ERR_INVALID;
	ph = calloc(1, sizeof(*ph));
	if (ph) {
		ph->kind = MPIRMA_TOBJ_PVAR;
		ph->session = session;
		ph->p = &pvars[pvar_index];
		ph->started = !pvar_is_counter(ph->p);
	}
	ret = mpirma_tool_new(ph, MPI_T_ERR_OUT_OF_HANDLES, handle);
	if (!ret)
		MPIRMA_TOOL_OUT(count, 1);
	return ret;
}
MPIRMA_ALIAS(T_pvar_handle_alloc)

/*
 * The handle @h of @session, for a call on one handle: MPI_SUCCESS and
 * *@ph, or MPI_T_ERR_INVALID_SESSION, MPI_T_ERR_INVALID_HANDLE
 * (MPI_T_PVAR_ALL_HANDLES included, where a call takes none).
 */
static int handle_of(MPI_T_pvar_session session, MPI_T_pvar_handle h,
		     struct pvar_handle **ph)
{
	if (!mpirma_tool_obj(session, MPIRMA_TOBJ_SESSION))
		return MPI_T_ERR_INVALID_SESSION;
	*ph = mpirma_tool_obj(h, MPIRMA_TOBJ_PVAR);
	if (!*ph || (*ph)->session != session)
		return MPI_T_ERR_INVALID_HANDLE;
	return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session,
			    MPI_T_pvar_handle *handle)
{
	struct pvar_handle *ph;
	int ret;

	MPIRMA_TOOL_ENTER();
	if (!handle)
		return MPI_T_ERR_INVALID_HANDLE;
	ret = handle_of(session, *handle, &ph);
	if (ret)
		return ret;
	handle_drop(*handle, ph);
	*handle = MPI_T_PVAR_HANDLE_NULL;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_pvar_handle_free)

/* ------------------------------------------------------------ values */

/*
 * The handle's value when its variable reads @now: what is read and what
 * is set from one look, so that nothing counted in between is lost.
 */
static uint64_t handle_value(const struct pvar_handle *ph, uint64_t now)
{
	if (!pvar_is_counter(ph->p))
		return now;
	return ph->started ? ph->acc + (now - ph->base) : ph->acc;
}

/* Sets a counter handle's value to @v from @now on. */
static void handle_set(struct pvar_handle *ph, uint64_t v, uint64_t now)
{
	ph->acc = v;
	ph->base = now;
}

/* The actions on a handle that MPI_T_PVAR_ALL_HANDLES may name. */
enum action { START, STOP, RESET };

/* @act on one handle: MPI_SUCCESS or the class the standard names. */
static int handle_act(struct pvar_handle *ph, enum action act)
{
	uint64_t now = pvar_now(ph->p);

	if (act == RESET) {
		if (!pvar_is_counter(ph->p))
			return MPI_T_ERR_PVAR_NO_WRITE;
		handle_set(ph, 0, now);
		return MPI_SUCCESS;
	}
	if (!pvar_is_counter(ph->p))
		return MPI_T_ERR_PVAR_NO_STARTSTOP;
	if (ph->started != (act == START))
		handle_set(ph, handle_value(ph, now), now);
	ph->started = act == START;
	return MPI_SUCCESS;
}

/*
 * Start, stop or reset, on one handle or on all of the session's: then
 * the continuous or read-only ones, to which the action does not apply,
 * are left alone (MPI 4.0 15.3.7).
 */
static int session_act(MPI_T_pvar_session session, MPI_T_pvar_handle h,
		       enum action act)
{
	struct pvar_handle *ph;
	int ret, i = 0;

	if (h != MPI_T_PVAR_ALL_HANDLES) {
		ret = handle_of(session, h, &ph);
		return ret ? ret : handle_act(ph, act);
	}
	if (!mpirma_tool_obj(session, MPIRMA_TOBJ_SESSION))
		return MPI_T_ERR_INVALID_SESSION;
	while ((ph = next_handle(session, &i)))
		if (pvar_is_counter(ph->p))
			handle_act(ph, act);
	return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
	MPIRMA_TOOL_ENTER();
	return session_act(session, handle, START);
}
MPIRMA_ALIAS(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
	MPIRMA_TOOL_ENTER();
	return session_act(session, handle, STOP);
}
MPIRMA_ALIAS(T_pvar_stop)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
	MPIRMA_TOOL_ENTER();
	return session_act(session, handle, RESET);
}
MPIRMA_ALIAS(T_pvar_reset)

/* Read, and with @reset set the value back to 0 at the same look. */
static int handle_read(MPI_T_pvar_session session, MPI_T_pvar_handle h,
		       void *buf, bool reset)
{
	struct pvar_handle *ph;
	uint64_t now;
	int ret;

	ret = handle_of(session, h, &ph);
	if (ret)
		return ret;
	if (!buf)
		return MPI_T_ERR_INVALID;
	if (reset && !pvar_is_counter(ph->p))
		return MPI_T_ERR_PVAR_NO_WRITE;
	now = pvar_now(ph->p);
	*(unsigned long long *)buf = handle_value(ph, now);
	if (reset)
		handle_set(ph, 0, now);
	return MPI_SUCCESS;
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
		     void *buf)
{
	MPIRMA_TOOL_ENTER();
	return handle_read(session, handle, buf, false);
}
MPIRMA_ALIAS(T_pvar_read)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session,
			  MPI_T_pvar_handle handle, void *buf)
{
	MPIRMA_TOOL_ENTER();
	return handle_read(session, handle, buf, true);
}
MPIRMA_ALIAS(T_pvar_readreset)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
		      const void *buf)
{
	struct pvar_handle *ph;
	int ret;

	MPIRMA_TOOL_ENTER();
	ret = handle_of(session, handle, &ph);
	if (ret)
		return ret;
	if (!buf)
		return MPI_T_ERR_INVALID;
	if (!pvar_is_counter(ph->p))
		return MPI_T_ERR_PVAR_NO_WRITE;
	handle_set(ph, *(const unsigned long long *)buf, pvar_now(ph->p));
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_pvar_write)
