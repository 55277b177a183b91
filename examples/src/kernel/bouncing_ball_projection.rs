//! The bouncing ball of Siconos' `BouncingBallTS` (module [`bouncing_ball`](super::bouncing_ball))
//! integrated by Moreau–Jean with projection onto the constraint (direct or combined, Siconos'
//! default tolerances).

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::kernel::simulation::{
    CombinedProjectionOptions, DirectProjectionOptions, MoreauJeanCombinedProjectionOsi, MoreauJeanDirectProjectionOsi,
    MoreauJeanOptions, Trajectory,
};

use super::bouncing_ball::BouncingBall;

/// Names of the columns of [`simulate`]'s rows (header of the example's `--output` file): time,
/// height `x`, velocity `ẋ`, velocity-level impulse `p(1)[0]` and multiplier `λ(1)[0]`, position
/// correction `p(0)[0]` and multiplier `λ(0)[0]` of the last projection iteration.
pub const COLUMN_NAMES: [&str; 7] = ["t", "x", "v_x", "p1_x", "lambda1", "p0_x", "lambda0"];

/// Which projection (on the command line: `direct`, `combined`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Projection {
    /// [`MoreauJeanDirectProjectionOsi`].
    Direct,
    /// [`MoreauJeanCombinedProjectionOsi`].
    Combined,
}

/// Runs the ball and returns the rows `t, x, ẋ, p(1)[0], λ(1)[0], p(0)[0], λ(0)[0]` (the velocity
/// impulse and multiplier, then the position-level correction `p(0) = Hᵀλ(0)` and multiplier of the
/// last projection iteration), row 0 the initial state: the columns of
/// `examples/data/siconos/BouncingBall{Direct,Combined}Projection.ref`.
///
/// # Errors
/// Kernel errors.
pub fn simulate(ball: &BouncingBall, projection: Projection) -> Result<Trajectory, KernelError> {
    Ok(simulate_with_summary(ball, projection)?.0)
}

/// As [`simulate`], with the convergence of the run's steps (`TimeStepping::run_summary`).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_with_summary(
    ball: &BouncingBall,
    projection: Projection,
) -> Result<(Trajectory, RunSummary), KernelError> {
    let mj = MoreauJeanOptions::default().with_theta(0.5);
    let (mut sim, ds, contact) = match projection {
        Projection::Direct => {
            ball.build_with(MoreauJeanDirectProjectionOsi::new(mj, DirectProjectionOptions::default())?)?
        }
        Projection::Combined => {
            ball.build_with(MoreauJeanCombinedProjectionOsi::new(mj, CombinedProjectionOptions::default())?)?
        }
    };
    let mut out = Trajectory::new(7);
    loop {
        let state = sim.nsds().ds(ds)?.state();
        let inter = sim.nsds().interaction(contact)?;
        out.push(&[
            sim.time(),
            state.q()[0],
            state.v()[0],
            state.p(1)[0],
            inter.lambda(1)[0],
            state.p(0)[0],
            inter.lambda(0)[0],
        ]);
        if !sim.has_next_step() {
            break;
        }
        sim.step()?;
    }
    Ok((out, sim.run_summary()))
}
