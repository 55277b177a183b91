//! Integration tests: FCLIB (HDF5) files. The collection's three FCLIB files read with their
//! sizes and values (checked independently with `h5dump`, and against the fingerprints the
//! libhdf5 reader gave); files written by the HDF5 C library (`tests/data/fclib`, made with
//! h5py) read value by value; every local and global frictional contact `.dat` file goes
//! `.dat → FCLIB → .dat` bit-exact; FCLIB → write → read is bit-exact; bad, oversized, corrupted
//! and truncated files give typed errors.
#![cfg(feature = "fclib")]

use std::path::{Path, PathBuf};

use nonsmooth_numerics::NumericsError;
use nonsmooth_numerics::io::fclib::{read_fclib, read_fclib_bytes, write_fclib};
use nonsmooth_numerics::io::{Problem, ReadOptions, read_problem, write_problem};
use nonsmooth_numerics::matrix::{NumericsMatrix, Storage};

/// The collection's `siconos/` folder, or `None` (tests return early) when the data is absent.
fn siconos_dir() -> Option<PathBuf> {
    crate::data_dir().map(|d| d.join("siconos"))
}

/// Every `(name, matrix)` of `a` has the same entries as the matching one of `b`, bit for bit:
/// each entry stored in one is compared with the other's value at that position (zero when not
/// stored), so a stored `-0.0` must meet a `-0.0`.
fn assert_same_entries(what: &str, a: &NumericsMatrix, b: &NumericsMatrix) {
    assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()), "{what}: shape");
    for (x, y, side) in [(a, b, "first"), (b, a, "second")] {
        // Dense matrices are walked entry by entry (their zeros too); sparse ones by stored entry.
        match x {
            NumericsMatrix::Dense(d) => {
                for j in 0..d.ncols() {
                    for i in 0..d.nrows() {
                        assert_eq!(
                            d[(i, j)].to_bits(),
                            y.get(i, j).to_bits(),
                            "{what}: entry ({i}, {j}) of the {side}"
                        );
                    }
                }
            }
            _ => {
                for (&v, (i, j)) in x.to_csc().iter() {
                    assert_eq!(v.to_bits(), y.get(i, j).to_bits(), "{what}: entry ({i}, {j}) stored in the {side}");
                }
            }
        }
    }
}

fn assert_same_bits(what: &str, a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{what}: length");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x.to_bits(), y.to_bits(), "{what}[{k}]: {x:e} vs {y:e}");
    }
}

/// The vectors of a frictional contact problem: `q`, `μ` (local); `q`, `b`, `μ` (global).
fn vectors(p: &Problem) -> Vec<(&'static str, &[f64])> {
    match p {
        Problem::Fc2d(p) => vec![("q", p.q()), ("mu", p.mu())],
        Problem::Fc3d(p) => vec![("q", p.q()), ("mu", p.mu())],
        Problem::GlobalFc2d(p) => vec![("q", p.q()), ("b", p.b()), ("mu", p.mu())],
        Problem::GlobalFc3d(p) => vec![("q", p.q()), ("b", p.b()), ("mu", p.mu())],
        other => panic!("not a frictional contact problem: {:?}", other.kind()),
    }
}

/// `a` and `b` are the same problem, bit for bit (kind, every matrix entry, every vector entry).
fn assert_same_problem(what: &str, a: &Problem, b: &Problem) {
    assert_eq!(a.kind(), b.kind(), "{what}: kind");
    let (ma, mb) = (a.matrices(), b.matrices());
    assert_eq!(ma.len(), mb.len(), "{what}: matrices");
    for ((name, x), (_, y)) in ma.iter().zip(&mb) {
        assert_same_entries(&format!("{what}: {name}"), x, y);
    }
    for ((name, x), (_, y)) in vectors(a).iter().zip(&vectors(b)) {
        assert_same_bits(&format!("{what}: {name}"), x, y);
    }
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-13 * b.abs().max(1e-300)
}

