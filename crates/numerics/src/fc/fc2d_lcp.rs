//! The planar frictional contact problem (FC2D) reformulated as an LCP of size `3·nc` and
//! solved by lexicographic Lemke (Siconos `fc2d_tolcp` and `fc2d_lexicolemke`,
//! `numerics/src/FrictionContact/fc2d_tolcp.c`, `fc2d_lexicolemke.c`).
//!
//! In 2D the Coulomb cone `{ |r_T| ≤ μ r_N }` is polyhedral, so the Coulomb law is a linear
//! complementarity problem. Per contact `α` (reaction `(r_N, r_T)`, velocity
//! `(u_N, u_T) = W r + q`, friction coefficient `μ`) the LCP unknowns and slacks are
//!
//! | | `z` | `w = M z + q_lcp` |
//! |---|---|---|
//! | `3α`     | `r_N`            | `u_N` |
//! | `3α + 1` | `β = r_T + μ r_N` | `u_T + λ` |
//! | `3α + 2` | `λ`              | `μ r_N − r_T = 2μ r_N − β` |
//!
//! `λ ≥ 0` is the size of the sliding velocity towards negative `u_T`. The three
//! complementarities give: `u_N ≥ 0 ⊥ r_N ≥ 0`; `r_T ≥ −μ r_N` with `u_T + λ > 0` only when
//! `r_T = −μ r_N` (sliding with `u_T > 0`); `r_T ≤ μ r_N` with `λ > 0` (so `u_T = −λ < 0`) only
//! when `r_T = μ r_N`; `u_T = 0` in between (sticking). That is Coulomb's law.

#![allow(non_snake_case)]

use super::problem::{Fc2dProblem, check_len};
use crate::lcp::{LcpProblem, LcpSolver, LemkeOptions, LemkeSolver};
use crate::matrix::NumericsMatrix;
use crate::{NumericsError, SolverReport, SolverStatus};
use faer::Mat;

/// Builds the LCP `w = M z + q_lcp, 0 ≤ z ⊥ w ≥ 0` of size `3·nc` equivalent to the FC2D
/// problem `u = W r + q` (Siconos `fc2d_tolcp.c`; layout in the [module documentation](self)).
///
/// With `W_ab` the `(a, b)` entry of `W` restricted to contacts `i` (rows) and `j` (columns),
/// `a, b ∈ {N, T}`, the `3×3` block `(i, j)` of `M` is
///
/// ```text
/// [ W_NN − μ_j W_NT   W_NT   0     ]
/// [ W_TN − μ_j W_TT   W_TT   δ_ij  ]
/// [ 2 μ_j δ_ij        −δ_ij  0     ]
/// ```
///
/// and `q_lcp = (q_N,i, q_T,i, 0)` per contact. The first column follows from
/// `r_T,j = β_j − μ_j r_N,j`. Siconos 4.4 writes `μ_i` (the row contact's coefficient) in the
/// first column; the two agree when all contacts share one `μ` (every file of the Siconos
/// collection), and only `μ_j` gives an LCP equivalent to the FC2D problem otherwise, so we use
/// `μ_j`. `M` is stored dense, as in Siconos; `W` may have any storage.
///
/// # Errors
/// None in practice for a problem built by [`Fc2dProblem::new`] (its data are checked there);
/// the result of [`LcpProblem::new`] is passed on.
#[doc(alias = "fc2d_tolcp")]
pub fn fc2d_to_lcp(problem: &Fc2dProblem) -> Result<LcpProblem, NumericsError> {
    let nc = problem.number_of_contacts();
    let W = problem.w().to_dense();
    let mu = problem.mu();
    let m = Mat::from_fn(3 * nc, 3 * nc, |row, col| {
        let (i, a) = (row / 3, row % 3);
        let (j, b) = (col / 3, col % 3);
        let same = i == j;
        match (a, b) {
            (0 | 1, 0) => W[(2 * i + a, 2 * j)] - mu[j] * W[(2 * i + a, 2 * j + 1)],
            (0 | 1, 1) => W[(2 * i + a, 2 * j + 1)],
            (1, 2) if same => 1.0,
            (2, 0) if same => 2.0 * mu[j],
            (2, 1) if same => -1.0,
            _ => 0.0,
        }
    });
    let q = problem.q();
    let q_lcp = (0..3 * nc).map(|k| if k % 3 == 2 { 0.0 } else { q[2 * (k / 3) + k % 3] }).collect();
    LcpProblem::new(NumericsMatrix::Dense(m), q_lcp)
}

