//! The Schatzman–Paoli one-step integrator for linear time-invariant Lagrangian systems
//! (Siconos' `SchatzmanPaoliOSI`; Siconos developer documentation, section "Schatzman–Paoli
//! 'scheme and its linearizations"; M. Schatzman 1978; L. Paoli and M. Schatzman, SIAM J. Numer.
//! Anal. 40, 2002).
//!
//! A two-step scheme on positions, with the unilateral constraint and the restitution law at
//! position level:
//!
//! `M(q_{k+1} − 2q_k + q_{k−1}) + h²(K q_{k+θ} + C v_{k+θ}) − h²F_{k+θ} = p_{k+1}`,
//! `v_{k+1} = (q_{k+1} − q_{k−1}) / (2h)`,
//! `0 ≤ y(q_{k+1}) + e y(q_{k−1}) ⊥ λ_{k+1} ≥ 0`, `p_{k+1} = Hᵀ λ_{k+1}`,
//!
//! with `q_{k+θ} = θ q_{k+1} + (1 − θ) q_k` and `v_{k+θ} = θ v_{k+1} + (1 − θ) v_k`. One
//! linearization step from `q_k` gives
//!
//! `q_free = q_k − W⁻¹ [M(q_{k−1} − q_k) + h²K q_k + h²C(θ(q_k − q_{k−1})/(2h) + (1 − θ) v_k)
//!            − h²((1 − θ) F_ext(t_k) + θ F_ext(t_{k+1}))]`,
//! `q_{k+1} = q_free + W⁻¹ p_{k+1}`,
//!
//! with `W = M + ½hθ C + h²θ² K`. The exact Jacobian of the residual has `h²θ K`;
//! Siconos 4.4 factorizes `h²θ² K`, so for `K ≠ 0` and `θ < 1` its step is one inexact Newton
//! step. We follow Siconos (the results then agree to round-off) and say so here.
//!
//! Accuracy: the centred velocity `v_{k+1}` approximates `v(t_k)` (second order), not
//! `v(t_{k+1})`. With θ = 0 the scheme is Störmer–Verlet in free motion (order 2); with θ > 0
//! the forces at `θ q_{k+1} + (1 − θ) q_k` lag the centred second difference by `θh`: order 1.
//! Impacts are resolved
//! to `O(h)` whatever θ.
//!
//! Nonlinear Lagrangian systems (`M(q)`, `F(t, q, v)`; an extension: Siconos 4.4 implements the
//! linear case only) take the Newton linearization of the Siconos developer documentation
//! (section "The Newton linearization" of the Schatzman–Paoli scheme): from
//! `q⁰ = q_k`, with `R(q) = M(q)(q − 2q_k + q_{k−1}) − h² F(t_k + θh, θq + (1−θ)q_k,
//! θ v(q) + (1−θ)v_k)`, `v(q) = (q − q_{k−1})/(2h)` and `W = M(q^ν) − h²θ ∂F/∂q − ½hθ ∂F/∂v`
//! (`∇M` neglected), each iteration solves the problem at `q_free = q^ν − W⁻¹R(q^ν)` and sets
//! `q^{ν+1} = q_free + W⁻¹p`, until `‖R(q^{ν+1}) − p‖₂ / h` (momentum units, comparable with
//! Moreau–Jean's residual) is below the Newton tolerance.
//!
//! The one-step problem is an LCP at position level on every interaction (index set 0, no
//! activation rule): `0 ≤ H W⁻¹ Hᵀ λ + h(q_free) + e y_{k−1} ⊥ λ ≥ 0`, `λ` stored in `λ[0]`
//! and `p[0] = Σ Hᵀ λ[0]` (a position-level impulse, `h²`-scaled). Outputs are used at
//! level 0 only.

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use faer::Mat;

use super::moreau_jean::{add_external_forces, add_scaled, check_second_order, gemv_add, nonlinear_w};
use super::osi::{
    Contribution, OneStepIntegrator, OsiContext, ProblemLevel, SecondOrderContribution, StepInterval, SystemSet,
};
use super::osns::OneStepProblem;
use crate::KernelError;
use crate::linalg::DenseLu;
use crate::model::{DsId, Interaction, InteractionId, Nsds};

