//! Lexicographic Lemke pivoting for the LCP (Siconos `lcp_lexicolemke`,
//! numerics/src/LCP/lcp_lexicolemke.c, "LexicoLemke" in the Siconos kernel documentation's
//! "Non smooth solvers"; C. E. Lemke, "Bimatrix equilibrium points and mathematical
//! programming", Management Science 11, 1965; K. G. Murty, "Linear Complementarity, Linear and
//! Nonlinear Programming", 1988, for the lexicographic rule).
//!
//! # The method
//! Lemke's complementary pivoting works on the augmented system
//!
//! `I w − d z₀ − M z = q`, with the covering vector `d = (1, …, 1)` (Siconos' choice),
//!
//! starting from the basis `{w₁ … wₙ}`. The artificial variable `z₀` enters first, with
//! `z₀ = −min qᵢ`, which makes every `w ≥ 0`; the `w` that dropped to zero leaves. After that the
//! entering variable is always the complement of the one that just left (`zᵢ` after `wᵢ` and
//! conversely), the leaving one being chosen by the minimum-ratio test. The method stops when
//! `z₀` leaves (a complementary basis: the solution), or when the entering column has no
//! positive entry (a secondary ray: no solution from this start, [`SolverStatus::RayTermination`]).
//!
//! Ties of the ratio test are broken lexicographically on the rows of `[B⁻¹q | B⁻¹] / pivot`
//! (the lexicographic rule), which makes the path unique and the method finite on degenerate
//! problems, where the plain minimum-ratio rule can cycle.
//!
//! # Implementation (revised tableau)
//! Siconos updates the whole tableau `B⁻¹ [q | I | −d | −M]` (`n × 2(n+1)`) at every pivot. We
//! keep only what the pivots need:
//! - `b = B⁻¹ q`, the values of the basic variables;
//! - the columns of `B⁻¹` (the `I` block of the tableau). Column `j` of `B⁻¹` is the tableau
//!   column of `wⱼ`: while `wⱼ` is basic it is a unit vector, known without storage. Only the
//!   columns of the nonbasic `w` (about as many as basic `z`) are stored and updated;
//! - the entering column, computed when needed: `B⁻¹(−M eᵢ)` for `zᵢ` (from the stored columns
//!   of `B⁻¹` and column `i` of `M`), the stored column of `B⁻¹` for `wᵢ`.
//!
//! The rank-one update of each stored column of `B⁻¹` and the accumulation of the next entering
//! column are fused into one contiguous pass (the next entering variable is known before the
//! update, as the complement of the leaving one). That pass runs under pulp's run-time
//! dispatch (re-exported by faer), so it is vectorized for the CPU at hand (AVX2 on x86-64)
//! in safe code; with no reduction in it, every instruction set gives the same bits.
//! Everything lives in a workspace owned by the solver and reused across calls.
//!
//! # Floating point (where we depart from Siconos)
//! Degenerate problems have ratios that are equal in exact arithmetic; in floating point they
//! differ in the last bits, the lexicographic rule no longer sees the tie, and the path can
//! leave the exact one and end on a false ray. And the product form accumulates the rounding
//! errors of every pivot, most after small pivots. The guards below are all inactive on
//! non-degenerate, well-conditioned problems (the pivot counts then equal Siconos'):
//! - ratios within [`LemkeOptions::tie_tolerance`] of the minimum are ties; a negative basic
//!   value is taken as 0 in the ratios (it is the rounding of a zero). The lexicographic
//!   comparisons of the tied rows count entries within `tie_tolerance` times the size of the
//!   rows as equal (Siconos compares to an absolute `ε max|Mᵢⱼ|`, below the rounding errors
//!   of `B⁻¹`, so its decisions between tied rows can be decided by noise);
//! - a winning pivot that is below [`LemkeOptions::pivot_tolerance`] times the size of the
//!   terms it was summed from is rounding noise of a zero and is set aside;
//! - a ratio just outside the tie threshold (within `1e-6 ‖b‖∞`) triggers one step of
//!   iterative refinement of `b` and of the entering column `d`. The size of that correction
//!   estimates the errors left: when they are within the tie threshold, the ratio test is done
//!   again with the refined values, ratios within ten times those errors of the minimum still
//!   counting as doubtful;
//! - **refactorization**: a doubtful ratio test (a ratio still doubtful after that refinement,
//!   a ray, a breakdown, or a pivot with `‖d‖∞ / d_r` above
//!   [`LemkeOptions::small_pivot_growth`]) rebuilds the basis matrix `B` (columns `eⱼ`,
//!   `−M eᵢ`, `−1` of the basic `wⱼ`, `zᵢ`, `z₀`), factorizes it, recomputes `b`, the stored
//!   columns of `B⁻¹` and `d` from the data, and does the ratio test again on the same basis. The
//!   same happens after a pivot with such a growth, and every
//!   [`LemkeOptions::refactorization_interval`] pivots when set. Only a `k × k` block is
//!   factorized (`k` the number of basic `z`, LU with partial pivoting, `2k³/3` flops); the
//!   `k` stored columns of `B⁻¹` then cost `2k³ + 2nk²` flops, about `k` pivots' worth. All
//!   buffers are sized once per problem size: the pivot loop does not allocate;
//! - the final basis is refined (up to three steps) before `z` is returned; when its residual
//!   is still above the tolerance, it is refactorized and refined with residuals `M z + q`
//!   computed in twice the working precision (compensated products and sums), which gives the
//!   correctly rounded basic solution even for an ill-conditioned final basis.
//!
//! The refactorization is what solves the exactly feasible, highly degenerate integer PSD
//! families of `tests/it/lcp_pivoting.rs`, with the pivot counts of an exact rational
//! lexicographic Lemke (figures in `docs/performance-notes.md`).

use super::{LcpProblem, LcpSolver};
use faer::traits::pulp::{Arch, Simd, WithSimd};

use crate::matrix::NumericsMatrix;
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

#[cfg(test)]
mod tests;

/// Options of [`LemkeSolver`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LemkeOptions {
    /// Maximum number of pivots, counted as Siconos' `lcp_lexicolemke` counts them: the first
    /// pivot (`z₀` enters) is not counted, every later one is, including a last ratio test that
    /// finds no pivot (default: `10_000`, Siconos 4.4's `SICONOS_IPARAM_MAX_ITER` for Lemke).
    pub max_iterations: usize,
    /// Residual accepted as converged, measured by [`LcpProblem::compute_error`]
    /// (default: `1e-10`).
    pub tolerance: f64,
    /// Relative pivot threshold: in the ratio test, entries of the entering column `d` with
    /// `dᵢ ≤ pivot_tolerance · ‖d‖∞` count as zero (rounding noise), so no pivot is ever below
    /// this size. When some positive entries exist but all are below it, the pivot is unusable
    /// and the solver stops with [`SolverStatus::NumericalBreakdown`]. `0` gives Siconos' rule
    /// (every `dᵢ > 0` is a candidate) (default: `1e-12`).
    pub pivot_tolerance: f64,
    /// Relative tie threshold of the ratio test: rows whose ratio `bᵢ/dᵢ` exceeds the minimum
    /// by `δ` with `δ · max(dᵢ, d_min) ≤ tie_tolerance · ‖b‖∞` (choosing one of them would leave
    /// the others at most that far below zero) are ties, resolved by the lexicographic rule.
    /// Ratios equal in exact arithmetic differ by rounding in floating point; without this
    /// slack the lexicographic rule would not see those ties, and degenerate problems can then
    /// leave the exact pivot path and end on a false ray. The same relative threshold makes
    /// entries of the lexicographic comparison equal (within `tie_tolerance` times the size
    /// of the compared rows of `B⁻¹ / dᵢ`), and bounds the errors of `b` and `d` (relative to
    /// their size) under which a refined ratio test is trusted without a refactorization. `0`
    /// gives Siconos' rules (exactly equal ratios only, lexicographic entries equal within
    /// `ε max|Mᵢⱼ|`) (default: `1e-11`).
    pub tie_tolerance: f64,
    /// Periodic refactorization: after this many pivots without one, the basis is refactorized
    /// before the next ratio test (see the module documentation). `0` disables it; the other
    /// triggers (doubtful ratio tests, small pivots, a final residual above the tolerance)
    /// stay active. Those triggers alone solve the degenerate test families, while a period
    /// makes large problems markedly slower (a refactorization costs about as much as `k`
    /// pivots, `k` the number of basic `z`); hence the default (default: `0`).
    pub refactorization_interval: usize,
    /// Pivot growth that makes the basis refactorized: when the chosen pivot `d_r` has
    /// `‖d‖∞ / d_r` above it, the ratio test is redone after a refactorization, and the basis
    /// is refactorized again after the pivot (whose rank-one update amplifies the errors of
    /// `B⁻¹` by up to that factor). Must be at least 1; `f64::INFINITY` disables the test
    /// (default: `1e6`).
    pub small_pivot_growth: f64,
    /// Largest dense copy of a sparse `M` (`8 n²` bytes) the solver makes; above it the solve
    /// is [`NumericsError::DenseTooLarge`], naming PGS, which works on the sparse `M`. Solvers
    /// that reformulate a problem as an LCP (relay, FC2D) apply it to the reformulated matrix
    /// (default: [`crate::DEFAULT_MAX_DENSE_BYTES`], 1 GiB).
    pub max_dense_bytes: u64,
}

