//! Projected Gauss–Seidel for the relay problem (Siconos `relay_pgs`,
//! numerics/src/Relay/relay_pgs.c, Siconos 4.4).

use super::{RelayProblem, RelaySolver};
use crate::matrix::NumericsMatrix;
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Options of [`PgsSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PgsOptions {
    /// Maximum number of sweeps (default: `10_000`, what Siconos 4.4's
    /// `solver_options_create(SICONOS_RELAY_PGS)` sets). Must be at least 1.
    pub max_iterations: usize,
    /// Residual of [`RelayProblem::compute_error`] accepted as converged (default: `1e-6`,
    /// Siconos 4.4's default for `SICONOS_RELAY_PGS`). Must be positive and finite.
    pub tolerance: f64,
}

impl Default for PgsOptions {
    fn default() -> Self {
        Self { max_iterations: 10_000, tolerance: 1e-6 }
    }
}

impl PgsOptions {
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
        options::positive_finite("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        Ok(())
    }
}

/// Projected Gauss–Seidel solver of the relay problem (Siconos `relay_pgs`): one sweep
/// updates, for `i = 0, …, n−1` in order and with the newest values of the other components,
///
/// `z_i ← P_[lb_i, ub_i]( −(q_i + Σ_{j≠i} M_ij z_j) / M_ii )`,
///
/// i.e. `z_i ← P_[lb_i, ub_i](z_i − w_i / M_ii)` with the current `w = M z + q`.
///
/// This reproduces Siconos 4.4's `relay_pgs` operation for operation, so that a kernel using
/// it (`SimpleExampleRelay` uses `SICONOS_RELAY_PGS`) follows Siconos' trajectory:
/// - the incoming `z` is the starting point (Siconos' `relay_driver` uses the `z` it is given);
/// - the sum `Σ_j M_ij z_j` runs over `j = 0, …, n−1` in order with `z_i` set to 0 first (as
///   Siconos' `cblas_ddot` on row `i`), then `z_i = −(q_i + sum) · (1 / M_ii)` (Siconos
///   multiplies by the stored reciprocal), then the clipping tests `lb_i` first;
/// - after every sweep the error is [`RelayProblem::compute_error`] (full `w = M z + q`), and
///   the sweeps go on while `iterations < max_iterations` and `error > tolerance`, the error
///   starting at 1 (so with a tolerance ≥ 1 no sweep is done, as in Siconos);
/// - a diagonal entry with `|M_ii| < DBL_EPSILON` stops the solver before any sweep (Siconos'
///   `info = 2`): the status is [`SolverStatus::NumericalBreakdown`] with 0 iterations, unless
///   the incoming `z` already satisfies the tolerance (Siconos' driver then recomputes the
///   error and reports success). Negative diagonal entries are used as Siconos uses them.
///
/// On exit `w = M z + q` and the report's residual is [`RelayProblem::compute_error`] at the
/// returned `z`; the status is [`SolverStatus::Converged`] iff that residual is at or below the
/// tolerance, [`SolverStatus::NumericalBreakdown`] when it is not finite (Siconos' loop would
/// stop on a NaN error and report success), else [`SolverStatus::MaxIterations`].
///
/// Converges for symmetric positive definite `M` (Gauss–Seidel on a box-constrained convex
/// quadratic program). Every storage is accepted: the rows of `M` are copied once per solve
/// into a compressed-row buffer owned by the solver and reused across solves (dense matrices
/// keep every entry, so the sums are Siconos' dense dot products).
///
/// # Examples
/// ```
/// use nonsmooth_numerics::matrix::NumericsMatrix;
/// use nonsmooth_numerics::relay::{PgsOptions, PgsSolver, RelayProblem, RelaySolver};
///
/// // M = [[2, 1], [1, 2]], q = (-1, 1), box [-2, 2]²: the solution z = (1, -1) is interior, w = 0.
/// let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
/// let problem = RelayProblem::new(NumericsMatrix::Dense(m), vec![-1.0, 1.0], vec![-2.0; 2], vec![2.0; 2])?;
/// let mut solver = PgsSolver::new(PgsOptions::default().with_tolerance(1e-12))?;
/// let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
/// let report = solver.solve(&problem, &mut z, &mut w)?;
/// assert!(report.is_converged() && report.residual <= 1e-12);
/// assert!((z[0] - 1.0).abs() < 1e-11 && (z[1] + 1.0).abs() < 1e-11);
/// # Ok::<(), nonsmooth_numerics::NumericsError>(())
/// ```
#[doc(alias = "relay_pgs")]
#[doc(alias = "SICONOS_RELAY_PGS")]
#[derive(Clone, Debug)]
pub struct PgsSolver {
    options: PgsOptions,
    workspace: PgsWorkspace,
}

/// Buffers reused across solves; they grow with the problem and never shrink.
#[derive(Clone, Debug, Default)]
struct PgsWorkspace {
    /// `1 / M_ii` (the diagonal itself until checked).
    inv_diag: Vec<f64>,
    /// Compressed-row copy of `M` (rows in increasing column order).
    row_ptr: Vec<usize>,
    col_idx: Vec<usize>,
    values: Vec<f64>,
}

impl PgsSolver {
    /// Builds the solver after validating the options.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when the tolerance is not positive and finite or
    /// `max_iterations` is 0.
    pub fn new(options: PgsOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, workspace: PgsWorkspace::default() })
    }

    /// The options in use.
    pub fn options(&self) -> &PgsOptions {
        &self.options
    }
}

