//! The relay problem solved by Lemke's method on its LCP reformulation (Siconos
//! `relay_lexicolemke` and `relay_to_lcp`, numerics/src/Relay/relay_lexicolemke.c and
//! relay_to_lcp.c, Siconos 4.4).

use faer::Mat;

use super::{RelayProblem, RelaySolver};
use crate::lcp::{LcpProblem, LcpSolver, LemkeOptions};
use crate::matrix::NumericsMatrix;
use crate::{NumericsError, SolverReport, SolverStatus};

impl RelayProblem {
    /// The LCP reformulation of the relay problem (Siconos `relay_to_lcp`): with the shift
    /// `ζ = z − lb` and a multiplier `μ ≥ 0` of the upper bounds, the `2n`-dimensional LCP
    ///
    /// `w̃ = M̃ z̃ + q̃`, `0 ≤ z̃ ⊥ w̃ ≥ 0`, where
    /// `z̃ = (ζ, μ)`, `M̃ = [[M, I], [−I, 0]]`, `q̃ = (q + M lb, ub − lb)`.
    ///
    /// Its first block reads `w̃₁ = M z + q + μ ≥ 0 ⊥ ζ = z − lb ≥ 0` and its second
    /// `w̃₂ = ub − z ≥ 0 ⊥ μ ≥ 0`, so a solution maps back to the relay solution
    /// `z = lb + ζ`, `w = M z + q = w̃₁ − μ` (Siconos' mapping in `relay_lexicolemke`):
    /// `z_i = lb_i ⇒ w_i = w̃₁ᵢ ≥ 0` (as `μ_i = 0` when `lb_i < ub_i`), `z_i = ub_i ⇒
    /// w_i = −μ_i ≤ 0` (as `ζ_i > 0 ⇒ w̃₁ᵢ = 0`), and `w_i = 0` strictly inside. `M̃` is dense
    /// whatever the storage of `M` (Lemke works on a dense tableau anyway). `M̃` is positive
    /// semidefinite when `M` is (its off-diagonal blocks are skew), so Lemke's method solves it.
    ///
    /// # Errors
    /// None for a valid problem (the `Result` is that of [`LcpProblem::new`]).
    #[doc(alias = "relay_to_lcp")]
    pub fn to_lcp(&self) -> Result<LcpProblem, NumericsError> {
        let n = self.size();
        let mut m = Mat::zeros(2 * n, 2 * n);
        let mut q = vec![0.0; 2 * n];
        let mut scratch = vec![0.0; n * n];
        self.fill_lcp(&mut m, &mut q, &mut scratch);
        LcpProblem::new(NumericsMatrix::Dense(m), q)
    }

    /// Writes `M̃` and `q̃` of [`RelayProblem::to_lcp`] into `m` (`2n × 2n`) and `q` (`2n`);
    /// `scratch` (`n²`) receives `M` column-major.
    fn fill_lcp(&self, m: &mut Mat<f64>, q: &mut [f64], scratch: &mut [f64]) {
        let n = self.size();
        self.m().copy_to_col_major(scratch);
        for j in 0..2 * n {
            let col = m.col_as_slice_mut(j);
            col.fill(0.0);
            if j < n {
                col[..n].copy_from_slice(&scratch[j * n..(j + 1) * n]);
                col[n + j] = -1.0;
            } else {
                col[j - n] = 1.0;
            }
        }
        let (top, bottom) = q.split_at_mut(n);
        top.copy_from_slice(self.q());
        self.m().gemv(1.0, self.lb(), 1.0, top);
        for ((b, &u), &l) in bottom.iter_mut().zip(self.ub()).zip(self.lb()) {
            *b = u - l;
        }
    }
}

