// SPDX-License-Identifier: GPL-2.0
/*
 * attr: attributes and keyvals on communicators, windows and datatypes.
 *
 * Keyvals with copy and delete callbacks: set, get, overwrite (the old
 * value's delete callback runs), delete, MPI_Comm_dup copying through the
 * copy callback (or not, with MPI_COMM_NULL_COPY_FN), MPI_Comm_free and
 * MPI_Win_free running the delete callbacks, freeing a keyval still in use.
 * The predefined attributes: MPI_TAG_UB (at least 32767), and on windows
 * MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR and
 * MPI_WIN_MODEL (MPI_WIN_UNIFIED) for every flavor.  Datatypes: the same
 * keyval life, MPI_Type_dup copying (MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN,
 * a copy callback that fails the dup), MPI_Type_free and delete_attr
 * running the delete callbacks, attributes on a predefined type, a keyval
 * of one kind refused by another.  Deletion order and callbacks that change
 * the object: MPI_Comm_free deletes the last set first, a delete callback
 * that deletes other attributes (or frees its own keyval, again), a freed
 * keyval's number still names its attributes but sets none (MPICH's attr
 * tests attrdelete, attrend2, fkeyval, keyval_double_free).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int copies, deletes;
static void *last_deleted;
static int extra_token;

static int copy_cb(MPI_Comm old, int key, void *extra, void *in, void *out,
		   int *flag)
{
	(void)old;
	(void)key;
	CHECK(extra == &extra_token, "copy callback: extra_state %p", extra);
	copies++;
	*(void **)out = (char *)in + 1;		/* a recognisable copy */
	*flag = 1;
	return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int key, void *val, void *extra)
{
	(void)comm;
	(void)key;
	CHECK(extra == &extra_token, "delete callback: extra_state %p", extra);
	deletes++;
	last_deleted = val;
	return MPI_SUCCESS;
}

static int win_deletes;

static int win_delete_cb(MPI_Win win, int key, void *val, void *extra)
{
	(void)win;
	(void)key;
	(void)val;
	(void)extra;
	win_deletes++;
	return MPI_SUCCESS;
}

static void test_comm_attrs(void)
{
	static char a[16];
	int key = MPI_KEYVAL_INVALID, nocopy = MPI_KEYVAL_INVALID, flag = -1;
	void *val = NULL;
	MPI_Comm dup, dup2;

	mtest_section("comm attributes");
	CHECK_MPI(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, &extra_token));
	CHECK(key != MPI_KEYVAL_INVALID, "keyval created");
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
					 MPI_COMM_NULL_DELETE_FN, &nocopy, NULL));

	CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, &flag));
	CHECK_EQ(flag, 0, "flag before set");

	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	CHECK_MPI(MPI_Comm_set_attr(dup, key, &a[0]));
	CHECK_MPI(MPI_Comm_set_attr(dup, nocopy, &a[8]));
	CHECK_MPI(MPI_Comm_get_attr(dup, key, &val, &flag));
	CHECK(flag == 1 && val == &a[0], "get: flag %d, %p want %p", flag, val,
	      (void *)&a[0]);

	/* overwriting deletes the old value */
	deletes = 0;
	CHECK_MPI(MPI_Comm_set_attr(dup, key, &a[2]));
	CHECK(deletes == 1 && last_deleted == &a[0],
	      "overwrite: %d deletes of %p", deletes, last_deleted);

	/* dup copies through the callback; the null copy function does not */
	copies = 0;
	CHECK_MPI(MPI_Comm_dup(dup, &dup2));
	CHECK_EQ(copies, 1, "copy callbacks on dup");
	CHECK_MPI(MPI_Comm_get_attr(dup2, key, &val, &flag));
	CHECK(flag == 1 && val == &a[3], "copied value %p, want %p", val,
	      (void *)&a[3]);
	CHECK_MPI(MPI_Comm_get_attr(dup2, nocopy, &val, &flag));
	CHECK_EQ(flag, 0, "MPI_COMM_NULL_COPY_FN attribute on the dup");

	/* delete, then free runs the remaining delete callbacks */
	deletes = 0;
	CHECK_MPI(MPI_Comm_delete_attr(dup, key));
	CHECK(deletes == 1 && last_deleted == &a[2], "delete_attr: %d, %p",
	      deletes, last_deleted);
	CHECK_MPI(MPI_Comm_get_attr(dup, key, &val, &flag));
	CHECK_EQ(flag, 0, "flag after delete");
	deletes = 0;
	CHECK_MPI(MPI_Comm_free(&dup2));
	CHECK(deletes == 1 && last_deleted == &a[3], "free: %d deletes of %p",
	      deletes, last_deleted);

	/* a keyval freed while in use stays valid for that use */
	CHECK_MPI(MPI_Comm_set_attr(dup, key, &a[5]));
	CHECK_MPI(MPI_Comm_free_keyval(&key));
	CHECK_EQ(key, MPI_KEYVAL_INVALID, "freed keyval");
	deletes = 0;
	CHECK_MPI(MPI_Comm_free(&dup));
	CHECK(deletes == 1 && last_deleted == &a[5],
	      "free after keyval free: %d deletes of %p", deletes, last_deleted);
	CHECK_MPI(MPI_Comm_free_keyval(&nocopy));

	/* MPI_COMM_DUP_FN copies the pointer itself */
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN,
					 &key, NULL));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &a[9]));
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	CHECK_MPI(MPI_Comm_get_attr(dup, key, &val, &flag));
	CHECK(flag == 1 && val == &a[9], "MPI_COMM_DUP_FN: %p", val);
	CHECK_MPI(MPI_Comm_free(&dup));
	CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
	CHECK_MPI(MPI_Comm_free_keyval(&key));
}

