// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_ext32.c - MPI_Pack_external, MPI_Unpack_external,
 * MPI_Pack_external_size and their large-count forms: data in the
 * standard's portable "external32" representation (MPI 4.0, 11.7.2).
 *
 * external32 is big-endian, IEEE floating point, and gives every
 * predefined type a fixed size that is not always this ABI's: MPI_LONG and
 * MPI_UNSIGNED_LONG are 4 bytes (values are truncated to them and sign- or
 * zero-extended back), MPI_WCHAR 2, MPI_LONG_DOUBLE 16 (IEEE quad; the x87
 * 80-bit value is widened exactly and narrowed by truncation), a C bool 1
 * byte of 0 or 1.  A pair type is its two fields, without the hole (the
 * standard's structs of them).  Elements are converted one by one in
 * type-map order; a type whose basic elements are all one type is walked
 * by its block list, any other by its construction.
 */
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"

/* How a field of a predefined type becomes external32. */
enum x32_kind {
	X32_SWAP,	/* big-endian, in units of @width bytes */
	X32_NARROW_S,	/* a signed integer of @nsize bytes in @width */
	X32_NARROW_U,	/* the same, unsigned */
	X32_BOOL,	/* 0 or 1 */
	X32_LDBL,	/* long doubles as IEEE quad */
};

/* @nsize native bytes at @off, @xsize bytes in external32. */
struct x32_field {
	unsigned char off, nsize, xsize, width, kind;
};

struct x32_layout {
	int nfields;
	struct x32_field f[2];
};

#define F(o, n, x, w, k)	{ o, n, x, w, X32_##k }

/* The layout of predefined type @h (the table of MPI 4.0, 11.7.2). */
static struct x32_layout x32_of(MPI_Datatype h)
{
	const struct mpirma_predef *p = &mpirma_dtype_predefs[h];
	unsigned char n = (unsigned char)p->size;

	switch (h) {
	case MPI_LONG:
		return (struct x32_layout){ 1, { F(0, 8, 4, 4, NARROW_S) } };
	case MPI_UNSIGNED_LONG:
		return (struct x32_layout){ 1, { F(0, 8, 4, 4, NARROW_U) } };
	case MPI_WCHAR:
		return (struct x32_layout){ 1, { F(0, 4, 2, 2, NARROW_U) } };
	case MPI_C_BOOL:
	case MPI_CXX_BOOL:
		return (struct x32_layout){ 1, { F(0, 1, 1, 1, BOOL) } };
	case MPI_LONG_DOUBLE:
	case MPI_C_LONG_DOUBLE_COMPLEX:
	case MPI_CXX_LONG_DOUBLE_COMPLEX:
		return (struct x32_layout){ 1, { F(0, n, n, 16, LDBL) } };
	case MPI_FLOAT_INT:
		return (struct x32_layout){ 2, { F(0, 4, 4, 4, SWAP),
						 F(4, 4, 4, 4, SWAP) } };
	case MPI_DOUBLE_INT:
		return (struct x32_layout){ 2, { F(0, 8, 8, 8, SWAP),
						 F(8, 4, 4, 4, SWAP) } };
	case MPI_LONG_INT:
		return (struct x32_layout){ 2, { F(0, 8, 4, 4, NARROW_S),
						 F(8, 4, 4, 4, SWAP) } };
	case MPI_SHORT_INT:
		return (struct x32_layout){ 2, { F(0, 2, 2, 2, SWAP),
						 F(4, 4, 4, 4, SWAP) } };
	case MPI_LONG_DOUBLE_INT:
		return (struct x32_layout){ 2, { F(0, 16, 16, 16, LDBL),
						 F(16, 4, 4, 4, SWAP) } };
	}
	/* complex numbers and the other pairs: two halves of one type */
	if (p->mclass == MPIRMA_MC_COMPLEX || p->nbasic == 2)
		return (struct x32_layout){ 1, { F(0, n, n, n / 2, SWAP) } };
	return (struct x32_layout){ 1, { F(0, n, n, n, SWAP) } };
}

#undef F

static MPI_Count x32_size_of(struct mpirma_dtype *t)
{
	struct x32_layout l;
	MPI_Count s = 0;
	int i;

	if (t->x32known)
		return t->x32size;
	if (t->predefined) {
		l = x32_of(t->handle);
		for (i = 0; i < l.nfields; i++)
			s += l.f[i].xsize;
	} else {
		for (i = 0; i < t->nruns; i++)
			if (t->runs[i].n > 0)
				s += t->runs[i].n * x32_size_of(t->runs[i].type);
	}
	t->x32size = s;
	t->x32known = true;
	return s;
}

/* Byte @i of @n at @p in big-endian order (this ABI is little-endian). */
static unsigned char *be_byte(unsigned char *p, int n, int i)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return p + n - 1 - i;
#else
	(void)n;
	return p + i;
#endif
}

