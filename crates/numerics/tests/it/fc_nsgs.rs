//! NSGS for FC3D (`nonsmooth_numerics::fc::nsgs`): a hand-made problem and the Siconos fc3d
//! collection compared with Siconos 4.4's NSGS (`siconos44-fc3d.csv`).

use std::collections::HashMap;
use std::time::Instant;

use nonsmooth_numerics::fc::Fc3dProblem;
use nonsmooth_numerics::fc::nsgs::{NsgsLocalSolver, NsgsOptions, NsgsSolver};
use nonsmooth_numerics::io::{Problem, read_problem};
use nonsmooth_numerics::matrix::NumericsMatrix;

/// Two coupled contacts: a symmetric positive definite `W` with off-diagonal coupling between
/// the contacts, one contact sliding and one sticking-or-sliding.
fn hand_made() -> Fc3dProblem {
    let w = faer::mat![
        [2.0, 0.1, 0.0, 0.6, 0.1, 0.0],
        [0.1, 1.5, 0.2, 0.0, 0.3, 0.1],
        [0.0, 0.2, 1.8, 0.1, 0.0, 0.2],
        [0.6, 0.0, 0.1, 2.5, 0.0, 0.1],
        [0.1, 0.3, 0.0, 0.0, 1.2, 0.0],
        [0.0, 0.1, 0.2, 0.1, 0.0, 1.6],
    ];
    Fc3dProblem::new(NumericsMatrix::Dense(w), vec![-1.0, 0.8, -0.2, -0.5, 0.05, 0.0], vec![0.3, 0.8])
        .expect("valid problem")
}

#[test]
fn hand_made_two_contacts_all_variants_agree() {
    let p = hand_made();
    let mut reference: Option<Vec<f64>> = None;
    let variants = [
        NsgsOptions::default().with_tolerance(1e-12),
        NsgsOptions::default().with_tolerance(1e-12).with_local_solver(NsgsLocalSolver::Projection),
        NsgsOptions::default().with_tolerance(1e-12).with_relaxation(0.6),
        NsgsOptions::default().with_tolerance(1e-12).with_shuffle(true, 7),
    ];
    for opts in variants {
        let mut s = NsgsSolver::new(opts.clone()).expect("valid options");
        let (mut r, mut u) = (vec![0.0; 6], vec![0.0; 6]);
        let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
        assert!(rep.is_converged() && rep.residual <= 1e-12, "{opts:?}: {rep:?}");
        // Independent check of the returned velocity and of the Coulomb law per contact.
        let mut u2 = vec![0.0; 6];
        let err = p.compute_error(&r, &mut u2).expect("sizes match");
        assert!(err <= 1e-12);
        for (a, b) in u.iter().zip(&u2) {
            assert!((a - b).abs() < 1e-12);
        }
        for c in 0..2 {
            let (rn, rt) = (r[3 * c], r[3 * c + 1].hypot(r[3 * c + 2]));
            assert!(rn >= -1e-12 && rt <= p.mu()[c] * rn + 1e-10);
            assert!(u[3 * c] >= -1e-9 && (rn * u[3 * c]).abs() < 1e-9);
        }
        match &reference {
            None => reference = Some(r),
            Some(r0) => {
                for (a, b) in r.iter().zip(r0) {
                    assert!((a - b).abs() < 1e-8, "{opts:?}: {r:?} vs {r0:?}");
                }
            }
        }
    }
    // Warm start from the solution: converged after one sweep.
    let mut r = reference.expect("set above");
    let mut u = vec![0.0; 6];
    let rep = NsgsSolver::new(NsgsOptions::default().with_tolerance(1e-10))
        .expect("valid options")
        .solve(&p, &mut r, &mut u)
        .expect("sizes match");
    assert!(rep.is_converged() && rep.iterations <= 1);
}

