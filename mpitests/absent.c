// SPDX-License-Identifier: GPL-2.0
/*
 * absent: what mpirma links but does not provide.  MPI-IO (MPI_File_open,
 * _close, _delete, _set_view, _get_size, the reads and writes) and dynamic
 * processes (MPI_Comm_spawn, _spawn_multiple, ports, names, accept,
 * connect, join) fail with MPI_ERR_UNSUPPORTED_OPERATION under
 * MPI_ERRORS_RETURN, their outputs null; MPI_Comm_get_parent succeeds
 * with MPI_COMM_NULL.
 *
 * Argument "fatal": MPI_File_open under the default handler, which must
 * end the job with a message naming the call, the class and the way to
 * have MPI-IO (mpitests/list matches it).
 */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

#define UNSUPPORTED(call) CHECK_CLASS(call, MPI_ERR_UNSUPPORTED_OPERATION)

static void test_mpiio(void)
{
	MPI_File fh = 12345;
	MPI_Offset size = -1;
	MPI_Status st;
	int buf[4] = { 0 };

	mtest_section("MPI-IO");
	UNSUPPORTED(MPI_File_open(MPI_COMM_WORLD, "absent.dat",
				  MPI_MODE_CREATE | MPI_MODE_RDWR,
				  MPI_INFO_NULL, &fh));
	CHECK_EQ(fh, MPI_FILE_NULL, "the file handle of a failed open");
	UNSUPPORTED(MPI_File_delete("absent.dat", MPI_INFO_NULL));
	UNSUPPORTED(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native",
				      MPI_INFO_NULL));
	UNSUPPORTED(MPI_File_get_size(fh, &size));
	UNSUPPORTED(MPI_File_read(fh, buf, 4, MPI_INT, &st));
	UNSUPPORTED(MPI_File_read_at(fh, 0, buf, 4, MPI_INT, &st));
	UNSUPPORTED(MPI_File_read_all(fh, buf, 4, MPI_INT, &st));
	UNSUPPORTED(MPI_File_write(fh, buf, 4, MPI_INT, &st));
	UNSUPPORTED(MPI_File_write_at(fh, 0, buf, 4, MPI_INT, &st));
	UNSUPPORTED(MPI_File_write_all(fh, buf, 4, MPI_INT, &st));
	UNSUPPORTED(MPI_File_close(&fh));
}

static void test_dynamic(void)
{
	MPI_Comm c = 12345, parent = 12345;
	char port[MPI_MAX_PORT_NAME] = "x";
	char *cmds[2] = { "true", "true" };
	int errs[3] = { 0, 0, 0 }, maxprocs[2] = { 1, 2 };
	MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };

	mtest_section("dynamic processes");
	CHECK_MPI(MPI_Comm_get_parent(&parent));
	CHECK_EQ(parent, MPI_COMM_NULL, "MPI_Comm_get_parent");
	UNSUPPORTED(MPI_Comm_spawn("true", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
				   MPI_COMM_WORLD, &c, errs));
	CHECK_EQ(c, MPI_COMM_NULL, "the intercomm of a failed spawn");
	CHECK(errs[0] == MPI_ERR_UNSUPPORTED_OPERATION &&
	      errs[1] == MPI_ERR_UNSUPPORTED_OPERATION && errs[2] == 0,
	      "spawn error codes %d %d %d", errs[0], errs[1], errs[2]);
	c = 12345;
	UNSUPPORTED(MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs,
					    infos, 0, MPI_COMM_WORLD, &c,
					    MPI_ERRCODES_IGNORE));
	CHECK_EQ(c, MPI_COMM_NULL, "the intercomm of a failed spawn_multiple");
	UNSUPPORTED(MPI_Open_port(MPI_INFO_NULL, port));
	CHECK_EQ(port[0], '\0', "the port name of a failed open");
	UNSUPPORTED(MPI_Publish_name("svc", MPI_INFO_NULL, "port"));
	UNSUPPORTED(MPI_Lookup_name("svc", MPI_INFO_NULL, port));
	UNSUPPORTED(MPI_Unpublish_name("svc", MPI_INFO_NULL, "port"));
	c = 12345;
	UNSUPPORTED(MPI_Comm_accept("port", MPI_INFO_NULL, 0, MPI_COMM_WORLD,
				    &c));
	CHECK_EQ(c, MPI_COMM_NULL, "the communicator of a failed accept");
	UNSUPPORTED(MPI_Comm_connect("port", MPI_INFO_NULL, 0, MPI_COMM_WORLD,
				     &c));
	UNSUPPORTED(MPI_Close_port("port"));
	UNSUPPORTED(MPI_Comm_join(0, &c));
}

int main(int argc, char **argv)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_File fh;

	mtest_init(&argc, &argv, "absent");
	if (argc > 1 && !strcmp(argv[1], "fatal")) {
		MPI_File_open(MPI_COMM_WORLD, "absent.dat", MPI_MODE_RDONLY,
			      MPI_INFO_NULL, &fh);
		CHECK(0, "MPI_File_open returned under the fatal handler");
		return mtest_finish();
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	test_mpiio();
	test_dynamic();
	CHECK_MPI(MPI_Error_string(MPI_ERR_UNSUPPORTED_OPERATION, msg, &len));
	CHECK(len > 0, "MPI_ERR_UNSUPPORTED_OPERATION has a string");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	return mtest_finish();
}
