//! `nonsmooth solve`: read a problem, solve it, report, and write the solution.
//!
//! The solution file (`--output FILE`) is one JSON object:
//!
//! ```text
//! {
//!   "format": "nonsmooth-solution", "version": 1,
//!   "file": "<the problem file>", "problem": "fc3d", "size": 108,
//!   "solver": "nsgs", "status": "converged", "iterations": 70, "residual": 9.8e-5,
//!   "vectors": { "r": [...], "u": [...] }
//! }
//! ```
//!
//! The vectors are named as the problem names them: `z` and `w = M z + q` for LCP, MLCP and
//! relay problems and mixed mechanical problems (`gmp`); `r` (reactions) and `u = W r + q`
//! (local velocities) for FC2D and FC3D;
//! `r`, `u = Hᵀ v + b` and the global velocities `v` for global problems. Numbers are written
//! in shortest round-trip form (reading them back gives the same `f64`), a non-finite entry as
//! `null`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use nonsmooth::numerics::fc::{Fc2dMethod, Fc3dMethod};
use nonsmooth::numerics::gfc::{
    AdmmOptions, AdmmSolver, GlobalFcOptions, GlobalFcSolver, GlobalNsnAcOptions, GlobalNsnAcSolver,
};
use nonsmooth::numerics::gmp::{GmpNsgsOptions, GmpNsgsSolver};
use nonsmooth::numerics::io::{self, Problem};
use nonsmooth::numerics::lcp::LcpMethod;
use nonsmooth::numerics::mlcp::{MlcpMethod, MlcpProblem};
use nonsmooth::numerics::relay::RelayMethod;
use nonsmooth::numerics::{NumericsError, SolverReport};

use crate::{EXIT_NOT_CONVERGED, EXIT_OK, Outcome, SolveArgs, json_f64, json_string, kind_from_name};

/// The solver used on LCPs when `--solver` is not given.
const DEFAULT_LCP_SOLVER: &str = "lemke";

/// The solver used on FC3D problems when `--solver` is not given: NSGS with the Alart–Curnier
/// local solver (the names are [`Fc3dMethod::NAMES`]).
const DEFAULT_FC3D_SOLVER: &str = "nsgs";

/// The solver used on MLCPs when `--solver` is not given and the enumeration's worst case is
/// within [`MAX_ENUMERATION_WORK`]: enumeration (Siconos' default), which needs no nonsingular
/// block (the names are [`MlcpMethod::NAMES`]).
const DEFAULT_MLCP_SOLVER: &str = "enum";

/// The solver used on MLCPs when `--solver` is not given and the enumeration's worst case is
/// above [`MAX_ENUMERATION_WORK`]: Lemke on the Schur complement of the equality block `A`
/// (polynomial in practice; it needs `A` nonsingular).
const DEFAULT_LARGE_MLCP_SOLVER: &str = "lemke";

/// The largest worst-case work, in [`enumeration_work`]'s units, of an enumeration run without
/// an explicit `--max-iterations`: `2³⁵`, every case of 20 complementarity unknowns on a
/// 32-unknown system (about 12 s on one core of the machine we measured on, 2.8·10⁹ units per
/// second). Above it the enumeration is refused up front,
/// or, as the default MLCP solver, replaced by [`DEFAULT_LARGE_MLCP_SOLVER`].
const MAX_ENUMERATION_WORK: f64 = (1u64 << 35) as f64;

/// GFC3D solver name of the semismooth Newton method on the global Alart–Curnier function
/// ([`GlobalNsnAcSolver`], Siconos' `GFC3D_NSN_AC`); `nsn-ac` on a GFC3D file is the local
/// Newton method after condensation (Siconos' `GFC3D_NSN_AC_WR`).
const GLOBAL_NSN_AC: &str = "global-nsn-ac";

/// GFC3D solver name of ADMM on the global form ([`AdmmSolver`], Siconos' `GFC3D_ADMM`).
const GLOBAL_ADMM: &str = "admm";

/// The GFC3D solvers that work on the global form (the others condense onto the local one).
const GLOBAL_FC3D_SOLVERS: [&str; 2] = [GLOBAL_NSN_AC, GLOBAL_ADMM];

/// The one solver of mixed mechanical problems: block Gauss–Seidel with each block's own local
/// solver (Siconos' `SICONOS_GENERIC_MECHANICAL_NSGS`).
const GMP_SOLVERS: [&str; 1] = ["nsgs"];

