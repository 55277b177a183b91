//! Small dense linear algebra for the integrators: the LU factorization with partial pivoting
//! that applies `W⁻¹` (LAPACK `dgetrf`/`dgetrs` order of operations, as Siconos'
//! `SimpleMatrix::PLUFactorizationInPlace` / `PLUForwardBackwardInPlace` do), and the
//! positive-definiteness test of mass matrices.

use faer::Mat;

use crate::KernelError;

/// `dst.copy_from_slice(src)`, with the sizes of 3D contacts and bodies (3, 6 and 7 values) as
/// fixed-size copies: they compile to a few moves instead of a call to `memcpy`. The passes over
/// thousands of interactions or systems then stay short, and the cache misses of consecutive
/// items overlap. Panics as `copy_from_slice` when the lengths differ.
#[inline(always)]
pub(crate) fn copy_small(dst: &mut [f64], src: &[f64]) {
    match src.len() {
        3 => copy_fixed::<3>(dst, src),
        6 => copy_fixed::<6>(dst, src),
        7 => copy_fixed::<7>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// `dst.extend_from_slice(src)`, with fixed-size copies for the lengths of a 3D contact: its
/// 3 reactions or outputs and its `H` (3 rows of 2 × 6 velocities), as [`copy_small`].
#[inline(always)]
pub(crate) fn extend_small(dst: &mut Vec<f64>, src: &[f64]) {
    match src.len() {
        3 => extend_fixed::<3>(dst, src),
        36 => extend_fixed::<36>(dst, src),
        _ => dst.extend_from_slice(src),
    }
}

#[inline(always)]
fn extend_fixed<const N: usize>(dst: &mut Vec<f64>, src: &[f64]) {
    match <&[f64; N]>::try_from(src) {
        Ok(s) => dst.extend_from_slice(s),
        Err(_) => dst.extend_from_slice(src),
    }
}

#[inline(always)]
fn copy_fixed<const N: usize>(dst: &mut [f64], src: &[f64]) {
    match (<&mut [f64; N]>::try_from(&mut *dst), <&[f64; N]>::try_from(src)) {
        (Ok(d), Ok(s)) => *d = *s,
        _ => dst.copy_from_slice(src),
    }
}

/// `P A = L U` of a square matrix, stored row-major with the unit lower factor below the
/// diagonal, ready to solve `A x = b` in place.
#[derive(Clone, Debug, Default)]
pub(crate) struct DenseLu {
    n: usize,
    lu: Vec<f64>,
    /// `perm[k]`: the row swapped with row `k` at elimination step `k` (LAPACK's `ipiv`).
    perm: Vec<usize>,
}

impl DenseLu {
    /// Factorizes `a` (square). Errors with [`KernelError::Singular`] on a zero pivot.
    pub(crate) fn factorize(&mut self, a: &Mat<f64>, what: &'static str) -> Result<(), KernelError> {
        let n = a.nrows();
        self.n = n;
        self.lu.clear();
        self.lu.extend((0..n * n).map(|k| a[(k / n, k % n)]));
        self.perm.clear();
        self.perm.resize(n, 0);
        let lu = &mut self.lu;
        for k in 0..n {
            // Pivot: the first entry of largest magnitude in column k (idamax).
            let mut p = k;
            let mut best = lu[k * n + k].abs();
            for i in k + 1..n {
                let v = lu[i * n + k].abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            self.perm[k] = p;
            if best == 0.0 || !best.is_finite() {
                return Err(KernelError::Singular { what });
            }
            if p != k {
                for j in 0..n {
                    lu.swap(k * n + j, p * n + j);
                }
            }
            // Column scaling by the reciprocal of the pivot, then the rank-one update.
            let inv = 1.0 / lu[k * n + k];
            for i in k + 1..n {
                lu[i * n + k] *= inv;
            }
            for i in k + 1..n {
                let l = lu[i * n + k];
                if l != 0.0 {
                    for j in k + 1..n {
                        lu[i * n + j] -= l * lu[k * n + j];
                    }
                }
            }
        }
        Ok(())
    }

    /// Overwrites `b` with `A⁻¹ b` (row interchanges, forward then backward substitution in
    /// the column-oriented order of `dtrsm`).
    pub(crate) fn solve_in_place(&self, b: &mut [f64]) {
        let n = self.n;
        debug_assert_eq!(b.len(), n);
        if n == 1 {
            b[0] /= self.lu[0];
            return;
        }
        for k in 0..n {
            let p = self.perm[k];
            if p != k {
                b.swap(k, p);
            }
        }
        let lu = &self.lu;
        for k in 0..n {
            let bk = b[k];
            if bk != 0.0 {
                for i in k + 1..n {
                    b[i] -= bk * lu[i * n + k];
                }
            }
        }
        for k in (0..n).rev() {
            if b[k] != 0.0 {
                b[k] /= lu[k * n + k];
                let bk = b[k];
                for i in 0..k {
                    b[i] -= bk * lu[i * n + k];
                }
            }
        }
    }
}

/// Checks that `m` is square, finite, symmetric (to `1e-12` relative) and positive definite
/// (a Cholesky factorization succeeds).
pub(crate) fn check_spd(m: &Mat<f64>, what: &'static str) -> Result<(), KernelError> {
    let n = m.nrows();
    if m.ncols() != n {
        return Err(KernelError::DimensionMismatch { what, expected: n, found: m.ncols() });
    }
    let mut scale = 0.0f64;
    for j in 0..n {
        for i in 0..n {
            let v = m[(i, j)];
            if !v.is_finite() {
                return Err(KernelError::NonFinite { what });
            }
            scale = scale.max(v.abs());
        }
    }
    for j in 0..n {
        for i in 0..j {
            if (m[(i, j)] - m[(j, i)]).abs() > 1e-12 * scale {
                return Err(KernelError::NotPositiveDefinite { what });
            }
        }
    }
    // Cholesky, lower factor, column by column.
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = m[(j, j)];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        if d.is_nan() || d <= 0.0 {
            return Err(KernelError::NotPositiveDefinite { what });
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = m[(i, j)];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_solves_a_pivoting_system() {
        let a = faer::mat![[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [4.0, -1.0, 3.0]];
        let mut lu = DenseLu::default();
        lu.factorize(&a, "a").expect("nonsingular");
        let x = [1.0, -2.0, 0.5];
        let mut b: Vec<f64> = (0..3).map(|i| (0..3).map(|j| a[(i, j)] * x[j]).sum()).collect();
        lu.solve_in_place(&mut b);
        for i in 0..3 {
            assert!((b[i] - x[i]).abs() < 1e-14, "{b:?}");
        }
    }

    #[test]
    fn lu_reports_singular() {
        let a = faer::mat![[1.0, 2.0], [2.0, 4.0]];
        let mut lu = DenseLu::default();
        assert!(matches!(lu.factorize(&a, "a"), Err(KernelError::Singular { .. })));
    }

    #[test]
    fn spd_check() {
        assert!(check_spd(&faer::mat![[2.0, 1.0], [1.0, 2.0]], "m").is_ok());
        assert!(matches!(
            check_spd(&faer::mat![[1.0, 2.0], [2.0, 1.0]], "m"),
            Err(KernelError::NotPositiveDefinite { .. })
        ));
        assert!(matches!(
            check_spd(&faer::mat![[1.0, 0.5], [0.0, 1.0]], "m"),
            Err(KernelError::NotPositiveDefinite { .. })
        ));
        assert!(matches!(check_spd(&faer::mat![[f64::NAN]], "m"), Err(KernelError::NonFinite { .. })));
    }
}
