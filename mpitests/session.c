// SPDX-License-Identifier: GPL-2.0
/*
 * session: MPI 4.0 sessions beside the World model, communicators made
 * from groups, MPI_Comm_disconnect, and the C side of the Fortran status
 * constants.
 *
 * The odd ranks initialize a session before MPI_Init and keep it past
 * MPI_Finalize (then make and use a communicator of theirs, with
 * MPI_Finalized true); the even ranks initialize theirs after MPI_Init and
 * finalize it first.  In between: the process sets and their info, a
 * session's info and error handlers, MPI_Comm_create_from_group of the
 * world and of two disjoint subgroups with one string tag,
 * MPI_Intercomm_create_from_groups between the lower and upper halves, a
 * disconnect that waits for a pending receive, a second session opened
 * and closed, and the errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static MPI_Session session;
static MPI_Group world_group;
static bool session_first;

/* The group of world ranks [lo, hi) step @step. */
static MPI_Group range_group(int lo, int hi, int step)
{
	int range[1][3] = { { lo, hi - 1, step } };
	MPI_Group g;

	CHECK_MPI(MPI_Group_range_incl(world_group, 1, range, &g));
	return g;
}

static void test_psets(void)
{
	char name[MPI_MAX_PSET_NAME_LEN], value[16];
	int n = 0, len, flag = 0, i;
	MPI_Info info;

	mtest_section("psets");
	CHECK_MPI(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &n));
	CHECK_EQ(n, 2, "number of psets");
	for (i = 0; i < n; i++) {
		len = 0;
		CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i,
						   &len, NULL));
		CHECK(len > 6 && len <= MPI_MAX_PSET_NAME_LEN, "length %d", len);
		len = sizeof(name);
		CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i,
						   &len, name));
		CHECK(!strcmp(name, i ? "mpi://SELF" : "mpi://WORLD"),
		      "pset %d is %s", i, name);
		CHECK_MPI(MPI_Session_get_pset_info(session, name, &info));
		CHECK_MPI(MPI_Info_get(info, "mpi_size", sizeof(value) - 1,
				       value, &flag));
		CHECK(flag && atoi(value) == (i ? 1 : mtest_size),
		      "%s's mpi_size is %s", name, flag ? value : "unset");
		MPI_Info_free(&info);
	}
	len = 4;
	CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, &len,
					   name));
	CHECK(!strcmp(name, "mpi"), "truncated to \"%s\"", name);
	CHECK_EQ(len, strlen("mpi://WORLD") + 1, "the length it needs");
	CHECK_CLASS(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 2, &len,
					     name), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Session_get_pset_info(session, "mpi://NOWHERE",
					      &info), MPI_ERR_ARG);
}

static MPI_Session handler_session;
static int handler_code;

static void session_handler(MPI_Session *s, int *code, ...)
{
	handler_session = *s;
	handler_code = *code;
}

