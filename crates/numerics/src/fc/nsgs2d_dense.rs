//! Siconos 4.4's `fc2d_nsgs_dense` (`numerics/src/FrictionContact/fc2d_nsgs.c`), reproduced
//! operation by operation: the FC2D solver the Siconos kernel's `FrictionContact(2)` calls at
//! each time step (dense storage, `fc2d_driver` → `fc2d_nsgs_dense`). The Siconos kernel
//! documentation, "Non smooth solvers": NLGS with a tolerance, default 1e-4, and a sweep cap;
//! the operations themselves are those of `fc2d_nsgs.c` (4.4).
//!
//! It differs from [`super::nsgs2d::Nsgs2dSolver`] on purpose: zero start, a sequential
//! stick → slip+ → slip− local solve, absolute singularity thresholds and Siconos' own stopping
//! residual (see [`Fc2dNsgsDenseSolver`]). At the default tolerance `1e-4` those differences
//! change the reactions far beyond round-off, so a kernel that must reproduce Siconos'
//! trajectories uses this solver.
//!
//! Integration tests: `tests/it/fc2d_dense.rs`.

#![allow(non_snake_case)]

use super::Fc2dProblem;
use crate::matrix::NumericsMatrix;
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Siconos' `100 · DBL_EPSILON`: a stick determinant `|det| <` this switches to the pivoted
/// 2×2 solve.
const DET_SMALL: f64 = 100.0 * f64::EPSILON;
/// Siconos' absolute threshold on the slip denominators `W_NN ± μ W_NT` (`info = 2` below it).
const SLIP_SMALL: f64 = 1e-12;

/// Options of [`Fc2dNsgsDenseSolver`] (Siconos `iparam[0]`, `dparam[0]` of
/// `SICONOS_FRICTION_2D_NSGS`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Fc2dNsgsDenseOptions {
    /// Maximum number of sweeps over the contacts (default: 1000, Siconos' default); at least 1.
    pub max_iterations: usize,
    /// The sweeps stop once Siconos' residual `normr` (see [`Fc2dNsgsDenseSolver`]) is at or
    /// below this (default: 1e-4, Siconos' default). Positive and finite; a value `≥ 1` makes
    /// the solver return `r = 0` after no sweep, as Siconos does (its `normr` starts at 1).
    pub tolerance: f64,
}

impl Default for Fc2dNsgsDenseOptions {
    fn default() -> Self {
        Self { max_iterations: 1000, tolerance: 1e-4 }
    }
}

impl Fc2dNsgsDenseOptions {
    /// Sets [`Fc2dNsgsDenseOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`Fc2dNsgsDenseOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::at_least_one("max_iterations", self.max_iterations)?;
        options::positive_finite("tolerance", self.tolerance)
    }
}

/// `W` rows as the sweep reads them: row `i`, entries `W_ij` in increasing `j`.
#[derive(Debug, Default)]
struct Rows {
    n: usize,
    /// Dense storage: every entry, row-major (`vals[i·n + j]`). Sparse: the stored entries.
    vals: Vec<f64>,
    /// Sparse only: column of each stored entry, increasing within a row.
    cols: Vec<usize>,
    /// Sparse only: `row_ptr[i]..row_ptr[i + 1]` are the entries of row `i`.
    row_ptr: Vec<usize>,
    dense: bool,
}

impl Rows {
    /// Copies `w` (once per solve; the buffers are reused). Dense storage keeps every entry;
    /// other storages go through a CSR copy and keep only the stored entries.
    fn load(&mut self, w: &NumericsMatrix) {
        let n = w.nrows();
        self.n = n;
        self.vals.clear();
        self.cols.clear();
        self.row_ptr.clear();
        match w {
            NumericsMatrix::Dense(m) => {
                self.dense = true;
                self.vals.resize(n * n, 0.0);
                for j in 0..n {
                    for (i, &v) in m.col_as_slice(j).iter().enumerate() {
                        self.vals[i * n + j] = v;
                    }
                }
            }
            _ => {
                self.dense = false;
                let csr = w.to_csr();
                self.row_ptr.push(0);
                for row in csr.outer_iterator() {
                    let start = self.cols.len();
                    for (j, &v) in row.iter() {
                        self.cols.push(j);
                        self.vals.push(v);
                    }
                    // sprs keeps the column indices of a row sorted; insertion sort in case not.
                    for a in start + 1..self.cols.len() {
                        let mut b = a;
                        while b > start && self.cols[b - 1] > self.cols[b] {
                            self.cols.swap(b - 1, b);
                            self.vals.swap(b - 1, b);
                            b -= 1;
                        }
                    }
                    self.row_ptr.push(self.cols.len());
                }
            }
        }
    }

