//! Event-capturing time-stepping (Siconos' `TimeStepping`; seed `004_92d6a38d23055e78.txt`,
//! "Simulation", and the digest's S1): one public verb, [`TimeStepping::step`].

use nonsmooth_numerics::SolverReport;

use super::euler_moreau::EulerMoreauOsi;
use super::moreau_jean::MoreauJeanOsi;
use super::osns::OneStepNsProblem;
use super::osns::{ProblemLevel, first_order_interactions};
use super::projection::{
    MoreauJeanCombinedProjectionOsi, MoreauJeanDirectProjectionOsi, ProjectionReport, check_projectable,
    clear_position_inputs, violations,
};
use super::schatzman_paoli::{SchatzmanPaoliOsi, SchatzmanPaoliStartup};
use crate::KernelError;
use crate::model::{DynamicalSystem, FirstOrderRelationKind, InteractionId, Nsds, Relation};

/// The time grid `t_k = t0 + k h` up to `t_end` (Siconos' `TimeDiscretisation`: each step's
/// length is `t_{k+1} − t_k` computed in floating point, as Siconos 4.4 does).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeDiscretisation {
    t0: f64,
    h: f64,
    t_end: f64,
}

impl TimeDiscretisation {
    /// The grid from `t0` with step `h` up to `t_end` (a step is taken while
    /// `t0 + (k + 1) h ≤ t_end`).
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for a non-positive or non-finite `h`, or `t_end < t0`.
    pub fn new(t0: f64, h: f64, t_end: f64) -> Result<Self, KernelError> {
        if !h.is_finite() || h <= 0.0 {
            return Err(KernelError::InvalidOption { name: "time step h", reason: "must be finite and positive" });
        }
        if !t0.is_finite() || !t_end.is_finite() || t_end < t0 {
            return Err(KernelError::InvalidOption { name: "time interval", reason: "needs finite t0 <= t_end" });
        }
        Ok(Self { t0, h, t_end })
    }

    /// `t_k = t0 + k h`.
    pub fn time(&self, k: usize) -> f64 {
        self.t0 + self.h * k as f64
    }

    /// The nominal step `h`.
    pub fn h(&self) -> f64 {
        self.h
    }

    /// The initial time.
    pub fn t0(&self) -> f64 {
        self.t0
    }

    /// The final time.
    pub fn t_end(&self) -> f64 {
        self.t_end
    }
}

/// The one-step integrator of a [`TimeStepping`] (a closed choice: the Moreau–Jean family and
/// Schatzman–Paoli for second-order systems, Euler–Moreau for first-order ones).
#[derive(Debug)]
#[non_exhaustive]
pub enum Integrator {
    /// [`MoreauJeanOsi`]: second-order systems, velocity-level problems.
    MoreauJean(MoreauJeanOsi),
    /// [`EulerMoreauOsi`]: first-order systems, level-0 problems.
    EulerMoreau(EulerMoreauOsi),
    /// [`SchatzmanPaoliOsi`]: linear time-invariant second-order systems, position-level
    /// problems on every interaction.
    SchatzmanPaoli(SchatzmanPaoliOsi),
    /// [`MoreauJeanDirectProjectionOsi`]: Moreau–Jean, then projection of the active
    /// constraints' positions.
    MoreauJeanDirectProjection(MoreauJeanDirectProjectionOsi),
    /// [`MoreauJeanCombinedProjectionOsi`]: Moreau–Jean with the index set built from the
    /// projected positions.
    MoreauJeanCombinedProjection(MoreauJeanCombinedProjectionOsi),
}

impl From<MoreauJeanOsi> for Integrator {
    fn from(osi: MoreauJeanOsi) -> Self {
        Integrator::MoreauJean(osi)
    }
}

impl From<EulerMoreauOsi> for Integrator {
    fn from(osi: EulerMoreauOsi) -> Self {
        Integrator::EulerMoreau(osi)
    }
}

impl From<SchatzmanPaoliOsi> for Integrator {
    fn from(osi: SchatzmanPaoliOsi) -> Self {
        Integrator::SchatzmanPaoli(osi)
    }
}

impl From<MoreauJeanDirectProjectionOsi> for Integrator {
    fn from(osi: MoreauJeanDirectProjectionOsi) -> Self {
        Integrator::MoreauJeanDirectProjection(osi)
    }
}

impl From<MoreauJeanCombinedProjectionOsi> for Integrator {
    fn from(osi: MoreauJeanCombinedProjectionOsi) -> Self {
        Integrator::MoreauJeanCombinedProjection(osi)
    }
}

impl Integrator {
    /// The Moreau–Jean part of an integrator of the Moreau–Jean family.
    fn mj(&self) -> &MoreauJeanOsi {
        match self {
            Integrator::MoreauJean(o) => o,
            Integrator::MoreauJeanDirectProjection(o) => &o.inner,
            Integrator::MoreauJeanCombinedProjection(o) => &o.inner,
            _ => unreachable!("a Moreau–Jean step runs with a Moreau–Jean integrator"),
        }
    }

