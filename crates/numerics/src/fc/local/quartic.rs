//! The quartic (exact) one-contact FC3D solver: enumeration of the three cases of Coulomb's law
//! (take-off, sticking, sliding), the sliding case reduced to the real roots of a degree-4
//! polynomial (the Siconos developer documentation, "Quartic Formulation"; Siconos
//! `numerics/src/FrictionContact/fc3d_unitary_enumerative.c` enumerates the same cases).
//!
//! Sliding: `r = r_N (1, μ cos θ, μ sin θ)` with `r_N > 0`, `u_N = 0` and `u_T = −α r_T`,
//! `α ≥ 0`. With `e = (cos θ, sin θ)`, `e⊥ = (−sin θ, cos θ)`, the normal row gives
//! `r_N = −q_N / (W_NN + μ W_NT·e)` and the tangential rows, projected on `e⊥` (which removes
//! `α`) and multiplied by `W_NN + μ W_NT·e`, give
//! `F(θ) = −q_N e⊥·(W_TN + μ W_TT e) + (W_NN + μ W_NT·e) e⊥·q_T = 0`,
//! a trigonometric polynomial of degree 2. The substitution `t = tan(θ/2)`
//! (`cos θ = (1 − t²)/(1 + t²)`, `sin θ = 2t/(1 + t²)`) times `(1 + t²)²` turns it into a quartic
//! in `t`; `θ = π` (`t = ∞`) is checked separately.

use super::{OneContactProblem, check_start, norm3};
use crate::roots::real_roots_quartic;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Options of [`solve_quartic`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuarticOptions {
    /// The best candidate is accepted ([`SolverStatus::Converged`]) when its
    /// [`OneContactProblem::error`] is at or below this (default: 1e-10).
    pub tolerance: f64,
}

impl Default for QuarticOptions {
    fn default() -> Self {
        Self { tolerance: 1e-10 }
    }
}

/// Relative size under which a determinant or a denominator counts as zero (the case is skipped).
const SINGULAR_RELATIVE: f64 = 1e-14;

/// Solves one contact exactly by enumeration: the candidates are the take-off point `r = 0`,
/// the sticking point `r = −W⁻¹q` (skipped when `W` is numerically singular), and one sliding
/// point per real root of the quartic of the module docs (plus `θ = π`), each with `r_N > 0`.
/// Every candidate is scored with [`OneContactProblem::error`] and the smallest error wins; `r`
/// receives it. Status: [`SolverStatus::Converged`] iff that error ≤ `options.tolerance`, else
/// [`SolverStatus::NumericalBreakdown`] (the best candidate is still returned). `iterations`
/// counts the candidates scored.
///
/// # Errors
/// [`NumericsError::InvalidOption`] for a tolerance that is not finite and positive,
/// [`NumericsError::NonFinite`] for a non-finite `r` on entry (the value is not used otherwise).
pub fn solve_quartic(
    problem: &OneContactProblem,
    r: &mut [f64; 3],
    options: &QuarticOptions,
) -> Result<SolverReport, NumericsError> {
    crate::options::positive_finite("tolerance", options.tolerance)?;
    check_start(r)?;
    let mut best = Best { r: [0.0; 3], error: f64::INFINITY, count: 0 };
    best.offer(problem, [0.0; 3]);
    if let Some(stick) = sticking(problem) {
        best.offer(problem, stick);
    }
    for e in sliding_directions(problem) {
        if let Some(cand) = sliding_candidate(problem, e) {
            best.offer(problem, cand);
        }
    }
    *r = best.r;
    let status =
        if best.error <= options.tolerance { SolverStatus::Converged } else { SolverStatus::NumericalBreakdown };
    Ok(SolverReport::new(status, best.count, best.error))
}

/// The best candidate so far.
struct Best {
    r: [f64; 3],
    error: f64,
    count: usize,
}

impl Best {
    /// Scores `cand` and keeps it if finite and better.
    fn offer(&mut self, problem: &OneContactProblem, cand: [f64; 3]) {
        if !cand.iter().all(|v| v.is_finite()) {
            return;
        }
        self.count += 1;
        let error = problem.error(&cand);
        if error < self.error {
            self.error = error;
            self.r = cand;
        }
    }
}

/// `−W⁻¹q` by Cramer's rule, `None` when `|det W|` is below [`SINGULAR_RELATIVE`] times the
/// product of the row norms (Hadamard's bound on `|det W|`).
fn sticking(problem: &OneContactProblem) -> Option<[f64; 3]> {
    let w = problem.w();
    let q = problem.q();
    let det3 = |a: [f64; 3], b: [f64; 3], c: [f64; 3]| {
        a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])
    };
    let det = det3(w[0], w[1], w[2]);
    let bound = norm3(&w[0]) * norm3(&w[1]) * norm3(&w[2]);
    if det.is_nan() || det.abs() <= SINGULAR_RELATIVE * bound {
        return None;
    }
    let b = q.map(|v| -v);
    let mut x = [0.0; 3];
    for (k, xk) in x.iter_mut().enumerate() {
        // Replace column k of W by b.
        let mut rows = *w;
        for (row, bi) in rows.iter_mut().zip(b) {
            row[k] = bi;
        }
        *xk = det3(rows[0], rows[1], rows[2]) / det;
    }
    Some(x)
}

