// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll_allreduce.c - MPI_Allreduce on an intra-communicator (docs/lib.md,
 * "Collectives"), by the size of the vector:
 *  - up to 1 KiB of a predefined type and op on 2^k ranks: recursive
 *    doubling on the stack (the small lane, straight from the MPI call);
 *  - from 64 KiB of a predefined op: reduce-scatter, then allgather;
 *  - the rest up to 64 KiB on 2^k ranks: recursive doubling;
 *  - else (user ops, other sizes) reduce to rank 0, then bcast.
 * Every rank gets the same bits: each element is combined once, in one
 * order, and copied to the others.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "coll.h"
#include "datatype.h"
#include "op.h"
#include "p2p.h"
#include "coll_msg.h"

/*
 * Small buffers on a power-of-two communicator: recursive doubling.  In
 * round k a rank swaps with rank ^ 2^k; the two hold the results of
 * adjacent rank ranges and both compute lower op higher, so every rank
 * gets the same bits in the canonical order, in log2(size) message
 * latencies instead of reduce + bcast's 2 log2(size).
 *
 * Without copies where the order allows: a rank's partial result stays
 * where it is (the send buffer at first), the lower rank of a pair
 * receives its peer's into a free buffer and computes into it (the
 * operand it may overwrite), and only the higher one, whose own operand
 * is overwritten, copies the send buffer once.  Copying it up front and
 * the lower rank's result back cost an allreduce of 4 KiB of doubles at 2
 * ranks two of its four copies.  Where the op gives the same bits with
 * its operands swapped (mpirma_op_lane_symmetric()), the higher one skips
 * that copy too: it receives the lower one's part where the result goes
 * and combines its own into it.
 */
/*
 * Bytes: above, the split or reduce + bcast, which send the vector fewer
 * times.  Below, doubling won against reduce + bcast at 2 and 4 ranks (one
 * boot, medians of 3 launches, us): 32 KiB of doubles 72.8 and 361
 * against 81.8 and 420, 64 KiB 136 and 638 against 157 and 1,041.
 */
#define DOUBLING_MAX	65536

/*
 * Bytes from which an allreduce of a predefined op splits the vector
 * (below).  One boot, three launches, medians of five rounds, us, at 2
 * and 4 ranks on 2 vCPUs, split from 16 KiB against doubling: 16 KiB
 * 40-45 and 310-322 against 33-35 and 211-233, 32 KiB 68-72 and 379-396
 * against 64-73 and 345-403; from 64 KiB split against doubling (reduce +
 * bcast above): 64 KiB 121-122 and 522-538 against 127-148 and 614-749,
 * 1 MiB 1,484-1,541 and 5,184-5,327 against 2,403-2,455 and
 * 10,609-11,146 (Open MPI, another boot: 1,895-1,922 and 6,137-6,323).
 */
#define SPLIT_MIN	65536

/*
 * One round's buffers: @acc holds this rank's partial result (the send
 * buffer, read-only, unless it is @recvbuf or @tmp).  Returns the buffer
 * the peer's part goes into; *@into is the op's inout, which holds the
 * round's result, and *@copy says that @acc must first be copied there.
 */
static void *doubling_bufs(bool lower, const void *acc, void *recvbuf,
			   void *tmp, void **into, bool *copy)
{
	void *spare = acc == recvbuf ? tmp : recvbuf;

	*copy = false;
	if (lower) {
		*into = spare;		/* acc op peer's, into the peer's */
		return spare;
	}
	if (acc == recvbuf || acc == tmp) {
		*into = (void *)acc;	/* peer's op acc, into acc */
		return spare;
	}
	*into = recvbuf;		/* acc is the send buffer */
	*copy = true;
	return tmp;
}

