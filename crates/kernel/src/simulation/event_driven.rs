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
//!
//! Acceleration level. After each integration (at the point reached) and after each nonsmooth
//! event, the simulation evaluates the right-hand side of the smooth dynamics once more at the
//! current state, as Siconos' `LsodarOSI` does when it stores `q̈` in the systems (its
//! `LagrangianDS::computeRhs`): the accelerations
//! `q̈ = M(q)⁻¹ (F(t, q, v) + Σ_{α ∈ I_2} G_αᵀ λ_α[2])` ([`EventDriven::acceleration`]) and the
//! outputs `ÿ_α = G_α q̈ + Ġ_α v (+ ∂²h/∂t² + 2 ∂G/∂t · v)` of every interaction
//! ([`EventDriven::output`] at level 2; on `I_2` this is the `w` of the acceleration problem). The
//! multipliers `λ[1]`, `λ[2]` and the inputs `p[1]`, `p[2]` are those the impact and
//! acceleration problems stored ([`EventDriven::multiplier`], [`EventDriven::reaction`]).
//! For a Newton–Euler body `q̈` is the time derivative of the twist, `v̇` (6 components, the
//! coordinates of `G`), not the second derivative of the 7 coordinates of `q`. With friction,
//! `λ[2]` of a contact holds all its rows (`λ_N`, then `λ_T`: the sticking force, or
//! `−μ λ_N d` while sliding), so that `q̈` includes the tangential forces and `ÿ` is the
//! contact's whole local acceleration `(ü_N, ü_T)`.
//!
//! Zeno (accumulation of impacts). A contact whose impacts accumulate at a finite time
//! `t∞ = Σ Δ_k` (a ball with `0 < e < 1`: `Δ_{k+1} = e Δ_k`; Acary and Brogliato 2008, §7.1;
//! Zhang, Johansson, Lygeros and Sastry 2001, "Zeno hybrid systems") is normally caught by the
//! `I_2` switch once its gap velocity after an impact falls below `TOL_ED`. When it is not (a
//! tolerance too small for the integrator's errors), the impacts pile up at the round-off level
//! of `t` and the scheme would loop. The detector watches, for each contact, its last
//! `K + 1` impact times (`K` = [`EventDrivenOptions::zeno_impacts`]) and reports a
//! [`ZenoAccumulation`] when, with `w` = [`EventDrivenOptions::zeno_window`] `· max(1, |t|)`:
//! the `K` intervals decrease geometrically (each ratio `Δ_{j+1}/Δ_j` below 1 and within a
//! factor [`EventDrivenOptions::zeno_ratio_spread`] of `r`) and the tail of the series they fit,
//! `Δ_K r / (1 − r)` with `r = (Δ_K / Δ_1)^{1/(K−1)}`, is below `w` (the estimated limit is then
//! `t_K + Δ_K r / (1 − r)`); or `N` impacts of the contact fall within a window
//! `w_s · max(1, |t|)` counted from the first of them (the impacts stalled at the round-off
//! level without a clean geometric decrease; `N` = [`EventDrivenOptions::zeno_stall_impacts`],
//! `w_s` = [`EventDrivenOptions::zeno_stall_window`]; the estimated limit is then the time of
//! the last impact).
//! Then, by [`EventDrivenOptions::zeno_policy`], the simulation stops there
//! ([`ZenoPolicy::Stop`]) or the contact is made persistent ([`ZenoPolicy::Rest`]: the impact
//! of the event is solved with `e = 0` for it, so that it enters `I_2`, and the run continues;
//! for a frictional contact `e_N = 0` on the normal row of the frictional impact problem, the
//! tangential restitution unchanged). Impacts are counted on the normal row `ẏ_N < 0`, with or
//! without friction.

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use std::cell::{Ref, RefCell};
use std::collections::VecDeque;

use faer::Mat;
use nonsmooth_numerics::lcp::{LcpMethod, LcpProblem, LcpSolver, LemkeOptions};
use nonsmooth_numerics::matrix::NumericsMatrix;