/// Maps a solution `z` of the LCP of [`fc2d_to_lcp`] back to the reaction of the FC2D problem:
/// `r_N,α = z_3α`, `r_T,α = z_3α+1 − μ_α z_3α` (Siconos `fc2d_lexicolemke.c` writes the same
/// value as `(z_3α+1 − w_3α+2) / 2`, which needs `w`).
///
/// # Errors
/// [`NumericsError::DimensionMismatch`] when `z.len() != 3·nc` or `r.len() != 2·nc`.
pub fn lcp_solution_to_fc2d(problem: &Fc2dProblem, z: &[f64], r: &mut [f64]) -> Result<(), NumericsError> {
    let nc = problem.number_of_contacts();
    check_len("fc2d from lcp: z", z, 3 * nc)?;
    check_len("fc2d from lcp: reaction r", r, 2 * nc)?;
    for ((rc, zc), &mu) in r.chunks_exact_mut(2).zip(z.chunks_exact(3)).zip(problem.mu()) {
        rc[0] = zc[0];
        rc[1] = zc[1] - mu * zc[0];
    }
    Ok(())
}

/// Options of [`Fc2dLemkeSolver`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Fc2dLemkeOptions {
    /// Options of the inner Lemke solver on the `3·nc` LCP (default: [`LemkeOptions::default`],
    /// LCP tolerance `1e-10`).
    pub lemke: LemkeOptions,
    /// FC2D error ([`Fc2dProblem::compute_error`]) accepted as converged (default: `1e-6`,
    /// Siconos' `dparam[0]` of `fc2d_lexicolemke_setDefaultSolverOptions`).
    pub tolerance: f64,
}

impl Default for Fc2dLemkeOptions {
    fn default() -> Self {
        Self { lemke: LemkeOptions::default(), tolerance: 1e-6 }
    }
}

impl Fc2dLemkeOptions {
    /// Sets [`Fc2dLemkeOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets the limit on the dense LCP reformulation, `8 (3 nc)²` bytes (the inner Lemke's
    /// [`LemkeOptions::max_dense_bytes`], default 1 GiB): above it a solve is
    /// [`NumericsError::DenseTooLarge`], naming the sparse NSGS ([`super::nsgs2d`]).
    pub fn with_max_dense_bytes(mut self, max_dense_bytes: u64) -> Self {
        self.lemke = self.lemke.with_max_dense_bytes(max_dense_bytes);
        self
    }

    /// Sets [`Fc2dLemkeOptions::lemke`].
    pub fn with_lemke(mut self, lemke: LemkeOptions) -> Self {
        self.lemke = lemke;
        self
    }
}

/// Solves the FC2D problem by Lemke's method on its LCP reformulation (Siconos
/// `fc2d_lexicolemke`): builds the LCP with [`fc2d_to_lcp`], solves it with
/// [`LemkeSolver`] from `z = 0`, maps `z` back with [`lcp_solution_to_fc2d`] and measures
/// the result with [`Fc2dProblem::compute_error`].
///
/// The report's residual is that FC2D error (not the LCP error) and its `iterations` are the
/// Lemke pivots. The status is [`SolverStatus::Converged`] iff the FC2D error is at or below
/// [`Fc2dLemkeOptions::tolerance`]; otherwise it is the Lemke status when Lemke did not
/// converge (ray termination, iteration cap, breakdown), or
/// [`SolverStatus::NumericalBreakdown`] when Lemke converged on the LCP but the mapped reaction
/// is not accurate enough. When the incoming `r` already meets the tolerance the solver
/// returns at once with 0 iterations (warm start).
///
/// Each solve allocates the dense `3nc × 3nc` LCP matrix (as Siconos does), and Lemke a
/// tableau of the same size: about `3 · 8 (3nc)²` bytes in all, quadratic in the number of
/// contacts. A reformulation above [`LemkeOptions::max_dense_bytes`] (`8 (3nc)²` bytes, default
/// 1 GiB, about 3 800 contacts) is refused with [`NumericsError::DenseTooLarge`]; NSGS
/// ([`super::nsgs2d::Nsgs2dSolver`]) works on the sparse `W`. The Lemke workspace is kept
/// between solves.
#[derive(Clone, Debug)]
#[doc(alias = "fc2d_lexicolemke")]
pub struct Fc2dLemkeSolver {
    options: Fc2dLemkeOptions,
    lemke: LemkeSolver,
    z: Vec<f64>,
    w: Vec<f64>,
}

impl Fc2dLemkeSolver {
    /// Builds the solver, validating the options.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when `tolerance` is not positive (or NaN), or an inner
    /// Lemke option is invalid (see [`LemkeSolver::new`]).
    pub fn new(options: Fc2dLemkeOptions) -> Result<Self, NumericsError> {
        crate::options::positive("tolerance", options.tolerance)?;
        let lemke = LemkeSolver::new(options.lemke.clone())?;
        Ok(Self { options, lemke, z: Vec::new(), w: Vec::new() })
    }

