//! Semismooth Newton methods for the LCP on the Fischer–Burmeister or the min function, globalised
//! by an Armijo line search on the merit `½‖Φ‖²`.
//!
//! Siconos `numerics/src/LCP/lcp_newton_FB.c` (`SICONOS_LCP_NEWTON_FB_FBLSA`, driven by
//! `numerics/src/tools/Newton_methods.c` `newton_LSA`, Jacobian in `FischerBurmeister.c`
//! `Jac_F_FB`) and `lcp_newton_min.c` (`SICONOS_LCP_NEWTONMIN`); V. Acary, "Méthodes numériques
//! pour la simulation des systèmes multi-corps en présence de contact, de frottement et
//! d'impacts", JNRR'09, 2009 (HAL inria-00425090), on generalised Newton methods for the
//! one-step problems.
//!
//! References: T. De Luca, F. Facchinei, C. Kanzow, "A semismooth equation approach to the
//! solution of nonlinear complementarity problems", Math. Programming 75 (1996) 407-439
//! (the algorithm, its descent test and the Jacobian at the kink); F. Facchinei, J.-S. Pang,
//! "Finite-Dimensional Variational Inequalities and Complementarity Problems" (2003), §9.1.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::lu::partial_pivoting::{factor, solve};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};

use super::{LcpProblem, LcpSolver};
use crate::matrix::{NumericsMatrix, axpy, dot};
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

/// The complementarity function whose root the Newton method seeks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NewtonFunction {
    /// Fischer–Burmeister: `Φ_i = φ(z_i, w_i)`, `φ(a, b) = √(a² + b²) − a − b` (Siconos
    /// `NEWTON_FB_FBLSA`). Its merit `½‖Φ‖²` is continuously differentiable.
    #[default]
    FischerBurmeister,
    /// The natural residual: `Φ_i = min(z_i, w_i)` (the function Siconos' `NEWTONMIN` uses,
    /// here in the `z` variables with the same line search as Fischer–Burmeister).
    Min,
}

/// Options of [`NewtonSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NewtonOptions {
    /// Maximum number of Newton iterations (default: `1000`, Siconos' `NEWTON_FB_FBLSA` and
    /// `NEWTONMIN`). At least 1.
    pub max_iterations: usize,
    /// Residual of [`LcpProblem::compute_error`] accepted as converged (default: `1e-10`,
    /// Siconos' `NEWTON_FB_FBLSA` default). Must be positive and finite.
    pub tolerance: f64,
    /// The complementarity function (default: [`NewtonFunction::FischerBurmeister`]).
    pub function: NewtonFunction,
    /// Armijo constant `σ`: a step `t` is accepted when
    /// `θ(z + t d) ≤ θ(z) + σ t ∇θ(z)ᵀd` (default: `1e-4`, De Luca–Facchinei–Kanzow). In `(0, ½)`.
    pub sufficient_decrease: f64,
    /// The line search halves `t` from 1 and gives up below this step (default: `1e-16`,
    /// Siconos' `SICONOS_DPARAM_LSA_ALPHA_MIN` for `NEWTON_FB_FBLSA`). In `(0, 1]`.
    pub min_step: f64,
    /// `ρ` of the descent test: the Newton direction `d` is replaced by `−∇θ` when
    /// `∇θᵀd > −ρ‖d‖ᵖ` (default: `1e-8`, Siconos' `newton_LSA`). Non-negative.
    pub descent_threshold: f64,
    /// `p` of the descent test (default: `2.1`, Siconos' `newton_LSA`; the theory asks `p > 2`).
    /// Positive.
    pub descent_exponent: f64,
}

impl Default for NewtonOptions {
    fn default() -> Self {
        Self {
            max_iterations: 1000,
            tolerance: 1e-10,
            function: NewtonFunction::FischerBurmeister,
            sufficient_decrease: 1e-4,
            min_step: 1e-16,
            descent_threshold: 1e-8,
            descent_exponent: 2.1,
        }
    }
}

