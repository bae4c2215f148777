// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_flat.c - a datatype's block lists (the kernel's layout
 * form), the layouts of calls, and the data moved by them (see datatype.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"
#include "reduce.h"

/* ------------------------------------------------------------ flattening */

struct blist {
	struct mpirma_block *b;
	size_t n, cap;
};

static int blist_add(struct blist *l, int64_t disp, uint64_t len)
{
	if (!len)
		return 0;
	if (l->n && l->b[l->n - 1].disp + (int64_t)l->b[l->n - 1].len == disp) {
		l->b[l->n - 1].len += len;
		return 0;
	}
	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 8;
		struct mpirma_block *nb = realloc(l->b, ncap * sizeof(*nb));

		if (!nb)
			return -1;
		l->b = nb;
		l->cap = ncap;
	}
	l->b[l->n++] = (struct mpirma_block){ disp, len };
	return 0;
}

/* What a run adds to one view of its parent's block list. */
enum run_shape {
	RUN_EMPTY,		/* nothing: no instances, or no data */
	RUN_ONE_BLOCK,		/* its instances touch: one block for the run */
	RUN_INSTANCES,		/* each instance's blocks */
};

/*
 * The shape of run @r in one view (@elem: element view), with its type's
 * list of that view in *@cb, *@cn.
 */
static enum run_shape run_view(const struct mpirma_dtype_run *r, bool elem,
			       const struct mpirma_block **cb, size_t *cn)
{
	const struct mpirma_dtype *c = r->type;

	*cb = elem ? c->eblocks : c->blocks;
	*cn = elem ? c->neblocks : c->nblocks;
	if (r->n <= 0 || c->size == 0 || !*cn)
		return RUN_EMPTY;
	if (*cn == 1 && (MPI_Aint)(*cb)[0].len == mpirma_dtype_extent(c))
		return RUN_ONE_BLOCK;
	return RUN_INSTANCES;
}

/* Room for the blocks of @t's runs in one view, before merges; at most 4096. */
static size_t view_room(const struct mpirma_dtype *t, bool elem)
{
	const struct mpirma_block *cb;
	size_t room = 0, cn;
	int i;

	for (i = 0; i < t->nruns && room < 4096; i++) {
		MPI_Count n = t->runs[i].n;

		switch (run_view(&t->runs[i], elem, &cb, &cn)) {
		case RUN_EMPTY:
			break;
		case RUN_ONE_BLOCK:
			room++;
			break;
		case RUN_INSTANCES:
			room += n < 4096 && cn < 4096 ? (size_t)n * cn : 4096;
			break;
		}
	}
	return room < 4096 ? room : 4096;
}

/*
 * The blocks of @t's runs in one view (@elem: element view), in a list
 * sized for them first: a type built per call (ARMCI-MPI's subarrays) grew
 * it by reallocation, one of the largest costs of a commit.
 */
static int flatten_view(struct mpirma_dtype *t, bool elem, struct blist *out)
{
	size_t room = view_room(t, elem);
	int i;

	if (room) {
		out->b = malloc(room * sizeof(*out->b));
		if (!out->b)
			return -1;
		out->cap = room;
	}
	for (i = 0; i < t->nruns; i++) {
		const struct mpirma_dtype_run *r = &t->runs[i];
		MPI_Aint ext = mpirma_dtype_extent(r->type);
		const struct mpirma_block *cb;
		size_t cn, k;
		MPI_Count j;

		switch (run_view(r, elem, &cb, &cn)) {
		case RUN_EMPTY:
			break;
		case RUN_ONE_BLOCK:
			if (blist_add(out, r->disp + cb[0].disp, r->n * cb[0].len))
				return -1;
			break;
		case RUN_INSTANCES:
			for (j = 0; j < r->n; j++)
				for (k = 0; k < cn; k++)
					if (blist_add(out, r->disp + j * ext +
						      cb[k].disp, cb[k].len))
						return -1;
			break;
		}
	}
	return 0;
}

static struct mpirma_block *shrink(struct blist *l)
{
	struct mpirma_block *b;

	if (!l->n) {
		free(l->b);
		return NULL;
	}
	if (l->n == l->cap)
		return l->b;
	b = realloc(l->b, l->n * sizeof(*b));
	return b ? b : l->b;
}

