//! Nonsmooth Gauss–Seidel (NSGS) over the contacts of a 3D frictional contact problem
//! (Siconos `fc3d_nsgs`, `numerics/src/FrictionContact/fc3d_nsgs.c`; seed
//! `000_b50ea4bc6edb00b3.txt` lines 6285-6518 for the one-contact problem each step solves).
//!
//! Integration tests: `tests/it/fc_nsgs.rs`.

#![allow(non_snake_case)]

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use sprs::CsMat;

use super::Fc3dProblem;
use super::local::{
    AlartCurnierOptions, OneContactProblem, OneContactProjectionOptions, solve_alart_curnier, solve_projection,
};
use crate::matrix::{NumericsMatrix, SparseBlockMatrix};
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

/// The one-contact solver NSGS runs on each contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum NsgsLocalSolver {
    /// Semismooth Newton on the Alart–Curnier function with the projection fallback
    /// ([`solve_alart_curnier`]; the analogue of Siconos' default local solver
    /// `SICONOS_FRICTION_3D_ONECONTACT_NSN_GP_HYBRID`) (the default).
    #[default]
    AlartCurnier,
    /// Fixed point on the cone projection ([`solve_projection`], Siconos
    /// `fc3d_projectionOnConeWithLocalIteration_solve`).
    Projection,
}

/// Options of [`NsgsSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NsgsOptions {
    /// Maximum number of sweeps over the contacts (default: 1000, Siconos' NSGS default).
    pub max_iterations: usize,
    /// Stop when [`Fc3dProblem::compute_error`] is at or below this (default: 1e-4, Siconos' NSGS
    /// default). Positive and finite.
    pub tolerance: f64,
    /// The one-contact solver (default: [`NsgsLocalSolver::AlartCurnier`]).
    pub local_solver: NsgsLocalSolver,
    /// Tolerance of the one-contact solver on [`OneContactProblem::error`] (default: 1e-14, the
    /// tolerance of Siconos' internal solver). Positive and finite.
    pub local_tolerance: f64,
    /// Iteration cap of the one-contact solver per visit of a contact (default: 10, Siconos'
    /// internal solver cap). At least 1.
    pub local_max_iterations: usize,
    /// Relaxation `ω ∈ (0, 1]`: `r_c ← ω r_c^local + (1 − ω) r_c` (default: 1, no relaxation).
    pub relaxation: f64,
    /// The full error [`Fc3dProblem::compute_error`] is evaluated (and tested) every this many
    /// sweeps, and always after the last one (default: 1, every sweep; Siconos' default instead
    /// iterates on the increment ("light") error and checks the full error only when that is
    /// small). At least 1.
    pub error_evaluation_frequency: usize,
    /// Visit the contacts in a new random order at each sweep (default: false, natural order).
    pub shuffle: bool,
    /// Seed of the shuffling generator (`StdRng::seed_from_u64`), reset at each solve
    /// (default: 0).
    pub shuffle_seed: u64,
}

impl Default for NsgsOptions {
    fn default() -> Self {
        Self {
            max_iterations: 1000,
            tolerance: 1e-4,
            local_solver: NsgsLocalSolver::AlartCurnier,
            local_tolerance: 1e-14,
            local_max_iterations: 10,
            relaxation: 1.0,
            error_evaluation_frequency: 1,
            shuffle: false,
            shuffle_seed: 0,
        }
    }
}

impl NsgsOptions {
    /// Sets [`NsgsOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`NsgsOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`NsgsOptions::local_solver`].
    pub fn with_local_solver(mut self, local_solver: NsgsLocalSolver) -> Self {
        self.local_solver = local_solver;
        self
    }

    /// Sets [`NsgsOptions::relaxation`].
    pub fn with_relaxation(mut self, relaxation: f64) -> Self {
        self.relaxation = relaxation;
        self
    }