impl NewtonOptions {
    /// Sets [`NewtonOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`NewtonOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`NewtonOptions::function`].
    pub fn with_function(mut self, function: NewtonFunction) -> Self {
        self.function = function;
        self
    }

    /// Sets [`NewtonOptions::sufficient_decrease`].
    pub fn with_sufficient_decrease(mut self, sigma: f64) -> Self {
        self.sufficient_decrease = sigma;
        self
    }

    /// Sets [`NewtonOptions::min_step`].
    pub fn with_min_step(mut self, min_step: f64) -> Self {
        self.min_step = min_step;
        self
    }

    /// Sets [`NewtonOptions::descent_threshold`] `ρ` and [`NewtonOptions::descent_exponent`] `p`.
    pub fn with_descent_test(mut self, rho: f64, p: f64) -> Self {
        self.descent_threshold = rho;
        self.descent_exponent = p;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        let invalid = |name, reason| Err(NumericsError::InvalidOption { name, reason });
        options::positive_finite("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        if self.sufficient_decrease.is_nan() || self.sufficient_decrease <= 0.0 || self.sufficient_decrease >= 0.5 {
            return invalid("sufficient_decrease", "must lie in (0, 1/2)");
        }
        if self.min_step.is_nan() || self.min_step <= 0.0 || self.min_step > 1.0 {
            return invalid("min_step", "must lie in (0, 1]");
        }
        if !self.descent_threshold.is_finite() || self.descent_threshold < 0.0 {
            return invalid("descent_threshold", "must be non-negative and finite");
        }
        if !self.descent_exponent.is_finite() || self.descent_exponent <= 0.0 {
            return invalid("descent_exponent", "must be positive and finite");
        }
        Ok(())
    }
}

/// Largest `n` for which a sparse-block or sparse `M` is expanded to dense (with `H` and
/// `HᵀH + μI`, three `n × n` dense matrices, 384 MiB at this size); larger sparse problems are
/// refused.
const MAX_DENSE_FROM_SPARSE: usize = 4096;