/* datatype.h */
void mpirma_blocks_sum(const struct mpirma_block *b, size_t n,
		       struct mpirma_blocks_sum *s)
{
	int64_t a = INT64_MAX, z = INT64_MIN, end;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->ordered = true;
	for (i = 0; i < n; i++) {
		s->lens_or |= b[i].len;
		if (!b[i].len)
			continue;
		if (b[i].len > INT64_MAX ||
		    __builtin_add_overflow(b[i].disp, (int64_t)b[i].len, &end) ||
		    __builtin_add_overflow(s->data, b[i].len, &s->data))
			return;
		if (b[i].disp < z)
			s->ordered = false;	/* out of order, or overlapping */
		a = b[i].disp < a ? b[i].disp : a;
		z = end > z ? end : z;
	}
	if (s->data) {
		s->lo = a;
		s->hi = z;
	}
	s->fits = true;
}

void mpirma_dtype_sum_views(struct mpirma_dtype *t)
{
	mpirma_blocks_sum(t->blocks, t->nblocks, &t->bsum);
	if (t->eblocks == t->blocks)
		t->esum = t->bsum;
	else
		mpirma_blocks_sum(t->eblocks, t->neblocks, &t->esum);
}

/* The block lists of @t and of the types it is built from. */
static int flatten(struct mpirma_dtype *t)
{
	struct blist bytes = { 0 }, elems = { 0 };
	int i;

	if (t->flat)
		return 0;
	for (i = 0; i < t->nruns; i++)
		if (flatten(t->runs[i].type))
			return -ENOMEM;
	if (flatten_view(t, false, &bytes))
		goto out_nomem;
	if (t->basic > 0 && t->padded && flatten_view(t, true, &elems))
		goto out_nomem;
	t->nblocks = bytes.n;
	t->blocks = shrink(&bytes);
	if (t->basic > 0 && t->padded) {
		t->neblocks = elems.n;
		t->eblocks = shrink(&elems);
	} else if (t->basic > 0) {
		t->neblocks = t->nblocks;
		t->eblocks = t->blocks;
	}
	t->flat = true;
	return 0;

out_nomem:
	free(bytes.b);
	free(elems.b);
	return -ENOMEM;
}

/*
 * The sums only for the type asked for, not for the types it is built
 * from, which no call names unless they are committed themselves (and
 * then they are summed here).
 */
int mpirma_dtype_flatten(struct mpirma_dtype *t)
{
	if (flatten(t))
		return -ENOMEM;
	if (!t->summed) {
		mpirma_dtype_sum_views(t);
		t->summed = true;
	}
	return 0;
}

/* ------------------------------------------------------------ layouts */

static int layout_fill(struct mpirma_dtype *t, MPI_Count count, const void *addr,
		       struct mpirma_layout *out, bool elem, unsigned int kt,
		       const struct mpirma_blocks_sum **sum)
{
	const struct mpirma_block *b = elem ? t->eblocks : t->blocks;
	size_t n = elem ? t->neblocks : t->nblocks;
	unsigned int esz = mpirma_type_info[kt].size;
	MPI_Aint ext = mpirma_dtype_extent(t);

	memset(out, 0, sizeof(*out));
	out->addr = (uintptr_t)addr;
	if (sum)
		*sum = NULL;
	if (count == 0 || t->size == 0 || !n)
		return MPI_SUCCESS;
	/* Plain contiguous elements from the address itself: no block list. */
	if (n == 1 && b[0].disp == 0 && (count == 1 || (MPI_Aint)b[0].len == ext)) {
		out->count = (uint64_t)count * (b[0].len / esz);
		return MPI_SUCCESS;
	}
	if (n > MPIRMA_MAX_BLOCKS)
		return mpirma_err(MPI_ERR_TYPE, "datatype %d has %zu blocks, "
				  "more than the kernel takes (%u)",
				  t->handle, n, MPIRMA_MAX_BLOCKS);
	out->blocks = (uintptr_t)b;
	out->nblocks = n;
	out->count = count;
	out->extent = ext;
	if (sum)
		*sum = elem ? &t->esum : &t->bsum;
	return MPI_SUCCESS;
}

static int layout_args(MPI_Datatype dt, MPI_Count count,
		       struct mpirma_dtype **t)
{
	MPI_Aint ext;
	int ret = mpirma_dtype_check(dt, true, t);

