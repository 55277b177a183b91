//! Relay (box-constrained) problems (Siconos `numerics/src/Relay`): `w = M z + q` with
//! `lb ≤ z ≤ ub` and `−w` in the normal cone of the box at `z`.
//!
//! Solvers (Siconos 4.4 `relay_driver`):
//! - [`LemkeSolver`]: Lemke's method on the `2n`-dimensional LCP reformulation
//!   ([`RelayProblem::to_lcp`], Siconos `relay_lexicolemke` / `relay_to_lcp`);
//! - [`PgsSolver`]: projected Gauss–Seidel (Siconos `relay_pgs`), operation for operation.
//!
//! Every solver measures its residual with [`RelayProblem::compute_error`] (Siconos
//! `relay_compute_error`); [`RelayMethod`] chooses one at run time.

mod compute_error;
mod lemke;
mod method;
mod pgs;
mod problem;

pub use crate::lcp::LemkeOptions;
pub use lemke::LemkeSolver;
pub use method::{RelayMethod, RelaySolver};
pub use pgs::{PgsOptions, PgsSolver};
pub use problem::RelayProblem;
