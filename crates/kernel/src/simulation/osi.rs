//! One-step integrators: the open interface between a time-stepping strategy and the schemes it
//! drives (Siconos' `OneStepIntegrator`; V. Acary and B. Brogliato, *Numerical Methods for
//! Nonsmooth Dynamical Systems*, Springer 2008, chapter 10, and the Siconos documentation,
//! "Simulation component").
//!
//! A [`TimeStepping`](super::TimeStepping) owns any number of integrators, each with its own
//! dynamical systems ([`SystemSet`]), and one-step nonsmooth problems keyed by
//! [`ProblemLevel`]. One step from `t_k` to `t_{k+1}` calls, on every integrator:
//!
//! 1. [`begin_step`](OneStepIntegrator::begin_step), then the index sets are built from
//!    [`index_set_rule`](OneStepIntegrator::index_set_rule);
//! 2. the Newton loop (Siconos' `TimeStepping::newtonSolve`):
//!    [`begin_newton`](OneStepIntegrator::begin_newton) (first iterate and residual), then per
//!    iteration [`prepare_newton_iteration`](OneStepIntegrator::prepare_newton_iteration)
//!    (iteration matrices and Jacobians; nonlinear models only),
//!    [`compute_free_state`](OneStepIntegrator::compute_free_state), the one-step problems
//!    (which read each system's free state and `W⁻¹` through
//!    [`contribution`](OneStepIntegrator::contribution)) and their inputs,
//!    [`update_state`](OneStepIntegrator::update_state), and
//!    [`newton_residual`](OneStepIntegrator::newton_residual), until the largest residual of
//!    all integrators is below the tolerance;
//! 3. [`end_newton`](OneStepIntegrator::end_newton), the outputs,
//!    [`after_newton`](OneStepIntegrator::after_newton) (projections, which may ask for the
//!    step to be solved again), and [`commit`](OneStepIntegrator::commit) (memories).

use std::any::Any;

use nonsmooth_numerics::SolverReport;

use super::osns::OneStepProblem;
pub use super::osns::{Contribution, FirstOrderContribution, ProblemLevel, SecondOrderContribution};
use crate::KernelError;
use crate::model::{DsId, Interaction, InteractionId, Nsds};

/// Which interactions of an integrator enter its one-step problem at a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IndexSetRule {
    /// Every interaction (index set 0, in slot order).
    All,
    /// Index set 1 by the activation test: an interaction enters when
    /// [`OneStepIntegrator::enters`] holds at the outputs of the beginning of the step, and an
    /// interaction already in it stays while [`OneStepIntegrator::stays`] holds; equality laws
    /// are always in it. The output memories are set from the outputs on the way.
    Activation,
    /// Index set 1 managed by the integrator itself in [`OneStepIntegrator::begin_step`] and
    /// [`OneStepIntegrator::after_newton`].
    Managed,
}

/// The time interval of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct StepInterval {
    /// Start of the step, `t_k`.
    pub t_old: f64,
    /// End of the step, `t_{k+1}`.
    pub t: f64,
    /// `h = t_{k+1} − t_k`.
    pub h: f64,
    /// The first step of the grid, `t₁ − t₀` (schemes that factorize once use it, as Siconos).
    pub h0: f64,
}

impl StepInterval {
    /// The interval `[t_old, t]` of a grid whose first step is `h0`.
    pub fn new(t_old: f64, t: f64, h0: f64) -> Self {
        Self { t_old, t, h: t - t_old, h0 }
    }
}

/// What an integrator works on in a step: the model, its systems, its interactions in its
/// one-step problem (in the problem's order) and the step's interval.
#[derive(Debug)]
pub struct OsiContext<'a> {
    /// The model.
    pub nsds: &'a mut Nsds,
    /// The integrator's systems.
    pub systems: &'a SystemSet,
    /// Its interactions in its one-step problem, in the problem's order.
    pub interactions: &'a [InteractionId],
    /// The step.
    pub step: &'a StepInterval,
}

impl<'a> OsiContext<'a> {
    /// The context of a step on `systems` and `interactions` of `nsds`.
    pub fn new(
        nsds: &'a mut Nsds,
        systems: &'a SystemSet,
        interactions: &'a [InteractionId],
        step: &'a StepInterval,
    ) -> Self {
        Self { nsds, systems, interactions, step }
    }
}

/// The dynamical systems of one integrator, by slot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SystemSet {
    /// Every system of the model (a simulation with one integrator).
    all: bool,
    slots: Vec<bool>,
}

