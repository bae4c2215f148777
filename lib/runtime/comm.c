// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * comm.c - intra-communicators: MPI_COMM_WORLD, MPI_COMM_SELF and the ones
 * made from them, plus the byte-level allgather they are built with.
 *
 * A communicator is a list of job ranks and a 64-bit context id.  Context
 * ids must differ between the communicators any one process belongs to;
 * every process keeps the lowest id it has never used (mpirma_proc.next_ctx)
 * and a new communicator takes the MAX of its members' values, so the id is
 * unused by each of them.  MPI_Comm_split gives all its colours the same id:
 * their member sets are disjoint, and messages match on (source, context).
 *
 * The allgather here talks to the kernel mailboxes directly: every member
 * sends its block to every other member (sends are buffered in the kernel
 * and never wait), then receives one block from each, naming the source.
 * The collective context of the communicator is used with an internal tag;
 * MPI_Comm_create_group, which only the group calls, uses a context of its
 * own derived from the parent's (bit 63 set) with the user's tag.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static struct mpirma_comm world, self;

/* Context ids of real communicators stay below this; see create_group. */
#define MPIRMA_CTX_GROUP_BIT (1ULL << 63)

struct mpirma_comm *mpirma_comm_get(MPI_Comm comm)
{
	if (comm == MPI_COMM_WORLD)
		return &world;
	if (comm == MPI_COMM_SELF)
		return &self;
	return mpirma_handle_get(MPIRMA_HK_COMM, comm);
}

/* What base/ asks of communicators (their header: errors, attributes). */
static struct mpirma_objhdr *comm_hdr(int handle)
{
	struct mpirma_comm *c = mpirma_comm_get(handle);

	return c ? &c->hdr : NULL;
}

static const struct mpirma_kind_ops comm_kind_ops = { .hdr = comm_hdr };

static void __attribute__((constructor)) comm_kind_register(void)
{
	mpirma_kind_register(MPIRMA_HK_COMM, &comm_kind_ops);
}

int mpirma_comm_check(MPI_Comm comm, struct mpirma_comm **c)
{
	*c = mpirma_comm_get(comm);
	if (!*c)
		return mpirma_err(MPI_ERR_COMM, comm == MPI_COMM_NULL ?
				  "MPI_COMM_NULL" : "invalid communicator %d",
				  comm);
	return MPI_SUCCESS;
}

void mpirma_comm_ref(struct mpirma_comm *c)
{
	c->refs++;
}

static void comm_release_memory(struct mpirma_comm *c)
{
	free(c->topo);
	c->topo = NULL;
	if (c->info != MPI_INFO_NULL)
		PMPI_Info_free(&c->info);
	free(c->ranks);
	free(c->job2rank);
	free(c->rranks);
	free(c->rjob2rank);
	free(c->local);
	c->ranks = NULL;
	c->job2rank = NULL;
	c->rranks = NULL;
	c->rjob2rank = NULL;
	c->local = NULL;
}

void mpirma_comm_unref(struct mpirma_comm *c)
{
	if (--c->refs > 0)
		return;
	comm_release_memory(c);
	if (c != &world && c != &self)
		free(c);
}

void mpirma_comm_set_spares(struct mpirma_comm *c, uint64_t first,
			    uint64_t len)
{
	c->spares = len < 32 ? (int)len : 32;
	c->spare_span = c->spares ? len / c->spares : 0;
	c->spare_ctx = first;
}

/* Fills ranks, job2rank and rank of @c from @n job ranks. */
static int comm_set_ranks(struct mpirma_comm *c, int n, const int *ranks)
{
	int i;

	c->ranks = malloc(n * sizeof(int));
	c->job2rank = malloc(mpirma_proc.size * sizeof(int));
	if (!c->ranks || !c->job2rank) {
		free(c->ranks);
		free(c->job2rank);
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory for a "
				  "communicator of %d", n);
	}
	memcpy(c->ranks, ranks, n * sizeof(int));
	for (i = 0; i < mpirma_proc.size; i++)
		c->job2rank[i] = -1;
	c->rank = -1;
	for (i = 0; i < n; i++) {
		c->job2rank[ranks[i]] = i;
		if (ranks[i] == mpirma_proc.rank)
			c->rank = i;
	}
	c->size = n;
	return MPI_SUCCESS;
}

