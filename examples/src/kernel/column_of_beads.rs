//! A column of beads falling on a floor, with bead–bead contacts created and removed during the
//! run by a contact detector.
//!
//! Model: `N = 10` beads on a vertical line, each a [`LagrangianLinearTids`] with one degree of
//! freedom `z_i` (height of its centre), mass `m = 1`, radius `R = 0.1`, weight `−m g`
//! (`g = 9.81`). Initial state: `z_0 = 0.5` (the lowest bead's centre is 0.5 above the floor,
//! its gap `0.4`), gaps of `0.05` between neighbours (`z_i = 0.5 + i (2R + 0.05)`), and upward
//! velocities varying per bead, `v_i = 1 + 0.8 sin(2.3 i)`, so that neighbours approach or
//! separate: the column spreads, re-collides and bounces on the floor.
//!
//! Interactions (Newton impact law, `e = 0.9`):
//! - the floor, `y = z_0 − R` ([`LagrangianLinearTir`] `H = [1]`, offset `−R`), always linked;
//! - bead `i − 1` / bead `i` (`i = 1..N`), `y = z_i − z_{i−1} − 2R` (`H = [−1, 1]`, offset `−2R`,
//!   linked to `[bead i−1, bead i]`), linked and removed between steps by [`ContactDetector`]
//!   (or all linked from the start with [`ColumnOfBeads::all_contacts_from_start`]).
//!
//! Moreau–Jean θ = 1/2 (γ = 1/2), Lemke (Siconos' default LCP), `h = 1e-3`, `T = 2`.
//!
//! Output rows ([`ColumnOfBeads::simulate`], the example's `--output` file), one per time
//! `t_k` (row 0 is the initial state): `t, z_0 … z_{N−1}, v_0 … v_{N−1}, n_interactions,
//! n_active` — `2N + 3` columns; `n_interactions` counts the interactions linked during the step
//! that ended at `t` (row 0: before the first detection, the floor only) and `n_active` those
//! in its velocity-level problem (index set 1).

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::kernel::simulation::{
    MoreauJeanOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};

/// Mass of a bead.
pub const MASS: f64 = 1.0;
/// Radius of a bead.
pub const RADIUS: f64 = 0.1;
/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// The contact detector run between steps on every pair of neighbouring beads, with gap
/// `y = z_i − z_{i−1} − 2R` and relative velocity `ẏ = v_i − v_{i−1}`:
/// - an absent contact is linked when `y ≤ create_distance + velocity_factor · |ẏ| h`;
/// - a present contact is removed when `y > remove_distance + velocity_factor · |ẏ| h`.
///
/// Why this cannot change the physics: the next step enters a contact into its LCP when
/// `y_k + γ h ẏ_k ≤ 0` (γ = 1/2), computed from the same state `(z_k, v_k)` the detector sees,
/// hence only when `y_k ≤ γ h |ẏ_k|`. With `velocity_factor ≥ γ` every contact the step would
/// activate is linked before it, and a contact is removed only when `y_k > γ h |ẏ_k|`, i.e. when
/// the step would leave it inactive; an inactive interaction contributes nothing (its `λ` is
/// zero). The defaults (`0.02`, `0.04`, factor 1) keep a margin of twice the activation
/// distance plus 2 cm (20% of a radius), as a detector called less often than every step
/// would need; the hysteresis `remove_distance > create_distance` avoids relinking a contact at
/// every step while a gap hovers around one distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactDetector {
    /// Constant part of the creation distance (default: `0.02`).
    pub create_distance: f64,
    /// Constant part of the removal distance, larger than `create_distance` (default: `0.04`).
    pub remove_distance: f64,
    /// Factor of `|ẏ| h` added to both distances, at least γ = 1/2 (default: `1.0`).
    pub velocity_factor: f64,
}

impl Default for ContactDetector {
    fn default() -> Self {
        Self { create_distance: 0.02, remove_distance: 0.04, velocity_factor: 1.0 }
    }
}

