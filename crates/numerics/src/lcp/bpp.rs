//! Block principal pivoting for the LCP (Júdice & Pires 1994), with Murty's single principal
//! pivoting as the fall-back that makes it finite on P-matrices.
//!
//! # The method
//! A partition of the indices into `F` (`z` free, `w = 0`) and `G` (`z = 0`) defines the
//! complementary basic solution
//!
//! `M_FF z_F = −q_F`, `z_G = 0`, `w_F = 0`, `w_G = M_GF z_F + q_G`.
//!
//! It solves the LCP when it is feasible, i.e. when the infeasible set
//!
//! `H = {i ∈ F : z_i < −τ_z} ∪ {i ∈ G : w_i < −τ_w}`
//!
//! is empty (`τ_z`, `τ_w` are rounding thresholds, see [`BppOptions::feasibility_tolerance`]).
//! Otherwise every index of `H` changes side (a *block* principal pivot). The block rule alone
//! can cycle, so the number of infeasibilities `|H|` is watched (Júdice & Pires, "A block
//! principal pivoting algorithm for large-scale strictly monotone linear complementarity
//! problems", Computers & Operations Research 21(5), 1994, pp. 587–596, algorithm BPP):
//! - when `|H|` is below its smallest value so far, the block pivot is done and the budget of
//!   failures is reset to [`BppOptions::max_block_failures`];
//! - otherwise, while the budget lasts, the block pivot is done and the budget decreases;
//! - when the budget is spent, only the largest index of `H` changes side (Murty's single
//!   principal pivoting rule, K. G. Murty, "Note on a Bard-type scheme for solving the
//!   complementarity problem", Opsearch 11, 1974), which is finite on every P-matrix LCP; the
//!   block rule comes back as soon as `|H|` drops below its smallest value;
//! - when `M_FF` is singular after a block pivot (impossible on a P-matrix, where every
//!   principal submatrix is nonsingular), that block pivot is undone and replaced by Murty's
//!   single pivot; a singular `M_FF` after a single pivot is a breakdown (our addition, which
//!   solves some positive semidefinite problems of the Siconos collection).
//!
//! On a P-matrix the LCP has a unique solution, which this exact (finite) method returns up to
//! rounding: the same as Lemke's.
//!
//! # Warm start
//! The first partition is read from the incoming `z`: `F = {i : z_i > 0}`. In time stepping the
//! previous step's solution is an excellent guess of the active set, and the method then
//! needs one or two rounds (one factorization each) instead of the `O(n)` pivots of Lemke's
//! method. From `z = 0`, `F = ∅` and the first round just reads `w = q`.
//!
//! # Linear algebra
//! - **dense** (problems with `n ≤` [`BppOptions::dense_max_size`] in any storage, and every
//!   dense matrix): `M` is copied once per solve into a column-major buffer; each round gathers
//!   `M_FF` (`k × k`, `k = |F|`) and factors it in place with faer's dense Cholesky (`LLᵀ`) when
//!   `M` is symmetric, with faer's LU with partial pivoting when it is not or when the Cholesky
//!   fails (`M_FF` not positive definite);
//! - **sparse** (sparse-block and sparse storages with `n` above that size): `M` is copied once
//!   per solve into a CSC (entries of the stored blocks, duplicates summed, an explicit
//!   diagonal entry added where none is stored). Each round factors, instead of `M_FF`, the
//!   matrix with the same pattern `M̃` with `M̃_ij = M_ij` for `i, j ∈ F`, `M̃_ii = 1` for
//!   `i ∈ G` and `0` elsewhere (so `M̃ = M_FF ⊕ I_GG` up to a permutation, and
//!   `M̃ z = (−q_F, 0)` gives `z_F` and `z_G = 0` exactly). The pattern being that of `M`,
//!   faer's symbolic sparse Cholesky (AMD ordering) is computed once and reused by every round
//!   and by every later solve with the same pattern; each round costs one numeric
//!   factorization (`O(nnz(L))`, `O(n)` for a chain). faer's sparse LU is the fall-back.
//!
//! All buffers (index sets, dense copies, CSC arrays, Cholesky values, faer scratch) live in a
//! workspace owned by the solver and are reused: the rounds do not allocate, except for the
//! LU fall-backs of faer's sparse LU.

