//! # nonsmooth
//!
//! Simulation of nonsmooth dynamical systems (unilateral contact, impacts, Coulomb friction,
//! complementarity systems). This facade re-exports the three crates and a prelude; it holds no
//! logic. The command-line tool `nonsmooth` is the separate package `nonsmooth-cli`.
//!
//! ```
//! use nonsmooth::prelude::*;
//!
//! # fn main() -> Result<(), NumericsError> {
//! // w = M z + q, 0 ≤ z ⊥ w ≥ 0
//! let m = nonsmooth::numerics::faer::mat![[2.0, 1.0], [1.0, 2.0]];
//! let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![-5.0, -6.0])?;
//! let mut solver = LcpMethod::from_name("lemke", Some(1e-12), None).expect("a known name").build()?;
//! let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
//! let report = solver.solve(&problem, &mut z, &mut w)?;
//! println!("{} after {} pivots, residual {:e}: z = {z:?}", report.status, report.iterations, report.residual);
//! assert!(report.is_converged());
//! # Ok(())
//! # }
//! ```

pub use nonsmooth_kernel as kernel;
pub use nonsmooth_mechanics as mechanics;
pub use nonsmooth_numerics as numerics;

/// The names most programs need.
pub mod prelude {
    pub use nonsmooth_numerics::lcp::{LcpMethod, LcpProblem, LcpSolver};
    pub use nonsmooth_numerics::matrix::{NumericsMatrix, SparseBlockMatrix, Storage};
    pub use nonsmooth_numerics::{NumericsError, SolverReport, SolverStatus};
}
