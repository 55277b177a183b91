//! Tests of the `nonsmooth` command-line tool, run as a process on small problem files written
//! into a temporary folder (and, when present, on the Siconos collection).

mod common;

use std::path::{Path, PathBuf};

use common::{code, data_dir, json_line, nonsmooth, run, stderr, stdout, str_path, temp_dir};

/// Writes an LCP in Siconos' `.dat` layout: `n`, the dense matrix (storage 0, sizes, sizes again,
/// entries column by column), then `q`. `m` is given row by row.
fn write_lcp(dir: &Path, name: &str, m: &[&[f64]], q: &[f64]) -> PathBuf {
    let n = q.len();
    let mut text = format!("{n}\n0\n{n}\n{n}\n{n}\t{n}\n");
    // Column j of M is the row-major input read down its rows.
    let columns = (0..n).map(|j| m.iter().map(|row| format!("{:e}", row[j])).collect::<Vec<_>>().join(" "));
    for column in columns {
        text.push_str(&column);
        text.push('\n');
    }
    let q: Vec<String> = q.iter().map(|v| format!("{v:e}")).collect();
    text.push_str(&q.join(" "));
    text.push('\n');
    let path = dir.join(name);
    std::fs::write(&path, text).expect("cannot write the test problem");
    path
}

/// A well-conditioned 3 × 3 LCP (M symmetric, strictly diagonally dominant, so a P-matrix that
/// every solver handles) whose solution is interior: z = M⁻¹(−q) > 0.
fn easy_lcp(dir: &Path) -> PathBuf {
    write_lcp(dir, "easy.dat", &[&[4.0, 1.0, 0.0], &[1.0, 4.0, 1.0], &[0.0, 1.0, 4.0]], &[-1.0, -2.0, -3.0])
}

#[test]
fn solve_json_has_exactly_the_documented_keys() {
    let dir = temp_dir("cli", "json_keys");
    let file = easy_lcp(&dir);
    let out = run(&["solve", str_path(&file), "--json"]);
    assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
    let v = json_line(&out);
    let obj = v.as_object().expect("a JSON object");
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "file",
            "iterations",
            "norms",
            "output",
            "problem",
            "repeat",
            "residual",
            "size",
            "solve_seconds",
            "solve_seconds_median",
            "solver",
            "status"
        ]
    );
    assert_eq!(v["repeat"], 1, "one run by default");
    assert!(v["output"].is_null());
    let norms = v["norms"].as_object().expect("norms is an object");
    assert!(norms["z"].as_f64().is_some_and(|n| n > 0.0) && norms["w"].as_f64().is_some(), "{norms:?}");
    assert_eq!(v["file"], str_path(&file));
    assert_eq!(v["problem"], "lcp");
    assert_eq!(v["size"], 3);
    assert_eq!(v["solver"], "lemke", "lemke is the default LCP solver");
    assert_eq!(v["status"], "converged");
    assert!(v["iterations"].as_u64().is_some(), "iterations is a count: {}", v["iterations"]);
    let residual = v["residual"].as_f64().expect("residual is a number");
    assert!((0.0..=1e-10).contains(&residual), "residual {residual}");
    let seconds = v["solve_seconds"].as_f64().expect("solve_seconds is a number");
    assert!((0.0..10.0).contains(&seconds), "solve_seconds {seconds}");
}

#[test]
fn every_solver_solves_an_easy_lcp() {
    let dir = temp_dir("cli", "every_solver");
    let file = easy_lcp(&dir);
    for solver in ["lemke", "pgs", "psor", "enum", "newton-fb", "newton-min"] {
        let out = run(&["solve", str_path(&file), "--solver", solver, "--tolerance", "1e-10", "--json"]);
        assert_eq!(code(&out), 0, "{solver}: stdout {} stderr {}", stdout(&out), stderr(&out));
        let v = json_line(&out);
        assert_eq!(v["solver"], solver);
        assert_eq!(v["status"], "converged", "{solver}");
        let residual = v["residual"].as_f64().expect("residual is a number");
        assert!(residual <= 1e-10, "{solver}: residual {residual}");
    }
}

#[test]
fn human_report_names_the_fields() {
    let dir = temp_dir("cli", "human");
    let file = easy_lcp(&dir);
    let out = run(&["solve", str_path(&file), "--solver", "pgs"]);
    assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
    let text = stdout(&out);
    for field in ["file", "problem", "size", "storage", "solver", "status", "iterations", "residual", "solve time"] {
        assert!(text.lines().any(|l| l.starts_with(field)), "no {field:?} line in {text}");
    }
    assert!(text.contains("dense") && text.contains("converged") && text.contains("pgs"), "{text}");
}

