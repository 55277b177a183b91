//! Event-driven simulation of Lagrangian systems with unilateral contacts and Newton impacts
//! (Siconos' `EventDriven` with `LsodarOSI`; Siconos documentation, "Event-Driven schemes",
//! "Event Driven algorithm for Lagrangian systems" and "Events"; Acary and Brogliato 2008,
//! chapter 7).
//!
//! Between events the smooth dynamics `M(q) q̈ = F(t, q, q̇) + Gᵀ λ[2]` is integrated, `λ[2]`
//! coming from the LCP at acceleration level on the persistent contacts `I_2`, until the first
//! root of `g = y[0]` on `I_0 − I_2` or `g = λ[2]` on `I_2` (both guarded by `TOL_ED` as Siconos
//! 4.4 does, so that a contact just released after an impact is not found again at once). At a
//! nonsmooth event: outputs, index sets `I_1` (`|y| ≤ TOL_ED`) and `I_2` (`|ẏ| ≤ TOL_ED` in
//! `I_1`), the impact LCP at velocity level on `I_1` when `I_1 − I_2 ≠ ∅`
//! (`ẏ⁺ = G M⁻¹ Gᵀ λ[1] + ẏ⁻`, `0 ≤ ẏ⁺ + e ẏ⁻ ⊥ λ[1] ≥ 0`), the post-impact velocity
//! `v⁺ = v⁻ + M⁻¹ Gᵀ λ[1]`, the index sets again, and when `I_2 ≠ ∅` the LCP at acceleration level
//! followed by the double-condition update (a contact force below `TOL_ED` releases the contact,
//! the undetermined case included). The order of these operations is Siconos 4.4's, established by
//! running it (see `docs/architecture.md`).
//!
//! Rheonomous relations `y = h(q, t)` (which Siconos 4.4's event-driven scheme refuses): the
//! outputs `ẏ = G v + ∂h/∂t` used by the index sets and the root functions include `∂h/∂t`; the
//! impact LCP has `q = G v⁻ + ∂h/∂t + e ẏ⁻` (so `w = ẏ⁺ + e ẏ⁻`); the acceleration LCP has
//! `q = G M⁻¹ F + Ġ v + ∂²h/∂t² + 2 ∂G/∂t · v` (the last two from
//! `LagrangianRelation::time_second_derivative`, required for a relation with `∂h/∂t`), and the
//! double condition tests the same `ÿ`.
//!
//! Systems with `T(q) ≠ I` (Newton–Euler bodies): the integrated state holds `q` (7 per body)
//! and `v` (6, the twist), with `q̇ = T(q) v` ([`crate::model::SecondOrderDs::position_rate`]);
//! the unit quaternion is brought back to the unit sphere
//! ([`crate::model::SecondOrderDs::normalize_position`]) after each integration segment (the
//! integrator then restarts from the normalized state) and at each event. `G` is the relations'
//! Jacobian in twist coordinates (`ẏ = G v`), as in the time-stepping schemes, so every problem
//! above reads the same with `M` the body's `diag(m I₃, I)`.
//!
//! Newton impact laws with Coulomb friction (2D or 3D, one model holds one kind of law): the
//! impact problem is the frictional contact problem at velocity level and the acceleration
//! problem a mode-dependent mixed problem, with friction root functions; [`friction`] states
//! the problem solved at each level.

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use std::cell::RefCell;

use faer::Mat;
use nonsmooth_numerics::lcp::{LcpMethod, LcpProblem, LcpSolver, LemkeOptions};
use nonsmooth_numerics::matrix::NumericsMatrix;

use super::events::{EventKind, EventsManager};
use super::ode::{LsodarIntegrator, OdeIntegrator, OdeOptions, OdeStop};
use super::osns::{BlockAssembly, MatrixStorage};
use super::time_stepping::TimeDiscretisation;
use crate::linalg::DenseLu;
use crate::model::{DsId, InteractionId, Nsds};
use crate::{KernelError, NonFiniteValue};
use nonsmooth_numerics::fc::fc2d_lcp::Fc2dLemkeOptions;
use nonsmooth_numerics::fc::nsgs::{NsgsLocalSolver, NsgsOptions};
use nonsmooth_numerics::fc::{Fc2dMethod, Fc3dMethod};

pub mod friction;
pub use friction::FrictionMode;

/// A right-hand side `f(t, y, out)` of an ODE.
pub type RhsFn<'a> = &'a mut dyn FnMut(f64, &[f64], &mut [f64]) -> Result<(), KernelError>;
/// Root functions: their number and `g(t, y, out)`.
pub type RootFns<'a> = Option<(usize, &'a mut dyn FnMut(f64, &[f64], &mut [f64]) -> Result<(), KernelError>)>;

/// The smooth integrator of an event-driven simulation (LSODAR's role in Siconos): it keeps
/// its own history between calls until [`SmoothIntegrator::restart`].
pub trait SmoothIntegrator: Send {
    /// Forgets the history: the next [`SmoothIntegrator::advance`] starts from `(t0, y0)`.
    fn restart(&mut self, t0: f64, y0: &[f64]);

