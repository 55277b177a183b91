//! Event-capturing time-stepping (Siconos' `TimeStepping`; Siconos documentation, "Simulation
//! component", section "The Simulation process"): one public verb, [`TimeStepping::step`].

use nonsmooth_numerics::SolverReport;

use super::osi::{
    AfterNewton, Contribution, FirstOrderContribution, IndexSetRule, OneStepIntegrator, OsiContext, ProblemLevel,
    SecondOrderContribution, StepInterval, SystemSet, is_bilateral,
};
use super::osns::OneStepProblem;
use super::projection::ProjectionReport;
use super::summary::RunSummary;
use crate::model::{DsId, InteractionId, Nsds};
use crate::{KernelError, NonFiniteValue, StateQuantity};

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

/// What a simulation does when a one-step problem or a Newton loop does not converge.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum NonConvergencePolicy {
    /// Stop with [`KernelError::NotConverged`] or [`KernelError::NewtonNotConverged`]
    /// (default).
    #[default]
    Fail,
    /// Keep going; the step's [`StepReport`] says what happened and
    /// [`TimeStepping::nonconverged_steps`] counts such steps.
    Continue,
    /// Stop only when a step ends far from converged: a one-step problem whose residual (its
    /// problem's `compute_error`) ends above `residual` gives [`KernelError::NotConverged`], a
    /// Newton loop whose residual ends above `newton_residual` gives
    /// [`KernelError::NewtonNotConverged`]. Smaller misses go on as under `Continue` and are
    /// counted by [`TimeStepping::nonconverged_steps`]. A projection that does not converge
    /// stops, as under `Fail`. The bounds are absolute (e.g. 100 times the solver's and the
    /// Newton tolerances) and must be non-negative, not NaN.
    FailAbove {
        /// Bound on the residual of an unconverged one-step problem.
        residual: f64,
        /// Bound on the residual of an unconverged Newton loop.
        newton_residual: f64,
    },
}

impl NonConvergencePolicy {
    /// Checks the bounds of [`NonConvergencePolicy::FailAbove`].
    fn validate(self) -> Result<(), KernelError> {
        if let Self::FailAbove { residual, newton_residual } = self {
            for (name, value) in
                [("policy residual bound", residual), ("policy Newton residual bound", newton_residual)]
            {
                if value.is_nan() || value < 0.0 {
                    return Err(KernelError::InvalidParameter { name, value, reason: "must be non-negative" });
                }
            }
        }
        Ok(())
    }

    /// Whether an unconverged one-step problem whose residual ends at `residual` stops.
    fn stops_problem(self, residual: f64) -> bool {
        match self {
            Self::Fail => true,
            Self::Continue => false,
            Self::FailAbove { residual: bound, .. } => residual.is_nan() || residual > bound,
        }
    }

    /// Whether an unconverged Newton loop whose residual ends at `residual` stops.
    fn stops_newton(self, residual: f64) -> bool {
        match self {
            Self::Fail => true,
            Self::Continue => false,
            Self::FailAbove { newton_residual: bound, .. } => residual.is_nan() || residual > bound,
        }
    }
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
    /// Number of interactions in the step's one-step problems.
    pub active: usize,
    /// The report of the last one-step problem solved in the step, `None` when no interaction
    /// was active.
    pub osns: Option<SolverReport>,
    /// What the projection onto the constraints did (projection schemes only).
    pub projection: Option<ProjectionReport>,
    /// Where the step's time went.
    pub timings: StepTimings,
}

impl StepReport {
    /// The report of the step's one-step problem solver (status, iterations, residual), `None`
    /// when no interaction was active ([`StepReport::osns`]).
    pub fn solver(&self) -> Option<&SolverReport> {
        self.osns.as_ref()
    }

    /// Whether the step converged: its one-step problem (when one was solved), its Newton loop
    /// and its projection (projection schemes) all ended within their tolerances.
    pub fn converged(&self) -> bool {
        self.osns.is_none_or(|o| o.is_converged())
            && self.newton_converged
            && self.projection.is_none_or(|p| p.converged)
    }
}