/// Lemke's method for the relay problem (Siconos `relay_lexicolemke`): builds the LCP of
/// [`RelayProblem::to_lcp`], solves it from `z̃ = 0` with our lexicographic
/// [`crate::lcp::LemkeSolver`], and maps the solution back, `z = lb + ζ`; `w = M z + q`.
///
/// As in Siconos the incoming `z` is not used (Lemke starts from its own basis), so two
/// solves of the same problem give the same `z`. The options are those of the LCP solver
/// ([`LemkeOptions`]): `max_iterations` caps the pivots and `tolerance` is used twice, for the
/// LCP residual inside the LCP solver and for the relay residual here (Siconos passes one
/// `SolverOptions` to both too). The report's `iterations` are the LCP pivots (counted as
/// Siconos' `ITER_DONE`), its residual is [`RelayProblem::compute_error`] at the returned `z`
/// (Siconos' `relay_driver` recomputes that error after the solver), and the status is
/// [`SolverStatus::Converged`] iff that residual is at or below the tolerance; otherwise it is
/// the LCP solver's status (ray, iteration cap, breakdown), or
/// [`SolverStatus::NumericalBreakdown`] when the LCP met its tolerance but the relay point
/// does not meet the relay one (the two errors are normalised differently) or is not finite.
///
/// The LCP's matrix and vector and the LCP solution live in a workspace reused across solves
/// of problems of the same size.
///
/// # Examples
/// ```
/// use nonsmooth_numerics::lcp::LemkeOptions;
/// use nonsmooth_numerics::matrix::NumericsMatrix;
/// use nonsmooth_numerics::relay::{LemkeSolver, RelayProblem, RelaySolver};
///
/// // M = [[2, 1], [1, 2]], q = (-5, 1), box [-1, 1]²: z = (1, -1), w = (-4, 0) (z_1 at ub).
/// let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
/// let problem = RelayProblem::new(NumericsMatrix::Dense(m), vec![-5.0, 1.0], vec![-1.0; 2], vec![1.0; 2])?;
/// let mut solver = LemkeSolver::new(LemkeOptions::default())?;
/// let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
/// let report = solver.solve(&problem, &mut z, &mut w)?;
/// assert!(report.is_converged());
/// assert!((z[0] - 1.0).abs() < 1e-14 && (z[1] + 1.0).abs() < 1e-14);
/// assert!((w[0] + 4.0).abs() < 1e-14 && w[1].abs() < 1e-14);
/// # Ok::<(), nonsmooth_numerics::NumericsError>(())
/// ```
#[doc(alias = "relay_lexicolemke")]
#[doc(alias = "SICONOS_RELAY_LEMKE")]
#[derive(Clone, Debug)]
pub struct LemkeSolver {
    lcp_solver: crate::lcp::LemkeSolver,
    workspace: LemkeWorkspace,
}

/// Buffers reused across solves of problems of one size.
#[derive(Clone, Debug, Default)]
struct LemkeWorkspace {
    /// The LCP of the last solve, whose storage the next solve of the same size refills.
    lcp: Option<LcpProblem>,
    /// `M` column-major.
    scratch: Vec<f64>,
    /// The LCP unknowns `z̃` and `w̃`.
    z_lcp: Vec<f64>,
    w_lcp: Vec<f64>,
}

impl LemkeWorkspace {
    /// The LCP of `problem`, in the buffers of the previous one when the size allows.
    fn lcp_of(&mut self, problem: &RelayProblem) -> Result<LcpProblem, NumericsError> {
        let n = problem.size();
        let (mut m, mut q) = match self.lcp.take().map(LcpProblem::into_parts) {
            Some((NumericsMatrix::Dense(m), q)) if q.len() == 2 * n => (m, q),
            _ => (Mat::zeros(2 * n, 2 * n), vec![0.0; 2 * n]),
        };
        self.scratch.resize(n * n, 0.0);
        problem.fill_lcp(&mut m, &mut q, &mut self.scratch);
        LcpProblem::new(NumericsMatrix::Dense(m), q)
    }
}

impl LemkeSolver {
    /// Builds the solver, validating the options once.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] as [`crate::lcp::LemkeSolver::new`].
    pub fn new(options: LemkeOptions) -> Result<Self, NumericsError> {
        Ok(Self { lcp_solver: crate::lcp::LemkeSolver::new(options)?, workspace: LemkeWorkspace::default() })
    }

