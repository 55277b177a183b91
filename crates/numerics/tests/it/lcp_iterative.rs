//! Integration tests of the iterative LCP solvers: projected Gauss–Seidel / PSOR and the
//! semismooth Newton methods (Fischer–Burmeister and min).

use faer::Mat;
use nonsmooth_numerics::NumericsError;
use nonsmooth_numerics::SolverStatus;
use nonsmooth_numerics::lcp::{
    LcpMethod, LcpProblem, LcpSolver, NewtonFunction, NewtonOptions, NewtonSolver, PgsOptions, PgsSolver,
};
use nonsmooth_numerics::matrix::NumericsMatrix;
use nonsmooth_numerics::proptest::{p_matrix_lcp, psd_lcp};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// A symmetric positive definite LCP: `M = AᵀA + εI`, `A` an `n × n` matrix uniform in
/// `[-1, 1)`, `ε` uniform in `[0.1, 1)`, `q` uniform in `[-10, 10)ⁿ`. (The exported `psd_lcp`
/// also yields singular matrices and `ε` down to 1e-3, on which Gauss–Seidel converges too
/// slowly for a property test at 1e-10.)
fn spd_lcp(n: usize) -> impl Strategy<Value = LcpProblem> {
    (vec(-1.0..1.0f64, n * n), 0.1..1.0f64, vec(-10.0..10.0f64, n)).prop_map(move |(a, eps, q)| {
        let m = Mat::from_fn(n, n, |i, j| {
            let s: f64 = (0..n).map(|r| a[r + i * n] * a[r + j * n]).sum();
            if i == j { s + eps } else { s }
        });
        LcpProblem::new(NumericsMatrix::Dense(m), q).expect("finite data")
    })
}

/// `(problem, block ends)`: an SPD LCP of size `n` and a random block structure of it.
fn spd_lcp_with_blocks() -> impl Strategy<Value = (LcpProblem, Vec<usize>)> {
    (1usize..=10).prop_flat_map(|n| {
        let ends = vec(any::<bool>(), n - 1).prop_map(move |cuts| {
            let mut ends: Vec<usize> = (1..n).filter(|&i| cuts[i - 1]).collect();
            ends.push(n);
            ends
        });
        (spd_lcp(n), ends)
    })
}

fn solve(solver: &mut dyn LcpSolver, problem: &LcpProblem) -> (nonsmooth_numerics::SolverReport, Vec<f64>, Vec<f64>) {
    let n = problem.size();
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    let report = solver.solve(problem, &mut z, &mut w).expect("valid input");
    (report, z, w)
}

/// `0 ≤ z ⊥ w ≥ 0` up to `tol` relative to the size of the data, and `w = M z + q`.
fn assert_complementary(problem: &LcpProblem, z: &[f64], w: &[f64], tol: f64) {
    let scale = problem.q().iter().chain(z).fold(1.0f64, |s, v| s.max(v.abs()));
    let mz = problem.m().mul_vec(z).expect("sizes agree");
    for i in 0..z.len() {
        assert!(z[i] >= -tol * scale, "z[{i}] = {} < 0", z[i]);
        assert!(w[i] >= -tol * scale, "w[{i}] = {} < 0", w[i]);
        assert!((z[i] * w[i]).abs() <= tol * scale * scale, "z[{i}] w[{i}] = {}", z[i] * w[i]);
        assert!((w[i] - mz[i] - problem.q()[i]).abs() <= 1e-12 * scale, "w is not M z + q");
    }
}

