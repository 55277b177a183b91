//! Tests of `nonsmooth convert`, run as a process: collection files converted between Siconos
//! `.dat` and FCLIB both ways describe the same problem (`nonsmooth info --json`) and re-read
//! bit-exact; bad extensions and unreadable input exit with 2.
#![cfg(feature = "fclib")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{code, data_dir, nonsmooth, stderr};
use nonsmooth::numerics::io::{Problem, read_problem};
use serde_json::Value;

fn run(args: &[&Path]) -> Output {
    nonsmooth(args)
}

/// The collection folder, or `None` (the test returns) when the shared data is absent.
fn siconos_dir() -> Option<PathBuf> {
    data_dir().map(|d| d.join("siconos"))
}

/// `nonsmooth info --json FILE` without the `file` key.
fn info(file: &Path) -> Value {
    let out = run(&[Path::new("info"), file, Path::new("--json")]);
    assert_eq!(code(&out), 0, "info {}: {}", file.display(), stderr(&out));
    let mut v: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    v.as_object_mut().expect("object").remove("file");
    v
}

/// Every vector and every matrix entry of `a` and `b` has the same bits.
fn assert_same(what: &str, a: &Problem, b: &Problem) {
    assert_eq!(a.kind(), b.kind(), "{what}");
    for ((_, x), (name, y)) in a.matrices().iter().zip(&b.matrices()) {
        for (m, other) in [(x, y), (y, x)] {
            for (&v, (i, j)) in m.to_csc().iter() {
                assert_eq!(v.to_bits(), other.get(i, j).to_bits(), "{what}: {name}({i}, {j})");
            }
        }
    }
    let vectors = |p: &Problem| -> Vec<Vec<f64>> {
        match p {
            Problem::Fc3d(p) => vec![p.q().to_vec(), p.mu().to_vec()],
            Problem::Fc2d(p) => vec![p.q().to_vec(), p.mu().to_vec()],
            Problem::GlobalFc3d(p) => vec![p.q().to_vec(), p.b().to_vec(), p.mu().to_vec()],
            Problem::GlobalFc2d(p) => vec![p.q().to_vec(), p.b().to_vec(), p.mu().to_vec()],
            other => panic!("{what}: not a frictional contact problem: {}", other.kind()),
        }
    };
    for (x, y) in vectors(a).iter().zip(&vectors(b)) {
        let (bx, by): (Vec<u64>, Vec<u64>) =
            (x.iter().map(|v| v.to_bits()).collect(), y.iter().map(|v| v.to_bits()).collect());
        assert_eq!(bx, by, "{what}: vector");
    }
}

#[test]
fn dat_and_fclib_convert_both_ways() {
    let Some(root) = siconos_dir() else { return };
    let dir = tempfile::tempdir().expect("temporary folder");
    for file in [
        "fc3d/FC3D_Example1_SBM.dat",
        "gfc3d/GFC3D_TwoRods1.dat",
        "fc2d/fc2d_granularflowonwall_02020_00213.dat",
        "gfc2d/gfc2d_granularflowonwall_00069_00350.dat",
    ] {
        let input = root.join(file);
        let h5 = dir.path().join("p.hdf5");
        let out = run(&[Path::new("convert"), &input, &h5]);
        assert_eq!(code(&out), 0, "{file}: {}", stderr(&out));
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("converted "), "{file}");
        let dat = dir.path().join("p.dat");
        let out = run(&[Path::new("convert"), &h5, &dat]);
        assert_eq!(code(&out), 0, "{file}: {}", stderr(&out));
        let h5_again = dir.path().join("again.h5");
        let out = run(&[Path::new("convert"), &h5, &h5_again]);
        assert_eq!(code(&out), 0, "{file}: {}", stderr(&out));

        // Same kind, sizes and contacts for the three files; storages may differ (FCLIB's W is
        // sparse-block, its M and H sparse), so only the shapes of the matrices are compared.
        let shape = |v: &Value| {
            let m: Vec<(Value, Value)> = v["matrices"]
                .as_array()
                .expect("matrices")
                .iter()
                .map(|m| (m["rows"].clone(), m["cols"].clone()))
                .collect();
            (v["problem"].clone(), v["size"].clone(), v["contacts"].clone(), m)
        };
        let reference = shape(&info(&input));
        for converted in [&h5, &dat, &h5_again] {
            assert_eq!(shape(&info(converted)), reference, "{file} → {}", converted.display());
        }
        // And the same numbers, bit for bit.
        let original = read_problem(&input, None).expect("original");
        for converted in [&h5, &dat, &h5_again] {
            let p = read_problem(converted, Some(original.kind())).expect("converted");
            assert_same(&format!("{file} → {}", converted.display()), &original, &p);
        }
    }
    // The FCLIB file of the collection converts to .dat and back.
    let input = root.join("gfc3d/Box_Stacks-i0122-82-5.hdf5");
    let dat = dir.path().join("box.dat");
    let out = run(&[Path::new("convert"), &input, &dat]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let original = read_problem(&input, None).expect("original");
    assert_same("Box_Stacks → .dat", &original, &read_problem(&dat, None).expect("converted"));
}

#[test]
fn bad_input_exits_with_2_and_one_line() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let lcp = dir.path().join("lcp.dat");
    std::fs::write(&lcp, "1\n0\n1\n1\n1 1\n2.0\n-1.0\n").expect("write");
    let cases: Vec<(PathBuf, PathBuf)> = vec![
        // Unknown output and input extensions.
        (lcp.clone(), dir.path().join("out.txt")),
        (dir.path().join("in.txt"), dir.path().join("out.dat")),
        // A missing input.
        (dir.path().join("missing.dat"), dir.path().join("out.hdf5")),
        // An LCP cannot be written as FCLIB.
        (lcp.clone(), dir.path().join("lcp.hdf5")),
    ];
    for (input, output) in cases {
        let out = run(&[Path::new("convert"), &input, &output]);
        assert_eq!(code(&out), 2, "{} → {}", input.display(), output.display());
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "one line: {err:?}");
        assert!(err.starts_with("error: "), "{err:?}");
    }
    // The LCP converts .dat → .dat.
    let out = run(&[Path::new("convert"), &lcp, &dir.path().join("copy.dat")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}
