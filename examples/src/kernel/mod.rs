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
use nonsmooth::kernel::model::Nsds;
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