static void test_info_and_errors(void)
{
	MPI_Errhandler eh, got;
	MPI_Session bad = session + 1000;
	char value[64];
	int flag = 0;
	MPI_Info info;
	MPI_Group g;

	mtest_section("info and errors");
	CHECK_MPI(MPI_Session_get_info(session, &info));
	CHECK_MPI(MPI_Info_get(info, "thread_level", sizeof(value) - 1, value,
			       &flag));
	CHECK(flag && !strncmp(value, "MPI_THREAD_", 11), "thread_level %s",
	      flag ? value : "unset");
	CHECK_MPI(MPI_Info_get(info, "mpitest", sizeof(value) - 1, value,
			       &flag));
	CHECK(flag && !strcmp(value, "yes"), "the key given at init");
	MPI_Info_free(&info);

	CHECK_MPI(MPI_Session_create_errhandler(session_handler, &eh));
	CHECK_MPI(MPI_Session_set_errhandler(session, eh));
	CHECK_MPI(MPI_Session_get_errhandler(session, &got));
	CHECK_EQ(got, eh, "the handler set");
	MPI_Errhandler_free(&got);
	CHECK_MPI(MPI_Session_call_errhandler(session, MPI_ERR_OTHER));
	CHECK_EQ(handler_session, session, "the handler's session");
	CHECK_EQ(handler_code, MPI_ERR_OTHER, "the handler's code");
	handler_code = 0;
	CHECK_CLASS(MPI_Group_from_session_pset(session, "mpi://nope", &g),
		    MPI_ERR_ARG);
	CHECK_EQ(handler_code, MPI_ERR_ARG, "an error of a session call");
	CHECK_MPI(MPI_Session_set_errhandler(session, MPI_ERRORS_RETURN));
	MPI_Errhandler_free(&eh);
	/* a communicator's handler is not a session's */
	CHECK_MPI(MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)
					     session_handler, &eh));
	CHECK_CLASS(MPI_Session_set_errhandler(session, eh), MPI_ERR_ARG);
	MPI_Errhandler_free(&eh);
	CHECK_CLASS(MPI_Session_get_num_psets(bad, MPI_INFO_NULL, &flag),
		    MPI_ERR_SESSION);
	CHECK_CLASS(MPI_Session_finalize(&bad), MPI_ERR_SESSION);
	CHECK_EQ(MPI_Session_f2c(MPI_Session_c2f(session)), session,
		 "c2f and f2c");
}

/* A communicator from @g (the caller in it): its ranks and a sum over it. */
static void check_comm(MPI_Comm c, MPI_Group g, const char *what)
{
	int size, rank, grank, sum = 0, want, i, result;
	MPI_Group cg;

	MPI_Group_size(g, &size);
	MPI_Group_rank(g, &grank);
	CHECK_MPI(MPI_Comm_rank(c, &rank));
	CHECK_EQ(rank, grank, what);
	CHECK_MPI(MPI_Comm_group(c, &cg));
	CHECK_MPI(MPI_Group_compare(cg, g, &result));
	CHECK_EQ(result, MPI_IDENT, what);
	MPI_Group_free(&cg);
	CHECK_MPI(MPI_Allreduce(&mtest_rank, &sum, 1, MPI_INT, MPI_SUM, c));
	for (want = 0, i = 0; i < size; i++) {
		int wr;

		MPI_Group_translate_ranks(g, 1, &i, world_group, &wr);
		want += wr;
	}
	CHECK_EQ(sum, want, what);
}

static void test_from_group(void)
{
	MPI_Group g, other, sub;
	MPI_Comm c, c2;

	mtest_section("comm from group");
	CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://WORLD", &g));
	CHECK_MPI(MPI_Comm_create_from_group(g, "mpitests.session.world",
					     MPI_INFO_NULL, MPI_ERRORS_RETURN,
					     &c));
	check_comm(c, g, "world from its pset");
	/* the same group and tag again, while the first one lives */
	CHECK_MPI(MPI_Comm_create_from_group(g, "mpitests.session.world",
					     MPI_INFO_NULL, MPI_ERRORS_RETURN,
					     &c2));
	check_comm(c2, g, "world again");
	MPI_Comm_free(&c2);
	MPI_Comm_free(&c);
	CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://SELF", &sub));
	CHECK_MPI(MPI_Comm_create_from_group(sub, "self", MPI_INFO_NULL,
					     MPI_ERRORS_RETURN, &c));
	check_comm(c, sub, "self");
	MPI_Comm_free(&c);
	MPI_Group_free(&sub);

	/* two disjoint subgroups, one string tag, at once */
	sub = range_group(mtest_rank % 2, mtest_size, 2);
	CHECK_MPI(MPI_Comm_create_from_group(sub, "parity", MPI_INFO_NULL,
					     MPI_ERRORS_RETURN, &c));
	check_comm(c, sub, "parity subgroup");
	MPI_Comm_free(&c);

	/* errors: not a member, no tag, not a communicator handler */
	if (mtest_size > 1) {
		other = range_group((mtest_rank + 1) % 2, mtest_size, 2);
		CHECK_CLASS(MPI_Comm_create_from_group(other, "x",
						       MPI_INFO_NULL,
						       MPI_ERRORS_RETURN, &c),
			    MPI_ERR_GROUP);
		MPI_Group_free(&other);
	}
	CHECK_CLASS(MPI_Comm_create_from_group(sub, NULL, MPI_INFO_NULL,
					       MPI_ERRORS_RETURN, &c),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Comm_create_from_group(MPI_GROUP_NULL, "x",
					       MPI_INFO_NULL,
					       MPI_ERRORS_RETURN, &c),
		    MPI_ERR_GROUP);
	MPI_Group_free(&sub);
	MPI_Group_free(&g);
}