/// The three FCLIB files of the collection: sizes, storages and values. The reference numbers
/// were computed with `h5dump -m %.17g` (Debian hdf5-tools) and Python's `math.fsum`.
#[test]
fn the_collection_fclib_files_read_with_their_sizes_and_values() {
    let Some(root) = siconos_dir() else { return };

    let p = read_fclib(&root.join("fc3d/LMGC_100_PR_PerioBox-i00361-60-03000.hdf5")).expect("local file");
    let Problem::Fc3d(fc) = &p else { panic!("expected fc3d, found {}", p.kind()) };
    assert_eq!((fc.number_of_contacts(), fc.size()), (60, 180));
    // W is stored as 9576 entries in compressed rows: 3 × 3 blocks, each fully stored.
    assert_eq!(fc.w().storage(), Storage::SparseBlock);
    assert_eq!(fc.w().nnz(), 9576);
    assert!(fc.mu().iter().all(|&m| close(m, 0.3) || close(m, 0.5)));
    assert!(close(norm(fc.mu()), 2.821347195933177), "{}", norm(fc.mu()));
    assert!(close(norm(fc.q()), 0.8445337106976731), "{}", norm(fc.q()));
    // W of a contact problem is symmetric: compare W and Wᵀ entry by entry.
    let csc = fc.w().to_csc();
    for (&v, (i, j)) in csc.iter() {
        assert!((v - fc.w().get(j, i)).abs() <= 1e-12 * v.abs().max(1.0), "W({i}, {j}) not symmetric");
    }

    let p = read_fclib(&root.join("gfc3d/Box_Stacks-i0122-82-5.hdf5")).expect("global file");
    let Problem::GlobalFc3d(g) = &p else { panic!("expected gfc3d, found {}", p.kind()) };
    assert_eq!((g.velocity_size(), g.number_of_contacts(), g.size()), (450, 82, 246));
    assert_eq!((g.m().storage(), g.h().storage()), (Storage::Sparse, Storage::Sparse));
    assert_eq!((g.m().nnz(), g.h().nnz()), (450, 1284));
    assert!(g.mu().iter().all(|&m| close(m, 0.3)));
    assert!(close(norm(g.q()), 0.03965053962813253), "{}", norm(g.q()));
    // FCLIB's w is zero, 44 of its 246 entries stored as -0.0 (h5dump): the sign bits survive.
    assert!(g.b().iter().all(|&w| w == 0.0));
    assert_eq!(g.b().iter().filter(|w| w.is_sign_negative()).count(), 44);

    let p = read_fclib(&root.join("gfc3d/spheres-in-a-box-98-i10000-256-10.hdf5")).expect("global file");
    let Problem::GlobalFc3d(g) = &p else { panic!("expected gfc3d, found {}", p.kind()) };
    assert_eq!((g.velocity_size(), g.number_of_contacts(), g.size()), (588, 256, 768));
    // Triplets with nz = 7046 < nzmax = 12288 and arrays of 7046 values.
    assert_eq!((g.m().nnz(), g.h().nnz()), (588, 7046));
    assert!(g.mu().iter().all(|&m| close(m, 0.1)));
    assert!(close(norm(g.q()), 8.588821780023072e-06), "{}", norm(g.q()));

    // read_problem dispatches on the extension.
    let q = read_problem(&root.join("gfc3d/spheres-in-a-box-98-i10000-256-10.hdf5"), None).expect("dispatch");
    assert_same_problem("read_problem", &p, &q);
}

/// A fresh temporary folder.
fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary folder")
}

