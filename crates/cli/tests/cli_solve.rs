//! Tests of `nonsmooth solve` on the problem files shipped in `crates/nonsmooth/data`: the FC2D
//! solver names, the limit on dense conversions, `--repeat`, the `--output` file read back and
//! checked against the problem, and (with the reference data) the 7002-contact FC2D problem.

mod common;

use std::path::{Path, PathBuf};

use common::{code, data_dir, json_line, run, stderr, stdout, str_path, temp_dir};
use nonsmooth::numerics::io::{Problem, read_problem};
use serde_json::Value;

/// A shipped problem file.
fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nonsmooth/data").join(name)
}

/// The numbers of `v`, a JSON array of numbers.
fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().expect("an array").iter().map(|x| x.as_f64().expect("a number")).collect()
}

#[test]
fn shipped_files_solve_to_convergence() {
    for (name, kind, solver) in
        [("pile_fc3d.dat", "fc3d", "nsgs"), ("pile_fc2d.dat", "fc2d", "nsgs"), ("pile_lcp.dat", "lcp", "lemke")]
    {
        let path = shipped(name);
        let out = run(&["solve", str_path(&path), "--json"]);
        assert_eq!(code(&out), 0, "{name}: stdout {} stderr {}", stdout(&out), stderr(&out));
        let v = json_line(&out);
        assert_eq!(v["problem"], kind, "{name}");
        assert_eq!(v["solver"], solver, "{name}: the default solver");
        assert_eq!(v["status"], "converged", "{name}");
    }
    // The pile has 36 contacts.
    let out = run(&["info", str_path(&shipped("pile_fc3d.dat")), "--json"]);
    assert_eq!(code(&out), 0, "stderr {}", stderr(&out));
    assert_eq!(json_line(&out)["contacts"], 36);
}

#[test]
fn every_fc2d_method_name_solves_the_shipped_problem() {
    let path = shipped("pile_fc2d.dat");
    for solver in ["nsgs", "nsgs-dense", "lemke"] {
        let out = run(&["solve", str_path(&path), "--solver", solver, "--json"]);
        assert_eq!(code(&out), 0, "{solver}: stdout {} stderr {}", stdout(&out), stderr(&out));
        let v = json_line(&out);
        assert_eq!(v["solver"], solver);
        assert_eq!(v["status"], "converged", "{solver}");
    }
    let out = run(&["solve", str_path(&path), "--solver", "pgs"]);
    assert_eq!(code(&out), 2, "pgs is not an FC2D solver");
    let err = stderr(&out);
    assert!(err.contains("valid names: nsgs, nsgs-dense, lemke"), "{err}");
}

#[test]
fn dense_limit_is_an_error_naming_the_sparse_solver() {
    let dir = temp_dir("cli_solve", "dense_limit");
    let output = dir.join("solution.json");
    // The LCP reformulation of the 36-contact problem is 108 × 108: 93 312 bytes.
    let path = shipped("pile_fc2d.dat");
    let args =
        ["solve", str_path(&path), "--solver", "lemke", "--max-dense-bytes", "90000", "--output", str_path(&output)];
    let out = run(&args);
    assert_eq!(code(&out), 2, "stdout {} stderr {}", stdout(&out), stderr(&out));
    let err = stderr(&out);
    assert!(err.starts_with("error: ") && !err.contains("panicked"), "{err}");
    assert!(err.contains("93312 bytes") && err.contains("max_dense_bytes = 90000"), "{err}");
    assert!(err.contains("use the solver nsgs"), "{err}");
    assert!(!output.exists(), "a run that fails on bad input leaves no solution file");
    // At the limit it solves.
    let out = run(&["solve", str_path(&path), "--solver", "lemke", "--max-dense-bytes", "93312"]);
    assert_eq!(code(&out), 0, "stdout {} stderr {}", stdout(&out), stderr(&out));
}