static void test_intercomm_and_disconnect(void)
{
	int half = mtest_size / 2, lower = mtest_rank < half;
	int rsize = 0, flag = 0, v = -1, sum = 0, peer;
	MPI_Group mine, theirs;
	MPI_Request req;
	MPI_Comm ic, c;

	mtest_section("intercomm from groups, disconnect");
	if (mtest_size < 2)
		return;
	mine = lower ? range_group(0, half, 1) : range_group(half, mtest_size, 1);
	theirs = lower ? range_group(half, mtest_size, 1) : range_group(0, half, 1);
	CHECK_MPI(MPI_Intercomm_create_from_groups(mine, 0, theirs, 0,
						   "halves", MPI_INFO_NULL,
						   MPI_ERRORS_RETURN, &ic));
	CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
	CHECK(flag, "an inter-communicator");
	CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
	CHECK_EQ(rsize, lower ? mtest_size - half : half, "remote size");
	/* rank 0 of each side talks to rank 0 of the other */
	CHECK_MPI(MPI_Allreduce(&mtest_rank, &sum, 1, MPI_INT, MPI_SUM, ic));
	CHECK_EQ(sum, lower ? (mtest_size - 1) * mtest_size / 2 -
		 (half - 1) * half / 2 : (half - 1) * half / 2,
		 "sum over the remote group");
	MPI_Comm_rank(ic, &peer);
	if (peer == 0) {
		CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, 0, 5, ic, &req));
		CHECK_MPI(MPI_Send(&mtest_rank, 1, MPI_INT, 0, 5, ic));
	}
	/* disconnect waits for the receive, which stays to be completed */
	CHECK_MPI(MPI_Comm_disconnect(&ic));
	CHECK_EQ(ic, MPI_COMM_NULL, "disconnected");
	if (peer == 0) {
		CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
		CHECK(flag, "the pending receive completed by the disconnect");
		CHECK_EQ(v, lower ? half : 0, "the value received");
	}
	CHECK_CLASS(MPI_Intercomm_create_from_groups(mine, 0, mine, 0, "x",
						     MPI_INFO_NULL,
						     MPI_ERRORS_RETURN, &ic),
		    MPI_ERR_GROUP);
	CHECK_CLASS(MPI_Intercomm_create_from_groups(mine, 0, theirs,
						     mtest_size, "x",
						     MPI_INFO_NULL,
						     MPI_ERRORS_RETURN, &ic),
		    MPI_ERR_RANK);
	MPI_Group_free(&mine);
	MPI_Group_free(&theirs);
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
	CHECK_MPI(MPI_Comm_disconnect(&c));
	c = MPI_COMM_WORLD;
	CHECK_CLASS(MPI_Comm_disconnect(&c), MPI_ERR_COMM);
}

static void test_second_session(void)
{
	MPI_Session s2 = MPI_SESSION_NULL;
	int flag = 0;

	mtest_section("a second session");
	CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
	CHECK(s2 != MPI_SESSION_NULL && s2 != session, "a new session");
	CHECK_MPI(MPI_Session_finalize(&s2));
	CHECK_EQ(s2, MPI_SESSION_NULL, "finalized");
	CHECK_MPI(MPI_Initialized(&flag));
	CHECK(flag, "MPI_Init still holds");
}