static int allreduce_doubling(struct mpirma_comm *c, const void *sendbuf,
			      void *recvbuf, int count, struct mpirma_dtype *t,
			      MPI_Datatype dt, MPI_Op op)
{
	void *alloc = NULL, *tmp = mpirma_dtype_scratch(t, count, &alloc);
	int mask, peer, ret = MPI_SUCCESS;
	const void *acc = sendbuf;
	struct mpirma_op_lane l;
	bool copy, swap = mpirma_op_lane_type(op, t, &l) &&
			  mpirma_op_lane_symmetric(&l);
	void *in, *into;

	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (mask = 1; mask < c->size && !ret; mask <<= 1) {
		peer = c->rank ^ mask;
		in = doubling_bufs(c->rank < peer, acc, recvbuf, tmp, &into,
				   &copy);
		if (copy && swap)	/* acc op peer's, into the peer's */
			in = into;
		ret = mpirma_coll_send(c, peer, TAG_ALLREDUCE, acc, count, t);
		if (ret)
			break;
		if (copy && !swap)
			mpirma_dtype_copy_same(t, count, into, acc);
		ret = mpirma_coll_recv(c, peer, TAG_ALLREDUCE, in, count, t);
		if (ret)
			break;
		/* the peer's part where the result goes: ours is the operand */
		ret = in == into ? mpirma_op_apply(op, dt, acc, into, count) :
				   mpirma_op_apply(op, dt, in, into, count);
		acc = into;
	}
	if (!ret && acc != recvbuf)
		mpirma_dtype_copy_same(t, count, recvbuf, acc);
	free(alloc);
	return ret;
}

/*
 * The same for a few predefined elements, on the stack, the op run straight
 * on the kernel's elements: no scratch allocation, no walk of the
 * datatype's blocks, no second check of the op (half of what an allreduce
 * of 8 bytes cost).  The same messages as above, so ranks that pass other
 * datatypes of the same type signature still match.
 */
#define SMALL_MAX	1024	/* bytes, on the stack */

/* coll.h */
int mpirma_coll_allreduce_small(struct mpirma_comm *c, const void *sendbuf,
				void *recvbuf, int count, MPI_Datatype dt,
				MPI_Op op)
{
	uint64_t tmp[SMALL_MAX / sizeof(uint64_t)];
	const void *acc = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	struct mpirma_op_lane l;
	int mask, peer, ret;
	void *in, *into;
	bool copy;
	size_t len;

	if (c->inter || (c->size & (c->size - 1)) || count <= 0 ||
	    !mpirma_op_lane(op, dt, &l))
		return MPIRMA_COLL_GENERAL;
	len = (size_t)count * l.esz;
	if (len > sizeof(tmp))
		return MPIRMA_COLL_GENERAL;
	for (mask = 1; mask < c->size; mask <<= 1) {
		peer = c->rank ^ mask;
		in = doubling_bufs(c->rank < peer, acc, recvbuf, tmp, &into,
				   &copy);
		ret = mpirma_coll_send_bytes(c, peer, TAG_ALLREDUCE, acc, len);
		if (ret)
			return ret;
		if (copy)
			memcpy(into, acc, len);
		ret = mpirma_coll_recv_bytes(c, peer, TAG_ALLREDUCE, in, len,
					     NULL);
		if (ret)
			return ret;
		mpirma_op_lane_apply(&l, c->rank < peer ? acc : in, into, count);
		acc = into;
	}
	if (acc != recvbuf)
		memcpy(recvbuf, acc, len);
	return MPI_SUCCESS;
}

/*
 * Large vectors of a predefined op: reduce-scatter by recursive halving,
 * then allgather by recursive doubling, on the first 2^k ranks.  Each of
 * them combines 1/2^k of the vector and sends it about twice, where
 * doubling combines and sends all of it k times and reduce + bcast has
 * rank 0 combine all of it p - 1 times.  The r = p - 2^k ranks beyond
 * reduce theirs in a binomial tree to rank 2^k, which sends each block to
 * its owner before the allgather, and get the result from rank 0 after.
 *
 * Every element is combined in the binomial tree's association, as
 * MPI_Reduce, MPI_Iallreduce and the doubling combine it: ((0 1)(2 3))
 * for 4 ranks, then with (4 5) for 6.  Blocks split the packed data by
 * kernel elements (struct mpirma_op_lane), as every datatype of the same
 * type signature packs, so ranks that pass n MPI_DOUBLE and one
 * contiguous type of n doubles split alike.  In each swap the lower rank
 * sends first: a send of shmq.onecopy bytes or more waits for its take,
 * and two ranks offering to each other at once would both wait until
 * they give up.
 */
struct split {
	struct mpirma_comm *c;
	struct mpirma_op_lane l;
	size_t n;		/* kernel elements in the vector */
	int np;			/* ranks in the halving: 2^k */
	char *tmp;		/* a peer's part, while ours is where it goes */
};

/* The first element of block @b of s->np. */
static size_t split_at(const struct split *s, int b)
{
	size_t q = s->n / s->np, r = s->n % s->np;

	return q * b + ((size_t)b < r ? (size_t)b : r);
}