    fn mj_mut(&mut self) -> &mut MoreauJeanOsi {
        match self {
            Integrator::MoreauJean(o) => o,
            Integrator::MoreauJeanDirectProjection(o) => &mut o.inner,
            Integrator::MoreauJeanCombinedProjection(o) => &mut o.inner,
            _ => unreachable!("a Moreau–Jean step runs with a Moreau–Jean integrator"),
        }
    }
}

/// The Euler–Moreau integrator of a simulation known to hold one.
macro_rules! em {
    ($osi:expr) => {
        match $osi {
            Integrator::EulerMoreau(o) => o,
            _ => unreachable!("an Euler–Moreau step runs with an Euler–Moreau integrator"),
        }
    };
}

/// What a simulation does when a one-step problem or a Newton loop does not converge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NonConvergencePolicy {
    /// Stop with [`KernelError::NotConverged`] or [`KernelError::NewtonNotConverged`]
    /// (default).
    #[default]
    Fail,
    /// Keep going; the step's [`StepReport`] says what happened and
    /// [`TimeStepping::nonconverged_steps`] counts such steps.
    Continue,
}

/// Options of [`TimeStepping`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct TimeSteppingOptions {
    /// Newton tolerance on `max_DS ‖R‖₂` (default: `1e-6`, Siconos' default).
    pub newton_tolerance: f64,
    /// Newton iteration cap (default: `50`, Siconos' default).
    pub newton_max_iterations: usize,
    /// Non-convergence policy (default: [`NonConvergencePolicy::Fail`]).
    pub on_nonconvergence: NonConvergencePolicy,
    /// Moreau–Jean steps (without projection) leave the outputs `y`, `ẏ` and the Jacobians `H`
    /// of the new state to the beginning of the next step, which computes them before its
    /// activation test (default: `false`). The simulation is the same; between steps, the
    /// interactions then hold the outputs of the beginning of the last step (and the `H` of
    /// its Newton loop). For models whose relations change before every step (contact
    /// detection), whose outputs the next step recomputes anyway.
    pub defer_outputs: bool,
}

impl Default for TimeSteppingOptions {
    fn default() -> Self {
        Self {
            newton_tolerance: 1e-6,
            newton_max_iterations: 50,
            on_nonconvergence: NonConvergencePolicy::Fail,
            defer_outputs: false,
        }
    }
}

impl TimeSteppingOptions {
    /// Sets the Newton tolerance.
    pub fn with_newton_tolerance(mut self, tolerance: f64) -> Self {
        self.newton_tolerance = tolerance;
        self
    }

    /// Sets the Newton iteration cap.
    pub fn with_newton_max_iterations(mut self, max_iterations: usize) -> Self {
        self.newton_max_iterations = max_iterations;
        self
    }

    /// Sets the non-convergence policy.
    pub fn with_policy(mut self, policy: NonConvergencePolicy) -> Self {
        self.on_nonconvergence = policy;
        self
    }

    /// Defers the outputs of each Moreau–Jean step to the beginning of the next one
    /// ([`TimeSteppingOptions::defer_outputs`]).
    pub fn with_deferred_outputs(mut self, defer: bool) -> Self {
        self.defer_outputs = defer;
        self
    }
}

/// How a step's Newton loop ended.
#[derive(Clone, Copy, Debug)]
struct NewtonOutcome {
    iterations: usize,
    residual: f64,
    converged: bool,
    linear: bool,
}

/// What one step did.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct StepReport {
    /// Index of the step (1 for the first).
    pub step: usize,
    /// Time at the end of the step, `t_{k+1}`.
    pub time: f64,
    /// Newton iterations (1 for a linear model).
    pub newton_iterations: usize,
    /// Last Newton residual `max_DS ‖R‖₂` (0 for a linear model).
    pub newton_residual: f64,
    /// Whether the Newton loop converged (always for a linear model).
    pub newton_converged: bool,
    /// Number of interactions in the velocity-level problem.
    pub active: usize,
    /// The report of the last one-step problem solved in the step, `None` when no interaction
    /// was active.
    pub osns: Option<SolverReport>,
    /// What the projection onto the constraints did (projection schemes only).
    pub projection: Option<ProjectionReport>,
    /// Where the step's time went.
    pub timings: StepTimings,
}

/// Wall-clock time of one step, split by phase (measured with `std::time::Instant`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct StepTimings {
    /// Assembling the one-step problems: `q`, `W⁻¹Hᵀ` and the matrix blocks.
    pub assembly: std::time::Duration,
    /// Inside the one-step problem solvers.
    pub solve: std::time::Duration,
    /// The whole step (the rest is integration: iteration matrices, free states, inputs,
    /// state updates, outputs, index sets, projections).
    pub total: std::time::Duration,
}

