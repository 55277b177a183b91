//! Euclidean projection on the Coulomb cone `K_μ = { x : ‖x_T‖ ≤ μ x_N }` (Siconos
//! `numerics/src/tools/projectionOnCone.c`, and its inlined 2D twin in
//! `numerics/src/FrictionContact/fc2d_compute_error.c`).

/// Which piece of the cone the projected point landed on (Siconos `PROJCONE_DUAL`,
/// `PROJCONE_INSIDE`, `PROJCONE_BOUNDARY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConeProjection {
    /// `x` was in the polar cone `−K_μ*` (`μ‖x_T‖ ≤ −x_N`): the projection is the apex `0`.
    Apex,
    /// `x` was already in `K_μ` (`‖x_T‖ ≤ μ x_N`): unchanged.
    Inside,
    /// `x` was projected on the boundary `‖x_T‖ = μ x_N`.
    Boundary,
}

/// Projects `x = (x_N, x_T1, x_T2)` on the 3D Coulomb cone `K_μ = { ‖x_T‖ ≤ μ x_N }` in place
/// (Siconos `projectionOnCone`, `numerics/src/tools/projectionOnCone.c`):
///
/// * if `μ‖x_T‖ ≤ −x_N` (x in the polar cone): `x ← 0`;
/// * else if `‖x_T‖ ≤ μ x_N`: `x` is unchanged;
/// * else `x_N ← (μ‖x_T‖ + x_N)/(1 + μ²)`, `x_T ← μ x_N x_T/‖x_T‖` (with the new `x_N`).
///
/// `‖x_T‖` is `hypot(x_T1, x_T2)` as in Siconos. For `μ = 0` the cone is the half-line
/// `{x_T = 0, x_N ≥ 0}` and the formula gives `(max(x_N, 0), 0, 0)`; the third branch is only
/// reached with `‖x_T‖ > 0`, so it never divides by zero. `μ ≥ 0` is assumed (it is checked
/// by [`LocalFcProblem::new`](crate::fc::LocalFcProblem::new)).
pub fn projection_on_cone(x: &mut [f64; 3], mu: f64) -> ConeProjection {
    project(x, mu)
}

/// Projects `x = (x_N, x_T)` on the 2D Coulomb cone `K_μ = { |x_T| ≤ μ x_N }` in place, the
/// planar analogue of [`projection_on_cone`] as inlined in Siconos'
/// `numerics/src/FrictionContact/fc2d_compute_error.c`:
///
/// * if `μ|x_T| ≤ −x_N`: `x ← 0`;
/// * else if `|x_T| ≤ μ x_N`: unchanged;
/// * else `x_N ← (μ|x_T| + x_N)/(1 + μ²)`, `x_T ← μ x_N sign(x_T)`.
///
/// `μ = 0` projects on the half-line `{x_T = 0, x_N ≥ 0}`.
pub fn projection_on_cone_2d(x: &mut [f64; 2], mu: f64) -> ConeProjection {
    project(x, mu)
}

/// `‖x_T‖` of a local vector (`x[0]` normal, the rest tangential): `|x_1|` in 2D,
/// `sqrt(x_1² + x_2²)` in 3D, the Euclidean norm otherwise.
pub(crate) fn tangential_norm(x: &[f64]) -> f64 {
    match x.len() {
        0 | 1 => 0.0,
        2 => x[1].abs(),
        3 => (x[1] * x[1] + x[2] * x[2]).sqrt(),
        _ => crate::matrix::norm2(&x[1..]),
    }
}

