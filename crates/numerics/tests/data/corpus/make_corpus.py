"""Writes the hostile files of this folder: corrupt FCLIB files patched from our own fixtures in
../fclib (a dataset's declared dimension raised far beyond what the file holds) and Siconos `.dat`
texts declaring huge sizes in a few bytes, holding NaN, cut short or made of binary bytes.

Run `python3 make_corpus.py` in this folder (h5py is needed to locate the dataset headers of the
FCLIB fixtures; the patch itself is a plain byte edit). The files are small and committed;
tests/it/io_limits.rs reads each one and checks its typed error.
"""

import struct

import h5py

FIXTURES = "../fclib"
M32 = 0xFFFFFFFF


def _rot(x, k):
    return ((x << k) | (x >> (32 - k))) & M32


def lookup3(data):
    """Bob Jenkins' lookup3 `hashlittle` with seed 0: the checksum of HDF5's version 2 object
    headers (`H5_checksum_lookup3`)."""
    a = b = c = (0xDEADBEEF + len(data)) & M32
    i, n = 0, len(data)
    word = lambda k, m: sum(data[k + j] << (8 * j) for j in range(m))
    while n > 12:
        a, b, c = (a + word(i, 4)) & M32, (b + word(i + 4, 4)) & M32, (c + word(i + 8, 4)) & M32
        a = (a - c) & M32; a ^= _rot(c, 4); c = (c + b) & M32
        b = (b - a) & M32; b ^= _rot(a, 6); a = (a + c) & M32
        c = (c - b) & M32; c ^= _rot(b, 8); b = (b + a) & M32
        a = (a - c) & M32; a ^= _rot(c, 16); c = (c + b) & M32
        b = (b - a) & M32; b ^= _rot(a, 19); a = (a + c) & M32
        c = (c - b) & M32; c ^= _rot(b, 4); b = (b + a) & M32
        i, n = i + 12, n - 12
    if n == 0:
        return c
    tail = data[i:] + bytes(12 - n)
    a, b, c = (a + word_of(tail, 0)) & M32, (b + word_of(tail, 4)) & M32, (c + word_of(tail, 8)) & M32
    c ^= b; c = (c - _rot(b, 14)) & M32
    a ^= c; a = (a - _rot(c, 11)) & M32
    b ^= a; b = (b - _rot(a, 25)) & M32
    c ^= b; c = (c - _rot(b, 16)) & M32
    a ^= c; a = (a - _rot(c, 4)) & M32
    b ^= a; b = (b - _rot(a, 14)) & M32
    c ^= b; c = (c - _rot(b, 24)) & M32
    return c


def word_of(data, k):
    return int.from_bytes(data[k : k + 4], "little")


def fix_object_header_checksum(data, header):
    """Recomputes the checksum of the first chunk of a version 2 object header (`OHDR`) at
    `header`, after checking that it matched before the patch would have changed it."""
    if data[header : header + 4] != b"OHDR":
        return  # a version 1 header (superblock 0 files) has no checksum
    flags = data[header + 5]
    at = header + 6 + (16 if flags & 0x20 else 0) + (4 if flags & 0x10 else 0)
    width = 1 << (flags & 0x03)
    size = int.from_bytes(data[at : at + width], "little")
    end = at + width + size
    data[end : end + 4] = struct.pack("<I", lookup3(bytes(data[header:end])))


def patch_dimension(source, dataset, declared, target):
    """Copies `source`, replacing the current and maximum dimension of the one-dimensional
    `dataset` in its dataspace message by `declared` (the data itself is left as it is)."""
    with h5py.File(f"{FIXTURES}/{source}", "r") as f:
        ds = f[dataset]
        (length,) = ds.shape
        header = h5py.h5o.get_info(ds.id).addr
    data = bytearray(open(f"{FIXTURES}/{source}", "rb").read())
    original = bytes(data)
    fix_object_header_checksum(data, header)
    assert data == original, f"the checksum of {dataset}'s header does not verify"
    old = struct.pack("<Q", length)
    at = data.find(old, header)
    assert 0 <= at - header < 256, f"no dataspace dimension {length} near the header of {dataset}"
    new = struct.pack("<Q", declared)
    data[at : at + 8] = new
    # The maximum dimension follows when the dataspace records one.
    if data[at + 8 : at + 16] == old:
        data[at + 8 : at + 16] = new
    # A superblock 3 file checksums its object headers: the patched header keeps a valid one, so
    # only the declared size is wrong.
    fix_object_header_checksum(data, header)
    open(target, "wb").write(data)


