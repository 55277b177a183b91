//! Integration tests: FCLIB (HDF5) files. The collection's three FCLIB files read with their
//! sizes and values (checked independently with `h5dump`); every local and global frictional
//! contact `.dat` file goes `.dat → FCLIB → .dat` bit-exact; FCLIB → write → read is bit-exact;
//! bad files give typed errors.
#![cfg(feature = "fclib")]

use std::path::{Path, PathBuf};

use nonsmooth_numerics::NumericsError;
use nonsmooth_numerics::io::fclib::{read_fclib, write_fclib};
use nonsmooth_numerics::io::{Problem, read_problem, write_problem};
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
/// replacing the datasets in `replace` (path, values as f64 or i32).
fn rewrite(src: &Path, dst: &Path, skip: &str, replace: &[(&str, Vec<f64>)], replace_int: &[(&str, Vec<i32>)]) {
    use hdf5_metno as hdf5;
    let input = hdf5::File::open(src).expect("open");
    let output = hdf5::File::create(dst).expect("create");
    fn walk(
        from: &hdf5::Group,
        to: &hdf5::Group,
        prefix: &str,
        skip: &str,
        replace: &[(&str, Vec<f64>)],
        replace_int: &[(&str, Vec<i32>)],
    ) {
        for name in from.member_names().expect("members") {
            let path = format!("{prefix}/{name}");
            if path == skip {
                continue;
            }
            if let Ok(g) = from.group(&name) {
                let h = to.create_group(&name).expect("group");
                walk(&g, &h, &path, skip, replace, replace_int);
                continue;
            }
            let ds = from.dataset(&name).expect("dataset");
            if let Some((_, v)) = replace.iter().find(|(p, _)| *p == path) {
                to.new_dataset::<f64>().shape(v.len()).create(name.as_str()).expect("new").write_raw(v).expect("write");
            } else if let Some((_, v)) = replace_int.iter().find(|(p, _)| *p == path) {
                to.new_dataset::<i32>().shape(v.len()).create(name.as_str()).expect("new").write_raw(v).expect("write");
            } else if ds.dtype().expect("type").is::<f64>() {
                let v: Vec<f64> = ds.read_raw().expect("floats");
                to.new_dataset::<f64>()
                    .shape(v.len())
                    .create(name.as_str())
                    .expect("new")
                    .write_raw(&v)
                    .expect("write");
            } else if ds.dtype().expect("type").is::<i32>() {
                let v: Vec<i32> = ds.read_raw().expect("ints");
                to.new_dataset::<i32>()
                    .shape(v.len())
                    .create(name.as_str())
                    .expect("new")
                    .write_raw(&v)
                    .expect("write");
            }
            // Strings (info) are left out: they are optional.
        }
    }
    walk(&input, &output, "", skip, replace, replace_int);
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
