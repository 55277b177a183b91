//! Mixed linear complementarity problems (Siconos `numerics/src/MLCP`): `n` equalities and `m`
//! complementarity conditions on `z = (u, v)`, and their solvers.
//!
//! Solvers (Siconos `numerics/src/MLCP`), all measuring their residual with
//! [`MlcpProblem::compute_error`] (Siconos' `mlcp_compute_error`):
//! - [`EnumSolver`]: enumeration of the complementarity cases, for small `m` (`mlcp_enum`);
//! - [`PgsSolver`]: projected Gauss–Seidel, needs a nonzero diagonal (`mlcp_pgs`);
//! - [`SchurLemkeSolver`]: reduction to an LCP by the Schur complement of a nonsingular `A`,
//!   solved by [`crate::lcp::LemkeSolver`] (`mlcp_lcp_lemke`).
//!
//! Rectangular MLCPs (a whole `M` with more rows than `n + m`, e.g. `Rectangular_mlcp.dat`,
//! which Siconos solves only by least squares in its enumeration) are refused with
//! [`NumericsError::InvalidInput`].

#![allow(non_snake_case)]

mod compute_error;
mod dense;
mod enumerative;
mod lemke;
mod method;
mod pgs;
mod problem;

pub use enumerative::{EnumOptions, EnumSolver};
pub use lemke::{SchurLemkeOptions, SchurLemkeSolver};
pub use method::MlcpMethod;
pub use pgs::{PgsOptions, PgsSolver};
pub use problem::{MlcpBlockForm, MlcpMatrixForm, MlcpProblem};

use crate::{NumericsError, SolverReport};

/// A solver of mixed linear complementarity problems.
pub trait MlcpSolver {
    /// Solves `problem`. `z = (u, v)` is the warm start on entry (solvers that cannot use one
    /// ignore it) and the solution on exit; `w` is overwritten with `M z + q`.
    ///
    /// The report's residual is [`MlcpProblem::compute_error`] at the returned `z`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `z` or `w` do not have length `n + m`;
    /// [`NumericsError::InvalidInput`] for a rectangular MLCP; solver-specific errors (see each
    /// solver). Non-convergence is a status of the report, not an error.
    fn solve(&mut self, problem: &MlcpProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError>;

    /// The solver's name as the command-line tool spells it (`enum`, `pgs`, `lemke`).
    fn name(&self) -> &'static str;
}
