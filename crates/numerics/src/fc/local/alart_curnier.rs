//! Semismooth Newton method on the Alart–Curnier function of one contact (P. Alart,
//! A. Curnier, "A mixed formulation for frictional contact problems prone to Newton like
//! solution methods", Comput. Methods Appl. Mech. Engrg. 92, 1991; the Siconos developer
//! documentation, "Alart–Curnier Formulation"; Siconos `fc3d_AlartCurnier_functions.c`,
//! `computeAlartCurnierSTD`, and `fc3d_onecontact_nonsmooth_Newton_solvers.c`).

use super::projection::{OneContactProjectionOptions, solve_projection};
use super::{OneContactProblem, check_options, check_start};
use crate::{NumericsError, SolverReport, SolverStatus};

/// Options of [`solve_alart_curnier`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct AlartCurnierOptions {
    /// Stop when [`OneContactProblem::error`] is at or below this (default: 1e-12).
    pub tolerance: f64,
    /// Newton iteration cap (default: 200).
    pub max_iterations: usize,
    /// Armijo constant `σ` of the line search on `ψ = ½‖Φ‖²` (default: 1e-4).
    pub armijo_sigma: f64,
    /// Maximal number of step halvings in the line search (default: 30).
    pub max_line_search: usize,
    /// Cap on the projection iterations run from the current iterate when the line search
    /// fails, before Newton resumes (Siconos' hybrid strategy; 0 disables it) (default: 5000).
    pub hybrid_projection_iterations: usize,
}

impl Default for AlartCurnierOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-12,
            max_iterations: 200,
            armijo_sigma: 1e-4,
            max_line_search: 30,
            hybrid_projection_iterations: 5000,
        }
    }
}

/// The Alart–Curnier function `Φ(r)` and one element `J` of its generalized Jacobian
/// (row-major), with `u = W r + q`, `ρ = (ρ_N, ρ_T)`:
///
/// * `d = r_N − ρ_N u_N`, `Φ_N = r_N − max(0, d)`;
/// * `z = r_T − ρ_T u_T`, `Φ_T = r_T − P_{B(0, μ max(0, d))}(z)` (projection on the disk).
///
/// Cases of the Jacobian (`J = ∂Φ/∂r + ∂Φ/∂u · W`): take-off `d ≤ 0` gives the row `e_N`;
/// contact `d > 0` gives `ρ_N W_N`. Sticking `‖z‖ ≤ R = μ max(0, d)` (including the degenerate
/// `z = 0, R = 0`) gives `ρ_T W_T`; sliding `‖z‖ > R` gives
/// `E_T − (R/‖z‖)(I − ẑẑᵀ)(E_T − ρ_T W_T) − μ ẑ (e_N − ρ_N W_N)` (the last term only when
/// `d > 0`; with `d ≤ 0`, `R = 0` and the row is `E_T`). The boundary cases `d = 0` and
/// `‖z‖ = R` take the take-off and sticking branches, both elements of the generalized Jacobian.
pub fn alart_curnier_function(problem: &OneContactProblem, r: &[f64; 3], rho: [f64; 2]) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut jac = [[0.0; 3]; 3];
    let phi = evaluate::<true>(problem, r, rho, &mut jac);
    (phi, jac)
}

/// `Φ(r)`, and its generalized Jacobian into `jac` when `JAC` (see [`alart_curnier_function`]).
#[inline(always)]
fn evaluate<const JAC: bool>(
    problem: &OneContactProblem,
    r: &[f64; 3],
    rho: [f64; 2],
    jac: &mut [[f64; 3]; 3],
) -> [f64; 3] {
    evaluate_at::<JAC>(problem, r, &problem.velocity(r), rho, jac)
}