/// Moreau–Jean time-stepping of a nonsmooth dynamical system.
///
/// Each [`TimeStepping::step`] goes from `t_k` to `t_{k+1}`:
/// 1. the index set: interactions whose predicted gap `y + γ h ẏ` is closed;
/// 2. Newton loop (one pass for linear models): `W`, free velocities, the one-step problem on
///    the active interactions, inputs `p = Σ Hᵀ λ`, then velocities, positions and outputs;
/// 3. the memories `q_k`, `v_k`, `y_k` are committed.
///
/// Interactions may be linked or removed between steps through [`TimeStepping::nsds_mut`].
#[derive(Debug)]
pub struct TimeStepping {
    nsds: Nsds,
    osi: Integrator,
    osns: OneStepNsProblem,
    grid: TimeDiscretisation,
    options: TimeSteppingOptions,
    k: usize,
    seen_topology: u64,
    /// `Nsds::relation_version` when the outputs were last computed.
    seen_relations: u64,
    nonconverged: usize,
    total_newton: usize,
    /// Interactions whose position memory `y_{k−1}` is set (Schatzman–Paoli), by slot.
    sp_seen: Vec<Option<InteractionId>>,
    /// The outputs are those of the beginning of the last step (deferred outputs): the next
    /// step computes them first.
    outputs_stale: bool,
    /// `(priority, interaction)` of the active interactions, sorted by `update_index_set`.
    priority_keys: Vec<(f64, InteractionId)>,
    /// `update_index_set`'s pass over the slots: whether an interaction of index set 1 stays
    /// in it and its priority, by slot; the interactions entering it, in slot order.
    slot_stays: Vec<bool>,
    slot_priority: Vec<f64>,
    entering: Vec<InteractionId>,
}

impl TimeStepping {
    /// Prepares the simulation at `t0`: workspaces, iteration matrices, outputs `y(t0)`.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for bad options, [`KernelError::InvalidModel`] when a law
    /// does not fit the one-step problem, [`KernelError::Singular`] for a singular `W`, and any
    /// error of the user functions at `t0`.
    pub fn new(
        nsds: Nsds,
        osi: impl Into<Integrator>,
        osns: OneStepNsProblem,
        grid: TimeDiscretisation,
        options: TimeSteppingOptions,
    ) -> Result<Self, KernelError> {
        let osi = osi.into();
        if !options.newton_tolerance.is_finite() || options.newton_tolerance <= 0.0 {
            return Err(KernelError::InvalidOption { name: "newton_tolerance", reason: "must be finite and positive" });
        }
        if options.newton_max_iterations == 0 {
            return Err(KernelError::InvalidOption { name: "newton_max_iterations", reason: "must be at least 1" });
        }
        let mut sim = Self {
            nsds,
            osi,
            osns,
            grid,
            options,
            k: 0,
            seen_topology: u64::MAX,
            seen_relations: 0,
            nonconverged: 0,
            total_newton: 0,
            sp_seen: Vec::new(),
            outputs_stale: false,
            priority_keys: Vec::new(),
            slot_stays: Vec::new(),
            slot_priority: Vec::new(),
            entering: Vec::new(),
        };
        sim.refresh_topology()?;
        Ok(sim)
    }

    /// After a change of the model (and at the start): workspaces, `W` of new systems, forces
    /// of new nonlinear systems, and outputs of every interaction at the current time.
    fn refresh_topology(&mut self) -> Result<(), KernelError> {
        if self.seen_topology == self.nsds.topology_version {
            return Ok(());
        }
        self.osns.check_laws(&self.nsds)?;
        let t = self.time();
        let h0 = self.grid.time(1) - self.grid.time(0);
        let first_order =
            self.nsds.ds_graph().node_weights().filter(|d| matches!(d, DynamicalSystem::FirstOrder(_))).count();
        let second_order = self.nsds.number_of_ds() - first_order;
        if !matches!(self.osi, Integrator::EulerMoreau(_)) && first_order > 0 {
            return Err(KernelError::InvalidModel(
                "Moreau–Jean and Schatzman–Paoli integrate second-order systems; the model has first-order ones".into(),
            ));
        }
        if matches!(self.osi, Integrator::MoreauJeanDirectProjection(_) | Integrator::MoreauJeanCombinedProjection(_)) {
            check_projectable(&self.nsds)?;
        }
        match &mut self.osi {
            Integrator::SchatzmanPaoli(osi) => {
                osi.prepare(&mut self.nsds, h0)?;
                let startup = osi.options().startup;
                let started = osi.start(&mut self.nsds, t, h0)?;
                let ids: Vec<InteractionId> = self.nsds.interaction_ids().collect();
                if started && startup == SchatzmanPaoliStartup::Taylor {
                    // y_{k−1} = y(q_{−1}) for every interaction.
                    osi.swap_previous_positions(&mut self.nsds);
                    for &id in &ids {
                        self.nsds.update_output(id, t)?;
                    }
                    osi.swap_previous_positions(&mut self.nsds);
                    for &id in &ids {
                        let inter = self.nsds.interaction_mut(id);
                        let crate::model::Interaction { y, y_memory, .. } = inter;
                        y_memory[0].copy_from_slice(&y[0]);
                        self.sp_seen.resize(self.sp_seen.len().max(id.index() + 1), None);
                        self.sp_seen[id.index()] = Some(id);
                    }
                }
                // Interactions new to the scheme start with y_{k−1} = y_k (Siconos 4.4).
                for id in ids {
                    self.nsds.update_output(id, t)?;
                    if self.sp_seen.len() <= id.index() {
                        self.sp_seen.resize(id.index() + 1, None);
                    }
                    if self.sp_seen[id.index()] != Some(id) {
                        let crate::model::Interaction { y, y_memory, .. } = self.nsds.interaction_mut(id);
                        y_memory[0].copy_from_slice(&y[0]);
                        self.sp_seen[id.index()] = Some(id);
                    }
                }
            }
            Integrator::MoreauJean(_)
            | Integrator::MoreauJeanDirectProjection(_)
            | Integrator::MoreauJeanCombinedProjection(_) => {
                let osi = self.osi.mj_mut();
                osi.prepare(&self.nsds);
                osi.compute_new_w(&mut self.nsds, t, h0)?;
                if self.k == 0 {
                    osi.initialize_forces(&mut self.nsds, t)?;
                }
                self.update_outputs(t)?;
            }
            Integrator::EulerMoreau(osi) => {
                if second_order > 0 {
                    return Err(KernelError::InvalidModel(
                        "Euler–Moreau integrates first-order systems; the model has second-order ones".into(),
                    ));
                }
                osi.prepare(&mut self.nsds);
                if self.k == 0 {
                    osi.initialize(&mut self.nsds, t)?;
                }
                let ids = first_order_interactions(&self.nsds);
                for &id in &ids {
                    self.nsds.first_order_output(id, t)?;
                }
            }
        }
        self.seen_topology = self.nsds.topology_version;
        self.seen_relations = self.nsds.relation_version;
        Ok(())
    }

