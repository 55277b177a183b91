//! Lexicographic Lemke pivoting for the LCP (Siconos `lcp_lexicolemke`,
//! numerics/src/LCP/lcp_lexicolemke.c; "LexicoLemke" in seed `004_92d6a38d23055e78.txt`,
//! lines 124-127, "Non smooth solvers").
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
//! leave the exact one and end on a false ray. Four guards, all inactive on non-degenerate
//! problems (the pivot counts then equal Siconos'):
//! - ratios within [`LemkeOptions::tie_tolerance`] of the minimum are ties; a negative basic
//!   value is taken as 0 in the ratios (it is the rounding of a zero);
//! - a ratio just outside the tie threshold (within `1e-6 ‖b‖∞`), or a ray, or an unusable
//!   pivot, first triggers one step of iterative refinement of `b` and of the entering column
//!   with the exact columns of the basis, then the ratio test is done again;
//! - a winning pivot that is below [`LemkeOptions::pivot_tolerance`] times the size of the
//!   terms it was summed from is rounding noise of a zero and is set aside;
//! - the final basis is refined (up to three steps) before `z` is returned.
//!
//! On exactly feasible, highly degenerate integer PSD problems (n ≤ 30) this solves all but
//! about 2 in 1000 (tests/it/lcp_pivoting.rs); the rest lose too many digits of `B⁻¹` after
//! small pivots (refactorizing the basis would be the remedy; not done).

use super::{LcpProblem, LcpSolver};
use faer::traits::pulp::{Arch, Simd, WithSimd};

use crate::matrix::NumericsMatrix;
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
    /// leave the exact pivot path and end on a false ray. `0` gives Siconos' rule (exactly
    /// equal ratios only) (default: `1e-11`).
    pub tie_tolerance: f64,
}

