//! Matrices of the numerics crate: dense (faer), sparse-block (block-CSR of small dense blocks,
//! Siconos' SBM) and general sparse (sprs CSR/CSC), behind one enum [`NumericsMatrix`].

mod convert;
pub(crate) mod entries;
mod product;
mod sparse_block;
#[cfg(test)]
mod tests;

pub use sparse_block::{DuplicateBlocks, SparseBlockMatrix};

use faer::Mat;
use sprs::CsMat;

use crate::NumericsError;

/// Whether every value of `v` is finite (neither NaN nor infinite).
///
/// The same answer as `v.iter().all(|x| x.is_finite())`, computed without an early exit so that
/// it vectorizes: `x · 0` is `±0` for a finite `x` and NaN otherwise, and a sum holding a NaN
/// stays NaN. The scan of a large `W` then runs at the memory's speed.
pub fn all_finite(v: &[f64]) -> bool {
    const LANES: usize = 8;
    let mut acc = [0.0f64; LANES];
    let chunks = v.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            *a += x * 0.0;
        }
    }
    acc.iter().all(|a| !a.is_nan()) && rest.iter().all(|x| x.is_finite())
}

/// How a [`NumericsMatrix`] stores its entries (Siconos' `storageType` 0, 1, 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Dense, column-major (Siconos `NM_DENSE`, 0).
    Dense,
    /// Sparse-block (Siconos `NM_SPARSE_BLOCK`, 1).
    SparseBlock,
    /// General sparse, compressed rows or columns (Siconos `NM_SPARSE`, 2).
    Sparse,
}

impl Storage {
    /// Lowercase name: `dense`, `sparse-block`, `sparse`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Storage::Dense => "dense",
            Storage::SparseBlock => "sparse-block",
            Storage::Sparse => "sparse",
        }
    }
}

/// A matrix in one of the three storages (Siconos' `NumericsMatrix`).
#[derive(Clone, Debug)]
pub enum NumericsMatrix {
    /// Dense storage.
    Dense(Mat<f64>),
    /// Sparse-block storage.
    SparseBlock(SparseBlockMatrix),
    /// General sparse storage (CSR or CSC).
    Sparse(CsMat<f64>),
}

impl NumericsMatrix {
    /// Number of rows.
    pub fn nrows(&self) -> usize {
        match self {
            NumericsMatrix::Dense(m) => m.nrows(),
            NumericsMatrix::SparseBlock(m) => m.nrows(),
            NumericsMatrix::Sparse(m) => m.rows(),
        }
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        match self {
            NumericsMatrix::Dense(m) => m.ncols(),
            NumericsMatrix::SparseBlock(m) => m.ncols(),
            NumericsMatrix::Sparse(m) => m.cols(),
        }
    }

    /// The storage kind.
    pub fn storage(&self) -> Storage {
        match self {
            NumericsMatrix::Dense(_) => Storage::Dense,
            NumericsMatrix::SparseBlock(_) => Storage::SparseBlock,
            NumericsMatrix::Sparse(_) => Storage::Sparse,
        }
    }

    /// Number of stored entries (all entries for dense storage).
    pub fn nnz(&self) -> usize {
        match self {
            NumericsMatrix::Dense(m) => m.nrows() * m.ncols(),
            NumericsMatrix::SparseBlock(m) => m.nnz(),
            NumericsMatrix::Sparse(m) => m.nnz(),
        }
    }

    /// `true` when every stored entry is finite.
    pub fn is_finite(&self) -> bool {
        match self {
            NumericsMatrix::Dense(m) => (0..m.ncols()).all(|j| all_finite(m.col_as_slice(j))),
            NumericsMatrix::SparseBlock(m) => m.is_finite(),
            NumericsMatrix::Sparse(m) => all_finite(m.data()),
        }
    }