    /// The options in use.
    pub fn options(&self) -> &LemkeOptions {
        self.lcp_solver.options()
    }
}

impl RelaySolver for LemkeSolver {
    fn solve(&mut self, problem: &RelayProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        problem.check_len("relay z", z.len())?;
        problem.check_len("relay w", w.len())?;
        let n = problem.size();
        let limit = self.lcp_solver.options().max_dense_bytes;
        crate::options::dense_fits(
            "the LCP reformulation of the relay problem",
            2 * n,
            2 * n,
            limit,
            "the solver pgs",
        )?;
        let lcp = self.workspace.lcp_of(problem)?;
        let ws = &mut self.workspace;
        ws.z_lcp.clear();
        ws.z_lcp.resize(2 * n, 0.0);
        ws.w_lcp.clear();
        ws.w_lcp.resize(2 * n, 0.0);
        let inner = self.lcp_solver.solve(&lcp, &mut ws.z_lcp, &mut ws.w_lcp);
        ws.lcp = Some(lcp);
        let inner = inner?;

        for ((zi, &zeta), &l) in z.iter_mut().zip(&ws.z_lcp[..n]).zip(problem.lb()) {
            *zi = zeta + l;
        }
        let residual = problem.compute_error(z, w)?;
        let status = if residual <= self.lcp_solver.options().tolerance {
            SolverStatus::Converged
        } else if !residual.is_finite() || inner.status == SolverStatus::Converged {
            SolverStatus::NumericalBreakdown
        } else {
            inner.status
        };
        Ok(SolverReport::new(status, inner.iterations, residual))
    }

    fn name(&self) -> &'static str {
        "lemke"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(m: Mat<f64>, q: Vec<f64>, lb: Vec<f64>, ub: Vec<f64>) -> RelayProblem {
        RelayProblem::new(NumericsMatrix::Dense(m), q, lb, ub).expect("valid relay problem")
    }

    fn solve(p: &RelayProblem) -> (SolverReport, Vec<f64>, Vec<f64>) {
        let mut solver = LemkeSolver::new(LemkeOptions::default().with_tolerance(1e-14)).expect("valid options");
        let n = p.size();
        let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
        let report = solver.solve(p, &mut z, &mut w).expect("sizes agree");
        (report, z, w)
    }

    #[test]
    fn lcp_reformulation_has_siconos_layout() {
        let p = dense(faer::mat![[2.0, 1.0], [3.0, 4.0]], vec![1.0, -1.0], vec![-1.0, 0.0], vec![1.0, 2.0]);
        let lcp = p.to_lcp().expect("valid");
        let expected =
            faer::mat![[2.0, 1.0, 1.0, 0.0], [3.0, 4.0, 0.0, 1.0], [-1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0],];
        for i in 0..4 {
            for j in 0..4 {
                assert!((lcp.m().get(i, j) - expected[(i, j)]).abs() < 1e-300, "({i}, {j})");
            }
        }
        // q̃ = (q + M lb, ub − lb) = (1 − 2, −1 − 3, 2, 2).
        let q_expected = [-1.0, -4.0, 2.0, 2.0];
        assert!(lcp.q().iter().zip(&q_expected).all(|(a, b)| (a - b).abs() < 1e-15), "{:?}", lcp.q());
    }

    #[test]
    fn one_dimensional_cases_interior_and_both_bounds() {
        for (q, expected, w_expected) in [(-1.0, 0.5, 0.0), (-4.0, 1.0, -2.0), (6.0, -1.0, 4.0)] {
            let p = dense(faer::mat![[2.0]], vec![q], vec![-1.0], vec![1.0]);
            let (report, z, w) = solve(&p);
            assert!(report.is_converged(), "q = {q}: {report:?}");
            assert!((z[0] - expected).abs() < 1e-15 && (w[0] - w_expected).abs() < 1e-15, "q = {q}: {z:?} {w:?}");
        }
    }

