//! Unit tests of the projected Gauss–Seidel sweep.

use super::*;
use crate::matrix::SparseBlockMatrix;

fn problem_2x2() -> LcpProblem {
    // Siconos' `lcp_deudeu.dat`: M = [[2, 1], [1, 2]], q = (-5, -6); solution z = (4/3, 7/3).
    LcpProblem::new(NumericsMatrix::Dense(faer::mat![[2.0, 1.0], [1.0, 2.0]]), vec![-5.0, -6.0]).expect("valid problem")
}

fn assert_close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b} (tolerance {tol})");
}

#[test]
fn one_sweep_by_hand() {
    // z_0 = max(0, 0 - (-5)/2) = 2.5; then w_1 = -6 + 2.5 = -3.5, z_1 = max(0, 0 + 3.5/2) = 1.75.
    let problem = problem_2x2();
    let mut solver = PgsSolver::new(PgsOptions::default().with_max_iterations(1)).expect("valid options");
    let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
    let report = solver.solve(&problem, &mut z, &mut w).expect("solve runs");
    assert_eq!(report.status, SolverStatus::MaxIterations);
    assert_eq!(report.iterations, 1);
    assert_close(z[0], 2.5, 1e-15);
    assert_close(z[1], 1.75, 1e-15);
    // w is M z + q at the returned z.
    assert_close(w[0], 2.0 * 2.5 + 1.75 - 5.0, 1e-15);
    assert_close(w[1], 2.5 + 2.0 * 1.75 - 6.0, 1e-15);
}

#[test]
fn one_relaxed_sweep_by_hand() {
    // ω = 1.5: z_0 = 0 - 1.5 (-5)/2 = 3.75; w_1 = -6 + 3.75 = -2.25; z_1 = 0 - 1.5 (-2.25)/2 = 1.6875.
    let problem = problem_2x2();
    let options = PgsOptions::default().with_max_iterations(1).with_relaxation(1.5);
    let mut solver = PgsSolver::new(options).expect("valid options");
    assert_eq!(solver.name(), "psor");
    let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
    solver.solve(&problem, &mut z, &mut w).expect("solve runs");
    assert_close(z[0], 3.75, 1e-15);
    assert_close(z[1], 1.6875, 1e-15);
}

#[test]
fn iteration_count_matches_siconos_on_deudeu() {
    // Siconos 4.4 PGS on lcp_deudeu.dat at tolerance 1e-8: 14 iterations, error 3.34e-9.
    let problem = problem_2x2();
    let mut solver = PgsSolver::new(PgsOptions::default().with_tolerance(1e-8)).expect("valid options");
    let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
    let report = solver.solve(&problem, &mut z, &mut w).expect("solve runs");
    assert!(report.is_converged());
    assert_eq!(report.iterations, 14);
    assert_close(report.residual, 3.338822e-9, 1e-14);
}

#[test]
fn pinned_iteration_counts_at_1e_12() {
    let problem = problem_2x2();
    let mut counts = Vec::new();
    for options in [PgsOptions::default(), PgsOptions::psor()] {
        let mut solver = PgsSolver::new(options.with_tolerance(1e-12)).expect("valid options");
        let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
        let report = solver.solve(&problem, &mut z, &mut w).expect("solve runs");
        assert!(report.is_converged() && report.residual <= 1e-12);
        assert_close(z[0], 4.0 / 3.0, 1e-11);
        assert_close(z[1], 7.0 / 3.0, 1e-11);
        counts.push(report.iterations);
    }
    assert_eq!(counts, [PINNED_PGS_1E12, PINNED_PSOR_1E12]);
}

const PINNED_PGS_1E12: usize = 20;
const PINNED_PSOR_1E12: usize = 18;

#[test]
fn zero_diagonal_is_a_breakdown_not_an_error() {
    let m = faer::mat![[0.0, 1.0], [1.0, 2.0]];
    let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![-1.0, -1.0]).expect("valid problem");
    let mut solver = PgsSolver::new(PgsOptions::default()).expect("valid options");
    let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
    let report = solver.solve(&problem, &mut z, &mut w).expect("solve runs");
    assert_eq!(report.status, SolverStatus::NumericalBreakdown);
    assert_eq!(report.iterations, 0);
    assert_close(report.residual, 1.0, 1e-15);
}

#[test]
fn zero_diagonal_with_solved_warm_start_converges() {
    // q ≥ 0: z = 0 solves the LCP whatever M is.
    let m = faer::mat![[0.0, 1.0], [1.0, -2.0]];
    let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![1.0, 0.5]).expect("valid problem");
    let mut solver = PgsSolver::new(PgsOptions::default()).expect("valid options");
    let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
    let report = solver.solve(&problem, &mut z, &mut w).expect("solve runs");
    assert_eq!(report.status, SolverStatus::Converged);
    assert_eq!(report.iterations, 0);
}

#[test]
fn compressed_columns_of_a_sparse_block_matrix() {
    // 3x3 with blocks 2 + 1: [[4, 1, 0], [2, 5, 7], [0, 3, 6]].
    let sbm = SparseBlockMatrix::new(
        vec![2, 3],
        vec![2, 3],
        vec![0, 2, 4],
        vec![0, 1, 0, 1],
        vec![4.0, 2.0, 1.0, 5.0, 0.0, 7.0, 0.0, 3.0, 6.0],
    )
    .expect("valid sparse-block matrix");
    let m = NumericsMatrix::SparseBlock(sbm);
    let (mut col_ptr, mut row_idx, mut values, mut diag) = (Vec::new(), Vec::new(), Vec::new(), vec![0.0; 3]);
    crate::matrix::entries::fill_compressed(&m, false, &mut col_ptr, &mut row_idx, &mut values, &mut diag);
    let dense = m.to_dense();
    for j in 0..3 {
        let mut column = [0.0; 3];
        for p in col_ptr[j]..col_ptr[j + 1] {
            column[row_idx[p]] += values[p];
        }
        for (i, &c) in column.iter().enumerate() {
            assert_close(c, dense[(i, j)], 0.0);
        }
        for p in col_ptr[j] + 1..col_ptr[j + 1] {
            assert!(row_idx[p - 1] < row_idx[p], "rows sorted within a column");
        }
    }
    for (d, expected) in diag.iter().zip([4.0, 5.0, 6.0]) {
        assert_close(*d, expected, 0.0);
    }
}

#[test]
fn invalid_options_are_rejected() {
    let bad = [
        PgsOptions::default().with_tolerance(0.0),
        PgsOptions::default().with_tolerance(f64::NAN),
        PgsOptions::default().with_relaxation(0.0),
        PgsOptions::default().with_relaxation(2.0),
        PgsOptions::default().with_relaxation(f64::INFINITY),
        PgsOptions::default().with_error_evaluation_frequency(0),
    ];
    for options in bad {
        assert!(matches!(PgsSolver::new(options), Err(NumericsError::InvalidOption { .. })));
    }
}