#[test]
fn non_convergence_exits_with_1() {
    let dir = temp_dir("cli", "not_converged");
    let file = easy_lcp(&dir);
    // One projected Gauss–Seidel sweep from z = 0 gives z = (1/4, 7/16, 41/64), where
    // w₁ = 4/4 + 7/16 − 1 = 7/16 ≠ 0 while z₁ > 0: far from the tolerance.
    let out = run(&["solve", str_path(&file), "--solver", "pgs", "--max-iterations", "1", "--json"]);
    assert_eq!(code(&out), 1, "stdout {} stderr {}", stdout(&out), stderr(&out));
    let v = json_line(&out);
    assert_ne!(v["status"], "converged");
    let residual = v["residual"].as_f64().expect("residual is a number");
    assert!(residual > 1e-3, "residual {residual}");
}

#[test]
fn missing_file_exits_with_2() {
    let dir = temp_dir("cli", "missing");
    let file = dir.join("does_not_exist.dat");
    for command in ["solve", "info"] {
        let out = run(&[command, str_path(&file)]);
        assert_eq!(code(&out), 2, "{command}");
        assert!(stderr(&out).starts_with("error: "), "{command}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{command}: nothing on stdout");
    }
}

#[test]
fn malformed_files_exit_with_2() {
    let dir = temp_dir("cli", "malformed");
    let cases: [(&str, &[u8]); 4] = [
        ("letters.dat", b"3\n0\n3\n3\n3 3\n1 2 x 4 5 6 7 8 9\n1 2 3\n"),
        ("truncated.dat", b"3\n0\n3\n3\n3 3\n1 2 3 4\n"),
        ("empty.dat", b""),
        ("binary.dat", &[0xff, 0xfe, 0x00, 0x80, 0x0a, 0xc3]),
    ];
    for (name, bytes) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("cannot write the test file");
        for command in ["solve", "info"] {
            let out = run(&[command, str_path(&path)]);
            assert_eq!(code(&out), 2, "{command} {name}: stdout {} stderr {}", stdout(&out), stderr(&out));
            let err = stderr(&out);
            assert!(err.starts_with("error: ") && !err.contains("panicked"), "{command} {name}: {err}");
        }
    }
}

#[cfg(unix)]
#[test]
fn non_utf8_path_exits_with_2() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("cli", "non_utf8");
    let mut bytes = dir.as_os_str().as_bytes().to_vec();
    bytes.extend_from_slice(b"/\xffproblem.dat");
    let path = std::ffi::OsStr::from_bytes(&bytes);
    let out = nonsmooth(&[std::ffi::OsStr::new("solve"), path]);
    assert_eq!(code(&out), 2, "stderr {}", stderr(&out));
}

#[test]
fn unknown_solver_lists_the_valid_names() {
    let dir = temp_dir("cli", "unknown_solver");
    let file = easy_lcp(&dir);
    let out = run(&["solve", str_path(&file), "--solver", "simplex"]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("simplex"), "{err}");
    for name in ["lemke", "pgs", "psor", "enum", "newton-fb", "newton-min"] {
        assert!(err.contains(name), "{name} missing from {err}");
    }
}

#[test]
fn invalid_option_exits_with_2() {
    let dir = temp_dir("cli", "invalid_option");
    let file = easy_lcp(&dir);
    for tolerance in ["-1", "0", "nan"] {
        let out = run(&["solve", str_path(&file), "--solver", "pgs", "--tolerance", tolerance]);
        assert_eq!(code(&out), 2, "tolerance {tolerance}: stdout {} stderr {}", stdout(&out), stderr(&out));
        // The solver's option validation rejects it (not the argument parser).
        assert!(stderr(&out).contains("tolerance"), "tolerance {tolerance}: {}", stderr(&out));
    }
    let out = run(&["solve", str_path(&file), "--type", "not-a-kind"]);
    assert_eq!(code(&out), 2, "an unknown --type is bad input");
}

