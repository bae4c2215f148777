# SPDX-License-Identifier: LGPL-2.1-or-later
"""fwrap_cgen - one C wrapper of fortran/gen: a Fortran routine's C entry
point that converts its arguments (handles, strings, statuses, logicals...)
and calls the C function; both styles (mpirma, host) and MPICH's
descriptor-taking mpi_f08 form.  The file around it: fwrap_c.py.
"""

import fkinds
from ftable import CONV, HANDLES, HIDDEN, NULLS, die


def c_param_decl(p, kind_override=None):
    """(declaration, hidden length declaration or None) of a wrapper parameter."""
    b = p.base
    n = p.name
    if kind_override == "aint":
        return "MPI_Aint *%s" % n, None
    if kind_override == "int":
        return "MPI_Fint *%s" % n, None
    if fkinds.c_param_decl(p):
        return fkinds.c_param_decl(p), None
    if b in ("buf", "localptr"):
        return "void *%s" % n, None
    if b in ("aint", "baseptr", "attr", "cattr", "wattr"):
        return "MPI_Aint *%s" % n, None
    if b == "count":
        return "MPI_Count *%s" % n, None
    if b in ("str", "key"):
        return "char *%s" % n, "size_t %s_len" % n
    if b == "fn":
        return "%s *%s" % (p.ctype, n), None
    return "MPI_Fint *%s" % n, None


