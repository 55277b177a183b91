//! The integration tests of nonsmooth-numerics (one binary, one module per area).

mod fc2d_dense;
mod fc2d_lcp;
mod fc_error;
mod fc_factored;
mod fc_local;
mod fc_nsgs;
mod fc_nsgs2d;
mod fc_nsgs_bits;
mod fc_nsgs_parallel;
mod fc_nsn_ac;
mod fc_prox;
mod fc_quartic;
mod fclib;
mod gfc;
mod gfc_solvers;
mod gmp;
mod io;
mod io_limits;
mod lcp_bpp;
mod lcp_collection;
mod lcp_iterative;
mod lcp_pivoting;
mod lcp_problem;
mod matrix;
mod mlcp;
mod quartic;
mod relay;

use std::path::PathBuf;

/// The reference data folder: `NONSMOOTH_DATA`, or `../shared/data` seen from the workspace root.
/// Returns `None` (after printing one line) when the folder is absent, so tests can skip on a
/// user's machine; `.ci/run` sets the variable and checks the folder exists.
pub fn data_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("NONSMOOTH_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: reference data not found at {} (set NONSMOOTH_DATA)", dir.display());
        None
    }
}
