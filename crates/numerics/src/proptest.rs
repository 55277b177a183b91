//! Proptest strategies for matrices and LCPs (feature `proptest-support`).
//!
//! These generate the random inputs of the property tests of this crate and of the crates
//! built on it (nalgebra exports its strategies the same way). Every strategy is
//! deterministic given proptest's seed, and every generated value is finite.
//!
//! * Matrices: [`dense_matrix`], [`sparse_matrix`], [`block_ends`],
//!   [`sparse_block_matrix_with_structure`], [`sparse_block_matrix`],
//!   [`square_sparse_block_matrix`].
//! * LCPs with a known theory: [`p_matrix_lcp`] (unique solution), [`psd_lcp`] (solvable,
//!   possibly singular), [`singular_psd_lcp`] (singular with a known solution).
//!
//! Matrix entries are drawn from `[-10, 10)`, with an exact zero one time in five so that
//! conversions that drop zeros are exercised.

use ::proptest::collection::vec;
use ::proptest::prelude::*;
use faer::Mat;
use sprs::CsMat;

use crate::lcp::LcpProblem;
use crate::matrix::{NumericsMatrix, SparseBlockMatrix};

/// One matrix entry: uniform in `[-10, 10)` four times in five, exactly `0.0` otherwise.
fn entry() -> impl Strategy<Value = f64> {
    prop_oneof![4 => -10.0..10.0f64, 1 => Just(0.0)]
}

/// A dense `rows × cols` matrix whose entries are uniform in `[-10, 10)`, one in five
/// being exactly zero.
pub fn dense_matrix(rows: usize, cols: usize) -> impl Strategy<Value = Mat<f64>> {
    vec(entry(), rows * cols).prop_map(move |v| Mat::from_fn(rows, cols, |i, j| v[i + j * rows]))
}

/// A general sparse `rows × cols` matrix, in CSR or CSC storage (each half of the time),
/// with a random density in `[0, 1]` (each entry is stored with that probability; a stored
/// entry may be an explicit zero).
pub fn sparse_matrix(rows: usize, cols: usize) -> impl Strategy<Value = CsMat<f64>> {
    (0.0..=1.0f64)
        .prop_flat_map(move |p| (vec(::proptest::bool::weighted(p), rows * cols), any::<bool>()))
        .prop_flat_map(move |(pattern, csc)| {
            let nnz = pattern.iter().filter(|&&b| b).count();
            (Just(pattern), Just(csc), vec(entry(), nnz))
        })
        .prop_map(move |(pattern, csc, values)| {
            // The pattern is row-major: entry (i, j) is pattern[i * cols + j].
            let mut indptr = Vec::with_capacity(rows + 1);
            let mut indices = Vec::with_capacity(values.len());
            indptr.push(0);
            for i in 0..rows {
                indices.extend((0..cols).filter(|&j| pattern[i * cols + j]));
                indptr.push(indices.len());
            }
            let csr = CsMat::new((rows, cols), indptr, indices, values);
            if csc { csr.to_csc() } else { csr }
        })
}

/// Block ends (Siconos' `blocksize0`/`blocksize1`) of `1..=max_blocks` blocks, each of size
/// `1..=max_block_size`: the running sums of the sizes, strictly increasing and positive.
///
/// # Panics
/// When `max_blocks` or `max_block_size` is zero.
pub fn block_ends(max_blocks: usize, max_block_size: usize) -> impl Strategy<Value = Vec<usize>> {
    assert!(max_blocks > 0 && max_block_size > 0, "block_ends needs at least one block of size one");
    vec(1..=max_block_size, 1..=max_blocks).prop_map(|sizes| {
        sizes
            .iter()
            .scan(0, |end, &s| {
                *end += s;
                Some(*end)
            })
            .collect()
    })
}