static void test_f08_status(void)
{
	MPI_Status st = { .MPI_SOURCE = 3, .MPI_TAG = 4, .MPI_ERROR = 5 };
	MPI_Status back;
	MPI_F08_status f08;
	MPI_Fint f[MPI_F_STATUS_SIZE];

	mtest_section("f08 status");
	CHECK((void *)MPI_F08_STATUS_IGNORE == (void *)MPI_F_STATUS_IGNORE &&
	      (void *)MPI_F08_STATUSES_IGNORE == (void *)MPI_F_STATUSES_IGNORE &&
	      (void *)MPI_F_STATUS_IGNORE != (void *)MPI_F_STATUSES_IGNORE,
	      "the ignore constants");
	CHECK_MPI(MPI_Status_c2f08(&st, &f08));
	CHECK(f08.MPI_SOURCE == 3 && f08.MPI_TAG == 4 && f08.MPI_ERROR == 5,
	      "c2f08");
	CHECK_MPI(MPI_Status_f082f(&f08, f));
	CHECK_EQ(f[MPI_F_TAG], 4, "f082f");
	CHECK_MPI(MPI_Status_f2f08(f, &f08));
	CHECK_MPI(MPI_Status_f082c(&f08, &back));
	CHECK(!memcmp(&back, &st, sizeof(st)), "round trip");
	CHECK_CLASS(MPI_Status_c2f08(&st, MPI_F08_STATUS_IGNORE), MPI_ERR_ARG);
}

/* The odd ranks after MPI_Finalize: their session still works. */
static void after_finalize(void)
{
	MPI_Group odd;
	MPI_Comm c;
	int flag = 0;

	mtest_section("after MPI_Finalize");
	MPI_Finalized(&flag);
	CHECK(flag, "MPI_Finalized");
	MPI_Initialized(&flag);
	CHECK(flag, "MPI_Initialized stays true");
	odd = range_group(1, mtest_size, 2);
	CHECK_MPI(MPI_Comm_create_from_group(odd, "late", MPI_INFO_NULL,
					     MPI_ERRORS_RETURN, &c));
	check_comm(c, odd, "odd ranks after finalize");
	CHECK_MPI(MPI_Comm_free(&c));
	MPI_Group_free(&odd);
	MPI_Group_free(&world_group);
}

int main(int argc, char **argv)
{
	const char *r = getenv("MPIRMA_RANK");	/* before MPI_Init only */
	int flag = 1, ret;
	long before;
	MPI_Info info;

	session_first = r && atoi(r) % 2;
	if (session_first) {
		MPI_Info_create(&info);
		MPI_Info_set(info, "mpitest", "yes");
		MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE");
		if (MPI_Session_init(info, MPI_ERRORS_RETURN, &session))
			return 1;
		MPI_Info_free(&info);
		MPI_Initialized(&flag);
	}
	mtest_init(&argc, &argv, "session");
	CHECK(!flag == session_first, "MPI_Initialized with a session only");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (!session_first) {
		MPI_Info_create(&info);
		MPI_Info_set(info, "mpitest", "yes");
		CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &session));
		MPI_Info_free(&info);
	}
	MPI_Comm_group(MPI_COMM_WORLD, &world_group);
	test_psets();
	test_info_and_errors();
	test_from_group();
	test_intercomm_and_disconnect();
	test_second_session();
	test_f08_status();
	if (!session_first) {
		CHECK_MPI(MPI_Session_finalize(&session));
		MPI_Group_free(&world_group);
	}
	ret = mtest_finish();
	if (!session_first)
		return ret;
	before = mtest_failures();
	after_finalize();
	if (MPI_Session_finalize(&session) != MPI_SUCCESS) {
		fprintf(stderr, "rank %d: MPI_Session_finalize failed\n",
			mtest_rank);
		return 1;
	}
	return ret || mtest_failures() > before;
}