/// Relay solver used when `--solver` is absent: Lemke on the LCP reformulation (exact).
const DEFAULT_RELAY_SOLVER: &str = "lemke";

/// Number of entries of each vector shown in the human report.
const SHOWN_ENTRIES: usize = 5;

/// Runs `nonsmooth solve`, writing the report to `out`.
pub(crate) fn run(args: &SolveArgs, out: &mut dyn Write) -> Outcome {
    // The output path is checked first: a long solve must not end on an unwritable path.
    let output = match args.output.as_deref().map(OutputFile::check).transpose() {
        Ok(o) => o,
        Err(message) => return Outcome::BadInput(message),
    };
    let outcome = solve_and_report(args, output.as_ref(), out);
    if let (Outcome::BadInput(_), Some(output)) = (&outcome, &output) {
        output.discard();
    }
    outcome
}

/// Reads, solves, writes the solution to `output` and the report to `out`.
fn solve_and_report(args: &SolveArgs, output: Option<&OutputFile>, out: &mut dyn Write) -> Outcome {
    let problem = match io::read_problem(&args.file, kind_from_name(args.kind.as_deref())) {
        Ok(p) => p,
        Err(e) => return Outcome::BadInput(e.to_string()),
    };
    let solved = match solve(args, &problem) {
        Ok(s) => s,
        Err(refused) => return refused,
    };
    let file = args.file.to_string_lossy();
    if let Some(output) = output
        && let Err(message) = output.write(&solution_json(&file, problem.kind().as_str(), problem.size(), &solved))
    {
        return Outcome::BadInput(message);
    }
    let code = if solved.report.is_converged() { EXIT_OK } else { EXIT_NOT_CONVERGED };
    Outcome::printed(print_report(args, &problem, &solved, output, out), code)
}

/// Writes the report of a solve to `out`: one JSON line with `--json`, else a human summary.
fn print_report(
    args: &SolveArgs,
    problem: &Problem,
    solved: &Solved,
    output: Option<&OutputFile>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let file = args.file.to_string_lossy();
    let kind = problem.kind().as_str();
    let size = problem.size();
    let report = solved.report;
    let (best, median) = min_and_median(&solved.seconds);
    if args.json {
        let norms: Vec<String> =
            solved.vectors.iter().map(|(name, v)| format!("{}: {}", json_string(name), json_f64(norm2(v)))).collect();
        writeln!(
            out,
            "{{\"file\": {}, \"problem\": {}, \"size\": {}, \"solver\": {}, \"status\": {}, \"iterations\": {}, \
             \"residual\": {}, \"solve_seconds\": {}, \"solve_seconds_median\": {}, \"repeat\": {}, \
             \"norms\": {{{}}}, \"output\": {}}}",
            json_string(&file),
            json_string(kind),
            size,
            json_string(solved.solver),
            json_string(report.status.as_str()),
            report.iterations,
            json_f64(report.residual),
            json_f64(best),
            json_f64(median),
            solved.seconds.len(),
            norms.join(", "),
            output.map_or_else(|| "null".to_string(), |o| json_string(&o.path.to_string_lossy())),
        )?;
    } else {
        let storage = problem.matrices().first().map(|(_, m)| m.storage().as_str()).unwrap_or("-");
        writeln!(out, "file        {file}")?;
        writeln!(out, "problem     {kind}")?;
        writeln!(out, "size        {size}")?;
        writeln!(out, "storage     {storage}")?;
        writeln!(out, "solver      {}", solved.solver)?;
        writeln!(out, "status      {}", report.status.as_str())?;
        writeln!(out, "iterations  {}", report.iterations)?;
        writeln!(out, "residual    {:.3e}", report.residual)?;
        if solved.seconds.len() == 1 {
            writeln!(out, "solve time  {best:.3e} s (one run, from a zero start)")?;
        } else {
            writeln!(
                out,
                "solve time  {best:.3e} s min, {median:.3e} s median of {} runs (each from a zero start)",
                solved.seconds.len()
            )?;
        }
        for (name, v) in &solved.vectors {
            let shown: Vec<String> = v.iter().take(SHOWN_ENTRIES).map(|x| format!("{x:.6e}")).collect();
            let more = if v.len() > SHOWN_ENTRIES { ", ..." } else { "" };
            writeln!(
                out,
                "{name:<11} {} entries, 2-norm {:.6e}, max |.| {:.6e}: [{}{more}]",
                v.len(),
                norm2(v),
                v.iter().fold(0.0f64, |m, x| m.max(x.abs())),
                shown.join(", ")
            )?;
        }
        if let Some(o) = output {
            writeln!(out, "solution    written to {}", o.path.display())?;
        }
    }
    Ok(())
}

