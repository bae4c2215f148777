// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tool.c - the tool information interface (MPI 4.0 chapter 15, MPI_T):
 * initialization, control variables, enumerations and categories.
 * Performance variables and their sessions are in tool_pvar.c, event
 * sources and events in tool_event.c.
 *
 * Control variables are mpirma's run-time settings, the MPIRMA_*
 * environment variables, each registered at load time by the file that
 * reads it (tool.h).  Every one is an MPI_INT bound to no object.  Those
 * fixed for the run (read once, or agreed by every rank at MPI_Init) are
 * MPI_T_SCOPE_READONLY, and writing them is MPI_T_ERR_CVAR_SET_NEVER; the
 * ones a process may change alone while MPI runs are MPI_T_SCOPE_LOCAL.
 *
 * The interface works before MPI_Init and after MPI_Finalize, with a
 * count of MPI_T_init_thread calls that MPI_T_finalize takes down; the
 * last MPI_T_finalize frees every handle and session left.  Its calls
 * return MPI_T_ERR_* classes and call no error handler, as the standard
 * says.  They take a lock of their own, so any thread level is provided;
 * what they read of the library (settings, counters) are single words.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "datatype.h"
#include "tool_impl.h"

struct mpirma_counters mpirma_counters;

int mpirma_tool_inits;
static pthread_mutex_t tool_mutex = PTHREAD_MUTEX_INITIALIZER;

void mpirma_tool_lock(void)
{
	pthread_mutex_lock(&tool_mutex);
}

void mpirma_tool_unlock(const int *unused)
{
	(void)unused;
	pthread_mutex_unlock(&tool_mutex);
}

/* ------------------------------------------------------------ helpers */

void mpirma_tool_string(const char *s, char *buf, int *len)
{
	size_t n = strlen(s), k;

	if (!len)
		return;
	if (buf && *len > 0) {
		k = n < (size_t)*len - 1 ? n : (size_t)*len - 1;
		memcpy(buf, s, k);
		buf[k] = '\0';
	}
	*len = (int)n + 1;
}

void *mpirma_tool_obj(int handle, enum mpirma_tool_obj kind)
{
	int *o = mpirma_handle_get(MPIRMA_HK_TOOL, handle);

	return o && *o == (int)kind ? o : NULL;
}

int mpirma_tool_new(void *obj, int full, int *h)
{
	if (!obj)
		return MPI_T_ERR_MEMORY;
	*h = mpirma_handle_alloc(MPIRMA_HK_TOOL, obj);
	if (!*h) {
		free(obj);
		return full;
	}
	return MPI_SUCCESS;
}

bool mpirma_env_on(const char *name)
{
	const char *v = getenv(name);

	return !v || strcmp(v, "0");
}

int mpirma_env_switch_check(const char *name, const char *meaning)
{
	const char *v = getenv(name);

	if (v && *v && strcmp(v, "0") && strcmp(v, "1"))
		return mpirma_err(MPI_ERR_OTHER, "%s=%s: %s", name, v, meaning);
	return MPI_SUCCESS;
}

int mpirma_tool_lookup(const char *name, int n,
		       const char *(*name_of)(int i, int arg), int arg,
		       int *index)
{
	const char *s;
	int i;

	if (!name || !index)
		return MPI_T_ERR_INVALID;
	for (i = 0; i < n; i++) {
		s = name_of(i, arg);
		if (s && !strcmp(s, name)) {
			*index = i;
			return MPI_SUCCESS;
		}
	}
	return MPI_T_ERR_INVALID_NAME;
}

int mpirma_tool_select(int n, int (*cat_of)(int i), int cat, int len,
		       int *indices)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (cat_of(i) != cat)
			continue;
		if (k < len)
			indices[k] = i;
		k++;
	}
	return k;
}

/* ------------------------------------------------------------ registry */

#define MAX_CVARS	32
#define MAX_ENUMS	8

static const struct mpirma_cvar *cvars[MAX_CVARS];
static int nr_cvars;
/* The enumerations of the control variables: MPI_T_enum i + 1 is enums[i]. */
static const struct mpirma_tool_enum *enums[MAX_ENUMS];
static int nr_enums;

