//! `nonsmooth`: the command-line tool.
//!
//! - `nonsmooth solve FILE [--solver NAME] [--tolerance T] [--max-iterations N] [--json] [--type KIND]`
//!   reads a Siconos problem file and solves it;
//! - `nonsmooth info FILE [--type KIND] [--json]` describes the problem and its matrices;
//! - `nonsmooth convert IN OUT [--type KIND]` copies a problem between Siconos `.dat` and FCLIB
//!   (`.hdf5`, `.h5`) files, the formats chosen by the extensions.
//!
//! Exit codes: 0 converged (or `info` succeeded), 1 not converged, 2 bad input (unreadable or
//! malformed file, unknown solver or type, invalid option, a problem type without a solver yet).

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
    /// Solve the problem of FILE and report status, iterations, residual and solve time.
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
    /// The problem file (Siconos `.dat`).
    file: PathBuf,
    /// The solver (LCP: lemke, pgs, psor, enum, newton-fb, newton-min, default lemke; FC3D: nsgs, nsgs-projection, default nsgs; FC2D: nsgs, nsgs-dense, lemke, default nsgs).
    #[arg(long)]
    solver: Option<String>,
    /// Tolerance on the problem's error measure (default: the solver's).
    #[arg(long, allow_negative_numbers = true)]
    tolerance: Option<f64>,
    /// Iteration cap (default: the solver's).
    #[arg(long)]
    max_iterations: Option<usize>,
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