/// The solution of one problem: the solver's name, the report of the last run, the time of each
/// run and the named vectors of the last run.
struct Solved {
    solver: &'static str,
    report: SolverReport,
    seconds: Vec<f64>,
    vectors: Vec<(&'static str, Vec<f64>)>,
}

/// Picks the solver by name for the problem's family and solves. `Err` is the outcome of a
/// refused run: an unknown solver name, an invalid option, an enumeration too large to finish, a
/// dense conversion above the limit, data the solver cannot use.
fn solve(args: &SolveArgs, problem: &Problem) -> Result<Solved, Outcome> {
    let size = problem.size();
    let kind = problem.kind().as_str();
    let repeat = args.repeat;
    let limit = args.max_dense_bytes;
    let (tolerance, max_iterations) = (args.tolerance, args.max_iterations);
    let solved = match problem {
        Problem::Lcp(lcp) => {
            let name = args.solver.as_deref().unwrap_or(DEFAULT_LCP_SOLVER);
            let Some(mut method) = LcpMethod::from_name(name, tolerance, max_iterations) else {
                return Err(unknown_solver(name, kind, &LcpMethod::NAMES));
            };
            if let LcpMethod::Enum(o) = &method
                && max_iterations.is_none()
            {
                check_enumeration("LCP", size, size, o.max_iterations, "lemke")?;
            }
            if let Some(b) = limit {
                method = method.with_max_dense_bytes(b);
            }
            let mut solver = method.build().map_err(bad_input)?;
            let name = solver.name();
            time_solves(name, repeat, [("z", size), ("w", size), ("", 0)], |z, w, _| solver.solve(lcp, z, w))
                .map_err(bad_input)?
        }
        Problem::Mlcp(mlcp) => {
            let default = default_mlcp_solver(mlcp);
            let name = args.solver.as_deref().unwrap_or(default);
            let Some(mut method) = MlcpMethod::from_name(name, tolerance, max_iterations) else {
                return Err(unknown_solver(name, kind, &MlcpMethod::NAMES));
            };
            if let MlcpMethod::Enum(o) = &method
                && max_iterations.is_none()
            {
                check_enumeration("MLCP", mlcp.m(), size, o.max_iterations, "lemke or pgs")?;
            }
            if let Some(b) = limit {
                method = method.with_max_dense_bytes(b);
            }
            let mut solver = method.build().map_err(bad_input)?;
            let name = solver.name();
            let solved =
                time_solves(name, repeat, [("z", size), ("w", size), ("", 0)], |z, w, _| solver.solve(mlcp, z, w));
            match solved {
                Err(e @ NumericsError::Singular { .. }) if args.solver.is_none() && default != DEFAULT_MLCP_SOLVER => {
                    return Err(Outcome::BadInput(format!(
                        "no default MLCP solver fits: {}, and {DEFAULT_LARGE_MLCP_SOLVER}, the default instead, \
                         stops at the start: {e}; choose --solver pgs, or --solver enum with --max-iterations N to \
                         bound its cases",
                        enumeration_size_text(mlcp.m(), size, default_enum_cases())
                    )));
                }
                other => other.map_err(bad_input)?,
            }
        }
        Problem::Relay(relay) => {
            let name = args.solver.as_deref().unwrap_or(DEFAULT_RELAY_SOLVER);
            let Some(mut method) = RelayMethod::from_name(name, tolerance, max_iterations) else {
                return Err(unknown_solver(name, kind, &RelayMethod::NAMES));
            };
            if let Some(b) = limit {
                method = method.with_max_dense_bytes(b);
            }
            let mut solver = method.build().map_err(bad_input)?;
            let name = solver.name();
            time_solves(name, repeat, [("z", size), ("w", size), ("", 0)], |z, w, _| solver.solve(relay, z, w))
                .map_err(bad_input)?
        }
        Problem::Fc3d(fc) => {
            let name = args.solver.as_deref().unwrap_or(DEFAULT_FC3D_SOLVER);
            let Some(method) = Fc3dMethod::from_name(name, tolerance, max_iterations) else {
                return Err(unknown_solver(name, kind, &Fc3dMethod::NAMES));
            };
            let mut solver = method.build().map_err(bad_input)?;
            let name = solver.name();
            time_solves(name, repeat, [("r", size), ("u", size), ("", 0)], |r, u, _| solver.solve(fc, r, u))
                .map_err(bad_input)?
        }
        Problem::Fc2d(fc) => {
            let name = args.solver.as_deref().unwrap_or(Fc2dMethod::DEFAULT_NAME);
            let Some(mut method) = Fc2dMethod::from_name(name, tolerance, max_iterations) else {
                return Err(unknown_solver(name, kind, &Fc2dMethod::NAMES));
            };
            if let Some(b) = limit {
                method = method.with_max_dense_bytes(b);
            }
            let mut solver = method.build().map_err(bad_input)?;
            let name = solver.name();
            time_solves(name, repeat, [("r", size), ("u", size), ("", 0)], |r, u, _| solver.solve(fc, r, u))
                .map_err(bad_input)?
        }
        Problem::GlobalFc3d(gfc) => {
            let name = args.solver.as_deref().unwrap_or(DEFAULT_FC3D_SOLVER);
            let sizes = [("r", size), ("u", size), ("v", gfc.velocity_size())];
            match name {
                GLOBAL_NSN_AC => {
                    let mut options = GlobalNsnAcOptions::default();
                    if let Some(t) = tolerance {
                        options = options.with_tolerance(t);
                    }
                    if let Some(k) = max_iterations {
                        options = options.with_max_iterations(k);
                    }
                    let mut solver = GlobalNsnAcSolver::new(options).map_err(bad_input)?;
                    time_solves(GLOBAL_NSN_AC, repeat, sizes, |r, u, v| solver.solve(gfc, r, u, v))
                        .map_err(bad_input)?
                }
                GLOBAL_ADMM => {
                    let mut options = AdmmOptions::default();
                    if let Some(t) = tolerance {
                        options = options.with_tolerance(t);
                    }
                    if let Some(k) = max_iterations {
                        options = options.with_max_iterations(k);
                    }
                    let mut solver = AdmmSolver::new(options).map_err(bad_input)?;
                    time_solves(GLOBAL_ADMM, repeat, sizes, |r, u, v| solver.solve(gfc, r, u, v)).map_err(bad_input)?
                }
                _ => {
                    let Some(method) = Fc3dMethod::from_name(name, None, max_iterations) else {
                        let valid: Vec<&str> = Fc3dMethod::NAMES.iter().copied().chain(GLOBAL_FC3D_SOLVERS).collect();
                        return Err(unknown_solver(name, kind, &valid));
                    };
                    let local_name = method.clone().build().map_err(bad_input)?.name();
                    let options = global_options(GlobalFcOptions::default().with_fc3d_method(method), tolerance, limit);
                    let mut solver = GlobalFcSolver::new(options).map_err(bad_input)?;
                    time_solves(local_name, repeat, sizes, |r, u, v| solver.solve(gfc, r, u, v)).map_err(bad_input)?
                }
            }
        }
        Problem::Gmp(gmp) => {
            let name = args.solver.as_deref().unwrap_or(GMP_SOLVERS[0]);
            if !GMP_SOLVERS.contains(&name) {
                return Err(unknown_solver(name, kind, &GMP_SOLVERS));
            }
            let mut options = GmpNsgsOptions::default();
            if let Some(t) = tolerance {
                options = options.with_tolerance(t);
            }
            if let Some(n) = max_iterations {
                options = options.with_max_iterations(n);
            }
            let mut solver = GmpNsgsSolver::new(options).map_err(bad_input)?;
            time_solves(GMP_SOLVERS[0], repeat, [("z", size), ("w", size), ("", 0)], |z, w, _| solver.solve(gmp, z, w))
                .map_err(bad_input)?
        }
        Problem::GlobalFc2d(gfc) => {
            let name = args.solver.as_deref().unwrap_or(Fc2dMethod::DEFAULT_NAME);
            let Some(method) = Fc2dMethod::from_name(name, None, max_iterations) else {
                return Err(unknown_solver(name, kind, &Fc2dMethod::NAMES));
            };
            let local_name = method.name();
            let options = global_options(GlobalFcOptions::default().with_fc2d_method(method), tolerance, limit);
            let mut solver = GlobalFcSolver::new(options).map_err(bad_input)?;
            let sizes = [("r", size), ("u", size), ("v", gfc.velocity_size())];
            time_solves(local_name, repeat, sizes, |r, u, v| solver.solve(gfc, r, u, v)).map_err(bad_input)?
        }
    };
    Ok(solved)
}

/// Bad input: the message of a numerics error.
fn bad_input(e: NumericsError) -> Outcome {
    Outcome::BadInput(e.to_string())
}

/// The default MLCP solver for `mlcp`: [`DEFAULT_MLCP_SOLVER`] (enumeration, as Siconos) when
/// the enumeration's worst case with its default case cap is within [`MAX_ENUMERATION_WORK`],
/// else [`DEFAULT_LARGE_MLCP_SOLVER`].
fn default_mlcp_solver(mlcp: &MlcpProblem) -> &'static str {
    if enumeration_work(mlcp.m(), mlcp.size(), default_enum_cases()) <= MAX_ENUMERATION_WORK {
        DEFAULT_MLCP_SOLVER
    } else {
        DEFAULT_LARGE_MLCP_SOLVER
    }
}

