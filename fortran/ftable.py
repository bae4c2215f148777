# SPDX-License-Identifier: LGPL-2.1-or-later
"""ftable - fortran/bindings.tab read into Func and Param for fortran/gen:
the kinds the table's header describes (fkinds.py: the newer ones), the
handle kinds every output shares, --only-list, and the symbol of the
second specific of a `use mpi` generic (alt_symbol).
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "bindings.tab")

HANDLES = {
    "comm": "Comm", "group": "Group", "type": "Datatype", "op": "Op",
    "win": "Win", "request": "Request", "errh": "Errhandler", "info": "Info",
    "msg": "Message", "session": "Session",
}
# The f2c/c2f function stem of each handle type (MPI_Type_f2c, not _Datatype_).
CONV = {"Datatype": "Type"}
NULLS = {
    "Comm": "MPI_COMM_NULL", "Group": "MPI_GROUP_NULL",
    "Datatype": "MPI_DATATYPE_NULL", "Op": "MPI_OP_NULL", "Win": "MPI_WIN_NULL",
    "Request": "MPI_REQUEST_NULL", "Errhandler": "MPI_ERRHANDLER_NULL",
    "Info": "MPI_INFO_NULL", "Message": "MPI_MESSAGE_NULL",
    "Session": "MPI_SESSION_NULL",
}
# No Fortran argument: C gets NULL, or 0.
HIDDEN = ("null", "zero")


def die(msg):
    sys.stderr.write("fortran/gen: %s\n" % msg)
    sys.exit(1)


class Param:
    def __init__(self, name, kind):
        self.name = name
        self.kind = kind          # the standard kind
        self.alt = None           # the other integer kind a generic accepts
        if "|" in kind:
            self.kind, self.alt = kind.split("|")
        self.base, self.size, self.cap, self.ctype = self.kind, None, None, None
        m = re.match(r"^([a-z]+\d?)(\[([\w@]*)\])?(<>|>|<)?(.*)$", self.kind)
        if not m:
            die("bad kind %r" % kind)
        self.base = m.group(1)
        self.array = m.group(2) is not None
        self.size = m.group(3) or None
        self.dir = m.group(4) or ""
        rest = m.group(5)
        if self.base == "str" and self.dir == ">":
            self.cap = rest
        elif self.base in ("fn", "fcb", "fcbx", "ifcbx"):
            self.ctype = rest.lstrip("=")
        elif rest:
            die("bad kind %r" % kind)


class Func:
    def __init__(self, name, ret, params, f08only=False):
        self.name = name
        self.ret = ret
        self.params = params
        self.f08only = f08only    # @f08: not in mpif.h or `use mpi`
        self.f08own = False       # @f08own: mpi_f08 only, by its own name

    def fname(self):
        return "MPI_" + self.name.upper()

    def has_alt(self):
        return any(p.alt for p in self.params)


def read_table(path=TABLE):
    """([Func], {unbound name: reason}); @f08own: a specific of its own
    name in mpi_f08, not an overload of the name without _c."""
    funcs, unbound = [], {}
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("!unbound"):
                parts = line.split(None, 2)
                if len(parts) < 3:
                    die("%s:%d: !unbound needs a name and a reason" % (path, ln))
                unbound[parts[1]] = parts[2].strip()
                continue
            head, _, args = line.partition("\t")
            hw = [w for w in head.split() if not w.startswith("@")]
            flags = [w for w in head.split() if w.startswith("@")]
            if any(w not in ("@f08", "@f08own") for w in flags):
                die("%s:%d: unknown flag in %r" % (path, ln, head))
            ret = hw[1].lstrip("=") if len(hw) > 1 else "int"
            params = []
            for a in args.split():
                n, _, k = a.partition(":")
                params.append(Param(n, k))
            funcs.append(Func(hw[0], ret, params, "@f08" in flags or "@f08own" in flags))
            funcs[-1].f08own = "@f08own" in flags
    return funcs, unbound


def read_only_list(path, funcs):
    """The names of --only-list @path (MPI_Put, Put, mpi_put; # comments)."""
    names = set()
    known = {f.name.lower(): f.name for f in funcs}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        n = re.sub(r"^p?mpi_", "", line, flags=re.I).lower()
        if n not in known:
            die("%s: %s is not a bound function" % (path, line))
        names.add(known[n])
    return names


def alt_symbol(f):
    """The C symbol of the other specific of @f's generic in `use mpi`:
    its alt parameter with the other integer kind (fwrap_c, fmodule)."""
    p = [p for p in f.params if p.alt][0]
    return "mpirma_f_%s_%s_%s" % (f.name.lower(), p.name, p.alt)
