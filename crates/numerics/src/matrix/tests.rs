//! Hand-written cases for the matrix module: structural errors, block assembly, diagonal
//! blocks, the unrolled block kernels, small exact products.

use faer::{Mat, mat};

use super::product::block_gemv_alpha;
use super::*;
use crate::NumericsError;

/// The 5 × 5 example used below: block rows/columns of sizes 2 and 3, blocks (0,0), (0,1),
/// (1,1); block (1,0) is absent.
fn example() -> SparseBlockMatrix {
    let b00 = mat![[1.0, 2.0], [3.0, 4.0]];
    let b01 = mat![[5.0, 0.0, 6.0], [0.0, 7.0, 0.0]];
    let b11 = mat![[8.0, 9.0, 10.0], [11.0, 12.0, 13.0], [14.0, 15.0, 16.0]];
    SparseBlockMatrix::from_blocks(
        vec![2, 5],
        vec![2, 5],
        [(1, 1, b11), (0, 1, b01), (0, 0, b00)],
        DuplicateBlocks::Error,
    )
    .expect("valid blocks")
}

fn example_dense() -> Mat<f64> {
    mat![
        [1.0, 2.0, 5.0, 0.0, 6.0],
        [3.0, 4.0, 0.0, 7.0, 0.0],
        [0.0, 0.0, 8.0, 9.0, 10.0],
        [0.0, 0.0, 11.0, 12.0, 13.0],
        [0.0, 0.0, 14.0, 15.0, 16.0],
    ]
}

/// `a` equals `b` up to a few roundings.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * (1.0 + b.abs())
}

fn invalid_input(r: Result<SparseBlockMatrix, NumericsError>) -> bool {
    matches!(r, Err(NumericsError::InvalidInput { .. }))
}

#[test]
fn new_rejects_bad_structures() {
    let ok = |re: Vec<usize>, ce: Vec<usize>, rp: Vec<usize>, ci: Vec<usize>, n: usize| {
        SparseBlockMatrix::new(re, ce, rp, ci, vec![1.0; n])
    };
    assert!(ok(vec![2], vec![2], vec![0, 1], vec![0], 4).is_ok());
    // Ends not strictly increasing, or starting at zero.
    assert!(invalid_input(ok(vec![2, 2], vec![2], vec![0, 0, 0], vec![], 0)));
    assert!(invalid_input(ok(vec![0, 2], vec![2], vec![0, 0, 0], vec![], 0)));
    assert!(invalid_input(ok(vec![2], vec![3, 1], vec![0, 0], vec![], 0)));
    // Row pointer of the wrong length, not starting at 0, decreasing, not ending at nnz.
    assert!(invalid_input(ok(vec![2], vec![2], vec![0], vec![], 0)));
    assert!(invalid_input(ok(vec![2], vec![2], vec![1, 1], vec![0], 4)));
    assert!(invalid_input(ok(vec![1, 2], vec![2], vec![0, 2, 1], vec![0], 2)));
    assert!(invalid_input(ok(vec![2], vec![2], vec![0, 0], vec![0], 4)));
    // Column index out of range, repeated, decreasing.
    assert!(invalid_input(ok(vec![2], vec![2], vec![0, 1], vec![1], 4)));
    assert!(invalid_input(ok(vec![1], vec![1, 2], vec![0, 2], vec![0, 0], 2)));
    assert!(invalid_input(ok(vec![1], vec![1, 2], vec![0, 2], vec![1, 0], 2)));
    // Values of the wrong length.
    assert!(invalid_input(ok(vec![2], vec![2], vec![0, 1], vec![0], 3)));
    // Block sizes whose product overflows usize.
    let huge = 1usize << 40;
    assert!(invalid_input(ok(vec![huge], vec![huge], vec![0, 1], vec![0], 0)));
    // A NaN value.
    let r = SparseBlockMatrix::new(vec![1], vec![1], vec![0, 1], vec![0], vec![f64::NAN]);
    assert!(matches!(r, Err(NumericsError::NonFinite { .. })));
}

#[test]
fn all_finite_agrees_with_the_entrywise_test() {
    // Every length around the 8-wide chunks, a non-finite value at every position.
    for len in 0..20 {
        let ones = vec![1.5; len];
        assert!(all_finite(&ones));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for i in 0..len {
                let mut v = ones.clone();
                v[i] = bad;
                assert!(!all_finite(&v), "len {len}, {bad} at {i}");
            }
        }
    }
    assert!(all_finite(&[f64::MAX, -f64::MAX, f64::MIN_POSITIVE, -0.0, 0.0, 5e-324, 1.0, 2.0, 3.0]));
}

