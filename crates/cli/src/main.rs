//! `nonsmooth`: the command-line tool.
//!
//! - `nonsmooth solve FILE [--solver NAME] [--tolerance T] [--max-iterations N] [--repeat N]
//!   [--output OUT] [--max-dense-bytes B] [--json] [--type KIND]` reads a problem file, solves it
//!   once (N times with `--repeat`, reporting the shortest and the median time), prints a summary
//!   of the solution and writes it to OUT (a JSON layout naming the vectors, see [`solve`]);
//! - `nonsmooth info FILE [--type KIND] [--json]` describes the problem and its matrices;
//! - `nonsmooth convert IN OUT [--type KIND]` copies a problem between Siconos `.dat` and FCLIB
//!   (`.hdf5`, `.h5`) files, the formats chosen by the extensions;
//! - `nonsmooth run SCENE [--out DIR] [--every K] [--no-progress]` runs a scene to its final
//!   time with a progress bar, writes its ParaView series and HDF5 run record, and prints a
//!   summary (see [`run`]; exit 1 when the scene stopped on its own error or steps did not
//!   converge under a failing policy).
//!
//! Exit codes: 0 converged (or `info`/`convert` succeeded), 1 not converged, 2 bad input
//! (unreadable or malformed file, unsupported problem type, unknown solver or type, invalid
//! option, an unwritable `--output`, a dense conversion above `--max-dense-bytes`, an
//! enumeration too large to finish, a failed write to standard output).
//!
//! Standard output is written through checked writes, never `println!`: when its reader goes
//! away (a broken pipe, as in `nonsmooth info F | head -1`) printing stops quietly and the exit
//! code is the one the command would have had; any other write error (a full disk) is an
//! `error:` line on standard error and exit 2. Nothing here panics on bad input.

#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use nonsmooth::numerics::io::ProblemKind;

mod convert;
mod info;
mod run;
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
    /// Run the scene of SCENE to its final time: a progress bar, the ParaView series and the
    /// HDF5 run record in the output folder, and a summary (steps, convergence, time by phase).
    Run(RunArgs),
}

/// Arguments of `nonsmooth run`.
#[derive(Debug, clap::Args)]
struct RunArgs {
    /// The scene file.
    scene: PathBuf,
    /// The output folder (created when missing), instead of the scene file's.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write the outputs every K steps (and at the last step), instead of the scene file's.
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = at_least_one)]
    every: Option<usize>,
    /// No progress bar (it is also hidden when standard error is not a terminal).
    #[arg(long)]
    no_progress: bool,
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
    /// enum, pgs, lemke, default enum, or lemke when the enumeration would try more than 2^35 /
    /// (n + m)^3 cases; relay: lemke, pgs, default lemke; FC3D and GFC3D: nsgs, nsgs-projection,
    /// nsgs-quartic, nsn-ac, prox, default nsgs (on GFC3D files these solve the condensed local
    /// problem); GFC3D also global-nsn-ac and admm (on the global form); FC2D and GFC2D: nsgs,
    /// nsgs-dense, lemke, default nsgs). An enumeration that large is refused unless
    /// --max-iterations bounds it.
    #[arg(long)]
    solver: Option<String>,
    /// Tolerance on the problem's error measure, positive (default: the solver's).
    #[arg(long, allow_hyphen_values = true)]
    tolerance: Option<f64>,
    /// Iteration cap, at least 1: sweeps, pivots, Newton steps or enumerated cases (default: the
    /// solver's).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_one)]
    max_iterations: Option<usize>,
    /// Solve N times, each from a zero start, and report the shortest and the median time.
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true, value_parser = at_least_one)]
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
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true)]
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

/// Parses a count that must be at least 1 (`--max-iterations`, `--repeat`): 0 is refused the
/// same way for every solver.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{e} (expected a whole number, at least 1)")),
    }
}

/// The names `--type` accepts, as `ProblemKind::as_str` spells them.
const KIND_NAMES: [&str; 8] = ["lcp", "mlcp", "relay", "fc2d", "fc3d", "gfc2d", "gfc3d", "gmp"];

/// The kind named `name` (one of [`KIND_NAMES`], which clap has already checked).
fn kind_from_name(name: Option<&str>) -> Option<ProblemKind> {
    name.and_then(ProblemKind::from_name)
}

/// Exit code of a converged solve and of a successful `info` or `convert`.
const EXIT_OK: u8 = 0;
/// Exit code of a solve that did not converge.
const EXIT_NOT_CONVERGED: u8 = 1;
/// Exit code of bad input, of a refused run and of a failed write to standard output.
const EXIT_BAD_INPUT: u8 = 2;

/// What a command ends with: its exit code, a bad-input message for stderr (exit 2), or the
/// error that stopped its report.
#[derive(Debug)]
enum Outcome {
    /// Exit with this code (0 or 1), the report printed.
    Done(u8),
    /// Bad input: print `error: <message>` on stderr and exit 2.
    BadInput(String),
    /// Writing the report to standard output failed; `code` is the exit code the command had
    /// otherwise (kept when the reader went away, replaced by 2 for another error).
    WriteFailed {
        /// The command's exit code had the report been written.
        code: u8,
        /// The write error.
        error: std::io::Error,
    },
}

impl Outcome {
    /// `Done(code)` when the report was written, `WriteFailed` otherwise.
    fn printed(result: std::io::Result<()>, code: u8) -> Outcome {
        match result {
            Ok(()) => Outcome::Done(code),
            Err(error) => Outcome::WriteFailed { code, error },
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    let mut stdout = std::io::stdout().lock();
    let outcome = match cli.command {
        Command::Solve(args) => solve::run(&args, &mut stdout),
        Command::Info(args) => info::run(&args, &mut stdout),
        Command::Convert(args) => convert::run(&args, &mut stdout),
        Command::Run(args) => run::run(&args, &mut stdout),
    };
    // The report may still sit in the buffer: its write errors are the command's.
    let outcome = match outcome {
        Outcome::Done(code) => Outcome::printed(stdout.flush(), code),
        other => other,
    };
    ExitCode::from(exit_code(outcome))
}

/// The exit code of `outcome`, after printing its error, if any, on standard error.
fn exit_code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Done(code) => code,
        Outcome::BadInput(message) => {
            print_error(&message);
            EXIT_BAD_INPUT
        }
        // The reader of standard output went away (`| head`): a normal end.
        Outcome::WriteFailed { code, error } if error.kind() == std::io::ErrorKind::BrokenPipe => code,
        Outcome::WriteFailed { error, .. } => {
            print_error(&format!("cannot write to standard output: {error}"));
            EXIT_BAD_INPUT
        }
    }
}

/// Prints `error: <message>` on standard error; a failure to do so is ignored (the exit code
/// still tells).
fn print_error(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "error: {message}");
}

/// Prints clap's message (usage error on standard error; help or version on standard output)
/// and gives its exit code: 2 for a usage error, 0 for help and version. A failed print of help
/// or version follows the rules of a report (quiet on a broken pipe, exit 2 otherwise).
fn clap_exit(e: &clap::Error) -> ExitCode {
    if e.use_stderr() {
        // Nothing more to say if standard error itself fails.
        let _ = e.print();
        return ExitCode::from(EXIT_BAD_INPUT);
    }
    ExitCode::from(exit_code(Outcome::printed(e.print(), EXIT_OK)))
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
    fn counts_are_at_least_one() {
        assert_eq!(at_least_one("3"), Ok(3));
        assert_eq!(at_least_one("0"), Err("must be at least 1".to_owned()));
        assert!(at_least_one("-1").is_err() && at_least_one("x").is_err() && at_least_one("").is_err());
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
