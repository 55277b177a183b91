//! Unit tests of the enumerative solver: enumeration orders, the small linear solver, pinned
//! case counts, failure statuses and the large-`n` guard.

use faer::Mat;

use super::*;
use crate::matrix::NumericsMatrix;

fn lcp(m: Mat<f64>, q: &[f64]) -> LcpProblem {
    LcpProblem::new(NumericsMatrix::Dense(m), q.to_vec()).expect("valid test problem")
}

fn solve_with(options: EnumOptions, problem: &LcpProblem) -> (SolverReport, Vec<f64>) {
    let mut solver = EnumSolver::new(options).expect("valid options");
    let n = problem.size();
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    let report = solver.solve(problem, &mut z, &mut w).expect("lengths agree");
    (report, z)
}

fn all_sets(order: EnumOrder, n: usize) -> Vec<Vec<usize>> {
    let mut cases = CaseIter::default();
    cases.reset(order, n);
    let mut out = Vec::new();
    while let Some(set) = cases.advance() {
        out.push(set.to_vec());
    }
    out
}

#[test]
fn smallest_first_order_lists_every_set_by_size() {
    let sets = all_sets(EnumOrder::SmallestFirst, 3);
    let expected: Vec<Vec<usize>> =
        vec![vec![], vec![0], vec![1], vec![2], vec![0, 1], vec![0, 2], vec![1, 2], vec![0, 1, 2]];
    assert_eq!(sets, expected);
    assert_eq!(all_sets(EnumOrder::SmallestFirst, 10).len(), 1 << 10);
}

#[test]
fn siconos_order_counts_in_binary_with_bit_i_excluding_i() {
    // Case k: bit i of k set means zᵢ = 0 (Siconos' enum_tool.c).
    let sets = all_sets(EnumOrder::Siconos, 3);
    let expected: Vec<Vec<usize>> =
        vec![vec![0, 1, 2], vec![1, 2], vec![0, 2], vec![2], vec![0, 1], vec![1], vec![0], vec![]];
    assert_eq!(sets, expected);
}

#[test]
fn gaussian_elimination_solves_and_detects_singularity() {
    // A needs a row exchange (zero leading entry); x = (1, 2, 3).
    let a_rows = [[0.0, 2.0, 1.0], [1.0, 1.0, 1.0], [4.0, -1.0, 2.0]];
    let mut a: Vec<f64> = (0..3).flat_map(|j| a_rows.iter().map(move |row| row[j])).collect();
    let mut x = vec![7.0, 6.0, 8.0];
    assert!(lu_solve(3, &mut a, &mut x, 1e-14));
    for (xi, expected) in x.iter().zip([1.0, 2.0, 3.0]) {
        assert!((xi - expected).abs() < 1e-14, "{x:?}");
    }
    let mut singular = vec![1.0, 2.0, 2.0, 4.0];
    let mut rhs = vec![1.0, 1.0];
    assert!(!lu_solve(2, &mut singular, &mut rhs, 1e-14));
}

/// Problems of the Siconos collection (the matrix as Siconos 4.4 reads the `.dat` file,
/// column-major). In Siconos' order, `iterations − 1` is the index of the accepted case,
/// which Siconos 4.4 reports as `SICONOS_LCP_IPARAM_ENUM_CURRENT_ENUM` (`siconos44-lcp.csv`).
#[test]
fn siconos_order_accepts_the_case_siconos_accepts() {
    let cases: [(&str, Mat<f64>, Vec<f64>, usize); 4] = [
        ("CPS_2", faer::mat![[0.0, -1.0, 2.0], [2.0, 0.0, -2.0], [-1.0, 1.0, 0.0]], vec![-3.0, 6.0, -1.0], 1),
        (
            "Pang_isolated_sol",
            faer::mat![[0.0, -1.0, -1.0], [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]],
            vec![0.0, -1.0, 1.0],
            2,
        ),
        (
            "ortiz",
            faer::mat![[3.0, 1.0, 0.0, -1.0], [-1.0, 2.0, 1.0, 1.0], [0.0, 1.0, 3.0, -1.0], [0.0, 0.0, 1.0, 2.0]],
            vec![-2.0, 1.0, -1.0, 1.0],
            10,
        ),
        (
            "exp_murty",
            Mat::from_fn(6, 6, |i, j| match i.cmp(&j) {
                std::cmp::Ordering::Equal => 1.0,
                std::cmp::Ordering::Less => 2.0,
                std::cmp::Ordering::Greater => 0.0,
            }),
            vec![-1.0; 6],
            31,
        ),
    ];
    for (name, m, q, siconos_index) in cases {
        let problem = lcp(m, &q);
        let (report, _) = solve_with(EnumOptions::default().with_guess_first(false).with_siconos_order(true), &problem);
        assert_eq!(report.status, SolverStatus::Converged, "{name}");
        assert_eq!(report.iterations - 1, siconos_index, "{name}");
        // Smallest-first finds a solution too (the same one: these problems have one here).
        let (report, _) = solve_with(EnumOptions::default().with_guess_first(false), &problem);
        assert_eq!(report.status, SolverStatus::Converged, "{name}");
    }
}

