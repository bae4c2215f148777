/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tool_impl.h - what tool.c (initialization, control variables,
 * categories, sources, events) and tool_pvar.c (performance variables
 * and their sessions) share, and nothing else includes.
 */
#ifndef MPIRMA_LIB_TOOL_IMPL_H
#define MPIRMA_LIB_TOOL_IMPL_H

#include "tool.h"

/* How many MPI_T_init_thread calls MPI_T_finalize has not matched. */
extern int mpirma_tool_inits;

/* The interface's own lock: taken by every MPI_T call (tool.c). */
void mpirma_tool_lock(void);
void mpirma_tool_unlock(const int *unused);

/*
 * Every MPI_T call but init and finalize starts here: takes the lock for
 * the rest of the call, and fails with MPI_T_ERR_NOT_INITIALIZED outside
 * MPI_T_init_thread ... MPI_T_finalize.
 */
#define MPIRMA_TOOL_ENTER()						\
	const int mpirma_tool_guard_					\
		__attribute__((cleanup(mpirma_tool_unlock), unused)) =	\
		(mpirma_tool_lock(), 0);				\
	do {								\
		if (!mpirma_tool_inits)					\
			return MPI_T_ERR_NOT_INITIALIZED;		\
	} while (0)

/*
 * Returns @s the standard's way (MPI 4.0 15.3.3): at most *@len - 1
 * characters and a NUL into @buf; *@len becomes strlen(@s) + 1.  Nothing
 * when @len is NULL; only the length when @buf is NULL or *@len is 0.
 */
void mpirma_tool_string(const char *s, char *buf, int *len);

/* Writes @v to *@p when @p is not NULL. */
#define MPIRMA_TOOL_OUT(p, v)						\
	do {								\
		if (p)							\
			*(p) = (v);					\
	} while (0)

/* MPI_T_@what_get_num(int *num), answering @expr. */
#define MPIRMA_TOOL_GET_NUM(what, expr)					\
int PMPI_T_##what##_get_num(int *num)					\
{									\
	MPIRMA_TOOL_ENTER();						\
	if (!num)							\
		return MPI_T_ERR_INVALID;				\
	*num = (expr);							\
	return MPI_SUCCESS;						\
}									\
MPIRMA_ALIAS(T_##what##_get_num)

/* What the interface keeps in the handle table (MPIRMA_HK_TOOL). */
enum mpirma_tool_obj {
	MPIRMA_TOBJ_CVAR = 1,	/* a control variable's handle */
	MPIRMA_TOBJ_SESSION,	/* a performance variable session */
	MPIRMA_TOBJ_PVAR,	/* a performance variable's handle */
};

/* The object of @handle if it is one of kind @kind, else NULL. */
void *mpirma_tool_obj(int handle, enum mpirma_tool_obj kind);

/*
 * A new handle for @obj (malloc'd, its first member the kind): MPI_SUCCESS
 * with *@h set, or @full (MPI_T_ERR_OUT_OF_HANDLES / _SESSIONS) with @obj
 * freed.
 */
int mpirma_tool_new(void *obj, int full, int *h);

/*
 * The index of what is named @name among @n (a variable, a category):
 * name_of(i, @arg) names the i-th, NULL when it does not count.
 * MPI_SUCCESS with *@index set, MPI_T_ERR_INVALID_NAME, or
 * MPI_T_ERR_INVALID for a NULL argument.
 */
int mpirma_tool_lookup(const char *name, int n,
		       const char *(*name_of)(int i, int arg), int arg,
		       int *index);

/*
 * The items of category @cat among @n (variables), whose categories
 * cat_of(i) gives: their number, and the first @len of their indexes
 * into @indices.
 */
int mpirma_tool_select(int n, int (*cat_of)(int i), int cat, int len,
		       int *indices);

/* tool_pvar.c: how many performance variables @cat has, their indexes. */
int mpirma_tool_pvars_of(int cat, int len, int *indices);

#endif /* MPIRMA_LIB_TOOL_IMPL_H */
