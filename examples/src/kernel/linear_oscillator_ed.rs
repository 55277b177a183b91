//! Siconos' `LinearOscillatorED` example (Siconos tutorials, `BouncingBallEventDriven`): the ball
//! of `BouncingBallED` with a light mass held by two stiff springs, dropped on the ground and
//! simulated event by event.
//!
//! `M q̈ + K q = F_ext + Hᵀ λ` with `q = (x, y, θ)`, `M = diag(m, m, 3/5 m R²)`,
//! `K = diag(k_x, k_y, 0)`, `F_ext = (−m g, 0, 0)`, `m = 10⁻³`, `k_x = k_y = 100` (angular frequency
//! `√(k/m) ≈ 316 rad/s`), `q₀ = (1, 0.001, 0)`, `v₀ = 0`; the contact `y = x ≥ 0` with Newton's
//! impact law `e = 0.9`. Between impacts our port of LSODAR integrates the flight at Siconos'
//! tolerances (`LsodarOSI`: `rtol = 10ε`, `atol = 100ε`), switching between Adams and BDF as
//! `DLSODAR` does (Petzold 1983); [`IntegrationTotals`] counts the switches over the run.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids};
use nonsmooth::kernel::simulation::{EventDriven, IntegrationTotals, LsodarSmooth, SmoothIntegrator, Trajectory};

/// Names of the columns of [`LinearOscillatorEd::simulate`]'s rows: time, height `x`, its
/// velocity, impulse `p(1)[0]`, contact force `p(2)[0]`, multipliers `λ(1)[0]` and `λ(2)[0]`,
/// lateral position `y` and its velocity.
pub const COLUMN_NAMES: [&str; 9] = ["t", "x", "v_x", "p1_x", "p2_x", "lambda1", "lambda2", "y", "v_y"];

/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// Parameters of the model (defaults: those of Siconos' tutorial).
#[derive(Clone, Copy, Debug)]
pub struct LinearOscillatorEd {
    /// Output step (default 0.005).
    pub h: f64,
    /// Final time (default 8.5).
    pub t_end: f64,
    /// Mass (default 1e-3).
    pub mass: f64,
    /// Spring stiffnesses along x and y (default 100 each).
    pub stiffness: (f64, f64),
    /// Restitution coefficient (default 0.9).
    pub restitution: f64,
}

impl Default for LinearOscillatorEd {
    fn default() -> Self {
        Self { h: 0.005, t_end: 8.5, mass: 1e-3, stiffness: (1e2, 1e2), restitution: 0.9 }
    }
}

/// A run: the rows and the integration counters.
#[derive(Clone, Debug)]
pub struct LinearOscillatorRun {
    /// The rows of `LinearOscillatorED.ref` ([`COLUMN_NAMES`]).
    pub rows: Trajectory,
    /// The counters of the smooth integration.
    pub totals: IntegrationTotals,
}

impl LinearOscillatorEd {
    /// The simulation with the given smooth integrator, its ball and its contact.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn build_with(
        &self,
        integrator: impl SmoothIntegrator + 'static,
    ) -> Result<(EventDriven, DsId, InteractionId), KernelError> {
        let (m, r) = (self.mass, 0.1);
        let mass = faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, 3.0 / 5.0 * m * r * r]];
        let (kx, ky) = self.stiffness;
        let ball = LagrangianLinearTids::new(vec![1.0, 0.001, 0.0], vec![0.0; 3], mass)?
            .with_stiffness(faer::mat![[kx, 0.0, 0.0], [0.0, ky, 0.0], [0.0, 0.0, 0.0]])?
            .with_external_force(vec![-m * GRAVITY, 0.0, 0.0])?;
        let (nsds, ball, contact) = super::ball_on_the_ground(ball, self.restitution)?;
        let sim = super::event_driven(nsds, self.h, self.t_end, integrator)?;
        Ok((sim, ball, contact))
    }

    /// Runs the model with our LSODAR at Siconos' tolerances and returns the rows of
    /// `LinearOscillatorED.ref` (one per event read after it is processed, plus a pre-impact row
    /// before each impact: the state just before it, `p(1)`, `p(2)`, then zeros; no row for
    /// `t0`, as Siconos' driver) and the integration counters.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate(&self) -> Result<LinearOscillatorRun, KernelError> {
        let (mut sim, ball, contact) = self.build_with(LsodarSmooth::siconos())?;
        let mut rows = Trajectory::new(COLUMN_NAMES.len());
        while sim.has_next_event() {
            sim.advance_to_event()?;
            let nonsmooth = sim.next_event_is_nonsmooth();
            let Some(report) = sim.process_events()? else { break };
            let row = sim.with_nsds(|nsds| -> Result<_, KernelError> {
                let s = nsds.ds(ball)?.state();
                let i = nsds.interaction(contact)?;
                Ok([
                    report.time,
                    s.q()[0],
                    s.v()[0],
                    s.p(1)[0],
                    s.p(2)[0],
                    i.lambda(1)[0],
                    i.lambda(2)[0],
                    s.q()[1],
                    s.v()[1],
                ])
            })?;
            if nonsmooth && report.impact {
                let (pq, pv) = sim.pre_impact_state(ball)?;
                rows.push(&[report.time, pq[0], pv[0], row[3], row[4], 0.0, 0.0, 0.0, 0.0]);
            }
            rows.push(&row);
        }
        let totals = sim.integration_totals().unwrap_or_default();
        Ok(LinearOscillatorRun { rows, totals })
    }
}
