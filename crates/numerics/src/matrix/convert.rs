//! Conversions between the storages: dense (faer), sparse-block and general sparse (sprs CSR/CSC).
//!
//! Conventions (so that round trips are exact):
//! * dense → sparse-block drops the all-zero blocks; dense → CSR/CSC drops the zero entries;
//! * sprs → sparse-block stores every block holding at least one stored entry (even a stored
//!   zero), and fills the rest of that block with zeros;
//! * sparse-block → CSR/CSC stores every entry of every stored block (even zeros), so that
//!   sparse-block → CSR → sparse-block gives back the same structure and values.

use faer::{Mat, MatRef};
use sprs::CsMat;

use super::sparse_block::{SparseBlockMatrix, check_ends};
use crate::NumericsError;

impl SparseBlockMatrix {
    /// The sparse-block matrix with the given block structure holding the entries of a dense
    /// matrix; the blocks whose entries are all zero are not stored.
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] when the ends are not strictly increasing and positive;
    /// [`NumericsError::DimensionMismatch`] when the last row (column) end is not the number of
    /// rows (columns) of `m`; [`NumericsError::NonFinite`] when a kept entry is NaN or infinite.
    pub fn from_dense(
        m: MatRef<'_, f64>,
        row_block_ends: &[usize],
        col_block_ends: &[usize],
    ) -> Result<SparseBlockMatrix, NumericsError> {
        check_structure(m.nrows(), m.ncols(), row_block_ends, col_block_ends)?;
        let mut row_ptr = vec![0usize];
        let mut col_idx = Vec::new();
        let mut block_offsets = vec![0usize];
        let mut values = Vec::new();
        let mut r0 = 0;
        for &r1 in row_block_ends {
            let mut c0 = 0;
            for (bj, &c1) in col_block_ends.iter().enumerate() {
                let nonzero = (c0..c1).any(|c| (r0..r1).any(|r| m[(r, c)] != 0.0));
                if nonzero {
                    for c in c0..c1 {
                        values.extend((r0..r1).map(|r| m[(r, c)]));
                    }
                    block_offsets.push(values.len());
                    col_idx.push(bj);
                }
                c0 = c1;
            }
            row_ptr.push(col_idx.len());
            r0 = r1;
        }
        finish(row_block_ends, col_block_ends, row_ptr, col_idx, block_offsets, values)
    }

    /// The sparse-block matrix with the given block structure holding the entries of a sprs
    /// matrix (CSR or CSC). A block is stored when it holds at least one stored entry of `m`
    /// (Siconos' `SBM_from_csparse` does this for a uniform block size, and may drop zeros);
    /// its other entries are zero.
    ///
    /// # Errors
    /// As [`SparseBlockMatrix::from_dense`].
    pub fn from_sparse(
        m: &CsMat<f64>,
        row_block_ends: &[usize],
        col_block_ends: &[usize],
    ) -> Result<SparseBlockMatrix, NumericsError> {
        check_structure(m.rows(), m.cols(), row_block_ends, col_block_ends)?;
        let csr_owned;
        let csr = if m.is_csr() {
            m
        } else {
            csr_owned = m.to_csr();
            &csr_owned
        };
        let nbc = col_block_ends.len();
        let block_col = |j: usize| col_block_ends.partition_point(|&e| e <= j);
        let col_start = |bj: usize| if bj == 0 { 0 } else { col_block_ends[bj - 1] };
        // offset[bj]: where block (bi, bj) starts in `values` for the current block row.
        let mut offset = vec![usize::MAX; nbc];
        let mut touched = Vec::new();
        let mut row_ptr = vec![0usize];
        let mut col_idx = Vec::new();
        let mut block_offsets = vec![0usize];
        let mut values = Vec::new();
        let mut r0 = 0;
        for &r1 in row_block_ends {
            let nr = r1 - r0;
            // First pass: which block columns have a stored entry in these rows.
            touched.clear();
            for r in r0..r1 {
                let row = csr.outer_view(r).expect("r < nrows: row ends checked against the shape");
                for &j in row.indices() {
                    let bj = block_col(j);
                    if offset[bj] == usize::MAX {
                        offset[bj] = 0;
                        touched.push(bj);
                    }
                }
            }
            touched.sort_unstable();
            for &bj in &touched {
                offset[bj] = values.len();
                let nc = col_block_ends[bj] - col_start(bj);
                values.resize(values.len() + nr * nc, 0.0);
                block_offsets.push(values.len());
                col_idx.push(bj);
            }
            // Second pass: scatter the entries into their (column-major) blocks.
            for r in r0..r1 {
                let row = csr.outer_view(r).expect("r < nrows: row ends checked against the shape");
                for (&j, &v) in row.indices().iter().zip(row.data()) {
                    let bj = block_col(j);
                    values[offset[bj] + (r - r0) + (j - col_start(bj)) * nr] = v;
                }
            }
            for &bj in &touched {
                offset[bj] = usize::MAX;
            }
            row_ptr.push(col_idx.len());
            r0 = r1;
        }
        finish(row_block_ends, col_block_ends, row_ptr, col_idx, block_offsets, values)
    }

    /// A CSR copy holding every entry of every stored block (zeros included).
    pub fn to_csr(&self) -> CsMat<f64> {
        let (indptr, indices, data) = self.csr_arrays();
        // `CsMat::new` panics on an invalid structure; these arrays are valid by construction
        // (row pointer from 0 to nnz, column indices in range and sorted within each row).
        CsMat::new((self.nrows(), self.ncols()), indptr, indices, data)
    }

    /// A CSC copy holding every entry of every stored block (zeros included).
    pub fn to_csc(&self) -> CsMat<f64> {
        // The CSR arrays of Aᵀ are the CSC arrays of A.
        let (indptr, indices, data) = self.transpose().csr_arrays();
        // Valid by construction, as in `to_csr`.
        CsMat::new_csc((self.nrows(), self.ncols()), indptr, indices, data)
    }

    /// The CSR arrays (row pointer, column indices, values) of every entry of every stored block.
    /// Column indices are sorted within each row because block columns are.
    fn csr_arrays(&self) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        let mut indptr = Vec::with_capacity(self.nrows() + 1);
        indptr.push(0);
        let mut indices = Vec::with_capacity(self.nnz());
        let mut data = Vec::with_capacity(self.nnz());
        for bi in 0..self.n_block_rows() {
            let nr = self.row_block_size(bi);
            for r in 0..nr {
                for k in self.row_blocks(bi) {
                    let bj = self.col_idx()[k];
                    let c0 = self.col_block_start(bj);
                    let b = self.block(k);
                    for c in 0..self.col_block_size(bj) {
                        indices.push(c0 + c);
                        data.push(b[r + c * nr]);
                    }
                }
                indptr.push(indices.len());
            }
        }
        (indptr, indices, data)
    }
}