use super::events::{EventKind, EventsManager};
use super::ode::{LsodarIntegrator, LsodarMethod, LsodarStats, OdeIntegrator, OdeOptions, OdeStop};
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

    /// The integrator's counters summed over every call since it was built, restarts included,
    /// when it keeps them (`None` by default).
    fn totals(&self) -> Option<IntegrationTotals> {
        None
    }
}

/// Counters of an LSODAR integration summed over a whole event-driven run. `DLSODAR`'s own
/// counters (`IWORK`) start again at each restart, that is after every nonsmooth event; these
/// add up the increments of each call (Hindmarsh 1983; the method switches of `DLSODA`:
/// Petzold 1983).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IntegrationTotals {
    /// Calls that integrated (a call ending at its start time does nothing and is not counted).
    pub calls: usize,
    /// Integration steps (`NST`).
    pub steps: usize,
    /// Evaluations of the right-hand side, Jacobian columns included (`NFE`).
    pub f_evaluations: usize,
    /// Difference-quotient Jacobians (`NJE`).
    pub jacobian_evaluations: usize,
    /// Method switches, Adams → BDF and back.
    pub switches: usize,
    /// Calls whose last step was a BDF step.
    pub bdf_calls: usize,
    /// The time of the first switch to BDF (`TSW` of the first call ending on BDF).
    pub first_bdf: Option<f64>,
}

impl IntegrationTotals {
    /// Adds the increments of one call: `now` against `before`, the counters at the call's
    /// start (zero after a restart).
    fn add_call(&mut self, before: &LsodarStats, now: &LsodarStats) {
        self.calls += 1;
        self.steps += now.steps.saturating_sub(before.steps);
        self.f_evaluations += now.f_evaluations.saturating_sub(before.f_evaluations);
        self.jacobian_evaluations += now.jacobian_evaluations.saturating_sub(before.jacobian_evaluations);
        self.switches += now.switches.saturating_sub(before.switches);
        if now.method_used == Some(LsodarMethod::Bdf) {
            self.bdf_calls += 1;
            if self.first_bdf.is_none() {
                self.first_bdf = Some(now.switch_time);
            }
        }
    }
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

/// Our port of ODEPACK's DLSODAR ([`LsodarIntegrator`]: Adams–Moulton for nonstiff and BDF for
/// stiff stretches, with DSTODA's automatic switch between them; Hindmarsh 1983, Petzold 1983)
/// as the smooth integrator: the Nordsieck history (and the current method) is kept across
/// grid events and restarted, with Adams, after nonsmooth ones and after the state was moved
/// (quaternion renormalization), as Siconos' `LsodarOSI` does. With [`LsodarSmooth::siconos`] (rtol = 10ε, atol = 100ε) the event-driven
/// runs reproduce Siconos 4.4's.
#[derive(Debug)]
pub struct LsodarSmooth {
    inner: LsodarIntegrator,
    t: f64,
    /// `inner`'s counters at the end of the last call (zero after a restart).
    last: LsodarStats,
    totals: IntegrationTotals,
}

impl LsodarSmooth {
    /// Wraps `inner`.
    pub fn new(inner: LsodarIntegrator) -> Self {
        Self { inner, t: f64::NAN, last: LsodarStats::default(), totals: IntegrationTotals::default() }
    }

    /// The wrapped integrator's counters since its last restart.
    pub fn stats(&self) -> LsodarStats {
        self.inner.stats()
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
        self.last = LsodarStats::default();
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
        let result = self.inner.advance(f, roots, tout, y);
        let now = self.inner.stats();
        self.totals.add_call(&self.last, &now);
        self.last = now;
        let (t, stop) = result?;
        self.t = t;
        Ok((t, stop))
    }