    /// Entry `(i, j)` (zero where not stored).
    fn get(&self, i: usize, j: usize) -> f64 {
        if self.dense {
            self.vals[i * self.n + j]
        } else {
            let (lo, hi) = (self.row_ptr[i], self.row_ptr[i + 1]);
            match self.cols[lo..hi].binary_search(&j) {
                Ok(k) => self.vals[lo + k],
                Err(_) => 0.0,
            }
        }
    }

    /// Siconos' two partial sums of row `i` against `r`, each accumulated from `0.0` in
    /// increasing `j`: `(Σ_{j<lo} W_ij r_j, Σ_{j≥hi} W_ij r_j)`.
    ///
    /// For a sparse storage the entries not stored are skipped: adding `0 · r_j = ±0` to an
    /// accumulator that starts at `+0` never changes it, so the sums are bit-identical to the
    /// dense loop while `r` is finite.
    fn partial_sums(&self, i: usize, lo: usize, hi: usize, r: &[f64]) -> (f64, f64) {
        let mut before = 0.0;
        let mut after = 0.0;
        if self.dense {
            let row = &self.vals[i * self.n..(i + 1) * self.n];
            for (w, x) in row[..lo].iter().zip(&r[..lo]) {
                before += w * x;
            }
            for (w, x) in row[hi..].iter().zip(&r[hi..]) {
                after += w * x;
            }
        } else {
            let (a, b) = (self.row_ptr[i], self.row_ptr[i + 1]);
            for (&j, &w) in self.cols[a..b].iter().zip(&self.vals[a..b]) {
                if j < lo {
                    before += w * r[j];
                } else if j >= hi {
                    after += w * r[j];
                }
            }
        }
        (before, after)
    }

    /// `Σ_j W_ij r_j` accumulated from `0.0` in increasing `j` (stored entries only for a
    /// sparse storage, bit-identical as in [`Rows::partial_sums`]).
    fn row_dot(&self, i: usize, r: &[f64]) -> f64 {
        let mut s = 0.0;
        if self.dense {
            for (w, x) in self.vals[i * self.n..(i + 1) * self.n].iter().zip(r) {
                s += w * x;
            }
        } else {
            let (a, b) = (self.row_ptr[i], self.row_ptr[i + 1]);
            for (&j, &w) in self.cols[a..b].iter().zip(&self.vals[a..b]) {
                s += w * r[j];
            }
        }
        s
    }
}

/// How the local solve of one contact ended.
enum Local {
    /// A branch was taken (take-off, stick, slip+ or slip−).
    Done,
    /// Siconos' early return: a pivot `< DBL_EPSILON` in the pivoted stick solve (`info = 1`)
    /// or a slip denominator `|W_NN ± μ W_NT| < 1e-12` (`info = 2`).
    Breakdown,
}

