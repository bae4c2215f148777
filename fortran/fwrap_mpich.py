# SPDX-License-Identifier: LGPL-2.1-or-later
"""fwrap_mpich - the entry points of MPICH's `use mpi_f08` that the hybrid
layer defines (fortran/gen --c-wrappers --style host, under MPICH_VERSION),
and the C code that reads gfortran's array descriptors for them.
"""

from fwrap_cgen import c_wrapper

# MPICH's `use mpi_f08` calls MPICH's C PMPI_ functions itself, past a
# layer's MPI_ ones; its entry points are what a program calls, so the
# layer defines them.  They are not BIND(C): a choice buffer arrives as
# gfortran's own descriptor of an assumed-rank argument (MPICH's module
# only works with the gfortran that built it), everything else as in
# `use mpi` (handles are one INTEGER, ierror may be absent: NULL).
F08_PRELUDE_MPICH = r"""
/*
 * MPICH's `use mpi_f08` entry points: mpi_x_f08_ (no choice buffer: the
 * arguments of mpi_x_), mpi_x_f08ts_ (choice buffers as descriptors),
 * mpi_x_f08{,ts}_large_ (MPI 4.0's large-count forms), and their profiling
 * names pmpir_x_... .
 */
#if defined(MPICH_VERSION)
#include <stddef.h>

/* gfortran's array descriptor (GCC 8 and later): address first. */
struct f08_dim {
	ptrdiff_t stride;	/* in units of span */
	ptrdiff_t lbound;
	ptrdiff_t ubound;
};

struct f08_desc {
	void *base_addr;
	size_t offset;
	size_t elem_len;
	int version;
	signed char rank;
	signed char type;
	short attribute;
	ptrdiff_t span;		/* bytes between elements a stride counts */
	struct f08_dim dim[15];
};

static inline ptrdiff_t f08_extent(const struct f08_desc *d, int i)
{
	ptrdiff_t n = d->dim[i].ubound - d->dim[i].lbound + 1;

	return n > 0 ? n : 0;
}

/* Are @d's elements one block of memory, in array element order? */
static int f08_is_contiguous(const struct f08_desc *d)
{
	ptrdiff_t next = (ptrdiff_t)d->elem_len;
	int i;

	for (i = 0; i < d->rank; i++)
		if (f08_extent(d, i) == 0)
			return 1;
	for (i = 0; i < d->rank; i++) {
		if (f08_extent(d, i) > 1 && d->dim[i].stride * d->span != next)
			return 0;
		next *= f08_extent(d, i);
	}
	return 1;
}

/* A buffer that must be contiguous (a window's memory, one element). */
static int f08_contiguous(const struct f08_desc *d, void **addr)
{
	*addr = f_buf(d->base_addr);
	return f08_is_contiguous(d) ? MPI_SUCCESS : MPI_ERR_BUFFER;
}

/*
 * The first @m elements, in array element order, of dimensions 0..@k of
 * @d, each element being @elem: whole blocks of dimension @k as an hvector
 * of the blocks below it, and what is left of @m after them.  *@out is
 * set only on success.
 */
static int f08_first(const struct f08_desc *d, int k, MPI_Count m,
		     MPI_Datatype elem, MPI_Datatype *out)
{
	MPI_Datatype full, both[2];
	MPI_Aint stride, disp[2];
	MPI_Count block = 1, q, r;
	int lens[2] = { 1, 1 }, ret, i;

	if (k < 0)
		return MPI_Type_dup(elem, out);
	for (i = 0; i < k; i++)
		block *= f08_extent(d, i);
	q = m / block;
	r = m % block;
	stride = d->dim[k].stride * d->span;
	if (q > INT_MAX)
		return MPI_ERR_COUNT;
	ret = f08_first(d, k - 1, block, elem, &full);
	if (ret != MPI_SUCCESS)
		return ret;
	ret = MPI_Type_create_hvector((int)q, 1, stride, full, &both[0]);
	MPI_Type_free(&full);
	if (ret != MPI_SUCCESS)
		return ret;
	if (r == 0) {
		*out = both[0];
		return MPI_SUCCESS;
	}
	ret = f08_first(d, k - 1, r, elem, &both[1]);
	if (ret == MPI_SUCCESS) {
		disp[0] = 0;
		disp[1] = (MPI_Aint)q * stride;
		ret = MPI_Type_create_struct(2, lens, disp, both, out);
		MPI_Type_free(&both[1]);
	}
	MPI_Type_free(&both[0]);
	return ret;
}

/*
 * A choice buffer with the count and datatype that describe its data
 * (MPI_SUBARRAYS_SUPPORTED is .TRUE. in MPICH's mpi_f08).  Contiguous, it
 * is its address.  An array section with gaps (a(1:n:2), b(2:3, :)) is read
 * as the standard says, as if its elements were contiguous: @count items
 * of @type from the first element on.  That is one item of a type picking
 * those elements in place (*section, which the caller frees), when @type
 * is contiguous and fills each element a whole number of times, and @count
 * ends on an element boundary within the section.
 */
static int f08_section(const struct f08_desc *d, MPI_Count count,
		       MPI_Datatype type, void **addr, MPI_Datatype *section)
{
	MPI_Datatype elem;
	MPI_Aint lb, extent;
	MPI_Count size, per, n = 1;
	int ret, i;

	*section = MPI_DATATYPE_NULL;
	*addr = f_buf(d->base_addr);
	if (*addr != d->base_addr || count == 0 || f08_is_contiguous(d))
		return MPI_SUCCESS;
	ret = MPI_Type_get_extent(type, &lb, &extent);
	if (ret == MPI_SUCCESS)
		ret = MPI_Type_size_x(type, &size);
	if (ret != MPI_SUCCESS)
		return ret;
	if (lb != 0 || size != extent || extent <= 0 ||
	    d->elem_len % (size_t)extent != 0)
		return MPI_ERR_TYPE;
	per = (MPI_Count)(d->elem_len / (size_t)extent);
	for (i = 0; i < d->rank; i++)
		n *= f08_extent(d, i);
	if (count < 0 || count % per != 0 || count / per > n)
		return MPI_ERR_COUNT;
	ret = MPI_Type_contiguous((int)per, type, &elem);
	if (ret != MPI_SUCCESS)
		return ret;
	ret = f08_first(d, d->rank - 1, count / per, elem, section);
	MPI_Type_free(&elem);
	if (ret != MPI_SUCCESS)
		return ret;
	ret = MPI_Type_commit(section);
	if (ret != MPI_SUCCESS)
		MPI_Type_free(section);
	return ret;
}
"""


