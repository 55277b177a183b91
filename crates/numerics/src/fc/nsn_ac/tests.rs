//! Unit tests of the NSN-AC solver and its Alart–Curnier blocks.

use super::*;
use crate::fc::local::{AlartCurnierOptions, OneContactProblem, alart_curnier_function, solve_alart_curnier};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn spd_block(rng: &mut StdRng) -> [[f64; 3]; 3] {
    let m: [[f64; 3]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| rng.random_range(-1.0..1.0)));
    std::array::from_fn(|i| {
        std::array::from_fn(|j| (0..3).map(|k| m[i][k] * m[j][k]).sum::<f64>() + if i == j { 0.5 } else { 0.0 })
    })
}

#[test]
fn a_w_plus_b_is_the_one_contact_jacobian() {
    let mut rng = StdRng::seed_from_u64(42);
    for _ in 0..2000 {
        let w = spd_block(&mut rng);
        let q: [f64; 3] = std::array::from_fn(|_| rng.random_range(-2.0..2.0));
        let mu = rng.random_range(0.0..1.5);
        let p = OneContactProblem::new(w, q, mu).expect("valid");
        let r: [f64; 3] = std::array::from_fn(|_| rng.random_range(-1.0..2.0));
        let rho = [rng.random_range(0.1..2.0), rng.random_range(0.1..2.0)];
        let (phi, jac) = alart_curnier_function(&p, &r, rho);
        let (phi2, a, b) = alart_curnier_ab(&r, &p.velocity(&r), mu, rho);
        for i in 0..3 {
            assert!((phi[i] - phi2[i]).abs() <= 1e-12, "{phi:?} {phi2:?}");
            for j in 0..3 {
                let awb: f64 = (0..3).map(|k| a[i][k] * w[k][j]).sum::<f64>() + b[i][j];
                assert!((awb - jac[i][j]).abs() <= 1e-12, "{i} {j}: {awb} vs {}", jac[i][j]);
            }
        }
    }
}

#[test]
fn largest_eigenvalue_matches_power_iteration() {
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..200 {
        let w = spd_block(&mut rng);
        let mut x = [1.0, 0.7, 0.3];
        let mut lambda = 0.0;
        for _ in 0..2000 {
            let y: [f64; 3] = std::array::from_fn(|i| (0..3).map(|k| w[i][k] * x[k]).sum());
            lambda = (y[0] * y[0] + y[1] * y[1] + y[2] * y[2]).sqrt();
            x = y.map(|v| v / lambda);
        }
        assert!((largest_eigenvalue_3x3(&w) - lambda).abs() <= 1e-8 * lambda, "{w:?}");
    }
    let d = [[1.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 2.0]];
    assert!((largest_eigenvalue_3x3(&d) - 3.0).abs() < 1e-15);
}

fn one_contact(w: [[f64; 3]; 3], q: [f64; 3], mu: f64, storage: u8) -> Fc3dProblem {
    let m = NumericsMatrix::Dense(Mat::from_fn(3, 3, |i, j| w[i][j]));
    let m = match storage {
        0 => m,
        1 => NumericsMatrix::SparseBlock(m.to_sparse_block(&[3], &[3]).expect("3x3")),
        _ => NumericsMatrix::Sparse(m.to_csr()),
    };
    Fc3dProblem::new(m, q.to_vec(), vec![mu]).expect("valid")
}

