//! A block on a frictional slope whose angle grows with time, simulated event by event: it
//! sticks while `tan θ(t) < μ`, then slips.
//!
//! Model. A point mass `m` in the frame of the slope, `q = (x, y)` (`x` down the slope, `y`
//! along its normal), on the plane `y = 0`. Tilting the slope at the rate `ω` is the same as
//! rotating gravity in that frame: `F(t) = m g (sin θ(t), −cos θ(t))`, `θ(t) = θ₀ + ω t` (the
//! frame's rotation itself is neglected: the model is the classical block on an incline whose
//! angle is a given function of time). The contact is the linear relation `y = (q_y, q_x)`
//! (normal row, then the tangent) with a Newton impact law with 2D Coulomb friction of
//! coefficient `μ`.
//!
//! While it sticks, the acceleration problem gives `λ_N = m g cos θ`, `λ_T = −m g sin θ`; the
//! friction root function `μ λ_N − |λ_T| = m g (μ cos θ − sin θ)` vanishes at
//! `t_s = (atan μ − θ₀)/ω`, where the block starts to slip down the slope with
//! `ẍ = g (sin θ − μ cos θ)` (Pfeiffer and Glocker 1996; Acary and Brogliato 2008, chapter 7),
//! so that for `t ≥ t_s`
//!
//! `ẋ(t) = (g/ω) [cos θ_s − cos θ + μ (sin θ_s − sin θ)]`,
//! `x(t) = (g/ω) [(cos θ_s + μ sin θ_s)(t − t_s) − (sin θ − sin θ_s)/ω + μ (cos θ − cos θ_s)/ω]`.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{EventDriven, EventKind, FrictionMode, OdeOptions, RestartingOde, Trajectory};

/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// Names of the columns of [`SlopeBlockRun::rows`]: time, position and velocity along the slope
/// and its normal, the slope angle, the contact forces `λ_N(2)`, `λ_T(2)`, sizes of index sets 1
/// and 2.
pub const COLUMN_NAMES: [&str; 10] =
    ["t", "x", "y", "v_x", "v_y", "theta", "lambda2_n", "lambda2_t", "size_I1", "size_I2"];

/// Parameters of the model.
#[derive(Clone, Copy, Debug)]
pub struct SlopeBlockEd {
    /// Output step (default 0.05).
    pub h: f64,
    /// Final time (default 1).
    pub t_end: f64,
    /// Mass (default 1).
    pub mass: f64,
    /// Friction coefficient (default 0.5).
    pub mu: f64,
    /// Initial slope angle θ₀ in radians (default 0.2).
    pub theta0: f64,
    /// Tilting rate ω in rad/s (default 0.5).
    pub omega: f64,
}

impl Default for SlopeBlockEd {
    fn default() -> Self {
        Self { h: 0.05, t_end: 1.0, mass: 1.0, mu: 0.5, theta0: 0.2, omega: 0.5 }
    }
}

/// The rows and the events of a run.
#[derive(Clone, Debug)]
pub struct SlopeBlockRun {
    /// One row per processed event (columns [`COLUMN_NAMES`]).
    pub rows: Trajectory,
    /// The nonsmooth events: `(t, impact, |I_1|, |I_2|)`.
    pub events: Vec<(f64, bool, usize, usize)>,
    /// The friction mode of the contact after each row's event.
    pub modes: Vec<FrictionMode>,
}

impl SlopeBlockEd {
    /// The slope angle at `t`.
    pub fn theta(&self, t: f64) -> f64 {
        self.theta0 + self.omega * t
    }

    /// The analytic slip time `t_s = (atan μ − θ₀)/ω` (0 when the slope is already steeper than
    /// the friction angle).
    pub fn slip_time(&self) -> f64 {
        ((self.mu.atan() - self.theta0) / self.omega).max(0.0)
    }

    /// The analytic `(x, ẋ)` at `t` (module documentation; at rest before `t_s`).
    pub fn analytic(&self, t: f64) -> (f64, f64) {
        let ts = self.slip_time();
        if t <= ts {
            return (0.0, 0.0);
        }
        let (g, w, mu) = (GRAVITY, self.omega, self.mu);
        let (th, ths) = (self.theta(t), self.theta(ts));
        let v = g / w * (ths.cos() - th.cos() + mu * (ths.sin() - th.sin()));
        let x = g / w
            * ((ths.cos() + mu * ths.sin()) * (t - ts) - (th.sin() - ths.sin()) / w + mu * (th.cos() - ths.cos()) / w);
        (x, v)
    }

    /// The simulation (Dormand–Prince at `rtol = atol = 1e-12`, default `TOL_ED`), the block
    /// and its contact.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn build(&self) -> Result<(EventDriven, DsId, InteractionId), KernelError> {
        let m = self.mass;
        let (theta0, omega) = (self.theta0, self.omega);
        let block = LagrangianLinearTids::new(vec![0.0, 0.0], vec![0.0, 0.0], faer::mat![[m, 0.0], [0.0, m]])?
            .with_external_force_fn(move |t, f| {
                let th = theta0 + omega * t;
                f[0] = m * GRAVITY * th.sin();
                f[1] = -m * GRAVITY * th.cos();
            });
        let contact = LagrangianLinearTir::new(faer::mat![[0.0, 1.0], [1.0, 0.0]])?;
        let mut nsds = Nsds::new();
        let block = nsds.add_ds(block);
        let contact = nsds.link(contact, NonsmoothLaw::newton_impact_friction(0.0, 0.0, self.mu, 2)?, &[block])?;
        let options = OdeOptions::default().with_rtol(1e-12).with_atol(1e-12);
        let sim = super::event_driven(nsds, self.h, self.t_end, RestartingOde::new(options)?)?;
        Ok((sim, block, contact))
    }

    /// Runs the simulation.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate(&self) -> Result<SlopeBlockRun, KernelError> {
        let (mut sim, block, contact) = self.build()?;
        let mut rows = Trajectory::new(COLUMN_NAMES.len());
        let mut events = Vec::new();
        let mut modes = Vec::new();
        while sim.has_next_event() {
            sim.advance_to_event()?;
            let Some(report) = sim.process_events()? else { break };
            let (i1, i2) = report.index_sets;
            if report.kind == EventKind::Nonsmooth {
                events.push((report.time, report.impact, i1, i2));
            }
            let row = sim.with_nsds(|nsds| -> Result<[f64; 10], KernelError> {
                let s = nsds.ds(block)?.state();
                let c = nsds.interaction(contact)?;
                Ok([
                    report.time,
                    s.q()[0],
                    s.q()[1],
                    s.v()[0],
                    s.v()[1],
                    self.theta(report.time),
                    c.lambda(2)[0],
                    c.lambda(2)[1],
                    i1 as f64,
                    i2 as f64,
                ])
            })?;
            rows.push(&row);
            modes.push(sim.friction_mode(contact)?);
        }
        Ok(SlopeBlockRun { rows, events, modes })
    }
}
