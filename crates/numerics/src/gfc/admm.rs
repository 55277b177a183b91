//! Alternating direction method of multipliers for the global frictional contact problem
//! (Siconos `gfc3d_ADMM`, solver `SICONOS_GLOBAL_FRICTION_3D_ADMM`,
//! `numerics/src/FrictionContact/gfc3d_ADMM.c`, for the splitting and its defaults). The
//! acceleration with restart: T. Goldstein, B. O'Donoghue, S. Setzer, R. Baraniuk, "Fast
//! alternating direction optimization methods", SIAM J. Imaging Sci. 7, 2014; residual
//! balancing: S. Boyd et al., "Distributed optimization and statistical learning via the
//! alternating direction method of multipliers", Found. Trends Mach. Learn. 3, 2011, §3.4.1.
//!
//! Integration tests: `tests/it/gfc_solvers.rs`.

#![allow(non_snake_case)]

use sprs::{CsMat, TriMat};

use super::factor::MassFactorization;
use super::problem::GlobalFc3dProblem;
use crate::fc::problem::{check_finite, check_len};
use crate::fc::projection_on_cone;
use crate::matrix::{NumericsMatrix, norm2};
use crate::{NumericsError, SolverReport, SolverStatus, options};

/// How the penalty `ρ` of [`AdmmSolver`] evolves.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum AdmmRhoStrategy {
    /// `ρ` stays at its initial value (Siconos 4.4's default,
    /// `SICONOS_FRICTION_3D_ADMM_RHO_STRATEGY_CONSTANT`).
    Constant,
    /// Residual balancing (Siconos `SICONOS_FRICTION_3D_ADMM_RHO_STRATEGY_RESIDUAL_BALANCING`;
    /// Boyd et al. 2011, §3.4.1): after each iteration, `ρ ← τ ρ` when the primal residual
    /// exceeds `φ` times the dual one, `ρ ← ρ / τ` in the opposite case; the scaled multiplier
    /// is rescaled by the inverse ratio and `M + ρ H Hᵀ` refactorized. Siconos' values:
    /// `τ = 2`, `φ = 10`.
    ResidualBalancing {
        /// The factor `τ > 1`.
        tau: f64,
        /// The imbalance ratio `φ > 1` that triggers a change.
        phi: f64,
    },
}

/// Options of [`AdmmSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct AdmmOptions {
    /// Global error ([`GlobalFcProblem::compute_error`](super::GlobalFcProblem::compute_error))
    /// accepted as converged (default: `1e-6`, Siconos' default). Positive and finite.
    pub tolerance: f64,
    /// Maximum number of iterations (default: `20 000`, Siconos' default). At least 1.
    pub max_iterations: usize,
    /// The initial penalty `ρ > 0` (default: `0.1`, Siconos'
    /// `dparam[SICONOS_FRICTION_3D_ADMM_RHO]`).
    pub rho: f64,
    /// How `ρ` evolves (default: [`AdmmRhoStrategy::Constant`], Siconos 4.4's default).
    pub rho_strategy: AdmmRhoStrategy,
    /// Nesterov-type acceleration with restart (Goldstein et al. 2014) (default: `true`,
    /// Siconos' `SICONOS_FRICTION_3D_ADMM_ACCELERATION_AND_RESTART`); `false` runs the plain
    /// iteration.
    pub acceleration: bool,
    /// Restart factor `η ∈ (0, 1)`: an accelerated step is kept while the combined residual
    /// decreases by the factor `η` (default: `0.999`, Siconos'
    /// `dparam[SICONOS_FRICTION_3D_ADMM_RESTART_ETA]`).
    pub restart_eta: f64,
    /// The global error is also evaluated every this many iterations, whatever the residuals
    /// say; 0 never (default: `50`, Siconos'
    /// `iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION_FREQUENCY]`).
    pub error_evaluation_frequency: usize,
}