impl RunSummary {
    /// Adds one step from its report: its one-step problem ([`StepReport::osns`]), its
    /// Newton loop and its projection. For a loop of one's own over [`TimeStepping::step`]
    /// (the simulation keeps its own, [`TimeStepping::run_summary`]).
    pub fn add(&mut self, report: &StepReport) {
        let problem = report.osns.filter(|o| !o.is_converged());
        let newton = (!report.newton_converged).then_some(report.newton_residual);
        let projection = report.projection.is_some_and(|p| !p.converged);
        self.record(report.step, report.time, problem, newton, projection);
    }
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

/// How a step's Newton loop ended.
#[derive(Clone, Copy, Debug)]
struct NewtonOutcome {
    iterations: usize,
    residual: f64,
    converged: bool,
    linear: bool,
    /// Whether a one-step problem of the last iteration stopped before its tolerance.
    problem_unconverged: bool,
    /// The unconverged one-step problem of the last iteration with the largest residual.
    worst_problem: Option<SolverReport>,
}

/// One integrator of a [`TimeStepping`] with its systems.
#[derive(Debug)]
struct Member {
    osi: Box<dyn OneStepIntegrator>,
    systems: SystemSet,
    rule: IndexSetRule,
    /// Its one-step problem in [`TimeStepping::problems`].
    problem: usize,
    /// Its interactions in that problem, in the problem's order.
    interactions: Vec<InteractionId>,
}

/// A one-step problem of a [`TimeStepping`] with the interactions it is posed on.
#[derive(Debug)]
struct Problem {
    level: ProblemLevel,
    osns: Box<dyn OneStepProblem>,
    /// Its integrators in [`TimeStepping::members`].
    members: Vec<usize>,
    /// Its interactions when it has several integrators: theirs, one after the other (with one,
    /// those of the integrator, [`Problem::ids`]).
    ids: Vec<InteractionId>,
}

impl Problem {
    /// The interactions of the problem.
    fn ids<'a>(&'a self, members: &'a [Member]) -> &'a [InteractionId] {
        match self.members[..] {
            [m] => &members[m].interactions,
            _ => &self.ids,
        }
    }
}

/// Event-capturing time-stepping of a nonsmooth dynamical system (Siconos' `TimeStepping`;
/// Acary and Brogliato 2008, chapter 10): a strategy that drives one-step integrators
/// ([`OneStepIntegrator`]), each with its own dynamical systems, and one-step nonsmooth problems
/// built from the interactions, one per [`ProblemLevel`].
///
/// Each [`TimeStepping::step`] goes from `t_k` to `t_{k+1}`:
/// 1. index sets: every interaction of an integrator of rule [`IndexSetRule::All`], the
///    interactions its activation test keeps for one of rule [`IndexSetRule::Activation`]
///    (Moreau–Jean: the predicted gap `y + γ h ẏ` is closed);
/// 2. the Newton loop (one pass for linear models): iteration matrices, free states, the
///    one-step problems, inputs, states, until `max ‖R‖₂` over all integrators is below the
///    tolerance;
/// 3. outputs at the new state, projections, and the memories `q_k`, `v_k`, `y_k`.
///
/// Interactions may be linked or removed between steps through [`TimeStepping::nsds_mut`];
/// systems added to a simulation of several integrators are given to one with
/// [`TimeStepping::assign`].
#[derive(Debug)]
pub struct TimeStepping {
    nsds: Nsds,
    members: Vec<Member>,
    problems: Vec<Problem>,
    /// The integrator of each system slot (`u32::MAX`: none), with several integrators.
    owner: Vec<u32>,
    /// Systems slots below this bound were checked by their integrator.
    checked_systems: usize,
    /// Whether every integrator is linear, with the model's topology and relation versions it
    /// was found at.
    linear: (Option<(u64, u64)>, bool),
    /// No integrator reads the outputs after its Newton loop
    /// ([`OneStepIntegrator::reads_new_outputs`]): they may be deferred.
    may_defer_outputs: bool,
    grid: TimeDiscretisation,
    options: TimeSteppingOptions,
    k: usize,
    seen_topology: u64,
    /// `Nsds::relation_version` when the outputs were last computed.
    seen_relations: u64,
    nonconverged: usize,
    total_newton: usize,
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
    /// Set when a step found a non-finite state (`time`, `step`, the value): the simulation is
    /// stopped and every later step returns [`KernelError::NonFiniteState`] again.
    stopped: Option<(f64, usize, NonFiniteValue)>,
    /// Convergence of the steps done ([`TimeStepping::run_summary`]).
    summary: RunSummary,
}

/// Builds a [`TimeStepping`] of several one-step integrators
/// ([`TimeStepping::builder`]).
#[derive(Debug)]
pub struct TimeSteppingBuilder {
    nsds: Nsds,
    grid: TimeDiscretisation,
    options: TimeSteppingOptions,
    members: Vec<(Box<dyn OneStepIntegrator>, SystemSet)>,
    problems: Vec<(ProblemLevel, Box<dyn OneStepProblem>)>,
}

impl TimeSteppingBuilder {
    /// Sets the options (default: [`TimeSteppingOptions::default`]).
    pub fn options(mut self, options: TimeSteppingOptions) -> Self {
        self.options = options;
        self
    }

    /// Adds an integrator of the systems `systems`.
    pub fn integrator(mut self, osi: impl OneStepIntegrator, systems: impl IntoIterator<Item = DsId>) -> Self {
        self.members.push((Box::new(osi), SystemSet::of(systems)));
        self
    }

    /// Adds an integrator of every system of the model (then it is the only one).
    pub fn integrator_of_all(mut self, osi: impl OneStepIntegrator) -> Self {
        self.members.push((Box::new(osi), SystemSet::all()));
        self
    }

    /// Adds a boxed integrator of the systems `systems`.
    pub fn boxed_integrator(
        mut self,
        osi: Box<dyn OneStepIntegrator>,
        systems: impl IntoIterator<Item = DsId>,
    ) -> Self {
        self.members.push((osi, SystemSet::of(systems)));
        self
    }