/// The case cap of the MLCP enumeration's default options.
fn default_enum_cases() -> usize {
    match MlcpMethod::from_name(DEFAULT_MLCP_SOLVER, None, None) {
        Some(MlcpMethod::Enum(o)) => o.max_iterations,
        _ => usize::MAX,
    }
}

/// The number of cases an enumeration over `complementarity` unknowns tries at most, with the
/// cap `cap`: `min(2^complementarity, cap)`.
fn enumeration_cases(complementarity: usize, cap: usize) -> u64 {
    let all = u32::try_from(complementarity).ok().and_then(|m| 1u64.checked_shl(m));
    all.map_or(cap as u64, |all| all.min(cap as u64))
}

/// The worst-case work of an enumeration: its number of cases ([`enumeration_cases`]) times the
/// cube of the size of the linear system each case factorizes (`size`, the number of unknowns).
fn enumeration_work(complementarity: usize, size: usize, cap: usize) -> f64 {
    enumeration_cases(complementarity, cap) as f64 * (size as f64).powi(3)
}

/// How large an enumeration is, in words: "the enumeration would try up to C cases (of 2^m) of
/// an s × s linear system".
fn enumeration_size_text(complementarity: usize, size: usize, cap: usize) -> String {
    format!(
        "the enumeration would try up to {} cases (of 2^{complementarity}), each a {size} x {size} linear system",
        enumeration_cases(complementarity, cap)
    )
}

