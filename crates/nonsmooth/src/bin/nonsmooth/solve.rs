//! `nonsmooth solve`: read a problem, solve it, report.

use std::time::Instant;

use nonsmooth::numerics::SolverReport;
use nonsmooth::numerics::io::{self, Problem};
use nonsmooth::numerics::lcp::{LcpMethod, LcpProblem};

use crate::{Outcome, SolveArgs, json_f64, json_string, kind_from_name};

/// The solver used on LCPs when `--solver` is not given.
const DEFAULT_LCP_SOLVER: &str = "lemke";

/// Number of timed solves; the reported time is the best of them.
const TIMED_RUNS: usize = 3;

/// Runs `nonsmooth solve`.
pub(crate) fn run(args: &SolveArgs) -> Outcome {
    let problem = match io::read_problem(&args.file, kind_from_name(args.kind.as_deref())) {
        Ok(p) => p,
        Err(e) => return Outcome::BadInput(e.to_string()),
    };
    let kind = problem.kind().as_str();
    let Problem::Lcp(lcp) = problem else {
        return Outcome::BadInput(format!(
            "no solver exists yet for {kind} problems (only lcp problems can be solved)"
        ));
    };
    let name = args.solver.as_deref().unwrap_or(DEFAULT_LCP_SOLVER);
    let Some(method) = LcpMethod::from_name(name, args.tolerance, args.max_iterations) else {
        return Outcome::BadInput(format!(
            "unknown solver '{name}' for lcp problems; valid names: {}",
            LcpMethod::NAMES.join(", ")
        ));
    };
    let timed = match solve_lcp(&lcp, method) {
        Ok(t) => t,
        Err(e) => return Outcome::BadInput(e.to_string()),
    };
    let file = args.file.to_string_lossy();
    let report = timed.report;
    if args.json {
        println!(
            "{{\"file\": {}, \"problem\": \"lcp\", \"size\": {}, \"solver\": {}, \"status\": {}, \"iterations\": {}, \
             \"residual\": {}, \"solve_seconds\": {}}}",
            json_string(&file),
            lcp.size(),
            json_string(timed.solver),
            json_string(report.status.as_str()),
            report.iterations,
            json_f64(report.residual),
            json_f64(timed.seconds),
        );
    } else {
        println!("file        {file}");
        println!("problem     lcp");
        println!("size        {}", lcp.size());
        println!("storage     {}", lcp.m().storage().as_str());
        println!("solver      {}", timed.solver);
        println!("status      {}", report.status.as_str());
        println!("iterations  {}", report.iterations);
        println!("residual    {:.3e}", report.residual);
        println!("solve time  {:.3e} s (best of {TIMED_RUNS}, from z = 0)", timed.seconds);
    }
    Outcome::Done(if report.is_converged() { 0 } else { 1 })
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

/// Builds the solver and solves [`TIMED_RUNS`] times, each from `z = 0`; only the calls to
/// `solve` are timed (reading the file and building the solver are not).
fn solve_lcp(problem: &LcpProblem, method: LcpMethod) -> Result<Timed, nonsmooth::numerics::NumericsError> {
    let mut solver = method.build()?;
    let n = problem.size();
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    let mut seconds = f64::INFINITY;
    let mut last = None;
    for _ in 0..TIMED_RUNS {
        z.fill(0.0);
        w.fill(0.0);
        let start = Instant::now();
        let report = solver.solve(problem, &mut z, &mut w)?;
        seconds = seconds.min(start.elapsed().as_secs_f64());
        last = Some(report);
    }
    let report = last.expect("TIMED_RUNS > 0, so the loop ran at least once");
    Ok(Timed { solver: solver.name(), report, seconds })
}
