//! A ball bouncing between a floor and a ceiling, simulated event by event: one system (the
//! height `x`, mass `m`, weight `−m g`) with two unilateral contacts, the floor `y₁ = x ≥ 0` and
//! the ceiling `y₂ = H − x ≥ 0` (`LagrangianLinearTir` with `H = [1]` and `H = [−1]`, offset `H`),
//! both with the Newton impact law `ẏ⁺ = −e ẏ⁻` (Siconos' `NewtonImpactNSL`).
//!
//! Between impacts the flight is the parabola `x(t) = x_k + v_k (t − t_k) − g (t − t_k)²/2`; at
//! an impact the velocity is reversed and scaled by `e`, so the kinetic energy `m v²/2` drops by
//! `e²` and the total energy `m v²/2 + m g x` by `m (1 − e²) v⁻²/2`. The impacts alternate between
//! the ceiling and the floor as long as the apex `x + v²/(2g)` after a floor impact exceeds `H`,
//! then only the floor is hit (the test recomputes these times from the impact law).

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{EventDriven, OdeOptions, RestartingOde, SmoothIntegrator, Trajectory};

/// Names of the columns of [`BouncingBallEdTwoContacts::simulate`]'s rows (header of the example's
/// `--output` file): time, height `x`, velocity `ẋ`, impulse `p(1)` and force `p(2)` on `x`, then
/// the multipliers `λ(1)` (impulse) and `λ(2)` (force) of the floor and of the ceiling, then the
/// acceleration `ẍ` and the second derivatives `ÿ` of both gaps (as the simulation stores them:
/// [`EventDriven::acceleration`], [`EventDriven::output`]).
pub const COLUMN_NAMES: [&str; 12] = [
    "t",
    "x",
    "v_x",
    "p1_x",
    "p2_x",
    "lambda1_floor",
    "lambda2_floor",
    "lambda1_ceiling",
    "lambda2_ceiling",
    "a_x",
    "y_ddot_floor",
    "y_ddot_ceiling",
];

/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// Parameters of the model.
#[derive(Clone, Copy, Debug)]
pub struct BouncingBallEdTwoContacts {
    /// Output step (default 0.005).
    pub h: f64,
    /// Final time (default 6).
    pub t_end: f64,
    /// Restitution coefficient of both contacts (default 0.9).
    pub restitution: f64,
    /// Height of the ceiling `H` (default 1.5).
    pub ceiling: f64,
    /// Initial height (default 1).
    pub x0: f64,
    /// Initial velocity, upward positive (default 8: the first apex `1 + 64/(2g) ≈ 4.26` is far
    /// above the ceiling, and the impacts alternate ceiling/floor four times before the ceiling
    /// is out of reach).
    pub v0: f64,
    /// Mass (default 1).
    pub mass: f64,
}

impl Default for BouncingBallEdTwoContacts {
    fn default() -> Self {
        Self { h: 0.005, t_end: 6.0, restitution: 0.9, ceiling: 1.5, x0: 1.0, v0: 8.0, mass: 1.0 }
    }
}

/// The simulation and the handles of its ball, floor contact and ceiling contact.
pub type TwoContactsSimulation = (EventDriven, DsId, InteractionId, InteractionId);

impl BouncingBallEdTwoContacts {
    /// The simulation (Dormand–Prince at `rtol = atol = 1e-14`, Siconos' default tolerances
    /// `TOL_ED` and Lemke LCPs).
    ///
    /// # Errors
    /// Kernel errors (e.g. an initial position outside `[0, H]`).
    pub fn build(&self) -> Result<TwoContactsSimulation, KernelError> {
        let options = OdeOptions::default().with_rtol(1e-14).with_atol(1e-14);
        self.build_with(RestartingOde::new(options)?)
    }

    /// The simulation with the given smooth integrator (e.g. `LsodarSmooth::siconos()`, as
    /// Siconos' `LsodarOSI`).
    ///
    /// # Errors
    /// Kernel errors (e.g. an initial position outside `[0, H]`).
    pub fn build_with(
        &self,
        integrator: impl SmoothIntegrator + 'static,
    ) -> Result<TwoContactsSimulation, KernelError> {
        let m = self.mass;
        let ball = LagrangianLinearTids::new(vec![self.x0], vec![self.v0], faer::mat![[m]])?
            .with_external_force(vec![-m * GRAVITY])?;
        let mut nsds = Nsds::new();
        let ball = nsds.add_ds(ball);
        let law = NonsmoothLaw::newton_impact(self.restitution)?;
        let floor = nsds.link(LagrangianLinearTir::new(faer::mat![[1.0]])?, law, &[ball])?;
        let ceiling =
            nsds.link(LagrangianLinearTir::new(faer::mat![[-1.0]])?.with_offset(vec![self.ceiling])?, law, &[ball])?;
        let sim = super::event_driven(nsds, self.h, self.t_end, integrator)?;
        Ok((sim, ball, floor, ceiling))
    }

    /// Runs the simulation and returns one row per processed event (no row for `t0`):
    /// `t, x, ẋ, p(1), p(2), λ_floor(1), λ_floor(2), λ_ceiling(1), λ_ceiling(2), ẍ, ÿ_floor,
    /// ÿ_ceiling`. Before each impact row comes a pre-impact row with the same time (the state
    /// just before the impact, the impulse `p(1)`, multipliers 0, the acceleration and `ÿ`
    /// after the event), as in `bouncing_ball_ed`.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate(&self) -> Result<Trajectory, KernelError> {
        let (sim, ball, floor, ceiling) = self.build()?;
        run(sim, ball, floor, ceiling)
    }
}

/// Steps `sim` (built by [`BouncingBallEdTwoContacts::build_with`]) to the end, writing the rows
/// of [`BouncingBallEdTwoContacts::simulate`].
///
/// # Errors
/// Kernel errors.
pub fn run(
    mut sim: EventDriven,
    ball: DsId,
    floor: InteractionId,
    ceiling: InteractionId,
) -> Result<Trajectory, KernelError> {
    let mut out = Trajectory::new(COLUMN_NAMES.len());
    while sim.has_next_event() {
        sim.advance_to_event()?;
        let Some(report) = sim.process_events()? else { break };
        let (q, v) = sim.with_nsds(|nsds| -> Result<_, KernelError> {
            let s = nsds.ds(ball)?.state();
            Ok((s.q()[0], s.v()[0]))
        })?;
        let row = [
            report.time,
            q,
            v,
            sim.reaction(ball, 1)?[0],
            sim.reaction(ball, 2)?[0],
            sim.multiplier(floor, 1)?[0],
            sim.multiplier(floor, 2)?[0],
            sim.multiplier(ceiling, 1)?[0],
            sim.multiplier(ceiling, 2)?[0],
            sim.acceleration(ball)?[0],
            sim.output(floor, 2)?[0],
            sim.output(ceiling, 2)?[0],
        ];
        if report.impact {
            let (pq, pv) = sim.pre_impact_state(ball)?;
            out.push(&[report.time, pq[0], pv[0], row[3], row[4], 0.0, 0.0, 0.0, 0.0, row[9], row[10], row[11]]);
        }
        out.push(&row);
    }
    Ok(out)
}