/// A sparse-block matrix with the given block structure: each block `(i, j)` is stored with
/// a probability drawn once per matrix, uniform in `[0, 1]` (so some matrices are empty,
/// some full, and block rows without any block are frequent), and holds entries from `[-10, 10)`
/// (one in five exactly zero).
///
/// # Panics
/// When the block ends are not strictly increasing and positive (see [`block_ends`]).
pub fn sparse_block_matrix_with_structure(
    row_block_ends: Vec<usize>,
    col_block_ends: Vec<usize>,
) -> impl Strategy<Value = SparseBlockMatrix> {
    let nbr = row_block_ends.len();
    let nbc = col_block_ends.len();
    let size = |ends: &[usize], i: usize| if i == 0 { ends[0] } else { ends[i] - ends[i - 1] };
    (0.0..=1.0f64)
        .prop_flat_map(move |p| vec(::proptest::bool::weighted(p), nbr * nbc))
        .prop_flat_map(move |pattern| {
            let mut total = 0;
            for bi in 0..nbr {
                for bj in 0..nbc {
                    if pattern[bi * nbc + bj] {
                        total += size(&row_block_ends, bi) * size(&col_block_ends, bj);
                    }
                }
            }
            (Just(row_block_ends.clone()), Just(col_block_ends.clone()), Just(pattern), vec(entry(), total))
        })
        .prop_map(move |(row_ends, col_ends, pattern, values)| {
            let mut row_ptr = Vec::with_capacity(nbr + 1);
            let mut col_idx = Vec::new();
            row_ptr.push(0);
            for bi in 0..nbr {
                col_idx.extend((0..nbc).filter(|&bj| pattern[bi * nbc + bj]));
                row_ptr.push(col_idx.len());
            }
            SparseBlockMatrix::new(row_ends, col_ends, row_ptr, col_idx, values)
                .expect("the structure is valid by construction and the values finite")
        })
}

/// A sparse-block matrix with random row and column block structures of `1..=max_blocks`
/// blocks of size `1..=max_block_size` each, filled as in
/// [`sparse_block_matrix_with_structure`].
pub fn sparse_block_matrix(max_blocks: usize, max_block_size: usize) -> impl Strategy<Value = SparseBlockMatrix> {
    (block_ends(max_blocks, max_block_size), block_ends(max_blocks, max_block_size))
        .prop_flat_map(|(r, c)| sparse_block_matrix_with_structure(r, c))
}

/// A square sparse-block matrix whose row and column block structures coincide (as the `W`
/// of a contact problem: one block row and one block column per contact), filled as in
/// [`sparse_block_matrix_with_structure`].
pub fn square_sparse_block_matrix(
    max_blocks: usize,
    max_block_size: usize,
) -> impl Strategy<Value = SparseBlockMatrix> {
    block_ends(max_blocks, max_block_size).prop_flat_map(|e| sparse_block_matrix_with_structure(e.clone(), e))
}

/// An LCP `w = M z + q, 0 ≤ z ⊥ w ≥ 0` of size `n` whose matrix is a P-matrix, so that it has
/// exactly one solution for every `q` (Cottle, Pang, Stone, *The Linear Complementarity
/// Problem*, 1992, §3.3). `M` is dense.
///
/// The family: `M = D + N` where `N` has a zero diagonal and off-diagonal entries uniform in
/// `[-1, 1)`, and `D` is diagonal with `D_ii = Σ_{j≠i} (|N_ij| + |N_ji|) + δ_i`,
/// `δ_i` uniform in `[0.1, 2)`. `q` is uniform in `[-10, 10)ⁿ`.
///
/// Why `M` is P: `M` is strictly diagonally dominant by rows with a positive diagonal, and so
/// is every principal submatrix; by Gershgorin every eigenvalue of such a matrix has a positive
/// real part, so its determinant (product of the real eigenvalues and of conjugate pairs
/// `|λ|²`) is positive: every principal minor is positive. Being dominant by columns as well,
/// `M + Mᵀ` is a symmetric strictly dominant matrix with positive diagonal, so `M` is also
/// positive definite (not symmetric): projected Gauss–Seidel, Lemke and the Newton methods all
/// converge on this family, which is what the solvers' property tests need.
///
/// # Panics
/// When `n == 0` (an LCP has at least one unknown).
pub fn p_matrix_lcp(n: usize) -> impl Strategy<Value = LcpProblem> {
    assert!(n > 0, "p_matrix_lcp needs n ≥ 1");
    (vec(-1.0..1.0f64, n * n), vec(0.1..2.0f64, n), vec(-10.0..10.0f64, n)).prop_map(move |(off, delta, q)| {
        let mut m = Mat::from_fn(n, n, |i, j| if i == j { 0.0 } else { off[i + j * n] });
        for i in 0..n {
            let dominance: f64 = (0..n).filter(|&j| j != i).map(|j| m[(i, j)].abs() + m[(j, i)].abs()).sum();
            m[(i, i)] = dominance + delta[i];
        }
        LcpProblem::new(NumericsMatrix::Dense(m), q).expect("n ≥ 1 and all data finite by construction")
    })
}

