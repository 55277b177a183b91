//! What the command-line tests share: running the `nonsmooth` binary, reading its output, test
//! folders and the reference data folder.
#![allow(dead_code)] // each test binary uses a part of it

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

/// A fresh folder under cargo's temporary directory for the test `test` of the binary `binary`
/// (a leftover folder from an earlier run is replaced).
pub(crate) fn temp_dir(binary: &str, test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(binary).join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("cannot create the test folder");
    dir
}

/// Runs `nonsmooth` with `args`.
pub(crate) fn nonsmooth<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nonsmooth")).args(args).output().expect("cannot run the nonsmooth binary")
}

/// Starts `nonsmooth args` with its standard output and error as pipes.
pub(crate) fn spawn_piped(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_nonsmooth"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run the nonsmooth binary")
}

/// Runs `nonsmooth` with UTF-8 `args`.
pub(crate) fn run(args: &[&str]) -> Output {
    nonsmooth(args)
}

/// The exit code (the process was not killed by a signal).
pub(crate) fn code(out: &Output) -> i32 {
    out.status.code().expect("the process exited (not killed by a signal)")
}

/// Standard output as text.
pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard error as text.
pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The one JSON line of a `--json` run.
pub(crate) fn json_line(out: &Output) -> Value {
    let text = stdout(out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "expected exactly one line, got {text:?} (stderr {:?})", stderr(out));
    serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("not JSON ({e}): {}", lines[0]))
}

/// `p` as UTF-8 (test paths are).
pub(crate) fn str_path(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

/// The reference data folder (`NONSMOOTH_DATA`, or `../shared/data` from the workspace root),
/// or `None` after printing one line.
pub(crate) fn data_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("NONSMOOTH_DATA") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: reference data not found at {} (set NONSMOOTH_DATA)", dir.display());
        None
    }
}

/// The path of a problem file shipped with the facade crate (`crates/nonsmooth/data`).
pub(crate) fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nonsmooth/data").join(name)
}

/// Asserts that neither output stream of `out` shows a panic (`panicked`, or the hint to set
/// `RUST_BACKTRACE`); `what` names the run in the failure message.
pub(crate) fn assert_no_panic(out: &Output, what: &str) {
    for (stream, text) in [("stdout", stdout(out)), ("stderr", stderr(out))] {
        assert!(
            !text.contains("panicked") && !text.contains("RUST_BACKTRACE"),
            "{what}: {stream} shows a panic: {text}"
        );
    }
}
