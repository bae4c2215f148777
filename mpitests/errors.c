// SPDX-License-Identifier: GPL-2.0
/*
 * errors: error classes for bad input, with MPI_ERRORS_RETURN.
 *
 * RMA: a target rank out of range (MPI_ERR_RANK), a displacement or a
 * datatype reaching past the target's window (MPI_ERR_RMA_RANGE), RMA
 * outside any epoch, unlock without lock, complete without start, wait
 * without post, lock twice (MPI_ERR_RMA_SYNC), a disallowed op/type pair,
 * MPI_NO_OP in MPI_Accumulate, a user-defined op in accumulate
 * (MPI_ERR_OP), origin and target of different basic types
 * (MPI_ERR_TYPE), a negative count (MPI_ERR_COUNT), a bad lock type
 * (MPI_ERR_LOCKTYPE).  Freed or never-created handles: datatype,
 * communicator, group, op, window, request, info, keyval.  Error handlers:
 * MPI_Comm_set/get_errhandler, a user handler on a window that is called
 * with the code and can return, MPI_Error_class and MPI_Error_string for
 * every class.  Operations after a failed one still work.
 *
 * Where an implementation may detect an RMA error either at the call or
 * at the synchronisation that completes it, both are accepted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define WIN_LONGS	8

static int right;

/* The class of the call's result or, when the call said nothing, of the
 * flush that completes it.
 */
static int rma_class(int rc, MPI_Win win, int target)
{
	if (rc == MPI_SUCCESS && target >= 0 && target < mtest_size)
		rc = MPI_Win_flush(target, win);
	return mtest_class(rc);
}

#define CHECK_RMA(call, target, cls)					\
	do {								\
		int __c = rma_class((call), win, (target));		\
		CHECK(__c == (cls), "%s returned %s, want %s", #call,	\
		      mtest_class_name(__c), mtest_class_name(cls));	\
	} while (0)

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)in;
	(void)inout;
	(void)len;
	(void)t;
}