impl Default for LemkeOptions {
    fn default() -> Self {
        Self {
            max_iterations: 10_000,
            tolerance: 1e-10,
            pivot_tolerance: 1e-12,
            tie_tolerance: 1e-11,
            refactorization_interval: 0,
            small_pivot_growth: 1e6,
            max_dense_bytes: crate::DEFAULT_MAX_DENSE_BYTES,
        }
    }
}

impl LemkeOptions {
    /// Sets [`LemkeOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`LemkeOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`LemkeOptions::max_dense_bytes`].
    pub fn with_max_dense_bytes(mut self, max_dense_bytes: u64) -> Self {
        self.max_dense_bytes = max_dense_bytes;
        self
    }

    /// Sets [`LemkeOptions::pivot_tolerance`].
    pub fn with_pivot_tolerance(mut self, pivot_tolerance: f64) -> Self {
        self.pivot_tolerance = pivot_tolerance;
        self
    }

    /// Sets [`LemkeOptions::tie_tolerance`].
    pub fn with_tie_tolerance(mut self, tie_tolerance: f64) -> Self {
        self.tie_tolerance = tie_tolerance;
        self
    }

    /// Sets [`LemkeOptions::refactorization_interval`].
    pub fn with_refactorization_interval(mut self, refactorization_interval: usize) -> Self {
        self.refactorization_interval = refactorization_interval;
        self
    }

    /// Sets [`LemkeOptions::small_pivot_growth`].
    pub fn with_small_pivot_growth(mut self, small_pivot_growth: f64) -> Self {
        self.small_pivot_growth = small_pivot_growth;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        if self.pivot_tolerance.is_nan() || self.pivot_tolerance < 0.0 || self.pivot_tolerance >= 1.0 {
            return Err(NumericsError::InvalidOption { name: "pivot_tolerance", reason: "must be in [0, 1)" });
        }
        if self.tie_tolerance.is_nan() || self.tie_tolerance < 0.0 || self.tie_tolerance >= 1.0 {
            return Err(NumericsError::InvalidOption { name: "tie_tolerance", reason: "must be in [0, 1)" });
        }
        if self.small_pivot_growth.is_nan() || self.small_pivot_growth < 1.0 {
            return Err(NumericsError::InvalidOption { name: "small_pivot_growth", reason: "must be at least 1" });
        }
        Ok(())
    }
}

/// Lexicographic Lemke solver (Siconos `lcp_lexicolemke`): finds `z ≥ 0`, `w = M z + q ≥ 0`,
/// `zᵀw = 0` by complementary pivoting on `I w − d z₀ − M z = q` with the covering vector
/// `d = (1, …, 1)`, ties of the ratio test broken by the lexicographic rule (so it does not
/// cycle on degenerate problems). It keeps only `B⁻¹q`, the columns of `B⁻¹` of the nonbasic
/// `w` and the entering column, updated in one vectorized pass per pivot (about 2·n·k flops
/// for k positive z, against 4n² for Siconos' full tableau). Rounding guards (a relative tie
/// threshold, refinement of doubtful ratio tests, a noise test on small pivots, a
/// refactorization of the basis when a decision is in doubt or a pivot is small, refinement of
/// the final basis in extra precision when needed) keep it on the exact pivot path on
/// degenerate problems; they are inactive on non-degenerate ones, where the pivots are those
/// of Siconos. The implementation notes are at the top of `src/lcp/lemke.rs`.
///
/// It solves every LCP whose matrix is a P-matrix, and every feasible LCP with a positive
/// semidefinite matrix; on other problems it may end on a ray ([`SolverStatus::RayTermination`]).
/// Any storage is accepted: the matrix is copied once per solve into a dense workspace owned
/// by the solver, which is reused (no allocation when solving again a problem of the same or a
/// smaller size). The workspace holds about `3n²` numbers (`M`, the stored columns of `B⁻¹`,
/// the factors of a refactorization).
///
/// Before pivoting, the solver returns at once (0 iterations) when `q ≥ 0` (then `z = 0`), or
/// when the incoming `z` already has a residual at or below the tolerance (warm start).
/// Otherwise it starts from the standard basis `{w}`, whatever `z` holds.
///
/// The report's `iterations` counts pivots as Siconos does (see
/// [`LemkeOptions::max_iterations`]), so the numbers compare with Siconos' `ITER_DONE`.
/// The status is [`SolverStatus::Converged`] iff the residual is at or below the tolerance;
/// otherwise it says why the pivoting stopped: [`SolverStatus::RayTermination`],
/// [`SolverStatus::MaxIterations`], or [`SolverStatus::NumericalBreakdown`] (unusable pivot,
/// non-finite values, or a complementary basis whose residual is above the tolerance).
///
/// # Examples
/// ```
/// use nonsmooth_numerics::lcp::{LcpProblem, LcpSolver, LemkeOptions, LemkeSolver};
/// use nonsmooth_numerics::matrix::NumericsMatrix;
///
/// // M = [[2, 1], [1, 2]], q = (-5, -6): the solution is z = (4/3, 7/3), w = 0.
/// let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
/// let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![-5.0, -6.0])?;
/// let mut solver = LemkeSolver::new(LemkeOptions::default().with_tolerance(1e-12))?;
/// let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
/// let report = solver.solve(&problem, &mut z, &mut w)?;
/// assert!(report.is_converged());
/// assert_eq!(report.iterations, 2);
/// assert!((z[0] - 4.0 / 3.0).abs() < 1e-12 && (z[1] - 7.0 / 3.0).abs() < 1e-12);
/// assert!(w.iter().all(|wi| wi.abs() < 1e-12));
/// # Ok::<(), nonsmooth_numerics::NumericsError>(())
/// ```
#[derive(Clone, Debug)]
#[doc(alias = "lcp_lexicolemke")]
#[doc(alias = "LexicoLemke")]
pub struct LemkeSolver {
    options: LemkeOptions,
    workspace: LemkeWorkspace,
}

impl LemkeSolver {
    /// Builds the solver, validating the options once.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when `tolerance` is not positive (or NaN),
    /// `max_iterations` is 0, `pivot_tolerance` or `tie_tolerance` is not in `[0, 1)`, or
    /// `small_pivot_growth` is below 1 (or NaN).
    pub fn new(options: LemkeOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, workspace: LemkeWorkspace::default() })
    }

    /// The options the solver was built with.
    pub fn options(&self) -> &LemkeOptions {
        &self.options
    }
}

