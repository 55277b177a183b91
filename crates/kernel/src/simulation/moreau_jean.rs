//! The Moreau–Jean one-step integrator for second-order systems (Siconos' `MoreauJeanOSI`; the
//! Siconos documentation of `MoreauJeanOSI` and the Siconos developer documentation, section
//! "Moreau–Jean event-capturing scheme"; M. Jean, "The non-smooth contact dynamics method",
//! CMAME 177, 1999; J.J. Moreau, "Unilateral contact and dry friction in finite freedom
//! dynamics", 1988; V. Acary and B. Brogliato, *Numerical Methods for Nonsmooth Dynamical
//! Systems*, Springer 2008, chapter 10).
//!
//! One step from `t_k` to `t_{k+1} = t_k + h`:
//! - iteration matrix `W = M + hθC + h²θ²K` (linear time-invariant: factorized once), or
//!   `W = M(q) − hθ ∂F/∂v − h²θ² ∂F/∂q` at the Newton iterate (nonlinear);
//! - free residual `R_free` and free velocity `v_free = v − W⁻¹ R_free`;
//! - after the one-step problem: `v = v_free + W⁻¹ p`, `q = q_k + h(θ v + (1 − θ) v_k)`;
//! - activation: an interaction enters the velocity-level problem when
//!   `y₀ + γ h ẏ₀ ≤ threshold` with the outputs at the beginning of the step (γ = 1/2 and
//!   threshold 0 by default, what Siconos 4.4 does).

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use faer::Mat;

use crate::KernelError;
use crate::linalg::{DenseLu, copy_small};
use crate::model::ds::SecondOrderDs;
use crate::model::{DsId, InteractionId, Nsds};
use crate::simulation::osi::{
    Contribution, IndexSetRule, OneStepIntegrator, OsiContext, ProblemLevel, SecondOrderContribution, StepInterval,
    SystemSet,
};
use crate::simulation::osns::OneStepProblem;

/// Options of [`MoreauJeanOsi`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct MoreauJeanOptions {
    /// θ of the θ-method on the smooth forces and the positions, in `[0, 1]` (default: `0.5`).
    pub theta: f64,
    /// γ of the activation prediction `y + γ h ẏ ≤ threshold` (default: `0.5`).
    pub gamma: f64,
    /// Activation threshold of the prediction (default: `0.0`).
    pub activation_threshold: f64,
}

impl Default for MoreauJeanOptions {
    fn default() -> Self {
        Self { theta: 0.5, gamma: 0.5, activation_threshold: 0.0 }
    }
}

impl MoreauJeanOptions {
    /// Sets θ.
    pub fn with_theta(mut self, theta: f64) -> Self {
        self.theta = theta;
        self
    }

    /// Sets γ of the activation rule.
    pub fn with_gamma(mut self, gamma: f64) -> Self {
        self.gamma = gamma;
        self
    }

    /// Sets the activation threshold.
    pub fn with_activation_threshold(mut self, threshold: f64) -> Self {
        self.activation_threshold = threshold;
        self
    }
}

/// Per-system workspace of the integrator.
#[derive(Debug)]
struct DsWork {
    present: bool,
    linear: bool,
    /// `W` is factorized for the current `h` (linear time-invariant systems only keep it).
    w_ready: bool,
    /// `W = M` at every iterate and step (constant mass, force Jacobians identically zero,
    /// [`SecondOrderDs::forces_jacobians_vanish`]): factorized once, like a linear system's.
    constant_w: bool,
    /// The mass does not depend on `q` ([`SecondOrderDs::is_mass_constant`]).
    constant_mass: bool,
    w: Mat<f64>,
    lu: DenseLu,
    /// `W` is diagonal (and larger than 1 × 1): `W⁻¹` is applied by division by its diagonal,
    /// kept in [`FlatVectors::diagonal`], which gives the values of the LU solve (see
    /// [`apply_w_inv`]).
    diagonal: bool,
    /// `M` row-major is in [`FlatVectors::mass_rows`] (computed once for a constant mass).
    mass_ready: bool,
    /// Size `n` of the velocity, and where the system's vectors start in [`FlatVectors`]
    /// (`start` for the vectors of size `n`, `mass_start` for `M`).
    n: usize,
    start: usize,
    mass_start: usize,
    dq: Mat<f64>,
    dv: Mat<f64>,
    /// Last residual norm `‖R_free − p‖₂` (Newton test).
    residual: f64,
}