/// Product of two polynomials (coefficients ascending), truncated to degree 4 (the callers'
/// products have degree ≤ 4).
fn mul(a: &[f64], b: &[f64]) -> [f64; 5] {
    let mut c = [0.0; 5];
    for (i, ai) in a.iter().enumerate() {
        for (j, bj) in b.iter().enumerate() {
            if i + j < 5 {
                c[i + j] += ai * bj;
            }
        }
    }
    c
}

/// The unit tangential directions `e` of the sliding candidates: one per real root `t` of the
/// quartic `P(t) = A(1 − t², 2t) + (1 + t²) L(1 − t², 2t)`, where `F = A + L` splits `F(θ)` of
/// the module docs into its quadratic part `A(e) = eᵀMe` and linear part `L(e) = l·e`, plus
/// `e = (−1, 0)` (`t = ∞`). With `J = [[0, −1], [1, 0]]` (`e⊥ = J e`):
/// `M = −q_N μ Jᵀ W_TT + μ W_TN-row ⊗ (Jᵀ q_T)`, `l = −q_N Jᵀ W_TN + W_NN Jᵀ q_T`.
fn sliding_directions(problem: &OneContactProblem) -> Vec<[f64; 2]> {
    let w = problem.w();
    let q = problem.q();
    let mu = problem.mu();
    let qn = q[0];
    // Jᵀ v = (v1, −v0) for v = (v0, v1).
    let jt = |v: [f64; 2]| [v[1], -v[0]];
    let wtt = [[w[1][1], w[1][2]], [w[2][1], w[2][2]]];
    let wtn = [w[1][0], w[2][0]];
    let wnt = [w[0][1], w[0][2]];
    let jq = jt([q[1], q[2]]);
    // Jᵀ W_TT: column j of W_TT mapped by Jᵀ.
    let mut m = [[0.0; 2]; 2];
    for j in 0..2 {
        let col = jt([wtt[0][j], wtt[1][j]]);
        for i in 0..2 {
            m[i][j] = -qn * mu * col[i] + mu * wnt[i] * jq[j];
        }
    }
    let jw = jt(wtn);
    let l = [-qn * jw[0] + w[0][0] * jq[0], -qn * jw[1] + w[0][0] * jq[1]];
    let c = [1.0, 0.0, -1.0];
    let s = [0.0, 2.0];
    let d = [1.0, 0.0, 1.0];
    let cc = mul(&c, &c);
    let cs = mul(&c, &s);
    let ss = mul(&s, &s);
    let dc = mul(&d, &c);
    let ds = mul(&d, &s);
    let mut p = [0.0; 5];
    for k in 0..5 {
        p[k] = m[0][0] * cc[k] + (m[0][1] + m[1][0]) * cs[k] + m[1][1] * ss[k] + l[0] * dc[k] + l[1] * ds[k];
    }
    let mut dirs = vec![[-1.0, 0.0]];
    // All-zero coefficients (every θ solves F = 0, e.g. μ = 0 with q_T = 0) or non-finite ones:
    // no root to add, θ = π remains.
    if let Ok(roots) = real_roots_quartic([p[4], p[3], p[2], p[1], p[0]]) {
        let mut last = f64::NAN;
        for &t in roots.as_slice() {
            // A multiple root appears repeatedly; one candidate suffices.
            if (t - last).abs() <= 0.0 {
                continue;
            }
            last = t;
            let den = 1.0 + t * t;
            dirs.push([(1.0 - t * t) / den, 2.0 * t / den]);
        }
    }
    dirs
}

/// The sliding point `r = r_N (1, μ e)` with `r_N = −q_N / (W_NN + μ W_NT·e)`, `None` unless
/// `r_N > 0` and the denominator is not negligible. Polished by Newton steps on
/// `θ ↦ F(θ)` through [`polish`].
fn sliding_candidate(problem: &OneContactProblem, e: [f64; 2]) -> Option<[f64; 3]> {
    let e = polish(problem, e);
    let w = problem.w();
    let q = problem.q();
    let mu = problem.mu();
    let den = w[0][0] + mu * (w[0][1] * e[0] + w[0][2] * e[1]);
    let scale = w[0][0].abs() + mu * (w[0][1].abs() + w[0][2].abs());
    if den.is_nan() || den.abs() <= SINGULAR_RELATIVE * scale {
        return None;
    }
    let rn = -q[0] / den;
    if rn.is_nan() || rn <= 0.0 {
        return None;
    }
    Some([rn, mu * rn * e[0], mu * rn * e[1]])
}