void mpirma_cvar_register(const struct mpirma_cvar *v)
{
	int i;

	if (nr_cvars == MAX_CVARS)
		return;		/* a programming error: MAX_CVARS says */
	cvars[nr_cvars++] = v;
	if (!v->enumtype)
		return;
	for (i = 0; i < nr_enums && enums[i] != v->enumtype; i++)
		;
	if (i == nr_enums && nr_enums < MAX_ENUMS)
		enums[nr_enums++] = v->enumtype;
}

static MPI_T_enum enum_handle(const struct mpirma_tool_enum *e)
{
	int i;

	for (i = 0; e && i < nr_enums; i++)
		if (enums[i] == e)
			return i + 1;
	return MPI_T_ENUM_NULL;
}

/* MPIRMA_STRICT_TYPES belongs to this layer (lib/base/datatype.c). */
static int strict_types_read(void)
{
	return mpirma_strict_types();
}

MPIRMA_CVARS(base,
	{
		.name = "MPIRMA_STRICT_TYPES",
		.desc = "1: MPI_CHAR and MPI_WCHAR only in MPI_REPLACE and "
			"MPI_NO_OP, as the standard's table; 0: also in the C "
			"integer ops (the default)",
		.cat = MPIRMA_TCAT_TYPES,
		.scope = MPI_T_SCOPE_READONLY,
		.read = strict_types_read,
	},
)

/* ------------------------------------------------------------ init */

int PMPI_T_init_thread(int required, int *provided)
{
	mpirma_tool_lock();
	if (mpirma_tool_inits == INT32_MAX) {
		mpirma_tool_unlock(NULL);
		return MPI_T_ERR_CANNOT_INIT;
	}
	mpirma_tool_inits++;
	mpirma_tool_unlock(NULL);
	/* The lock makes every level safe; an unknown one gets the most. */
	if (provided)
		*provided = required >= MPI_THREAD_SINGLE &&
			    required <= MPI_THREAD_MULTIPLE ?
			    required : MPI_THREAD_MULTIPLE;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_init_thread)

int PMPI_T_finalize(void)
{
	int h = 0;

	MPIRMA_TOOL_ENTER();
	if (--mpirma_tool_inits)
		return MPI_SUCCESS;
	/* Down: what the tools left is freed. */
	while ((h = mpirma_handle_next(MPIRMA_HK_TOOL, h))) {
		free(mpirma_handle_get(MPIRMA_HK_TOOL, h));
		mpirma_handle_free(MPIRMA_HK_TOOL, h);
	}
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_finalize)

/* ------------------------------------------------------------ enums */

static const struct mpirma_tool_enum *enum_get(MPI_T_enum e)
{
	return e >= 1 && e <= nr_enums ? enums[e - 1] : NULL;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name,
			 int *name_len)
{
	const struct mpirma_tool_enum *e;

	MPIRMA_TOOL_ENTER();
	e = enum_get(enumtype);
	if (!e)
		return MPI_T_ERR_INVALID_HANDLE;
	MPIRMA_TOOL_OUT(num, e->n);
	mpirma_tool_string(e->name, name, name_len);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value,
			 char *name, int *name_len)
{
	const struct mpirma_tool_enum *e;

	MPIRMA_TOOL_ENTER();
	e = enum_get(enumtype);
	if (!e)
		return MPI_T_ERR_INVALID_HANDLE;
	if (index < 0 || index >= e->n)
		return MPI_T_ERR_INVALID_INDEX;
	MPIRMA_TOOL_OUT(value, index);
	mpirma_tool_string(e->items[index] ? e->items[index] : "", name,
			   name_len);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_enum_get_item)

/* ------------------------------------------------------------ cvars */

struct cvar_handle {
	int kind;	/* MPIRMA_TOBJ_CVAR */
	int index;
};