impl Default for DsWork {
    fn default() -> Self {
        Self {
            present: false,
            linear: false,
            w_ready: false,
            constant_w: false,
            constant_mass: false,
            w: Mat::zeros(0, 0),
            lu: DenseLu::default(),
            diagonal: false,
            mass_ready: false,
            n: 0,
            start: 0,
            mass_start: 0,
            dq: Mat::zeros(0, 0),
            dv: Mat::zeros(0, 0),
            residual: 0.0,
        }
    }
}

/// The vectors of every system, one after the other (system `i` at
/// `[work[i].start, work[i].start + n)`, its `M` at `[work[i].mass_start, … + n²)`): the passes
/// over the systems read them in order.
#[derive(Debug, Default)]
struct FlatVectors {
    residu_free: Vec<f64>,
    v_free: Vec<f64>,
    forces: Vec<f64>,
    rhs: Vec<f64>,
    /// The diagonal of `W` of the systems whose `W` is diagonal.
    diagonal: Vec<f64>,
    /// `M` row-major, as the residual reads it.
    mass_rows: Vec<f64>,
}

impl FlatVectors {
    /// Room for a system of size `n`: returns `(start, mass_start)`.
    fn push(&mut self, n: usize) -> (usize, usize) {
        let start = self.v_free.len();
        for v in [&mut self.residu_free, &mut self.v_free, &mut self.forces, &mut self.rhs, &mut self.diagonal] {
            v.resize(start + n, 0.0);
        }
        let mass_start = self.mass_rows.len();
        self.mass_rows.resize(mass_start + n * n, 0.0);
        (start, mass_start)
    }
}

impl DsWork {
    /// Records whether `W` is diagonal (every off-diagonal entry zero, `n > 1`) and then its
    /// diagonal into `diagonal` (the system's slice), for [`apply_w_inv`].
    fn keep_diagonal(&mut self, diagonal: &mut [f64]) {
        let n = self.w.nrows();
        self.diagonal = n > 1 && (0..n).all(|j| (0..n).all(|i| i == j || self.w[(i, j)] == 0.0));
        if self.diagonal {
            for (i, d) in diagonal.iter_mut().enumerate() {
                *d = self.w[(i, i)];
            }
        }
    }

    /// The range of the system's vectors in [`FlatVectors`].
    fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.n
    }
}

/// `x ← W⁻¹ x` with the LU factors of `W`, or, when `W` is diagonal (`diagonal` is `Some`), by
/// dividing the non-zero entries by the diagonal. For a diagonal `W` the LU factors are `W`
/// itself with zero multipliers (no pivoting), and the LU solve divides exactly the non-zero
/// entries (its eliminations subtract products with zero, which change no value and can only
/// turn a `−0` entry into `+0`): the values are the same.
fn apply_w_inv(lu: &DenseLu, diagonal: Option<&[f64]>, x: &mut [f64]) {
    match diagonal {
        None => lu.solve_in_place(x),
        Some(diagonal) => divide_by_diagonal(diagonal, x),
    }
}

/// The diagonal case of [`apply_w_inv`]: the non-zero entries of `x` divided by `diagonal`.
fn divide_by_diagonal(diagonal: &[f64], x: &mut [f64]) {
    for (xi, d) in x.iter_mut().zip(diagonal) {
        if *xi != 0.0 {
            *xi /= d;
        }
    }
}

/// The Moreau–Jean θ-scheme (Siconos' `MoreauJeanOSI`).
#[doc(alias = "MoreauJeanOSI")]
#[derive(Debug)]
pub struct MoreauJeanOsi {
    options: MoreauJeanOptions,
    work: Vec<DsWork>,
    /// Where each system's vectors are and whether its `W` is diagonal, copied from `work`
    /// into 24 bytes per system: the one-step problem's passes ([`MoreauJeanOsi::v_free`],
    /// [`MoreauJeanOsi::solve_w`]) visit the systems of its interactions in scattered order,
    /// and a `DsWork` spans several cache lines.
    spans: Vec<Span>,
    vectors: FlatVectors,
}

