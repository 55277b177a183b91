//! The error measure of the local frictional contact problem, as Siconos defines it
//! (`numerics/src/FrictionContact/fc3d_compute_error.c`, `fc2d_compute_error.c`).

#![allow(non_snake_case)]

use super::problem::{LocalFcProblem, check_len};
use super::projection::{project, tangential_norm};
use crate::NumericsError;
use crate::matrix::norm2;

/// Squared error `‖e_c‖²` of one contact, `e_c = r_c − P_{K_μ}(r_c − û_c)` with the modified
/// velocity `û_c = (u_N + μ‖u_T‖, u_T)` (Siconos `fc3d_unitary_compute_and_add_error`,
/// `numerics/src/FrictionContact/fc3d_compute_error.c`, with `ρ = 1`; in 2D the loop body of
/// `fc2d_compute_error.c`). `e_c = 0` exactly when `(r_c, u_c)` satisfies the Coulomb law
/// `K_μ ∋ r_c ⊥ û_c ∈ K_μ*` (De Saxcé–Feng, Acary–Brogliato 2008, A.13 p. 528).
///
/// The squares are summed in Siconos' order, `(e_0² + e_1²) + e_2²`.
pub fn contact_error_squared<const D: usize>(r: &[f64; D], u: &[f64; D], mu: f64) -> f64 {
    if D == 0 {
        return 0.0;
    }
    let norm_ut = tangential_norm(u);
    let mut t = [0.0; D];
    t[0] = r[0] - (u[0] + mu * norm_ut);
    for i in 1..D {
        t[i] = r[i] - u[i];
    }
    project(&mut t, mu);
    let mut sum = 0.0;
    for i in 0..D {
        let e = r[i] - t[i];
        sum += e * e;
    }
    sum
}

impl<const D: usize> LocalFcProblem<D> {
    /// Siconos' error of `r` for this problem, with `norm = ‖q‖₂` (the value every Siconos FC3D
    /// solver passes); also stores `u = W r + q` into `u`. See
    /// [`compute_error_with_norm`](Self::compute_error_with_norm) for the formula.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length [`size`](Self::size).
    pub fn compute_error(&self, r: &[f64], u: &mut [f64]) -> Result<f64, NumericsError> {
        self.compute_error_with_norm(r, u, norm2(self.q()))
    }