/// Every local and global frictional contact `.dat` file: `.dat → FCLIB → .dat` keeps every
/// matrix entry and vector entry bit for bit.
#[test]
fn every_fc_dat_file_round_trips_through_fclib_bit_exact() {
    let Some(root) = siconos_dir() else { return };
    let dir = tempdir();
    let mut count = 0;
    for folder in ["fc3d", "fc2d", "gfc3d", "gfc2d"] {
        let mut names: Vec<String> = std::fs::read_dir(root.join(folder))
            .expect("collection folder")
            .map(|e| e.expect("entry").file_name().into_string().expect("utf-8 name"))
            .filter(|n| n.ends_with(".dat"))
            .collect();
        names.sort();
        for name in names {
            let what = format!("{folder}/{name}");
            let original = read_problem(&root.join(folder).join(&name), None).unwrap_or_else(|e| panic!("{what}: {e}"));
            let h5 = dir.path().join(format!("{count}.hdf5"));
            write_problem(&h5, &original).unwrap_or_else(|e| panic!("{what}: write fclib: {e}"));
            let from_fclib = read_problem(&h5, None).unwrap_or_else(|e| panic!("{what}: read fclib: {e}"));
            assert_same_problem(&format!("{what} (fclib)"), &original, &from_fclib);
            let dat = dir.path().join(format!("{count}.dat"));
            write_problem(&dat, &from_fclib).unwrap_or_else(|e| panic!("{what}: write dat: {e}"));
            let back = read_problem(&dat, Some(original.kind())).unwrap_or_else(|e| panic!("{what}: read dat: {e}"));
            assert_same_problem(&format!("{what} (dat)"), &original, &back);
            count += 1;
        }
    }
    assert!(count >= 40, "only {count} files");
}

