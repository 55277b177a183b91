//! Unit tests of the lexicographic Lemke solver: pivot rules, termination kinds, pinned pivot
//! counts, warm start, workspace reuse and storages.

use faer::Mat;

use super::*;
use crate::matrix::SparseBlockMatrix;

fn lcp(m: Mat<f64>, q: &[f64]) -> LcpProblem {
    LcpProblem::new(NumericsMatrix::Dense(m), q.to_vec()).expect("valid test problem")
}

fn solve_with(solver: &mut LemkeSolver, problem: &LcpProblem) -> (SolverReport, Vec<f64>, Vec<f64>) {
    let n = problem.size();
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    let report = solver.solve(problem, &mut z, &mut w).expect("lengths agree");
    (report, z, w)
}

fn solve(problem: &LcpProblem) -> (SolverReport, Vec<f64>, Vec<f64>) {
    solve_with(&mut LemkeSolver::new(LemkeOptions::default()).expect("default options are valid"), problem)
}

/// Checks `z ≥ 0`, `w = M z + q ≥ 0` and `zᵢ wᵢ = 0` up to `tol`.
fn assert_solution(problem: &LcpProblem, z: &[f64], tol: f64) {
    let mut w = vec![0.0; z.len()];
    problem.m().gemv(1.0, z, 0.0, &mut w);
    for ((wi, qi), zi) in w.iter_mut().zip(problem.q()).zip(z) {
        *wi += qi;
        assert!(*zi >= -tol && *wi >= -tol && (zi * *wi).abs() <= tol, "not complementary: z = {zi}, w = {wi}");
    }
}

/// A degenerate LCP (every qᵢ = −1, found by a search over small integer problems) on which
/// Lemke's method with ties broken by "last tied row" cycles: the basis sequence repeats
/// after 6 pivots and never reaches a complementary basis.
fn cycling_problem() -> LcpProblem {
    let m = faer::mat![[3.0, -2.0, -2.0, 0.0], [1.0, 3.0, -1.0, 2.0], [-2.0, 3.0, 2.0, 3.0], [3.0, 3.0, 2.0, 1.0]];
    lcp(m, &[-1.0, -1.0, -1.0, -1.0])
}

#[test]
fn lexicographic_rule_solves_a_problem_where_naive_ties_cycle() {
    let problem = cycling_problem();
    // A 4×4 LCP has at most C(9, 4) = 126 distinct bases: 200 pivots without termination
    // means a basis was visited twice, i.e. the naive rule cycles.
    let mut naive = LemkeSolver::new(LemkeOptions::default().with_max_iterations(200)).expect("valid options");
    naive.workspace.naive_ties = true;
    let (report, _, _) = solve_with(&mut naive, &problem);
    assert_eq!(report.status, SolverStatus::MaxIterations);
    assert_eq!(report.iterations, 200);

    let (report, z, _) = solve(&problem);
    assert_eq!(report.status, SolverStatus::Converged);
    assert_eq!(report.iterations, 5);
    assert!(report.residual <= 1e-14, "residual {}", report.residual);
    assert_solution(&problem, &z, 1e-13);
}

