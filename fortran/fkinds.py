# SPDX-License-Identifier: LGPL-2.1-or-later
"""fkinds - the kinds of fortran/bindings.tab whose wrappers need support
code (fortran/fsupport.c, mpirma style only), for fortran/gen:

  fcb=CTYPE     a Fortran procedure the C library cannot call itself (its C
                arguments are values): it goes into the call's callback
                record, and C gets the trampoline mpirma_f_<ctype>
  fcbx=KEYVAL ifcbx=KEYVAL fcbx   the extra_state of those callbacks
                (address-kind; ifcbx default INTEGER): kept in the record,
                which C gets as its extra_state; the record lives as long
                as the keyval the argument KEYVAL receives, or (no =KEYVAL)
                until the generalized request's free_fn
  H[@peers] H[@indeg] H[@outdeg]   a handle array as long as the
                communicator's (remote) size or a neighborhood's degrees
                (the w collectives' datatypes)
  int<>         INTEGER input and output
  str>@LEN      CHARACTER(*) output of MPI 4.0's kind: the INTEGER argument
                LEN (int<>) gives at most how many characters to copy, 0 to
                ask only the length, and returns the length (no NUL)
  zero          no Fortran argument; C gets 0 (MPI_Info_create_env's argc)

and the Fortran callbacks' interfaces: mpi_f08's abstract interfaces and
the predefined ones (MPI_COMM_DUP_FN ...).
"""

# The abstract interfaces of the callbacks mpi_f08 binds (the standard's).
# The C side calls them as it calls `use mpi`'s: each argument by address,
# which is what a typed handle (one INTEGER, BIND(C)) by reference and a
# TYPE(C_PTR) by VALUE are too.
_ADDR = "INTEGER(KIND=MPI_ADDRESS_KIND)"


def _copy(handle, obj, key, val):
    """A copy callback's interface: the standard's dummy names @obj, @key."""
    return ("%s, %s, extra_state, attribute_val_in, attribute_val_out, flag, ierror"
            % (obj, key),
            ["TYPE(MPI_%s) :: %s" % (handle, obj), "INTEGER :: %s, ierror" % key,
             "%s :: extra_state, attribute_val_in, attribute_val_out" % val,
             "LOGICAL :: flag"])


def _delete(handle, obj, key, val):
    return ("%s, %s, attribute_val, extra_state, ierror" % (obj, key),
            ["TYPE(MPI_%s) :: %s" % (handle, obj), "INTEGER :: %s, ierror" % key,
             "%s :: attribute_val, extra_state" % val])


F08_CALLBACKS = {
    "MPI_User_function": ("invec, inoutvec, len, datatype",
                          ["TYPE(C_PTR), VALUE :: invec, inoutvec",
                           "INTEGER :: len", "TYPE(MPI_Datatype) :: datatype"]),
    "MPI_User_function_c": ("invec, inoutvec, len, datatype",
                            ["TYPE(C_PTR), VALUE :: invec, inoutvec",
                             "INTEGER(KIND=MPI_COUNT_KIND) :: len",
                             "TYPE(MPI_Datatype) :: datatype"]),
    "MPI_Comm_errhandler_function": ("comm, error_code",
                                     ["TYPE(MPI_Comm) :: comm", "INTEGER :: error_code"]),
    "MPI_Win_errhandler_function": ("win, error_code",
                                    ["TYPE(MPI_Win) :: win", "INTEGER :: error_code"]),
    "MPI_Session_errhandler_function": ("session, error_code",
                                        ["TYPE(MPI_Session) :: session",
                                         "INTEGER :: error_code"]),
    # MPI-1's name of the communicator one (MPI_Errhandler_create)
    "MPI_Handler_function": ("comm, error_code",
                             ["TYPE(MPI_Comm) :: comm", "INTEGER :: error_code"]),
    "MPI_Comm_copy_attr_function": _copy("Comm", "oldcomm", "comm_keyval", _ADDR),
    "MPI_Comm_delete_attr_function": _delete("Comm", "comm", "comm_keyval", _ADDR),
    "MPI_Win_copy_attr_function": _copy("Win", "oldwin", "win_keyval", _ADDR),
    "MPI_Win_delete_attr_function": _delete("Win", "win", "win_keyval", _ADDR),
    "MPI_Type_copy_attr_function": _copy("Datatype", "oldtype", "type_keyval", _ADDR),
    "MPI_Type_delete_attr_function": _delete("Datatype", "datatype", "type_keyval", _ADDR),
    # MPI_KEYVAL_CREATE's: default INTEGER values
    "MPI_Copy_function": _copy("Comm", "oldcomm", "keyval", "INTEGER"),
    "MPI_Delete_function": _delete("Comm", "comm", "keyval", "INTEGER"),
    "MPI_Grequest_query_function": ("extra_state, status, ierror",
                                    ["%s :: extra_state" % _ADDR,
                                     "TYPE(MPI_Status) :: status", "INTEGER :: ierror"]),
    "MPI_Grequest_free_function": ("extra_state, ierror",
                                   ["%s :: extra_state" % _ADDR, "INTEGER :: ierror"]),
    "MPI_Grequest_cancel_function": ("extra_state, complete, ierror",
                                     ["%s :: extra_state" % _ADDR, "LOGICAL :: complete",
                                      "INTEGER :: ierror"]),
}