    /// Siconos' error of `r` with a given normalization `norm`; stores `u = W r + q` into `u`.
    ///
    /// For each contact `c` (components `c·D .. c·D + D`, normal first) with `μ = μ_c`:
    /// `t = (r_N − u_N − μ‖u_T‖, r_T − u_T)`, `t ← P_{K_μ}(t)` (see
    /// [`projection_on_cone`](super::projection_on_cone)), `e_c = r_c − t`; then
    /// `err = sqrt(Σ_c ‖e_c‖²)`, then `err /= max(norm, ‖r‖₂, ‖u‖₂)` when that maximum is
    /// `> f64::EPSILON` (DBL_EPSILON), else `err` is returned unscaled (`fc3d_compute_error.c`).
    ///
    /// `D = 2` uses the same formula with `‖u_T‖ = |u_T|` and the same normalization: that is
    /// what Siconos 4.4.0's `fc2d_compute_error` (libsiconos_numerics 4.4.0+dfsg-2) returns,
    /// checked by calling it through ctypes (an older source revision divided by `norm` alone).
    /// Non-finite entries of `r` propagate into a NaN error (not an `Err`), so a diverged
    /// iterate is reported as such by the caller.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length [`size`](Self::size).
    pub fn compute_error_with_norm(&self, r: &[f64], u: &mut [f64], norm: f64) -> Result<f64, NumericsError> {
        let n = self.size();
        check_len("fc error: reaction r", r, n)?;
        check_len("fc error: velocity u", u, n)?;
        let W = self.w();
        u.copy_from_slice(self.q());
        W.gemv(1.0, r, 1.0, u);
        let mut sum = 0.0;
        for ((rc, uc), &mu) in r.chunks_exact(D).zip(u.chunks_exact(D)).zip(self.mu()) {
            let rc: &[f64; D] = rc.try_into().expect("chunks_exact(D) yields slices of length D");
            let uc: &[f64; D] = uc.try_into().expect("chunks_exact(D) yields slices of length D");
            sum += contact_error_squared(rc, uc, mu);
        }
        let err = sum.sqrt();
        let scale = norm.max(norm2(r)).max(norm2(u));
        Ok(if scale > f64::EPSILON { err / scale } else { err })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fc::{Fc2dProblem, Fc3dProblem};
    use crate::matrix::NumericsMatrix;
    use faer::Mat;

    fn diag(d: &[f64]) -> NumericsMatrix {
        NumericsMatrix::Dense(Mat::from_fn(d.len(), d.len(), |i, j| if i == j { d[i] } else { 0.0 }))
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * (1.0 + b.abs())
    }

    #[test]
    fn hand_computed_one_contact_errors_3d() {
        // W = I, q = (−2, 1, 0), μ = 0.5, r = 0: u = q, t = (1.5, −1, 0) → boundary (1.6, −0.8, 0),
        // ‖e‖ = √3.2, normalized by max(‖q‖, ‖r‖, ‖u‖) = √5: √0.64 = 0.8.
        let p = Fc3dProblem::new(diag(&[1.0; 3]), vec![-2.0, 1.0, 0.0], vec![0.5]).expect("valid");
        let mut u = [0.0; 3];
        let err = p.compute_error(&[0.0; 3], &mut u).expect("sizes match");
        assert!(close(err, 0.8, 1e-15), "{err}");
        assert!(close(u[0], -2.0, 0.0) && close(u[1], 1.0, 0.0));
        // Same with r = (10, 0, 0): u = (8, 1, 0), t = (1.5, −1, 0), e = (8.4, 0.8, 0),
        // normalized by max(‖q‖, ‖r‖, ‖u‖) = max(√5, 10, √65) = 10.
        let err = p.compute_error(&[10.0, 0.0, 0.0], &mut u).expect("sizes match");
        assert!(close(err, (71.2f64 / 100.0).sqrt(), 1e-15), "{err}");
        // Unnormalized when norm, ‖r‖, ‖u‖ are all ≤ DBL_EPSILON.
        let p0 = Fc3dProblem::new(diag(&[1.0; 3]), vec![0.0; 3], vec![0.5]).expect("valid");
        let err = p0.compute_error_with_norm(&[-1e-17, 0.0, 0.0], &mut u, 0.0).expect("sizes match");
        assert!(close(err, 1e-17, 1e-12), "{err}");
    }

    #[test]
    fn fc2d_normalizes_like_fc3d() {
        // As above in 2D: e = (8.4, 0.8), ‖e‖ = √71.2, divided by max(‖q‖, ‖r‖, ‖u‖) = 10.
        let p = Fc2dProblem::new(diag(&[1.0; 2]), vec![-2.0, 1.0], vec![0.5]).expect("valid");
        let mut u = [0.0; 2];
        let err = p.compute_error(&[10.0, 0.0], &mut u).expect("sizes match");
        assert!(close(err, (71.2f64 / 100.0).sqrt(), 1e-15), "{err}");
        // q = 0, W = I (values checked against Siconos 4.4's fc2d_compute_error): r = (1e-3, 0)
        // gives u = r, e = r and err = 1 after scaling; r = (1e-17, 0) stays unscaled, 1e-17.
        let p = Fc2dProblem::new(diag(&[1.0; 2]), vec![0.0; 2], vec![0.5]).expect("valid");
        let err = p.compute_error_with_norm(&[1e-3, 0.0], &mut u, 0.0).expect("sizes match");
        assert!(close(err, 1.0, 1e-15), "{err}");
        let err = p.compute_error_with_norm(&[1e-17, 0.0], &mut u, 0.0).expect("sizes match");
        assert!(close(err, 1e-17, 1e-12), "{err}");
        let err = p.compute_error_with_norm(&[1e-17, 0.0], &mut u, 2.0).expect("sizes match");
        assert!(close(err, 5e-18, 1e-12), "{err}");
    }

    #[test]
    fn zero_reaction_with_nonnegative_normal_q_has_zero_error() {
        let p = Fc3dProblem::new(diag(&[2.0; 6]), vec![0.0, 3.0, -1.0, 0.5, -0.2, 7.0], vec![0.3, 0.0]).expect("valid");
        let mut u = [0.0; 6];
        let err = p.compute_error(&[0.0; 6], &mut u).expect("sizes match");
        assert!(err.abs() <= 1e-14, "{err}");
        let p = Fc2dProblem::new(diag(&[2.0; 2]), vec![1.0, -4.0], vec![0.7]).expect("valid");
        let err = p.compute_error(&[0.0; 2], &mut [0.0; 2]).expect("sizes match");
        assert!(err.abs() <= 1e-14, "{err}");
    }

    /// Exact solutions of a diagonal problem: contact 0 sticking (u = 0, r inside the cone),
    /// contact 1 sliding (r on the boundary, u_N = 0, u_T = −λ r_T), contact 2 taking off
    /// (r = 0, u_N > 0), contact 3 frictionless sliding (μ = 0, r_T = 0, u_N = 0).
    #[test]
    fn error_vanishes_at_hand_built_solutions() {
        let d = [2.0, 3.0, 0.5, 1.5, 1.0, 4.0, 0.7, 0.9, 1.1, 5.0, 2.5, 0.3];
        let mu = [0.5, 0.5, 0.8, 0.0];
        let r = [1.0, 0.1, -0.2, 2.0, 0.6, 0.8, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0];
        let u = [0.0, 0.0, 0.0, 0.0, -0.3, -0.4, 1.5, -2.0, 0.25, 0.0, 1.0, -2.0];
        let q: Vec<f64> = (0..12).map(|i| u[i] - d[i] * r[i]).collect();
        let p = Fc3dProblem::new(diag(&d), q, mu.to_vec()).expect("valid");
        let mut uu = [0.0; 12];
        let err = p.compute_error(&r, &mut uu).expect("sizes match");
        assert!(err <= 1e-14, "{err}");
        for (a, b) in uu.iter().zip(u) {
            assert!((a - b).abs() <= 1e-15, "{uu:?}");
        }
        // Perturbing one reaction makes the error positive.
        let mut r2 = r;
        r2[4] += 0.1;
        assert!(p.compute_error(&r2, &mut uu).expect("sizes match") > 1e-3);

        // 2D: sticking, sliding (r_T = μ r_N, u_T < 0), take-off.
        let d = [1.0, 2.0, 3.0, 0.5, 4.0, 1.0];
        let mu = [0.4, 0.4, 1.2];
        let r = [1.0, -0.3, 2.0, 0.8, 0.0, 0.0];
        let u = [0.0, 0.0, 0.0, -1.5, 0.2, 3.0];
        let q: Vec<f64> = (0..6).map(|i| u[i] - d[i] * r[i]).collect();
        let p = Fc2dProblem::new(diag(&d), q, mu.to_vec()).expect("valid");
        let err = p.compute_error(&r, &mut [0.0; 6]).expect("sizes match");
        assert!(err <= 1e-14, "{err}");
    }

    #[test]
    fn wrong_lengths_are_dimension_mismatches() {
        let p = Fc3dProblem::new(diag(&[1.0; 6]), vec![-1.0; 6], vec![0.3, 0.3]).expect("valid");
        let r = p.compute_error(&[0.0; 5], &mut [0.0; 6]);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { expected: 6, found: 5, .. })));
        let r = p.compute_error(&[0.0; 6], &mut [0.0; 7]);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { expected: 6, found: 7, .. })));
    }
}