    /// Sets [`NsgsOptions::shuffle`] and [`NsgsOptions::shuffle_seed`].
    pub fn with_shuffle(mut self, shuffle: bool, seed: u64) -> Self {
        self.shuffle = shuffle;
        self.shuffle_seed = seed;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive_finite("tolerance", self.tolerance)?;
        options::positive_finite("local_tolerance", self.local_tolerance)?;
        options::at_least_one("local_max_iterations", self.local_max_iterations)?;
        if !(self.relaxation > 0.0 && self.relaxation <= 1.0) {
            return Err(NumericsError::InvalidOption { name: "relaxation", reason: "must lie in (0, 1]" });
        }
        options::at_least_one("error_evaluation_frequency", self.error_evaluation_frequency)?;
        Ok(())
    }
}

/// How the off-diagonal row products are taken.
#[derive(Debug)]
enum RowAccess {
    /// Dense `W` read in place.
    Dense,
    /// Sparse-block `W` with 3×3 blocks, block row `c` = contact `c`, read in place.
    Blocks,
    /// Any other storage: a CSR copy made once per solve.
    Csr(CsMat<f64>),
}

/// NSGS solver of the FC3D problem `u = W r + q`, `K_μ ∋ r_c ⊥ û_c ∈ K_μ*` for each contact
/// (Siconos `fc3d_nsgs`).
///
/// One sweep visits every contact `c` (in order, or shuffled) and, with the newest reactions,
/// forms the local problem `u_c = W_cc r_c + q_loc`, `q_loc = q_c + Σ_{d≠c} W_cd r_d`
/// (Siconos `fc3d_local_problem_compute_q`), solves it from the current `r_c` with the chosen
/// one-contact solver, and writes back `r_c ← ω r_c^local + (1 − ω) r_c`. The diagonal blocks
/// `W_cc` are extracted once per solve. The incoming `r` is the warm start.
///
/// Stopping test: the full error [`Fc3dProblem::compute_error`] (Siconos' `fc3d_compute_error`,
/// normalised by `‖q‖`) `≤ tolerance`, evaluated every `error_evaluation_frequency` sweeps
/// (Siconos' `NSGS_ERROR_EVALUATION_FULL` mode at frequency 1). The report's residual is that
/// error at the returned `r`, and `u = W r + q` on return.
///
/// Trivial case (Siconos `fc3d_checkTrivialCase` in `fc3d_driver`): when `q_N ≥ 0` for every
/// contact, `r = 0`, `u = q` is a solution; it is returned with 0 iterations.
///
/// Status: `Converged`, `MaxIterations` at the sweep cap, `NumericalBreakdown` when a diagonal
/// block has a non-positive diagonal entry (no one-contact problem can be built; reported after
/// 0 sweeps) or an iterate becomes non-finite.
#[derive(Debug)]
pub struct NsgsSolver {
    options: NsgsOptions,
    diag: Vec<[[f64; 3]; 3]>,
    order: Vec<usize>,
}

