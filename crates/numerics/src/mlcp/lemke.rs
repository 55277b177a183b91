//! The MLCP reduced to an LCP by the Schur complement of `A`, solved by Lemke's method
//! (Siconos `mlcp_lcp_lemke`, numerics/src/MLCP/mlcp_lcp_lemke.c with mlcp_to_lcp.c).

use super::dense::{DenseMlcp, Lu};
use super::{MlcpProblem, MlcpSolver};
use crate::lcp::{LcpProblem, LcpSolver, LemkeOptions, LemkeSolver};
use crate::matrix::NumericsMatrix;
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};
use faer::Mat;

/// Options of [`SchurLemkeSolver`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SchurLemkeOptions {
    /// Residual accepted as converged, measured by [`MlcpProblem::compute_error`] on the MLCP
    /// (default: `1e-10`).
    pub tolerance: f64,
    /// Options of the Lemke solver of the reduced LCP (default: [`LemkeOptions::default`], whose
    /// tolerance [`SchurLemkeOptions::with_tolerance`] also sets).
    pub lemke: LemkeOptions,
}

impl Default for SchurLemkeOptions {
    fn default() -> Self {
        Self { tolerance: 1e-10, lemke: LemkeOptions::default() }
    }
}

impl SchurLemkeOptions {
    /// Sets [`SchurLemkeOptions::tolerance`] and the tolerance of the inner Lemke solver.
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self.lemke = self.lemke.with_tolerance(tolerance);
        self
    }

    /// Sets the pivot cap of the inner Lemke solver.
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.lemke = self.lemke.with_max_iterations(max_iterations);
        self
    }

    /// Sets [`SchurLemkeOptions::lemke`].
    pub fn with_lemke(mut self, lemke: LemkeOptions) -> Self {
        self.lemke = lemke;
        self
    }
}

/// MLCP solver by reduction to an LCP (Siconos `mlcp_lcp_lemke`). With `M = [[A, C], [D, B]]`,
/// `q = (a, b)` (`A` on the equality unknowns `u`, `B` on the complementarity unknowns `v`;
/// taken from the row blocks of the whole-matrix form, or from the block form), and **`A`
/// nonsingular**, the equalities give `u = −A⁻¹(C v + a)`, and `v` solves the LCP
///
/// `0 ≤ v ⊥ (B − D A⁻¹ C) v + (b − D A⁻¹ a) ≥ 0`,
///
/// solved by [`LemkeSolver`] (lexicographic Lemke). `A` is factorized by LU with partial
/// pivoting. `iterations` are Lemke's pivots; the warm start is ignored.
///
/// Status: [`SolverStatus::Converged`] iff the MLCP residual is at or below the tolerance;
/// otherwise the LCP solver's status when it failed (e.g. [`SolverStatus::RayTermination`]),
/// or [`SolverStatus::NumericalBreakdown`] when the LCP was solved but the MLCP residual is
/// above the tolerance (accuracy lost in the Schur complement).
#[derive(Clone, Debug)]
#[doc(alias = "mlcp_lcp_lemke")]
pub struct SchurLemkeSolver {
    options: SchurLemkeOptions,
    lemke: LemkeSolver,
    lu: Lu,
    scratch: Vec<f64>,
}

impl SchurLemkeSolver {
    /// Builds the solver, validating the options once.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when `tolerance` is not positive or the Lemke options
    /// are invalid.
    pub fn new(options: SchurLemkeOptions) -> Result<Self, NumericsError> {
        options::positive("tolerance", options.tolerance)?;
        let lemke = LemkeSolver::new(options.lemke.clone())?;
        Ok(Self { options, lemke, lu: Lu::default(), scratch: Vec::new() })
    }

    /// The options the solver was built with.
    pub fn options(&self) -> &SchurLemkeOptions {
        &self.options
    }
}

impl MlcpSolver for SchurLemkeSolver {
    /// # Errors
    /// Besides the dimension checks, [`NumericsError::Singular`] when `A` is (numerically)
    /// singular (a pivot at or below `n ε max|A_ij|`): the reduction does not exist (Siconos:
    /// "mlcp_to_lcp conversion failed", info 1), and [`NumericsError::InvalidInput`] for a
    /// rectangular MLCP.
    fn solve(&mut self, problem: &MlcpProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        problem.check_len("z", z.len())?;
        problem.check_len("w", w.len())?;
        let dense = DenseMlcp::new(
            problem,
            "Lemke on the Schur complement of a sparse MLCP",
            self.options.lemke.max_dense_bytes,
        )?;
        let size = dense.size();
        let eq: Vec<usize> = (0..size).filter(|&j| !dense.comp[j]).collect();
        let co: Vec<usize> = (0..size).filter(|&j| dense.comp[j]).collect();
        let (ne, nc) = (eq.len(), co.len());
        let mat = &dense.mat;
        // X = A⁻¹ C (column k for complementarity unknown co[k]) and y = A⁻¹ a.
        let mut x_cols = vec![0.0; ne * nc];
        let mut y: Vec<f64> = eq.iter().map(|&i| dense.q[i]).collect();
        if ne > 0 {
            if !self.lu.factor(ne, |i, j| mat[(eq[i], eq[j])]) {
                return Err(NumericsError::Singular { what: "mlcp block A (equality rows and columns)" });
            }
            self.lu.solve(&mut y, &mut self.scratch);
            for (k, &c) in co.iter().enumerate() {
                let col = &mut x_cols[k * ne..(k + 1) * ne];
                for (i, &r) in eq.iter().enumerate() {
                    col[i] = mat[(r, c)];
                }
                self.lu.solve(col, &mut self.scratch);
            }
        }
        let (mut v, mut iterations, mut lcp_status) = (vec![0.0; nc], 0, SolverStatus::Converged);
        if nc > 0 {
            // B − D X and b − D y.
            let schur = Mat::from_fn(nc, nc, |i, k| {
                let col = &x_cols[k * ne..(k + 1) * ne];
                let dx: f64 = eq.iter().zip(col).map(|(&j, &xj)| mat[(co[i], j)] * xj).sum();
                mat[(co[i], co[k])] - dx
            });
            let rhs: Vec<f64> = co
                .iter()
                .map(|&r| dense.q[r] - eq.iter().zip(&y).map(|(&j, &yj)| mat[(r, j)] * yj).sum::<f64>())
                .collect();
            if schur.col_iter().any(|c| c.iter().any(|e| !e.is_finite())) || rhs.iter().any(|e| !e.is_finite()) {
                return Err(NumericsError::Singular { what: "mlcp block A (equality rows and columns)" });
            }
            let lcp = LcpProblem::new(NumericsMatrix::Dense(schur), rhs)?;
            let mut wv = vec![0.0; nc];
            let report = self.lemke.solve(&lcp, &mut v, &mut wv)?;
            iterations = report.iterations;
            lcp_status = report.status;
        }
        // u = −(X v + y).
        for (i, &r) in eq.iter().enumerate() {
            let xv: f64 = (0..nc).map(|k| x_cols[k * ne + i] * v[k]).sum();
            z[r] = -(xv + y[i]);
        }
        for (k, &c) in co.iter().enumerate() {
            z[c] = v[k];
        }
        let residual = problem.compute_error(z, w)?;
        let status = if residual <= self.options.tolerance {
            SolverStatus::Converged
        } else if lcp_status != SolverStatus::Converged {
            lcp_status
        } else {
            SolverStatus::NumericalBreakdown
        };
        Ok(SolverReport::new(status, iterations, residual))
    }

    fn name(&self) -> &'static str {
        "lemke"
    }
}