# The values of W declared as 10^12 doubles (8 TB) in an 11 kB contiguous file, and as 10^9
# doubles (8 GB) in a 7 kB chunked, deflate-compressed one (above the 1100:1 expansion cap).
patch_dimension("fc3d_local_csr_contiguous.hdf5", "/fclib_local/W/x", 10**12, "fclib_w_x_declares_1e12_contiguous.hdf5")
patch_dimension(
    "fc3d_local_csc_chunked_deflate.hdf5", "/fclib_local/W/x", 10**9, "fclib_w_x_declares_1e9_chunked_deflate.hdf5"
)
# The column pointers of W declared as 2^31 integers: the reader must check the declared size
# before it reads them.
patch_dimension("fc3d_local_csr_contiguous.hdf5", "/fclib_local/W/p", 2**31, "fclib_w_p_declares_2e31_contiguous.hdf5")



def patch_chunk_dimension(source, dataset, declared, target):
    """Copies `source` (a superblock 0 file: no header checksum), replacing the chunk dimension of
    the one-dimensional chunked `dataset` of 8-byte values in its layout message by `declared`."""
    with h5py.File(f"{FIXTURES}/{source}", "r") as f:
        ds = f[dataset]
        (chunk,) = ds.chunks
        header = h5py.h5o.get_info(ds.id).addr
    data = bytearray(open(f"{FIXTURES}/{source}", "rb").read())
    # The layout message lists the chunk dimension then the element size, 4 bytes each.
    at = data.find(struct.pack("<II", chunk, 8), header)
    assert 0 <= at - header < 512, f"no chunk dimension {chunk} near the header of {dataset}"
    data[at : at + 4] = struct.pack("<I", declared)
    open(target, "wb").write(data)


# A chunk dimension of 0 (the HDF5 C library refuses it: "chunk dimension must be positive"), in
# the big-endian chunked 2D fixture.
patch_chunk_dimension(
    "fc2d_local_triplet_chunked_deflate_big_endian.hdf5", "/fclib_local/W/x", 0, "fclib_w_x_chunk_dimension_0.hdf5"
)

DAT = {
    # An LCP of size 10^9, dense: 10^18 entries declared in a 60-byte file.
    "lcp_dense_1e9.dat": "1000000000\n0\n1000000000\n1000000000\n1000000000 1000000000\n1 2 3\n",
    # A sparse (triplet) 3D problem declaring nzmax = 10^12 and nnz = 2·10^9.
    "fc3d_sparse_nnz_2e9.dat": "3\n1\n2\n3\n3\n1\nCSparse banner\ntriplet: 3-by-3, nzmax: 1000000000000 nnz: 2000000000\n0 0 : 1\n",
    # A sparse-block LCP declaring 2·10^9 blocks of 2·10^9 × 2·10^9.
    "lcp_sbm_2e9_blocks.dat": "2000000000\n1\n2000000000\n2000000000\n2000000000\n1\n1\n2000000000\n2000000000\n2\n2000000000\n0 2000000000\n0\n0\n1.0\n",
    # A sparse-block LCP declaring millions of block rows, each cumulated size listed as one token.
    "lcp_sbm_millions_of_block_rows.dat": "5000000\n1\n5000000\n5000000\n5000000\n5000000\n5000000\n1 2 3\n",
    # A compressed-column matrix declaring 2·10^9 columns.
    "gfc3d_csc_2e9_columns.dat": "3\n1\n2\n3\n2000000000\n2\nbanner\n3-by-2000000000, nzmax: 1 nnz: 1, 1-norm: 1\n    col 0 : locations 0 to 0\n      0 : 1\n",
    # An MLCP whose block form declares n = m = 10^9.
    "mlcp_blocks_1e9.dat": "0\n1\n1000000000\n1000000000\n1 2 3 4\n",
    # NaN and infinite entries.
    "lcp_nan.dat": "2\n0\n2\n2\n2 2\n2 1 NaN 2\n-5 -6\n",
    "fc3d_inf_mu.dat": "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0 0\ninf\n",
    # Cut short in the middle of the matrix and in the middle of a number.
    "lcp_truncated.dat": "3\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 -1 -",
    "fc3d_truncated_before_mu.dat": "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0 0\n",
}
for name, text in DAT.items():
    open(name, "w").write(text)

# Binary bytes (a deterministic pseudo-random sequence), and an HDF5 signature followed by them.
state = 12345
garbage = bytearray()
for _ in range(512):
    state = (1103515245 * state + 12345) % 2**31
    garbage.append(state >> 23)
open("binary_garbage.dat", "wb").write(bytes(garbage))
open("hdf5_signature_then_garbage.dat", "wb").write(b"\x89HDF\r\n\x1a\n" + bytes(garbage))
