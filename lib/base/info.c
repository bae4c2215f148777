// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * info.c - MPI_Info objects: ordered (key, value) string pairs.
 *
 * Keys keep the order in which they were first set (MPI_Info_get_nthkey).
 * MPI_INFO_ENV is a read-only object describing how the job was started.
 * Info calls do not require MPI to be initialized (MPI 4 allows them before
 * MPI_Init); their errors go to MPI_COMM_WORLD's handler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct mpirma_info {
	int n;
	int cap;
	char **keys;
	char **vals;
};

static struct mpirma_info info_env;
static bool info_env_ready;

static int info_add(struct mpirma_info *in, const char *key, const char *val);

/*
 * The keys of MPI_INFO_ENV into @in: how the job was started (maxprocs from
 * the launcher before MPI_Init too), where, on which host.  MPI class.
 */
static int env_fill(struct mpirma_info *in)
{
	char buf[64], wdir[1024];
	const char *size = getenv("MPIRMA_SIZE");
	int ret;

	if (mpirma_proc.size)
		snprintf(buf, sizeof(buf), "%d", mpirma_proc.size);
	else
		snprintf(buf, sizeof(buf), "%d", size && atoi(size) > 0 ?
			 atoi(size) : 1);
	ret = info_add(in, "maxprocs", buf);
	snprintf(buf, sizeof(buf), "%s",
		 mpirma_proc.thread_level == MPI_THREAD_SERIALIZED ?
		 "MPI_THREAD_SERIALIZED" :
		 mpirma_proc.thread_level == MPI_THREAD_FUNNELED ?
		 "MPI_THREAD_FUNNELED" : "MPI_THREAD_SINGLE");
	if (!ret)
		ret = info_add(in, "thread_level", buf);
	if (!ret && getcwd(wdir, sizeof(wdir)))
		ret = info_add(in, "wdir", wdir);
	if (!ret && gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		ret = info_add(in, "host", buf);
	}
	return ret;
}

/* MPI_INFO_ENV, filled on first use. */
static struct mpirma_info *env_info(void)
{
	if (!info_env_ready) {
		info_env_ready = true;
		env_fill(&info_env);
	}
	return &info_env;
}

static struct mpirma_info *info_get(MPI_Info info)
{
	if (info == MPI_INFO_ENV)
		return env_info();
	return mpirma_handle_get(MPIRMA_HK_INFO, info);
}

static int info_find(const struct mpirma_info *in, const char *key)
{
	int i;

	for (i = 0; i < in->n; i++)
		if (!strcmp(in->keys[i], key))
			return i;
	return -1;
}

/* Sets @key to @val (replacing).  MPI class. */
static int info_add(struct mpirma_info *in, const char *key, const char *val)
{
	int i = info_find(in, key);
	char *v = strdup(val), *k = NULL;

	if (!v)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	if (i >= 0) {
		free(in->vals[i]);
		in->vals[i] = v;
		return MPI_SUCCESS;
	}
	if (in->n == in->cap) {
		int ncap = in->cap ? 2 * in->cap : 8;
		char **nk = realloc(in->keys, ncap * sizeof(char *));
		char **nv;

		if (!nk)
			goto out_nomem;
		in->keys = nk;
		nv = realloc(in->vals, ncap * sizeof(char *));
		if (!nv)
			goto out_nomem;
		in->vals = nv;
		in->cap = ncap;
	}
	k = strdup(key);
	if (!k)
		goto out_nomem;
	in->keys[in->n] = k;
	in->vals[in->n] = v;
	in->n++;
	return MPI_SUCCESS;
out_nomem:
	free(v);
	return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
}

static void info_destroy(struct mpirma_info *in)
{
	int i;

	for (i = 0; i < in->n; i++) {
		free(in->keys[i]);
		free(in->vals[i]);
	}
	free(in->keys);
	free(in->vals);
	free(in);
}

