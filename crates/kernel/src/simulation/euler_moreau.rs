//! The Euler–Moreau θ-γ one-step integrator for first-order systems (Siconos'
//! `EulerMoreauOSI`; Siconos developer documentation, section "Newton's linearization for First
//! Order Systems"; V. Acary and B. Brogliato, *Numerical Methods for Nonsmooth Dynamical
//! Systems*, Springer 2008):
//!
//! `M x_{k+1} = M x_k + hθ f(x_{k+1}, t_{k+1}) + h(1−θ) f(x_k, t_k) + hγ r_{k+1} + h(1−γ) r_k`,
//! `y_{k+1} = h(x_{k+1}, λ_{k+1}, t_{k+1})`, `r_{k+1} = g(x_{k+1}, λ_{k+1}, t_{k+1})`, and the
//! nonsmooth law between `y_{k+1}` and `λ_{k+1}` (level 0).
//!
//! Newton linearization at the iterate `(x^α, λ^α)`:
//! - `W = M − hθ A − hγ K` with `A = ∂f/∂x`, `K = ∂g/∂x`;
//! - `R_free = M(x^α − x_k) − hθ f(x^α, t_{k+1}) − h(1−θ) f(x_k, t_k)`;
//! - `x_free = x^α − W⁻¹(R_free − h(1−γ) r_k)`;
//! - `x_p = x_free + hγ W⁻¹(g(x^α, λ^α) − B λ^α)`;
//! - one-step problem `y = (D + hγ C W⁻¹ B) λ + y_p`, `y_p = h(x^α, λ^α) + C(x_p − x^α) − D λ^α`;
//! - `x^{α+1} = x_p + hγ W⁻¹ B λ^{α+1}`, `r^{α+1} = g(x^α, λ^α) + B(λ^{α+1} − λ^α)`.
//!
//! Linear systems and relations take one pass, in Siconos 4.4's order of operations.
//!
//! Without an explicit γ (`gamma: None`, Siconos' `_useGamma = false`), γ = 1 and the r_k term is
//! absent.

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use faer::Mat;

use super::osi::{
    Contribution, FirstOrderContribution, OneStepIntegrator, OsiContext, ProblemLevel, StepInterval, SystemSet,
};
use super::osns::OneStepProblem;
use crate::KernelError;
use crate::linalg::DenseLu;
use crate::model::{DsId, FirstOrderRelationKind, InteractionId, Nsds, Relation};

/// Options of [`EulerMoreauOsi`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct EulerMoreauOptions {
    /// θ on `f`, in `[0, 1]` (default: `0.5`).
    pub theta: f64,
    /// γ on the input `r`, in `[0, 1]`; `None` is Siconos' default, γ = 1 without the `(1−γ) r_k`
    /// term (default: `None`).
    pub gamma: Option<f64>,
    /// The full θ-γ scheme (Siconos developer documentation, section "Full θ-γ scheme"): the
    /// relation is evaluated at `x_{k+γ} = γ x_{k+1} + (1−γ) x_k` and the input enters as
    /// `h r_{k+γ}`, i.e. `q = C(γ x_free + (1−γ) x_k) + e` and the block `D + hγ C W⁻¹ B`
    /// (Siconos' `_useGammaForRelation`; it needs linear systems and relations, and a γ)
    /// (default: `false`).
    pub gamma_for_relation: bool,
}

impl Default for EulerMoreauOptions {
    fn default() -> Self {
        Self { theta: 0.5, gamma: None, gamma_for_relation: false }
    }
}

impl EulerMoreauOptions {
    /// Sets θ.
    pub fn with_theta(mut self, theta: f64) -> Self {
        self.theta = theta;
        self
    }

    /// Sets γ (Siconos' `EulerMoreauOSI(θ, γ)`, `_useGamma = true`).
    pub fn with_gamma(mut self, gamma: f64) -> Self {
        self.gamma = Some(gamma);
        self
    }

    /// Turns the full θ-γ scheme on or off (see [`EulerMoreauOptions::gamma_for_relation`]).
    pub fn with_gamma_for_relation(mut self, on: bool) -> Self {
        self.gamma_for_relation = on;
        self
    }
}

