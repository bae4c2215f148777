// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * attr.c - attribute keys and the attributes caching on communicators,
 * windows and datatypes; the object header they live in (with the error
 * handler and the name), looked up by kind and handle; communicator and
 * window names.
 *
 * A keyval is referenced by its handle (until MPI_X_free_keyval) and by each
 * attribute set with it, so freeing a keyval that is still in use keeps it
 * alive for those attributes' delete callbacks.  Its number stays valid (for
 * getting and deleting those attributes, not for setting new ones) until the
 * last reference goes; only then may it be handed out again.
 *
 * The attributes of an object are deleted in the reverse order of their
 * setting (the standard requires it at MPI_Finalize for MPI_COMM_SELF), one
 * at a time and unlinked before their callback, which may delete others.
 *
 * Predefined keys: MPI_TAG_UB .. MPI_APPNUM on communicators (answered here,
 * on every communicator), MPI_WIN_BASE .. MPI_WIN_MODEL on windows
 * (answered by the window code, through its struct mpirma_kind_ops).  They cannot be
 * set or deleted.  Datatypes have none.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../fortran_hooks.h"

struct mpirma_keyval {
	enum mpirma_hkind kind;		/* MPIRMA_HK_COMM, _WIN or _DATATYPE */
	/* MPI_Comm, MPI_Win, MPI_Datatype are int: one pair of types serves. */
	MPI_Comm_copy_attr_function *copy;
	MPI_Comm_delete_attr_function *del;
	void *extra;
	void (*release)(void *extra);	/* mpirma_keyval_on_free() */
	int refs;
	int handle;
	bool freed;			/* by MPI_X_free_keyval */
};

struct mpirma_attr {
	int keyval;			/* the handle it was set with */
	struct mpirma_keyval *kv;
	void *val;
	struct mpirma_attr *next;
};

#define KEYVAL_COMM_FIRST	MPI_TAG_UB
#define KEYVAL_COMM_LAST	MPI_APPNUM
#define KEYVAL_WIN_FIRST	MPI_WIN_BASE
#define KEYVAL_WIN_LAST		MPI_WIN_MODEL

static bool is_predefined_keyval(int k)
{
	return k >= KEYVAL_COMM_FIRST && k <= KEYVAL_WIN_LAST;
}

/* ------------------------------------------------------------ callbacks */

int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra,
			  void *in, void *out, int *flag)
{
	(void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out;
	*flag = 0;
	return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra, void *in,
		    void *out, int *flag)
{
	(void)oldcomm, (void)keyval, (void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *val, void *extra)
{
	(void)comm, (void)keyval, (void)val, (void)extra;
	return MPI_SUCCESS;
}

int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int keyval, void *extra, void *in,
			 void *out, int *flag)
{
	return MPI_COMM_NULL_COPY_FN(oldwin, keyval, extra, in, out, flag);
}

int MPI_WIN_DUP_FN(MPI_Win oldwin, int keyval, void *extra, void *in,
		   void *out, int *flag)
{
	return MPI_COMM_DUP_FN(oldwin, keyval, extra, in, out, flag);
}

int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int keyval, void *val, void *extra)
{
	return MPI_COMM_NULL_DELETE_FN(win, keyval, val, extra);
}

int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int keyval, void *extra,
			  void *in, void *out, int *flag)
{
	return MPI_COMM_NULL_COPY_FN(oldtype, keyval, extra, in, out, flag);
}

int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int keyval, void *extra, void *in,
		    void *out, int *flag)
{
	return MPI_COMM_DUP_FN(oldtype, keyval, extra, in, out, flag);
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype type, int keyval, void *val,
			    void *extra)
{
	return MPI_COMM_NULL_DELETE_FN(type, keyval, val, extra);
}

/* ------------------------------------------------------------ internals */

static void keyval_unref(struct mpirma_keyval *kv)
{
	if (--kv->refs > 0)
		return;
	if (kv->release)
		kv->release(kv->extra);
	mpirma_handle_free(MPIRMA_HK_KEYVAL, kv->handle);
	free(kv);
}

int mpirma_keyval_on_free(int keyval, void (*release)(void *extra_state))
{
	struct mpirma_keyval *kv = mpirma_handle_get(MPIRMA_HK_KEYVAL, keyval);

	if (!kv)
		return MPI_ERR_KEYVAL;
	kv->release = release;
	return MPI_SUCCESS;
}