#[test]
fn iteration_cap_is_reported() {
    let p = hand_made();
    let mut s =
        NsgsSolver::new(NsgsOptions::default().with_tolerance(1e-15).with_max_iterations(1)).expect("valid options");
    let (mut r, mut u) = (vec![0.0; 6], vec![0.0; 6]);
    let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
    assert_eq!(rep.iterations, 1);
    assert!(!rep.is_converged() && rep.residual > 1e-15);
    let mut u2 = vec![0.0; 6];
    assert!((p.compute_error(&r, &mut u2).expect("sizes match") - rep.residual).abs() < 1e-15);
}

/// Siconos 4.4 `converged` flag and iterations per file (`siconos44-fc3d.csv`) for `solver`.
fn siconos_runs(csv: &str, solver: &str) -> HashMap<String, (bool, usize)> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(f), Some(s), Some(c), Some(it)) = (col("file"), col("solver"), col("converged"), col("iterations"))
    else {
        return HashMap::new();
    };
    let mut out = HashMap::new();
    for line in lines {
        let v: Vec<&str> = line.split(',').collect();
        if v.len() > f.max(s).max(c).max(it) && v[s] == solver {
            out.insert(v[f].to_string(), (v[c] == "1", v[it].parse().unwrap_or(usize::MAX)));
        }
    }
    out
}

#[test]
fn siconos_fc3d_collection() {
    let Some(data) = crate::data_dir() else { return };
    let dir = data.join("siconos/fc3d");
    let csv = std::fs::read_to_string(data.join("siconos/siconos44-fc3d.csv")).expect("reference csv");
    let reference = siconos_runs(&csv, "NSGS");
    // Siconos' NSGS with the full error as stopping test, the same test as ours.
    let full_error = siconos_runs(&csv, "NSGS_FULLERR");
    assert!(!reference.is_empty(), "no NSGS rows in the csv");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("fc3d folder").flatten().map(|e| e.path()).collect();
    files.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in files {
        let name = path.file_name().and_then(|s| s.to_str()).unwrap_or("").to_string();
        let problem = match read_problem(&path, None) {
            Ok(Problem::Fc3d(p)) => p,
            Ok(_) => {
                println!("{name}: not an FC3D problem, skipped");
                continue;
            }
            Err(e) => {
                println!("{name}: not read ({e}), skipped");
                continue;
            }
        };
        let n = problem.size();
        let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
        let mut solver = NsgsSolver::new(NsgsOptions::default().with_tolerance(1e-8).with_max_iterations(10_000))
            .expect("valid options");
        let t = Instant::now();
        let rep = solver.solve(&problem, &mut r, &mut u).expect("sizes match");
        let siconos = reference.get(&name).map(|x| x.0);
        let fullerr = full_error.get(&name).copied();
        println!(
            "{name}: {} sweeps {} residual {:.3e} time {:.3}s (siconos NSGS converged: {siconos:?}, NSGS_FULLERR (converged, sweeps): {fullerr:?})",
            rep.status,
            rep.iterations,
            rep.residual,
            t.elapsed().as_secs_f64()
        );
        let mut u2 = vec![0.0; n];
        let err = problem.compute_error(&r, &mut u2).expect("sizes match");
        assert!((err - rep.residual).abs() <= 1e-12 * (1.0 + err), "{name}: report residual is not the error");
        if rep.is_converged() {
            assert!(rep.residual <= 1e-8, "{name}");
        }
        // Same stopping test as NSGS_FULLERR: the sweep counts agree (within 1%, at least 2).
        if let Some((true, sweeps)) = fullerr
            && rep.is_converged()
        {
            assert!(rep.iterations.abs_diff(sweeps) <= (sweeps / 100).max(2), "{name}: {} vs {sweeps}", rep.iterations);
        }
        if siconos == Some(true) {
            checked += 1;
            if !rep.is_converged() {
                failures.push(name);
            }
        }
    }
    println!("checked {checked} files where Siconos NSGS converged; failures: {failures:?}");
    assert!(checked > 0);
    assert!(failures.is_empty(), "NSGS did not converge where Siconos did: {failures:?}");
}