#![allow(non_snake_case)]

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor::{LltRegularization, cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::cholesky::llt::solve as llt_solve;
use faer::linalg::lu::partial_pivoting::{factor as lu_factor, solve as lu_solve};
use faer::linalg::solvers::Solve;
use faer::perm::PermRef;
use faer::sparse::linalg::cholesky::{LltRef, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky};
use faer::sparse::linalg::solvers::{Lu as SparseLu, SymbolicLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, MatRef, Par, Side};

use super::{LcpProblem, LcpSolver};
use crate::matrix::NumericsMatrix;
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

#[cfg(test)]
mod tests;

/// Options of [`BppSolver`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct BppOptions {
    /// Maximum number of rounds (one linear solve each) (default: `1000`).
    pub max_iterations: usize,
    /// Residual accepted as converged, measured by [`LcpProblem::compute_error`]
    /// (default: `1e-10`).
    pub tolerance: f64,
    /// Rounds of block pivoting allowed without a decrease of the number of infeasibilities
    /// before switching to Murty's single pivot on the largest infeasible index (Júdice &
    /// Pires' `p̄`) (default: `3`).
    pub max_block_failures: usize,
    /// Relative threshold `ε_f` below which a negative value is rounding noise, not an
    /// infeasibility: `z_i < −ε_f ‖z_F‖∞` for `i ∈ F`, `w_i < −ε_f max(‖q‖∞, max|M_ij| ‖z_F‖∞)`
    /// for `i ∈ G` (the second term is the size of the rounding of `M z`). `0` counts every
    /// negative value (default: `1e-12`).
    pub feasibility_tolerance: f64,
    /// Problems with at most this many unknowns use dense factorizations whatever the storage
    /// of `M`; dense matrices always do (default: `64`).
    pub dense_max_size: usize,
    /// On a cold start (no positive `z_i` in the incoming `z`), begin from `F = {i : q_i ≤ 0}`
    /// instead of `F = ∅` (default: `false`). The first round from `F = ∅` frees the `q_i < 0`
    /// anyway; this also frees the degenerate `q_i = 0`, which solves a chain of bodies resting
    /// on each other (time-stepping's first step on a stack) in one round instead of one round
    /// per contact. On singular or non-P matrices it can start from a singular `M_FF`, hence off
    /// by default.
    pub free_nonpositive_on_cold_start: bool,
}

impl Default for BppOptions {
    fn default() -> Self {
        Self {
            max_iterations: 1000,
            tolerance: 1e-10,
            max_block_failures: 3,
            feasibility_tolerance: 1e-12,
            dense_max_size: 64,
            free_nonpositive_on_cold_start: false,
        }
    }
}

impl BppOptions {
    /// Sets [`BppOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`BppOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`BppOptions::free_nonpositive_on_cold_start`].
    pub fn with_free_nonpositive_on_cold_start(mut self, free: bool) -> Self {
        self.free_nonpositive_on_cold_start = free;
        self
    }

    /// Sets [`BppOptions::max_block_failures`].
    pub fn with_max_block_failures(mut self, max_block_failures: usize) -> Self {
        self.max_block_failures = max_block_failures;
        self
    }

    /// Sets [`BppOptions::feasibility_tolerance`].
    pub fn with_feasibility_tolerance(mut self, feasibility_tolerance: f64) -> Self {
        self.feasibility_tolerance = feasibility_tolerance;
        self
    }

    /// Sets [`BppOptions::dense_max_size`].
    pub fn with_dense_max_size(mut self, dense_max_size: usize) -> Self {
        self.dense_max_size = dense_max_size;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        if self.feasibility_tolerance.is_nan() || self.feasibility_tolerance < 0.0 || self.feasibility_tolerance >= 1.0
        {
            return Err(NumericsError::InvalidOption { name: "feasibility_tolerance", reason: "must be in [0, 1)" });
        }
        Ok(())
    }
}

