//! The error of the mixed mechanical problem, as Siconos 4.4 measures it (`gmp_compute_error`,
//! `numerics/src/GenericMechanical/GenericMechanical_driver.c`).

use super::problem::{BlockKind, MixedProblem};
use crate::NumericsError;
use crate::fc::contact_error_squared;
use crate::matrix::norm2;

/// The error Siconos reports when an iterate holds a NaN (`gmp_compute_error` returns this
/// constant, 10, rather than a measure).
pub(crate) const NAN_ERROR: f64 = 10.0;

impl MixedProblem {
    /// Siconos' error of `z`; also stores `w = M z + q` into `w`.
    ///
    /// For each block `i`, with the local vector `q̃_i = q_i + Σ_{j≠i} M_ij z_j` (the `q` of the
    /// block's local problem, so `w_i = M_ii z_i + q̃_i`), the block's error is
    /// - equality: `max_k |w_k|` (not normalized);
    /// - complementarity: `‖z_i − max(0, z_i − w_i)‖₂ / (1 + ‖q̃_i‖₂)`;
    /// - FC2D / FC3D: `‖z_i − P_{K_μ}(z_i − ŵ_i)‖₂ / (1 + ‖q̃_i‖₂)` with
    ///   `ŵ_i = (w_N + μ‖w_T‖, w_T)` ([`contact_error_squared`]);
    ///
    /// and the error is the largest of them. When `z` or `w` holds a NaN the error is 10, as in
    /// Siconos.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `z` or `w` does not have the problem's size.
    #[doc(alias = "gmp_compute_error")]
    pub fn compute_error(&self, z: &[f64], w: &mut [f64]) -> Result<f64, NumericsError> {
        self.check_vectors(z, w)?;
        let mut local_q = vec![0.0; self.max_block_size()];
        Ok(self.error_into(z, w, &mut local_q))
    }

    /// [`MixedProblem::compute_error`] with the scratch vector `local_q` (at least the largest
    /// block size) and checked lengths.
    pub(crate) fn error_into(&self, z: &[f64], w: &mut [f64], local_q: &mut [f64]) -> f64 {
        // First w = M z + q, block by block through the local vectors (they are needed for the
        // normalization), then each block's error.
        let mut err: f64 = 0.0;
        for (i, kind) in self.blocks().iter().enumerate() {
            let range = self.range(i);
            let b = range.len();
            let ql = &mut local_q[..b];
            ql.copy_from_slice(&self.q()[range.clone()]);
            self.m().row_product(i, z, ql, false);
            let wi = &mut w[range.clone()];
            wi.copy_from_slice(ql);
            let diag = self.m().diagonal_block(i).unwrap_or(&[]);
            // Column-major diagonal block times z_i.
            for (c, zc) in z[range.clone()].iter().enumerate() {
                for (r, wr) in wi.iter_mut().enumerate() {
                    *wr += diag[c * b + r] * zc;
                }
            }
            let zi = &z[range];
            if zi.iter().chain(wi.iter()).any(|v| v.is_nan()) {
                return NAN_ERROR;
            }
            let local = match kind {
                BlockKind::Equality => wi.iter().fold(0.0f64, |m, v| m.max(v.abs())),
                BlockKind::Complementarity => {
                    let s: f64 = zi.iter().zip(wi.iter()).map(|(zk, wk)| (zk - (zk - wk).max(0.0)).powi(2)).sum();
                    s.sqrt() / (1.0 + norm2(ql))
                }
                BlockKind::Fc2d { mu } => {
                    let e2 = contact_error_squared::<2>(&[zi[0], zi[1]], &[wi[0], wi[1]], *mu);
                    e2.sqrt() / (1.0 + norm2(ql))
                }
                BlockKind::Fc3d { mu } => {
                    let e2 = contact_error_squared::<3>(&[zi[0], zi[1], zi[2]], &[wi[0], wi[1], wi[2]], *mu);
                    e2.sqrt() / (1.0 + norm2(ql))
                }
            };
            err = err.max(local);
        }
        err
    }
}
