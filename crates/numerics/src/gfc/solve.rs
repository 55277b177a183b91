//! Solving the global frictional contact problem by condensation onto the local problem (Siconos'
//! "wr" solvers, `numerics/src/FrictionContact/gfc3d_nsgs_wr.c` and `gfc3d_solvers_wr.c`:
//! reformulate, solve the local problem, recover the global velocity).

use std::any::Any;

use super::condense::DelassusStorage;
use super::problem::GlobalFcProblem;
use crate::fc::nsgs::NsgsOptions;
use crate::fc::problem::{check_finite, check_len};
use crate::fc::{Fc2dMethod, Fc2dProblem, Fc3dMethod, Fc3dProblem};
use crate::{NumericsError, SolverReport, SolverStatus, options};

/// Options of [`GlobalFcSolver`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GlobalFcOptions {
    /// Global error ([`GlobalFcProblem::compute_error`]) accepted as converged (default: `1e-4`,
    /// Siconos' `gfc3d_nsgs_wr` default). Positive and finite.
    pub tolerance: f64,
    /// The local solver for `D = 3` (default: [`Fc3dMethod::Nsgs`] with default options, at
    /// most 10 000 sweeps).
    pub fc3d_method: Fc3dMethod,
    /// The local solver for `D = 2` (default: [`Fc2dMethod::default`], NSGS on the sparse `W`).
    pub fc2d_method: Fc2dMethod,
    /// Storage of the Delassus matrix (default: [`DelassusStorage::Auto`]).
    pub delassus_storage: DelassusStorage,
    /// Largest dense Delassus matrix `W` (`8 (D·nc)²` bytes) the condensation builds; above it
    /// [`DelassusStorage::Auto`] stores `W` sparse-block and [`DelassusStorage::Dense`] makes the
    /// solve fail with [`NumericsError::DenseTooLarge`] (default:
    /// [`crate::DEFAULT_MAX_DENSE_BYTES`], 1 GiB).
    pub max_dense_bytes: u64,
    /// Extra local solves allowed when the local solver converged but the global error is still
    /// above `tolerance` (the two errors are normalized differently); each one divides the
    /// local tolerance by `10 · global error / tolerance` and restarts from the current
    /// reactions (default: `4`).
    pub max_refinements: usize,
}

impl Default for GlobalFcOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-4,
            fc3d_method: Fc3dMethod::Nsgs(NsgsOptions::default().with_max_iterations(10_000)),
            fc2d_method: Fc2dMethod::default(),
            delassus_storage: DelassusStorage::Auto,
            max_dense_bytes: crate::DEFAULT_MAX_DENSE_BYTES,
            max_refinements: 4,
        }
    }
}

impl GlobalFcOptions {
    /// Sets [`GlobalFcOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`GlobalFcOptions::fc3d_method`].
    pub fn with_fc3d_method(mut self, method: Fc3dMethod) -> Self {
        self.fc3d_method = method;
        self
    }

    /// Sets [`GlobalFcOptions::fc2d_method`].
    pub fn with_fc2d_method(mut self, method: Fc2dMethod) -> Self {
        self.fc2d_method = method;
        self
    }

    /// Sets [`GlobalFcOptions::max_dense_bytes`], and the limit of the local FC2D method's
    /// dense reformulation ([`Fc2dMethod::with_max_dense_bytes`]).
    pub fn with_max_dense_bytes(mut self, max_dense_bytes: u64) -> Self {
        self.max_dense_bytes = max_dense_bytes;
        self.fc2d_method = self.fc2d_method.with_max_dense_bytes(max_dense_bytes);
        self
    }

    /// Sets [`GlobalFcOptions::delassus_storage`].
    pub fn with_delassus_storage(mut self, storage: DelassusStorage) -> Self {
        self.delassus_storage = storage;
        self
    }

    /// Sets [`GlobalFcOptions::max_refinements`].
    pub fn with_max_refinements(mut self, max_refinements: usize) -> Self {
        self.max_refinements = max_refinements;
        self
    }
}

/// Solver of the global frictional contact problem `M v = q + H r`, `u = Hᵀ v + b`,
/// `K_α ∋ r_α ⊥ û_α ∈ K_α*` by condensation (Siconos `SICONOS_GLOBAL_FRICTION_3D_NSGS_WR` and
/// the other "wr" solvers).
///
/// Steps: [`GlobalFcProblem::condense_with`] (factorize `M`, `W = Hᵀ M⁻¹ H`,
/// `q_loc = Hᵀ M⁻¹ q + b`); solve the local problem from the incoming `r` (warm start) with
/// [`GlobalFcOptions::fc3d_method`] (`D = 3`) or [`GlobalFcOptions::fc2d_method`] (`D = 2`), at
/// local tolerance `tolerance`; recover `v = M⁻¹ (q + H r)` and `u = Hᵀ v + b`; measure the
/// global error [`GlobalFcProblem::compute_error`]. When the local solver converged but the
/// global error exceeds `tolerance`, the local tolerance is lowered and the local problem solved
/// again from the current `r`, at most `max_refinements` times.
///
/// The report's residual is the global error at the returned `(r, u, v)`; `iterations` sums the
/// local solver's iterations. Status: `Converged` iff that error is `≤ tolerance`; otherwise the
/// local solver's status when it did not converge, or `Stalled` when it did but the refinements
/// did not bring the global error down. With no contact the problem is `M v = q`: `v` is solved
/// for and the status depends on the equilibrium error alone (0 iterations).
#[derive(Debug)]
#[doc(alias = "gfc3d_nsgs_wr")]
pub struct GlobalFcSolver {
    options: GlobalFcOptions,
}