#[test]
fn values_known_finite_skip_the_scan_until_they_are_changed() {
    let parts = || (vec![2, 5], vec![2, 5], vec![0, 2, 3], vec![0, 1, 1], (1..=19).map(f64::from).collect::<Vec<_>>());
    let (r, c, p, i, v) = parts();
    let checked = SparseBlockMatrix::new(r, c, p, i, v).expect("valid");
    let (r, c, p, i, v) = parts();
    let told = SparseBlockMatrix::new_with_finite_values(r, c, p, i, v).expect("valid");
    assert_eq!(checked, told);
    assert!(told.is_finite());
    // The structure is still checked: a column index out of range.
    assert!(matches!(
        SparseBlockMatrix::new_with_finite_values(vec![2], vec![2], vec![0, 1], vec![1], vec![0.0; 4]),
        Err(NumericsError::InvalidInput { .. })
    ));
    // A value made NaN through the mutable accessors is seen again, by the matrix and by a
    // problem built on it.
    let mut m = told.clone();
    m.block_mut(2)[4] = f64::NAN;
    assert!(!m.is_finite());
    assert_ne!(m, told);
    let mut d = told.clone();
    d.diagonal_block_mut(0).expect("stored")[0] = f64::INFINITY;
    assert!(!NumericsMatrix::SparseBlock(d).is_finite());
    let mut w = told;
    w.values_mut()[0] = f64::NAN;
    let q = vec![0.0; 5];
    let r = crate::lcp::LcpProblem::new(NumericsMatrix::SparseBlock(w), q);
    assert!(matches!(r, Err(NumericsError::NonFinite { .. })));
}

#[test]
fn empty_matrices_are_valid() {
    let m = SparseBlockMatrix::new(vec![], vec![], vec![0], vec![], vec![]).expect("0 × 0 is valid");
    assert_eq!((m.nrows(), m.ncols(), m.nnz_blocks()), (0, 0, 0));
    let z = SparseBlockMatrix::zeros(vec![3], vec![1, 4]).expect("valid ends");
    let nm = NumericsMatrix::SparseBlock(z);
    assert_eq!(nm.mul_vec(&[1.0; 4]).expect("right length"), vec![0.0; 3]);
    assert_eq!(nm.to_dense(), Mat::<f64>::zeros(3, 4));
    assert_eq!(nm.to_csr().nnz(), 0);
}

#[test]
fn from_blocks_sorts_and_matches_dense() {
    let m = example();
    assert_eq!(m.col_idx(), &[0, 1, 1]);
    assert_eq!(m.row_ptr(), &[0, 2, 3]);
    assert_eq!(m.to_dense(), example_dense());
    let nm = NumericsMatrix::SparseBlock(m);
    for i in 0..5 {
        for j in 0..5 {
            assert_eq!(nm.get(i, j).to_bits(), example_dense()[(i, j)].to_bits());
        }
    }
}

#[test]
fn from_blocks_duplicates_sum_or_error() {
    let a = mat![[1.0, 2.0], [3.0, 4.0]];
    let b = mat![[10.0, 20.0], [30.0, 40.0]];
    let blocks = || vec![(0, 0, a.clone()), (0, 0, b.clone())];
    let summed = SparseBlockMatrix::from_blocks(vec![2], vec![2], blocks(), DuplicateBlocks::Sum).expect("sum");
    assert_eq!(summed.nnz_blocks(), 1);
    assert_eq!(summed.to_dense(), mat![[11.0, 22.0], [33.0, 44.0]]);
    let err = SparseBlockMatrix::from_blocks(vec![2], vec![2], blocks(), DuplicateBlocks::Error);
    assert!(invalid_input(err));
}

#[test]
fn from_blocks_rejects_bad_blocks() {
    let two = || Mat::<f64>::zeros(2, 2);
    let r = SparseBlockMatrix::from_blocks(vec![2], vec![2], [(0, 1, two())], DuplicateBlocks::Sum);
    assert!(invalid_input(r));
    let r = SparseBlockMatrix::from_blocks(vec![2], vec![2, 3], [(0, 1, two())], DuplicateBlocks::Sum);
    assert!(matches!(r, Err(NumericsError::DimensionMismatch { what: "block columns", expected: 1, found: 2 })));
    let r = SparseBlockMatrix::from_blocks(vec![3], vec![2], [(0, 0, two())], DuplicateBlocks::Sum);
    assert!(matches!(r, Err(NumericsError::DimensionMismatch { what: "block rows", expected: 3, found: 2 })));
    let mut nan = two();
    nan[(1, 0)] = f64::INFINITY;
    let r = SparseBlockMatrix::from_blocks(vec![2], vec![2], [(0, 0, nan)], DuplicateBlocks::Sum);
    assert!(matches!(r, Err(NumericsError::NonFinite { .. })));
    let r = SparseBlockMatrix::from_blocks(vec![0], vec![2], [], DuplicateBlocks::Sum);
    assert!(invalid_input(r));
}

