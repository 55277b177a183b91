//! The bouncing ball of Siconos' `BouncingBallTS` (module [`bouncing_ball`](super::bouncing_ball))
//! integrated by the Schatzman–Paoli scheme: position-level LCP `0 ≤ y_{k+1} + e y_{k−1} ⊥ λ ≥ 0`
//! on the contact at every step, θ = 1/2, Siconos' start-up by default.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::kernel::simulation::{SchatzmanPaoliOptions, SchatzmanPaoliOsi, SchatzmanPaoliStartup, Trajectory};

use super::bouncing_ball::BouncingBall;

/// Names of the columns of [`simulate`]'s rows (header of the example's `--output` file): time,
/// height `x`, velocity `ẋ` (centred difference), position-level impulse `p(0)[0]` and multiplier
/// `λ(0)[0]`.
pub const COLUMN_NAMES: [&str; 5] = ["t", "x", "v_x", "p0_x", "lambda0"];

/// Runs the ball with the Schatzman–Paoli scheme and returns the rows `t, x, ẋ, p(0)[0], λ(0)[0]`
/// (row 0 the state after the start-up at `t0`; with `v0 = 0` it is the initial state), the
/// columns of `examples/data/siconos/BouncingBallSchatzmanPaoli.ref`.
///
/// # Errors
/// Kernel errors.
pub fn simulate(ball: &BouncingBall, startup: SchatzmanPaoliStartup) -> Result<Trajectory, KernelError> {
    Ok(simulate_with_summary(ball, startup)?.0)
}

/// As [`simulate`], with the convergence of the run's steps (`TimeStepping::run_summary`).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_with_summary(
    ball: &BouncingBall,
    startup: SchatzmanPaoliStartup,
) -> Result<(Trajectory, RunSummary), KernelError> {
    let osi = SchatzmanPaoliOsi::new(SchatzmanPaoliOptions::default().with_theta(0.5).with_startup(startup))?;
    let (mut sim, ds, contact) = ball.build_with(osi)?;
    let mut out = Trajectory::new(5);
    loop {
        let state = sim.nsds().ds(ds)?.state();
        let lambda = sim.nsds().interaction(contact)?.lambda(0)[0];
        out.push(&[sim.time(), state.q()[0], state.v()[0], state.p(0)[0], lambda]);
        if !sim.has_next_step() {
            break;
        }
        sim.step()?;
    }
    Ok((out, sim.run_summary()))
}
