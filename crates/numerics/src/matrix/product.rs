//! Product kernels: matrix × vector for each storage (with unrolled 2×2 and 3×3 block kernels for
//! sparse-block matrices, the contact blocks of FC2D and FC3D), and matrix × matrix.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};
use sprs::CsMat;

use super::sparse_block::SparseBlockMatrix;
use super::{axpy, dot};

/// `y ← y + α B x` for a small dense block `B` stored column-major, `y.len() × x.len()`.
///
/// The 2×2 and 3×3 cases (FC2D and FC3D contact blocks) are unrolled.
#[inline]
pub(crate) fn block_gemv_alpha(alpha: f64, b: &[f64], x: &[f64], y: &mut [f64]) {
    let nr = y.len();
    debug_assert_eq!(b.len(), nr * x.len());
    match (nr, x.len()) {
        (3, 3) => {
            let (x0, x1, x2) = (x[0], x[1], x[2]);
            y[0] += alpha * (b[0] * x0 + b[3] * x1 + b[6] * x2);
            y[1] += alpha * (b[1] * x0 + b[4] * x1 + b[7] * x2);
            y[2] += alpha * (b[2] * x0 + b[5] * x1 + b[8] * x2);
        }
        (2, 2) => {
            let (x0, x1) = (x[0], x[1]);
            y[0] += alpha * (b[0] * x0 + b[2] * x1);
            y[1] += alpha * (b[1] * x0 + b[3] * x1);
        }
        (1, 1) => y[0] += alpha * b[0] * x[0],
        _ => {
            for (c, &xc) in x.iter().enumerate() {
                axpy(alpha * xc, &b[c * nr..(c + 1) * nr], y);
            }
        }
    }
}

/// `y ← y + B x` for a small dense block (see [`block_gemv_alpha`]).
#[inline]
pub(crate) fn block_gemv(b: &[f64], x: &[f64], y: &mut [f64]) {
    block_gemv_alpha(1.0, b, x, y);
}

/// `y ← y + α Bᵀ x` for a small dense block `B` stored column-major, `x.len() × y.len()`.
#[inline]
fn block_gemv_transpose_alpha(alpha: f64, b: &[f64], x: &[f64], y: &mut [f64]) {
    let nr = x.len();
    debug_assert_eq!(b.len(), nr * y.len());
    match (nr, y.len()) {
        (3, 3) => {
            let (x0, x1, x2) = (x[0], x[1], x[2]);
            y[0] += alpha * (b[0] * x0 + b[1] * x1 + b[2] * x2);
            y[1] += alpha * (b[3] * x0 + b[4] * x1 + b[5] * x2);
            y[2] += alpha * (b[6] * x0 + b[7] * x1 + b[8] * x2);
        }
        (2, 2) => {
            let (x0, x1) = (x[0], x[1]);
            y[0] += alpha * (b[0] * x0 + b[1] * x1);
            y[1] += alpha * (b[2] * x0 + b[3] * x1);
        }
        _ => {
            for (c, yc) in y.iter_mut().enumerate() {
                *yc += alpha * dot(&b[c * nr..(c + 1) * nr], x);
            }
        }
    }
}

/// `y ← y + α A x` for a sparse-block `A` (`y` already scaled by β).
///
/// Matrices whose blocks are all 2×2 or all 3×3 use [`sbm_gemv_uniform`]; the others walk each
/// block row with [`block_gemv_alpha`].
pub(crate) fn sbm_gemv(m: &SparseBlockMatrix, alpha: f64, x: &[f64], y: &mut [f64]) {
    match m.uniform_block_size() {
        Some(1) => sbm_gemv_uniform::<1, 1>(m, alpha, x, y),
        Some(2) => sbm_gemv_uniform::<2, 4>(m, alpha, x, y),
        Some(3) => sbm_gemv_uniform::<3, 9>(m, alpha, x, y),
        _ => {
            for bi in 0..m.n_block_rows() {
                let r0 = m.row_block_start(bi);
                let yb = &mut y[r0..r0 + m.row_block_size(bi)];
                for k in m.row_blocks(bi) {
                    let bj = m.col_idx()[k];
                    let c0 = m.col_block_start(bj);
                    block_gemv_alpha(alpha, m.block(k), &x[c0..c0 + m.col_block_size(bj)], yb);
                }
            }
        }
    }
}