#[test]
fn diagonal_block_index_and_mutation() {
    let mut m = example().transpose();
    // Transposed: blocks (0,0), (1,0), (1,1): every diagonal block stored.
    assert_eq!(m.diagonal_block_index(0), Some(0));
    assert_eq!(m.diagonal_block_index(1), Some(2));
    assert_eq!(m.diagonal_block_index(2), None);
    let without_diagonal = SparseBlockMatrix::from_blocks(
        vec![1, 2],
        vec![1, 2],
        [(0, 1, mat![[3.0]]), (1, 0, mat![[4.0]])],
        DuplicateBlocks::Error,
    )
    .expect("valid");
    assert_eq!(without_diagonal.diagonal_block_index(0), None);
    assert_eq!(without_diagonal.diagonal_block(1), None);
    let d = m.diagonal_block_mut(1).expect("stored");
    d[0] += 100.0;
    assert!(close(m.to_dense()[(2, 2)], 108.0));
    assert_eq!(m.diagonal_block(0), Some(&[1.0, 2.0, 3.0, 4.0][..]));
}

#[test]
fn transpose_matches_dense() {
    let m = example();
    let t = m.transpose();
    assert_eq!(t.to_dense(), example_dense().transpose().to_owned());
    assert_eq!(t.transpose(), m);
}

#[test]
fn row_product_with_and_without_diagonal() {
    let m = example();
    let x = [1.0, -1.0, 2.0, 0.5, -3.0];
    // Block row 0 is rows 0..2: [1 2 5 0 6; 3 4 0 7 0] x = (-1 + 10 - 18, -1 + 3.5) = (-9, 2.5).
    let mut y = [0.0; 2];
    m.row_product(0, &x, &mut y, true);
    assert!(close(y[0], -9.0) && close(y[1], 2.5), "{y:?}");
    // Without the diagonal block (0,0): only [5 0 6; 0 7 0] (x2, x3, x4) = (-8, 3.5).
    let mut y = [1.0, 1.0];
    m.row_product(0, &x, &mut y, false);
    assert!(close(y[0], -7.0) && close(y[1], 4.5), "{y:?}");
}

#[test]
fn unrolled_block_kernels_match_the_generic_loop() {
    for n in [1usize, 2, 3] {
        let b: Vec<f64> = (0..n * n).map(|k| (k as f64) * 0.7 - 1.3).collect();
        let x: Vec<f64> = (0..n).map(|k| 2.0 - k as f64).collect();
        let mut y = vec![0.5; n];
        block_gemv_alpha(-2.0, &b, &x, &mut y);
        for i in 0..n {
            let s: f64 = (0..n).map(|j| b[i + j * n] * x[j]).sum();
            assert!((y[i] - (0.5 - 2.0 * s)).abs() <= 1e-14 * (1.0 + s.abs()), "n = {n}, row {i}");
        }
    }
}

#[test]
fn gemv_and_transpose_on_the_example() {
    let nm = NumericsMatrix::SparseBlock(example());
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let d = example_dense();
    let mut y = vec![f64::NAN; 5];
    nm.gemv(1.0, &x, 0.0, &mut y);
    for i in 0..5 {
        let s: f64 = (0..5).map(|j| d[(i, j)] * x[j]).sum();
        assert!(close(y[i], s), "row {i}: {} vs {s}", y[i]);
    }
    let mut yt = vec![1.0; 5];
    nm.gemv_transpose(2.0, &x, -1.0, &mut yt);
    for j in 0..5 {
        let s: f64 = (0..5).map(|i| d[(i, j)] * x[i]).sum();
        assert!(close(yt[j], 2.0 * s - 1.0), "column {j}");
    }
    assert!(matches!(nm.mul_vec(&x[..4]), Err(NumericsError::DimensionMismatch { .. })));
}