/// Block principal pivoting solver (Júdice & Pires 1994, with Murty's single principal pivoting
/// as fall-back): finds `z ≥ 0`, `w = M z + q ≥ 0`, `zᵀw = 0` by solving
/// `M_FF z_F = −q_F` for a partition `F ∪ G` of the indices and exchanging, each round, the
/// indices where `z_F < 0` or `w_G < 0`. The method and its linear algebra are described at the
/// top of `src/lcp/bpp.rs`.
///
/// It is finite on every P-matrix LCP (there the solution is unique and equals Lemke's); on
/// other matrices it may cycle until [`BppOptions::max_iterations`]. It is meant for large
/// sparse problems with a symmetric positive definite `M` (the Delassus operator
/// `H W⁻¹ Hᵀ` of time stepping), warm started from the previous active set:
/// `F = {i : z_i > 0}` from the incoming `z`.
///
/// Before any round, the solver returns at once (0 iterations) when the incoming `z` already
/// has a residual at or below the tolerance. The report's `iterations` counts rounds. The
/// status is [`SolverStatus::Converged`] iff the residual ([`LcpProblem::compute_error`]) is at
/// or below the tolerance; otherwise [`SolverStatus::MaxIterations`] after `max_iterations`
/// rounds, or [`SolverStatus::NumericalBreakdown`] when a factorization fails (a singular
/// `M_FF`), the iterate is not finite, or a feasible partition has a residual above the
/// tolerance after two steps of iterative refinement.
///
/// # Examples
/// ```
/// use nonsmooth_numerics::lcp::{BppOptions, BppSolver, LcpProblem, LcpSolver};
/// use nonsmooth_numerics::matrix::NumericsMatrix;
///
/// // M = [[2, 1], [1, 2]], q = (-5, -6): the solution is z = (4/3, 7/3), w = 0.
/// let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
/// let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![-5.0, -6.0])?;
/// let mut solver = BppSolver::new(BppOptions::default())?;
/// let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
/// let report = solver.solve(&problem, &mut z, &mut w)?;
/// assert!(report.is_converged());
/// assert!((z[0] - 4.0 / 3.0).abs() < 1e-12 && (z[1] - 7.0 / 3.0).abs() < 1e-12);
/// # Ok::<(), nonsmooth_numerics::NumericsError>(())
/// ```
#[derive(Debug)]
#[doc(alias = "block principal pivoting")]
pub struct BppSolver {
    options: BppOptions,
    workspace: BppWorkspace,
}

impl BppSolver {
    /// Builds the solver, validating the options once.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when `tolerance` is not positive (or NaN),
    /// `max_iterations` is 0, or `feasibility_tolerance` is not in `[0, 1)`.
    pub fn new(options: BppOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, workspace: BppWorkspace::default() })
    }

    /// The options the solver was built with.
    pub fn options(&self) -> &BppOptions {
        &self.options
    }
}

impl LcpSolver for BppSolver {
    fn solve(&mut self, problem: &LcpProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        problem.check_len("z", z.len())?;
        problem.check_len("w", w.len())?;
        let tolerance = self.options.tolerance;
        // A NaN in the warm start is treated as 0 (the index starts in G).
        for zi in z.iter_mut() {
            if !zi.is_finite() {
                *zi = 0.0;
            }
        }
        let residual = problem.compute_error(z, w)?;
        if residual <= tolerance {
            return Ok(SolverReport::new(SolverStatus::Converged, 0, residual));
        }
        let (stop, rounds) = self.workspace.run(problem, &self.options, z, w);
        let mut residual = problem.compute_error(z, w)?;
        if stop == Stop::Solved && residual > tolerance {
            residual = self.workspace.refine(problem, z, w, residual, tolerance)?;
        }
        let status = if residual <= tolerance {
            SolverStatus::Converged
        } else {
            match stop {
                Stop::MaxIterations => SolverStatus::MaxIterations,
                Stop::Solved | Stop::Breakdown => SolverStatus::NumericalBreakdown,
            }
        };
        Ok(SolverReport::new(status, rounds, residual))
    }

    fn name(&self) -> &'static str {
        "bpp"
    }
}

/// Why the pivoting stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// The partition is feasible.
    Solved,
    /// The round cap was reached.
    MaxIterations,
    /// A factorization failed or the iterate is not finite.
    Breakdown,
}

/// The factorization held by the workspace after a round.
#[derive(Debug, Default)]
enum Factor {
    #[default]
    None,
    /// Dense `LLᵀ` of the gathered `M_FF`, `k × k`, in `dense_sub`.
    DenseLlt { k: usize },
    /// Dense LU of the gathered `M_FF`, `k × k`, in `dense_sub` with `perm`, `perm_inv`.
    DenseLu { k: usize },
    /// Sparse `LLᵀ` of `M̃`: values in `l_values`, symbolic part in `symbolic`.
    SparseLlt,
    /// Sparse LU of `M̃`.
    SparseLu(Box<SparseLu<usize, f64>>),
}

