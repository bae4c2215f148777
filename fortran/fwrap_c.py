# SPDX-License-Identifier: LGPL-2.1-or-later
"""fwrap_c - fortran/gen --c-wrappers: the C file of Fortran entry points,
its prelude (the helpers every wrapper uses; the Fortran sentinels, which
differ between mpirma style and host style), each function's wrapper in
the four manglings and its aliases, MPI_F_SYNC_REG.  One wrapper's body:
fwrap_cgen.py; MPICH's mpi_f08 entry points (host style): fwrap_mpich.py.
"""

from fwrap_cgen import c_wrapper
from fwrap_mpich import mpich_f08
from ftable import alt_symbol

C_PRELUDE_COMMON = r"""
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#ifndef MPIRMA_F_TRUE
#define MPIRMA_F_TRUE 1		/* gfortran's .TRUE. */
#endif
#define MPIRMA_F_FALSE 0

static inline void *f_buf(void *p)
{
	if (MPIRMA_F_IS_BOTTOM(p))
		return MPI_BOTTOM;
	if (MPIRMA_F_IS_IN_PLACE(p))
		return MPI_IN_PLACE;
	return p;
}

/*
 * A CHARACTER(*) input: trailing blanks dropped (and leading ones for info
 * keys and values, @lead), NUL-terminated copy.
 */
static inline char *f_str_in(const char *s, size_t len, int lead)
{
	char *c;

	while (lead && len > 0 && s[0] == ' ') {
		s++;
		len--;
	}
	while (len > 0 && s[len - 1] == ' ')
		len--;
	c = malloc(len + 1);
	if (c) {
		memcpy(c, s, len);
		c[len] = '\0';
	}
	return c;
}

/* A C string back into a CHARACTER(*), blank-padded. */
static inline void f_str_out(char *s, size_t len, const char *c)
{
	size_t n = strlen(c);

	if (n > len)
		n = len;
	memcpy(s, c, n);
	memset(s + n, ' ', len - n);
}

/* An output string's C buffer: @cap characters and the NUL. */
static inline char *f_str_buf(long cap)
{
	char *c = malloc(cap > 0 ? (size_t)cap + 1 : 1);

	if (c)
		c[0] = '\0';
	return c;
}

/* An address-kind value where C takes an int: out of range is INT_MIN,
 * which every such parameter rejects with the library's own error. */
static inline int f_narrow(MPI_Aint v)
{
	return v < INT_MIN || v > INT_MAX ? INT_MIN : (int)v;
}

/* Attribute values: Fortran gets predefined attributes by value. */
static inline MPI_Aint f_attr(void *v, int key, int is_win)
{
	if (is_win) {
		if (key == MPI_WIN_BASE)
			return (MPI_Aint)v;
		if (key == MPI_WIN_SIZE)
			return *(MPI_Aint *)v;
		if (key == MPI_WIN_DISP_UNIT || key == MPI_WIN_CREATE_FLAVOR ||
		    key == MPI_WIN_MODEL)
			return *(int *)v;
	} else if (key == MPI_TAG_UB || key == MPI_HOST || key == MPI_IO ||
		   key == MPI_WTIME_IS_GLOBAL || key == MPI_UNIVERSE_SIZE ||
		   key == MPI_LASTUSEDCODE || key == MPI_APPNUM) {
		return *(int *)v;
	}
	return (MPI_Aint)v;
}
"""

