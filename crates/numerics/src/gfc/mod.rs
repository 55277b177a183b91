//! Global frictional contact problems in 2D and 3D (Siconos `GlobalFrictionContactProblem`,
//! `numerics/src/FrictionContact`): `M v = q + H r`, `u = Hᵀ v + b`, one Coulomb cone per contact.
//!
//! [`GlobalFcProblem`] is generic over the contact dimension `D` (2 or 3); use the aliases
//! [`GlobalFc2dProblem`] and [`GlobalFc3dProblem`]. Here: the problem, its error measure
//! ([`GlobalFcProblem::compute_error`], Siconos 4.4's `gfc3d_compute_error`), the condensation
//! onto the local form of [`crate::fc`] ([`GlobalFcProblem::condense`], `W = Hᵀ M⁻¹ H`) with the
//! factorization of `M` it keeps ([`MassFactorization`]), and the solver by condensation
//! ([`GlobalFcSolver`], Siconos' "wr" solvers).
//!
//! Integration tests: `tests/it/gfc.rs`.

pub mod compute_error;
pub mod condense;
pub mod factor;
mod problem;
pub mod solve;

pub use condense::{Condensed, DENSE_DELASSUS_LIMIT, DelassusStorage};
pub use factor::{FactorizationKind, MassFactorization};
pub use problem::{GlobalFc2dProblem, GlobalFc3dProblem, GlobalFcProblem};
pub use solve::{GlobalFcOptions, GlobalFcSolver};