void mpirma_objhdr_init(struct mpirma_objhdr *h, const char *name)
{
	h->errhandler = MPI_ERRORS_ARE_FATAL;
	h->attrs = NULL;
	snprintf(h->name, sizeof(h->name), "%s", name);
}

int mpirma_attrs_delete_all(struct mpirma_objhdr *h, enum mpirma_hkind kind,
			    int handle)
{
	int ret = MPI_SUCCESS;

	(void)kind;
	while (h->attrs) {
		struct mpirma_attr **p = &h->attrs, *a;
		int r = MPI_SUCCESS;

		/* The last set first; unlinked: the callback may delete more. */
		while ((*p)->next)
			p = &(*p)->next;
		a = *p;
		*p = NULL;
		if (a->kv->del)
			r = a->kv->del(handle, a->keyval, a->val, a->kv->extra);
		if (r != MPI_SUCCESS && ret == MPI_SUCCESS)
			ret = r;
		keyval_unref(a->kv);
		free(a);
	}
	return ret;
}

int mpirma_objhdr_destroy(struct mpirma_objhdr *h, enum mpirma_hkind kind,
			  int handle)
{
	int ret = mpirma_attrs_delete_all(h, kind, handle);

	mpirma_errhandler_unref(h->errhandler);
	h->errhandler = MPI_ERRORS_ARE_FATAL;
	return ret;
}

/* Appends an attribute at the end of the list (set order is kept). */
static int attr_append(struct mpirma_objhdr *h, int keyval,
		       struct mpirma_keyval *kv, void *val)
{
	struct mpirma_attr *a = malloc(sizeof(*a)), **p;

	if (!a)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	a->keyval = keyval;
	a->kv = kv;
	a->val = val;
	a->next = NULL;
	for (p = &h->attrs; *p; p = &(*p)->next)
		;
	*p = a;
	kv->refs++;
	return MPI_SUCCESS;
}

int mpirma_attrs_copy(int old, struct mpirma_objhdr *from,
		      struct mpirma_objhdr *to)
{
	struct mpirma_attr *a;

	for (a = from->attrs; a; a = a->next) {
		void *out = NULL;
		int flag = 0, ret;

		if (!a->kv->copy)
			continue;
		ret = a->kv->copy(old, a->keyval, a->kv->extra, a->val, &out,
				  &flag);
		if (ret != MPI_SUCCESS)
			return mpirma_err(ret, "the copy callback of keyval %d "
					  "failed with %d", a->keyval, ret);
		if (flag) {
			ret = attr_append(to, a->keyval, a->kv, out);
			if (ret)
				return ret;
		}
	}
	return MPI_SUCCESS;
}

/* The kinds' registered operations (mpirma_kind_register). */
static const struct mpirma_kind_ops *kind_ops[MPIRMA_NR_HKINDS];

void mpirma_kind_register(enum mpirma_hkind kind,
			  const struct mpirma_kind_ops *ops)
{
	kind_ops[kind] = ops;
}

struct mpirma_objhdr *mpirma_objhdr_get(enum mpirma_hkind kind, int handle)
{
	const struct mpirma_kind_ops *ops = kind_ops[kind];

	return ops && ops->hdr ? ops->hdr(handle) : NULL;
}

int mpirma_objhdr_check(enum mpirma_hkind kind, int handle,
			struct mpirma_objhdr **h)
{
	*h = mpirma_objhdr_get(kind, handle);
	if (*h)
		return MPI_SUCCESS;
	if (kind == MPIRMA_HK_WIN)
		return mpirma_err(MPI_ERR_WIN, "invalid window %d", handle);
	if (kind == MPIRMA_HK_DATATYPE)
		return mpirma_err(MPI_ERR_TYPE, "invalid datatype %d", handle);
	if (kind == MPIRMA_HK_SESSION)
		return mpirma_err(MPI_ERR_SESSION, handle == MPI_SESSION_NULL ?
				  "MPI_SESSION_NULL" : "invalid session %d",
				  handle);
	return mpirma_err(MPI_ERR_COMM, "invalid communicator %d", handle);
}

static struct mpirma_attr **attr_find(struct mpirma_objhdr *h,
				      struct mpirma_keyval *kv)
{
	struct mpirma_attr **p;