#[test]
fn uniform_block_ends_cover_n() {
    assert_eq!(uniform_block_ends(7, 3).expect("positive size"), vec![3, 6, 7]);
    assert_eq!(uniform_block_ends(6, 3).expect("positive size"), vec![3, 6]);
    assert_eq!(uniform_block_ends(0, 3).expect("positive size"), Vec::<usize>::new());
    assert!(matches!(uniform_block_ends(4, 0), Err(NumericsError::InvalidInput { .. })));
}

#[test]
fn conversions_check_block_ends_against_the_shape() {
    let d = example_dense();
    let r = SparseBlockMatrix::from_dense(d.as_ref(), &[2, 4], &[5]);
    assert!(matches!(r, Err(NumericsError::DimensionMismatch { what: "last row block end", expected: 5, found: 4 })));
    let r = SparseBlockMatrix::from_dense(d.as_ref(), &[5], &[2, 6]);
    assert!(matches!(r, Err(NumericsError::DimensionMismatch { what: "last column block end", .. })));
    let r = SparseBlockMatrix::from_dense(d.as_ref(), &[3, 3, 5], &[5]);
    assert!(invalid_input(r));
    let mut bad = d.clone();
    bad[(4, 0)] = f64::NAN;
    let r = SparseBlockMatrix::from_dense(bad.as_ref(), &[2, 5], &[2, 5]);
    assert!(matches!(r, Err(NumericsError::NonFinite { .. })));
    // The dense example has an all-zero block (1, 0), which is dropped.
    let sbm = SparseBlockMatrix::from_dense(d.as_ref(), &[2, 5], &[2, 5]).expect("valid ends");
    assert_eq!(sbm, example());
    let nm = NumericsMatrix::Dense(d);
    assert!(matches!(nm.to_storage(Storage::SparseBlock), Err(NumericsError::InvalidInput { .. })));
    assert_eq!(nm.to_storage(Storage::Sparse).expect("always possible").storage(), Storage::Sparse);
}

#[test]
fn submatrix_checks_its_range() {
    let nm = NumericsMatrix::SparseBlock(example());
    assert!(matches!(nm.submatrix(3, 0, 3, 1), Err(NumericsError::DimensionMismatch { expected: 5, found: 6, .. })));
    assert!(matches!(nm.diagonal_block(usize::MAX, 2), Err(NumericsError::DimensionMismatch { .. })));
    let b = nm.diagonal_block(1, 3).expect("in range");
    assert_eq!(b, mat![[4.0, 0.0, 7.0], [0.0, 8.0, 9.0], [0.0, 11.0, 12.0]]);
    assert_eq!(nm.diagonal(), vec![1.0, 4.0, 8.0, 12.0, 16.0]);
}

#[test]
fn products_check_dimensions_and_block_structures() {
    let a = NumericsMatrix::SparseBlock(example());
    let tall = NumericsMatrix::Dense(Mat::zeros(4, 2));
    assert!(matches!(a.matmul(&tall), Err(NumericsError::DimensionMismatch { expected: 5, found: 4, .. })));
    assert!(matches!(a.matmul_transpose_left(&tall), Err(NumericsError::DimensionMismatch { .. })));
    // Same sizes, different inner block ends: the SBM product refuses, the generic one falls back.
    let other = example().to_dense();
    let b = SparseBlockMatrix::from_dense(other.as_ref(), &[1, 5], &[5]).expect("valid ends");
    assert!(invalid_input(example().matmul(&b)));
    let c = a.matmul(&NumericsMatrix::SparseBlock(b)).expect("sizes agree");
    assert_eq!(c.storage(), Storage::Sparse);
    let reference = example_dense() * example_dense();
    assert_eq!(c.to_dense(), reference);
    let c = a.matmul(&a).expect("conforming");
    assert_eq!(c.storage(), Storage::SparseBlock);
    assert_eq!(c.to_dense(), reference);
}

/// `copy_to_col_major` writes the same column-major entries from every storage, over a buffer
/// holding stale values.
#[test]
fn copy_to_col_major_agrees_across_storages() {
    let sbm = NumericsMatrix::SparseBlock(example());
    let dense = example_dense();
    let expected: Vec<f64> = (0..5).flat_map(|j| (0..5).map(move |i| (i, j))).map(|(i, j)| dense[(i, j)]).collect();
    for m in [
        NumericsMatrix::Dense(dense.clone()),
        sbm.clone(),
        NumericsMatrix::Sparse(sbm.to_csr()),
        NumericsMatrix::Sparse(sbm.to_csc()),
    ] {
        let mut out = vec![f64::NAN; 25];
        m.copy_to_col_major(&mut out);
        assert_eq!(
            out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{:?}",
            m.storage()
        );
    }
}