/// `F(θ)` of the module docs and its derivative `F'(θ)`, at `e = (cos θ, sin θ)`.
fn f_and_derivative(problem: &OneContactProblem, e: [f64; 2]) -> (f64, f64) {
    let w = problem.w();
    let q = problem.q();
    let mu = problem.mu();
    let ep = [-e[1], e[0]]; // e⊥ = de/dθ
    let epp = [-e[0], -e[1]]; // de⊥/dθ = −e
    let wtt_e = [w[1][1] * e[0] + w[1][2] * e[1], w[2][1] * e[0] + w[2][2] * e[1]];
    let wtt_ep = [w[1][1] * ep[0] + w[1][2] * ep[1], w[2][1] * ep[0] + w[2][2] * ep[1]];
    let g = [w[1][0] + mu * wtt_e[0], w[2][0] + mu * wtt_e[1]];
    let dg = [mu * wtt_ep[0], mu * wtt_ep[1]];
    let h = w[0][0] + mu * (w[0][1] * e[0] + w[0][2] * e[1]);
    let dh = mu * (w[0][1] * ep[0] + w[0][2] * ep[1]);
    let dot = |a: [f64; 2], b: [f64; 2]| a[0] * b[0] + a[1] * b[1];
    let qt = [q[1], q[2]];
    let f = -q[0] * dot(ep, g) + h * dot(ep, qt);
    let df = -q[0] * (dot(epp, g) + dot(ep, dg)) + dh * dot(ep, qt) + h * dot(epp, qt);
    (f, df)
}

/// At most a few Newton steps on `F(θ) = 0` from `e`, each kept only if it decreases `|F|`:
/// the roots in `t` lose accuracy near `θ = π` (large `|t|`) and at double roots.
fn polish(problem: &OneContactProblem, e: [f64; 2]) -> [f64; 2] {
    let mut theta = e[1].atan2(e[0]);
    let (mut f, mut df) = f_and_derivative(problem, e);
    for _ in 0..4 {
        if !df.is_finite() || df.abs() <= 0.0 || !f.is_finite() {
            break;
        }
        let next = theta - f / df;
        let en = [next.cos(), next.sin()];
        let (fn_, dfn) = f_and_derivative(problem, en);
        if fn_.is_nan() || fn_.abs() >= f.abs() {
            break;
        }
        theta = next;
        f = fn_;
        df = dfn;
    }
    [theta.cos(), theta.sin()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

    #[test]
    fn sliding_with_identity_matches_closed_form() {
        // W = I, q = (−1, 2, 0), μ = 0.5: r_N = 1, r_T = −μ r_N q_T/‖q_T‖ = (−0.5, 0), u_T = (1.5, 0).
        let p = OneContactProblem::new(ID, [-1.0, 2.0, 0.0], 0.5).expect("valid");
        let mut r = [0.0; 3];
        let rep = solve_quartic(&p, &mut r, &QuarticOptions::default()).expect("valid options");
        assert!(rep.is_converged(), "{rep:?}");
        for (a, b) in r.iter().zip([1.0, -0.5, 0.0]) {
            assert!((a - b).abs() < 1e-12, "{r:?}");
        }
    }

    #[test]
    fn bad_tolerance_and_start_are_errors() {
        let p = OneContactProblem::new(ID, [-1.0, 0.0, 0.0], 0.5).expect("valid");
        let mut r = [0.0; 3];
        let bad = QuarticOptions { tolerance: 0.0 };
        assert!(matches!(solve_quartic(&p, &mut r, &bad), Err(NumericsError::InvalidOption { .. })));
        let mut r = [f64::NAN, 0.0, 0.0];
        assert!(matches!(solve_quartic(&p, &mut r, &QuarticOptions::default()), Err(NumericsError::NonFinite { .. })));
    }

    #[test]
    fn singular_w_is_handled() {
        // Rank-one W = 1·1ᵀ: sticking is skipped, the answer must still come from another case.
        let w = [[1.0; 3]; 3];
        let p = OneContactProblem::new(w, [-1.0, 0.0, 0.0], 0.3).expect("valid");
        let mut r = [0.0; 3];
        let rep = solve_quartic(&p, &mut r, &QuarticOptions::default()).expect("valid options");
        // Sliding: u_N = Σr − 1 = 0, u_T = (1, 1), r_T = −μ r_N (1, 1)/√2, so r_N = 1/(1 − μ√2).
        assert!(rep.is_converged(), "{rep:?}");
        assert!((rep.residual - p.error(&r)).abs() < 1e-15);
        let rn = 1.0 / (1.0 - 0.3 * 2.0_f64.sqrt());
        let rt = -0.3 * rn / 2.0_f64.sqrt();
        for (a, b) in r.iter().zip([rn, rt, rt]) {
            assert!((a - b).abs() < 1e-10, "{r:?}");
        }
    }
}
