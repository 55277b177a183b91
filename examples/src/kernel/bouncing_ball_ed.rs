//! Siconos' `BouncingBallED` example (Siconos tutorials): the bouncing ball of
//! `BouncingBallTS` (with the rotational inertia `3/5 m R²`), simulated event by event: smooth
//! flights integrated with root finding on the gap, impacts solved at velocity level, resting
//! contact at acceleration level.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids};
use nonsmooth::kernel::simulation::{
    EventDriven, LsodarSmooth, OdeOptions, RestartingOde, SmoothIntegrator, Trajectory,
};

/// Names of the columns of [`BouncingBallEd::simulate`]'s rows (header of the example's `--output`
/// file): time, height `x`, velocity `ẋ`, impulse `p(1)[0]`, contact force `p(2)[0]`, multipliers
/// `λ(1)[0]` (impulse) and `λ(2)[0]` (force).
pub const COLUMN_NAMES: [&str; 7] = ["t", "x", "v_x", "p1_x", "p2_x", "lambda1", "lambda2"];

/// Parameters of the model.
#[derive(Clone, Copy, Debug)]
pub struct BouncingBallEd {
    /// Output step (default 0.005).
    pub h: f64,
    /// Final time (default 8.5).
    pub t_end: f64,
    /// Restitution coefficient (default 0.9).
    pub restitution: f64,
    /// Initial height (default 1).
    pub height: f64,
}

impl Default for BouncingBallEd {
    fn default() -> Self {
        Self { h: 0.005, t_end: 8.5, restitution: 0.9, height: 1.0 }
    }
}

/// Gravity.
pub const GRAVITY: f64 = 9.81;

impl BouncingBallEd {
    /// The simulation with the given smooth integrator, its ball and its contact.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn build_with(
        &self,
        integrator: impl SmoothIntegrator + 'static,
    ) -> Result<(EventDriven, DsId, InteractionId), KernelError> {
        let (m, r) = (1.0, 0.1);
        let mass = faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, 3.0 / 5.0 * m * r * r]];
        let ball = LagrangianLinearTids::new(vec![self.height, 0.0, 0.0], vec![0.0; 3], mass)?
            .with_external_force(vec![-m * GRAVITY, 0.0, 0.0])?;
        let (nsds, ball, contact) = super::ball_on_the_ground(ball, self.restitution)?;
        let sim = super::event_driven(nsds, self.h, self.t_end, integrator)?;
        Ok((sim, ball, contact))
    }

    /// The simulation with our port of LSODAR at Siconos' tolerances (as Siconos' `LsodarOSI`).
    ///
    /// # Errors
    /// Kernel errors.
    pub fn build(&self) -> Result<(EventDriven, DsId, InteractionId), KernelError> {
        self.build_with(LsodarSmooth::siconos())
    }

    /// The simulation with Dormand–Prince at `rtol = 1e-14`, `atol = 1e-14` (an independent
    /// integrator: its impact times agree with the analytic ones, not with LSODAR's).
    ///
    /// # Errors
    /// Kernel errors.
    pub fn build_dopri(&self) -> Result<(EventDriven, DsId, InteractionId), KernelError> {
        let options = OdeOptions::default().with_rtol(1e-14).with_atol(1e-14);
        self.build_with(RestartingOde::new(options)?)
    }

    /// Runs the simulation and returns the rows of `BouncingBallED.ref`:
    /// `t, x, ẋ, p(1)[0], p(2)[0], λ(1)[0], λ(2)[0]`, one row per event read after it is
    /// processed, plus a pre-impact row before each impact (state just before the impact,
    /// the impulse, the force, multipliers 0); no row for `t0`, as Siconos' driver.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate(&self) -> Result<Trajectory, KernelError> {
        let (sim, ball, contact) = self.build()?;
        run(sim, ball, contact)
    }
}

/// Steps `sim` to the end, writing the `.ref` rows.
///
/// # Errors
/// Kernel errors.
pub fn run(mut sim: EventDriven, ball: DsId, contact: InteractionId) -> Result<Trajectory, KernelError> {
    let mut out = Trajectory::new(7);
    while sim.has_next_event() {
        sim.advance_to_event()?;
        let nonsmooth = sim.next_event_is_nonsmooth();
        let Some(report) = sim.process_events()? else { break };
        let (q, v) = sim.with_nsds(|nsds| -> Result<_, KernelError> {
            let s = nsds.ds(ball)?.state();
            Ok((s.q()[0], s.v()[0]))
        })?;
        let (p1, p2) = (sim.reaction(ball, 1)?[0], sim.reaction(ball, 2)?[0]);
        let (l1, l2) = (sim.multiplier(contact, 1)?[0], sim.multiplier(contact, 2)?[0]);
        if nonsmooth && report.impact {
            let (pq, pv) = sim.pre_impact_state(ball)?;
            out.push(&[report.time, pq[0], pv[0], p1, p2, 0.0, 0.0]);
        }
        out.push(&[report.time, q, v, p1, p2, l1, l2]);
    }
    Ok(out)
}
