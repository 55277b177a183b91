//! # nonsmooth
//!
//! Simulation of nonsmooth dynamical systems (unilateral contact, impacts, Coulomb friction,
//! complementarity systems). This facade re-exports the three crates and a prelude; it holds no
//! logic. The `nonsmooth` binary of this package is the command-line tool.

pub use nonsmooth_kernel as kernel;
pub use nonsmooth_mechanics as mechanics;
pub use nonsmooth_numerics as numerics;

/// The names most programs need.
pub mod prelude {
    pub use nonsmooth_numerics::lcp::{LcpMethod, LcpProblem, LcpSolver};
    pub use nonsmooth_numerics::matrix::{NumericsMatrix, SparseBlockMatrix, Storage};
    pub use nonsmooth_numerics::{NumericsError, SolverReport, SolverStatus};
}