impl SystemSet {
    /// Every system of the model, including those added later.
    pub fn all() -> Self {
        Self { all: true, slots: Vec::new() }
    }

    /// The systems `ids`.
    pub fn of(ids: impl IntoIterator<Item = DsId>) -> Self {
        let mut set = Self::default();
        for id in ids {
            set.insert(id);
        }
        set
    }

    /// Adds system `id`.
    pub fn insert(&mut self, id: DsId) {
        if !self.all {
            if self.slots.len() <= id.index() {
                self.slots.resize(id.index() + 1, false);
            }
            self.slots[id.index()] = true;
        }
    }

    /// Whether the set holds every system of the model.
    pub fn is_all(&self) -> bool {
        self.all
    }

    /// Whether the system in slot `slot` belongs to the set.
    #[inline]
    pub fn contains_slot(&self, slot: usize) -> bool {
        self.all || self.slots.get(slot).copied().unwrap_or(false)
    }

    /// Whether system `id` belongs to the set.
    pub fn contains(&self, id: DsId) -> bool {
        self.contains_slot(id.index())
    }

    /// Whether interaction `inter` links systems of the set (its first system is; a
    /// simulation checks that an interaction never links systems of two integrators).
    #[inline]
    pub fn owns(&self, inter: &Interaction) -> bool {
        self.all || inter.ds().first().is_some_and(|d| self.contains(*d))
    }

    /// The systems of the set present in `nsds`, by slot.
    pub fn ids<'a>(&'a self, nsds: &'a Nsds) -> impl Iterator<Item = DsId> + 'a {
        nsds.ds_ids().filter(move |&d| self.contains(d))
    }

    /// The interactions of `nsds` on systems of the set, by slot.
    pub fn interactions(&self, nsds: &Nsds) -> Vec<InteractionId> {
        let mut out = Vec::new();
        self.interactions_into(nsds, &mut out);
        out
    }

    /// [`SystemSet::interactions`] into `out` (cleared first).
    pub fn interactions_into(&self, nsds: &Nsds, out: &mut Vec<InteractionId>) {
        out.clear();
        out.extend((0..nsds.interaction_bound()).filter_map(|i| nsds.interaction_at(i)).filter(|&id| {
            let inter = nsds.interaction_ref(id);
            self.owns(inter)
        }));
    }
}

/// What [`OneStepIntegrator::after_newton`] asks of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum AfterNewton {
    /// The step is done; with the report of a projection onto the constraints, if any.
    Done(Option<ProjectionReport>),
    /// Solve the step again from its start (the index set changed).
    Redo,
}

/// What the projection did in one step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ProjectionReport {
    /// Projection iterations (position-level problems solved) in the step (last pass).
    pub iterations: usize,
    /// Passes of the step (1 for the direct projection).
    pub passes: usize,
    /// `max(0, −y)` over the unilateral constraints of the projected set, after the projection.
    pub max_unilateral_violation: f64,
    /// `‖y‖∞` over the bilateral constraints of the projected set, after the projection.
    pub max_bilateral_violation: f64,
    /// Whether the violations ended below the tolerances (and, combined, the index set settled).
    pub converged: bool,
    /// The report of the last position-level problem, `None` when none was solved.
    pub last_problem: Option<SolverReport>,
}

/// A one-step integrator: the scheme of its own dynamical systems inside a
/// [`TimeStepping`](super::TimeStepping) (Siconos' `OneStepIntegrator`). The module
/// documentation gives the order of the calls. The methods of a step receive an
/// [`OsiContext`]: the model, the integrator's systems, its interactions in its one-step
/// problem and the step's interval.
pub trait OneStepIntegrator: Any + Send + std::fmt::Debug {
    /// The scheme's name, for messages.
    fn name(&self) -> &'static str;

    /// The one-step problem its interactions enter.
    fn problem_level(&self) -> ProblemLevel;