/// [`evaluate`] with the velocity `u = W r + q` already at hand.
#[inline(always)]
fn evaluate_at<const JAC: bool>(
    problem: &OneContactProblem,
    r: &[f64; 3],
    u: &[f64; 3],
    rho: [f64; 2],
    jac: &mut [[f64; 3]; 3],
) -> [f64; 3] {
    let w = problem.w();
    let mu = problem.mu();
    let [rho_n, rho_t] = rho;
    let mut phi = [0.0; 3];
    let d = r[0] - rho_n * u[0];
    if d > 0.0 {
        phi[0] = r[0] - d;
        if JAC {
            jac[0] = w[0].map(|v| rho_n * v);
        }
    } else {
        phi[0] = r[0];
        if JAC {
            jac[0] = [1.0, 0.0, 0.0];
        }
    }
    let radius = mu * d.max(0.0);
    let z = [r[1] - rho_t * u[1], r[2] - rho_t * u[2]];
    let nz = (z[0] * z[0] + z[1] * z[1]).sqrt();
    if nz <= radius {
        // Sticking: Φ_T = r_T − z = ρ_T u_T.
        for k in 0..2 {
            phi[k + 1] = r[k + 1] - z[k];
            if JAC {
                jac[k + 1] = w[k + 1].map(|v| rho_t * v);
            }
        }
    } else {
        // Sliding (nz > radius ≥ 0, so nz > 0).
        let zh = [z[0] / nz, z[1] / nz];
        for k in 0..2 {
            phi[k + 1] = r[k + 1] - radius * zh[k];
        }
        if JAC {
            let s = radius / nz;
            // dz/dr = E_T − ρ_T W_T (2×3).
            let mut dz = [[0.0; 3]; 2];
            for k in 0..2 {
                for j in 0..3 {
                    dz[k][j] = if j == k + 1 { 1.0 } else { 0.0 } - rho_t * w[k + 1][j];
                }
            }
            for k in 0..2 {
                for j in 0..3 {
                    let proj = dz[k][j] - zh[k] * (zh[0] * dz[0][j] + zh[1] * dz[1][j]);
                    let e = if j == k + 1 { 1.0 } else { 0.0 };
                    let dradius = if d > 0.0 { mu * (if j == 0 { 1.0 } else { 0.0 } - rho_n * w[0][j]) } else { 0.0 };
                    jac[k + 1][j] = e - s * proj - zh[k] * dradius;
                }
            }
        }
    }
    phi
}

/// The exact solution of a one-contact problem when it is a take-off or a sticking one, without
/// iterating: `q_N ≥ 0` gives `r = 0` (then `u = q` and `û_N = u_N + μ‖u_T‖ ≥ μ‖u_T‖`, so
/// `û ∈ K_μ*` and `r ⊥ û`); otherwise the sticking candidate `r = −W⁻¹ q` (`u = 0`) is the
/// solution when it lies in the cone, `‖r_T‖ ≤ μ r_N`. `None` when neither holds (a sliding
/// contact, or `W` numerically singular): the caller then iterates. These are the first two
/// cases of the enumeration of [`solve_quartic`](super::solve_quartic) (the Siconos developer
/// documentation, "Quartic Formulation").
pub(crate) fn take_off_or_stick(problem: &OneContactProblem) -> Option<[f64; 3]> {
    let q = problem.q();
    if q[0] >= 0.0 {
        return Some([0.0; 3]);
    }
    let r = solve3(*problem.w(), [-q[0], -q[1], -q[2]])?;
    (r[0] > 0.0 && (r[1] * r[1] + r[2] * r[2]).sqrt() <= problem.mu() * r[0]).then_some(r)
}

/// Relative size, against the smallest diagonal entry, below which the off-diagonal entries of
/// a one-contact `W` and the difference of its two tangential diagonal entries count as
/// round-off for [`isotropic_inverse`] (`W = H M⁻¹ Hᵀ` of a sphere contact carries ~1e-14).
const ISOTROPIC_TOLERANCE: f64 = 1e-12;

/// `(1/a, 1/b)` when `W` is `diag(a, b, b)` up to round-off (off-diagonal entries and
/// `|W_T1T1 − W_T2T2|` at most `1e-12 · min(a, b)`, `a, b > 0`), with `b` the mean of the two
/// tangential entries; `None` otherwise. The `W` of a contact between spheres, or between a
/// sphere and a fixed body, has this form: in the contact frame `(n, t₁, t₂)` the translational
/// part is `(1/m₁ + 1/m₂) I` and the lever arms `±R n` of isotropic bodies only add the same
/// rotational term `R²/I` to both tangential entries.
pub(crate) fn isotropic_inverse(w: &[[f64; 3]; 3]) -> Option<[f64; 2]> {
    let a = w[0][0];
    let b = 0.5 * (w[1][1] + w[2][2]);
    let scale = a.min(w[1][1]).min(w[2][2]);
    if !(scale > 0.0 && scale.is_finite()) {
        return None;
    }
    let tiny = ISOTROPIC_TOLERANCE * scale;
    let off = [w[0][1], w[0][2], w[1][0], w[1][2], w[2][0], w[2][1], w[1][1] - w[2][2]];
    off.iter().all(|v| v.abs() <= tiny).then(|| [1.0 / a, 1.0 / b])
}