impl LcpSolver for LemkeSolver {
    fn solve(&mut self, problem: &LcpProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        problem.check_len("z", z.len())?;
        problem.check_len("w", w.len())?;
        if !matches!(problem.m(), NumericsMatrix::Dense(_)) {
            let n = problem.size();
            crate::options::dense_fits("Lemke on a sparse LCP", n, n, self.options.max_dense_bytes, "the solver pgs")?;
        }
        let tolerance = self.options.tolerance;
        let converged = |residual: f64| residual <= tolerance;

        // Trivial case: q ≥ 0, so z = 0, w = q solves the LCP.
        if problem.q().iter().all(|&qi| qi >= 0.0) {
            z.fill(0.0);
            let residual = problem.compute_error(z, w)?;
            let status = if converged(residual) { SolverStatus::Converged } else { SolverStatus::NumericalBreakdown };
            return Ok(SolverReport::new(status, 0, residual));
        }
        // One unknown with q < 0: z = −q/M, one division, as Siconos' `lcp_driver_DenseMatrix`
        // does before calling any solver (the kernel's bouncing ball depends on it to the bit).
        if problem.size() == 1 {
            let m = problem.m().get(0, 0);
            if m > 0.0 {
                z[0] = -problem.q()[0] / m;
                let residual = problem.compute_error(z, w)?;
                w[0] = 0.0;
                let status =
                    if converged(residual) { SolverStatus::Converged } else { SolverStatus::NumericalBreakdown };
                return Ok(SolverReport::new(status, 0, residual));
            }
        }
        // Warm start: the incoming z is already a solution.
        let residual = problem.compute_error(z, w)?;
        if converged(residual) {
            return Ok(SolverReport::new(SolverStatus::Converged, 0, residual));
        }

        let (stop, iterations) = self.workspace.run(problem, &self.options);
        self.workspace.extract_z(z);
        let mut residual = problem.compute_error(z, w)?;
        // Iterative refinement of the final basis: up to three steps, while the residual drops;
        // when that is not enough, a refactorization and refinement in extra precision.
        if stop == Stop::Solved {
            residual = self.workspace.refine_steps(problem, z, w, residual)?;
            if !converged(residual) {
                residual = self.workspace.polish(problem, z, w, residual)?;
            }
        }
        let status = if converged(residual) {
            SolverStatus::Converged
        } else {
            match stop {
                Stop::Solved | Stop::Breakdown => SolverStatus::NumericalBreakdown,
                Stop::Ray => SolverStatus::RayTermination,
                Stop::MaxIterations => SolverStatus::MaxIterations,
            }
        };
        Ok(SolverReport::new(status, iterations, residual))
    }

    fn name(&self) -> &'static str {
        "lemke"
    }
}

/// How the pivoting stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// `z₀` left the basis: the basis is complementary.
    Solved,
    /// The entering column has no positive entry.
    Ray,
    /// The entering column has positive entries, all below the pivot threshold, or a value is
    /// not finite.
    Breakdown,
    /// The pivot cap was reached.
    MaxIterations,
}

/// Maximum number of iterative-refinement steps on the final basis.
const REFINEMENT_STEPS: usize = 3;

/// Ratios closer to the minimum than this (relative to `‖b‖∞`, see
/// [`LemkeOptions::tie_tolerance`]) but not within the tie threshold make the ratio test refine
/// `b` and `d` before deciding.
const AMBIGUOUS_TIE: f64 = 1e-6;

/// After a refinement of `b` and `d`, ratios whose distance to the minimum is within this
/// multiple of the error left (estimated by the size of the refinement's correction) are still
/// doubtful, and make the ratio test refactorize the basis.
const REFINED_WINDOW: f64 = 10.0;

/// Why [`LemkeWorkspace::select_row`] returned no row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Selection {
    /// The pivoting stops.
    Stop(Stop),
    /// A ratio is too close to the minimum to tell a tie from a difference.
    Ambiguous,
}

/// How [`LemkeWorkspace::select_row`] treats ratios near the minimum but outside the tie
/// threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TieCheck {
    /// Never ambiguous.
    Off,
    /// Ambiguous within [`AMBIGUOUS_TIE`]` · ‖b‖∞`.
    Coarse,
    /// Ambiguous within [`REFINED_WINDOW`] times the error left after a refinement whose
    /// corrections of `b` and `d` had sizes (max norms) `err_b` and `err_d`.
    Refined {
        /// Size of the correction of `b`.
        err_b: f64,
        /// Size of the correction of `d`.
        err_d: f64,
    },
}

/// How the lexicographic rule compares the entries of two tied rows of `B⁻¹ / dᵢ`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lexico {
    /// Entries within this fraction of the larger row's largest entry are equal
    /// ([`LemkeOptions::tie_tolerance`]).
    Relative(f64),
    /// Siconos' comparisons, with this absolute tolerance (`ε max|Mᵢⱼ|`).
    Absolute(f64),
}

/// Marks a `w` that is not basic in [`LemkeWorkspace::w_row`].
const NONBASIC: usize = usize::MAX;

/// The solver's reusable storage (see the module documentation for what each part holds).
///
/// Variables are numbered `wᵢ = i`, `zᵢ = n + i`, `z₀ = 2n`.
#[derive(Clone, Debug)]
struct LemkeWorkspace {
    /// `M`, dense column-major, `n × n`.
    m: Vec<f64>,
    /// Columns of `B⁻¹`, `n × n` column-major; column `j` is meaningful only while `wⱼ` is
    /// nonbasic (it is the unit vector `e_{w_row[j]}` otherwise).
    binv: Vec<f64>,
    /// Values of the basic variables, `B⁻¹ q`, by row.
    b: Vec<f64>,
    /// The entering column `B⁻¹ a_e`.
    d: Vec<f64>,
    /// `‖d‖∞`, as measured by the last ratio test.
    d_norm: f64,
    /// The next entering column, accumulated during the update.
    d_next: Vec<f64>,
    /// `d − e_r` for the pivot row `r`: the update of any column `c` is `c ← c − (c_r / d_r) g`.
    g: Vec<f64>,
    /// The basic variable of each row.
    basis: Vec<usize>,
    /// The row of `wⱼ` when basic, [`NONBASIC`] otherwise.
    w_row: Vec<usize>,
    /// The `j` whose `wⱼ` is nonbasic (the stored columns of `B⁻¹`).
    dense: Vec<usize>,
    /// Position of `j` in `dense`.
    dense_slot: Vec<usize>,
    /// Rows tied with the best one in the ratio test.
    ties: Vec<usize>,
    /// Rows set aside by the ratio test, their pivot being rounding noise.
    noise_rows: Vec<usize>,
    /// LU factors (unit lower `L` below the diagonal, `U` on and above it, column-major,
    /// `k × k`) of the reduced basis matrix `C` of the last refactorization.
    lu: Vec<f64>,
    /// Row interchanges of that LU factorization: row `c` was swapped with row `lu_perm[c]`.
    lu_perm: Vec<usize>,
    /// The rows of the basis held by a `z` or by `z₀` (the columns of `C`), in order.
    u_rows: Vec<usize>,
    /// Scratch vectors of length `n` for the refactorization's solves.
    solve_k: Vec<f64>,
    solve_n: Vec<f64>,
    /// The instruction set the column updates are compiled for (detected at run time).
    arch: Arch,
    /// Tests only: break ratio ties by taking the last tied row instead of the lexicographic
    /// rule, to show that the rule is what prevents cycling.
    #[cfg(test)]
    naive_ties: bool,
}

impl Default for LemkeWorkspace {
    fn default() -> Self {
        Self {
            m: Vec::new(),
            binv: Vec::new(),
            b: Vec::new(),
            d: Vec::new(),
            d_norm: 0.0,
            d_next: Vec::new(),
            g: Vec::new(),
            basis: Vec::new(),
            w_row: Vec::new(),
            dense: Vec::new(),
            dense_slot: Vec::new(),
            ties: Vec::new(),
            noise_rows: Vec::new(),
            lu: Vec::new(),
            lu_perm: Vec::new(),
            u_rows: Vec::new(),
            solve_k: Vec::new(),
            solve_n: Vec::new(),
            arch: Arch::new(),
            #[cfg(test)]
            naive_ties: false,
        }
    }
}

/// `max |vᵢ|` (0 for an empty slice).
fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |a: f64, x| a.max(x.abs()))
}

/// Grows `v` to at least `len` entries (never shrinks, so a later smaller problem reuses it).
fn grow<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) {
    if v.len() < len {
        v.resize(len, fill);
    }
}

/// Copies `m` (any storage) into the dense column-major buffer `out` (`n × n`, already sized)
/// and returns `max |mᵢⱼ|`.
pub(super) fn copy_to_dense(m: &NumericsMatrix, out: &mut [f64]) -> f64 {
    m.copy_to_col_major(out);
    out.iter().fold(0.0, |a: f64, v| a.max(v.abs()))
}

impl LemkeWorkspace {
    /// Sizes the buffers for `n` and copies `M`; returns `max |mᵢⱼ|`.
    fn prepare(&mut self, m: &NumericsMatrix, n: usize) -> f64 {
        grow(&mut self.m, n * n, 0.0);
        grow(&mut self.binv, n * n, 0.0);
        grow(&mut self.lu, n * n, 0.0);
        for v in [&mut self.b, &mut self.d, &mut self.d_next, &mut self.g, &mut self.solve_k] {
            grow(v, n, 0.0);
        }
        grow(&mut self.solve_n, 4 * n, 0.0);
        for v in [&mut self.basis, &mut self.w_row, &mut self.dense_slot, &mut self.lu_perm] {
            grow(v, n, 0);
        }
        self.u_rows.clear();
        self.u_rows.reserve(n);
        // `dense` and `ties` hold at most n entries: reserving here keeps the pivots allocation-free.
        self.dense.clear();
        self.dense.reserve(n);
        self.ties.clear();
        self.ties.reserve(n);
        self.noise_rows.clear();
        self.noise_rows.reserve(n);
        copy_to_dense(m, &mut self.m[..n * n])
    }