/// Semismooth Newton solver of the LCP `w = M z + q, 0 ≤ z ⊥ w ≥ 0` (Siconos
/// `lcp_newton_FB` / `NEWTON_FB_FBLSA` and `lcp_newton_min` / `NEWTONMIN`).
///
/// It solves `Φ(z) = 0`, with `Φ_i = φ(z_i, w_i)` and `w = M z + q`, where `φ` is
/// Fischer–Burmeister `φ(a, b) = √(a² + b²) − a − b` or `min(a, b)` (see [`NewtonFunction`]).
/// Each iteration, from the warm start `z`:
///
/// 1. takes an element `H = D_a + D_b M` of the generalised Jacobian. Fischer–Burmeister:
///    `a_i = z_i/r_i − 1`, `b_i = w_i/r_i − 1` with `r_i = √(z_i² + w_i²) > 0`; at the kink
///    `z_i = w_i = 0` the De Luca–Facchinei–Kanzow element `a_i = 1/√(1 + u_i²) − 1`,
///    `b_i = u_i/√(1 + u_i²) − 1` with `u = M v`, `v_i = 1` on the kink set and 0 elsewhere.
///    Min: row `i` is `e_iᵀ` when `z_i ≤ w_i`, else `M_{i·}` (an element of the B-differential);
/// 2. solves `H d = −Φ` by LU with partial pivoting (faer); `d` is kept if it passes the
///    descent test `∇θᵀd ≤ −ρ‖d‖ᵖ`, with `θ = ½‖Φ‖²` and `∇θ = HᵀΦ`;
/// 3. backtracks `t = 1, ½, ¼, …` until `θ(z + t d) ≤ θ(z) + σ t ∇θᵀd` (Armijo), down to
///    `min_step`;
/// 4. when `H` is numerically singular, `d` is not finite, fails the descent test or admits no
///    step, tries the Levenberg–Marquardt direction `(HᵀH + μI) d = −∇θ`,
///    `μ = max(θ, n ε max|H_ij|²)`, then the gradient direction `d = −∇θ` (both descend as
///    soon as `∇θ ≠ 0`, and take the same line search); if none admits a step it stops with
///    [`SolverStatus::Stalled`]. (The descent test is not scale invariant: on a badly scaled
///    problem it rejects good Newton directions, which the Levenberg–Marquardt step recovers.)
///
/// It stops when [`LcpProblem::compute_error`] is at or below the tolerance (checked at the warm
/// start too, so a solved warm start costs 0 iterations), as Siconos' `newton_LSA` does.
///
/// Differences from Siconos (`newton_LSA`): Siconos accepts the full Newton step when
/// `θ(z + d) ≤ 0.9 θ(z)` and otherwise backtracks from `t = 2` with an Armijo constant of 1,
/// where this solver uses the textbook Armijo rule above; on a singular `H` Siconos'
/// Fischer–Burmeister stops (info 2) and a rejected Newton direction goes straight to the
/// gradient, where this solver tries the Levenberg–Marquardt direction first (rows of `H`
/// vanish at kinks where `M` has a zero row, and the gradient alone then crawls); Siconos' kink
/// element uses `Mᵀv` where the formula has `M v` (they agree for symmetric `M`); Siconos'
/// `NEWTONMIN` runs an undamped Newton on the `2n` system `(M z + q − w, min(z/M_ii, w))` from
/// `z = w = 1`, ignoring the warm start, while the min variant here shares the globalisation
/// above. On the Siconos LCP collection the Fischer–Burmeister iteration counts and residuals
/// are nevertheless Siconos' own (at tolerance 1e-8).
///
/// Storage: dense `M` is used in place; sparse-block and sparse matrices are expanded to a dense
/// copy once per solve (buffer reused across solves), up to `n = 4096`. All work buffers belong
/// to the solver and are reused; the iterations allocate nothing themselves (faer's matrix
/// product kernels, used inside the LU, manage their own packing memory).
///
/// # Examples
/// ```
/// use nonsmooth_numerics::lcp::{LcpProblem, LcpSolver, NewtonFunction, NewtonOptions, NewtonSolver};
/// use nonsmooth_numerics::matrix::NumericsMatrix;
///
/// let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
/// let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![-5.0, -6.0]).unwrap();
/// for function in [NewtonFunction::FischerBurmeister, NewtonFunction::Min] {
///     let mut solver = NewtonSolver::new(NewtonOptions::default().with_function(function)).unwrap();
///     let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
///     let report = solver.solve(&problem, &mut z, &mut w).unwrap();
///     assert!(report.is_converged() && report.residual <= 1e-10);
///     assert!((z[0] - 4.0 / 3.0).abs() < 1e-9 && (z[1] - 7.0 / 3.0).abs() < 1e-9);
/// }
/// ```
#[doc(alias = "lcp_newton_FB")]
#[doc(alias = "lcp_newton_min")]
#[doc(alias = "NEWTON_FB_FBLSA")]
pub struct NewtonSolver {
    options: NewtonOptions,
    workspace: NewtonWorkspace,
}

impl std::fmt::Debug for NewtonSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewtonSolver").field("options", &self.options).finish_non_exhaustive()
    }
}

/// Buffers reused across solves: they keep their capacity, so a sequence of problems of
/// varying sizes allocates only when `n` exceeds every previous size.
#[derive(Default)]
struct NewtonWorkspace {
    /// Dense copy of a sparse-block or sparse `M`, column-major `n × n`.
    m: Vec<f64>,
    /// The Jacobian `H`, factored in place, column-major `n × n`.
    h: Vec<f64>,
    /// `HᵀH + μI` of the regularised direction, factored in place, column-major `n × n`.
    g: Vec<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    /// faer's scratch for the LU factorisation and solve, sized for `stack_n`.
    stack: Option<MemBuffer>,
    stack_n: usize,
    phi: Vec<f64>,
    grad: Vec<f64>,
    d: Vec<f64>,
    md: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
    v: Vec<f64>,
    z_trial: Vec<f64>,
    w_trial: Vec<f64>,
}

