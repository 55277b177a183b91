//! Block Gauss–Seidel for the mixed mechanical problem (Siconos
//! `SICONOS_GENERIC_MECHANICAL_NSGS`, `gmp_gauss_seidel` in
//! `numerics/src/GenericMechanical/GenericMechanical_driver.c`).
//!
//! # Algorithm
//!
//! One sweep visits the blocks in order. For block `i` it forms the local vector
//! `q̃_i = q_i + Σ_{j≠i} M_ij z_j` from the current `z` (the blocks before `i` already updated
//! in this sweep) and solves the block's local problem `w_i = M_ii z_i + q̃_i` with the law's
//! own solver:
//! - equality: `z_i = −M_ii⁻¹ q̃_i` (LU with partial pivoting of `M_ii`, factored once per
//!   solve);
//! - complementarity: the LCP `0 ≤ z_i ⊥ M_ii z_i + q̃_i ≥ 0` as Siconos' LCP driver solves it:
//!   `z_i = 0` when `q̃_i ≥ 0`, the closed form `z_i = −q̃_i / M_ii` for one unknown, else
//!   Lemke's method ([`crate::lcp::LemkeSolver`], Siconos' default local solver);
//! - FC3D: `z_i = 0` when `q̃_N ≥ −ε` (the trivial case of Siconos' `fc3d_driver`), else the exact
//!   one-contact enumeration ([`crate::fc::local::solve_quartic`], Siconos' default
//!   `SICONOS_FRICTION_3D_ONECONTACT_QUARTIC`);
//! - FC2D: the one-contact FC2D problem with the default FC2D solver
//!   ([`crate::fc::Fc2dMethod`]).
//!
//! After each sweep the error [`MixedProblem::compute_error`] is measured (it also sets
//! `w = M z + q`); the iteration stops when it is at or below the tolerance, or at the
//! iteration cap. The first sweep always runs (Siconos has no trivial-solution test here).
//!
//! References: M. Jean, J. J. Moreau, "Unilaterality and dry friction in the dynamics of rigid
//! body collections", 1992 (nonsmooth Gauss–Seidel); V. Acary, B. Brogliato, *Numerical
//! Methods for Nonsmooth Dynamical Systems*, Springer, 2008, chapter 13.

use faer::Mat;
use faer::linalg::solvers::{PartialPivLu, SolveCore as _};

use super::compute_error::NAN_ERROR;
use super::problem::{BlockKind, MixedProblem};
use crate::fc::local::{OneContactProblem, QuarticOptions, solve_quartic};
use crate::fc::{Fc2dMethod, Fc2dProblem, Fc2dSolver};
use crate::lcp::{LcpProblem, LcpSolver, LemkeOptions, LemkeSolver};
use crate::matrix::NumericsMatrix;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Options of [`GmpNsgsSolver`]; the defaults are Siconos 4.4's
/// (`solver_options_create(SICONOS_GENERIC_MECHANICAL_NSGS)`).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GmpNsgsOptions {
    /// Maximum number of sweeps (default: `10_000`).
    pub max_iterations: usize,
    /// Error accepted as converged, see [`MixedProblem::compute_error`] (default: `1e-4`).
    pub tolerance: f64,
    /// Options of Lemke's method on complementarity blocks of more than one unknown (default:
    /// [`LemkeOptions::default`]).
    pub lemke: LemkeOptions,
    /// Options of the exact one-contact FC3D solver (default: [`QuarticOptions::default`]).
    pub quartic: QuarticOptions,
}

impl Default for GmpNsgsOptions {
    fn default() -> Self {
        Self {
            max_iterations: 10_000,
            tolerance: 1e-4,
            lemke: LemkeOptions::default(),
            quartic: QuarticOptions::default(),
        }
    }
}

impl GmpNsgsOptions {
    /// These options with the tolerance `tolerance`.
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// These options with the iteration cap `max_iterations`.
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        crate::options::positive_finite("tolerance", self.tolerance)?;
        crate::options::at_least_one("max_iterations", self.max_iterations)?;
        crate::options::positive_finite("quartic.tolerance", self.quartic.tolerance)?;
        Ok(())
    }
}

/// Block Gauss–Seidel solver of the [`MixedProblem`] (see the [module documentation](self)).
#[doc(alias = "gmp_gauss_seidel")]
#[doc(alias = "SICONOS_GENERIC_MECHANICAL_NSGS")]
pub struct GmpNsgsSolver {
    options: GmpNsgsOptions,
    lemke: LemkeSolver,
    fc2d: Box<dyn Fc2dSolver + Send>,
}

/// What one solve keeps between sweeps: the LU factors of the equality blocks and the scratch
/// vectors.
struct Workspace {
    /// LU of `M_ii` for each equality block (`None` for the other laws).
    lu: Vec<Option<PartialPivLu<f64>>>,
    local_q: Vec<f64>,
    rhs: Mat<f64>,
}

impl GmpNsgsSolver {
    /// Builds the solver, validating the options once.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for a tolerance that is not positive and finite, a zero
    /// iteration cap, or invalid local-solver options.
    pub fn new(options: GmpNsgsOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        let lemke = LemkeSolver::new(options.lemke.clone())?;
        let fc2d = Fc2dMethod::from_name(Fc2dMethod::DEFAULT_NAME, None, None)
            .ok_or(NumericsError::InvalidOption { name: "fc2d", reason: "no default FC2D solver" })?
            .build()?;
        Ok(Self { options, lemke, fc2d })
    }

    /// The options.
    pub fn options(&self) -> &GmpNsgsOptions {
        &self.options
    }

