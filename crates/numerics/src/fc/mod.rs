//! Local frictional contact problems in 2D and 3D (Siconos `FrictionContactProblem`,
//! `numerics/src/FrictionContact`): `u = W r + q` with one Coulomb cone per contact.
//!
//! [`LocalFcProblem`] is generic over the contact dimension `D` (2 or 3); use the aliases
//! [`Fc2dProblem`] and [`Fc3dProblem`]. Here: the problems, their error measure
//! ([`LocalFcProblem::compute_error`], Siconos 4.4's `fc3d_compute_error` / `fc2d_compute_error`),
//! the projection on the Coulomb cone, and the solvers: the one-contact FC3D solvers of
//! [`local`], NSGS ([`nsgs`], and [`factored`] on a Delassus operator kept as `H M⁻¹ Hᵀ`), the
//! nonsmooth Newton method [`nsn_ac`], the proximal point method [`prox`], and for FC2D
//! [`nsgs2d`], Siconos' dense NSGS ([`Fc2dNsgsDenseSolver`]) and Lemke on the LCP
//! reformulation ([`fc2d_lcp`]); [`Fc3dMethod`] and [`Fc2dMethod`] choose a solver at run time,
//! built into a [`Fc3dSolver`] or an [`Fc2dSolver`]. The global
//! form (`M v = q + H r`) is in [`crate::gfc`].

mod anderson;
pub mod colouring;
pub(crate) mod compute_error;
pub mod factored;
pub mod fc2d_lcp;
pub mod local;
pub mod method;
pub mod nsgs;
pub mod nsgs2d;
mod nsgs2d_dense;
pub mod nsn_ac;
pub(crate) mod problem;
pub(crate) mod projection;
pub mod prox;
mod sweep;

pub use compute_error::contact_error_squared;
pub use factored::{FactoredDelassus, FactoredFc3dProblem, FactoredNsgsSolver};
pub use method::{Fc2dMethod, Fc2dSolver, Fc3dMethod, Fc3dSolver};
pub use nsgs2d_dense::{Fc2dNsgsDenseOptions, Fc2dNsgsDenseSolver};
pub use problem::{Fc2dProblem, Fc3dProblem, LocalFcProblem};
pub use projection::{ConeProjection, projection_on_cone, projection_on_cone_2d};
