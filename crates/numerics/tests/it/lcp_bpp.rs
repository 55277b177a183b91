//! Integration tests of the block principal pivoting LCP solver (`BppSolver`): agreement with
//! Lemke on the Siconos collection and on random SPD and P-matrix problems, a large sparse
//! chain (cold and warm start), and agreement between the matrix storages.

use std::time::Instant;

use faer::Mat;
use nonsmooth_numerics::io::read_lcp;
use nonsmooth_numerics::lcp::{BppOptions, BppSolver, LcpMethod, LcpProblem, LcpSolver, LemkeOptions, LemkeSolver};
use nonsmooth_numerics::matrix::{DuplicateBlocks, NumericsMatrix, SparseBlockMatrix};
use nonsmooth_numerics::proptest::p_matrix_lcp;
use nonsmooth_numerics::{SolverReport, SolverStatus};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn bpp() -> BppSolver {
    BppSolver::new(BppOptions::default()).expect("valid options")
}

fn lemke() -> LemkeSolver {
    LemkeSolver::new(LemkeOptions::default().with_tolerance(1e-10)).expect("valid options")
}

/// Solves from `z0`; returns the report and `z`.
fn solve_from(solver: &mut dyn LcpSolver, problem: &LcpProblem, z0: &[f64]) -> (SolverReport, Vec<f64>) {
    let mut z = z0.to_vec();
    let mut w = vec![0.0; problem.size()];
    let report = solver.solve(problem, &mut z, &mut w).expect("lengths agree");
    (report, z)
}

fn solve(solver: &mut dyn LcpSolver, problem: &LcpProblem) -> (SolverReport, Vec<f64>) {
    solve_from(solver, problem, &vec![0.0; problem.size()])
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0f64, |acc, (x, y)| acc.max((x - y).abs()))
}

fn norm_inf(a: &[f64]) -> f64 {
    a.iter().fold(0.0f64, |acc, x| acc.max(x.abs()))
}

/// Collection files where Lemke converges but BPP does not return its solution, with the
/// status BPP returns (asserted exactly) and why. None of these matrices is a P-matrix (each has
/// a zero diagonal entry), so a principal submatrix `M_FF` can be singular: the single pivot
/// that replaces a failed block pivot hits a singular `M_FF` too.
const ZERO_DIAGONAL: &str = "zero diagonal entry: singular M_FF after a single pivot";
const BPP_DIFFERS: &[(&str, SolverStatus, &str)] = &[
    // FIXME: principal pivoting needs nonsingular principal submatrices; Lemke solves these.
    ("lcp_CPS_2.dat", SolverStatus::NumericalBreakdown, ZERO_DIAGONAL),
    ("lcp_CPS_4.dat", SolverStatus::NumericalBreakdown, ZERO_DIAGONAL),
    ("lcp_CPS_4bis.dat", SolverStatus::NumericalBreakdown, ZERO_DIAGONAL),
    ("lcp_Pang_isolated_sol.dat", SolverStatus::NumericalBreakdown, ZERO_DIAGONAL),
    ("lcp_inf_sol_perturbed.dat", SolverStatus::NumericalBreakdown, ZERO_DIAGONAL),
];