/// Reused buffers of [`BppSolver`].
#[derive(Default)]
struct BppWorkspace {
    /// Membership of `F`.
    in_f: Vec<bool>,
    /// The indices of `F`, increasing (dense mode).
    free: Vec<usize>,
    /// The infeasible indices of the current round.
    infeasible: Vec<usize>,
    /// Right-hand side and solution (length `n` in sparse mode, `k` in dense mode).
    rhs: Vec<f64>,
    /// `true` when the current problem uses the dense path.
    dense: bool,
    /// `true` when `M` is symmetric (to rounding): Cholesky is tried first.
    symmetric: bool,
    /// `max |M_ij|`.
    max_abs: f64,
    factor: Factor,
    // Dense path.
    dense_m: Vec<f64>,
    dense_sub: Vec<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    dense_stack: Option<MemBuffer>,
    dense_stack_n: usize,
    // Sparse path: the CSC of M (sorted rows, no duplicates, every diagonal entry stored).
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    masked: Vec<f64>,
    // Raw CSC before deduplication, and a column-sorting scratch.
    raw_ptr: Vec<usize>,
    raw_idx: Vec<usize>,
    raw_val: Vec<f64>,
    sort_pairs: Vec<(usize, f64)>,
    // The pattern the symbolic factorizations were computed for.
    pattern_ptr: Vec<usize>,
    pattern_idx: Vec<usize>,
    symbolic: Option<SymbolicCholesky<usize>>,
    symbolic_lu: Option<SymbolicLu<usize>>,
    l_values: Vec<f64>,
    sparse_stack: Option<MemBuffer>,
}

impl std::fmt::Debug for BppWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BppWorkspace")
            .field("n", &self.in_f.len())
            .field("dense", &self.dense)
            .field("symmetric", &self.symmetric)
            .finish_non_exhaustive()
    }
}

/// Relative asymmetry accepted as rounding: `|M_ij − M_ji| ≤ SYMMETRY_TOLERANCE · max(|M_ij|, |M_ji|)`.
const SYMMETRY_TOLERANCE: f64 = 1e-12;

fn nearly_equal(a: f64, b: f64) -> bool {
    (a - b).abs() <= SYMMETRY_TOLERANCE * a.abs().max(b.abs())
}

impl BppWorkspace {
    /// Runs the rounds from the partition read in `z`; leaves the last iterate in `z` and
    /// `w = M z + q` in `w`. Returns why it stopped and the number of rounds.
    fn run(&mut self, problem: &LcpProblem, options: &BppOptions, z: &mut [f64], w: &mut [f64]) -> (Stop, usize) {
        let n = problem.size();
        let m = problem.m();
        let q = problem.q();
        self.prepare(m, options.dense_max_size);
        self.in_f.clear();
        if options.free_nonpositive_on_cold_start && !z.iter().any(|&zi| zi > 0.0) {
            self.in_f.extend(q.iter().map(|&qi| qi <= 0.0));
        } else {
            self.in_f.extend(z.iter().map(|&zi| zi > 0.0));
        }
        let q_max = q.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let eps = options.feasibility_tolerance;

        let mut best = usize::MAX;
        let mut budget = options.max_block_failures;
        let mut rounds = 0;
        let mut last_was_block = false;
        loop {
            if rounds == options.max_iterations {
                return (Stop::MaxIterations, rounds);
            }
            rounds += 1;
            if !self.solve_partition(q, z) {
                // A singular M_FF after a block pivot (possible when M is not a P-matrix): the
                // block pivot is undone and replaced by Murty's single pivot. Otherwise the
                // method breaks down.
                if !last_was_block {
                    return (Stop::Breakdown, rounds);
                }
                self.swap_all();
                let r = *self.infeasible.last().expect("a block pivot swaps at least one index");
                self.in_f[r] = !self.in_f[r];
                budget = 0;
                last_was_block = false;
                continue;
            }
            w.copy_from_slice(q);
            m.gemv(1.0, z, 1.0, w);
            if z.iter().chain(w.iter()).any(|v| !v.is_finite()) {
                return (Stop::Breakdown, rounds);
            }
            let z_max = z.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            let tau_z = eps * z_max;
            let tau_w = eps * q_max.max(self.max_abs * z_max);
            self.infeasible.clear();
            for i in 0..n {
                let bad = if self.in_f[i] { z[i] < -tau_z } else { w[i] < -tau_w };
                if bad {
                    self.infeasible.push(i);
                }
            }
            let count = self.infeasible.len();
            if count == 0 {
                return (Stop::Solved, rounds);
            }
            last_was_block = count > 1 && (count < best || budget > 0);
            if count < best {
                best = count;
                budget = options.max_block_failures;
                self.swap_all();
            } else if budget > 0 {
                budget -= 1;
                self.swap_all();
            } else {
                // Murty's rule: the largest infeasible index changes side.
                let r = *self.infeasible.last().expect("count > 0");
                self.in_f[r] = !self.in_f[r];
            }
        }
    }

