//! Integration tests: matrix. Property tests of every product against the dense product, of
//! every conversion (exact round trips), of entry and block access; checks of the exported
//! LCP strategies' mathematical claims.

use faer::Mat;
use nonsmooth_numerics::NumericsError;
use nonsmooth_numerics::matrix::{DuplicateBlocks, NumericsMatrix, SparseBlockMatrix, Storage, uniform_block_ends};
use nonsmooth_numerics::proptest::{
    block_ends, dense_matrix, p_matrix_lcp, psd_lcp, singular_psd_lcp, sparse_block_matrix,
    sparse_block_matrix_with_structure, sparse_matrix, square_sparse_block_matrix,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// Relative tolerance of every product against the dense reference.
const TOL: f64 = 1e-12;

/// The four storages of a sparse-block matrix: dense, itself, CSR, CSC.
fn all_storages(m: &SparseBlockMatrix) -> [NumericsMatrix; 4] {
    let nm = NumericsMatrix::SparseBlock(m.clone());
    [
        NumericsMatrix::Dense(nm.to_dense()),
        nm.clone(),
        NumericsMatrix::Sparse(nm.to_csr()),
        NumericsMatrix::Sparse(nm.to_csc()),
    ]
}

/// `|A| |B|` entrywise, the scale of the rounding error of `A B`.
fn abs_product(a: &Mat<f64>, b: &Mat<f64>) -> Mat<f64> {
    Mat::from_fn(a.nrows(), b.ncols(), |i, j| (0..a.ncols()).map(|k| (a[(i, k)] * b[(k, j)]).abs()).sum())
}

/// Checks `|c_ij − r_ij| ≤ TOL · s_ij` for every entry (exact equality where `s_ij = 0`).
fn assert_close(c: &Mat<f64>, r: &Mat<f64>, s: &Mat<f64>, what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!((c.nrows(), c.ncols()), (r.nrows(), r.ncols()), "{}: shape", what);
    for j in 0..r.ncols() {
        for i in 0..r.nrows() {
            let err = (c[(i, j)] - r[(i, j)]).abs();
            prop_assert!(
                err <= TOL * s[(i, j)],
                "{}: entry ({}, {}) is {} instead of {}",
                what,
                i,
                j,
                c[(i, j)],
                r[(i, j)]
            );
        }
    }
    Ok(())
}

/// Block ends: random sizes half the time, and otherwise `count` blocks of one size `b`
/// (1 to 4), the case of the unrolled uniform kernels (FC2D: 2, FC3D: 3).
fn any_block_ends(b: usize, count: usize) -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![block_ends(4, 4), Just(uniform_block_ends(b * count, b).expect("b ≥ 1"))]
}

/// A sparse-block matrix with random or uniform (`b × b` blocks) structure.
fn any_sparse_block_matrix() -> impl Strategy<Value = SparseBlockMatrix> {
    prop_oneof![
        sparse_block_matrix(5, 4),
        (1..=4usize, 1..=5usize, 1..=5usize).prop_flat_map(|(b, nr, nc)| {
            sparse_block_matrix_with_structure(
                uniform_block_ends(b * nr, b).expect("b ≥ 1"),
                uniform_block_ends(b * nc, b).expect("b ≥ 1"),
            )
        }),
    ]
}