/// A degenerate singular PSD LCP with integer data (`M = BᵀB`, `B` 12 × 13 with entries in
/// −3..=3, `q = w0 − M x0`: exactly feasible), found by the property tests. Exact rational
/// lexicographic Lemke solves it in 7 pivots; ratios that are equal in exact arithmetic differ
/// in the last bits in floating point, which the tie threshold and the refinement of doubtful
/// ratio tests absorb: we follow the exact path.
#[test]
fn tie_threshold_follows_the_exact_path_on_a_degenerate_problem() {
    let m = faer::mat![
        [22.0, -2.0, -14.0, -6.0, 12.0, 0.0, 0.0, 3.0, -6.0, 19.0, 13.0, 4.0, -9.0],
        [-2.0, 14.0, 2.0, -6.0, 0.0, 0.0, 0.0, 1.0, 6.0, 1.0, -5.0, -8.0, 9.0],
        [-14.0, 2.0, 9.0, 3.0, -8.0, 0.0, 0.0, -2.0, 5.0, -12.0, -9.0, -3.0, 6.0],
        [-6.0, -6.0, 3.0, 9.0, 0.0, 0.0, 0.0, 0.0, -9.0, -6.0, 3.0, 3.0, 0.0],
        [12.0, 0.0, -8.0, 0.0, 10.0, 0.0, 0.0, 3.0, -10.0, 11.0, 11.0, 2.0, -3.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [3.0, 1.0, -2.0, 0.0, 3.0, 0.0, 0.0, 1.0, -3.0, 3.0, 3.0, 0.0, 0.0],
        [-6.0, 6.0, 5.0, -9.0, -10.0, 0.0, 0.0, -3.0, 19.0, -5.0, -14.0, -5.0, 3.0],
        [19.0, 1.0, -12.0, -6.0, 11.0, 0.0, 0.0, 3.0, -5.0, 17.0, 11.0, 2.0, -6.0],
        [13.0, -5.0, -9.0, 3.0, 11.0, 0.0, 0.0, 3.0, -14.0, 11.0, 14.0, 5.0, -6.0],
        [4.0, -8.0, -3.0, 3.0, 2.0, 0.0, 0.0, 0.0, -5.0, 2.0, 5.0, 5.0, -6.0],
        [-9.0, 9.0, 6.0, 0.0, -3.0, 0.0, 0.0, 0.0, 3.0, -6.0, -6.0, -6.0, 9.0]
    ];
    let q = [-87.0, 31.0, 60.0, -18.0, -73.0, 0.0, 0.0, -20.0, 91.0, -74.0, -92.0, -32.0, 39.0];
    let problem = lcp(m, &q);
    let (report, z, _) = solve(&problem);
    assert_eq!(report.status, SolverStatus::Converged);
    assert_eq!(report.iterations, 7);
    assert_solution(&problem, &z, 1e-10);
    // Siconos 4.4's lcp_lexicolemke (exact-equality ties, no refinement) ends this problem on
    // a false ray after 16 pivots (residual 0.03).
}

#[test]
fn ray_termination_when_the_lcp_is_infeasible() {
    // M = −I, q < 0: w = q − z < 0 for every z ≥ 0.
    let problem = lcp(faer::mat![[-1.0, 0.0], [0.0, -1.0]], &[-1.0, -2.0]);
    let (report, _, _) = solve(&problem);
    assert_eq!(report.status, SolverStatus::RayTermination);
    assert_eq!(report.iterations, 1);
    assert!(report.residual > 1e-3);

    // Skew-symmetric M = [[0, −1], [1, 0]], q = (−1, −1): w₁ = −z₂ − 1 < 0 always.
    // The ray is met at the third pivot (as with exact rational arithmetic).
    let problem = lcp(faer::mat![[0.0, -1.0], [1.0, 0.0]], &[-1.0, -1.0]);
    let (report, _, _) = solve(&problem);
    assert_eq!(report.status, SolverStatus::RayTermination);
    assert_eq!(report.iterations, 3);
}

#[test]
fn breakdown_when_every_positive_pivot_is_below_the_threshold() {
    // After z₀ enters at row 1 (ties go to the last row), the column of z₂ is
    // d = (−m₀₁ + m₁₁, m₁₁) = (1e-3, −1): its only positive entry is below 0.01 · ‖d‖∞.
    let problem = lcp(faer::mat![[1.0, -1.001], [2.0, -1.0]], &[-1.0, -1.0]);
    let mut solver = LemkeSolver::new(LemkeOptions::default().with_pivot_tolerance(0.01)).expect("valid options");
    let (report, _, _) = solve_with(&mut solver, &problem);
    assert_eq!(report.status, SolverStatus::NumericalBreakdown);
    assert_eq!(report.iterations, 1);
    // With the default threshold the same pivot is taken and the problem is solved.
    let (report, z, _) = solve(&problem);
    assert_eq!(report.status, SolverStatus::Converged);
    assert_eq!(report.iterations, 3);
    assert_solution(&problem, &z, 1e-12);
}

#[test]
fn trivial_case_returns_zero_without_pivots() {
    let problem = lcp(faer::mat![[1.0, 2.0], [3.0, 4.0]], &[0.0, 1.0]);
    let mut solver = LemkeSolver::new(LemkeOptions::default()).expect("valid options");
    let (mut z, mut w) = (vec![5.0, 7.0], vec![0.0; 2]);
    // The trivial case is checked before the warm start: z is reset to 0.
    let report = solver.solve(&problem, &mut z, &mut w).expect("lengths agree");
    assert_eq!(report.status, SolverStatus::Converged);
    assert_eq!(report.iterations, 0);
    assert_eq!(z, vec![0.0, 0.0]);
    assert!((w[1] - 1.0).abs() < 1e-15);
}

#[test]
fn warm_start_at_a_solution_takes_no_pivot() {
    let problem = lcp(faer::mat![[2.0, 1.0], [1.0, 2.0]], &[-5.0, -6.0]);
    let mut solver = LemkeSolver::new(LemkeOptions::default()).expect("valid options");
    let (first, mut z, mut w) = solve_with(&mut solver, &problem);
    assert_eq!(first.iterations, 2);
    let again = solver.solve(&problem, &mut z, &mut w).expect("lengths agree");
    assert_eq!(again.status, SolverStatus::Converged);
    assert_eq!(again.iterations, 0);
    // A start that is not a solution is ignored: the pivots are those from the standard basis.
    let (mut z, mut w) = (vec![1.0, 1.0], vec![0.0; 2]);
    let cold = solver.solve(&problem, &mut z, &mut w).expect("lengths agree");
    assert_eq!(cold.iterations, 2);
    assert!((z[0] - 4.0 / 3.0).abs() < 1e-14 && (z[1] - 7.0 / 3.0).abs() < 1e-14);
}

/// Problems of the Siconos collection (`lcp_*.dat`, the matrix as Siconos 4.4 reads the file:
/// column-major) with the pivots Siconos 4.4's `lcp_lexicolemke` reports (`siconos44-lcp.csv`).
fn siconos_collection() -> Vec<(&'static str, Mat<f64>, Vec<f64>, usize)> {
    vec![
        ("CPS_2", faer::mat![[0.0, -1.0, 2.0], [2.0, 0.0, -2.0], [-1.0, 1.0, 0.0]], vec![-3.0, 6.0, -1.0], 4),
        (
            "CPS_4",
            faer::mat![
                [11.0, 0.0, 10.0, -1.0],
                [0.0, 11.0, 10.0, -1.0],
                [10.0, 10.0, 21.0, -1.0],
                [1.0, 1.0, 1.0, 0.0]
            ],
            vec![50.0, 50.0, 10.0, -6.0],
            4,
        ),
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
            2,
        ),
        ("deudeu", faer::mat![[2.0, 1.0], [1.0, 2.0]], vec![-5.0, -6.0], 2),
        (
            "inf_sol_perturbed",
            faer::mat![[0.0, -1.0, 1.0], [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]],
            vec![-0.0001, -1.0, 1.0],
            4,
        ),
    ]
}