	for (p = &h->attrs; *p; p = &(*p)->next)
		if ((*p)->kv == kv)
			return p;
	return NULL;
}

/*
 * The keyval object of a user keyval handle of @kind: MPI_SUCCESS, or
 * MPI_ERR_KEYVAL (recorded).
 */
static int keyval_check(int keyval, enum mpirma_hkind kind,
			struct mpirma_keyval **kv)
{
	*kv = mpirma_handle_get(MPIRMA_HK_KEYVAL, keyval);
	if (*kv && (*kv)->kind == kind)
		return MPI_SUCCESS;
	return mpirma_err(MPI_ERR_KEYVAL, "invalid %s keyval %d",
			  kind == MPIRMA_HK_WIN ? "window" :
			  kind == MPIRMA_HK_DATATYPE ? "datatype" :
			  "communicator", keyval);
}

/* Runs the delete callback of an attribute value; MPI class (recorded). */
static int attr_delete_cb(struct mpirma_keyval *kv, int handle, int keyval,
			  void *val)
{
	int ret;

	if (!kv->del)
		return MPI_SUCCESS;
	ret = kv->del(handle, keyval, val, kv->extra);
	if (ret != MPI_SUCCESS)
		return mpirma_err(ret, "the delete callback of keyval %d failed "
				  "with %d", keyval, ret);
	return MPI_SUCCESS;
}

static int create_keyval(enum mpirma_hkind kind,
			 MPI_Comm_copy_attr_function *copy,
			 MPI_Comm_delete_attr_function *del, int *keyval,
			 void *extra)
{
	struct mpirma_keyval *kv = calloc(1, sizeof(*kv));

	if (!kv)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	kv->kind = kind;
	kv->copy = copy;
	kv->del = del;
	kv->extra = extra;
	kv->refs = 1;
	kv->handle = mpirma_handle_alloc(MPIRMA_HK_KEYVAL, kv);
	if (!kv->handle) {
		free(kv);
		return mpirma_err(MPI_ERR_NO_MEM, "out of keyval handles");
	}
	*keyval = kv->handle;
	return MPI_SUCCESS;
}

