//! The error measure of the relay problem (Siconos `relay_compute_error`).

use super::RelayProblem;
use crate::NumericsError;
use crate::matrix::norm2;

impl RelayProblem {
    /// Siconos' relay error (`relay_compute_error`, numerics/src/Relay/relay_compute_error.c,
    /// Siconos 4.4): computes `w = M z + q` into `w` and returns
    ///
    /// `err = ‖P_[lb, ub](z − w) − z‖₂ / (‖q‖₂ + 1)`,
    ///
    /// where `P_[lb, ub]` clips each component to `[lb_i, ub_i]`. The numerator is the natural
    /// map residual of the box-constrained variational inequality: it is zero exactly when
    /// `lb ≤ z ≤ ub` and `−w ∈ N_[lb, ub](z)`. Siconos always divides by `‖q‖₂ + 1` (unlike
    /// the LCP error, which divides by `‖q‖₂` when that is above `DBL_EPSILON`); a solver
    /// converged when `err ≤ tolerance` (Siconos' `relay_driver` turns the same test into
    /// `info`).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `z` or `w` do not have length `n`.
    #[doc(alias = "relay_compute_error")]
    pub fn compute_error(&self, z: &[f64], w: &mut [f64]) -> Result<f64, NumericsError> {
        self.check_len("relay z", z.len())?;
        self.check_len("relay w", w.len())?;
        w.copy_from_slice(self.q());
        self.m().gemv(1.0, z, 1.0, w);
        Ok(self.error_with_w(z, w))
    }

    /// The error of [`RelayProblem::compute_error`] for a `w = M z + q` already computed
    /// (`z` and `w` must have length `n`; extra entries are ignored, missing ones are not
    /// counted).
    pub fn error_with_w(&self, z: &[f64], w: &[f64]) -> f64 {
        let mut s = 0.0;
        for (((&zi, &wi), &l), &u) in z.iter().zip(w).zip(self.lb()).zip(self.ub()) {
            // Siconos' order of operations: t = z − w, clipped (lower bound tested first), minus z.
            let t = zi - wi;
            let p = if t < l {
                l
            } else if t > u {
                u
            } else {
                t
            };
            let r = p - zi;
            s += r * r;
        }
        s.sqrt() / (norm2(self.q()) + 1.0)
    }

    /// `len` must equal the problem's size.
    pub(crate) fn check_len(&self, what: &'static str, len: usize) -> Result<(), NumericsError> {
        if len != self.size() {
            return Err(NumericsError::DimensionMismatch { what, expected: self.size(), found: len });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::NumericsMatrix;
    use faer::Mat;

    fn problem(m: Mat<f64>, q: Vec<f64>, lb: Vec<f64>, ub: Vec<f64>) -> RelayProblem {
        RelayProblem::new(NumericsMatrix::Dense(m), q, lb, ub).expect("valid relay problem")
    }

    #[test]
    fn error_is_the_clipped_natural_map_over_norm_q_plus_one() {
        // M = I, q = (3, -4): ‖q‖ = 5. At z = (0, 0.5): w = (3, -3.5),
        // P(z − w) = P(-3, 4) = (-1, 1), residual (-1, 0.5), norm √1.25, error √1.25 / 6.
        let p = problem(Mat::identity(2, 2), vec![3.0, -4.0], vec![-1.0; 2], vec![1.0; 2]);
        let mut w = vec![0.0; 2];
        let err = p.compute_error(&[0.0, 0.5], &mut w).expect("sizes agree");
        assert!((w[0] - 3.0).abs() < 1e-15 && (w[1] + 3.5).abs() < 1e-15);
        assert!((err - 1.25f64.sqrt() / 6.0).abs() < 1e-15);
        // The solution z = (-1, 1) (both at a bound, w pointing out of the box) has error 0.
        let err = p.compute_error(&[-1.0, 1.0], &mut w).expect("sizes agree");
        assert!(err.abs() < 1e-300);
        assert!((w[0] - 2.0).abs() < 1e-15 && (w[1] + 3.0).abs() < 1e-15);
    }

    #[test]
    fn interior_solution_has_zero_error_and_zero_q_divides_by_one() {
        // M = 2, q = 0: z = 0 is interior with w = 0; at z = 0.25, w = 0.5 and P(-0.25) - 0.25 = -0.5.
        let p = problem(faer::mat![[2.0]], vec![0.0], vec![-1.0], vec![1.0]);
        let mut w = vec![0.0];
        assert!(p.compute_error(&[0.0], &mut w).expect("sizes agree").abs() < 1e-300);
        let err = p.compute_error(&[0.25], &mut w).expect("sizes agree");
        assert!((err - 0.5).abs() < 1e-15);
    }

    #[test]
    fn wrong_lengths_are_typed_errors() {
        let p = problem(Mat::identity(2, 2), vec![1.0, 1.0], vec![0.0; 2], vec![1.0; 2]);
        let mut w = vec![0.0; 2];
        let r = p.compute_error(&[0.0], &mut w);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { what: "relay z", expected: 2, found: 1 })));
        let mut w3 = vec![0.0; 3];
        let r = p.compute_error(&[0.0, 0.0], &mut w3);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { what: "relay w", expected: 2, found: 3 })));
    }
}