/// The exact solution of the one-contact problem `u = diag(a, b, b) r + q` with friction `μ`,
/// given `inverse = (1/a, 1/b)` ([`isotropic_inverse`]): the enumeration of the Siconos
/// developer documentation's "Quartic Formulation" in closed form, since the normal and
/// tangential parts decouple.
///
/// * take-off, `q_N ≥ 0`: `r = 0`;
/// * otherwise `r_N = −q_N / a > 0` (so `u_N = 0`) and the sticking candidate `r_T = −q_T / b`
///   (`u_T = 0`) when `‖r_T‖ ≤ μ r_N`;
/// * else sliding: `r_T = −μ r_N q_T / ‖q_T‖`, and then `u_T = (1 − μ b r_N / ‖q_T‖) q_T` is a
///   positive multiple of `q_T` (because sticking failed), so `r_T = −μ r_N u_T / ‖u_T‖` and
///   `û = (μ‖u_T‖, u_T)` lies on the boundary of the dual cone, orthogonal to `r`.
pub(crate) fn solve_isotropic(inverse: [f64; 2], q: &[f64; 3], mu: f64) -> [f64; 3] {
    if q[0] >= 0.0 {
        return [0.0; 3];
    }
    let rn = -q[0] * inverse[0];
    let rt = [-q[1] * inverse[1], -q[2] * inverse[1]];
    let norm_t = (rt[0] * rt[0] + rt[1] * rt[1]).sqrt();
    let radius = mu * rn;
    if norm_t <= radius {
        [rn, rt[0], rt[1]]
    } else {
        // norm_t > radius ≥ 0, so norm_t > 0.
        let s = radius / norm_t;
        [rn, s * rt[0], s * rt[1]]
    }
}

/// Solves `A x = b` (3×3) by Gaussian elimination with partial pivoting; `None` when a pivot is
/// below `1e-14 · max|A|` (numerically singular).
// Row operations between rows i and k of the same array read best with indices.
#[allow(clippy::needless_range_loop)]
pub(super) fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> Option<[f64; 3]> {
    let mut scale = 0.0_f64;
    for row in &a {
        scale = scale.max(row[0].abs()).max(row[1].abs()).max(row[2].abs());
    }
    if !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    let tiny = 1e-14 * scale;
    for k in 0..3 {
        let mut p = k;
        for i in k + 1..3 {
            if a[i][k].abs() > a[p][k].abs() {
                p = i;
            }
        }
        if a[p][k].abs() <= tiny {
            return None;
        }
        if p != k {
            a.swap(k, p);
            b.swap(k, p);
        }
        let inv = 1.0 / a[k][k];
        for i in k + 1..3 {
            let f = a[i][k] * inv;
            for j in k + 1..3 {
                a[i][j] -= f * a[k][j];
            }
            b[i] -= f * b[k];
        }
    }
    let x2 = b[2] / a[2][2];
    let x1 = (b[1] - a[1][2] * x2) / a[1][1];
    let x0 = (b[0] - a[0][1] * x1 - a[0][2] * x2) / a[0][0];
    Some([x0, x1, x2])
}

fn half_sq(phi: &[f64; 3]) -> f64 {
    0.5 * (phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2])
}

/// Solves one contact by the semismooth Newton method on the Alart–Curnier function
/// [`alart_curnier_function`], starting from `r` and overwriting it with the last iterate.
///
/// `ρ_N = 1/W_NN`, `ρ_T = 2/(W_T1T1 + W_T2T2)`: one over the diagonal of `W`, with one common
/// tangential value (a different value per tangential component would turn the disk projection
/// into a law other than Coulomb's isotropic one).
///
/// Each iteration solves `J Δ = −Φ`; when `J` is numerically singular it takes the
/// Levenberg–Marquardt step `(JᵀJ + λI) Δ = −JᵀΦ`, `λ = 1e-10 ‖J‖_F²`. The step is damped by
/// an Armijo line search on `ψ = ½‖Φ‖²`: `t ∈ {1, ½, ¼, …}`, accept when
/// `ψ(r + tΔ) ≤ ψ(r) + σ t ∇ψᵀΔ`, `∇ψ = JᵀΦ`. When no `t` is accepted, the hybrid strategy
/// (as Siconos' `fc3d_onecontact_nonsmooth_Newton_solvers.c` hybrid variants) runs
/// [`solve_projection`] from the current iterate until its error is 100 times smaller (at most
/// `hybrid_projection_iterations` steps) and resumes Newton from there (with the option at 0, the smallest trial step is taken). The
/// reported `iterations` counts Newton steps only; the error is [`OneContactProblem::error`].
///
/// A line search "fails" when no `t` gives a strict Armijo decrease, and also when there is no
/// usable direction (zero or non-computable step: a stationary point of `ψ` that is not a zero
/// of `Φ`, e.g. a sticking iterate with a singular `W`).
///
/// Status: `Converged` at `error ≤ tolerance`, `MaxIterations` at the cap, `Stalled` when there
/// is no direction and the hybrid strategy is off, `NumericalBreakdown` on a non-finite iterate.
///
/// # Errors
/// [`NumericsError::InvalidOption`] for a non-positive tolerance, a zero iteration cap or `σ`
/// outside `(0, 1)`, [`NumericsError::NonFinite`] for a non-finite starting `r`.
pub fn solve_alart_curnier(
    problem: &OneContactProblem,
    r: &mut [f64; 3],
    options: &AlartCurnierOptions,
) -> Result<SolverReport, NumericsError> {
    check_options(options.tolerance, options.max_iterations)?;
    if !(options.armijo_sigma > 0.0 && options.armijo_sigma < 1.0) {
        return Err(NumericsError::InvalidOption { name: "armijo_sigma", reason: "must be in (0, 1)" });
    }
    check_start(r)?;
    solve_alart_curnier_checked(problem, r, options)
}