/// The projection for any local dimension `D ≥ 1` (`x[0]` normal); the public wrappers fix
/// `D = 2, 3`. In 2D the tangential update is `μ x_N sign(x_T)` (Siconos' 2D expression), else
/// `(μ x_N) x_T,i / ‖x_T‖` evaluated in Siconos' order.
pub(crate) fn project<const D: usize>(x: &mut [f64; D], mu: f64) -> ConeProjection {
    if D == 0 {
        return ConeProjection::Inside;
    }
    let norm_t = tangential_norm(x);
    if mu * norm_t <= -x[0] {
        x.fill(0.0);
        ConeProjection::Apex
    } else if norm_t <= mu * x[0] {
        ConeProjection::Inside
    } else {
        // Here ‖x_T‖ > 0: otherwise the first test (x_N ≥ 0 fails it) or the second one holds.
        let xn = (mu * norm_t + x[0]) / (mu * mu + 1.0);
        x[0] = xn;
        if D == 2 {
            x[1] = mu * xn * x[1].signum();
        } else {
            for xt in &mut x[1..] {
                *xt = mu * xn * *xt / norm_t;
            }
        }
        ConeProjection::Boundary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::dot;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn in_cone<const D: usize>(x: &[f64; D], mu: f64, tol: f64) -> bool {
        tangential_norm(x) <= mu * x[0] + tol
    }

    /// `y ∈ K_μ* = { y : μ‖y_T‖ ≤ y_N }`, the dual cone of `K_μ`.
    fn in_dual_cone<const D: usize>(y: &[f64; D], mu: f64, tol: f64) -> bool {
        mu * tangential_norm(y) <= y[0] + tol
    }

    #[test]
    fn hand_computed_cases_3d() {
        let mut x = [-1.0, 0.1, 0.0];
        assert_eq!(projection_on_cone(&mut x, 0.5), ConeProjection::Apex);
        assert!(x.iter().all(|v| v.abs() < 1e-300));

        let mut x = [2.0, 0.6, 0.8];
        assert_eq!(projection_on_cone(&mut x, 0.5), ConeProjection::Inside);
        assert!((x[0] - 2.0).abs() < 1e-15 && (x[1] - 0.6).abs() < 1e-15 && (x[2] - 0.8).abs() < 1e-15);

        // ‖x_T‖ = 5, μ = 0.5: x_N' = (2.5 + 1)/1.25 = 2.8, x_T' = 0.5·2.8·(3,4)/5 = (0.84, 1.12).
        let mut x = [1.0, 3.0, 4.0];
        assert_eq!(projection_on_cone(&mut x, 0.5), ConeProjection::Boundary);
        let expected = [2.8, 0.84, 1.12];
        for (a, b) in x.iter().zip(expected) {
            assert!((a - b).abs() < 1e-14, "{x:?}");
        }
    }

    #[test]
    fn hand_computed_cases_2d_and_zero_mu() {
        let mut x = [1.0, -3.0];
        assert_eq!(projection_on_cone_2d(&mut x, 1.0), ConeProjection::Boundary);
        assert!((x[0] - 2.0).abs() < 1e-15 && (x[1] + 2.0).abs() < 1e-15, "{x:?}");

        let mut x = [1.5, 2.0, -1.0];
        assert_eq!(projection_on_cone(&mut x, 0.0), ConeProjection::Boundary);
        assert!((x[0] - 1.5).abs() < 1e-15 && x[1].abs() < 1e-300 && x[2].abs() < 1e-300);
        let mut x = [-0.5, 2.0];
        assert_eq!(projection_on_cone_2d(&mut x, 0.0), ConeProjection::Apex);
        assert!(x.iter().all(|v| v.abs() < 1e-300));
        let mut x = [0.5, 0.0, 0.0];
        assert_eq!(projection_on_cone(&mut x, 0.0), ConeProjection::Inside);
    }

    fn check_projection_properties<const D: usize>(x0: [f64; D], mu: f64) {
        let mut p = x0;
        project(&mut p, mu);
        let scale = 1.0 + crate::matrix::norm2(&x0);
        let tol = 1e-13 * scale;
        assert!(in_cone(&p, mu, tol), "P(x) = {p:?} not in K_{mu}");
        let mut pp = p;
        project(&mut pp, mu);
        for (a, b) in pp.iter().zip(&p) {
            assert!((a - b).abs() <= tol, "not idempotent: {p:?} -> {pp:?}");
        }
        let mut d = [0.0; D];
        for i in 0..D {
            d[i] = p[i] - x0[i];
        }
        // P(x) − x ∈ K_μ* (equivalently x − P(x) in the polar cone −K_μ*), and ⟨P(x), x − P(x)⟩ = 0.
        assert!(in_dual_cone(&d, mu, tol), "P(x) - x = {d:?} not in K*_{mu} (x = {x0:?})");
        assert!(dot(&p, &d).abs() <= tol * scale, "not orthogonal: {}", dot(&p, &d));
    }

    #[test]
    fn projection_is_idempotent_in_the_cone_and_orthogonal() {
        let mut rng = StdRng::seed_from_u64(0x5eed_c0de);
        for k in 0..2000_u32 {
            let mu = if k.is_multiple_of(10) { 0.0 } else { rng.random_range(0.0..3.0) };
            let s = 10f64.powi(rng.random_range(-3..4));
            let x3 =
                [s * rng.random_range(-1.0..1.0), s * rng.random_range(-1.0..1.0), s * rng.random_range(-1.0..1.0)];
            check_projection_properties(x3, mu);
            check_projection_properties([x3[0], x3[1]], mu);
        }
    }
}