impl NsgsSolver {
    /// Builds a solver.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for a non-positive or non-finite tolerance, a zero
    /// iteration cap (local), a relaxation outside `(0, 1]` or a zero evaluation frequency.
    pub fn new(options: NsgsOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, diag: Vec::new(), order: Vec::new() })
    }

    /// The options.
    pub fn options(&self) -> &NsgsOptions {
        &self.options
    }

    /// Solves `problem` from the warm start `r`; on return `r` holds the reactions and `u = W r + q`.
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
        let n = problem.size();
        let nc = problem.number_of_contacts();
        if r.len() != n {
            return Err(NumericsError::DimensionMismatch { what: "nsgs reaction r", expected: n, found: r.len() });
        }
        if u.len() != n {
            return Err(NumericsError::DimensionMismatch { what: "nsgs velocity u", expected: n, found: u.len() });
        }
        if !r.iter().all(|v| v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "nsgs initial reaction r" });
        }
        let q = problem.q();
        let mu = problem.mu();
        if (0..nc).all(|c| q[3 * c] >= 0.0) {
            r.fill(0.0);
            let residual = problem.compute_error(r, u)?;
            return Ok(SolverReport::new(SolverStatus::Converged, 0, residual));
        }
        let W = problem.w();
        let access = match W {
            NumericsMatrix::Dense(_) => RowAccess::Dense,
            NumericsMatrix::SparseBlock(m) if contact_blocks(m, nc) => RowAccess::Blocks,
            other => RowAccess::Csr(other.to_csr()),
        };
        self.diag.clear();
        for c in 0..nc {
            let mut b = [[0.0; 3]; 3];
            match (W, &access) {
                (NumericsMatrix::SparseBlock(m), RowAccess::Blocks) => {
                    if let Some(blk) = m.diagonal_block(c) {
                        // Column-major 3×3 block.
                        for (i, row) in b.iter_mut().enumerate() {
                            for (j, v) in row.iter_mut().enumerate() {
                                *v = blk[i + 3 * j];
                            }
                        }
                    }
                }
                _ => {
                    let blk = W.diagonal_block(3 * c, 3)?;
                    for (i, row) in b.iter_mut().enumerate() {
                        for (j, v) in row.iter_mut().enumerate() {
                            *v = blk[(i, j)];
                        }
                    }
                }
            }
            self.diag.push(b);
        }
        if self.diag.iter().any(|b| (0..3).any(|i| b[i][i].is_nan() || b[i][i] <= 0.0)) {
            let residual = problem.compute_error(r, u)?;
            let status = if residual <= self.options.tolerance {
                SolverStatus::Converged
            } else {
                SolverStatus::NumericalBreakdown
            };
            return Ok(SolverReport::new(status, 0, residual));
        }
        self.order.clear();
        self.order.extend(0..nc);
        let mut rng = StdRng::seed_from_u64(self.options.shuffle_seed);
        let ac_options = AlartCurnierOptions {
            tolerance: self.options.local_tolerance,
            max_iterations: self.options.local_max_iterations,
            ..AlartCurnierOptions::default()
        };
        let proj_options = OneContactProjectionOptions {
            tolerance: self.options.local_tolerance,
            max_iterations: self.options.local_max_iterations,
            ..OneContactProjectionOptions::default()
        };
        let omega = self.options.relaxation;
        let max_it = self.options.max_iterations;
        let mut residual = f64::NAN;
        for it in 1..=max_it {
            if self.options.shuffle {
                self.order.shuffle(&mut rng);
            }
            for &c in &self.order {
                let s = 3 * c;
                let mut q_loc = [q[s], q[s + 1], q[s + 2]];
                match (W, &access) {
                    (NumericsMatrix::Dense(m), _) => {
                        for (k, ql) in q_loc.iter_mut().enumerate() {
                            let i = s + k;
                            let mut acc = 0.0;
                            for j in (0..s).chain(s + 3..n) {
                                acc += m[(i, j)] * r[j];
                            }
                            *ql += acc;
                        }
                    }
                    (NumericsMatrix::SparseBlock(m), RowAccess::Blocks) => m.row_product(c, r, &mut q_loc, false),
                    (_, RowAccess::Csr(csr)) => {
                        for (k, ql) in q_loc.iter_mut().enumerate() {
                            if let Some(row) = csr.outer_view(s + k) {
                                for (j, &v) in row.iter() {
                                    if j < s || j >= s + 3 {
                                        *ql += v * r[j];
                                    }
                                }
                            }
                        }
                    }
                    // `access` is `Blocks` only for sparse-block matrices (built above).
                    (_, RowAccess::Dense | RowAccess::Blocks) => {}
                }
                let Ok(local) = OneContactProblem::new(self.diag[c], q_loc, mu[c]) else {
                    // Non-finite q_loc: the iterates diverged.
                    let residual = problem.compute_error(r, u)?;
                    return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, residual));
                };
                let old = [r[s], r[s + 1], r[s + 2]];
                let mut rc = old;
                let solved = match self.options.local_solver {
                    NsgsLocalSolver::AlartCurnier => solve_alart_curnier(&local, &mut rc, &ac_options),
                    NsgsLocalSolver::Projection => solve_projection(&local, &mut rc, &proj_options),
                };
                if solved.is_err() || !rc.iter().all(|v| v.is_finite()) {
                    let residual = problem.compute_error(r, u)?;
                    return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, residual));
                }
                for k in 0..3 {
                    r[s + k] = omega * rc[k] + (1.0 - omega) * old[k];
                }
            }
            if it % self.options.error_evaluation_frequency == 0 || it == max_it {
                residual = problem.compute_error(r, u)?;
                if residual <= self.options.tolerance {
                    return Ok(SolverReport::new(SolverStatus::Converged, it, residual));
                }
                if !residual.is_finite() {
                    return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, residual));
                }
            }
        }
        Ok(SolverReport::new(SolverStatus::MaxIterations, max_it, residual))
    }
}