#[test]
fn bpp_matches_lemke_on_the_collection() {
    let Some(data) = crate::data_dir() else { return };
    let dir = data.join("siconos/lcp");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("lcp folder is readable")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    let mut table = String::new();
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in &files {
        let name = path.file_name().and_then(|s| s.to_str()).expect("utf-8 file name").to_string();
        let problem = read_lcp(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (lemke_report, z_lemke) = solve(&mut lemke(), &problem);
        let (report, z) = solve(&mut bpp(), &problem);
        let diff = max_abs_diff(&z, &z_lemke) / norm_inf(&z_lemke).max(1.0);
        table.push_str(&format!(
            "{name:40} lemke={} bpp={} it={} res={:.2e} rel.diff={diff:.2e}\n",
            lemke_report.status, report.status, report.iterations, report.residual
        ));
        if report.is_converged() && report.residual > 1e-10 {
            failures.push(format!("{name}: converged with residual {:e}", report.residual));
        }
        if !lemke_report.is_converged() {
            continue;
        }
        compared += 1;
        let pinned = BPP_DIFFERS.iter().find(|(f, _, _)| *f == name);
        let agrees = report.is_converged() && (diff <= 1e-8 || report.residual <= 1e-10);
        match pinned {
            Some((_, status, _)) if report.status != *status => {
                failures.push(format!("{name}: pinned status {status}, got {}", report.status))
            }
            Some(_) => {}
            None if !agrees => failures.push(format!(
                "{name}: bpp {} residual {:e}, relative difference to Lemke {diff:e}",
                report.status, report.residual
            )),
            None => {}
        }
    }
    println!("{table}");
    assert_eq!(compared, 13, "files solved by Lemke");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `M = AᵀA + δI`, symmetric positive definite, with `q` uniform in `[-10, 10)ⁿ`.
fn spd_lcp(n: usize) -> impl Strategy<Value = LcpProblem> {
    (vec(-1.0..1.0f64, n * n), 1e-2..1.0f64, vec(-10.0..10.0f64, n)).prop_map(move |(a, delta, q)| {
        let m = Mat::from_fn(n, n, |i, j| {
            let gram: f64 = (0..n).map(|l| a[l + i * n] * a[l + j * n]).sum();
            gram + if i == j { delta } else { 0.0 }
        });
        LcpProblem::new(NumericsMatrix::Dense(m), q).expect("finite data, n ≥ 1")
    })
}

fn assert_agrees_with_lemke(problem: &LcpProblem) -> Result<(), TestCaseError> {
    let (lr, zl) = solve(&mut lemke(), problem);
    prop_assert!(lr.is_converged(), "lemke: {lr:?}");
    let (report, z) = solve(&mut bpp(), problem);
    prop_assert!(report.is_converged(), "bpp: {report:?}");
    prop_assert!(report.residual <= 1e-10);
    let diff = max_abs_diff(&z, &zl);
    prop_assert!(diff <= 1e-9 * (1.0 + norm_inf(&zl)), "difference to Lemke {diff:e}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(0xb99), ..ProptestConfig::with_cases(64) })]

    #[test]
    fn bpp_agrees_with_lemke_on_spd_lcps(problem in (1usize..=40).prop_flat_map(spd_lcp)) {
        assert_agrees_with_lemke(&problem)?;
    }

    #[test]
    fn bpp_agrees_with_lemke_on_p_matrix_lcps(problem in (1usize..=40).prop_flat_map(p_matrix_lcp)) {
        assert_agrees_with_lemke(&problem)?;
    }

    #[test]
    fn bpp_agrees_with_lemke_on_sparse_spd_lcps_above_the_dense_size(problem in (65usize..=90).prop_flat_map(spd_lcp)) {
        // The same problem in sparse storage takes the sparse Cholesky path.
        let (m, q) = problem.clone().into_parts();
        let sparse = LcpProblem::new(NumericsMatrix::Sparse(m.to_csr()), q).expect("valid problem");
        assert_agrees_with_lemke(&sparse)?;
    }
}

/// `M = tridiag(−1, 2 + ε, −1)` (`ε = 0.01`, symmetric positive definite) in sparse-block
/// storage with 1×1 blocks, and `q` with about 90 % negative components (seeded).
fn chain(n: usize, seed: u64) -> LcpProblem {
    let mut blocks = Vec::with_capacity(3 * n);
    for i in 0..n {
        blocks.push((i, i, faer::mat![[2.01]]));
        if i + 1 < n {
            blocks.push((i, i + 1, faer::mat![[-1.0]]));
            blocks.push((i + 1, i, faer::mat![[-1.0]]));
        }
    }
    let ends: Vec<usize> = (1..=n).collect();
    let m = SparseBlockMatrix::from_blocks(ends.clone(), ends, blocks, DuplicateBlocks::Error).expect("valid blocks");
    let mut rng = StdRng::seed_from_u64(seed);
    let q: Vec<f64> = (0..n)
        .map(|_| if rng.random::<f64>() < 0.9 { -rng.random_range(0.1..1.0) } else { rng.random_range(0.0..5.0) })
        .collect();
    LcpProblem::new(NumericsMatrix::SparseBlock(m), q).expect("valid problem")
}

#[test]
fn chain_of_2000_is_solved_cold_and_warm() {
    let problem = chain(2000, 7);
    let mut solver = bpp();
    let start = Instant::now();
    let (report, z) = solve(&mut solver, &problem);
    let cold = start.elapsed();
    assert!(report.is_converged(), "{report:?}");
    assert!(report.residual <= 1e-10);
    let active = z.iter().filter(|&&v| v > 0.0).count();
    assert!(active > 1000 && active < 2000, "{active} active contacts");

    // Warm start from the solution itself: accepted at once.
    let (again, z_again) = solve_from(&mut solver, &problem, &z);
    assert!(again.is_converged() && again.iterations <= 1, "{again:?}");
    assert!(max_abs_diff(&z, &z_again) <= 1e-12 * norm_inf(&z));

    // Warm start from a perturbation of the solution with the same support: one round.
    let z_perturbed: Vec<f64> = z.iter().map(|v| v * 1.001).collect();
    let start = Instant::now();
    let (warm, z_warm) = solve_from(&mut solver, &problem, &z_perturbed);
    let warm_time = start.elapsed();
    assert!(warm.is_converged() && warm.iterations == 1, "{warm:?}");
    assert!(max_abs_diff(&z, &z_warm) <= 1e-9 * norm_inf(&z));
    println!(
        "chain n = 2000: cold {} rounds in {cold:?}, warm (same support) {} round in {warm_time:?}, {active} active",
        report.iterations, warm.iterations
    );
}

#[test]
fn chain_warm_start_from_the_previous_step_takes_few_rounds() {
    // Two "time steps": q changes by a few percent, the active set barely moves.
    let first = chain(2000, 11);
    let (m, q) = first.clone().into_parts();
    let mut rng = StdRng::seed_from_u64(12);
    let q2: Vec<f64> = q.iter().map(|v| v * (1.0 + 0.02 * (rng.random::<f64>() - 0.5))).collect();
    let second = LcpProblem::new(m, q2).expect("valid problem");
    let mut solver = bpp();
    let (r1, z1) = solve(&mut solver, &first);
    assert!(r1.is_converged());
    let start = Instant::now();
    let (r2, z2) = solve_from(&mut solver, &second, &z1);
    let elapsed = start.elapsed();
    assert!(r2.is_converged() && r2.residual <= 1e-10, "{r2:?}");
    let (cold, z_cold) = solve(&mut bpp(), &second);
    assert!(cold.is_converged());
    assert!(max_abs_diff(&z2, &z_cold) <= 1e-9 * norm_inf(&z_cold));
    assert!(r2.iterations <= cold.iterations, "warm {} rounds, cold {}", r2.iterations, cold.iterations);
    println!(
        "chain n = 2000, next step warm started: {} rounds in {elapsed:?} (cold: {} rounds)",
        r2.iterations, cold.iterations
    );
}

#[test]
fn sparse_block_sparse_and_dense_storages_give_the_same_z() {
    let problem = chain(300, 3);
    let (m, q) = problem.clone().into_parts();
    let dense = LcpProblem::new(NumericsMatrix::Dense(m.to_dense()), q.clone()).expect("valid problem");
    let csr = LcpProblem::new(NumericsMatrix::Sparse(m.to_csr()), q.clone()).expect("valid problem");
    let csc = LcpProblem::new(NumericsMatrix::Sparse(m.to_csc()), q).expect("valid problem");
    let (r_sbm, z_sbm) = solve(&mut bpp(), &problem);
    assert!(r_sbm.is_converged(), "{r_sbm:?}");
    let scale = norm_inf(&z_sbm);
    for (label, p) in [("dense", &dense), ("csr", &csr), ("csc", &csc)] {
        let (r, z) = solve(&mut bpp(), p);
        assert!(r.is_converged(), "{label}: {r:?}");
        assert_eq!(r.iterations, r_sbm.iterations, "{label}: same partitions, same rounds");
        let diff = max_abs_diff(&z, &z_sbm);
        assert!(diff <= 1e-12 * scale, "{label}: difference {diff:e}");
    }
}

#[test]
fn bpp_is_reachable_by_name_and_caps_rounds() {
    let problem = chain(100, 5);
    let mut capped = LcpMethod::from_name("bpp", Some(1e-10), Some(1)).expect("known name").build().expect("valid");
    assert_eq!(capped.name(), "bpp");
    let (report, _) = solve(capped.as_mut(), &problem);
    // From z = 0 the first round only reads w = q: one round cannot solve it.
    assert_eq!(report.status, SolverStatus::MaxIterations);
    assert_eq!(report.iterations, 1);
}

#[test]
fn wrong_lengths_are_dimension_mismatches() {
    let problem = chain(10, 1);
    let (mut z, mut w) = (vec![0.0; 9], vec![0.0; 10]);
    let err = bpp().solve(&problem, &mut z, &mut w).expect_err("z too short");
    assert!(matches!(err, nonsmooth_numerics::NumericsError::DimensionMismatch { .. }), "{err}");
}
