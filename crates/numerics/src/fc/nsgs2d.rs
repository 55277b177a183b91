//! Nonsmooth Gauss–Seidel (NSGS) over the contacts of a planar frictional contact problem
//! (Siconos `fc2d_nsgs`, `numerics/src/FrictionContact/fc2d_nsgs.c`), each contact solved
//! exactly by enumerating the cases of Coulomb's law ([`solve_contact_2d`]).
//!
//! Integration tests: `tests/it/fc_nsgs2d.rs`.

#![allow(non_snake_case)]

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use super::Fc2dProblem;
use super::compute_error::contact_error_squared;
use super::nsgs::ContactRows;
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Relative size under which a determinant or a denominator of [`solve_contact_2d`] counts as
/// zero and its case is skipped (relative to the largest entry of the block, squared for the
/// determinant; Siconos `fc2d_nsgs` uses the absolute threshold `1e-12`).
const SINGULAR_RELATIVE: f64 = 1e-14;

/// The exact solution of one planar contact: find `r = (r_N, r_T)` with `u = W r + q` and
/// Coulomb's law `|r_T| ≤ μ r_N`, `r_N ≥ 0 ⊥ u_N ≥ 0`, `u_T = 0` inside the cone, `r_T = −μ r_N`
/// when `u_T > 0`, `r_T = μ r_N` when `u_T < 0` (Siconos `fc2d_nsgs.c`, loop body).
///
/// `w` is the 2×2 block `[[W_NN, W_NT], [W_TN, W_TT]]` (row-major). The cases, in this order:
/// 1. take-off `r = 0` (valid when `q_N ≥ 0`; returned at once then);
/// 2. sticking `u = 0`: `W r = −q`, a 2×2 system (skipped when `|det W| ≤ 1e-14 · max|W_ij|²`);
/// 3. sliding with `u_T > 0`: `r_T = −μ r_N`, `u_N = 0` gives `r_N = −q_N / (W_NN − μ W_NT)`;
/// 4. sliding with `u_T < 0`: `r_T = μ r_N`, `r_N = −q_N / (W_NN + μ W_NT)`
///
/// (a denominator `≤ 1e-14 · max|W_ij|` in size skips its case). Each remaining candidate is scored
/// with [`contact_error_squared`] (zero exactly when it satisfies Coulomb's law) and the first
/// one with the smallest score is returned, so a candidate that satisfies the law up to
/// rounding wins over the others.
///
/// Returns `None` when no candidate is left (a degenerate block, e.g. `W = 0` with `q_N < 0`)
/// or the data are not finite.
pub fn solve_contact_2d(w: &[[f64; 2]; 2], q: &[f64; 2], mu: f64) -> Option<[f64; 2]> {
    if !(w.iter().flatten().all(|v| v.is_finite()) && q.iter().all(|v| v.is_finite()) && mu.is_finite()) {
        return None;
    }
    let [qn, qt] = *q;
    if qn >= 0.0 {
        return Some([0.0; 2]);
    }
    let [[a, b], [c, d]] = *w;
    let scale = a.abs().max(b.abs()).max(c.abs()).max(d.abs());
    let mut best: Option<([f64; 2], f64)> = None;
    let mut offer = |r: [f64; 2]| {
        if !r.iter().all(|v| v.is_finite()) {
            return;
        }
        let u = [a * r[0] + b * r[1] + qn, c * r[0] + d * r[1] + qt];
        let e = contact_error_squared(&r, &u, mu);
        if best.is_none_or(|(_, e0)| e < e0) {
            best = Some((r, e));
        }
    };
    // Sticking.
    let det = a * d - b * c;
    if det.abs() > SINGULAR_RELATIVE * scale * scale {
        offer([(b * qt - d * qn) / det, (c * qn - a * qt) / det]);
    }
    // Sliding: r_T = σ μ r_N, σ = −1 (u_T > 0) then σ = +1 (u_T < 0).
    for sigma in [-1.0, 1.0] {
        let den = a + sigma * mu * b;
        if den.abs() > SINGULAR_RELATIVE * scale {
            let rn = -qn / den;
            offer([rn, sigma * mu * rn]);
        }
    }
    best.map(|(r, _)| r)
}