    /// Whether another step fits before `t_end`.
    pub fn has_next_step(&self) -> bool {
        self.grid.time(self.k + 1) <= self.grid.t_end()
    }

    /// The current time `t_k`.
    pub fn time(&self) -> f64 {
        self.grid.time(self.k)
    }

    /// Number of steps done.
    pub fn steps_done(&self) -> usize {
        self.k
    }

    /// The model.
    pub fn nsds(&self) -> &Nsds {
        &self.nsds
    }

    /// The model, mutably: link or remove interactions between steps (the next step computes
    /// the new interactions' outputs before its activation test).
    pub fn nsds_mut(&mut self) -> &mut Nsds {
        &mut self.nsds
    }

    /// The one-step problem.
    pub fn osns(&self) -> &OneStepNsProblem {
        &self.osns
    }

    /// The integrator.
    pub fn osi(&self) -> &Integrator {
        &self.osi
    }

    /// The time grid.
    pub fn time_discretisation(&self) -> &TimeDiscretisation {
        &self.grid
    }

    /// Steps whose one-step problem or Newton loop did not converge (under
    /// [`NonConvergencePolicy::Continue`]).
    pub fn nonconverged_steps(&self) -> usize {
        self.nonconverged
    }

    /// Newton iterations summed over all steps.
    pub fn total_newton_iterations(&self) -> usize {
        self.total_newton
    }

    /// Advances from `t_k` to `t_{k+1}`.
    ///
    /// # Errors
    /// [`KernelError::NotConverged`] / [`KernelError::NewtonNotConverged`] under
    /// [`NonConvergencePolicy::Fail`]; errors of the one-step problem, of a singular `W`, and
    /// of user functions.
    pub fn step(&mut self) -> Result<StepReport, KernelError> {
        let started = std::time::Instant::now();
        self.osns.take_timings();
        self.refresh_topology()?;
        if self.seen_relations != self.nsds.relation_version {
            // Relations changed between steps: outputs at t_k again (Lagrangian interactions).
            let t = self.time();
            self.update_outputs(t)?;
            self.seen_relations = self.nsds.relation_version;
        }
        if self.outputs_stale {
            // Deferred outputs of the last step (unless recomputed above).
            let t = self.time();
            self.update_outputs(t)?;
        }
        let mut report = match self.osi {
            Integrator::MoreauJean(_) => self.step_moreau_jean(),
            Integrator::EulerMoreau(_) => self.step_euler_moreau(),
            Integrator::SchatzmanPaoli(_) => self.step_schatzman_paoli(),
            Integrator::MoreauJeanDirectProjection(_) => self.step_direct_projection(),
            Integrator::MoreauJeanCombinedProjection(_) => self.step_combined_projection(),
        }?;
        let (assembly, solve) = self.osns.take_timings();
        report.timings = StepTimings { assembly, solve, total: started.elapsed() };
        Ok(report)
    }

    /// One Moreau–Jean step (see the type's documentation).
    fn step_moreau_jean(&mut self) -> Result<StepReport, KernelError> {
        let t_old = self.grid.time(self.k);
        let t = self.grid.time(self.k + 1);
        let h = t - t_old;
        let step = self.k + 1;

        // Memories of the outputs (ẏ_k for the restitution law) and index set 1 from the
        // outputs at t_k.
        self.update_index_set(h, true);
        let (outcome, osns_report) = self.newton_solve(t_old, t, step, self.options.defer_outputs)?;
        self.apply_newton_policy(t, step, &outcome, osns_report)?;
        // Commit the step (the Newton loop ended with a residual at the final state, whose
        // forces are F(t_{k+1}, q_{k+1}, v_{k+1})).
        self.osi.mj_mut().swap_memories(&mut self.nsds, t, true)?;
        Ok(self.commit(t, step, &outcome, self.nsds.active.len(), osns_report))
    }