class CGen:
    """The body of one wrapper: declarations, code before and after the call.
    @f08ts: choice buffers arrive as gfortran array descriptors (MPICH's
    `use mpi_f08` entry points, host style)."""

    def __init__(self, f, style, alt=None, f08ts=False):
        self.f, self.style, self.alt, self.f08ts = f, style, alt, f08ts
        self.decl, self.pre, self.post, self.cleanup, self.args = [], [], [], [], []

    def conv(self, h):
        return CONV.get(h, h)

    def build(self):
        ps = self.f.params
        i = 0
        while i < len(ps):
            if self.f08ts and ps[i].base == "buf":
                i += self.f08_buf(ps, i)
            else:
                self.param(ps[i])
                i += 1

    def f08_buf(self, ps, i):
        """A descriptor-passed choice buffer: with the count and datatype
        that follow it, an array section with gaps becomes one item of a
        derived type (f08_section); alone (a window's base, fetch_and_op's
        single elements) it must be contiguous.  Returns the parameters
        consumed."""
        n = ps[i].name
        self.decl.append("void *c_%s = NULL;" % n)
        self.args.append("c_%s" % n)
        cnt, typ = (ps[i + 1:i + 3] + [None, None])[:2]
        if (cnt and typ and cnt.base in ("int", "count") and typ.base == "type"
                and not cnt.dir and not typ.dir):
            self.decl.append("MPI_Datatype c_%s_t = MPI_Type_f2c(*%s);" % (n, typ.name))
            self.decl.append("MPI_Datatype c_%s_s = MPI_DATATYPE_NULL;" % n)
            self.pre.append("c_ierr = f08_section(%s, *%s, c_%s_t, &c_%s, &c_%s_s);\n"
                            "\tif (c_ierr != MPI_SUCCESS)\n\t\tgoto fail;"
                            % (n, cnt.name, n, n, n))
            self.args.append("c_%s_s != MPI_DATATYPE_NULL ? 1 : %s*%s"
                             % (n, "(int)" if cnt.base == "int" else "", cnt.name))
            self.args.append("c_%s_s != MPI_DATATYPE_NULL ? c_%s_s : c_%s_t" % (n, n, n))
            self.cleanup.append("if (c_%s_s != MPI_DATATYPE_NULL)\n\t\tMPI_Type_free(&c_%s_s);"
                                % (n, n))
            return 3
        self.pre.append("c_ierr = f08_contiguous(%s, &c_%s);\n"
                        "\tif (c_ierr != MPI_SUCCESS)\n\t\tgoto fail;" % (n, n))
        return 1

    def errhandler(self):
        """The call that raises an error found before the C call (no
        memory, an unusable buffer) on the object the call is about, as
        the C function would have: its window, else its communicator."""
        for b, h in (("win", "Win"), ("comm", "Comm")):
            for p in self.f.params:
                if p.base == b and not p.dir and not p.array:
                    return "MPI_%s_call_errhandler(MPI_%s_f2c(*%s), c_ierr);" % (h, h, p.name)
        return None

    def param(self, p):
        n, b = p.name, p.base
        ko = None
        if self.alt is p:
            ko = p.alt
        if ko == "int" and b == "aint":
            self.args.append("(MPI_Aint)*%s" % n)
            return
        if ko == "aint" and b == "int":
            self.args.append("f_narrow(*%s)" % n)
            return
        if fkinds.param(self, p, HANDLES):
            return
        if b == "null":
            self.args.append("NULL")
        elif b == "buf":
            self.args.append("f_buf(%s)" % n)
        elif b == "localptr":
            self.decl.append("void *c_%s = NULL;" % n)
            self.pre.append("(void)%s;" % n)
            self.args.append("&c_%s" % n)
        elif b in ("int", "lgc", "int3", "idx") and not p.dir and not p.array:
            self.args.append("(int)*%s" % n if b == "int" else "*%s != 0" % n)
        elif b in ("int", "int3", "idx", "lgc") and (p.dir or p.array):
            if b == "int3":
                self.args.append("(int (*)[3])%s" % n)
            else:
                self.args.append("(int *)%s" % n)
            if b == "lgc" and p.dir:
                if p.array:
                    self.post.append("if (c_ierr == MPI_SUCCESS) {\n\t\tint i_;\n\n"
                                     "\t\tfor (i_ = 0; i_ < (int)*%s; i_++)\n"
                                     "\t\t\t%s[i_] = %s[i_] ? MPIRMA_F_TRUE : MPIRMA_F_FALSE;\n\t}"
                                     % (p.size, n, n))
                else:
                    self.post.append("*%s = *%s ? MPIRMA_F_TRUE : MPIRMA_F_FALSE;" % (n, n))
            if b == "idx":
                if p.array:
                    self.post.append("if (c_ierr == MPI_SUCCESS && *%s != MPI_UNDEFINED) {\n"
                                     "\t\tint i_;\n\n\t\tfor (i_ = 0; i_ < (int)*%s; i_++)\n"
                                     "\t\t\t%s[i_]++;\n\t}" % (p.size, p.size, n))
                else:
                    self.post.append("if (c_ierr == MPI_SUCCESS && *%s >= 0)\n\t\t(*%s)++;"
                                     % (n, n))
        elif b == "aint":
            self.args.append("%s%s" % ("" if (p.dir or p.array) else "*", n))
        elif b == "count":
            self.args.append("%s%s" % ("" if (p.dir or p.array) else "*", n))
        elif b == "baseptr":
            self.args.append("(void *)%s" % n)
        elif b == "attr":
            self.args.append("(void *)*%s" % n)
        elif b == "iattr":
            self.args.append("(void *)(MPI_Aint)*%s" % n)
        elif b in ("cattr", "wattr", "icattr"):
            key = self.f.params[1].name
            # the key in C's terms (MPICH's Fortran ones differ)
            kexpr = "MPIRMA_F_KEYVAL((int)*%s)" % key
            assert self.args[1] == "(int)*%s" % key
            self.args[1] = kexpr
            self.decl.append("void *c_%s = NULL;" % n)
            self.args.append("&c_%s" % n)
            val = "f_attr(c_%s, %s, %d)" % (n, kexpr, b == "wattr")
            if b == "icattr":
                val = "(MPI_Fint)" + val
            self.post.append("if (c_ierr == MPI_SUCCESS && *flag)\n\t\t*%s = %s;" % (n, val))
        elif b == "str":
            if p.dir:
                cap = p.cap
                self.decl.append("char *c_%s = f_str_buf(%s);" % (n, cap))
                self.pre.append("if (!c_%s)\n\t\tgoto nomem;" % n)
                self.args.append("c_%s" % n)
                self.post.append("if (c_ierr == MPI_SUCCESS)\n\t\tf_str_out(%s, %s_len, c_%s);" % (n, n, n))
            else:
                self.decl.append("char *c_%s = f_str_in(%s, %s_len, 0);" % (n, n, n))
                self.pre.append("if (!c_%s)\n\t\tgoto nomem;" % n)
                self.args.append("c_%s" % n)
            self.cleanup.append("free(c_%s);" % n)
        elif b == "key":
            self.decl.append("char *c_%s = f_str_in(%s, %s_len, 1);" % (n, n, n))
            self.pre.append("if (!c_%s)\n\t\tgoto nomem;" % n)
            self.args.append("c_%s" % n)
            self.cleanup.append("free(c_%s);" % n)
        elif b == "status":
            if p.array:
                self.decl.append("MPI_Status *c_%s = MPI_STATUSES_IGNORE;" % n)
                self.pre.append("if (!MPIRMA_F_IS_STATUSES_IGNORE(%s)) {\n"
                                "\t\tc_%s = calloc(*%s > 0 ? (size_t)*%s : 1, sizeof(MPI_Status));\n"
                                "\t\tif (!c_%s)\n\t\t\tgoto nomem;\n\t}" % (n, n, p.size, p.size, n))
                self.args.append("c_%s" % n)
                self.post.append("if (c_%s != MPI_STATUSES_IGNORE) {\n\t\tint i_;\n\n"
                                 "\t\tfor (i_ = 0; i_ < (int)*%s; i_++)\n"
                                 "\t\t\tMPI_Status_c2f(&c_%s[i_], %s + i_ * MPIRMA_F_STATUS_SIZE);\n\t}"
                                 % (n, p.size, n, n))
                self.cleanup.append("if (c_%s != MPI_STATUSES_IGNORE)\n\t\tfree(c_%s);" % (n, n))
            elif p.dir in ("<", "<>"):
                self.decl.append("MPI_Status c_%s;" % n)
                self.pre.append("MPI_Status_f2c(%s, &c_%s);" % (n, n))
                self.args.append("&c_%s" % n)
                if p.dir == "<>":   # the status setters
                    self.post.append("if (c_ierr == MPI_SUCCESS)\n"
                                     "\t\tMPI_Status_c2f(&c_%s, %s);" % (n, n))
            else:
                self.decl.append("MPI_Status c_%s;" % n)
                self.pre.append("memset(&c_%s, 0, sizeof(c_%s));" % (n, n))
                self.args.append("MPIRMA_F_IS_STATUS_IGNORE(%s) ? MPI_STATUS_IGNORE : &c_%s"
                                 % (n, n))
                self.post.append("if (!MPIRMA_F_IS_STATUS_IGNORE(%s))\n"
                                 "\t\tMPI_Status_c2f(&c_%s, %s);" % (n, n, n))
        elif b in HANDLES:
            h = HANDLES[b]
            cv = self.conv(h)
            if p.array:
                self.decl.append("MPI_%s *c_%s = malloc(*%s > 0 ? (size_t)*%s * sizeof(MPI_%s) : 1);"
                                 % (h, n, p.size, p.size, h))
                self.pre.append("if (!c_%s)\n\t\tgoto nomem;\n\tfor (i_ = 0; i_ < (int)*%s; i_++)\n"
                                "\t\tc_%s[i_] = MPI_%s_f2c(%s[i_]);" % (n, p.size, n, cv, n))
                self.need_i = True
                self.args.append("c_%s" % n)
                if p.dir:
                    self.post.append("for (i_ = 0; i_ < (int)*%s; i_++)\n"
                                     "\t\t%s[i_] = MPI_%s_c2f(c_%s[i_]);" % (p.size, n, cv, n))
                self.cleanup.append("free(c_%s);" % n)
            elif p.dir == ">":
                self.decl.append("MPI_%s c_%s = %s;" % (h, n, NULLS[h]))
                self.args.append("&c_%s" % n)
                self.post.append("*%s = MPI_%s_c2f(c_%s);" % (n, cv, n))
            elif p.dir == "<>":
                self.decl.append("MPI_%s c_%s = MPI_%s_f2c(*%s);" % (h, n, cv, n))
                self.args.append("&c_%s" % n)
                self.post.append("*%s = MPI_%s_c2f(c_%s);" % (n, cv, n))
            else:
                self.args.append("MPI_%s_f2c(*%s)" % (cv, n))
        elif b == "fn":
            if self.style == "host":
                die("MPI_%s: callback parameter %s cannot be bound in host style"
                    % (self.f.name, n))
            self.args.append(n)
        elif b == "wgt":
            # the host's own MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are not known
            if self.style == "host":
                die("MPI_%s: weights parameter %s cannot be bound in host style"
                    % (self.f.name, n))
            self.args.append("f_weights(%s)" % n)
        else:
            die("MPI_%s: unknown kind %s" % (self.f.name, p.kind))