/// A system's vectors in [`FlatVectors`] (`start`, size `n`) and whether `W` is diagonal (a
/// copy of the [`DsWork`] fields).
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: usize,
    n: usize,
    diagonal: bool,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.start..self.start + self.n
    }
}

impl MoreauJeanOsi {
    /// The integrator with the given options.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for θ outside `[0, 1]`, a negative or non-finite γ, or a
    /// non-finite threshold.
    pub fn new(options: MoreauJeanOptions) -> Result<Self, KernelError> {
        if !(0.0..=1.0).contains(&options.theta) {
            return Err(KernelError::InvalidOption { name: "theta", reason: "must lie in [0, 1]" });
        }
        if !options.gamma.is_finite() || options.gamma < 0.0 {
            return Err(KernelError::InvalidOption { name: "gamma", reason: "must be finite and non-negative" });
        }
        if !options.activation_threshold.is_finite() {
            return Err(KernelError::InvalidOption { name: "activation_threshold", reason: "must be finite" });
        }
        Ok(Self { options, work: Vec::new(), spans: Vec::new(), vectors: FlatVectors::default() })
    }

    /// θ = 1/2, γ = 1/2, threshold 0.
    pub fn with_theta(theta: f64) -> Result<Self, KernelError> {
        Self::new(MoreauJeanOptions::default().with_theta(theta))
    }

    /// The options.
    pub fn options(&self) -> &MoreauJeanOptions {
        &self.options
    }

    /// Allocates the workspaces of systems added since the last call (their `W` is computed by
    /// the next [`MoreauJeanOsi::compute_w`]).
    pub(crate) fn prepare(&mut self, nsds: &Nsds, systems: &SystemSet) {
        let bound = nsds.ds_bound();
        if self.work.len() < bound {
            self.work.resize_with(bound, DsWork::default);
            self.spans.resize(bound, Span::default());
        }
        for (i, (work, span)) in self.work.iter_mut().zip(&mut self.spans).enumerate() {
            let ds = nsds.ds_at(i).filter(|_| systems.contains_slot(i)).and_then(|id| nsds.ds(id).ok());
            match ds {
                None => {
                    work.present = false;
                }
                Some(ds) if !work.present => {
                    let n = ds.velocity_size();
                    let (start, mass_start) = self.vectors.push(n);
                    *work = DsWork {
                        present: true,
                        linear: ds.linear_time_invariant().is_some(),
                        w_ready: false,
                        constant_w: ds.is_mass_constant() && ds.forces_jacobians_vanish(),
                        constant_mass: ds.is_mass_constant(),
                        w: Mat::zeros(n, n),
                        lu: DenseLu::default(),
                        diagonal: false,
                        mass_ready: false,
                        n,
                        start,
                        mass_start,
                        dq: Mat::zeros(n, n),
                        dv: Mat::zeros(n, n),
                        residual: 0.0,
                    };
                    *span = Span { start, n, diagonal: false };
                }
                Some(_) => {}
            }
        }
    }

    /// Whether every system is linear time-invariant (then one pass solves a step).
    pub(crate) fn all_linear(&self) -> bool {
        self.work.iter().filter(|w| w.present).all(|w| w.linear)
    }

    /// Stores `F(t₀, q₀, v₀)` for the nonlinear residual of the first step.
    pub(crate) fn initialize_forces(&mut self, nsds: &mut Nsds, t0: f64) -> Result<(), KernelError> {
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present || work.linear {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            let state = ds.state();
            let (q, v) = (state.q.clone(), state.v.clone());
            let forces = &mut self.vectors.forces[work.range()];
            ds.forces(t0, &q, &v, forces)?;
            ds.state_mut().forces_memory.copy_from_slice(forces);
        }
        Ok(())
    }

    /// Whether interaction outputs `(y₀, ẏ₀)` predict contact within the step:
    /// `y₀ + γ h ẏ₀ ≤ threshold` (Siconos 4.4 `MoreauJeanOSI::addInteractionInIndexSet`).
    pub(crate) fn is_active(&self, y0: f64, y1: f64, h: f64) -> bool {
        let predicted = y0 + self.options.gamma * h * y1;
        predicted <= self.options.activation_threshold
    }

    /// Computes `W` of every system at the current iterate (`t` = `t_{k+1}`) and factorizes it.
    pub(crate) fn compute_w(&mut self, nsds: &mut Nsds, t: f64, h: f64) -> Result<(), KernelError> {
        self.compute_w_of(nsds, t, h, false)
    }