    /// The Moreau–Jean Newton loop of one step on the current index set 1 (a single pass for
    /// linear models): `W`, free velocities, the velocity-level problem, inputs, state, outputs.
    fn newton_solve(
        &mut self,
        t_old: f64,
        t: f64,
        step: usize,
        defer_outputs: bool,
    ) -> Result<(NewtonOutcome, Option<SolverReport>), KernelError> {
        let h = t - t_old;
        let linear = self.osi.mj().all_linear() && self.all_relations_linear();
        let mut residual = if linear {
            self.osi.mj_mut().compute_residu(&mut self.nsds, t_old, t, h)?
        } else {
            self.osi.mj_mut().predict_and_compute_residu(&mut self.nsds, t_old, t, h)?
        };
        let mut iterations = 0;
        let mut converged = linear;
        let mut osns_report;
        loop {
            iterations += 1;
            if !linear {
                self.osi.mj_mut().compute_w(&mut self.nsds, t, h)?;
                let active = std::mem::take(&mut self.nsds.active);
                let result = self.nsds.update_jacobians_at_positions(&active, t);
                self.nsds.active = active;
                result?;
            }
            self.osi.mj_mut().compute_free_state(&mut self.nsds);
            osns_report = self.osns.compute(&mut self.nsds, self.osi.mj(), t, linear)?;
            if let Some(report) = osns_report
                && !report.is_converged()
            {
                match self.options.on_nonconvergence {
                    NonConvergencePolicy::Fail => return Err(KernelError::NotConverged { time: t, step, report }),
                    NonConvergencePolicy::Continue => {}
                }
            }
            self.update_input();
            self.osi.mj_mut().update_state(&mut self.nsds, h);
            if linear {
                break;
            }
            residual = self.osi.mj_mut().compute_residu(&mut self.nsds, t_old, t, h)?;
            if residual <= self.options.newton_tolerance {
                converged = true;
                break;
            }
            if iterations >= self.options.newton_max_iterations {
                break;
            }
        }
        // The outputs at the final iterate (those of the intermediate iterates are not read: each
        // iteration re-evaluates the Jacobians of the active interactions), or, deferred, at the
        // beginning of the next step.
        if defer_outputs {
            self.outputs_stale = true;
        } else {
            self.update_outputs(t)?;
        }
        Ok((NewtonOutcome { iterations, residual, converged, linear }, osns_report))
    }

    /// One Schatzman–Paoli step ([`SchatzmanPaoliOsi`]): free positions, the position-level
    /// LCP on every interaction, `p[0]`, positions and centred velocities (Newton loop for
    /// nonlinear systems or relations), then the outputs.
    fn step_schatzman_paoli(&mut self) -> Result<StepReport, KernelError> {
        let t_old = self.grid.time(self.k);
        let t = self.grid.time(self.k + 1);
        let h = t - t_old;
        let step = self.k + 1;
        let ids: Vec<InteractionId> =
            (0..self.nsds.interaction_bound()).filter_map(|i| self.nsds.interaction_at(i)).collect();
        let Integrator::SchatzmanPaoli(osi) = &mut self.osi else {
            unreachable!("a Schatzman–Paoli step runs with a Schatzman–Paoli integrator")
        };
        let linear =
            osi.all_linear() && self.nsds.interaction_graph().node_weights().all(|i| i.is_linear_time_invariant());
        let mut residual = osi.compute_residu(&mut self.nsds, t_old, t, h)?;
        let mut iterations = 0;
        let mut converged = linear;
        let mut osns_report;
        loop {
            iterations += 1;
            if !linear {
                osi.compute_w(&mut self.nsds, t_old, h)?;
                for &id in &ids {
                    self.nsds.update_jacobian(id, t)?;
                }
            }
            osi.compute_free_state(&mut self.nsds);
            osns_report = self.osns.compute_on(&mut self.nsds, &*osi, &ids, t, linear, ProblemLevel::Position)?;
            if let Some(report) = osns_report
                && !report.is_converged()
                && self.options.on_nonconvergence == NonConvergencePolicy::Fail
            {
                return Err(KernelError::NotConverged { time: t, step, report });
            }
            for slot in 0..self.nsds.ds_bound() {
                if let Some(ds) = self.nsds.ds_slot_mut(slot) {
                    ds.state_mut().p[0].fill(0.0);
                }
            }
            self.nsds.accumulate_inputs_at(&ids, 0);
            osi.update_state(&mut self.nsds, h);
            if linear {
                break;
            }
            residual = osi.compute_residu(&mut self.nsds, t_old, t, h)?;
            if residual <= self.options.newton_tolerance {
                converged = true;
                break;
            }
            if iterations >= self.options.newton_max_iterations {
                break;
            }
        }
        // y_{k−1} ← y_k, then y_{k+1}.
        for &id in &ids {
            let crate::model::Interaction { y, y_memory, .. } = self.nsds.interaction_mut(id);
            y_memory[0].copy_from_slice(&y[0]);
        }
        for &id in &ids {
            self.nsds.update_output(id, t)?;
        }
        osi.swap_memories(&mut self.nsds);
        let outcome = NewtonOutcome { iterations, residual, converged, linear };
        self.apply_newton_policy(t, step, &outcome, osns_report)?;
        Ok(self.commit(t, step, &outcome, ids.len(), osns_report))
    }