    /// Adds the one-step problem of level `level`, which gathers the interactions of every
    /// integrator of that level.
    pub fn problem(mut self, level: ProblemLevel, osns: impl OneStepProblem) -> Self {
        self.problems.push((level, Box::new(osns)));
        self
    }

    /// Checks the assignment and prepares the simulation at `t0`: workspaces, iteration
    /// matrices, outputs `y(t0)`.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for bad options; [`KernelError::InvalidModel`] without
    /// integrators, for an integrator of every system beside others, for an integrator without
    /// a problem of its level, a problem without integrators, two problems of one level, two
    /// problems on index set 1, or a law that does not fit its problem;
    /// [`KernelError::SharedBetweenIntegrators`] and [`KernelError::UnassignedSystem`];
    /// [`KernelError::Singular`] for a singular `W`; errors of the user functions at `t0`.
    pub fn build(self) -> Result<TimeStepping, KernelError> {
        let Self { nsds, grid, options, members, problems } = self;
        if !options.newton_tolerance.is_finite() || options.newton_tolerance <= 0.0 {
            return Err(KernelError::InvalidOption { name: "newton_tolerance", reason: "must be finite and positive" });
        }
        if options.newton_max_iterations == 0 {
            return Err(KernelError::InvalidOption { name: "newton_max_iterations", reason: "must be at least 1" });
        }
        options.on_nonconvergence.validate()?;
        if members.is_empty() {
            return Err(KernelError::InvalidModel("a time-stepping simulation needs a one-step integrator".into()));
        }
        if members.len() > 1 && members.iter().any(|(_, s)| s.is_all()) {
            return Err(KernelError::InvalidModel(
                "an integrator of every system cannot share the simulation with other integrators".into(),
            ));
        }
        let mut levels: Vec<ProblemLevel> = problems.iter().map(|(l, _)| *l).collect();
        levels.sort();
        if levels.windows(2).any(|w| w[0] == w[1]) {
            return Err(KernelError::InvalidModel("two one-step problems of the same level".into()));
        }
        let mut problems: Vec<Problem> = problems
            .into_iter()
            .map(|(level, osns)| Problem { level, osns, members: Vec::new(), ids: Vec::new() })
            .collect();
        let mut built = Vec::with_capacity(members.len());
        for (m, (osi, systems)) in members.into_iter().enumerate() {
            let level = osi.problem_level();
            let Some(problem) = problems.iter().position(|p| p.level == level) else {
                return Err(KernelError::InvalidModel(format!(
                    "the integrator {} needs a one-step problem of level {level:?}",
                    osi.name()
                )));
            };
            problems[problem].members.push(m);
            let rule = osi.index_set_rule();
            built.push(Member { osi, systems, rule, problem, interactions: Vec::new() });
        }
        if let Some(p) = problems.iter().find(|p| p.members.is_empty()) {
            return Err(KernelError::InvalidModel(format!(
                "the one-step problem of level {:?} has no integrator",
                p.level
            )));
        }
        let index_set_problems =
            problems.iter().filter(|p| p.members.iter().any(|&m| built[m].rule != IndexSetRule::All)).count();
        if index_set_problems > 1 {
            return Err(KernelError::InvalidModel("at most one one-step problem can be posed on index set 1".into()));
        }
        let may_defer_outputs = !built.iter().any(|m| m.osi.reads_new_outputs());
        let mut sim = TimeStepping {
            nsds,
            members: built,
            problems,
            owner: Vec::new(),
            checked_systems: 0,
            may_defer_outputs,
            linear: (None, false),
            grid,
            options,
            k: 0,
            seen_topology: u64::MAX,
            seen_relations: 0,
            nonconverged: 0,
            summary: RunSummary::new(),
            total_newton: 0,
            outputs_stale: false,
            priority_keys: Vec::new(),
            slot_stays: Vec::new(),
            slot_priority: Vec::new(),
            entering: Vec::new(),
            stopped: None,
        };
        sim.refresh_topology()?;
        Ok(sim)
    }
}

impl TimeStepping {
    /// A simulation with one integrator of every system and its one-step problem (at the
    /// integrator's [`OneStepIntegrator::problem_level`]), prepared at `t0`: workspaces,
    /// iteration matrices, outputs `y(t0)`.
    ///
    /// # Errors
    /// As [`TimeSteppingBuilder::build`].
    pub fn new(
        nsds: Nsds,
        osi: impl OneStepIntegrator,
        osns: impl OneStepProblem,
        grid: TimeDiscretisation,
        options: TimeSteppingOptions,
    ) -> Result<Self, KernelError> {
        let level = osi.problem_level();
        Self::builder(nsds, grid).options(options).integrator_of_all(osi).problem(level, osns).build()
    }