/// Options of [`Nsgs2dSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Nsgs2dOptions {
    /// Maximum number of sweeps over the contacts (default: 1000, Siconos' `fc2d_nsgs` default).
    /// At least 1.
    pub max_iterations: usize,
    /// Stop when [`Fc2dProblem::compute_error`] is at or below this (default: 1e-4, Siconos'
    /// `fc2d_nsgs` default). Positive and finite.
    pub tolerance: f64,
    /// Relaxation `ω ∈ (0, 1]`: `r_c ← ω r_c^local + (1 − ω) r_c` (default: 1, no relaxation).
    pub relaxation: f64,
    /// Visit the contacts in a new random order at each sweep (default: false, natural order).
    pub shuffle: bool,
    /// Seed of the shuffling generator (`StdRng::seed_from_u64`), reset at each solve
    /// (default: 0).
    pub shuffle_seed: u64,
}

impl Default for Nsgs2dOptions {
    fn default() -> Self {
        Self { max_iterations: 1000, tolerance: 1e-4, relaxation: 1.0, shuffle: false, shuffle_seed: 0 }
    }
}

impl Nsgs2dOptions {
    /// Sets [`Nsgs2dOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`Nsgs2dOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`Nsgs2dOptions::relaxation`].
    pub fn with_relaxation(mut self, relaxation: f64) -> Self {
        self.relaxation = relaxation;
        self
    }

    /// Sets [`Nsgs2dOptions::shuffle`] and [`Nsgs2dOptions::shuffle_seed`].
    pub fn with_shuffle(mut self, shuffle: bool, seed: u64) -> Self {
        self.shuffle = shuffle;
        self.shuffle_seed = seed;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive_finite("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        if !(self.relaxation > 0.0 && self.relaxation <= 1.0) {
            return Err(NumericsError::InvalidOption { name: "relaxation", reason: "must lie in (0, 1]" });
        }
        Ok(())
    }
}

/// NSGS solver of the FC2D problem `u = W r + q`, Coulomb's law per contact (Siconos
/// `fc2d_nsgs`).
///
/// One sweep visits every contact `c` (in order, or shuffled) and, with the newest reactions,
/// forms `q_loc = q_c + Σ_{d≠c} W_cd r_d`, solves the contact exactly with
/// [`solve_contact_2d`] on the diagonal block `W_cc`, and writes back
/// `r_c ← ω r_c^local + (1 − ω) r_c`. `W` may be dense, sparse-block (2×2 blocks read in place)
/// or sparse (a CSR copy per solve). The incoming `r` is the warm start (Siconos starts from 0).
///
/// Stopping test: [`Fc2dProblem::compute_error`] (Siconos 4.4's `fc2d_compute_error`)
/// `≤ tolerance` after each sweep; the report's residual is that error at the returned `r`,
/// and `u = W r + q` on return. Siconos' own `fc2d_nsgs` tests `‖W r + q − u‖ / ‖q‖` instead.
/// When `q_N ≥ 0` for every contact, `r = 0` is returned with 0 iterations.
///
/// Status: `Converged`, `MaxIterations` at the sweep cap, `NumericalBreakdown` when a contact
/// has no candidate (degenerate `W_cc`, see [`solve_contact_2d`]; Siconos returns `info = 2`)
/// or the iterates become non-finite.
#[derive(Debug)]
#[doc(alias = "fc2d_nsgs")]
pub struct Nsgs2dSolver {
    options: Nsgs2dOptions,
    diag: Vec<[[f64; 2]; 2]>,
    order: Vec<usize>,
}