    /// Checks that the integrator can integrate system `ds`.
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] when it cannot (a first-order system for a second-order
    /// scheme, sizes the scheme does not support).
    fn check_system(&self, nsds: &Nsds, ds: DsId) -> Result<(), KernelError>;

    /// Which interactions enter its problem (default: [`IndexSetRule::All`]).
    fn index_set_rule(&self) -> IndexSetRule {
        IndexSetRule::All
    }

    /// The activation test of [`IndexSetRule::Activation`] at the outputs `(y₀, ẏ₀)` of the
    /// beginning of a step of length `h` (default: never).
    fn enters(&self, _y0: f64, _y1: f64, _h: f64) -> bool {
        false
    }

    /// Whether an interaction already in index set 1 stays in it (default:
    /// [`OneStepIntegrator::enters`]).
    fn stays(&self, y0: f64, y1: f64, h: f64) -> bool {
        self.enters(y0, y1, h)
    }

    /// Prepares the integrator after a change of the model and before the first step: the
    /// workspaces of its new systems, their constant iteration matrices and, at the first call
    /// (`first`), the memories of the initial state. The outputs of the Lagrangian interactions
    /// are computed by the simulation afterwards.
    ///
    /// # Errors
    /// Errors of the user functions, [`KernelError::Singular`] for a singular `W`.
    fn initialize(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        step: &StepInterval,
        first: bool,
    ) -> Result<(), KernelError>;

    /// Whether one Newton pass solves a step: its systems and the relations of its
    /// interactions are linear.
    fn is_linear(&self, nsds: &Nsds, systems: &SystemSet) -> bool;

    /// Before the index sets of a step (default: nothing). An integrator of rule
    /// [`IndexSetRule::Managed`] sets its part of index set 1 (`index_set`) here.
    ///
    /// # Errors
    /// Errors of the user functions.
    fn begin_step(
        &mut self,
        _nsds: &mut Nsds,
        _systems: &SystemSet,
        _index_set: &mut Vec<InteractionId>,
        _step: &StepInterval,
    ) -> Result<(), KernelError> {
        Ok(())
    }

    /// The first Newton iterate and its residual `max ‖R‖₂` over its systems (not read for a
    /// `linear` step).
    ///
    /// # Errors
    /// Errors of the user functions.
    fn begin_newton(&mut self, ctx: OsiContext<'_>, linear: bool) -> Result<f64, KernelError>;

    /// Before each Newton iteration of a nonlinear step: iteration matrices and the Jacobians
    /// of its interactions at the iterate (default: nothing).
    ///
    /// # Errors
    /// Errors of the user functions, [`KernelError::Singular`] for a singular `W`.
    fn prepare_newton_iteration(&mut self, _ctx: OsiContext<'_>) -> Result<(), KernelError> {
        Ok(())
    }

    /// The free state of its systems, and their inputs at its level set to zero (the one-step
    /// problem adds to them).
    ///
    /// # Errors
    /// Errors of the user functions.
    fn compute_free_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError>;

    /// What the one-step problem reads of its systems.
    fn contribution(&self) -> Contribution<'_>;

    /// The state of its systems from the inputs the one-step problem left in them.
    ///
    /// # Errors
    /// Errors of the user functions.
    fn update_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError>;

    /// The Newton residual `max ‖R‖₂` at the new iterate of a nonlinear step (systems and, for
    /// schemes that have them, relations; `problem` is the one-step problem of its level).
    ///
    /// # Errors
    /// Errors of the user functions, [`KernelError::Singular`] for a singular `W`.
    fn newton_residual(&mut self, ctx: OsiContext<'_>, problem: &dyn OneStepProblem) -> Result<f64, KernelError>;

    /// After the Newton loop, before the outputs are computed at the new state (default:
    /// nothing).
    ///
    /// # Errors
    /// Errors of the user functions.
    fn end_newton(&mut self, _ctx: OsiContext<'_>) -> Result<(), KernelError> {
        Ok(())
    }

    /// Whether [`OneStepIntegrator::after_newton`] reads the outputs at the new state (then the
    /// simulation never defers them; default: `false`).
    fn reads_new_outputs(&self) -> bool {
        false
    }

    /// After the Newton loop and the outputs: a projection onto the constraints, or a request
    /// to solve the step again (`pass` counts the solves of the step from 1; default: done).
    ///
    /// # Errors
    /// Errors of the user functions and of the projection's problems.
    fn after_newton(
        &mut self,
        _nsds: &mut Nsds,
        _systems: &SystemSet,
        _index_set: &mut Vec<InteractionId>,
        _step: &StepInterval,
        _pass: usize,
    ) -> Result<AfterNewton, KernelError> {
        Ok(AfterNewton::Done(None))
    }

    /// Commits the step: the memories of its systems (`q_k ← q`, …).
    ///
    /// # Errors
    /// Errors of the user functions.
    fn commit(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError>;
}

/// Whether the interaction is a bilateral constraint (equality law), always in index set 1.
pub(crate) fn is_bilateral(inter: &Interaction) -> bool {
    matches!(inter.law, crate::model::NonsmoothLaw::Equality { .. })
}