/// A CSR copy of a dense matrix, without its zero entries.
pub(crate) fn dense_to_csr(m: MatRef<'_, f64>) -> CsMat<f64> {
    let mut indptr = Vec::with_capacity(m.nrows() + 1);
    indptr.push(0);
    let mut indices = Vec::new();
    let mut data = Vec::new();
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            let v = m[(i, j)];
            if v != 0.0 {
                indices.push(j);
                data.push(v);
            }
        }
        indptr.push(indices.len());
    }
    // Valid by construction: sorted, in-range indices (`CsMat::new` would panic otherwise).
    CsMat::new((m.nrows(), m.ncols()), indptr, indices, data)
}

/// A CSC copy of a dense matrix, without its zero entries.
pub(crate) fn dense_to_csc(m: &Mat<f64>) -> CsMat<f64> {
    let mut indptr = Vec::with_capacity(m.ncols() + 1);
    indptr.push(0);
    let mut indices = Vec::new();
    let mut data = Vec::new();
    for j in 0..m.ncols() {
        for (i, &v) in m.col_as_slice(j).iter().enumerate() {
            if v != 0.0 {
                indices.push(i);
                data.push(v);
            }
        }
        indptr.push(indices.len());
    }
    // Valid by construction: sorted, in-range indices (`CsMat::new_csc` would panic otherwise).
    CsMat::new_csc((m.nrows(), m.ncols()), indptr, indices, data)
}

/// A dense copy of a sprs matrix (either storage).
pub(crate) fn sparse_to_dense(m: &CsMat<f64>) -> Mat<f64> {
    let mut d = Mat::<f64>::zeros(m.rows(), m.cols());
    for (&v, (i, j)) in m.iter() {
        d[(i, j)] += v;
    }
    d
}

/// Checks block ends against the shape of the matrix being converted.
fn check_structure(
    nrows: usize,
    ncols: usize,
    row_block_ends: &[usize],
    col_block_ends: &[usize],
) -> Result<(), NumericsError> {
    check_ends(row_block_ends, "row")?;
    check_ends(col_block_ends, "column")?;
    let last = |ends: &[usize]| ends.last().copied().unwrap_or(0);
    if last(row_block_ends) != nrows {
        return Err(NumericsError::DimensionMismatch {
            what: "last row block end",
            expected: nrows,
            found: last(row_block_ends),
        });
    }
    if last(col_block_ends) != ncols {
        return Err(NumericsError::DimensionMismatch {
            what: "last column block end",
            expected: ncols,
            found: last(col_block_ends),
        });
    }
    Ok(())
}

fn finish(
    row_block_ends: &[usize],
    col_block_ends: &[usize],
    row_ptr: Vec<usize>,
    col_idx: Vec<usize>,
    block_offsets: Vec<usize>,
    values: Vec<f64>,
) -> Result<SparseBlockMatrix, NumericsError> {
    if !super::all_finite(&values) {
        return Err(NumericsError::NonFinite { what: "sparse-block matrix" });
    }
    Ok(SparseBlockMatrix::from_validated_parts(
        row_block_ends.to_vec(),
        col_block_ends.to_vec(),
        row_ptr,
        col_idx,
        block_offsets,
        values,
        true,
    ))
}