    /// One Moreau–Jean step with direct projection ([`MoreauJeanDirectProjectionOsi`]).
    fn step_direct_projection(&mut self) -> Result<StepReport, KernelError> {
        let t_old = self.grid.time(self.k);
        let t = self.grid.time(self.k + 1);
        let h = t - t_old;
        let step = self.k + 1;
        self.nsds.swap_output_memories();
        self.update_index_set(h, false);
        let (outcome, osns_report) = self.newton_solve(t_old, t, step, false)?;
        self.apply_newton_policy(t, step, &outcome, osns_report)?;

        // Projection of the index-set-1 constraints.
        let Integrator::MoreauJeanDirectProjection(osi) = &mut self.osi else {
            unreachable!("a direct-projection step runs with its integrator")
        };
        let (tol_u, tol_b, max_it) =
            (osi.options.unilateral_tolerance, osi.options.bilateral_tolerance, osi.options.max_iterations);
        clear_position_inputs(&mut self.nsds);
        let ids = self.nsds.active.clone();
        let (mut pen, _, mut bil) = violations(&self.nsds, &ids);
        let mut running = !ids.is_empty() && (pen > tol_u || bil > tol_b);
        let mut iterations = 0;
        let mut last_problem = None;
        while running && iterations < max_it {
            iterations += 1;
            let report = osi.projector.project(&mut self.nsds, &ids, false, t)?;
            last_problem = Some(report);
            (pen, _, bil) = violations(&self.nsds, &ids);
            running = pen > tol_u || bil > tol_b;
            if !report.is_converged() {
                break;
            }
        }
        let projection = ProjectionReport {
            iterations,
            passes: 1,
            max_unilateral_violation: pen,
            max_bilateral_violation: bil,
            converged: !running,
            last_problem,
        };
        self.apply_projection_policy(t, step, &projection)?;
        self.osi.mj_mut().swap_memories(&mut self.nsds, t, false)?;
        let mut report = self.commit(t, step, &outcome, self.nsds.active.len(), osns_report);
        report.projection = Some(projection);
        Ok(report)
    }

    /// One Moreau–Jean step with combined projection ([`MoreauJeanCombinedProjectionOsi`]):
    /// index set 1 starts empty; the step is redone while the projected positions close new
    /// contacts.
    fn step_combined_projection(&mut self) -> Result<StepReport, KernelError> {
        let t_old = self.grid.time(self.k);
        let t = self.grid.time(self.k + 1);
        let step = self.k + 1;
        self.nsds.swap_output_memories();
        let Integrator::MoreauJeanCombinedProjection(osi) = &self.osi else {
            unreachable!("a combined-projection step runs with its integrator")
        };
        let (tol_u, tol_b, max_it, max_passes) = (
            osi.options.unilateral_tolerance,
            osi.options.bilateral_tolerance,
            osi.options.max_iterations,
            osi.options.max_passes,
        );
        // Index set 1 emptied but for the bilateral constraints, always in it.
        for id in std::mem::take(&mut self.nsds.active) {
            let inter = self.nsds.interaction_mut(id);
            if is_bilateral(inter) {
                self.nsds.active.push(id);
            } else {
                inter.active = false;
                inter.lambda[1].fill(0.0);
            }
        }
        for slot in 0..self.nsds.interaction_bound() {
            let Some(id) = self.nsds.interaction_at(slot) else { continue };
            let inter = self.nsds.interaction_mut(id);
            if !inter.active && is_bilateral(inter) {
                inter.active = true;
                self.nsds.active.push(id);
            }
        }
        let mut passes = 0;
        let mut settled = false;
        let mut result;
        let mut projection;
        loop {
            passes += 1;
            result = self.newton_solve(t_old, t, step, false)?;
            clear_position_inputs(&mut self.nsds);
            let ids = self.nsds.active.clone();
            let (mut pen, mut gap, mut bil) = violations(&self.nsds, &ids);
            let mut running = !ids.is_empty() && (gap >= tol_u || bil > tol_b);
            let mut iterations = 0;
            let mut last_problem = None;
            let Integrator::MoreauJeanCombinedProjection(osi) = &mut self.osi else {
                unreachable!("a combined-projection step runs with its integrator")
            };
            while running && iterations < max_it {
                iterations += 1;
                let report = osi.projector.project(&mut self.nsds, &ids, true, t)?;
                last_problem = Some(report);
                (pen, gap, bil) = violations(&self.nsds, &ids);
                running = gap >= tol_u || bil > tol_b;
                if !report.is_converged() {
                    break;
                }
            }
            projection = ProjectionReport {
                iterations,
                passes,
                max_unilateral_violation: pen,
                max_bilateral_violation: bil,
                converged: !running,
                last_problem,
            };
            // Contacts closed at the projected positions join index set 1.
            let mut added = false;
            for slot in 0..self.nsds.interaction_bound() {
                let Some(id) = self.nsds.interaction_at(slot) else { continue };
                let inter = self.nsds.interaction_mut(id);
                if !inter.active && inter.y[0][0] <= 0.0 {
                    inter.active = true;
                    self.nsds.active.push(id);
                    added = true;
                }
            }
            if !added {
                settled = true;
                break;
            }
            if passes >= max_passes {
                break;
            }
        }
        projection.converged &= settled;
        let (outcome, osns_report) = result;
        self.apply_newton_policy(t, step, &outcome, osns_report)?;
        self.apply_projection_policy(t, step, &projection)?;
        self.osi.mj_mut().swap_memories(&mut self.nsds, t, false)?;
        let mut report = self.commit(t, step, &outcome, self.nsds.active.len(), osns_report);
        report.projection = Some(projection);
        Ok(report)
    }