static void test_rma_errors(void)
{
	long *mem, v[4] = { 1, 2, 3, 4 };
	MPI_Datatype vec, dbl = MPI_DOUBLE;
	MPI_Op uop;
	MPI_Win win;
	int bad_size = mtest_size;

	mtest_section("rma errors");
	CHECK_MPI(MPI_Win_allocate(WIN_LONGS * sizeof(long), sizeof(long),
				   MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
	CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	memset(mem, 0, WIN_LONGS * sizeof(long));
	MPI_Barrier(MPI_COMM_WORLD);

	/* outside any epoch */
	CHECK_CLASS(MPI_Put(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win),
		    MPI_ERR_RMA_SYNC);
	CHECK_CLASS(MPI_Get(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win),
		    MPI_ERR_RMA_SYNC);
	CHECK_CLASS(MPI_Accumulate(v, 1, MPI_LONG, right, 0, 1, MPI_LONG,
				   MPI_SUM, win), MPI_ERR_RMA_SYNC);
	CHECK_CLASS(MPI_Fetch_and_op(v, v + 1, MPI_LONG, right, 0, MPI_SUM, win),
		    MPI_ERR_RMA_SYNC);
	CHECK_CLASS(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC);
	CHECK_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
	CHECK_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
	CHECK_CLASS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
	CHECK_CLASS(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC);
	CHECK_CLASS(MPI_Win_lock(12345, right, 0, win), MPI_ERR_LOCKTYPE);

	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
	/* a second lock on the same target */
	CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win),
		    MPI_ERR_RMA_SYNC);
	/* ranks: out of range both ways */
	CHECK_RMA(MPI_Put(v, 1, MPI_LONG, bad_size, 0, 1, MPI_LONG, win), -1,
		  MPI_ERR_RANK);
	CHECK_RMA(MPI_Get(v, 1, MPI_LONG, -5, 0, 1, MPI_LONG, win), -1,
		  MPI_ERR_RANK);
	/* past the end, before the start, straddling the end */
	CHECK_RMA(MPI_Put(v, 1, MPI_LONG, right, WIN_LONGS, 1, MPI_LONG, win),
		  right, MPI_ERR_RMA_RANGE);
	{
		/* before the window: out of range, or a bad displacement */
		int c = rma_class(MPI_Get(v, 1, MPI_LONG, right, -1, 1, MPI_LONG,
					  win), win, right);

		CHECK(c == MPI_ERR_RMA_RANGE || c == MPI_ERR_DISP,
		      "get at displacement -1: %s, want MPI_ERR_RMA_RANGE",
		      mtest_class_name(c));
	}
	CHECK_RMA(MPI_Accumulate(v, 4, MPI_LONG, right, WIN_LONGS - 2, 4,
				 MPI_LONG, MPI_SUM, win), right,
		  MPI_ERR_RMA_RANGE);
	CHECK_RMA(MPI_Get_accumulate(v, 2, MPI_LONG, v + 2, 2, MPI_LONG, right,
				     1L << 40, 2, MPI_LONG, MPI_SUM, win),
		  right, MPI_ERR_RMA_RANGE);
	/* a datatype whose extent runs past the end */
	MPI_Type_vector(2, 1, WIN_LONGS, MPI_LONG, &vec);
	MPI_Type_commit(&vec);
	CHECK_RMA(MPI_Put(v, 2, MPI_LONG, right, 0, 1, vec, win), right,
		  MPI_ERR_RMA_RANGE);
	/* op/type rules */
	CHECK_RMA(MPI_Accumulate(v, 1, MPI_LONG, right, 0, 1, MPI_LONG,
				 MPI_NO_OP, win), right, MPI_ERR_OP);
	CHECK_RMA(MPI_Accumulate(v, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE,
				 MPI_BAND, win), right, MPI_ERR_OP);
	CHECK_RMA(MPI_Accumulate(v, 1, MPI_LONG, right, 0, 1, MPI_LONG,
				 MPI_MAXLOC, win), right, MPI_ERR_OP);
	MPI_Op_create(user_fn, 1, &uop);
	CHECK_RMA(MPI_Accumulate(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, uop,
				 win), right, MPI_ERR_OP);
	CHECK_RMA(MPI_Get_accumulate(v, 1, MPI_LONG, v + 1, 1, MPI_LONG, right,
				     0, 1, MPI_LONG, uop, win), right,
		  MPI_ERR_OP);
	CHECK_RMA(MPI_Fetch_and_op(v, v + 1, MPI_LONG, right, 0, uop, win),
		  right, MPI_ERR_OP);
	/* different basic types on the two sides */
	CHECK_RMA(MPI_Accumulate(v, 1, MPI_LONG, right, 0, 1, dbl, MPI_SUM, win),
		  right, MPI_ERR_TYPE);
	/* compare_and_swap is for integers */
	CHECK_RMA(MPI_Compare_and_swap(v, v + 1, v + 2, MPI_DOUBLE, right, 0,
				       win), right, MPI_ERR_TYPE);
	CHECK_RMA(MPI_Put(v, -1, MPI_LONG, right, 0, -1, MPI_LONG, win), right,
		  MPI_ERR_COUNT);
	CHECK_RMA(MPI_Put(v, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_LONG, win),
		  right, MPI_ERR_TYPE);

	/* none of that reached the target; a good put still works */
	v[0] = 77;
	CHECK_MPI(MPI_Put(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
	CHECK_MPI(MPI_Win_unlock(right, win));
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest_rank, 0, win));
	CHECK_MPI(MPI_Win_sync(win));
	CHECK_EQ(mem[0], 77, "window after the errors");
	CHECK_EQ(mem[1] | mem[2] | mem[3] | mem[4] | mem[5] | mem[6] | mem[7], 0,
		 "rest of the window");
	CHECK_MPI(MPI_Win_unlock(mtest_rank, win));

	/* PSCW misuse */
	CHECK_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
	{
		MPI_Group world;
		int flag;

		MPI_Comm_group(MPI_COMM_WORLD, &world);
		CHECK_MPI(MPI_Win_post(world, 0, win));
		CHECK_CLASS(MPI_Win_post(world, 0, win), MPI_ERR_RMA_SYNC);
		CHECK_MPI(MPI_Win_start(world, 0, win));
		CHECK_CLASS(MPI_Win_start(world, 0, win), MPI_ERR_RMA_SYNC);
		CHECK_MPI(MPI_Win_complete(win));
		CHECK_MPI(MPI_Win_wait(win));
		CHECK_CLASS(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC);
		MPI_Group_free(&world);
	}

	MPI_Type_free(&vec);
	MPI_Op_free(&uop);
	CHECK_MPI(MPI_Win_free(&win));
}

static int handler_calls, handler_code;

static void win_handler(MPI_Win *win, int *code, ...)
{
	(void)win;
	handler_calls++;
	handler_code = *code;
}

