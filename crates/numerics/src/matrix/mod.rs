//! Matrices of the numerics crate: dense (faer), sparse-block (block-CSR of small dense blocks,
//! Siconos' SBM) and general sparse (sprs CSR/CSC), behind one enum [`NumericsMatrix`].

mod sparse_block;

pub use sparse_block::SparseBlockMatrix;

use faer::Mat;
use sprs::CsMat;

use crate::NumericsError;

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
            NumericsMatrix::Dense(m) => (0..m.ncols()).all(|j| m.col_as_slice(j).iter().all(|v| v.is_finite())),
            NumericsMatrix::SparseBlock(m) => m.values().iter().all(|v| v.is_finite()),
            NumericsMatrix::Sparse(m) => m.data().iter().all(|v| v.is_finite()),
        }
    }

    /// `y ← α A x + β y`. With `β = 0`, `y` is overwritten (its old content, even NaN, is ignored).
    ///
    /// # Panics
    /// When `x.len() != ncols` or `y.len() != nrows` (an internal invariant: callers validate
    /// shapes when problems are built).
    #[track_caller]
    pub fn gemv(&self, alpha: f64, x: &[f64], beta: f64, y: &mut [f64]) {
        assert_eq!(x.len(), self.ncols(), "gemv: x has the wrong length");
        assert_eq!(y.len(), self.nrows(), "gemv: y has the wrong length");
        scale(beta, y);
        match self {
            NumericsMatrix::Dense(m) => {
                for (j, &xj) in x.iter().enumerate() {
                    let a = alpha * xj;
                    if a != 0.0 {
                        axpy(a, m.col_as_slice(j), y);
                    }
                }
            }
            NumericsMatrix::SparseBlock(m) => sbm_gemv(m, alpha, x, y),
            NumericsMatrix::Sparse(m) => {
                let outer = m.outer_dims();
                if m.is_csr() {
                    for (i, yi) in y.iter_mut().enumerate().take(outer) {
                        let row = m.outer_view(i).expect("row index in range");
                        let mut s = 0.0;
                        for (j, &v) in row.iter() {
                            s += v * x[j];
                        }
                        *yi += alpha * s;
                    }
                } else {
                    for (j, &xj) in x.iter().enumerate().take(outer) {
                        let a = alpha * xj;
                        if a != 0.0 {
                            let col = m.outer_view(j).expect("column index in range");
                            for (i, &v) in col.iter() {
                                y[i] += a * v;
                            }
                        }
                    }
                }
            }
        }
    }

    /// `y ← α Aᵀ x + β y`. With `β = 0`, `y` is overwritten.
    ///
    /// # Panics
    /// When `x.len() != nrows` or `y.len() != ncols`.
    #[track_caller]
    pub fn gemv_transpose(&self, alpha: f64, x: &[f64], beta: f64, y: &mut [f64]) {
        assert_eq!(x.len(), self.nrows(), "gemv_transpose: x has the wrong length");
        assert_eq!(y.len(), self.ncols(), "gemv_transpose: y has the wrong length");
        scale(beta, y);
        match self {
            NumericsMatrix::Dense(m) => {
                for (j, yj) in y.iter_mut().enumerate() {
                    *yj += alpha * dot(m.col_as_slice(j), x);
                }
            }
            NumericsMatrix::SparseBlock(m) => sbm_gemv_transpose(m, alpha, x, y),
            NumericsMatrix::Sparse(m) => {
                let t = m.transpose_view();
                let outer = t.outer_dims();
                if t.is_csr() {
                    for (i, yi) in y.iter_mut().enumerate().take(outer) {
                        let row = t.outer_view(i).expect("row index in range");
                        let mut s = 0.0;
                        for (j, &v) in row.iter() {
                            s += v * x[j];
                        }
                        *yi += alpha * s;
                    }
                } else {
                    for (j, &xj) in x.iter().enumerate().take(outer) {
                        let a = alpha * xj;
                        if a != 0.0 {
                            let col = t.outer_view(j).expect("column index in range");
                            for (i, &v) in col.iter() {
                                y[i] += a * v;
                            }
                        }
                    }
                }
            }
        }
    }

    /// `y = A x` (allocates `y`).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `x.len() != ncols`.
    pub fn mul_vec(&self, x: &[f64]) -> Result<Vec<f64>, NumericsError> {
        if x.len() != self.ncols() {
            return Err(NumericsError::DimensionMismatch { what: "matrix-vector product", expected: self.ncols(), found: x.len() });
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
            NumericsMatrix::SparseBlock(_) | NumericsMatrix::Sparse(_) => (0..n).map(|i| self.get(i, i)).collect(),
        }
    }

    /// A dense copy.
    pub fn to_dense(&self) -> Mat<f64> {
        match self {
            NumericsMatrix::Dense(m) => m.clone(),
            NumericsMatrix::SparseBlock(m) => {
                let mut d = Mat::<f64>::zeros(m.nrows(), m.ncols());
                for bi in 0..m.n_block_rows() {
                    let r0 = m.row_block_start(bi);
                    let nr = m.row_block_size(bi);
                    for k in m.row_ptr()[bi]..m.row_ptr()[bi + 1] {
                        let bj = m.col_idx()[k];
                        let c0 = m.col_block_start(bj);
                        let b = m.block(k);
                        for c in 0..m.col_block_size(bj) {
                            for r in 0..nr {
                                d[(r0 + r, c0 + c)] = b[r + c * nr];
                            }
                        }
                    }
                }
                d
            }
            NumericsMatrix::Sparse(m) => {
                let mut d = Mat::<f64>::zeros(m.rows(), m.cols());
                for (&v, (i, j)) in m.iter() {
                    d[(i, j)] += v;
                }
                d
            }
        }
    }
}

fn sbm_gemv(m: &SparseBlockMatrix, alpha: f64, x: &[f64], y: &mut [f64]) {
    for bi in 0..m.n_block_rows() {
        let r0 = m.row_block_start(bi);
        let nr = m.row_block_size(bi);
        let yb = &mut y[r0..r0 + nr];
        for k in m.row_ptr()[bi]..m.row_ptr()[bi + 1] {
            let bj = m.col_idx()[k];
            let c0 = m.col_block_start(bj);
            let nc = m.col_block_size(bj);
            let b = m.block(k);
            for c in 0..nc {
                let a = alpha * x[c0 + c];
                axpy(a, &b[c * nr..(c + 1) * nr], yb);
            }
        }
    }
}

fn sbm_gemv_transpose(m: &SparseBlockMatrix, alpha: f64, x: &[f64], y: &mut [f64]) {
    for bi in 0..m.n_block_rows() {
        let r0 = m.row_block_start(bi);
        let nr = m.row_block_size(bi);
        let xb = &x[r0..r0 + nr];
        for k in m.row_ptr()[bi]..m.row_ptr()[bi + 1] {
            let bj = m.col_idx()[k];
            let c0 = m.col_block_start(bj);
            let b = m.block(k);
            for c in 0..m.col_block_size(bj) {
                y[c0 + c] += alpha * dot(&b[c * nr..(c + 1) * nr], xb);
            }
        }
    }
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

fn scale(beta: f64, y: &mut [f64]) {
    if beta == 0.0 {
        y.fill(0.0);
    } else if beta != 1.0 {
        y.iter_mut().for_each(|v| *v *= beta);
    }
}