    /// [`MoreauJeanOsi::compute_w`] of the systems whose `W` was never computed (after a change
    /// of the model: the nonlinear ones get theirs in the Newton loop anyway).
    pub(crate) fn compute_new_w(&mut self, nsds: &mut Nsds, t: f64, h: f64) -> Result<(), KernelError> {
        self.compute_w_of(nsds, t, h, true)
    }

    fn compute_w_of(&mut self, nsds: &mut Nsds, t: f64, h: f64, only_new: bool) -> Result<(), KernelError> {
        let theta = self.options.theta;
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present || (work.w_ready && (work.linear || work.constant_w || only_new)) {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            if let Some(parts) = ds.linear_time_invariant() {
                // W = M + hθ C + h²θ² K.
                work.w.copy_from(parts.mass);
                if let Some(c) = parts.damping {
                    add_scaled(&mut work.w, h * theta, c);
                }
                if let Some(k) = parts.stiffness {
                    add_scaled(&mut work.w, h * h * theta * theta, k);
                }
            } else {
                // W = M(q) − hθ ∂F/∂v − h²θ² ∂F/∂q at the iterate.
                let (q, v) = take_qv(&mut **ds);
                let coefficients = (-h * theta, -h * h * theta * theta);
                let result =
                    nonlinear_w(&mut **ds, &q, (t, &q, &v), coefficients, &mut work.w, &mut work.dq, &mut work.dv);
                restore_qv(&mut **ds, q, v);
                result?;
            }
            work.lu.factorize(&work.w, "iteration matrix W")?;
            work.keep_diagonal(&mut self.vectors.diagonal[work.start..work.start + work.n]);
            self.spans[i].diagonal = work.diagonal;
            work.w_ready = true;
        }
        Ok(())
    }

    /// Computes the free residual `R_free` of every system at the current iterate and returns
    /// `max_DS ‖R_free − p[1]‖₂` (the Newton residual; 0 for linear time-invariant systems,
    /// whose one linear solve is exact).
    ///
    /// Linear time-invariant systems (at `v = v_k`):
    /// `R_free = hC v_k + h²θ K v_k + hK q_k − h(1 − θ) F_ext(t_k) − hθ F_ext(t_{k+1})`
    /// (Siconos developer documentation, section "The Linear Time-invariant NonSmooth Lagrangian
    /// Dynamics", the free velocity), accumulated in this order as Siconos 4.4 does.
    /// Nonlinear systems:
    /// `R_free = M(q)(v − v_k) − hθ F(t_{k+1}, q, v) − h(1 − θ) F(t_k, q_k, v_k)` (Siconos
    /// developer documentation, section "The Nonlinear NonSmooth Lagrangian Dynamics").
    pub(crate) fn compute_residu(&mut self, nsds: &mut Nsds, t_old: f64, t: f64, h: f64) -> Result<f64, KernelError> {
        self.residu_of_all(nsds, t_old, t, h, First::Nothing)
    }

    /// The Newton loop's first iterate (Siconos 4.4 `computeInitialNewtonState`), then
    /// [`MoreauJeanOsi::compute_residu`] there, system by system (one pass over the systems):
    /// `v = v_k` and `q` = the position update with `v = v_k` (`q_k + h v_k` on the system's
    /// manifold), so that forces and relation Jacobians of the first iteration are taken at a
    /// predicted position.
    pub(crate) fn predict_and_compute_residu(
        &mut self,
        nsds: &mut Nsds,
        t_old: f64,
        t: f64,
        h: f64,
    ) -> Result<f64, KernelError> {
        self.residu_of_all(nsds, t_old, t, h, First::Predict)
    }

