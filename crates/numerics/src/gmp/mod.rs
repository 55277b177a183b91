//! The mixed mechanical problem (Siconos `GenericMechanicalProblem`,
//! `numerics/src/GenericMechanical`): one square sparse-block matrix `M`, a vector `q`, and for
//! each diagonal block a nonsmooth law of its own.
//!
//! With `w = M z + q` split into the blocks `(w_i, z_i)` of `M`'s block rows, each block
//! satisfies the law of its [`BlockKind`]:
//! - equality: `w_i = 0` (`z_i` free);
//! - complementarity (an LCP block, Newton impact law): `0 ≤ z_i ⊥ w_i ≥ 0`;
//! - 2D or 3D Coulomb friction with coefficient `μ`: `K_μ ∋ z_i ⊥ ŵ_i ∈ K_μ*`,
//!   `ŵ_i = (w_N + μ‖w_T‖, w_T)` (De Saxcé–Feng; Acary & Brogliato 2008, *Numerical Methods
//!   for Nonsmooth Dynamical Systems*, Springer, A.13).
//!
//! Here: the problem ([`MixedProblem`]), its error ([`MixedProblem::compute_error`], Siconos
//! 4.4's `gmp_compute_error`) and the block Gauss–Seidel solver ([`GmpNsgsSolver`], Siconos'
//! `SICONOS_GENERIC_MECHANICAL_NSGS` / `gmp_gauss_seidel`). Files: [`crate::io`] reads and
//! writes Siconos' layout (`genericMechanical_newFromFile`).

mod compute_error;
pub mod nsgs;
mod problem;

pub use nsgs::{GmpNsgsOptions, GmpNsgsSolver};
pub use problem::{BlockKind, MixedProblem};
