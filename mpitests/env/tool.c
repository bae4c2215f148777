// SPDX-License-Identifier: GPL-2.0
/*
 * tool.c - the tool information interface (MPI_T) in the env test: its
 * reference count across MPI_Init and MPI_Finalize, every control and
 * performance variable, category and event source read, a control variable
 * written, a session's handles started, stopped, read, written and reset
 * against the traffic this process makes, and the error classes (invalid
 * index, name, handle, session; not initialized; cannot be set or
 * written).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mtest.h"
#include "tool.h"

#define T_CHECK(call, cls) CHECK_CLASS(call, cls)

static int spin_before;		/* MPIRMA_SPIN_US read before MPI_Init */

/* The index of control variable @name, or -1. */
static int cvar_index(const char *name)
{
	int i = -1;

	CHECK_MPI(MPI_T_cvar_get_index(name, &i));
	return i;
}

/* The value of control variable @index, through a handle of its own. */
static int cvar_value(int index)
{
	MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
	int v = INT_MIN, count = -1;

	CHECK_MPI(MPI_T_cvar_handle_alloc(index, NULL, &h, &count));
	CHECK_EQ(count, 1, "cvar handle count");
	CHECK_MPI(MPI_T_cvar_read(h, &v));
	CHECK_MPI(MPI_T_cvar_handle_free(&h));
	CHECK_EQ(h, MPI_T_CVAR_HANDLE_NULL, "freed cvar handle");
	return v;
}

void tool_before_init(void)
{
	int provided = -1, n = -1, h, i;

	mtest_section("MPI_T before MPI_Init");
	T_CHECK(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
	T_CHECK(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
	CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
	CHECK_EQ(provided, MPI_THREAD_SINGLE, "MPI_T provided");
	CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
	CHECK_EQ(provided, MPI_THREAD_MULTIPLE, "MPI_T provided");
	CHECK_MPI(MPI_T_cvar_get_num(&n));
	CHECK(n >= 9, "%d control variables", n);
	/* what MPI_Init will take; not settable before it */
	i = cvar_index("MPIRMA_SPIN_US");
	spin_before = cvar_value(i);
	CHECK(spin_before >= 0 && spin_before <= 1000000, "MPIRMA_SPIN_US %d",
	      spin_before);
	CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &n));
	T_CHECK(MPI_T_cvar_write(h, &spin_before), MPI_T_ERR_CVAR_SET_NOT_NOW);
	CHECK_MPI(MPI_T_cvar_handle_free(&h));
	/* nested: one finalize leaves it initialized, until after MPI_Finalize */
	CHECK_MPI(MPI_T_finalize());
	CHECK_MPI(MPI_T_cvar_get_num(&n));
}

/* The string convention (MPI 4.0 15.3.3) on a control variable's name. */
static void check_strings(int index, const char *name)
{
	char buf[4] = "xyz";
	int len = 0;

	CHECK_MPI(MPI_T_cvar_get_info(index, NULL, &len, NULL, NULL, NULL,
				      NULL, NULL, NULL, NULL));
	CHECK_EQ(len, strlen(name) + 1, "length with no buffer");
	len = 0;
	CHECK_MPI(MPI_T_cvar_get_info(index, buf, &len, NULL, NULL, NULL,
				      NULL, NULL, NULL, NULL));
	CHECK(len == (int)strlen(name) + 1 && !strcmp(buf, "xyz"),
	      "length 0 wrote \"%s\", length %d", buf, len);
	len = sizeof(buf);
	CHECK_MPI(MPI_T_cvar_get_info(index, buf, &len, NULL, NULL, NULL,
				      NULL, NULL, NULL, NULL));
	CHECK(len == (int)strlen(name) + 1 && !strncmp(buf, name, 3) &&
	      !buf[3], "truncated to \"%s\", length %d", buf, len);
}

/* An enumeration: each item named, its value its index. */
static void check_enum(MPI_T_enum e, int value)
{
	char name[64];
	int n = -1, v, len, i;

	len = sizeof(name);
	CHECK_MPI(MPI_T_enum_get_info(e, &n, name, &len));
	CHECK(n > 0 && value >= 0 && value < n, "%s: %d items, value %d",
	      name, n, value);
	for (i = 0; i < n; i++) {
		len = sizeof(name);
		CHECK_MPI(MPI_T_enum_get_item(e, i, &v, name, &len));
		CHECK(v == i && len > 1, "item %d: %d \"%s\"", i, v, name);
	}
	T_CHECK(MPI_T_enum_get_item(e, n, &v, name, &len),
		MPI_T_ERR_INVALID_INDEX);
	T_CHECK(MPI_T_enum_get_info(e + 100, &n, name, &len),
		MPI_T_ERR_INVALID_HANDLE);
}