    fn residu_of_all(&mut self, nsds: &mut Nsds, t_old: f64, t: f64, h: f64, first: First) -> Result<f64, KernelError> {
        let theta = self.options.theta;
        let mut residual_max = 0.0f64;
        for i in 0..self.work.len() {
            prefetch_systems(nsds, i);
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            match first {
                First::Nothing => {}
                First::Predict => predict_position(&mut **ds, h, theta),
            }
            let n = work.n;
            let residu_free = &mut self.vectors.residu_free[work.start..work.start + n];
            let forces = &mut self.vectors.forces[work.start..work.start + n];
            if work.linear {
                let parts = ds.linear_time_invariant().expect("a linear system stays linear");
                let state = ds.state();
                residu_free.fill(0.0);
                if let Some(c) = parts.damping {
                    gemv_add(residu_free, h, c, &state.v_memory);
                }
                if let Some(k) = parts.stiffness {
                    gemv_add(residu_free, h * h * theta, k, &state.v_memory);
                    gemv_add(residu_free, h, k, &state.q_memory);
                }
                let coefficients = (-h * (1.0 - theta), -h * theta);
                add_external_forces(&mut **ds, (t_old, t), coefficients, forces, residu_free)?;
                work.residual = 0.0;
            } else {
                // M(q)(v − v_k) (M row-major in `mass_rows`, evaluated once when constant), and
                // F(t, q, v).
                let mass_rows = &mut self.vectors.mass_rows[work.mass_start..work.mass_start + n * n];
                let (q, v) = take_qv(&mut **ds);
                let mut result = Ok(());
                if !work.constant_mass || !work.mass_ready {
                    result = ds.mass(&q, &mut work.dq);
                    if result.is_ok() {
                        for (row, m_row) in mass_rows.chunks_exact_mut(n).enumerate() {
                            for (j, m) in m_row.iter_mut().enumerate() {
                                *m = work.dq[(row, j)];
                            }
                        }
                        work.mass_ready = true;
                    }
                }
                let result = result.and_then(|()| ds.forces(t, &q, &v, forces));
                restore_qv(&mut **ds, q, v);
                result?;
                let state = ds.state();
                let (v, v_memory) = (&state.v[..n], &state.v_memory[..n]);
                for (r, m_row) in residu_free.iter_mut().zip(mass_rows.chunks_exact(n)) {
                    *r = (0..n).map(|j| m_row[j] * (v[j] - v_memory[j])).sum();
                }
                let a = -h * theta;
                let b = -h * (1.0 - theta);
                // Siconos 4.4's order: r += (−h(1−θ)) F_k, then r += (−hθ) F.
                for j in 0..n {
                    residu_free[j] += b * state.forces_memory[j];
                }
                for j in 0..n {
                    residu_free[j] += a * forces[j];
                }
                let p1 = &state.p[1];
                work.residual = residu_free.iter().zip(p1).map(|(r, p)| (r - p) * (r - p)).sum::<f64>().sqrt();
            }
            residual_max = residual_max.max(work.residual);
        }
        Ok(residual_max)
    }

    /// `v_free = v − W⁻¹ R_free` for every system (`v_k` in place of `v` for linear
    /// time-invariant systems, whose `R_free` is taken at `v_k`), and `p[1] = 0`, the inputs
    /// the one-step problem's impulses are then added to (the residual, which reads them, is
    /// computed before).
    pub(crate) fn compute_free_state(&mut self, nsds: &mut Nsds) {
        for i in 0..self.work.len() {
            prefetch_systems(nsds, i);
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            let range = work.range();
            let rhs = &mut self.vectors.rhs[range.clone()];
            rhs.copy_from_slice(&self.vectors.residu_free[range.clone()]);
            apply_w_inv(&work.lu, work.diagonal.then(|| &self.vectors.diagonal[range.clone()]), rhs);
            let state = ds.state();
            let v = if work.linear { &state.v_memory } else { &state.v };
            for ((vf, r), vj) in self.vectors.v_free[range].iter_mut().zip(rhs.iter()).zip(v) {
                *vf = -r + vj;
            }
            ds.state_mut().p[1].fill(0.0);
        }
    }

    /// The free velocity of system `ds`.
    pub(crate) fn v_free(&self, ds: DsId) -> &[f64] {
        &self.vectors.v_free[self.spans[ds.index()].range()]
    }

    /// The iteration matrix `W_ds` (as last computed, the matrix its LU factors are of).
    pub(crate) fn iteration_matrix(&self, ds: DsId) -> &Mat<f64> {
        &self.work[ds.index()].w
    }

    /// Applies `W_ds⁻¹` in place.
    pub(crate) fn solve_w(&self, ds: DsId, x: &mut [f64]) {
        let span = self.spans[ds.index()];
        if span.diagonal {
            divide_by_diagonal(&self.vectors.diagonal[span.range()], x);
        } else {
            self.work[ds.index()].lu.solve_in_place(x);
        }
    }

