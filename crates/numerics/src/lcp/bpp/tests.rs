//! Unit tests of the block principal pivoting solver: CSC assembly, symmetry detection, the
//! Murty fall-back and option validation.

use super::*;
use crate::matrix::SparseBlockMatrix;
use faer::Mat;
use sprs::TriMat;

fn solve(solver: &mut BppSolver, problem: &LcpProblem) -> (SolverReport, Vec<f64>) {
    let n = problem.size();
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    let report = solver.solve(problem, &mut z, &mut w).expect("lengths agree");
    (report, z)
}

#[test]
fn csc_of_csr_matrix_sums_duplicates_and_adds_the_diagonal() {
    // [[0, 2], [3, 4]] in CSR with (0, 0) not stored and (1, 0) given twice (1 + 2).
    let mut t = TriMat::new((2, 2));
    t.add_triplet(0, 1, 2.0);
    t.add_triplet(1, 0, 1.0);
    t.add_triplet(1, 0, 2.0);
    t.add_triplet(1, 1, 4.0);
    let csr: sprs::CsMat<f64> = t.to_csr();
    let mut ws = BppWorkspace::default();
    ws.build_csc(&NumericsMatrix::Sparse(csr));
    assert_eq!(ws.col_ptr, vec![0, 2, 4]);
    assert_eq!(ws.row_idx, vec![0, 1, 0, 1]);
    let expected = [0.0, 3.0, 2.0, 4.0];
    assert!(ws.values.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-15), "{:?}", ws.values);
    assert!(!ws.csc_is_symmetric());
}

#[test]
fn csc_of_sparse_block_matrix_matches_its_dense_form() {
    let dense = Mat::from_fn(5, 5, |i, j| if i.abs_diff(j) <= 1 { (1 + i + 5 * j) as f64 } else { 0.0 });
    let sbm = SparseBlockMatrix::from_dense(dense.as_ref(), &[2, 3, 5], &[2, 3, 5]).expect("valid block ends");
    let mut ws = BppWorkspace::default();
    ws.build_csc(&NumericsMatrix::SparseBlock(sbm));
    for j in 0..5 {
        let rows = &ws.row_idx[ws.col_ptr[j]..ws.col_ptr[j + 1]];
        assert!(rows.windows(2).all(|p| p[0] < p[1]), "column {j} sorted: {rows:?}");
        for i in 0..5 {
            assert!((ws.csc_get(i, j) - dense[(i, j)]).abs() < 1e-15, "({i}, {j})");
        }
    }
}

/// A symmetric positive definite tridiagonal chain in sparse-block storage with 1×1 blocks.
fn chain(n: usize) -> NumericsMatrix {
    let mut blocks = Vec::new();
    for i in 0..n {
        blocks.push((i, i, faer::mat![[2.5]]));
        if i + 1 < n {
            blocks.push((i, i + 1, faer::mat![[-1.0]]));
            blocks.push((i + 1, i, faer::mat![[-1.0]]));
        }
    }
    let ends: Vec<usize> = (1..=n).collect();
    let sbm = SparseBlockMatrix::from_blocks(ends.clone(), ends, blocks, crate::matrix::DuplicateBlocks::Error)
        .expect("valid blocks");
    NumericsMatrix::SparseBlock(sbm)
}

#[test]
fn sparse_path_reuses_the_symbolic_factorization_across_solves() {
    let n = 200;
    let q: Vec<f64> = (0..n).map(|i| if i % 7 == 3 { 1.0 } else { -1.0 - (i % 5) as f64 }).collect();
    let problem = LcpProblem::new(chain(n), q).expect("valid problem");
    let mut solver = BppSolver::new(BppOptions::default()).expect("valid options");
    let (report, _) = solve(&mut solver, &problem);
    assert!(report.is_converged(), "{report:?}");
    assert!(!solver.workspace.dense && solver.workspace.symmetric);
    assert!(matches!(solver.workspace.factor, Factor::SparseLlt));
    let ptr = solver.workspace.symbolic.as_ref().map(|s| s as *const SymbolicCholesky<usize>);
    let (report2, _) = solve(&mut solver, &problem);
    assert!(report2.is_converged());
    let ptr2 = solver.workspace.symbolic.as_ref().map(|s| s as *const SymbolicCholesky<usize>);
    assert_eq!(ptr, ptr2, "the symbolic factorization is kept");
}

#[test]
fn nonsymmetric_p_matrix_uses_lu() {
    // M = [[2, 1], [-1, 2]] (positive definite, not symmetric), q = (-1, -1).
    let m = faer::mat![[2.0, 1.0], [-1.0, 2.0]];
    let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![-1.0, -1.0]).expect("valid problem");
    let mut solver = BppSolver::new(BppOptions::default()).expect("valid options");
    let (report, z) = solve(&mut solver, &problem);
    assert!(report.is_converged(), "{report:?}");
    assert!(matches!(solver.workspace.factor, Factor::DenseLu { .. }));
    // 2 z0 + z1 = 1, −z0 + 2 z1 = 1: z = (0.2, 0.6).
    assert!((z[0] - 0.2).abs() < 1e-14 && (z[1] - 0.6).abs() < 1e-14, "{z:?}");
}

#[test]
fn murty_fallback_solves_with_no_block_budget() {
    // With max_block_failures = 0, any round that does not lower the count pivots one index.
    let n = 12;
    let m = Mat::from_fn(n, n, |i, j| if i == j { 4.0 } else { 1.0 / (1.0 + (i + 2 * j) as f64) });
    let q: Vec<f64> = (0..n).map(|i| ((i * 7 % 5) as f64) - 2.5).collect();
    let problem = LcpProblem::new(NumericsMatrix::Dense(m), q).expect("valid problem");
    let mut solver = BppSolver::new(BppOptions::default().with_max_block_failures(0)).expect("valid options");
    let (report, _) = solve(&mut solver, &problem);
    assert!(report.is_converged(), "{report:?}");
    assert!(report.residual <= 1e-10);
}

#[test]
fn singular_principal_submatrix_is_a_breakdown() {
    // M = 0, q = (-1): z must solve 0 z = 1, which has no solution.
    let problem = LcpProblem::new(NumericsMatrix::Dense(Mat::zeros(1, 1)), vec![-1.0]).expect("valid problem");
    let mut solver = BppSolver::new(BppOptions::default()).expect("valid options");
    let (report, _) = solve(&mut solver, &problem);
    assert_eq!(report.status, SolverStatus::NumericalBreakdown);
}

#[test]
fn invalid_options_are_rejected() {
    let bad = [
        BppOptions::default().with_tolerance(0.0),
        BppOptions::default().with_tolerance(f64::NAN),
        BppOptions::default().with_max_iterations(0),
        BppOptions::default().with_feasibility_tolerance(-1e-3),
        BppOptions::default().with_feasibility_tolerance(1.0),
    ];
    for o in bad {
        assert!(matches!(BppSolver::new(o), Err(NumericsError::InvalidOption { .. })));
    }
}
