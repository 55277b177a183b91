//! Examples of nonsmooth live in the subfolders of this package (`numerics/`, `kernel/`, ...).
//!
//! The models of the kernel examples are functions of this library (module [`kernel`]), so the
//! example programs and the tests that compare them with the Siconos references run the same
//! code. The command line of each example is an `Args` type of module [`cli`], parsed with
//! `clap`; [`TrajectoryOutput`] is the `--output FILE` / `--siconos` pair they share.

pub mod cli;
pub mod kernel;
pub mod mechanics;

use std::path::PathBuf;

pub use cli::{TrajectoryFile, TrajectoryOutput};

/// The Siconos reference data folder: `$NONSMOOTH_DATA`, or `../shared/data` from the workspace
/// root; `None` (after printing one line) when it is missing.
pub fn data_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("NONSMOOTH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: reference data not found at {} (set NONSMOOTH_DATA)", dir.display());
        None
    }
}