/// Refuses up front an enumeration (of a `family` problem with `complementarity` unknowns in
/// complementarity, `size` unknowns in all, at most `cap` cases) whose worst case is above
/// [`MAX_ENUMERATION_WORK`]; the message names `alternative` and `--max-iterations`.
fn check_enumeration(
    family: &str,
    complementarity: usize,
    size: usize,
    cap: usize,
    alternative: &str,
) -> Result<(), Outcome> {
    if enumeration_work(complementarity, size, cap) <= MAX_ENUMERATION_WORK {
        return Ok(());
    }
    Err(Outcome::BadInput(format!(
        "{family} enumeration refused: {}, too long to finish; use --solver {alternative}, or bound the \
         cases with --max-iterations N",
        enumeration_size_text(complementarity, size, cap)
    )))
}

/// The global solver's options with the tolerance and the dense limit of the command line.
fn global_options(mut options: GlobalFcOptions, tolerance: Option<f64>, limit: Option<u64>) -> GlobalFcOptions {
    if let Some(t) = tolerance {
        options = options.with_tolerance(t);
    }
    if let Some(b) = limit {
        options = options.with_max_dense_bytes(b);
    }
    options
}

/// Bad input: `name` is not a solver of problems of type `kind`.
fn unknown_solver(name: &str, kind: &str, valid: &[&str]) -> Outcome {
    Outcome::BadInput(format!("unknown solver '{name}' for {kind} problems; valid names: {}", valid.join(", ")))
}