# The predefined Fortran callbacks (fsupport.c) and their mpi_f08 interface.
PREDEFINED = [
    ("MPI_COMM_NULL_COPY_FN", "MPI_Comm_copy_attr_function"),
    ("MPI_COMM_NULL_DELETE_FN", "MPI_Comm_delete_attr_function"),
    ("MPI_COMM_DUP_FN", "MPI_Comm_copy_attr_function"),
    ("MPI_WIN_NULL_COPY_FN", "MPI_Win_copy_attr_function"),
    ("MPI_WIN_NULL_DELETE_FN", "MPI_Win_delete_attr_function"),
    ("MPI_WIN_DUP_FN", "MPI_Win_copy_attr_function"),
    ("MPI_TYPE_NULL_COPY_FN", "MPI_Type_copy_attr_function"),
    ("MPI_TYPE_NULL_DELETE_FN", "MPI_Type_delete_attr_function"),
    ("MPI_TYPE_DUP_FN", "MPI_Type_copy_attr_function"),
    ("MPI_NULL_COPY_FN", "MPI_Copy_function"),
    ("MPI_NULL_DELETE_FN", "MPI_Delete_function"),
    ("MPI_DUP_FN", "MPI_Copy_function"),
]

WLEN = {"@peers": "MPIRMA_F_PEERS", "@indeg": "MPIRMA_F_INDEG",
        "@outdeg": "MPIRMA_F_OUTDEG"}

KINDS = ("fcb", "fcbx", "ifcbx", "zero")


def c_type_ok(p, t, arr):
    """Does a kind of this module fit the C type @t@arr? None: not ours."""
    if p.base == "fcb":
        return t == p.ctype + "*"
    if p.base in ("fcbx", "ifcbx"):
        return t == "void*" and not arr
    if p.base == "zero":
        return t == "int" and not arr
    if p.base == "int" and p.dir == "<>" and not p.array:
        return t == "int*" and not arr
    return None


def c_param_decl(p):
    """The wrapper's declaration of a parameter of ours, or None."""
    if p.base == "fcb":
        return "mpirma_f_proc *%s" % p.name
    if p.base == "fcbx":
        return "MPI_Aint *%s" % p.name
    return None


def _host(g, p):
    if g.style == "host":
        raise SystemExit("fortran/gen: MPI_%s: %s (%s) cannot be bound in host style"
                         % (g.f.name, p.name, p.kind))