MPIRMA_TOOL_GET_NUM(cvar, nr_cvars)

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len,
			 int *verbosity, MPI_Datatype *datatype,
			 MPI_T_enum *enumtype, char *desc, int *desc_len,
			 int *bind, int *scope)
{
	const struct mpirma_cvar *v;

	MPIRMA_TOOL_ENTER();
	if (cvar_index < 0 || cvar_index >= nr_cvars)
		return MPI_T_ERR_INVALID_INDEX;
	v = cvars[cvar_index];
	mpirma_tool_string(v->name, name, name_len);
	MPIRMA_TOOL_OUT(verbosity, MPI_T_VERBOSITY_TUNER_BASIC);
	MPIRMA_TOOL_OUT(datatype, MPI_INT);
	MPIRMA_TOOL_OUT(enumtype, enum_handle(v->enumtype));
	mpirma_tool_string(v->desc, desc, desc_len);
	MPIRMA_TOOL_OUT(bind, MPI_T_BIND_NO_OBJECT);
	MPIRMA_TOOL_OUT(scope, v->scope);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_cvar_get_info)

static const char *cvar_name(int i, int unused)
{
	(void)unused;
	return cvars[i]->name;
}

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
	MPIRMA_TOOL_ENTER();
	return mpirma_tool_lookup(name, nr_cvars, cvar_name, 0, cvar_index);
}
MPIRMA_ALIAS(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle,
			     MPI_T_cvar_handle *handle, int *count)
{
	struct cvar_handle *ch;
	int ret;

	(void)obj_handle;	/* bound to no object: ignored */
	MPIRMA_TOOL_ENTER();
	if (cvar_index < 0 || cvar_index >= nr_cvars)
		return MPI_T_ERR_INVALID_INDEX;
	if (!handle)
		return MPI_T_ERR_INVALID;
	ch = malloc(sizeof(*ch));
	if (ch) {
		ch->kind = MPIRMA_TOBJ_CVAR;
		ch->index = cvar_index;
	}
	ret = mpirma_tool_new(ch, MPI_T_ERR_OUT_OF_HANDLES, handle);
	if (!ret)
		MPIRMA_TOOL_OUT(count, 1);
	return ret;
}
MPIRMA_ALIAS(T_cvar_handle_alloc)

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
	struct cvar_handle *ch;

	MPIRMA_TOOL_ENTER();
	ch = handle ? mpirma_tool_obj(*handle, MPIRMA_TOBJ_CVAR) : NULL;
	if (!ch)
		return MPI_T_ERR_INVALID_HANDLE;
	mpirma_handle_free(MPIRMA_HK_TOOL, *handle);
	free(ch);
	*handle = MPI_T_CVAR_HANDLE_NULL;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_cvar_handle_free)

/* The variable of handle @h, to be read into or written from @buf. */
static int cvar_of(MPI_T_cvar_handle h, const void *buf,
		   const struct mpirma_cvar **v)
{
	struct cvar_handle *ch = mpirma_tool_obj(h, MPIRMA_TOBJ_CVAR);

	if (!ch)
		return MPI_T_ERR_INVALID_HANDLE;
	if (!buf)
		return MPI_T_ERR_INVALID;
	*v = cvars[ch->index];
	return MPI_SUCCESS;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
	const struct mpirma_cvar *v;
	int ret;

	MPIRMA_TOOL_ENTER();
	ret = cvar_of(handle, buf, &v);
	if (!ret)
		*(int *)buf = v->read();
	return ret;
}
MPIRMA_ALIAS(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
	const struct mpirma_cvar *v;
	int ret;

	MPIRMA_TOOL_ENTER();
	ret = cvar_of(handle, buf, &v);
	if (ret)
		return ret;
	if (!v->write || v->scope == MPI_T_SCOPE_READONLY ||
	    v->scope == MPI_T_SCOPE_CONSTANT)
		return MPI_T_ERR_CVAR_SET_NEVER;
	return v->write(*(const int *)buf);
}
MPIRMA_ALIAS(T_cvar_write)

/* ------------------------------------------------------------ categories */