int mpirma_comm_intra_only(const struct mpirma_comm *c, const char *what)
{
	if (!c->inter)
		return MPI_SUCCESS;
	return mpirma_err(MPI_ERR_COMM, "%s is not available on an "
			  "inter-communicator (merge it first: "
			  "MPI_Intercomm_merge)", what);
}

int mpirma_comm_new(struct mpirma_comm *parent, int n, const int *ranks,
		    uint64_t ctx, MPI_Comm *out)
{
	struct mpirma_comm *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	ret = comm_set_ranks(c, n, ranks);
	if (ret) {
		free(c);
		return ret;
	}
	mpirma_objhdr_init(&c->hdr, "");
	c->hdr.errhandler = parent->hdr.errhandler;
	mpirma_errhandler_ref(c->hdr.errhandler);
	c->refs = 1;
	c->ctx = ctx;
	mpirma_comm_set_spares(c, ctx + 1, MPIRMA_CTX_BLOCK);
	c->info = MPI_INFO_NULL;
	c->handle = mpirma_handle_alloc(MPIRMA_HK_COMM, c);
	if (!c->handle) {
		mpirma_errhandler_unref(c->hdr.errhandler);
		comm_release_memory(c);
		free(c);
		return mpirma_err(MPI_ERR_NO_MEM, "out of communicator handles");
	}
	*out = c->handle;
	return MPI_SUCCESS;
}

void mpirma_comm_discard(MPI_Comm handle)
{
	struct mpirma_comm *c = mpirma_comm_get(handle);

	mpirma_objhdr_destroy(&c->hdr, MPIRMA_HK_COMM, handle);
	mpirma_handle_free(MPIRMA_HK_COMM, handle);
	mpirma_comm_unref(c);
}

/* ------------------------------------------------------------ allgather */

/*
 * The allgather over the members of @c (c->ranks, c->rank, c->size) in
 * kernel context @ctx with @tag.  MPI class.
 */
static int allgather_ctx(struct mpirma_comm *c, uint64_t ctx, int tag,
			 const void *send, size_t len, void *recv)
{
	struct mpirma_msg m;
	int i, peer, ret;

	memcpy((char *)recv + (size_t)c->rank * len, send, len);
	for (i = 1; i < c->size; i++) {
		peer = (c->rank + i) % c->size;
		m = (struct mpirma_msg){
			.size = sizeof(m),
			.peer = c->ranks[peer],
			.tag = tag,
			.context = ctx,
			.buf = (uintptr_t)send,
			.len = len,
		};
		ret = mpirma_ioctl(MPIRMA_IOC_MSG_SEND, &m);
		if (ret)
			return mpirma_err_errno(ret, "sending to rank %d", peer);
	}
	for (i = 1; i < c->size; i++) {
		peer = (c->rank + c->size - i) % c->size;
		m = (struct mpirma_msg){
			.size = sizeof(m),
			.peer = c->ranks[peer],
			.tag = tag,
			.context = ctx,
			.buf = (uintptr_t)((char *)recv + (size_t)peer * len),
			.len = len,
		};
		ret = mpirma_ioctl_wait(MPIRMA_IOC_MSG_RECV, &m);
		if (ret)
			return mpirma_err_errno(ret, "receiving from rank %d",
						peer);
		if (m.msg_len != len)
			return mpirma_err(MPI_ERR_INTERN, "rank %d sent %llu "
					  "bytes to a collective that expects "
					  "%zu (mismatched collective calls?)",
					  peer, (unsigned long long)m.msg_len,
					  len);
	}
	return MPI_SUCCESS;
}

int mpirma_coll_allgather_bytes(struct mpirma_comm *c, const void *send,
				size_t len, void *recv)
{
	return allgather_ctx(c, mpirma_ctx_coll(c), MPIRMA_TAG_COMM_ALLGATHER,
			     send, len, recv);
}

/* The MAX of the members' next free context ids; everyone's next moves on. */
static uint64_t take_context(const uint64_t *next, int n)
{
	uint64_t max = 0;
	int i;

	for (i = 0; i < n; i++)
		if (next[i] > max)
			max = next[i];
	mpirma_ctx_take(max);
	return max;
}