    /// Runs the pivoting; returns how it stopped and the pivots counted.
    fn run(&mut self, problem: &LcpProblem, options: &LemkeOptions) -> (Stop, usize) {
        let n = problem.size();
        let max_abs_m = self.prepare(problem.m(), n);
        let lexico = if options.tie_tolerance > 0.0 {
            Lexico::Relative(options.tie_tolerance)
        } else {
            // Siconos' lexicographic tolerances (`lexico_tol_elt`, `lexico_tol_diff`).
            Lexico::Absolute(max_abs_m * f64::EPSILON)
        };
        let z0 = 2 * n;

        // Standard basis {w}: B = I, b = q.
        self.b[..n].copy_from_slice(problem.q());
        for i in 0..n {
            self.basis[i] = i;
            self.w_row[i] = i;
        }

        // First pivot: z₀ enters with column B⁻¹(−d) = −1; the leaving row is the lexicographic
        // minimum of the rows of [q | I], i.e. the smallest qᵢ, ties going to the largest i.
        let q = problem.q();
        let mut r0 = 0;
        for (i, &qi) in q.iter().enumerate() {
            if qi <= q[r0] {
                r0 = i;
            }
        }
        self.d[..n].fill(-1.0);
        let mut entering = z0;
        let mut next = n + r0;
        self.pivot(n, r0, entering, Some(next));
        entering = next;

        let mut iterations = 0;
        // Pivots since the last refactorization, and whether the product form is fresh (no
        // pivot since the last successful refactorization).
        let mut since_refactorization = 0;
        let mut fresh = false;
        loop {
            if iterations >= options.max_iterations {
                return (Stop::MaxIterations, iterations);
            }
            iterations += 1;
            if options.refactorization_interval != 0 && since_refactorization >= options.refactorization_interval {
                since_refactorization = 0;
                fresh = fresh || self.refactorize(n, Some(entering), q);
            }
            let r = match self.ratio_test(n, entering, q, options, lexico, &mut fresh) {
                Ok(r) => r,
                Err(stop) => return (stop, iterations),
            };
            let leaving = self.basis[r];
            let growth = self.pivot_growth(r);
            if leaving == z0 {
                self.pivot(n, r, entering, None);
                return (Stop::Solved, iterations);
            }
            next = if leaving < n { leaving + n } else { leaving - n };
            if !self.pivot(n, r, entering, Some(next)) {
                return (Stop::Breakdown, iterations);
            }
            since_refactorization += 1;
            // The rank-one update of a small pivot amplifies the errors of B⁻¹ by up to its
            // growth: start again from the data.
            fresh = growth > options.small_pivot_growth && self.refactorize(n, Some(next), q);
            if fresh {
                since_refactorization = 0;
            }
            entering = next;
        }
    }

    /// Minimum-ratio test on the entering column `d` with lexicographic tie-breaking; returns
    /// the pivot row. `fresh` says whether the product form was rebuilt since the last pivot
    /// (updated when the test refactorizes).
    ///
    /// A clear decision is returned at once. A doubtful one is checked first: a ratio close to
    /// the minimum makes it refine `b` and `d` once and decide again with the refined values,
    /// if the refinement's corrections are within the tie threshold; a remaining doubt, a ray,
    /// a breakdown or a small pivot make it refactorize the basis and decide with the rebuilt
    /// values.
    fn ratio_test(
        &mut self,
        n: usize,
        entering: usize,
        q: &[f64],
        options: &LemkeOptions,
        lexico: Lexico,
        fresh: &mut bool,
    ) -> Result<usize, Stop> {
        let small_pivot = |ws: &Self, r: usize| ws.pivot_growth(r) > options.small_pivot_growth;
        let first = self.select_row(n, entering, options, lexico, TieCheck::Coarse);
        match first {
            Ok(r) if *fresh || !small_pivot(self, r) => return Ok(r),
            Err(Selection::Ambiguous) if !*fresh => {
                // A ratio close to the minimum: the decision is only as good as b and d. One
                // refinement (cheap) measures their errors; when those are within the tie
                // threshold, decide with the refined values, ratios within a multiple of the
                // errors left still counting as doubtful.
                let (err_b, err_d) = self.refine_b_d(n, entering, q);
                let tol = options.tie_tolerance;
                if err_b <= tol * max_abs(&self.b[..n]) && err_d <= tol * max_abs(&self.d[..n]) {
                    let refined = self.select_row(n, entering, options, lexico, TieCheck::Refined { err_b, err_d });
                    if let Ok(r) = refined
                        && !small_pivot(self, r)
                    {
                        return Ok(r);
                    }
                }
            }
            _ => {}
        }
        // A ray, a breakdown, a small pivot, or a doubtful ratio may be an artefact of the
        // rounding errors accumulated in b, d and B⁻¹: refactorize the basis (or, when it has
        // just been refactorized or that fails, refine b and d), then decide again.
        if !*fresh && self.refactorize(n, Some(entering), q) {
            *fresh = true;
        } else if let Ok(r) = first {
            return Ok(r);
        } else {
            let _ = self.refine_b_d(n, entering, q);
        }
        self.select_row(n, entering, options, lexico, TieCheck::Off).map_err(|e| match e {
            Selection::Stop(stop) => stop,
            Selection::Ambiguous => Stop::Breakdown,
        })
    }

    /// `‖d‖∞ / d_r`: by how much the pivot on row `r` can amplify the errors of the product form
    /// (`‖d‖∞` as the last [`LemkeWorkspace::select_row`] measured it).
    fn pivot_growth(&self, r: usize) -> f64 {
        self.d_norm / self.d[r]
    }

    /// The minimum-ratio test proper (see [`LemkeWorkspace::ratio_test`]). A ratio close to the
    /// minimum but outside the tie threshold (see [`TieCheck`] for how close) returns
    /// [`Selection::Ambiguous`] instead of a row. Records `‖d‖∞` in `d_norm`.
    fn select_row(
        &mut self,
        n: usize,
        entering: usize,
        options: &LemkeOptions,
        lexico: Lexico,
        check: TieCheck,
    ) -> Result<usize, Selection> {
        let dmax = max_abs(&self.d[..n]);
        self.d_norm = dmax;
        if !dmax.is_finite() {
            return Err(Selection::Stop(Stop::Breakdown));
        }
        let threshold = options.pivot_tolerance * dmax;
        let mut below_threshold = false;
        self.noise_rows.clear();
        // The minimum ratio over the rows with a pivot above the threshold; a winning row whose
        // pivot is rounding noise (see `is_noise`) is set aside and the minimum taken again.
        let (best, best_ratio) = loop {
            let mut best = usize::MAX;
            let mut best_ratio = f64::INFINITY;
            for (i, (&di, &bi)) in self.d[..n].iter().zip(&self.b[..n]).enumerate() {
                if di > threshold {
                    // A slightly negative basic value is rounding noise of a zero (degenerate) one.
                    let ratio = bi.max(0.0) / di;
                    if ratio < best_ratio && !self.noise_rows.contains(&i) {
                        best_ratio = ratio;
                        best = i;
                    }
                } else if di > 0.0 {
                    below_threshold = true;
                }
            }
            if best == usize::MAX {
                let b_finite = self.b[..n].iter().all(|v| v.is_finite());
                return Err(Selection::Stop(if below_threshold || !b_finite { Stop::Breakdown } else { Stop::Ray }));
            }
            if self.is_noise(n, best, entering, options.pivot_tolerance) {
                self.noise_rows.push(best);
                below_threshold = true;
            } else {
                break (best, best_ratio);
            }
        };
        let mut best = best;
        // Ties: rows whose ratio exceeds the minimum by so little that pivoting on them instead
        // would push the minimizing row below zero by at most `tie_tolerance · ‖b‖∞` (rounding
        // noise of ratios that are equal in exact arithmetic). Resolved lexicographically below.
        let bmax = max_abs(&self.b[..n]);
        let slack = options.tie_tolerance * bmax;
        let d_best = self.d[best];
        // How close to the minimum a ratio is doubtful (in the units of `gap` below). After a
        // refinement, the error left in a ratio bᵢ/dᵢ is about (err_b + ratio · err_d) / dᵢ; the
        // window counts it for both rows (`scaled`: times max(dᵢ, d_best) (1/dᵢ + 1/d_best)).
        let (window, scaled) = match check {
            TieCheck::Off => (f64::NEG_INFINITY, false),
            TieCheck::Coarse => (AMBIGUOUS_TIE * bmax, false),
            TieCheck::Refined { err_b, err_d } => (REFINED_WINDOW * (err_b + best_ratio * err_d), true),
        };
        self.ties.clear();
        for i in 0..n {
            let (di, bi) = (self.d[i], self.b[i]);
            if di <= threshold || i == best || self.noise_rows.contains(&i) {
                continue;
            }
            let gap = (bi.max(0.0) / di - best_ratio) * di.max(d_best);
            if gap <= slack {
                if !self.is_noise(n, i, entering, options.pivot_tolerance) {
                    self.ties.push(i);
                }
                continue;
            }
            if gap <= window || (scaled && gap <= window * di.max(d_best) * (1.0 / di + 1.0 / d_best)) {
                return Err(Selection::Ambiguous);
            }
        }
        #[cfg(test)]
        if self.naive_ties {
            return Ok(self.ties.last().copied().unwrap_or(best));
        }
        match lexico {
            Lexico::Relative(tau) => {
                let mut best_scale = self.key_scale(n, best);
                for k in 0..self.ties.len() {
                    let candidate = self.ties[k];
                    let scale = self.key_scale(n, candidate);
                    if self.lexico_smaller_relative(n, candidate, best, tau * scale.max(best_scale)) {
                        best = candidate;
                        best_scale = scale;
                    }
                }
            }
            Lexico::Absolute(tol) => {
                for k in 0..self.ties.len() {
                    let candidate = self.ties[k];
                    if self.lexico_smaller(n, candidate, best, tol) {
                        best = candidate;
                    }
                }
            }
        }
        Ok(best)
    }