/// How the two-step recursion is started from the initial state `(q0, v0)` at `t0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SchatzmanPaoliStartup {
    /// Siconos 4.4: `(q_{−1}, q_0) = (q0, q0 + h v0)`, `v_0 = v0`. The state at `t0` becomes
    /// `(q0 + h v0, v0)`, and the computed trajectory is offset by `O(h)` from the exact one
    /// (about half a step for `v0 = 0`). Default, for results equal to Siconos'.
    #[default]
    Siconos,
    /// Second-order start: `q_0 = q0` and `q_{−1} = q0 − h v0 + ½ h² M⁻¹(F_ext(t0) − K q0 − C v0)`
    /// (Taylor expansion backwards). The trajectory then converges to the exact one at order 2
    /// away from impacts.
    Taylor,
}

/// Options of [`SchatzmanPaoliOsi`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SchatzmanPaoliOptions {
    /// θ of the θ-method on stiffness, damping and external forces, in `[0, 1]` (default: `0.5`).
    pub theta: f64,
    /// Start of the two-step recursion (default: [`SchatzmanPaoliStartup::Siconos`]).
    pub startup: SchatzmanPaoliStartup,
}

impl Default for SchatzmanPaoliOptions {
    fn default() -> Self {
        Self { theta: 0.5, startup: SchatzmanPaoliStartup::Siconos }
    }
}

impl SchatzmanPaoliOptions {
    /// Sets θ.
    pub fn with_theta(mut self, theta: f64) -> Self {
        self.theta = theta;
        self
    }

    /// Sets the start-up of the recursion.
    pub fn with_startup(mut self, startup: SchatzmanPaoliStartup) -> Self {
        self.startup = startup;
        self
    }
}

/// Per-system workspace.
#[derive(Debug)]
struct SpWork {
    present: bool,
    /// Linear time-invariant (W fixed, one linear solve per step).
    linear: bool,
    /// The recursion has its two positions (start-up done).
    started: bool,
    w: Mat<f64>,
    lu: DenseLu,
    /// `q_{k−1}`.
    q_prev: Vec<f64>,
    q_free: Vec<f64>,
    residu: Vec<f64>,
    scratch: Vec<f64>,
    forces: Vec<f64>,
    dq: Mat<f64>,
    dv: Mat<f64>,
}

/// The Schatzman–Paoli scheme (Siconos' `SchatzmanPaoliOSI`) for Lagrangian systems: linear
/// time-invariant ([`LagrangianLinearTids`](crate::model::LagrangianLinearTids)) as Siconos, and
/// nonlinear ([`LagrangianDs`](crate::model::LagrangianDs)) by a Newton linearization (see the
/// module documentation).
#[doc(alias = "SchatzmanPaoliOSI")]
#[derive(Debug)]
pub struct SchatzmanPaoliOsi {
    options: SchatzmanPaoliOptions,
    work: Vec<SpWork>,
    /// Interactions whose position memory `y_{k−1}` is set, by slot.
    seen: Vec<Option<InteractionId>>,
}

impl SchatzmanPaoliOsi {
    /// The integrator with the given options.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for θ outside `[0, 1]`.
    pub fn new(options: SchatzmanPaoliOptions) -> Result<Self, KernelError> {
        if !(0.0..=1.0).contains(&options.theta) {
            return Err(KernelError::InvalidOption { name: "theta", reason: "must lie in [0, 1]" });
        }
        Ok(Self { options, work: Vec::new(), seen: Vec::new() })
    }

    /// θ given, Siconos' start-up.
    ///
    /// # Errors
    /// As [`SchatzmanPaoliOsi::new`].
    pub fn with_theta(theta: f64) -> Result<Self, KernelError> {
        Self::new(SchatzmanPaoliOptions::default().with_theta(theta))
    }

    /// The options.
    pub fn options(&self) -> &SchatzmanPaoliOptions {
        &self.options
    }

