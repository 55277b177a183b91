//! Sparse-block matrices: a block-CSR of small dense blocks (Siconos' `SparseBlockStructuredMatrix`).

use crate::NumericsError;

/// A block-CSR matrix whose nonzero blocks are small dense matrices (Siconos' SBM).
///
/// Block rows and block columns may have different sizes. Block row `i` spans the scalar rows
/// `row_block_start(i) .. row_block_ends[i]`; likewise for columns. The nonzero blocks of block
/// row `i` are `row_ptr[i] .. row_ptr[i + 1]`, with block-column indices `col_idx[..]` strictly
/// increasing within a row. Each block is stored column-major (as Siconos does) at
/// `values[block_offsets[k] .. block_offsets[k + 1]]`.
///
/// Invariants (checked by [`SparseBlockMatrix::new`]): ends strictly increasing and positive,
/// `row_ptr` non-decreasing from 0 to `nnz_blocks`, column indices in range and sorted per row,
/// `values.len()` equal to the sum of the blocks' sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseBlockMatrix {
    row_block_ends: Vec<usize>,
    col_block_ends: Vec<usize>,
    row_ptr: Vec<usize>,
    col_idx: Vec<usize>,
    block_offsets: Vec<usize>,
    values: Vec<f64>,
}

impl SparseBlockMatrix {
    /// Builds a sparse-block matrix from its block structure and the blocks' values
    /// (concatenated, each block column-major), checking every invariant.
    ///
    /// `row_block_ends[i]` is the scalar index one past the last row of block row `i`
    /// (Siconos' `blocksize0`); `col_block_ends` likewise for columns (`blocksize1`);
    /// `row_ptr` and `col_idx` are Siconos' `index1_data` and `index2_data`.
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] when the structure is inconsistent,
    /// [`NumericsError::NonFinite`] when a value is NaN or infinite.
    pub fn new(
        row_block_ends: Vec<usize>,
        col_block_ends: Vec<usize>,
        row_ptr: Vec<usize>,
        col_idx: Vec<usize>,
        values: Vec<f64>,
    ) -> Result<Self, NumericsError> {
        let bad = |reason: String| NumericsError::InvalidInput { what: "sparse-block matrix", reason };
        check_ends(&row_block_ends, "row").map_err(bad)?;
        check_ends(&col_block_ends, "column").map_err(bad)?;
        if row_ptr.len() != row_block_ends.len() + 1 {
            return Err(bad(format!(
                "row pointer has {} entries for {} block rows",
                row_ptr.len(),
                row_block_ends.len()
            )));
        }
        if row_ptr[0] != 0 || row_ptr[row_ptr.len() - 1] != col_idx.len() {
            return Err(bad("row pointer must run from 0 to the number of blocks".into()));
        }
        let nbc = col_block_ends.len();
        let mut block_offsets = Vec::with_capacity(col_idx.len() + 1);
        block_offsets.push(0usize);
        for i in 0..row_block_ends.len() {
            if row_ptr[i] > row_ptr[i + 1] {
                return Err(bad(format!("row pointer decreases at block row {i}")));
            }
            let rows = block_len(&row_block_ends, i);
            for k in row_ptr[i]..row_ptr[i + 1] {
                let j = col_idx[k];
                if j >= nbc {
                    return Err(bad(format!("block column index {j} out of range ({nbc} block columns)")));
                }
                if k > row_ptr[i] && col_idx[k - 1] >= j {
                    return Err(bad(format!("block column indices of block row {i} are not increasing")));
                }
                let size = rows * block_len(&col_block_ends, j);
                let last = block_offsets[block_offsets.len() - 1];
                block_offsets.push(last + size);
            }
        }
        let total = block_offsets[block_offsets.len() - 1];
        if values.len() != total {
            return Err(bad(format!("{} values given for blocks holding {total}", values.len())));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "sparse-block matrix" });
        }
        Ok(Self { row_block_ends, col_block_ends, row_ptr, col_idx, block_offsets, values })
    }

    /// Number of scalar rows.
    pub fn nrows(&self) -> usize {
        self.row_block_ends.last().copied().unwrap_or(0)
    }

    /// Number of scalar columns.
    pub fn ncols(&self) -> usize {
        self.col_block_ends.last().copied().unwrap_or(0)
    }

    /// Number of block rows.
    pub fn n_block_rows(&self) -> usize {
        self.row_block_ends.len()
    }

    /// Number of block columns.
    pub fn n_block_cols(&self) -> usize {
        self.col_block_ends.len()
    }

    /// Number of stored (nonzero) blocks.
    pub fn nnz_blocks(&self) -> usize {
        self.col_idx.len()
    }

    /// Number of stored scalars (the sum of the blocks' sizes).
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Scalar row ends of the block rows (Siconos' `blocksize0`).
    pub fn row_block_ends(&self) -> &[usize] {
        &self.row_block_ends
    }

    /// Scalar column ends of the block columns (Siconos' `blocksize1`).
    pub fn col_block_ends(&self) -> &[usize] {
        &self.col_block_ends
    }

    /// Block-row pointer (Siconos' `index1_data`).
    pub fn row_ptr(&self) -> &[usize] {
        &self.row_ptr
    }

    /// Block-column index of each stored block (Siconos' `index2_data`).
    pub fn col_idx(&self) -> &[usize] {
        &self.col_idx
    }

    /// All blocks' values, concatenated in storage order, each block column-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Mutable access to the blocks' values (the structure stays fixed).
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// First scalar row of block row `i`.
    pub fn row_block_start(&self, i: usize) -> usize {
        if i == 0 { 0 } else { self.row_block_ends[i - 1] }
    }

    /// First scalar column of block column `j`.
    pub fn col_block_start(&self, j: usize) -> usize {
        if j == 0 { 0 } else { self.col_block_ends[j - 1] }
    }

    /// Number of scalar rows of block row `i`.
    pub fn row_block_size(&self, i: usize) -> usize {
        block_len(&self.row_block_ends, i)
    }

    /// Number of scalar columns of block column `j`.
    pub fn col_block_size(&self, j: usize) -> usize {
        block_len(&self.col_block_ends, j)
    }

    /// The `k`-th stored block (in storage order), column-major.
    pub fn block(&self, k: usize) -> &[f64] {
        &self.values[self.block_offsets[k]..self.block_offsets[k + 1]]
    }

    /// The `k`-th stored block, mutable.
    pub fn block_mut(&mut self, k: usize) -> &mut [f64] {
        let (a, b) = (self.block_offsets[k], self.block_offsets[k + 1]);
        &mut self.values[a..b]
    }

    /// Index in storage order of block `(i, j)`, if it is stored.
    pub fn find_block(&self, i: usize, j: usize) -> Option<usize> {
        let range = self.row_ptr[i]..self.row_ptr[i + 1];
        self.col_idx[range.clone()].binary_search(&j).ok().map(|p| range.start + p)
    }

    /// The diagonal block of block row `i` (column-major), if stored.
    ///
    /// Meaningful when row and column block structures coincide (square block pattern).
    pub fn diagonal_block(&self, i: usize) -> Option<&[f64]> {
        self.find_block(i, i).map(|k| self.block(k))
    }
}

fn block_len(ends: &[usize], i: usize) -> usize {
    if i == 0 { ends[0] } else { ends[i] - ends[i - 1] }
}

fn check_ends(ends: &[usize], what: &str) -> Result<(), String> {
    let mut prev = 0usize;
    for (i, &e) in ends.iter().enumerate() {
        if e <= prev && !(i == 0 && e > 0) {
            return Err(format!("{what} block ends must be strictly increasing and positive (entry {i})"));
        }
        prev = e;
    }
    Ok(())
}