    fn swap_all(&mut self) {
        for &i in &self.infeasible {
            self.in_f[i] = !self.in_f[i];
        }
    }

    /// Two steps at most of iterative refinement on the final partition, with the factorization
    /// of its last round: `M_FF δ = −w_F`, `z_F ← z_F + δ`, kept while the residual drops.
    fn refine(
        &mut self,
        problem: &LcpProblem,
        z: &mut [f64],
        w: &mut [f64],
        mut residual: f64,
        tolerance: f64,
    ) -> Result<f64, NumericsError> {
        let n = problem.size();
        let mut trial = vec![0.0; n];
        for _ in 0..2 {
            if residual <= tolerance {
                break;
            }
            // The correction −w_F, solved with the current factor.
            let mut delta = vec![0.0; n];
            for i in 0..n {
                if self.in_f[i] {
                    delta[i] = -w[i];
                }
            }
            if !self.solve_with_factor(&mut delta) {
                break;
            }
            for i in 0..n {
                trial[i] = if self.in_f[i] { z[i] + delta[i] } else { 0.0 };
            }
            let mut w_trial = vec![0.0; n];
            let r = problem.compute_error(&trial, &mut w_trial)?;
            if r.is_nan() || r >= residual {
                break;
            }
            residual = r;
            z.copy_from_slice(&trial);
            w.copy_from_slice(&w_trial);
        }
        Ok(residual)
    }