    /// The non-convergence policy on the projection.
    fn apply_projection_policy(
        &mut self,
        t: f64,
        step: usize,
        projection: &ProjectionReport,
    ) -> Result<(), KernelError> {
        if !projection.converged {
            if self.options.on_nonconvergence == NonConvergencePolicy::Fail {
                return Err(KernelError::ProjectionNotConverged { time: t, step, report: *projection });
            }
            self.nonconverged += 1;
        }
        Ok(())
    }

    /// One Euler–Moreau step (first-order systems; digest E3-E7): every interaction takes part
    /// (index set 0); linear systems and relations take one pass.
    fn step_euler_moreau(&mut self) -> Result<StepReport, KernelError> {
        let t_old = self.grid.time(self.k);
        let t = self.grid.time(self.k + 1);
        let h = t - t_old;
        let h0 = self.grid.time(1) - self.grid.time(0);
        let step = self.k + 1;
        let ids = first_order_interactions(&self.nsds);
        let relations_linear = ids.iter().all(|&id| {
            matches!(&self.nsds.interaction_ref(id).relation, Relation::FirstOrder(r) if r.kind() == FirstOrderRelationKind::Linear)
        });
        let em = em!(&self.osi);
        let linear = em.all_linear() && relations_linear;
        if em.options().gamma_for_relation && !linear {
            return Err(KernelError::InvalidModel(
                "the full θ-γ scheme (gamma_for_relation) needs linear systems and relations".into(),
            ));
        }
        // The problem's matrix is built once (with t₁ − t₀, as Siconos) when every operator is
        // constant.
        let constant = linear
            && em.all_time_invariant()
            && ids.iter().all(|&id| self.nsds.interaction_ref(id).is_linear_time_invariant());
        let h_block = if constant { h0 } else { h };

        for &id in &ids {
            self.nsds.linearize_first_order(id, t)?;
        }
        let k_terms = self.nsds.first_order_k_terms(&ids);
        em!(&mut self.osi).compute_w(&mut self.nsds, t, h, &k_terms)?;
        let mut residual = em!(&mut self.osi).compute_residu(&mut self.nsds, t_old, t, h)?;
        let mut iterations = 0;
        let mut converged = linear;
        let mut osns_report;
        loop {
            iterations += 1;
            em!(&mut self.osi).compute_free_state(&mut self.nsds, h);
            if !relations_linear {
                // x_p = x_free + hγ W⁻¹ (g(x^α, λ^α) − B λ^α), per system of each interaction.
                for &id in &ids {
                    let ds: Vec<_> = self.nsds.interaction_ref(id).ds().to_vec();
                    for (j, d) in ds.into_iter().enumerate() {
                        let mut term = self.nsds.first_order_partial_term(id, j);
                        em!(&mut self.osi).add_to_partial(d, h, &mut term);
                    }
                }
            }
            osns_report = self.osns.compute_first_order(&mut self.nsds, em!(&self.osi), t, h_block, constant)?;
            if let Some(report) = osns_report
                && !report.is_converged()
                && self.options.on_nonconvergence == NonConvergencePolicy::Fail
            {
                return Err(KernelError::NotConverged { time: t, step, report });
            }
            self.nsds.accumulate_first_order_inputs(&ids);
            em!(&mut self.osi).update_state(&mut self.nsds, h);
            for &id in &ids {
                self.nsds.first_order_output(id, t)?;
            }
            if linear {
                break;
            }
            for &id in &ids {
                self.nsds.linearize_first_order(id, t)?;
            }
            let k_terms = self.nsds.first_order_k_terms(&ids);
            em!(&mut self.osi).compute_w(&mut self.nsds, t, h, &k_terms)?;
            residual = em!(&mut self.osi).compute_residu(&mut self.nsds, t_old, t, h)?;
            // The relations' residuals: the linearized input and output against g and h at the
            // new iterate.
            let (residual_r, residual_y) = self.nsds.first_order_relation_residuals(&ids, &self.osns.last_w_blocks());
            residual = residual.max(residual_r).max(residual_y);
            if residual <= self.options.newton_tolerance {
                converged = true;
                break;
            }
            if iterations >= self.options.newton_max_iterations {
                break;
            }
        }
        let outcome = NewtonOutcome { iterations, residual, converged, linear };
        self.apply_newton_policy(t, step, &outcome, osns_report)?;
        em!(&mut self.osi).swap_memories(&mut self.nsds, t)?;
        Ok(self.commit(t, step, &outcome, ids.len(), osns_report))
    }