    /// The options the solver was built with.
    pub fn options(&self) -> &Fc2dLemkeOptions {
        &self.options
    }

    /// Solves `problem`: `r` is the warm start on entry and the reaction on exit, `u` is
    /// overwritten with `W r + q`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `2·nc`;
    /// [`NumericsError::DenseTooLarge`] when the LCP reformulation exceeds
    /// [`LemkeOptions::max_dense_bytes`]. Non-convergence is a status of the report.
    pub fn solve(
        &mut self,
        problem: &Fc2dProblem,
        r: &mut [f64],
        u: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        let tolerance = self.options.tolerance;
        let residual = problem.compute_error(r, u)?;
        if residual <= tolerance {
            return Ok(SolverReport::new(SolverStatus::Converged, 0, residual));
        }
        let n = 3 * problem.number_of_contacts();
        crate::options::dense_fits(
            "the LCP reformulation of FC2D (Lemke)",
            n,
            n,
            self.options.lemke.max_dense_bytes,
            "the solver nsgs",
        )?;
        let lcp = fc2d_to_lcp(problem)?;
        let n = lcp.size();
        self.z.clear();
        self.z.resize(n, 0.0);
        self.w.clear();
        self.w.resize(n, 0.0);
        let lcp_report = self.lemke.solve(&lcp, &mut self.z, &mut self.w)?;
        lcp_solution_to_fc2d(problem, &self.z, r)?;
        let residual = problem.compute_error(r, u)?;
        let status = if residual <= tolerance {
            SolverStatus::Converged
        } else if lcp_report.is_converged() {
            SolverStatus::NumericalBreakdown
        } else {
            lcp_report.status
        };
        Ok(SolverReport::new(status, lcp_report.iterations, residual))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(w: Mat<f64>, q: Vec<f64>, mu: Vec<f64>) -> Fc2dProblem {
        Fc2dProblem::new(NumericsMatrix::Dense(w), q, mu).expect("valid test problem")
    }

    /// Solves at tolerance 1e-12 and checks `r` against `expected` within 1e-9.
    fn solve_and_check(p: &Fc2dProblem, expected: &[f64]) {
        let mut solver = Fc2dLemkeSolver::new(Fc2dLemkeOptions::default().with_tolerance(1e-12)).expect("options");
        let mut r = vec![0.0; p.size()];
        let mut u = vec![0.0; p.size()];
        let report = solver.solve(p, &mut r, &mut u).expect("sizes match");
        assert!(report.is_converged(), "{report:?}");
        assert!(report.residual <= 1e-12);
        for (a, b) in r.iter().zip(expected) {
            assert!((a - b).abs() <= 1e-9, "r = {r:?}, expected {expected:?}");
        }
    }

    /// `q = u − W r` for a chosen solution `(r, u)`.
    fn q_for(w: &Mat<f64>, r: &[f64], u: &[f64]) -> Vec<f64> {
        (0..r.len()).map(|i| u[i] - (0..r.len()).map(|j| w[(i, j)] * r[j]).sum::<f64>()).collect()
    }

    #[test]
    fn one_contact_sticking_sliding_take_off() {
        let w = faer::mat![[1.0, 0.0], [0.0, 1.0]];
        // Sticking: r = (1, -0.2), u = 0, |r_T| < μ r_N.
        solve_and_check(&problem(w.clone(), vec![-1.0, 0.2], vec![0.5]), &[1.0, -0.2]);
        // Sliding with u_T = 0.5 > 0: r_T = -μ r_N.
        solve_and_check(&problem(w.clone(), vec![-1.0, 1.0], vec![0.5]), &[1.0, -0.5]);
        // Sliding with u_T = -0.5 < 0: r_T = μ r_N.
        solve_and_check(&problem(w.clone(), vec![-1.0, -1.0], vec![0.5]), &[1.0, 0.5]);
        // Take-off: q_N > 0, r = 0.
        solve_and_check(&problem(w, vec![1.0, 0.3], vec![0.5]), &[0.0, 0.0]);
    }

    #[test]
    fn two_coupled_contacts_with_different_mu() {
        let w = faer::mat![[2.0, 0.5, 0.3, 0.1], [0.5, 1.0, 0.2, 0.2], [0.3, 0.2, 2.0, 0.4], [0.1, 0.2, 0.4, 1.0]];
        // Contact 0 slides (u_T > 0, r_T = -0.3 r_N), contact 1 sticks (|0.2| < 0.5·1).
        let r = [2.0, -0.6, 1.0, 0.2];
        let u = [0.0, 0.4, 0.0, 0.0];
        solve_and_check(&problem(w.clone(), q_for(&w, &r, &u), vec![0.3, 0.5]), &r);
        // Contact 0 sticks, contact 1 takes off.
        let r = [1.0, 0.1, 0.0, 0.0];
        let u = [0.0, 0.0, 0.5, -0.3];
        solve_and_check(&problem(w.clone(), q_for(&w, &r, &u), vec![0.5, 0.3]), &r);
        // Contact 0 slides backwards (u_T < 0, r_T = 0.8 r_N), contact 1 slides forwards.
        let r = [1.5, 1.2, 0.5, -0.1];
        let u = [0.0, -0.7, 0.0, 0.25];
        solve_and_check(&problem(w.clone(), q_for(&w, &r, &u), vec![0.8, 0.2]), &r);
    }

    #[test]
    fn lcp_slacks_are_the_contact_quantities() {
        // For z built from (r, λ), w = M z + q_lcp must be (u_N, u_T + λ, μ r_N − r_T).
        let w = faer::mat![[2.0, 0.5, 0.3, 0.1], [0.5, 1.0, 0.2, 0.2], [0.3, 0.2, 2.0, 0.4], [0.1, 0.2, 0.4, 1.0]];
        let p = problem(w, vec![0.1, -0.2, 0.3, 0.4], vec![0.3, 0.7]);
        let lcp = fc2d_to_lcp(&p).expect("valid");
        assert_eq!(lcp.size(), 6);
        let r = [1.0, 0.2, 0.5, -0.3];
        let lambda = [0.25, 0.75];
        let z: Vec<f64> = (0..2).flat_map(|a| [r[2 * a], r[2 * a + 1] + p.mu()[a] * r[2 * a], lambda[a]]).collect();
        let mut wl = vec![0.0; 6];
        let lcp_err = lcp.compute_error(&z, &mut wl);
        assert!(lcp_err.is_ok());
        let mut u = vec![0.0; 4];
        p.compute_error(&r, &mut u).expect("sizes match");
        for a in 0..2 {
            let expected = [u[2 * a], u[2 * a + 1] + lambda[a], p.mu()[a] * r[2 * a] - r[2 * a + 1]];
            for (k, (got, want)) in wl[3 * a..3 * a + 3].iter().zip(expected).enumerate() {
                assert!((got - want).abs() <= 1e-14, "contact {a} row {k}: {wl:?}");
            }
        }
        let mut back = vec![0.0; 4];
        lcp_solution_to_fc2d(&p, &z, &mut back).expect("sizes match");
        for (a, b) in back.iter().zip(&r) {
            assert!((a - b).abs() <= 1e-15);
        }
    }

    #[test]
    fn warm_start_returns_at_once() {
        let w = faer::mat![[1.0, 0.0], [0.0, 1.0]];
        let p = problem(w, vec![-1.0, 0.2], vec![0.5]);
        let mut solver = Fc2dLemkeSolver::new(Fc2dLemkeOptions::default()).expect("options");
        let (mut r, mut u) = (vec![1.0, -0.2], vec![0.0; 2]);
        let report = solver.solve(&p, &mut r, &mut u).expect("sizes match");
        assert!(report.is_converged());
        assert_eq!(report.iterations, 0);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let w = faer::mat![[1.0, 0.0], [0.0, 1.0]];
        let p = problem(w, vec![-1.0, 0.2], vec![0.5]);
        let mut solver = Fc2dLemkeSolver::new(Fc2dLemkeOptions::default()).expect("options");
        let (mut r, mut u) = (vec![0.0; 3], vec![0.0; 2]);
        assert!(matches!(solver.solve(&p, &mut r, &mut u), Err(NumericsError::DimensionMismatch { .. })));
        let mut r = vec![0.0; 2];
        assert!(matches!(lcp_solution_to_fc2d(&p, &[0.0; 2], &mut r), Err(NumericsError::DimensionMismatch { .. })));
        assert!(matches!(
            Fc2dLemkeSolver::new(Fc2dLemkeOptions::default().with_tolerance(0.0)),
            Err(NumericsError::InvalidOption { name: "tolerance", .. })
        ));
        assert!(matches!(
            Fc2dLemkeSolver::new(
                Fc2dLemkeOptions::default().with_lemke(LemkeOptions::default().with_max_iterations(0))
            ),
            Err(NumericsError::InvalidOption { name: "max_iterations", .. })
        ));
    }
}