/// `true` when the sparse-block matrix has 3×3 blocks, one block row/column per contact.
fn contact_blocks(m: &SparseBlockMatrix, nc: usize) -> bool {
    m.uniform_block_size() == Some(3)
        && m.n_block_rows() == nc
        && m.n_block_cols() == nc
        && m.row_block_ends().iter().enumerate().all(|(i, &e)| e == 3 * (i + 1))
        && m.col_block_ends().iter().enumerate().all(|(i, &e)| e == 3 * (i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    fn two_contacts(storage: u8) -> Fc3dProblem {
        let w = Mat::from_fn(6, 6, |i, j| {
            if i == j {
                2.0
            } else if (i == 0 && j == 3) || (i == 3 && j == 0) {
                0.5
            } else {
                0.0
            }
        });
        let m = NumericsMatrix::Dense(w);
        let m = match storage {
            0 => m,
            1 => NumericsMatrix::Sparse(m.to_csr()),
            _ => NumericsMatrix::SparseBlock(m.to_sparse_block(&[3, 6], &[3, 6]).expect("6x6 splits in 3x3 blocks")),
        };
        Fc3dProblem::new(m, vec![-1.0, 0.3, 0.0, -2.0, 0.0, -0.1], vec![0.5, 0.3]).expect("valid problem")
    }

    #[test]
    fn options_are_validated() {
        assert!(matches!(
            NsgsSolver::new(NsgsOptions::default().with_relaxation(1.5)),
            Err(NumericsError::InvalidOption { name: "relaxation", .. })
        ));
        assert!(matches!(
            NsgsSolver::new(NsgsOptions::default().with_tolerance(0.0)),
            Err(NumericsError::InvalidOption { name: "tolerance", .. })
        ));
    }

    #[test]
    fn storages_agree_and_converge() {
        let mut sols = Vec::new();
        for storage in 0..3 {
            let p = two_contacts(storage);
            let mut s = NsgsSolver::new(NsgsOptions::default().with_tolerance(1e-12)).expect("valid options");
            let (mut r, mut u) = (vec![0.0; 6], vec![0.0; 6]);
            let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
            assert!(rep.is_converged() && rep.residual <= 1e-12, "storage {storage}: {rep:?}");
            sols.push(r);
        }
        for s in &sols[1..] {
            for (a, b) in s.iter().zip(&sols[0]) {
                assert!((a - b).abs() < 1e-10);
            }
        }
    }

    #[test]
    fn trivial_case_and_bad_sizes() {
        let p = Fc3dProblem::new(NumericsMatrix::Dense(Mat::identity(3, 3)), vec![1.0, 2.0, 0.0], vec![0.3])
            .expect("valid problem");
        let mut s = NsgsSolver::new(NsgsOptions::default()).expect("valid options");
        let (mut r, mut u) = (vec![5.0; 3], vec![0.0; 3]);
        let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
        assert_eq!(rep.iterations, 0);
        assert!(rep.is_converged() && r.iter().all(|v| v.abs() < 1e-300));
        assert!(matches!(s.solve(&p, &mut [0.0; 2], &mut u), Err(NumericsError::DimensionMismatch { .. })));
    }

    #[test]
    fn zero_diagonal_is_a_breakdown() {
        let w = Mat::from_fn(3, 3, |i, j| if i == j && i > 0 { 1.0 } else { 0.0 });
        let p = Fc3dProblem::new(NumericsMatrix::Dense(w), vec![-1.0, 0.0, 0.0], vec![0.5]).expect("valid problem");
        let mut s = NsgsSolver::new(NsgsOptions::default()).expect("valid options");
        let (mut r, mut u) = (vec![0.0; 3], vec![0.0; 3]);
        let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
        assert_eq!(rep.status, SolverStatus::NumericalBreakdown);
        assert_eq!(rep.iterations, 0);
    }
}