    /// `y ← α A x + β y`. With `β = 0`, `y` is overwritten (its old content, even NaN, is ignored).
    ///
    /// Sparse-block matrices use unrolled kernels for 2×2 and 3×3 blocks; CSR matrices are
    /// walked by rows, CSC matrices by columns (Siconos' `NM_gemv`).
    ///
    /// # Panics
    /// When `x.len() != ncols` or `y.len() != nrows` (an internal invariant: callers validate
    /// shapes when problems are built).
    #[track_caller]
    #[doc(alias = "NM_gemv")]
    pub fn gemv(&self, alpha: f64, x: &[f64], beta: f64, y: &mut [f64]) {
        assert_eq!(x.len(), self.ncols(), "gemv: x has the wrong length");
        assert_eq!(y.len(), self.nrows(), "gemv: y has the wrong length");
        scale(beta, y);
        match self {
            NumericsMatrix::Dense(m) => product::dense_gemv(m, alpha, x, y),
            NumericsMatrix::SparseBlock(m) => product::sbm_gemv(m, alpha, x, y),
            NumericsMatrix::Sparse(m) => product::sparse_gemv(m, false, alpha, x, y),
        }
    }

    /// `y ← α Aᵀ x + β y`. With `β = 0`, `y` is overwritten (Siconos' `NM_tgemv`).
    ///
    /// # Panics
    /// When `x.len() != nrows` or `y.len() != ncols`.
    #[track_caller]
    #[doc(alias = "NM_tgemv")]
    pub fn gemv_transpose(&self, alpha: f64, x: &[f64], beta: f64, y: &mut [f64]) {
        assert_eq!(x.len(), self.nrows(), "gemv_transpose: x has the wrong length");
        assert_eq!(y.len(), self.ncols(), "gemv_transpose: y has the wrong length");
        scale(beta, y);
        match self {
            NumericsMatrix::Dense(m) => product::dense_gemv_transpose(m, alpha, x, y),
            NumericsMatrix::SparseBlock(m) => product::sbm_gemv_transpose(m, alpha, x, y),
            NumericsMatrix::Sparse(m) => product::sparse_gemv(m, true, alpha, x, y),
        }
    }

    /// `y = A x` (allocates `y`).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `x.len() != ncols`.
    pub fn mul_vec(&self, x: &[f64]) -> Result<Vec<f64>, NumericsError> {
        if x.len() != self.ncols() {
            return Err(NumericsError::DimensionMismatch {
                what: "matrix-vector product",
                expected: self.ncols(),
                found: x.len(),
            });
        }
        let mut y = vec![0.0; self.nrows()];
        self.gemv(1.0, x, 0.0, &mut y);
        Ok(y)
    }