impl NewtonWorkspace {
    fn resize(&mut self, n: usize, dense_copy: bool) {
        for buffer in [&mut self.h, &mut self.g] {
            buffer.clear();
            buffer.resize(n * n, 0.0);
        }
        if dense_copy {
            self.m.clear();
            self.m.resize(n * n, 0.0);
        }
        for perm in [&mut self.perm, &mut self.perm_inv] {
            perm.clear();
            perm.resize(n, 0);
        }
        for v in [
            &mut self.phi,
            &mut self.grad,
            &mut self.d,
            &mut self.md,
            &mut self.a,
            &mut self.b,
            &mut self.v,
            &mut self.z_trial,
            &mut self.w_trial,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        if self.stack.is_none() || n > self.stack_n {
            let req = StackReq::any_of(&[
                factor::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Default::default()),
                solve::solve_in_place_scratch::<usize, f64>(n, 1, Par::Seq),
            ]);
            self.stack = Some(MemBuffer::new(req));
            self.stack_n = n;
        }
    }
}

/// The dense matrix `M` as the iterations read it: its columns.
#[derive(Clone, Copy)]
enum DenseM<'a> {
    Faer(&'a Mat<f64>),
    Buffer(&'a [f64], usize),
}

impl DenseM<'_> {
    #[inline]
    fn col(&self, j: usize) -> &[f64] {
        match *self {
            DenseM::Faer(m) => m.col_as_slice(j),
            DenseM::Buffer(data, n) => &data[j * n..(j + 1) * n],
        }
    }

    /// `y ← M x` (columns scaled by the nonzero entries of `x`).
    fn mul(&self, x: &[f64], y: &mut [f64]) {
        y.fill(0.0);
        for (j, &xj) in x.iter().enumerate() {
            if xj != 0.0 {
                axpy(xj, self.col(j), y);
            }
        }
    }
}

/// Fischer–Burmeister `φ(a, b) = √(a² + b²) − a − b`, evaluated without cancellation: for
/// `a + b > 0` as `−2ab / (√(a² + b²) + a + b)`.
#[inline]
pub(crate) fn fischer_burmeister(a: f64, b: f64) -> f64 {
    let r = a.hypot(b);
    let s = a + b;
    if s > 0.0 { -2.0 * a * b / (r + s) } else { r - s }
}

/// `Φ_i` for the chosen function.
#[inline]
fn phi_component(function: NewtonFunction, z: f64, w: f64) -> f64 {
    match function {
        NewtonFunction::FischerBurmeister => fischer_burmeister(z, w),
        NewtonFunction::Min => z.min(w),
    }
}

/// Fills `phi` with `Φ(z, w)` and returns the merit `θ = ½‖Φ‖²`.
fn merit(function: NewtonFunction, z: &[f64], w: &[f64], phi: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for ((p, &zi), &wi) in phi.iter_mut().zip(z).zip(w) {
        *p = phi_component(function, zi, wi);
        s += *p * *p;
    }
    0.5 * s
}

/// The merit `θ = ½‖Φ(z, w)‖²` without storing `Φ`.
fn merit_only(function: NewtonFunction, z: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (&zi, &wi) in z.iter().zip(w) {
        let p = phi_component(function, zi, wi);
        s += p * p;
    }
    0.5 * s
}