/// Parameters of the column of beads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColumnOfBeads {
    /// Number of beads (default: `10`).
    pub beads: usize,
    /// Time step (default: `1e-3`).
    pub h: f64,
    /// Final time (default: `2`).
    pub t_end: f64,
    /// Restitution coefficient of every contact (default: `0.9`).
    pub restitution: f64,
    /// Height of the lowest bead's centre (default: `0.5`).
    pub z0: f64,
    /// Initial gap between neighbouring beads (default: `0.05`).
    pub gap: f64,
    /// The contact detector (default: [`ContactDetector::default`]).
    pub detector: ContactDetector,
    /// Link the `N − 1` bead contacts at the start and never remove them, instead of running
    /// the detector (default: `false`).
    pub all_contacts_from_start: bool,
}

impl Default for ColumnOfBeads {
    fn default() -> Self {
        Self {
            beads: 10,
            h: 1e-3,
            t_end: 2.0,
            restitution: 0.9,
            z0: 0.5,
            gap: 0.05,
            detector: ContactDetector::default(),
            all_contacts_from_start: false,
        }
    }
}

/// The result of [`ColumnOfBeads::simulate`].
#[derive(Clone, Debug)]
pub struct BeadsRun {
    /// The rows `t, z, v, n_interactions, n_active` (see the module documentation).
    pub trajectory: Trajectory,
    /// Floor impulse `λ_floor[1]` of each step (entry `k` for the step ending at row `k + 1`).
    pub floor_impulse: Vec<f64>,
    /// Bead–bead contacts linked by the detector.
    pub created: usize,
    /// Bead–bead contacts removed by the detector.
    pub removed: usize,
    /// Largest number of interactions linked at once.
    pub max_interactions: usize,
    /// Convergence of the run's steps (`TimeStepping::run_summary`).
    pub summary: RunSummary,
}

/// Initial upward velocity of bead `i`: `1 + 0.8 sin(2.3 i)`.
pub fn initial_velocity(i: usize) -> f64 {
    1.0 + 0.8 * (2.3 * i as f64).sin()
}

impl ColumnOfBeads {
    /// Number of columns of the output rows, `2N + 3`.
    pub fn columns(&self) -> usize {
        2 * self.beads + 3
    }

    /// Names of the output columns (header of the example's `--output` file): `t`, the heights
    /// `z_0 … z_{N−1}`, the velocities `v_0 … v_{N−1}`, `n_interactions`, `n_active`.
    pub fn column_names(&self) -> Vec<String> {
        let mut names = vec!["t".to_owned()];
        names.extend((0..self.beads).map(|i| format!("z_{i}")));
        names.extend((0..self.beads).map(|i| format!("v_{i}")));
        names.extend(["n_interactions".to_owned(), "n_active".to_owned()]);
        names
    }

    /// The bead–bead contact between beads `i − 1` and `i`: `y = z_i − z_{i−1} − 2R`.
    fn link_pair(&self, nsds: &mut Nsds, lower: DsId, upper: DsId) -> Result<InteractionId, KernelError> {
        nsds.link(
            LagrangianLinearTir::new(faer::mat![[-1.0, 1.0]])?.with_offset(vec![-2.0 * RADIUS])?,
            NonsmoothLaw::newton_impact(self.restitution)?,
            &[lower, upper],
        )
    }

