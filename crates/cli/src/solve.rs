//! `nonsmooth solve`: read a problem, solve it, report.

use std::time::Instant;

use nonsmooth::numerics::fc::{Fc2dMethod, Fc3dMethod};
use nonsmooth::numerics::gfc::{GlobalFcOptions, GlobalFcSolver};
use nonsmooth::numerics::io::{self, Problem};
use nonsmooth::numerics::lcp::LcpMethod;
use nonsmooth::numerics::mlcp::MlcpMethod;
use nonsmooth::numerics::relay::RelayMethod;
use nonsmooth::numerics::{NumericsError, SolverReport};

use crate::{Outcome, SolveArgs, json_f64, json_string, kind_from_name};

/// The solver used on LCPs when `--solver` is not given.
const DEFAULT_LCP_SOLVER: &str = "lemke";

/// The solver used on FC3D problems when `--solver` is not given: NSGS with the Alart–Curnier
/// local solver (the names are [`Fc3dMethod::NAMES`]).
const DEFAULT_FC3D_SOLVER: &str = "nsgs";

/// The solver used on MLCPs when `--solver` is not given: enumeration, which needs no
/// nonsingular block (the names are [`MlcpMethod::NAMES`]).
const DEFAULT_MLCP_SOLVER: &str = "enum";

/// Relay solver used when `--solver` is absent: Lemke on the LCP reformulation (exact).
const DEFAULT_RELAY_SOLVER: &str = "lemke";

/// Number of timed solves; the reported time is the best of them.
const TIMED_RUNS: usize = 3;