int mpirma_members_context(int n, const int *ranks, int rank, uint64_t kctx,
			   int tag, uint64_t *ctx)
{
	struct mpirma_comm members = { .size = n, .rank = rank };
	uint64_t *next = malloc(n * sizeof(*next));
	int ret;

	if (!next)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	members.ranks = (int *)ranks;
	ret = allgather_ctx(&members, kctx, tag, &mpirma_proc.next_ctx,
			    sizeof(uint64_t), next);
	if (!ret)
		*ctx = take_context(next, n);
	free(next);
	return ret;
}

int mpirma_comm_new_context(struct mpirma_comm *parent, uint64_t *ctx)
{
	uint64_t *all = malloc(parent->size * sizeof(*all));
	int ret;

	if (!all)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	ret = mpirma_coll_allgather_bytes(parent, &mpirma_proc.next_ctx,
					  sizeof(uint64_t), all);
	if (!ret)
		*ctx = take_context(all, parent->size);
	free(all);
	return ret;
}

/* ------------------------------------------------------------ setup */

int mpirma_comm_setup(void)
{
	int *ranks = malloc(mpirma_proc.size * sizeof(int));
	int i, ret;

	if (!ranks)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < mpirma_proc.size; i++)
		ranks[i] = i;
	ret = comm_set_ranks(&world, mpirma_proc.size, ranks);
	free(ranks);
	if (ret)
		return ret;
	ret = comm_set_ranks(&self, 1, &mpirma_proc.rank);
	if (ret)
		return ret;
	mpirma_objhdr_init(&world.hdr, "MPI_COMM_WORLD");
	mpirma_objhdr_init(&self.hdr, "MPI_COMM_SELF");
	world.handle = MPI_COMM_WORLD;
	self.handle = MPI_COMM_SELF;
	world.ctx = MPIRMA_CTX_WORLD;
	self.ctx = MPIRMA_CTX_SELF;
	/* their spares: the first ids after the fixed ones */
	mpirma_comm_set_spares(&world, MPIRMA_CTX_FIRST, MPIRMA_CTX_BLOCK);
	mpirma_comm_set_spares(&self, MPIRMA_CTX_FIRST + MPIRMA_CTX_BLOCK,
			       MPIRMA_CTX_BLOCK);
	mpirma_ctx_take(MPIRMA_CTX_FIRST + MPIRMA_CTX_BLOCK);
	world.refs = self.refs = 1;
	world.info = self.info = MPI_INFO_NULL;
	return MPI_SUCCESS;
}

void mpirma_comm_finalize_self(void)
{
	mpirma_attrs_delete_all(&self.hdr, MPIRMA_HK_COMM, MPI_COMM_SELF);
	mpirma_attrs_delete_all(&world.hdr, MPIRMA_HK_COMM, MPI_COMM_WORLD);
}

void mpirma_comm_teardown(void)
{
	int h;

	while ((h = mpirma_handle_next(MPIRMA_HK_COMM, 0))) {
		struct mpirma_comm *c = mpirma_comm_get(h);

		mpirma_handle_free(MPIRMA_HK_COMM, h);
		comm_release_memory(c);
		free(c);
	}
	mpirma_objhdr_destroy(&self.hdr, MPIRMA_HK_COMM, MPI_COMM_SELF);
	mpirma_objhdr_destroy(&world.hdr, MPIRMA_HK_COMM, MPI_COMM_WORLD);
	comm_release_memory(&self);
	comm_release_memory(&world);
	mpirma_group_teardown();
}

/* ------------------------------------------------------------ API */

MPIRMA_COMM_QUERY(Comm_rank, int, o->rank)
MPIRMA_COMM_QUERY(Comm_size, int, o->size)

struct split_entry {
	int color;
	int key;
	uint64_t next_ctx;
};

struct split_member {
	int key;
	int rank;	/* in the parent */
};