/// Per-system workspace.
#[derive(Debug)]
struct DsWork {
    present: bool,
    linear: bool,
    time_invariant: bool,
    w_ready: bool,
    w: Mat<f64>,
    a: Mat<f64>,
    lu: DenseLu,
    residu_free: Vec<f64>,
    x_free: Vec<f64>,
    x_partial: Vec<f64>,
    tmp: Vec<f64>,
    b: Vec<f64>,
    residual: f64,
}

impl DsWork {
    fn new(n: usize, linear: bool, time_invariant: bool) -> Self {
        Self {
            present: true,
            linear,
            time_invariant,
            w_ready: false,
            w: Mat::zeros(n, n),
            a: Mat::zeros(n, n),
            lu: DenseLu::default(),
            residu_free: vec![0.0; n],
            x_free: vec![0.0; n],
            x_partial: vec![0.0; n],
            tmp: vec![0.0; n],
            b: vec![0.0; n],
            residual: 0.0,
        }
    }

    fn absent() -> Self {
        let mut w = Self::new(0, true, true);
        w.present = false;
        w
    }
}

/// The Euler–Moreau θ-γ scheme (Siconos' `EulerMoreauOSI`).
#[doc(alias = "EulerMoreauOSI")]
#[derive(Debug)]
pub struct EulerMoreauOsi {
    options: EulerMoreauOptions,
    work: Vec<DsWork>,
    /// The step's relations are linear (set at the start of each Newton loop).
    relations_linear: bool,
    /// The step of the problem's blocks and whether they are constant (set likewise).
    block_step: f64,
    constant: bool,
}

impl EulerMoreauOsi {
    /// The integrator with the given options.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for θ or γ outside `[0, 1]`.
    pub fn new(options: EulerMoreauOptions) -> Result<Self, KernelError> {
        if !(0.0..=1.0).contains(&options.theta) {
            return Err(KernelError::InvalidOption { name: "theta", reason: "must lie in [0, 1]" });
        }
        if let Some(g) = options.gamma
            && !(0.0..=1.0).contains(&g)
        {
            return Err(KernelError::InvalidOption { name: "gamma", reason: "must lie in [0, 1]" });
        }
        if options.gamma_for_relation && options.gamma.is_none() {
            return Err(KernelError::InvalidOption { name: "gamma_for_relation", reason: "needs a gamma" });
        }
        Ok(Self { options, work: Vec::new(), relations_linear: true, block_step: 0.0, constant: false })
    }

    /// θ given, γ = 1 (Siconos' `EulerMoreauOSI(θ)`).
    ///
    /// # Errors
    /// As [`EulerMoreauOsi::new`].
    pub fn with_theta(theta: f64) -> Result<Self, KernelError> {
        Self::new(EulerMoreauOptions::default().with_theta(theta))
    }

    /// The options.
    pub fn options(&self) -> &EulerMoreauOptions {
        &self.options
    }

    /// Siconos' `_useGamma`: an explicit γ, not with the full θ-γ scheme.
    pub(crate) fn use_gamma(&self) -> bool {
        self.options.gamma.is_some() && !self.options.gamma_for_relation
    }

    /// The `x_{k+γ} = γ x_free + (1−γ) x_k` of the full θ-γ scheme for system `ds`, written into
    /// `out` (Siconos: `deltax = γ x_free; deltax += (1−γ) x_k`).
    pub(crate) fn x_gamma(&self, ds: DsId, x_memory: &[f64], out: &mut [f64]) {
        let g = self.gamma();
        let work = &self.work[ds.index()];
        for j in 0..out.len() {
            let mut v = g * work.x_free[j];
            v += (1.0 - g) * x_memory[j];
            out[j] = v;
        }
    }

    /// γ in use (1 without an explicit γ).
    pub(crate) fn gamma(&self) -> f64 {
        self.options.gamma.unwrap_or(1.0)
    }

    /// Allocates the workspaces of systems added since the last call.
    pub(crate) fn prepare(&mut self, nsds: &mut Nsds, systems: &SystemSet) {
        let bound = nsds.ds_bound();
        if self.work.len() < bound {
            self.work.resize_with(bound, DsWork::absent);
        }
        for i in 0..self.work.len() {
            match nsds.first_order_slot_mut(i).filter(|_| systems.contains_slot(i)) {
                None => self.work[i].present = false,
                Some(ds) if !self.work[i].present => {
                    self.work[i] = DsWork::new(ds.size(), ds.is_linear(), ds.is_linear_time_invariant());
                }
                Some(_) => {}
            }
        }
    }