/// Sticking (`u = 0`), sliding (`r` on the cone, `u_N = 0`), take-off (`r = 0`): the solver
/// finds the state and agrees with the one-contact Alart–Curnier solver.
#[test]
fn one_contact_cases_agree_with_the_local_solver() {
    let w = [[2.0, 0.1, 0.0], [0.1, 1.5, 0.2], [0.0, 0.2, 1.8]];
    // Sticking (small tangential load), sliding (large one), frictionless contact.
    for (q, mu) in [([-1.0, 0.05, 0.0], 0.8), ([-1.0, 2.0, -1.0], 0.3), ([-0.5, 0.0, 0.0], 0.0)] {
        for storage in 0..3 {
            let p = one_contact(w, q, mu, storage);
            let (mut r, mut u) = (vec![0.0; 3], vec![0.0; 3]);
            let rep = NsnAcSolver::new(NsnAcOptions::default().with_tolerance(1e-13))
                .expect("valid")
                .solve(&p, &mut r, &mut u)
                .expect("sizes");
            assert!(rep.is_converged(), "{rep:?}");
            let local = OneContactProblem::new(w, q, mu).expect("valid");
            let mut rl = [0.0; 3];
            let opts = AlartCurnierOptions { tolerance: 1e-14, ..AlartCurnierOptions::default() };
            assert!(solve_alart_curnier(&local, &mut rl, &opts).expect("valid").is_converged());
            for k in 0..3 {
                assert!((r[k] - rl[k]).abs() <= 1e-10, "{r:?} vs {rl:?}");
            }
        }
    }
    // Take-off of contact 1 in a two-contact problem: r_1 = 0, u_1N > 0.
    let w6 = Mat::from_fn(6, 6, |i, j| {
        if i == j {
            2.0
        } else if i + 3 == j || j + 3 == i {
            0.5
        } else {
            0.0
        }
    });
    let p = Fc3dProblem::new(NumericsMatrix::Dense(w6), vec![-1.0, 0.2, 0.0, 1.0, 0.3, 0.0], vec![0.5, 0.5])
        .expect("valid");
    let (mut r, mut u) = (vec![0.0; 6], vec![0.0; 6]);
    let rep = NsnAcSolver::new(NsnAcOptions::default().with_tolerance(1e-13)).expect("v").solve(&p, &mut r, &mut u);
    assert!(rep.expect("sizes").is_converged());
    assert!(r[3..].iter().all(|v| v.abs() < 1e-12) && u[3] > 0.0, "{r:?} {u:?}");
    assert!(r[0] > 0.0 && u[0].abs() < 1e-12);
}

/// Dense, sparse-block and sparse storage give the same reactions (to 1e-12).
#[test]
fn storages_agree() {
    let mut rng = StdRng::seed_from_u64(3);
    let nc = 6;
    let n = 3 * nc;
    let h = Mat::from_fn(n, n + 4, |_, _| rng.random_range(-1.0..1.0));
    let w = Mat::from_fn(n, n, |i, j| {
        (0..n + 4).map(|k| h[(i, k)] * h[(j, k)]).sum::<f64>() * 0.2 + if i == j { 0.3 } else { 0.0 }
    });
    let q: Vec<f64> =
        (0..n).map(|i| if i % 3 == 0 { rng.random_range(-2.0..0.5) } else { rng.random_range(-1.0..1.0) }).collect();
    let mu: Vec<f64> = (0..nc).map(|_| rng.random_range(0.1..1.0)).collect();
    let ends: Vec<usize> = (1..=nc).map(|c| 3 * c).collect();
    let dense = NumericsMatrix::Dense(w);
    let mats = [
        dense.clone(),
        NumericsMatrix::SparseBlock(dense.to_sparse_block(&ends, &ends).expect("blocks")),
        NumericsMatrix::Sparse(dense.to_csr()),
    ];
    let mut sols: Vec<Vec<f64>> = Vec::new();
    for m in mats {
        let p = Fc3dProblem::new(m, q.clone(), mu.clone()).expect("valid");
        let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
        let rep = NsnAcSolver::new(NsnAcOptions::default().with_tolerance(1e-14).with_max_iterations(500))
            .expect("valid")
            .solve(&p, &mut r, &mut u)
            .expect("sizes");
        assert!(rep.is_converged(), "{rep:?}");
        sols.push(r);
    }
    for s in &sols[1..] {
        for (a, b) in s.iter().zip(&sols[0]) {
            assert!((a - b).abs() <= 1e-12, "{a} vs {b}");
        }
    }
}

