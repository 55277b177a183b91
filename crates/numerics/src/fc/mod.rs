//! Local frictional contact problems in 2D and 3D (Siconos `FrictionContactProblem`,
//! `numerics/src/FrictionContact`): `u = W r + q` with one Coulomb cone per contact.
//!
//! [`LocalFcProblem`] is generic over the contact dimension `D` (2 or 3); use the aliases
//! [`Fc2dProblem`] and [`Fc3dProblem`]. Only the problem types live here for now; solvers come
//! with a later issue. The global form (`M v = q + H r`) is in [`crate::gfc`].

pub(crate) mod problem;

pub use problem::{Fc2dProblem, Fc3dProblem, LocalFcProblem};