/// The diagonal coefficients `a`, `b` of the generalised Jacobian `H = D_a + D_b M` at `(z, w)`.
///
/// Fischer–Burmeister (Facchinei–Pang 2003, Prop. 9.1.4; De Luca–Facchinei–Kanzow 1996):
/// `a_i = z_i/r_i − 1`, `b_i = w_i/r_i − 1` for `r_i = √(z_i² + w_i²) > 0`; on the kink set
/// `β = {i : z_i = w_i = 0}`, with `v = 1_β` and `u = M v`, `a_i = v_i/√(v_i² + u_i²) − 1`,
/// `b_i = u_i/√(v_i² + u_i²) − 1`. Min: `(a_i, b_i) = (1, 0)` when `z_i ≤ w_i`, else `(0, 1)`.
/// `v` and `u` are work vectors of length `n`.
#[allow(clippy::too_many_arguments)]
fn jacobian_coefficients(
    function: NewtonFunction,
    m: DenseM<'_>,
    z: &[f64],
    w: &[f64],
    a: &mut [f64],
    b: &mut [f64],
    v: &mut [f64],
    u: &mut [f64],
) {
    match function {
        NewtonFunction::Min => {
            for i in 0..z.len() {
                let z_branch = z[i] <= w[i];
                a[i] = if z_branch { 1.0 } else { 0.0 };
                b[i] = if z_branch { 0.0 } else { 1.0 };
            }
        }
        NewtonFunction::FischerBurmeister => {
            let mut kink = false;
            for i in 0..z.len() {
                let r = z[i].hypot(w[i]);
                if r > 0.0 {
                    a[i] = z[i] / r - 1.0;
                    b[i] = w[i] / r - 1.0;
                    v[i] = 0.0;
                } else {
                    v[i] = 1.0;
                    kink = true;
                }
            }
            if kink {
                m.mul(v, u);
                for i in 0..z.len() {
                    if v[i] != 0.0 {
                        let r = 1.0f64.hypot(u[i]);
                        a[i] = 1.0 / r - 1.0;
                        b[i] = u[i] / r - 1.0;
                    }
                }
            }
        }
    }
}

/// The search directions tried in each iteration, in this order.
#[derive(Clone, Copy)]
enum Direction {
    Newton,
    Regularized,
    Gradient,
}

/// Writes `H = D_a + D_b M` (column-major) into `h` and returns `max |H_ij|`.
fn assemble_jacobian(m: DenseM<'_>, a: &[f64], b: &[f64], h: &mut [f64]) -> f64 {
    let n = a.len();
    let mut largest = 0.0f64;
    for (j, hc) in h.chunks_exact_mut(n).enumerate() {
        for ((hij, &bi), &mij) in hc.iter_mut().zip(b).zip(m.col(j)) {
            *hij = bi * mij;
        }
        hc[j] += a[j];
        largest = hc.iter().fold(largest, |acc, x| acc.max(x.abs()));
    }
    largest
}

/// Solves `H d = −Φ` by LU with partial pivoting, factoring `h` in place. Returns `false` (and
/// leaves `d` unspecified) when a pivot is at or below `n ε max|H|` or `d` is not finite.
#[allow(clippy::too_many_arguments)]
fn newton_direction(
    h: &mut [f64],
    largest: f64,
    perm: &mut [usize],
    perm_inv: &mut [usize],
    scratch: &mut MemBuffer,
    phi: &[f64],
    d: &mut [f64],
) -> bool {
    let n = phi.len();
    let mut lu = MatMut::from_column_major_slice_mut(h, n, n);
    let stack = MemStack::new(scratch);
    let (_, p) = factor::lu_in_place(lu.as_mut(), perm, perm_inv, Par::Seq, stack, Default::default());
    let threshold = n as f64 * f64::EPSILON * largest;
    if (0..n).any(|i| lu[(i, i)].is_nan() || lu[(i, i)].abs() <= threshold) {
        return false;
    }
    for (di, &p) in d.iter_mut().zip(phi) {
        *di = -p;
    }
    let lu: MatRef<'_, f64> = lu.as_ref();
    solve::solve_in_place(lu, lu, p, MatMut::from_column_major_slice_mut(d, n, 1), Par::Seq, stack);
    d.iter().all(|x| x.is_finite())
}