/// The collection problems with the pivots Siconos 4.4 reports, which we reproduce exactly.
#[test]
fn pivot_counts_match_siconos_on_collection_problems() {
    for (name, m, q, pivots) in siconos_collection() {
        let problem = lcp(m, &q);
        let (report, z, _) = solve(&problem);
        assert_eq!(report.status, SolverStatus::Converged, "{name}");
        assert_eq!(report.iterations, pivots, "{name}");
        assert_solution(&problem, &z, 1e-12);
    }
}

#[test]
fn iteration_cap_stops_the_pivoting() {
    let problem = lcp(faer::mat![[2.0, 1.0], [1.0, 2.0]], &[-5.0, -6.0]);
    let mut solver = LemkeSolver::new(LemkeOptions::default().with_max_iterations(1)).expect("valid options");
    let (report, _, _) = solve_with(&mut solver, &problem);
    assert_eq!(report.status, SolverStatus::MaxIterations);
    assert_eq!(report.iterations, 1);
    assert!(report.residual > 1e-3);
}

/// A P-matrix LCP of size `n` with a seeded pseudo-random strictly diagonally dominant matrix.
fn dominant_problem(n: usize, seed: u64) -> LcpProblem {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let mut m = Mat::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
    for i in 0..n {
        m[(i, i)] = n as f64 + rng.random::<f64>();
    }
    let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    lcp(m, &q)
}

#[test]
fn workspace_is_reused_across_sizes_with_identical_results() {
    let big = dominant_problem(12, 1);
    let small = dominant_problem(5, 2);
    let mut reused = LemkeSolver::new(LemkeOptions::default()).expect("valid options");
    let (r_big, z_big, _) = solve_with(&mut reused, &big);
    let capacity = reused.workspace.binv.capacity();
    let (r_small, z_small, _) = solve_with(&mut reused, &small);
    let (r_big2, z_big2, _) = solve_with(&mut reused, &big);
    assert_eq!(reused.workspace.binv.capacity(), capacity, "no reallocation for a smaller or equal size");
    let (f_small, fz_small, _) = solve(&small);
    assert!(r_big.is_converged() && r_small.is_converged());
    assert_eq!((r_small.iterations, r_big2.iterations), (f_small.iterations, r_big.iterations));
    // Same arithmetic, same bits: a smaller problem after a larger one sees no stale data.
    assert_eq!(z_small, fz_small);
    assert_eq!(z_big2, z_big);
}