/// `y ← y + α Aᵀ x` for a sparse-block `A` (`y` already scaled by β).
pub(crate) fn sbm_gemv_transpose(m: &SparseBlockMatrix, alpha: f64, x: &[f64], y: &mut [f64]) {
    match m.uniform_block_size() {
        Some(1) => sbm_gemv_transpose_uniform::<1, 1>(m, alpha, x, y),
        Some(2) => sbm_gemv_transpose_uniform::<2, 4>(m, alpha, x, y),
        Some(3) => sbm_gemv_transpose_uniform::<3, 9>(m, alpha, x, y),
        _ => {
            for bi in 0..m.n_block_rows() {
                let r0 = m.row_block_start(bi);
                let xb = &x[r0..r0 + m.row_block_size(bi)];
                for k in m.row_blocks(bi) {
                    let bj = m.col_idx()[k];
                    let c0 = m.col_block_start(bj);
                    block_gemv_transpose_alpha(alpha, m.block(k), xb, &mut y[c0..c0 + m.col_block_size(bj)]);
                }
            }
        }
    }
}

/// `y ← y + α A x` when every block is `B × B` (`BB = B²`): the blocks of a block row are
/// contiguous in `values`, the sum over a block row is kept in `B` registers and written once.
fn sbm_gemv_uniform<const B: usize, const BB: usize>(m: &SparseBlockMatrix, alpha: f64, x: &[f64], y: &mut [f64]) {
    debug_assert_eq!(B * B, BB);
    let (values, col_idx, row_ptr) = (m.values(), m.col_idx(), m.row_ptr());
    for (bi, yb) in y.chunks_exact_mut(B).enumerate() {
        let (k0, k1) = (row_ptr[bi], row_ptr[bi + 1]);
        let mut acc = [0.0; B];
        for (b, &j) in values[BB * k0..BB * k1].chunks_exact(BB).zip(&col_idx[k0..k1]) {
            let xj = &x[B * j..B * j + B];
            for c in 0..B {
                for r in 0..B {
                    acc[r] += b[r + c * B] * xj[c];
                }
            }
        }
        for (yr, a) in yb.iter_mut().zip(acc) {
            *yr += alpha * a;
        }
    }
}

/// `y ← y + α Aᵀ x` when every block is `B × B` (`BB = B²`).
fn sbm_gemv_transpose_uniform<const B: usize, const BB: usize>(
    m: &SparseBlockMatrix,
    alpha: f64,
    x: &[f64],
    y: &mut [f64],
) {
    debug_assert_eq!(B * B, BB);
    let (values, col_idx, row_ptr) = (m.values(), m.col_idx(), m.row_ptr());
    for (bi, xb) in x.chunks_exact(B).enumerate() {
        let (k0, k1) = (row_ptr[bi], row_ptr[bi + 1]);
        let mut ax = [0.0; B];
        for (a, &v) in ax.iter_mut().zip(xb) {
            *a = alpha * v;
        }
        for (b, &j) in values[BB * k0..BB * k1].chunks_exact(BB).zip(&col_idx[k0..k1]) {
            let yj = &mut y[B * j..B * j + B];
            for c in 0..B {
                let mut s = 0.0;
                for r in 0..B {
                    s += b[r + c * B] * ax[r];
                }
                yj[c] += s;
            }
        }
    }
}

/// `y ← y + α A x` (`transpose == false`) or `y ← y + α Aᵀ x` (`transpose == true`) for a
/// sprs matrix in either storage (`y` already scaled by β).
///
/// A CSR `A` (or a CSC `A` transposed) is walked row by row with dot products; a CSC `A` (or a
/// CSR `A` transposed) column by column with axpys.
pub(crate) fn sparse_gemv(m: &CsMat<f64>, transpose: bool, alpha: f64, x: &[f64], y: &mut [f64]) {
    // The outer vectors are rows of A for CSR, columns of A for CSC.
    let dots = m.is_csr() != transpose;
    for (outer, vec) in m.outer_iterator().enumerate() {
        if dots {
            let s: f64 = vec.indices().iter().zip(vec.data()).map(|(&j, &v)| v * x[j]).sum();
            y[outer] += alpha * s;
        } else {
            let a = alpha * x[outer];
            if a != 0.0 {
                for (&i, &v) in vec.indices().iter().zip(vec.data()) {
                    y[i] += a * v;
                }
            }
        }
    }
}