/// The three FCLIB files: read → write → read gives the same problem, bit for bit, and the
/// same storages.
#[test]
fn fclib_files_round_trip_bit_exact() {
    let Some(root) = siconos_dir() else { return };
    let dir = tempdir();
    for file in [
        "fc3d/LMGC_100_PR_PerioBox-i00361-60-03000.hdf5",
        "gfc3d/Box_Stacks-i0122-82-5.hdf5",
        "gfc3d/spheres-in-a-box-98-i10000-256-10.hdf5",
    ] {
        let first = read_fclib(&root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let out = dir.path().join("copy.h5");
        write_fclib(&out, &first).unwrap_or_else(|e| panic!("{file}: {e}"));
        let second = read_fclib(&out).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_same_problem(file, &first, &second);
        for ((_, a), (_, b)) in first.matrices().iter().zip(&second.matrices()) {
            assert_eq!((a.storage(), a.nnz()), (b.storage(), b.nnz()), "{file}: storage and stored entries");
        }
    }
}

/// A small FC3D problem with an explicit zero block and a `-0.0`, written and read back.
fn small_fc3d() -> Problem {
    use nonsmooth_numerics::fc::Fc3dProblem;
    use nonsmooth_numerics::matrix::SparseBlockMatrix;
    let ends = vec![3, 6];
    // Blocks (0,0), (0,1) all zero but stored, (1,1); column-major.
    let mut values = vec![2.0, 0.1, 0.0, 0.1, 2.0, 0.0, 0.0, 0.0, 2.0];
    values.extend([0.0; 9]);
    values.extend([3.0, -0.0, 0.0, -0.0, 3.0, 0.0, 0.0, 0.0, 3.0]);
    let w = SparseBlockMatrix::new(ends.clone(), ends, vec![0, 2, 3], vec![0, 1, 1], values).expect("valid");
    Problem::Fc3d(
        Fc3dProblem::new(NumericsMatrix::SparseBlock(w), vec![-1.0, 0.5, -0.0, 0.25, 1e-300, 3.0], vec![0.3, 0.0])
            .expect("valid"),
    )
}

#[test]
fn explicit_zero_blocks_and_negative_zeros_survive() {
    let dir = tempdir();
    let p = small_fc3d();
    let path = dir.path().join("small.hdf5");
    write_fclib(&path, &p).expect("write");
    let back = read_fclib(&path).expect("read");
    assert_same_problem("small", &p, &back);
    // The stored zero block stays stored: 3 blocks of 9.
    assert_eq!(back.matrices()[0].1.nnz(), 27);
}

#[test]
fn other_problem_kinds_are_refused_on_write() {
    use nonsmooth_numerics::lcp::LcpProblem;
    let dir = tempdir();
    let lcp = LcpProblem::new(NumericsMatrix::Dense(faer::mat![[1.0]]), vec![-1.0]).expect("valid");
    let path = dir.path().join("lcp.hdf5");
    let r = write_fclib(&path, &Problem::Lcp(lcp.clone()));
    assert!(matches!(r, Err(NumericsError::InvalidInput { .. })), "{r:?}");
    assert!(!path.exists(), "nothing is created for a refused problem");
    let r = write_problem(&path, &Problem::Lcp(lcp));
    assert!(matches!(r, Err(NumericsError::InvalidInput { .. })), "{r:?}");
}

/// Copies `src` to `dst` through the HDF5 API, leaving out the dataset `skip` (a path) and
/// replacing the datasets in `replace` (path, values as f64 or i32). Every group of `src` is
/// under the root group (as in an FCLIB file).
fn rewrite(src: &Path, dst: &Path, skip: &str, replace: &[(&str, Vec<f64>)], replace_int: &[(&str, Vec<i32>)]) {
    use hdf5_pure::{DType, FileBuilder, Group, GroupBuilder};
    fn walk(
        from: &Group,
        to: &mut GroupBuilder,
        prefix: &str,
        skip: &str,
        replace: &[(&str, Vec<f64>)],
        replace_int: &[(&str, Vec<i32>)],
    ) {
        for (name, g) in from.iter_groups().expect("groups") {
            let mut h = to.create_group(&name);
            walk(&g, &mut h, &format!("{prefix}/{name}"), skip, replace, replace_int);
            to.add_group(h.finish());
        }
        for name in from.datasets().expect("datasets") {
            let path = format!("{prefix}/{name}");
            if path == skip {
                continue;
            }
            let ds = from.dataset(&name).expect("dataset");
            if let Some((_, v)) = replace.iter().find(|(p, _)| *p == path) {
                to.create_dataset(&name).with_f64_data(v);
            } else if let Some((_, v)) = replace_int.iter().find(|(p, _)| *p == path) {
                to.create_dataset(&name).with_i32_data(v);
            } else {
                match ds.dtype().expect("type") {
                    DType::F64 => {
                        to.create_dataset(&name).with_f64_data(&ds.read_f64().expect("floats"));
                    }
                    DType::I32 => {
                        to.create_dataset(&name).with_i32_data(&ds.read_i32().expect("ints"));
                    }
                    // Strings (info) are left out: they are optional.
                    _ => {}
                }
            }
        }
    }
    let input = hdf5_pure::File::open(src).expect("open");
    let mut output = FileBuilder::new();
    let root = input.root();
    assert!(root.datasets().expect("datasets").is_empty(), "no dataset at the root");
    for (name, g) in root.iter_groups().expect("groups") {
        let mut h = output.create_group(&name);
        walk(&g, &mut h, &format!("/{name}"), skip, replace, replace_int);
        output.add_group(h.finish());
    }
    output.write(dst).expect("write");
}

#[test]
fn bad_files_give_typed_errors() {
    let dir = tempdir();
    let good = dir.path().join("good.hdf5");
    write_fclib(&good, &small_fc3d()).expect("write");
    // The copy without changes reads the same problem (so the edits below are what fails).
    let copy = dir.path().join("copy.hdf5");
    rewrite(&good, &copy, "", &[], &[]);
    assert_same_problem("copy", &small_fc3d(), &read_fclib(&copy).expect("copy reads"));

    // Missing file: Io.
    let r = read_fclib(&dir.path().join("absent.hdf5"));
    assert!(matches!(r, Err(NumericsError::Io { .. })), "{r:?}");

    // Garbage and a truncated file: Parse.
    let garbage = dir.path().join("garbage.hdf5");
    std::fs::write(&garbage, b"this is not an HDF5 file at all").expect("write");
    let r = read_fclib(&garbage);
    assert!(matches!(r, Err(NumericsError::Parse { .. })), "{r:?}");
    let bytes = std::fs::read(&good).expect("read");
    for cut in [8, 100, bytes.len() / 2, bytes.len() - 10] {
        let truncated = dir.path().join(format!("truncated{cut}.hdf5"));
        std::fs::write(&truncated, &bytes[..cut]).expect("write");
        let r = read_fclib(&truncated);
        assert!(matches!(r, Err(NumericsError::Parse { .. })), "cut at {cut}: {r:?}");
    }

    // Missing q.
    let no_q = dir.path().join("no_q.hdf5");
    rewrite(&good, &no_q, "/fclib_local/vectors/q", &[], &[]);
    let r = read_fclib(&no_q);
    assert!(
        matches!(r, Err(NumericsError::Parse { ref reason, .. }) if reason.contains("/fclib_local/vectors/q")),
        "{r:?}"
    );

    let case = |name: &str, f: &[(&str, Vec<f64>)], i: &[(&str, Vec<i32>)]| {
        let path = dir.path().join(format!("{name}.hdf5"));
        rewrite(&good, &path, "", f, i);
        read_fclib(&path)
    };
    // Negative μ and NaN in q: the constructor's errors.
    let r = case("neg_mu", &[("/fclib_local/vectors/mu", vec![0.3, -0.1])], &[]);
    assert!(matches!(r, Err(NumericsError::InvalidInput { .. })), "{r:?}");
    let r = case("nan_q", &[("/fclib_local/vectors/q", vec![f64::NAN; 6])], &[]);
    assert!(matches!(r, Err(NumericsError::NonFinite { .. })), "{r:?}");
    // q of the wrong length.
    let r = case("short_q", &[("/fclib_local/vectors/q", vec![0.0; 5])], &[]);
    assert!(matches!(r, Err(NumericsError::DimensionMismatch { .. })), "{r:?}");
    // Column pointers not monotone, a row index out of range, a wrong spacedim, a huge m.
    let r = case("p_not_monotone", &[], &[("/fclib_local/W/p", vec![0, 6, 3, 12, 21, 27, 27])]);
    assert!(matches!(r, Err(NumericsError::Parse { ref reason, .. }) if reason.contains("monotone")), "{r:?}");
    let mut rows: Vec<i32> = (0..27).map(|k| k % 6).collect();
    rows[4] = 6;
    let r = case("row_out_of_range", &[], &[("/fclib_local/W/i", rows)]);
    assert!(matches!(r, Err(NumericsError::Parse { ref reason, .. }) if reason.contains("out of range")), "{r:?}");
    let r = case("spacedim", &[], &[("/fclib_local/spacedim", vec![4])]);
    assert!(matches!(r, Err(NumericsError::Parse { .. })), "{r:?}");
    let r = case("huge_m", &[], &[("/fclib_local/W/m", vec![i32::MAX]), ("/fclib_local/W/n", vec![i32::MAX])]);
    assert!(matches!(r, Err(NumericsError::DimensionMismatch { .. })), "{r:?}");
    let r = case("bad_nz", &[], &[("/fclib_local/W/nz", vec![-3])]);
    assert!(matches!(r, Err(NumericsError::Parse { .. })), "{r:?}");
}

/// FNV-1a (64-bit) over a sequence of 64-bit words, each fed as 8 little-endian bytes.
fn fnv1a(words: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// One line per matrix and vector of `p`: name, shape, stored entries and a checksum of the
/// compressed-column structure and the values' bits.
fn fingerprint(p: &Problem) -> Vec<String> {
    let mut lines = vec![format!("kind {}", p.kind())];
    for (name, a) in p.matrices() {
        let c = a.to_csc();
        let sum = fnv1a(
            c.indptr()
                .raw_storage()
                .iter()
                .chain(c.indices())
                .map(|&k| k as u64)
                .chain(c.data().iter().map(|v| v.to_bits())),
        );
        lines.push(format!("{name} {}x{} {:?} nnz {} fnv {sum:016x}", a.nrows(), a.ncols(), a.storage(), a.nnz()));
    }
    for (name, v) in vectors(p) {
        lines.push(format!("{name} len {} fnv {:016x}", v.len(), fnv1a(v.iter().map(|x| x.to_bits()))));
    }
    lines
}

/// The three FCLIB files of the collection read exactly as the HDF5 C library read them: the
/// fingerprints below (shapes, storages, stored entries, checksums of the structure and of every
/// value's bits) were printed by this test's `fingerprint` with the previous reader, which went
/// through the system libhdf5 (crate hdf5-metno 0.15, HDF5 1.10).
#[test]
fn the_collection_fclib_files_read_as_the_c_library_read_them() {
    let Some(root) = siconos_dir() else { return };
    let expected: [(&str, &[&str]); 3] = [
        (
            "fc3d/LMGC_100_PR_PerioBox-i00361-60-03000.hdf5",
            &[
                "kind fc3d",
                "W 180x180 SparseBlock nnz 9576 fnv 1d8717f8a4519e5a",
                "q len 180 fnv 8593e39b99c86844",
                "mu len 60 fnv cd3859036cb2b3e5",
            ],
        ),
        (
            "gfc3d/Box_Stacks-i0122-82-5.hdf5",
            &[
                "kind gfc3d",
                "M 450x450 Sparse nnz 450 fnv fecfde74a5ec76b8",
                "H 450x246 Sparse nnz 1284 fnv 107a0d07825c096b",
                "q len 450 fnv b90dccd0845a571e",
                "b len 246 fnv ac3465f6683260e5",
                "mu len 82 fnv a0925cc77505a485",
            ],
        ),
        (
            "gfc3d/spheres-in-a-box-98-i10000-256-10.hdf5",
            &[
                "kind gfc3d",
                "M 588x588 Sparse nnz 588 fnv a56d3a6449130ce9",
                "H 588x768 Sparse nnz 7046 fnv 09374d3d643772b1",
                "q len 588 fnv ad8b30ad7e694a9d",
                "b len 768 fnv 04d90ebbe2306d25",
                "mu len 256 fnv 8f11bdc0343cf525",
            ],
        ),
    ];
    for (file, lines) in expected {
        let p = read_fclib(&root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(fingerprint(&p), lines, "{file}");
    }
}

/// The folder of the FCLIB fixtures written by the HDF5 C library (through h5py) with
/// `tests/data/fclib/make_fixtures.py`.
fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/fclib")
}

/// The fixtures' k-th value of an array, as `make_fixtures.py` computes it.
fn fixture_value(k: usize, salt: usize) -> f64 {
    match k {
        2 => -0.0,
        5 => 5e-324,
        7 => 1e-300,
        _ => {
            let v = (k + 1 + salt) as f64 / 7.0;
            if k % 2 == 1 { -v } else { v }
        }
    }
}

fn fixture_values(n: usize, salt: usize) -> Vec<f64> {
    (0..n).map(|k| fixture_value(k, salt)).collect()
}

/// Every position of the `block × block` blocks at the block positions `pairs`, sorted.
fn fixture_blocks(block: usize, pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = pairs
        .iter()
        .flat_map(|&(bi, bj)| (0..block).flat_map(move |r| (0..block).map(move |c| (bi * block + r, bj * block + c))))
        .collect();
    v.sort_unstable();
    v
}

/// `a` stores exactly the entries at `positions` (sorted by row, then column), the k-th holding
/// `fixture_value(k, salt)`, bit for bit.
fn assert_fixture_matrix(
    what: &str,
    a: &NumericsMatrix,
    shape: (usize, usize),
    positions: &[(usize, usize)],
    salt: usize,
) {
    assert_eq!((a.nrows(), a.ncols()), shape, "{what}: shape");
    let mut stored: Vec<(usize, usize, u64)> = a.to_csc().iter().map(|(&v, (i, j))| (i, j, v.to_bits())).collect();
    stored.sort_unstable();
    let expected: Vec<(usize, usize, u64)> =
        positions.iter().enumerate().map(|(k, &(i, j))| (i, j, fixture_value(k, salt).to_bits())).collect();
    assert_eq!(stored, expected, "{what}: stored entries");
}

/// Files written by the HDF5 C library (h5py 3.16, HDF5 2.0) in FCLIB's layout: local (3D
/// and 2D) and global (3D and 2D) problems; compressed rows, compressed columns and triplets
/// (one with `nzmax` above the entries used); contiguous datasets under superblock 0 (FCLIB's
/// own format) and under superblock 3 (HDF5 1.14 format); chunked, deflate-compressed (and
/// shuffled) datasets with B-tree, fixed-array and extensible-array chunk indexes; one file
/// big-endian. Every value is checked, bit for bit.
#[test]
fn fclib_files_written_by_the_c_library_read_every_value() {
    const SALT_W: usize = 0;
    const SALT_M: usize = 30;
    const SALT_H: usize = 60;
    const SALT_Q: usize = 100;
    const SALT_B: usize = 200;
    let dir = fixtures_dir();
    let fc3d_w = fixture_blocks(3, &[(0, 0), (0, 1), (1, 1)]);
    let fc2d_w = fixture_blocks(2, &[(0, 0), (0, 1), (1, 0), (1, 1)]);
    let gfc_m: Vec<(usize, usize)> = (0..6).map(|k| (k, k)).collect();
    let mut gfc_h = vec![(0, 0), (1, 1), (2, 2), (3, 0), (4, 1), (5, 2), (0, 3), (2, 4), (4, 5), (5, 3)];
    gfc_h.sort_unstable();

    for file in ["fc3d_local_csr_contiguous.hdf5", "fc3d_local_csc_chunked_deflate.hdf5"] {
        let p = read_fclib(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let Problem::Fc3d(fc) = &p else { panic!("{file}: expected fc3d, found {}", p.kind()) };
        assert_eq!(fc.w().storage(), Storage::SparseBlock, "{file}");
        assert_fixture_matrix(file, fc.w(), (6, 6), &fc3d_w, SALT_W);
        assert_same_bits(&format!("{file}: q"), fc.q(), &fixture_values(6, SALT_Q));
        assert_same_bits(&format!("{file}: mu"), fc.mu(), &[0.3, 0.5]);
    }

    let file = "fc2d_local_triplet_chunked_deflate_big_endian.hdf5";
    let p = read_fclib(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let Problem::Fc2d(fc) = &p else { panic!("{file}: expected fc2d, found {}", p.kind()) };
    assert_fixture_matrix(file, fc.w(), (4, 4), &fc2d_w, SALT_W);
    assert_same_bits(&format!("{file}: q"), fc.q(), &fixture_values(4, SALT_Q));
    assert_same_bits(&format!("{file}: mu"), fc.mu(), &[0.3, 0.5]);

    for file in ["gfc3d_global_triplet_csc_contiguous.hdf5", "gfc3d_global_csr_csr_contiguous_v114.hdf5"] {
        let p = read_fclib(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let Problem::GlobalFc3d(g) = &p else { panic!("{file}: expected gfc3d, found {}", p.kind()) };
        assert_fixture_matrix(&format!("{file}: M"), g.m(), (6, 6), &gfc_m, SALT_M);
        assert_fixture_matrix(&format!("{file}: H"), g.h(), (6, 6), &gfc_h, SALT_H);
        assert_same_bits(&format!("{file}: f"), g.q(), &fixture_values(6, SALT_Q));
        assert_same_bits(&format!("{file}: w"), g.b(), &fixture_values(6, SALT_B));
        assert_same_bits(&format!("{file}: mu"), g.mu(), &[0.3, 0.5]);
    }

    let file = "gfc2d_global_csc_triplet_chunked_deflate.hdf5";
    let p = read_fclib(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let Problem::GlobalFc2d(g) = &p else { panic!("{file}: expected gfc2d, found {}", p.kind()) };
    assert_fixture_matrix(&format!("{file}: M"), g.m(), (6, 6), &gfc_m, SALT_M);
    assert_fixture_matrix(&format!("{file}: H"), g.h(), (6, 6), &gfc_h, SALT_H);
    assert_same_bits(&format!("{file}: f"), g.q(), &fixture_values(6, SALT_Q));
    assert_same_bits(&format!("{file}: w"), g.b(), &fixture_values(6, SALT_B));
    assert_same_bits(&format!("{file}: mu"), g.mu(), &[0.3, 0.5, 0.25]);

    // Written back by our writer and read again: the same problem, bit for bit.
    let tmp = tempdir();
    for entry in std::fs::read_dir(&dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if !name.ends_with(".hdf5") || name.starts_with("huge_") || name.ends_with("_v200.hdf5") {
            continue;
        }
        let first = read_fclib(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = tmp.path().join(&name);
        write_fclib(&out, &first).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_same_problem(&name, &first, &read_fclib(&out).unwrap_or_else(|e| panic!("{name}: {e}")));
    }
}

/// Datasets declaring 2⁴⁰ doubles (8 TiB) in a 9 kB file, stored contiguous or chunked and
/// compressed, never written (valid HDF5 written by the C library): refused by their declared
/// size, before anything is allocated.
#[test]
fn datasets_declaring_more_than_the_file_holds_are_refused() {
    for file in ["huge_declared_contiguous.hdf5", "huge_declared_chunked.hdf5"] {
        let r = read_fclib(&fixtures_dir().join(file));
        assert!(
            matches!(r, Err(NumericsError::Parse { ref reason, .. })
                if reason.contains("/fclib_local/W/x") && reason.contains("declares 1099511627776 values")),
            "{file}: {r:?}"
        );
    }
}

/// The HDF5 2.0 file format (libver v200) stores filtered chunked datasets with a version 5
/// layout message, which the pure-Rust reader does not know yet: a typed error, not a panic and
/// not wrong values. FCLIB's C library and h5py write the earliest format unless told otherwise.
#[test]
fn the_hdf5_2_format_of_filtered_chunks_is_refused_with_a_typed_error() {
    let r = read_fclib(&fixtures_dir().join("fc3d_local_csc_chunked_deflate_v200.hdf5"));
    assert!(matches!(r, Err(NumericsError::Parse { ref reason, .. }) if reason.contains("layout version: 5")), "{r:?}");
}

/// Corrupted files give a typed error or (where the corruption hits unused bytes or a value)
/// a problem, never a panic: bytes of small files flipped in turn, and the files cut short
/// (every byte and length of our writer's output, every third of two fixtures of the C library:
/// superblock 0 with contiguous datasets, superblock 3 with chunked, deflate-compressed ones).
#[test]
fn corrupted_and_truncated_files_never_panic() {
    let dir = tempdir();
    let ours = dir.path().join("ours.hdf5");
    write_fclib(&ours, &small_fc3d()).expect("write");
    let sources = [
        (ours, 1),
        (fixtures_dir().join("fc3d_local_csr_contiguous.hdf5"), 3),
        (fixtures_dir().join("fc3d_local_csc_chunked_deflate.hdf5"), 3),
    ];
    // From memory (`read_fclib_bytes`, the same reader as `read_fclib` after reading the file):
    // writing each case to a file made this test take 45 s on a loaded machine.
    let options = ReadOptions::default();
    let start = std::time::Instant::now();
    let mut cases = 0;
    for (source, stride) in &sources {
        let bytes = std::fs::read(source).expect("read");
        let mut detected = 0;
        for k in (0..bytes.len()).step_by(*stride) {
            let mut b = bytes.clone();
            b[k] ^= 0xff;
            detected += usize::from(read_fclib_bytes(b, &options).is_err());
            cases += 1;
        }
        for cut in (0..bytes.len()).step_by(*stride) {
            let r = read_fclib_bytes(bytes[..cut].to_vec(), &options);
            assert!(matches!(r, Err(NumericsError::Parse { .. })), "{}: cut at {cut}: {r:?}", source.display());
            cases += 1;
        }
        assert!(detected > 0, "{}: no flipped byte was detected", source.display());
    }
    println!("{cases} corrupted or truncated files in {:.2} s", start.elapsed().as_secs_f64());
}