#[test]
fn every_storage_gives_the_dense_result() {
    let dense = faer::mat![[4.0, 1.0, 0.0, 0.0], [1.0, 4.0, 0.0, 1.0], [0.0, 0.0, 3.0, 1.0], [0.0, 1.0, 1.0, 5.0]];
    let q = vec![-1.0, -2.0, 0.5, -3.0];
    let (r_dense, z_dense, _) = solve(&lcp(dense.clone(), &q));

    // Sparse-block storage with 2×2 blocks (each column-major).
    let blocks = vec![4.0, 1.0, 1.0, 4.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 3.0, 1.0, 1.0, 5.0];
    let sbm =
        SparseBlockMatrix::new(vec![2, 4], vec![2, 4], vec![0, 2, 4], vec![0, 1, 0, 1], blocks).expect("valid SBM");
    let (r_sbm, z_sbm, _) = solve(&LcpProblem::new(NumericsMatrix::SparseBlock(sbm), q.clone()).expect("valid"));

    let mut tri = sprs::TriMat::new((4, 4));
    for j in 0..4 {
        for i in 0..4 {
            if dense[(i, j)] != 0.0 {
                tri.add_triplet(i, j, dense[(i, j)]);
            }
        }
    }
    let (r_csr, z_csr, _) = solve(&LcpProblem::new(NumericsMatrix::Sparse(tri.to_csr()), q.clone()).expect("valid"));

    // The pivots see the same dense copy; the final refinement and the residual use each
    // storage's own product, so the results agree to rounding.
    assert!(r_dense.is_converged());
    for (r, z) in [(r_sbm, z_sbm), (r_csr, z_csr)] {
        assert_eq!((r.status, r.iterations), (r_dense.status, r_dense.iterations));
        assert!(r.residual <= 1e-15, "residual {}", r.residual);
        assert!(z.iter().zip(&z_dense).all(|(a, b)| (a - b).abs() <= 1e-14), "{z:?} vs {z_dense:?}");
    }
}

#[test]
fn invalid_options_are_rejected() {
    let bad = [
        LemkeOptions::default().with_tolerance(0.0),
        LemkeOptions::default().with_tolerance(f64::NAN),
        LemkeOptions::default().with_tolerance(-1.0),
        LemkeOptions::default().with_max_iterations(0),
        LemkeOptions::default().with_pivot_tolerance(-1e-3),
        LemkeOptions::default().with_pivot_tolerance(1.0),
        LemkeOptions::default().with_pivot_tolerance(f64::NAN),
        LemkeOptions::default().with_tie_tolerance(-1.0),
        LemkeOptions::default().with_tie_tolerance(f64::NAN),
        LemkeOptions::default().with_small_pivot_growth(0.5),
        LemkeOptions::default().with_small_pivot_growth(f64::NAN),
    ];
    for options in bad {
        assert!(matches!(LemkeSolver::new(options), Err(NumericsError::InvalidOption { .. })));
    }
    assert!(LemkeSolver::new(LemkeOptions::default().with_pivot_tolerance(0.0)).is_ok());
    assert!(LemkeSolver::new(LemkeOptions::default().with_small_pivot_growth(f64::INFINITY)).is_ok());
    assert!(LemkeSolver::new(LemkeOptions::default().with_small_pivot_growth(1.0)).is_ok());
}

#[test]
fn wrong_lengths_are_dimension_mismatches() {
    let problem = lcp(faer::mat![[2.0, 1.0], [1.0, 2.0]], &[-5.0, -6.0]);
    let mut solver = LemkeSolver::new(LemkeOptions::default()).expect("valid options");
    let (mut z3, mut w2, mut z2, mut w1) = (vec![0.0; 3], vec![0.0; 2], vec![0.0; 2], vec![0.0; 1]);
    assert!(matches!(
        solver.solve(&problem, &mut z3, &mut w2),
        Err(NumericsError::DimensionMismatch { expected: 2, found: 3, .. })
    ));
    assert!(matches!(
        solver.solve(&problem, &mut z2, &mut w1),
        Err(NumericsError::DimensionMismatch { expected: 2, found: 1, .. })
    ));
}