    /// A builder for a simulation of several integrators, each with its own systems, and the
    /// one-step problems of their levels.
    pub fn builder(nsds: Nsds, grid: TimeDiscretisation) -> TimeSteppingBuilder {
        TimeSteppingBuilder {
            nsds,
            grid,
            options: TimeSteppingOptions::default(),
            members: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Gives system `ds` (added to the model after the simulation was built) to integrator
    /// number `integrator` (in the order they were added).
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`] for a stale handle; [`KernelError::InvalidOption`] for an
    /// integrator number out of range; [`KernelError::SharedBetweenIntegrators`] when the system
    /// already has an integrator.
    pub fn assign(&mut self, ds: DsId, integrator: usize) -> Result<(), KernelError> {
        if !self.nsds.ds_ids().any(|d| d == ds) {
            return Err(KernelError::UnknownDs(ds.index()));
        }
        if integrator >= self.members.len() {
            return Err(KernelError::InvalidOption { name: "integrator", reason: "no integrator of that number" });
        }
        if self.members.iter().any(|m| m.systems.contains(ds)) {
            return Err(KernelError::SharedBetweenIntegrators { what: "system", index: ds.index() });
        }
        self.members[integrator].systems.insert(ds);
        self.seen_topology = u64::MAX;
        Ok(())
    }

    /// The integrator of each system slot, with several integrators (checked: every system
    /// has exactly one, every interaction links systems of one).
    fn assign_owners(&mut self) -> Result<(), KernelError> {
        if self.members.len() == 1 {
            return Ok(());
        }
        let bound = self.nsds.ds_bound();
        self.owner.clear();
        self.owner.resize(bound, u32::MAX);
        for id in self.nsds.ds_ids() {
            for (m, member) in self.members.iter().enumerate() {
                if member.systems.contains(id) {
                    if self.owner[id.index()] != u32::MAX {
                        return Err(KernelError::SharedBetweenIntegrators { what: "system", index: id.index() });
                    }
                    self.owner[id.index()] = m as u32;
                }
            }
            if self.owner[id.index()] == u32::MAX {
                return Err(KernelError::UnassignedSystem { ds: id.index() });
            }
        }
        for id in self.nsds.interaction_ids() {
            let ds = self.nsds.interaction_ref(id).ds();
            if ds.iter().any(|d| self.owner[d.index()] != self.owner[ds[0].index()]) {
                return Err(KernelError::SharedBetweenIntegrators { what: "interaction", index: id.index() });
            }
        }
        Ok(())
    }

    /// The integrator of interaction `inter` (with several integrators).
    fn owner_of(owner: &[u32], inter: &crate::model::Interaction) -> usize {
        owner[inter.ds()[0].index()] as usize
    }

    /// After a change of the model (and at the start): the integrators' systems and
    /// workspaces, the laws against the problems, and the outputs of every interaction at the
    /// current time.
    fn refresh_topology(&mut self) -> Result<(), KernelError> {
        if self.seen_topology == self.nsds.topology_version {
            return Ok(());
        }
        self.assign_owners()?;
        for slot in self.checked_systems..self.nsds.ds_bound() {
            let Some(id) = self.nsds.ds_at(slot) else { continue };
            let m = if self.members.len() == 1 { 0 } else { self.owner[slot] as usize };
            self.members[m].osi.check_system(&self.nsds, id)?;
        }
        self.checked_systems = self.nsds.ds_bound();
        let single = self.members.len() == 1;
        for (p, problem) in self.problems.iter().enumerate() {
            let (members, owner) = (&self.members, &self.owner);
            problem
                .osns
                .check_laws(&self.nsds, &|inter| single || members[Self::owner_of(owner, inter)].problem == p)?;
        }
        let step = StepInterval::new(self.time(), self.grid.time(self.k + 1), self.grid.time(1) - self.grid.time(0));
        let first = self.k == 0;
        for member in &mut self.members {
            member.osi.initialize(&mut self.nsds, &member.systems, &step, first)?;
            if member.rule == IndexSetRule::All {
                member.systems.interactions_into(&self.nsds, &mut member.interactions);
            }
        }
        self.update_outputs(step.t_old)?;
        self.linear.0 = None;
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

    /// The one-step problem of level `level`, if the simulation has one.
    pub fn problem(&self, level: ProblemLevel) -> Option<&dyn OneStepProblem> {
        self.problems.iter().find(|p| p.level == level).map(|p| &*p.osns)
    }

    /// The one-step problem of level `level` as its own type, when it is of type `T`.
    pub fn problem_as<T: OneStepProblem>(&self, level: ProblemLevel) -> Option<&T> {
        let osns: &dyn std::any::Any = self.problem(level)?;
        osns.downcast_ref::<T>()
    }

    /// Number of integrators.
    pub fn number_of_integrators(&self) -> usize {
        self.members.len()
    }

    /// Integrator number `k` (in the order they were added).
    pub fn integrator(&self, k: usize) -> Option<&dyn OneStepIntegrator> {
        self.members.get(k).map(|m| &*m.osi)
    }

    /// Integrator number `k` as its own type, when it is of type `T`.
    pub fn integrator_as<T: OneStepIntegrator>(&self, k: usize) -> Option<&T> {
        let osi: &dyn std::any::Any = self.members.get(k).map(|m| &*m.osi)?;
        osi.downcast_ref::<T>()
    }

    /// The time grid.
    pub fn time_discretisation(&self) -> &TimeDiscretisation {
        &self.grid
    }

    /// Steps whose one-step problem, Newton loop or projection did not converge (under
    /// [`NonConvergencePolicy::Continue`], or below the bounds of
    /// [`NonConvergencePolicy::FailAbove`]).
    pub fn nonconverged_steps(&self) -> usize {
        self.nonconverged
    }

    /// Convergence of the steps done: how many ended above a tolerance (one-step problem,
    /// Newton loop, projection) and the worst residuals, with their time and step; the Newton
    /// tolerance is the options', the solver's tolerance is left for the caller to give
    /// ([`RunSummary::with_tolerance`]). A step that stopped the run (an error) is not in it.
    pub fn run_summary(&self) -> RunSummary {
        self.summary.with_newton_tolerance(self.options.newton_tolerance)
    }

    /// Newton iterations summed over all steps.
    pub fn total_newton_iterations(&self) -> usize {
        self.total_newton
    }

    /// Advances from `t_k` to `t_{k+1}`.
    ///
    /// After the Newton loop (and the projection), the step checks the state it computed: `q`
    /// and `v` of the second-order systems, `x` of the first-order ones, and the multipliers of
    /// its one-step problems (`λ[1]` at velocity level, `λ[0]` at position level and for
    /// first-order systems). A NaN or an infinity stops the simulation with
    /// [`KernelError::NonFiniteState`], which names the first such value (the systems in index
    /// order, then the interactions in the problems' order), before the non-convergence
    /// policies look at the step. The model then holds the values of that step (the non-finite
    /// ones included) and its memories those of `t_k`; [`TimeStepping::steps_done`] and
    /// [`TimeStepping::time`] stay at `t_k`. The simulation is stopped: every later call
    /// returns the same error without computing anything ([`TimeStepping::stopped`]).
    ///
    /// # Errors
    /// [`KernelError::NonFiniteState`] when the simulation diverged (at this step or an earlier
    /// one; it also replaces any other error of a step that left a non-finite state);
    /// [`KernelError::NotConverged`], [`KernelError::NewtonNotConverged`] and
    /// [`KernelError::ProjectionNotConverged`] under [`NonConvergencePolicy::Fail`]; errors of
    /// the one-step problems, of a singular `W`, of the integrators' assignment after a change
    /// of the model, and of user functions.
    pub fn step(&mut self) -> Result<StepReport, KernelError> {
        if let Some(error) = self.stopped() {
            return Err(error);
        }
        let result = self.advance();
        let found = match &result {
            Ok(_) => None,
            Err(KernelError::NonFiniteState { time, step, what }) => Some((*time, *step, *what)),
            // Another error of a step that left a non-finite value (a one-step problem or a
            // relation given NaN) is the divergence.
            Err(_) => self
                .first_non_finite()
                .or_else(|| self.first_non_finite_free_state())
                .map(|what| (self.grid.time(self.k + 1), self.k + 1, what)),
        };
        if let Some((time, step, what)) = found {
            self.stopped = Some((time, step, what));
            return Err(KernelError::NonFiniteState { time, step, what });
        }
        result
    }

    /// The error that stopped the simulation, [`KernelError::NonFiniteState`], when a step
    /// found a non-finite state ([`TimeStepping::step`]); `None` while it runs.
    pub fn stopped(&self) -> Option<KernelError> {
        self.stopped.map(|(time, step, what)| KernelError::NonFiniteState { time, step, what })
    }

    /// The first non-finite value of the systems' states, then of the multipliers of the
    /// step's one-step problems at their level.
    fn first_non_finite(&self) -> Option<NonFiniteValue> {
        self.nsds.first_non_finite_state().or_else(|| {
            self.problems.iter().find_map(|p| {
                let level = match p.level {
                    ProblemLevel::Velocity | ProblemLevel::GlobalVelocity => 1,
                    ProblemLevel::Position | ProblemLevel::FirstOrder => 0,
                };
                self.nsds.first_non_finite_multiplier(p.ids(&self.members), level)
            })
        })
    }

    /// The first non-finite component of the systems' free states (their integrators'
    /// predictions without the interactions' inputs), read when a step failed: a one-step
    /// problem refuses non-finite data before the state is updated. Only after the
    /// integrators were prepared for the current systems (their workspaces hold every system).
    fn first_non_finite_free_state(&self) -> Option<NonFiniteValue> {
        if self.seen_topology != self.nsds.topology_version {
            return None;
        }
        self.nsds.ds_ids().find_map(|ds| {
            let member = match self.members[..] {
                [ref member] => member,
                _ => self.members.get(*self.owner.get(ds.index())? as usize)?,
            };
            if !member.systems.contains(ds) {
                return None;
            }
            let free = match member.osi.contribution() {
                Contribution::SecondOrder(c) => c.free(ds),
                Contribution::FirstOrder(c) => c.partial_state(ds),
            };
            let component = free.iter().position(|x| !x.is_finite())?;
            Some(NonFiniteValue::System { ds: ds.index(), quantity: StateQuantity::FreeState, component })
        })
    }

    /// One step ([`TimeStepping::step`] without the stop).
    fn advance(&mut self) -> Result<StepReport, KernelError> {
        let started = std::time::Instant::now();
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
        let step = StepInterval::new(
            self.grid.time(self.k),
            self.grid.time(self.k + 1),
            self.grid.time(1) - self.grid.time(0),
        );
        let number = self.k + 1;

        // Index sets.
        self.with_index_set(|nsds, members, index_set| {
            members.iter_mut().try_for_each(|m| m.osi.begin_step(nsds, &m.systems, index_set, &step))
        })?;
        self.update_index_set(step.h);
        self.load_problems();

        // The Newton loop, solved again while an integrator asks for it.
        let defer = self.options.defer_outputs && self.may_defer_outputs;
        let mut pass = 0;
        let (outcome, osns_report, projection) = loop {
            pass += 1;
            let (outcome, osns_report) = self.newton_solve(&step, number, defer)?;
            let mut redo = false;
            let mut projection = None;
            self.with_index_set(|nsds, members, index_set| {
                for m in members.iter_mut() {
                    match m.osi.after_newton(nsds, &m.systems, index_set, &step, pass)? {
                        AfterNewton::Done(report) => projection = report.or(projection),
                        AfterNewton::Redo => redo = true,
                    }
                }
                Ok(())
            })?;
            if !redo {
                break (outcome, osns_report, projection);
            }
            self.load_problems();
        };
        // A diverged state stops the run, whatever the policies would say of the step (a
        // Newton residual of NaN is not a slow convergence).
        if let Some(what) = self.first_non_finite() {
            return Err(KernelError::NonFiniteState { time: step.t, step: number, what });
        }
        self.apply_newton_policy(step.t, number, &outcome)?;
        if let Some(projection) = &projection {
            self.apply_projection_policy(step.t, number, projection)?;
        }
        for m in &mut self.members {
            m.osi.commit(OsiContext::new(&mut self.nsds, &m.systems, &m.interactions, &step))?;
        }
        self.k += 1;
        let mut assembly = std::time::Duration::ZERO;
        let mut solve = std::time::Duration::ZERO;
        for problem in &mut self.problems {
            let (a, s) = problem.osns.take_timings();
            assembly += a;
            solve += s;
        }
        self.summary.record(
            number,
            step.t,
            outcome.worst_problem,
            (!outcome.converged).then_some(outcome.residual),
            projection.is_some_and(|p| !p.converged),
        );
        Ok(StepReport {
            step: number,
            time: step.t,
            newton_iterations: outcome.iterations,
            newton_residual: if outcome.linear { 0.0 } else { outcome.residual },
            newton_converged: outcome.converged,
            active: self.problems.iter().map(|p| p.ids(&self.members).len()).sum(),
            osns: osns_report,
            projection,
            timings: StepTimings { assembly, solve, total: started.elapsed() },
        })
    }

    /// Runs `f` on the model, the integrators and index set 1 (taken out of the model for the
    /// call, and put back whatever `f` returns).
    fn with_index_set(
        &mut self,
        f: impl FnOnce(&mut Nsds, &mut [Member], &mut Vec<InteractionId>) -> Result<(), KernelError>,
    ) -> Result<(), KernelError> {
        let mut index_set = std::mem::take(&mut self.nsds.active);
        let result = f(&mut self.nsds, &mut self.members, &mut index_set);
        self.nsds.active = index_set;
        result
    }

    /// The interactions of each integrator and each problem for the step: index set 1 for the
    /// integrators of rule [`IndexSetRule::Activation`] or [`IndexSetRule::Managed`] (their own
    /// part of it), the list kept since the last change of the model for the others.
    fn load_problems(&mut self) {
        let single = self.members.len() == 1;
        let (nsds, owner) = (&self.nsds, &self.owner);
        for (m, member) in self.members.iter_mut().enumerate() {
            if member.rule != IndexSetRule::All {
                member.interactions.clear();
                if single {
                    member.interactions.extend_from_slice(&nsds.active);
                } else {
                    member.interactions.extend(
                        nsds.active.iter().copied().filter(|&id| Self::owner_of(owner, nsds.interaction_ref(id)) == m),
                    );
                }
            }
        }
        for problem in &mut self.problems {
            problem.ids.clear();
            if problem.members.len() > 1 {
                for &m in &problem.members {
                    problem.ids.extend_from_slice(&self.members[m].interactions);
                }
            }
        }
    }

    /// The Newton loop of one step (Siconos' `TimeStepping::newtonSolve`; a single pass for
    /// linear models): iteration matrices, free states, the one-step problems and their inputs,
    /// states, residuals; then the outputs at the final iterate (or, deferred, at the
    /// beginning of the next step).
    fn newton_solve(
        &mut self,
        step: &StepInterval,
        number: usize,
        defer_outputs: bool,
    ) -> Result<(NewtonOutcome, Option<SolverReport>), KernelError> {
        // Whether every integrator is linear changes only with the model (cached on its versions).
        let versions = (self.nsds.topology_version, self.nsds.relation_version);
        if self.linear.0 != Some(versions) {
            let linear = self.members.iter().all(|m| m.osi.is_linear(&self.nsds, &m.systems));
            self.linear = (Some(versions), linear);
        }
        let linear = self.linear.1;
        let Self { nsds, members, problems, owner, options, .. } = self;
        let mut residual = 0.0f64;
        for m in members.iter_mut() {
            residual =
                residual.max(m.osi.begin_newton(OsiContext::new(nsds, &m.systems, &m.interactions, step), linear)?);
        }
        let mut iterations = 0;
        let mut converged = linear;
        let mut osns_report;
        let mut problem_unconverged;
        let mut worst_problem: Option<SolverReport>;
        loop {
            iterations += 1;
            if !linear {
                for m in members.iter_mut() {
                    m.osi.prepare_newton_iteration(OsiContext::new(nsds, &m.systems, &m.interactions, step))?;
                }
            }
            for m in members.iter_mut() {
                m.osi.compute_free_state(OsiContext::new(nsds, &m.systems, &m.interactions, step))?;
            }
            osns_report = None;
            problem_unconverged = false;
            worst_problem = None;
            for problem in problems.iter_mut() {
                let report = solve_problem(nsds, members, owner, problem, step.t, linear)?;
                if let Some(report) = report
                    && !report.is_converged()
                {
                    if options.on_nonconvergence.stops_problem(report.residual) {
                        return Err(KernelError::NotConverged { time: step.t, step: number, report });
                    }
                    problem_unconverged = true;
                    if worst_problem.is_none_or(|w| {
                        !w.residual.is_nan() && (report.residual.is_nan() || report.residual > w.residual)
                    }) {
                        worst_problem = Some(report);
                    }
                }
                osns_report = report.or(osns_report);
                problem.osns.update_inputs(nsds, problem.ids(members), problem.level);
            }
            for m in members.iter_mut() {
                m.osi.update_state(OsiContext::new(nsds, &m.systems, &m.interactions, step))?;
            }
            if linear {
                break;
            }
            residual = 0.0;
            for m in members.iter_mut() {
                let problem = &*problems[m.problem].osns;
                residual = residual
                    .max(m.osi.newton_residual(OsiContext::new(nsds, &m.systems, &m.interactions, step), problem)?);
            }
            if residual <= options.newton_tolerance {
                converged = true;
                break;
            }
            if iterations >= options.newton_max_iterations {
                break;
            }
        }
        for m in members.iter_mut() {
            m.osi.end_newton(OsiContext::new(nsds, &m.systems, &m.interactions, step))?;
        }
        // The outputs at the final iterate (those of the intermediate iterates are not read: each
        // iteration re-evaluates the Jacobians of the active interactions), or, deferred, at the
        // beginning of the next step.
        if defer_outputs {
            self.outputs_stale = true;
        } else {
            self.update_outputs(step.t)?;
        }
        Ok((NewtonOutcome { iterations, residual, converged, linear, problem_unconverged, worst_problem }, osns_report))
    }

    /// The non-convergence policy on the projection.
    fn apply_projection_policy(
        &mut self,
        t: f64,
        step: usize,
        projection: &ProjectionReport,
    ) -> Result<(), KernelError> {
        if !projection.converged {
            if self.options.on_nonconvergence != NonConvergencePolicy::Continue {
                return Err(KernelError::ProjectionNotConverged {
                    time: t,
                    step,
                    iterations: projection.iterations,
                    unilateral: projection.max_unilateral_violation,
                    bilateral: projection.max_bilateral_violation,
                });
            }
            self.nonconverged += 1;
        }
        Ok(())
    }

    /// The non-convergence policy on the Newton loop, and the count of steps that did not
    /// converge (Newton or one-step problem).
    fn apply_newton_policy(&mut self, t: f64, step: usize, outcome: &NewtonOutcome) -> Result<(), KernelError> {
        let NewtonOutcome { iterations, residual, converged, problem_unconverged, .. } = *outcome;
        if !converged && self.options.on_nonconvergence.stops_newton(residual) {
            return Err(KernelError::NewtonNotConverged { time: t, step, iterations, residual });
        }
        if !converged || problem_unconverged {
            self.nonconverged += 1;
        }
        self.total_newton += iterations;
        Ok(())
    }

    /// Index set 1 of the integrators of rule [`IndexSetRule::Activation`]: keeps the order of
    /// interactions that stay active, appends those that become active, and zeroes `λ[1]` of
    /// those that leave (Siconos 4.4); their outputs are first copied into their memories.
    ///
    /// One pass over the slots reads every interaction's outputs, flags and priority in memory
    /// order; the index set is then filtered and sorted from these flags and priorities, by
    /// slot, without going back to the interactions in its own, scattered order. An
    /// interaction that leaves (by [`OneStepIntegrator::stays`]) and passes
    /// [`OneStepIntegrator::enters`] enters again at the end.
    fn update_index_set(&mut self, h: f64) {
        if !self.members.iter().any(|m| m.rule == IndexSetRule::Activation) {
            return;
        }
        let single = self.members.len() == 1;
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
            let member = if single { &self.members[0] } else { &self.members[Self::owner_of(&self.owner, inter)] };
            match member.rule {
                IndexSetRule::Activation => {}
                IndexSetRule::Managed => {
                    stays[slot] = inter.active;
                    continue;
                }
                _ => continue,
            }
            let osi = &*member.osi;
            inter.swap_output_memories();
            priority[slot] = inter.priority;
            let (y0, y1) = (inter.y[0][0], inter.y[1][0]);
            if inter.active {
                if is_bilateral(inter) || osi.stays(y0, y1, h) {
                    stays[slot] = true;
                    continue;
                }
                inter.active = false;
                inter.lambda[1].fill(0.0);
            }
            if is_bilateral(inter) || osi.enters(y0, y1, h) {
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

    /// Outputs of every interaction of second-order systems at `t`.
    fn update_outputs(&mut self, t: f64) -> Result<(), KernelError> {
        self.nsds.update_lagrangian_outputs(t)?;
        self.outputs_stale = false;
        Ok(())
    }
}

/// Solves `problem` on its interactions with the contributions of its integrators (routed by
/// system when it has several).
fn solve_problem(
    nsds: &mut Nsds,
    members: &[Member],
    owner: &[u32],
    problem: &mut Problem,
    t: f64,
    constant_operators: bool,
) -> Result<Option<SolverReport>, KernelError> {
    let Problem { level, osns, members: own, ids } = problem;
    if let [m] = own[..] {
        let member = &members[m];
        return osns.compute(nsds, member.osi.contribution(), &member.interactions, t, constant_operators, *level);
    }
    let routed = Routed { members, owner };
    let contribution = match members[own[0]].osi.contribution() {
        Contribution::SecondOrder(_) => Contribution::SecondOrder(&routed),
        Contribution::FirstOrder(_) => Contribution::FirstOrder(&routed),
    };
    osns.compute(nsds, contribution, ids, t, constant_operators, *level)
}

/// The contributions of several integrators to one problem, each system's from its own
/// integrator (the per-problem values of first-order schemes, such as γ and the step of the
/// blocks, from the integrator of the problem's first system).
struct Routed<'a> {
    members: &'a [Member],
    owner: &'a [u32],
}

impl Routed<'_> {
    fn of(&self, ds: DsId) -> Contribution<'_> {
        self.members[self.owner[ds.index()] as usize].osi.contribution()
    }

    fn first_order(&self, ds: DsId) -> Option<&dyn FirstOrderContribution> {
        match self.of(ds) {
            Contribution::FirstOrder(c) => Some(c),
            _ => None,
        }
    }

    fn any_first_order(&self) -> Option<&dyn FirstOrderContribution> {
        self.members.iter().find_map(|m| match m.osi.contribution() {
            Contribution::FirstOrder(c) => Some(c),
            _ => None,
        })
    }
}

impl SecondOrderContribution for Routed<'_> {
    fn free(&self, ds: DsId) -> &[f64] {
        match self.of(ds) {
            Contribution::SecondOrder(c) => c.free(ds),
            _ => &[],
        }
    }

    fn solve_w(&self, ds: DsId, x: &mut [f64]) {
        if let Contribution::SecondOrder(c) = self.of(ds) {
            c.solve_w(ds, x);
        }
    }

    fn diagonal_w(&self, ds: DsId) -> Option<&[f64]> {
        match self.of(ds) {
            Contribution::SecondOrder(c) => c.diagonal_w(ds),
            _ => None,
        }
    }

    fn iteration_matrix(&self, ds: DsId) -> Option<&faer::Mat<f64>> {
        match self.of(ds) {
            Contribution::SecondOrder(c) => c.iteration_matrix(ds),
            _ => None,
        }
    }
}

impl FirstOrderContribution for Routed<'_> {
    fn partial_state(&self, ds: DsId) -> &[f64] {
        self.first_order(ds).map_or(&[], |c| c.partial_state(ds))
    }

    fn solve_w(&self, ds: DsId, x: &mut [f64]) {
        if let Some(c) = self.first_order(ds) {
            c.solve_w(ds, x);
        }
    }

    fn block_gamma(&self) -> Option<f64> {
        self.any_first_order().and_then(|c| c.block_gamma())
    }

    fn full_theta_gamma(&self) -> bool {
        self.any_first_order().is_some_and(|c| c.full_theta_gamma())
    }

    fn gamma_state(&self, ds: DsId, x_memory: &[f64], out: &mut [f64]) {
        if let Some(c) = self.first_order(ds) {
            c.gamma_state(ds, x_memory, out);
        }
    }

    fn block_step(&self) -> f64 {
        self.any_first_order().map_or(0.0, |c| c.block_step())
    }

    fn constant_operators(&self) -> bool {
        self.members.iter().all(|m| match m.osi.contribution() {
            Contribution::FirstOrder(c) => c.constant_operators(),
            _ => true,
        })
    }
}