#[test]
fn repeat_reports_min_and_median() {
    let path = shipped("pile_fc3d.dat");
    let out = run(&["solve", str_path(&path), "--repeat", "3", "--json"]);
    assert_eq!(code(&out), 0, "stderr {}", stderr(&out));
    let v = json_line(&out);
    assert_eq!(v["repeat"], 3);
    let best = v["solve_seconds"].as_f64().expect("a number");
    let median = v["solve_seconds_median"].as_f64().expect("a number");
    assert!(0.0 <= best && best <= median, "min {best}, median {median}");
    let out = run(&["solve", str_path(&path), "--repeat", "3"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("median of 3 runs"), "{}", stdout(&out));
    let out = run(&["solve", str_path(&path), "--repeat", "0"]);
    assert_eq!(code(&out), 2, "--repeat 0 is bad input");
}

#[test]
fn output_round_trip_satisfies_the_problem() {
    let dir = temp_dir("cli_solve", "output");
    for (name, tolerance) in [("pile_fc3d.dat", 1e-8), ("pile_fc2d.dat", 1e-8), ("pile_lcp.dat", 1e-12)] {
        let path = shipped(name);
        let output = dir.join(format!("{name}.json"));
        let t = format!("{tolerance:e}");
        let out = run(&[
            "solve",
            str_path(&path),
            "--tolerance",
            &t,
            "--max-iterations",
            "100000",
            "--output",
            str_path(&output),
        ]);
        assert_eq!(code(&out), 0, "{name}: stdout {} stderr {}", stdout(&out), stderr(&out));
        assert!(stdout(&out).contains("written to"), "{}", stdout(&out));
        let text = std::fs::read_to_string(&output).expect("the solution file exists");
        let v: Value = serde_json::from_str(&text).expect("the solution file is JSON");
        assert_eq!(v["format"], "nonsmooth-solution");
        assert_eq!(v["version"], 1);
        assert_eq!(v["status"], "converged");
        let problem = read_problem(&path, None).expect("the shipped file reads");
        let vectors = &v["vectors"];
        match problem {
            Problem::Lcp(lcp) => {
                let (z, w) = (numbers(&vectors["z"]), numbers(&vectors["w"]));
                let mut w_check = vec![0.0; z.len()];
                let error = lcp.compute_error(&z, &mut w_check).expect("sizes agree");
                assert!(error <= tolerance, "{name}: error {error}");
                for (a, b) in w.iter().zip(&w_check) {
                    assert!((a - b).abs() <= 1e-12, "{name}: w = M z + q");
                }
            }
            Problem::Fc3d(fc) => check_fc(name, vectors, tolerance, |r, u| fc.compute_error(r, u)),
            Problem::Fc2d(fc) => check_fc(name, vectors, tolerance, |r, u| fc.compute_error(r, u)),
            other => panic!("{name}: unexpected kind {}", other.kind()),
        }
    }
}

/// Checks a frictional contact solution read back: its error is within `tolerance` and `u`
/// is `W r + q`.
fn check_fc(
    name: &str,
    vectors: &Value,
    tolerance: f64,
    compute_error: impl Fn(&[f64], &mut [f64]) -> Result<f64, nonsmooth::numerics::NumericsError>,
) {
    let (r, u) = (numbers(&vectors["r"]), numbers(&vectors["u"]));
    let mut u_check = vec![0.0; r.len()];
    let error = compute_error(&r, &mut u_check).expect("sizes agree");
    assert!(error <= tolerance, "{name}: error {error}");
    for (a, b) in u.iter().zip(&u_check) {
        assert!((a - b).abs() <= 1e-12, "{name}: u = W r + q");
    }
}

#[test]
fn unwritable_output_is_refused_before_the_solve() {
    let dir = temp_dir("cli_solve", "unwritable");
    let path = shipped("pile_fc3d.dat");
    let missing = dir.join("no_such_folder").join("solution.json");
    for output in [missing.as_path(), dir.as_path()] {
        let out = run(&["solve", str_path(&path), "--output", str_path(output)]);
        assert_eq!(code(&out), 2, "{}: stdout {}", output.display(), stdout(&out));
        assert!(stdout(&out).is_empty(), "nothing solved, nothing reported");
        assert!(stderr(&out).contains("--output"), "{}", stderr(&out));
    }
}

/// The 7002-contact FC2D problem: the default solver (NSGS on the sparse `W`) converges;
/// Lemke's dense reformulation (21006², 3.5 GB) is refused at once, naming NSGS.
#[test]
fn fc2d_7002_contacts_with_the_default_solver() {
    let Some(data) = data_dir() else { return };
    let path = data.join("siconos/fc2d/fc2d_granularflowonwall_07002_00801.dat");
    let out = run(&["solve", str_path(&path), "--json"]);
    assert_eq!(code(&out), 0, "stdout {} stderr {}", stdout(&out), stderr(&out));
    let v = json_line(&out);
    assert_eq!(v["solver"], "nsgs");
    assert_eq!(v["size"], 14004);
    assert_eq!(v["status"], "converged");
    let out = run(&["solve", str_path(&path), "--solver", "lemke"]);
    assert_eq!(code(&out), 2, "stdout {} stderr {}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("21006 x 21006") && stderr(&out).contains("use the solver nsgs"), "{}", stderr(&out));
}

/// The solvers on the global form of GFC3D problems are chosen by name (`global-nsn-ac`,
/// `admm`), reach 1e-8 on the collection's `.dat` files, write `r`, `u`, `v`, and are listed
/// among the valid names of an unknown one; they are not FC3D solvers.
#[test]
fn gfc3d_global_solvers_by_name() {
    let Some(data) = data_dir() else { return };
    let dir = temp_dir("cli_solve", "gfc3d_global");
    for file in ["GFC3D_Example1.dat", "GFC3D_OneContact.dat", "GFC3D_TwoRods1.dat"] {
        let path = data.join("siconos/gfc3d").join(file);
        for solver in ["global-nsn-ac", "admm"] {
            let out_file = dir.join(format!("{file}.{solver}.json"));
            let out = run(&[
                "solve",
                str_path(&path),
                "--solver",
                solver,
                "--tolerance",
                "1e-8",
                "--output",
                str_path(&out_file),
                "--json",
            ]);
            assert_eq!(code(&out), 0, "{file} {solver}: stdout {} stderr {}", stdout(&out), stderr(&out));
            let v = json_line(&out);
            assert_eq!(v["problem"], "gfc3d");
            assert_eq!(v["solver"], solver);
            assert_eq!(v["status"], "converged", "{file} {solver}: {v}");
            assert!(v["residual"].as_f64().expect("a number") <= 1e-8, "{file} {solver}: {v}");
            let text = std::fs::read_to_string(&out_file).expect("the solution file");
            let sol: Value = serde_json::from_str(&text).expect("JSON");
            let Problem::GlobalFc3d(p) = read_problem(&path, None).expect("readable") else {
                panic!("{file}: not gfc3d")
            };
            let (r, u, gv) =
                (numbers(&sol["vectors"]["r"]), numbers(&sol["vectors"]["u"]), numbers(&sol["vectors"]["v"]));
            assert_eq!((r.len(), u.len(), gv.len()), (p.size(), p.size(), p.velocity_size()));
            let mut u2 = vec![0.0; p.size()];
            let err = p.compute_error(&r, &mut u2, &gv).expect("sizes match");
            assert!(err <= 1e-8, "{file} {solver}: error {err} of the written solution");
        }
    }
    let path = data.join("siconos/gfc3d/GFC3D_TwoRods1.dat");
    let out = run(&["solve", str_path(&path), "--solver", "nope"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("global-nsn-ac, admm"), "{}", stderr(&out));
    let out = run(&["solve", str_path(&shipped("pile_fc3d.dat")), "--solver", "admm"]);
    assert_eq!(code(&out), 2, "admm is not an FC3D solver: {}", stderr(&out));
}