/* Bytes of blocks [@lo, @hi). */
static size_t split_len(const struct split *s, int lo, int hi)
{
	return (split_at(s, hi) - split_at(s, lo)) * s->l.esz;
}

/* Where block @b starts in @buf. */
static char *split_ptr(const struct split *s, const char *buf, int b)
{
	return (char *)buf + split_at(s, b) * s->l.esz;
}

/* The block halving rank @h ends the reduce-scatter with. */
static int split_block(const struct split *s, int h)
{
	int lo = 0, hi = s->np, mask;

	for (mask = 1; mask < s->np; mask <<= 1)
		if (h & mask)
			lo = lo + (hi - lo) / 2;
		else
			hi = lo + (hi - lo) / 2;
	return lo;
}

static int split_send(const struct split *s, int peer, const char *buf,
		      size_t len)
{
	return mpirma_coll_send_bytes(s->c, peer, TAG_ALLREDUCE, buf, len);
}

static int split_recv(const struct split *s, int peer, char *buf, size_t len)
{
	return mpirma_coll_recv_bytes(s->c, peer, TAG_ALLREDUCE, buf, len,
				      NULL);
}

/* Sends @olen bytes at @out to @peer and receives @ilen into @in. */
static int split_swap(const struct split *s, int peer, const char *out,
		      size_t olen, char *in, size_t ilen)
{
	int ret;

	if (s->c->rank < peer) {
		ret = split_send(s, peer, out, olen);
		return ret ? ret : split_recv(s, peer, in, ilen);
	}
	ret = split_recv(s, peer, in, ilen);
	return ret ? ret : split_send(s, peer, out, olen);
}

/* Where a peer's part that @mine combines with into @dst comes in. */
static char *split_in(const struct split *s, const char *mine, char *dst)
{
	return mine != dst ? dst : s->tmp;
}

/* Combines the @len bytes that came in (split_in) with ours into @dst. */
static void split_apply(const struct split *s, const char *mine, char *dst,
			size_t len)
{
	mpirma_op_lane_apply(&s->l, mine != dst ? mine : s->tmp, dst,
			     len / s->l.esz);
}

/* Receives @len bytes from @peer and combines them with @mine into @dst. */
static int split_combine(const struct split *s, int peer, const char *mine,
			 char *dst, size_t len)
{
	int ret = split_recv(s, peer, split_in(s, mine, dst), len);

	if (!ret)
		split_apply(s, mine, dst, len);
	return ret;
}

/*
 * Halving rank @h: the reduce-scatter of @src into @dst, keeping the upper
 * half of its range in each step where its bit is 1, the extra ranks'
 * part of its block, and the allgather in the reverse order.
 */
static int split_halving(const struct split *s, int h, const char *src,
			 char *dst)
{
	int lo = 0, hi = s->np, mid, klo, khi, mask, k = 0, peer;
	int los[32], his[32];	/* the range before step k */
	int ret = MPI_SUCCESS;
	const char *mine;
	char *into;
	size_t klen;
	bool upper;

	for (mask = 1; mask < s->np && !ret; mask <<= 1, k++) {
		peer = h ^ mask;
		upper = h & mask;
		los[k] = lo;
		his[k] = hi;
		mid = lo + (hi - lo) / 2;
		klo = upper ? mid : lo;
		khi = upper ? hi : mid;
		mine = split_ptr(s, src, klo);
		into = split_ptr(s, dst, klo);
		klen = split_len(s, klo, khi);
		/*
		 * The lower rank sends first, the upper receives first and
		 * sends before it combines, so that both combine at once.
		 */
		if (!upper)
			ret = split_send(s, peer, split_ptr(s, src, mid),
					 split_len(s, mid, hi));
		if (!ret)
			ret = split_recv(s, peer, split_in(s, mine, into), klen);
		if (!ret && upper)
			ret = split_send(s, peer, split_ptr(s, src, lo),
					 split_len(s, lo, mid));
		if (!ret)
			split_apply(s, mine, into, klen);
		lo = klo;
		hi = khi;
		src = dst;
	}
	if (!ret && s->c->size > s->np)
		ret = split_combine(s, s->np, split_ptr(s, src, lo),
				    split_ptr(s, dst, lo), split_len(s, lo, hi));
	while (!ret && k-- > 0) {
		/* the peer holds the other half of the range before step k */
		int plo = lo == los[k] ? hi : los[k];
		int phi = lo == los[k] ? his[k] : lo;

		ret = split_swap(s, h ^ (1 << k), split_ptr(s, dst, lo),
				 split_len(s, lo, hi), split_ptr(s, dst, plo),
				 split_len(s, plo, phi));
		lo = los[k];
		hi = his[k];
	}
	return ret;
}