    /// `v = v_free + W⁻¹ p[1]`, then the position update, for every system.
    pub(crate) fn update_state(&mut self, nsds: &mut Nsds, h: f64) {
        let theta = self.options.theta;
        for i in 0..self.work.len() {
            prefetch_systems(nsds, i);
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            update_state_of(work, &mut self.vectors, &mut **ds, h, theta);
        }
    }

    /// Commits the step: memories `q_k ← q`, `v_k ← v`, and `F_k ← F(t, q, v)` for nonlinear
    /// systems.
    ///
    /// With `forces_current`, the forces of the last [`MoreauJeanOsi::compute_residu`], taken
    /// at `t` and at the current state, are `F(t, q, v)` and are not evaluated again.
    pub(crate) fn swap_memories(&mut self, nsds: &mut Nsds, t: f64, forces_current: bool) -> Result<(), KernelError> {
        for i in 0..self.work.len() {
            prefetch_systems(nsds, i);
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.ds_slot_mut(i).expect("workspace present for an existing system");
            let state = ds.state_mut();
            copy_small(&mut state.q_memory, &state.q);
            copy_small(&mut state.v_memory, &state.v);
            if !work.linear {
                let forces = &mut self.vectors.forces[work.start..work.start + work.n];
                if !forces_current {
                    let (q, v) = take_qv(&mut **ds);
                    let result = ds.forces(t, &q, &v, forces);
                    restore_qv(&mut **ds, q, v);
                    result?;
                }
                copy_small(&mut ds.state_mut().forces_memory, forces);
            }
        }
        Ok(())
    }
}

impl SecondOrderContribution for MoreauJeanOsi {
    fn free(&self, ds: DsId) -> &[f64] {
        self.v_free(ds)
    }

    fn solve_w(&self, ds: DsId, x: &mut [f64]) {
        MoreauJeanOsi::solve_w(self, ds, x);
    }

    fn diagonal_w(&self, ds: DsId) -> Option<&[f64]> {
        let span = self.spans[ds.index()];
        span.diagonal.then(|| &self.vectors.diagonal[span.range()])
    }
}

impl MoreauJeanOsi {
    /// Whether its systems are linear time-invariant and the relations of their interactions
    /// linear time-invariant (then one pass solves a step).
    pub(crate) fn is_linear_on(&self, nsds: &Nsds, systems: &SystemSet) -> bool {
        self.all_linear()
            && nsds.interaction_graph().node_weights().filter(|i| systems.owns(i)).all(|i| i.is_linear_time_invariant())
    }

    /// [`OneStepIntegrator::initialize`] of the Moreau–Jean family.
    pub(crate) fn initialize_on(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        step: &StepInterval,
        first: bool,
    ) -> Result<(), KernelError> {
        self.prepare(nsds, systems);
        self.compute_new_w(nsds, step.t_old, step.h0)?;
        if first {
            self.initialize_forces(nsds, step.t_old)?;
        }
        Ok(())
    }

    /// [`OneStepIntegrator::begin_newton`]: the residual at `v_k`, after the prediction of the
    /// positions for a nonlinear step.
    pub(crate) fn begin_newton_on(
        &mut self,
        nsds: &mut Nsds,
        step: &StepInterval,
        linear: bool,
    ) -> Result<f64, KernelError> {
        if linear {
            self.compute_residu(nsds, step.t_old, step.t, step.h)
        } else {
            self.predict_and_compute_residu(nsds, step.t_old, step.t, step.h)
        }
    }

    /// [`OneStepIntegrator::prepare_newton_iteration`]: `W` of every system and `H` of the
    /// interactions at the iterate.
    pub(crate) fn prepare_iteration_on(
        &mut self,
        nsds: &mut Nsds,
        interactions: &[InteractionId],
        step: &StepInterval,
    ) -> Result<(), KernelError> {
        self.compute_w(nsds, step.t, step.h)?;
        nsds.update_jacobians_at_positions(interactions, step.t)
    }
}