    /// Entry `(i, j)` (zero where not stored). Cost: O(1) dense, O(log) sparse.
    ///
    /// # Panics
    /// When `(i, j)` is out of range.
    #[track_caller]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        assert!(i < self.nrows() && j < self.ncols(), "entry index out of range");
        match self {
            NumericsMatrix::Dense(m) => m[(i, j)],
            NumericsMatrix::SparseBlock(m) => {
                let bi = m.row_block_ends().partition_point(|&e| e <= i);
                let bj = m.col_block_ends().partition_point(|&e| e <= j);
                match m.find_block(bi, bj) {
                    Some(k) => {
                        let r = i - m.row_block_start(bi);
                        let c = j - m.col_block_start(bj);
                        m.block(k)[r + c * m.row_block_size(bi)]
                    }
                    None => 0.0,
                }
            }
            NumericsMatrix::Sparse(m) => m.get(i, j).copied().unwrap_or(0.0),
        }
    }

    /// The main diagonal `A_ii`, `i < min(nrows, ncols)`.
    pub fn diagonal(&self) -> Vec<f64> {
        let n = self.nrows().min(self.ncols());
        match self {
            NumericsMatrix::Dense(m) => (0..n).map(|i| m[(i, i)]).collect(),
            NumericsMatrix::SparseBlock(m) => {
                let mut d = vec![0.0; n];
                for bi in 0..m.n_block_rows() {
                    let (r0, nr) = (m.row_block_start(bi), m.row_block_size(bi));
                    for k in m.row_blocks(bi) {
                        let bj = m.col_idx()[k];
                        let (c0, nc) = (m.col_block_start(bj), m.col_block_size(bj));
                        // Scalar diagonal entries (i, i) with i in both the row and column ranges.
                        let (lo, hi) = (r0.max(c0), (r0 + nr).min(c0 + nc));
                        if lo < hi {
                            let b = m.block(k);
                            for (i, di) in (lo..hi).zip(&mut d[lo..hi]) {
                                *di = b[(i - r0) + (i - c0) * nr];
                            }
                        }
                    }
                }
                d
            }
            NumericsMatrix::Sparse(m) => (0..n).map(|i| m.get(i, i).copied().unwrap_or(0.0)).collect(),
        }
    }

    /// Writes the matrix, whatever its storage, into the dense column-major buffer `out`
    /// (`out[i + j·nrows] = A_ij`), without allocating: solvers that work on a dense copy reuse
    /// their buffer across solves. Entries not stored are written as zeros; duplicate sparse
    /// entries are summed.
    ///
    /// # Panics
    /// When `out.len() != nrows · ncols`.
    #[track_caller]
    pub fn copy_to_col_major(&self, out: &mut [f64]) {
        let rows = self.nrows();
        assert_eq!(out.len(), rows * self.ncols(), "copy_to_col_major: the buffer has the wrong length");
        match self {
            NumericsMatrix::Dense(d) => {
                for (j, col) in out.chunks_exact_mut(rows.max(1)).enumerate().take(d.ncols()) {
                    col.copy_from_slice(d.col_as_slice(j));
                }
            }
            NumericsMatrix::SparseBlock(s) => {
                out.fill(0.0);
                for bi in 0..s.n_block_rows() {
                    let r0 = s.row_block_start(bi);
                    let nr = s.row_block_size(bi);
                    for k in s.row_ptr()[bi]..s.row_ptr()[bi + 1] {
                        let c0 = s.col_block_start(s.col_idx()[k]);
                        for (c, bcol) in s.block(k).chunks_exact(nr).enumerate() {
                            out[(c0 + c) * rows + r0..][..nr].copy_from_slice(bcol);
                        }
                    }
                }
            }
            NumericsMatrix::Sparse(s) => {
                out.fill(0.0);
                for (&v, (i, j)) in s.iter() {
                    out[j * rows + i] += v;
                }
            }
        }
    }

    /// A dense copy.
    pub fn to_dense(&self) -> Mat<f64> {
        match self {
            NumericsMatrix::Dense(m) => m.clone(),
            NumericsMatrix::SparseBlock(m) => m.to_dense(),
            NumericsMatrix::Sparse(m) => convert::sparse_to_dense(m),
        }
    }

    /// A CSR copy. Dense zeros are dropped; every entry of a stored block is kept (see
    /// [`SparseBlockMatrix::to_csr`]); a CSR matrix is cloned.
    pub fn to_csr(&self) -> CsMat<f64> {
        match self {
            NumericsMatrix::Dense(m) => convert::dense_to_csr(m.as_ref()),
            NumericsMatrix::SparseBlock(m) => m.to_csr(),
            NumericsMatrix::Sparse(m) => m.to_csr(),
        }
    }

    /// A CSC copy, with the conventions of [`NumericsMatrix::to_csr`].
    pub fn to_csc(&self) -> CsMat<f64> {
        match self {
            NumericsMatrix::Dense(m) => convert::dense_to_csc(m),
            NumericsMatrix::SparseBlock(m) => m.to_csc(),
            NumericsMatrix::Sparse(m) => m.to_csc(),
        }
    }

    /// A sparse-block copy with the given block structure (see [`SparseBlockMatrix::from_dense`]
    /// and [`SparseBlockMatrix::from_sparse`] for which blocks are stored). A sparse-block matrix
    /// with this very structure is cloned; with another structure it goes through CSR, so every
    /// new block overlapping an old stored block is stored.
    ///
    /// # Errors
    /// As [`SparseBlockMatrix::from_dense`].
    pub fn to_sparse_block(
        &self,
        row_block_ends: &[usize],
        col_block_ends: &[usize],
    ) -> Result<SparseBlockMatrix, NumericsError> {
        match self {
            NumericsMatrix::Dense(m) => SparseBlockMatrix::from_dense(m.as_ref(), row_block_ends, col_block_ends),
            NumericsMatrix::SparseBlock(m)
                if m.row_block_ends() == row_block_ends && m.col_block_ends() == col_block_ends =>
            {
                Ok(m.clone())
            }
            NumericsMatrix::SparseBlock(m) => {
                SparseBlockMatrix::from_sparse(&m.to_csr(), row_block_ends, col_block_ends)
            }
            NumericsMatrix::Sparse(m) => SparseBlockMatrix::from_sparse(m, row_block_ends, col_block_ends),
        }
    }

    /// A copy in another storage (Siconos' `NM_convert` direction by direction): dense,
    /// sparse (CSR, or the same compression when already sparse) or sparse-block.
    ///
    /// A sparse-block target needs a block structure: it is accepted only when `self` is already
    /// sparse-block (a clone); otherwise use [`NumericsMatrix::to_sparse_block`] with, e.g.,
    /// [`uniform_block_ends`].
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] for a sparse-block target from another storage.
    pub fn to_storage(&self, storage: Storage) -> Result<NumericsMatrix, NumericsError> {
        Ok(match (storage, self) {
            (Storage::Dense, _) => NumericsMatrix::Dense(self.to_dense()),
            (Storage::Sparse, NumericsMatrix::Sparse(m)) => NumericsMatrix::Sparse(m.clone()),
            (Storage::Sparse, _) => NumericsMatrix::Sparse(self.to_csr()),
            (Storage::SparseBlock, NumericsMatrix::SparseBlock(m)) => NumericsMatrix::SparseBlock(m.clone()),
            (Storage::SparseBlock, _) => {
                return Err(NumericsError::InvalidInput {
                    what: "storage conversion",
                    reason: "a sparse-block target needs block ends: use to_sparse_block".into(),
                });
            }
        })
    }

    /// The transpose `Aᵀ`, in the same storage (a CSR matrix becomes the CSC matrix with the
    /// same arrays, and conversely).
    pub fn transpose(&self) -> NumericsMatrix {
        match self {
            NumericsMatrix::Dense(m) => NumericsMatrix::Dense(m.transpose().to_owned()),
            NumericsMatrix::SparseBlock(m) => NumericsMatrix::SparseBlock(m.transpose()),
            NumericsMatrix::Sparse(m) => NumericsMatrix::Sparse(m.transpose_view().to_owned()),
        }
    }

    /// The product `C = A B` (Siconos' `NM_multiply`). The storage of `C`:
    ///
    /// | `A` \ `B`   | dense | sparse-block | sparse |
    /// |--------------|-------|--------------|--------|
    /// | dense        | dense | dense        | dense  |
    /// | sparse-block | dense | sparse-block when `A.col_block_ends() == B.row_block_ends()`, else sparse | sparse |
    /// | sparse       | dense | sparse       | sparse |
    ///
    /// Dense × dense uses faer's sequential kernel; a product with a dense factor is dense and
    /// computed column by column; sparse-block × sparse-block is a block Gustavson product
    /// ([`SparseBlockMatrix::matmul`]); the other sparse products go through sprs (CSR).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `A.ncols() != B.nrows()`.
    #[doc(alias = "NM_multiply")]
    pub fn matmul(&self, other: &NumericsMatrix) -> Result<NumericsMatrix, NumericsError> {
        if self.ncols() != other.nrows() {
            return Err(NumericsError::DimensionMismatch {
                what: "matrix product inner dimension",
                expected: self.ncols(),
                found: other.nrows(),
            });
        }
        use NumericsMatrix::{Dense, Sparse, SparseBlock};
        Ok(match (self, other) {
            (Dense(a), Dense(b)) => Dense(product::dense_matmul(a.as_ref(), b.as_ref())),
            (_, Dense(b)) => {
                let mut c = Mat::zeros(self.nrows(), b.ncols());
                for j in 0..b.ncols() {
                    self.gemv(1.0, b.col_as_slice(j), 0.0, c.col_as_slice_mut(j));
                }
                Dense(c)
            }
            (Dense(a), _) => Dense(product::dense_times_csc(a, &other.to_csc())),
            (SparseBlock(a), SparseBlock(b)) if a.col_block_ends() == b.row_block_ends() => {
                SparseBlock(product::sbm_matmul(a, b))
            }
            (Sparse(a), Sparse(b)) => Sparse(a * b),
            _ => Sparse(&self.to_csr() * &other.to_csr()),
        })
    }

    /// The product `C = Aᵀ B` without forming `Aᵀ` when `B` is dense (one transposed
    /// matrix-vector product per column of `B`); otherwise `Aᵀ` is formed
    /// ([`NumericsMatrix::transpose`]) and multiplied as in [`NumericsMatrix::matmul`].
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `A.nrows() != B.nrows()`.
    pub fn matmul_transpose_left(&self, other: &NumericsMatrix) -> Result<NumericsMatrix, NumericsError> {
        if self.nrows() != other.nrows() {
            return Err(NumericsError::DimensionMismatch {
                what: "transposed matrix product inner dimension",
                expected: self.nrows(),
                found: other.nrows(),
            });
        }
        match (self, other) {
            (NumericsMatrix::Dense(a), NumericsMatrix::Dense(b)) => {
                Ok(NumericsMatrix::Dense(product::dense_matmul(a.transpose(), b.as_ref())))
            }
            (_, NumericsMatrix::Dense(b)) => {
                let mut c = Mat::zeros(self.ncols(), b.ncols());
                for j in 0..b.ncols() {
                    self.gemv_transpose(1.0, b.col_as_slice(j), 0.0, c.col_as_slice_mut(j));
                }
                Ok(NumericsMatrix::Dense(c))
            }
            _ => self.transpose().matmul(other),
        }
    }

    /// The dense `nrows × ncols` submatrix whose top-left entry is `(row_start, col_start)`,
    /// in any storage (zeros where nothing is stored).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when the submatrix leaves the matrix.
    pub fn submatrix(
        &self,
        row_start: usize,
        col_start: usize,
        nrows: usize,
        ncols: usize,
    ) -> Result<Mat<f64>, NumericsError> {
        let row_end =
            row_start.checked_add(nrows).filter(|&e| e <= self.nrows()).ok_or(NumericsError::DimensionMismatch {
                what: "submatrix row end",
                expected: self.nrows(),
                found: row_start.saturating_add(nrows),
            })?;
        let col_end =
            col_start.checked_add(ncols).filter(|&e| e <= self.ncols()).ok_or(NumericsError::DimensionMismatch {
                what: "submatrix column end",
                expected: self.ncols(),
                found: col_start.saturating_add(ncols),
            })?;
        let mut out = Mat::zeros(nrows, ncols);
        match self {
            NumericsMatrix::Dense(m) => {
                out.copy_from(m.as_ref().submatrix(row_start, col_start, nrows, ncols));
            }
            NumericsMatrix::SparseBlock(m) => {
                let first = m.row_block_ends().partition_point(|&e| e <= row_start);
                for bi in first..m.n_block_rows() {
                    let (r0, nr) = (m.row_block_start(bi), m.row_block_size(bi));
                    if r0 >= row_end {
                        break;
                    }
                    let rows = r0.max(row_start)..(r0 + nr).min(row_end);
                    for k in m.row_blocks(bi) {
                        let bj = m.col_idx()[k];
                        let (c0, nc) = (m.col_block_start(bj), m.col_block_size(bj));
                        let b = m.block(k);
                        for c in c0.max(col_start)..(c0 + nc).min(col_end) {
                            for r in rows.clone() {
                                out[(r - row_start, c - col_start)] = b[(r - r0) + (c - c0) * nr];
                            }
                        }
                    }
                }
            }
            NumericsMatrix::Sparse(m) => {
                // Outer range and inner range in the compressed orientation.
                let (outer, inner) = if m.is_csr() {
                    (row_start..row_end, col_start..col_end)
                } else {
                    (col_start..col_end, row_start..row_end)
                };
                for o in outer.clone() {
                    let v = m.outer_view(o).expect("o < outer dimension: checked against the shape");
                    let idx = v.indices();
                    let lo = idx.partition_point(|&i| i < inner.start);
                    let hi = idx.partition_point(|&i| i < inner.end);
                    for (&i, &x) in idx[lo..hi].iter().zip(&v.data()[lo..hi]) {
                        let (r, c) = if m.is_csr() { (o, i) } else { (i, o) };
                        out[(r - row_start, c - col_start)] = x;
                    }
                }
            }
        }
        Ok(out)
    }

    /// The dense `size × size` diagonal block starting at `(start, start)`, in any storage
    /// (Siconos' `NM_extract_diag_block`). For a sparse-block matrix whose block structure has a
    /// block at that place, [`SparseBlockMatrix::diagonal_block`] gives it without a copy.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when the block leaves the matrix.
    #[doc(alias = "NM_extract_diag_block")]
    pub fn diagonal_block(&self, start: usize, size: usize) -> Result<Mat<f64>, NumericsError> {
        self.submatrix(start, start, size, size)
    }
}