    /// Integrates to `tout` or to the first root of the root functions, whichever comes first;
    /// `y` holds the state there on return. Returns the time reached and why it stopped.
    ///
    /// # Errors
    /// Integration failures ([`KernelError::OdeFailure`]) and errors of `f` or `g`.
    fn advance(
        &mut self,
        f: RhsFn<'_>,
        roots: RootFns<'_>,
        tout: f64,
        y: &mut [f64],
    ) -> Result<(f64, OdeStop), KernelError>;
}

/// [`OdeIntegrator`] as a smooth integrator: each call integrates from where the last one
/// stopped (an adaptive one-step method needs no history).
#[derive(Debug)]
pub struct RestartingOde {
    ode: OdeIntegrator,
    t: f64,
}

impl RestartingOde {
    /// The integrator with `options`.
    ///
    /// # Errors
    /// As [`OdeIntegrator::new`].
    pub fn new(options: OdeOptions) -> Result<Self, KernelError> {
        Ok(Self { ode: OdeIntegrator::new(options)?, t: f64::NAN })
    }
}

impl SmoothIntegrator for RestartingOde {
    fn restart(&mut self, t0: f64, _y0: &[f64]) {
        self.t = t0;
    }

    fn advance(
        &mut self,
        f: RhsFn<'_>,
        roots: RootFns<'_>,
        tout: f64,
        y: &mut [f64],
    ) -> Result<(f64, OdeStop), KernelError> {
        if tout <= self.t {
            return Ok((self.t, OdeStop::Reached));
        }
        let (t, stop, _) = self.ode.integrate(f, roots, self.t, y, tout)?;
        self.t = t;
        Ok((t, stop))
    }
}

/// Our port of LSODAR's nonstiff path ([`LsodarIntegrator`]) as the smooth integrator: the
/// history is kept across grid events and restarted after nonsmooth ones, as Siconos'
/// `LsodarOSI` does. With [`LsodarSmooth::siconos`] (rtol = 10ε, atol = 100ε) the event-driven
/// runs reproduce Siconos 4.4's.
#[derive(Debug)]
pub struct LsodarSmooth {
    inner: LsodarIntegrator,
    t: f64,
}

impl LsodarSmooth {
    /// Wraps `inner`.
    pub fn new(inner: LsodarIntegrator) -> Self {
        Self { inner, t: f64::NAN }
    }

    /// Siconos' `LsodarOSI` defaults.
    pub fn siconos() -> Self {
        Self::new(LsodarIntegrator::siconos())
    }
}

impl SmoothIntegrator for LsodarSmooth {
    fn restart(&mut self, t0: f64, y0: &[f64]) {
        self.t = t0;
        self.inner.restart(t0, y0);
    }

    fn advance(
        &mut self,
        f: RhsFn<'_>,
        roots: RootFns<'_>,
        tout: f64,
        y: &mut [f64],
    ) -> Result<(f64, OdeStop), KernelError> {
        // A nonsmooth event at the start time: nothing to integrate (DLSODAR's call from t0
        // to t0 does nothing in Siconos).
        if tout <= self.t {
            return Ok((self.t, OdeStop::Reached));
        }
        let (t, stop) = self.inner.advance(f, roots, tout, y)?;
        self.t = t;
        Ok((t, stop))
    }
}

/// Options of [`EventDriven`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EventDrivenOptions {
    /// Siconos' `TOL_ED`: a gap, a gap velocity or a contact force below it counts as zero
    /// (default: `1e4 ε ≈ 2.22e-12`).
    pub tolerance: f64,
    /// The solver of the impact and acceleration LCPs (default: Lemke, tolerance 1e-6, as
    /// Siconos' `LCP()`).
    pub lcp: LcpMethod,
    /// The solver of the impact problem with 2D Coulomb friction (default: Lemke on the LCP
    /// reformulation, exact, tolerance 1e-12).
    pub fc2d: Fc2dMethod,
    /// The solver of the impact problem with 3D Coulomb friction (default: NSGS with the exact
    /// one-contact quartic solver, tolerance 1e-12, at most 10 000 sweeps).
    pub fc3d: Fc3dMethod,
}

impl Default for EventDrivenOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e4 * f64::EPSILON,
            lcp: LcpMethod::Lemke(LemkeOptions::default().with_tolerance(1e-6).with_max_iterations(10_000)),
            fc2d: Fc2dMethod::Lemke(Fc2dLemkeOptions::default()).with_tolerance(1e-12),
            fc3d: Fc3dMethod::Nsgs(NsgsOptions::default().with_local_solver(NsgsLocalSolver::Quartic))
                .with_tolerance(1e-12)
                .with_max_iterations(10_000),
        }
    }
}

/// What the last processed event was.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct EventReport {
    /// Its time.
    pub time: f64,
    /// Its kind.
    pub kind: EventKind,
    /// Whether an impact LCP was solved (velocity jump).
    pub impact: bool,
    /// Size of `I_1` and `I_2` after the event.
    pub index_sets: (usize, usize),
}

/// Per-system data of the event-driven simulation.
#[derive(Debug, Default)]
struct DsData {
    offset: usize,
    /// Size of `q` (`n` unless `T(q) ≠ I`).
    nq: usize,
    n: usize,
    lu: DenseLu,
    lu_ready: bool,
    constant_mass: bool,
    mass: Option<Mat<f64>>,
    forces: Vec<f64>,
    pre_q: Vec<f64>,
    pre_v: Vec<f64>,
}