const char *mpirma_info_lookup(MPI_Info info, const char *key)
{
	struct mpirma_info *in;
	int i;

	if (info == MPI_INFO_NULL)
		return NULL;
	in = info_get(info);
	if (!in)
		return NULL;
	i = info_find(in, key);
	return i < 0 ? NULL : in->vals[i];
}

static int check_key(const char *key)
{
	size_t n = key ? strlen(key) : 0;

	if (n == 0 || n > MPI_MAX_INFO_KEY)
		return mpirma_err(MPI_ERR_INFO_KEY, "info key of length %zu "
				  "(1..%d allowed)", n, MPI_MAX_INFO_KEY);
	return MPI_SUCCESS;
}

/*
 * The info object of an argument (@writable: a user one, MPI_INFO_ENV
 * cannot be changed).  MPI class (recorded).
 */
static int info_check(MPI_Info info, bool writable, struct mpirma_info **in)
{
	*in = writable && info == MPI_INFO_ENV ? NULL : info_get(info);
	if (!*in)
		return mpirma_err(MPI_ERR_INFO, "invalid info %d%s", info,
				  info == MPI_INFO_ENV ?
				  " (MPI_INFO_ENV is read-only)" : "");
	return MPI_SUCCESS;
}

int mpirma_info_arg_check(MPI_Info info)
{
	struct mpirma_info *in;

	return info == MPI_INFO_NULL ? MPI_SUCCESS :
	       info_check(info, false, &in);
}

/* In an API function: @var = info_check()'s object, or the error raised. */
#define GET_INFO(var, handle, writable)					\
	do {								\
		int ret_ = info_check((handle), (writable), &(var));	\
		if (ret_)						\
			return mpirma_raise(ret_, MPIRMA_FUNC, NULL);	\
	} while (0)

/*
 * The info object and key arguments: *@in as info_check(), *@i (if @i is
 * not NULL) the key's index in it, -1 when it is not set.  MPI class
 * (recorded).
 */
static int info_key(MPI_Info info, bool writable, const char *key,
		    struct mpirma_info **in, int *i)
{
	int ret = info_check(info, writable, in);

	if (!ret)
		ret = check_key(key);
	if (!ret && i)
		*i = info_find(*in, key);
	return ret;
}

int PMPI_Info_create(MPI_Info *info)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in = calloc(1, sizeof(*in));

	if (!in)
		return mpirma_raise(MPI_ERR_NO_MEM, MPIRMA_FUNC, NULL);
	*info = mpirma_handle_alloc(MPIRMA_HK_INFO, in);
	if (!*info) {
		free(in);
		return mpirma_raise(MPI_ERR_NO_MEM, MPIRMA_FUNC, NULL);
	}
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_create)

int PMPI_Info_free(MPI_Info *info)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in;

	GET_INFO(in, *info, true);
	mpirma_handle_free(MPIRMA_HK_INFO, *info);
	info_destroy(in);
	*info = MPI_INFO_NULL;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_free)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in;
	size_t n;
	int ret;

	ret = info_key(info, true, key, &in, NULL);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	if (!value)
		return mpirma_raise(MPI_ERR_INFO_VALUE, MPIRMA_FUNC,
				    "NULL info value");
	n = strlen(value);
	if (n > MPI_MAX_INFO_VAL)
		return mpirma_raise(MPI_ERR_INFO_VALUE, MPIRMA_FUNC,
				    "info value of length %zu (at most %d "
				    "allowed)", n, MPI_MAX_INFO_VAL);
	return mpirma_raise(info_add(in, key, value), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Info_set)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
		  int *flag)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in;
	int i, ret;

	ret = info_key(info, false, key, &in, &i);
	if (!ret && valuelen < 0)
		ret = mpirma_err(MPI_ERR_ARG, "negative valuelen %d", valuelen);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	*flag = i >= 0;
	if (i >= 0) {
		/* valuelen excludes the terminating NUL (the buffer has +1). */
		size_t n = strlen(in->vals[i]);

		if (n > (size_t)valuelen)
			n = valuelen;
		memcpy(value, in->vals[i], n);
		value[n] = '\0';
	}
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_get)