/// Column `v` of `[I | −M | −1]`: the column of `wᵢ` (`v = i`), `zᵢ` (`v = n + i`) or `z₀`
/// (`v = 2n`) in the augmented system.
fn augmented_column(m: &Mat<f64>, v: usize) -> Vec<f64> {
    let n = m.nrows();
    (0..n)
        .map(|i| match v {
            v if v < n => f64::from(u8::from(i == v)),
            v if v == 2 * n => -1.0,
            v => -m[(i, v - n)],
        })
        .collect()
}

/// After a refactorization, `b` solves `B b = q` and the stored columns of `B⁻¹` solve
/// `B x = eⱼ`, with `B` rebuilt here from the basis; and they agree with the product form to
/// rounding. Checked at several points of the path (`z₀` basic, then the final basis).
#[test]
fn refactorization_rebuilds_b_and_the_inverse_from_the_basis() {
    let problem = dominant_problem(12, 3);
    let n = problem.size();
    let m = problem.m().to_dense();
    for cap in [1, 3, 5, 10_000] {
        let mut solver = LemkeSolver::new(LemkeOptions::default().with_max_iterations(cap)).expect("valid options");
        let (report, _, _) = solve_with(&mut solver, &problem);
        let expected = if cap == 10_000 { SolverStatus::Converged } else { SolverStatus::MaxIterations };
        assert_eq!(report.status, expected, "cap {cap}: {report:?}");
        let ws = &mut solver.workspace;
        let b_product_form = ws.b[..n].to_vec();
        let stored: Vec<(usize, Vec<f64>)> = ws.dense.iter().map(|&j| (j, ws.binv[j * n..][..n].to_vec())).collect();
        assert!(!stored.is_empty(), "cap {cap}: some z is basic");
        assert!(ws.refactorize(n, None, problem.q()), "cap {cap}: the basis is nonsingular");
        let columns: Vec<Vec<f64>> = ws.basis[..n].iter().map(|&v| augmented_column(&m, v)).collect();
        let times_b =
            |x: &[f64]| -> Vec<f64> { (0..n).map(|i| columns.iter().zip(x).map(|(c, xr)| c[i] * xr).sum()).collect() };
        for (i, (bx, qi)) in times_b(&ws.b[..n]).iter().zip(problem.q()).enumerate() {
            assert!((bx - qi).abs() <= 1e-12, "cap {cap}: (B b)[{i}] = {bx}, q = {qi}");
        }
        for (bp, br) in b_product_form.iter().zip(&ws.b[..n]) {
            assert!((bp - br).abs() <= 1e-12 * (1.0 + br.abs()), "cap {cap}: b {bp} vs {br}");
        }
        for (j, column) in &stored {
            let rebuilt = &ws.binv[j * n..][..n];
            for (i, bx) in times_b(rebuilt).iter().enumerate() {
                let expected = f64::from(u8::from(i == *j));
                assert!((bx - expected).abs() <= 1e-12, "cap {cap}: (B B⁻¹)[{i}, {j}] = {bx}");
            }
            for (cp, cr) in column.iter().zip(rebuilt) {
                assert!((cp - cr).abs() <= 1e-12 * (1.0 + cr.abs()), "cap {cap}: B⁻¹ column {j}: {cp} vs {cr}");
            }
        }
    }
}

/// Refactorizing before every pivot continues from the same basis: on the collection problems
/// and on seeded P-matrix problems, the pivots are the same and the solutions agree to rounding.
#[test]
fn refactorizing_at_every_pivot_keeps_the_pivot_path() {
    let mut problems: Vec<LcpProblem> = siconos_collection().into_iter().map(|(_, m, q, _)| lcp(m, &q)).collect();
    problems.extend((1..=20).map(|seed| dominant_problem(3 + seed as usize, seed)));
    let mut every_pivot =
        LemkeSolver::new(LemkeOptions::default().with_refactorization_interval(1)).expect("valid options");
    for problem in &problems {
        let (reference, z_reference, _) = solve(problem);
        let (report, z, _) = solve_with(&mut every_pivot, problem);
        assert!(reference.is_converged() && report.is_converged());
        assert_eq!(report.iterations, reference.iterations);
        for (a, b) in z.iter().zip(&z_reference) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }
}