static int free_keyval(int *keyval, enum mpirma_hkind kind)
{
	struct mpirma_keyval *kv;
	int ret;

	if (is_predefined_keyval(*keyval))
		return mpirma_err(MPI_ERR_KEYVAL, "predefined keyval %d cannot "
				  "be freed", *keyval);
	ret = keyval_check(*keyval, kind, &kv);
	if (ret)
		return ret;
	/*
	 * Freeing again while attributes still hold it does nothing: a delete
	 * callback may free the keyval it was called for, as MPICH allows.
	 */
	if (!kv->freed) {
		kv->freed = true;
		keyval_unref(kv);
	}
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

/*
 * The object and keyval of the set and delete calls: @what is what the
 * call would do to a predefined attribute.  MPI class (recorded).
 */
static int attr_args(enum mpirma_hkind kind, int handle, int keyval,
		     const char *what, struct mpirma_objhdr **h,
		     struct mpirma_keyval **kv)
{
	int ret = mpirma_objhdr_check(kind, handle, h);

	*kv = NULL;
	if (ret)
		return ret;
	if (is_predefined_keyval(keyval))
		return mpirma_err(MPI_ERR_KEYVAL, "predefined attribute %d "
				  "cannot be %s", keyval, what);
	return keyval_check(keyval, kind, kv);
}

/* MPI_Comm_set_attr, MPI_Win_set_attr; MPI class (recorded). */
static int set_attr(enum mpirma_hkind kind, int handle, int keyval, void *val)
{
	struct mpirma_objhdr *h;
	struct mpirma_keyval *kv;
	struct mpirma_attr **p;
	int ret = attr_args(kind, handle, keyval, "set", &h, &kv);

	if (ret)
		return ret;
	if (kv->freed)
		return mpirma_err(MPI_ERR_KEYVAL, "keyval %d was freed", keyval);
	p = attr_find(h, kv);
	if (!p)
		return attr_append(h, keyval, kv, val);
	/* Replacing deletes the old value first, as the standard says. */
	ret = attr_delete_cb(kv, handle, keyval, (*p)->val);
	if (ret)
		return ret;
	/* the callback may have deleted attributes, this one too */
	p = attr_find(h, kv);
	if (!p)
		return attr_append(h, keyval, kv, val);
	(*p)->val = val;
	return MPI_SUCCESS;
}

/* MPI_Comm_delete_attr, MPI_Win_delete_attr; MPI class (recorded). */
static int delete_attr(enum mpirma_hkind kind, int handle, int keyval)
{
	struct mpirma_objhdr *h;
	struct mpirma_keyval *kv;
	struct mpirma_attr **p, *a;
	int ret = attr_args(kind, handle, keyval, "deleted", &h, &kv);

	if (ret)
		return ret;
	p = attr_find(h, kv);
	if (!p)
		return mpirma_err(MPI_ERR_KEYVAL, "no attribute with keyval %d",
				  keyval);
	/* Unlinked first: the callback may delete other attributes. */
	a = *p;
	*p = a->next;
	ret = attr_delete_cb(kv, handle, keyval, a->val);
	if (ret) {
		/* a failed callback leaves the attribute set */
		a->next = h->attrs;
		h->attrs = a;
		return ret;
	}
	keyval_unref(kv);
	free(a);
	return MPI_SUCCESS;
}

/* The values of the predefined communicator attributes. */
static int attr_tag_ub = INT_MAX;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;	/* every process can do I/O */
static int attr_wtime_is_global = 1;	/* one monotonic clock per node */
static int attr_universe_size;
static int attr_lastusedcode;
static int attr_appnum;

static void *comm_predefined(int keyval)
{
	switch (keyval) {
	case MPI_TAG_UB:
		return &attr_tag_ub;
	case MPI_HOST:
		return &attr_host;
	case MPI_IO:
		return &attr_io;
	case MPI_WTIME_IS_GLOBAL:
		return &attr_wtime_is_global;
	case MPI_UNIVERSE_SIZE:
		attr_universe_size = mpirma_proc.size;
		return &attr_universe_size;
	case MPI_LASTUSEDCODE:
		attr_lastusedcode = mpirma_last_used_code();
		return &attr_lastusedcode;
	case MPI_APPNUM:
		return &attr_appnum;
	}
	return NULL;
}

/*
 * MPI_Comm_get_attr, MPI_Win_get_attr: the predefined keys, then the user
 * keyvals.  MPI class (recorded).
 */
static int get_attr(enum mpirma_hkind kind, int handle, int keyval,
		    void *val, int *flag)
{
	struct mpirma_objhdr *h;
	struct mpirma_keyval *kv;
	struct mpirma_attr **p;
	void *pre;
	int ret = mpirma_objhdr_check(kind, handle, &h);

	if (ret)
		return ret;
	if (kind == MPIRMA_HK_WIN) {
		if (keyval >= KEYVAL_WIN_FIRST && keyval <= KEYVAL_WIN_LAST &&
		    kind_ops[kind]->predefined_attr)
			return kind_ops[kind]->predefined_attr(handle, keyval,
							       val, flag);
	} else if (kind == MPIRMA_HK_COMM) {
		pre = comm_predefined(keyval);
		if (pre) {
			*(void **)val = pre;
			*flag = 1;
			return MPI_SUCCESS;
		}
	}
	ret = keyval_check(keyval, kind, &kv);
	if (ret)
		return ret;
	p = attr_find(h, kv);
	*flag = p != NULL;
	if (p)
		*(void **)val = (*p)->val;
	return MPI_SUCCESS;
}

/* MPI_Comm_set_name, MPI_Win_set_name; MPI class (recorded). */
static int set_name(enum mpirma_hkind kind, int handle, const char *name)
{
	struct mpirma_objhdr *h;
	int ret = mpirma_objhdr_check(kind, handle, &h);

	if (!ret)
		snprintf(h->name, sizeof(h->name), "%s", name);
	return ret;
}

/* MPI_Comm_get_name, MPI_Win_get_name; MPI class (recorded). */
static int get_name(enum mpirma_hkind kind, int handle, char *name,
		    int *resultlen)
{
	struct mpirma_objhdr *h;
	int ret = mpirma_objhdr_check(kind, handle, &h);

	if (!ret) {
		strcpy(name, h->name);
		*resultlen = (int)strlen(name);
	}
	return ret;
}

/* ------------------------------------------------ API: comm, win, type */

/*
 * The keyval and attribute calls of communicators, windows and datatypes
 * (@Obj Comm, Win or Type, handles of @obj_t, objects of @kind): one
 * definition makes every kind's.  The attribute calls raise on their
 * object with @raise_obj (for an invalid handle that is MPI_COMM_WORLD's
 * handler; datatypes have none: raise_type), the keyval calls on
 * MPI_COMM_WORLD.
 */
#define ATTR_CALLS(Obj, obj_t, kind, raise_obj)				\
int PMPI_##Obj##_create_keyval(MPI_##Obj##_copy_attr_function *copy_fn, \
			       MPI_##Obj##_delete_attr_function *delete_fn, \
			       int *keyval, void *extra_state)		\
{									\
	MPIRMA_CHECK_INIT();						\
	return mpirma_raise(create_keyval(kind, copy_fn, delete_fn,	\
					  keyval, extra_state),		\
			    MPIRMA_FUNC, NULL);				\
}									\
MPIRMA_ALIAS(Obj##_create_keyval)					\
									\
int PMPI_##Obj##_free_keyval(int *keyval)				\
{									\
	MPIRMA_CHECK_INIT();						\
	return mpirma_raise(free_keyval(keyval, kind), MPIRMA_FUNC, NULL); \
}									\
MPIRMA_ALIAS(Obj##_free_keyval)						\
									\
int PMPI_##Obj##_set_attr(obj_t obj, int keyval, void *attribute_val)	\
{									\
	MPIRMA_CHECK_INIT();						\
	return raise_obj(obj, set_attr(kind, obj, keyval, attribute_val), \
			 MPIRMA_FUNC, NULL);				\
}									\
MPIRMA_ALIAS(Obj##_set_attr)						\
									\
int PMPI_##Obj##_get_attr(obj_t obj, int keyval, void *attribute_val,	\
			  int *flag)					\
{									\
	MPIRMA_CHECK_INIT();						\
	return raise_obj(obj, get_attr(kind, obj, keyval, attribute_val, \
				       flag), MPIRMA_FUNC, NULL);	\
}									\
MPIRMA_ALIAS(Obj##_get_attr)						\
									\
int PMPI_##Obj##_delete_attr(obj_t obj, int keyval)			\
{									\
	MPIRMA_CHECK_INIT();						\
	return raise_obj(obj, delete_attr(kind, obj, keyval), MPIRMA_FUNC, \
			 NULL);						\
}									\
MPIRMA_ALIAS(Obj##_delete_attr)

/* The name calls of communicators and windows (datatype.c has the types'). */
#define NAME_CALLS(Obj, obj_t, kind)					\
int PMPI_##Obj##_set_name(obj_t obj, const char *name)			\
{									\
	MPIRMA_CHECK_INIT();						\
	return mpirma_raise(set_name(kind, obj, name), MPIRMA_FUNC, NULL); \
}									\
MPIRMA_ALIAS(Obj##_set_name)						\
									\
int PMPI_##Obj##_get_name(obj_t obj, char *name, int *resultlen)	\
{									\
	MPIRMA_CHECK_INIT();						\
	return mpirma_raise(get_name(kind, obj, name, resultlen),	\
			    MPIRMA_FUNC, NULL);				\
}									\
MPIRMA_ALIAS(Obj##_get_name)

#define raise_type(type, ...) mpirma_raise(__VA_ARGS__)

ATTR_CALLS(Comm, MPI_Comm, MPIRMA_HK_COMM, mpirma_raise_comm)
ATTR_CALLS(Win, MPI_Win, MPIRMA_HK_WIN, mpirma_raise_win)
ATTR_CALLS(Type, MPI_Datatype, MPIRMA_HK_DATATYPE, raise_type)
NAME_CALLS(Comm, MPI_Comm, MPIRMA_HK_COMM)
NAME_CALLS(Win, MPI_Win, MPIRMA_HK_WIN)

/* ------------------------------------------------------------ API: MPI-1 */

int PMPI_Keyval_create(MPI_Copy_function *copy_fn,
		       MPI_Delete_function *delete_fn, int *keyval,
		       void *extra_state)
{
	return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval,
				       extra_state);
}
MPIRMA_ALIAS(Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
	return PMPI_Comm_free_keyval(keyval);
}
MPIRMA_ALIAS(Keyval_free)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
	return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}
MPIRMA_ALIAS(Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
MPIRMA_ALIAS(Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
	return PMPI_Comm_delete_attr(comm, keyval);
}
MPIRMA_ALIAS(Attr_delete)
