//! The event-driven bouncing ball of `bouncing_ball_ed` coming to rest on the floor.
//!
//! Dropped from `x₀` at rest, the ball hits the floor at `t₁ = √(2 x₀ / g)` with `v₁ = g t₁`.
//! With `e = 0` it stops at once: the post-impact gap velocity is 0, the contact enters `I_2`
//! and the acceleration LCP gives the contact force `λ(2) = m g` (the weight) from then on.
//! With `0 < e < 1` the flight times `2 eᵏ v₁ / g` sum to a finite accumulation (Zeno) time
//! `t* = t₁ + 2 v₁ e / (g (1 − e))`; the simulation reaches rest when a post-impact gap velocity
//! falls below `TOL_ED`, after which `λ(2) = m g` again. Rest comes slightly before `t*`, the
//! last flights being cut short by the `TOL_ED` guards: Siconos 4.4 (and this model, which
//! integrates with the LSODAR port) at `t = 8.578947785488516` for `e = 0.9`, 1.4e-6 s before
//! `t*`; 8.2e-8 s before `t*` for `e = 0.5`.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::simulation::{Trajectory, ZenoAccumulation};

use super::bouncing_ball_ed::{BouncingBallEd, GRAVITY};

/// Names of the columns of [`RestingRun::rows`] (header of the example's `--output` file): time,
/// height `x`, velocity `ẋ`, impulse `p(1)`, contact force `p(2)`, multipliers `λ(1)`, `λ(2)`, and
/// the size of index set 2 (1 while the ball rests on the floor).
pub const COLUMN_NAMES: [&str; 8] = ["t", "x", "v_x", "p1_x", "p2_x", "lambda1", "lambda2", "size_I2"];

/// Parameters of the model.
#[derive(Clone, Copy, Debug)]
pub struct BouncingBallEdResting {
    /// Output step (default 0.005).
    pub h: f64,
    /// Final time (default 2, beyond `t* ≈ 1.355` for `e = 0.5`).
    pub t_end: f64,
    /// Restitution coefficient (default 0.5).
    pub restitution: f64,
    /// Initial height (default 1).
    pub height: f64,
}

impl Default for BouncingBallEdResting {
    fn default() -> Self {
        Self { h: 0.005, t_end: 2.0, restitution: 0.5, height: 1.0 }
    }
}

/// The rows and what the run found.
#[derive(Clone, Debug)]
pub struct RestingRun {
    /// Rows `t, x, ẋ, p(1), p(2), λ(1), λ(2), |I_2|`, one per processed event (no row for
    /// `t0`), with a pre-impact row (same time, the state before the impact, multipliers 0)
    /// before each impact row, as in `bouncing_ball_ed`.
    pub rows: Trajectory,
    /// Number of impacts.
    pub impacts: usize,
    /// Time of the first event after which the contact is in `I_2` (rest), if any.
    pub rest_time: Option<f64>,
    /// The accumulation of impacts the simulation's Zeno detector reported, if any (none when
    /// the `I_2` switch catches the accumulation, as at the default `TOL_ED`).
    pub zeno: Option<ZenoAccumulation>,
}

impl BouncingBallEdResting {
    /// The accumulation time `t* = t₁ + 2 v₁ e / (g (1 − e))`, `t₁ = √(2 x₀/g)`, `v₁ = g t₁`
    /// (`t₁` for `e = 0`).
    pub fn accumulation_time(&self) -> f64 {
        let t1 = (2.0 * self.height / GRAVITY).sqrt();
        let v1 = GRAVITY * t1;
        t1 + 2.0 * v1 * self.restitution / (GRAVITY * (1.0 - self.restitution))
    }

    /// Runs the simulation (the ball of `bouncing_ball_ed`, mass 1, so `m g = 9.81`, built by
    /// `BouncingBallEd::build`: our port of LSODAR at Siconos' tolerances).
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate(&self) -> Result<RestingRun, KernelError> {
        let model = BouncingBallEd { h: self.h, t_end: self.t_end, restitution: self.restitution, height: self.height };
        let (mut sim, ball, contact) = model.build()?;
        let mut rows = Trajectory::new(8);
        let mut rest_time = None;
        while sim.has_next_event() {
            sim.advance_to_event()?;
            let Some(report) = sim.process_events()? else { break };
            let resting = report.index_sets.1 > 0;
            if resting && rest_time.is_none() {
                rest_time = Some(report.time);
            }
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
                sim.multiplier(contact, 1)?[0],
                sim.multiplier(contact, 2)?[0],
                report.index_sets.1 as f64,
            ];
            if report.impact {
                let (pq, pv) = sim.pre_impact_state(ball)?;
                rows.push(&[report.time, pq[0], pv[0], row[3], row[4], 0.0, 0.0, 0.0]);
            }
            rows.push(&row);
        }
        Ok(RestingRun { rows, impacts: sim.impacts(), rest_time, zeno: sim.zeno() })
    }
}
