//! Siconos' MLCP error measure (`mlcp_compute_error`, numerics/src/MLCP/mlcp_compute_error.c).

use super::MlcpProblem;
use crate::NumericsError;
use crate::matrix::norm2;

impl MlcpProblem {
    /// Siconos 4.4's MLCP error (`mlcp_compute_error`, numerics/src/MLCP/mlcp_compute_error.c):
    /// computes `w = M z + q` into `w` (from the whole matrix `M` when the problem has it, else
    /// `w = (A u + C v + a, D u + B v + b)` from the blocks) and returns, with the row blocks
    /// (for the block form alone: one equality block `0..n`, one complementarity block `n..n+m`),
    ///
    /// - `eₑ = Σ ‖w_K‖₂` over the equality blocks `K`, and `nₑ = 1 + Σ ‖q_K‖₂`;
    /// - `eᵢ = Σ φ(zᵢ, wᵢ)` over the rows of the complementarity blocks, with
    ///   `φ(z, w) = max(−z, 0) + max(−w, 0) + [z > 0, w > 0] z w + [z < 0, w < 0] z w`
    ///   (sign violations plus the complementarity product where it has a meaning),
    ///   and `nᵢ = 1 + Σ ‖w_K‖₂` over those blocks (the norm of **w**, not of `q`, as Siconos does);
    /// - `err = eᵢ / (1 + nᵢ)` if `eᵢ / nᵢ ≥ eₑ / nₑ`, else `eₑ / (1 + nₑ)`.
    ///
    /// The normalizer thus carries Siconos' `1 +` twice (`nₑ` and `nᵢ` start at 1 and are
    /// incremented once more in the final division). Checked against Siconos 4.4's Python
    /// bindings on random points of every file of the collection: equal to 3e-16 relative.
    /// Siconos prints a deprecation warning and normalizes `eᵢ` by `‖b‖` instead of `‖w₂‖`
    /// for problems without row blocks; ours always have row blocks, so that path is not kept.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `z` or `w` do not have length `n + m`;
    /// [`NumericsError::InvalidInput`] for a rectangular MLCP (a whole `M` with more rows than
    /// `n + m`, e.g. `Rectangular_mlcp.dat`): Siconos evaluates those only through its
    /// least-squares enumeration (`DGELS`), and we refuse them.
    #[doc(alias = "mlcp_compute_error")]
    pub fn compute_error(&self, z: &[f64], w: &mut [f64]) -> Result<f64, NumericsError> {
        self.check_len("z", z.len())?;
        self.check_len("w", w.len())?;
        self.check_square()?;
        let n = self.n();
        if let Some(f) = self.matrix_form() {
            w.copy_from_slice(&f.q);
            f.matrix.gemv(1.0, z, 1.0, w);
        } else {
            let f = self.block_form().expect("MlcpProblem::new requires at least one form");
            let (u, v) = z.split_at(n);
            let (we, wi) = w.split_at_mut(n);
            we.copy_from_slice(&f.vec_a);
            f.mat_a.gemv(1.0, u, 1.0, we);
            f.mat_c.gemv(1.0, v, 1.0, we);
            wi.copy_from_slice(&f.vec_b);
            f.mat_d.gemv(1.0, u, 1.0, wi);
            f.mat_b.gemv(1.0, v, 1.0, wi);
        }
        Ok(self.error_with_w(z, w))
    }

    /// The same error as [`MlcpProblem::compute_error`], for a `w = M z + q` already computed
    /// (`z` and `w` of length `n + m`, unchecked beyond a debug assertion).
    pub fn error_with_w(&self, z: &[f64], w: &[f64]) -> f64 {
        debug_assert!(z.len() == self.size() && w.len() == self.size());
        let (mut error_e, mut norm_e, mut error_i, mut norm_i) = (0.0, 1.0, 0.0, 1.0);
        let mut block = |start: usize, end: usize, is_comp: bool, q: &[f64]| {
            if is_comp {
                for (&zi, &wi) in z[start..end].iter().zip(&w[start..end]) {
                    error_i += complementarity_term(zi, wi);
                }
                norm_i += norm2(&w[start..end]);
            } else {
                error_e += norm2(&w[start..end]);
                norm_e += norm2(&q[start..end]);
            }
        };
        if let Some(f) = self.matrix_form() {
            for (k, &is_comp) in f.complementarity_blocks.iter().enumerate() {
                block(f.row_blocks[k], f.row_blocks[k + 1], is_comp, &f.q);
            }
        } else {
            let f = self.block_form().expect("MlcpProblem::new requires at least one form");
            let n = self.n();
            block(0, n, false, &f.vec_a);
            // The complementarity block reads q only through w, so `b` need not be offset.
            block(n, self.size(), true, &[]);
        }
        if error_i / norm_i >= error_e / norm_e { error_i / (1.0 + norm_i) } else { error_e / (1.0 + norm_e) }
    }

    pub(crate) fn check_len(&self, what: &'static str, len: usize) -> Result<(), NumericsError> {
        if len != self.size() {
            return Err(NumericsError::DimensionMismatch { what, expected: self.size(), found: len });
        }
        Ok(())
    }

    /// Refuses a rectangular MLCP (whole `M` with more rows than `n + m`).
    pub(crate) fn check_square(&self) -> Result<(), NumericsError> {
        if let Some(f) = self.matrix_form()
            && f.matrix.nrows() != self.size()
        {
            return Err(NumericsError::InvalidInput {
                what: "mlcp",
                reason: format!(
                    "rectangular MLCP (M has {} rows for n + m = {} unknowns) is not supported",
                    f.matrix.nrows(),
                    self.size()
                ),
            });
        }
        Ok(())
    }
}

/// Siconos' per-row complementarity error: sign violations of `z` and `w`, plus `z w` when both
/// are positive or both negative.
fn complementarity_term(z: f64, w: f64) -> f64 {
    let mut e = 0.0;
    if z < 0.0 {
        e -= z;
        if w < 0.0 {
            e += z * w;
        }
    }
    if w < 0.0 {
        e -= w;
    }
    if z > 0.0 && w > 0.0 {
        e += z * w;
    }
    e
}
