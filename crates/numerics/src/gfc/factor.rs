//! Factorization of the matrix `M` of a global frictional contact problem, kept to apply `M⁻¹`
//! many times (Siconos keeps the factors of `M` in `NM_gesv_expert(.., NM_KEEP_FACTORS)` and
//! `NM_Cholesky_solve`, `numerics/src/tools/NumericsMatrix.c`).

use faer::linalg::solvers::{FullPivLu, Llt as DenseLlt, Solve};
use faer::sparse::linalg::solvers::{Llt as SparseLlt, Lu as SparseLu, SymbolicLlt, SymbolicLu};
use faer::sparse::{SparseColMat, Triplet};
use faer::{Mat, MatMut, Side};

use crate::NumericsError;
use crate::matrix::NumericsMatrix;

/// Which factorization [`MassFactorization`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FactorizationKind {
    /// Dense Cholesky `M = L Lᵀ` (dense `M`, symmetric positive definite).
    DenseCholesky,
    /// Dense LU with full pivoting (dense `M`, not symmetric positive definite).
    DenseLu,
    /// Sparse supernodal/simplicial Cholesky `M = L Lᵀ` with a fill-reducing ordering
    /// (sparse or sparse-block `M`, symmetric positive definite).
    SparseCholesky,
    /// Sparse LU with partial pivoting and a column ordering (sparse or sparse-block `M`, not
    /// symmetric positive definite).
    SparseLu,
}

#[derive(Clone, Debug)]
enum Factor {
    DenseLlt(DenseLlt<f64>),
    DenseLu(FullPivLu<f64>),
    SparseLlt(SparseLlt<usize, f64>),
    SparseLu(SparseLu<usize, f64>),
}

/// A factorization of a square matrix `M`, used to solve `M x = b` repeatedly.
///
/// Choice (in this order): when `M` is symmetric (`|M_ij − M_ji| ≤ 1e-14 · max|M|`), Cholesky
/// (`L Lᵀ`; dense for dense storage, faer's sparse Cholesky with symbolic analysis for sparse and
/// sparse-block storage); when `M` is not symmetric or Cholesky meets a non-positive pivot
/// (`M` not positive definite), LU (dense with full pivoting, or faer's sparse LU). This is the
/// mechanics case first: `M` is a mass or iteration matrix, symmetric positive definite.
///
/// Singularity: a dense LU whose smallest pivot is `≤ n · ε · (largest pivot)` (`ε` the machine
/// epsilon), a sparse LU that finds no pivot, or a solve giving non-finite values is reported as
/// [`NumericsError::Singular`].
#[derive(Clone, Debug)]
pub struct MassFactorization {
    factor: Factor,
    n: usize,
}