/// `y ← y + α A x` for a dense `A` (`y` already scaled by β), column by column.
pub(crate) fn dense_gemv(m: &Mat<f64>, alpha: f64, x: &[f64], y: &mut [f64]) {
    for (j, &xj) in x.iter().enumerate() {
        let a = alpha * xj;
        if a != 0.0 {
            axpy(a, m.col_as_slice(j), y);
        }
    }
}

/// `y ← y + α Aᵀ x` for a dense `A` (`y` already scaled by β): one dot product per column.
pub(crate) fn dense_gemv_transpose(m: &Mat<f64>, alpha: f64, x: &[f64], y: &mut [f64]) {
    for (j, yj) in y.iter_mut().enumerate() {
        *yj += alpha * dot(m.col_as_slice(j), x);
    }
}

/// `C = A B` for dense matrices, through faer's sequential (deterministic) kernel.
pub(crate) fn dense_matmul(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    let mut c = Mat::zeros(a.nrows(), b.ncols());
    matmul(c.as_mut(), Accum::Replace, a, b, 1.0, Par::Seq);
    c
}

/// `C = A B` for a dense `A` and a sparse `B` given in CSC storage: column `j` of `C` is
/// `Σ_k B_kj A[:, k]`.
pub(crate) fn dense_times_csc(a: &Mat<f64>, b: &CsMat<f64>) -> Mat<f64> {
    debug_assert!(b.is_csc());
    let mut c = Mat::zeros(a.nrows(), b.cols());
    for (j, col) in b.outer_iterator().enumerate() {
        let cj = c.col_as_slice_mut(j);
        for (&k, &v) in col.indices().iter().zip(col.data()) {
            axpy(v, a.col_as_slice(k), cj);
        }
    }
    c
}

/// `C = A B` for two sparse-block matrices with conforming inner block structures (checked by
/// the caller): a Gustavson product over blocks. For each block row `i` of `A`, the products
/// `A_ik B_kj` are accumulated into a buffer indexed by the block columns `j` met so far, which
/// are then sorted and appended.
pub(crate) fn sbm_matmul(a: &SparseBlockMatrix, b: &SparseBlockMatrix) -> SparseBlockMatrix {
    let nbr = a.n_block_rows();
    let nbc = b.n_block_cols();
    // position[j]: index into `touched` of block column j in the current row, or usize::MAX.
    let mut position = vec![usize::MAX; nbc];
    let mut touched: Vec<(usize, usize)> = Vec::new(); // (block column, offset in `acc`)
    let mut acc: Vec<f64> = Vec::new();
    let mut row_ptr = Vec::with_capacity(nbr + 1);
    row_ptr.push(0);
    let mut col_idx = Vec::new();
    let mut block_offsets = vec![0usize];
    let mut values = Vec::new();
    for i in 0..nbr {
        let nr = a.row_block_size(i);
        touched.clear();
        acc.clear();
        for ka in a.row_blocks(i) {
            let k = a.col_idx()[ka];
            let nk = a.col_block_size(k);
            let ab = a.block(ka);
            for kb in b.row_blocks(k) {
                let j = b.col_idx()[kb];
                let nc = b.col_block_size(j);
                if position[j] == usize::MAX {
                    position[j] = touched.len();
                    touched.push((j, acc.len()));
                    acc.resize(acc.len() + nr * nc, 0.0);
                }
                let offset = touched[position[j]].1;
                let bb = b.block(kb);
                // C_ij (nr × nc) += A_ik (nr × nk) B_kj (nk × nc), all column-major.
                let cb = &mut acc[offset..offset + nr * nc];
                for c in 0..nc {
                    let cc = &mut cb[c * nr..(c + 1) * nr];
                    for (l, &blc) in bb[c * nk..(c + 1) * nk].iter().enumerate() {
                        axpy(blc, &ab[l * nr..(l + 1) * nr], cc);
                    }
                }
            }
        }
        touched.sort_unstable_by_key(|&(j, _)| j);
        for &(j, offset) in &touched {
            let size = nr * b.col_block_size(j);
            values.extend_from_slice(&acc[offset..offset + size]);
            block_offsets.push(values.len());
            col_idx.push(j);
            position[j] = usize::MAX;
        }
        row_ptr.push(col_idx.len());
    }
    SparseBlockMatrix::from_validated_parts(
        a.row_block_ends().to_vec(),
        b.col_block_ends().to_vec(),
        row_ptr,
        col_idx,
        block_offsets,
        values,
        false,
    )
}
