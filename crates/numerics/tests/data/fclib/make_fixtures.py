#!/usr/bin/env python3
"""Writes the small FCLIB fixtures of this folder with h5py (which bundles the HDF5 C library).

Run from this folder: `python3 make_fixtures.py` (needs h5py and numpy). The files follow FCLIB's
layout (https://fclib.github.io; V. Acary, M. Bremond, O. Huber, "On solving contact problems with
Coulomb friction: formulations and numerical comparisons", 2018): a group `fclib_local` or
`fclib_global` holding `spacedim`, matrix groups (`nzmax`, `m`, `n`, `nz`, `p`, `i`, `x`; `nz` >= 0
triplets, -1 compressed columns, -2 compressed rows), `vectors` and an `info` group of
fixed-length strings. The values come from `value(k, salt)` below, which the Rust test
(`tests/it/fclib.rs`) computes the same way, so it checks every value bit for bit.

Storage varies over the files: contiguous datasets in files of the earliest format (superblock 0,
symbol-table groups, what FCLIB's C library writes), and chunked, deflate-compressed datasets in
files of the HDF5 1.14 format (superblock 3, compact link groups, fixed- and extensible-array
chunk indexes) or of the earliest one (B-tree chunk index); one file stores big-endian numbers.
One file uses the HDF5 2.0 format (libver v200), whose filtered chunked datasets carry a version 5
layout message that the Rust reader does not know yet: the test expects a typed error there.
Two more files declare datasets far larger than the file (storage never written), which the
reader must refuse.
"""

import h5py
import numpy as np


def value(k, salt):
    """The k-th value of an array: a few special values, otherwise ±(k + 1 + salt) / 7."""
    if k == 2:
        return -0.0
    if k == 5:
        return 5e-324  # the smallest subnormal
    if k == 7:
        return 1e-300
    v = (k + 1 + salt) / 7.0
    return -v if k % 2 == 1 else v


def values(n, salt):
    return [value(k, salt) for k in range(n)]


def blocks(block, pairs):
    """Every position of the `block`-sized blocks at (block row, block column) `pairs`."""
    return [(bi * block + r, bj * block + c) for (bi, bj) in pairs for r in range(block) for c in range(block)]


# The problems: entries sorted by (row, column), the k-th entry holding value(k, salt).
FC3D_W = sorted(blocks(3, [(0, 0), (0, 1), (1, 1)]))  # 6 x 6, 27 entries
FC2D_W = sorted(blocks(2, [(0, 0), (0, 1), (1, 0), (1, 1)]))  # 4 x 4, 16 entries
GFC_M = [(k, k) for k in range(6)]  # 6 x 6 diagonal
GFC_H = sorted([(0, 0), (1, 1), (2, 2), (3, 0), (4, 1), (5, 2), (0, 3), (2, 4), (4, 5), (5, 3)])  # 6 x 6

SALT_W, SALT_M, SALT_H, SALT_Q, SALT_B = 0, 30, 60, 100, 200
MU = [0.3, 0.5]


def triplets(entries, salt):
    return [(r, c, value(k, salt)) for k, (r, c) in enumerate(entries)]


def compressed(m, n, trip, by_rows):
    """(p, i, x) in compressed rows or columns, inner indices sorted."""
    outer = m if by_rows else n
    key = (lambda t: (t[0], t[1])) if by_rows else (lambda t: (t[1], t[0]))
    trip = sorted(trip, key=key)
    p = [0] * (outer + 1)
    for t in trip:
        p[(t[0] if by_rows else t[1]) + 1] += 1
    for o in range(outer):
        p[o + 1] += p[o]
    i = [t[1] if by_rows else t[0] for t in trip]
    x = [t[2] for t in trip]
    return p, i, x


class Storage:
    def __init__(self, chunk=None, deflate=False, shuffle=False, extensible=False, big_endian=False):
        self.chunk, self.deflate, self.shuffle = chunk, deflate, shuffle
        self.extensible, self.big_endian = extensible, big_endian

    def write(self, group, name, data, kind):
        dtype = {"i": ">i4" if self.big_endian else "<i4", "f": ">f8" if self.big_endian else "<f8"}[kind]
        arr = np.array(data, dtype=dtype)
        kwargs = {}
        if self.chunk and len(arr) > 1:
            kwargs["chunks"] = (min(self.chunk, len(arr)),)
            if self.deflate:
                kwargs["compression"] = "gzip"
                kwargs["compression_opts"] = 9
            if self.shuffle:
                kwargs["shuffle"] = True
            if self.extensible:
                kwargs["maxshape"] = (None,)
        group.create_dataset(name, data=arr, **kwargs)


def write_string(group, name, text):
    """A scalar fixed-length string of len + 1 bytes, null-terminated, as FCLIB's
    H5LTmake_dataset_string writes it (H5T_C_S1)."""
    raw = text.encode("ascii")
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(len(raw) + 1)
    space = h5py.h5s.create(h5py.h5s.SCALAR)
    ds = h5py.h5d.create(group.id, name.encode(), tid, space)
    ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(raw, dtype=f"S{len(raw) + 1}"), mtype=tid)


def write_info(group, title):
    info = group.create_group("info")
    write_string(info, "title", title)
    write_string(info, "description", "FCLIB fixture written with h5py by make_fixtures.py")
    write_string(info, "math_info", "")