/// Solves the Levenberg–Marquardt system `(HᵀH + μI) d = −HᵀΦ = −∇θ` by LU with partial
/// pivoting (`h` holds `H`, `g` receives the factored `HᵀH + μI`). Returns `false` when a pivot
/// is at or below `n ε max|HᵀH + μI|` or `d` is not finite.
#[allow(clippy::too_many_arguments)]
fn regularized_direction(
    h: &[f64],
    g: &mut [f64],
    mu: f64,
    perm: &mut [usize],
    perm_inv: &mut [usize],
    scratch: &mut MemBuffer,
    grad: &[f64],
    d: &mut [f64],
) -> bool {
    let n = grad.len();
    let hm = MatRef::from_column_major_slice(h, n, n);
    let mut gm = MatMut::from_column_major_slice_mut(g, n, n);
    matmul(gm.as_mut(), Accum::Replace, hm.transpose(), hm, 1.0, Par::Seq);
    let mut largest = 0.0f64;
    for i in 0..n {
        gm[(i, i)] += mu;
        largest = largest.max(gm[(i, i)].abs());
    }
    let stack = MemStack::new(scratch);
    let (_, p) = factor::lu_in_place(gm.as_mut(), perm, perm_inv, Par::Seq, stack, Default::default());
    let threshold = n as f64 * f64::EPSILON * largest;
    if (0..n).any(|i| gm[(i, i)].is_nan() || gm[(i, i)].abs() <= threshold) {
        return false;
    }
    for (di, &gi) in d.iter_mut().zip(grad) {
        *di = -gi;
    }
    let lu: MatRef<'_, f64> = gm.as_ref();
    solve::solve_in_place(lu, lu, p, MatMut::from_column_major_slice_mut(d, n, 1), Par::Seq, stack);
    d.iter().all(|x| x.is_finite())
}

/// Armijo backtracking along `d` from `(z, w)`, with `md = M d` so that trial points cost
/// `O(n)`: tries `t = 1, ½, ¼, …` down to `min_step` and accepts the first `t` with
/// `θ(z + t d) ≤ θ + σ t slope`. On success `z_trial`, `w_trial` hold `z + t d`, `w + t M d`,
/// and the accepted `(t, θ(z + t d))` is returned.
#[allow(clippy::too_many_arguments)]
fn armijo_search(
    function: NewtonFunction,
    z: &[f64],
    w: &[f64],
    d: &[f64],
    md: &[f64],
    theta: f64,
    slope: f64,
    sigma: f64,
    min_step: f64,
    z_trial: &mut [f64],
    w_trial: &mut [f64],
) -> Option<(f64, f64)> {
    let mut t = 1.0;
    while t >= min_step {
        for i in 0..z.len() {
            z_trial[i] = z[i] + t * d[i];
            w_trial[i] = w[i] + t * md[i];
        }
        let theta_t = merit_only(function, z_trial, w_trial);
        if theta_t <= theta + sigma * t * slope {
            return Some((t, theta_t));
        }
        t *= 0.5;
    }
    None
}

impl NewtonSolver {
    /// Builds the solver after validating the options.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when the tolerance is not positive and finite,
    /// `max_iterations` is 0, or a line search parameter is out of its range (see
    /// [`NewtonOptions`]).
    pub fn new(options: NewtonOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, workspace: NewtonWorkspace::default() })
    }

    /// The options in use.
    pub fn options(&self) -> &NewtonOptions {
        &self.options
    }
}