    /// Whether every system is linear.
    pub(crate) fn all_linear(&self) -> bool {
        self.work.iter().filter(|w| w.present).all(|w| w.linear)
    }

    /// Whether every system is linear time-invariant.
    pub(crate) fn all_time_invariant(&self) -> bool {
        self.work.iter().filter(|w| w.present).all(|w| w.time_invariant)
    }

    /// Stores `f(x₀, t₀)` for the first step of nonlinear systems.
    pub(crate) fn initialize(&mut self, nsds: &mut Nsds, t0: f64) -> Result<(), KernelError> {
        for i in 0..self.work.len() {
            if !self.work[i].present {
                continue;
            }
            let ds = nsds.first_order_slot_mut(i).expect("workspace present for an existing system");
            let x = ds.state().x.clone();
            let mut f = vec![0.0; x.len()];
            ds.f(t0, &x, &mut f)?;
            ds.state_mut().f_memory = f;
        }
        Ok(())
    }

    /// `W = M − hθ A − hγ Σ K` at the iterate, factorized (once for linear time-invariant
    /// systems without `K`). `k_sum[i]` adds `Σ_α K_α` of system slot `i` when some relation has
    /// one.
    pub(crate) fn compute_w(
        &mut self,
        nsds: &mut Nsds,
        t: f64,
        h: f64,
        k_terms: &[Option<Mat<f64>>],
    ) -> Result<(), KernelError> {
        let theta = self.options.theta;
        let gamma = self.gamma();
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            let k = k_terms.get(i).and_then(Option::as_ref);
            if !work.present || (work.time_invariant && work.w_ready && k.is_none()) {
                continue;
            }
            let ds = nsds.first_order_slot_mut(i).expect("workspace present for an existing system");
            let n = work.residu_free.len();
            match ds.mass() {
                Some(m) => work.w.copy_from(m),
                None => {
                    work.w.fill(0.0);
                    for j in 0..n {
                        work.w[(j, j)] = 1.0;
                    }
                }
            }
            let x = ds.state().x.clone();
            work.a.fill(0.0);
            ds.jacobian_f(t, &x, &mut work.a)?;
            let coefficient = -h * theta;
            for c in 0..n {
                for r in 0..n {
                    work.w[(r, c)] += coefficient * work.a[(r, c)];
                }
            }
            if let Some(k) = k {
                let coefficient = -h * gamma;
                for c in 0..n {
                    for r in 0..n {
                        work.w[(r, c)] += coefficient * k[(r, c)];
                    }
                }
            }
            work.lu.factorize(&work.w, "iteration matrix W")?;
            work.w_ready = true;
        }
        Ok(())
    }

    /// `R_free` at the iterate for every system; returns `max_DS ‖R_free − hγ r − h(1−γ) r_k‖₂`
    /// (the Newton residual; 0 for linear systems).
    ///
    /// Linear systems follow Siconos 4.4's order of operations (`FirstOrderLinearDS`:
    /// `R = M(x − x_k) + (−h(1−θ))(A x_k + b(t_k)) + (−hθ)(A x + b(t_{k+1}))`; time-invariant:
    /// `R = (−h) b + (−h(1−θ)) A x_k + (−hθ) A x + M(x − x_k)`).
    pub(crate) fn compute_residu(&mut self, nsds: &mut Nsds, t_old: f64, t: f64, h: f64) -> Result<f64, KernelError> {
        let theta = self.options.theta;
        let gamma = self.gamma();
        let use_gamma = self.use_gamma();
        let mut max = 0.0f64;
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.first_order_slot_mut(i).expect("workspace present for an existing system");
            let n = work.residu_free.len();
            let state = ds.state().clone();
            let (x, x_old) = (&state.x, &state.x_memory);
            let r = &mut work.residu_free;
            if work.linear {
                let has_mass = ds.mass().is_some();
                if ds.tids_residual_order() {
                    let has_b = ds.linear_parts(t, &mut work.a, &mut work.b).expect("a linear system")?;
                    if has_b {
                        for j in 0..n {
                            r[j] = -h * work.b[j];
                        }
                    } else {
                        r.fill(0.0);
                    }
                    add_scaled_product(r, -h * (1.0 - theta), &work.a, x_old, None);
                    add_scaled_product(r, -h * theta, &work.a, x, None);
                    for j in 0..n {
                        work.tmp[j] = x[j] - x_old[j];
                    }
                    match ds.mass() {
                        Some(m) => add_scaled_product(r, 1.0, m, &work.tmp, None),
                        None => {
                            for j in 0..n {
                                r[j] += work.tmp[j];
                            }
                        }
                    }
                } else {
                    for j in 0..n {
                        r[j] = x[j] - x_old[j];
                    }
                    if has_mass {
                        let m = ds.mass().expect("checked");
                        work.tmp.copy_from_slice(r);
                        for (row, rj) in r.iter_mut().enumerate() {
                            *rj = (0..n).map(|c| m[(row, c)] * work.tmp[c]).sum();
                        }
                    }
                    let has_b = ds.linear_parts(t_old, &mut work.a, &mut work.b).expect("a linear system")?;
                    add_scaled_product(r, -h * (1.0 - theta), &work.a, x_old, has_b.then_some(&work.b));
                    let has_b = ds.linear_parts(t, &mut work.a, &mut work.b).expect("a linear system")?;
                    add_scaled_product(r, -h * theta, &work.a, x, has_b.then_some(&work.b));
                }
                work.residual = 0.0;
            } else {
                // R_free = M(x − x_k) − hθ f(x, t_{k+1}) − h(1−θ) f(x_k, t_k).
                for j in 0..n {
                    work.tmp[j] = x[j] - x_old[j];
                }
                match ds.mass() {
                    Some(m) => {
                        for (row, rj) in r.iter_mut().enumerate() {
                            *rj = (0..n).map(|c| m[(row, c)] * work.tmp[c]).sum();
                        }
                    }
                    None => r.copy_from_slice(&work.tmp),
                }
                ds.f(t, x, &mut work.tmp)?;
                for j in 0..n {
                    r[j] += -h * theta * work.tmp[j] + -h * (1.0 - theta) * state.f_memory[j];
                }
                let (hg, h1g) = if use_gamma { (h * gamma, h * (1.0 - gamma)) } else { (h, 0.0) };
                let mut s = 0.0;
                for j in 0..n {
                    let rr = r[j] - hg * state.r[j] - h1g * state.r_memory[j];
                    s += rr * rr;
                }
                work.residual = s.sqrt();
            }
            max = max.max(work.residual);
        }
        Ok(max)
    }

    /// `x_free = x − W⁻¹(R_free − h(1−γ) r_k)` (Siconos: `x_free = R; x_free += (−h(1−γ)) r_k;
    /// x_free = W⁻¹x_free; x_free *= −1; x_free += x`); the partial state starts equal to it.
    pub(crate) fn compute_free_state(&mut self, nsds: &mut Nsds, h: f64) {
        let use_gamma = self.use_gamma();
        let gamma = self.gamma();
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.first_order_slot_mut(i).expect("workspace present for an existing system");
            let state = ds.state();
            work.x_free.copy_from_slice(&work.residu_free);
            if use_gamma {
                let c = -h * (1.0 - gamma);
                for j in 0..work.x_free.len() {
                    work.x_free[j] += c * state.r_memory[j];
                }
            }
            work.lu.solve_in_place(&mut work.x_free);
            for j in 0..work.x_free.len() {
                let v = -work.x_free[j];
                work.x_free[j] = v + state.x[j];
            }
            work.x_partial.copy_from_slice(&work.x_free);
        }
    }

    /// The partial state `x_p` of system `ds`.
    pub(crate) fn x_partial(&self, ds: DsId) -> &[f64] {
        &self.work[ds.index()].x_partial
    }

    /// `x_p += hγ W⁻¹ v` on system `ds` (the nonlinear relations' `g − Bλ` term).
    pub(crate) fn add_to_partial(&mut self, ds: DsId, h: f64, v: &mut [f64]) {
        let coefficient = h * self.gamma();
        let work = &mut self.work[ds.index()];
        for vi in v.iter_mut() {
            *vi *= coefficient;
        }
        work.lu.solve_in_place(v);
        for (x, vi) in work.x_partial.iter_mut().zip(v.iter()) {
            *x += vi;
        }
    }

    /// Applies `W_ds⁻¹` in place.
    pub(crate) fn solve_w(&self, ds: DsId, x: &mut [f64]) {
        self.work[ds.index()].lu.solve_in_place(x);
    }

    /// `x = W⁻¹((γ) h r) + x_free` on every system, `r` being the input accumulated in the
    /// state (Siconos' order: `x = h r; x = W⁻¹x; x += x_free`). With the linearized input
    /// `r = g(x^α, λ^α) + B(λ − λ^α)` this is `x_p + hγ W⁻¹ B λ`.
    pub(crate) fn update_state(&mut self, nsds: &mut Nsds, h: f64) {
        let coefficient = if self.use_gamma() { self.gamma() * h } else { h };
        for i in 0..self.work.len() {
            let work = &mut self.work[i];
            if !work.present {
                continue;
            }
            let ds = nsds.first_order_slot_mut(i).expect("workspace present for an existing system");
            let state = ds.state_mut();
            for j in 0..work.tmp.len() {
                work.tmp[j] = coefficient * state.r[j];
            }
            work.lu.solve_in_place(&mut work.tmp);
            for j in 0..work.tmp.len() {
                state.x[j] = work.tmp[j] + work.x_free[j];
            }
        }
    }

    /// Commits the step: `x_k ← x`, `r_k ← r`, `f_k ← f(x, t)`.
    pub(crate) fn swap_memories(&mut self, nsds: &mut Nsds, t: f64) -> Result<(), KernelError> {
        for i in 0..self.work.len() {
            if !self.work[i].present {
                continue;
            }
            let linear = self.work[i].linear;
            let ds = nsds.first_order_slot_mut(i).expect("workspace present for an existing system");
            let state = ds.state_mut();
            state.x_memory.copy_from_slice(&state.x);
            state.r_memory.copy_from_slice(&state.r);
            if !linear {
                let x = state.x.clone();
                let mut f = vec![0.0; x.len()];
                ds.f(t, &x, &mut f)?;
                ds.state_mut().f_memory = f;
            }
        }
        Ok(())
    }
}

