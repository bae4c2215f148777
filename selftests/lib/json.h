/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - enough of a JSON reader for the selftests to walk a tool's
 * output (mpirma-stat --json): a strict parser into a tree, and lookups
 * by key (selftests/lib/json.c).
 */
#ifndef MPIRMA_SELFTEST_JSON_H
#define MPIRMA_SELFTEST_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* Enough JSON to walk the tool's output: a strict parser into a tree. */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	double num;
	bool b;
	char *str;
	struct jv *items;	/* J_ARR, J_OBJ */
	char **keys;		/* J_OBJ */
	size_t n;
};

/* Parses all of @text into @v (free it with jfree()); false: not JSON. */
bool jparse_all(const char *text, struct jv *v);
void jfree(struct jv *v);
const struct jv *jget(const struct jv *v, const char *key);
double jnum(const struct jv *v, const char *key);
int jbool(const struct jv *v, const char *key);
int jtype(const struct jv *v, const char *key);
const char *jstr(const struct jv *v, const char *key);
const struct jv *jfind_str(const struct jv *arr, const char *key, const char *val);
const struct jv *jfind_num(const struct jv *arr, const char *key, double val);

#endif /* MPIRMA_SELFTEST_JSON_H */