static int order[4], norder, kv_a, kv_b, kv_c;

static int order_cb(MPI_Comm comm, int key, void *val, void *extra)
{
	(void)comm, (void)key, (void)extra;
	if (norder < 4)
		order[norder++] = *(int *)val;
	return MPI_SUCCESS;
}

/* Deletes the other two attributes of @comm, and frees its own keyval. */
static int greedy_cb(MPI_Comm comm, int key, void *val, void *extra)
{
	(void)val, (void)extra;
	CHECK_MPI(MPI_Comm_delete_attr(comm, kv_a));
	CHECK_MPI(MPI_Comm_delete_attr(comm, kv_c));
	CHECK_MPI(MPI_Comm_free_keyval(&key));
	return MPI_SUCCESS;
}

/*
 * At MPI_Finalize MPI_COMM_SELF's attributes are deleted first, while MPI
 * still runs: a callback that finds MPI_Finalized true fails the job.
 */
static int at_finalize_cb(MPI_Comm comm, int keyval, void *val, void *extra)
{
	int flag = 1;

	(void)comm;
	(void)keyval;
	(void)val;
	(void)extra;
	MPI_Finalized(&flag);
	if (flag) {
		fprintf(stderr, "attr: MPI_Finalized is true in a delete "
			"callback of MPI_COMM_SELF at MPI_Finalize\n");
		exit(1);
	}
	return MPI_SUCCESS;
}