    /// The simulation ready to step, with the beads' handles and, per neighbour pair `i − 1`,
    /// `i` (entry `i − 1`), the bead contact when linked.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for fewer than two beads or bad parameters, and kernel
    /// errors.
    #[allow(clippy::type_complexity)]
    pub fn build(&self) -> Result<(TimeStepping, Vec<DsId>, InteractionId, Vec<Option<InteractionId>>), KernelError> {
        if self.beads < 2 {
            return Err(KernelError::InvalidOption { name: "beads", reason: "needs at least two beads" });
        }
        let mut nsds = Nsds::new();
        let mut beads = Vec::with_capacity(self.beads);
        for i in 0..self.beads {
            let z = self.z0 + i as f64 * (2.0 * RADIUS + self.gap);
            let bead = LagrangianLinearTids::new(vec![z], vec![initial_velocity(i)], faer::mat![[MASS]])?
                .with_external_force(vec![-MASS * GRAVITY])?;
            beads.push(nsds.add_ds(bead));
        }
        let floor = nsds.link(
            LagrangianLinearTir::new(faer::mat![[1.0]])?.with_offset(vec![-RADIUS])?,
            NonsmoothLaw::newton_impact(self.restitution)?,
            &[beads[0]],
        )?;
        let mut pairs = vec![None; self.beads - 1];
        if self.all_contacts_from_start {
            for i in 1..self.beads {
                pairs[i - 1] = Some(self.link_pair(&mut nsds, beads[i - 1], beads[i])?);
            }
        }
        let sim = TimeStepping::new(
            nsds,
            MoreauJeanOsi::with_theta(0.5)?,
            OneStepNsProblem::lcp_default()?,
            TimeDiscretisation::new(0.0, self.h, self.t_end)?,
            TimeSteppingOptions::default(),
        )?;
        Ok((sim, beads, floor, pairs))
    }

    /// Runs the detector on every neighbour pair (see [`ContactDetector`]); returns the numbers
    /// of contacts linked and removed.
    fn detect(
        &self,
        sim: &mut TimeStepping,
        beads: &[DsId],
        pairs: &mut [Option<InteractionId>],
    ) -> Result<(usize, usize), KernelError> {
        let d = self.detector;
        let (mut created, mut removed) = (0, 0);
        for i in 1..beads.len() {
            let (lo, up) = (sim.nsds().ds(beads[i - 1])?.state(), sim.nsds().ds(beads[i])?.state());
            let gap = up.q()[0] - lo.q()[0] - 2.0 * RADIUS;
            let speed = (up.v()[0] - lo.v()[0]).abs();
            let margin = d.velocity_factor * speed * self.h;
            match pairs[i - 1] {
                None if gap <= d.create_distance + margin => {
                    pairs[i - 1] = Some(self.link_pair(sim.nsds_mut(), beads[i - 1], beads[i])?);
                    created += 1;
                }
                Some(id) if gap > d.remove_distance + margin => {
                    sim.nsds_mut().remove_interaction(id)?;
                    pairs[i - 1] = None;
                    removed += 1;
                }
                _ => {}
            }
        }
        Ok((created, removed))
    }

    /// Runs the model: before each step the detector links/removes bead contacts (unless
    /// [`ColumnOfBeads::all_contacts_from_start`]), then one Moreau–Jean step.
    ///
    /// # Errors
    /// Kernel errors (none for valid parameters).
    pub fn simulate(&self) -> Result<BeadsRun, KernelError> {
        let (mut sim, beads, floor, mut pairs) = self.build()?;
        let n = self.beads;
        let mut trajectory = Trajectory::new(self.columns());
        let mut row = vec![0.0; self.columns()];
        let mut record = |sim: &TimeStepping, trajectory: &mut Trajectory| -> Result<(), KernelError> {
            row[0] = sim.time();
            for (i, &b) in beads.iter().enumerate() {
                let state = sim.nsds().ds(b)?.state();
                row[1 + i] = state.q()[0];
                row[1 + n + i] = state.v()[0];
            }
            row[1 + 2 * n] = sim.nsds().number_of_interactions() as f64;
            row[2 + 2 * n] = sim.nsds().active_interactions().len() as f64;
            trajectory.push(&row);
            Ok(())
        };
        record(&sim, &mut trajectory)?;
        let (mut created, mut removed) = (0, 0);
        let mut max_interactions = sim.nsds().number_of_interactions();
        let mut floor_impulse = Vec::new();
        while sim.has_next_step() {
            if !self.all_contacts_from_start {
                let (c, r) = self.detect(&mut sim, &beads, &mut pairs)?;
                created += c;
                removed += r;
            }
            max_interactions = max_interactions.max(sim.nsds().number_of_interactions());
            sim.step()?;
            floor_impulse.push(sim.nsds().interaction(floor)?.lambda(1)[0]);
            record(&sim, &mut trajectory)?;
        }
        Ok(BeadsRun { trajectory, floor_impulse, created, removed, max_interactions, summary: sim.run_summary() })
    }
}