/// [`solve_alart_curnier`] once the options and the finiteness of `r` have been checked (NSGS
/// checks them once per solve, not once per contact visit).
pub(crate) fn solve_alart_curnier_checked(
    problem: &OneContactProblem,
    r: &mut [f64; 3],
    options: &AlartCurnierOptions,
) -> Result<SolverReport, NumericsError> {
    let w = problem.w();
    let rho = [1.0 / w[0][0], 2.0 / (w[1][1] + w[2][2])];
    // `u = W r + q` follows `r`, so each iterate's velocity is computed once.
    let mut u = problem.velocity(r);
    let mut error = problem.error_at(r, &u);
    if error <= options.tolerance {
        return Ok(SolverReport::new(SolverStatus::Converged, 0, error));
    }
    for it in 1..=options.max_iterations {
        let mut jac = [[0.0; 3]; 3];
        let phi = evaluate_at::<true>(problem, r, &u, rho, &mut jac);
        let psi = half_sq(&phi);
        let mut grad = [0.0; 3];
        for (j, g) in grad.iter_mut().enumerate() {
            *g = (0..3).map(|i| jac[i][j] * phi[i]).sum();
        }
        let step = solve3(jac, phi.map(|v| -v)).or_else(|| {
            let lambda = 1e-10 * jac.iter().flatten().map(|v| v * v).sum::<f64>();
            let mut jtj = [[0.0; 3]; 3];
            for (a, row) in jtj.iter_mut().enumerate() {
                for (b, v) in row.iter_mut().enumerate() {
                    *v = (0..3).map(|i| jac[i][a] * jac[i][b]).sum::<f64>() + if a == b { lambda } else { 0.0 };
                }
            }
            solve3(jtj, grad.map(|v| -v))
        });
        // No usable direction (singular least squares, zero step: a stationary point of ψ that
        // is not a zero of Φ) counts as a failed line search.
        let step = step.filter(|d| d.iter().any(|v| v.abs() > f64::MIN_POSITIVE));
        let mut trial = *r;
        let mut trial_u = u;
        let mut accepted = false;
        if let Some(step) = step {
            let slope: f64 = (0..3).map(|j| grad[j] * step[j]).sum();
            let mut t = 1.0;
            let mut unused = [[0.0; 3]; 3];
            for _ in 0..=options.max_line_search {
                trial = [r[0] + t * step[0], r[1] + t * step[1], r[2] + t * step[2]];
                trial_u = problem.velocity(&trial);
                let psi_t = half_sq(&evaluate_at::<false>(problem, &trial, &trial_u, rho, &mut unused));
                // Strict decrease required: a zero slope (ψ flat along Δ) is no progress.
                if psi_t <= psi + options.armijo_sigma * t * slope.min(0.0) && psi_t < psi {
                    accepted = true;
                    break;
                }
                t *= 0.5;
            }
        }
        if !accepted && options.hybrid_projection_iterations == 0 && step.is_none() {
            return Ok(SolverReport::new(SolverStatus::Stalled, it, error));
        }
        if !accepted && options.hybrid_projection_iterations > 0 {
            // Hybrid strategy: leave the region where Newton cycles with projection steps.
            // Run until the error dropped by 100 (or converged), so Newton restarts elsewhere.
            let popts = OneContactProjectionOptions {
                tolerance: options.tolerance.max(1e-2 * error),
                max_iterations: options.hybrid_projection_iterations,
            };
            let rep = solve_projection(problem, r, &popts)?;
            if !rep.residual.is_finite() {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, rep.residual));
            }
            if rep.residual <= options.tolerance {
                return Ok(SolverReport::new(SolverStatus::Converged, it, rep.residual));
            }
            u = problem.velocity(r);
        } else {
            *r = trial;
            u = trial_u;
        }
        error = problem.error_at(r, &u);
        if !error.is_finite() {
            return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, error));
        }
        if error <= options.tolerance {
            return Ok(SolverReport::new(SolverStatus::Converged, it, error));
        }
    }
    Ok(SolverReport::new(SolverStatus::MaxIterations, options.max_iterations, error))
}