impl MassFactorization {
    /// Factorizes the square matrix `m` (any storage).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `m` is not square,
    /// [`NumericsError::NonFinite`] for NaN or infinite entries,
    /// [`NumericsError::Singular`] when `m` is (numerically) singular.
    pub fn new(m: &NumericsMatrix) -> Result<Self, NumericsError> {
        let n = m.nrows();
        if m.ncols() != n {
            return Err(NumericsError::DimensionMismatch {
                what: "factorized matrix M",
                expected: n,
                found: m.ncols(),
            });
        }
        if !m.is_finite() {
            return Err(NumericsError::NonFinite { what: "factorized matrix M" });
        }
        let factor = match m {
            NumericsMatrix::Dense(d) => {
                let symmetric = dense_is_symmetric(d);
                match symmetric.then(|| DenseLlt::new(d.as_ref(), Side::Lower)) {
                    Some(Ok(llt)) => Factor::DenseLlt(llt),
                    _ => {
                        let lu = FullPivLu::new(d.as_ref());
                        let u = lu.U();
                        let pivots = (0..n).map(|i| u[(i, i)].abs());
                        let largest = pivots.clone().fold(0.0, f64::max);
                        let smallest = pivots.fold(f64::INFINITY, f64::min);
                        if n > 0 && (smallest.is_nan() || smallest <= n as f64 * f64::EPSILON * largest) {
                            return Err(singular_m());
                        }
                        Factor::DenseLu(lu)
                    }
                }
            }
            NumericsMatrix::SparseBlock(_) | NumericsMatrix::Sparse(_) => {
                let csc = m.to_csc();
                let symmetric = sparse_is_symmetric(&csc);
                let triplets: Vec<Triplet<usize, usize, f64>> =
                    csc.iter().map(|(&v, (i, j))| Triplet::new(i, j, v)).collect();
                let a = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets).map_err(|_| {
                    NumericsError::InvalidInput {
                        what: "factorized matrix M",
                        reason: "cannot build the sparse matrix (out of memory or index overflow)".into(),
                    }
                })?;
                let llt = if symmetric {
                    SymbolicLlt::try_new(a.symbolic(), Side::Lower)
                        .ok()
                        .and_then(|s| SparseLlt::try_new_with_symbolic(s, a.as_ref(), Side::Lower).ok())
                } else {
                    None
                };
                match llt {
                    Some(llt) => Factor::SparseLlt(llt),
                    None => {
                        let symbolic = SymbolicLu::try_new(a.symbolic()).map_err(|_| singular_m())?;
                        Factor::SparseLu(
                            SparseLu::try_new_with_symbolic(symbolic, a.as_ref()).map_err(|_| singular_m())?,
                        )
                    }
                }
            }
        };
        Ok(Self { factor, n })
    }

    /// The factorization held.
    pub fn kind(&self) -> FactorizationKind {
        match self.factor {
            Factor::DenseLlt(_) => FactorizationKind::DenseCholesky,
            Factor::DenseLu(_) => FactorizationKind::DenseLu,
            Factor::SparseLlt(_) => FactorizationKind::SparseCholesky,
            Factor::SparseLu(_) => FactorizationKind::SparseLu,
        }
    }

    /// The order `n` of `M`.
    pub fn size(&self) -> usize {
        self.n
    }

    /// Overwrites every column `b` of `rhs` (`n` rows) with `M⁻¹ b`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `rhs` has not `n` rows,
    /// [`NumericsError::Singular`] when the result is not finite (a factorization that passed
    /// the singularity test of [`MassFactorization::new`] but is too ill-conditioned).
    pub fn solve_columns_in_place(&self, mut rhs: MatMut<'_, f64>) -> Result<(), NumericsError> {
        if rhs.nrows() != self.n {
            return Err(NumericsError::DimensionMismatch {
                what: "right-hand side of M x = b",
                expected: self.n,
                found: rhs.nrows(),
            });
        }
        match &self.factor {
            Factor::DenseLlt(f) => f.solve_in_place(rhs.as_mut()),
            Factor::DenseLu(f) => f.solve_in_place(rhs.as_mut()),
            Factor::SparseLlt(f) => f.solve_in_place(rhs.as_mut()),
            Factor::SparseLu(f) => f.solve_in_place(rhs.as_mut()),
        }
        let finite = (0..rhs.ncols()).all(|j| (0..rhs.nrows()).all(|i| rhs[(i, j)].is_finite()));
        if finite { Ok(()) } else { Err(singular_m()) }
    }

    /// Overwrites `x` (length `n`) with `M⁻¹ x`.
    ///
    /// # Errors
    /// As [`MassFactorization::solve_columns_in_place`].
    pub fn solve_in_place(&self, x: &mut [f64]) -> Result<(), NumericsError> {
        if x.len() != self.n {
            return Err(NumericsError::DimensionMismatch {
                what: "right-hand side of M x = b",
                expected: self.n,
                found: x.len(),
            });
        }
        let mut col = Mat::from_fn(self.n, 1, |i, _| x[i]);
        self.solve_columns_in_place(col.as_mut())?;
        x.copy_from_slice(col.col_as_slice(0));
        Ok(())
    }
}

