//! PROX for FC3D (`nonsmooth_numerics::fc::prox`): the Siconos fc3d collection compared with
//! Siconos 4.4's PROX (`siconos44-fc3d.csv`).

use std::time::Instant;

use nonsmooth_numerics::fc::prox::{ProxOptions, ProxSolver};

use crate::fc_nsn_ac::{collection, siconos_runs};

#[test]
fn siconos_fc3d_collection_prox() {
    let Some((problems, csv)) = collection() else { return };
    let reference = siconos_runs(&csv, "PROX");
    assert!(!reference.is_empty(), "no PROX rows in the csv");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, problem) in &problems {
        let n = problem.size();
        let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
        let mut solver =
            ProxSolver::new(ProxOptions::default().with_tolerance(1e-8).with_max_iterations(1000)).expect("valid");
        let t = Instant::now();
        let rep = solver.solve(problem, &mut r, &mut u).expect("sizes match");
        let siconos = reference.get(name).copied();
        println!(
            "{name}: {} steps {} (newton {}) residual {:.3e} time {:.4}s (siconos (converged, steps): {siconos:?})",
            rep.status,
            rep.iterations,
            solver.inner_iterations(),
            rep.residual,
            t.elapsed().as_secs_f64()
        );
        let mut u2 = vec![0.0; n];
        let err = problem.compute_error(&r, &mut u2).expect("sizes match");
        assert!((err - rep.residual).abs() <= 1e-14 * (1.0 + err), "{name}: report residual is not the error");
        if rep.is_converged() {
            assert!(rep.residual <= 1e-8, "{name}");
        }
        if let Some((true, _)) = siconos {
            checked += 1;
            if !rep.is_converged() {
                failures.push(name.clone());
            }
        }
    }
    println!("checked {checked} files where Siconos PROX converged; failures: {failures:?}");
    assert!(checked >= 20, "{checked}");
    assert!(failures.is_empty(), "PROX did not converge where Siconos did: {failures:?}");
}

/// The caller's problem is left untouched: two solves from zero give identical results.
#[test]
fn repeated_solves_are_identical() {
    let Some((problems, _)) = collection() else { return };
    let (_, problem) = problems.iter().find(|(n, _)| n == "Capsules-i100-1090.dat").expect("file present");
    let n = problem.size();
    let mut results = Vec::new();
    for _ in 0..2 {
        let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
        let mut solver = ProxSolver::new(ProxOptions::default().with_tolerance(1e-8)).expect("valid");
        let rep = solver.solve(problem, &mut r, &mut u).expect("sizes match");
        results.push((rep.iterations, rep.residual, r));
    }
    assert_eq!(results[0].0, results[1].0);
    assert!(results[0].2.iter().zip(&results[1].2).all(|(a, b)| (a - b).abs() <= 0.0 * a.abs()));
}