    fn totals(&self) -> Option<IntegrationTotals> {
        Some(self.totals)
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
    /// Zeno detector: the number `K ≥ 2` of consecutive inter-impact intervals of one contact it
    /// examines (default: 10). See the module documentation.
    pub zeno_impacts: usize,
    /// Zeno detector, geometric series: the window `w`, relative to `max(1, |t|)`, below which
    /// the predicted time left to the accumulation counts as zero (default: `1e-13`, about 450
    /// units in the last place of `t` near 1: the root finding cannot separate impacts much
    /// closer than that; it is also below the time left when the `I_2` switch catches a
    /// bouncing ball at the default `TOL_ED`, `2 TOL_ED / (g (1 − e))` ≈ 9e-13 s for
    /// `e = 1/2`, so that the detector leaves those runs alone). `0` turns this test off (and
    /// a `zeno_stall_window` of `0` the other one).
    pub zeno_window: f64,
    /// Zeno detector: how far (as a factor `≥ 1`) each ratio `Δ_{j+1}/Δ_j` of the last `K`
    /// intervals may be from their mean ratio `r` for the series to count as geometric (default:
    /// 2). It keeps a single collapsed interval (a root found again at once, at the round-off
    /// level, which happens with LSODAR just before the `I_2` switch catches a resting ball)
    /// from being taken for an accumulation.
    pub zeno_ratio_spread: f64,
    /// Zeno detector, stalled impacts: the number `N` of impacts of one contact within the
    /// stall window that counts as an accumulation (default: 1000).
    pub zeno_stall_impacts: usize,
    /// Zeno detector, stalled impacts: the window, relative to `max(1, |t|)`, that `N` impacts
    /// of one contact must fall in, counted from the first of them (default: `1e-10`). With
    /// LSODAR and a `TOL_ED` below its errors, the impacts of a ball near the accumulation go
    /// on at intervals of a few `1e-14` s without decreasing, so that `N` of them fall in this
    /// window; a ball whose flights shrink geometrically by `e` until the `I_2` switch catches
    /// it (post-impact velocity below `TOL_ED`) has about
    /// `ln(1 + w_s max(1, t) (1 − e) g / (2 TOL_ED)) / ln(1/e)` impacts in it, far fewer than
    /// `N` for `e ≤ 0.99` at the default `TOL_ED`.
    pub zeno_stall_window: f64,
    /// What to do when an accumulation is detected (default: [`ZenoPolicy::Stop`]).
    pub zeno_policy: ZenoPolicy,
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
            zeno_impacts: 10,
            zeno_window: 1e-13,
            zeno_ratio_spread: 2.0,
            zeno_stall_impacts: 1000,
            zeno_stall_window: 1e-10,
            zeno_policy: ZenoPolicy::Stop,
        }
    }
}

/// What an event-driven simulation does when it detects an accumulation of impacts
/// ([`ZenoAccumulation`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ZenoPolicy {
    /// The event is processed (its impact solved as usual), reported with
    /// [`EventReport::zeno`], and the simulation stops: [`EventDriven::has_next_event`] is
    /// false from then on and [`EventDriven::step`] returns `Ok(None)`.
    #[default]
    Stop,
    /// The impact of the event is solved with restitution `e = 0` for the accumulating contact,
    /// which then enters `I_2` (persistent contact: the ball rests) and the simulation goes on.
    /// The contact rests from the detection time on (the time left to the accumulation is
    /// skipped).
    Rest,
}

