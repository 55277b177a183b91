//! The command-line tool on hostile input: bad paths and files, bad options, a closed or full
//! standard output, unsupported problem types, runs too large to finish. Every case checks the
//! exit code the README promises (0 converged or described, 1 not converged, 2 bad input or a
//! refused run) and that no output shows a panic.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use nonsmooth::numerics::fc::{Fc2dMethod, Fc3dMethod};
use nonsmooth::numerics::lcp::LcpMethod;
use nonsmooth::numerics::mlcp::MlcpMethod;
use nonsmooth::numerics::relay::RelayMethod;

use common::{
    assert_no_panic, code, data_dir, json_line, run, shipped, spawn_piped, stderr, stdout, str_path, temp_dir,
};

/// Runs `nonsmooth args` and checks its exit code and that it did not panic; `expected_error`,
/// when given, must appear on stderr (which then starts with `error: `).
fn expect(args: &[&str], expected_code: i32, expected_error: Option<&str>) -> Output {
    let out = run(args);
    let what = args.join(" ");
    assert_no_panic(&out, &what);
    assert_eq!(code(&out), expected_code, "{what}: stdout {} stderr {}", stdout(&out), stderr(&out));
    if let Some(text) = expected_error {
        let err = stderr(&out);
        assert!(err.starts_with("error: ") && err.contains(text), "{what}: expected {text:?} in {err}");
    }
    out
}

/// Writes `bytes` to `dir/name`.
fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("cannot write the test file");
    path
}

/// One diagonal FC3D block of a Siconos `GenericMechanicalProblem` file: a sparse-block `M`
/// (3 × 3, one block), `q`, then the block's type and friction coefficient.
const GENERIC_MECHANICAL: &str = "1\n3\n3\n1\n1\n1\n3\n3\n2\n1\n0 1\n0\n0\n\
    1.87 -0.33 -0.54 -0.33 1.56 -0.38 -0.54 -0.38 1.46\n-1.3e-4 -0.14 -3.9e-3\n4\n0.1\n";

#[test]
fn unreadable_paths_exit_with_2() {
    let dir = temp_dir("cli_hostile", "paths");
    let missing = dir.join("missing.dat");
    for command in ["solve", "info"] {
        expect(&[command, str_path(&missing)], 2, Some("missing.dat"));
        expect(&[command, str_path(&dir)], 2, Some("error"));
    }
    expect(&["convert", str_path(&missing), str_path(&dir.join("out.dat"))], 2, Some("missing.dat"));
    // A folder as the output of a conversion.
    let lcp = shipped("pile_lcp.dat");
    expect(&["convert", str_path(&lcp), str_path(&dir)], 2, None);
}

#[test]
fn malformed_files_exit_with_2() {
    let dir = temp_dir("cli_hostile", "malformed");
    let lcp = std::fs::read(shipped("pile_lcp.dat")).expect("the shipped LCP");
    let huge = i32::MAX;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty.dat", Vec::new()),
        ("blank.dat", b" \n\t\n".to_vec()),
        ("binary.dat", (0..=255u8).cycle().take(4096).collect()),
        ("truncated.dat", lcp[..lcp.len() / 2].to_vec()),
        ("nan.dat", b"2\n0\n2\n2\n2 2\n1 0 0 1\nnan -1\n".to_vec()),
        ("inf.dat", b"2\n0\n2\n2\n2 2\n1 0 0 inf\n-1 -1\n".to_vec()),
        ("huge_lcp.dat", format!("{huge}\n0\n{huge}\n{huge}\n{huge} {huge}\n1 2 3\n").into_bytes()),
        ("huge_sparse_block.dat", format!("{huge}\n1\n{huge}\n{huge}\n{huge}\n{huge} {huge}\n0 1\n").into_bytes()),
        ("huge_fc3d.dat", format!("3\n{}\n0\n{huge}\n{huge}\n{huge} {huge}\n1\n", huge / 3).into_bytes()),
        ("negative.dat", b"-3\n0\n-3\n-3\n-3 -3\n1\n".to_vec()),
        ("fractional.dat", b"2.5\n0\n2\n2\n2 2\n1 0 0 1\n-1 -1\n".to_vec()),
    ];
    for (name, bytes) in cases {
        let path = write(&dir, name, &bytes);
        for command in ["solve", "info"] {
            expect(&[command, str_path(&path)], 2, Some("error"));
        }
        expect(&["convert", str_path(&path), str_path(&dir.join("out.dat"))], 2, Some("error"));
    }
}