impl GlobalFcSolver {
    /// Builds the solver, validating the options (those of the local methods too).
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when `tolerance` is not positive and finite, or a local
    /// method's option is invalid.
    pub fn new(options: GlobalFcOptions) -> Result<Self, NumericsError> {
        options::positive_finite("tolerance", options.tolerance)?;
        options.fc3d_method.clone().build()?;
        options.fc2d_method.clone().build()?;
        Ok(Self { options })
    }

    /// The options.
    pub fn options(&self) -> &GlobalFcOptions {
        &self.options
    }

    /// Solves `problem`: `r` (length `D·nc`) is the warm start on entry and the reactions on
    /// exit; `u` (`D·nc`) and `v` (`n`) are overwritten with the local and global velocities.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] for wrong lengths, [`NumericsError::NonFinite`] for
    /// a non-finite warm start, [`NumericsError::Singular`] when `M` is singular,
    /// [`NumericsError::DenseTooLarge`] when a dense `W` (or the local method's dense
    /// reformulation) exceeds its limit. Non-convergence is a status of the report.
    pub fn solve<const D: usize>(
        &mut self,
        problem: &GlobalFcProblem<D>,
        r: &mut [f64],
        u: &mut [f64],
        v: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        check_len("gfc reaction r", r, problem.size())?;
        check_len("gfc local velocity u", u, problem.size())?;
        check_len("gfc global velocity v", v, problem.velocity_size())?;
        check_finite("gfc reaction r (warm start)", r)?;
        let tolerance = self.options.tolerance;
        // A dense `W` above the limit: `Auto` falls back to sparse-block, an explicit `Dense` is
        // refused.
        let mut storage = self.options.delassus_storage;
        if problem.dense_delassus(storage) {
            let n = problem.size();
            let fits = crate::options::dense_fits(
                "the condensation's dense Delassus matrix",
                n,
                n,
                self.options.max_dense_bytes,
                "DelassusStorage::SparseBlock",
            );
            match (fits, storage) {
                (Ok(()), _) => {}
                (Err(_), DelassusStorage::Auto) => storage = DelassusStorage::SparseBlock,
                (Err(e), _) => return Err(e),
            }
        }
        let condensed = problem.condense_with(storage)?;
        let Some(local) = condensed.local() else {
            condensed.global_velocity(r, v)?;
            let residual = problem.compute_error(r, u, v)?;
            let status = if residual <= tolerance { SolverStatus::Converged } else { SolverStatus::NumericalBreakdown };
            return Ok(SolverReport::new(status, 0, residual));
        };
        let mut local_tolerance = tolerance;
        let mut iterations = 0;
        let mut refinements = 0;
        loop {
            let report = self.solve_local(local, local_tolerance, r, u)?;
            iterations += report.iterations;
            condensed.global_velocity(r, v)?;
            let residual = problem.compute_error(r, u, v)?;
            if residual <= tolerance {
                return Ok(SolverReport::new(SolverStatus::Converged, iterations, residual));
            }
            if !report.is_converged() {
                return Ok(SolverReport::new(report.status, iterations, residual));
            }
            if refinements == self.options.max_refinements || !residual.is_finite() {
                return Ok(SolverReport::new(SolverStatus::Stalled, iterations, residual));
            }
            refinements += 1;
            local_tolerance = (local_tolerance * tolerance / (10.0 * residual)).max(f64::EPSILON);
        }
    }