static void test_cvars(void)
{
	char name[128], desc[512];
	int n = -1, i, j, nlen, dlen, verb, bind, scope, v, writable = 0;
	MPI_Datatype dt;
	MPI_T_enum e;
	MPI_T_cvar_handle h;

	mtest_section("MPI_T control variables");
	CHECK_MPI(MPI_T_cvar_get_num(&n));
	for (i = 0; i < n; i++) {
		nlen = sizeof(name);
		dlen = sizeof(desc);
		CHECK_MPI(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &e,
					      desc, &dlen, &bind, &scope));
		CHECK(nlen > 1 && dlen > 1 && dt == MPI_INT &&
		      bind == MPI_T_BIND_NO_OBJECT &&
		      verb >= MPI_T_VERBOSITY_USER_BASIC &&
		      verb <= MPI_T_VERBOSITY_MPIDEV_ALL &&
		      (scope == MPI_T_SCOPE_READONLY ||
		       scope == MPI_T_SCOPE_LOCAL), "cvar %d %s", i, name);
		j = cvar_index(name);
		CHECK_EQ(j, i, name);
		v = cvar_value(i);
		if (e != MPI_T_ENUM_NULL)
			check_enum(e, v);
		if (i == 0)
			check_strings(i, name);
		if (scope == MPI_T_SCOPE_LOCAL) {
			writable++;
			continue;
		}
		CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &j));
		T_CHECK(MPI_T_cvar_write(h, &v), MPI_T_ERR_CVAR_SET_NEVER);
		CHECK_MPI(MPI_T_cvar_handle_free(&h));
	}
	CHECK_EQ(writable, 2, "LOCAL control variables");

	/* MPI_Init took what was read before it; a write holds */
	i = cvar_index("MPIRMA_SPIN_US");
	CHECK_EQ(cvar_value(i), spin_before, "MPIRMA_SPIN_US after MPI_Init");
	CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &j));
	v = 77;
	CHECK_MPI(MPI_T_cvar_write(h, &v));
	CHECK_MPI(MPI_T_cvar_read(h, &j));
	CHECK_EQ(j, 77, "MPIRMA_SPIN_US written");
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));	/* waits with it */
	v = -1;
	T_CHECK(MPI_T_cvar_write(h, &v), MPI_T_ERR_INVALID);
	CHECK_MPI(MPI_T_cvar_write(h, &spin_before));
	CHECK_MPI(MPI_T_cvar_handle_free(&h));

	/* errors */
	T_CHECK(MPI_T_cvar_get_info(n, name, &nlen, &verb, &dt, &e, desc,
				    &dlen, &bind, &scope),
		MPI_T_ERR_INVALID_INDEX);
	T_CHECK(MPI_T_cvar_get_info(-1, name, &nlen, &verb, &dt, &e, desc,
				    &dlen, &bind, &scope),
		MPI_T_ERR_INVALID_INDEX);
	T_CHECK(MPI_T_cvar_handle_alloc(n, NULL, &h, &j),
		MPI_T_ERR_INVALID_INDEX);
	T_CHECK(MPI_T_cvar_get_index("MPIRMA_NO_SUCH", &j),
		MPI_T_ERR_INVALID_NAME);
	T_CHECK(MPI_T_cvar_read(h, &v), MPI_T_ERR_INVALID_HANDLE);
	T_CHECK(MPI_T_cvar_read(12345, &v), MPI_T_ERR_INVALID_HANDLE);
	T_CHECK(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
}

/* One session's handle of performance variable @name (class @cls). */
static MPI_T_pvar_handle pvar(MPI_T_pvar_session s, const char *name,
			      int cls)
{
	MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
	int i = -1, count = -1;

	CHECK_MPI(MPI_T_pvar_get_index(name, cls, &i));
	CHECK_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
	CHECK_EQ(count, 1, "pvar handle count");
	return h;
}

static unsigned long long pread(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
	unsigned long long v = ~0ULL;

	CHECK_MPI(MPI_T_pvar_read(s, h, &v));
	return v;
}

