//! Command lines of the numerics examples (`examples/numerics/`).

use std::path::PathBuf;

use clap::Parser;
use nonsmooth::numerics::lcp::LcpMethod;

/// Reads a linear complementarity problem (find z ≥ 0 with w = M z + q ≥ 0, zᵀw = 0) from a
/// Siconos `.dat` file (the format of Siconos' numerics test collection) and solves it.
///
/// FILE defaults to $NONSMOOTH_DATA/siconos/lcp/lcp_exp_murty.dat (Murty's example, on which
/// Lemke's method needs many pivots), then to the same file under ../shared/data seen from the
/// workspace root; when neither exists, a built-in 3 × 3 LCP is solved instead.
///
/// It prints the problem's size and storage, the solver, its status, iterations and residual
/// (the LCP error of Siconos' lcp_compute_error), the solve time and z.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "solve_lcp", verbatim_doc_comment)]
pub struct SolveLcpArgs {
    /// The problem file (Siconos `.dat` LCP).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The solver.
    #[arg(
        value_name = "SOLVER",
        default_value = "lemke",
        value_parser = clap::builder::PossibleValuesParser::new(LcpMethod::NAMES),
    )]
    pub solver: String,
}