static void test_delete_order(void)
{
	static int v[4] = { 0, 1, 2, 3 };
	int keys[3], i, flag, saved;
	void *val;
	MPI_Comm dup;

	mtest_section("deletion order and reentrant callbacks");
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize_cb,
					 &saved, NULL));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, saved, NULL));
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	for (i = 0; i < 3; i++) {
		CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, order_cb,
						 &keys[i], NULL));
		CHECK_MPI(MPI_Comm_set_attr(dup, keys[i], &v[i]));
	}
	norder = 0;
	CHECK_MPI(MPI_Comm_free(&dup));
	CHECK(norder == 3 && order[0] == 2 && order[1] == 1 && order[2] == 0,
	      "free deletes the last set first: %d deletes, %d %d %d", norder,
	      order[0], order[1], order[2]);
	for (i = 0; i < 3; i++)
		CHECK_MPI(MPI_Comm_free_keyval(&keys[i]));

	/* a delete callback deleting its neighbours in the list */
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, order_cb, &kv_a,
					 NULL));
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, greedy_cb,
					 &kv_b, NULL));
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, order_cb, &kv_c,
					 NULL));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kv_a, &v[0]));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kv_b, &v[1]));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kv_c, &v[2]));
	norder = 0;
	CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_SELF, kv_b));
	CHECK_EQ(norder, 2, "attributes the callback deleted");
	CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_SELF, kv_a, &val, &flag));
	CHECK_EQ(flag, 0, "the neighbour is gone");

	/* freed, but its attribute lives: get and delete work, set does not */
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kv_a, &v[3]));
	saved = kv_a;
	CHECK_MPI(MPI_Comm_free_keyval(&kv_a));
	CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_SELF, saved, &val, &flag));
	CHECK(flag == 1 && val == &v[3], "get with a freed keyval in use");
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_SELF, saved, &v[0]),
		    MPI_ERR_KEYVAL);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	norder = 0;
	CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_SELF, saved));
	CHECK(norder == 1 && order[0] == 3, "delete with a freed keyval");
	CHECK_MPI(MPI_Comm_free_keyval(&kv_c));
}

static void test_predefined(void)
{
	int *tag_ub = NULL, flag = 0;

	mtest_section("predefined");
	CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
	CHECK(flag && tag_ub && *tag_ub >= 32767, "MPI_TAG_UB %d",
	      tag_ub ? *tag_ub : -1);
}

/* The window attributes of one window. */
static void check_win(MPI_Win win, void *base, MPI_Aint size, int disp_unit,
		      int flavor, const char *what)
{
	void *b = (void *)-1;
	MPI_Aint *sz = NULL;
	int *du = NULL, *fl = NULL, *model = NULL, flag = 0;

	CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
	CHECK(flag && b == base, "%s: MPI_WIN_BASE %p, want %p", what, b, base);
	CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
	CHECK(flag && sz && *sz == size, "%s: MPI_WIN_SIZE %ld, want %ld", what,
	      sz ? (long)*sz : -1L, (long)size);
	CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
	CHECK(flag && du && *du == disp_unit, "%s: MPI_WIN_DISP_UNIT %d", what,
	      du ? *du : -1);
	CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
	CHECK(flag && fl && *fl == flavor, "%s: MPI_WIN_CREATE_FLAVOR %d, want %d",
	      what, fl ? *fl : -1, flavor);
	CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
	CHECK(flag && model && *model == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL %d",
	      what, model ? *model : -1);
}

static void test_win_attrs(void)
{
	static double buf[16];
	MPI_Aint size = 3 * sizeof(double) + 8 * (mtest_rank % 8);
	int key, flag = -1;
	void *val, *base;
	MPI_Win win;

	mtest_section("window attributes");
	CHECK_MPI(MPI_Win_create(buf, size, sizeof(double), MPI_INFO_NULL,
				 MPI_COMM_WORLD, &win));
	check_win(win, buf, size, sizeof(double), MPI_WIN_FLAVOR_CREATE,
		  "create");

	CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete_cb,
					&key, NULL));
	CHECK_MPI(MPI_Win_set_attr(win, key, &buf[1]));
	CHECK_MPI(MPI_Win_get_attr(win, key, &val, &flag));
	CHECK(flag == 1 && val == &buf[1], "win attr %p", val);
	win_deletes = 0;
	CHECK_MPI(MPI_Win_delete_attr(win, key));
	CHECK_EQ(win_deletes, 1, "window delete callbacks");
	CHECK_MPI(MPI_Win_set_attr(win, key, &buf[2]));
	win_deletes = 0;
	CHECK_MPI(MPI_Win_free(&win));
	CHECK_EQ(win_deletes, 1, "delete callbacks at MPI_Win_free");
	CHECK_EQ(win, MPI_WIN_NULL, "freed window");
	CHECK_MPI(MPI_Win_free_keyval(&key));

	CHECK_MPI(MPI_Win_allocate(size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base,
				   &win));
	check_win(win, base, size, 4, MPI_WIN_FLAVOR_ALLOCATE, "allocate");
	CHECK_MPI(MPI_Win_free(&win));

	CHECK_MPI(MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
					  &base, &win));
	check_win(win, base, size, 1, MPI_WIN_FLAVOR_SHARED, "allocate_shared");
	CHECK_MPI(MPI_Win_free(&win));

	CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	check_win(win, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC, "dynamic");
	CHECK_MPI(MPI_Win_free(&win));
}