    /// One step of iterative refinement of `b = B⁻¹q` and of the entering column `d = B⁻¹a`:
    /// `x ← x + B⁻¹(y − B x)`, the residual being computed with the exact columns of `B`
    /// (`eⱼ` for `wⱼ`, `−M eᵢ` for `zᵢ`, `−1` for `z₀`). It removes the rounding errors that the
    /// product-form updates accumulate in `b` and `d` (to first order in the error of `B⁻¹`).
    /// Costs about four passes over the stored columns; run only when a decision is in doubt.
    ///
    /// Returns the sizes `(‖δb‖∞, ‖δd‖∞)` of the corrections made, which estimate the errors
    /// `b` and `d` had (and bound those left, when `B⁻¹` has a few correct digits).
    fn refine_b_d(&mut self, n: usize, entering: usize, q: &[f64]) -> (f64, f64) {
        let mut change = [0.0f64; 2];
        for (target, size) in change.iter_mut().enumerate() {
            // Residual y − B x into g, x being b (target 0) or d (target 1).
            let rho = &mut self.g[..n];
            if target == 0 {
                rho.copy_from_slice(q);
            } else if entering < n {
                rho.fill(0.0);
                rho[entering] = 1.0;
            } else if entering == 2 * n {
                rho.fill(-1.0);
            } else {
                let i = entering - n;
                for (r, m) in rho.iter_mut().zip(&self.m[i * n..][..n]) {
                    *r = -m;
                }
            }
            let x = if target == 0 { &self.b[..n] } else { &self.d[..n] };
            for (&v, &xr) in self.basis[..n].iter().zip(x) {
                if v < n {
                    rho[v] -= xr;
                } else if v == 2 * n {
                    rho.iter_mut().for_each(|r| *r += xr);
                } else if xr != 0.0 {
                    for (r, m) in rho.iter_mut().zip(&self.m[(v - n) * n..][..n]) {
                        *r += xr * m;
                    }
                }
            }
            // Correction B⁻¹ρ into d_next, then x += correction.
            let delta = &mut self.d_next[..n];
            delta.fill(0.0);
            for (j, (&rj, &row)) in rho.iter().zip(&self.w_row[..n]).enumerate() {
                if row != NONBASIC {
                    delta[row] += rj;
                } else if rj != 0.0 {
                    for (dl, c) in delta.iter_mut().zip(&self.binv[j * n..][..n]) {
                        *dl += rj * c;
                    }
                }
            }
            let x = if target == 0 { &mut self.b[..n] } else { &mut self.d[..n] };
            for (xr, dl) in x.iter_mut().zip(delta.iter()) {
                *xr += dl;
                *size = size.max(dl.abs());
            }
        }
        (change[0], change[1])
    }

    /// `true` when the entry `d_row` of the column of the entering `zᵢ` is rounding noise:
    /// `d_row ≤ pivot_tolerance · s` with `s = |M_{p,i}| + Σ_{j: wⱼ nonbasic} |M_{j,i}| |(B⁻¹)_{row,j}|`
    /// (`w_p` the basic variable of the row, if it is a `w`), the size of the terms summed into
    /// `d_row = −(M_{p,i} + Σⱼ M_{j,i} (B⁻¹)_{row,j})`. An entry that is zero in exact arithmetic
    /// comes out as a few ulps of `s`, which can exceed `pivot_tolerance · ‖d‖∞` when `d` is
    /// small next to its terms. Columns of an entering `w` (stored columns of `B⁻¹`) are only
    /// checked against `‖d‖∞`. Costs `O(#nonbasic w)`; called for the winning rows only.
    fn is_noise(&self, n: usize, row: usize, entering: usize, pivot_tolerance: f64) -> bool {
        if entering < n || entering == 2 * n {
            return false;
        }
        let i = entering - n;
        let mcol = &self.m[i * n..][..n];
        let unit = if self.basis[row] < n { mcol[self.basis[row]].abs() } else { 0.0 };
        let scale = self.dense.iter().fold(unit, |acc, &j| acc + (mcol[j] * self.binv[j * n + row]).abs());
        self.d[row] <= pivot_tolerance * scale
    }

    /// Entry `(r, j)` of `B⁻¹`.
    #[inline]
    fn binv_entry(&self, n: usize, r: usize, j: usize) -> f64 {
        match self.w_row[j] {
            NONBASIC => self.binv[j * n + r],
            row if row == r => 1.0,
            _ => 0.0,
        }
    }

    /// `max_j |(B⁻¹)_{r,j}| / d_r`, the size of the lexicographic key of row `r` (its entries in
    /// the columns of the basic `w` are 0, or 1 for the `w` of row `r`).
    fn key_scale(&self, n: usize, r: usize) -> f64 {
        let unit = if self.basis[r] < n { 1.0 } else { 0.0 };
        self.dense.iter().fold(unit, |a: f64, &j| a.max(self.binv[j * n + r].abs())) / self.d[r]
    }

    /// `true` when row `c` of `B⁻¹ / d_c` is lexicographically smaller than row `best` of
    /// `B⁻¹ / d_best` (their ratios `b/d` being equal), entries closer than `window` counting
    /// as equal ([`Lexico::Relative`]: `window` is `tie_tolerance` times the larger of the two
    /// rows' [`LemkeWorkspace::key_scale`], so that entries equal in exact arithmetic, which
    /// differ by the rounding errors of `B⁻¹`, compare equal).
    fn lexico_smaller_relative(&self, n: usize, c: usize, best: usize, window: f64) -> bool {
        let (dc, db) = (self.d[c], self.d[best]);
        for j in 0..n {
            let kb = self.binv_entry(n, best, j) / db;
            let kc = self.binv_entry(n, c, j) / dc;
            if (kb - kc).abs() > window {
                return kc < kb;
            }
        }
        false
    }

    /// `true` when row `c` of `B⁻¹ / d_c` is lexicographically smaller than row `best` of
    /// `B⁻¹ / d_best` (their ratios `b/d` being equal). Comparisons within the absolute `tol`
    /// count as equal, as in Siconos' `lcp_lexicolemke` ([`Lexico::Absolute`]).
    fn lexico_smaller(&self, n: usize, c: usize, best: usize, tol: f64) -> bool {
        let (dc, db) = (self.d[c], self.d[best]);
        for j in 0..n {
            let eb = self.binv_entry(n, best, j);
            let ec = self.binv_entry(n, c, j);
            if eb.abs() < tol {
                if ec < -tol {
                    return true;
                } else if ec > tol {
                    return false;
                }
            } else if ec.abs() < tol {
                if eb > tol {
                    return true;
                } else if eb < -tol {
                    return false;
                }
            } else {
                // eb/db − ec/dc has the sign of eb·dc − ec·db (pivots are positive).
                let delta = eb * dc - ec * db;
                if delta < -tol {
                    return false;
                } else if delta > tol {
                    return true;
                }
            }
        }
        false
    }