    /// Copies `M` into the dense buffer or the CSC, and checks its symmetry.
    fn prepare(&mut self, m: &NumericsMatrix, dense_max_size: usize) {
        let n = m.nrows();
        self.factor = Factor::None;
        self.dense = n <= dense_max_size || matches!(m, NumericsMatrix::Dense(_));
        if self.dense {
            self.dense_m.resize(n * n, 0.0);
            m.copy_to_col_major(&mut self.dense_m);
            self.dense_sub.resize(n * n, 0.0);
            self.perm.resize(n, 0);
            self.perm_inv.resize(n, 0);
            self.rhs.resize(n, 0.0);
            if self.dense_stack.is_none() || self.dense_stack_n < n {
                let req = StackReq::any_of(&[
                    cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default()),
                    llt_solve::solve_in_place_scratch::<f64>(n, 1, Par::Seq),
                    lu_factor::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Default::default()),
                    lu_solve::solve_in_place_scratch::<usize, f64>(n, 1, Par::Seq),
                ]);
                self.dense_stack = Some(MemBuffer::new(req));
                self.dense_stack_n = n;
            }
            let a = &self.dense_m;
            self.max_abs = a.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
            self.symmetric = (0..n).all(|j| (j + 1..n).all(|i| nearly_equal(a[i + j * n], a[j + i * n])));
        } else {
            self.build_csc(m);
            self.max_abs = self.values.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
            self.symmetric = self.csc_is_symmetric();
            self.masked.resize(self.values.len(), 0.0);
            self.rhs.resize(n, 0.0);
            let same_pattern = self.pattern_ptr == self.col_ptr && self.pattern_idx == self.row_idx;
            if !same_pattern {
                self.pattern_ptr.clone_from(&self.col_ptr);
                self.pattern_idx.clone_from(&self.row_idx);
                self.symbolic = None;
                self.symbolic_lu = None;
                self.sparse_stack = None;
            }
        }
    }

    /// Builds the CSC of `M` (sparse-block or sparse storage) into `col_ptr`, `row_idx`,
    /// `values`: rows increasing in each column, duplicates summed, diagonal always stored.
    fn build_csc(&mut self, m: &NumericsMatrix) {
        let n = m.nrows();
        let (ptr, idx, val) = (&mut self.raw_ptr, &mut self.raw_idx, &mut self.raw_val);
        ptr.clear();
        ptr.resize(n + 1, 0);
        idx.clear();
        val.clear();
        match m {
            NumericsMatrix::SparseBlock(s) => {
                // Count the entries of each column, then fill by increasing block row (so rows
                // increase in every column).
                for bi in 0..s.n_block_rows() {
                    let nr = s.row_block_size(bi);
                    for k in s.row_blocks(bi) {
                        let bj = s.col_idx()[k];
                        let c0 = s.col_block_start(bj);
                        for c in c0..c0 + s.col_block_size(bj) {
                            ptr[c + 1] += nr;
                        }
                    }
                }
                prefix_sum(ptr);
                let total = ptr[n];
                idx.resize(total, 0);
                val.resize(total, 0.0);
                let next = &mut self.col_ptr;
                next.clear();
                next.extend_from_slice(&ptr[..n]);
                for bi in 0..s.n_block_rows() {
                    let (r0, nr) = (s.row_block_start(bi), s.row_block_size(bi));
                    for k in s.row_blocks(bi) {
                        let bj = s.col_idx()[k];
                        let c0 = s.col_block_start(bj);
                        for (c, bcol) in s.block(k).chunks_exact(nr).enumerate() {
                            let p = next[c0 + c];
                            for (r, &v) in bcol.iter().enumerate() {
                                idx[p + r] = r0 + r;
                                val[p + r] = v;
                            }
                            next[c0 + c] += nr;
                        }
                    }
                }
            }
            NumericsMatrix::Sparse(s) if s.is_csc() => {
                for (j, col) in s.outer_iterator().enumerate() {
                    idx.extend_from_slice(col.indices());
                    val.extend_from_slice(col.data());
                    ptr[j + 1] = idx.len();
                }
            }
            NumericsMatrix::Sparse(s) => {
                for (_, (_, j)) in s.iter() {
                    ptr[j + 1] += 1;
                }
                prefix_sum(ptr);
                let total = ptr[n];
                idx.resize(total, 0);
                val.resize(total, 0.0);
                let next = &mut self.col_ptr;
                next.clear();
                next.extend_from_slice(&ptr[..n]);
                // CSR rows come in increasing order: the rows of each column increase.
                for (&v, (i, j)) in s.iter() {
                    idx[next[j]] = i;
                    val[next[j]] = v;
                    next[j] += 1;
                }
            }
            NumericsMatrix::Dense(d) => {
                for j in 0..n {
                    for (i, &v) in d.col_as_slice(j).iter().enumerate() {
                        if v != 0.0 || i == j {
                            idx.push(i);
                            val.push(v);
                        }
                    }
                    ptr[j + 1] = idx.len();
                }
            }
        }
        // Sort every column (a no-op for the storages above), sum duplicates, insert missing
        // diagonal entries.
        self.col_ptr.clear();
        self.col_ptr.push(0);
        self.row_idx.clear();
        self.values.clear();
        for j in 0..n {
            let (a, b) = (self.raw_ptr[j], self.raw_ptr[j + 1]);
            if self.raw_idx[a..b].windows(2).any(|p| p[0] > p[1]) {
                self.sort_pairs.clear();
                self.sort_pairs.extend(self.raw_idx[a..b].iter().copied().zip(self.raw_val[a..b].iter().copied()));
                self.sort_pairs.sort_by_key(|p| p.0);
                for (t, &(i, v)) in self.sort_pairs.iter().enumerate() {
                    self.raw_idx[a + t] = i;
                    self.raw_val[a + t] = v;
                }
            }
            let mut diagonal_seen = false;
            for p in a..b {
                let (i, v) = (self.raw_idx[p], self.raw_val[p]);
                if i > j && !diagonal_seen {
                    self.row_idx.push(j);
                    self.values.push(0.0);
                    diagonal_seen = true;
                }
                diagonal_seen |= i == j;
                if self.row_idx.len() > self.col_ptr[j] && self.row_idx.last() == Some(&i) {
                    *self.values.last_mut().expect("a row was pushed in this column") += v;
                } else {
                    self.row_idx.push(i);
                    self.values.push(v);
                }
            }
            if !diagonal_seen {
                self.row_idx.push(j);
                self.values.push(0.0);
            }
            self.col_ptr.push(self.row_idx.len());
        }
    }

    /// `true` when every stored `M_ij` matches `M_ji` (zero when not stored) to rounding.
    fn csc_is_symmetric(&self) -> bool {
        let n = self.col_ptr.len() - 1;
        (0..n).all(|j| {
            (self.col_ptr[j]..self.col_ptr[j + 1]).all(|p| {
                let i = self.row_idx[p];
                i == j || nearly_equal(self.values[p], self.csc_get(j, i))
            })
        })
    }

    fn csc_get(&self, i: usize, j: usize) -> f64 {
        let rows = &self.row_idx[self.col_ptr[j]..self.col_ptr[j + 1]];
        match rows.binary_search(&i) {
            Ok(t) => self.values[self.col_ptr[j] + t],
            Err(_) => 0.0,
        }
    }

    /// Solves `M_FF z_F = −q_F`, `z_G = 0` for the current partition into `z`, keeping the
    /// factorization for refinement. Returns `false` when the factorization fails.
    fn solve_partition(&mut self, q: &[f64], z: &mut [f64]) -> bool {
        let n = q.len();
        if self.dense {
            self.free.clear();
            self.free.extend((0..n).filter(|&i| self.in_f[i]));
            let k = self.free.len();
            z.fill(0.0);
            if k == 0 {
                self.factor = Factor::DenseLlt { k: 0 };
                return true;
            }
            if !self.factor_dense() {
                return false;
            }
            for (r, &i) in self.rhs[..k].iter_mut().zip(&self.free) {
                *r = -q[i];
            }
            let mut rhs = std::mem::take(&mut self.rhs);
            let ok = self.dense_solve(&mut rhs[..k]);
            for (&i, &v) in self.free.iter().zip(&rhs[..k]) {
                z[i] = v;
            }
            self.rhs = rhs;
            ok
        } else {
            if !self.factor_sparse() {
                return false;
            }
            for ((zi, &qi), &free) in z.iter_mut().zip(q).zip(&self.in_f) {
                *zi = if free { -qi } else { 0.0 };
            }
            let ok = self.sparse_solve(z);
            zero_outside(z, &self.in_f);
            ok
        }
    }

    /// Solves `M_FF x = b` with the factor of the last round; `b` is given and returned with
    /// length `n` (entries outside `F` are ignored on entry and zero on exit).
    fn solve_with_factor(&mut self, b: &mut [f64]) -> bool {
        if self.dense {
            let k = self.free.len();
            let mut rhs = std::mem::take(&mut self.rhs);
            for (r, &i) in rhs[..k].iter_mut().zip(&self.free) {
                *r = b[i];
            }
            let ok = self.dense_solve(&mut rhs[..k]);
            b.fill(0.0);
            for (&i, &v) in self.free.iter().zip(&rhs[..k]) {
                b[i] = v;
            }
            self.rhs = rhs;
            ok
        } else {
            zero_outside(b, &self.in_f);
            let ok = self.sparse_solve(b);
            zero_outside(b, &self.in_f);
            ok
        }
    }

    /// Gathers `M_FF` into `dense_sub` (column-major, `k × k`).
    fn gather_dense(&mut self) {
        let n = self.in_f.len();
        let k = self.free.len();
        for (b, &j) in self.free.iter().enumerate() {
            let col = &self.dense_m[j * n..(j + 1) * n];
            for (a, &i) in self.free.iter().enumerate() {
                self.dense_sub[a + b * k] = col[i];
            }
        }
    }

    /// Factors `M_FF` (dense): Cholesky when `M` is symmetric, LU when it is not or when the
    /// Cholesky fails. Returns `false` when the LU has a pivot at or below `k ε max|M_FF|`.
    fn factor_dense(&mut self) -> bool {
        let k = self.free.len();
        if self.symmetric {
            self.gather_dense();
            let stack = MemStack::new(self.dense_stack.as_mut().expect("allocated in prepare"));
            let a = MatMut::from_column_major_slice_mut(&mut self.dense_sub[..k * k], k, k);
            if cholesky_in_place(a, LltRegularization::default(), Par::Seq, stack, Default::default()).is_ok() {
                self.factor = Factor::DenseLlt { k };
                return true;
            }
        }
        self.gather_dense();
        let stack = MemStack::new(self.dense_stack.as_mut().expect("allocated in prepare"));
        let largest = self.dense_sub[..k * k].iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
        let mut a = MatMut::from_column_major_slice_mut(&mut self.dense_sub[..k * k], k, k);
        let _ = lu_factor::lu_in_place(
            a.as_mut(),
            &mut self.perm[..k],
            &mut self.perm_inv[..k],
            Par::Seq,
            stack,
            Default::default(),
        );
        let threshold = k as f64 * f64::EPSILON * largest;
        if (0..k).any(|i| a[(i, i)].is_nan() || a[(i, i)].abs() <= threshold) {
            self.factor = Factor::None;
            return false;
        }
        self.factor = Factor::DenseLu { k };
        true
    }

    /// Solves with the dense factor in place (`x` has length `k`).
    fn dense_solve(&mut self, x: &mut [f64]) -> bool {
        let stack = MemStack::new(self.dense_stack.as_mut().expect("allocated in prepare"));
        match self.factor {
            Factor::DenseLlt { k } => {
                if k > 0 {
                    let l = MatRef::from_column_major_slice(&self.dense_sub[..k * k], k, k);
                    llt_solve::solve_in_place(l, MatMut::from_column_major_slice_mut(x, k, 1), Par::Seq, stack);
                }
            }
            Factor::DenseLu { k } => {
                let lu = MatRef::from_column_major_slice(&self.dense_sub[..k * k], k, k);
                let p = PermRef::new_checked(&self.perm[..k], &self.perm_inv[..k], k);
                lu_solve::solve_in_place(lu, lu, p, MatMut::from_column_major_slice_mut(x, k, 1), Par::Seq, stack);
            }
            _ => return false,
        }
        x.iter().all(|v| v.is_finite())
    }

    /// Fills `masked` with `M̃` (`M_FF`, identity on `G`, zero elsewhere).
    fn mask(&mut self) {
        let n = self.in_f.len();
        for j in 0..n {
            for p in self.col_ptr[j]..self.col_ptr[j + 1] {
                let i = self.row_idx[p];
                self.masked[p] = if self.in_f[i] && self.in_f[j] {
                    self.values[p]
                } else if i == j {
                    1.0
                } else {
                    0.0
                };
            }
        }
    }

    /// Factors `M̃` (sparse): Cholesky when `M` is symmetric (symbolic part computed once per
    /// pattern), LU when it is not or when the Cholesky fails.
    fn factor_sparse(&mut self) -> bool {
        let n = self.in_f.len();
        self.mask();
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx);
        if self.symmetric {
            if self.symbolic.is_none() {
                match factorize_symbolic_cholesky(pattern, Side::Upper, SymmetricOrdering::Amd, Default::default()) {
                    Ok(s) => {
                        let req = StackReq::any_of(&[
                            s.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()),
                            s.solve_in_place_scratch::<f64>(1, Par::Seq),
                        ]);
                        self.sparse_stack = Some(MemBuffer::new(req));
                        self.l_values.resize(s.len_val(), 0.0);
                        self.symbolic = Some(s);
                    }
                    Err(_) => return false,
                }
            }
            let symbolic = self.symbolic.as_ref().expect("computed above");
            let stack = MemStack::new(self.sparse_stack.as_mut().expect("allocated with the symbolic part"));
            let a = SparseColMatRef::new(pattern, &self.masked);
            // A failure (a non-positive pivot) sends the round to the LU.
            let llt = symbolic.factorize_numeric_llt::<f64>(
                &mut self.l_values,
                a,
                Side::Upper,
                LltRegularization::default(),
                Par::Seq,
                stack,
                Default::default(),
            );
            if llt.is_ok() {
                self.factor = Factor::SparseLlt;
                return true;
            }
        }
        if self.symbolic_lu.is_none() {
            match SymbolicLu::try_new(pattern) {
                Ok(s) => self.symbolic_lu = Some(s),
                Err(_) => return false,
            }
        }
        let symbolic = self.symbolic_lu.clone().expect("computed above");
        match SparseLu::try_new_with_symbolic(symbolic, SparseColMatRef::new(pattern, &self.masked)) {
            Ok(lu) => {
                self.factor = Factor::SparseLu(Box::new(lu));
                true
            }
            Err(_) => {
                self.factor = Factor::None;
                false
            }
        }
    }

    /// Solves `M̃ x = b` in place with the sparse factor (`x` has length `n`).
    fn sparse_solve(&mut self, x: &mut [f64]) -> bool {
        let n = x.len();
        match &self.factor {
            Factor::SparseLlt => {
                let symbolic = self.symbolic.as_ref().expect("a sparse Cholesky was computed");
                let stack = MemStack::new(self.sparse_stack.as_mut().expect("allocated with the symbolic part"));
                LltRef::new(symbolic, &self.l_values).solve_in_place_with_conj(
                    Conj::No,
                    MatMut::from_column_major_slice_mut(x, n, 1),
                    Par::Seq,
                    stack,
                );
            }
            Factor::SparseLu(lu) => lu.solve_in_place(MatMut::from_column_major_slice_mut(x, n, 1)),
            _ => return false,
        }
        x.iter().all(|v| v.is_finite())
    }
}

/// Sets `x_i = 0` for the indices outside `F`.
fn zero_outside(x: &mut [f64], in_f: &[bool]) {
    for (xi, &free) in x.iter_mut().zip(in_f) {
        if !free {
            *xi = 0.0;
        }
    }
}

/// Turns per-column counts `ptr[j + 1]` into column starts.
fn prefix_sum(ptr: &mut [usize]) {
    for j in 1..ptr.len() {
        ptr[j] += ptr[j - 1];
    }
}