impl From<Mat<f64>> for NumericsMatrix {
    fn from(m: Mat<f64>) -> Self {
        NumericsMatrix::Dense(m)
    }
}

impl From<SparseBlockMatrix> for NumericsMatrix {
    fn from(m: SparseBlockMatrix) -> Self {
        NumericsMatrix::SparseBlock(m)
    }
}

impl From<CsMat<f64>> for NumericsMatrix {
    fn from(m: CsMat<f64>) -> Self {
        NumericsMatrix::Sparse(m)
    }
}

/// Block ends of `ceil(n / block_size)` blocks of `block_size` (the last one shorter when
/// `block_size` does not divide `n`): `[b, 2b, ..., n]`. `n = 0` gives no block.
///
/// # Errors
/// [`NumericsError::InvalidInput`] when `block_size == 0`.
pub fn uniform_block_ends(n: usize, block_size: usize) -> Result<Vec<usize>, NumericsError> {
    if block_size == 0 {
        return Err(NumericsError::InvalidInput { what: "block ends", reason: "block size must be positive".into() });
    }
    Ok((1..=n.div_ceil(block_size)).map(|k| (k * block_size).min(n)).collect())
}

/// `y ← a x + y`.
#[inline]
pub(crate) fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// `xᵀ y`.
#[inline]
pub(crate) fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

/// Euclidean norm.
#[inline]
pub(crate) fn norm2(x: &[f64]) -> f64 {
    dot(x, x).sqrt()
}

/// `y ← β y`; `β = 0` overwrites `y` with zeros (so NaN in `y` is forgotten), `β = 1` is a no-op.
#[allow(clippy::float_cmp, reason = "exact 1.0 only skips a scaling that would change nothing")]
fn scale(beta: f64, y: &mut [f64]) {
    if beta == 0.0 {
        y.fill(0.0);
    } else if beta != 1.0 {
        y.iter_mut().for_each(|v| *v *= beta);
    }
}
