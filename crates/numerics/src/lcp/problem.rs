//! The linear complementarity problem and its error measure.

use crate::NumericsError;
use crate::matrix::{NumericsMatrix, norm2};

/// Linear complementarity problem (Siconos' `LinearComplementarityProblem`):
/// find `z ∈ Rⁿ` with `w = M z + q`, `0 ≤ z ⊥ w ≥ 0`.
///
/// The problem owns its data, so the kernel can keep one per one-step problem and refill it
/// each step without allocating.
#[derive(Clone, Debug)]
#[doc(alias = "LinearComplementarityProblem")]
pub struct LcpProblem {
    m: NumericsMatrix,
    q: Vec<f64>,
}

impl LcpProblem {
    /// Builds an LCP, checking that `M` is `n × n` with `n = q.len() > 0` and that all data
    /// are finite.
    ///
    /// # Errors
    /// [`NumericsError::EmptyProblem`], [`NumericsError::DimensionMismatch`],
    /// [`NumericsError::NonFinite`].
    pub fn new(m: NumericsMatrix, q: Vec<f64>) -> Result<Self, NumericsError> {
        let n = q.len();
        if n == 0 {
            return Err(NumericsError::EmptyProblem { what: "lcp" });
        }
        if m.nrows() != n {
            return Err(NumericsError::DimensionMismatch { what: "lcp matrix rows", expected: n, found: m.nrows() });
        }
        if m.ncols() != n {
            return Err(NumericsError::DimensionMismatch { what: "lcp matrix columns", expected: n, found: m.ncols() });
        }
        if !m.is_finite() {
            return Err(NumericsError::NonFinite { what: "lcp matrix" });
        }
        if q.iter().any(|v| !v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "lcp vector q" });
        }
        Ok(Self { m, q })
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

    /// Splits the problem into its matrix and vector.
    pub fn into_parts(self) -> (NumericsMatrix, Vec<f64>) {
        (self.m, self.q)
    }

    /// Siconos' LCP error (`lcp_compute_error`, numerics/src/LCP/lcp_compute_error.c):
    /// computes `w = M z + q` into `w` and returns
    ///
    /// `err = ‖z − max(0, z − w)‖₂ / ‖q‖₂`, the division being done only when `‖q‖₂ > DBL_EPSILON`.
    ///
    /// `z − max(0, z − w)` is the natural (min-function) residual `min(z, w)`, zero exactly at
    /// a solution.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `z` or `w` do not have length `n`.
    pub fn compute_error(&self, z: &[f64], w: &mut [f64]) -> Result<f64, NumericsError> {
        self.check_len("z", z.len())?;
        self.check_len("w", w.len())?;
        w.copy_from_slice(&self.q);
        self.m.gemv(1.0, z, 1.0, w);
        Ok(self.error_with_w(z, w))
    }

    /// The same error as [`LcpProblem::compute_error`], for a `w = M z + q` already computed.
    pub fn error_with_w(&self, z: &[f64], w: &[f64]) -> f64 {
        let mut s = 0.0;
        for (&zi, &wi) in z.iter().zip(w) {
            let r = zi - (zi - wi).max(0.0);
            s += r * r;
        }
        let err = s.sqrt();
        let nq = norm2(&self.q);
        if nq > f64::EPSILON { err / nq } else { err }
    }

    pub(crate) fn check_len(&self, what: &'static str, len: usize) -> Result<(), NumericsError> {
        if len != self.size() {
            return Err(NumericsError::DimensionMismatch { what, expected: self.size(), found: len });
        }
        Ok(())
    }
}