#[test]
fn typed_errors_and_trivial_case() {
    let p = one_contact([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [-1.0, 0.0, 0.0], 0.5, 0);
    let mut s = NsnAcSolver::new(NsnAcOptions::default()).expect("valid");
    assert!(matches!(s.solve(&p, &mut [0.0; 2], &mut [0.0; 3]), Err(NumericsError::DimensionMismatch { .. })));
    assert!(matches!(s.solve(&p, &mut [0.0; 3], &mut [0.0; 4]), Err(NumericsError::DimensionMismatch { .. })));
    assert!(matches!(s.solve(&p, &mut [f64::NAN, 0.0, 0.0], &mut [0.0; 3]), Err(NumericsError::NonFinite { .. })));
    for bad in [
        NsnAcOptions::default().with_tolerance(0.0),
        NsnAcOptions::default().with_tolerance(f64::INFINITY),
        NsnAcOptions::default().with_max_iterations(0),
        NsnAcOptions::default().with_nonmonotone_memory(0),
        NsnAcOptions::default().with_rho_strategy(NsnRhoStrategy::Constant(-1.0)),
        NsnAcOptions::default().with_regularization(-1e-12),
        NsnAcOptions::default().with_regularization(f64::NAN),
        NsnAcOptions::default().with_regularization(f64::INFINITY),
    ] {
        assert!(matches!(NsnAcSolver::new(bad), Err(NumericsError::InvalidOption { .. })));
    }
    let p = one_contact([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [1.0, 0.3, 0.0], 0.5, 1);
    let (mut r, mut u) = ([4.0; 3], [0.0; 3]);
    let rep = s.solve(&p, &mut r, &mut u).expect("sizes");
    assert!(rep.is_converged() && rep.iterations == 0 && r.iter().all(|v| v.abs() < 1e-300));
    // Iteration cap reported as such.
    let p = one_contact([[2.0, 0.1, 0.0], [0.1, 1.5, 0.2], [0.0, 0.2, 1.8]], [-1.0, 2.0, -1.0], 0.3, 0);
    let mut s = NsnAcSolver::new(NsnAcOptions::default().with_tolerance(1e-15).with_max_iterations(1)).expect("v");
    let (mut r, mut u) = ([0.0; 3], [0.0; 3]);
    let rep = s.solve(&p, &mut r, &mut u).expect("sizes");
    assert!(rep.status == SolverStatus::MaxIterations && rep.iterations == 1 && rep.residual > 1e-15);
}

/// Two contacts at the same place (identical rows of `H`): `W = [[B, B], [B, B]]` is singular,
/// so is `J = A W + B` while both stick, and the Newton system is consistent. With the default
/// shift the solver converges in both storages, to a solution whose summed reaction is that of
/// the single contact.
#[test]
fn duplicated_contact_singular_jacobian() {
    let b = [[2.0, 0.1, 0.0], [0.1, 1.5, 0.2], [0.0, 0.2, 1.8]];
    let q1 = [-1.0, 0.1, -0.05];
    let mu = 0.6;
    let w = Mat::from_fn(6, 6, |i, j| b[i % 3][j % 3]);
    let q: Vec<f64> = q1.iter().chain(&q1).copied().collect();
    let single = OneContactProblem::new(b, q1, mu).expect("valid");
    let mut r1 = [0.0; 3];
    let opts = AlartCurnierOptions { tolerance: 1e-14, ..AlartCurnierOptions::default() };
    assert!(solve_alart_curnier(&single, &mut r1, &opts).expect("valid").is_converged());
    let dense = NumericsMatrix::Dense(w);
    let sbm = NumericsMatrix::SparseBlock(dense.to_sparse_block(&[3, 6], &[3, 6]).expect("blocks"));
    for m in [dense, sbm] {
        let p = Fc3dProblem::new(m, q.clone(), vec![mu, mu]).expect("valid");
        let (mut r, mut u) = (vec![0.0; 6], vec![0.0; 6]);
        let rep = NsnAcSolver::new(NsnAcOptions::default().with_tolerance(1e-12))
            .expect("valid")
            .solve(&p, &mut r, &mut u)
            .expect("sizes");
        assert!(rep.is_converged() && rep.residual <= 1e-12, "{rep:?}");
        for k in 0..3 {
            assert!((r[k] + r[k + 3] - r1[k]).abs() <= 1e-9, "{r:?} vs {r1:?}");
        }
    }
}
