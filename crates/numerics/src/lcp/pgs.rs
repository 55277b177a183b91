//! Projected Gauss–Seidel (PGS, also called NLGS) with relaxation (PSOR) for the LCP.
//!
//! The Siconos kernel documentation, "Non smooth solvers" (NLGS with a tolerance and an
//! iteration cap); Siconos `numerics/src/LCP/lcp_pgs.c`, `lcp_psor.c`, `lcp_nsgs_SBM.c`;
//! K. G. Murty, "Linear Complementarity, Linear and Nonlinear Programming", 1988, for the
//! method.

use faer::Mat;

use super::{LcpProblem, LcpSolver};
use crate::matrix::{NumericsMatrix, axpy};
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Options of [`PgsSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PgsOptions {
    /// Maximum number of sweeps (default: `10_000`, as Siconos' `lcp_pgs` in 4.4). At
    /// least 1.
    pub max_iterations: usize,
    /// Residual of [`LcpProblem::compute_error`] accepted as converged (default: `1e-6`, Siconos'
    /// PGS default). Must be positive and finite.
    pub tolerance: f64,
    /// Relaxation factor `ω ∈ (0, 2)` of the update `z_i ← max(0, z_i − ω (M z + q)_i / M_ii)`
    /// (default: `1.0`, plain projected Gauss–Seidel; see [`PgsOptions::psor`]).
    pub relaxation: f64,
    /// The convergence test runs every this many sweeps, and always at return (default: `1`,
    /// every sweep as Siconos does). Must be at least 1.
    pub error_evaluation_frequency: usize,
}

impl Default for PgsOptions {
    fn default() -> Self {
        Self { max_iterations: 10_000, tolerance: 1e-6, relaxation: 1.0, error_evaluation_frequency: 1 }
    }
}

impl PgsOptions {
    /// Relaxation used by [`PgsOptions::psor`]: `1.2`.
    ///
    /// Siconos' `lcp_psor` stores `dparam[SICONOS_LCP_DPARAM_RHO] = 0.1` but never uses it (its
    /// sweep is plain Gauss–Seidel, ω = 1, and it prints "omega is not used"), so there is no
    /// Siconos value to reproduce. `1.2` is a mild over-relaxation, inside the convergence range
    /// `(0, 2)` for symmetric positive definite `M`. On random `M = AᵀA + 0.1 I` it saves
    /// sweeps when `A` is standard normal but costs sweeps on the larger problems whose `A` has
    /// a dominant rank-one part: over-relaxation is not uniformly better, so plain PGS stays the
    /// default (figures in `docs/performance-notes.md`).
    pub const PSOR_RELAXATION: f64 = 1.2;

    /// Options of projected successive over-relaxation (Siconos `SICONOS_LCP_PSOR`): the
    /// defaults with `relaxation = `[`PgsOptions::PSOR_RELAXATION`].
    #[doc(alias = "lcp_psor")]
    pub fn psor() -> Self {
        Self::default().with_relaxation(Self::PSOR_RELAXATION)
    }

    /// Sets [`PgsOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`PgsOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`PgsOptions::relaxation`].
    pub fn with_relaxation(mut self, relaxation: f64) -> Self {
        self.relaxation = relaxation;
        self
    }

    /// Sets [`PgsOptions::error_evaluation_frequency`].
    pub fn with_error_evaluation_frequency(mut self, frequency: usize) -> Self {
        self.error_evaluation_frequency = frequency;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive_finite("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        if !self.relaxation.is_finite() || self.relaxation <= 0.0 || self.relaxation >= 2.0 {
            return Err(NumericsError::InvalidOption { name: "relaxation", reason: "must lie in (0, 2)" });
        }
        options::at_least_one("error_evaluation_frequency", self.error_evaluation_frequency)?;
        Ok(())
    }
}

/// Projected Gauss–Seidel / PSOR solver of the LCP `w = M z + q, 0 ≤ z ⊥ w ≥ 0`
/// (Siconos `lcp_pgs`, `lcp_psor`, and `lcp_nsgs_SBM` for sparse-block matrices).
///
/// One sweep updates, for `i = 0, …, n−1` in order and using the newest values,
///
/// `z_i ← max(0, z_i − ω (M z + q)_i / M_ii)`,
///
/// which for `ω = 1` is Siconos' `z_i ← max(0, −(q_i + Σ_{j≠i} M_ij z_j) / M_ii)`. The incoming
/// `z` is the warm start. Converges for symmetric positive definite `M` when `0 < ω < 2`.
///
/// **Implementation.** The solver keeps `w = M z + q` up to date during the sweep: after a change
/// `δ` of `z_i` it adds `δ M_{·i}` (a contiguous column) to `w`, and skips the update when
/// `δ = 0` (components stuck at 0). The convergence test then costs `O(n)`: it evaluates the
/// LCP error on the maintained `w`, and when that is at or below the tolerance it confirms with an
/// exact [`LcpProblem::compute_error`] (and resynchronises `w` if the confirmation fails).
/// Siconos instead recomputes `M z + q` after every sweep, which costs as much as the sweep.
///
/// Storages: dense uses the columns of `M` in place; sparse-block and sparse matrices are copied
/// once per solve into a compressed-column buffer owned by the solver (reused across solves).
/// Sparse-block matrices are swept scalar row by scalar row: this is block Gauss–Seidel where each
/// diagonal block's local LCP gets one projected Gauss–Seidel sweep, instead of Siconos'
/// `lcp_nsgs_SBM`, which solves each local block LCP to convergence. All storages of the same
/// matrix perform the same arithmetic on `z` and `w`; only the exact error evaluations (whose
/// matrix-vector products round differently per storage) can differ, in the last bits.
///
/// With `ω = 1` the sweep counts and residuals equal Siconos' `lcp_pgs` on the Siconos LCP
/// collection and on random `AᵀA + 0.1 I` problems (same sweeps, residuals to 3 digits).
///
/// A diagonal entry `M_ii < DBL_EPSILON` (zero or negative) cannot be used: the solver then
/// stops with [`SolverStatus::NumericalBreakdown`] after 0 sweeps (Siconos returns info 2),
/// unless the warm start already satisfies the tolerance. The report's residual is always
/// [`LcpProblem::compute_error`] at the returned `z`.
///
/// # Examples
/// ```
/// use nonsmooth_numerics::lcp::{LcpProblem, LcpSolver, PgsOptions, PgsSolver};
/// use nonsmooth_numerics::matrix::NumericsMatrix;
///
/// let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
/// let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![-5.0, -6.0]).unwrap();
/// let mut solver = PgsSolver::new(PgsOptions::default().with_tolerance(1e-12)).unwrap();
/// let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
/// let report = solver.solve(&problem, &mut z, &mut w).unwrap();
/// assert!(report.is_converged() && report.residual <= 1e-12);
/// assert!((z[0] - 4.0 / 3.0).abs() < 1e-10 && (z[1] - 7.0 / 3.0).abs() < 1e-10);
/// ```
#[doc(alias = "lcp_pgs")]
#[doc(alias = "lcp_psor")]
#[doc(alias = "lcp_nsgs_SBM")]
#[derive(Clone, Debug)]
pub struct PgsSolver {
    options: PgsOptions,
    workspace: PgsWorkspace,
}

/// Buffers reused across solves; they grow with the problem and never shrink.
#[derive(Clone, Debug, Default)]
struct PgsWorkspace {
    /// `1 / M_ii`.
    inv_diag: Vec<f64>,
    /// The maintained `M z + q`.
    w: Vec<f64>,
    /// Compressed-column copy of a sparse-block or sparse `M`.
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
}

/// The columns of `M`, as the sweep reads them.
#[derive(Clone, Copy)]
enum Columns<'a> {
    Dense(&'a Mat<f64>),
    Compressed { col_ptr: &'a [usize], row_idx: &'a [usize], values: &'a [f64] },
}

impl Columns<'_> {
    /// `w ← w + a M_{·j}`.
    #[inline]
    fn axpy_col(&self, a: f64, j: usize, w: &mut [f64]) {
        match *self {
            Columns::Dense(m) => axpy(a, m.col_as_slice(j), w),
            Columns::Compressed { col_ptr, row_idx, values } => {
                let range = col_ptr[j]..col_ptr[j + 1];
                for (&r, &v) in row_idx[range.clone()].iter().zip(&values[range]) {
                    w[r] += a * v;
                }
            }
        }
    }
}

impl PgsSolver {
    /// Builds the solver after validating the options.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when the tolerance is not positive and finite,
    /// `max_iterations` is 0, the relaxation is outside `(0, 2)`, or the error evaluation
    /// frequency is 0.
    pub fn new(options: PgsOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, workspace: PgsWorkspace::default() })
    }

    /// The options in use.
    pub fn options(&self) -> &PgsOptions {
        &self.options
    }
}

