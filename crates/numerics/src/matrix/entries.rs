//! Entry-wise traversal of a matrix and its copy into compressed rows or columns, for the
//! Gauss–Seidel solvers that sweep rows of sparse storages (LCP PGS, relay PGS).

use super::NumericsMatrix;

/// Calls `f(i, j, M_ij)` for every entry of `M`: all `n²` entries of a dense matrix, the stored
/// entries otherwise, in row-major order for dense, sparse-block and CSR storage and
/// column-major order for CSC storage (in every case the rows of one column and the columns of
/// one row come in increasing order).
pub(crate) fn for_each_entry(m: &NumericsMatrix, mut f: impl FnMut(usize, usize, f64)) {
    match m {
        NumericsMatrix::Dense(d) => {
            for i in 0..d.nrows() {
                for j in 0..d.ncols() {
                    f(i, j, d[(i, j)]);
                }
            }
        }
        NumericsMatrix::SparseBlock(s) => {
            for bi in 0..s.n_block_rows() {
                let r0 = s.row_block_start(bi);
                let nr = s.row_block_size(bi);
                for k in s.row_blocks(bi) {
                    let bj = s.col_idx()[k];
                    let c0 = s.col_block_start(bj);
                    let b = s.block(k);
                    for r in 0..nr {
                        for c in 0..s.col_block_size(bj) {
                            f(r0 + r, c0 + c, b[r + c * nr]);
                        }
                    }
                }
            }
        }
        NumericsMatrix::Sparse(s) => {
            for (&v, (i, j)) in s.iter() {
                f(i, j, v);
            }
        }
    }
}

/// Copies `M` (`n × n`) into compressed rows (`by_rows`) or compressed columns: `ptr` (`n + 1`),
/// `idx` (the column, resp. row, of each entry) and `values`, by a stable counting sort (each
/// row, resp. column, keeps the order in which [`for_each_entry`] visits it; duplicates stay
/// separate entries); the diagonal is accumulated into `diag` (zeroed first, duplicates summed).
pub(crate) fn fill_compressed(
    m: &NumericsMatrix,
    by_rows: bool,
    ptr: &mut Vec<usize>,
    idx: &mut Vec<usize>,
    values: &mut Vec<f64>,
    diag: &mut [f64],
) {
    let n = if by_rows { m.nrows() } else { m.ncols() };
    let key = |i: usize, j: usize| if by_rows { (i, j) } else { (j, i) };
    ptr.clear();
    ptr.resize(n + 1, 0);
    diag.fill(0.0);
    // First pass: count the entries of each row (column).
    for_each_entry(m, |i, j, v| {
        ptr[key(i, j).0 + 1] += 1;
        if i == j {
            diag[i] += v;
        }
    });
    for k in 0..n {
        ptr[k + 1] += ptr[k];
    }
    let nnz = ptr[n];
    idx.clear();
    idx.resize(nnz, 0);
    values.clear();
    values.resize(nnz, 0.0);
    // Second pass: place the entries; `ptr[k]` serves as the insertion cursor, then is restored.
    for_each_entry(m, |i, j, v| {
        let (major, minor) = key(i, j);
        let p = ptr[major];
        idx[p] = minor;
        values[p] = v;
        ptr[major] += 1;
    });
    for k in (1..=n).rev() {
        ptr[k] = ptr[k - 1];
    }
    ptr[0] = 0;
}