def param(g, p, handles):
    """Adds the code of parameter @p to the wrapper being built (CGen @g;
    @handles: ftable.HANDLES); False when @p is not of a kind of this
    module."""
    n, b = p.name, p.base
    if b == "zero":
        g.args.append("0")
    elif b == "fcb":
        _host(g, p)
        if not any(d.startswith("struct mpirma_f_cb *") for d in g.decl):
            g.decl.insert(0, "struct mpirma_f_cb *c_cb = mpirma_f_cb_new();")
            g.pre.insert(0, "if (!c_cb)\n\t\tgoto nomem;")
        slot = [q for q in g.f.params if q.base == "fcb"].index(p)
        g.pre.append("c_cb->fn[%d] = %s;" % (slot, n))
        g.args.append("mpirma_f_%s" % p.ctype[len("MPI_"):].lower())
    elif b in ("fcbx", "ifcbx"):
        g.pre.append("c_cb->extra = (MPI_Aint)*%s;" % n)
        g.args.append("c_cb")
        if p.ctype:
            g.post.append("c_ierr = mpirma_f_cb_keyval(c_cb, c_ierr, (int)*%s);" % p.ctype)
        else:
            g.post.append("c_ierr = mpirma_f_cb_request(c_cb, c_ierr);")
    elif b == "str" and p.dir and p.cap.startswith("@"):
        _str_inout(g, p)
    elif p.array and p.size and p.size.startswith("@"):
        _wtypes(g, p, handles[p.base])
    else:
        return False
    return True


def _str_inout(g, p):
    """MPI 4.0's string output whose length argument is input and output."""
    n, ln = p.name, p.cap[1:]
    i = g.args.index("(int *)%s" % ln)
    g.decl.append("int c_%s = mpirma_f_len_in(*%s, %s_len);" % (ln, ln, n))
    g.decl.append("char *c_%s = f_str_buf(c_%s);" % (n, ln))
    g.args[i] = "&c_%s" % ln
    g.pre.append("if (!c_%s)\n\t\tgoto nomem;" % n)
    g.args.append("c_%s" % n)
    # untouched when the key is not there
    found = " && *flag" if any(q.name == "flag" for q in g.f.params) else ""
    g.post.append("if (c_ierr == MPI_SUCCESS%s) {\n"
                  "\t\tif (*%s > 0)\n\t\t\tf_str_out(%s, %s_len, c_%s);\n"
                  "\t\t*%s = c_%s - 1;\n\t}" % (found, ln, n, n, n, ln, ln))
    g.cleanup.append("free(c_%s);" % n)


def _wtypes(g, p, h):
    """A w collective's datatype array (MPI_@h): as long as the C call
    reads."""
    _host(g, p)
    n = p.name
    cv = g.conv(h)
    ps = g.f.params
    comm = [q for q in ps if q.base == "comm"][0].name
    buf = [q for q in ps[:ps.index(p)] if q.base == "buf"][-1].name
    g.decl.append("MPI_%s *c_%s = NULL;" % (h, n))
    g.decl.append("int c_n_%s;" % n)
    g.pre.append("c_n_%s = mpirma_f_wlen(MPI_Comm_f2c(*%s), %s, f_buf(%s));\n"
                 "\tc_%s = malloc(c_n_%s > 0 ? (size_t)c_n_%s * sizeof(MPI_%s) : 1);\n"
                 "\tif (!c_%s)\n\t\tgoto nomem;\n"
                 "\tfor (i_ = 0; i_ < c_n_%s; i_++)\n\t\tc_%s[i_] = MPI_%s_f2c(%s[i_]);"
                 % (n, comm, WLEN[p.size], buf, n, n, n, h, n, n, n, cv, n))
    g.need_i = True
    g.args.append("c_%s" % n)
    g.cleanup.append("free(c_%s);" % n)


def f_decl(p):
    """`use mpi` declaration lines of a parameter of ours, or None."""
    if p.base == "fcb":
        return ["EXTERNAL :: %s" % p.name]
    if p.base == "fcbx":
        return ["INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: %s" % p.name]
    if p.base == "ifcbx":
        return ["INTEGER, INTENT(IN) :: %s" % p.name]
    return None


def f08_decl(p):
    """mpi_f08 declaration lines of a parameter of ours, or None."""
    if p.base == "fcb":
        return ["PROCEDURE(%s) :: %s" % (p.ctype, p.name)]
    return f_decl(p)


def predefined_mpif_h():
    out = []
    for name, _ in PREDEFINED:
        out.append("      EXTERNAL %s" % name)
    return out


def predefined_module():
    return ["  ! the predefined attribute callbacks (fortran/fsupport.c)"] + \
        ["  EXTERNAL :: %s" % name for name, _ in PREDEFINED]


def predefined_f08():
    return ["  ! the predefined attribute callbacks (fortran/fsupport.c)"] + \
        ["  PROCEDURE(%s) :: %s" % (cb, name) for name, cb in PREDEFINED]
