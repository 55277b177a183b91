//! `nonsmooth solve` on mixed mechanical problems (Siconos' `GenericMechanicalProblem` files):
//! a hand-made file that always runs, and with the reference data the Siconos files, each to
//! Siconos 4.4's status and sweep count.

mod common;

use common::{code, data_dir, json_line, run, stderr, stdout, str_path, temp_dir};

/// One equality block (2 unknowns, `M = 2 I`), then one FC3D contact (`M = I`, `μ = 0.5`)
/// coupled to the first unknown through its normal row: `z = (−1, 2, 2, −0.1, −0.2)`.
const MIXED: &str = "1\n5\n5\n3\n2\n2\n2 5\n2 5\n3\n3\n0 1 3\n0 0 1\n\
    0\n2 0 0 2\n1\n1 0 0 0 0 0\n2\n1 0 0 0 1 0 0 0 1\n\
    2 -4 -1 0.1 0.2\n2\n4\n0.5\n";

#[test]
fn a_mixed_problem_is_solved() {
    let dir = temp_dir("cli_gmp", "mixed");
    let path = dir.join("mixed.dat");
    std::fs::write(&path, MIXED).expect("cannot write the test file");
    let out = run(&["solve", str_path(&path), "--json", "--tolerance", "1e-12"]);
    assert_eq!(code(&out), 0, "stdout {} stderr {}", stdout(&out), stderr(&out));
    let v = json_line(&out);
    assert_eq!(v["problem"], "gmp");
    assert_eq!(v["solver"], "nsgs");
    assert_eq!(v["status"], "converged");
    assert!(v["residual"].as_f64().is_some_and(|r| r <= 1e-12), "{v}");
    // ‖z‖ = ‖(−1, 2, 2, −0.1, −0.2)‖.
    let expected = (1.0f64 + 4.0 + 4.0 + 0.01 + 0.04).sqrt();
    assert!(v["norms"]["z"].as_f64().is_some_and(|n| (n - expected).abs() < 1e-12), "{v}");
    let out = run(&["solve", str_path(&path), "--solver", "lemke"]);
    assert_eq!(code(&out), 2, "stderr {}", stderr(&out));
    assert!(stderr(&out).contains("unknown solver 'lemke' for gmp problems"), "{}", stderr(&out));
}

#[test]
fn siconos_generic_mechanical_files_are_solved() {
    let Some(data) = data_dir() else { return };
    let folder = data.join("siconos/genericmechanical");
    // Siconos 4.4 (gmp_driver, default options): converged and sweeps.
    for (name, exit, sweeps) in [
        ("GMP0.dat", 0, 6),
        ("GMP1.dat", 0, 43),
        ("GMP2.dat", 0, 16),
        ("GMP3.dat", 0, 172),
        ("GMP4.dat", 0, 1),
        ("GMP5.dat", 0, 8074),
        ("GMP6.dat", 1, 10000),
    ] {
        let path = folder.join(name);
        let out = run(&["solve", str_path(&path), "--json"]);
        assert_eq!(code(&out), exit, "{name}: stdout {} stderr {}", stdout(&out), stderr(&out));
        let v = json_line(&out);
        assert_eq!(v["problem"], "gmp", "{name}");
        assert_eq!(v["iterations"], sweeps, "{name}: {v}");
    }
}