impl PgsWorkspace {
    /// Fills the compressed rows of `M` (a counting sort by row, stable, so each row keeps the
    /// order in which `matrix::entries::for_each_entry` visits it) and its diagonal (duplicates summed).
    fn fill(&mut self, m: &NumericsMatrix) {
        let n = m.nrows();
        let Self { inv_diag, row_ptr, col_idx, values } = self;
        inv_diag.clear();
        inv_diag.resize(n, 0.0);
        crate::matrix::entries::fill_compressed(m, true, row_ptr, col_idx, values, inv_diag);
    }

    /// One Gauss–Seidel sweep in Siconos' arithmetic (see [`PgsSolver`]).
    fn sweep(&self, q: &[f64], lb: &[f64], ub: &[f64], z: &mut [f64]) {
        for i in 0..z.len() {
            z[i] = 0.0;
            let range = self.row_ptr[i]..self.row_ptr[i + 1];
            let mut sum = 0.0;
            for (&j, &v) in self.col_idx[range.clone()].iter().zip(&self.values[range]) {
                sum += v * z[j];
            }
            let zi = -(q[i] + sum) * self.inv_diag[i];
            z[i] = if zi < lb[i] {
                lb[i]
            } else if zi > ub[i] {
                ub[i]
            } else {
                zi
            };
        }
    }
}