static const struct {
	const char *name;
	const char *desc;
} cats[MPIRMA_NR_TCATS] = {
	[MPIRMA_TCAT_ALL] = { "mpirma", "every variable of mpirma, in the "
			      "categories of what it concerns" },
	[MPIRMA_TCAT_WAIT] = { "mpirma_wait", "how a process waits for a "
			       "message: polling, yielding its CPU, sleeping "
			       "in the kernel" },
	[MPIRMA_TCAT_MSG] = { "mpirma_messages", "the message transport under "
			      "point-to-point and collectives: shared-memory "
			      "rings, the kernel mailbox, one-copy messages" },
	[MPIRMA_TCAT_RMA] = { "mpirma_rma", "one-sided communication: the "
			      "atomicity strategy, the direct path, the "
			      "operation queue, passive-target locks" },
	[MPIRMA_TCAT_TYPES] = { "mpirma_types", "datatypes and reduction "
				"operations" },
	[MPIRMA_TCAT_OBJECTS] = { "mpirma_objects", "the MPI objects this "
				  "process has" },
};

static int cvar_cat(int i)
{
	return (int)cvars[i]->cat;
}

static int cvars_of(int cat, int len, int *indices)
{
	return mpirma_tool_select(nr_cvars, cvar_cat, cat, len, indices);
}

/* The subcategories: every other one is in "mpirma". */
static int cats_of(int cat, int len, int *indices)
{
	int i, n = 0;

	if (cat != MPIRMA_TCAT_ALL)
		return 0;
	for (i = 1; i < MPIRMA_NR_TCATS; i++, n++)
		if (n < len)
			indices[n] = i;
	return n;
}

static bool cat_valid(int cat)
{
	return cat >= 0 && cat < MPIRMA_NR_TCATS;
}

MPIRMA_TOOL_GET_NUM(category, MPIRMA_NR_TCATS)

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len,
			     char *desc, int *desc_len, int *num_cvars,
			     int *num_pvars, int *num_categories)
{
	MPIRMA_TOOL_ENTER();
	if (!cat_valid(cat_index))
		return MPI_T_ERR_INVALID_INDEX;
	mpirma_tool_string(cats[cat_index].name, name, name_len);
	mpirma_tool_string(cats[cat_index].desc, desc, desc_len);
	MPIRMA_TOOL_OUT(num_cvars, cvars_of(cat_index, 0, NULL));
	MPIRMA_TOOL_OUT(num_pvars, mpirma_tool_pvars_of(cat_index, 0, NULL));
	MPIRMA_TOOL_OUT(num_categories, cats_of(cat_index, 0, NULL));
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_category_get_info)

static const char *cat_name(int i, int unused)
{
	(void)unused;
	return cats[i].name;
}

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
	MPIRMA_TOOL_ENTER();
	return mpirma_tool_lookup(name, MPIRMA_NR_TCATS, cat_name, 0,
				  cat_index);
}
MPIRMA_ALIAS(T_category_get_index)

/* The body of MPI_T_category_get_cvars, _pvars, _categories. */
static int category_list(int cat, int len, int *indices,
			 int (*of)(int, int, int *))
{
	if (!cat_valid(cat))
		return MPI_T_ERR_INVALID_INDEX;
	if (len < 0 || (len && !indices))
		return MPI_T_ERR_INVALID;
	of(cat, len, indices);
	return MPI_SUCCESS;
}

#define CATEGORY_LIST(name, of)						\
int PMPI_T_category_get_##name(int cat_index, int len, int indices[])	\
{									\
	MPIRMA_TOOL_ENTER();						\
	return category_list(cat_index, len, indices, of);		\
}									\
MPIRMA_ALIAS(T_category_get_##name)

CATEGORY_LIST(cvars, cvars_of)
CATEGORY_LIST(pvars, mpirma_tool_pvars_of)
CATEGORY_LIST(categories, cats_of)

/* Variables register at load time only: the categories never change. */
int PMPI_T_category_changed(int *update_number)
{
	MPIRMA_TOOL_ENTER();
	if (!update_number)
		return MPI_T_ERR_INVALID;
	*update_number = nr_cvars;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_category_changed)

/* No events: every category has none. */
static int events_of(int cat, int len, int *indices)
{
	(void)cat;
	(void)len;
	(void)indices;
	return 0;
}

CATEGORY_LIST(events, events_of)

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
	MPIRMA_TOOL_ENTER();
	if (!cat_valid(cat_index))
		return MPI_T_ERR_INVALID_INDEX;
	MPIRMA_TOOL_OUT(num_events, 0);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_category_get_num_events)