    /// Solves the local problem at `tolerance` from `r`; `u` receives `W r + q_loc`.
    fn solve_local<const D: usize>(
        &self,
        local: &crate::fc::LocalFcProblem<D>,
        tolerance: f64,
        r: &mut [f64],
        u: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        let local: &dyn Any = local;
        if let Some(p3) = local.downcast_ref::<Fc3dProblem>() {
            let mut solver = self.options.fc3d_method.clone().with_tolerance(tolerance).build()?;
            solver.solve(p3, r, u)
        } else if let Some(p2) = local.downcast_ref::<Fc2dProblem>() {
            let mut solver = self.options.fc2d_method.clone().with_tolerance(tolerance).build()?;
            solver.solve(p2, r, u)
        } else {
            // GlobalFcProblem::new admits only D = 2 and D = 3.
            Err(NumericsError::InvalidInput {
                what: "global frictional contact solver",
                reason: format!("contact dimension {D} is neither 2 nor 3"),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfc::{GlobalFc2dProblem, GlobalFc3dProblem};
    use crate::matrix::NumericsMatrix;
    use faer::Mat;

    fn diag(d: &[f64]) -> NumericsMatrix {
        NumericsMatrix::Dense(Mat::from_fn(d.len(), d.len(), |i, j| if i == j { d[i] } else { 0.0 }))
    }

    #[test]
    fn a_local_method_with_a_zero_iteration_cap_is_refused() {
        for name in Fc3dMethod::NAMES {
            let method = Fc3dMethod::from_name(name, None, Some(0)).expect("a listed name");
            let err = GlobalFcSolver::new(GlobalFcOptions::default().with_fc3d_method(method)).expect_err("invalid");
            assert!(matches!(err, NumericsError::InvalidOption { name: "max_iterations", .. }), "{name}: {err}");
        }
        for name in Fc2dMethod::NAMES {
            let method = Fc2dMethod::from_name(name, None, Some(0)).expect("a listed name");
            let err = GlobalFcSolver::new(GlobalFcOptions::default().with_fc2d_method(method)).expect_err("invalid");
            assert!(matches!(err, NumericsError::InvalidOption { name: "max_iterations", .. }), "{name}: {err}");
        }
    }

    #[test]
    fn solves_a_two_body_3d_problem() {
        // Two bodies (3 dofs each) pushed into the ground (contact 0, 1) and against each other.
        let m = diag(&[1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
        let h = NumericsMatrix::Dense(Mat::from_fn(6, 9, |i, j| match (i, j) {
            (0, 0) | (1, 1) | (2, 2) | (3, 3) | (4, 4) | (5, 5) => 1.0,
            (3, 6) | (4, 7) | (5, 8) => 1.0,
            (0, 6) | (1, 7) | (2, 8) => -1.0,
            _ => 0.0,
        }));
        let q = vec![-1.0, 0.2, 0.0, -2.0, -0.5, 0.1];
        let p = GlobalFc3dProblem::new(m, h, q, vec![0.0; 9], vec![0.3, 0.5, 0.2]).expect("valid");
        let mut solver = GlobalFcSolver::new(GlobalFcOptions::default().with_tolerance(1e-10)).expect("options");
        let (mut r, mut u, mut v) = (vec![0.0; 9], vec![0.0; 9], vec![0.0; 6]);
        let report = solver.solve(&p, &mut r, &mut u, &mut v).expect("sizes match");
        assert!(report.is_converged(), "{report:?}");
        let check = p.compute_error(&r, &mut u, &v).expect("sizes match");
        assert!(check <= 1e-10 && (check - report.residual).abs() <= 1e-15);
    }

    #[test]
    fn two_d_problem_and_no_contact() {
        let p = GlobalFc2dProblem::new(diag(&[1.0, 3.0]), diag(&[1.0, 1.0]), vec![-1.0, 2.0], vec![0.0; 2], vec![0.4])
            .expect("valid");
        let mut solver = GlobalFcSolver::new(GlobalFcOptions::default().with_tolerance(1e-12)).expect("options");
        let (mut r, mut u, mut v) = (vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]);
        let report = solver.solve(&p, &mut r, &mut u, &mut v).expect("sizes match");
        assert!(report.is_converged() && report.residual <= 1e-12, "{report:?}");
        // Sliding: u_T > 0 so r_T = −μ r_N, u_N = 0 so r_N = 1.
        assert!((r[0] - 1.0).abs() <= 1e-12 && (r[1] + 0.4).abs() <= 1e-12, "{r:?}");

        let p = GlobalFc2dProblem::new(
            diag(&[2.0, 4.0]),
            NumericsMatrix::Dense(Mat::zeros(2, 0)),
            vec![2.0, 2.0],
            vec![],
            vec![],
        )
        .expect("valid");
        let (mut r, mut u, mut v) = (vec![], vec![], vec![0.0; 2]);
        let report = solver.solve(&p, &mut r, &mut u, &mut v).expect("sizes match");
        assert!(report.is_converged() && report.iterations == 0);
        assert!((v[0] - 1.0).abs() <= 1e-15 && (v[1] - 0.5).abs() <= 1e-15);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        assert!(matches!(
            GlobalFcSolver::new(GlobalFcOptions::default().with_tolerance(0.0)),
            Err(NumericsError::InvalidOption { name: "tolerance", .. })
        ));
        let p = GlobalFc2dProblem::new(diag(&[1.0, 3.0]), diag(&[1.0, 1.0]), vec![-1.0, 2.0], vec![0.0; 2], vec![0.4])
            .expect("valid");
        let mut solver = GlobalFcSolver::new(GlobalFcOptions::default()).expect("options");
        let (mut u, mut v) = (vec![0.0; 2], vec![0.0; 2]);
        assert!(matches!(
            solver.solve(&p, &mut [0.0; 3], &mut u, &mut v),
            Err(NumericsError::DimensionMismatch { .. })
        ));
        assert!(matches!(solver.solve(&p, &mut [f64::NAN, 0.0], &mut u, &mut v), Err(NumericsError::NonFinite { .. })));
    }
}
