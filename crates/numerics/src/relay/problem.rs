//! The relay problem.

use crate::NumericsError;
use crate::fc::problem::{check_finite, check_len, check_matrix};
use crate::matrix::NumericsMatrix;

/// Relay problem (Siconos' `RelayProblem`, `numerics/src/Relay/RelayProblem.h`): find
/// `z, w ∈ Rⁿ` with
///
/// `w = M z + q`, `−w ∈ N_{[lb, ub]}(z)`,
///
/// the normal cone of the box `[lb, ub]` at `z`. Componentwise: `lb_i ≤ z_i ≤ ub_i`, and
/// `z_i = lb_i ⇒ w_i ≥ 0`, `z_i = ub_i ⇒ w_i ≤ 0`, `lb_i < z_i < ub_i ⇒ w_i = 0`
/// (a box-constrained variational inequality; with `lb = −1`, `ub = 1` it models ideal relays,
/// see Acary & Brogliato, "Numerical Methods for Nonsmooth Dynamical Systems", Springer 2008).
#[derive(Clone, Debug)]
pub struct RelayProblem {
    m: NumericsMatrix,
    q: Vec<f64>,
    lb: Vec<f64>,
    ub: Vec<f64>,
}

impl RelayProblem {
    /// Builds the problem: `M` is `n × n` with `n = q.len() > 0`, `lb` and `ub` have length `n`,
    /// every datum is finite and `lb ≤ ub`.
    ///
    /// # Errors
    /// [`NumericsError::EmptyProblem`], [`NumericsError::DimensionMismatch`],
    /// [`NumericsError::NonFinite`], and [`NumericsError::InvalidInput`] when some `lb_i > ub_i`.
    pub fn new(m: NumericsMatrix, q: Vec<f64>, lb: Vec<f64>, ub: Vec<f64>) -> Result<Self, NumericsError> {
        let n = q.len();
        if n == 0 {
            return Err(NumericsError::EmptyProblem { what: "relay" });
        }
        check_matrix("relay matrix M", &m, n, n)?;
        check_len("relay lower bound lb", &lb, n)?;
        check_len("relay upper bound ub", &ub, n)?;
        check_finite("relay vector q", &q)?;
        check_finite("relay lower bound lb", &lb)?;
        check_finite("relay upper bound ub", &ub)?;
        if let Some(i) = lb.iter().zip(&ub).position(|(l, u)| l > u) {
            return Err(NumericsError::InvalidInput {
                what: "relay bounds",
                reason: format!("lb[{i}] = {} exceeds ub[{i}] = {}", lb[i], ub[i]),
            });
        }
        Ok(Self { m, q, lb, ub })
    }

    /// Size `n` of the problem.
    pub fn size(&self) -> usize {
        self.q.len()
    }

    /// The matrix `M`.
    pub fn m(&self) -> &NumericsMatrix {
        &self.m
    }

    /// The vector `q`.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The lower bounds `lb`.
    pub fn lb(&self) -> &[f64] {
        &self.lb
    }

    /// The upper bounds `ub`.
    pub fn ub(&self) -> &[f64] {
        &self.ub
    }

    /// Splits the problem into `(M, q, lb, ub)`.
    pub fn into_parts(self) -> (NumericsMatrix, Vec<f64>, Vec<f64>, Vec<f64>) {
        (self.m, self.q, self.lb, self.ub)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    #[test]
    fn checks_shapes_and_bounds() {
        let m = || NumericsMatrix::Dense(Mat::from_fn(2, 2, |i, j| if i == j { 1.0 } else { 0.0 }));
        let p = RelayProblem::new(m(), vec![1.0, -1.0], vec![-1.0; 2], vec![1.0; 2]).expect("valid");
        assert_eq!(p.size(), 2);
        let r = RelayProblem::new(m(), vec![1.0, -1.0], vec![-1.0, 2.0], vec![1.0; 2]);
        assert!(matches!(r, Err(NumericsError::InvalidInput { what: "relay bounds", .. })));
        let r = RelayProblem::new(m(), vec![1.0, -1.0], vec![-1.0], vec![1.0; 2]);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { expected: 2, found: 1, .. })));
        let r = RelayProblem::new(m(), vec![], vec![], vec![]);
        assert!(matches!(r, Err(NumericsError::EmptyProblem { .. })));
        let r = RelayProblem::new(m(), vec![1.0, -1.0], vec![-1.0; 2], vec![1.0, f64::NAN]);
        assert!(matches!(r, Err(NumericsError::NonFinite { .. })));
    }
}