def write_matrix(group, name, m, n, entries, salt, form, st, extra_nzmax=0):
    """A matrix group. form: 'csc', 'csr' or 'triplet'. With extra_nzmax > 0, nzmax exceeds the
    entries used and x carries that many trailing values (as FCLIB's writer, which writes x with
    nzmax values)."""
    g = group.create_group(name)
    trip = triplets(entries, salt)
    if form == "triplet":
        p = [t[1] for t in trip]
        i = [t[0] for t in trip]
        x = [t[2] for t in trip]
        nz = len(trip)
    else:
        p, i, x = compressed(m, n, trip, form == "csr")
        nz = -2 if form == "csr" else -1
    nzmax = len(x) + extra_nzmax
    x = x + [12345.0] * extra_nzmax
    for key, v in (("nzmax", nzmax), ("m", m), ("n", n), ("nz", nz)):
        st.write(g, key, [v], "i")
    st.write(g, "p", p, "i")
    st.write(g, "i", i, "i")
    st.write(g, "x", x, "f")
    return g


def local(path, dim, entries, form, st, libver="earliest"):
    size = 6 if dim == 3 else 4
    with h5py.File(path, "w", libver=libver) as f:
        g = f.create_group("fclib_local")
        write_info(g, f"local {dim}d {form}")
        st.write(g, "spacedim", [dim], "i")
        w = write_matrix(g, "W", size, size, entries, SALT_W, form, st)
        w.attrs["cond"] = 12.5  # an attribute as in the collection's files (ignored)
        v = g.create_group("vectors")
        st.write(v, "q", values(size, SALT_Q), "f")
        st.write(v, "mu", MU, "f")


def global_(path, dim, forms, st, libver="earliest", extra_nzmax=0):
    nc = 6 // dim
    with h5py.File(path, "w", libver=libver) as f:
        g = f.create_group("fclib_global")
        write_info(g, f"global {dim}d {forms[0]} {forms[1]}")
        st.write(g, "spacedim", [dim], "i")
        write_matrix(g, "M", 6, 6, GFC_M, SALT_M, forms[0], st)
        write_matrix(g, "H", 6, 6, GFC_H, SALT_H, forms[1], st, extra_nzmax)
        v = g.create_group("vectors")
        st.write(v, "f", values(6, SALT_Q), "f")
        st.write(v, "w", values(6, SALT_B), "f")
        st.write(v, "mu", MU[:nc] + [0.25] * (nc - len(MU)), "f")
        # A solution group as in the collection's files (not read).
        s = f.create_group("solution")
        st.write(s, "v", values(6, 7), "f")


def huge(path, chunked):
    """A local problem whose W/x declares 2**40 doubles (8 TiB) that were never written."""
    with h5py.File(path, "w") as f:
        g = f.create_group("fclib_local")
        st = Storage()
        st.write(g, "spacedim", [3], "i")
        w = g.create_group("W")
        for key, v in (("nzmax", 27), ("m", 6), ("n", 6), ("nz", -1)):
            st.write(w, key, [v], "i")
        p, i, _ = compressed(6, 6, triplets(FC3D_W, SALT_W), False)
        st.write(w, "p", p, "i")
        st.write(w, "i", i, "i")
        if chunked:
            w.create_dataset("x", shape=(2**40,), dtype="<f8", chunks=(1024,), compression="gzip")
        else:
            w.create_dataset("x", shape=(2**40,), dtype="<f8")
        v = g.create_group("vectors")
        st.write(v, "q", values(6, SALT_Q), "f")
        st.write(v, "mu", MU, "f")


# The HDF5 1.14 file format: superblock 3, version 2 object headers, layout messages version 4.
V114 = ("v114", "v114")

if __name__ == "__main__":
    contiguous = Storage()
    local("fc3d_local_csr_contiguous.hdf5", 3, FC3D_W, "csr", contiguous)
    local("fc3d_local_csc_chunked_deflate.hdf5", 3, FC3D_W, "csc",
          Storage(chunk=4, deflate=True, shuffle=True), libver=V114)
    local("fc2d_local_triplet_chunked_deflate_big_endian.hdf5", 2, FC2D_W, "triplet",
          Storage(chunk=5, deflate=True, big_endian=True))
    global_("gfc3d_global_triplet_csc_contiguous.hdf5", 3, ("triplet", "csc"), contiguous)
    global_("gfc2d_global_csc_triplet_chunked_deflate.hdf5", 2, ("csc", "triplet"),
            Storage(chunk=3, deflate=True, shuffle=True, extensible=True), libver=V114, extra_nzmax=4)
    global_("gfc3d_global_csr_csr_contiguous_v114.hdf5", 3, ("csr", "csr"), contiguous, libver=V114)
    local("fc3d_local_csc_chunked_deflate_v200.hdf5", 3, FC3D_W, "csc",
          Storage(chunk=4, deflate=True), libver=("v200", "v200"))
    huge("huge_declared_contiguous.hdf5", chunked=False)
    huge("huge_declared_chunked.hdf5", chunked=True)
    print(f"h5py {h5py.version.version}, HDF5 {h5py.version.hdf5_version}")