impl FirstOrderContribution for EulerMoreauOsi {
    fn partial_state(&self, ds: DsId) -> &[f64] {
        self.x_partial(ds)
    }

    fn solve_w(&self, ds: DsId, x: &mut [f64]) {
        EulerMoreauOsi::solve_w(self, ds, x);
    }

    fn block_gamma(&self) -> Option<f64> {
        self.options.gamma
    }

    fn full_theta_gamma(&self) -> bool {
        self.options.gamma_for_relation
    }

    fn gamma_state(&self, ds: DsId, x_memory: &[f64], out: &mut [f64]) {
        self.x_gamma(ds, x_memory, out);
    }

    fn block_step(&self) -> f64 {
        self.block_step
    }

    fn constant_operators(&self) -> bool {
        self.constant
    }
}

impl EulerMoreauOsi {
    /// Linearizes the relations of `interactions` at the iterate, then `W` of every system.
    fn linearize(
        &mut self,
        nsds: &mut Nsds,
        interactions: &[InteractionId],
        t: f64,
        h: f64,
    ) -> Result<(), KernelError> {
        for &id in interactions {
            nsds.linearize_first_order(id, t)?;
        }
        let k_terms = nsds.first_order_k_terms(interactions);
        self.compute_w(nsds, t, h, &k_terms)
    }
}