/*
 * The x87 80-bit long double at @ld as IEEE quad at @q (big-endian), and
 * back: the same sign and biased exponent; the quad fraction is the x87
 * one without its explicit integer bit.
 */
static void ldbl_to_quad(const unsigned char *ld, unsigned char *q)
{
#if LDBL_MANT_DIG == 64
	uint64_t m;
	uint16_t se;
	int i;

	memcpy(&m, ld, 8);
	memcpy(&se, ld + 8, 2);
	m <<= 1;
	q[0] = se >> 8;
	q[1] = se & 0xff;
	for (i = 0; i < 8; i++)
		q[2 + i] = m >> (56 - 8 * i);
	memset(q + 10, 0, 6);
#else
	for (int i = 0; i < 16; i++)
		q[i] = *be_byte((unsigned char *)ld, 16, i);
#endif
}

static void quad_to_ldbl(const unsigned char *q, unsigned char *ld)
{
#if LDBL_MANT_DIG == 64
	uint16_t se = (uint16_t)(q[0] << 8 | q[1]);
	uint64_t m = 0;
	int i;

	for (i = 0; i < 8; i++)
		m = m << 8 | q[2 + i];
	m >>= 1;
	if (se & 0x7fff)	/* normal, infinite or NaN: integer bit set */
		m |= (uint64_t)1 << 63;
	memcpy(ld, &m, 8);
	memcpy(ld + 8, &se, 2);
	memset(ld + 10, 0, 6);
#else
	for (int i = 0; i < 16; i++)
		*be_byte(ld, 16, i) = q[i];
#endif
}

/* Field @f of one element: native @n to external @x (@pack), or back. */
static void x32_field(const struct x32_field *f, unsigned char *n,
		      unsigned char *x, bool pack)
{
	int w = f->width, k, i;
	int64_t v = 0;

	switch (f->kind) {
	case X32_SWAP:
		for (k = 0; k < f->nsize; k += w)
			for (i = 0; i < w; i++) {
				if (pack)
					x[k + i] = *be_byte(n + k, w, i);
				else
					*be_byte(n + k, w, i) = x[k + i];
			}
		return;
	case X32_NARROW_S:
	case X32_NARROW_U:
		if (pack) {
			memcpy(&v, n, f->nsize);	/* nsize 4 or 8 */
			for (i = 0; i < w; i++)
				x[i] = (unsigned char)(v >> (8 * (w - 1 - i)));
			return;
		}
		for (i = 0; i < w; i++)
			v = v << 8 | x[i];
		if (f->kind == X32_NARROW_S && (x[0] & 0x80))
			v -= (int64_t)1 << (8 * w);
		memcpy(n, &v, f->nsize);
		return;
	case X32_BOOL:
		if (pack)
			*x = *n != 0;
		else
			*n = *x != 0;
		return;
	case X32_LDBL:
		for (k = 0; k < f->nsize; k += 16) {
			if (pack)
				ldbl_to_quad(n + k, x + k);
			else
				quad_to_ldbl(x + k, n + k);
		}
		return;
	}
}

/* A walk through the elements of a buffer: the external32 side's cursor. */
struct x32_walk {
	unsigned char *x;
	bool pack;
};

/* One element of predefined @h at @n. */
static void x32_elem(MPI_Datatype h, unsigned char *n, struct x32_walk *w)
{
	struct x32_layout l = x32_of(h);
	int i;

	for (i = 0; i < l.nfields; i++) {
		x32_field(&l.f[i], n + l.f[i].off, w->x, w->pack);
		w->x += l.f[i].xsize;
	}
}

/* Address @off bytes from @p, the offset possibly negative. */
static unsigned char *x32_at(const void *p, int64_t off)
{
	return (unsigned char *)((uintptr_t)p + (uintptr_t)off);
}

/*
 * The elements of one @t at @buf.  When they are all one basic type of
 * one piece, its block list holds whole elements; LONG and the 8-byte
 * integers count as one basic type but differ here, so those take the
 * construction too.
 */
static void x32_walk(const struct mpirma_dtype *t, const void *buf,
		     struct x32_walk *w)
{
	const struct mpirma_predef *p;
	MPI_Count j;
	size_t k;
	int i;

	if (t->predefined) {
		x32_elem(t->handle, x32_at(buf, 0), w);
		return;
	}
	p = t->basic > 0 ? &mpirma_dtype_predefs[t->basic] : NULL;
	if (p && t->flat && !p->len1 && p->ktype != MPIRMA_TYPE_INT64 &&
	    p->ktype != MPIRMA_TYPE_UINT64) {
		for (k = 0; k < t->nblocks; k++)
			for (j = 0; j < (MPI_Count)t->blocks[k].len;
			     j += p->size)
				x32_elem(t->basic, x32_at(buf, t->blocks[k].disp +
							  j), w);
		return;
	}
	for (i = 0; i < t->nruns; i++) {
		const struct mpirma_dtype_run *r = &t->runs[i];
		MPI_Aint ext = mpirma_dtype_extent(r->type);

		if (r->type->size)
			for (j = 0; j < r->n; j++)
				x32_walk(r->type, x32_at(buf, r->disp + j * ext),
					 w);
	}
}