impl Nsgs2dSolver {
    /// Builds a solver.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for a non-positive or non-finite tolerance, a zero
    /// `max_iterations` or a relaxation outside `(0, 1]`.
    pub fn new(options: Nsgs2dOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, diag: Vec::new(), order: Vec::new() })
    }

    /// The options.
    pub fn options(&self) -> &Nsgs2dOptions {
        &self.options
    }

    /// Solves `problem` from the warm start `r`; on return `r` holds the reactions and
    /// `u = W r + q`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `2·nc`,
    /// [`NumericsError::NonFinite`] for a non-finite warm start.
    pub fn solve(
        &mut self,
        problem: &Fc2dProblem,
        r: &mut [f64],
        u: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        let nc = problem.number_of_contacts();
        problem.check_solver_vectors(r, u, ["nsgs2d reaction r", "nsgs2d velocity u", "nsgs2d initial reaction r"])?;
        if let Some(report) = problem.trivial_solution(r, u)? {
            return Ok(report);
        }
        let q = problem.q();
        let mu = problem.mu();
        let rows = ContactRows::<2>::new(problem.w(), nc);
        self.diag.clear();
        for c in 0..nc {
            self.diag.push(rows.diagonal_block(c)?);
        }
        self.order.clear();
        self.order.extend(0..nc);
        let mut rng = StdRng::seed_from_u64(self.options.shuffle_seed);
        let omega = self.options.relaxation;
        let tolerance = self.options.tolerance;
        let max_it = self.options.max_iterations;
        let mut residual = f64::NAN;
        for it in 1..=max_it {
            if self.options.shuffle {
                self.order.shuffle(&mut rng);
            }
            for &c in &self.order {
                let s = 2 * c;
                let mut q_loc = [q[s], q[s + 1]];
                rows.add_off_diagonal(c, r, &mut q_loc);
                let Some(rc) = solve_contact_2d(&self.diag[c], &q_loc, mu[c]) else {
                    let residual = problem.compute_error(r, u)?;
                    return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, residual));
                };
                r[s] = omega * rc[0] + (1.0 - omega) * r[s];
                r[s + 1] = omega * rc[1] + (1.0 - omega) * r[s + 1];
            }
            residual = problem.compute_error(r, u)?;
            if residual <= tolerance {
                return Ok(SolverReport::new(SolverStatus::Converged, it, residual));
            }
            if !residual.is_finite() {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, residual));
            }
        }
        Ok(SolverReport::new(SolverStatus::MaxIterations, max_it, residual))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `u = W r + q` of one contact.
    fn velocity(w: &[[f64; 2]; 2], r: &[f64; 2], q: &[f64; 2]) -> [f64; 2] {
        [w[0][0] * r[0] + w[0][1] * r[1] + q[0], w[1][0] * r[0] + w[1][1] * r[1] + q[1]]
    }

    fn close(a: &[f64; 2], b: &[f64; 2]) -> bool {
        (a[0] - b[0]).abs() < 1e-13 && (a[1] - b[1]).abs() < 1e-13
    }

    #[test]
    fn each_case_of_coulombs_law() {
        let w = [[2.0, 0.3], [0.3, 1.0]];
        let mu = 0.5;
        // Build q from a chosen solution (r, u) of each case: q = u − W r.
        let cases = [
            ([0.0, 0.0], [0.7, -0.4]), // take-off
            ([1.0, 0.2], [0.0, 0.0]),  // sticking
            ([1.0, -0.5], [0.0, 0.8]), // sliding, u_T > 0
            ([2.0, 1.0], [0.0, -0.3]), // sliding, u_T < 0
        ];
        for (r, u) in cases {
            let wr = velocity(&w, &r, &[0.0, 0.0]);
            let q = [u[0] - wr[0], u[1] - wr[1]];
            let got = solve_contact_2d(&w, &q, mu).expect("a candidate exists");
            assert!(close(&got, &r), "expected {r:?}, got {got:?}");
            let e = contact_error_squared(&got, &velocity(&w, &got, &q), mu);
            assert!(e < 1e-26, "{e}");
        }
    }

    #[test]
    fn frictionless_and_degenerate_blocks() {
        // μ = 0 with a singular tangential part: the sliding cases give r_T = 0.
        let got = solve_contact_2d(&[[1.0, 0.0], [0.0, 0.0]], &[-2.0, 0.5], 0.0).expect("candidate");
        assert!(close(&got, &[2.0, 0.0]), "{got:?}");
        // Zero block with q_N < 0: nothing can push the contact open.
        assert!(solve_contact_2d(&[[0.0; 2]; 2], &[-1.0, 0.0], 0.3).is_none());
        assert!(solve_contact_2d(&[[f64::NAN, 0.0], [0.0, 1.0]], &[-1.0, 0.0], 0.3).is_none());
    }

    #[test]
    fn options_are_validated() {
        assert!(matches!(
            Nsgs2dSolver::new(Nsgs2dOptions::default().with_relaxation(0.0)),
            Err(NumericsError::InvalidOption { name: "relaxation", .. })
        ));
        assert!(matches!(
            Nsgs2dSolver::new(Nsgs2dOptions::default().with_tolerance(f64::NAN)),
            Err(NumericsError::InvalidOption { name: "tolerance", .. })
        ));
    }
}