static void test_handlers(void)
{
	MPI_Errhandler eh, got;
	long mem[2], v = 1;
	MPI_Win win;
	int rc;

	mtest_section("error handlers");
	CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
	CHECK_EQ(got, MPI_ERRORS_ARE_FATAL, "default communicator handler");
	CHECK_MPI(MPI_Win_create(mem, sizeof(mem), sizeof(long), MPI_INFO_NULL,
				 MPI_COMM_WORLD, &win));
	CHECK_MPI(MPI_Win_get_errhandler(win, &got));
	CHECK_EQ(got, MPI_ERRORS_ARE_FATAL, "default window handler");
	CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
	CHECK_MPI(MPI_Win_set_errhandler(win, eh));
	rc = MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win);
	CHECK(rc != MPI_SUCCESS, "put outside an epoch succeeded");
	CHECK_EQ(handler_calls, 1, "user handler calls");
	CHECK_EQ(mtest_class(handler_code), MPI_ERR_RMA_SYNC,
		 "class given to the handler");
	CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
	CHECK_EQ(handler_calls, 2, "MPI_Win_call_errhandler");
	CHECK_MPI(MPI_Errhandler_free(&eh));
	CHECK_EQ(eh, MPI_ERRHANDLER_NULL, "freed handler");
	CHECK_MPI(MPI_Win_free(&win));
}

#ifdef MPIRMA
static int comm_calls;

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
	(void)comm;
	(void)code;
	comm_calls++;
}

/*
 * MPI-1's names (MPI_Errhandler_create, _set, _get), which codes still
 * call; Open MPI 4 declares them only when built for MPI-1 compatibility.
 */
static void test_mpi1_handlers(void)
{
	MPI_Errhandler eh, got;
	MPI_Comm dup;

	mtest_section("MPI-1 error handler names");
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	CHECK_MPI(MPI_Errhandler_create(comm_handler, &eh));
	CHECK_MPI(MPI_Errhandler_set(dup, eh));
	CHECK_MPI(MPI_Errhandler_get(dup, &got));
	CHECK_EQ(got, eh, "MPI_Errhandler_get");
	CHECK_MPI(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
	CHECK_EQ(comm_calls, 1, "the handler MPI_Errhandler_create made");
	CHECK_MPI(MPI_Errhandler_free(&got));
	CHECK_MPI(MPI_Errhandler_set(dup, MPI_ERRORS_RETURN));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Errhandler_set(MPI_COMM_NULL, MPI_ERRORS_RETURN),
		    MPI_ERR_COMM);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	CHECK_MPI(MPI_Errhandler_free(&eh));
	CHECK_MPI(MPI_Comm_free(&dup));
}
#endif

/* Freed handles are mpirma's ints; a host MPI's may be freed pointers. */
#ifdef MPIRMA
static void test_freed_handles(void)
{
	MPI_Datatype t, never = 4242;
	MPI_Comm c, saved_c;
	MPI_Group g, saved_g;
	MPI_Op op, saved_op;
	MPI_Win w, saved_w;
	MPI_Request req = 4242;
	MPI_Info info, saved_info;
	int size, key, saved_key, flag, buf[4] = { 0 };
	long mem;
	void *val;

	mtest_section("freed handles");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	MPI_Type_contiguous(2, MPI_INT, &t);
	MPI_Type_commit(&t);
	/* an uncommitted type cannot be used in communication */
	{
		MPI_Datatype u;

		MPI_Type_contiguous(2, MPI_INT, &u);
		CHECK_CLASS(MPI_Send(buf, 1, u, mtest_rank, 0, MPI_COMM_WORLD),
			    MPI_ERR_TYPE);
		MPI_Type_free(&u);
	}
	{
		MPI_Datatype saved = t;

		MPI_Type_free(&t);
		CHECK_CLASS(MPI_Type_size(saved, &size), MPI_ERR_TYPE);
		CHECK_CLASS(MPI_Send(buf, 1, saved, mtest_rank, 0,
				     MPI_COMM_WORLD), MPI_ERR_TYPE);
	}
	CHECK_CLASS(MPI_Type_size(never, &size), MPI_ERR_TYPE);
	CHECK_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE);

	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	saved_c = c;
	MPI_Comm_free(&c);
	CHECK_CLASS(MPI_Comm_size(saved_c, &size), MPI_ERR_COMM);
	CHECK_CLASS(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM);
	CHECK_CLASS(MPI_Barrier(saved_c), MPI_ERR_COMM);

	MPI_Comm_group(MPI_COMM_WORLD, &g);
	saved_g = g;
	MPI_Group_free(&g);
	CHECK_CLASS(MPI_Group_size(saved_g, &size), MPI_ERR_GROUP);

	MPI_Op_create(user_fn, 0, &op);
	saved_op = op;
	MPI_Op_free(&op);
	CHECK_EQ(op, MPI_OP_NULL, "freed op");
	CHECK_CLASS(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, saved_op,
				  MPI_COMM_WORLD), MPI_ERR_OP);
	CHECK_CLASS(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL,
				  MPI_COMM_WORLD), MPI_ERR_OP);

	MPI_Win_create(&mem, sizeof(mem), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
	saved_w = w;
	MPI_Win_free(&w);
	CHECK_EQ(w, MPI_WIN_NULL, "freed window");
	CHECK_CLASS(MPI_Win_fence(0, saved_w), MPI_ERR_WIN);
	CHECK_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);

	CHECK_CLASS(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
	req = MPI_REQUEST_NULL;
	CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));	/* null: fine */

	MPI_Info_create(&info);
	saved_info = info;
	MPI_Info_free(&info);
	CHECK_EQ(info, MPI_INFO_NULL, "freed info");
	CHECK_CLASS(MPI_Info_set(saved_info, "a", "b"), MPI_ERR_INFO);

	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
			       &key, NULL);
	saved_key = key;
	MPI_Comm_free_keyval(&key);
	CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, saved_key, &val, &flag),
		    MPI_ERR_KEYVAL);

	/* p2p argument errors */
	CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, mtest_size, 0, MPI_COMM_WORLD),
		    MPI_ERR_RANK);
	CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, mtest_rank, -3, MPI_COMM_WORLD),
		    MPI_ERR_TAG);
	CHECK_CLASS(MPI_Send(buf, -1, MPI_INT, mtest_rank, 0, MPI_COMM_WORLD),
		    MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Bcast(buf, 1, MPI_INT, mtest_size, MPI_COMM_WORLD),
		    MPI_ERR_ROOT);
	/* a message longer than the receive buffer */
	CHECK_MPI(MPI_Send(buf, 4, MPI_INT, mtest_rank, 5, MPI_COMM_WORLD));
	CHECK_CLASS(MPI_Recv(buf, 2, MPI_INT, mtest_rank, 5, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);

	/* after all that, the communicator still works */
	CHECK_MPI(MPI_Allreduce(&mtest_rank, &size, 1, MPI_INT, MPI_SUM,
				MPI_COMM_WORLD));
	CHECK_EQ(size, mtest_size * (mtest_size - 1) / 2, "allreduce afterwards");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}