/*
 * MPI-4's MPI_Info_get: *@buflen counts the NUL.  With 0 it only answers
 * the length the value needs; else the value is cut to fit, and *@buflen
 * becomes the length it needs either way.
 */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen,
			 char *value, int *flag)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in;
	int i, ret;
	size_t n;

	ret = info_key(info, false, key, &in, &i);
	if (!ret && (!buflen || !flag))
		ret = mpirma_err(MPI_ERR_ARG, "%s is NULL",
				 buflen ? "flag" : "buflen");
	if (!ret && *buflen < 0)
		ret = mpirma_err(MPI_ERR_ARG, "negative buflen %d", *buflen);
	if (!ret && *buflen > 0 && !value)
		ret = mpirma_err(MPI_ERR_ARG, "value is NULL");
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	*flag = i >= 0;
	if (i < 0)
		return MPI_SUCCESS;
	n = strlen(in->vals[i]);
	if (*buflen > 0) {
		size_t k = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;

		memcpy(value, in->vals[i], k);
		value[k] = '\0';
	}
	*buflen = (int)n + 1;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_get_string)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in;

	GET_INFO(in, info, false);
	*nkeys = in->n;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in;

	GET_INFO(in, info, false);
	if (n < 0 || n >= in->n)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "key %d of an info with %d keys", n, in->n);
	strcpy(key, in->keys[n]);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_get_nthkey)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
			   int *flag)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in;
	int i, ret;

	ret = info_key(info, false, key, &in, &i);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	*flag = i >= 0;
	if (i >= 0)
		*valuelen = (int)strlen(in->vals[i]);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_get_valuelen)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in;
	int i, ret;

	ret = info_key(info, true, key, &in, &i);
	if (!ret && i < 0)
		ret = mpirma_err(MPI_ERR_INFO_NOKEY, "no key \"%s\"", key);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	free(in->keys[i]);
	free(in->vals[i]);
	memmove(&in->keys[i], &in->keys[i + 1],
		(in->n - i - 1) * sizeof(char *));
	memmove(&in->vals[i], &in->vals[i + 1],
		(in->n - i - 1) * sizeof(char *));
	in->n--;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_delete)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in, *out;
	int i, ret;

	GET_INFO(in, info, false);
	ret = PMPI_Info_create(newinfo);
	if (ret)
		return ret;
	out = info_get(*newinfo);
	for (i = 0; i < in->n; i++) {
		ret = info_add(out, in->keys[i], in->vals[i]);
		if (ret) {
			PMPI_Info_free(newinfo);
			return mpirma_raise(ret, MPIRMA_FUNC, NULL);
		}
	}
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_dup)

/*
 * MPI_Info_create_env (MPI-4): MPI_INFO_ENV's keys, and "command" and
 * "argv" (the arguments after the command, blank-separated) from @argc and
 * @argv when given.  Allowed before MPI_Init and after MPI_Finalize.
 */
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
	MPIRMA_LOCK_GUARD();
	struct mpirma_info *in;
	char *args = NULL;
	size_t len = 1;
	int i, ret;

	if (!info)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "info is NULL");
	ret = PMPI_Info_create(info);
	if (ret)
		return ret;
	in = info_get(*info);
	ret = env_fill(in);
	if (!ret && argc > 0 && argv && argv[0]) {
		ret = info_add(in, "command", argv[0]);
		for (i = 1; i < argc && argv[i]; i++)
			len += strlen(argv[i]) + 1;
		args = calloc(1, len);
		if (!ret && !args)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		for (i = 1; !ret && i < argc && argv[i]; i++) {
			if (i > 1)
				strcat(args, " ");
			strcat(args, argv[i]);
		}
		if (!ret)
			ret = info_add(in, "argv", args);
		free(args);
	}
	if (ret) {
		PMPI_Info_free(info);
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	}
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Info_create_env)