/// One projected (over-)relaxed Gauss–Seidel sweep on the maintained `w = M z + q`.
fn sweep(cols: Columns<'_>, inv_diag: &[f64], omega: f64, z: &mut [f64], w: &mut [f64]) {
    for i in 0..z.len() {
        let zi = z[i];
        let candidate = (zi - omega * w[i] * inv_diag[i]).max(0.0);
        let delta = candidate - zi;
        if delta != 0.0 {
            z[i] = candidate;
            cols.axpy_col(delta, i, w);
        }
    }
}

impl LcpSolver for PgsSolver {
    fn solve(&mut self, problem: &LcpProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        problem.check_len("z", z.len())?;
        problem.check_len("w", w.len())?;
        if z.iter().any(|v| !v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "lcp warm start z" });
        }
        let n = problem.size();
        let options = &self.options;
        let PgsWorkspace { inv_diag, w: w_run, col_ptr, row_idx, values } = &mut self.workspace;
        inv_diag.clear();
        inv_diag.resize(n, 0.0);
        w_run.clear();
        w_run.resize(n, 0.0);

        // The columns of M and its diagonal (kept in `inv_diag` until inverted).
        let cols = match problem.m() {
            NumericsMatrix::Dense(m) => {
                for (i, d) in inv_diag.iter_mut().enumerate() {
                    *d = m[(i, i)];
                }
                Columns::Dense(m)
            }
            other => {
                crate::matrix::entries::fill_compressed(other, false, col_ptr, row_idx, values, inv_diag);
                Columns::Compressed { col_ptr, row_idx, values }
            }
        };

        // A vanishing or negative diagonal entry: Siconos' info 2, no sweep.
        if inv_diag.iter().any(|&d| d < f64::EPSILON) {
            let residual = problem.compute_error(z, w)?;
            let status =
                if residual <= options.tolerance { SolverStatus::Converged } else { SolverStatus::NumericalBreakdown };
            return Ok(SolverReport::new(status, 0, residual));
        }
        for d in inv_diag.iter_mut() {
            *d = 1.0 / *d;
        }

        // w = q + M z, built column by column as the sweep updates it.
        w_run.copy_from_slice(problem.q());
        for (j, &zj) in z.iter().enumerate() {
            if zj != 0.0 {
                cols.axpy_col(zj, j, w_run);
            }
        }

        let mut iterations = 0;
        // `Some(err)` when `w` holds M z + q for the current z and `err` is its exact error.
        let mut exact: Option<f64> = None;
        let mut breakdown = false;
        while iterations < options.max_iterations {
            sweep(cols, inv_diag, options.relaxation, z, w_run);
            iterations += 1;
            exact = None;
            if iterations % options.error_evaluation_frequency != 0 {
                continue;
            }
            let estimate = problem.error_with_w(z, w_run);
            if estimate <= options.tolerance || !estimate.is_finite() {
                let err = problem.compute_error(z, w)?;
                exact = Some(err);
                if err <= options.tolerance {
                    break;
                }
                if !err.is_finite() {
                    breakdown = true;
                    break;
                }
                // Rounding drift of the maintained w: resynchronise and go on.
                w_run.copy_from_slice(w);
            }
        }

        let residual = match exact {
            Some(err) => err,
            None => problem.compute_error(z, w)?,
        };
        let status = if residual <= options.tolerance {
            SolverStatus::Converged
        } else if breakdown || !residual.is_finite() {
            SolverStatus::NumericalBreakdown
        } else {
            SolverStatus::MaxIterations
        };
        Ok(SolverReport::new(status, iterations, residual))
    }

    fn name(&self) -> &'static str {
        // Exact comparison on purpose: the name says whether the relaxation is the plain 1.
        if (self.options.relaxation - 1.0).abs() == 0.0 { "pgs" } else { "psor" }
    }
}

#[cfg(test)]
mod tests;