static int cmp_member(const void *a, const void *b)
{
	const struct split_member *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int mpirma_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	struct mpirma_comm *c = mpirma_comm_get(comm);
	struct split_entry me = { color, key, 0 }, *all;
	struct split_member *mem = NULL;
	uint64_t *next = NULL, ctx;
	int *ranks = NULL;
	int i, n = 0, ret;

	if (!c)
		return mpirma_err(MPI_ERR_COMM, "invalid communicator %d", comm);
	if (color < 0 && color != MPI_UNDEFINED)
		return mpirma_err(MPI_ERR_ARG, "negative color %d", color);
	if (!newcomm)
		return mpirma_err(MPI_ERR_ARG, "newcomm is NULL");
	if (c->inter)
		return mpirma_intercomm_split(c, color, key, newcomm);
	me.next_ctx = mpirma_proc.next_ctx;
	all = malloc(c->size * sizeof(*all));
	next = malloc(c->size * sizeof(*next));
	mem = malloc(c->size * sizeof(*mem));
	ranks = malloc(c->size * sizeof(*ranks));
	if (!all || !next || !mem || !ranks) {
		ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		goto out;
	}
	ret = mpirma_coll_allgather_bytes(c, &me, sizeof(me), all);
	if (ret)
		goto out;
	for (i = 0; i < c->size; i++)
		next[i] = all[i].next_ctx;
	ctx = take_context(next, c->size);
	*newcomm = MPI_COMM_NULL;
	if (color == MPI_UNDEFINED)
		goto out;
	for (i = 0; i < c->size; i++)
		if (all[i].color == color)
			mem[n++] = (struct split_member){ all[i].key, i };
	qsort(mem, n, sizeof(*mem), cmp_member);
	for (i = 0; i < n; i++)
		ranks[i] = c->ranks[mem[i].rank];
	ret = mpirma_comm_new(c, n, ranks, ctx, newcomm);
out:
	free(all);
	free(next);
	free(mem);
	free(ranks);
	return ret;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_comm(comm, mpirma_comm_split(comm, color, key,
							 newcomm),
				 MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key,
			 MPI_Info info, MPI_Comm *newcomm)
{
	(void)info;
	MPIRMA_CHECK_INIT();
	/* A job lives on one node: all its ranks share memory. */
	if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "unknown split type %d", split_type);
	return mpirma_raise_comm(comm, mpirma_comm_split(comm,
				 split_type == MPI_UNDEFINED ? MPI_UNDEFINED : 0,
				 key, newcomm), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Comm_split_type)

/* Is every member of @g a member of @c (of its local group)? */
static bool group_in_comm(struct mpirma_group *g, struct mpirma_comm *c)
{
	int i;

	for (i = 0; i < g->size; i++)
		if (c->job2rank[g->ranks[i]] < 0)
			return false;
	return true;
}

/*
 * The arguments of Comm_create and Comm_create_group (@tag: 0 for
 * Comm_create, which has none): @group, a subset of @c's (local) group.
 * MPI class (recorded).
 */
static int create_check(struct mpirma_comm *c, MPI_Group group, int tag,
			MPI_Comm *newcomm, struct mpirma_group **g)
{
	*g = mpirma_group_get(group);
	if (!*g)
		return mpirma_err(MPI_ERR_GROUP, "invalid group %d", group);
	if (tag < 0)
		return mpirma_err(MPI_ERR_TAG, "negative tag %d", tag);
	if (!newcomm)
		return mpirma_err(MPI_ERR_ARG, "newcomm is NULL");
	if (!group_in_comm(*g, c))
		return mpirma_err(MPI_ERR_GROUP, "the group is not a subset "
				  "of the communicator");
	return MPI_SUCCESS;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	struct mpirma_comm *c;
	struct mpirma_group *g;
	uint64_t ctx;
	int ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	ret = create_check(c, group, 0, newcomm, &g);
	/*
	 * Of an inter-communicator: both groups give their subsets (one group
	 * each side), a split with the members' group ranks as keys.
	 */
	if (!ret && c->inter)
		ret = mpirma_intercomm_split(c, g->rank == MPI_UNDEFINED ?
					     MPI_UNDEFINED : 0, g->rank,
					     newcomm);
	if (ret || c->inter)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	ret = mpirma_comm_new_context(c, &ctx);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*newcomm = MPI_COMM_NULL;
	if (g->rank == MPI_UNDEFINED)
		return MPI_SUCCESS;
	ret = mpirma_comm_new(c, g->size, g->ranks, ctx, newcomm);
	return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Comm_create)

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
			   MPI_Comm *newcomm)
{
	struct mpirma_comm *c;
	struct mpirma_group *g;
	uint64_t ctx;
	int ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	ret = mpirma_comm_intra_only(c, MPIRMA_FUNC);
	if (!ret)
		ret = create_check(c, group, tag, newcomm, &g);
	if (ret)
		return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
	*newcomm = MPI_COMM_NULL;
	if (g->rank == MPI_UNDEFINED)
		return MPI_SUCCESS;
	/*
	 * Only the group takes part: agree on the id among its members, in
	 * a context no collective of the parent uses.
	 */
	ret = mpirma_members_context(g->size, g->ranks, g->rank,
				     mpirma_ctx_coll(c) | MPIRMA_CTX_GROUP_BIT,
				     tag, &ctx);
	if (!ret)
		ret = mpirma_comm_new(c, g->size, g->ranks, ctx, newcomm);
	return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Comm_create_group)