    /// Sets `g = d − e_r` and returns `1 / d_r`.
    fn prepare_g(&mut self, n: usize, r: usize) -> f64 {
        let g = &mut self.g[..n];
        g.copy_from_slice(&self.d[..n]);
        g[r] -= 1.0;
        1.0 / self.d[r]
    }

    /// Pivots on row `r` with the entering column `d` (of variable `entering`), and computes in
    /// the same pass the column of `next`, the variable that enters at the following pivot,
    /// into `d` (`None` after the last pivot). Returns `false` when a non-finite value appears.
    fn pivot(&mut self, n: usize, r: usize, entering: usize, next: Option<usize>) -> bool {
        let inv_p = self.prepare_g(n, r);
        let t = self.b[r] * inv_p;
        if !t.is_finite() {
            return false;
        }
        for (bi, gi) in self.b[..n].iter_mut().zip(&self.g[..n]) {
            *bi -= t * gi;
        }
        let leaving = self.basis[r];
        self.basis[r] = entering;

        // An entering w becomes basic: its column of B⁻¹ turns into the unit vector e_r.
        if entering < n {
            self.w_row[entering] = r;
            let slot = self.dense_slot[entering];
            self.dense.swap_remove(slot);
            if let Some(&moved) = self.dense.get(slot) {
                self.dense_slot[moved] = slot;
            }
        }
        // A leaving w becomes nonbasic: its column, e_r before the pivot, is e_r − g / d_r after.
        let fresh = if leaving < n {
            let col = &mut self.binv[leaving * n..][..n];
            for (c, gi) in col.iter_mut().zip(&self.g[..n]) {
                *c = -gi * inv_p;
            }
            col[r] += 1.0;
            self.w_row[leaving] = NONBASIC;
            self.dense_slot[leaving] = self.dense.len();
            self.dense.push(leaving);
            leaving
        } else {
            NONBASIC
        };

        // The pass over the stored columns of B⁻¹ is the hot loop: it runs under pulp's runtime
        // dispatch so that it is compiled for the best instruction set available (AVX2 on
        // x86-64), in safe code. There is no reduction, so the results are the same bits on
        // every instruction set.
        let g = &self.g[..n];
        let binv = &mut self.binv[..n * n];
        let dense = &self.dense[..];
        match next {
            Some(next) if next >= n => {
                // zᵢ enters next: d_next = B⁻¹(−M eᵢ) = −Σⱼ M_ji B⁻¹eⱼ. The basic w give the unit part,
                // the nonbasic ones are accumulated while their columns are updated.
                let i = next - n;
                let mcol = &self.m[i * n..][..n];
                let d_next = &mut self.d_next[..n];
                d_next.fill(0.0);
                for (j, &row) in self.w_row[..n].iter().enumerate() {
                    if row != NONBASIC {
                        d_next[row] = -mcol[j];
                    }
                }
                self.arch.dispatch(ColumnPass { binv, dense, g, r, inv_p, fresh, next: Some((mcol, d_next)) });
                std::mem::swap(&mut self.d, &mut self.d_next);
            }
            Some(next) => {
                // wᵢ enters next: its column of B⁻¹ is stored; update every column, then copy it.
                self.arch.dispatch(ColumnPass { binv, dense, g, r, inv_p, fresh, next: None });
                self.d[..n].copy_from_slice(&self.binv[next * n..][..n]);
            }
            None => self.arch.dispatch(ColumnPass { binv, dense, g, r, inv_p, fresh, next: None }),
        }
        true
    }

    /// Up to [`REFINEMENT_STEPS`] steps of [`LemkeWorkspace::refine`], while the residual
    /// drops; returns the residual of the returned `z`.
    fn refine_steps(
        &mut self,
        problem: &LcpProblem,
        z: &mut [f64],
        w: &mut [f64],
        mut residual: f64,
    ) -> Result<f64, NumericsError> {
        for _ in 0..REFINEMENT_STEPS {
            if residual <= 0.0 {
                break;
            }
            let refined = self.refine(problem, z, w, residual, false)?;
            let improved = refined < residual;
            residual = refined;
            if !improved {
                break;
            }
        }
        Ok(residual)
    }

    /// One step of iterative refinement of the final (complementary) basis: with
    /// `w̃ = M z + q` at the extracted point, the residual of `B x_B = q` is
    /// `ρ = w̃ − w_B` (`w_B` the basic `w`, 0 elsewhere), and `x_B ← x_B + B⁻¹ρ`. The refined
    /// point is kept only if its residual is not larger. `w` holds `w̃` on entry (and the `w` of
    /// the returned `z` on exit); returns the residual of the returned `z`.
    ///
    /// With `compensated`, `w̃` is recomputed in twice the working precision (see
    /// [`LemkeWorkspace::compensated_w`]): the refinement then converges to the correctly rounded
    /// `x_B` as long as `B⁻¹` has a few correct digits, even when `B` is ill-conditioned (the
    /// classical result on iterative refinement with residuals in extra precision).
    fn refine(
        &mut self,
        problem: &LcpProblem,
        z: &mut [f64],
        w: &mut [f64],
        residual: f64,
        compensated: bool,
    ) -> Result<f64, NumericsError> {
        let n = z.len();
        if compensated {
            self.compensated_w(n, problem.q(), z);
        }
        let (hi, rest) = self.solve_n.split_at_mut(n);
        let lo = &rest[..n];
        let delta = &mut self.d_next[..n];
        delta.fill(0.0);
        for (j, &row) in self.w_row[..n].iter().enumerate() {
            let basic = if row == NONBASIC { 0.0 } else { self.b[row] };
            let rho = if compensated { (hi[j] - basic) + lo[j] } else { w[j] - basic };
            if row == NONBASIC {
                // wⱼ should be 0: its column of B⁻¹ carries the correction.
                if rho != 0.0 {
                    for (dl, c) in delta.iter_mut().zip(&self.binv[j * n..][..n]) {
                        *dl += rho * c;
                    }
                }
            } else {
                delta[row] += rho;
            }
        }
        hi.copy_from_slice(&self.b[..n]);
        for (bi, dl) in self.b[..n].iter_mut().zip(delta.iter()) {
            *bi += dl;
        }
        self.extract_z(z);
        let refined = problem.compute_error(z, w)?;
        if refined <= residual {
            return Ok(refined);
        }
        self.b[..n].copy_from_slice(&self.solve_n[..n]);
        self.extract_z(z);
        problem.compute_error(z, w)
    }

    /// `w̃ = M z + q` in twice the working precision: entry `i` is the unevaluated sum
    /// `solve_n[i] + solve_n[n + i]`, accumulated with error-free transformations (`TwoSum`,
    /// `TwoProduct`: the compensated dot product `Dot2` of Ogita, Rump and Oishi, 2005), so it
    /// is as accurate as if computed in quadruple precision and rounded to two doubles.
    fn compensated_w(&mut self, n: usize, q: &[f64], z: &[f64]) {
        let (hi, rest) = self.solve_n.split_at_mut(n);
        let lo = &mut rest[..n];
        hi.copy_from_slice(q);
        lo.fill(0.0);
        for (j, &zj) in z.iter().enumerate() {
            if zj == 0.0 {
                continue;
            }
            let (zh, zl) = split(zj);
            for ((h, l), &mij) in hi.iter_mut().zip(lo.iter_mut()).zip(&self.m[j * n..][..n]) {
                let p = mij * zj;
                let (mh, ml) = split(mij);
                let e = ml * zl - (((p - mh * zh) - ml * zh) - mh * zl);
                let s = *h + p;
                let bp = s - *h;
                let t = (*h - (s - bp)) + (p - bp);
                *h = s;
                *l += t + e;
            }
        }
    }

    /// Polishes the final basis when its solution misses the tolerance: refactorizes it, then
    /// refines with residuals in twice the working precision ([`LemkeWorkspace::refine`]).
    /// Keeps whichever of the incoming and the polished point has the smaller residual.
    fn polish(
        &mut self,
        problem: &LcpProblem,
        z: &mut [f64],
        w: &mut [f64],
        residual: f64,
    ) -> Result<f64, NumericsError> {
        let n = z.len();
        // `d` is free once the pivoting has stopped: it keeps the incoming b.
        self.d[..n].copy_from_slice(&self.b[..n]);
        let mut polished = residual;
        if self.refactorize(n, None, problem.q()) {
            self.extract_z(z);
            polished = problem.compute_error(z, w)?;
        }
        for _ in 0..REFINEMENT_STEPS {
            if polished <= 0.0 {
                break;
            }
            let refined = self.refine(problem, z, w, polished, true)?;
            let improved = refined < polished;
            polished = refined;
            if !improved {
                break;
            }
        }
        if polished <= residual {
            return Ok(polished);
        }
        self.b[..n].copy_from_slice(&self.d[..n]);
        self.extract_z(z);
        problem.compute_error(z, w)
    }