/// Calls `solve(x, y, e)` `repeat` times, each from zero vectors of the lengths in `vectors`
/// (the third one unused, length 0, outside global problems); only the calls are timed (reading
/// the file and building the solver are not). The vectors of the last run are kept.
fn time_solves(
    solver: &'static str,
    repeat: usize,
    vectors: [(&'static str, usize); 3],
    mut solve: impl FnMut(&mut [f64], &mut [f64], &mut [f64]) -> Result<SolverReport, NumericsError>,
) -> Result<Solved, NumericsError> {
    let [(nx, lx), (ny, ly), (ne, le)] = vectors;
    let (mut x, mut y, mut e) = (vec![0.0; lx], vec![0.0; ly], vec![0.0; le]);
    let mut seconds = Vec::with_capacity(repeat);
    let mut report = None;
    for _ in 0..repeat.max(1) {
        x.fill(0.0);
        y.fill(0.0);
        e.fill(0.0);
        let start = Instant::now();
        report = Some(solve(&mut x, &mut y, &mut e)?);
        seconds.push(start.elapsed().as_secs_f64());
    }
    let Some(report) = report else {
        return Err(NumericsError::InvalidOption { name: "repeat", reason: "must be at least 1" });
    };
    let mut named = vec![(nx, x), (ny, y)];
    if !ne.is_empty() {
        named.push((ne, e));
    }
    Ok(Solved { solver, report, seconds, vectors: named })
}

/// The shortest and the median of the times (the mean of the two middle ones for an even count).
fn min_and_median(seconds: &[f64]) -> (f64, f64) {
    let mut sorted = seconds.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => (f64::NAN, f64::NAN),
        _ if n % 2 == 1 => (sorted[0], sorted[n / 2]),
        _ => (sorted[0], 0.5 * (sorted[n / 2 - 1] + sorted[n / 2])),
    }
}

/// `‖v‖₂`.
fn norm2(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// The solution file's text (layout in the module documentation).
fn solution_json(file: &str, kind: &str, size: usize, solved: &Solved) -> String {
    let mut vectors = serde_json::Map::new();
    for (name, v) in &solved.vectors {
        vectors.insert((*name).to_string(), v.iter().map(|&x| serde_json::Value::from(x)).collect());
    }
    let value = serde_json::json!({
        "format": "nonsmooth-solution",
        "version": 1,
        "file": file,
        "problem": kind,
        "size": size,
        "solver": solved.solver,
        "status": solved.report.status.as_str(),
        "iterations": solved.report.iterations,
        "residual": solved.report.residual,
        "vectors": vectors,
    });
    let mut text = value.to_string();
    text.push('\n');
    text
}

/// The `--output` file, checked before the solve.
struct OutputFile {
    path: PathBuf,
    /// Whether the file existed before (a file we created is removed on bad input).
    existed: bool,
}

impl OutputFile {
    /// Checks that `path` can be written: its folder exists and the file can be opened for
    /// writing (created if absent; an existing file keeps its content until the solution is
    /// written).
    fn check(path: &Path) -> Result<Self, String> {
        let existed = path.exists();
        if path.is_dir() {
            return Err(format!("--output {}: is a folder", path.display()));
        }
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| format!("--output {}: cannot be written: {e}", path.display()))?;
        Ok(Self { path: path.to_path_buf(), existed })
    }

    /// Writes `text`, replacing the file's content.
    fn write(&self, text: &str) -> Result<(), String> {
        let mut file = std::fs::File::create(&self.path)
            .map_err(|e| format!("--output {}: cannot be written: {e}", self.path.display()))?;
        file.write_all(text.as_bytes()).map_err(|e| format!("--output {}: cannot be written: {e}", self.path.display()))
    }

    /// Removes the file when this run created it (the run ended on bad input).
    fn discard(&self) {
        if !self.existed {
            // Nothing to do if it is already gone: the run reports its own error.
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let close = |(a, b): (f64, f64), (c, d): (f64, f64)| (a - c).abs() < 1e-15 && (b - d).abs() < 1e-15;
        assert!(close(min_and_median(&[3.0, 1.0, 2.0]), (1.0, 2.0)));
        assert!(close(min_and_median(&[4.0, 1.0, 3.0, 2.0]), (1.0, 2.5)));
        let (a, b) = min_and_median(&[]);
        assert!(a.is_nan() && b.is_nan());
    }
}