def c_wrapper(f, style, prefix, cname, sym, alt=None, f08ts=False):
    """One wrapper function named @sym calling @prefix@cname."""
    params, hidden = [], []
    for p in f.params:
        if p.base in HIDDEN:
            continue
        if f08ts and p.base == "buf":
            params.append("const struct f08_desc *%s" % p.name)
            continue
        d, h = c_param_decl(p, p.alt if alt is p else None)
        params.append(d)
        if h:
            hidden.append(h)
    if f.ret == "int":
        params.append("MPI_Fint *ierror")
    params += hidden
    plist = ", ".join(params) or "void"
    g = CGen(f, style, alt, f08ts)
    g.need_i = False
    g.build()
    call = "%s%s(%s)" % (prefix, cname, ", ".join(g.args))
    if f.ret != "int":
        rt = {"double": "double", "MPI_Aint": "MPI_Aint"}[f.ret]
        return "%s %s(%s)\n{\n\treturn %s;\n}\n" % (rt, sym, plist, call)
    out = ["void %s(%s)\n{" % (sym, plist)]
    decl = list(g.decl)
    if g.need_i:
        decl.insert(0, "int i_;")
    decl.append("int c_ierr;")
    out += ["\t" + d for d in decl]
    out.append("")
    out += ["\t" + s for s in g.pre]
    out.append("\tc_ierr = %s;" % call)
    out += ["\t" + s for s in g.post]
    nomem = any("goto nomem" in s for s in g.pre)
    fail = any("goto fail" in s for s in g.pre)
    if nomem or fail:
        out.append("\tgoto out;")
        if nomem:
            out.append("nomem:")
            out.append("\tc_ierr = MPI_ERR_NO_MEM;")
        if fail:
            out.append("fail:")
        raise_it = g.errhandler()
        if raise_it:
            out.append("\t" + raise_it)
        out.append("out:")
    out += ["\t" + s for s in g.cleanup]
    # NULL: `use mpi_f08` leaves ierror out (an absent OPTIONAL argument)
    out.append("\tif (ierror)\n\t\t*ierror = c_ierr;")
    out.append("}")
    return "\n".join(out) + "\n"