    /// Rebuilds the product form from the basis (a refactorization): factorizes the basis
    /// matrix `B` (columns `eⱼ` for a basic `wⱼ`, `−M eᵢ` for a basic `zᵢ`, `−1` for `z₀`) and
    /// recomputes `b = B⁻¹q`, the stored columns of `B⁻¹` and, when `entering` is given, the
    /// entering column `d = B⁻¹a_entering`, all from the data, discarding the rounding errors
    /// the pivots have accumulated. The basis is unchanged.
    ///
    /// With `U` the rows held by a `z` or `z₀` (`k` of them) and `N` the `j` whose `wⱼ` is
    /// nonbasic (also `k` of them), `B x = y` splits into the `k × k` system
    /// `C x_U = y_N`, `C = [a_v]_{N, v ∈ U}`, and `x_{row(wᵢ)} = yᵢ − Σ_{v ∈ U} (a_v)ᵢ x_v` for
    /// the basic `wᵢ`. `C` is factorized by LU with partial pivoting (`2k³/3` flops); the `k`
    /// stored columns of `B⁻¹` (`X = C⁻¹` on the rows `U`, then the rows of the basic `w`) cost
    /// about `2k³ + 2nk²`, done four columns at a time by [`InversePass`] and [`BasicRowsPass`].
    ///
    /// Returns `false`, leaving everything unchanged, when `C` is singular to working
    /// precision (a pivot of the LU below `k ε max|C|`) or not finite.
    fn refactorize(&mut self, n: usize, entering: Option<usize>, q: &[f64]) -> bool {
        let Self { m, binv, b, d, basis, w_row, dense, lu, lu_perm, u_rows, solve_k, solve_n, arch, .. } = self;
        u_rows.clear();
        u_rows.extend((0..n).filter(|&r| basis[r] >= n));
        let k = u_rows.len();
        if k != dense.len() {
            // Cannot happen: every pivot keeps #(basic z, z₀) = #(nonbasic w). Kept as a guard
            // against indexing out of the k × k block.
            return false;
        }
        // C, column-major: column c is the column of the basic variable of row u_rows[c],
        // restricted to the rows of the nonbasic w.
        let lu = &mut lu[..k * k];
        for (col, &r) in lu.chunks_exact_mut(k.max(1)).zip(u_rows.iter()) {
            let v = basis[r];
            if v == 2 * n {
                col.fill(-1.0);
            } else {
                let mcol = &m[(v - n) * n..][..n];
                for (c, &j) in col.iter_mut().zip(dense.iter()) {
                    *c = -mcol[j];
                }
            }
        }
        if !lu_factor(lu, &mut lu_perm[..k], k) {
            return false;
        }
        let lu = &*lu;
        let xu = &mut solve_k[..k];
        let t = &mut solve_n[..n];
        // b = B⁻¹q.
        for (x, &j) in xu.iter_mut().zip(dense.iter()) {
            *x = q[j];
        }
        lu_solve(lu, &lu_perm[..k], xu);
        t.copy_from_slice(q);
        expand(n, m, basis, w_row, u_rows, xu, t, &mut b[..n]);
        // The stored columns of B⁻¹ (B⁻¹eⱼ for the nonbasic wⱼ, the a-th one of `dense`) on the
        // rows U: column a of X = C⁻¹, four LU solves at a time.
        arch.dispatch(InversePass { n, k, lu, perm: &lu_perm[..k], u_rows, dense, binv, t: &mut solve_n[..4 * n] });
        // Their rows of the basic w, four columns at a time.
        arch.dispatch(BasicRowsPass { n, m, basis, w_row, u_rows, dense, binv, t: &mut solve_n[..4 * n] });
        let t = &mut solve_n[..n];
        // The entering column.
        match entering {
            Some(e) if e < n => d[..n].copy_from_slice(&binv[e * n..][..n]),
            Some(e) => {
                if e == 2 * n {
                    t.fill(-1.0);
                } else {
                    for (ti, mi) in t.iter_mut().zip(&m[(e - n) * n..][..n]) {
                        *ti = -mi;
                    }
                }
                for (x, &j) in xu.iter_mut().zip(dense.iter()) {
                    *x = t[j];
                }
                lu_solve(lu, &lu_perm[..k], xu);
                expand(n, m, basis, w_row, u_rows, xu, t, &mut d[..n]);
            }
            None => {}
        }
        true
    }

    /// Writes `z` from the basic variables (`z₀` ignored; nonbasic `z` are 0).
    fn extract_z(&self, z: &mut [f64]) {
        let n = z.len();
        z.fill(0.0);
        for (&v, &bv) in self.basis[..n].iter().zip(&self.b[..n]) {
            if (n..2 * n).contains(&v) {
                z[v - n] = bv;
            }
        }
    }
}

/// LU factorization with partial pivoting, in place, of the `k × k` column-major matrix `a`:
/// `P a = L U` with `L` unit lower triangular (stored below the diagonal) and `U` upper
/// triangular; `perm[c]` is the row swapped with row `c` at step `c` (LAPACK's `getrf`
/// convention). Returns `false` when a pivot is below `k ε max|aᵢⱼ|` or a value is not finite
/// (the matrix is singular to working precision).
fn lu_factor(a: &mut [f64], perm: &mut [usize], k: usize) -> bool {
    let amax = max_abs(a);
    if !amax.is_finite() {
        return false;
    }
    let floor = k as f64 * f64::EPSILON * amax;
    for c in 0..k {
        // The largest entry of column c on or below the diagonal (the first one on equality).
        let mut p = c;
        for i in c + 1..k {
            if a[c * k + i].abs() > a[c * k + p].abs() {
                p = i;
            }
        }
        let pmax = a[c * k + p].abs();
        if pmax.is_nan() || pmax <= floor {
            return false;
        }
        perm[c] = p;
        if p != c {
            for j in 0..k {
                a.swap(j * k + c, j * k + p);
            }
        }
        let (left, right) = a.split_at_mut((c + 1) * k);
        let col_c = &mut left[c * k..];
        let inv = 1.0 / col_c[c];
        for l in &mut col_c[c + 1..] {
            *l *= inv;
        }
        let l_c = &col_c[c + 1..];
        for col_j in right.chunks_exact_mut(k) {
            let f = col_j[c];
            if f != 0.0 {
                for (x, l) in col_j[c + 1..].iter_mut().zip(l_c) {
                    *x -= f * l;
                }
            }
        }
    }
    true
}

/// Solves `A x = y` in place (`x` overwrites `y`) with the factors of [`lu_factor`].
fn lu_solve(lu: &[f64], perm: &[usize], y: &mut [f64]) {
    let k = y.len();
    for (c, &p) in perm.iter().enumerate() {
        y.swap(c, p);
    }
    for c in 0..k {
        let yc = y[c];
        if yc != 0.0 {
            for (yi, l) in y[c + 1..].iter_mut().zip(&lu[c * k + c + 1..(c + 1) * k]) {
                *yi -= yc * l;
            }
        }
    }
    for c in (0..k).rev() {
        y[c] /= lu[c * k + c];
        let yc = y[c];
        if yc != 0.0 {
            for (yi, u) in y[..c].iter_mut().zip(&lu[c * k..c * k + c]) {
                *yi -= yc * u;
            }
        }
    }
}

/// Completes the solution `x` (indexed by basis row) of `B x = y` from its part `xu` on the rows
/// `u_rows` (held by a `z` or `z₀`): `x_{row(wᵢ)} = yᵢ − Σ_c (a_{v_c})ᵢ xu_c` for each basic
/// `wᵢ`, where `a_v = −M e_{v−n}` for a `z` and `−1` for `z₀`. `t` holds `y` on entry (only its
/// entries at basic `w` matter) and is overwritten.
#[allow(clippy::too_many_arguments)]
fn expand(
    n: usize,
    m: &[f64],
    basis: &[usize],
    w_row: &[usize],
    u_rows: &[usize],
    xu: &[f64],
    t: &mut [f64],
    x: &mut [f64],
) {
    for (&r, &s) in u_rows.iter().zip(xu) {
        x[r] = s;
        if s == 0.0 {
            continue;
        }
        let v = basis[r];
        if v == 2 * n {
            t.iter_mut().for_each(|ti| *ti += s);
        } else {
            for (ti, mi) in t.iter_mut().zip(&m[(v - n) * n..][..n]) {
                *ti += s * mi;
            }
        }
    }
    for (&row, &ti) in w_row[..n].iter().zip(t.iter()) {
        if row != NONBASIC {
            x[row] = ti;
        }
    }
}