/// The part of the simulation the right-hand side and the root functions work on.
struct Smooth {
    nsds: Nsds,
    systems: Vec<(DsId, DsData)>,
    i1: Vec<bool>,
    i2: Vec<bool>,
    tolerance: f64,
    lcp: Box<dyn LcpSolver + Send>,
    /// The blocks `G_α^j M_j⁻¹ (G_β^j)ᵀ` of the impact and acceleration problems.
    assembly: BlockAssembly,
    /// The friction modes and solvers, for a model with Newton impact friction laws.
    friction: Option<friction::Friction>,
}

/// Event-driven simulation (Siconos' `EventDriven`): `advance_to_event`, then
/// `process_events`, or both in [`EventDriven::step`].
///
/// After each integration and each event, the state `q`, `v` of the systems and the multipliers
/// `λ[1]`, `λ[2]` of the interactions are checked: a NaN or an infinity (a diverging model, forces
/// that overflow) stops the simulation with [`KernelError::NonFiniteState`], and every later call
/// returns that error again ([`EventDriven::stopped`]).
pub struct EventDriven {
    smooth: RefCell<Smooth>,
    events: EventsManager,
    integrator: Box<dyn SmoothIntegrator>,
    x: Vec<f64>,
    restart: bool,
    impacts: usize,
    /// The time and the value of the non-finite state that stopped the simulation.
    stopped: Option<(f64, NonFiniteValue)>,
}

impl std::fmt::Debug for EventDriven {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventDriven")
            .field("events", &self.events)
            .field("impacts", &self.impacts)
            .finish_non_exhaustive()
    }
}

impl EventDriven {
    /// The simulation of `nsds` on `grid` (the output times), integrated by `integrator`.
    /// Computes the outputs at `t0`, the index sets, and schedules a nonsmooth event at `t0`
    /// when a contact is closed there.
    ///
    /// # Errors
    /// [`KernelError::Unsupported`] for first-order relations, laws other than Newton impact
    /// and Newton impact friction, frictional and frictionless laws (or 2D and 3D friction)
    /// in one model, and systems with `T(q) ≠ I` without
    /// [`crate::model::SecondOrderDs::position_rate`]; option and user-function errors.
    pub fn new(
        mut nsds: Nsds,
        grid: TimeDiscretisation,
        integrator: impl SmoothIntegrator + 'static,
        options: EventDrivenOptions,
    ) -> Result<Self, KernelError> {
        if !options.tolerance.is_finite() || options.tolerance <= 0.0 {
            return Err(KernelError::InvalidOption { name: "tolerance", reason: "must be finite and positive" });
        }
        let mut systems = Vec::new();
        let mut offset = 0;
        let ids: Vec<DsId> = (0..nsds.ds_bound()).filter_map(|i| nsds.ds_at(i)).collect();
        for id in ids {
            let ds = nsds.ds(id)?;
            let (nq, n) = (ds.position_size(), ds.velocity_size());
            let mut rate = vec![0.0; nq];
            if !ds.position_rate(ds.state().q(), ds.state().v(), &mut rate) {
                return Err(KernelError::Unsupported {
                    scheme: "the event-driven scheme",
                    what: format!("system {}: T(q) ≠ I without its position rate q̇ = T(q) v", id.index()),
                });
            }
            let data = DsData {
                offset,
                nq,
                n,
                constant_mass: ds.is_mass_constant(),
                forces: vec![0.0; n],
                pre_q: ds.state().q().to_vec(),
                pre_v: ds.state().v().to_vec(),
                ..DsData::default()
            };
            systems.push((id, data));
            offset += nq + n;
        }
        let friction = match friction::check_model(&nsds)? {
            Some(dimension) => Some(friction::Friction::new(dimension, &options, nsds.interaction_bound())?),
            None => None,
        };
        let t0 = grid.t0();
        let bound = nsds.interaction_bound();
        let ids: Vec<InteractionId> = nsds.interaction_ids().collect();
        for &id in &ids {
            nsds.update_output(id, t0)?;
        }
        let mut smooth = Smooth {
            nsds,
            systems,
            i1: vec![false; bound],
            i2: vec![false; bound],
            tolerance: options.tolerance,
            lcp: options.lcp.build()?,
            assembly: BlockAssembly::default(),
            friction,
        };
        smooth.update_index_sets(t0)?;
        let mut events = EventsManager::new(grid);
        if smooth.i1.iter().any(|&b| b) {
            events.schedule_nonsmooth(t0)?;
        }
        let x = vec![0.0; offset];
        let mut sim = Self {
            smooth: RefCell::new(smooth),
            events,
            integrator: Box::new(integrator),
            x,
            restart: true,
            impacts: 0,
            stopped: None,
        };
        sim.gather_state();
        Ok(sim)
    }

    /// Whether an event remains.
    pub fn has_next_event(&self) -> bool {
        self.events.has_next_event()
    }

    /// Whether the next event is nonsmooth (an impact or a change of the active sets).
    pub fn next_event_is_nonsmooth(&self) -> bool {
        self.events.next_event().is_some_and(|e| e.kind == EventKind::Nonsmooth)
    }

