//! The error measure of the global frictional contact problem, as Siconos 4.4 defines it
//! (`numerics/src/FrictionContact/gfc3d_compute_error.c`, function `gfc3d_compute_error`).

#![allow(non_snake_case)]

use super::problem::GlobalFcProblem;
use crate::NumericsError;
use crate::fc::contact_error_squared;
use crate::fc::problem::check_len;
use crate::matrix::norm2;

/// Scalings at or below `sqrt(DBL_EPSILON)` are not applied (Siconos' `MIN_RELATIVE_SCALING`).
const MIN_RELATIVE_SCALING: f64 = 1.490_116_119_384_765_6e-8;

impl<const D: usize> GlobalFcProblem<D> {
    /// Siconos' error of `(r, v)` with `norm_q = ‖q‖₂` (the value Siconos' global solvers pass);
    /// also stores `u = Hᵀ v + b` into `u`. See
    /// [`compute_error_with_norm`](Self::compute_error_with_norm) for the formula.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `D·nc`, or `v` not
    /// of length `n`.
    #[doc(alias = "gfc3d_compute_error")]
    pub fn compute_error(&self, r: &[f64], u: &mut [f64], v: &[f64]) -> Result<f64, NumericsError> {
        self.compute_error_with_norm(r, u, v, norm2(self.q()))
    }