/// The Moreau–Jean scheme in a time-stepping simulation: velocity-level problems on index set 1
/// (activation `y + γhẏ ≤ threshold`).
impl OneStepIntegrator for MoreauJeanOsi {
    fn name(&self) -> &'static str {
        "Moreau–Jean"
    }

    fn problem_level(&self) -> ProblemLevel {
        ProblemLevel::Velocity
    }

    fn check_system(&self, nsds: &Nsds, ds: DsId) -> Result<(), KernelError> {
        check_second_order(self.name(), nsds, ds)
    }

    fn index_set_rule(&self) -> IndexSetRule {
        IndexSetRule::Activation
    }

    fn enters(&self, y0: f64, y1: f64, h: f64) -> bool {
        self.is_active(y0, y1, h)
    }

    fn initialize(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        step: &StepInterval,
        first: bool,
    ) -> Result<(), KernelError> {
        self.initialize_on(nsds, systems, step, first)
    }

    fn is_linear(&self, nsds: &Nsds, systems: &SystemSet) -> bool {
        self.is_linear_on(nsds, systems)
    }

    fn begin_newton(&mut self, ctx: OsiContext<'_>, linear: bool) -> Result<f64, KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        self.begin_newton_on(nsds, step, linear)
    }

    fn prepare_newton_iteration(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, interactions, step, .. } = ctx;
        self.prepare_iteration_on(nsds, interactions, step)
    }

    fn compute_free_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, .. } = ctx;
        MoreauJeanOsi::compute_free_state(self, nsds);
        Ok(())
    }

    fn contribution(&self) -> Contribution<'_> {
        Contribution::SecondOrder(self)
    }

    fn update_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        MoreauJeanOsi::update_state(self, nsds, step.h);
        Ok(())
    }

    fn newton_residual(&mut self, ctx: OsiContext<'_>, _problem: &dyn OneStepProblem) -> Result<f64, KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        self.compute_residu(nsds, step.t_old, step.t, step.h)
    }

    /// The forces of the last residual are those at the final state: they are kept, not
    /// evaluated again.
    fn commit(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        self.swap_memories(nsds, step.t, true)
    }
}

/// [`OneStepIntegrator::check_system`] of a scheme for second-order systems named `scheme`.
pub(crate) fn check_second_order(scheme: &str, nsds: &Nsds, ds: DsId) -> Result<(), KernelError> {
    match nsds.ds(ds) {
        Ok(_) => Ok(()),
        Err(KernelError::UnknownDs(i)) => Err(KernelError::UnknownDs(i)),
        Err(_) => Err(KernelError::InvalidModel(format!(
            "{scheme} integrates second-order systems; system {} is a first-order one",
            ds.index()
        ))),
    }
}

/// The iteration matrix of a nonlinear system, `W = M(q) + c_v ∂F/∂v + c_q ∂F/∂q` (the force
/// Jacobians at `(t, q_f, v_f)`, added in this order; `dq` and `dv` are scratch).
pub(crate) fn nonlinear_w(
    ds: &mut dyn SecondOrderDs,
    q: &[f64],
    (t, q_f, v_f): (f64, &[f64], &[f64]),
    (c_v, c_q): (f64, f64),
    w: &mut Mat<f64>,
    dq: &mut Mat<f64>,
    dv: &mut Mat<f64>,
) -> Result<(), KernelError> {
    ds.mass(q, w)?;
    dq.fill(0.0);
    dv.fill(0.0);
    if ds.forces_jacobians(t, q_f, v_f, dq, dv)? {
        add_scaled(w, c_v, dv);
        add_scaled(w, c_q, dq);
    }
    Ok(())
}

/// What [`MoreauJeanOsi::compute_residu`]'s pass does to each system before its residual.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum First {
    Nothing,
    /// The first Newton iterate ([`predict_position`]).
    Predict,
}

/// `v = v_free + W⁻¹ p[1]`, then the position update, for one system.
fn update_state_of(work: &DsWork, vectors: &mut FlatVectors, ds: &mut dyn SecondOrderDs, h: f64, theta: f64) {
    let range = work.range();
    let rhs = &mut vectors.rhs[range.clone()];
    rhs.copy_from_slice(&ds.state().p[1]);
    apply_w_inv(&work.lu, work.diagonal.then(|| &vectors.diagonal[range.clone()]), rhs);
    let state = ds.state_mut();
    for ((vj, r), vf) in state.v.iter_mut().zip(rhs.iter()).zip(&vectors.v_free[range]) {
        *vj = r + vf;
    }
    // q is taken out of the state (no copy) while the update reads the rest of it.
    let mut q = std::mem::take(&mut ds.state_mut().q);
    let state = ds.state();
    ds.update_position(h, theta, &state.q_memory, &state.v_memory, &state.v, &mut q);
    ds.state_mut().q = q;
}