    #[test]
    fn two_dimensional_cases_match_hand_solutions() {
        // z = (1, -2), w = (0, 5) (see the PGS test of the same problem).
        let p = dense(faer::mat![[4.0, 1.0], [1.0, 3.0]], vec![-2.0, 10.0], vec![0.0, -2.0], vec![1.0, 2.0]);
        let (report, z, w) = solve(&p);
        assert!(report.is_converged() && report.residual <= 1e-14, "{report:?}");
        assert!((z[0] - 1.0).abs() < 1e-14 && (z[1] + 2.0).abs() < 1e-14, "{z:?}");
        assert!(w[0].abs() < 1e-13 && (w[1] - 5.0).abs() < 1e-13, "{w:?}");
        // Interior: M = [[2, 1], [1, 2]], q = (-1, 1) in [-2, 2]²: z = (1, -1), w = 0.
        let p = dense(faer::mat![[2.0, 1.0], [1.0, 2.0]], vec![-1.0, 1.0], vec![-2.0; 2], vec![2.0; 2]);
        let (report, z, w) = solve(&p);
        assert!(report.is_converged(), "{report:?}");
        assert!((z[0] - 1.0).abs() < 1e-14 && (z[1] + 1.0).abs() < 1e-14 && w.iter().all(|v| v.abs() < 1e-14));
    }

    #[test]
    fn reused_workspace_and_other_storages_give_the_same_solution() {
        let p = dense(faer::mat![[4.0, 1.0], [1.0, 3.0]], vec![-2.0, 10.0], vec![0.0, -2.0], vec![1.0, 2.0]);
        let sparse =
            RelayProblem::new(NumericsMatrix::Sparse(p.m().to_csr()), p.q().to_vec(), p.lb().to_vec(), p.ub().to_vec())
                .expect("valid");
        let one = dense(faer::mat![[2.0]], vec![-1.0], vec![-1.0], vec![1.0]);
        let mut solver = LemkeSolver::new(LemkeOptions::default()).expect("valid options");
        let mut results = Vec::new();
        for problem in [&p, &one, &sparse, &p] {
            let n = problem.size();
            let (mut z, mut w) = (vec![0.5; n], vec![0.0; n]);
            let report = solver.solve(problem, &mut z, &mut w).expect("sizes agree");
            assert!(report.is_converged(), "{report:?}");
            results.push(z);
        }
        assert!((results[1][0] - 0.5).abs() < 1e-15);
        for r in [&results[2], &results[3]] {
            assert!(r.iter().zip(&results[0]).all(|(a, b)| (a - b).abs() < 1e-15), "{r:?} vs {:?}", results[0]);
        }
    }

    #[test]
    fn iteration_cap_is_a_status_not_a_false_convergence() {
        // Interior solution z = (1, -1) of M = [[2, 1], [1, 2]], q = (-1, 1) in [-2, 2]².
        let p = dense(faer::mat![[2.0, 1.0], [1.0, 2.0]], vec![-1.0, 1.0], vec![-2.0; 2], vec![2.0; 2]);
        let (full, _, _) = solve(&p);
        let mut solver = LemkeSolver::new(LemkeOptions::default().with_tolerance(1e-14).with_max_iterations(1))
            .expect("valid options");
        let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
        let report = solver.solve(&p, &mut z, &mut w).expect("sizes agree");
        assert!(full.iterations > 1);
        assert_eq!(report.status, SolverStatus::MaxIterations);
        assert!(report.residual > 1e-14);
    }

    #[test]
    fn wrong_lengths_are_typed_errors() {
        let p = dense(Mat::identity(2, 2), vec![1.0, 1.0], vec![0.0; 2], vec![1.0; 2]);
        let mut solver = LemkeSolver::new(LemkeOptions::default()).expect("valid options");
        let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 1]);
        assert!(matches!(
            solver.solve(&p, &mut z, &mut w),
            Err(NumericsError::DimensionMismatch { what: "relay w", expected: 2, found: 1 })
        ));
        assert!(matches!(
            LemkeSolver::new(LemkeOptions::default().with_max_iterations(0)),
            Err(NumericsError::InvalidOption { name: "max_iterations", .. })
        ));
    }
}