impl LcpSolver for NewtonSolver {
    fn solve(&mut self, problem: &LcpProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        problem.check_len("z", z.len())?;
        problem.check_len("w", w.len())?;
        if z.iter().any(|v| !v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "lcp warm start z" });
        }
        let n = problem.size();
        let dense_copy = !matches!(problem.m(), NumericsMatrix::Dense(_));
        if dense_copy && n > MAX_DENSE_FROM_SPARSE {
            return Err(NumericsError::UnsupportedStorage {
                solver: self.name(),
                storage: problem.m().storage().as_str(),
            });
        }
        let options = &self.options;
        let function = options.function;
        self.workspace.resize(n, dense_copy);
        let NewtonWorkspace {
            m: m_copy, h, g, perm, perm_inv, stack, phi, grad, d, md, a, b, v, z_trial, w_trial, ..
        } = &mut self.workspace;
        let scratch = stack.as_mut().expect("NewtonWorkspace::resize allocates the scratch buffer");
        let m = match problem.m() {
            NumericsMatrix::Dense(m) => DenseM::Faer(m),
            other => {
                other.copy_to_col_major(&mut m_copy[..n * n]);
                DenseM::Buffer(m_copy, n)
            }
        };

        let mut err = problem.compute_error(z, w)?;
        let mut theta = merit(function, z, w, phi);
        let mut iterations = 0;
        let mut stalled = false;
        while err > options.tolerance && err.is_finite() && iterations < options.max_iterations {
            iterations += 1;

            // Generalised Jacobian H = D_a + D_b M and merit gradient ∇θ = Hᵀ Φ.
            jacobian_coefficients(function, m, z, w, a, b, v, md);
            let largest = assemble_jacobian(m, a, b, h);
            for (gj, hc) in grad.iter_mut().zip(h.chunks_exact(n)) {
                *gj = dot(hc, phi);
            }

            // Directions, in order: Newton H d = −Φ, kept if it passes the descent test
            // ∇θᵀd ≤ −ρ‖d‖ᵖ; Levenberg–Marquardt (HᵀH + μI) d = −∇θ with μ = max(θ, n ε max|H|²)
            // when H is singular or the Newton step fails; −∇θ.
            let mut accepted = None;
            for direction in [Direction::Newton, Direction::Regularized, Direction::Gradient] {
                let found = match direction {
                    Direction::Newton => newton_direction(h, largest, perm, perm_inv, scratch, phi, d),
                    Direction::Regularized => {
                        // The LU of the Newton attempt overwrote H: assemble it again.
                        assemble_jacobian(m, a, b, h);
                        let mu = theta.max(n as f64 * f64::EPSILON * largest * largest);
                        regularized_direction(h, g, mu, perm, perm_inv, scratch, grad, d)
                    }
                    Direction::Gradient => {
                        for (di, &gi) in d.iter_mut().zip(grad.iter()) {
                            *di = -gi;
                        }
                        true
                    }
                };
                if !found {
                    continue;
                }
                let slope = dot(grad, d);
                // The Levenberg–Marquardt and gradient directions descend whenever ∇θ ≠ 0
                // (HᵀH + μI is positive definite); only the Newton direction needs the test.
                let descent = match direction {
                    Direction::Newton => {
                        slope <= -options.descent_threshold * dot(d, d).sqrt().powf(options.descent_exponent)
                    }
                    Direction::Regularized | Direction::Gradient => slope < 0.0,
                };
                if !descent {
                    continue;
                }
                m.mul(d, md);
                accepted = armijo_search(
                    function,
                    z,
                    w,
                    d,
                    md,
                    theta,
                    slope,
                    options.sufficient_decrease,
                    options.min_step,
                    z_trial,
                    w_trial,
                );
                if accepted.is_some() {
                    break;
                }
            }
            if accepted.is_none() {
                stalled = true;
                break;
            }

            z.copy_from_slice(z_trial);
            err = problem.compute_error(z, w)?;
            theta = merit(function, z, w, phi);
        }

        let status = if err <= options.tolerance {
            SolverStatus::Converged
        } else if !err.is_finite() {
            SolverStatus::NumericalBreakdown
        } else if stalled {
            SolverStatus::Stalled
        } else {
            SolverStatus::MaxIterations
        };
        Ok(SolverReport::new(status, iterations, err))
    }

    fn name(&self) -> &'static str {
        match self.options.function {
            NewtonFunction::FischerBurmeister => "newton-fb",
            NewtonFunction::Min => "newton-min",
        }
    }
}

#[cfg(test)]
mod tests;