    /// Solves `problem`: `z` is the warm start on entry and the solution on exit; `w` receives
    /// `M z + q`. The report's residual is [`MixedProblem::compute_error`] at the returned `z`;
    /// its status is [`SolverStatus::Converged`] when that is at or below the tolerance,
    /// [`SolverStatus::MaxIterations`] at the cap, [`SolverStatus::NumericalBreakdown`] when an
    /// iterate is not finite (the residual is then 10, as Siconos reports it).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `z` or `w` does not have the problem's size;
    /// [`NumericsError::NonFinite`] for a non-finite warm start; [`NumericsError::Singular`]
    /// when an equality block `M_ii` is singular.
    pub fn solve(
        &mut self,
        problem: &MixedProblem,
        z: &mut [f64],
        w: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        problem.check_vectors(z, w)?;
        if !crate::matrix::all_finite(z) {
            return Err(NumericsError::NonFinite { what: "mixed problem warm start z" });
        }
        let mut ws = self.workspace(problem)?;
        let mut error = f64::INFINITY;
        for sweep in 1..=self.options.max_iterations {
            for i in 0..problem.blocks().len() {
                self.solve_block(problem, i, z, w, &mut ws)?;
            }
            error = problem.error_into(z, w, &mut ws.local_q);
            if !(crate::matrix::all_finite(z) && crate::matrix::all_finite(w)) {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, sweep, NAN_ERROR));
            }
            if error <= self.options.tolerance {
                return Ok(SolverReport::new(SolverStatus::Converged, sweep, error));
            }
        }
        Ok(SolverReport::new(SolverStatus::MaxIterations, self.options.max_iterations, error))
    }

    /// Factors the equality blocks and sizes the scratch vectors.
    fn workspace(&self, problem: &MixedProblem) -> Result<Workspace, NumericsError> {
        let mut lu = Vec::with_capacity(problem.blocks().len());
        for (i, kind) in problem.blocks().iter().enumerate() {
            lu.push(match kind {
                BlockKind::Equality => {
                    let b = problem.m().row_block_size(i);
                    let diag = problem.m().diagonal_block(i).unwrap_or(&[]);
                    let a = Mat::from_fn(b, b, |r, c| diag[c * b + r]);
                    let f = PartialPivLu::new(a.as_ref());
                    // A zero pivot of U makes the block singular.
                    let u = f.U();
                    if (0..b).any(|k| u[(k, k)] == 0.0 || !u[(k, k)].is_finite()) {
                        return Err(NumericsError::Singular { what: "an equality block of the mixed problem" });
                    }
                    Some(f)
                }
                _ => None,
            });
        }
        let n = problem.max_block_size();
        Ok(Workspace { lu, local_q: vec![0.0; n], rhs: Mat::zeros(n, 1) })
    }

    /// Solves the local problem of block `i` from the current `z`.
    fn solve_block(
        &mut self,
        problem: &MixedProblem,
        i: usize,
        z: &mut [f64],
        w: &mut [f64],
        ws: &mut Workspace,
    ) -> Result<(), NumericsError> {
        let range = problem.range(i);
        let b = range.len();
        let ql = &mut ws.local_q[..b];
        ql.copy_from_slice(&problem.q()[range.clone()]);
        problem.m().row_product(i, z, ql, false);
        let diag = problem.m().diagonal_block(i).unwrap_or(&[]);
        match problem.blocks()[i] {
            BlockKind::Equality => {
                let lu = ws.lu[i].as_ref().ok_or(NumericsError::Singular { what: "an equality block" })?;
                let mut rhs = ws.rhs.as_mut().subrows_mut(0, b);
                for k in 0..b {
                    rhs[(k, 0)] = -ql[k];
                }
                lu.solve_in_place_with_conj(faer::Conj::No, rhs.as_mut());
                for k in 0..b {
                    z[range.start + k] = rhs[(k, 0)];
                }
            }
            BlockKind::Complementarity => {
                let (zi, wi) = (&mut z[range.clone()], &mut w[range.clone()]);
                if ql.iter().all(|v| *v >= 0.0) {
                    zi.fill(0.0);
                    wi.copy_from_slice(ql);
                } else if b == 1 {
                    zi[0] = -ql[0] / diag[0];
                    wi[0] = 0.0;
                } else {
                    let m = Mat::from_fn(b, b, |r, c| diag[c * b + r]);
                    let lcp = LcpProblem::new(NumericsMatrix::Dense(m), ql.to_vec())?;
                    // A local failure (a ray) leaves Lemke's last point; the sweep goes on, as in
                    // Siconos, and the global error decides.
                    self.lemke.solve(&lcp, zi, wi)?;
                }
            }
            BlockKind::Fc3d { mu } => {
                let zi = &mut z[range.clone()];
                if ql[0] >= -f64::EPSILON {
                    zi.fill(0.0);
                } else {
                    let wl = [[diag[0], diag[3], diag[6]], [diag[1], diag[4], diag[7]], [diag[2], diag[5], diag[8]]];
                    let local = OneContactProblem::new(wl, [ql[0], ql[1], ql[2]], mu)?;
                    let mut r = [zi[0], zi[1], zi[2]];
                    if !r.iter().all(|v| v.is_finite()) {
                        r = [0.0; 3];
                    }
                    solve_quartic(&local, &mut r, &self.options.quartic)?;
                    zi.copy_from_slice(&r);
                }
            }
            BlockKind::Fc2d { mu } => {
                let m = Mat::from_fn(2, 2, |r, c| diag[c * 2 + r]);
                let fc = Fc2dProblem::new(NumericsMatrix::Dense(m), ql.to_vec(), vec![mu])?;
                let (zi, wi) = (&mut z[range.clone()], &mut w[range]);
                self.fc2d.solve(&fc, zi, wi)?;
            }
        }
        Ok(())
    }
}
