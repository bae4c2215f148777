/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nbc_test.h - what the nbc test (mpitests/nbc.c) shares with its parts in
 * mpitests/nbc/: the three forms of a collective call, and the ways of
 * completing a request.
 */
#ifndef MPIRMA_NBC_TEST_H
#define MPIRMA_NBC_TEST_H

#include <stdbool.h>

#include <mpi.h>

/*
 * A call in the form a case asks for: blocking with @req NULL; else
 * nonblocking, or with nbc_persist the persistent form, made the first
 * time (*@req MPI_REQUEST_NULL) and started every time.
 */
#define NBS(bname, iname, ...)						\
	(!req ? MPI_##bname(__VA_ARGS__) :				\
	 !nbc_persist ? MPI_##iname(__VA_ARGS__, req) :			\
	 nbc_start(*req == MPI_REQUEST_NULL ?				\
		   MPI_##bname##_init(__VA_ARGS__, MPI_INFO_NULL, req) : \
		   MPI_SUCCESS, req))

extern bool nbc_persist;

/* MPI_Start(@req) unless @rc (the init's) failed: the class. */
int nbc_start(int rc, MPI_Request *req);

/*
 * Completes @req one of five ways, in turn; a persistent one must stay,
 * inactive, the others become MPI_REQUEST_NULL.
 */
void nbc_complete(MPI_Request *req);

/* mpitests/nbc/persist.c */
void test_persistent(void);
/* mpitests/nbc/neighbor.c */
void test_neighbor(void);

#endif /* MPIRMA_NBC_TEST_H */