    /// Siconos 4.4's `gfc3d_compute_error(problem, r, u, v, tol, options, norm_q, norm_b)`:
    /// the sum of a relative equilibrium error and a relative complementarity error.
    ///
    /// 1. Equilibrium: `e_eq = ‖q + H r − M v‖₂`, divided by `max(norm_q, ‖M v‖₂, ‖H r‖₂)` when
    ///    that maximum is `> sqrt(ε)` (`ε` = DBL_EPSILON, Siconos' `MIN_RELATIVE_SCALING`).
    /// 2. `u = Hᵀ v + b` is recomputed (and written to `u`; the incoming `u` is ignored).
    /// 3. Complementarity: `e_c = sqrt(Σ_α ‖r_α − P_{K_α}(r_α − û_α)‖²)` with the modified velocity
    ///    `û_α = (u_N + μ_α ‖u_T‖, u_T)` (Siconos `fc3d_unitary_compute_and_add_error`, see
    ///    [`contact_error_squared`]), divided by `max(‖u‖₂, ‖r‖₂)` when that is `> sqrt(ε)`.
    /// 4. `error = e_eq + e_c`.
    ///
    /// `v` is taken as given, not recomputed from `r`: a `v` that does not solve `M v = q + H r`
    /// shows in `e_eq`. Siconos' `norm_b` argument is unused by its formula and so absent here.
    /// Checked against Siconos 4.4 (`python3-siconos`) on every `.dat` of the gfc3d collection
    /// at arbitrary `(r, v)` to 1e-15 relative (`tests/it/gfc.rs`).
    ///
    /// `D = 2`: Siconos 4.4 has no global 2D error; we use the same formula with the 2D cone
    /// (`‖u_T‖ = |u_T|`, the projection of [`crate::fc::projection_on_cone_2d`]), as its
    /// `fc2d_compute_error` does for the local problem.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `D·nc`, or `v` not
    /// of length `n`.
    pub fn compute_error_with_norm(
        &self,
        r: &[f64],
        u: &mut [f64],
        v: &[f64],
        norm_q: f64,
    ) -> Result<f64, NumericsError> {
        let (n, m) = (self.velocity_size(), self.size());
        check_len("gfc error: reaction r", r, m)?;
        check_len("gfc error: velocity u", u, m)?;
        check_len("gfc error: global velocity v", v, n)?;
        let (M, H) = (self.m(), self.h());
        let norm_r = norm2(r);
        let mut Hr = vec![0.0; n];
        if m > 0 {
            H.gemv(1.0, r, 0.0, &mut Hr);
        }
        let mut Mv = vec![0.0; n];
        M.gemv(1.0, v, 0.0, &mut Mv);
        let residual: Vec<f64> = (0..n).map(|i| (self.q()[i] + Hr[i]) - Mv[i]).collect();
        let mut error = norm2(&residual);
        let scale = norm_q.max(norm2(&Mv)).max(norm2(&Hr));
        if scale.abs() > MIN_RELATIVE_SCALING {
            error /= scale;
        }
        u.copy_from_slice(self.b());
        H.gemv_transpose(1.0, v, 1.0, u);
        let mut sum = 0.0;
        for ((rc, uc), &mu) in r.chunks_exact(D).zip(u.chunks_exact(D)).zip(self.mu()) {
            let rc: &[f64; D] = rc.try_into().expect("chunks_exact(D) yields slices of length D");
            let uc: &[f64; D] = uc.try_into().expect("chunks_exact(D) yields slices of length D");
            sum += contact_error_squared(rc, uc, mu);
        }
        let mut complementarity = sum.sqrt();
        let scale = norm2(u).max(norm_r);
        if scale.abs() > MIN_RELATIVE_SCALING {
            complementarity /= scale;
        }
        Ok(error + complementarity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfc::{GlobalFc2dProblem, GlobalFc3dProblem};
    use crate::matrix::NumericsMatrix;
    use faer::Mat;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-15 * (1.0 + b.abs())
    }

    #[test]
    fn min_relative_scaling_is_sqrt_epsilon() {
        assert!(close(MIN_RELATIVE_SCALING, f64::EPSILON.sqrt()));
    }

    #[test]
    fn hand_computed_errors() {
        // M = 2 I (3×3), H = I, q = (1, 0, 0), b = 0, μ = 0.5.
        let m = NumericsMatrix::Dense(Mat::from_fn(3, 3, |i, j| if i == j { 2.0 } else { 0.0 }));
        let h = NumericsMatrix::Dense(Mat::from_fn(3, 3, |i, j| if i == j { 1.0 } else { 0.0 }));
        let p = GlobalFc3dProblem::new(m, h, vec![1.0, 0.0, 0.0], vec![0.0; 3], vec![0.5]).expect("valid");
        // r = 0, v = (0.5, 0, 0): equilibrium exact, u = (0.5, 0, 0) opens the contact: error 0.
        let mut u = [0.0; 3];
        let e = p.compute_error(&[0.0; 3], &mut u, &[0.5, 0.0, 0.0]).expect("sizes match");
        assert!(e.abs() <= 1e-16 && close(u[0], 0.5));
        // r = 0, v = 0: e_eq = ‖q‖ / max(‖q‖, 0, 0) = 1; u = 0, complementarity 0 (unscaled).
        let e = p.compute_error(&[0.0; 3], &mut u, &[0.0; 3]).expect("sizes match");
        assert!(close(e, 1.0), "{e}");
        // r = (1, 0, 0), v = (1, 0, 0): M v = (2,0,0) = q + H r, e_eq = 0; u = (1, 0, 0),
        // t = r − û = (0, 0, 0), P(t) = 0, e_c = ‖r‖ = 1, scaled by max(‖u‖, ‖r‖) = 1.
        let e = p.compute_error(&[1.0, 0.0, 0.0], &mut u, &[1.0, 0.0, 0.0]).expect("sizes match");
        assert!(close(e, 1.0), "{e}");
        // A tiny norm_q is not a scaling: r = v = 0 with norm_q = 0 → ‖q‖ = 1 unscaled.
        let e = p.compute_error_with_norm(&[0.0; 3], &mut u, &[0.0; 3], 0.0).expect("sizes match");
        assert!(close(e, 1.0), "{e}");
        let e = p.compute_error_with_norm(&[0.0; 3], &mut u, &[0.0; 3], 1e-3).expect("sizes match");
        assert!(close(e, 1000.0), "{e}");
    }

    #[test]
    fn two_d_sticking_solution_has_zero_error_and_sizes_are_checked() {
        // M = I, H = I, b = 0: u = v, M v = q + r. Sticking: u = 0, r = (1, 0.2) inside |r_T| ≤ 0.5 r_N.
        let eye = |n| NumericsMatrix::Dense(Mat::from_fn(n, n, |i, j| if i == j { 1.0 } else { 0.0 }));
        let p = GlobalFc2dProblem::new(eye(2), eye(2), vec![-1.0, -0.2], vec![0.0; 2], vec![0.5]).expect("valid");
        let mut u = [0.0; 2];
        let e = p.compute_error(&[1.0, 0.2], &mut u, &[0.0, 0.0]).expect("sizes match");
        assert!(e.abs() <= 1e-16, "{e}");
        assert!(matches!(p.compute_error(&[1.0], &mut u, &[0.0; 2]), Err(NumericsError::DimensionMismatch { .. })));
        assert!(matches!(
            p.compute_error(&[1.0, 0.0], &mut u, &[0.0; 3]),
            Err(NumericsError::DimensionMismatch { .. })
        ));
    }
}