    /// The non-convergence policy on the Newton loop, and the count of steps that did not
    /// converge (Newton or one-step problem).
    fn apply_newton_policy(
        &mut self,
        t: f64,
        step: usize,
        outcome: &NewtonOutcome,
        osns_report: Option<SolverReport>,
    ) -> Result<(), KernelError> {
        let NewtonOutcome { iterations, residual, converged, .. } = *outcome;
        if !converged && self.options.on_nonconvergence == NonConvergencePolicy::Fail {
            return Err(KernelError::NewtonNotConverged { time: t, step, iterations, residual });
        }
        if !converged || osns_report.is_some_and(|r| !r.is_converged()) {
            self.nonconverged += 1;
        }
        self.total_newton += iterations;
        Ok(())
    }

    /// Advances the step counter and builds the step's report.
    fn commit(
        &mut self,
        t: f64,
        step: usize,
        outcome: &NewtonOutcome,
        active: usize,
        osns: Option<SolverReport>,
    ) -> StepReport {
        self.k += 1;
        StepReport {
            step,
            time: t,
            newton_iterations: outcome.iterations,
            newton_residual: if outcome.linear { 0.0 } else { outcome.residual },
            newton_converged: outcome.converged,
            active,
            osns,
            projection: None,
            timings: StepTimings::default(),
        }
    }

    fn all_relations_linear(&self) -> bool {
        self.nsds.interaction_graph().node_weights().all(|i| i.is_linear_time_invariant())
    }

    /// Index set 1: keeps the order of interactions that stay active, appends those that
    /// become active, and zeroes `λ[1]` of those that leave (Siconos 4.4). With
    /// `swap_output_memories`, the outputs are first copied into their memories
    /// ([`Nsds::swap_output_memories`]).
    ///
    /// One pass over the slots reads every interaction's outputs, flags and priority in memory
    /// order; the index set is then filtered and sorted from these flags and priorities, by
    /// slot, without going back to the interactions in its own, scattered order. An
    /// interaction that leaves (the direct projection's own test, [`MoreauJeanDirectProjectionOsi`])
    /// and passes the entry test enters again at the end, as when the two were separate passes.
    fn update_index_set(&mut self, h: f64, swap_output_memories: bool) {
        let osi = self.osi.mj();
        let direct = match &self.osi {
            Integrator::MoreauJeanDirectProjection(d) => Some(d),
            _ => None,
        };
        let bound = self.nsds.interaction_bound();
        let (stays, priority, entering) = (&mut self.slot_stays, &mut self.slot_priority, &mut self.entering);
        stays.clear();
        stays.resize(bound, false);
        priority.clear();
        priority.resize(bound, 0.0);
        entering.clear();
        for slot in 0..bound {
            let Some(id) = self.nsds.interaction_at(slot) else { continue };
            let inter = self.nsds.interaction_mut(id);
            if swap_output_memories {
                inter.swap_output_memories();
            }
            priority[slot] = inter.priority;
            let (y0, y1) = (inter.y[0][0], inter.y[1][0]);
            if inter.active {
                let keep = is_bilateral(inter)
                    || match direct {
                        Some(d) => d.stays_active(y0, y1, h),
                        None => osi.is_active(y0, y1, h),
                    };
                if keep {
                    stays[slot] = true;
                    continue;
                }
                inter.active = false;
                inter.lambda[1].fill(0.0);
            }
            if is_bilateral(inter) || osi.is_active(y0, y1, h) {
                inter.active = true;
                entering.push(id);
            } else {
                inter.lambda[1].fill(0.0);
            }
        }
        let mut active = std::mem::take(&mut self.nsds.active);
        active.retain(|id| stays[id.index()]);
        active.extend_from_slice(entering);
        if self.nsds.ordered {
            // Stable sort by priority (ties in index-set order), the priorities read by slot
            // (into buffers kept between steps).
            let keyed = &mut self.priority_keys;
            keyed.clear();
            keyed.extend(active.iter().map(|&id| (priority[id.index()], id)));
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
            active.clear();
            active.extend(keyed.iter().map(|&(_, id)| id));
        }
        self.nsds.active = active;
    }

    /// `p[1] = Σ_{α active} H_αᵀ λ_α[1]` on every system (`p[1]` was zeroed by
    /// [`MoreauJeanOsi::compute_free_state`]).
    fn update_input(&mut self) {
        self.osns.accumulate_inputs(&mut self.nsds);
    }

    /// Outputs of every interaction of second-order systems at `t`
    /// ([`Nsds::update_lagrangian_outputs`]).
    fn update_outputs(&mut self, t: f64) -> Result<(), KernelError> {
        self.nsds.update_lagrangian_outputs(t)?;
        self.outputs_stale = false;
        Ok(())
    }
}

/// Whether the interaction is a bilateral constraint (equality law), always in index set 1.
fn is_bilateral(inter: &crate::model::Interaction) -> bool {
    matches!(inter.law, crate::model::NonsmoothLaw::Equality { .. })
}