/* @n messages of @len bytes to this process itself. */
static void self_messages(int n, int len)
{
	char out[64] = "", in[64];
	int i;

	for (i = 0; i < n; i++)
		CHECK_MPI(MPI_Sendrecv(out, len, MPI_CHAR, mtest_rank, 5, in,
				       len, MPI_CHAR, mtest_rank, 5,
				       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* Every variable read in a session; the counters against known traffic. */
static void test_pvars(void)
{
	char name[128], desc[512];
	int n = -1, i, j, nlen, dlen, verb, cls, bind, ro, cont, atomic;
	unsigned long long v, w;
	MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL, s2;
	MPI_T_pvar_handle h, sent, bytes, rma, wins;
	MPI_Datatype dt;
	MPI_T_enum e;
	MPI_Win win;
	int *mem;

	mtest_section("MPI_T performance variables");
	CHECK_MPI(MPI_T_pvar_get_num(&n));
	CHECK(n >= 8, "%d performance variables", n);
	CHECK_MPI(MPI_T_pvar_session_create(&s));
	for (i = 0; i < n; i++) {
		nlen = sizeof(name);
		dlen = sizeof(desc);
		CHECK_MPI(MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt,
					      &e, desc, &dlen, &bind, &ro,
					      &cont, &atomic));
		CHECK(nlen > 1 && dlen > 1 && dt == MPI_UNSIGNED_LONG_LONG &&
		      e == MPI_T_ENUM_NULL && bind == MPI_T_BIND_NO_OBJECT &&
		      (cls == MPI_T_PVAR_CLASS_COUNTER ||
		       cls == MPI_T_PVAR_CLASS_LEVEL), "pvar %d %s", i, name);
		CHECK_MPI(MPI_T_pvar_get_index(name, cls, &j));
		CHECK_EQ(j, i, name);
		T_CHECK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_TIMER, &j),
			MPI_T_ERR_INVALID_NAME);
		h = pvar(s, name, cls);
		/* a counter's handle counts from 0, stopped */
		v = pread(s, h);
		CHECK(cls != MPI_T_PVAR_CLASS_COUNTER || v == 0,
		      "%s = %llu at allocation", name, v);
		if (cont) {
			T_CHECK(MPI_T_pvar_start(s, h),
				MPI_T_ERR_PVAR_NO_STARTSTOP);
			T_CHECK(MPI_T_pvar_stop(s, h),
				MPI_T_ERR_PVAR_NO_STARTSTOP);
		}
		if (ro) {
			T_CHECK(MPI_T_pvar_write(s, h, &v),
				MPI_T_ERR_PVAR_NO_WRITE);
			T_CHECK(MPI_T_pvar_reset(s, h),
				MPI_T_ERR_PVAR_NO_WRITE);
			T_CHECK(MPI_T_pvar_readreset(s, h, &v),
				MPI_T_ERR_PVAR_NO_WRITE);
		}
	}
	/* every handle at once: the continuous ones left alone */
	CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
	CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
	CHECK_MPI(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));

	/* messages: counted while started, frozen while stopped */
	sent = pvar(s, "mpirma_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
	bytes = pvar(s, "mpirma_bytes_sent", MPI_T_PVAR_CLASS_COUNTER);
	CHECK_MPI(MPI_T_pvar_start(s, sent));
	CHECK_MPI(MPI_T_pvar_start(s, bytes));
	self_messages(5, 24);
	CHECK_EQ(pread(s, sent), 5, "messages sent");
	CHECK_EQ(pread(s, bytes), 5 * 24, "bytes sent");
	CHECK_MPI(MPI_T_pvar_stop(s, sent));
	self_messages(2, 24);
	CHECK_EQ(pread(s, sent), 5, "messages sent while stopped");
	CHECK_EQ(pread(s, bytes), 7 * 24, "bytes sent, still started");
	CHECK_MPI(MPI_T_pvar_readreset(s, bytes, &v));
	CHECK_EQ(v, 7 * 24, "readreset");
	CHECK_EQ(pread(s, bytes), 0, "after readreset");
	w = 1000;
	CHECK_MPI(MPI_T_pvar_write(s, sent, &w));
	CHECK_MPI(MPI_T_pvar_start(s, sent));
	self_messages(1, 0);
	CHECK_EQ(pread(s, sent), 1001, "written, then one more");
	CHECK_MPI(MPI_T_pvar_reset(s, sent));
	CHECK_EQ(pread(s, sent), 0, "reset");

	/* a window: one more live, one RMA operation */
	wins = pvar(s, "mpirma_windows", MPI_T_PVAR_CLASS_LEVEL);
	rma = pvar(s, "mpirma_rma_ops", MPI_T_PVAR_CLASS_COUNTER);
	v = pread(s, wins);
	CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
				   MPI_COMM_SELF, &mem, &win));
	CHECK_EQ(pread(s, wins), v + 1, "windows with one more");
	CHECK_MPI(MPI_T_pvar_start(s, rma));
	CHECK_MPI(MPI_Win_fence(0, win));
	i = 42;
	CHECK_MPI(MPI_Put(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_EQ(pread(s, rma), 1, "RMA operations");
	CHECK_MPI(MPI_Win_free(&win));
	CHECK_EQ(pread(s, wins), v, "windows after the free");

	/* errors */
	T_CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v),
		MPI_T_ERR_INVALID_HANDLE);
	T_CHECK(MPI_T_pvar_readreset(s, MPI_T_PVAR_ALL_HANDLES, &v),
		MPI_T_ERR_INVALID_HANDLE);
	T_CHECK(MPI_T_pvar_read(s, 12345, &v), MPI_T_ERR_INVALID_HANDLE);
	T_CHECK(MPI_T_pvar_read(12345, sent, &v), MPI_T_ERR_INVALID_SESSION);
	T_CHECK(MPI_T_pvar_handle_alloc(s, n, NULL, &h, &i),
		MPI_T_ERR_INVALID_INDEX);
	T_CHECK(MPI_T_pvar_get_info(n, name, &nlen, &verb, &cls, &dt, &e,
				    desc, &dlen, &bind, &ro, &cont, &atomic),
		MPI_T_ERR_INVALID_INDEX);
	CHECK_MPI(MPI_T_pvar_session_create(&s2));
	T_CHECK(MPI_T_pvar_read(s2, sent, &v), MPI_T_ERR_INVALID_HANDLE);
	T_CHECK(MPI_T_pvar_handle_free(s2, &sent), MPI_T_ERR_INVALID_HANDLE);
	CHECK_MPI(MPI_T_pvar_session_free(&s2));
	CHECK_MPI(MPI_T_pvar_handle_free(s, &sent));
	CHECK_EQ(sent, MPI_T_PVAR_HANDLE_NULL, "freed pvar handle");
	T_CHECK(MPI_T_pvar_read(s, sent, &v), MPI_T_ERR_INVALID_HANDLE);
	/* freeing the session frees its handles */
	s2 = s;
	CHECK_MPI(MPI_T_pvar_session_free(&s));
	CHECK_EQ(s, MPI_T_PVAR_SESSION_NULL, "freed session");
	T_CHECK(MPI_T_pvar_read(s2, bytes, &v), MPI_T_ERR_INVALID_SESSION);
	T_CHECK(MPI_T_pvar_session_free(&s2), MPI_T_ERR_INVALID_SESSION);
}