/// The rows `U` of the stored columns of `B⁻¹` after a refactorization: column `a` of
/// `X = C⁻¹` for the column of the `a`-th nonbasic `w`, by LU solves with the unit vectors,
/// four right-hand sides at a time (each column of `L` and `U` is read once per four). No
/// reduction: the same bits on every instruction set.
struct InversePass<'a> {
    n: usize,
    k: usize,
    lu: &'a [f64],
    perm: &'a [usize],
    u_rows: &'a [usize],
    dense: &'a [usize],
    binv: &'a mut [f64],
    /// Scratch, at least `4k`.
    t: &'a mut [f64],
}

impl WithSimd for InversePass<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, _simd: S) {
        let Self { n, k, lu, perm, u_rows, dense, binv, t } = self;
        let t = &mut t[..4 * k];
        for (block_index, block) in dense.chunks(4).enumerate() {
            t.fill(0.0);
            let a0 = 4 * block_index;
            for (s, chunk) in t.chunks_exact_mut(k).enumerate().take(block.len()) {
                chunk[a0 + s] = 1.0;
                for (c, &p) in perm.iter().enumerate() {
                    chunk.swap(c, p);
                }
            }
            let (y0, rest) = t.split_at_mut(k);
            let (y1, rest) = rest.split_at_mut(k);
            let (y2, y3) = rest.split_at_mut(k);
            // Forward substitution with the unit lower L (the first a0 entries stay zero).
            for c in 0..k {
                let v = [y0[c], y1[c], y2[c], y3[c]];
                if v.iter().all(|&x| x == 0.0) {
                    continue;
                }
                let l = &lu[c * k + c + 1..(c + 1) * k];
                for ((((x0, x1), x2), x3), &lv) in y0[c + 1..]
                    .iter_mut()
                    .zip(y1[c + 1..].iter_mut())
                    .zip(y2[c + 1..].iter_mut())
                    .zip(y3[c + 1..].iter_mut())
                    .zip(l)
                {
                    *x0 -= v[0] * lv;
                    *x1 -= v[1] * lv;
                    *x2 -= v[2] * lv;
                    *x3 -= v[3] * lv;
                }
            }
            // Back substitution with U.
            for c in (0..k).rev() {
                let diag = lu[c * k + c];
                y0[c] /= diag;
                y1[c] /= diag;
                y2[c] /= diag;
                y3[c] /= diag;
                let v = [y0[c], y1[c], y2[c], y3[c]];
                let u = &lu[c * k..c * k + c];
                for ((((x0, x1), x2), x3), &uv) in
                    y0[..c].iter_mut().zip(y1[..c].iter_mut()).zip(y2[..c].iter_mut()).zip(y3[..c].iter_mut()).zip(u)
                {
                    *x0 -= v[0] * uv;
                    *x1 -= v[1] * uv;
                    *x2 -= v[2] * uv;
                    *x3 -= v[3] * uv;
                }
            }
            for (&j, y) in block.iter().zip([&*y0, &*y1, &*y2, &*y3]) {
                let col = &mut binv[j * n..][..n];
                for (&r, &x) in u_rows.iter().zip(y.iter()) {
                    col[r] = x;
                }
            }
        }
    }
}

/// The rows of the basic `w` in the stored columns of `B⁻¹` after a refactorization:
/// column `j` (nonbasic `wⱼ`) holds `X_{c,a}` on the rows `U` already; its entry on the row of
/// a basic `wᵢ` is `−Σ_c (a_{v_c})ᵢ X_{c,a}` (see [`expand`]). Four columns are accumulated at
/// once, so each column of `M` is read once per four columns of `B⁻¹`. No reduction: the
/// same bits on every instruction set.
struct BasicRowsPass<'a> {
    n: usize,
    m: &'a [f64],
    basis: &'a [usize],
    w_row: &'a [usize],
    u_rows: &'a [usize],
    dense: &'a [usize],
    binv: &'a mut [f64],
    /// Scratch, `4n`.
    t: &'a mut [f64],
}

impl WithSimd for BasicRowsPass<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, _simd: S) {
        let Self { n, m, basis, w_row, u_rows, dense, binv, t } = self;
        for block in dense.chunks(4) {
            t.fill(0.0);
            let (t0, rest) = t.split_at_mut(n);
            let (t1, rest) = rest.split_at_mut(n);
            let (t2, t3) = rest.split_at_mut(n);
            for &r in u_rows {
                let mut c = [0.0; 4];
                for (ci, &j) in c.iter_mut().zip(block) {
                    *ci = binv[j * n + r];
                }
                let v = basis[r];
                if v == 2 * n {
                    for (((x0, x1), x2), x3) in t0.iter_mut().zip(t1.iter_mut()).zip(t2.iter_mut()).zip(t3.iter_mut()) {
                        *x0 += c[0];
                        *x1 += c[1];
                        *x2 += c[2];
                        *x3 += c[3];
                    }
                } else {
                    let col = &m[(v - n) * n..][..n];
                    for ((((x0, x1), x2), x3), &a) in
                        t0.iter_mut().zip(t1.iter_mut()).zip(t2.iter_mut()).zip(t3.iter_mut()).zip(col)
                    {
                        *x0 += c[0] * a;
                        *x1 += c[1] * a;
                        *x2 += c[2] * a;
                        *x3 += c[3] * a;
                    }
                }
            }
            for (&j, tj) in block.iter().zip([&*t0, &*t1, &*t2, &*t3]) {
                let col = &mut binv[j * n..][..n];
                for (&row, &x) in w_row[..n].iter().zip(tj.iter()) {
                    if row != NONBASIC {
                        col[row] = x;
                    }
                }
            }
        }
    }
}

/// Veltkamp's splitting of `a` into two halves of 26 bits, `a = hi + lo` exactly (for
/// `|a| < 2⁹⁹⁶`), the building block of Dekker's `TwoProduct`.
#[inline(always)]
fn split(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// The pass over the stored columns `j ∈ dense` of `B⁻¹` for the pivot on row `r`:
/// `c ← c − (c_r / d_r) g` (column `fresh` is already up to date), and with
/// `next = (mcol, acc)`, `acc ← acc − Σⱼ mcol[j] cⱼ` over the updated columns, in the same pass.
struct ColumnPass<'a> {
    binv: &'a mut [f64],
    dense: &'a [usize],
    g: &'a [f64],
    r: usize,
    inv_p: f64,
    fresh: usize,
    next: Option<(&'a [f64], &'a mut [f64])>,
}

impl WithSimd for ColumnPass<'_> {
    type Output = ();

    // Inlined into pulp's function compiled for the detected instruction set, together with
    // `update_and_accumulate`, so the loops are vectorized for it.
    #[inline(always)]
    fn with_simd<S: Simd>(self, _simd: S) {
        let Self { binv, dense, g, r, inv_p, fresh, next } = self;
        let n = g.len();
        match next {
            Some((mcol, acc)) => {
                for &j in dense {
                    let col = &mut binv[j * n..][..n];
                    let s = if j == fresh { 0.0 } else { col[r] * inv_p };
                    update_and_accumulate(col, g, s, mcol[j], acc);
                }
            }
            None => {
                for &j in dense {
                    if j != fresh {
                        let col = &mut binv[j * n..][..n];
                        let s = col[r] * inv_p;
                        update_and_accumulate(col, g, s, 0.0, &mut []);
                    }
                }
            }
        }
    }
}

/// `c ← c − s g`, then `acc ← acc − a c` (with the updated `c`), in one pass.
#[inline(always)]
fn update_and_accumulate(c: &mut [f64], g: &[f64], s: f64, a: f64, acc: &mut [f64]) {
    match (s != 0.0, a != 0.0) {
        (true, true) => {
            for ((ci, gi), ai) in c.iter_mut().zip(g).zip(acc.iter_mut()) {
                let v = *ci - s * gi;
                *ci = v;
                *ai -= a * v;
            }
        }
        (true, false) => {
            for (ci, gi) in c.iter_mut().zip(g) {
                *ci -= s * gi;
            }
        }
        (false, true) => {
            for (ci, ai) in c.iter().zip(acc.iter_mut()) {
                *ai -= a * ci;
            }
        }
        (false, false) => {}
    }
}
