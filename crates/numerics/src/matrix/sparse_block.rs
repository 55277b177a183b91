//! Sparse-block matrices: a block-CSR of small dense blocks (Siconos' `SparseBlockStructuredMatrix`,
//! numerics/src/tools/SparseBlockMatrix.{h,c}).

use std::ops::Range;

use faer::Mat;

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
/// `values.len()` equal to the sum of the blocks' sizes. The constructors also reject NaN and
/// infinite values (but [`SparseBlockMatrix::values_mut`] and products may create them, as with
/// a dense matrix).
///
/// The position of each diagonal block `(i, i)` is computed once at construction (as Siconos'
/// `SBM_compute_diagonal_block_indices` does on request), for the Gauss–Seidel solvers that
/// visit it every sweep; so is whether all blocks share one size (2 for FC2D, 3 for
/// FC3D), which selects unrolled product kernels.
#[derive(Clone, Debug)]
#[doc(alias = "SparseBlockStructuredMatrix")]
#[doc(alias = "SBM")]
pub struct SparseBlockMatrix {
    row_block_ends: Vec<usize>,
    col_block_ends: Vec<usize>,
    row_ptr: Vec<usize>,
    col_idx: Vec<usize>,
    block_offsets: Vec<usize>,
    values: Vec<f64>,
    /// Storage index of block `(i, i)` for each block row `i`, `usize::MAX` when not stored.
    diagonal_index: Vec<usize>,
    /// The common size `b` when every block row and block column has `b` scalars (then block
    /// `k` is `values[b²k .. b²(k + 1)]`), 0 otherwise; selects the unrolled product kernels.
    uniform_block_size: usize,
    /// Every value is known to be finite: set by the constructors that check or are told so,
    /// cleared by the mutable accessors. [`SparseBlockMatrix::is_finite`] then skips its scan
    /// (the problems' constructors check their matrix; an assembly that checked each block while
    /// it was in cache would otherwise pay a second pass over all of a large `W`'s memory).
    finite: bool,
}

/// Equal structures and values (whether the values are known to be finite does not matter).
impl PartialEq for SparseBlockMatrix {
    fn eq(&self, other: &Self) -> bool {
        self.row_block_ends == other.row_block_ends
            && self.col_block_ends == other.col_block_ends
            && self.row_ptr == other.row_ptr
            && self.col_idx == other.col_idx
            && self.block_offsets == other.block_offsets
            && self.values == other.values
    }
}