/* The categories: one root, every variable in exactly one below it. */
static void test_categories(void)
{
	int n = -1, ncv, npv, i, j, nlen, dlen, cv, pv, sub, total_cv = 0,
	    total_pv = 0, idx[64], u1, u2;
	char name[128], desc[512];

	mtest_section("MPI_T categories");
	CHECK_MPI(MPI_T_category_get_num(&n));
	CHECK_MPI(MPI_T_cvar_get_num(&ncv));
	CHECK_MPI(MPI_T_pvar_get_num(&npv));
	CHECK_MPI(MPI_T_category_changed(&u1));
	for (i = 0; i < n; i++) {
		nlen = sizeof(name);
		dlen = sizeof(desc);
		CHECK_MPI(MPI_T_category_get_info(i, name, &nlen, desc, &dlen,
						  &cv, &pv, &sub));
		CHECK_MPI(MPI_T_category_get_index(name, &j));
		CHECK_EQ(j, i, name);
		CHECK(cv <= 64 && pv <= 64 && sub <= 64, "%s: %d %d %d", name,
		      cv, pv, sub);
		CHECK_MPI(MPI_T_category_get_cvars(i, cv, idx));
		for (j = 0; j < cv; j++)
			CHECK(idx[j] >= 0 && idx[j] < ncv, "%s cvar %d", name,
			      idx[j]);
		CHECK_MPI(MPI_T_category_get_pvars(i, pv, idx));
		for (j = 0; j < pv; j++)
			CHECK(idx[j] >= 0 && idx[j] < npv, "%s pvar %d", name,
			      idx[j]);
		CHECK_MPI(MPI_T_category_get_categories(i, sub, idx));
		CHECK(i != 0 || sub == n - 1, "root has %d of %d", sub, n);
		CHECK_MPI(MPI_T_category_get_num_events(i, &j));
		CHECK_EQ(j, 0, "events of a category");
		CHECK_MPI(MPI_T_category_get_events(i, 0, idx));
		total_cv += cv;
		total_pv += pv;
	}
	CHECK_EQ(total_cv, ncv, "cvars in categories");
	CHECK_EQ(total_pv, npv, "pvars in categories");
	CHECK_MPI(MPI_T_category_changed(&u2));
	CHECK_EQ(u2, u1, "categories changed");
	T_CHECK(MPI_T_category_get_info(n, name, &nlen, desc, &dlen, &cv, &pv,
					&sub), MPI_T_ERR_INVALID_INDEX);
	T_CHECK(MPI_T_category_get_cvars(-1, 0, idx), MPI_T_ERR_INVALID_INDEX);
	T_CHECK(MPI_T_category_get_index("nope", &j), MPI_T_ERR_INVALID_NAME);
}