/// An accumulation of impacts of one contact (a Zeno point), as found by the detector of
/// [`EventDriven`] (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ZenoAccumulation {
    /// The time of the event at which it was detected (the last impact).
    pub time: f64,
    /// The contact's index ([`InteractionId::index`]).
    pub interaction: usize,
    /// The number of consecutive impacts of the contact (since it last left `I_2`, or since
    /// the start).
    pub impacts: usize,
    /// The estimated accumulation time `t∞`: `time + Δ_K r / (1 − r)` for a geometric
    /// decrease, `time` when the impacts stalled (`N` impacts within the stall window).
    pub estimated_limit: f64,
    /// The ratio `r = (Δ_K / Δ_1)^{1/(K−1)}` of the last `K` intervals (close to 1 when the
    /// impacts stalled).
    pub ratio: f64,
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
    /// The accumulation of impacts detected at this event, if any (see [`ZenoPolicy`] for
    /// what follows).
    pub zeno: Option<ZenoAccumulation>,
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
    /// `q̈` of each system (in the order of `systems`) at the last integration point or event.
    accelerations: Vec<Vec<f64>>,
    /// `ÿ` of each interaction slot there (`None` for a rheonomous relation without its
    /// second time derivative, and for empty slots).
    y_ddot: Vec<Option<Vec<f64>>>,
    /// Interaction slots whose next impact is solved with `e = 0` (Zeno, [`ZenoPolicy::Rest`]).
    inelastic: Vec<bool>,
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
    /// The Zeno detector's options and, per interaction slot, the last impact times and the
    /// number of consecutive impacts.
    zeno_impacts: usize,
    zeno_window: f64,
    zeno_ratio_spread: f64,
    zeno_policy: ZenoPolicy,
    impact_times: Vec<VecDeque<f64>>,
    impact_runs: Vec<usize>,
    /// Per slot: the time of the first impact of the current stall window and the number of
    /// impacts since then within it.
    stalls: Vec<(f64, usize)>,
    zeno_stall_impacts: usize,
    zeno_stall_window: f64,
    /// The last accumulation detected, and whether it stopped the simulation.
    zeno: Option<ZenoAccumulation>,
    finished: bool,
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
    /// Computes the outputs at `t0`, the index sets, the contact forces `λ[2]` of the contacts
    /// at rest there (the acceleration problem) with the accelerations, and schedules a
    /// nonsmooth event at `t0` when a contact is closed there.
    ///
    /// # Errors
    /// [`KernelError::Unsupported`] for first-order relations, laws other than Newton impact
    /// and Newton impact friction, frictional and frictionless laws (or 2D and 3D friction)
    /// in one model, and systems with `T(q) ≠ I` without
    /// [`crate::model::SecondOrderDs::position_rate`]; the errors of the acceleration problem
    /// at `t0` (for instance [`KernelError::InvalidModel`] for a rheonomous relation at rest
    /// without its second time derivative); option and user-function errors.
    pub fn new(
        mut nsds: Nsds,
        grid: TimeDiscretisation,
        integrator: impl SmoothIntegrator + 'static,
        options: EventDrivenOptions,
    ) -> Result<Self, KernelError> {
        if !options.tolerance.is_finite() || options.tolerance <= 0.0 {
            return Err(KernelError::InvalidOption { name: "tolerance", reason: "must be finite and positive" });
        }
        if options.zeno_impacts < 2 {
            return Err(KernelError::InvalidOption { name: "zeno_impacts", reason: "must be at least 2" });
        }
        if !options.zeno_ratio_spread.is_finite() || options.zeno_ratio_spread < 1.0 {
            return Err(KernelError::InvalidOption {
                name: "zeno_ratio_spread",
                reason: "must be finite and at least 1",
            });
        }
        if options.zeno_stall_impacts < 2 {
            return Err(KernelError::InvalidOption { name: "zeno_stall_impacts", reason: "must be at least 2" });
        }
        if !options.zeno_stall_window.is_finite() || options.zeno_stall_window < 0.0 {
            return Err(KernelError::InvalidOption {
                name: "zeno_stall_window",
                reason: "must be finite and non-negative",
            });
        }
        if !options.zeno_window.is_finite() || options.zeno_window < 0.0 {
            return Err(KernelError::InvalidOption { name: "zeno_window", reason: "must be finite and non-negative" });
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
            accelerations: Vec::new(),
            y_ddot: vec![None; bound],
            inelastic: vec![false; bound],
        };
        smooth.accelerations = smooth.systems.iter().map(|(_, d)| vec![0.0; d.n]).collect();
        smooth.update_index_sets(t0)?;
        // The contact forces of the contacts at rest at t0, so that the getters report them
        // before the first event (the event at t0 solves the same problem again).
        if smooth.i2.iter().any(|&b| b) {
            smooth.acceleration_problem(t0)?;
        }
        smooth.record_accelerations(t0)?;
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
            zeno_impacts: options.zeno_impacts,
            zeno_window: options.zeno_window,
            zeno_ratio_spread: options.zeno_ratio_spread,
            zeno_policy: options.zeno_policy,
            impact_times: vec![VecDeque::with_capacity(options.zeno_impacts + 1); bound],
            impact_runs: vec![0; bound],
            stalls: vec![(0.0, 0); bound],
            zeno_stall_impacts: options.zeno_stall_impacts,
            zeno_stall_window: options.zeno_stall_window,
            zeno: None,
            finished: false,
        };
        sim.gather_state();
        Ok(sim)
    }

    /// Whether an event remains (false once an accumulation of impacts stopped the simulation,
    /// [`ZenoPolicy::Stop`]).
    pub fn has_next_event(&self) -> bool {
        !self.finished && self.events.has_next_event()
    }

    /// The last accumulation of impacts detected ([`ZenoAccumulation`]), if any.
    pub fn zeno(&self) -> Option<ZenoAccumulation> {
        self.zeno
    }

    /// The smooth integrator's counters summed over the run so far ([`IntegrationTotals`]),
    /// when it keeps them ([`LsodarSmooth`] does).
    pub fn integration_totals(&self) -> Option<IntegrationTotals> {
        self.integrator.totals()
    }

    /// The accelerations `q̈ = M(q)⁻¹ (F(t, q, v) + Σ_{α ∈ I_2} G_αᵀ λ_α[2])` of system `ds` at
    /// the last integration point or event: the right-hand side of the smooth dynamics there
    /// (Siconos' `q[2]` of a `LagrangianDS`, stored by `LsodarOSI`'s right-hand side). For a
    /// Newton–Euler body this is the twist rate `v̇` (6 components); with friction, `λ[2]`
    /// includes the tangential forces.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`].
    pub fn acceleration(&self, ds: DsId) -> Result<Ref<'_, [f64]>, KernelError> {
        let smooth = self.smooth.borrow();
        let k = smooth.systems.iter().position(|(id, _)| *id == ds).ok_or(KernelError::UnknownDs(ds.index()))?;
        Ok(Ref::map(smooth, |s| s.accelerations[k].as_slice()))
    }

    /// The input `p[level]` of system `ds` (Siconos' `p(level)`): `Σ_α G_αᵀ λ_α[1]`, the
    /// impulse of the last impact (level 1), or `Σ_{α ∈ I_2} G_αᵀ λ_α[2]`, the contact force
    /// of the last acceleration problem (level 2).
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`]; [`KernelError::InvalidOption`] for a level other than 1
    /// or 2.
    pub fn reaction(&self, ds: DsId, level: usize) -> Result<Ref<'_, [f64]>, KernelError> {
        if !(1..=2).contains(&level) {
            return Err(KernelError::InvalidOption { name: "level", reason: "the inputs are p[1] and p[2]" });
        }
        let smooth = self.smooth.borrow();
        if !smooth.systems.iter().any(|(id, _)| *id == ds) {
            return Err(KernelError::UnknownDs(ds.index()));
        }
        Ref::filter_map(smooth, |s| s.nsds.ds(ds).ok().map(|d| d.state().p(level)))
            .map_err(|_| KernelError::UnknownDs(ds.index()))
    }

    /// The multiplier `λ[level]` of interaction `inter` (Siconos' `lambda(level)`): the impulse
    /// of the last impact (level 1; zero after the contact opens) or the contact force of the
    /// last acceleration problem (level 2; zero outside `I_2`).
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`]; [`KernelError::InvalidOption`] for a level other
    /// than 1 or 2.
    pub fn multiplier(&self, inter: InteractionId, level: usize) -> Result<Ref<'_, [f64]>, KernelError> {
        if !(1..=2).contains(&level) {
            return Err(KernelError::InvalidOption { name: "level", reason: "the multipliers are λ[1] and λ[2]" });
        }
        Ref::filter_map(self.smooth.borrow(), |s| s.nsds.interaction(inter).ok().map(|i| i.lambda(level)))
            .map_err(|_| KernelError::UnknownInteraction(inter.index()))
    }

    /// The output `y[level]` of interaction `inter` at the last integration point or event
    /// (Siconos' `y(level)`): the gap `y = h(q, t)` (level 0), its velocity
    /// `ẏ = G v + ∂h/∂t` (level 1, after the impact at an impact event), or its acceleration
    /// `ÿ = G q̈ + Ġ v + ∂²h/∂t² + 2 ∂G/∂t · v` with `q̈` of [`EventDriven::acceleration`]
    /// (level 2).
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`]; [`KernelError::InvalidOption`] for a level above
    /// 2; [`KernelError::InvalidModel`] for `ÿ` of a rheonomous relation without its
    /// `time_second_derivative`.
    pub fn output(&self, inter: InteractionId, level: usize) -> Result<Ref<'_, [f64]>, KernelError> {
        if level > 2 {
            return Err(KernelError::InvalidOption { name: "level", reason: "the outputs are y, ẏ and ÿ" });
        }
        let smooth = self.smooth.borrow();
        smooth.nsds.interaction(inter)?;
        if level < 2 {
            return Ok(Ref::map(smooth, |s| s.nsds.interaction_ref(inter).y(level)));
        }
        Ref::filter_map(smooth, |s| s.y_ddot.get(inter.index()).and_then(|y| y.as_deref())).map_err(|_| {
            KernelError::InvalidModel(format!(
                "interaction {}: ÿ of a rheonomous relation needs its time_second_derivative",
                inter.index()
            ))
        })
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
        if self.finished {
            return Ok(());
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
        smooth.record_accelerations(t_out)?;
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
        if self.finished {
            return Ok(None);
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
        let mut zeno = None;
        if kind == EventKind::Nonsmooth {
            self.smooth.get_mut().normalize_system_positions();
            self.smooth.get_mut().update_index_sets(t)?;
            let bound = self.smooth.get_mut().i1.len();
            if (0..bound).any(|i| self.smooth.get_mut().i1[i] && !self.smooth.get_mut().i2[i]) {
                zeno = self.detect_zeno(t);
                let smooth = self.smooth.get_mut();
                if let (Some(z), ZenoPolicy::Rest) = (zeno, self.zeno_policy) {
                    smooth.inelastic[z.interaction] = true;
                }
                smooth.save_pre_impact();
                let solved = smooth.impact_problem(t);
                smooth.inelastic.fill(false);
                solved?;
                smooth.update_index_sets(t)?;
                impact = true;
                self.impacts += 1;
            }
            let smooth = self.smooth.get_mut();
            if smooth.i2.iter().any(|&b| b) {
                smooth.acceleration_problem(t)?;
                smooth.double_condition(t)?;
            }
            // A contact at rest starts a new series of impacts when it leaves I_2.
            for i in 0..bound {
                if smooth.i2[i] {
                    self.impact_times[i].clear();
                    self.impact_runs[i] = 0;
                    self.stalls[i] = (0.0, 0);
                }
            }
            smooth.record_accelerations(t)?;
            self.restart = true;
            if let Some(z) = zeno {
                self.zeno = Some(z);
                self.finished = self.zeno_policy == ZenoPolicy::Stop;
            }
        }
        let sizes = self.index_set_sizes();
        Ok(Some(EventReport { time: t, kind, impact, index_sets: sizes, zeno }))
    }

    /// Records the impact at `t` of every contact of `I_1 − I_2` that closes (`ẏ < 0`) and
    /// returns the first accumulation found among them (see the module documentation).
    fn detect_zeno(&mut self, t: f64) -> Option<ZenoAccumulation> {
        let smooth = self.smooth.get_mut();
        let k = self.zeno_impacts;
        let scale = t.abs().max(1.0);
        let (window, stall_window) = (self.zeno_window * scale, self.zeno_stall_window * scale);
        let mut found = None;
        for i in 0..smooth.i1.len() {
            if !smooth.i1[i] || smooth.i2[i] {
                continue;
            }
            let Some(id) = smooth.nsds.interaction_at(i) else { continue };
            if smooth.nsds.interaction_ref(id).y[1][0] >= 0.0 {
                continue;
            }
            let times = &mut self.impact_times[i];
            if times.len() == k + 1 {
                times.pop_front();
            }
            times.push_back(t);
            self.impact_runs[i] += 1;
            // Impacts within the stall window of the first of them.
            let (start, count) = &mut self.stalls[i];
            if *count > 0 && t - *start < stall_window {
                *count += 1;
            } else {
                (*start, *count) = (t, 1);
            }
            if found.is_some() {
                continue;
            }
            let stalled = *count >= self.zeno_stall_impacts;
            let (mut ratio, mut tail) = (1.0, f64::INFINITY);
            if times.len() == k + 1 {
                let (first, last) = (times[1] - times[0], times[k] - times[k - 1]);
                if first > 0.0 && last > 0.0 {
                    ratio = (last / first).powf(1.0 / (k - 1) as f64);
                }
                // Geometric: every ratio Δ_{j+1}/Δ_j below 1 and within the spread of r.
                let spread = self.zeno_ratio_spread;
                let geometric = last > 0.0
                    && ratio < 1.0
                    && (1..k).all(|j| {
                        let rho = (times[j + 1] - times[j]) / (times[j] - times[j - 1]);
                        rho < 1.0 && rho * spread >= ratio && rho <= ratio * spread
                    });
                if geometric {
                    tail = last * ratio / (1.0 - ratio);
                }
            }
            if tail < window || stalled {
                let estimated_limit = if tail < window { t + tail } else { t };
                found = Some(ZenoAccumulation {
                    time: t,
                    interaction: i,
                    impacts: self.impact_runs[i],
                    estimated_limit,
                    ratio,
                });
            }
        }
        found
    }

    /// [`EventDriven::advance_to_event`] then [`EventDriven::process_events`].
    ///
    /// # Errors
    /// As the two ([`KernelError::NonFiniteState`] once the simulation is stopped).
    pub fn step(&mut self) -> Result<Option<EventReport>, KernelError> {
        if self.finished && self.stopped.is_none() {
            return Ok(None);
        }
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

    /// The dense `W = Σ_j G_α^j M_j⁻¹ (G_β^j)ᵀ` of the interactions `ids` (blocks over the
    /// systems they share) and the first row of each interaction in it.
    fn dense_delassus(&mut self, ids: &[InteractionId]) -> Result<(Mat<f64>, Vec<usize>), KernelError> {
        let mut assembly = std::mem::take(&mut self.assembly);
        assembly.clear();
        for &id in ids {
            let inter = self.nsds.interaction_ref(id);
            assembly.push(inter, inter.size);
        }
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
        Ok((w, positions))
    }

    /// The LCP on `ids` with `W = G M⁻¹ Gᵀ` and the given `q`; stores `z` in `λ[level]` and
    /// accumulates `p[level] = Gᵀ λ[level]`.
    fn solve_lcp(&mut self, ids: &[InteractionId], q: Vec<f64>, level: usize, t: f64) -> Result<(), KernelError> {
        let (w, positions) = self.dense_delassus(ids)?;
        let n = w.nrows();
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
        self.accumulate_inputs(ids, level);
        Ok(())
    }

    /// `p[level] = Σ Gᵀ λ[level]` over the interactions `ids` (zero first).
    fn accumulate_inputs(&mut self, ids: &[InteractionId], level: usize) {
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
                let inter = self.nsds.interaction_ref(id);
                let column: Vec<f64> =
                    (0..nj).map(|c| (0..lambda.len()).map(|i| inter.h(i, offsets[jj] + c) * lambda[i]).sum()).collect();
                let p = &mut self.nsds.ds_mut(d).expect("a system of the model").state_mut().p[level];
                for c in 0..nj {
                    p[c] += column[c];
                }
            }
        }
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
        self.drift(id, t)?.ok_or_else(|| {
            KernelError::InvalidModel(format!(
                "interaction {}: the event-driven acceleration problem of a rheonomous relation needs \
                 its time_second_derivative (∂²h/∂t² + 2 ∂G/∂t v)",
                id.index()
            ))
        })
    }

    /// [`Smooth::acceleration_drift`], `None` for a relation with `∂h/∂t` but without its
    /// second derivative.
    fn drift(&mut self, id: InteractionId, t: f64) -> Result<Option<Vec<f64>>, KernelError> {
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
                return Ok(None);
            }
        }
        Ok(Some(drift))
    }

    /// Stores `q̈ = M⁻¹ (F + Σ_{α ∈ I_2} G_αᵀ λ_α[2])` of every system and `ÿ = G q̈ + drift` of
    /// every interaction at the current state and time `t` (the outputs and Jacobians are
    /// those of the last output update, at this state).
    fn record_accelerations(&mut self, t: f64) -> Result<(), KernelError> {
        self.factorize_masses()?;
        self.compute_forces(t)?;
        let mut accelerations = std::mem::take(&mut self.accelerations);
        for (a, (_, d)) in accelerations.iter_mut().zip(&self.systems) {
            a.copy_from_slice(&d.forces);
        }
        for slot in 0..self.i2.len() {
            if !self.i2[slot] {
                continue;
            }
            let Some(id) = self.nsds.interaction_at(slot) else { continue };
            let inter = self.nsds.interaction_ref(id);
            for (jj, d) in inter.ds.iter().enumerate() {
                let k = self.system_index(*d);
                for (c, a) in accelerations[k].iter_mut().enumerate() {
                    for (i, l) in inter.lambda[2].iter().enumerate() {
                        *a += inter.h(i, inter.offsets[jj] + c) * l;
                    }
                }
            }
        }
        for (a, (_, d)) in accelerations.iter_mut().zip(&self.systems) {
            d.lu.solve_in_place(a);
        }
        let mut y_ddot = std::mem::take(&mut self.y_ddot);
        let result = (0..y_ddot.len()).try_for_each(|slot| {
            let Some(id) = self.nsds.interaction_at(slot) else {
                y_ddot[slot] = None;
                return Ok(());
            };
            let Some(mut out) = self.drift(id, t)? else {
                y_ddot[slot] = None;
                return Ok(());
            };
            let inter = self.nsds.interaction_ref(id);
            for (jj, d) in inter.ds.iter().enumerate() {
                let k = self.system_index(*d);
                for (i, o) in out.iter_mut().enumerate() {
                    for (c, a) in accelerations[k].iter().enumerate() {
                        *o += inter.h(i, inter.offsets[jj] + c) * a;
                    }
                }
            }
            y_ddot[slot] = Some(out);
            Ok(())
        });
        self.accelerations = accelerations;
        self.y_ddot = y_ddot;
        result
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
            // Zeno, ZenoPolicy::Rest: no rebound (e = 0, the normal row e_N = 0 with friction).
            let inelastic = self.inelastic[id.index()];
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
                let e = if inelastic && (i == 0 || law.friction().is_none()) {
                    0.0
                } else {
                    friction::impact_restitution(&law, i)
                };
                qa[i] += e * inter.y_memory[1][i];
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