/// Huge declared sizes in tiny files are refused without reserving the memory they declare:
/// the reader runs under a 1 GB address-space limit.
#[cfg(target_os = "linux")]
#[test]
fn huge_declared_sizes_need_no_memory() {
    let dir = temp_dir("cli_hostile", "huge");
    let huge = i32::MAX;
    let path = write(&dir, "huge.dat", format!("{huge}\n0\n{huge}\n{huge}\n{huge} {huge}\n1 2 3\n").as_bytes());
    let script =
        format!("ulimit -v 1000000; exec \"{}\" info \"{}\"", env!("CARGO_BIN_EXE_nonsmooth"), str_path(&path));
    let out = Command::new("sh").args(["-c", &script]).output().expect("cannot run sh");
    assert_no_panic(&out, "info on a huge declared size");
    assert_eq!(code(&out), 2, "stderr {}", stderr(&out));
}

#[test]
fn bad_options_exit_with_2_naming_the_option() {
    let lcp = shipped("pile_lcp.dat");
    let file = str_path(&lcp);
    expect(&["solve", file, "--solver", "simplex"], 2, Some("unknown solver 'simplex'"));
    for tolerance in ["-1", "0", "nan", "-inf"] {
        expect(&["solve", file, "--tolerance", tolerance], 2, Some("tolerance"));
        expect(&["solve", file, &format!("--tolerance={tolerance}")], 2, Some("tolerance"));
    }
    for n in ["0", "-3", "x", "1.5", ""] {
        expect(&["solve", file, "--max-iterations", n], 2, Some("--max-iterations"));
        expect(&["solve", file, "--repeat", n], 2, Some("--repeat"));
    }
    expect(&["solve", file, "--max-dense-bytes", "-1"], 2, Some("--max-dense-bytes"));
    expect(&["solve", file, "--type", "generic"], 2, Some("--type"));
    expect(&["solve", file, "--no-such-option"], 2, Some("--no-such-option"));
    expect(&["solve"], 2, Some("FILE"));
    expect(&["frobnicate"], 2, Some("frobnicate"));
    // Help and version are not errors.
    let out = expect(&["--help"], 0, None);
    assert!(stdout(&out).contains("solve"));
    expect(&["--version"], 0, None);
}

/// A problem file of each family (the collection's when present) with its solver names.
fn families() -> Vec<(String, PathBuf, Vec<&'static str>)> {
    let mut families = vec![
        ("lcp".to_owned(), shipped("pile_lcp.dat"), LcpMethod::NAMES.to_vec()),
        ("fc2d".to_owned(), shipped("pile_fc2d.dat"), Fc2dMethod::NAMES.to_vec()),
        ("fc3d".to_owned(), shipped("pile_fc3d.dat"), Fc3dMethod::NAMES.to_vec()),
    ];
    if let Some(data) = data_dir() {
        let siconos = data.join("siconos");
        families.extend([
            ("mlcp".to_owned(), siconos.join("mlcp/m3n2_mlcp.dat"), MlcpMethod::NAMES.to_vec()),
            ("relay".to_owned(), siconos.join("relay/relay_2x2.dat"), RelayMethod::NAMES.to_vec()),
            (
                "gfc3d".to_owned(),
                siconos.join("gfc3d/GFC3D_OneContact.dat"),
                Fc3dMethod::NAMES.iter().copied().chain(["global-nsn-ac", "admm"]).collect(),
            ),
            (
                "gfc2d".to_owned(),
                siconos.join("gfc2d/gfc2d_granularflowonwall_00000_00117.dat"),
                Fc2dMethod::NAMES.to_vec(),
            ),
        ]);
    }
    families
}

/// `--max-iterations 0` is refused the same way by every solver of every family (exit 2, the
/// option named), and `--max-iterations 1` is accepted by each (exit 0 or 1).
#[test]
fn max_iterations_zero_is_refused_by_every_solver() {
    for (family, path, names) in families() {
        for name in names {
            let file = str_path(&path);
            expect(&["solve", file, "--solver", name, "--max-iterations", "0"], 2, Some("--max-iterations"));
            let out = run(&["solve", file, "--solver", name, "--max-iterations", "1", "--json"]);
            let what = format!("{family} {name} --max-iterations 1");
            assert_no_panic(&out, &what);
            assert!(matches!(code(&out), 0 | 1), "{what}: stdout {} stderr {}", stdout(&out), stderr(&out));
            let v = json_line(&out);
            assert_eq!(v["problem"], family.as_str(), "{what}");
            assert!(v["iterations"].as_u64().is_some_and(|k| k <= 5), "{what}: {v}");
        }
    }
}

