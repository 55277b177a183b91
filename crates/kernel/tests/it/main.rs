//! The integration tests of nonsmooth-kernel (one binary, one module per area).
//!
//! The models are the bouncing ball of Siconos' `BouncingBallTS` example (Siconos tutorials:
//! `LagrangianLinearTids` with `q = (x, y, θ)`, `M = diag(m, m, ⅖ m R²)`,
//! `F_ext = (−m g, 0, 0)`, `y = x`) and stacks of such balls.

mod allocations;
mod custom_integrator;
mod errors;
mod event_driven;
mod event_driven_friction;
mod first_order;
mod friction;
mod global;
mod layout;
mod mixed;
mod non_finite;
mod projection;
mod properties;
mod schatzman_paoli;
mod topology;
mod zeno;

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::LagrangianLinearTids;

/// Gravity `g` (m/s²) of Siconos' `BouncingBallTS`.
pub(crate) const G: f64 = 9.81;
/// Ball radius `R` (m) of Siconos' `BouncingBallTS`.
pub(crate) const RADIUS: f64 = 0.1;

/// The mass matrix `diag(m, m, ⅖ m R²)` of a ball of mass `m`.
pub(crate) fn ball_mass(m: f64) -> Mat<f64> {
    faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, 0.4 * m * RADIUS * RADIUS]]
}

/// A ball of mass `m` at height `x0` with vertical velocity `v0`, under gravity.
pub(crate) fn ball(x0: f64, v0: f64, m: f64) -> Result<LagrangianLinearTids, KernelError> {
    LagrangianLinearTids::new(vec![x0, 0.0, 0.0], vec![v0, 0.0, 0.0], ball_mass(m))?.with_external_force(vec![
        -m * G,
        0.0,
        0.0,
    ])
}
