//! Models of the kernel examples (Moreau–Jean time-stepping of second-order systems, Euler–Moreau of
//! first-order ones).

pub mod bouncing_ball;
pub mod bouncing_ball_ed;
pub mod bouncing_ball_ed_resting;
pub mod bouncing_ball_ed_two_contacts;
pub mod bouncing_ball_projection;
pub mod bouncing_ball_schatzman_paoli;
pub mod cam_follower;
pub mod circuit_rlcd_theta_gamma;
pub mod column_of_beads;
pub mod diode_bridge;
pub mod double_pendulum;
pub mod linear_oscillator_ed;
pub mod mixed_integrators;
pub mod nonlinear_switch;
pub mod pendulum_ed;
pub mod simple_example_relay;
pub mod slider_crank;
pub mod slope_block_ed;
pub mod two_bouncing_balls_global;
pub mod woodpecker;

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{EventDriven, EventDrivenOptions, SmoothIntegrator, TimeDiscretisation};

/// An event-driven simulation of `nsds` with its outputs every `h` from `t = 0` to `t_end`,
/// integrated by `integrator`, with the default options (Siconos' `EventDriven` on a
/// `TimeDiscretisation`).
///
/// # Errors
/// Those of [`TimeDiscretisation::new`] and [`EventDriven::new`].
pub fn event_driven(
    nsds: Nsds,
    h: f64,
    t_end: f64,
    integrator: impl SmoothIntegrator + 'static,
) -> Result<EventDriven, KernelError> {
    EventDriven::new(nsds, TimeDiscretisation::new(0.0, h, t_end)?, integrator, EventDrivenOptions::default())
}

/// A model of one ball `ball` (coordinates `q = (x, y, θ)`, `x` the height) above the ground
/// `x = 0`: the relation `y = x` (`H = (1 0 0)`) with Newton's impact law of restitution
/// `restitution` (Siconos' `BouncingBall` examples). Returns the model, the ball and the contact.
///
/// # Errors
/// [`KernelError::InvalidParameter`] for a restitution outside `[0, 1]`.
pub fn ball_on_the_ground(
    ball: LagrangianLinearTids,
    restitution: f64,
) -> Result<(Nsds, DsId, InteractionId), KernelError> {
    let mut nsds = Nsds::new();
    let ball = nsds.add_ds(ball);
    let contact = nsds.link(
        LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?,
        NonsmoothLaw::newton_impact(restitution)?,
        &[ball],
    )?;
    Ok((nsds, ball, contact))
}