int PMPI_Comm_free(MPI_Comm *comm)
{
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, *comm);
	if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
		return mpirma_raise_comm(*comm, MPI_ERR_COMM, MPIRMA_FUNC,
					 "%s cannot be freed", c->hdr.name);
	ret = mpirma_objhdr_destroy(&c->hdr, MPIRMA_HK_COMM, *comm);
	mpirma_handle_free(MPIRMA_HK_COMM, *comm);
	mpirma_comm_unref(c);
	*comm = MPI_COMM_NULL;
	return mpirma_raise(ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Comm_free)

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
	struct mpirma_comm *c;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	return mpirma_raise_comm(comm, mpirma_group_new(c->size, c->ranks,
							group),
				 MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Comm_group)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
	struct mpirma_comm *c1, *c2;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c1, comm1);
	MPIRMA_GET_COMM(c2, comm2);
	if (comm1 == comm2) {
		*result = MPI_IDENT;
		return MPI_SUCCESS;
	}
	*result = mpirma_ranks_compare(c1->size, c1->ranks, c2->size,
				       c2->ranks);
	if (*result == MPI_IDENT)
		*result = MPI_CONGRUENT;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
	struct mpirma_comm *c;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	if (!flag)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "flag is NULL");
	*flag = c->inter;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Comm_test_inter)

/* runtime.h */
int mpirma_comm_hints(MPI_Info info, MPI_Info *out)
{
	char key[MPI_MAX_INFO_KEY + 1];
	int n = 0, i, ret;

	*out = MPI_INFO_NULL;
	if (info == MPI_INFO_NULL)
		return MPI_SUCCESS;
	ret = PMPI_Info_dup(info, out);
	if (!ret)
		ret = PMPI_Info_get_nkeys(*out, &n);
	/* from the end: a deletion moves only the keys after it */
	for (i = n - 1; !ret && i >= 0; i--) {
		ret = PMPI_Info_get_nthkey(*out, i, key);
		if (!ret && strncmp(key, "mpi_", 4))
			ret = PMPI_Info_delete(*out, key);
	}
	if (ret && *out != MPI_INFO_NULL)
		PMPI_Info_free(out);
	return ret;
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
	struct mpirma_comm *c;
	MPI_Info copy;
	int ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	ret = mpirma_comm_hints(info, &copy);
	if (ret)
		return ret;
	if (c->info != MPI_INFO_NULL)
		PMPI_Info_free(&c->info);
	c->info = copy;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
	struct mpirma_comm *c;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	if (c->info != MPI_INFO_NULL)
		return PMPI_Info_dup(c->info, info_used);
	return PMPI_Info_create(info_used);
}
MPIRMA_ALIAS(Comm_get_info)

/*
 * The remote group of an inter-communicator: MPI_ERR_COMM on others, and
 * the answer's place @out must not be NULL ("@what is NULL").  MPI class
 * (recorded).
 */
static int remote_check(const struct mpirma_comm *c, const void *out,
			const char *what)
{
	if (!c->inter)
		return mpirma_err(MPI_ERR_COMM, "not an inter-communicator");
	if (!out)
		return mpirma_err(MPI_ERR_ARG, "%s is NULL", what);
	return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	ret = remote_check(c, size, "size");
	if (!ret)
		*size = c->rsize;
	return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, comm);
	ret = remote_check(c, group, "group");
	if (!ret)
		ret = mpirma_group_new(c->rsize, c->rranks, group);
	return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Comm_remote_group)