/// How far ahead of the system it works on a pass over the systems hints their vectors
/// ([`prefetch_systems`]); their state records are hinted twice as far ahead.
const SYSTEMS_AHEAD: usize = 4;

/// The cache hints of the passes over the systems before system `i`: the state record of
/// system `i + 2·SYSTEMS_AHEAD` and the vectors of system `i + SYSTEMS_AHEAD` (whose record was
/// hinted `SYSTEMS_AHEAD` systems earlier). The systems' records and vectors are separate
/// allocations, scattered in memory; without the hints each system waits for them in turn.
fn prefetch_systems(nsds: &Nsds, i: usize) {
    nsds.prefetch_state_at(i + 2 * SYSTEMS_AHEAD);
    nsds.prefetch_vectors_at(i + SYSTEMS_AHEAD);
}

/// The first Newton iterate of one system: `v = v_k`, `q` = the position update with `v = v_k`.
fn predict_position(ds: &mut dyn SecondOrderDs, h: f64, theta: f64) {
    let mut q = std::mem::take(&mut ds.state_mut().q);
    let state = ds.state();
    ds.update_position(h, theta, &state.q_memory, &state.v_memory, &state.v_memory, &mut q);
    let state = ds.state_mut();
    state.q = q;
    state.v.copy_from_slice(&state.v_memory);
}

/// Takes `q` and `v` out of a system's state (no copy), to pass them to its own methods.
fn take_qv(ds: &mut dyn SecondOrderDs) -> (Vec<f64>, Vec<f64>) {
    let state = ds.state_mut();
    (std::mem::take(&mut state.q), std::mem::take(&mut state.v))
}

/// Puts back what [`take_qv`] took.
fn restore_qv(ds: &mut dyn SecondOrderDs, q: Vec<f64>, v: Vec<f64>) {
    let state = ds.state_mut();
    state.q = q;
    state.v = v;
}

/// `r += a F_ext(t_old)`, then `r += b F_ext(t)` (term by term, in this order), when the
/// system has external forces; `buffer` receives the forces.
pub(crate) fn add_external_forces(
    ds: &mut dyn SecondOrderDs,
    (t_old, t): (f64, f64),
    (a, b): (f64, f64),
    buffer: &mut [f64],
    r: &mut [f64],
) -> Result<(), KernelError> {
    if ds.external_force(t_old, buffer)? {
        for (ri, f) in r.iter_mut().zip(buffer.iter()) {
            *ri += a * f;
        }
        ds.external_force(t, buffer)?;
        for (ri, f) in r.iter_mut().zip(buffer.iter()) {
            *ri += b * f;
        }
    }
    Ok(())
}

/// `w += a · m`.
pub(crate) fn add_scaled(w: &mut Mat<f64>, a: f64, m: &Mat<f64>) {
    for j in 0..w.ncols() {
        for i in 0..w.nrows() {
            w[(i, j)] += a * m[(i, j)];
        }
    }
}

/// `r += a · (m x)`, the product summed in column order.
pub(crate) fn gemv_add(r: &mut [f64], a: f64, m: &Mat<f64>, x: &[f64]) {
    for (i, ri) in r.iter_mut().enumerate() {
        let s: f64 = (0..x.len()).map(|j| m[(i, j)] * x[j]).sum();
        *ri += a * s;
    }
}

/// Kinetic energy `½ vᵀ M(q) v` of a system.
///
/// # Errors
/// As [`SecondOrderDs::mass`].
pub fn kinetic_energy(ds: &mut dyn SecondOrderDs) -> Result<f64, KernelError> {
    let n = ds.velocity_size();
    let mut m = Mat::zeros(n, n);
    let q = ds.state().q.clone();
    ds.mass(&q, &mut m)?;
    let v = &ds.state().v;
    let mut e = 0.0;
    for i in 0..n {
        for j in 0..n {
            e += v[i] * m[(i, j)] * v[j];
        }
    }
    Ok(0.5 * e)
}
