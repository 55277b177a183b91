//! Proximal point method for FC3D (Siconos `fc3d_proximal`, solver id 502,
//! `numerics/src/FrictionContact/fc3d_proximal.c`), with [`NsnAcSolver`] as internal solver.
//!
//! Integration tests: `tests/it/fc_prox.rs`.

use super::Fc3dProblem;
use super::nsn_ac::{NsnAcOptions, NsnAcSolver, Shifted};
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Options of [`ProxSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ProxOptions {
    /// Stop when [`Fc3dProblem::compute_error`] of the original problem is at or below this
    /// (default: 1e-4, Siconos' PROX default). Positive and finite.
    pub tolerance: f64,
    /// Maximum number of proximal steps (default: 1000, Siconos 4.4's PROX default). At least 1.
    pub max_iterations: usize,
    /// `σ` of the proximal parameter update `α = σ·err^ν` (default: 5, Siconos'
    /// `SICONOS_FRICTION_3D_PROXIMAL_DPARAM_SIGMA`). Positive and finite.
    pub sigma: f64,
    /// `ν` of the update `α = σ·err^ν` (default: 1, Siconos'
    /// `SICONOS_FRICTION_3D_PROXIMAL_DPARAM_NU`). Positive and finite.
    pub nu: f64,
    /// Ratio of the adaptive inner tolerance `max(err/ratio, tolerance/nc)` (default: 10,
    /// Siconos' `SICONOS_FRICTION_3D_DPARAM_INTERNAL_ERROR_RATIO` with the ADAPTIVE internal
    /// error strategy). Positive and finite.
    pub internal_error_ratio: f64,
    /// Options of the internal NSN-AC solver; its tolerance is overwritten at each proximal step
    /// by the adaptive rule (default: [`NsnAcOptions::default`], 200 iterations as Siconos'
    /// internal NSN_AC).
    pub internal: NsnAcOptions,
}

impl Default for ProxOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-4,
            max_iterations: 1000,
            sigma: 5.0,
            nu: 1.0,
            internal_error_ratio: 10.0,
            internal: NsnAcOptions::default(),
        }
    }
}

impl ProxOptions {
    /// Sets [`ProxOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`ProxOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`ProxOptions::internal`].
    pub fn with_internal(mut self, internal: NsnAcOptions) -> Self {
        self.internal = internal;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive_finite("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        options::positive_finite("sigma", self.sigma)?;
        options::positive_finite("nu", self.nu)?;
        options::positive_finite("internal_error_ratio", self.internal_error_ratio)?;
        Ok(())
    }
}

/// Proximal point solver of the FC3D problem (Siconos `fc3d_proximal` with its default
/// `SICONOS_FRICTION_3D_PROXIMAL_PROX` strategy and variable `α`).
///
/// Each step `k` solves, with [`NsnAcSolver`] from `r_k`, the regularized problem
/// `u = (W + αI) r + (q − α r_k)` with the Coulomb law, whose solution is
/// `r_{k+1} = prox(r_k)`; at a fixed point `r_{k+1} = r_k` solves the original problem. The
/// inner tolerance is `max(err_k/ratio, tolerance/nc)` (Siconos' ADAPTIVE internal error
/// strategy, `fc3d_set_internalsolver_tolerance`). Update of `α`: initially `α = σ·err_0^ν`;
/// after a step, `α ← 10α` when the inner solve did not converge, else `α = σ·err_{k+1}^ν`,
/// with `err` the error [`Fc3dProblem::compute_error`] of the original problem, which is also
/// the stopping test (`err ≤ tolerance`).
///
/// The caller's problem is never modified (Siconos adds `α` to the diagonal of `W` in place and
/// removes it afterwards, which changes its last bits, notes "Surprises" 2): the shift `αI` and
/// `q − α r_k` are applied inside the internal solver.
///
/// Trivial case `q_N ≥ 0` for all contacts: `r = 0`, 0 steps. The report's `iterations` is the
/// number of proximal steps (Siconos' `ITER_DONE`); [`ProxSolver::inner_iterations`] gives the
/// cumulated Newton iterations (Siconos' `CUMULATIVE_ITER_DONE`).
///
/// Status: `Converged`; `MaxIterations` at the cap; `NumericalBreakdown` when the error of an
/// iterate is not finite or `α` overflows.
#[derive(Debug)]
#[doc(alias = "fc3d_proximal")]
#[doc(alias = "PROX")]
pub struct ProxSolver {
    options: ProxOptions,
    inner: NsnAcSolver,
    q_shifted: Vec<f64>,
    u_inner: Vec<f64>,
    inner_iterations: usize,
}

impl ProxSolver {
    /// Builds a solver.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for an option out of range (including the internal
    /// solver's).
    pub fn new(options: ProxOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        let inner = NsnAcSolver::new(options.internal.clone())?;
        Ok(Self { options, inner, q_shifted: Vec::new(), u_inner: Vec::new(), inner_iterations: 0 })
    }

    /// The options.
    pub fn options(&self) -> &ProxOptions {
        &self.options
    }

    /// Newton iterations of the internal solver summed over the last solve.
    pub fn inner_iterations(&self) -> usize {
        self.inner_iterations
    }

    /// Solves `problem` from the warm start `r`; on return `r` holds the reactions and
    /// `u = W r + q`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `3·nc`,
    /// [`NumericsError::NonFinite`] for a non-finite warm start.
    pub fn solve(
        &mut self,
        problem: &Fc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        problem.check_solver_vectors(r, u, ["prox reaction r", "prox velocity u", "prox initial reaction r"])?;
        self.inner_iterations = 0;
        let n = problem.size();
        let nc = problem.number_of_contacts();
        let q = problem.q();
        if let Some(report) = problem.trivial_solution(r, u)? {
            return Ok(report);
        }
        let tol = self.options.tolerance;
        let mut error = problem.compute_error(r, u)?;
        if !error.is_finite() {
            return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, 0, error));
        }
        if error <= tol {
            return Ok(SolverReport::new(SolverStatus::Converged, 0, error));
        }
        self.q_shifted.resize(n, 0.0);
        self.u_inner.resize(n, 0.0);
        let (sigma, nu) = (self.options.sigma, self.options.nu);
        let mut alpha = sigma * error.powf(nu);
        let inner_max = self.options.internal.max_iterations;
        for it in 1..=self.options.max_iterations {
            if !(alpha.is_finite() && alpha > 0.0) {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it - 1, error));
            }
            for ((qs, qi), ri) in self.q_shifted.iter_mut().zip(q).zip(r.iter()) {
                *qs = qi - alpha * ri;
            }
            let inner_tol = (error / self.options.internal_error_ratio).max(tol / nc as f64);
            let data = Shifted { shift: alpha, q: &self.q_shifted };
            let rep = self.inner.solve_shifted(problem, data, r, &mut self.u_inner, inner_tol, inner_max)?;
            self.inner_iterations += rep.iterations;
            error = problem.compute_error(r, u)?;
            if !error.is_finite() || !r.iter().all(|v| v.is_finite()) {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, error));
            }
            if error <= tol {
                return Ok(SolverReport::new(SolverStatus::Converged, it, error));
            }
            alpha = if rep.is_converged() { sigma * error.powf(nu) } else { 10.0 * alpha };
        }
        Ok(SolverReport::new(SolverStatus::MaxIterations, self.options.max_iterations, error))
    }
}