/// The error for a singular `M`.
fn singular_m() -> NumericsError {
    NumericsError::Singular { what: "global frictional contact matrix M" }
}

/// `|M_ij − M_ji| ≤ 1e-14 · max|M|` for every entry.
fn dense_is_symmetric(m: &Mat<f64>) -> bool {
    let n = m.nrows();
    let scale = (0..n).flat_map(|j| m.col_as_slice(j).iter()).fold(0.0f64, |a, v| a.max(v.abs()));
    let tol = 1e-14 * scale;
    (0..n).all(|j| (j + 1..n).all(|i| (m[(i, j)] - m[(j, i)]).abs() <= tol))
}

/// As [`dense_is_symmetric`] on a sprs matrix (entries not stored are zeros), in
/// `O(nnz log nnz)`.
fn sparse_is_symmetric(m: &sprs::CsMat<f64>) -> bool {
    let scale = m.data().iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let tol = 1e-14 * scale;
    m.iter().all(|(&v, (i, j))| (v - m.get(j, i).copied().unwrap_or(0.0)).abs() <= tol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::uniform_block_ends;

    fn residual(m: &Mat<f64>, x: &[f64], b: &[f64]) -> f64 {
        (0..b.len())
            .map(|i| (0..b.len()).map(|j| m[(i, j)] * x[j]).sum::<f64>() - b[i])
            .map(f64::abs)
            .fold(0.0, f64::max)
    }

    #[test]
    fn chooses_cholesky_for_spd_and_lu_otherwise() {
        let spd = faer::mat![[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]];
        let nonsym = faer::mat![[4.0, 2.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]];
        let indefinite = faer::mat![[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 3.0]];
        let b = [1.0, -2.0, 0.5];
        for (m, dense_kind, sparse_kind) in [
            (&spd, FactorizationKind::DenseCholesky, FactorizationKind::SparseCholesky),
            (&nonsym, FactorizationKind::DenseLu, FactorizationKind::SparseLu),
            (&indefinite, FactorizationKind::DenseLu, FactorizationKind::SparseLu),
        ] {
            let dense = NumericsMatrix::Dense(m.clone());
            let ends = uniform_block_ends(3, 1).expect("positive block size");
            let sbm = NumericsMatrix::SparseBlock(dense.to_sparse_block(&ends, &ends).expect("valid structure"));
            let sparse = NumericsMatrix::Sparse(dense.to_csc());
            for (a, kind) in [(&dense, dense_kind), (&sbm, sparse_kind), (&sparse, sparse_kind)] {
                let f = MassFactorization::new(a).expect("nonsingular");
                assert_eq!(f.kind(), kind);
                let mut x = b;
                f.solve_in_place(&mut x).expect("sizes match");
                assert!(residual(m, &x, &b) <= 1e-14, "{kind:?}: {x:?}");
            }
        }
    }

    #[test]
    fn singular_and_bad_matrices_are_typed_errors() {
        let singular = faer::mat![[1.0, 2.0], [2.0, 4.0]];
        let dense = NumericsMatrix::Dense(singular);
        assert!(matches!(MassFactorization::new(&dense), Err(NumericsError::Singular { .. })));
        let zero_col = NumericsMatrix::Dense(faer::mat![[1.0, 0.0], [0.0, 0.0]]);
        assert!(matches!(MassFactorization::new(&zero_col), Err(NumericsError::Singular { .. })));
        let sparse = NumericsMatrix::Sparse(zero_col.to_csc());
        assert!(matches!(MassFactorization::new(&sparse), Err(NumericsError::Singular { .. })));
        let rect = NumericsMatrix::Dense(Mat::zeros(2, 3));
        assert!(matches!(MassFactorization::new(&rect), Err(NumericsError::DimensionMismatch { .. })));
        let f = MassFactorization::new(&NumericsMatrix::Dense(faer::mat![[2.0]])).expect("nonsingular");
        assert!(matches!(f.solve_in_place(&mut [1.0, 2.0]), Err(NumericsError::DimensionMismatch { .. })));
    }
}