/// Two sparse-block matrices `A` (R × K blocks) and `B` (K × C blocks) whose inner block
/// structures conform, and a `B2` with the same sizes as `B` but (usually) another inner
/// block structure.
fn conforming_pair() -> impl Strategy<Value = (SparseBlockMatrix, SparseBlockMatrix, SparseBlockMatrix)> {
    (1..=4usize, 1..=4usize)
        .prop_flat_map(|(b, count)| {
            (any_block_ends(b, count), any_block_ends(b, count), any_block_ends(b, count), 1..4usize)
        })
        .prop_flat_map(|(r, k, c, s)| {
            let n = *k.last().expect("at least one block");
            let k2 = uniform_block_ends(n, s).expect("s ≥ 1");
            (
                sparse_block_matrix_with_structure(r, k.clone()),
                sparse_block_matrix_with_structure(k, c.clone()),
                sparse_block_matrix_with_structure(k2, c),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(0x6d61), ..ProptestConfig::with_cases(96) })]

    /// `y ← α A x + β y` and `y ← α Aᵀ x + β y` agree with the dense formula in every storage.
    #[test]
    fn gemv_matches_dense(
        (m, x, xt, y, yt, alpha, beta) in any_sparse_block_matrix().prop_flat_map(|m| {
            let (r, c) = (m.nrows(), m.ncols());
            (Just(m), vec(-5.0..5.0f64, c), vec(-5.0..5.0f64, r), vec(-5.0..5.0f64, r), vec(-5.0..5.0f64, c),
             -2.0..2.0f64, prop_oneof![Just(0.0), Just(1.0), -2.0..2.0f64])
        })
    ) {
        let d = m.to_dense();
        let (r, c) = (d.nrows(), d.ncols());
        for a in all_storages(&m) {
            let mut out = y.clone();
            a.gemv(alpha, &x, beta, &mut out);
            for i in 0..r {
                let s: f64 = (0..c).map(|j| d[(i, j)] * x[j]).sum();
                let scale: f64 = (0..c).map(|j| (d[(i, j)] * x[j]).abs()).sum::<f64>() * alpha.abs() + (beta * y[i]).abs();
                prop_assert!((out[i] - (alpha * s + beta * y[i])).abs() <= TOL * scale, "{:?} gemv row {}", a.storage(), i);
            }
            let mut out = yt.clone();
            a.gemv_transpose(alpha, &xt, beta, &mut out);
            for j in 0..c {
                let s: f64 = (0..r).map(|i| d[(i, j)] * xt[i]).sum();
                let scale: f64 = (0..r).map(|i| (d[(i, j)] * xt[i]).abs()).sum::<f64>() * alpha.abs() + (beta * yt[j]).abs();
                prop_assert!((out[j] - (alpha * s + beta * yt[j])).abs() <= TOL * scale, "{:?} gemv_transpose col {}", a.storage(), j);
            }
        }
    }

    /// `A B` and `Aᵀ C` agree with the dense product for every pair of storages, with conforming
    /// and non-conforming block structures; conforming sparse-block factors give a sparse-block
    /// product with the outer structures.
    #[test]
    fn matmul_matches_dense((a, b, b2) in conforming_pair()) {
        let (da, db, db2) = (a.to_dense(), b.to_dense(), b2.to_dense());
        let reference = &da * &db;
        let scale = abs_product(&da, &db);
        let reference2 = &da * &db2;
        let scale2 = abs_product(&da, &db2);
        for x in all_storages(&a) {
            for (y, y2) in all_storages(&b).iter().zip(all_storages(&b2).iter()) {
                let what = format!("{:?} × {:?}", x.storage(), y.storage());
                let c = x.matmul(y).expect("inner sizes agree");
                assert_close(&c.to_dense(), &reference, &scale, &what)?;
                let c2 = x.matmul(y2).expect("inner sizes agree");
                assert_close(&c2.to_dense(), &reference2, &scale2, &what)?;
            }
        }
        let c = NumericsMatrix::SparseBlock(a.clone()).matmul(&NumericsMatrix::SparseBlock(b.clone())).expect("conforming");
        match c {
            NumericsMatrix::SparseBlock(c) => {
                prop_assert_eq!(c.row_block_ends(), a.row_block_ends());
                prop_assert_eq!(c.col_block_ends(), b.col_block_ends());
            }
            other => prop_assert!(false, "sparse-block product stored as {:?}", other.storage()),
        }
        // Aᵀ (A B): the left factor shares A's rows.
        let ab = NumericsMatrix::Dense(reference.clone());
        let reference_t = da.transpose() * &reference;
        let scale_t = abs_product(&da.transpose().to_owned(), &reference);
        for x in all_storages(&a) {
            for y in [ab.clone(), NumericsMatrix::Sparse(ab.to_csr()), NumericsMatrix::Sparse(ab.to_csc())] {
                let c = x.matmul_transpose_left(&y).expect("rows agree");
                assert_close(&c.to_dense(), &reference_t, &scale_t, &format!("{:?}ᵀ × {:?}", x.storage(), y.storage()))?;
            }
            let t = x.transpose();
            prop_assert_eq!(t.storage(), x.storage());
            prop_assert_eq!(t.to_dense(), da.transpose().to_owned());
        }
    }

    /// Sparse × sparse through sprs, for general (non-block) sparse matrices in both compressions.
    #[test]
    fn sparse_matmul_matches_dense(
        (a, b) in (1..7usize, 1..7usize, 1..7usize).prop_flat_map(|(r, k, c)| (sparse_matrix(r, k), sparse_matrix(k, c)))
    ) {
        let (x, y) = (NumericsMatrix::Sparse(a), NumericsMatrix::Sparse(b));
        let (da, db) = (x.to_dense(), y.to_dense());
        let c = x.matmul(&y).expect("inner sizes agree");
        prop_assert_eq!(c.storage(), Storage::Sparse);
        assert_close(&c.to_dense(), &(&da * &db), &abs_product(&da, &db), "sparse × sparse")?;
        let d = NumericsMatrix::Dense(da.clone()).matmul(&y).expect("inner sizes agree");
        prop_assert_eq!(d.storage(), Storage::Dense);
        assert_close(&d.to_dense(), &(&da * &db), &abs_product(&da, &db), "dense × sparse")?;
    }

    /// Every conversion round-trips exactly.
    #[test]
    fn conversions_round_trip(m in any_sparse_block_matrix(), other_ends in (1..4usize, 1..4usize)) {
        let (re, ce) = (m.row_block_ends().to_vec(), m.col_block_ends().to_vec());
        let d = m.to_dense();
        // Through CSR and CSC, the structure and values come back exactly.
        prop_assert_eq!(&SparseBlockMatrix::from_sparse(&m.to_csr(), &re, &ce).expect("same shape"), &m);
        prop_assert_eq!(&SparseBlockMatrix::from_sparse(&m.to_csc(), &re, &ce).expect("same shape"), &m);
        prop_assert_eq!(&m.transpose().transpose(), &m);
        prop_assert_eq!(m.transpose().to_dense(), d.transpose().to_owned());
        // Through dense, the values come back and exactly the blocks with a nonzero entry stay.
        let back = SparseBlockMatrix::from_dense(d.as_ref(), &re, &ce).expect("same shape");
        prop_assert_eq!(back.to_dense(), d.clone());
        let nonzero_blocks = (0..m.nnz_blocks()).filter(|&k| m.block(k).iter().any(|&v| v != 0.0)).count();
        prop_assert_eq!(back.nnz_blocks(), nonzero_blocks);
        // Dense ↔ CSR/CSC, CSR ↔ CSC.
        let nd = NumericsMatrix::Dense(d.clone());
        let (csr, csc) = (nd.to_csr(), nd.to_csc());
        prop_assert!(csr.is_csr() && csc.is_csc());
        prop_assert_eq!(NumericsMatrix::Sparse(csr.clone()).to_dense(), d.clone());
        prop_assert_eq!(NumericsMatrix::Sparse(csc.clone()).to_dense(), d.clone());
        prop_assert_eq!(&csc.to_csr(), &csr);
        prop_assert_eq!(&csr.to_csc(), &csc);
        prop_assert_eq!(csr.nnz(), (0..d.ncols()).map(|j| d.col_as_slice(j).iter().filter(|&&v| v != 0.0).count()).sum::<usize>());
        // Into another block structure and back.
        let re2 = uniform_block_ends(m.nrows(), other_ends.0).expect("positive size");
        let ce2 = uniform_block_ends(m.ncols(), other_ends.1).expect("positive size");
        for src in all_storages(&m) {
            let other = src.to_sparse_block(&re2, &ce2).expect("same shape");
            prop_assert_eq!(other.to_dense(), d.clone());
            let again = NumericsMatrix::SparseBlock(other).to_sparse_block(&re, &ce).expect("same shape");
            prop_assert_eq!(again.to_dense(), d.clone());
            for storage in [Storage::Dense, Storage::Sparse] {
                let converted = src.to_storage(storage).expect("always possible");
                prop_assert_eq!(converted.storage(), storage);
                prop_assert_eq!(converted.to_dense(), d.clone());
            }
        }
    }

    /// Dense → sparse-block → dense is exact for any dense matrix and block structure.
    #[test]
    fn dense_to_sparse_block_round_trip(
        (d, re, ce) in (block_ends(4, 4), block_ends(4, 4)).prop_flat_map(|(re, ce)| {
            (dense_matrix(*re.last().expect("one block"), *ce.last().expect("one block")), Just(re), Just(ce))
        })
    ) {
        let m = SparseBlockMatrix::from_dense(d.as_ref(), &re, &ce).expect("same shape");
        prop_assert_eq!(m.to_dense(), d.clone());
        prop_assert!((0..m.nnz_blocks()).all(|k| m.block(k).iter().any(|&v| v != 0.0)));
        prop_assert_eq!(NumericsMatrix::Dense(d.clone()).to_sparse_block(&re, &ce).expect("same shape"), m);
    }

    /// `get`, `diagonal`, `submatrix` and `diagonal_block` agree with `to_dense` in every storage.
    #[test]
    fn entry_and_block_access_match_dense(
        (m, start, size) in square_sparse_block_matrix(5, 4).prop_flat_map(|m| {
            let n = m.nrows();
            (Just(m), 0..n).prop_flat_map(move |(m, s)| (Just(m), Just(s), 0..=n - s))
        })
    ) {
        let d = m.to_dense();
        let n = d.nrows();
        for a in all_storages(&m) {
            for i in 0..n {
                for j in 0..n {
                    prop_assert_eq!(a.get(i, j).to_bits(), d[(i, j)].to_bits(), "{:?} ({}, {})", a.storage(), i, j);
                }
            }
            let diag: Vec<f64> = (0..n).map(|i| d[(i, i)]).collect();
            prop_assert_eq!(a.diagonal(), diag);
            let block = a.diagonal_block(start, size).expect("in range");
            prop_assert_eq!(block, d.as_ref().submatrix(start, start, size, size).to_owned());
            let sub = a.submatrix(start, 0, size, n - start).expect("in range");
            prop_assert_eq!(sub, d.as_ref().submatrix(start, 0, size, n - start).to_owned());
            let too_big = a.diagonal_block(start, n - start + 1);
            prop_assert!(
                matches!(too_big, Err(NumericsError::DimensionMismatch { .. })),
                "block past the end accepted"
            );
        }
        // The precomputed diagonal positions agree with a search, and the blocks with the dense diagonal.
        for i in 0..m.n_block_rows() {
            prop_assert_eq!(m.diagonal_block_index(i), m.find_block(i, i));
            let (s, z) = (m.row_block_start(i), m.row_block_size(i));
            let expected = NumericsMatrix::SparseBlock(m.clone()).diagonal_block(s, z).expect("in range");
            match m.diagonal_block(i) {
                Some(b) => prop_assert_eq!(Mat::from_fn(z, z, |r, c| b[r + c * z]), expected),
                None => prop_assert_eq!(expected, Mat::<f64>::zeros(z, z)),
            }
        }
    }

    /// Block assembly from triplets in any order, with duplicates summed, equals the dense sum.
    #[test]
    fn from_blocks_sums_like_dense(
        (re, ce, blocks) in (block_ends(4, 3), block_ends(4, 3)).prop_flat_map(|(re, ce)| {
            let (nbr, nbc) = (re.len(), ce.len());
            let size = |e: &[usize], i: usize| if i == 0 { e[0] } else { e[i] - e[i - 1] };
            let (re2, ce2) = (re.clone(), ce.clone());
            let triplet = (0..nbr, 0..nbc).prop_flat_map(move |(i, j)| {
                (Just(i), Just(j), dense_matrix(size(&re2, i), size(&ce2, j)))
            });
            (Just(re), Just(ce), vec(triplet, 0..12))
        })
    ) {
        let m = SparseBlockMatrix::from_blocks(re.clone(), ce.clone(), blocks.clone(), DuplicateBlocks::Sum).expect("valid");
        let mut d = Mat::<f64>::zeros(*re.last().expect("one block"), *ce.last().expect("one block"));
        let start = |e: &[usize], i: usize| if i == 0 { 0 } else { e[i - 1] };
        // Sum in the given order (the stable sort keeps it), so the result is bit-identical.
        for (i, j, b) in &blocks {
            for c in 0..b.ncols() {
                for r in 0..b.nrows() {
                    d[(start(&re, *i) + r, start(&ce, *j) + c)] += b[(r, c)];
                }
            }
        }
        prop_assert_eq!(m.to_dense(), d);
        let mut positions: Vec<(usize, usize)> = blocks.iter().map(|(i, j, _)| (*i, *j)).collect();
        positions.sort_unstable();
        positions.dedup();
        prop_assert_eq!(m.nnz_blocks(), positions.len());
        let has_duplicates = positions.len() < blocks.len();
        let strict = SparseBlockMatrix::from_blocks(re, ce, blocks, DuplicateBlocks::Error);
        prop_assert_eq!(strict.is_err(), has_duplicates);
    }

    /// `p_matrix_lcp` gives P-matrices: every principal minor is positive (checked for n ≤ 5),
    /// and the matrix is strictly diagonally dominant by rows and columns.
    #[test]
    fn p_matrix_lcp_is_p((n, problem) in (1..=5usize).prop_flat_map(|n| (Just(n), p_matrix_lcp(n)))) {
        let m = problem.m().to_dense();
        prop_assert_eq!(problem.size(), n);
        for i in 0..n {
            let row: f64 = (0..n).filter(|&j| j != i).map(|j| m[(i, j)].abs()).sum();
            let col: f64 = (0..n).filter(|&j| j != i).map(|j| m[(j, i)].abs()).sum();
            prop_assert!(m[(i, i)] > row && m[(i, i)] > col);
        }
        for subset in 1u32..(1 << n) {
            let idx: Vec<usize> = (0..n).filter(|&i| subset & (1 << i) != 0).collect();
            let sub = Mat::from_fn(idx.len(), idx.len(), |r, c| m[(idx[r], idx[c])]);
            prop_assert!(sub.determinant() > 0.0, "principal minor {:?} not positive", idx);
        }
    }

    /// `psd_lcp` gives symmetric positive semidefinite matrices.
    #[test]
    fn psd_lcp_is_psd(problem in (1..=8usize).prop_flat_map(psd_lcp)) {
        let m = problem.m().to_dense();
        prop_assert_eq!(&m, &m.transpose().to_owned());
        let eig = m.self_adjoint_eigenvalues(faer::Side::Lower).expect("symmetric eigenvalues converge");
        let largest = eig.iter().fold(0.0f64, |a, &b| a.max(b.abs()));
        prop_assert!(eig[0] >= -1e-12 * largest.max(1.0), "eigenvalue {}", eig[0]);
    }

    /// `singular_psd_lcp` gives a singular PSD matrix (n ≥ 2) and a solution of the LCP.
    #[test]
    fn singular_psd_lcp_has_its_solution((problem, x0) in (1..=8usize).prop_flat_map(singular_psd_lcp)) {
        let n = problem.size();
        let m = problem.m().to_dense();
        let eig = m.self_adjoint_eigenvalues(faer::Side::Lower).expect("symmetric eigenvalues converge");
        let largest = eig.iter().fold(0.0f64, |a, &b| a.max(b.abs()));
        prop_assert!(eig[0] >= -1e-12 * largest.max(1.0));
        if n >= 2 {
            prop_assert!(eig[0] <= 1e-12 * largest.max(1.0), "smallest eigenvalue {} of a rank-deficient matrix", eig[0]);
        }
        prop_assert!(x0.iter().all(|&v| v >= 0.0));
        let mut w = vec![0.0; n];
        let err = problem.compute_error(&x0, &mut w).expect("lengths agree");
        // Integer data: the residual of x0 is exactly zero.
        prop_assert!(err <= 0.0, "x0 has error {}", err);
    }
}