/// Runs `nonsmooth solve`.
pub(crate) fn run(args: &SolveArgs) -> Outcome {
    let problem = match io::read_problem(&args.file, kind_from_name(args.kind.as_deref())) {
        Ok(p) => p,
        Err(e) => return Outcome::BadInput(e.to_string()),
    };
    let kind = problem.kind().as_str();
    let storage = problem.matrices().first().map(|(_, m)| m.storage().as_str()).unwrap_or("-");
    let size = problem.size();
    let timed = match &problem {
        Problem::Lcp(lcp) => {
            let name = args.solver.as_deref().unwrap_or(DEFAULT_LCP_SOLVER);
            let Some(method) = LcpMethod::from_name(name, args.tolerance, args.max_iterations) else {
                return unknown_solver(name, kind, &LcpMethod::NAMES);
            };
            method.build().and_then(|mut solver| {
                let name = solver.name();
                time_solves(name, size, |z, w| solver.solve(lcp, z, w))
            })
        }
        Problem::Mlcp(mlcp) => {
            let name = args.solver.as_deref().unwrap_or(DEFAULT_MLCP_SOLVER);
            let Some(method) = MlcpMethod::from_name(name, args.tolerance, args.max_iterations) else {
                return unknown_solver(name, kind, &MlcpMethod::NAMES);
            };
            method.build().and_then(|mut solver| {
                let name = solver.name();
                time_solves(name, size, |z, w| solver.solve(mlcp, z, w))
            })
        }
        Problem::Relay(relay) => {
            let name = args.solver.as_deref().unwrap_or(DEFAULT_RELAY_SOLVER);
            let Some(method) = RelayMethod::from_name(name, args.tolerance, args.max_iterations) else {
                return unknown_solver(name, kind, &RelayMethod::NAMES);
            };
            method.build().and_then(|mut solver| {
                let name = solver.name();
                time_solves(name, size, |z, w| solver.solve(relay, z, w))
            })
        }
        Problem::Fc3d(fc) => {
            let name = args.solver.as_deref().unwrap_or(DEFAULT_FC3D_SOLVER);
            let Some(method) = Fc3dMethod::from_name(name, args.tolerance, args.max_iterations) else {
                return unknown_solver(name, kind, &Fc3dMethod::NAMES);
            };
            method.build().and_then(|mut solver| {
                let name = solver.name();
                time_solves(name, size, |r, u| solver.solve(fc, r, u))
            })
        }
        Problem::Fc2d(fc) => {
            let name = args.solver.as_deref().unwrap_or(Fc2dMethod::DEFAULT_NAME);
            let Some(method) = Fc2dMethod::from_name(name, args.tolerance, args.max_iterations) else {
                return unknown_solver(name, kind, &Fc2dMethod::NAMES);
            };
            method.build().and_then(|mut solver| {
                let name = solver.name();
                time_solves(name, size, |r, u| solver.solve(fc, r, u))
            })
        }
        Problem::GlobalFc3d(gfc) => {
            let name = args.solver.as_deref().unwrap_or(DEFAULT_FC3D_SOLVER);
            let Some(method) = Fc3dMethod::from_name(name, None, args.max_iterations) else {
                return unknown_solver(name, kind, &Fc3dMethod::NAMES);
            };
            let local_name = match method.clone().build() {
                Ok(local) => local.name(),
                Err(e) => return Outcome::BadInput(e.to_string()),
            };
            let mut options = GlobalFcOptions::default().with_fc3d_method(method);
            if let Some(t) = args.tolerance {
                options = options.with_tolerance(t);
            }
            let mut v = vec![0.0; gfc.velocity_size()];
            GlobalFcSolver::new(options)
                .and_then(|mut solver| time_solves(local_name, size, |r, u| solver.solve(gfc, r, u, &mut v)))
        }
        Problem::GlobalFc2d(gfc) => {
            let name = args.solver.as_deref().unwrap_or(Fc2dMethod::DEFAULT_NAME);
            let Some(method) = Fc2dMethod::from_name(name, None, args.max_iterations) else {
                return unknown_solver(name, kind, &Fc2dMethod::NAMES);
            };
            let local_name = method.name();
            let mut options = GlobalFcOptions::default().with_fc2d_method(method);
            if let Some(t) = args.tolerance {
                options = options.with_tolerance(t);
            }
            let mut v = vec![0.0; gfc.velocity_size()];
            GlobalFcSolver::new(options)
                .and_then(|mut solver| time_solves(local_name, size, |r, u| solver.solve(gfc, r, u, &mut v)))
        }
    };
    let timed = match timed {
        Ok(t) => t,
        Err(e) => return Outcome::BadInput(e.to_string()),
    };
    let file = args.file.to_string_lossy();
    let report = timed.report;
    if args.json {
        println!(
            "{{\"file\": {}, \"problem\": {}, \"size\": {}, \"solver\": {}, \"status\": {}, \"iterations\": {}, \
             \"residual\": {}, \"solve_seconds\": {}}}",
            json_string(&file),
            json_string(kind),
            size,
            json_string(timed.solver),
            json_string(report.status.as_str()),
            report.iterations,
            json_f64(report.residual),
            json_f64(timed.seconds),
        );
    } else {
        println!("file        {file}");
        println!("problem     {kind}");
        println!("size        {size}");
        println!("storage     {storage}");
        println!("solver      {}", timed.solver);
        println!("status      {}", report.status.as_str());
        println!("iterations  {}", report.iterations);
        println!("residual    {:.3e}", report.residual);
        println!("solve time  {:.3e} s (best of {TIMED_RUNS}, from a zero start)", timed.seconds);
    }
    Outcome::Done(if report.is_converged() { 0 } else { 1 })
}

/// Bad input: `name` is not a solver of problems of type `kind`.
fn unknown_solver(name: &str, kind: &str, valid: &[&str]) -> Outcome {
    Outcome::BadInput(format!("unknown solver '{name}' for {kind} problems; valid names: {}", valid.join(", ")))
}

/// The outcome of the timed solves.
struct Timed {
    /// The solver's name.
    solver: &'static str,
    /// The report of the last solve (every run starts from the same point, so all agree).
    report: SolverReport,
    /// The shortest wall-clock time of one solve, in seconds.
    seconds: f64,
}

/// Calls `solve(x, y)` [`TIMED_RUNS`] times, each from `x = y = 0` (vectors of length `n`); only
/// the calls are timed (reading the file and building the solver are not).
fn time_solves(
    solver: &'static str,
    n: usize,
    mut solve: impl FnMut(&mut [f64], &mut [f64]) -> Result<SolverReport, NumericsError>,
) -> Result<Timed, NumericsError> {
    let (mut x, mut y) = (vec![0.0; n], vec![0.0; n]);
    let mut seconds = f64::INFINITY;
    let mut last = None;
    for _ in 0..TIMED_RUNS {
        x.fill(0.0);
        y.fill(0.0);
        let start = Instant::now();
        let report = solve(&mut x, &mut y)?;
        seconds = seconds.min(start.elapsed().as_secs_f64());
        last = Some(report);
    }
    let report = last.expect("TIMED_RUNS > 0, so the loop ran at least once");
    Ok(Timed { solver, report, seconds })
}