impl RelaySolver for PgsSolver {
    fn solve(&mut self, problem: &RelayProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        problem.check_len("relay z", z.len())?;
        problem.check_len("relay w", w.len())?;
        if z.iter().any(|v| !v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "relay warm start z" });
        }
        let tolerance = self.options.tolerance;
        let status_of = |residual: f64, otherwise: SolverStatus| {
            if residual <= tolerance {
                SolverStatus::Converged
            } else if residual.is_finite() {
                otherwise
            } else {
                SolverStatus::NumericalBreakdown
            }
        };

        self.workspace.fill(problem.m());
        // Siconos' test: |M_ii| < DBL_EPSILON cannot be divided by (info 2, no sweep).
        if self.workspace.inv_diag.iter().any(|d| d.abs() < f64::EPSILON) {
            let residual = problem.compute_error(z, w)?;
            return Ok(SolverReport::new(status_of(residual, SolverStatus::NumericalBreakdown), 0, residual));
        }
        for d in self.workspace.inv_diag.iter_mut() {
            *d = 1.0 / *d;
        }

        let mut iterations = 0;
        // Siconos starts from err = 1 and only computes the error after a sweep.
        let mut error = 1.0;
        let mut fresh = false;
        while iterations < self.options.max_iterations && error > tolerance {
            iterations += 1;
            self.workspace.sweep(problem.q(), problem.lb(), problem.ub(), z);
            error = problem.compute_error(z, w)?;
            fresh = true;
        }
        let residual = if fresh { error } else { problem.compute_error(z, w)? };
        Ok(SolverReport::new(status_of(residual, SolverStatus::MaxIterations), iterations, residual))
    }

    fn name(&self) -> &'static str {
        "pgs"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    fn dense(m: Mat<f64>, q: Vec<f64>, lb: Vec<f64>, ub: Vec<f64>) -> RelayProblem {
        RelayProblem::new(NumericsMatrix::Dense(m), q, lb, ub).expect("valid relay problem")
    }

    fn solve(p: &RelayProblem, options: PgsOptions, z0: &[f64]) -> (SolverReport, Vec<f64>, Vec<f64>) {
        let mut solver = PgsSolver::new(options).expect("valid options");
        let mut z = z0.to_vec();
        let mut w = vec![0.0; z.len()];
        let report = solver.solve(p, &mut z, &mut w).expect("sizes agree");
        (report, z, w)
    }

    #[test]
    fn one_dimensional_cases_interior_and_both_bounds() {
        // M = 2, box [-1, 1]: q = -1 gives the interior z = 0.5 in one sweep; q = -4 gives z = 1
        // (w = -2 ≤ 0 at the upper bound); q = 6 gives z = -1 (w = 4 ≥ 0 at the lower bound).
        for (q, expected, w_expected) in [(-1.0, 0.5, 0.0), (-4.0, 1.0, -2.0), (6.0, -1.0, 4.0)] {
            let p = dense(faer::mat![[2.0]], vec![q], vec![-1.0], vec![1.0]);
            let (report, z, w) = solve(&p, PgsOptions::default().with_tolerance(1e-14), &[0.0]);
            assert!(report.is_converged(), "q = {q}: {report:?}");
            assert_eq!(report.iterations, 1);
            assert!((z[0] - expected).abs() < 1e-15 && (w[0] - w_expected).abs() < 1e-15, "q = {q}: z {z:?}");
        }
    }

    #[test]
    fn two_dimensional_mixed_bounds_matches_the_hand_solution() {
        // M = [[4, 1], [1, 3]], q = (-2, 10), box [0, 1] × [-2, 2]. The solution is z = (1, -2),
        // w = (0, 5): z_2 at its lower bound with w_2 = 1 - 6 + 10 = 5 ≥ 0, and z_1 = 1 (at its
        // upper bound, degenerate) with w_1 = 4 - 2 - 2 = 0. PGS: (0.5, -2) then (1, -2).
        let p = dense(faer::mat![[4.0, 1.0], [1.0, 3.0]], vec![-2.0, 10.0], vec![0.0, -2.0], vec![1.0, 2.0]);
        let (report, z, w) = solve(&p, PgsOptions::default().with_tolerance(1e-14), &[0.0, 0.0]);
        assert!(report.is_converged() && report.residual <= 1e-14, "{report:?}");
        assert_eq!(report.iterations, 2);
        assert!((z[0] - 1.0).abs() < 1e-14 && (z[1] + 2.0).abs() < 1e-14, "{z:?}");
        assert!(w[0].abs() < 1e-13 && (w[1] - 5.0).abs() < 1e-13, "{w:?}");
        // All storages give the same iterates.
        let sparse =
            RelayProblem::new(NumericsMatrix::Sparse(p.m().to_csr()), p.q().to_vec(), p.lb().to_vec(), p.ub().to_vec())
                .expect("valid");
        let (report_s, z_s, _) = solve(&sparse, PgsOptions::default().with_tolerance(1e-14), &[0.0, 0.0]);
        assert_eq!(report_s.iterations, report.iterations);
        assert!(z_s.iter().zip(&z).all(|(a, b)| (a - b).abs() < 1e-15));
    }

    #[test]
    fn interior_coupled_problem_converges_linearly_from_a_warm_start() {
        // M = [[2, 1], [1, 2]], q = (-1, 1): interior solution z = (1, -1), w = 0.
        let p = dense(faer::mat![[2.0, 1.0], [1.0, 2.0]], vec![-1.0, 1.0], vec![-2.0; 2], vec![2.0; 2]);
        let (cold, z, _) = solve(&p, PgsOptions::default().with_tolerance(1e-12), &[0.0, 0.0]);
        assert!(cold.is_converged() && (z[0] - 1.0).abs() < 1e-11 && (z[1] + 1.0).abs() < 1e-11);
        // Warm started at the solution: one sweep (Siconos always sweeps once) and converged.
        let (warm, _, _) = solve(&p, PgsOptions::default().with_tolerance(1e-12), &[1.0, -1.0]);
        assert!(warm.is_converged() && warm.iterations == 1 && cold.iterations > 5, "{cold:?} {warm:?}");
    }

    #[test]
    fn iteration_cap_is_a_status() {
        let p = dense(faer::mat![[2.0, 1.9], [1.9, 2.0]], vec![-1.0, 1.0], vec![-10.0; 2], vec![10.0; 2]);
        let (report, _, _) = solve(&p, PgsOptions::default().with_tolerance(1e-14).with_max_iterations(3), &[0.0; 2]);
        assert_eq!(report.status, SolverStatus::MaxIterations);
        assert_eq!(report.iterations, 3);
        assert!(report.residual > 1e-14);
    }

    #[test]
    fn vanishing_diagonal_is_a_breakdown_without_sweep() {
        let p = dense(faer::mat![[0.0, 1.0], [-1.0, 1.0]], vec![1.0, -1.0], vec![-1.0; 2], vec![1.0; 2]);
        let (report, z, w) = solve(&p, PgsOptions::default(), &[0.5, 0.0]);
        assert_eq!(report.status, SolverStatus::NumericalBreakdown);
        assert_eq!(report.iterations, 0);
        assert_eq!(z, vec![0.5, 0.0]);
        // w = M z + q is still returned, and the residual measures the untouched z.
        assert!((w[0] - 1.0).abs() < 1e-15 && (w[1] + 1.5).abs() < 1e-15);
        assert!(report.residual > 0.1);
    }

    #[test]
    fn typed_errors() {
        assert!(matches!(
            PgsSolver::new(PgsOptions::default().with_tolerance(0.0)),
            Err(NumericsError::InvalidOption { name: "tolerance", .. })
        ));
        assert!(matches!(
            PgsSolver::new(PgsOptions::default().with_max_iterations(0)),
            Err(NumericsError::InvalidOption { name: "max_iterations", .. })
        ));
        let p = dense(Mat::identity(2, 2), vec![1.0, 1.0], vec![0.0; 2], vec![1.0; 2]);
        let mut solver = PgsSolver::new(PgsOptions::default()).expect("valid");
        let (mut z, mut w) = (vec![0.0; 3], vec![0.0; 2]);
        assert!(matches!(
            solver.solve(&p, &mut z, &mut w),
            Err(NumericsError::DimensionMismatch { what: "relay z", expected: 2, found: 3 })
        ));
        let mut z = vec![f64::NAN, 0.0];
        assert!(matches!(solver.solve(&p, &mut z, &mut w), Err(NumericsError::NonFinite { .. })));
    }
}
