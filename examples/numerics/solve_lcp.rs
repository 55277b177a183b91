//! Reads a linear complementarity problem from a Siconos `.dat` file and solves it.
//!
//! ```text
//! cargo run --release --example solve_lcp -- [FILE] [SOLVER]
//! ```
//!
//! FILE defaults to `$NONSMOOTH_DATA/siconos/lcp/lcp_exp_murty.dat` (Murty's example, on which
//! Lemke's method needs many pivots), then `../shared/data/...` seen from the workspace root; when
//! neither exists, a built-in 3 × 3 LCP is solved instead. SOLVER is one of `lemke` (default),
//! `pgs`, `psor`, `enum`, `newton-fb`, `newton-min`, `bpp`; an unknown name is refused before
//! anything is read. `--help` says more.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Parser;
use nonsmooth::numerics::io::{self, Problem, ProblemKind};
use nonsmooth::prelude::*;
use nonsmooth_examples::cli::numerics::SolveLcpArgs;

fn main() -> anyhow::Result<()> {
    let SolveLcpArgs { file, solver: solver_name } = SolveLcpArgs::parse();

    let (source, problem) = match file.or_else(default_file) {
        Some(path) => {
            let problem = match io::read_problem(&path, Some(ProblemKind::Lcp))
                .with_context(|| format!("reading {}", path.display()))?
            {
                Problem::Lcp(p) => p,
                other => bail!("{} holds a {} problem, not an lcp", path.display(), other.kind().as_str()),
            };
            (path.display().to_string(), problem)
        }
        None => {
            println!("no problem file given and no reference data found: solving a built-in 3 × 3 LCP");
            ("built-in 3 × 3 LCP".to_owned(), built_in()?)
        }
    };

    let Some(method) = LcpMethod::from_name(&solver_name, None, None) else {
        bail!("unknown solver {solver_name:?}; valid names: {}", LcpMethod::NAMES.join(", "));
    };
    let mut solver = method.build()?;
    let n = problem.size();
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    let start = std::time::Instant::now();
    let report = solver.solve(&problem, &mut z, &mut w)?;
    let seconds = start.elapsed().as_secs_f64();

    println!("problem     {source} (n = {n}, {} storage)", problem.m().storage().as_str());
    println!("solver      {}", solver.name());
    println!("status      {}", report.status);
    println!("iterations  {}", report.iterations);
    println!("residual    {:.3e}", report.residual);
    println!("solve time  {seconds:.3e} s");
    println!("z = {z:?}");
    Ok(())
}

/// `$NONSMOOTH_DATA/siconos/lcp/lcp_exp_murty.dat`, else the same under `../shared/data` from
/// the workspace root, if the file exists.
fn default_file() -> Option<PathBuf> {
    let relative = Path::new("siconos/lcp/lcp_exp_murty.dat");
    let from_env = std::env::var_os("NONSMOOTH_DATA").map(|d| PathBuf::from(d).join(relative));
    let from_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data").join(relative);
    let found = from_env.into_iter().chain([from_root]).find(|p| p.is_file())?;
    // Show `/…/shared/data/…` rather than `examples/../../shared/data/…`.
    Some(found.canonicalize().unwrap_or(found))
}

/// `M = [[2, 1, 0], [1, 2, 1], [0, 1, 2]]`, `q = (−1, 1, −3)`: a positive definite LCP whose
/// solution has an inactive middle component (z = (1/2, 0, 3/2), w = (0, 3, 0)).
fn built_in() -> anyhow::Result<LcpProblem> {
    let m = faer::mat![[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]];
    Ok(LcpProblem::new(NumericsMatrix::Dense(m), vec![-1.0, 1.0, -3.0])?)
}
