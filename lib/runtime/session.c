// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * session.c - MPI 4.0 sessions: MPI_Session_init and _finalize, the
 * process sets and their groups, a session's info and error handler.
 *
 * A session holds the library joined to the job (init.c, mpirma_hold): the
 * first of MPI_Init and MPI_Session_init joins, in either order, and the
 * last of MPI_Finalize and MPI_Session_finalize leaves, so the World model
 * and the Sessions model share one job, one transport and one context id
 * space.  Communicators made from a session's groups
 * (MPI_Comm_create_from_group, comm_pset.c) are ordinary communicators.
 *
 * Two process sets exist, as a job of mpirma is one launch on one node:
 * "mpi://WORLD" (every rank of the job) and "mpi://SELF" (the caller).
 * Their names are matched without regard to case, as URIs' schemes are.
 *
 * A session's error handler calls are with the other kinds' in
 * lib/base/error.c, which reaches sessions through their registered header.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime.h"

/**
 * struct mpirma_session - a session
 * @hdr: its error handler (attributes and name are unused)
 * @handle: its MPI_Session
 * @thread_level: what its "thread_level" info key asked (and got)
 * @info: the info given to MPI_Session_init (a copy), or MPI_INFO_NULL
 */
struct mpirma_session {
	struct mpirma_objhdr hdr;
	MPI_Session handle;
	int thread_level;
	MPI_Info info;
};

static struct mpirma_session *session_get(MPI_Session s)
{
	return mpirma_handle_get(MPIRMA_HK_SESSION, s);
}

/* What base/ asks of sessions: their header, for the error handlers. */
static struct mpirma_objhdr *session_hdr(int handle)
{
	struct mpirma_session *s = session_get(handle);

	return s ? &s->hdr : NULL;
}

static const struct mpirma_kind_ops session_kind_ops = { .hdr = session_hdr };

static void __attribute__((constructor)) session_kind_register(void)
{
	mpirma_kind_register(MPIRMA_HK_SESSION, &session_kind_ops);
}

/*
 * In a session call: @var = the session of @handle, or the call returns
 * MPI_ERR_SESSION (raised on MPI_COMM_WORLD's handler: there is no session).
 */
#define GET_SESSION(var, handle)					\
	do {								\
		(var) = session_get(handle);				\
		if (!(var))						\
			return mpirma_raise(MPI_ERR_SESSION, MPIRMA_FUNC, \
					    (handle) == MPI_SESSION_NULL ? \
					    "MPI_SESSION_NULL" :	\
					    "invalid session %d", (handle)); \
	} while (0)

/* ------------------------------------------------------------ psets */

struct pset {
	const char *name;
	bool world;	/* else SELF */
};

static const struct pset psets[] = {
	{ "mpi://WORLD", true },
	{ "mpi://SELF", false },
};

/* The pset called @name, or NULL with MPI_ERR_ARG recorded. */
static const struct pset *pset_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < MPIRMA_ARRAY_SIZE(psets); i++)
		if (!strcasecmp(name, psets[i].name))
			return &psets[i];
	mpirma_err(MPI_ERR_ARG, "no process set \"%s\" (there are "
		   "\"mpi://WORLD\" and \"mpi://SELF\")",
		   name ? name : "(NULL)");
	return NULL;
}

static int pset_size(const struct pset *p)
{
	return p->world ? mpirma_proc.size : 1;
}

/* ------------------------------------------------------------ init */

static const char *const level_names[] = {
	[MPI_THREAD_SINGLE] = "MPI_THREAD_SINGLE",
	[MPI_THREAD_FUNNELED] = "MPI_THREAD_FUNNELED",
	[MPI_THREAD_SERIALIZED] = "MPI_THREAD_SERIALIZED",
	[MPI_THREAD_MULTIPLE] = "MPI_THREAD_MULTIPLE",
};

/*
 * The level the "thread_level" key of @info asks: MPI_THREAD_SINGLE
 * when there is none; an unknown value is a hint to ignore.
 */
static int level_asked(MPI_Info info)
{
	const char *v = mpirma_info_lookup(info, "thread_level");
	int i;

	for (i = 0; v && i < (int)MPIRMA_ARRAY_SIZE(level_names); i++)
		if (!strcasecmp(v, level_names[i]))
			return i;
	return MPI_THREAD_SINGLE;
}

/*
 * Raises a failure of MPI_Session_init, where no session exists: on
 * @errhandler as far as it can be (MPI_ERRORS_RETURN returns), else as
 * the library's own errors are.
 */
static int init_failed(MPI_Errhandler errhandler, int ret)
{
	if (errhandler == MPI_ERRORS_RETURN)
		return ret;
	return mpirma_raise(ret, "MPI_Session_init", NULL);
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler,
		      MPI_Session *session)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_session *s;
	int ret;

	if (!session)
		return init_failed(errhandler, mpirma_err(MPI_ERR_ARG,
							  "session is NULL"));
	*session = MPI_SESSION_NULL;
	ret = mpirma_info_arg_check(info);
	if (!ret && !mpirma_errhandler_fits(errhandler, MPIRMA_HK_SESSION))
		ret = mpirma_err(MPI_ERR_ARG, "%d is not a session error "
				 "handler", errhandler);
	if (ret)
		return init_failed(errhandler, ret);
	s = calloc(1, sizeof(*s));
	if (!s)
		return init_failed(errhandler, mpirma_err(MPI_ERR_NO_MEM,
							  "out of memory"));
	s->thread_level = level_asked(info);
	s->info = MPI_INFO_NULL;
	ret = mpirma_hold(s->thread_level);
	if (ret) {
		free(s);
		return init_failed(errhandler, ret);
	}
	mpirma_objhdr_init(&s->hdr, "");
	s->hdr.errhandler = errhandler;
	mpirma_errhandler_ref(errhandler);
	if (info != MPI_INFO_NULL)
		ret = PMPI_Info_dup(info, &s->info);
	if (!ret) {
		s->handle = mpirma_handle_alloc(MPIRMA_HK_SESSION, s);
		if (!s->handle)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of session "
					 "handles");
	}
	if (ret) {
		mpirma_objhdr_destroy(&s->hdr, MPIRMA_HK_SESSION, 0);
		if (s->info != MPI_INFO_NULL)
			PMPI_Info_free(&s->info);
		free(s);
		mpirma_release();
		return init_failed(errhandler, ret);
	}
	*session = s->handle;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Session_init)