def mpich_f08(funcs, only):
    """MPICH's mpi_f08 entry points for the functions in @only (host style):
    aliases of the mpi_x_ wrappers where no argument differs, wrappers
    taking descriptors where a choice buffer does, the large-count forms
    (X_c) under MPI 4.0."""
    out = [F08_PRELUDE_MPICH]
    large = []
    for f in funcs:
        if only is not None and f.name not in only:
            continue
        if any(p.base in ("str", "key") for p in f.params):
            continue    # strings: MPICH's mpi_f08 passes them its own way
        ts = any(p.base == "buf" for p in f.params)
        stem = f.name[:-2] if f.f08only else f.name
        sym = "mpi_%s_f08%s%s_" % (stem.lower(), "ts" if ts else "",
                                   "_large" if f.f08only else "")
        text = ["/* MPI_%s */" % f.name]
        if ts or f.f08only:
            text.append(c_wrapper(f, "host", "MPI", "_" + f.name, sym, f08ts=ts))
            body = sym
        else:
            body = "mpi_%s_" % f.name.lower()   # the `use mpi` wrapper
            text.append("F_ALIAS(%s, %s)" % (sym, body))
        text.append("F_ALIAS(p%s, %s)" % (sym.replace("mpi_", "mpir_", 1), body))
        (large if f.f08only else out).extend(text + [""])
    if large:
        out.append("#if MPI_VERSION >= 4")
        out += large
        out.append("#endif")
    out.append("#endif /* MPICH_VERSION */")
    return "\n".join(out)