C_PRELUDE_MPIRMA = r"""/*
 * The Fortran sentinels: common blocks of the `mpi` module and mpif.h,
 * defined here so that their addresses are known (gfortran names a common
 * block /X/ x_).
 */
MPI_Fint mpirma_bottom_ __attribute__((aligned(16)));
MPI_Fint mpirma_in_place_ __attribute__((aligned(16)));
/*
 * mpirma_status_ignore_ and mpirma_statuses_ignore_ live in libmpirma
 * (mpi.h), whose MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE they are.
 */

#define MPIRMA_F_IS_BOTTOM(p)		((p) == (void *)&mpirma_bottom_)
#define MPIRMA_F_IS_IN_PLACE(p)		((p) == (void *)&mpirma_in_place_)
#define MPIRMA_F_IS_STATUS_IGNORE(p)	((p) == mpirma_status_ignore_)
#define MPIRMA_F_IS_STATUSES_IGNORE(p)	((p) == mpirma_statuses_ignore_)
#define MPIRMA_F_STATUS_SIZE		MPI_F_STATUS_SIZE

/* The weights arrays of distributed graphs: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY. */
MPI_Fint mpirma_unweighted_[1] __attribute__((aligned(16)));
MPI_Fint mpirma_weights_empty_[1] __attribute__((aligned(16)));

static inline int *f_weights(MPI_Fint *p)
{
	if (p == mpirma_unweighted_)
		return MPI_UNWEIGHTED;
	if (p == mpirma_weights_empty_)
		return MPI_WEIGHTS_EMPTY;
	return (int *)p;
}
#define MPIRMA_F_KEYVAL(k)		(k)

/* Callback records, the w collectives' datatypes (fortran/fsupport.c) */
#include "fsupport.h"

/* The symbol names other Fortran compilers call. */
#define F_ALIAS(name, target) \
	extern __typeof__(target) name __attribute__((alias(#target)));
"""

C_PRELUDE_HOST = r"""/*
 * The host MPI's own Fortran sentinels (its mpif.h and `mpi` module):
 * Open MPI's common blocks, MPICH's /MPIPRIV1/ (MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_STATUS_IGNORE) and /MPIPRIV2/ (MPI_STATUSES_IGNORE), and the
 * variables of MPICH's mpi_f08.  Weak: only the host's are present at run
 * time.
 */
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));
extern int mpipriv1_[] __attribute__((weak));
extern int mpipriv2_[] __attribute__((weak));
/* MPICH's `use mpi_f08` MPI_BOTTOM and MPI_IN_PLACE (mpich_f08()) */
extern int MPIR_F08_MPI_BOTTOM __attribute__((weak));
extern int MPIR_F08_MPI_IN_PLACE __attribute__((weak));

static inline int f_is(const void *p, const void *sentinel)
{
	return sentinel && p == sentinel;
}

#ifndef MPIRMA_F_IS_BOTTOM
#define MPIRMA_F_IS_BOTTOM(p) \
	(f_is(p, &mpi_fortran_bottom_) || f_is(p, mpipriv1_) || \
	 f_is(p, &MPIR_F08_MPI_BOTTOM))
#endif
#ifndef MPIRMA_F_IS_IN_PLACE
#define MPIRMA_F_IS_IN_PLACE(p) \
	(f_is(p, &mpi_fortran_in_place_) || (mpipriv1_ && f_is(p, mpipriv1_ + 1)) || \
	 f_is(p, &MPIR_F08_MPI_IN_PLACE))
#endif
#ifndef MPIRMA_F_IS_STATUS_IGNORE
#define MPIRMA_F_IS_STATUS_IGNORE(p) \
	(f_is(p, &mpi_fortran_status_ignore_) || (mpipriv1_ && f_is(p, mpipriv1_ + 2)))
#endif
#ifndef MPIRMA_F_IS_STATUSES_IGNORE
#define MPIRMA_F_IS_STATUSES_IGNORE(p) \
	(f_is(p, &mpi_fortran_statuses_ignore_) || f_is(p, mpipriv2_))
#endif
#ifndef MPIRMA_F_KEYVAL
#if defined(MPICH_VERSION)
/*
 * MPICH's Fortran names every predefined attribute key with its C value + 1
 * (so that its own binding knows to return the value, not a pointer); the
 * C API, which these wrappers call, takes the C value.
 */
static inline int mpirma_f_keyval(int key)
{
	static const int c_keys[] = {
		MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
		MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM, MPI_WIN_BASE,
		MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR,
		MPI_WIN_MODEL,
	};

	for (size_t i = 0; i < sizeof(c_keys) / sizeof(c_keys[0]); i++)
		if (key == c_keys[i] + 1)
			return c_keys[i];
	return key;
}
#define MPIRMA_F_KEYVAL(k) mpirma_f_keyval(k)
#else
#define MPIRMA_F_KEYVAL(k) (k)
#endif
#endif
#if defined(MPI_F_STATUS_SIZE)
#define MPIRMA_F_STATUS_SIZE MPI_F_STATUS_SIZE
#elif defined(OPEN_MPI)
#define MPIRMA_F_STATUS_SIZE 6
#endif

#define F_ALIAS(name, target) \
	extern __typeof__(target) name __attribute__((alias(#target)));
"""