#[test]
fn generic_mechanical_files_are_solved_and_bad_laws_named() {
    let dir = temp_dir("cli_hostile", "generic_mechanical");
    let path = write(&dir, "gmp.dat", GENERIC_MECHANICAL.as_bytes());
    expect(&["solve", str_path(&path)], 0, None);
    expect(&["info", str_path(&path)], 0, None);
    // A relay law (Siconos type 9) has no bounds in the file: refused, named.
    let relay = write(&dir, "law9.dat", GENERIC_MECHANICAL.replace("4\n0.1\n", "9\n").as_bytes());
    expect(
        &["solve", str_path(&relay)],
        2,
        Some("unsupported law of block 0 of a mixed problem: Siconos type 9 (RELAY)"),
    );
}

/// Spawns `nonsmooth args` with its standard output a pipe whose reading end is closed at
/// once: every write of the report meets a broken pipe.
fn run_with_closed_stdout(args: &[&str]) -> Output {
    let mut child = spawn_piped(args);
    drop(child.stdout.take());
    let mut err = Vec::new();
    child.stderr.take().expect("stderr is piped").read_to_end(&mut err).expect("cannot read stderr");
    let status = child.wait().expect("the child runs");
    Output { status, stdout: Vec::new(), stderr: err }
}

/// A closed standard output ends the report quietly: the exit code is the command's own (0
/// described or converged, 1 not converged) and nothing is printed on stderr.
#[test]
fn a_broken_pipe_ends_quietly_with_the_commands_exit_code() {
    let lcp = shipped("pile_lcp.dat");
    let file = str_path(&lcp);
    let cases: [(&[&str], i32); 6] = [
        (&["info", file], 0),
        (&["info", file, "--json"], 0),
        (&["solve", file], 0),
        (&["solve", file, "--json"], 0),
        (&["solve", file, "--solver", "pgs", "--max-iterations", "1", "--tolerance", "1e-300"], 1),
        (&["--help"], 0),
    ];
    for (args, expected) in cases {
        let out = run_with_closed_stdout(args);
        let what = format!("{} | (closed)", args.join(" "));
        assert_no_panic(&out, &what);
        assert_eq!(code(&out), expected, "{what}: stderr {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{what}: {}", stderr(&out));
    }
    // The shell form: a reader that stops after one byte.
    let script = format!("\"{}\" info \"{file}\" | head -c 1 > /dev/null", env!("CARGO_BIN_EXE_nonsmooth"));
    let out = Command::new("sh").args(["-c", &script]).output().expect("cannot run sh");
    assert_no_panic(&out, "info | head -c 1");
    assert_eq!(code(&out), 0, "stderr {}", stderr(&out));
}

/// A full disk on standard output is an error: exit 2 and a message on stderr.
#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_exits_with_2() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        println!("skipped: no /dev/full");
        return;
    };
    let dir = temp_dir("cli_hostile", "full");
    let lcp = shipped("pile_lcp.dat");
    let file = str_path(&lcp);
    let converted = dir.join("pile.dat");
    let cases: [&[&str]; 5] = [
        &["info", file],
        &["info", file, "--json"],
        &["solve", file],
        &["solve", file, "--json"],
        &["convert", file, str_path(&converted)],
    ];
    for args in cases {
        let stdout = full.try_clone().expect("cannot share /dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_nonsmooth"))
            .args(args)
            .stdout(stdout)
            .output()
            .expect("cannot run the nonsmooth binary");
        let what = format!("{} > /dev/full", args.join(" "));
        assert_no_panic(&out, &what);
        assert_eq!(code(&out), 2, "{what}: stderr {}", stderr(&out));
        assert!(stderr(&out).starts_with("error: cannot write to standard output"), "{what}: {}", stderr(&out));
    }
    // The solution file on a full disk.
    expect(&["solve", file, "--output", "/dev/full"], 2, Some("--output /dev/full"));
}

/// An enumeration whose worst case is too long is refused up front, naming the other solvers;
/// `--max-iterations` bounds it and lets it run.
#[test]
fn a_too_large_enumeration_is_refused_up_front() {
    let dir = temp_dir("cli_hostile", "enumeration");
    // A 40 × 40 LCP (identity, q = −1): 2^40 cases at most.
    let n = 40;
    let mut text = format!("{n}\n0\n{n}\n{n}\n{n} {n}\n");
    for j in 0..n {
        let column: Vec<&str> = (0..n).map(|i| if i == j { "1" } else { "0" }).collect();
        text.push_str(&column.join(" "));
        text.push('\n');
    }
    text.push_str(&vec!["-1"; n].join(" "));
    text.push('\n');
    let path = write(&dir, "identity40.dat", text.as_bytes());
    let file = str_path(&path);
    expect(&["solve", file, "--solver", "enum"], 2, Some("use --solver lemke"));
    expect(&["solve", file, "--solver", "enum", "--max-iterations", "10"], 0, None);
    expect(&["solve", file], 0, None);
}

