//! Fixed point on the cone projection for one contact (Siconos
//! `fc3d_projectionOnConeWithLocalIteration_solve`, `numerics/src/FrictionContact/fc3d_projection.c`).

use super::{OneContactProblem, check_options, check_start, norm3};
use crate::fc::projection_on_cone;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Options of [`solve_projection`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct OneContactProjectionOptions {
    /// Stop when [`OneContactProblem::error`] is at or below this (default: 1e-12).
    pub tolerance: f64,
    /// Iteration cap (default: 20 000).
    pub max_iterations: usize,
}

impl Default for OneContactProjectionOptions {
    fn default() -> Self {
        Self { tolerance: 1e-12, max_iterations: 20_000 }
    }
}

/// `û = F(r) = (u_N + μ‖u_T‖, u_T)` with `u = W r + q` (De Saxcé's modified velocity).
fn modified_velocity(problem: &OneContactProblem, r: &[f64; 3]) -> [f64; 3] {
    let mut u = problem.velocity(r);
    u[0] += problem.mu() * (u[1] * u[1] + u[2] * u[2]).sqrt();
    u
}

/// Solves one contact by the fixed point `r ← P_{K_μ}(r − ρ F(r))`, `F(r) = (u_N + μ‖u_T‖, u_T)`,
/// `u = W r + q`, starting from `r` and overwriting it with the last iterate.
///
/// Step: `ρ₀ = 1 / (W_NN + W_T1T1 + W_T2T2)` (one over the trace, so `ρ λ_max(W) ≤ 1` for a
/// symmetric positive definite `W`), then adapted at each iteration as in Siconos'
/// "projection on cone with local iteration": a trial step is accepted when
/// `ρ ‖F(r⁺) − F(r)‖ ≤ 0.9 ‖r⁺ − r‖` (else `ρ ← ρ/2`, at most 60 times), and `ρ ← 1.5 ρ` after a
/// step with ratio below 0.3. The error is [`OneContactProblem::error`].
///
/// Status: `Converged` at `error ≤ tolerance`, `MaxIterations` at the cap, `Stalled` when `ρ`
/// cannot be reduced enough, `NumericalBreakdown` on a non-finite iterate.
///
/// # Errors
/// [`NumericsError::InvalidOption`] for a non-positive tolerance or a zero iteration cap,
/// [`NumericsError::NonFinite`] for a non-finite starting `r`.
pub fn solve_projection(
    problem: &OneContactProblem,
    r: &mut [f64; 3],
    options: &OneContactProjectionOptions,
) -> Result<SolverReport, NumericsError> {
    check_options(options.tolerance, options.max_iterations)?;
    check_start(r)?;
    let w = problem.w();
    let mut rho = 1.0 / (w[0][0] + w[1][1] + w[2][2]);
    let mu = problem.mu();
    let mut error = problem.error(r);
    if error <= options.tolerance {
        return Ok(SolverReport::new(SolverStatus::Converged, 0, error));
    }
    let mut f = modified_velocity(problem, r);
    for it in 1..=options.max_iterations {
        let mut accepted = None;
        for _ in 0..60 {
            let mut trial = [r[0] - rho * f[0], r[1] - rho * f[1], r[2] - rho * f[2]];
            projection_on_cone(&mut trial, mu);
            let f_trial = modified_velocity(problem, &trial);
            let dr = norm3(&[trial[0] - r[0], trial[1] - r[1], trial[2] - r[2]]);
            let df = norm3(&[f_trial[0] - f[0], f_trial[1] - f[1], f_trial[2] - f[2]]);
            if rho * df <= 0.9 * dr || dr == 0.0 {
                accepted = Some((trial, f_trial, if dr > 0.0 { rho * df / dr } else { 0.0 }));
                break;
            }
            rho *= 0.5;
        }
        let Some((trial, f_trial, ratio)) = accepted else {
            return Ok(SolverReport::new(SolverStatus::Stalled, it, error));
        };
        *r = trial;
        f = f_trial;
        if ratio < 0.3 {
            rho *= 1.5;
        }
        error = problem.error(r);
        if !error.is_finite() {
            return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, error));
        }
        if error <= options.tolerance {
            return Ok(SolverReport::new(SolverStatus::Converged, it, error));
        }
    }
    Ok(SolverReport::new(SolverStatus::MaxIterations, options.max_iterations, error))
}