int PMPI_Session_finalize(MPI_Session *session)
{
	struct mpirma_session *s;
	bool quiet;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!session)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "session is NULL");
	GET_SESSION(s, *session);
	quiet = s->hdr.errhandler == MPI_ERRORS_RETURN;
	mpirma_objhdr_destroy(&s->hdr, MPIRMA_HK_SESSION, *session);
	mpirma_handle_free(MPIRMA_HK_SESSION, *session);
	if (s->info != MPI_INFO_NULL)
		PMPI_Info_free(&s->info);
	free(s);
	*session = MPI_SESSION_NULL;
	/* The last holder leaves the job: collective over it then. */
	ret = mpirma_release();
	return quiet ? ret : mpirma_raise(ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Session_finalize)

/* ------------------------------------------------------------ psets */

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info,
			       int *npset_names)
{
	struct mpirma_session *s;
	int ret;

	MPIRMA_CHECK_INIT();
	GET_SESSION(s, session);
	ret = mpirma_info_arg_check(info);
	if (!ret && !npset_names)
		ret = mpirma_err(MPI_ERR_ARG, "npset_names is NULL");
	if (!ret)
		*npset_names = (int)MPIRMA_ARRAY_SIZE(psets);
	return mpirma_raise_session(s->handle, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Session_get_num_psets)

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n,
			      int *pset_len, char *pset_name)
{
	struct mpirma_session *s;
	const char *name;
	int ret, len;

	MPIRMA_CHECK_INIT();
	GET_SESSION(s, session);
	ret = mpirma_info_arg_check(info);
	if (!ret && (n < 0 || n >= (int)MPIRMA_ARRAY_SIZE(psets)))
		ret = mpirma_err(MPI_ERR_ARG, "there is no process set %d "
				 "(there are %d)", n,
				 (int)MPIRMA_ARRAY_SIZE(psets));
	if (!ret && (!pset_len || *pset_len < 0 ||
		     (*pset_len && !pset_name)))
		ret = mpirma_err(MPI_ERR_ARG, "pset_len is NULL or negative, "
				 "or pset_name is NULL");
	if (ret)
		return mpirma_raise_session(session, ret, MPIRMA_FUNC, NULL);
	/*
	 * pset_len 0 asks the length (with the NUL); else at most
	 * pset_len - 1 characters and a NUL are written.
	 */
	name = psets[n].name;
	len = (int)strlen(name) + 1;
	if (*pset_len)
		snprintf(pset_name, (size_t)*pset_len, "%s", name);
	*pset_len = len;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Session_get_nth_pset)

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name,
			       MPI_Info *info)
{
	struct mpirma_session *s;
	const struct pset *p;
	char size[16];
	int ret;

	MPIRMA_CHECK_INIT();
	GET_SESSION(s, session);
	p = pset_find(pset_name);
	ret = p ? MPI_SUCCESS : MPI_ERR_ARG;
	if (!ret && !info)
		ret = mpirma_err(MPI_ERR_ARG, "info is NULL");
	if (!ret)
		ret = PMPI_Info_create(info);
	if (!ret) {
		snprintf(size, sizeof(size), "%d", pset_size(p));
		ret = PMPI_Info_set(*info, "mpi_size", size);
	}
	return mpirma_raise_session(s->handle, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Session_get_pset_info)

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
				 MPI_Group *newgroup)
{
	struct mpirma_session *s;
	const struct pset *p;
	int *ranks = NULL, i, ret;

	MPIRMA_CHECK_INIT();
	GET_SESSION(s, session);
	p = pset_find(pset_name);
	ret = p ? MPI_SUCCESS : MPI_ERR_ARG;
	if (!ret && !newgroup)
		ret = mpirma_err(MPI_ERR_ARG, "newgroup is NULL");
	if (!ret) {
		ranks = malloc(pset_size(p) * sizeof(*ranks));
		if (!ranks)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (!ret) {
		for (i = 0; i < pset_size(p); i++)
			ranks[i] = p->world ? i : mpirma_proc.rank;
		ret = mpirma_group_new(pset_size(p), ranks, newgroup);
	}
	free(ranks);
	return mpirma_raise_session(s->handle, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Group_from_session_pset)

/* ------------------------------------------------------------ info */

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
	struct mpirma_session *s;
	int ret;

	MPIRMA_CHECK_INIT();
	GET_SESSION(s, session);
	if (!info_used)
		return mpirma_raise_session(session, MPI_ERR_ARG, MPIRMA_FUNC,
					    "info_used is NULL");
	/* What was given, with the thread level this session has. */
	ret = s->info != MPI_INFO_NULL ? PMPI_Info_dup(s->info, info_used) :
	      PMPI_Info_create(info_used);
	if (!ret)
		ret = PMPI_Info_set(*info_used, "thread_level",
				    level_names[mpirma_proc.thread_level]);
	return mpirma_raise_session(session, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Session_get_info)