/// A degenerate singular PSD LCP with integer data (`M = BᵀB`, `q = w0 − M x0`: exactly
/// feasible), drawn by the property tests (`singular_psd_lcp`, n = 18). Exact rational
/// lexicographic Lemke solves it in 22 pivots. Before the refactorization and the relative
/// lexicographic comparisons, the floating-point path left the exact one at the 16th pivot (a
/// lexicographic comparison decided by the rounding errors of `B⁻¹`) and ended after 23 pivots
/// on a complementary basis with residual 7e-7 (NumericalBreakdown); it now follows the exact
/// path.
#[test]
fn degenerate_problem_follows_the_exact_path_after_doubtful_ties() {
    let m = faer::mat![
        [20.0, 3.0, 11.0, -3.0, -9.0, 5.0, 15.0, 0.0, 8.0, 3.0, -7.0, -7.0, 16.0, 18.0, 0.0, 19.0, -3.0, 3.0],
        [3.0, 21.0, 6.0, -4.0, -2.0, 2.0, 0.0, 0.0, 17.0, 3.0, 2.0, 17.0, 4.0, 10.0, 4.0, 6.0, 3.0, 2.0],
        [11.0, 6.0, 28.0, -15.0, -19.0, 9.0, 17.0, 1.0, 3.0, -8.0, -6.0, -8.0, 6.0, 20.0, 10.0, 9.0, -16.0, -12.0],
        [
            -3.0, -4.0, -15.0, 46.0, -10.0, -39.0, -14.0, 0.0, 5.0, 19.0, 10.0, 10.0, -6.0, -22.0, -11.0, -19.0, 19.0,
            17.0
        ],
        [-9.0, -2.0, -19.0, -10.0, 38.0, 17.0, -14.0, -2.0, -17.0, 3.0, 4.0, 2.0, 6.0, -6.0, -11.0, 5.0, 9.0, 5.0],
        [5.0, 2.0, 9.0, -39.0, 17.0, 59.0, 5.0, 2.0, -17.0, -18.0, 7.0, -14.0, 28.0, 24.0, 0.0, 23.0, 6.0, -23.0],
        [15.0, 0.0, 17.0, -14.0, -14.0, 5.0, 25.0, 0.0, 6.0, -14.0, -5.0, -10.0, 2.0, 16.0, 5.0, 20.0, -12.0, -5.0],
        [0.0, 0.0, 1.0, 0.0, -2.0, 2.0, 0.0, 10.0, 7.0, 2.0, 5.0, -10.0, 1.0, 0.0, 1.0, 7.0, -4.0, 7.0],
        [8.0, 17.0, 3.0, 5.0, -17.0, -17.0, 6.0, 7.0, 38.0, 10.0, -7.0, 10.0, -6.0, 6.0, 10.0, 8.0, -9.0, 17.0],
        [3.0, 3.0, -8.0, 19.0, 3.0, -18.0, -14.0, 2.0, 10.0, 29.0, -11.0, 4.0, 5.0, -4.0, -2.0, -8.0, -2.0, 20.0],
        [-7.0, 2.0, -6.0, 10.0, 4.0, 7.0, -5.0, 5.0, -7.0, -11.0, 30.0, 2.0, 4.0, -8.0, -11.0, 4.0, 25.0, -4.0],
        [-7.0, 17.0, -8.0, 10.0, 2.0, -14.0, -10.0, -10.0, 10.0, 4.0, 2.0, 33.0, -8.0, -6.0, 0.0, -14.0, 14.0, 0.0],
        [16.0, 4.0, 6.0, -6.0, 6.0, 28.0, 2.0, 1.0, -6.0, 5.0, 4.0, -8.0, 33.0, 20.0, -7.0, 19.0, 13.0, -4.0],
        [18.0, 10.0, 20.0, -22.0, -6.0, 24.0, 16.0, 0.0, 6.0, -4.0, -8.0, -6.0, 20.0, 28.0, 6.0, 22.0, -8.0, -8.0],
        [0.0, 4.0, 10.0, -11.0, -11.0, 0.0, 5.0, 1.0, 10.0, -2.0, -11.0, 0.0, -7.0, 6.0, 12.0, -3.0, -16.0, -4.0],
        [19.0, 6.0, 9.0, -19.0, 5.0, 23.0, 20.0, 7.0, 8.0, -8.0, 4.0, -14.0, 19.0, 22.0, -3.0, 39.0, -2.0, 5.0],
        [-3.0, 3.0, -16.0, 19.0, 9.0, 6.0, -12.0, -4.0, -9.0, -2.0, 25.0, 14.0, 13.0, -8.0, -16.0, -2.0, 39.0, -4.0],
        [3.0, 2.0, -12.0, 17.0, 5.0, -23.0, -5.0, 7.0, 17.0, 20.0, -4.0, 0.0, -4.0, -8.0, -4.0, 5.0, -4.0, 28.0]
    ];
    let q = [
        -230.0, -247.0, -170.0, 205.0, -26.0, -282.0, -174.0, -10.0, -146.0, 43.0, -49.0, -55.0, -291.0, -336.0, 12.0,
        -382.0, -66.0, 17.0,
    ];
    let problem = lcp(m, &q);
    let (report, z, _) = solve(&problem);
    assert_eq!(report.status, SolverStatus::Converged);
    assert_eq!(report.iterations, 22);
    assert!(report.residual <= 1e-14, "residual {}", report.residual);
    assert_solution(&problem, &z, 1e-10);
}

