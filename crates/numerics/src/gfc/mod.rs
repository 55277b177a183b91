//! Global frictional contact problems in 2D and 3D (Siconos `GlobalFrictionContactProblem`,
//! `numerics/src/FrictionContact`): `M v = q + H r`, `u = Hᵀ v + b`, one Coulomb cone per contact.
//!
//! [`GlobalFcProblem`] is generic over the contact dimension `D` (2 or 3); use the aliases
//! [`GlobalFc2dProblem`] and [`GlobalFc3dProblem`]. Here: the problem, its error measure
//! ([`GlobalFcProblem::compute_error`], Siconos 4.4's `gfc3d_compute_error`), the condensation
//! onto the local form of [`crate::fc`] ([`GlobalFcProblem::condense`], `W = Hᵀ M⁻¹ H`) with the
//! factorization of `M` it keeps ([`MassFactorization`]), and the solver by condensation
//! ([`GlobalFcSolver`], Siconos' "wr" solvers), and two solvers on the global form itself: the
//! semismooth Newton method on the Alart–Curnier function in `(v, r)` ([`GlobalNsnAcSolver`],
//! Siconos' `gfc3d_nonsmooth_Newton_AlartCurnier`) and ADMM ([`AdmmSolver`], Siconos'
//! `gfc3d_ADMM`).
//!
//! Integration tests: `tests/it/gfc.rs` and `tests/it/gfc_solvers.rs`.

pub mod admm;
pub mod compute_error;
pub mod condense;
pub mod factor;
pub mod newton;
mod problem;
pub mod solve;

pub use admm::{AdmmOptions, AdmmRhoStrategy, AdmmSolver};
pub use condense::{Condensed, DENSE_DELASSUS_LIMIT, DelassusStorage};
pub use factor::{FactorizationKind, MassFactorization};
pub use newton::{GlobalNsnAcOptions, GlobalNsnAcSolver};
pub use problem::{GlobalFc2dProblem, GlobalFc3dProblem, GlobalFcProblem};
pub use solve::{GlobalFcOptions, GlobalFcSolver};
