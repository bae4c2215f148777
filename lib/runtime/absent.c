// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * absent.c - the MPI calls mpirma links but does not provide: MPI-IO
 * (MPI_File_*) and dynamic processes (MPI_Comm_spawn, ports, names,
 * MPI_Comm_join).  Each fails with MPI_ERR_UNSUPPORTED_OPERATION, saying
 * how to have it: the program run under Open MPI or MPICH with mpirma's
 * layer preloaded (docs/hybrid.md), where these calls are the host's.
 * Outputs are set to their null values first, so nothing that looks
 * valid comes back.  MPI_Comm_get_parent succeeds: a job of mpirma is
 * never spawned, its parent is MPI_COMM_NULL.
 *
 * Errors of the spawn calls are raised on their communicator.  The
 * standard raises MPI-IO's on MPI_FILE_NULL's handler, MPI_ERRORS_RETURN
 * by default; files have no handlers here and raise on MPI_COMM_WORLD's,
 * so that by default a program stops with the reason rather than going
 * on without its output.
 */
#include "runtime.h"

/* These calls look at few of their arguments. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define HOW "run the program under Open MPI or MPICH with mpirma's "	\
	"layer preloaded (LD_PRELOAD=libmpirma-openmpi.so or "		\
	"libmpirma-mpich.so, docs/hybrid.md)"

static int absent(MPI_Comm comm, const char *fn, const char *what)
{
	return mpirma_raise_comm(comm, MPI_ERR_UNSUPPORTED_OPERATION, fn,
				 "%s is not part of mpirma: %s", what, HOW);
}

static int mpiio(const char *fn)
{
	return absent(MPI_COMM_WORLD, fn, "MPI-IO");
}

static int dynamic(MPI_Comm comm, MPI_Comm *newcomm, const char *fn)
{
	if (newcomm)
		*newcomm = MPI_COMM_NULL;
	return absent(comm, fn, "Dynamic process management");
}

/* ------------------------------------------------------------ MPI-IO */

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode,
		   MPI_Info info, MPI_File *fh)
{
	MPIRMA_CHECK_INIT();
	if (fh)
		*fh = MPI_FILE_NULL;
	return mpiio(MPIRMA_FUNC);
}
MPIRMA_ALIAS(File_open)

int PMPI_File_close(MPI_File *fh)
{
	MPIRMA_CHECK_INIT();
	return mpiio(MPIRMA_FUNC);
}
MPIRMA_ALIAS(File_close)

int PMPI_File_delete(const char *filename, MPI_Info info)
{
	MPIRMA_CHECK_INIT();
	return mpiio(MPIRMA_FUNC);
}
MPIRMA_ALIAS(File_delete)

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
		       MPI_Datatype filetype, const char *datarep,
		       MPI_Info info)
{
	MPIRMA_CHECK_INIT();
	return mpiio(MPIRMA_FUNC);
}
MPIRMA_ALIAS(File_set_view)

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
	MPIRMA_CHECK_INIT();
	return mpiio(MPIRMA_FUNC);
}
MPIRMA_ALIAS(File_get_size)

/* The reads and writes: @buf is const for the writes. */
#define FILE_IO(name, buf_t)						\
int PMPI_File_##name(MPI_File fh, buf_t buf, int count,		\
		     MPI_Datatype datatype, MPI_Status *status)		\
{									\
	MPIRMA_CHECK_INIT();						\
	return mpiio(MPIRMA_FUNC);					\
}									\
MPIRMA_ALIAS(File_##name)						\
									\
int PMPI_File_##name##_at(MPI_File fh, MPI_Offset offset, buf_t buf,	\
			  int count, MPI_Datatype datatype,		\
			  MPI_Status *status)				\
{									\
	MPIRMA_CHECK_INIT();						\
	return mpiio(MPIRMA_FUNC);					\
}									\
MPIRMA_ALIAS(File_##name##_at)						\
									\
int PMPI_File_##name##_all(MPI_File fh, buf_t buf, int count,		\
			   MPI_Datatype datatype, MPI_Status *status)	\
{									\
	MPIRMA_CHECK_INIT();						\
	return mpiio(MPIRMA_FUNC);					\
}									\
MPIRMA_ALIAS(File_##name##_all)

FILE_IO(read, void *)
FILE_IO(write, const void *)

/* ------------------------------------------------------------ dynamic */

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs,
		    MPI_Info info, int root, MPI_Comm comm,
		    MPI_Comm *intercomm, int array_of_errcodes[])
{
	int i;

	MPIRMA_CHECK_INIT();
	for (i = 0; array_of_errcodes && i < maxprocs; i++)
		array_of_errcodes[i] = MPI_ERR_UNSUPPORTED_OPERATION;
	return dynamic(comm, intercomm, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Comm_spawn)

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[],
			     char **array_of_argv[],
			     const int array_of_maxprocs[],
			     const MPI_Info array_of_info[], int root,
			     MPI_Comm comm, MPI_Comm *intercomm,
			     int array_of_errcodes[])
{
	int i, n = 0;

	MPIRMA_CHECK_INIT();
	for (i = 0; array_of_maxprocs && i < count; i++)
		n += array_of_maxprocs[i] > 0 ? array_of_maxprocs[i] : 0;
	for (i = 0; array_of_errcodes && i < n; i++)
		array_of_errcodes[i] = MPI_ERR_UNSUPPORTED_OPERATION;
	return dynamic(comm, intercomm, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Comm_spawn_multiple)

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root,
		     MPI_Comm comm, MPI_Comm *newcomm)
{
	MPIRMA_CHECK_INIT();
	return dynamic(comm, newcomm, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Comm_accept)

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root,
		      MPI_Comm comm, MPI_Comm *newcomm)
{
	MPIRMA_CHECK_INIT();
	return dynamic(comm, newcomm, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Comm_connect)

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
	MPIRMA_CHECK_INIT();
	return dynamic(MPI_COMM_WORLD, intercomm, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Comm_join)

int PMPI_Open_port(MPI_Info info, char *port_name)
{
	MPIRMA_CHECK_INIT();
	if (port_name)
		port_name[0] = '\0';
	return dynamic(MPI_COMM_WORLD, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Open_port)

int PMPI_Close_port(const char *port_name)
{
	MPIRMA_CHECK_INIT();
	return dynamic(MPI_COMM_WORLD, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Close_port)

int PMPI_Publish_name(const char *service_name, MPI_Info info,
		      const char *port_name)
{
	MPIRMA_CHECK_INIT();
	return dynamic(MPI_COMM_WORLD, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Publish_name)

int PMPI_Unpublish_name(const char *service_name, MPI_Info info,
			const char *port_name)
{
	MPIRMA_CHECK_INIT();
	return dynamic(MPI_COMM_WORLD, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Unpublish_name)

int PMPI_Lookup_name(const char *service_name, MPI_Info info,
		     char *port_name)
{
	MPIRMA_CHECK_INIT();
	if (port_name)
		port_name[0] = '\0';
	return dynamic(MPI_COMM_WORLD, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Lookup_name)

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
	MPIRMA_CHECK_INIT();
	if (!parent)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "parent is NULL");
	*parent = MPI_COMM_NULL;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Comm_get_parent)
