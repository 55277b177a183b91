//! `nonsmooth`: the command-line tool.
//!
//! - `nonsmooth solve FILE [--solver NAME] [--tolerance T] [--max-iterations N] [--repeat N]
//!   [--output OUT] [--max-dense-bytes B] [--json] [--type KIND]` reads a problem file, solves it
//!   once (N times with `--repeat`, reporting the shortest and the median time), prints a summary
//!   of the solution and writes it to OUT (a JSON layout naming the vectors, see [`solve`]);
//! - `nonsmooth info FILE [--type KIND] [--json]` describes the problem and its matrices;
//! - `nonsmooth convert IN OUT [--type KIND]` copies a problem between Siconos `.dat` and FCLIB
//!   (`.hdf5`, `.h5`) files, the formats chosen by the extensions.
//!
//! Exit codes: 0 converged (or `info` succeeded), 1 not converged, 2 bad input (unreadable or
//! malformed file, unknown solver or type, invalid option, an unwritable `--output`, a dense
//! conversion above `--max-dense-bytes`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use nonsmooth::numerics::io::ProblemKind;

mod convert;
mod info;
mod solve;

/// Solve and inspect one-step nonsmooth problems stored in Siconos `.dat` files.
#[derive(Debug, Parser)]
#[command(name = "nonsmooth", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Solve the problem of FILE: report status, iterations, residual, solve time and a summary of
    /// the solution, and write the solution with --output.
    Solve(SolveArgs),
    /// Describe the problem of FILE: type, sizes, and the storage of each matrix.
    Info(InfoArgs),
    /// Convert IN to OUT between Siconos `.dat` and FCLIB `.hdf5`/`.h5`, by their extensions.
    Convert(ConvertArgs),
}

/// Arguments of `nonsmooth convert`.
#[derive(Debug, clap::Args)]
struct ConvertArgs {
    /// The problem file to read (`.dat`, `.hdf5` or `.h5`).
    input: PathBuf,
    /// The file to write (`.dat`, `.hdf5` or `.h5`; FCLIB holds frictional contact problems only).
    output: PathBuf,
    /// The problem type of IN, instead of detecting it from the file.
    #[arg(long = "type", value_name = "KIND", value_parser = clap::builder::PossibleValuesParser::new(KIND_NAMES))]
    kind: Option<String>,
}

/// Arguments of `nonsmooth solve`.
#[derive(Debug, clap::Args)]
struct SolveArgs {
    /// The problem file (Siconos `.dat`, or FCLIB `.hdf5`/`.h5`).
    file: PathBuf,
    /// The solver (LCP: lemke, pgs, psor, enum, newton-fb, newton-min, bpp, default lemke; MLCP:
    /// enum, pgs, lemke, default enum; relay: lemke, pgs, default lemke; FC3D and GFC3D: nsgs,
    /// nsgs-projection, nsgs-quartic, nsn-ac, prox, default nsgs; FC2D and GFC2D: nsgs,
    /// nsgs-dense, lemke, default nsgs).
    #[arg(long)]
    solver: Option<String>,
    /// Tolerance on the problem's error measure (default: the solver's).
    #[arg(long, allow_negative_numbers = true)]
    tolerance: Option<f64>,
    /// Iteration cap (default: the solver's).
    #[arg(long)]
    max_iterations: Option<usize>,
    /// Solve N times, each from a zero start, and report the shortest and the median time.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    repeat: usize,
    /// Write the solution to OUT: a JSON object whose "vectors" holds `z`, `w` (LCP, MLCP,
    /// relay), `r`, `u` (FC2D, FC3D) or `r`, `u`, `v` (global problems). The path is checked
    /// before the solve.
    #[arg(long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Largest dense matrix, in bytes, a solver may build from sparse data (the LCP
    /// reformulations of FC2D and relay problems, dense Delassus matrices, Lemke and the
    /// enumeration on sparse matrices); above it the run fails and names the sparse solver to use
    /// (default: 1073741824, 1 GiB).
    #[arg(long, value_name = "BYTES")]
    max_dense_bytes: Option<u64>,
    /// Print exactly one JSON line instead of the human report.
    #[arg(long)]
    json: bool,
    /// The problem type, instead of detecting it from the file.
    #[arg(long = "type", value_name = "KIND", value_parser = clap::builder::PossibleValuesParser::new(KIND_NAMES))]
    kind: Option<String>,
}

/// Arguments of `nonsmooth info`.
#[derive(Debug, clap::Args)]
struct InfoArgs {
    /// The problem file (Siconos `.dat`).
    file: PathBuf,
    /// Print exactly one JSON line instead of the human report.
    #[arg(long)]
    json: bool,
    /// The problem type, instead of detecting it from the file.
    #[arg(long = "type", value_name = "KIND", value_parser = clap::builder::PossibleValuesParser::new(KIND_NAMES))]
    kind: Option<String>,
}

/// The names `--type` accepts, as `ProblemKind::as_str` spells them.
const KIND_NAMES: [&str; 7] = ["lcp", "mlcp", "relay", "fc2d", "fc3d", "gfc2d", "gfc3d"];

/// The kind named `name` (one of [`KIND_NAMES`], which clap has already checked).
fn kind_from_name(name: Option<&str>) -> Option<ProblemKind> {
    name.and_then(ProblemKind::from_name)
}

/// What a command ends with: its exit code, or a bad-input message for stderr (exit 2).
enum Outcome {
    /// Exit with this code (0 or 1), the report already printed.
    Done(u8),
    /// Bad input: print `error: <message>` on stderr and exit 2.
    BadInput(String),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Solve(args) => solve::run(&args),
        Command::Info(args) => info::run(&args),
        Command::Convert(args) => convert::run(&args),
    };
    match outcome {
        Outcome::Done(code) => ExitCode::from(code),
        Outcome::BadInput(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// A JSON string literal for `s` (quotes and escapes included).
fn json_string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// A JSON number for `x`, or `null` when `x` is not finite (JSON has no NaN or infinity).
fn json_f64(x: f64) -> String {
    serde_json::Value::from(x).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_name_maps_back_to_its_kind() {
        for name in KIND_NAMES {
            let kind = kind_from_name(Some(name)).expect("every listed name is a kind");
            assert_eq!(kind.as_str(), name);
        }
        assert!(kind_from_name(Some("nope")).is_none());
        assert!(kind_from_name(None).is_none());
    }

    #[test]
    fn json_helpers_escape_and_map_non_finite_to_null() {
        assert_eq!(json_string("a\"b"), r#""a\"b""#);
        assert_eq!(json_f64(f64::NAN), "null");
        assert_eq!(json_f64(0.5), "0.5");
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
