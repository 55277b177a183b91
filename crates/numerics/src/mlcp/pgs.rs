//! Projected Gauss–Seidel for the MLCP (Siconos `mlcp_pgs`, numerics/src/MLCP/mlcp_pgs.c).

use super::dense::DenseMlcp;
use super::{MlcpProblem, MlcpSolver};
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Options of [`PgsSolver`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PgsOptions {
    /// Maximum number of sweeps (default: `10_000`).
    pub max_iterations: usize,
    /// Residual accepted as converged, measured by [`MlcpProblem::compute_error`] after every
    /// sweep, as Siconos does (default: `1e-10`).
    pub tolerance: f64,
    /// Largest dense copy of a sparse MLCP matrix (`8 (n + m)²` bytes) the solver makes; above
    /// it the solve is [`NumericsError::DenseTooLarge`] (default:
    /// [`crate::DEFAULT_MAX_DENSE_BYTES`], 1 GiB).
    pub max_dense_bytes: u64,
}

impl Default for PgsOptions {
    fn default() -> Self {
        Self { max_iterations: 10_000, tolerance: 1e-10, max_dense_bytes: crate::DEFAULT_MAX_DENSE_BYTES }
    }
}

impl PgsOptions {
    /// Sets [`PgsOptions::max_dense_bytes`].
    pub fn with_max_dense_bytes(mut self, max_dense_bytes: u64) -> Self {
        self.max_dense_bytes = max_dense_bytes;
        self
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

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        Ok(())
    }
}

/// Projected Gauss–Seidel MLCP solver (Siconos `mlcp_pgs`, implicit variant). One sweep
/// updates, in place and in index order, first every equality unknown, then every
/// complementarity unknown:
///
/// `u_i ← −(q_i + Σ_{j≠i} M_ij z_j) / M_ii`,  `v_i ← max(0, −(q_i + Σ_{j≠i} M_ij z_j) / M_ii)`,
///
/// (with the blocks: `A`, `C`, `a` for the rows of `u`, `D`, `B`, `b` for those of `v`), then
/// measures [`MlcpProblem::compute_error`]; it stops when that is at or below the tolerance.
/// `z` is the warm start.
///
/// It needs every diagonal entry `|M_ii| ≥ DBL_EPSILON`; otherwise it stops before the first
/// sweep with [`SolverStatus::NumericalBreakdown`] and `z` unchanged (Siconos: info 1 or 2,
/// 0 iterations). This is the case of most circuit MLCPs of the Siconos collection (zero
/// diagonal in `A` or `B`). It converges for instance when `M` is symmetric positive definite.
/// Status: [`SolverStatus::Converged`], [`SolverStatus::MaxIterations`], or
/// [`SolverStatus::NumericalBreakdown`] (zero diagonal, or a non-finite iterate).
#[derive(Clone, Debug)]
#[doc(alias = "mlcp_pgs")]
pub struct PgsSolver {
    options: PgsOptions,
}

impl PgsSolver {
    /// Builds the solver, validating the options once.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when `tolerance` is not positive or `max_iterations` is 0.
    pub fn new(options: PgsOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options })
    }

    /// The options the solver was built with.
    pub fn options(&self) -> &PgsOptions {
        &self.options
    }
}

impl MlcpSolver for PgsSolver {
    fn solve(&mut self, problem: &MlcpProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        problem.check_len("z", z.len())?;
        problem.check_len("w", w.len())?;
        if z.iter().any(|v| !v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "mlcp warm start z" });
        }
        let tolerance = self.options.tolerance;
        let dense = DenseMlcp::new(problem, "PGS on a sparse MLCP", self.options.max_dense_bytes)?;
        let size = dense.size();
        let mat = &dense.mat;
        let mut residual = problem.compute_error(z, w)?;
        if residual <= tolerance {
            return Ok(SolverReport::new(SolverStatus::Converged, 0, residual));
        }
        if (0..size).any(|i| mat[(i, i)].abs() < f64::EPSILON) {
            return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, 0, residual));
        }
        let mut iterations = 0;
        while iterations < self.options.max_iterations {
            iterations += 1;
            for pass_comp in [false, true] {
                for i in (0..size).filter(|&i| dense.comp[i] == pass_comp) {
                    let mut s = dense.q[i];
                    for (j, &zj) in z.iter().enumerate() {
                        if j != i {
                            s += mat[(i, j)] * zj;
                        }
                    }
                    let zi = -s / mat[(i, i)];
                    z[i] = if pass_comp { zi.max(0.0) } else { zi };
                }
            }
            residual = problem.compute_error(z, w)?;
            if !residual.is_finite() {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, iterations, residual));
            }
            if residual <= tolerance {
                return Ok(SolverReport::new(SolverStatus::Converged, iterations, residual));
            }
        }
        Ok(SolverReport::new(SolverStatus::MaxIterations, iterations, residual))
    }

    fn name(&self) -> &'static str {
        "pgs"
    }
}