    /// Allocates the workspaces of new systems and factorizes the `W = M + ½hθC + h²θ²K` of the
    /// linear time-invariant ones (`h = t₁ − t₀`, once, as Siconos 4.4).
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] for positions and velocities of different sizes;
    /// [`KernelError::Singular`] for a singular `W`.
    pub(crate) fn prepare(&mut self, nsds: &mut Nsds, systems: &SystemSet, h: f64) -> Result<(), KernelError> {
        let bound = nsds.ds_bound();
        if self.work.len() < bound {
            self.work.resize_with(bound, || SpWork {
                present: false,
                linear: false,
                started: false,
                w: Mat::zeros(0, 0),
                lu: DenseLu::default(),
                q_prev: Vec::new(),
                q_free: Vec::new(),
                residu: Vec::new(),
                scratch: Vec::new(),
                forces: Vec::new(),
                dq: Mat::zeros(0, 0),
                dv: Mat::zeros(0, 0),
            });
        }
        let theta = self.options.theta;
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            let Some(ds) = nsds.ds_slot_mut(i).filter(|_| systems.contains_slot(i)) else {
                work.present = false;
                continue;
            };
            if work.present {
                continue;
            }
            let n = ds.velocity_size();
            if ds.position_size() != n {
                return Err(KernelError::InvalidModel(
                    "the Schatzman–Paoli scheme needs positions and velocities of the same size".into(),
                ));
            }
            work.linear = false;
            work.w = Mat::zeros(n, n);
            work.dq = Mat::zeros(n, n);
            work.dv = Mat::zeros(n, n);
            if let Some(parts) = ds.linear_time_invariant() {
                work.linear = true;
                work.w = parts.mass.clone();
                if let Some(c) = parts.damping {
                    add_scaled(&mut work.w, (1.0 / 2.0) * h * theta, c);
                }
                if let Some(k) = parts.stiffness {
                    add_scaled(&mut work.w, h * h * theta * theta, k);
                }
                work.lu.factorize(&work.w, "Schatzman–Paoli iteration matrix W")?;
            }
            work.present = true;
            work.started = false;
            work.q_prev = vec![0.0; n];
            work.q_free = vec![0.0; n];
            work.residu = vec![0.0; n];
            work.scratch = vec![0.0; n];
            work.forces = vec![0.0; n];
        }
        Ok(())
    }

    /// Starts the recursion of the systems that are not started yet, at time `t` with step `h`:
    /// sets `q_{k−1}` (kept here) and `q_k` (the state's position memory and position).
    /// Returns whether a system was started.
    ///
    /// # Errors
    /// Errors of the external force function.
    pub(crate) fn start(&mut self, nsds: &mut Nsds, t: f64, h: f64) -> Result<bool, KernelError> {
        let mut any = false;
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present || work.started {
                continue;
            }
            any = true;
            work.started = true;
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            match self.options.startup {
                SchatzmanPaoliStartup::Siconos => {
                    let state = ds.state_mut();
                    work.q_prev.copy_from_slice(&state.q);
                    for (q, v) in state.q.iter_mut().zip(&state.v) {
                        *q += h * v;
                    }
                }
                SchatzmanPaoliStartup::Taylor => {
                    // a0 = M(q0)⁻¹ F(t0, q0, v0); q_{−1} = q0 − h v0 + ½h² a0.
                    let n = work.q_prev.len();
                    let mut rhs = vec![0.0; n];
                    let mut mass = Mat::zeros(n, n);
                    let (q0, v0) = (ds.state().q.clone(), ds.state().v.clone());
                    ds.forces(t, &q0, &v0, &mut rhs)?;
                    ds.mass(&q0, &mut mass)?;
                    let mut mass_lu = DenseLu::default();
                    mass_lu.factorize(&mass, "mass matrix")?;
                    mass_lu.solve_in_place(&mut rhs);
                    for j in 0..n {
                        work.q_prev[j] = q0[j] - h * v0[j] + 0.5 * h * h * rhs[j];
                    }
                }
            }
            let state = ds.state_mut();
            state.q_memory.copy_from_slice(&state.q);
            state.v_memory.copy_from_slice(&state.v);
        }
        Ok(any)
    }

    /// Swaps the position of every started system with `q_{k−1}` (to evaluate outputs there;
    /// call twice to restore).
    pub(crate) fn swap_previous_positions(&mut self, nsds: &mut Nsds) {
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            std::mem::swap(&mut ds.state_mut().q, &mut work.q_prev);
        }
    }

    /// Whether every system is linear time-invariant (then one pass solves a step).
    pub(crate) fn all_linear(&self) -> bool {
        self.work.iter().filter(|w| w.present).all(|w| w.linear)
    }

    /// `W = M(q) − h²θ ∂F/∂q − ½hθ ∂F/∂v` of the nonlinear systems at the current iterate `q`
    /// (the Jacobians at the θ-state of [`SchatzmanPaoliOsi::compute_residu`]), factorized.
    ///
    /// # Errors
    /// Errors of the user functions; [`KernelError::Singular`] for a singular `W`.
    pub(crate) fn compute_w(&mut self, nsds: &mut Nsds, t_old: f64, h: f64) -> Result<(), KernelError> {
        let theta = self.options.theta;
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present || work.linear {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            let (q_theta, v_theta) = theta_state(ds.state(), &work.q_prev, theta, h);
            let q = ds.state().q.clone();
            let jacobians_at = (t_old + theta * h, q_theta.as_slice(), v_theta.as_slice());
            let coefficients = (-0.5 * h * theta, -h * h * theta);
            nonlinear_w(&mut **ds, &q, jacobians_at, coefficients, &mut work.w, &mut work.dq, &mut work.dv)?;
            work.lu.factorize(&work.w, "Schatzman–Paoli iteration matrix W")?;
        }
        Ok(())
    }

    /// The free residual `R_free` of every system, and `max_DS ‖R_free − p[0]‖₂ / h` (0 for
    /// linear time-invariant systems, whose one linear solve is exact).
    ///
    /// Linear time-invariant systems, at `q_k` (the order of operations is Siconos 4.4's
    /// `computeResidu`): `R_free = M(q_{k−1} − q_k) + h²K q_k + h²C(θ(q_k − q_{k−1})/(2h) +
    /// (1 − θ) v_k) − h²((1 − θ) F_ext(t_k) + θ F_ext(t_{k+1}))`. Nonlinear systems, at the
    /// iterate `q`: `R_free = M(q)(q − 2q_k + q_{k−1}) − h² F(t_k + θh, θq + (1−θ)q_k,
    /// θ v(q) + (1−θ)v_k)`.
    ///
    /// # Errors
    /// Errors of the user functions.
    pub(crate) fn compute_residu(&mut self, nsds: &mut Nsds, t_old: f64, t: f64, h: f64) -> Result<f64, KernelError> {
        let theta = self.options.theta;
        let mut residual_max = 0.0f64;
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            let n = work.q_prev.len();
            if !work.linear {
                let (q_theta, v_theta) = theta_state(ds.state(), &work.q_prev, theta, h);
                let state = ds.state();
                let q = state.q.clone();
                for j in 0..n {
                    work.scratch[j] = q[j] - 2.0 * state.q_memory[j] + work.q_prev[j];
                }
                let p0 = state.p[0].clone();
                ds.mass(&q, &mut work.dq)?;
                for (row, r) in work.residu.iter_mut().enumerate() {
                    *r = (0..n).map(|j| work.dq[(row, j)] * work.scratch[j]).sum();
                }
                ds.forces(t_old + theta * h, &q_theta, &v_theta, &mut work.forces)?;
                for j in 0..n {
                    work.residu[j] -= h * h * work.forces[j];
                }
                let norm = work.residu.iter().zip(&p0).map(|(r, p)| (r - p) * (r - p)).sum::<f64>().sqrt();
                residual_max = residual_max.max(norm / h);
                continue;
            }
            {
                let parts = ds.linear_time_invariant().expect("a linear system stays linear");
                let state = ds.state();
                let (q_k, v_k) = (&state.q_memory, &state.v_memory);
                // M(q_{k−1} − q_k).
                for j in 0..n {
                    work.scratch[j] = work.q_prev[j] - q_k[j];
                }
                for (row, r) in work.residu.iter_mut().enumerate() {
                    *r = (0..n).map(|j| parts.mass[(row, j)] * work.scratch[j]).sum();
                }
                if let Some(k) = parts.stiffness {
                    gemv_add(&mut work.residu, h * h, k, q_k);
                }
                if let Some(c) = parts.damping {
                    let a = (1.0 / (2.0 * h)) * theta;
                    for j in 0..n {
                        work.scratch[j] = a * (q_k[j] - work.q_prev[j]) + (1.0 - theta) * v_k[j];
                    }
                    gemv_add(&mut work.residu, h * h, c, &work.scratch);
                }
            }
            let coefficients = (((-h) * h) * (1.0 - theta), ((-h) * h) * theta);
            add_external_forces(&mut **ds, (t_old, t), coefficients, &mut work.forces, &mut work.residu)?;
        }
        Ok(residual_max)
    }

    /// `q_free = q − W⁻¹ R_free` of every system, with `q = q_k` for linear time-invariant
    /// systems and the Newton iterate otherwise.
    pub(crate) fn compute_free_state(&mut self, nsds: &mut Nsds) {
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            work.q_free.copy_from_slice(&work.residu);
            work.lu.solve_in_place(&mut work.q_free);
            let state = ds.state();
            let q = if work.linear { &state.q_memory } else { &state.q };
            for j in 0..q.len() {
                work.q_free[j] = -work.q_free[j] + q[j];
            }
        }
    }

    /// `q = q_free + W⁻¹ p[0]`, `v = (q − q_{k−1})/(2h)` for every system.
    pub(crate) fn update_state(&mut self, nsds: &mut Nsds, h: f64) {
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            let state = ds.state_mut();
            work.scratch.copy_from_slice(&state.p[0]);
            work.lu.solve_in_place(&mut work.scratch);
            let c = 1.0 / (2.0 * h);
            for j in 0..work.scratch.len() {
                state.q[j] = work.scratch[j] + work.q_free[j];
                state.v[j] = c * (state.q[j] - work.q_prev[j]);
            }
        }
    }

    /// Commits the step: `q_{k−1} ← q_k`, `q_k ← q`, `v_k ← v`.
    pub(crate) fn swap_memories(&mut self, nsds: &mut Nsds) {
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            let state = ds.state_mut();
            work.q_prev.copy_from_slice(&state.q_memory);
            state.q_memory.copy_from_slice(&state.q);
            state.v_memory.copy_from_slice(&state.v);
        }
    }

    /// `q_{k−1}` of system `ds` (the position one step before the current one).
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`] when the system is not integrated here.
    pub fn previous_position(&self, ds: DsId) -> Result<&[f64], KernelError> {
        match self.work.get(ds.index()) {
            Some(w) if w.present => Ok(&w.q_prev),
            _ => Err(KernelError::UnknownDs(ds.index())),
        }
    }
}

/// The θ-state `(θq + (1−θ)q_k, θv(q) + (1−θ)v_k)` with `v(q) = (q − q_{k−1})/(2h)`.
fn theta_state(state: &crate::model::SecondOrderState, q_prev: &[f64], theta: f64, h: f64) -> (Vec<f64>, Vec<f64>) {
    let c = 1.0 / (2.0 * h);
    let q_theta = state.q.iter().zip(&state.q_memory).map(|(q, qk)| theta * q + (1.0 - theta) * qk).collect();
    let v_theta = state
        .q
        .iter()
        .zip(q_prev)
        .zip(&state.v_memory)
        .map(|((q, qp), vk)| theta * (c * (q - qp)) + (1.0 - theta) * vk)
        .collect();
    (q_theta, v_theta)
}

impl SecondOrderContribution for SchatzmanPaoliOsi {
    fn free(&self, ds: DsId) -> &[f64] {
        &self.work[ds.index()].q_free
    }

    fn solve_w(&self, ds: DsId, x: &mut [f64]) {
        self.work[ds.index()].lu.solve_in_place(x);
    }
}

impl SchatzmanPaoliOsi {
    /// Marks interaction `id` as having its position memory `y_{k−1}` set, copied from `y_k`.
    fn remember_position(&mut self, nsds: &mut Nsds, id: InteractionId) {
        let Interaction { y, y_memory, .. } = nsds.interaction_mut(id);
        y_memory[0].copy_from_slice(&y[0]);
        if self.seen.len() <= id.index() {
            self.seen.resize(id.index() + 1, None);
        }
        self.seen[id.index()] = Some(id);
    }
}

/// The Schatzman–Paoli scheme in a time-stepping simulation: a position-level problem on
/// every interaction of its systems (index set 0).
impl OneStepIntegrator for SchatzmanPaoliOsi {
    fn name(&self) -> &'static str {
        "Schatzman–Paoli"
    }

    fn problem_level(&self) -> ProblemLevel {
        ProblemLevel::Position
    }

    fn check_system(&self, nsds: &Nsds, ds: DsId) -> Result<(), KernelError> {
        check_second_order(self.name(), nsds, ds)
    }

    /// Workspaces and `W` of new systems, the start-up `q_{−1}` of those that need it, and the
    /// position memories `y_{k−1}` of new interactions: `y(q_{−1})` with the Taylor start-up
    /// at the first step, `y_k` otherwise (Siconos 4.4).
    fn initialize(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        step: &StepInterval,
        _first: bool,
    ) -> Result<(), KernelError> {
        let t = step.t_old;
        self.prepare(nsds, systems, step.h0)?;
        let started = self.start(nsds, t, step.h0)?;
        let ids = systems.interactions(nsds);
        if started && self.options.startup == SchatzmanPaoliStartup::Taylor {
            self.swap_previous_positions(nsds);
            for &id in &ids {
                nsds.update_output(id, t)?;
            }
            self.swap_previous_positions(nsds);
            for &id in &ids {
                self.remember_position(nsds, id);
            }
        }
        for id in ids {
            nsds.update_output(id, t)?;
            if self.seen.get(id.index()).copied().flatten() != Some(id) {
                self.remember_position(nsds, id);
            }
        }
        Ok(())
    }

    fn is_linear(&self, nsds: &Nsds, systems: &SystemSet) -> bool {
        self.all_linear()
            && nsds.interaction_graph().node_weights().filter(|i| systems.owns(i)).all(|i| i.is_linear_time_invariant())
    }

    fn begin_newton(&mut self, ctx: OsiContext<'_>, _linear: bool) -> Result<f64, KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        self.compute_residu(nsds, step.t_old, step.t, step.h)
    }

    fn prepare_newton_iteration(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, interactions, step, .. } = ctx;
        self.compute_w(nsds, step.t_old, step.h)?;
        for &id in interactions {
            nsds.update_jacobian(id, step.t)?;
        }
        Ok(())
    }

    /// `q_free`, and `p[0] = 0` on its systems.
    fn compute_free_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, .. } = ctx;
        SchatzmanPaoliOsi::compute_free_state(self, nsds);
        for (i, work) in self.work.iter().enumerate() {
            if let Some(ds) = nsds.ds_slot_mut(i).filter(|_| work.present) {
                ds.state_mut().p[0].fill(0.0);
            }
        }
        Ok(())
    }

    fn contribution(&self) -> Contribution<'_> {
        Contribution::SecondOrder(self)
    }

    fn update_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        SchatzmanPaoliOsi::update_state(self, nsds, step.h);
        Ok(())
    }

    fn newton_residual(&mut self, ctx: OsiContext<'_>, _problem: &dyn OneStepProblem) -> Result<f64, KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        self.compute_residu(nsds, step.t_old, step.t, step.h)
    }

    /// `y_{k−1} ← y_k` before the outputs move to `y_{k+1}`.
    fn end_newton(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, interactions, .. } = ctx;
        for &id in interactions {
            let Interaction { y, y_memory, .. } = nsds.interaction_mut(id);
            y_memory[0].copy_from_slice(&y[0]);
        }
        Ok(())
    }

    fn commit(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, .. } = ctx;
        self.swap_memories(nsds);
        Ok(())
    }
}