impl Default for AdmmOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-6,
            max_iterations: 20_000,
            rho: 0.1,
            rho_strategy: AdmmRhoStrategy::Constant,
            acceleration: true,
            restart_eta: 0.999,
            error_evaluation_frequency: 50,
        }
    }
}

impl AdmmOptions {
    /// Sets [`AdmmOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`AdmmOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`AdmmOptions::rho`].
    pub fn with_rho(mut self, rho: f64) -> Self {
        self.rho = rho;
        self
    }

    /// Sets [`AdmmOptions::rho_strategy`].
    pub fn with_rho_strategy(mut self, rho_strategy: AdmmRhoStrategy) -> Self {
        self.rho_strategy = rho_strategy;
        self
    }

    /// Sets [`AdmmOptions::acceleration`].
    pub fn with_acceleration(mut self, acceleration: bool) -> Self {
        self.acceleration = acceleration;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive_finite("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        options::positive_finite("rho", self.rho)?;
        if !(self.restart_eta > 0.0 && self.restart_eta < 1.0) {
            return Err(NumericsError::InvalidOption { name: "restart_eta", reason: "must be in (0, 1)" });
        }
        if let AdmmRhoStrategy::ResidualBalancing { tau, phi } = self.rho_strategy {
            if !(tau.is_finite() && tau > 1.0) {
                return Err(NumericsError::InvalidOption {
                    name: "rho_strategy",
                    reason: "tau must be finite and > 1",
                });
            }
            if !(phi.is_finite() && phi > 1.0) {
                return Err(NumericsError::InvalidOption {
                    name: "rho_strategy",
                    reason: "phi must be finite and > 1",
                });
            }
        }
        Ok(())
    }
}

/// ADMM solver of the global 3D frictional contact problem (Siconos `gfc3d_ADMM`,
/// `SICONOS_GLOBAL_FRICTION_3D_ADMM`, without its optional rescalings).
///
/// The problem is split as `M v = q + H r`, `u = Hᵀ v + s`, `u ∈ K*`, `r ∈ K`, `r ⊥ u`, with
/// the De Saxcé shift `s = b + (μ_α ‖û_{α,T}‖, 0, 0)_α` evaluated at the current (extrapolated)
/// local velocity `û`, so that at a fixed point `u − (μ‖u_T‖, 0, 0)` is the Coulomb velocity.
/// With the scaled multiplier `ξ = r / ρ`, one iteration reads:
///
/// 1. `(M + ρ H Hᵀ) v = q + ρ H (û − s + ξ̂)` — the matrix is factorized
///    ([`MassFactorization`]: sparse Cholesky when it is symmetric positive definite, sparse LU
///    otherwise) once, and again only when `ρ` changes;
/// 2. `u = P_{K*}(Hᵀ v + s − ξ̂)`, the projection on the dual cones
///    `K_α* = { ‖u_T‖ ≤ u_N / μ_α }` (by Moreau's decomposition, `P_{K*}(x) = x + P_K(−x)`);
/// 3. `ξ = ξ̂ + u − Hᵀ v − s`;
/// 4. primal residual `p = ‖u − Hᵀ v − s‖`, dual residual `d = ‖ρ H (û − u)‖`; with
///    [`AdmmOptions::acceleration`], while `e = p² + ρ²‖û − u‖²` decreases by the factor `η`,
///    the extrapolation `û = u + α (u − u_prev)`, `ξ̂ = ξ + α (ξ − ξ_prev)` with Nesterov's
///    `α = (τ_k − 1)/τ_{k+1}`, `τ_{k+1} = (1 + √(1 + 4τ_k²))/2`; otherwise a restart
///    (`û = u_prev`, `ξ̂ = ξ_prev`, `τ = 1`);
/// 5. the update of `ρ` ([`AdmmRhoStrategy`]).
///
/// Stopping test (as Siconos): when `p ≤ ε (max(‖u‖, ‖Hᵀv‖, ‖s‖) + √(3nc))` and
/// `d ≤ ε (‖ρ H ξ‖ + √n)`, the global error at `r = ρ ξ` is computed; the solve stops when it
/// is `≤ tolerance`, otherwise `ε ← ε · tolerance / error` and the iteration goes on (`ε`
/// starts at `tolerance`). The global error is also checked every
/// [`AdmmOptions::error_evaluation_frequency`] iterations.
///
/// The iteration starts from `ξ = r / ρ` (the incoming `r`) and `u = 0`; `v` is output only.
/// On return `u = Hᵀ v + b`. Status: `Converged`; `MaxIterations`; `NumericalBreakdown` when
/// an iterate is not finite.
#[derive(Debug)]
#[doc(alias = "gfc3d_ADMM")]
#[doc(alias = "GFC3D_ADMM")]
pub struct AdmmSolver {
    options: AdmmOptions,
}

/// `M` and `H Hᵀ` as triplets, combined into `M + ρ H Hᵀ` for each `ρ`.
struct Penalized {
    n: usize,
    m_entries: Vec<(usize, usize, f64)>,
    hht_entries: Vec<(usize, usize, f64)>,
}

impl Penalized {
    fn new(problem: &GlobalFc3dProblem) -> Self {
        let n = problem.velocity_size();
        let M: CsMat<f64> = problem.m().to_csc();
        let H: CsMat<f64> = problem.h().to_csc();
        let m_entries = M.iter().map(|(&x, (i, j))| (i, j, x)).collect();
        let mut hht_entries = Vec::new();
        for col in H.outer_iterator() {
            for (i, &x) in col.iter() {
                for (j, &y) in col.iter() {
                    hht_entries.push((i, j, x * y));
                }
            }
        }
        Self { n, m_entries, hht_entries }
    }