/* One source, the clock; no events, so no registration or instance. */
static void test_events(void)
{
	MPI_Count t1 = 0, t2 = 0, tps = 0, max = 0;
	MPI_T_event_registration reg;
	MPI_T_source_order order;
	MPI_Info info = 1;
	char name[64], s[MPI_MAX_ERROR_STRING];
	int n = -1, len = sizeof(name);

	mtest_section("MPI_T sources and events");
	CHECK_MPI(MPI_T_source_get_num(&n));
	CHECK_EQ(n, 1, "sources");
	CHECK_MPI(MPI_T_source_get_info(0, name, &len, NULL, NULL, &order,
					&tps, &max, &info));
	CHECK(order == MPI_T_SOURCE_ORDERED && tps == 1000000000 && max > 0 &&
	      info == MPI_INFO_NULL, "source %s", name);
	CHECK_MPI(MPI_T_source_get_timestamp(0, &t1));
	CHECK_MPI(MPI_T_source_get_timestamp(0, &t2));
	CHECK(t1 > 0 && t2 >= t1, "timestamps %lld %lld", t1, t2);
	T_CHECK(MPI_T_source_get_timestamp(1, &t1), MPI_T_ERR_INVALID_INDEX);
	CHECK_MPI(MPI_T_event_get_num(&n));
	CHECK_EQ(n, 0, "events");
	T_CHECK(MPI_T_event_get_index("any", &n), MPI_T_ERR_INVALID_NAME);
	T_CHECK(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg),
		MPI_T_ERR_INVALID_INDEX);
	T_CHECK(MPI_T_event_handle_free(1, NULL, NULL),
		MPI_T_ERR_INVALID_HANDLE);
	T_CHECK(MPI_T_event_get_timestamp(1, &t1), MPI_T_ERR_INVALID_HANDLE);
	/* the classes are MPI error classes with their text */
	CHECK_MPI(MPI_Error_string(MPI_T_ERR_INVALID_HANDLE, s, &len));
	CHECK(len > 0 && strstr(s, "handle"), "MPI_T_ERR_INVALID_HANDLE: %s",
	      s);
	CHECK(MPI_T_ERR_NOT_SUPPORTED <= MPI_ERR_LASTCODE, "LASTCODE");
}

void tool_running(void)
{
	test_cvars();
	test_pvars();
	test_categories();
	test_events();
}

long tool_after_finalize(void)
{
	long before = mtest_failures();
	MPI_T_cvar_handle h;
	int n, v, provided;

	mtest_section("MPI_T after MPI_Finalize");
	/* still initialized from before MPI_Init */
	CHECK_MPI(MPI_T_cvar_handle_alloc(cvar_index("MPIRMA_SPIN_US"), NULL,
					  &h, &n));
	CHECK_MPI(MPI_T_cvar_read(h, &v));
	CHECK_EQ(v, spin_before, "MPIRMA_SPIN_US after MPI_Finalize");
	T_CHECK(MPI_T_cvar_write(h, &v), MPI_T_ERR_CVAR_SET_NOT_NOW);
	/* the last finalize frees what is left, the handle too */
	CHECK_MPI(MPI_T_finalize());
	T_CHECK(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
	T_CHECK(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
	CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
	T_CHECK(MPI_T_cvar_read(h, &v), MPI_T_ERR_INVALID_HANDLE);
	CHECK_MPI(MPI_T_finalize());
	return mtest_failures() - before;
}