/// What [`SparseBlockMatrix::from_blocks`] does with two blocks given at the same position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuplicateBlocks {
    /// Add them (assembly: `W_ij = Σ_k H_ik M_k⁻¹ H_jkᵀ` sums one term per shared body).
    Sum,
    /// Reject the input with [`NumericsError::InvalidInput`].
    Error,
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
        if !super::all_finite(&values) {
            return Err(NumericsError::NonFinite { what: "sparse-block matrix" });
        }
        Self::new_with_finite_values(row_block_ends, col_block_ends, row_ptr, col_idx, values)
    }

    /// [`SparseBlockMatrix::new`] for values the caller has already checked to be finite (an
    /// assembly that tests each block while it is in cache, with
    /// [`all_finite`](super::all_finite)): every structural invariant is checked, the values are
    /// not scanned again (debug builds still check them).
    ///
    /// The matrix is then taken as finite by [`SparseBlockMatrix::is_finite`] and by the
    /// problems built on it; a non-finite value given here reaches the solvers, which stop
    /// without convergence on it.
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] when the structure is inconsistent.
    pub fn new_with_finite_values(
        row_block_ends: Vec<usize>,
        col_block_ends: Vec<usize>,
        row_ptr: Vec<usize>,
        col_idx: Vec<usize>,
        values: Vec<f64>,
    ) -> Result<Self, NumericsError> {
        debug_assert!(super::all_finite(&values), "new_with_finite_values: a value is not finite");
        check_ends(&row_block_ends, "row")?;
        check_ends(&col_block_ends, "column")?;
        if row_ptr.len() != row_block_ends.len() + 1 {
            return Err(invalid(format!(
                "row pointer has {} entries for {} block rows",
                row_ptr.len(),
                row_block_ends.len()
            )));
        }
        if row_ptr[0] != 0 || row_ptr[row_ptr.len() - 1] != col_idx.len() {
            return Err(invalid("row pointer must run from 0 to the number of blocks".into()));
        }
        // Monotone from 0 to col_idx.len(), so every row_ptr[i] .. row_ptr[i + 1] indexes col_idx.
        if let Some(i) = row_ptr.windows(2).position(|w| w[0] > w[1]) {
            return Err(invalid(format!("row pointer decreases at block row {i}")));
        }
        let nbc = col_block_ends.len();
        let mut block_offsets = Vec::with_capacity(col_idx.len() + 1);
        block_offsets.push(0usize);
        let mut total = 0usize;
        for i in 0..row_block_ends.len() {
            let rows = block_len(&row_block_ends, i);
            for k in row_ptr[i]..row_ptr[i + 1] {
                let j = col_idx[k];
                if j >= nbc {
                    return Err(invalid(format!("block column index {j} out of range ({nbc} block columns)")));
                }
                if k > row_ptr[i] && col_idx[k - 1] >= j {
                    return Err(invalid(format!("block column indices of block row {i} are not increasing")));
                }
                total = rows
                    .checked_mul(block_len(&col_block_ends, j))
                    .and_then(|size| total.checked_add(size))
                    .ok_or_else(|| invalid("the blocks hold more than usize::MAX values".into()))?;
                block_offsets.push(total);
            }
        }
        if values.len() != total {
            return Err(invalid(format!("{} values given for blocks holding {total}", values.len())));
        }
        Ok(Self::from_validated_parts(row_block_ends, col_block_ends, row_ptr, col_idx, block_offsets, values, true))
    }

    /// Assembles a sparse-block matrix from `(block row, block column, dense block)` triplets
    /// given in any order, as the kernel assembles `W` blockwise.
    ///
    /// The triplets are sorted by position; two triplets at the same position are added or
    /// rejected according to `duplicates`. Every given block is stored, even an all-zero one
    /// (the structure is what the caller asked for). Block `(i, j)` must be
    /// `row_block_size(i) × col_block_size(j)`.
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] for bad block ends, a block index out of range or (with
    /// [`DuplicateBlocks::Error`]) a repeated position; [`NumericsError::DimensionMismatch`]
    /// when a block has the wrong shape; [`NumericsError::NonFinite`] for a NaN or infinite value.
    pub fn from_blocks<I>(
        row_block_ends: Vec<usize>,
        col_block_ends: Vec<usize>,
        blocks: I,
        duplicates: DuplicateBlocks,
    ) -> Result<Self, NumericsError>
    where
        I: IntoIterator<Item = (usize, usize, Mat<f64>)>,
    {
        from_blocks_impl(row_block_ends, col_block_ends, blocks.into_iter().collect(), duplicates)
    }

    /// A matrix with the given block structure and no stored block (all zero).
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] when the block ends are not strictly increasing and positive.
    pub fn zeros(row_block_ends: Vec<usize>, col_block_ends: Vec<usize>) -> Result<Self, NumericsError> {
        let row_ptr = vec![0; row_block_ends.len() + 1];
        Self::new(row_block_ends, col_block_ends, row_ptr, Vec::new(), Vec::new())
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

    /// Whether every value is finite (no scan when the values are known to be: see
    /// [`SparseBlockMatrix::new_with_finite_values`]).
    pub fn is_finite(&self) -> bool {
        self.finite || super::all_finite(&self.values)
    }

    /// All blocks' values, concatenated in storage order, each block column-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Mutable access to the blocks' values (the structure stays fixed).
    pub fn values_mut(&mut self) -> &mut [f64] {
        self.finite = false;
        &mut self.values
    }

    /// Offset of each stored block in [`SparseBlockMatrix::values`]: block `k` is
    /// `values[offsets[k] .. offsets[k + 1]]` (`nnz_blocks + 1` entries).
    pub fn block_offsets(&self) -> &[usize] {
        &self.block_offsets
    }

    /// The common size `b` of all block rows and block columns, if they all have the same size
    /// (as the `W` of an FC3D problem, `b = 3`).
    pub fn uniform_block_size(&self) -> Option<usize> {
        (self.uniform_block_size > 0).then_some(self.uniform_block_size)
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

    /// Storage indices of the blocks of block row `i` (`row_ptr[i] .. row_ptr[i + 1]`); the
    /// block column of block `k` is `col_idx()[k]`.
    pub fn row_blocks(&self, i: usize) -> Range<usize> {
        self.row_ptr[i]..self.row_ptr[i + 1]
    }

    /// The `k`-th stored block (in storage order), column-major.
    pub fn block(&self, k: usize) -> &[f64] {
        &self.values[self.block_offsets[k]..self.block_offsets[k + 1]]
    }

    /// The `k`-th stored block, mutable.
    pub fn block_mut(&mut self, k: usize) -> &mut [f64] {
        self.finite = false;
        let (a, b) = (self.block_offsets[k], self.block_offsets[k + 1]);
        &mut self.values[a..b]
    }

    /// Index in storage order of block `(i, j)`, if it is stored (binary search in block row `i`).
    pub fn find_block(&self, i: usize, j: usize) -> Option<usize> {
        let range = self.row_blocks(i);
        self.col_idx[range.clone()].binary_search(&j).ok().map(|p| range.start + p)
    }

    /// Storage index of the diagonal block `(i, i)`, if stored; O(1), precomputed at
    /// construction (Siconos' `SBM_diagonal_block_index`).
    #[doc(alias = "SBM_diagonal_block_index")]
    pub fn diagonal_block_index(&self, i: usize) -> Option<usize> {
        self.diagonal_index.get(i).copied().filter(|&k| k != usize::MAX)
    }

    /// The diagonal block of block row `i` (block `(i, i)`, column-major), if stored.
    ///
    /// It lies on the scalar diagonal when row and column block structures coincide (the `W` of
    /// a contact problem); it is `row_block_size(i) × col_block_size(i)`.
    pub fn diagonal_block(&self, i: usize) -> Option<&[f64]> {
        self.diagonal_block_index(i).map(|k| self.block(k))
    }

    /// The diagonal block of block row `i`, mutable, if stored.
    pub fn diagonal_block_mut(&mut self, i: usize) -> Option<&mut [f64]> {
        self.diagonal_block_index(i).map(|k| self.block_mut(k))
    }

    /// `y ← y + Σ_j A_ij x_j` over the stored blocks of block row `i` (Siconos' `SBM_row_prod`),
    /// skipping the diagonal block `A_ii` when `include_diagonal` is false
    /// (`SBM_row_prod_no_diag`): the sum a Gauss–Seidel sweep needs.
    ///
    /// `x` has `ncols` entries; `y` has `row_block_size(i)` entries.
    ///
    /// # Panics
    /// When `i` is out of range or the lengths are wrong (an internal invariant of the solvers).
    #[track_caller]
    #[doc(alias = "SBM_row_prod")]
    #[doc(alias = "SBM_row_prod_no_diag")]
    pub fn row_product(&self, i: usize, x: &[f64], y: &mut [f64], include_diagonal: bool) {
        assert_eq!(x.len(), self.ncols(), "row_product: x has the wrong length");
        assert_eq!(y.len(), self.row_block_size(i), "row_product: y has the wrong length");
        for k in self.row_blocks(i) {
            let j = self.col_idx[k];
            if include_diagonal || j != i {
                let c0 = self.col_block_start(j);
                super::product::block_gemv(self.block(k), &x[c0..c0 + self.col_block_size(j)], y);
            }
        }
    }

    /// The transpose `Aᵀ`, a sparse-block matrix with the row and column block structures swapped
    /// and each block transposed (a counting sort of the blocks by block column).
    pub fn transpose(&self) -> SparseBlockMatrix {
        let nbr = self.n_block_rows();
        let nbc = self.n_block_cols();
        let nb = self.nnz_blocks();
        // Count the blocks of each block column: they become the block rows of Aᵀ.
        let mut row_ptr = vec![0usize; nbc + 1];
        for &j in &self.col_idx {
            row_ptr[j + 1] += 1;
        }
        for j in 0..nbc {
            row_ptr[j + 1] += row_ptr[j];
        }
        // Place each block: visiting A's block rows in order keeps Aᵀ's column indices sorted.
        let mut next = row_ptr.clone();
        let mut source = vec![0usize; nb];
        let mut col_idx = vec![0usize; nb];
        for i in 0..nbr {
            for k in self.row_blocks(i) {
                let j = self.col_idx[k];
                source[next[j]] = k;
                col_idx[next[j]] = i;
                next[j] += 1;
            }
        }
        let mut block_offsets = Vec::with_capacity(nb + 1);
        block_offsets.push(0);
        let mut values = Vec::with_capacity(self.nnz());
        for (&k, &i) in source.iter().zip(&col_idx) {
            let b = self.block(k);
            let nr = self.row_block_size(i);
            let nc = b.len() / nr;
            // Block of Aᵀ is nc × nr, column-major: entry (c, r) = b[r + c * nr].
            for r in 0..nr {
                values.extend((0..nc).map(|c| b[r + c * nr]));
            }
            block_offsets.push(values.len());
        }
        Self::from_validated_parts(
            self.col_block_ends.clone(),
            self.row_block_ends.clone(),
            row_ptr,
            col_idx,
            block_offsets,
            values,
            self.finite,
        )
    }

    /// The product `C = A B` of two sparse-block matrices whose inner block structures conform
    /// (`A.col_block_ends() == B.row_block_ends()`), as a sparse-block matrix with `A`'s row and
    /// `B`'s column structure: `C_ij = Σ_k A_ik B_kj` (Siconos' `SBM_multiply`, a block
    /// Gustavson product). Block `(i, j)` is stored when some `A_ik` and `B_kj` are both stored,
    /// even if the sum is zero.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `A.ncols() != B.nrows()`;
    /// [`NumericsError::InvalidInput`] when the sizes agree but the inner block ends differ.
    #[doc(alias = "SBM_multiply")]
    pub fn matmul(&self, other: &SparseBlockMatrix) -> Result<SparseBlockMatrix, NumericsError> {
        if self.ncols() != other.nrows() {
            return Err(NumericsError::DimensionMismatch {
                what: "sparse-block product inner dimension",
                expected: self.ncols(),
                found: other.nrows(),
            });
        }
        if self.col_block_ends != other.row_block_ends {
            return Err(invalid("the inner block structures of a sparse-block product differ".into()));
        }
        Ok(super::product::sbm_matmul(self, other))
    }

    /// A dense copy.
    pub fn to_dense(&self) -> Mat<f64> {
        let mut d = Mat::<f64>::zeros(self.nrows(), self.ncols());
        for bi in 0..self.n_block_rows() {
            let r0 = self.row_block_start(bi);
            let nr = self.row_block_size(bi);
            for k in self.row_blocks(bi) {
                let bj = self.col_idx[k];
                let c0 = self.col_block_start(bj);
                let b = self.block(k);
                for c in 0..self.col_block_size(bj) {
                    d.col_as_slice_mut(c0 + c)[r0..r0 + nr].copy_from_slice(&b[c * nr..(c + 1) * nr]);
                }
            }
        }
        d
    }

    /// Assembles a matrix from parts that satisfy every structural invariant of
    /// [`SparseBlockMatrix::new`] (the callers build them so), computing the diagonal block
    /// positions; `finite` tells whether the values are known to be finite.
    pub(crate) fn from_validated_parts(
        row_block_ends: Vec<usize>,
        col_block_ends: Vec<usize>,
        row_ptr: Vec<usize>,
        col_idx: Vec<usize>,
        block_offsets: Vec<usize>,
        values: Vec<f64>,
        finite: bool,
    ) -> Self {
        debug_assert_eq!(row_ptr.len(), row_block_ends.len() + 1);
        debug_assert_eq!(block_offsets.len(), col_idx.len() + 1);
        debug_assert_eq!(block_offsets.last().copied(), Some(values.len()));
        let diagonal_index = (0..row_block_ends.len())
            .map(|i| {
                let range = row_ptr[i]..row_ptr[i + 1];
                col_idx[range.clone()].binary_search(&i).map_or(usize::MAX, |p| range.start + p)
            })
            .collect();
        let b = row_block_ends.first().copied().unwrap_or(0);
        let uniform = |ends: &[usize]| ends.iter().enumerate().all(|(i, &e)| e == (i + 1) * b);
        let uniform_block_size = if uniform(&row_block_ends) && uniform(&col_block_ends) { b } else { 0 };
        Self {
            row_block_ends,
            col_block_ends,
            row_ptr,
            col_idx,
            block_offsets,
            values,
            diagonal_index,
            uniform_block_size,
            finite,
        }
    }
}

fn from_blocks_impl(
    row_block_ends: Vec<usize>,
    col_block_ends: Vec<usize>,
    mut blocks: Vec<(usize, usize, Mat<f64>)>,
    duplicates: DuplicateBlocks,
) -> Result<SparseBlockMatrix, NumericsError> {
    check_ends(&row_block_ends, "row")?;
    check_ends(&col_block_ends, "column")?;
    let (nbr, nbc) = (row_block_ends.len(), col_block_ends.len());
    for (i, j, b) in &blocks {
        if *i >= nbr || *j >= nbc {
            return Err(invalid(format!("block ({i}, {j}) out of range ({nbr} × {nbc} blocks)")));
        }
        let (nr, nc) = (block_len(&row_block_ends, *i), block_len(&col_block_ends, *j));
        if b.nrows() != nr {
            return Err(NumericsError::DimensionMismatch { what: "block rows", expected: nr, found: b.nrows() });
        }
        if b.ncols() != nc {
            return Err(NumericsError::DimensionMismatch { what: "block columns", expected: nc, found: b.ncols() });
        }
    }
    // A stable sort keeps duplicates in the given order, so sums are reproducible.
    blocks.sort_by_key(|&(i, j, _)| (i, j));
    let mut row_ptr = vec![0usize; nbr + 1];
    let mut col_idx: Vec<usize> = Vec::with_capacity(blocks.len());
    let mut block_offsets = vec![0usize];
    let mut values = Vec::new();
    let mut last: Option<(usize, usize)> = None;
    for (i, j, b) in &blocks {
        let (nr, nc) = (b.nrows(), b.ncols());
        if last == Some((*i, *j)) {
            if duplicates == DuplicateBlocks::Error {
                return Err(invalid(format!("block ({i}, {j}) is given twice")));
            }
            let start = block_offsets[block_offsets.len() - 2];
            for c in 0..nc {
                for (v, &bv) in values[start + c * nr..start + (c + 1) * nr].iter_mut().zip(b.col_as_slice(c)) {
                    *v += bv;
                }
            }
        } else {
            for c in 0..nc {
                values.extend_from_slice(b.col_as_slice(c));
            }
            block_offsets.push(values.len());
            col_idx.push(*j);
            row_ptr[i + 1] += 1;
            last = Some((*i, *j));
        }
    }
    for i in 0..nbr {
        row_ptr[i + 1] += row_ptr[i];
    }
    if !super::all_finite(&values) {
        return Err(NumericsError::NonFinite { what: "sparse-block matrix" });
    }
    Ok(SparseBlockMatrix::from_validated_parts(
        row_block_ends,
        col_block_ends,
        row_ptr,
        col_idx,
        block_offsets,
        values,
        true,
    ))
}

pub(crate) fn invalid(reason: String) -> NumericsError {
    NumericsError::InvalidInput { what: "sparse-block matrix", reason }
}

fn block_len(ends: &[usize], i: usize) -> usize {
    if i == 0 { ends[0] } else { ends[i] - ends[i - 1] }
}

/// Checks that block ends are positive and strictly increasing (every block is non-empty).
pub(crate) fn check_ends(ends: &[usize], what: &str) -> Result<(), NumericsError> {
    let mut prev = 0usize;
    for (i, &e) in ends.iter().enumerate() {
        if e <= prev {
            return Err(invalid(format!("{what} block ends must be strictly increasing and positive (entry {i})")));
        }
        prev = e;
    }
    Ok(())
}