#endif

#ifdef MPIRMA
static void test_strings(void)
{
	char s[MPI_MAX_ERROR_STRING];
	int cls, len, c;

	mtest_section("error strings");
	/* numbers that are no error code: an error, returned */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (c = 0; c <= MPI_ERR_LASTCODE; c++) {
		if (MPI_Error_class(c, &cls) != MPI_SUCCESS)
			continue;	/* not every number is a class */
		len = -1;
		CHECK_MPI(MPI_Error_string(c, s, &len));
		CHECK(len > 0 && len < MPI_MAX_ERROR_STRING &&
		      (int)strlen(s) == len, "MPI_Error_string(%d): length %d",
		      c, len);
	}
	/* the classes the tests rely on are their own class */
	for (c = MPI_ERR_BUFFER; c <= MPI_ERR_RMA_FLAVOR; c++) {
		if (MPI_Error_class(c, &cls) != MPI_SUCCESS)
			continue;
		CHECK_EQ(cls, c, "MPI_Error_class of a class");
	}
	CHECK_MPI(MPI_Error_class(MPI_SUCCESS, &cls));
	CHECK_EQ(cls, MPI_SUCCESS, "class of MPI_SUCCESS");
	CHECK(MPI_Error_class(MPI_ERR_RMA_SYNC, &cls) == MPI_SUCCESS &&
	      cls == MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC is a class");
	CHECK(MPI_Error_class(MPI_ERR_RMA_RANGE, &cls) == MPI_SUCCESS &&
	      cls == MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE is a class");
	/* user classes and codes */
	{
		int ucls, ucode;

		CHECK_MPI(MPI_Add_error_class(&ucls));
		CHECK_MPI(MPI_Add_error_code(ucls, &ucode));
		CHECK_MPI(MPI_Add_error_string(ucode, "my error"));
		CHECK_MPI(MPI_Error_class(ucode, &cls));
		CHECK_EQ(cls, ucls, "class of a user code");
		CHECK_MPI(MPI_Error_string(ucode, s, &len));
		CHECK(!strcmp(s, "my error"), "user string '%s'", s);
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}
#endif

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv, "errors");
	right = (mtest_rank + 1) % mtest_size;
	test_rma_errors();
	test_handlers();
#ifdef MPIRMA
	test_mpi1_handlers();
	test_freed_handles();
#endif
#ifdef MPIRMA
	/* The library's own error machinery; a host MPI's is not ours to test. */
	test_strings();
#endif
	return mtest_finish();
}