    /// Factorizes `M + ρ H Hᵀ`.
    fn factor(&self, rho: f64) -> Result<MassFactorization, NumericsError> {
        let mut t = TriMat::with_capacity((self.n, self.n), self.m_entries.len() + self.hht_entries.len());
        for &(i, j, x) in &self.m_entries {
            t.add_triplet(i, j, x);
        }
        for &(i, j, x) in &self.hht_entries {
            t.add_triplet(i, j, rho * x);
        }
        MassFactorization::new(&NumericsMatrix::Sparse(t.to_csc()))
    }
}

/// `x ← P_{K*}(x)` on the dual cone `K* = { ‖x_T‖ ≤ x_N / μ }`, by Moreau's decomposition
/// `P_{K*}(x) = x + P_K(−x)` (Siconos `projectionOnDualCone`).
fn projection_on_dual_cone(x: &mut [f64; 3], mu: f64) {
    let mut y = [-x[0], -x[1], -x[2]];
    projection_on_cone(&mut y, mu);
    for k in 0..3 {
        x[k] += y[k];
    }
}

impl AdmmSolver {
    /// Builds a solver.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for a non-positive or non-finite tolerance or `ρ`, a
    /// zero iteration cap, `η ∉ (0, 1)`, or residual-balancing factors not `> 1`.
    pub fn new(options: AdmmOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options })
    }

    /// The options.
    pub fn options(&self) -> &AdmmOptions {
        &self.options
    }

    /// Solves `problem`: `r` (`3nc`) is the warm start on entry and the reactions on exit; `u`
    /// (`3nc`) and `v` (`n`) are overwritten with the local and global velocities.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] for wrong lengths, [`NumericsError::NonFinite`] for
    /// a non-finite warm start, [`NumericsError::Singular`] when `M + ρ H Hᵀ` is singular.
    /// Non-convergence is a status of the report.
    pub fn solve(
        &mut self,
        problem: &GlobalFc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
        v: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        let (n, m) = (problem.velocity_size(), problem.size());
        check_len("admm reaction r", r, m)?;
        check_len("admm local velocity u", u, m)?;
        check_len("admm global velocity v", v, n)?;
        check_finite("admm reaction r (warm start)", r)?;
        let o = &self.options;
        let (H, b, q, mu) = (problem.h(), problem.b(), problem.q(), problem.mu());
        let penalized = Penalized::new(problem);
        let mut rho = o.rho;
        let mut factor = penalized.factor(rho)?;
        let sqrt_m = (m as f64).sqrt();
        let sqrt_n = (n as f64).sqrt();

        let mut xi: Vec<f64> = r.iter().map(|x| x / rho).collect();
        let mut xi_hat = xi.clone();
        let mut xi_prev = xi.clone();
        let mut w = vec![0.0; m]; // the local velocity iterate u of the splitting
        let mut w_hat = vec![0.0f64; m];
        let mut w_prev = vec![0.0; m];
        let mut s = vec![0.0; m];
        let mut tmp_m = vec![0.0; m];
        let mut htv = vec![0.0; m];
        let mut tmp_n = vec![0.0; n];
        let mut rhs = faer::Mat::<f64>::zeros(n, 1);
        let (mut tau_k, mut e_k) = (1.0f64, f64::INFINITY);
        let mut inner_tolerance = o.tolerance;
        let mut error = f64::INFINITY;

        for it in 1..=o.max_iterations {
            // s = b + μ ‖û_T‖ e_N.
            s.copy_from_slice(b);
            for (c, &muc) in mu.iter().enumerate() {
                let k = 3 * c;
                s[k] += muc * w_hat[k + 1].hypot(w_hat[k + 2]);
            }
            // (M + ρ H Hᵀ) v = q + ρ H (û − s + ξ̂).
            for (((t, wh), sk), xh) in tmp_m.iter_mut().zip(&w_hat).zip(&s).zip(&xi_hat) {
                *t = wh - sk + xh;
            }
            v.copy_from_slice(q);
            if m > 0 {
                H.gemv(rho, &tmp_m, 1.0, v);
            }
            // Through a column allocated once (MassFactorization::solve_in_place allocates).
            rhs.col_as_slice_mut(0).copy_from_slice(v);
            factor.solve_columns_in_place(rhs.as_mut())?;
            v.copy_from_slice(rhs.col_as_slice(0));
            // u = P_{K*}(Hᵀ v + s − ξ̂).
            htv.fill(0.0);
            if m > 0 {
                H.gemv_transpose(1.0, v, 0.0, &mut htv);
            }
            for k in 0..m {
                w[k] = htv[k] + s[k] - xi_hat[k];
            }
            for (c, &muc) in mu.iter().enumerate() {
                let k = 3 * c;
                let mut x = [w[k], w[k + 1], w[k + 2]];
                projection_on_dual_cone(&mut x, muc);
                w[k..k + 3].copy_from_slice(&x);
            }
            // ξ = ξ̂ + u − Hᵀ v − s, primal residual.
            let mut primal = 0.0;
            for k in 0..m {
                let res = w[k] - htv[k] - s[k];
                primal += res * res;
                xi[k] = xi_hat[k] + res;
            }
            let primal = primal.sqrt();
            let (norm_u, norm_htv, norm_s) = (norm2(&w), norm2(&htv), norm2(&s));
            tmp_n.fill(0.0);
            if m > 0 {
                H.gemv(rho, &xi, 0.0, &mut tmp_n);
            }
            let norm_rho_h_xi = norm2(&tmp_n);
            // Dual residual ρ H (û − u).
            for k in 0..m {
                tmp_m[k] = w_hat[k] - w[k];
            }
            let restart_dual = rho * norm2(&tmp_m);
            tmp_n.fill(0.0);
            if m > 0 {
                H.gemv(rho, &tmp_m, 0.0, &mut tmp_n);
            }
            let dual = norm2(&tmp_n);
            if !(primal.is_finite() && dual.is_finite() && v.iter().all(|x| x.is_finite())) {
                r.iter_mut().zip(&xi).for_each(|(ri, x)| *ri = rho * x);
                let err = problem.compute_error(r, u, v).unwrap_or(f64::NAN);
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, err));
            }
            // Acceleration and restart.
            let e = primal * primal + restart_dual * restart_dual;
            if o.acceleration && e < o.restart_eta * e_k {
                let tau = 0.5 * (1.0 + (1.0 + 4.0 * tau_k * tau_k).sqrt());
                let alpha = (tau_k - 1.0) / tau;
                for k in 0..m {
                    w_hat[k] = w[k] + alpha * (w[k] - w_prev[k]);
                    xi_hat[k] = xi[k] + alpha * (xi[k] - xi_prev[k]);
                }
                tau_k = tau;
                e_k = e;
            } else if o.acceleration {
                tau_k = 1.0;
                e_k /= o.restart_eta;
                w_hat.copy_from_slice(&w_prev);
                xi_hat.copy_from_slice(&xi_prev);
            } else {
                w_hat.copy_from_slice(&w);
                xi_hat.copy_from_slice(&xi);
            }
            // Penalty update.
            if let AdmmRhoStrategy::ResidualBalancing { tau, phi } = o.rho_strategy {
                let new_rho = if primal > phi * dual {
                    Some(rho * tau)
                } else if dual > phi * primal {
                    Some(rho / tau)
                } else {
                    None
                };
                if let Some(new_rho) = new_rho {
                    let ratio = rho / new_rho;
                    xi.iter_mut().chain(xi_hat.iter_mut()).for_each(|x| *x *= ratio);
                    rho = new_rho;
                    factor = penalized.factor(rho)?;
                }
            }
            xi_prev.copy_from_slice(&xi);
            w_prev.copy_from_slice(&w);
            // Stopping test.
            let eps_primal = inner_tolerance * (norm_u.max(norm_htv).max(norm_s) + sqrt_m);
            let eps_dual = inner_tolerance * (norm_rho_h_xi + sqrt_n);
            let residuals_small = primal <= eps_primal && dual <= eps_dual;
            let periodic = o.error_evaluation_frequency > 0 && it % o.error_evaluation_frequency == 0;
            if residuals_small || periodic || it == o.max_iterations {
                r.iter_mut().zip(&xi).for_each(|(ri, x)| *ri = rho * x);
                error = problem.compute_error(r, u, v)?;
                if error <= o.tolerance {
                    return Ok(SolverReport::new(SolverStatus::Converged, it, error));
                }
                if !error.is_finite() {
                    return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, error));
                }
                if residuals_small {
                    inner_tolerance *= o.tolerance / error;
                }
            }
        }
        Ok(SolverReport::new(SolverStatus::MaxIterations, o.max_iterations, error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dual_cone_projection() {
        // Inside K* (‖x_T‖ ≤ x_N / μ): unchanged.
        let mut x = [1.0, 1.0, 0.0];
        projection_on_dual_cone(&mut x, 0.5);
        assert!(x.iter().zip([1.0, 1.0, 0.0]).all(|(a, b)| (a - b).abs() <= 1e-15), "{x:?}");
        // In the polar of K* (−K): the apex.
        let mut x = [-1.0, 0.1, 0.0];
        projection_on_dual_cone(&mut x, 0.5);
        assert!(x.iter().all(|v| v.abs() <= 1e-15), "{x:?}");
        // μ = 1 (self-dual cone): the boundary point of (0, 1, 0) is (1/2, 1/2, 0).
        let mut x = [0.0, 1.0, 0.0];
        projection_on_dual_cone(&mut x, 1.0);
        assert!((x[0] - 0.5).abs() <= 1e-15 && (x[1] - 0.5).abs() <= 1e-15, "{x:?}");
    }

    #[test]
    fn options_are_validated() {
        let bad = AdmmOptions::default().with_rho_strategy(AdmmRhoStrategy::ResidualBalancing { tau: 1.0, phi: 10.0 });
        assert!(matches!(AdmmSolver::new(bad), Err(NumericsError::InvalidOption { name: "rho_strategy", .. })));
        assert!(matches!(
            AdmmSolver::new(AdmmOptions::default().with_rho(-1.0)),
            Err(NumericsError::InvalidOption { name: "rho", .. })
        ));
    }
}