def manglings(lower):
    """The names a Fortran compiler may call for the routine @lower."""
    return [lower + "_", lower + "__", lower, lower.upper()]


def c_wrappers(funcs, style, only):
    out = ["/* Generated by fortran/gen from fortran/bindings.tab: do not edit. */"]
    if style == "host":
        out.append("/* Style host: the standard MPI C API only, for any mpi.h. */")
    out.append(C_PRELUDE_COMMON.split("#include <mpi.h>")[0] + "#include <mpi.h>\n")
    out.append(C_PRELUDE_MPIRMA if style == "mpirma" else C_PRELUDE_HOST)
    out.append(C_PRELUDE_COMMON.split("#include <mpi.h>")[1])
    for f in funcs:
        if only is not None and f.name not in only:
            continue
        if style == "host" and f.f08only:
            continue            # only in MPICH's mpi_f08 (mpich_f08())
        cname = "_" + f.name
        low = "mpi_" + f.name.lower()
        prefixes = [("MPI", low)]
        if style == "mpirma":
            prefixes.append(("PMPI", "p" + low))
        out.append("/* MPI_%s */" % f.name)
        for prefix, lname in prefixes:
            main = lname + "_"
            out.append(c_wrapper(f, style, prefix, cname, main))
            for a in manglings(lname)[1:]:
                out.append("F_ALIAS(%s, %s)" % (a, main))
            if style == "host":
                # The profiling names too: the host's own pmpi_ would take
                # the call past the layer, to a window the host does not serve.
                for a in manglings("p" + lname):
                    out.append("F_ALIAS(%s, %s)" % (a, main))
                # Open MPI's `use mpi_f08` calls ompi_x_f, with the
                # arguments of mpi_x_ (handles as their INTEGER, the same
                # status, hidden string lengths last), which would call
                # the host's PMPI_X.  MPICH's has entry points of its
                # own, which call its PMPI_X: mpich_f08().
                # (Not a call with strings: Open MPI passes their lengths
                # otherwise there.  None is in the layer's lists.)
                if not any(p.base in ("str", "key") for p in f.params):
                    out.append("F_ALIAS(o%s_f, %s)" % (lname, main))
            out.append("")
        if style == "mpirma" and f.has_alt():
            alt = [p for p in f.params if p.alt][0]
            out.append("/* MPI_%s with %s as INTEGER%s: a specific of the module's generic */"
                       % (f.name, alt.name,
                          "(KIND=MPI_ADDRESS_KIND)" if alt.alt == "aint" else ""))
            out.append(c_wrapper(f, style, "MPI", cname, alt_symbol(f) + "_", alt))
        if style == "mpirma":
            out.append("/* MPI_%s_f08, the specific of `use mpi_f08` */" % f.name)
            out.append("F_ALIAS(%s_f08_, %s_)" % (low, low))
            out.append("F_ALIAS(p%s_f08_, p%s_)" % (low, low))
    if style == "mpirma" and only is None:
        out.append(F_SYNC_REG)
    if style == "host":
        out.append(mpich_f08(funcs, only))
    return "\n".join(out) + "\n"


# MPI_F_SYNC_REG: does nothing, but the call is opaque to the Fortran
# compiler, which must therefore reload @buf afterwards (MPI-3.1 17.1.17).
F_SYNC_REG = """/* MPI_F_SYNC_REG (Fortran only) */
void mpi_f_sync_reg_(void *buf);
void mpi_f_sync_reg_(void *buf)
{
\t__asm__ __volatile__("" : : "r"(buf) : "memory");
}
""" + "".join("F_ALIAS(%s, mpi_f_sync_reg_)\n" % a
              for a in manglings("mpi_f_sync_reg")[1:] + manglings("pmpi_f_sync_reg"))