    /// The time of the last processed event (the start of the next integration).
    pub fn time(&self) -> f64 {
        self.events.starting_time()
    }

    /// The events manager.
    pub fn events(&self) -> &EventsManager {
        &self.events
    }

    /// Number of impacts so far.
    pub fn impacts(&self) -> usize {
        self.impacts
    }

    /// Reads the model.
    pub fn with_nsds<R>(&self, read: impl FnOnce(&Nsds) -> R) -> R {
        read(&self.smooth.borrow().nsds)
    }

    /// The state `(q, v)` of system `ds` just before the last impact.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`].
    pub fn pre_impact_state(&self, ds: DsId) -> Result<(Vec<f64>, Vec<f64>), KernelError> {
        let smooth = self.smooth.borrow();
        let (_, d) = smooth.systems.iter().find(|(id, _)| *id == ds).ok_or(KernelError::UnknownDs(ds.index()))?;
        Ok((d.pre_q.clone(), d.pre_v.clone()))
    }

    /// Sizes of `I_1` and `I_2`.
    pub fn index_set_sizes(&self) -> (usize, usize) {
        let smooth = self.smooth.borrow();
        (smooth.i1.iter().filter(|&&b| b).count(), smooth.i2.iter().filter(|&&b| b).count())
    }

    /// The friction mode of interaction `id` as the last event left it:
    /// [`FrictionMode::Inactive`] outside `I_2` and for a model without friction laws.
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`].
    pub fn friction_mode(&self, id: InteractionId) -> Result<FrictionMode, KernelError> {
        let smooth = self.smooth.borrow();
        smooth.nsds.interaction(id)?;
        let i = id.index();
        Ok(match &smooth.friction {
            Some(f) if smooth.i2.get(i).copied().unwrap_or(false) => f.mode(i),
            _ => FrictionMode::Inactive,
        })
    }

    fn gather_state(&mut self) {
        let smooth = self.smooth.borrow();
        for (id, d) in &smooth.systems {
            let s = smooth.nsds.ds(*id).expect("a system of the model").state();
            self.x[d.offset..d.offset + d.nq].copy_from_slice(s.q());
            self.x[d.offset + d.nq..d.offset + d.nq + d.n].copy_from_slice(s.v());
        }
    }

    /// The error that stopped the simulation, [`KernelError::NonFiniteState`], when an
    /// integration or an event left a non-finite state; `None` while it runs.
    pub fn stopped(&self) -> Option<KernelError> {
        self.stopped.map(|(time, what)| KernelError::NonFiniteState { time, step: 0, what })
    }

    /// Checks the state after an integration or an event that ended at `time` with `result`
    /// (an error of one that left a non-finite state is the divergence, at the error's time).
    fn check_state<T>(&mut self, result: Result<T, KernelError>, time: f64) -> Result<T, KernelError> {
        let time = match &result {
            Ok(_) => time,
            Err(KernelError::NonFiniteState { .. }) => return result,
            Err(e) => error_time(e).unwrap_or(time),
        };
        let smooth = self.smooth.get_mut();
        let found = smooth.nsds.first_non_finite_state().or_else(|| {
            let ids: Vec<InteractionId> = smooth.nsds.interaction_ids().collect();
            (1..=2).find_map(|level| smooth.nsds.first_non_finite_multiplier(&ids, level))
        });
        match found {
            Some(what) => {
                self.stopped = Some((time, what));
                Err(KernelError::NonFiniteState { time, step: 0, what })
            }
            None => result,
        }
    }

    /// Integrates the smooth dynamics from the current event to the next one, or to the first
    /// root found on the way (then a nonsmooth event is scheduled there).
    ///
    /// # Errors
    /// [`KernelError::NonFiniteState`] when the integration reached a non-finite state (the
    /// simulation is then stopped), or when an earlier call stopped it; integration and
    /// user-function errors.
    pub fn advance_to_event(&mut self) -> Result<(), KernelError> {
        if let Some(error) = self.stopped() {
            return Err(error);
        }
        let start = self.events.starting_time();
        let result = self.integrate_to_event();
        let reached = *result.as_ref().unwrap_or(&start);
        self.check_state(result, reached).map(|_| ())
    }

    /// [`EventDriven::advance_to_event`] without the checks; returns the time reached.
    fn integrate_to_event(&mut self) -> Result<f64, KernelError> {
        let t_init = self.events.starting_time();
        let Some(t_end) = self.events.next_time() else { return Ok(t_init) };
        {
            let smooth = self.smooth.get_mut();
            smooth.reset_multipliers();
        }
        self.gather_state();
        if self.restart {
            self.integrator.restart(t_init, &self.x);
        }
        let ng = self.smooth.borrow().root_count();
        let cell = &self.smooth;
        let mut f = |t: f64, x: &[f64], out: &mut [f64]| cell.borrow_mut().rhs(t, x, out);
        let mut g = |t: f64, x: &[f64], out: &mut [f64]| cell.borrow_mut().roots(t, x, out);
        let roots: RootFns<'_> = if ng > 0 { Some((ng, &mut g)) } else { None };
        let (t_out, stop) = self.integrator.advance(&mut f, roots, t_end, &mut self.x)?;
        let smooth = self.smooth.get_mut();
        // Unit quaternions back on the sphere; a moved state restarts the integrator.
        let normalized = smooth.normalize_positions(&mut self.x);
        smooth.write_state(&self.x);
        let root = matches!(stop, OdeStop::Root { .. });
        if root {
            self.events.schedule_nonsmooth(t_out)?;
        }
        self.restart = root || normalized;
        let t_next = self.events.next_time().unwrap_or(t_out);
        smooth.update_outputs(t_next)?;
        if !root && smooth.i2.iter().any(|&b| b) {
            smooth.acceleration_problem(t_out)?;
        }
        Ok(t_out)
    }

    /// Processes the next event (see the module documentation).
    ///
    /// # Errors
    /// [`KernelError::NonFiniteState`] when the event left a non-finite state or multiplier
    /// (the simulation is then stopped), or when an earlier call stopped it;
    /// [`KernelError::EventDriven`] for a gap below `−TOL_ED` or an inconsistent acceleration
    /// problem; one-step problem and user-function errors.
    pub fn process_events(&mut self) -> Result<Option<EventReport>, KernelError> {
        if let Some(error) = self.stopped() {
            return Err(error);
        }
        let result = self.process_next_event();
        let time = self.events.starting_time();
        self.check_state(result, time)
    }

    /// [`EventDriven::process_events`] without the checks.
    fn process_next_event(&mut self) -> Result<Option<EventReport>, KernelError> {
        let Some(kind) = self.events.process_events() else { return Ok(None) };
        let t = self.events.starting_time();
        let mut impact = false;
        if kind == EventKind::Nonsmooth {
            let smooth = self.smooth.get_mut();
            smooth.normalize_system_positions();
            smooth.update_index_sets(t)?;
            let bound = smooth.i1.len();
            if (0..bound).any(|i| smooth.i1[i] && !smooth.i2[i]) {
                smooth.save_pre_impact();
                smooth.impact_problem(t)?;
                smooth.update_index_sets(t)?;
                impact = true;
                self.impacts += 1;
            }
            if smooth.i2.iter().any(|&b| b) {
                smooth.acceleration_problem(t)?;
                smooth.double_condition(t)?;
            }
            self.restart = true;
        }
        let sizes = self.index_set_sizes();
        Ok(Some(EventReport { time: t, kind, impact, index_sets: sizes }))
    }

    /// [`EventDriven::advance_to_event`] then [`EventDriven::process_events`].
    ///
    /// # Errors
    /// As the two ([`KernelError::NonFiniteState`] once the simulation is stopped).
    pub fn step(&mut self) -> Result<Option<EventReport>, KernelError> {
        self.advance_to_event()?;
        self.process_events()
    }
}

/// The time an error of a running simulation carries, if it has one.
fn error_time(error: &KernelError) -> Option<f64> {
    match *error {
        KernelError::OdeFailure { time, .. }
        | KernelError::NonFiniteCallback { time, .. }
        | KernelError::NotConverged { time, .. }
        | KernelError::EventDriven { time, .. } => Some(time),
        _ => None,
    }
}

impl Smooth {
    fn active(&self, set: &[bool]) -> Vec<InteractionId> {
        (0..set.len()).filter(|&i| set[i]).filter_map(|i| self.nsds.interaction_at(i)).collect()
    }

    fn write_state(&mut self, x: &[f64]) {
        for (id, d) in &self.systems {
            let s = self.nsds.ds_mut(*id).expect("a system of the model").state_mut();
            s.q.copy_from_slice(&x[d.offset..d.offset + d.nq]);
            s.v.copy_from_slice(&x[d.offset + d.nq..d.offset + d.nq + d.n]);
        }
    }

    /// [`crate::model::SecondOrderDs::normalize_position`] of every system on the gathered
    /// state `x`; whether any position moved.
    fn normalize_positions(&mut self, x: &mut [f64]) -> bool {
        let mut moved = false;
        for (id, d) in &self.systems {
            let ds = self.nsds.ds(*id).expect("a system of the model");
            moved |= ds.normalize_position(&mut x[d.offset..d.offset + d.nq]);
        }
        moved
    }

    /// [`crate::model::SecondOrderDs::normalize_position`] of every system's own state.
    fn normalize_system_positions(&mut self) {
        for (id, _) in &self.systems {
            let ds = self.nsds.ds_mut(*id).expect("a system of the model");
            let mut q = ds.state().q().to_vec();
            if ds.normalize_position(&mut q) {
                ds.state_mut().q.copy_from_slice(&q);
            }
        }
    }

    /// Number of root functions: one per interaction slot, and a second one per slot (the
    /// friction roots, after the first ones) for a model with friction.
    fn root_count(&self) -> usize {
        let bound = self.nsds.interaction_bound();
        if self.friction.is_some() { 2 * bound } else { bound }
    }

    fn reset_multipliers(&mut self) {
        let ids: Vec<InteractionId> = self.nsds.interaction_ids().collect();
        for id in ids {
            let inter = self.nsds.interaction_mut(id);
            for level in 0..3 {
                inter.lambda[level].fill(0.0);
            }
        }
        for (id, _) in &self.systems {
            let s = self.nsds.ds_mut(*id).expect("a system of the model").state_mut();
            s.p[1].fill(0.0);
            s.p[2].fill(0.0);
        }
    }

    /// Factorizes `M(q)` of every system (once for a constant mass).
    fn factorize_masses(&mut self) -> Result<(), KernelError> {
        for (id, d) in &mut self.systems {
            if d.constant_mass && d.lu_ready {
                continue;
            }
            let ds = self.nsds.ds_mut(*id)?;
            let q = ds.state().q().to_vec();
            let m = d.mass.get_or_insert_with(|| Mat::zeros(d.n, d.n));
            ds.mass(&q, m)?;
            d.lu.factorize(m, "mass matrix M(q)")?;
            d.lu_ready = true;
        }
        Ok(())
    }

    /// `F(t, q, v)` of every system.
    fn compute_forces(&mut self, t: f64) -> Result<(), KernelError> {
        for (id, d) in &mut self.systems {
            let ds = self.nsds.ds_mut(*id)?;
            let (q, v) = (ds.state().q().to_vec(), ds.state().v().to_vec());
            ds.forces(t, &q, &v, &mut d.forces)?;
        }
        Ok(())
    }

    /// `M⁻¹ (F + p[2])` of system `k`.
    fn acceleration(&self, k: usize) -> Result<Vec<f64>, KernelError> {
        let (id, d) = &self.systems[k];
        let p2 = &self.nsds.ds(*id)?.state().p[2];
        let mut a: Vec<f64> = (0..d.n).map(|i| p2[i] + d.forces[i]).collect();
        d.lu.solve_in_place(&mut a);
        Ok(a)
    }

    fn system_index(&self, ds: DsId) -> usize {
        self.systems.iter().position(|(id, _)| *id == ds).expect("a system of the model")
    }

    /// The LCP on `ids` with `W = G M⁻¹ Gᵀ` and the given `q`; stores `z` in `λ[level]` and
    /// accumulates `p[level] = Gᵀ λ[level]`.
    fn solve_lcp(&mut self, ids: &[InteractionId], q: Vec<f64>, level: usize, t: f64) -> Result<(), KernelError> {
        // W = Σ_j G_α^j M_j⁻¹ (G_β^j)ᵀ over shared systems, dense.
        let mut assembly = std::mem::take(&mut self.assembly);
        assembly.clear();
        for &id in ids {
            let inter = self.nsds.interaction_ref(id);
            assembly.push(inter, inter.size);
        }
        let n = assembly.size();
        let solve_w = |d: DsId, x: &mut [f64]| {
            if let Some((_, data)) = self.systems.iter().find(|(id, _)| *id == d) {
                data.lu.solve_in_place(x);
            }
        };
        let matrix = assembly.matrix(&self.nsds, &solve_w, MatrixStorage::Dense, None);
        let positions = assembly.positions.clone();
        self.assembly = assembly;
        let w = match matrix? {
            NumericsMatrix::Dense(w) => w,
            other => other.to_dense(),
        };
        let problem = LcpProblem::new(NumericsMatrix::Dense(w), q)?;
        let (mut z, mut wv) = (vec![0.0; n], vec![0.0; n]);
        let report = self.lcp.solve(&problem, &mut z, &mut wv)?;
        if !report.is_converged() {
            return Err(KernelError::NotConverged { time: t, step: 0, report });
        }
        for (k, &id) in ids.iter().enumerate() {
            let inter = self.nsds.interaction_mut(id);
            let m = inter.size;
            inter.lambda[level].copy_from_slice(&z[positions[k]..positions[k] + m]);
            inter.y[level].copy_from_slice(&wv[positions[k]..positions[k] + m]);
        }
        // p[level] = Σ Gᵀ λ[level].
        for (id, _) in &self.systems {
            self.nsds.ds_mut(*id).expect("a system of the model").state_mut().p[level].fill(0.0);
        }
        for &id in ids {
            let inter = self.nsds.interaction_ref(id);
            let lambda = inter.lambda[level].clone();
            let (ds, offsets) = (inter.ds.clone(), inter.offsets.clone());
            for (jj, d) in ds.into_iter().enumerate() {
                let k = self.system_index(d);
                let nj = self.systems[k].1.n;
                let column: Vec<f64> = (0..nj)
                    .map(|c| {
                        (0..lambda.len()).map(|i| self.nsds.interaction_ref(id).h(i, offsets[jj] + c) * lambda[i]).sum()
                    })
                    .collect();
                let p = &mut self.nsds.ds_mut(d).expect("a system of the model").state_mut().p[level];
                for c in 0..nj {
                    p[c] += column[c];
                }
            }
        }
        Ok(())
    }

    /// The LCP at acceleration level on `I_2`: `q = G M⁻¹ F + Ġ v`, then `λ[2]`, `p[2]`.
    fn acceleration_problem(&mut self, t: f64) -> Result<(), KernelError> {
        if self.friction.is_some() {
            return self.friction_acceleration_problem(t);
        }
        let ids = self.active(&self.i2.clone());
        if ids.is_empty() {
            return Ok(());
        }
        for &id in &ids {
            self.nsds.update_jacobian(id, t)?;
        }
        self.factorize_masses()?;
        self.compute_forces(t)?;
        let free: Vec<Vec<f64>> = (0..self.systems.len())
            .map(|k| {
                let d = &self.systems[k].1;
                let mut a = d.forces.clone();
                d.lu.solve_in_place(&mut a);
                a
            })
            .collect();
        let mut q = Vec::new();
        for &id in &ids {
            let inter = self.nsds.interaction_mut(id);
            let m = inter.size;
            let mut qa = vec![0.0; m];
            for (jj, &d) in inter.ds.clone().iter().enumerate() {
                let k = self.systems.iter().position(|(x, _)| *x == d).expect("a system of the model");
                let off = inter.offsets[jj];
                for i in 0..m {
                    let mut s = 0.0;
                    for c in 0..free[k].len() {
                        s += inter.h(i, off + c) * free[k][c];
                    }
                    qa[i] += s;
                }
            }
            let drift = self.acceleration_drift(id, t)?;
            for i in 0..m {
                qa[i] += drift[i];
            }
            q.extend(qa);
        }
        self.solve_lcp(&ids, q, 2, t)
    }

    /// The velocity-dependent part of `ÿ = G v̇ + drift` of interaction `id` at the positions
    /// and velocities gathered at its last evaluation: `Ġ v` (when the relation provides it)
    /// plus, for a relation with explicit time dependence, `∂²h/∂t² + 2 ∂G/∂t · v`
    /// ([`crate::model::LagrangianRelation::time_second_derivative`]).
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] for a relation with `∂h/∂t` but without its second
    /// derivative (the acceleration problem would be wrong); user-function errors.
    fn acceleration_drift(&mut self, id: InteractionId, t: f64) -> Result<Vec<f64>, KernelError> {
        let inter = self.nsds.interaction_mut(id);
        let m = inter.size;
        let mut drift = vec![0.0; m];
        let mut work = vec![0.0; m];
        let rheonomous = inter.relation_has_time_derivative();
        if let crate::model::Relation::Lagrangian(relation) = &mut inter.relation {
            if relation.jacobian_time_derivative_times_v(t, &inter.q_work, &inter.v_work, &mut work)? {
                for i in 0..m {
                    drift[i] += work[i];
                }
            }
            if relation.time_second_derivative(t, &inter.q_work, &inter.v_work, &mut work)? {
                for i in 0..m {
                    drift[i] += work[i];
                }
            } else if rheonomous {
                return Err(KernelError::InvalidModel(format!(
                    "interaction {}: the event-driven acceleration problem of a rheonomous relation needs \
                     its time_second_derivative (∂²h/∂t² + 2 ∂G/∂t v)",
                    id.index()
                )));
            }
        }
        Ok(drift)
    }

    /// The impact LCP on `I_1`: `q = G v⁻ + ∂h/∂t + e ẏ⁻` (`∂h/∂t` for rheonomous relations,
    /// with `ẏ⁻ = G v⁻ + ∂h/∂t`); then `v⁺ = v⁻ + M⁻¹ p[1]` and `ẏ⁺`.
    fn impact_problem(&mut self, t: f64) -> Result<(), KernelError> {
        let ids = self.active(&self.i1.clone());
        self.factorize_masses()?;
        let mut q = Vec::new();
        for &id in &ids {
            // G, ∂h/∂t and the gathered v⁻ at (q⁻, t) (the output memories keep ẏ⁻).
            self.nsds.update_output(id, t)?;
            let inter = self.nsds.interaction_ref(id);
            let law = inter.law;
            let m = inter.size;
            let mut qa = vec![0.0; m];
            for i in 0..m {
                let mut s = 0.0;
                for (j, vj) in inter.v_work.iter().enumerate() {
                    s += inter.h(i, j) * vj;
                }
                qa[i] = s;
            }
            for i in 0..m {
                if inter.relation_has_time_derivative() {
                    qa[i] += inter.h_dot[i];
                }
                qa[i] += friction::impact_restitution(&law, i) * inter.y_memory[1][i];
            }
            q.extend(qa);
        }
        if self.friction.is_some() {
            self.solve_friction_impact(&ids, q, t)?;
        } else {
            self.solve_lcp(&ids, q, 1, t)?;
        }
        // v⁺ = M⁻¹ p[1] + v⁻.
        for k in 0..self.systems.len() {
            let (id, d) = &self.systems[k];
            let s = self.nsds.ds(*id)?.state();
            let mut dv = s.p[1].clone();
            d.lu.solve_in_place(&mut dv);
            let v: Vec<f64> = (0..d.n).map(|i| dv[i] + s.v()[i]).collect();
            self.nsds.ds_mut(*id)?.state_mut().v.copy_from_slice(&v);
        }
        self.update_outputs(t)
    }

    fn save_pre_impact(&mut self) {
        for (id, d) in &mut self.systems {
            let s = self.nsds.ds(*id).expect("a system of the model").state();
            d.pre_q.copy_from_slice(s.q());
            d.pre_v.copy_from_slice(s.v());
        }
        self.nsds.swap_output_memories();
    }

    fn update_outputs(&mut self, t: f64) -> Result<(), KernelError> {
        let ids: Vec<InteractionId> = self.nsds.interaction_ids().collect();
        for id in ids {
            self.nsds.update_output(id, t)?;
        }
        Ok(())
    }

    /// `I_1`: `|y| ≤ TOL_ED`; `I_2` (within `I_1`): `|ẏ| ≤ TOL_ED`.
    fn update_index_sets(&mut self, t: f64) -> Result<(), KernelError> {
        let tol = self.tolerance;
        for i in 0..self.i1.len() {
            let Some(id) = self.nsds.interaction_at(i) else {
                self.i1[i] = false;
                self.i2[i] = false;
                continue;
            };
            let inter = self.nsds.interaction_mut(id);
            let (y, yd) = (inter.y[0][0], inter.y[1][0]);
            if y < -tol {
                return Err(KernelError::EventDriven { time: t, interaction: i, reason: "gap below −TOL_ED" });
            }
            if !self.i1[i] && y.abs() <= tol {
                self.i1[i] = true;
            } else if self.i1[i] && y.abs() > tol {
                self.i1[i] = false;
                inter.lambda[1].fill(0.0);
            }
            if self.i1[i] {
                if !self.i2[i] && yd.abs() <= tol {
                    self.i2[i] = true;
                } else if self.i2[i] && yd.abs() > tol {
                    self.i2[i] = false;
                    inter.lambda[2].fill(0.0);
                }
            } else if self.i2[i] {
                self.i2[i] = false;
                inter.lambda[2].fill(0.0);
            }
        }
        Ok(())
    }

    /// After the acceleration LCP: a contact whose force is below `TOL_ED` leaves `I_2`. With
    /// friction, the sticking and sliding modes are decided first (`friction` submodule).
    fn double_condition(&mut self, t: f64) -> Result<(), KernelError> {
        if self.friction.is_some() {
            self.decide_friction_modes(t)?;
        }
        let tol = self.tolerance;
        // ÿ = G a + Ġ v with the new accelerations.
        let accelerations: Vec<Vec<f64>> =
            (0..self.systems.len()).map(|k| self.acceleration(k)).collect::<Result<_, _>>()?;
        for i in 0..self.i2.len() {
            if !self.i2[i] {
                continue;
            }
            let id = self.nsds.interaction_at(i).expect("an interaction of I_2");
            let drift = self.acceleration_drift(id, t)?;
            let inter = self.nsds.interaction_ref(id);
            let force = inter.lambda[2][0];
            let mut gamma = drift[0];
            for (jj, &d) in inter.ds.iter().enumerate() {
                let k = self.systems.iter().position(|(x, _)| *x == d).expect("a system of the model");
                for c in 0..accelerations[k].len() {
                    gamma += inter.h(0, inter.offsets[jj] + c) * accelerations[k][c];
                }
            }
            if force.abs() < tol {
                self.i2[i] = false;
            } else if gamma < -tol || force < -tol {
                return Err(KernelError::EventDriven {
                    time: t,
                    interaction: i,
                    reason: "negative acceleration or force",
                });
            } else if gamma.abs() > tol && force.abs() > tol {
                return Err(KernelError::EventDriven {
                    time: t,
                    interaction: i,
                    reason: "acceleration and force both nonzero",
                });
            }
        }
        Ok(())
    }

    /// `ẋ = (T(q) v, M⁻¹(F + Gᵀ λ[2]))` at `(t, x)`, `λ[2]` from the acceleration problem on `I_2`.
    fn rhs(&mut self, t: f64, x: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        self.write_state(x);
        for (id, _) in &self.systems {
            self.nsds.ds_mut(*id)?.state_mut().p[2].fill(0.0);
        }
        if self.i2.iter().any(|&b| b) {
            self.acceleration_problem(t)?;
        } else {
            self.factorize_masses()?;
            self.compute_forces(t)?;
        }
        for k in 0..self.systems.len() {
            let a = self.acceleration(k)?;
            let (id, d) = &self.systems[k];
            let (q, v) = (&x[d.offset..d.offset + d.nq], &x[d.offset + d.nq..d.offset + d.nq + d.n]);
            self.nsds.ds(*id)?.position_rate(q, v, &mut out[d.offset..d.offset + d.nq]);
            out[d.offset + d.nq..d.offset + d.nq + d.n].copy_from_slice(&a);
        }
        Ok(())
    }

    /// The root functions (Siconos 4.4's `EventDriven::computeg`), one per interaction slot.
    fn roots(&mut self, t: f64, x: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        self.write_state(x);
        let tol = self.tolerance;
        if self.i2.iter().any(|&b| b) {
            for (id, _) in &self.systems {
                self.nsds.ds_mut(*id)?.state_mut().p[2].fill(0.0);
            }
            self.acceleration_problem(t)?;
        }
        self.update_outputs(t)?;
        let bound = self.nsds.interaction_bound();
        if self.friction.is_some() {
            self.friction_roots(&mut out[bound..]);
        }
        for i in 0..bound {
            let Some(id) = self.nsds.interaction_at(i) else {
                out[i] = 100.0 * tol;
                continue;
            };
            let inter = self.nsds.interaction_ref(id);
            let (y, yd) = (inter.y[0][0], inter.y[1][0]);
            out[i] = if !self.i2[i] {
                if y > tol {
                    y
                } else if yd > -tol {
                    100.0 * tol
                } else {
                    y
                }
            } else {
                let force = inter.lambda[2][0];
                if force > tol || inter.y[2][0] > tol { force } else { 100.0 * tol }
            };
        }
        Ok(())
    }
}