/// The Euler–Moreau scheme in a time-stepping simulation: a level-0 problem on every
/// interaction of its systems (index set 0).
impl OneStepIntegrator for EulerMoreauOsi {
    fn name(&self) -> &'static str {
        "Euler–Moreau"
    }

    fn problem_level(&self) -> ProblemLevel {
        ProblemLevel::FirstOrder
    }

    fn check_system(&self, nsds: &Nsds, ds: DsId) -> Result<(), KernelError> {
        match nsds.first_order_ds(ds) {
            Ok(_) => Ok(()),
            Err(KernelError::UnknownDs(i)) => Err(KernelError::UnknownDs(i)),
            Err(_) => Err(KernelError::InvalidModel(format!(
                "Euler–Moreau integrates first-order systems; system {} is a second-order one",
                ds.index()
            ))),
        }
    }

    /// Workspaces of new systems, `f(x₀, t₀)` at the first call, and the outputs of its
    /// interactions.
    fn initialize(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        step: &StepInterval,
        first: bool,
    ) -> Result<(), KernelError> {
        self.prepare(nsds, systems);
        if first {
            EulerMoreauOsi::initialize(self, nsds, step.t_old)?;
        }
        for id in systems.interactions(nsds) {
            nsds.first_order_output(id, step.t_old)?;
        }
        Ok(())
    }

    fn is_linear(&self, nsds: &Nsds, systems: &SystemSet) -> bool {
        self.all_linear() && relations_linear(nsds, systems)
    }

    /// The relations linearized at `x_k`, `W`, and the residual; the step of the problem's
    /// blocks (`t₁ − t₀` when every operator is constant, as Siconos builds the matrix once).
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] for the full θ-γ scheme on a nonlinear model.
    fn begin_newton(&mut self, ctx: OsiContext<'_>, linear: bool) -> Result<f64, KernelError> {
        let OsiContext { nsds, systems, interactions, step } = ctx;
        self.relations_linear = relations_linear(nsds, systems);
        if self.options.gamma_for_relation && !linear {
            return Err(KernelError::InvalidModel(
                "the full θ-γ scheme (gamma_for_relation) needs linear systems and relations".into(),
            ));
        }
        self.constant = linear
            && self.all_time_invariant()
            && interactions.iter().all(|&id| nsds.interaction_ref(id).is_linear_time_invariant());
        self.block_step = if self.constant { step.h0 } else { step.h };
        self.linearize(nsds, interactions, step.t, step.h)?;
        self.compute_residu(nsds, step.t_old, step.t, step.h)
    }

    /// `x_free`, then `x_p = x_free + hγ W⁻¹ (g(x^α, λ^α) − B λ^α)` for nonlinear relations.
    fn compute_free_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, interactions, step, .. } = ctx;
        EulerMoreauOsi::compute_free_state(self, nsds, step.h);
        if !self.relations_linear {
            for &id in interactions {
                let ds: Vec<_> = nsds.interaction_ref(id).ds().to_vec();
                for (j, d) in ds.into_iter().enumerate() {
                    let mut term = nsds.first_order_partial_term(id, j);
                    self.add_to_partial(d, step.h, &mut term);
                }
            }
        }
        Ok(())
    }

    fn contribution(&self) -> Contribution<'_> {
        Contribution::FirstOrder(self)
    }

    /// The state from the inputs, then the outputs of its interactions.
    fn update_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, interactions, step, .. } = ctx;
        EulerMoreauOsi::update_state(self, nsds, step.h);
        for &id in interactions {
            nsds.first_order_output(id, step.t)?;
        }
        Ok(())
    }

    /// The relations linearized at the new iterate, `W`, and the largest of the systems'
    /// residuals and the relations' (the linearized input and output against `g` and `h`).
    fn newton_residual(&mut self, ctx: OsiContext<'_>, problem: &dyn OneStepProblem) -> Result<f64, KernelError> {
        let OsiContext { nsds, interactions, step, .. } = ctx;
        self.linearize(nsds, interactions, step.t, step.h)?;
        let residual = self.compute_residu(nsds, step.t_old, step.t, step.h)?;
        let (residual_r, residual_y) = nsds.first_order_relation_residuals(interactions, &problem.last_w_blocks());
        Ok(residual.max(residual_r).max(residual_y))
    }

    fn commit(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        self.swap_memories(nsds, step.t)
    }
}

/// Whether the relations of the interactions of `systems` are linear.
fn relations_linear(nsds: &Nsds, systems: &SystemSet) -> bool {
    nsds.interaction_graph()
        .node_weights()
        .filter(|i| systems.owns(i))
        .all(|i| matches!(&i.relation, Relation::FirstOrder(r) if r.kind() == FirstOrderRelationKind::Linear))
}

/// `r += a · (m x + b)`: the product summed from 0 in column order, `b` added, then scaled.
fn add_scaled_product(r: &mut [f64], a: f64, m: &Mat<f64>, x: &[f64], b: Option<&Vec<f64>>) {
    for (i, ri) in r.iter_mut().enumerate() {
        let mut s = 0.0;
        for (j, xj) in x.iter().enumerate() {
            s += m[(i, j)] * xj;
        }
        if let Some(b) = b {
            s += b[i];
        }
        *ri += a * s;
    }
}