	if (ret)
		return ret;
	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative count %lld",
				  (long long)count);
	/* no byte count or address computed from it may overflow */
	ext = mpirma_dtype_extent(*t);
	if (count > 1 &&
	    ((MPI_Count)(*t)->size > MPIRMA_MAX_SPAN / count ||
	     (ext < 0 ? -ext : ext) > MPIRMA_MAX_SPAN / count))
		return mpirma_err(MPI_ERR_COUNT, "%lld elements of datatype %d "
				  "span more than 2^62 bytes", (long long)count,
				  dt);
	return MPI_SUCCESS;
}

int mpirma_dtype_layout(MPI_Datatype dt, MPI_Count count, const void *addr,
			struct mpirma_layout *out, unsigned int *ktype,
			const struct mpirma_blocks_sum **sum)
{
	struct mpirma_dtype *t;
	int ret = layout_args(dt, count, &t);
	bool elem;
	unsigned int kt;

	if (ret)
		return ret;
	elem = t->basic > 0 && t->ktype >= 0;
	kt = elem ? (unsigned int)t->ktype : MPIRMA_TYPE_BYTE;
	if (ktype)
		*ktype = kt;
	return layout_fill(t, count, addr, out, elem, kt, sum);
}

int mpirma_dtype_layout_bytes(MPI_Datatype dt, MPI_Count count,
			      const void *addr, struct mpirma_layout *out,
			      const struct mpirma_blocks_sum **sum)
{
	struct mpirma_dtype *t;
	int ret = layout_args(dt, count, &t);

	if (ret)
		return ret;
	return layout_fill(t, count, addr, out, false, MPIRMA_TYPE_BYTE, sum);
}

int mpirma_dtype_acc_match(MPI_Datatype a, MPI_Datatype b)
{
	struct mpirma_dtype *ta = mpirma_dtype_get(a);
	struct mpirma_dtype *tb = mpirma_dtype_get(b);

	if (!ta || !tb)
		return mpirma_err(MPI_ERR_TYPE, "invalid datatype %d",
				  ta ? b : a);
	if (ta->basic == MPI_DATATYPE_NULL || tb->basic == MPI_DATATYPE_NULL)
		return MPI_SUCCESS;
	if (ta->basic == MPIRMA_DTYPE_MIXED || tb->basic == MPIRMA_DTYPE_MIXED)
		return mpirma_err(MPI_ERR_TYPE, "datatype %d is not built from "
				  "a single predefined type",
				  ta->basic == MPIRMA_DTYPE_MIXED ? a : b);
	if (!mpirma_dtype_same_basic(ta->basic, tb->basic))
		return mpirma_err(MPI_ERR_TYPE, "datatypes of %s and of %s do not "
				  "match", mpirma_dtype_predefs[ta->basic].name,
				  mpirma_dtype_predefs[tb->basic].name);
	return MPI_SUCCESS;
}

/* ------------------------------------------------------------ data movement */

bool mpirma_dtype_contig(const struct mpirma_dtype *t, MPI_Count count,
			 const void *buf, const void **data)
{
	if (t->size == 0 || count == 0) {
		*data = buf;
		return true;
	}
	if (t->nblocks == 1 &&
	    (count == 1 || (MPI_Aint)t->blocks[0].len == mpirma_dtype_extent(t))) {
		*data = (const char *)buf + t->blocks[0].disp;
		return true;
	}
	return false;
}

/* Address @off bytes from @p, computed as integers (the offset may be negative). */
static inline char *at(const void *p, int64_t off)
{
	return (char *)((uintptr_t)p + (uintptr_t)off);
}

void mpirma_dtype_pack(const struct mpirma_dtype *t, const void *buf,
		       MPI_Count count, void *out)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	const void *data;
	char *o = out;
	MPI_Count i;
	size_t k;

	if (mpirma_dtype_contig(t, count, buf, &data)) {
		if (count && t->size)
			memcpy(o, data, count * t->size);
		return;
	}
	for (i = 0; i < count; i++)
		for (k = 0; k < t->nblocks; k++) {
			memcpy(o, at(buf, i * ext + t->blocks[k].disp),
			       t->blocks[k].len);
			o += t->blocks[k].len;
		}
}

