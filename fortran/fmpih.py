# SPDX-License-Identifier: LGPL-2.1-or-later
"""fmpih - include/mpi.h as fortran/gen reads it: the prototypes and integer
constants, the types of the predefined handles (for mpi_f08), and the
--check that bindings.tab agrees with the prototypes.
"""

import re

import fkinds
from ftable import HANDLES


def read_mpi_h(path):
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    protos = {}
    for m in re.finditer(r"MPIRMA_DECL\(\s*([^,]+?)\s*,\s*(\w+)\s*,\s*\((.*?)\)\s*\)\s*\n",
                         text, flags=re.S):
        ret, name, params = m.group(1), m.group(2), " ".join(m.group(3).split())
        plist = []
        if params != "void":
            for p in params.split(","):
                p = p.strip()
                if p == "...":
                    continue
                p = re.sub(r"\bconst\b", "", p).strip()
                mm = re.match(r"^(.*?)(\w+)((?:\[\w*\])*)$", p)
                plist.append((" ".join(mm.group(1).split()), mm.group(2), mm.group(3)))
        protos[name] = (ret, plist)
    consts = []
    defs = {}
    for m in re.finditer(r"^#define\s+(MPI_\w+)\s+(.+?)\s*$", text, flags=re.M):
        name, val = m.group(1), m.group(2)
        defs[name] = val
    for name, val in defs.items():
        v = val
        for _ in range(4):
            if v in defs:
                v = defs[v]
        v = v.strip()
        if re.match(r"^\(?-?\d+\)?$", v) and not name.startswith("MPI_F_"):
            consts.append((name, int(v.strip("()"))))
    return protos, consts


def c_type_ok(p, ctype, arr):
    """Does the table's kind fit the C parameter's type?"""
    t = ctype.replace(" ", "")
    b = p.base
    ours = fkinds.c_type_ok(p, t, arr)
    if ours is not None:
        return ours
    if b in HANDLES:
        want = "MPI_" + HANDLES[b]
        if p.array:
            return t == want and arr == "[]"
        return t == (want + "*" if p.dir else want) and not arr
    if b == "null":
        return True
    simple = {
        ("int", ""): ("int", ""), ("int", ">"): ("int*", ""),
        ("lgc", ""): ("int", ""), ("lgc", ">"): ("int*", ""),
        ("aint", ""): ("MPI_Aint", ""), ("aint", ">"): ("MPI_Aint*", ""),
        ("count", ""): ("MPI_Count", ""), ("count", ">"): ("MPI_Count*", ""),
        ("idx", ">"): ("int*", ""),
        ("buf", ""): ("void*", ""), ("baseptr", ">"): ("void*", ""),
        ("attr", ""): ("void*", ""), ("iattr", ""): ("void*", ""),
        ("cattr", ">"): ("void*", ""), ("wattr", ">"): ("void*", ""),
        ("icattr", ">"): ("void*", ""), ("localptr", ""): ("void*", ""),
        ("str", ""): ("char*", ""), ("str", ">"): ("char*", ""), ("key", ""): ("char*", ""),
        ("status", ">"): ("MPI_Status*", ""), ("status", "<"): ("MPI_Status*", ""),
        ("status", "<>"): ("MPI_Status*", ""),
    }
    if b == "wgt":
        return t == "int*" and not arr      # a pointer: mpi.h says why
    if p.array:
        if b == "int3":
            return t == "int" and arr == "[][3]"
        if b == "status":
            return t == "MPI_Status*" and not arr
        base = {"int": "int", "lgc": "int", "aint": "MPI_Aint", "count": "MPI_Count",
                "idx": "int"}.get(b)
        return base is not None and t == base and arr == "[]"
    if b == "fn":
        return t == p.ctype + "*"
    exp = simple.get((b, p.dir))
    return exp is not None and (t, arr) == exp


def check(funcs, unbound, protos):
    errs = []
    bound = {f.name: f for f in funcs}
    for name in protos:
        if name not in bound and name not in unbound:
            errs.append("MPI_%s is in mpi.h but neither bound nor !unbound in bindings.tab" % name)
    for name in list(bound) + list(unbound):
        if name not in protos:
            errs.append("MPI_%s is in bindings.tab but not in mpi.h" % name)
    for name in bound:
        if name in unbound:
            errs.append("MPI_%s is both bound and !unbound" % name)
    for f in funcs:
        if f.name not in protos:
            continue
        ret, plist = protos[f.name]
        if ret.replace(" ", "") != f.ret:
            errs.append("MPI_%s returns %s in mpi.h, %s in the table" % (f.name, ret, f.ret))
        if len(plist) != len(f.params):
            errs.append("MPI_%s: %d parameters in mpi.h, %d in the table"
                        % (f.name, len(plist), len(f.params)))
            continue
        for p, (ct, cn, arr) in zip(f.params, plist):
            if p.name != cn:
                errs.append("MPI_%s: parameter %s is %s in mpi.h" % (f.name, p.name, cn))
            if not c_type_ok(p, ct, arr):
                errs.append("MPI_%s: %s: kind %s does not fit C type %s%s"
                            % (f.name, p.name, p.kind, ct, arr))
    return errs


def handle_consts(path):
    """{name: handle type} of mpi.h's predefined handles, by the section of
    the handles part of mpi.h they are in, and by name."""
    kinds = {}
    section = None
    for line in open(path):
        if line.startswith("/* ------------------------------------------------------------"):
            section = "handles" if "handles" in line else None
            continue
        if section is None:
            continue
        if line.startswith("/* Predefined datatypes"):
            section = "Datatype"
        elif line.startswith("/* Predefined ops"):
            section = "Op"
        elif line.startswith("/* Attribute keys"):
            section = "keys"
        m = re.match(r"^#define\s+(MPI_\w+)\s", line)
        if not m:
            continue
        n = m.group(1)
        if section in ("Datatype", "Op"):
            kinds[n] = section
            continue
        for prefix, t in (("MPI_COMM_", "Comm"), ("MPI_GROUP_", "Group"),
                          ("MPI_WIN_", "Win"), ("MPI_REQUEST_", "Request"),
                          ("MPI_ERRHANDLER_", "Errhandler"), ("MPI_ERRORS_", "Errhandler"),
                          ("MPI_INFO_", "Info"), ("MPI_MESSAGE_", "Message"),
                          ("MPI_SESSION_", "Session")):
            if section == "handles" and n.startswith(prefix):
                kinds[n] = t
    return kinds
