//! Global frictional contact problems in 2D and 3D (Siconos `GlobalFrictionContactProblem`,
//! `numerics/src/FrictionContact`): `M v = q + H r`, `u = Hᵀ v + b`, one Coulomb cone per contact.
//!
//! [`GlobalFcProblem`] is generic over the contact dimension `D` (2 or 3); use the aliases
//! [`GlobalFc2dProblem`] and [`GlobalFc3dProblem`]. Only the problem types live here for now;
//! solvers come with a later issue. The local (condensed) form is in [`crate::fc`].

mod problem;

pub use problem::{GlobalFc2dProblem, GlobalFc3dProblem, GlobalFcProblem};