/*
 * One of the r ranks beyond the halving: a binomial reduce of theirs to
 * rank np, which sends each halving rank its block, then a binomial bcast
 * of the result, which rank np gets from rank 0.
 */
static int split_extra(const struct split *s, const char *src, char *dst)
{
	struct mpirma_comm *c = s->c;
	int rel = c->rank - s->np, e = c->size - s->np, mask, h, b;
	size_t len = s->n * s->l.esz;
	const char *acc = src;
	int ret = MPI_SUCCESS;

	for (mask = 1; mask < e && !ret; mask <<= 1) {
		if (rel & mask) {
			ret = split_send(s, c->rank - mask, acc, len);
			break;
		}
		if (rel + mask < e) {
			ret = split_combine(s, c->rank + mask, acc, dst, len);
			acc = dst;
		}
	}
	for (h = 0; !rel && h < s->np && !ret; h++) {
		b = split_block(s, h);
		ret = split_send(s, h, split_ptr(s, acc, b),
				 split_len(s, b, b + 1));
	}
	if (ret)
		return ret;
	/* the result: rank np's from rank 0, the others' from their parent */
	mask = rel & -rel;
	ret = split_recv(s, rel ? c->rank - mask : 0, dst, len);
	/* children: rel + 2^j below the lowest bit of rel (e < np) */
	for (mask = (rel ? mask : s->np) >> 1; mask > 0 && !ret; mask >>= 1)
		if (rel + mask < e)
			ret = split_send(s, c->rank + mask, dst, len);
	return ret;
}

static int split_run(const struct split *s, const char *src, char *dst)
{
	struct mpirma_comm *c = s->c;
	int ret;

	if (c->rank >= s->np)
		return split_extra(s, src, dst);
	ret = split_halving(s, c->rank, src, dst);
	if (!ret && !c->rank && c->size > s->np)
		ret = split_send(s, s->np, dst, s->n * s->l.esz);
	return ret;
}

static int allreduce_split(struct mpirma_comm *c, const void *sendbuf,
			   void *recvbuf, int count, struct mpirma_dtype *t,
			   const struct mpirma_op_lane *l)
{
	size_t len = (size_t)count * t->size;
	struct split s = { .c = c, .l = *l, .n = len / l->esz, .np = 1 };
	void *packed = NULL, *out = NULL;
	const void *src, *dst;
	int ret = MPI_SUCCESS;

	while (s.np * 2 <= c->size)
		s.np *= 2;
	if (!mpirma_dtype_contig(t, count, sendbuf, &src)) {
		src = packed = malloc(len);
		if (packed)
			mpirma_dtype_pack(t, sendbuf, count, packed);
	}
	if (!mpirma_dtype_contig(t, count, recvbuf, &dst))
		dst = out = malloc(len);
	/* a peer's part: the whole vector beyond the halving, else a half */
	s.tmp = malloc((c->rank >= s.np ? s.n : split_at(&s, s.np / 2)) *
		       l->esz);
	if (!src || !dst || !s.tmp)
		ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	if (!ret)
		ret = split_run(&s, src, (char *)dst);
	if (!ret && out)
		mpirma_dtype_unpack(t, out, len, recvbuf, count);
	free(s.tmp);
	free(out);
	free(packed);
	return ret;
}

/* coll_msg.h */
int mpirma_coll_allreduce_intra(struct mpirma_comm *c, const void *sendbuf,
				void *recvbuf, int count,
				struct mpirma_dtype *t, MPI_Datatype dt,
				MPI_Op op)
{
	size_t len = (size_t)count * t->size;
	struct mpirma_op_lane l;
	int ret;

	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	if (!count)
		return MPI_SUCCESS;
	if (c->size > 1 && len >= SPLIT_MIN && mpirma_op_lane_type(op, t, &l) &&
	    len / l.esz >= (size_t)c->size)
		return allreduce_split(c, sendbuf, recvbuf, count, t, &l);
	if (!(c->size & (c->size - 1)) && len <= DOUBLING_MAX)
		return allreduce_doubling(c, sendbuf, recvbuf, count, t, dt,
					  op);
	ret = mpirma_coll_reduce_to0(c, sendbuf, recvbuf, count, t, dt, op);
	if (!ret)
		ret = mpirma_coll_run_bcast(c, recvbuf, count, t, 0);
	return ret;
}