/// An LCP of size `n` with a symmetric positive semidefinite matrix that has a solution: half
/// the time from the positive definite family `M = AᵀA + εI` (`A` an `n × n` matrix uniform in
/// `[-1, 1)`, `ε` uniform in `[1e-3, 1)`, `q` uniform in `[-10, 10)ⁿ`; unique solution, `M`
/// being P), half the time from the exact singular family of [`singular_psd_lcp`]. `M` is
/// dense. The smallest eigenvalues of the first family can be near `1e-3`, so Gauss–Seidel may
/// need many sweeps on it.
///
/// A feasible LCP with a PSD (hence copositive-plus) matrix is solvable, and Lemke's method
/// finds a solution (Cottle, Pang, Stone, 1992, §3.8 and §4.4).
///
/// # Panics
/// When `n == 0`.
pub fn psd_lcp(n: usize) -> impl Strategy<Value = LcpProblem> {
    assert!(n > 0, "psd_lcp needs n ≥ 1");
    let regularized = (vec(-1.0..1.0f64, n * n), 1e-3..1.0f64, vec(-10.0..10.0f64, n)).prop_map(move |(a, eps, q)| {
        let mut m = gram(&a, n, n);
        for i in 0..n {
            m[(i, i)] += eps;
        }
        LcpProblem::new(NumericsMatrix::Dense(m), q).expect("n ≥ 1 and all data finite by construction")
    });
    prop_oneof![regularized, singular_psd_lcp(n).prop_map(|(problem, _)| problem)]
}

/// A feasible LCP of size `n` with a *singular* symmetric PSD matrix and one known solution,
/// all in exact arithmetic.
///
/// `M = BᵀB` with `B` a `k × n` integer matrix, `k` uniform in `1..=max(1, n − 1)` and entries
/// in `−3..=3`; for `n ≥ 2`, `rank M ≤ k < n`. A complementary integer pair is drawn: for each
/// `i`, either `x0_i ∈ 1..=5` and `w0_i = 0`, or `x0_i = 0` and `w0_i ∈ 0..=5`; then
/// `q = w0 − M x0`. So `x0 ≥ 0`, `M x0 + q = w0 ≥ 0`, `x0ᵀ w0 = 0`: `x0` is a solution
/// (returned as the second element). Every number is a small integer, hence exact in `f64`:
/// rounding cannot make the generated problem infeasible (with real entries, the rounding of `q`
/// could push it out of `range(M) + cone` and leave no exact solution), and `compute_error(x0)`
/// is exactly zero.
///
/// Other solutions may exist (`M` is singular), but `w = M z + q` is the same at all of them:
/// for two solutions, `(z1 − z2)ᵀ M (z1 − z2) ≤ 0`, hence `= 0`, hence `M (z1 − z2) = 0` as
/// `M` is symmetric PSD.
///
/// # Panics
/// When `n == 0`.
pub fn singular_psd_lcp(n: usize) -> impl Strategy<Value = (LcpProblem, Vec<f64>)> {
    assert!(n > 0, "singular_psd_lcp needs n ≥ 1");
    (1..=n.saturating_sub(1).max(1))
        .prop_flat_map(move |k| (Just(k), vec(-3i32..=3, k * n), vec((any::<bool>(), 1i32..=5, 0i32..=5), n)))
        .prop_map(move |(k, b, pairs)| {
            let b: Vec<f64> = b.into_iter().map(f64::from).collect();
            let m = gram(&b, k, n);
            let x0: Vec<f64> = pairs.iter().map(|&(active, x, _)| if active { f64::from(x) } else { 0.0 }).collect();
            let w0: Vec<f64> = pairs.iter().map(|&(active, _, w)| if active { 0.0 } else { f64::from(w) }).collect();
            let mut q = w0;
            for (i, qi) in q.iter_mut().enumerate() {
                for (j, &xj) in x0.iter().enumerate() {
                    *qi -= m[(i, j)] * xj;
                }
            }
            let problem =
                LcpProblem::new(NumericsMatrix::Dense(m), q).expect("n ≥ 1 and all data finite by construction");
            (problem, x0)
        })
}

/// `BᵀB` for `B` a `k × n` matrix stored column-major in `b`, exactly symmetric (entries
/// `(i, j)` and `(j, i)` are summed in the same order).
fn gram(b: &[f64], k: usize, n: usize) -> Mat<f64> {
    let mut m = Mat::zeros(n, n);
    for j in 0..n {
        for i in 0..=j {
            let s: f64 = (0..k).map(|r| b[r + i * k] * b[r + j * k]).sum();
            m[(i, j)] = s;
            m[(j, i)] = s;
        }
    }
    m
}