void mpirma_dtype_unpack(const struct mpirma_dtype *t, const void *in,
			 size_t nbytes, void *buf, MPI_Count count)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	const char *p = in;
	const void *data;
	MPI_Count i;
	size_t k;

	if ((MPI_Count)nbytes > count * t->size)
		nbytes = count * t->size;
	if (mpirma_dtype_contig(t, count, buf, &data)) {
		if (nbytes)
			memcpy((void *)data, p, nbytes);
		return;
	}
	for (i = 0; i < count && nbytes; i++)
		for (k = 0; k < t->nblocks && nbytes; k++) {
			size_t len = t->blocks[k].len;

			if (len > nbytes)
				len = nbytes;
			memcpy(at(buf, i * ext + t->blocks[k].disp), p, len);
			p += len;
			nbytes -= len;
		}
}

void mpirma_dtype_copy_same(const struct mpirma_dtype *t, MPI_Count count,
			    void *dst, const void *src)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	const void *data;
	MPI_Count i;
	size_t k;

	if (dst == src || !count || !t->size)
		return;
	if (mpirma_dtype_contig(t, count, src, &data)) {
		memmove(at(dst, (const char *)data - (const char *)src), data,
			count * t->size);
		return;
	}
	for (i = 0; i < count; i++)
		for (k = 0; k < t->nblocks; k++) {
			int64_t off = i * ext + t->blocks[k].disp;

			memmove(at(dst, off), at(src, off), t->blocks[k].len);
		}
}

int mpirma_dtype_copy(const void *src, MPI_Count scount,
		      struct mpirma_dtype *st, void *dst, MPI_Count rcount,
		      struct mpirma_dtype *rt)
{
	MPI_Count sbytes = scount * st->size;
	void *tmp;

	if (sbytes > rcount * rt->size)
		return mpirma_err(MPI_ERR_TRUNCATE, "%lld bytes sent, room for "
				  "%lld", (long long)sbytes,
				  (long long)(rcount * rt->size));
	if (st == rt && scount == rcount) {
		mpirma_dtype_copy_same(st, scount, dst, src);
		return MPI_SUCCESS;
	}
	if (!sbytes)
		return MPI_SUCCESS;
	tmp = malloc(sbytes);
	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	mpirma_dtype_pack(st, src, scount, tmp);
	mpirma_dtype_unpack(rt, tmp, sbytes, dst, rcount);
	free(tmp);
	return MPI_SUCCESS;
}

void mpirma_dtype_span(const struct mpirma_dtype *t, MPI_Count count,
		       MPI_Aint *lo, MPI_Aint *hi)
{
	MPI_Aint last = (count - 1) * mpirma_dtype_extent(t);

	if (!count || !t->size) {
		*lo = *hi = 0;
		return;
	}
	*lo = min_aint(t->true_lb, last + t->true_lb);
	*hi = max_aint(t->true_ub, last + t->true_ub);
}

void *mpirma_dtype_scratch(const struct mpirma_dtype *t, MPI_Count count,
			   void **alloc)
{
	MPI_Aint lo, hi;

	mpirma_dtype_span(t, count, &lo, &hi);
	*alloc = malloc(hi - lo ? hi - lo : 1);
	if (!*alloc)
		return NULL;
	return at(*alloc, -lo);
}

/* Basic elements in the first @rem bytes (less than one element) of @t. */
static MPI_Count partial_elements(const struct mpirma_dtype *t, MPI_Count rem)
{
	MPI_Count cnt = 0;
	int i;

	if (t->predefined) {
		/* Only a pair has a basic element smaller than itself. */
		const struct mpirma_predef *p = &mpirma_dtype_predefs[t->handle];
		int first = p->mclass == MPIRMA_MC_FPAIR ? p->size / 2 :
			    p->size - 4;

		return p->nbasic == 2 && rem >= first;
	}
	for (i = 0; i < t->nruns && rem > 0; i++) {
		const struct mpirma_dtype_run *r = &t->runs[i];
		const struct mpirma_dtype *c = r->type;
		MPI_Count k;

		if (r->n <= 0 || !c->size)
			continue;
		k = rem / c->size;
		if (k >= r->n) {
			cnt += r->n * c->nbasic;
			rem -= r->n * c->size;
			continue;
		}
		cnt += k * c->nbasic;
		rem -= k * c->size;
		return cnt + partial_elements(c, rem);
	}
	return cnt;
}

MPI_Count mpirma_dtype_elements(const struct mpirma_dtype *t, MPI_Count nbytes)
{
	if (!t->size)
		return 0;
	return nbytes / t->size * t->nbasic +
	       partial_elements(t, nbytes % t->size);
}