/// The default MLCP solver is the enumeration when it is small, Lemke on the Schur complement
/// when it is not; when neither can run the default refuses up front with the reason.
#[test]
fn the_default_mlcp_solver_scales() {
    let Some(data) = data_dir() else { return };
    let mlcp = data.join("siconos/mlcp");
    for (name, solver) in [("m3n2_mlcp.dat", "enum"), ("Buck2_mlcp.dat", "enum"), ("deltasigma_mlcp.dat", "lemke")] {
        let out = expect(&["solve", str_path(&mlcp.join(name)), "--json"], 0, None);
        assert_eq!(json_line(&out)["solver"], solver, "{name}");
    }
    let bridge = mlcp.join("diodeBridge40_mlcp.dat");
    let out = expect(&["solve", str_path(&bridge)], 2, Some("singular"));
    assert!(stderr(&out).contains("2^40") && stderr(&out).contains("--max-iterations"), "{}", stderr(&out));
    expect(&["solve", str_path(&bridge), "--solver", "enum"], 2, Some("MLCP enumeration refused"));
}

/// The default FC2D solver on the 7002-contact problem within a 4 GB address space: the dense
/// conversions the limits refuse are never attempted.
#[cfg(target_os = "linux")]
#[test]
fn fc2d_7002_contacts_fit_in_4_gb() {
    let Some(data) = data_dir() else { return };
    let path = data.join("siconos/fc2d/fc2d_granularflowonwall_07002_00801.dat");
    let bin = env!("CARGO_BIN_EXE_nonsmooth");
    for (solver, expected) in [("nsgs", 0), ("lemke", 2)] {
        let script = format!("ulimit -v 4000000; exec \"{bin}\" solve \"{}\" --solver {solver}", str_path(&path));
        let out = Command::new("sh").args(["-c", &script]).output().expect("cannot run sh");
        assert_no_panic(&out, solver);
        assert_eq!(code(&out), expected, "{solver}: stdout {} stderr {}", stdout(&out), stderr(&out));
    }
}

/// Runs `nonsmooth args`, killed after `limit`; gives the output and the wall time, or `None`
/// when the run was killed.
fn run_with_deadline(args: &[&str], limit: std::time::Duration) -> Option<(Output, std::time::Duration)> {
    let start = std::time::Instant::now();
    let mut child = spawn_piped(args);
    loop {
        if child.try_wait().expect("the child runs").is_some() {
            let elapsed = start.elapsed();
            return Some((child.wait_with_output().expect("the child's output"), elapsed));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// The default solver of every family ends on every file of the Siconos collection (`.dat` and
/// `.hdf5`) in under 30 s (checked in optimized builds; a debug build only has to end within
/// 60 s), converged or not, or refuses it up front: exit 2 only for the files listed here, with
/// their reason.
#[test]
fn the_default_solvers_end_on_every_collection_file() {
    let Some(data) = data_dir() else { return };
    let refused = [
        ("mlcp/Rectangular_mlcp.dat", "rectangular MLCP"),
        ("mlcp/diodeBridge40_mlcp.dat", "no default MLCP solver fits"),
    ];
    let mut files = Vec::new();
    for folder in std::fs::read_dir(data.join("siconos")).expect("the collection folder").filter_map(Result::ok) {
        let Ok(entries) = std::fs::read_dir(folder.path()) else { continue };
        files.extend(
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "dat" || e == "hdf5")),
        );
    }
    files.sort();
    assert!(files.len() >= 90, "the collection has {} files", files.len());
    let limit = if cfg!(debug_assertions) { 60.0 } else { 30.0 };
    for file in &files {
        let name = file
            .strip_prefix(data.join("siconos"))
            .map_or_else(|_| file.display().to_string(), |p| p.to_string_lossy().into_owned());
        let Some((out, elapsed)) = run_with_deadline(&["solve", str_path(file)], std::time::Duration::from_secs(60))
        else {
            panic!("{name}: still running after 60 s");
        };
        assert_no_panic(&out, &name);
        assert!(elapsed.as_secs_f64() < limit, "{name}: {:.1} s", elapsed.as_secs_f64());
        let expected = refused.iter().find(|(f, _)| *f == name).map(|(_, reason)| *reason);
        match expected {
            Some(reason) => {
                assert_eq!(code(&out), 2, "{name}: stdout {} stderr {}", stdout(&out), stderr(&out));
                assert!(stderr(&out).contains(reason), "{name}: {}", stderr(&out));
            }
            None => assert!(matches!(code(&out), 0 | 1), "{name}: stdout {} stderr {}", stdout(&out), stderr(&out)),
        }
    }
}
