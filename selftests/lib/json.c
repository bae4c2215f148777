// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - a strict JSON parser into a tree, and lookups by key, for the
 * selftests that read a tool's JSON output (json.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static const char *jskip(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* A string at @p (after its quote); no \u beyond ASCII needed here. */
static const char *jstring(const char *p, char **out)
{
	/* JSON's one-letter escapes and the characters they stand for */
	static const char escapes[] = "\"\\/ntrbf", escaped[] = "\"\\/\n\t\r\b\f";
	size_t len = 0;
	char *s = malloc(strlen(p) + 1);

	if (!s)
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			goto bad;
		if (*p == '\\') {
			unsigned int c;
			const char *e;

			p++;
			e = *p ? strchr(escapes, *p) : NULL;
			if (e) {
				s[len++] = escaped[e - escapes];
			} else if (*p == 'u') {
				if (sscanf(p + 1, "%4x", &c) != 1 || c > 0x7f)
					goto bad;
				s[len++] = c;
				p += 4;
			} else {
				goto bad;
			}
			p++;
		} else {
			s[len++] = *p++;
		}
	}
	if (*p != '"')
		goto bad;
	s[len] = 0;
	*out = s;
	return p + 1;
bad:
	free(s);
	return NULL;
}

static const char *jparse(const char *p, struct jv *v);

static const char *jcontainer(const char *p, struct jv *v, char close)
{
	p = jskip(p);
	if (*p == close)
		return p + 1;
	for (;;) {
		v->items = realloc(v->items, (v->n + 1) * sizeof(*v->items));
		v->keys = realloc(v->keys, (v->n + 1) * sizeof(*v->keys));
		if (!v->items || !v->keys)
			return NULL;
		v->keys[v->n] = NULL;
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		p = jskip(p);
		if (v->t == J_OBJ) {
			if (*p != '"')
				return NULL;
			p = jstring(p + 1, &v->keys[v->n]);
			if (!p)
				return NULL;
			p = jskip(p);
			if (*p++ != ':')
				return NULL;
		}
		p = jparse(p, &v->items[v->n++]);
		if (!p)
			return NULL;
		p = jskip(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *jparse(const char *p, struct jv *v)
{
	char *end;

	memset(v, 0, sizeof(*v));
	p = jskip(p);
	switch (*p) {
	case '{':
		v->t = J_OBJ;
		return jcontainer(p + 1, v, '}');
	case '[':
		v->t = J_ARR;
		return jcontainer(p + 1, v, ']');
	case '"':
		v->t = J_STR;
		return jstring(p + 1, &v->str);
	case 't':
		v->t = J_BOOL;
		v->b = true;
		return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f':
		v->t = J_BOOL;
		return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n':
		v->t = J_NULL;
		return strncmp(p, "null", 4) ? NULL : p + 4;
	default:
		if (*p != '-' && (*p < '0' || *p > '9'))
			return NULL;
		v->t = J_NUM;
		v->num = strtod(p, &end);
		return end == p ? NULL : end;
	}
}

/* The whole text must be one value. */
bool jparse_all(const char *text, struct jv *v)
{
	const char *p = jparse(text, v);

	return p && !*jskip(p);
}

void jfree(struct jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jfree(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

const struct jv *jget(const struct jv *v, const char *key)
{
	size_t i;

	if (!v || v->t != J_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

/* A number member, or -1 when missing or not a number. */
double jnum(const struct jv *v, const char *key)
{
	const struct jv *m = jget(v, key);

	return m && m->t == J_NUM ? m->num : -1;
}

/* A boolean member: 1, 0, or -1 when missing or not a boolean. */
int jbool(const struct jv *v, const char *key)
{
	const struct jv *m = jget(v, key);

	return m && m->t == J_BOOL ? m->b : -1;
}

/* A member's type, J_NULL when missing. */
int jtype(const struct jv *v, const char *key)
{
	const struct jv *m = jget(v, key);

	return m ? (int)m->t : J_NULL;
}

const char *jstr(const struct jv *v, const char *key)
{
	const struct jv *m = jget(v, key);

	return m && m->t == J_STR ? m->str : "";
}

/* The element of array @arr whose @key is the string @val (or NULL). */
const struct jv *jfind_str(const struct jv *arr, const char *key, const char *val)
{
	size_t i;

	if (!arr || arr->t != J_ARR)
		return NULL;
	for (i = 0; i < arr->n; i++)
		if (!strcmp(jstr(&arr->items[i], key), val))
			return &arr->items[i];
	return NULL;
}

const struct jv *jfind_num(const struct jv *arr, const char *key, double val)
{
	size_t i;

	if (!arr || arr->t != J_ARR)
		return NULL;
	for (i = 0; i < arr->n; i++)
		if (jnum(&arr->items[i], key) == val)
			return &arr->items[i];
	return NULL;
}