#[test]
fn info_prints_the_storage() {
    let dir = temp_dir("cli", "info");
    let file = easy_lcp(&dir);
    let out = run(&["info", str_path(&file)]);
    assert_eq!(code(&out), 0, "stderr {}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("lcp") && text.contains("dense") && text.contains("3 × 3"), "{text}");

    let out = run(&["info", str_path(&file), "--json"]);
    assert_eq!(code(&out), 0);
    let v = json_line(&out);
    assert_eq!(v["problem"], "lcp");
    assert_eq!(v["size"], 3);
    let matrices = v["matrices"].as_array().expect("a list of matrices");
    assert_eq!(matrices.len(), 1);
    assert_eq!(matrices[0]["storage"], "dense");
    assert_eq!(matrices[0]["rows"], 3);
    assert_eq!(matrices[0]["nnz"], 9);
}

#[test]
fn info_reads_one_file_of_each_collection_folder() {
    let Some(data) = data_dir() else { return };
    let files = [
        ("lcp", "lcp_exp_murty.dat"),
        ("mlcp", "RCD_mlcp.dat"),
        ("relay", "relay_2x2.dat"),
        ("fc2d", "FC2D_SliderCrankLagrangian00000.dat"),
        ("fc3d", "FC3D_Example1_SBM.dat"),
        ("gfc3d", "GFC3D_Example1.dat"),
    ];
    for (kind, name) in files {
        let path = data.join("siconos").join(kind).join(name);
        let out = run(&["info", str_path(&path), "--type", kind, "--json"]);
        assert_eq!(code(&out), 0, "{kind}/{name}: stderr {}", stderr(&out));
        let v = json_line(&out);
        assert_eq!(v["problem"], kind, "{name}");
        assert!(v["size"].as_u64().is_some_and(|n| n > 0), "{name}: size {}", v["size"]);
        let matrices = v["matrices"].as_array().expect("a list of matrices");
        assert!(!matrices.is_empty(), "{name}: no matrix");
        for m in matrices {
            assert!(m["rows"].as_u64().is_some() && m["storage"].as_str().is_some(), "{name}: {m}");
        }
        if kind == "fc3d" {
            assert_eq!(v["contacts"], 3, "{name}: FC3D_Example1 has three contacts");
            assert_eq!(matrices[0]["storage"], "sparse-block", "{name}");
            assert!(matrices[0]["blocks"].as_u64().is_some_and(|b| b > 0), "{name}: {}", matrices[0]);
        }
        let out = run(&["info", str_path(&path), "--type", kind]);
        assert_eq!(code(&out), 0, "{kind}/{name}");
        let storage = matrices[0]["storage"].as_str().expect("storage is a string");
        assert!(stdout(&out).contains(&format!(", {storage}, ")), "{name}: {}", stdout(&out));
    }
    // Detection without --type on the plain LCP.
    let out = run(&["info", str_path(&data.join("siconos/lcp/lcp_exp_murty.dat")), "--json"]);
    assert_eq!(code(&out), 0, "stderr {}", stderr(&out));
    assert_eq!(json_line(&out)["problem"], "lcp");
}

/// MLCP files are solved by the three MLCP solvers; a solver that cannot apply (PGS on a zero
/// diagonal) exits with 1, an unknown name or a singular `A` for `lemke` with 2.
#[test]
fn mlcp_files_are_solved() {
    let Some(data) = data_dir() else { return };
    let path = data.join("siconos/mlcp/m3n2_mlcp.dat");
    for solver in ["enum", "pgs", "lemke"] {
        let out = run(&["solve", str_path(&path), "--solver", solver, "--tolerance", "1e-8", "--json"]);
        assert_eq!(code(&out), 0, "{solver}: stdout {} stderr {}", stdout(&out), stderr(&out));
        let v = json_line(&out);
        assert_eq!(v["problem"], "mlcp");
        assert_eq!(v["solver"], solver);
        assert_eq!(v["status"], "converged");
        assert!(v["residual"].as_f64().expect("number") <= 1e-8, "{solver}: {v}");
    }
    let buck = data.join("siconos/mlcp/Buck2_mlcp.dat");
    let out = run(&["solve", str_path(&buck), "--type", "mlcp"]);
    assert_eq!(code(&out), 0, "stdout {} stderr {}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("solver      enum") && stdout(&out).contains("converged"), "{}", stdout(&out));
    let out = run(&["solve", str_path(&buck), "--solver", "pgs"]);
    assert_eq!(code(&out), 1, "stdout {} stderr {}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("numerical-breakdown"), "{}", stdout(&out));
    let out = run(&["solve", str_path(&data.join("siconos/mlcp/diodeBridge_mlcp.dat")), "--solver", "lemke"]);
    assert_eq!(code(&out), 2, "stdout {} stderr {}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("singular"), "{}", stderr(&out));
    let out = run(&["solve", str_path(&buck), "--solver", "nope"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("enum, pgs, lemke"), "{}", stderr(&out));
}

/// Relay files are solved by Lemke (the default, on the LCP reformulation) and by PGS, with
/// Siconos' relay error as residual; an unknown solver name exits with 2.
#[test]
fn relay_files_are_solved() {
    let Some(data) = data_dir() else { return };
    let path = data.join("siconos/relay/relay_4x4.dat");
    for solver in ["lemke", "pgs"] {
        let out = run(&["solve", str_path(&path), "--solver", solver, "--tolerance", "1e-8", "--json"]);
        assert_eq!(code(&out), 0, "{solver}: stdout {} stderr {}", stdout(&out), stderr(&out));
        let v = json_line(&out);
        assert_eq!(v["problem"], "relay");
        assert_eq!(v["solver"], solver);
        assert_eq!(v["status"], "converged");
        assert!(v["residual"].as_f64().expect("number") <= 1e-8, "{solver}: {v}");
    }
    let out = run(&["solve", str_path(&path)]);
    assert_eq!(code(&out), 0, "stdout {} stderr {}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("solver      lemke"), "{}", stdout(&out));
    let out = run(&["solve", str_path(&path), "--solver", "nope"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("lemke, pgs"), "{}", stderr(&out));
}

/// Frictional contact files are solved: FC3D by NSGS (three local solvers), NSN-AC and PROX, FC2D
/// by Lemke on the LCP reformulation and by NSGS, FCLIB files as `.dat` ones, global files by
/// condensation (GFC3D with NSGS on the local form, GFC2D with Lemke and NSGS) and on the global
/// form (GFC3D with the global Newton method and ADMM); the residual is
/// the problem's own error measure (global error for global files).
#[test]
fn frictional_contact_files_are_solved() {
    let Some(data) = data_dir() else { return };
    for (file, solver, kind) in [
        ("siconos/fc3d/Rover1039.dat", "nsgs", "fc3d"),
        ("siconos/fc3d/FC3D_Example1_SBM.dat", "nsgs-projection", "fc3d"),
        ("siconos/fc2d/FrictionContactProblem00031.dat", "lemke", "fc2d"),
        ("siconos/fc2d/FrictionContactProblem00031.dat", "nsgs", "fc2d"),
        ("siconos/fc3d/Capsules-i101-404.dat", "nsn-ac", "fc3d"),
        ("siconos/fc3d/Capsules-i122-1617.dat", "prox", "fc3d"),
        ("siconos/fc3d/Rover1040.dat", "nsgs-quartic", "fc3d"),
        ("siconos/fc3d/LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", "prox", "fc3d"),
        ("siconos/gfc3d/Box_Stacks-i0122-82-5.hdf5", "prox", "gfc3d"),
        ("siconos/gfc3d/GFC3D_TwoRods1.dat", "nsgs", "gfc3d"),
        ("siconos/gfc3d/GFC3D_TwoRods1.dat", "global-nsn-ac", "gfc3d"),
        ("siconos/gfc3d/GFC3D_TwoRods1.dat", "admm", "gfc3d"),
        ("siconos/gfc3d/Box_Stacks-i0122-82-5.hdf5", "global-nsn-ac", "gfc3d"),
        ("siconos/gfc2d/gfc2d_granularflowonwall_00069_00350.dat", "lemke", "gfc2d"),
        ("siconos/gfc2d/gfc2d_granularflowonwall_00069_00350.dat", "nsgs", "gfc2d"),
    ] {
        let path = data.join(file);
        let out = run(&["solve", str_path(&path), "--solver", solver, "--tolerance", "1e-8", "--json"]);
        assert_eq!(code(&out), 0, "{file}: stdout {} stderr {}", stdout(&out), stderr(&out));
        let line = json_line(&out);
        assert_eq!(line["problem"], kind);
        assert_eq!(line["solver"], solver);
        assert_eq!(line["status"], "converged");
        assert!(line["residual"].as_f64().expect("a number") <= 1e-8, "{file}: {line}");
    }
    let path = data.join("siconos/fc3d/Rover1039.dat");
    let out = run(&["solve", str_path(&path), "--solver", "lemke"]);
    assert_eq!(code(&out), 2, "lemke is not an fc3d solver");
    assert!(stderr(&out).contains("nsgs"), "{}", stderr(&out));
}
