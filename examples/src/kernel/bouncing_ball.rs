//! The bouncing ball of Siconos' `BouncingBallTS` example (Siconos tutorials):
//! a ball of mass 1 and radius 0.1 (`q = (x, y, θ)`, `x` vertical), dropped from `x = 1`
//! on the ground `x = 0` (`y = x`, the radius is ignored as in Siconos), Newton impact law
//! with `e = 0.9`, Moreau–Jean θ = 1/2, Lemke, `h = 0.005`, `T = 10`.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids};
use nonsmooth::kernel::simulation::{
    MoreauJeanOsi, OneStepIntegrator, OneStepNsProblem, RunSummary, TimeDiscretisation, TimeStepping,
    TimeSteppingOptions, Trajectory,
};

/// Names of the columns of [`BouncingBall::simulate`]'s rows (header of the example's `--output`
/// file): time, height `x`, velocity `ẋ`, impulse `p(1)[0]` on `x` over the step, contact
/// impulse `λ(1)[0]`.
pub const COLUMN_NAMES: [&str; 5] = ["t", "x", "v_x", "p1_x", "lambda1"];

/// Parameters of the model.
#[derive(Clone, Copy, Debug)]
pub struct BouncingBall {
    /// Time step (default 0.005).
    pub h: f64,
    /// Final time (default 10).
    pub t_end: f64,
    /// Restitution coefficient (default 0.9).
    pub restitution: f64,
    /// Initial height (default 1).
    pub height: f64,
}

impl Default for BouncingBall {
    fn default() -> Self {
        Self { h: 0.005, t_end: 10.0, restitution: 0.9, height: 1.0 }
    }
}

/// Mass and radius of the ball, gravity.
pub const MASS: f64 = 1.0;
/// Radius.
pub const RADIUS: f64 = 0.1;
/// Gravity.
pub const GRAVITY: f64 = 9.81;

impl BouncingBall {
    /// The simulation, ready to step, with the ball's and the contact's handles.
    ///
    /// # Errors
    /// Kernel errors (none for valid parameters).
    pub fn build(&self) -> Result<(TimeStepping, DsId, InteractionId), KernelError> {
        self.build_with(MoreauJeanOsi::with_theta(0.5)?)
    }

    /// The same model integrated by `osi` (Moreau–Jean, its projection variants, or
    /// Schatzman–Paoli), with Siconos' default LCP.
    ///
    /// # Errors
    /// Kernel errors (none for valid parameters).
    pub fn build_with(&self, osi: impl OneStepIntegrator) -> Result<(TimeStepping, DsId, InteractionId), KernelError> {
        let (m, r) = (MASS, RADIUS);
        let mass = faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, 2.0 / 5.0 * m * r * r]];
        let ball = LagrangianLinearTids::new(vec![self.height, 0.0, 0.0], vec![0.0; 3], mass)?
            .with_external_force(vec![-m * GRAVITY, 0.0, 0.0])?;
        let (nsds, ball, contact) = super::ball_on_the_ground(ball, self.restitution)?;
        let sim = TimeStepping::new(
            nsds,
            osi,
            OneStepNsProblem::lcp_default()?,
            TimeDiscretisation::new(0.0, self.h, self.t_end)?,
            TimeSteppingOptions::default(),
        )?;
        Ok((sim, ball, contact))
    }

    /// Runs the model and returns the rows of `BouncingBallTS.ref`: `t, x, ẋ, p(1)[0], λ(1)[0]`,
    /// row 0 being the initial state.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate(&self) -> Result<Trajectory, KernelError> {
        Ok(self.simulate_with_summary()?.0)
    }

    /// As [`BouncingBall::simulate`], with the convergence of the run's steps
    /// (`TimeStepping::run_summary`).
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate_with_summary(&self) -> Result<(Trajectory, RunSummary), KernelError> {
        let (mut sim, ball, contact) = self.build()?;
        let mut out = Trajectory::new(5);
        let row = |sim: &TimeStepping| -> Result<[f64; 5], KernelError> {
            let ds = sim.nsds().ds(ball)?;
            let inter = sim.nsds().interaction(contact)?;
            Ok([sim.time(), ds.state().q()[0], ds.state().v()[0], ds.state().p(1)[0], inter.lambda(1)[0]])
        };
        out.push(&row(&sim)?);
        while sim.has_next_step() {
            sim.step()?;
            out.push(&row(&sim)?);
        }
        Ok((out, sim.run_summary()))
    }
}