/*
 * The checks of the three calls: @datarep, @count elements of @dt (*@t),
 * *@xbytes bytes of external32.  MPI class, recorded.
 */
static int x32_check(const char *datarep, MPI_Count count, MPI_Datatype dt,
		     bool need_commit, struct mpirma_dtype **t,
		     MPI_Count *xbytes)
{
	MPI_Count bytes;
	int ret;

	if (!datarep)
		return mpirma_err(MPI_ERR_ARG, "datarep is NULL");
	if (strcmp(datarep, "external32"))
		return mpirma_err(MPI_ERR_UNSUPPORTED_DATAREP, "data "
				  "representation \"%s\": only \"external32\" "
				  "is", datarep);
	ret = mpirma_dtype_size_check(count, dt, need_commit, t, &bytes);
	if (ret)
		return ret;
	/* never more bytes than the native form's, checked there */
	*xbytes = count * x32_size_of(*t);
	return MPI_SUCCESS;
}

/* Pack (@pack) or unpack @count elements at @buf to or from @xbuf at *@pos. */
static int x32_move(const char *datarep, void *buf, MPI_Count count,
		    MPI_Datatype dt, void *xbuf, MPI_Count xsize,
		    MPI_Count *pos, bool pack)
{
	struct mpirma_dtype *t;
	struct x32_walk w = { .pack = pack };
	MPI_Aint ext;
	MPI_Count need, i;
	int ret = x32_check(datarep, count, dt, true, &t, &need);

	if (ret)
		return ret;
	if (!pos || *pos < 0)
		return mpirma_err(MPI_ERR_ARG, "bad position");
	if (*pos > xsize || need > xsize - *pos)
		return mpirma_err(MPI_ERR_TRUNCATE, pack ?
				  "%lld bytes do not fit at %lld in %lld" :
				  "%lld bytes wanted at %lld of %lld",
				  (long long)need, (long long)*pos,
				  (long long)xsize);
	w.x = x32_at(xbuf, *pos);
	ext = mpirma_dtype_extent(t);
	for (i = 0; i < count && t->size; i++)
		x32_walk(t, x32_at(buf, i * ext), &w);
	*pos += need;
	return MPI_SUCCESS;
}

int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount,
		       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
		       MPI_Aint *position)
{
	MPI_Count pos = position ? *position : -1;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = x32_move(datarep, (void *)inbuf, incount, datatype, outbuf,
		       outsize, &pos, true);
	if (!ret)
		*position = pos;
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Pack_external)

int PMPI_Pack_external_c(const char *datarep, const void *inbuf,
			 MPI_Count incount, MPI_Datatype datatype,
			 void *outbuf, MPI_Count outsize, MPI_Count *position)
{
	MPIRMA_CHECK_INIT();
	return RAISE(x32_move(datarep, (void *)inbuf, incount, datatype, outbuf,
			      outsize, position, true), NULL);
}
MPIRMA_ALIAS(Pack_external_c)

int PMPI_Unpack_external(const char *datarep, const void *inbuf,
			 MPI_Aint insize, MPI_Aint *position, void *outbuf,
			 int outcount, MPI_Datatype datatype)
{
	MPI_Count pos = position ? *position : -1;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = x32_move(datarep, outbuf, outcount, datatype, (void *)inbuf,
		       insize, &pos, false);
	if (!ret)
		*position = pos;
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Unpack_external)

int PMPI_Unpack_external_c(const char *datarep, const void *inbuf,
			   MPI_Count insize, MPI_Count *position, void *outbuf,
			   MPI_Count outcount, MPI_Datatype datatype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(x32_move(datarep, outbuf, outcount, datatype,
			      (void *)inbuf, insize, position, false), NULL);
}
MPIRMA_ALIAS(Unpack_external_c)

int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount,
			      MPI_Datatype datatype, MPI_Count *size)
{
	struct mpirma_dtype *t;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!size)
		return RAISE(MPI_ERR_ARG, "size is NULL");
	ret = x32_check(datarep, incount, datatype, false, &t, size);
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Pack_external_size_c)

int PMPI_Pack_external_size(const char *datarep, int incount,
			    MPI_Datatype datatype, MPI_Aint *size)
{
	struct mpirma_dtype *t;
	MPI_Count s = 0;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!size)
		return RAISE(MPI_ERR_ARG, "size is NULL");
	ret = x32_check(datarep, incount, datatype, false, &t, &s);
	if (!ret)
		*size = s;
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Pack_external_size)