/// A matrix with a stored block row but no stored block anywhere converts and multiplies.
#[test]
fn all_zero_sparse_block_matrix() {
    let z = SparseBlockMatrix::zeros(vec![2, 5], vec![3, 4]).expect("valid ends");
    let d = Mat::<f64>::zeros(5, 4);
    for a in all_storages(&z) {
        assert_eq!(a.to_dense(), d);
        assert_eq!(a.mul_vec(&[1.0; 4]).expect("right length"), vec![0.0; 5]);
        let c = a.matmul(&a.transpose()).expect("5×4 times 4×5");
        assert_eq!(c.to_dense(), Mat::<f64>::zeros(5, 5));
    }
}

/// Bad block ends in a conversion are typed errors.
#[test]
fn conversion_errors_are_typed() {
    let m = NumericsMatrix::Dense(Mat::from_fn(3, 3, |i, j| (i + j) as f64));
    assert!(matches!(m.to_sparse_block(&[1, 1, 3], &[3]), Err(NumericsError::InvalidInput { .. })));
    assert!(matches!(m.to_sparse_block(&[3], &[2]), Err(NumericsError::DimensionMismatch { .. })));
    let sparse = NumericsMatrix::Sparse(m.to_csc());
    assert!(matches!(sparse.to_sparse_block(&[4], &[3]), Err(NumericsError::DimensionMismatch { .. })));
    assert!(matches!(sparse.to_storage(Storage::SparseBlock), Err(NumericsError::InvalidInput { .. })));
}
