/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * datatype.h - MPI datatypes inside the library (lib/base/datatype.c).
 *
 * A datatype is described once, at construction, as a list of runs: "n
 * consecutive instances of a child type, starting at byte displacement d"
 * (every constructor of the standard is such a list).  Bounds, size and the
 * basic type are computed from the runs at once; the block list (the
 * kernel's layout form, struct mpirma_block) is computed once, at commit or
 * at the first internal use, and never changes afterwards, so a pointer into
 * it stays valid as long as a reference to the datatype is held.
 *
 * Two block lists exist for a datatype:
 *  - the byte view: exactly the bytes of the type map, in type-map order,
 *    adjacent pieces merged.  Pack/unpack, messages and put/get use it.
 *  - the element view: for a datatype whose basic components are all one
 *    predefined type, every basic element as the kernel's element of that
 *    type (MPIRMA_TYPE_*), padding included.  It differs from the byte view
 *    only for the pair types with a hole (MPI_SHORT_INT, MPI_DOUBLE_INT,
 *    MPI_LONG_INT, MPI_LONG_DOUBLE_INT), whose MPI size is smaller than the
 *    kernel's element.  Accumulate-like operations and reductions use it.
 *
 * Reference counting: the handle holds one reference, every derived type
 * holds one on each type it was built from, and users that outlive a call
 * (pending operations) take their own with mpirma_dtype_ref().  Predefined
 * types are static and ignore references.
 */
#ifndef MPIRMA_LIB_DATATYPE_H
#define MPIRMA_LIB_DATATYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* mpirma_dtype.basic when the basic components are not all the same type. */
#define MPIRMA_DTYPE_MIXED	(-1)

/*
 * The groups of basic types of the standard's op/type table (MPI 3.1,
 * 5.9.2), which decide which predefined ops a type admits.
 */
enum mpirma_mclass {
	MPIRMA_MC_NONE = 0,	/* MPI_CHAR, MPI_WCHAR, MPI_PACKED...: REPLACE/NO_OP */
	MPIRMA_MC_CINT,		/* C integer (and MPI_AINT/OFFSET/COUNT) */
	MPIRMA_MC_FINT,		/* Fortran integer */
	MPIRMA_MC_FLOAT,	/* floating point */
	MPIRMA_MC_LOGICAL,	/* MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL */
	MPIRMA_MC_COMPLEX,
	MPIRMA_MC_BYTE,
	MPIRMA_MC_PAIR,		/* MAXLOC/MINLOC pairs the kernel has */
	MPIRMA_MC_FPAIR,	/* MPI_2REAL, MPI_2DOUBLE_PRECISION: pairs whose
				 * index is a real; older kernels lack them */
};

/* enum mpirma_mclass of a predefined type (MPIRMA_MC_NONE for others). */
int mpirma_dtype_mclass(MPI_Datatype predefined);
/*
 * MPIRMA_STRICT_TYPES=1: MPI_CHAR and MPI_WCHAR admit only MPI_REPLACE and
 * MPI_NO_OP, as the standard's table says; otherwise they compute as the
 * platform's char and wchar_t, as Open MPI and MPICH do.
 */
bool mpirma_strict_types(void);
/* " (MPIRMA_STRICT_TYPES=1)" when that is why @dt's type is refused, else "". */
const char *mpirma_dtype_strict_note(MPI_Datatype dt);
/*
 * @dt as a user wrote it, into @buf of @len bytes: "MPI_CHAR", or "a
 * derived datatype of N bytes" (with its name, when it has one).
 */
const char *mpirma_dtype_describe(MPI_Datatype dt, char *buf, size_t len);

struct mpirma_dtype;

/* n consecutive instances of @type at @type's extent, from byte @disp. */
struct mpirma_dtype_run {
	MPI_Aint disp;
	MPI_Count n;
	struct mpirma_dtype *type;
};

/* Combiners, as the standard names them (for diagnostics and Get_envelope). */
enum mpirma_combiner {
	MPIRMA_COMBINER_NAMED = MPI_COMBINER_NAMED,
	MPIRMA_COMBINER_DUP = MPI_COMBINER_DUP,
	MPIRMA_COMBINER_CONTIGUOUS = MPI_COMBINER_CONTIGUOUS,
	MPIRMA_COMBINER_VECTOR = MPI_COMBINER_VECTOR,
	MPIRMA_COMBINER_HVECTOR = MPI_COMBINER_HVECTOR,
	MPIRMA_COMBINER_INDEXED = MPI_COMBINER_INDEXED,
	MPIRMA_COMBINER_HINDEXED = MPI_COMBINER_HINDEXED,
	MPIRMA_COMBINER_INDEXED_BLOCK = MPI_COMBINER_INDEXED_BLOCK,
	MPIRMA_COMBINER_HINDEXED_BLOCK = MPI_COMBINER_HINDEXED_BLOCK,
	MPIRMA_COMBINER_STRUCT = MPI_COMBINER_STRUCT,
	MPIRMA_COMBINER_SUBARRAY = MPI_COMBINER_SUBARRAY,
	MPIRMA_COMBINER_RESIZED = MPI_COMBINER_RESIZED,
	MPIRMA_COMBINER_DARRAY = MPI_COMBINER_DARRAY,
	MPIRMA_COMBINER_F90_REAL = MPI_COMBINER_F90_REAL,
	MPIRMA_COMBINER_F90_COMPLEX = MPI_COMBINER_F90_COMPLEX,
	MPIRMA_COMBINER_F90_INTEGER = MPI_COMBINER_F90_INTEGER,
};

/*
 * The arguments a derived type was built with, as MPI_Type_get_contents
 * returns them: @ni integers, @na addresses, @nc large counts (the MPI_Count
 * arguments of a _c constructor, MPI_Type_get_contents_c), @nt datatypes
 * (each holding a reference).
 */
struct mpirma_dtype_args {
	int ni, na, nc, nt;
	int *ints;
	MPI_Aint *aints;
	MPI_Count *counts;
	struct mpirma_dtype **types;
};

/*
 * What one instance of a block list reaches from its start (mpirma_blocks_sum):
 * the bytes [@lo, @hi) it touches (0, 0 with no data), the @data bytes it
 * holds, its block lengths or-ed together (its blocks are whole elements of
 * s bytes, s a power of two, where s - 1 has no bit of it), @ordered: its
 * blocks are in order and apart; @fits: all of it fits in 64 bits (else the
 * rest is unset).
 * Kept with a datatype's block lists so that an RMA call need not walk them
 * to know where its target reaches.
 */
struct mpirma_blocks_sum {
	int64_t lo, hi;
	uint64_t data, lens_or;
	bool ordered, fits;
};

/* Sums up the @n blocks @b into *@s. */
void mpirma_blocks_sum(const struct mpirma_block *b, size_t n,
		       struct mpirma_blocks_sum *s);

/**
 * struct mpirma_dtype - a datatype
 * @refs: references (handle, parents, pending users); unused for predefined
 * @handle: its MPI_Datatype (0 for an internal intermediate type)
 * @predefined: one of mpi.h's named types
 * @committed: MPI_Type_commit was called (predefined: always)
 * @permanent: a type of MPI_Type_create_f90_*: never freed, decoded as
 *	its own handle
 * @combiner: enum mpirma_combiner
 * @size: bytes of data in one element (MPI_Type_size)
 * @nbasic: basic elements in one element (MPI_Get_elements); a pair type
 *	counts its two fields
 * @lb, @ub: the bounds (MPI_Type_get_extent: lb and ub - lb)
 * @true_lb, @true_ub: the bounds of the data bytes (0, 0 when size is 0)
 * @lb_marked, @ub_marked: the bound is explicit (MPI_Type_create_resized),
 *	a "sticky" marker the standard propagates to types built from this one
 * @align: the largest alignment of the basic components (struct padding)
 * @basic: the predefined type every basic component is (canonical handle),
 *	MPIRMA_DTYPE_MIXED, or MPI_DATATYPE_NULL when there are none
 * @ktype: MPIRMA_TYPE_* of @basic for the kernel, or -1 (mixed, none)
 * @padded: the element view differs from the byte view
 * @flat: @blocks (and @eblocks) are computed
 * @blocks, @nblocks: the byte view
 * @eblocks, @neblocks: the element view (== @blocks unless @padded;
 *	NULL when @basic is not a single type)
 * @bsum, @esum: what one instance of each view reaches, once @summed
 *	(by mpirma_dtype_flatten(), so for every type a call may name)
 * @runs, @nruns: the construction
 * @args: the constructor's arguments (MPI_Type_get_contents)
 * @x32size: its bytes in the "external32" representation, once @x32known
 *	(lib/base/datatype_ext32.c)
 * @hdr: its name (MPI_Type_set_name) and attributes (lib/base/attr.c);
 *	MPI_Type_free deletes the attributes, MPI_Type_dup copies them
 */
struct mpirma_dtype {
	int refs;
	MPI_Datatype handle;
	bool predefined;
	bool committed;
	bool permanent;
	int combiner;
	MPI_Count size;
	MPI_Count nbasic;
	MPI_Aint lb, ub;
	MPI_Aint true_lb, true_ub;
	bool lb_marked, ub_marked;
	int align;
	MPI_Datatype basic;
	int ktype;
	bool padded;
	bool flat;
	struct mpirma_block *blocks;
	size_t nblocks;
	struct mpirma_block *eblocks;
	size_t neblocks;
	struct mpirma_blocks_sum bsum, esum;
	bool summed;
	struct mpirma_dtype_run *runs;
	int nruns;
	struct mpirma_dtype_args args;
	MPI_Count x32size;
	bool x32known;
	struct mpirma_objhdr hdr;
};

static inline MPI_Aint mpirma_dtype_extent(const struct mpirma_dtype *t)
{
	return t->ub - t->lb;
}

/* The datatype of a handle (predefined or created), or NULL. */
struct mpirma_dtype *mpirma_dtype_get(MPI_Datatype dt);

/* Handles below this are the predefined datatypes' (lib/base/datatype.c). */
#define MPIRMA_DTYPE_NR_PREDEF	64

/*
 * Per predefined datatype, 1 + its kernel element type when one element of
 * the datatype is exactly one kernel element (not padded, extent = size),
 * else 0: the RMA fast lane's test (lib/rma/rma.c).  Filled when the
 * predefined datatypes are first looked up; all 0 until then, which only
 * sends calls to the general path.
 */
extern signed char mpirma_dtype_elem[MPIRMA_DTYPE_NR_PREDEF];

/* The kernel element type of @dt as mpirma_dtype_elem says, or -1. */
static inline int mpirma_dtype_elem_ktype(MPI_Datatype dt)
{
	return dt > 0 && dt < MPIRMA_DTYPE_NR_PREDEF ?
	       mpirma_dtype_elem[dt] - 1 : -1;
}
void mpirma_dtype_ref(struct mpirma_dtype *t);
void mpirma_dtype_unref(struct mpirma_dtype *t);

/*
 * Checks a datatype argument: MPI_SUCCESS and *@out, or MPI_ERR_TYPE (null,
 * invalid, freed, or with @need_commit a derived type not committed),
 * recorded with mpirma_err().  @out may be NULL.
 */
int mpirma_dtype_check(MPI_Datatype dt, bool need_commit,
		       struct mpirma_dtype **out);

/*
 * Checks a (count, datatype) buffer argument of a communication call:
 * mpirma_dtype_check() with @need_commit, then MPI_ERR_COUNT for a
 * negative count ("negative count N"), recorded.  @out may be NULL.
 * MPI_DATATYPE_NULL with a count of 0 is taken for MPI_BYTE.
 */
int mpirma_buf_check(int count, MPI_Datatype dt, struct mpirma_dtype **out);

/*
 * Computes the block lists, and what one instance of each reaches, if not
 * done yet.  0 or -ENOMEM.  Every function below that needs them calls it.
 */
int mpirma_dtype_flatten(struct mpirma_dtype *t);
/* Sets @t's @bsum and @esum from its block lists. */
void mpirma_dtype_sum_views(struct mpirma_dtype *t);

/*
 * The most bytes the data of one side, or its extent, may span: far beyond
 * any memory, low enough that sums of such spans and displacements cannot
 * overflow 64 bits.
 */
#define MPIRMA_MAX_SPAN		((MPI_Count)1 << 62)

/*
 * The kernel layout of @count elements of @dt at @addr (NULL for the target
 * side: displacements then count from the target address).
 *
 * When every basic component of @dt is one predefined type, the layout is
 * in that type's kernel elements (element view) and *@ktype is its
 * MPIRMA_TYPE_*; otherwise it is the byte view and *@ktype is
 * MPIRMA_TYPE_BYTE.  @out->blocks points into the datatype: hold a reference
 * (mpirma_dtype_ref) while the layout is in use beyond the call.  *@sum is
 * what one instance of the block list reaches when the layout has one, else
 * NULL.  @ktype and @sum may be NULL.
 *
 * Returns MPI_SUCCESS, MPI_ERR_TYPE (invalid, uncommitted derived type,
 * more blocks than MPIRMA_MAX_BLOCKS), MPI_ERR_COUNT (negative, or data or
 * extent past MPIRMA_MAX_SPAN bytes), MPI_ERR_NO_MEM; the cause is
 * recorded with mpirma_err().
 */
int mpirma_dtype_layout(MPI_Datatype dt, MPI_Count count, const void *addr,
			struct mpirma_layout *out, unsigned int *ktype,
			const struct mpirma_blocks_sum **sum);

/* Like mpirma_dtype_layout(), always the byte view (MPIRMA_TYPE_BYTE). */
int mpirma_dtype_layout_bytes(MPI_Datatype dt, MPI_Count count,
			      const void *addr, struct mpirma_layout *out,
			      const struct mpirma_blocks_sum **sum);

/*
 * Accumulate type matching: MPI_SUCCESS when every basic component of @a
 * and of @b is one and the same predefined type (a pair type is one basic
 * element here), or when one of them holds no data; MPI_ERR_TYPE otherwise
 * (recorded).
 */
int mpirma_dtype_acc_match(MPI_Datatype a, MPI_Datatype b);

/*
 * The kernel element type all basic components of @dt are, or -1 (mixed,
 * empty, invalid).  Types without arithmetic have one too (MPI_CHAR: CHAR,
 * MPI_PACKED: BYTE): which ops they admit is mpirma_op_check()'s business.
 */
int mpirma_dtype_ktype(MPI_Datatype dt);

/*
 * When @count elements of @t at @buf are one contiguous run of bytes,
 * returns true and stores its start in *@data (the length is
 * @count * t->size).  The block lists must be computed.
 */
bool mpirma_dtype_contig(const struct mpirma_dtype *t, MPI_Count count,
			 const void *buf, const void **data);

/* Copies the data of @count elements at @buf into @out (count * size bytes). */
void mpirma_dtype_pack(const struct mpirma_dtype *t, const void *buf,
		       MPI_Count count, void *out);

/*
 * Scatters @nbytes packed bytes from @in into @count elements at @buf; a
 * partial last element is filled as far as the bytes go.  @nbytes beyond
 * count * size are ignored.
 */
void mpirma_dtype_unpack(const struct mpirma_dtype *t, const void *in,
			 size_t nbytes, void *buf, MPI_Count count);

/*
 * Copies @count elements of @t from @src to @dst (same layout both sides,
 * only the type map's bytes).
 */
void mpirma_dtype_copy_same(const struct mpirma_dtype *t, MPI_Count count,
			    void *dst, const void *src);

/*
 * Typed local copy between possibly different datatypes with matching type
 * signatures (MPI_Sendrecv to self, collectives to self).  MPI class:
 * MPI_ERR_TRUNCATE when the source holds more bytes than the destination,
 * MPI_ERR_NO_MEM.
 */
int mpirma_dtype_copy(const void *src, MPI_Count scount,
		      struct mpirma_dtype *st, void *dst, MPI_Count rcount,
		      struct mpirma_dtype *rt);

/*
 * The byte range [*lo, *hi) relative to the buffer address that @count
 * elements of @t touch (true bounds); 0, 0 when empty.
 */
void mpirma_dtype_span(const struct mpirma_dtype *t, MPI_Count count,
		       MPI_Aint *lo, MPI_Aint *hi);

/*
 * A scratch buffer for @count elements of @t laid out as in user memory:
 * returns the buffer address to use (the elements' origin) and stores the
 * allocation to free() in *@alloc.  NULL when out of memory (a zero-sized
 * request still returns a usable non-NULL address).
 */
void *mpirma_dtype_scratch(const struct mpirma_dtype *t, MPI_Count count,
			   void **alloc);

/*
 * Basic elements in @nbytes of packed data of @t (MPI_Get_elements):
 * whole elements times nbasic plus the basic elements of a partial one.
 */
MPI_Count mpirma_dtype_elements(const struct mpirma_dtype *t, MPI_Count nbytes);

#endif /* MPIRMA_LIB_DATATYPE_H */