/// Siconos 4.4's `fc2d_nsgs_dense` (`numerics/src/FrictionContact/fc2d_nsgs.c`), the FC2D
/// solver of the kernel's `FrictionContact(2)` (the Siconos kernel documentation, "Non smooth
/// solvers"). Solves `u = W r + q` with Coulomb's law per contact `c`: `|r_T| ≤ μ r_N`,
/// `0 ≤ r_N ⊥ u_N ≥ 0`, `u_T = 0` inside the cone and `r_T = ∓μ r_N` when sliding with
/// `u_T ≷ 0`.
///
/// **Zero start**: `r` and `u` are set to zero at entry; the incoming `r` is ignored (as in
/// Siconos, which has no warm start here).
///
/// One sweep visits the contacts `c = 0..nc` in order. With `i = 2c`, the partial sums
/// `a_N = Σ_{j<i} W_ij r_j`, `p_N = Σ_{j≥i+2} W_ij r_j` (and `a_T`, `p_T` on row `i + 1`), each
/// accumulated from 0 in increasing `j` with the newest `r`, give
/// `z_N = (−q_i − a_N) − p_N`, `z_T = (−q_{i+1} − a_T) − p_T` (`z = −q_loc`). Then, in order:
/// 1. take-off if `−z_N ≥ 0`: `r_c = 0`, `u_c = (−z_N, −z_T)`;
/// 2. otherwise `u_c = 0` and stick: `det = W_NN W_TT − W_TN W_NT`,
///    `r_N = (z_N W_TT − z_T W_NT)/det`, `r_T = (−z_N W_TN + z_T W_NN)/det`; when
///    `|det| < 100 ε` a 2×2 elimination with partial pivoting on `|W_NN| ≥ |W_TN|` instead
///    (breakdown if the pivot is `< ε`). Accepted iff `r_N ≥ 0` and `|r_T| − μ r_N ≤ 0`;
/// 3. otherwise slip+: `g₊ = W_NN + μ W_NT`, `u_T = −z_T + (z_N/g₊)(W_NT + μ W_TT)`,
///    `r_N = z_N/g₊`, `r_T = μ r_N`; accepted iff `r_N ≥ 0` and `u_T ≤ 0`;
/// 4. otherwise slip−: `g₋ = W_NN − μ W_NT`, `u_T = −z_T + (z_N/g₋)(W_NT − μ W_TT)`,
///    `r_N = z_N/g₋`, `r_T = −μ r_N`, accepted **without** any check.
///
/// `|g±| < 1e-12` is a breakdown. Every product, sum and comparison is done in Siconos' order,
/// so the reactions are bit-identical to Siconos' (for finite data).
///
/// **Stopping residual** (Siconos', not [`Fc2dProblem::compute_error`]): after each sweep,
/// `y = (q + W r) − u` where `u` holds the velocities written during the sweep (stale: each
/// `u_c` was computed before the later contacts moved), and
/// `normr = sqrt((yᵀy)/(qᵀq))`; the sweeps go on while `iterations < max_iterations` and
/// `normr > tolerance`. The report carries that `normr` because it is what decides the stop
/// (and what Siconos puts in `dparam[1]`); it is not comparable with the other solvers'
/// `compute_error` (it can be small while `r` is still far from a solution, since a contact's
/// stale `u_c` matches its own `r_c`). `W r` is summed per row from 0 in increasing column
/// order, then added to `q`; Siconos calls OpenBLAS `dgemv`/`ddot`, whose blocked kernels
/// round differently, so `normr` agrees with Siconos' to about 1e-12 relative, not bit for
/// bit.
///
/// **Exit state**: `r` the reactions of the last sweep; `u` the stale velocities of the last
/// sweep (take-off contacts `u_c = −z`, others `u_c = (0, u_T)` with `u_T = 0` when sticking),
/// exactly as Siconos leaves its `velocity` array, **not** `W r + q`.
///
/// Report: `Converged` iff `normr ≤ tolerance`; `MaxIterations` after `max_iterations` sweeps;
/// `NumericalBreakdown` on one of Siconos' early returns above (then `iterations` counts the
/// sweep in progress, the residual is the last completed sweep's `normr` or `+∞` when none,
/// and `r`, `u` are left as Siconos leaves them) or when `normr` is NaN (e.g. `q = 0`: Siconos'
/// `0/0`, which Siconos reports as converged). With a tolerance `≥ 1` no sweep is done
/// (`normr` starts at 1), `r = u = 0`, `Converged` with residual 1.
///
/// Any storage of `W` works: a dense `W` is copied row-major once per call, another storage
/// converted once per call to CSR (the sweep then skips the entries not stored, which gives the
/// same sums, see the source). The buffers are reused across calls.
#[derive(Debug)]
#[doc(alias = "fc2d_nsgs_dense")]
#[doc(alias = "fc2d_driver")]
pub struct Fc2dNsgsDenseSolver {
    options: Fc2dNsgsDenseOptions,
    rows: Rows,
    /// Diagonal blocks `[W_NN, W_NT, W_TN, W_TT]` per contact.
    diag: Vec<[f64; 4]>,
}