#[test]
fn smallest_first_counts_are_pinned() {
    // M = [[2, 1], [1, 2]]: q = (−5, 1) is solved by J = {0}, the 2nd set; q = (−5, −6) by
    // J = {0, 1}, the 4th and last.
    let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
    let (report, z) = solve_with(EnumOptions::default().with_guess_first(false), &lcp(m.clone(), &[-5.0, 1.0]));
    assert_eq!((report.status, report.iterations), (SolverStatus::Converged, 2));
    assert!((z[0] - 2.5).abs() < 1e-15 && z[1].abs() < 1e-15);
    let (report, z) = solve_with(EnumOptions::default().with_guess_first(false), &lcp(m, &[-5.0, -6.0]));
    assert_eq!((report.status, report.iterations), (SolverStatus::Converged, 4));
    assert!((z[0] - 4.0 / 3.0).abs() < 1e-14 && (z[1] - 7.0 / 3.0).abs() < 1e-14);
}

#[test]
fn singular_sets_are_skipped() {
    // M = [[1, 1], [1, 1]], q = (−1, −1): M_JJ is singular for J = {0, 1}; J = {0} gives
    // z = (1, 0), w = (0, 0) (Siconos' lcp_CPS_1, whose solutions are z₁ + z₂ = 1).
    let problem = lcp(faer::mat![[1.0, 1.0], [1.0, 1.0]], &[-1.0, -1.0]);
    let (report, z) = solve_with(EnumOptions::default().with_guess_first(false).with_siconos_order(true), &problem);
    assert_eq!((report.status, report.iterations), (SolverStatus::Converged, 2));
    assert!((z[0] - 0.0).abs() < 1e-15 && (z[1] - 1.0).abs() < 1e-15, "{z:?}");
}

#[test]
fn infeasible_problem_tries_every_set_and_stalls() {
    let problem = lcp(faer::mat![[-1.0, 0.0], [0.0, -1.0]], &[-1.0, -2.0]);
    let (report, z) = solve_with(EnumOptions::default().with_guess_first(false), &problem);
    assert_eq!(report.status, SolverStatus::Stalled);
    assert_eq!(report.iterations, 4);
    assert_eq!(z, vec![0.0, 0.0]);
    assert!(report.residual > 0.5);
}

#[test]
fn the_cap_stops_the_enumeration() {
    let problem = lcp(faer::mat![[2.0, 1.0], [1.0, 2.0]], &[-5.0, -6.0]);
    let (report, _) = solve_with(EnumOptions::default().with_guess_first(false).with_max_iterations(3), &problem);
    assert_eq!(report.status, SolverStatus::MaxIterations);
    assert_eq!(report.iterations, 3);
}

#[test]
fn large_problems_hit_the_cap_without_overflow() {
    // n = 70 > 64: no bit mask is involved. M = I, q = −1: the solution z = 1 has J = all.
    let n = 70;
    let problem = lcp(Mat::identity(n, n), &vec![-1.0; n]);
    let (report, _) = solve_with(EnumOptions::default().with_guess_first(false).with_max_iterations(100), &problem);
    assert_eq!(report.status, SolverStatus::MaxIterations);
    assert_eq!(report.iterations, 100);
    // Siconos' order starts with J = all, the solution.
    let (report, z) = solve_with(EnumOptions::default().with_guess_first(false).with_siconos_order(true), &problem);
    assert_eq!((report.status, report.iterations), (SolverStatus::Converged, 1));
    assert!(z.iter().all(|zi| (zi - 1.0).abs() < 1e-15));
}

#[test]
fn warm_start_at_a_solution_tries_no_set() {
    let problem = lcp(faer::mat![[2.0, 1.0], [1.0, 2.0]], &[-5.0, -6.0]);
    let mut solver = EnumSolver::new(EnumOptions::default()).expect("valid options");
    let (mut z, mut w) = (vec![4.0 / 3.0, 7.0 / 3.0], vec![0.0; 2]);
    let report = solver.solve(&problem, &mut z, &mut w).expect("lengths agree");
    assert_eq!((report.status, report.iterations), (SolverStatus::Converged, 0));
}

#[test]
fn invalid_options_and_lengths_are_typed_errors() {
    for options in [
        EnumOptions::default().with_tolerance(0.0),
        EnumOptions::default().with_tolerance(f64::NAN),
        EnumOptions::default().with_max_iterations(0),
    ] {
        assert!(matches!(EnumSolver::new(options), Err(NumericsError::InvalidOption { .. })));
    }
    let problem = lcp(faer::mat![[2.0, 1.0], [1.0, 2.0]], &[-5.0, -6.0]);
    let mut solver = EnumSolver::new(EnumOptions::default()).expect("valid options");
    let (mut z, mut w) = (vec![0.0; 3], vec![0.0; 2]);
    assert!(matches!(solver.solve(&problem, &mut z, &mut w), Err(NumericsError::DimensionMismatch { .. })));
}

/// The first guess `J = {i : q_i < 0}` solves a diagonal LCP at once, where smallest-first
/// enumeration needs every one of the 2ⁿ sets (the case of Siconos' `lcp_trivial`).
#[test]
fn the_negative_q_guess_solves_a_diagonal_lcp_first() {
    let n = 9;
    let m = Mat::from_fn(n, n, |i, j| if i == j { (i + 1) as f64 } else { 0.0 });
    let problem = lcp(m, &[-1.0; 9]);
    let (report, z) = solve_with(EnumOptions::default(), &problem);
    assert!(report.is_converged());
    assert_eq!(report.iterations, 1);
    for (i, zi) in z.iter().enumerate() {
        assert!((zi - 1.0 / (i + 1) as f64).abs() < 1e-15);
    }
    let (ordered, _) = solve_with(EnumOptions::default().with_guess_first(false), &problem);
    assert!(ordered.is_converged());
    assert_eq!(ordered.iterations, 1 << n);
}