/// `compensated_w` is exact where double precision loses everything: a sum whose terms cancel
/// (`1 + 2⁵³ − 2⁵³`) and a product whose low bits matter (`(1 + 2⁻³⁰)² − (1 + 2⁻²⁹) = 2⁻⁶⁰`).
#[test]
fn compensated_residual_is_exact_where_double_precision_cancels() {
    let two53 = 2f64.powi(53);
    let e30 = 2f64.powi(-30);
    let m = faer::mat![[two53, -two53, 0.0], [0.0, 0.0, 1.0 + e30], [0.0, 0.0, 0.0]];
    let q = [1.0, -(1.0 + 2.0 * e30), 0.0];
    let z = [1.0, 1.0, 1.0 + e30];
    let exact = [1.0, 2f64.powi(-60), 0.0];
    // Plain double precision: (1 + 2⁵³) rounds to 2⁵³, and (1 + 2⁻³⁰)(1 + 2⁻³⁰) drops 2⁻⁶⁰.
    let plain: Vec<f64> = (0..3).map(|i| (0..3).fold(q[i], |acc, j| acc + m[(i, j)] * z[j])).collect();
    assert!(plain.iter().all(|v| v.abs() < 2f64.powi(-100)), "{plain:?}");
    let mut ws = LemkeWorkspace::default();
    ws.prepare(&NumericsMatrix::Dense(m), 3);
    ws.compensated_w(3, &q, &z);
    for (i, e) in exact.iter().enumerate() {
        let (hi, lo) = (ws.solve_n[i], ws.solve_n[3 + i]);
        assert!((hi + lo - e).abs() <= e.abs() * 1e-30, "entry {i}: {hi} + {lo}, exact {e}");
    }
}

/// Polishing recovers the basic solution after the product form has lost six digits (the
/// state after an unstable pivot sequence): the refactorization rebuilds `b` and `B⁻¹`, the
/// refinement in extra precision removes the rest.
#[test]
fn polish_recovers_the_solution_from_a_damaged_product_form() {
    let problem = dominant_problem(10, 4);
    let n = problem.size();
    let mut solver = LemkeSolver::new(LemkeOptions::default()).expect("valid options");
    let (report, z_reference, _) = solve_with(&mut solver, &problem);
    assert!(report.is_converged());
    let ws = &mut solver.workspace;
    let damage = |i: usize| 1.0 + 1e-6 * (i % 3) as f64 - 1e-6;
    for (i, bi) in ws.b[..n].iter_mut().enumerate() {
        *bi *= damage(i);
    }
    for &j in &ws.dense {
        for (i, c) in ws.binv[j * n..][..n].iter_mut().enumerate() {
            *c *= damage(i + j);
        }
    }
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    ws.extract_z(&mut z);
    let damaged = problem.compute_error(&z, &mut w).expect("lengths agree");
    assert!(damaged > 1e-9, "the damage shows: {damaged}");
    let polished = ws.polish(&problem, &mut z, &mut w, damaged).expect("lengths agree");
    assert!(polished <= 1e-15, "polished residual {polished}");
    for (a, b) in z.iter().zip(&z_reference) {
        assert!((a - b).abs() <= 1e-14 * (1.0 + b.abs()), "{a} vs {b}");
    }
}