impl Default for LemkeOptions {
    fn default() -> Self {
        Self { max_iterations: 10_000, tolerance: 1e-10, pivot_tolerance: 1e-12, tie_tolerance: 1e-11 }
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

    fn validate(&self) -> Result<(), NumericsError> {
        if self.tolerance.is_nan() || self.tolerance <= 0.0 {
            return Err(NumericsError::InvalidOption { name: "tolerance", reason: "must be positive" });
        }
        if self.max_iterations == 0 {
            return Err(NumericsError::InvalidOption { name: "max_iterations", reason: "must be at least 1" });
        }
        if self.pivot_tolerance.is_nan() || self.pivot_tolerance < 0.0 || self.pivot_tolerance >= 1.0 {
            return Err(NumericsError::InvalidOption { name: "pivot_tolerance", reason: "must be in [0, 1)" });
        }
        if self.tie_tolerance.is_nan() || self.tie_tolerance < 0.0 || self.tie_tolerance >= 1.0 {
            return Err(NumericsError::InvalidOption { name: "tie_tolerance", reason: "must be in [0, 1)" });
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
/// threshold, refinement of doubtful ratio tests, a noise test on small pivots, refinement of
/// the final basis) keep it on the exact pivot path on degenerate problems; they are inactive
/// on non-degenerate ones, where the pivots are those of Siconos. The implementation notes are
/// at the top of `src/lcp/lemke.rs`.
///
/// It solves every LCP whose matrix is a P-matrix, and every feasible LCP with a positive
/// semidefinite matrix; on other problems it may end on a ray ([`SolverStatus::RayTermination`]).
/// Any storage is accepted: the matrix is copied once per solve into a dense workspace owned
/// by the solver, which is reused (no allocation when solving again a problem of the same or a
/// smaller size).
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
    /// `max_iterations` is 0, or `pivot_tolerance` is not in `[0, 1)`.
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
        let tolerance = self.options.tolerance;
        let converged = |residual: f64| residual <= tolerance;

        // Trivial case: q ≥ 0, so z = 0, w = q solves the LCP.
        if problem.q().iter().all(|&qi| qi >= 0.0) {
            z.fill(0.0);
            let residual = problem.compute_error(z, w)?;
            let status = if converged(residual) { SolverStatus::Converged } else { SolverStatus::NumericalBreakdown };
            return Ok(SolverReport::new(status, 0, residual));
        }
        // Warm start: the incoming z is already a solution.
        let residual = problem.compute_error(z, w)?;
        if converged(residual) {
            return Ok(SolverReport::new(SolverStatus::Converged, 0, residual));
        }

        let (stop, iterations) = self.workspace.run(problem, &self.options);
        self.workspace.extract_z(z);
        let mut residual = problem.compute_error(z, w)?;
        // Iterative refinement of the final basis: up to three steps, while the residual drops.
        if stop == Stop::Solved {
            for _ in 0..REFINEMENT_STEPS {
                if residual <= 0.0 {
                    break;
                }
                let refined = self.workspace.refine(problem, z, w, residual)?;
                let improved = refined < residual;
                residual = refined;
                if !improved {
                    break;
                }
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

/// Why [`LemkeWorkspace::select_row`] returned no row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Selection {
    /// The pivoting stops.
    Stop(Stop),
    /// A ratio is too close to the minimum to tell a tie from a difference.
    Ambiguous,
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
            d_next: Vec::new(),
            g: Vec::new(),
            basis: Vec::new(),
            w_row: Vec::new(),
            dense: Vec::new(),
            dense_slot: Vec::new(),
            ties: Vec::new(),
            noise_rows: Vec::new(),
            arch: Arch::new(),
            #[cfg(test)]
            naive_ties: false,
        }
    }
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
    let n = m.nrows();
    match m {
        NumericsMatrix::Dense(d) => {
            for (j, col) in out.chunks_exact_mut(n).enumerate() {
                col.copy_from_slice(d.col_as_slice(j));
            }
        }
        NumericsMatrix::SparseBlock(s) => {
            out.fill(0.0);
            for bi in 0..s.n_block_rows() {
                let r0 = s.row_block_start(bi);
                let nr = s.row_block_size(bi);
                for k in s.row_ptr()[bi]..s.row_ptr()[bi + 1] {
                    let bj = s.col_idx()[k];
                    let c0 = s.col_block_start(bj);
                    for (c, bcol) in s.block(k).chunks_exact(nr).enumerate() {
                        out[(c0 + c) * n + r0..][..nr].copy_from_slice(bcol);
                    }
                }
            }
        }
        NumericsMatrix::Sparse(s) => {
            out.fill(0.0);
            for (&v, (i, j)) in s.iter() {
                out[j * n + i] += v;
            }
        }
    }
    out.iter().fold(0.0, |a: f64, v| a.max(v.abs()))
}

impl LemkeWorkspace {
    /// Sizes the buffers for `n` and copies `M`; returns `max |mᵢⱼ|`.
    fn prepare(&mut self, m: &NumericsMatrix, n: usize) -> f64 {
        grow(&mut self.m, n * n, 0.0);
        grow(&mut self.binv, n * n, 0.0);
        for v in [&mut self.b, &mut self.d, &mut self.d_next, &mut self.g] {
            grow(v, n, 0.0);
        }
        for v in [&mut self.basis, &mut self.w_row, &mut self.dense_slot] {
            grow(v, n, 0);
        }
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
        // Siconos' lexicographic tolerances (`lexico_tol_elt`, `lexico_tol_diff`).
        let lexico_tol = max_abs_m * f64::EPSILON;
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
        loop {
            if iterations >= options.max_iterations {
                return (Stop::MaxIterations, iterations);
            }
            iterations += 1;
            let r = match self.ratio_test(n, entering, q, options, lexico_tol) {
                Ok(r) => r,
                Err(stop) => return (stop, iterations),
            };
            let leaving = self.basis[r];
            if leaving == z0 {
                self.pivot(n, r, entering, None);
                return (Stop::Solved, iterations);
            }
            next = if leaving < n { leaving + n } else { leaving - n };
            if !self.pivot(n, r, entering, Some(next)) {
                return (Stop::Breakdown, iterations);
            }
            entering = next;
        }
    }

    /// Minimum-ratio test on the entering column `d` with lexicographic tie-breaking; returns
    /// the pivot row.
    fn ratio_test(
        &mut self,
        n: usize,
        entering: usize,
        q: &[f64],
        options: &LemkeOptions,
        lexico_tol: f64,
    ) -> Result<usize, Stop> {
        match self.select_row(n, entering, options, lexico_tol, true) {
            Ok(r) => Ok(r),
            Err(_) => {
                // A ray, a breakdown or an ambiguous tie may be an artefact of the rounding
                // errors accumulated in b, d and B⁻¹: refine b and d, then decide again.
                self.refine_b_d(n, entering, q);
                self.select_row(n, entering, options, lexico_tol, false).map_err(|e| match e {
                    Selection::Stop(stop) => stop,
                    Selection::Ambiguous => Stop::Breakdown,
                })
            }
        }
    }

    /// The minimum-ratio test proper (see [`LemkeWorkspace::ratio_test`]). With `check_ties`, a
    /// ratio close to the minimum but outside the tie threshold (closer than
    /// [`AMBIGUOUS_TIE`]` · ‖b‖∞`) returns [`Selection::Ambiguous`] instead of a row.
    fn select_row(
        &mut self,
        n: usize,
        entering: usize,
        options: &LemkeOptions,
        lexico_tol: f64,
        check_ties: bool,
    ) -> Result<usize, Selection> {
        let dmax = self.d[..n].iter().fold(0.0, |a: f64, v| a.max(v.abs()));
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
        let bmax = self.b[..n].iter().fold(0.0, |a: f64, v| a.max(v.abs()));
        let slack = options.tie_tolerance * bmax;
        let d_best = self.d[best];
        let ambiguous = AMBIGUOUS_TIE * bmax;
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
            } else if check_ties && gap <= ambiguous {
                return Err(Selection::Ambiguous);
            }
        }
        #[cfg(test)]
        if self.naive_ties {
            return Ok(self.ties.last().copied().unwrap_or(best));
        }
        for k in 0..self.ties.len() {
            let candidate = self.ties[k];
            if self.lexico_smaller(n, candidate, best, lexico_tol) {
                best = candidate;
            }
        }
        Ok(best)
    }

    /// One step of iterative refinement of `b = B⁻¹q` and of the entering column `d = B⁻¹a`:
    /// `x ← x + B⁻¹(y − B x)`, the residual being computed with the exact columns of `B`
    /// (`eⱼ` for `wⱼ`, `−M eᵢ` for `zᵢ`, `−1` for `z₀`). It removes the rounding errors that the
    /// product-form updates accumulate in `b` and `d` (to first order in the error of `B⁻¹`).
    /// Costs about four passes over the stored columns; run only when a decision is in doubt.
    fn refine_b_d(&mut self, n: usize, entering: usize, q: &[f64]) {
        for target in 0..2 {
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
            }
        }
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

    /// `true` when row `c` of `B⁻¹ / d_c` is lexicographically smaller than row `best` of
    /// `B⁻¹ / d_best` (their ratios `b/d` being equal). Comparisons within `lexico_tol` count as
    /// equal, as in Siconos' `lcp_lexicolemke`.
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

    /// One step of iterative refinement of the final (complementary) basis: with
    /// `w̃ = M z + q` computed at the extracted point, the residual of `B x_B = q` is
    /// `ρ = w̃ − w_B` (`w_B` the basic `w`, 0 elsewhere), and `x_B ← x_B + B⁻¹ρ`. The refined
    /// point is kept only if its residual is not larger. `w` holds `w̃` on entry (and the `w` of
    /// the returned `z` on exit); returns the residual of the returned `z`.
    fn refine(
        &mut self,
        problem: &LcpProblem,
        z: &mut [f64],
        w: &mut [f64],
        residual: f64,
    ) -> Result<f64, NumericsError> {
        let n = z.len();
        let delta = &mut self.d_next[..n];
        delta.fill(0.0);
        for (j, (&wj, &row)) in w.iter().zip(&self.w_row[..n]).enumerate() {
            if row == NONBASIC {
                // wⱼ should be 0: its column of B⁻¹ carries the correction.
                if wj != 0.0 {
                    for (dl, c) in delta.iter_mut().zip(&self.binv[j * n..][..n]) {
                        *dl += wj * c;
                    }
                }
            } else {
                delta[row] += wj - self.b[row];
            }
        }
        let saved = &mut self.g[..n];
        saved.copy_from_slice(&self.b[..n]);
        for (bi, dl) in self.b[..n].iter_mut().zip(delta.iter()) {
            *bi += dl;
        }
        self.extract_z(z);
        let refined = problem.compute_error(z, w)?;
        if refined <= residual {
            return Ok(refined);
        }
        self.b[..n].copy_from_slice(&self.g[..n]);
        self.extract_z(z);
        problem.compute_error(z, w)
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