static int type_copies, type_deletes;
static MPI_Datatype type_deleted_on;

static int type_copy_cb(MPI_Datatype old, int key, void *extra, void *in,
			void *out, int *flag)
{
	(void)old;
	(void)key;
	CHECK(extra == &extra_token, "type copy callback: extra_state %p",
	      extra);
	type_copies++;
	*(void **)out = (char *)in + 1;
	*flag = 1;
	return MPI_SUCCESS;
}

static int type_delete_cb(MPI_Datatype type, int key, void *val, void *extra)
{
	(void)key;
	(void)extra;
	type_deletes++;
	type_deleted_on = type;
	last_deleted = val;
	return MPI_SUCCESS;
}

static int type_copy_fail(MPI_Datatype old, int key, void *extra, void *in,
			  void *out, int *flag)
{
	(void)old, (void)key, (void)extra, (void)in, (void)out, (void)flag;
	return MPI_ERR_OTHER;
}

static void test_type_attrs(void)
{
	static char a[16];
	int key = MPI_KEYVAL_INVALID, dupkey, nocopy, failkey, ckey, flag = -1;
	MPI_Datatype vec, dup, dup2;
	void *val = NULL;

	mtest_section("datatype attributes");
	CHECK_MPI(MPI_Type_create_keyval(type_copy_cb, type_delete_cb, &key,
					 &extra_token));
	CHECK(key != MPI_KEYVAL_INVALID, "type keyval created");
	CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN,
					 MPI_TYPE_NULL_DELETE_FN, &dupkey,
					 NULL));
	CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete_cb,
					 &nocopy, NULL));
	CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
	CHECK_MPI(MPI_Type_commit(&vec));

	CHECK_MPI(MPI_Type_get_attr(vec, key, &val, &flag));
	CHECK_EQ(flag, 0, "flag before set");
	CHECK_MPI(MPI_Type_set_attr(vec, key, &a[0]));
	CHECK_MPI(MPI_Type_set_attr(vec, dupkey, &a[6]));
	CHECK_MPI(MPI_Type_set_attr(vec, nocopy, &a[8]));
	CHECK_MPI(MPI_Type_get_attr(vec, key, &val, &flag));
	CHECK(flag == 1 && val == &a[0], "type get: flag %d, %p", flag, val);

	type_deletes = 0;
	CHECK_MPI(MPI_Type_set_attr(vec, key, &a[2]));
	CHECK(type_deletes == 1 && last_deleted == &a[0] &&
	      type_deleted_on == vec, "type overwrite: %d deletes of %p",
	      type_deletes, last_deleted);

	/* dup: the copy callback, MPI_TYPE_DUP_FN, nothing for the null one */
	type_copies = 0;
	CHECK_MPI(MPI_Type_dup(vec, &dup));
	CHECK_EQ(type_copies, 1, "copy callbacks on MPI_Type_dup");
	CHECK_MPI(MPI_Type_get_attr(dup, key, &val, &flag));
	CHECK(flag == 1 && val == &a[3], "copied type attribute %p", val);
	CHECK_MPI(MPI_Type_get_attr(dup, dupkey, &val, &flag));
	CHECK(flag == 1 && val == &a[6], "MPI_TYPE_DUP_FN: %p", val);
	CHECK_MPI(MPI_Type_get_attr(dup, nocopy, &val, &flag));
	CHECK_EQ(flag, 0, "MPI_TYPE_NULL_COPY_FN attribute on the dup");

	/* delete_attr, then free: each delete callback once, on its type */
	type_deletes = 0;
	CHECK_MPI(MPI_Type_delete_attr(dup, key));
	CHECK(type_deletes == 1 && last_deleted == &a[3] &&
	      type_deleted_on == dup, "type delete_attr: %d of %p",
	      type_deletes, last_deleted);
	CHECK_MPI(MPI_Type_get_attr(dup, key, &val, &flag));
	CHECK_EQ(flag, 0, "flag after delete");
	CHECK_MPI(MPI_Type_dup(dup, &dup2));
	type_deletes = 0;
	CHECK_MPI(MPI_Type_free(&dup));
	CHECK_EQ(type_deletes, 0, "delete callbacks of a type without them");
	CHECK_EQ(dup, MPI_DATATYPE_NULL, "freed type");
	CHECK_MPI(MPI_Type_free(&dup2));
	/* a keyval freed while in use lives on for its delete callback */
	CHECK_MPI(MPI_Type_free_keyval(&key));
	CHECK_EQ(key, MPI_KEYVAL_INVALID, "freed type keyval");
	type_deletes = 0;
	CHECK_MPI(MPI_Type_free(&vec));
	CHECK_EQ(type_deletes, 2, "delete callbacks at MPI_Type_free");

	/* a predefined type carries attributes too */
	CHECK_MPI(MPI_Type_set_attr(MPI_INT, nocopy, &a[1]));
	CHECK_MPI(MPI_Type_get_attr(MPI_INT, nocopy, &val, &flag));
	CHECK(flag == 1 && val == &a[1], "attribute on MPI_INT: %p", val);
	CHECK_MPI(MPI_Type_get_attr(MPI_DOUBLE, nocopy, &val, &flag));
	CHECK_EQ(flag, 0, "attribute on MPI_DOUBLE");
	type_deletes = 0;
	CHECK_MPI(MPI_Type_delete_attr(MPI_INT, nocopy));
	CHECK(type_deletes == 1 && type_deleted_on == MPI_INT,
	      "delete on MPI_INT: %d", type_deletes);

	/* errors: a failing copy fails the dup; kinds do not mix */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_MPI(MPI_Type_create_keyval(type_copy_fail,
					 MPI_TYPE_NULL_DELETE_FN, &failkey,
					 NULL));
	CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &vec));
	CHECK_MPI(MPI_Type_set_attr(vec, failkey, &a[4]));
	dup = 12345;
	CHECK_CLASS(MPI_Type_dup(vec, &dup), MPI_ERR_OTHER);
	CHECK_EQ(dup, MPI_DATATYPE_NULL, "the failed dup's handle");
	CHECK_MPI(MPI_Type_free(&vec));
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
					 MPI_COMM_NULL_DELETE_FN, &ckey, NULL));
	CHECK_CLASS(MPI_Type_set_attr(MPI_INT, ckey, &a[0]), MPI_ERR_KEYVAL);
	CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, nocopy, &a[0]),
		    MPI_ERR_KEYVAL);
	CHECK_CLASS(MPI_Type_free_keyval(&ckey), MPI_ERR_KEYVAL);
	CHECK_CLASS(MPI_Type_set_attr(MPI_DATATYPE_NULL, nocopy, &a[0]),
		    MPI_ERR_TYPE);
	CHECK_CLASS(MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &val, &flag),
		    MPI_ERR_KEYVAL);
	CHECK_CLASS(MPI_Type_delete_attr(MPI_INT, nocopy), MPI_ERR_KEYVAL);
	CHECK_MPI(MPI_Comm_free_keyval(&ckey));
	CHECK_MPI(MPI_Type_free_keyval(&failkey));
	CHECK_MPI(MPI_Type_free_keyval(&nocopy));
	CHECK_MPI(MPI_Type_free_keyval(&dupkey));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	static const mtest_fn tests[] = {
		test_comm_attrs, test_delete_order, test_predefined,
		test_win_attrs, test_type_attrs, NULL,
	};

	return mtest_run(&argc, &argv, "attr", tests);
}