impl Fc2dNsgsDenseSolver {
    /// Builds a solver.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for `max_iterations = 0` or a tolerance that is not
    /// positive and finite.
    pub fn new(options: Fc2dNsgsDenseOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, rows: Rows::default(), diag: Vec::new() })
    }

    /// The options.
    pub fn options(&self) -> &Fc2dNsgsDenseOptions {
        &self.options
    }

    /// Solves `problem` from `r = 0` (the incoming `r` is ignored); on return `r` holds the
    /// reactions and `u` Siconos' stale velocities (see [`Fc2dNsgsDenseSolver`]).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `2·nc`.
    pub fn solve(
        &mut self,
        problem: &Fc2dProblem,
        r: &mut [f64],
        u: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        let n = problem.size();
        if r.len() != n {
            return Err(NumericsError::DimensionMismatch {
                what: "fc2d_nsgs_dense reaction r",
                expected: n,
                found: r.len(),
            });
        }
        if u.len() != n {
            return Err(NumericsError::DimensionMismatch {
                what: "fc2d_nsgs_dense velocity u",
                expected: n,
                found: u.len(),
            });
        }
        r.fill(0.0);
        u.fill(0.0);
        let nc = problem.number_of_contacts();
        self.rows.load(problem.w());
        self.diag.clear();
        for c in 0..nc {
            let i = 2 * c;
            let rows = &self.rows;
            self.diag.push([rows.get(i, i), rows.get(i, i + 1), rows.get(i + 1, i), rows.get(i + 1, i + 1)]);
        }
        let q = problem.q();
        let mu = problem.mu();
        let tolerance = self.options.tolerance;
        let max_it = self.options.max_iterations;
        // Siconos: `normr = 1` before the loop, `res = INFINITY` until a sweep completes.
        let mut normr = 1.0;
        let mut last = f64::INFINITY;
        let mut iter = 0;
        while iter < max_it && normr > tolerance {
            iter += 1;
            for (c, &mu_c) in mu.iter().enumerate() {
                if let Local::Breakdown = self.contact(c, q, mu_c, r, u) {
                    return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, iter, last));
                }
            }
            normr = self.residual(q, r, u);
            last = normr;
        }
        let status = if normr <= tolerance {
            SolverStatus::Converged
        } else if normr.is_nan() {
            SolverStatus::NumericalBreakdown
        } else {
            SolverStatus::MaxIterations
        };
        Ok(SolverReport::new(status, iter, normr))
    }

    /// The local solve of contact `c` (Siconos' loop body, see [`Fc2dNsgsDenseSolver`]).
    fn contact(&self, c: usize, q: &[f64], mu: f64, r: &mut [f64], u: &mut [f64]) -> Local {
        let (i, t) = (2 * c, 2 * c + 1);
        let (avn, apn) = self.rows.partial_sums(i, i, i + 2, r);
        let (avt, apt) = self.rows.partial_sums(t, i, i + 2, r);
        let zn = -q[i] - avn - apn;
        let zt = -q[t] - avt - apt;
        if -zn >= 0.0 {
            r[i] = 0.0;
            u[i] = -zn;
            r[t] = 0.0;
            u[t] = -zt;
            return Local::Done;
        }
        u[i] = 0.0;
        u[t] = 0.0;
        let [Wnn, Wnt, Wtn, Wtt] = self.diag[c];
        let det = Wnn * Wtt - Wtn * Wnt;
        if det.abs() < DET_SMALL {
            let (anorm, atang) = (Wnn.abs(), Wtn.abs());
            if anorm >= atang {
                if anorm < f64::EPSILON {
                    return Local::Breakdown;
                }
                let factor = Wtn / Wnn;
                r[t] = (zt - factor * zn) / (Wtt - factor * Wnt);
                r[i] = (zn - Wnt * r[t]) / Wnn;
            } else {
                if atang < f64::EPSILON {
                    return Local::Breakdown;
                }
                let factor = Wnn / Wtn;
                r[t] = (zn - factor * zt) / (Wnt - factor * Wtt);
                r[i] = (zt - Wtt * r[t]) / Wtn;
            }
        } else {
            r[i] = (zn * Wtt - zt * Wnt) / det;
            r[t] = (-zn * Wtn + zt * Wnn) / det;
        }
        if r[i] >= 0.0 && (r[t].abs() - mu * r[i]) <= 0.0 {
            return Local::Done;
        }
        // Slip+ (r_T = μ r_N, u_T ≤ 0).
        u[i] = 0.0;
        let gplus = Wnn + mu * Wnt;
        if gplus.abs() < SLIP_SMALL {
            return Local::Breakdown;
        }
        u[t] = -zt + (zn / gplus) * (Wnt + mu * Wtt);
        r[i] = zn / gplus;
        r[t] = mu * r[i];
        if r[i] >= 0.0 && u[t] <= 0.0 {
            return Local::Done;
        }
        // Slip− (r_T = −μ r_N), taken without a check.
        u[i] = 0.0;
        let gmoins = Wnn - mu * Wnt;
        if gmoins.abs() < SLIP_SMALL {
            return Local::Breakdown;
        }
        u[t] = -zt + (zn / gmoins) * (Wnt - mu * Wtt);
        r[i] = zn / gmoins;
        r[t] = -mu * r[i];
        Local::Done
    }

    /// Siconos' stopping residual `sqrt((yᵀy)/(qᵀq))`, `y = (q + W r) − u`, with `u` the
    /// stale velocities of the sweep; sums from 0 in increasing index.
    fn residual(&self, q: &[f64], r: &[f64], u: &[f64]) -> f64 {
        let mut num = 0.0;
        let mut den = 0.0;
        for (k, (&qk, &uk)) in q.iter().zip(u).enumerate() {
            let y = (qk + self.rows.row_dot(k, r)) - uk;
            num += y * y;
            den += qk * qk;
        }
        (num / den).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_validated() {
        assert!(matches!(
            Fc2dNsgsDenseSolver::new(Fc2dNsgsDenseOptions::default().with_max_iterations(0)),
            Err(NumericsError::InvalidOption { name: "max_iterations", .. })
        ));
        assert!(matches!(
            Fc2dNsgsDenseSolver::new(Fc2dNsgsDenseOptions::default().with_tolerance(-1.0)),
            Err(NumericsError::InvalidOption { name: "tolerance", .. })
        ));
        let s = Fc2dNsgsDenseSolver::new(Fc2dNsgsDenseOptions::default()).expect("defaults are valid");
        assert_eq!(s.options().max_iterations, 1000);
        assert!((s.options().tolerance - 1e-4).abs() < 1e-20);
    }
}