fn with_storage(problem: &LcpProblem, m: NumericsMatrix) -> LcpProblem {
    LcpProblem::new(m, problem.q().to_vec()).expect("same data, other storage")
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(0x7067), ..ProptestConfig::with_cases(64) })]

    #[test]
    fn pgs_converges_on_spd_lcps(problem in (1usize..=12).prop_flat_map(spd_lcp)) {
        let options = PgsOptions::default().with_tolerance(1e-10).with_max_iterations(100_000);
        let mut solver = PgsSolver::new(options).expect("valid options");
        let (report, z, w) = solve(&mut solver, &problem);
        prop_assert!(report.is_converged(), "{report:?}");
        prop_assert!(report.residual <= 1e-10);
        assert_complementary(&problem, &z, &w, 1e-9);
    }

    #[test]
    fn psor_converges_on_spd_lcps(problem in (1usize..=12).prop_flat_map(spd_lcp), omega in 0.3..1.8f64) {
        let mut solver = PgsSolver::new(PgsOptions::psor().with_tolerance(1e-10).with_max_iterations(100_000))
            .expect("valid options");
        let (report, z, w) = solve(&mut solver, &problem);
        prop_assert!(report.is_converged(), "psor: {report:?}");
        assert_complementary(&problem, &z, &w, 1e-9);
        let options = PgsOptions::default().with_relaxation(omega).with_tolerance(1e-10).with_max_iterations(100_000);
        let mut solver = PgsSolver::new(options).expect("valid options");
        let (report, z, w) = solve(&mut solver, &problem);
        prop_assert!(report.is_converged(), "omega = {omega}: {report:?}");
        assert_complementary(&problem, &z, &w, 1e-9);
    }

    #[test]
    fn pgs_converges_on_diagonally_dominant_p_matrix_lcps(problem in (1usize..=12).prop_flat_map(p_matrix_lcp)) {
        let mut solver = PgsSolver::new(PgsOptions::default().with_tolerance(1e-10)).expect("valid options");
        let (report, z, w) = solve(&mut solver, &problem);
        prop_assert!(report.is_converged(), "{report:?}");
        assert_complementary(&problem, &z, &w, 1e-9);
    }

    #[test]
    fn pgs_iterates_do_not_depend_on_the_storage((problem, ends) in spd_lcp_with_blocks()) {
        let dense = problem.m();
        let sbm = NumericsMatrix::SparseBlock(dense.to_sparse_block(&ends, &ends).expect("valid block ends"));
        let others = [with_storage(&problem, sbm), with_storage(&problem, NumericsMatrix::Sparse(dense.to_csr())),
            with_storage(&problem, NumericsMatrix::Sparse(dense.to_csc()))];
        // At most 7 sweeps: the same arithmetic, sweep by sweep. (A tolerance that no storage
        // can reach, e.g. 1e-300, is not used: when a sweep lands exactly on the solution, the
        // exact error is 0 in one storage and 1e-17 in another, as their products round differently.)
        let few = PgsOptions::default().with_tolerance(1e-10).with_max_iterations(7);
        // To convergence.
        let full = PgsOptions::default().with_tolerance(1e-10).with_max_iterations(100_000);
        for options in [few, full] {
            let (reference, z_ref, _) = solve(&mut PgsSolver::new(options.clone()).expect("valid options"), &problem);
            for other in &others {
                let (report, z, _) = solve(&mut PgsSolver::new(options.clone()).expect("valid options"), other);
                prop_assert_eq!(report.iterations, reference.iterations, "{:?}", other.m().storage());
                prop_assert_eq!(report.status, reference.status);
                for (a, b) in z.iter().zip(&z_ref) {
                    prop_assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn newton_fb_solves_p_matrix_lcps(problem in (1usize..=12).prop_flat_map(p_matrix_lcp)) {
        let mut solver = NewtonSolver::new(NewtonOptions::default()).expect("valid options");
        let (report, z, w) = solve(&mut solver, &problem);
        prop_assert!(report.is_converged() && report.residual <= 1e-10, "{report:?}");
        assert_complementary(&problem, &z, &w, 1e-9);
    }

    /// On the singular members of `psd_lcp` the solution is often degenerate (`z_i = w_i = 0`),
    /// where the Fischer–Burmeister Jacobian is singular and Newton converges only linearly:
    /// within the default 1000 steps it reaches 1e-8, not always 1e-10.
    #[test]
    fn newton_fb_solves_feasible_psd_lcps(problem in (1usize..=12).prop_flat_map(psd_lcp)) {
        let mut solver = NewtonSolver::new(NewtonOptions::default().with_tolerance(1e-8)).expect("valid options");
        let (report, z, w) = solve(&mut solver, &problem);
        prop_assert!(report.is_converged() && report.residual <= 1e-8, "{report:?}");
        assert_complementary(&problem, &z, &w, 1e-7);
    }

    #[test]
    fn newton_min_solves_p_matrix_lcps(problem in (1usize..=12).prop_flat_map(p_matrix_lcp)) {
        let options = NewtonOptions::default().with_function(NewtonFunction::Min);
        let mut solver = NewtonSolver::new(options).expect("valid options");
        let (report, z, w) = solve(&mut solver, &problem);
        prop_assert!(report.is_converged() && report.residual <= 1e-10, "{report:?}");
        assert_complementary(&problem, &z, &w, 1e-9);
    }

    #[test]
    fn newton_gives_the_same_answer_on_every_storage((problem, ends) in spd_lcp_with_blocks()) {
        let dense = problem.m();
        let sbm = NumericsMatrix::SparseBlock(dense.to_sparse_block(&ends, &ends).expect("valid block ends"));
        let (reference, z_ref, _) = solve(&mut NewtonSolver::new(NewtonOptions::default()).expect("valid"), &problem);
        prop_assert!(reference.is_converged());
        for m in [sbm, NumericsMatrix::Sparse(dense.to_csr())] {
            let other = with_storage(&problem, m);
            let (report, z, _) = solve(&mut NewtonSolver::new(NewtonOptions::default()).expect("valid"), &other);
            prop_assert_eq!(report.iterations, reference.iterations);
            for (a, b) in z.iter().zip(&z_ref) {
                prop_assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
            }
        }
    }
}

fn deudeu() -> LcpProblem {
    LcpProblem::new(NumericsMatrix::Dense(faer::mat![[2.0, 1.0], [1.0, 2.0]]), vec![-5.0, -6.0]).expect("valid")
}

#[test]
fn warm_start_at_the_solution() {
    let problem = deudeu();
    let solution = [4.0 / 3.0, 7.0 / 3.0];
    // PGS always sweeps once (as Siconos); Newton checks the warm start first.
    let mut pgs = PgsSolver::new(PgsOptions::default().with_tolerance(1e-12)).expect("valid");
    let (mut z, mut w) = (solution.to_vec(), vec![0.0; 2]);
    let report = pgs.solve(&problem, &mut z, &mut w).expect("valid input");
    assert!(report.is_converged());
    assert_eq!(report.iterations, 1);
    let mut newton = NewtonSolver::new(NewtonOptions::default()).expect("valid");
    let (mut z, mut w) = (solution.to_vec(), vec![0.0; 2]);
    let report = newton.solve(&problem, &mut z, &mut w).expect("valid input");
    assert!(report.is_converged());
    assert_eq!(report.iterations, 0);
}

#[test]
fn solvers_are_reusable_across_sizes() {
    // The workspaces grow and shrink with the problem; results do not depend on the history.
    let big = LcpProblem::new(
        NumericsMatrix::Dense(Mat::from_fn(5, 5, |i, j| if i == j { 4.0 } else { -0.5 })),
        vec![-1.0, 2.0, -3.0, 0.5, -0.25],
    )
    .expect("valid");
    let small = deudeu();
    let solvers: [Box<dyn LcpSolver>; 2] = [
        Box::new(PgsSolver::new(PgsOptions::default().with_tolerance(1e-12)).expect("valid")),
        Box::new(NewtonSolver::new(NewtonOptions::default()).expect("valid")),
    ];
    for mut solver in solvers {
        let first = solve(solver.as_mut(), &small);
        let _ = solve(solver.as_mut(), &big);
        let again = solve(solver.as_mut(), &small);
        assert_eq!(first.0, again.0);
        assert_eq!(first.1, again.1);
    }
}

#[test]
fn missing_diagonal_block_is_a_breakdown() {
    // Sparse-block M = [[0, 1], [1, 2]] with 1×1 blocks, the (0, 0) block absent.
    let problem = deudeu();
    let m = faer::mat![[0.0, 1.0], [1.0, 2.0]];
    let sbm = NumericsMatrix::Dense(m).to_sparse_block(&[1, 2], &[1, 2]).expect("valid ends");
    let problem = with_storage(&problem, NumericsMatrix::SparseBlock(sbm));
    let (report, z, _) = solve(&mut PgsSolver::new(PgsOptions::default()).expect("valid"), &problem);
    assert_eq!(report.status, SolverStatus::NumericalBreakdown);
    assert_eq!(report.iterations, 0);
    assert_eq!(z, [0.0, 0.0]);
}

#[test]
fn iteration_cap_is_a_status() {
    let problem = deudeu();
    let mut pgs = PgsSolver::new(PgsOptions::default().with_tolerance(1e-14).with_max_iterations(3)).expect("valid");
    let (report, _, _) = solve(&mut pgs, &problem);
    assert_eq!(report.status, SolverStatus::MaxIterations);
    assert_eq!(report.iterations, 3);
    assert!(report.residual > 1e-14);
    let mut newton = NewtonSolver::new(NewtonOptions::default().with_max_iterations(1)).expect("valid");
    let (report, _, _) = solve(&mut newton, &problem);
    assert_eq!(report.status, SolverStatus::MaxIterations);
    assert_eq!(report.iterations, 1);
}

#[test]
fn error_evaluation_frequency_only_delays_the_test() {
    // Siconos' PGS needs 14 sweeps on this problem at 1e-8: testing every 5 sweeps stops at 15.
    let problem = deudeu();
    let options = PgsOptions::default().with_tolerance(1e-8).with_error_evaluation_frequency(5);
    let (report, _, _) = solve(&mut PgsSolver::new(options).expect("valid"), &problem);
    assert!(report.is_converged());
    assert_eq!(report.iterations, 15);
}

#[test]
fn names_and_method_dispatch() {
    for (name, expected) in [("pgs", "pgs"), ("psor", "psor"), ("newton-fb", "newton-fb"), ("newton-min", "newton-min")]
    {
        let method = LcpMethod::from_name(name, Some(1e-10), Some(500)).expect("known name");
        let mut solver = method.build().expect("valid options");
        assert_eq!(solver.name(), expected);
        let (report, _, _) = solve(solver.as_mut(), &deudeu());
        assert!(report.is_converged() && report.residual <= 1e-10, "{name}: {report:?}");
    }
    assert_eq!(PgsSolver::new(PgsOptions::default().with_relaxation(1.0)).expect("valid").name(), "pgs");
    assert_eq!(
        PgsSolver::new(PgsOptions::default().with_relaxation(0.8)).expect("valid").name(),
        "psor",
        "under-relaxation is reported as psor too"
    );
}

#[test]
fn wrong_lengths_are_dimension_errors() {
    let problem = deudeu();
    let solvers: [Box<dyn LcpSolver>; 2] = [
        Box::new(PgsSolver::new(PgsOptions::default()).expect("valid")),
        Box::new(NewtonSolver::new(NewtonOptions::default()).expect("valid")),
    ];
    for mut solver in solvers {
        let (mut z, mut w) = (vec![0.0; 3], vec![0.0; 2]);
        let err = solver.solve(&problem, &mut z, &mut w).expect_err("z too long");
        assert!(matches!(err, NumericsError::DimensionMismatch { expected: 2, found: 3, .. }), "{err:?}");
        let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 1]);
        let err = solver.solve(&problem, &mut z, &mut w).expect_err("w too short");
        assert!(matches!(err, NumericsError::DimensionMismatch { expected: 2, found: 1, .. }), "{err:?}");
        let (mut z, mut w) = (vec![f64::NAN, 0.0], vec![0.0; 2]);
        let err = solver.solve(&problem, &mut z, &mut w).expect_err("NaN warm start");
        assert!(matches!(err, NumericsError::NonFinite { .. }), "{err:?}");
    }
}

#[test]
fn invalid_options_are_typed_errors() {
    let pgs = [
        PgsOptions::default().with_relaxation(2.5),
        PgsOptions::default().with_tolerance(-1e-8),
        PgsOptions::default().with_error_evaluation_frequency(0),
    ];
    for options in pgs {
        assert!(matches!(PgsSolver::new(options.clone()), Err(NumericsError::InvalidOption { .. })));
        assert!(matches!(LcpMethod::Pgs(options).build(), Err(NumericsError::InvalidOption { .. })));
    }
    let newton = [
        NewtonOptions::default().with_tolerance(f64::NAN),
        NewtonOptions::default().with_sufficient_decrease(0.9),
        NewtonOptions::default().with_min_step(-1.0),
    ];
    for options in newton {
        assert!(matches!(NewtonSolver::new(options.clone()), Err(NumericsError::InvalidOption { .. })));
        assert!(matches!(LcpMethod::Newton(options).build(), Err(NumericsError::InvalidOption { .. })));
    }
}

#[test]
fn newton_refuses_to_densify_a_huge_sparse_matrix() {
    let n = 10_000;
    let problem = LcpProblem::new(NumericsMatrix::Sparse(sprs::CsMat::eye(n)), vec![-1.0; n]).expect("valid");
    let mut solver = NewtonSolver::new(NewtonOptions::default()).expect("valid");
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    let err = solver.solve(&problem, &mut z, &mut w).expect_err("too large to densify");
    assert!(matches!(err, NumericsError::UnsupportedStorage { solver: "newton-fb", .. }), "{err:?}");
    // PGS handles it in place: one sweep solves z = 1.
    let (report, z, _) = solve(&mut PgsSolver::new(PgsOptions::default()).expect("valid"), &problem);
    assert!(report.is_converged());
    assert_eq!(report.iterations, 1);
    assert!(z.iter().all(|&v| (v - 1.0).abs() < 1e-15));
}
