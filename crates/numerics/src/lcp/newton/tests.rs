//! Unit tests of the semismooth Newton pieces: φ, the generalised Jacobian, the line search.

use super::*;

fn assert_close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b} (tolerance {tol})");
}

fn dense_problem(m: Mat<f64>, q: Vec<f64>) -> LcpProblem {
    LcpProblem::new(NumericsMatrix::Dense(m), q).expect("valid problem")
}

#[test]
fn fischer_burmeister_values() {
    assert_close(fischer_burmeister(0.0, 0.0), 0.0, 0.0);
    assert_close(fischer_burmeister(3.0, 4.0), -2.0, 1e-15);
    assert_close(fischer_burmeister(2.0, 0.0), 0.0, 0.0);
    assert_close(fischer_burmeister(0.0, 5.0), 0.0, 0.0);
    assert_close(fischer_burmeister(-1.0, 0.0), 2.0, 1e-15);
    assert_close(fischer_burmeister(-3.0, -4.0), 12.0, 1e-14);
    // Where the naive √(a² + b²) − a − b cancels completely, the rewritten form keeps −ab/(a+b).
    assert_close(fischer_burmeister(1e8, 1e-9), -1e-9, 1e-22);
}

#[test]
fn fischer_burmeister_jacobian_away_from_the_kink() {
    let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
    let (z, w) = ([3.0, 1.0], [4.0, 0.0]);
    let (mut a, mut b, mut v, mut u) = ([0.0; 2], [0.0; 2], [0.0; 2], [0.0; 2]);
    jacobian_coefficients(NewtonFunction::FischerBurmeister, DenseM::Faer(&m), &z, &w, &mut a, &mut b, &mut v, &mut u);
    // r = 5: a = 3/5 − 1, b = 4/5 − 1; second row r = 1: a = 0, b = −1.
    assert_close(a[0], -0.4, 1e-15);
    assert_close(b[0], -0.2, 1e-15);
    assert_close(a[1], 0.0, 1e-15);
    assert_close(b[1], -1.0, 1e-15);
}

#[test]
fn fischer_burmeister_jacobian_at_the_kink() {
    // z_0 = w_0 = 0 is the kink; v = e_0, u = M v = (2, 1): a_0 = 1/√5 − 1, b_0 = 2/√5 − 1.
    let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
    let (z, w) = ([0.0, 1.0], [0.0, 0.0]);
    let (mut a, mut b, mut v, mut u) = ([0.0; 2], [0.0; 2], [0.0; 2], [0.0; 2]);
    jacobian_coefficients(NewtonFunction::FischerBurmeister, DenseM::Faer(&m), &z, &w, &mut a, &mut b, &mut v, &mut u);
    let s5 = 5.0f64.sqrt();
    assert_close(a[0], 1.0 / s5 - 1.0, 1e-15);
    assert_close(b[0], 2.0 / s5 - 1.0, 1e-15);
    // The element lies on the unit circle around (−1, −1), as every limit of gradients of φ.
    assert_close((a[0] + 1.0).powi(2) + (b[0] + 1.0).powi(2), 1.0, 1e-15);
    // It is the limit of the Jacobian along (z, w) + ε (v, M v), ε → 0⁺.
    let eps = 1e-9_f64;
    let (zi, wi) = (eps, 2.0 * eps);
    let r = zi.hypot(wi);
    assert_close(a[0], zi / r - 1.0, 1e-12);
    assert_close(b[0], wi / r - 1.0, 1e-12);
    // The non-kink row is the ordinary gradient: r = 1, a = 0, b = −1.
    assert_close(a[1], 0.0, 1e-15);
    assert_close(b[1], -1.0, 1e-15);
}

#[test]
fn min_jacobian_selects_rows() {
    let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
    let (z, w) = ([1.0, 0.5], [2.0, -1.0]);
    let (mut a, mut b, mut v, mut u) = ([0.0; 2], [0.0; 2], [0.0; 2], [0.0; 2]);
    jacobian_coefficients(NewtonFunction::Min, DenseM::Faer(&m), &z, &w, &mut a, &mut b, &mut v, &mut u);
    // Row 0: z < w, so e_0; row 1: w < z, so M_1.
    assert_close(a[0], 1.0, 0.0);
    assert_close(b[0], 0.0, 0.0);
    assert_close(a[1], 0.0, 0.0);
    assert_close(b[1], 1.0, 0.0);
    let mut h = [0.0; 4];
    let largest = assemble_jacobian(DenseM::Faer(&m), &a, &b, &mut h);
    // Column-major [[1, 0], [1, 2]].
    for (x, y) in h.iter().zip([1.0, 1.0, 0.0, 2.0]) {
        assert_close(*x, y, 0.0);
    }
    assert_close(largest, 2.0, 0.0);
}

#[test]
fn armijo_search_decreases_the_merit() {
    // At z = 0, w = q: steepest descent for the Fischer–Burmeister merit.
    let m = faer::mat![[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]];
    let q = [-1.0, 2.0, -3.0];
    let z = [0.0; 3];
    let w = q;
    let f = NewtonFunction::FischerBurmeister;
    let mut phi = [0.0; 3];
    let theta = merit(f, &z, &w, &mut phi);
    let (mut a, mut b, mut v, mut u) = ([0.0; 3], [0.0; 3], [0.0; 3], [0.0; 3]);
    jacobian_coefficients(f, DenseM::Faer(&m), &z, &w, &mut a, &mut b, &mut v, &mut u);
    let mut h = [0.0; 9];
    assemble_jacobian(DenseM::Faer(&m), &a, &b, &mut h);
    let grad: Vec<f64> = h.chunks_exact(3).map(|c| dot(c, &phi)).collect();
    let d: Vec<f64> = grad.iter().map(|g| -g).collect();
    let slope = -dot(&grad, &grad);
    assert!(slope < 0.0);
    let mut md = [0.0; 3];
    DenseM::Faer(&m).mul(&d, &mut md);
    let (mut zt, mut wt) = ([0.0; 3], [0.0; 3]);
    let (t, theta_t) = armijo_search(f, &z, &w, &d, &md, theta, slope, 1e-4, 1e-16, &mut zt, &mut wt)
        .expect("a descent direction admits an Armijo step");
    assert!(t > 0.0 && t <= 1.0);
    assert!(theta_t < theta, "merit {theta_t} not below {theta}");
    assert!(theta_t <= theta + 1e-4 * t * slope);
    // The trial point is z + t d with w = M z + q there.
    let mut w_exact = [0.0; 3];
    DenseM::Faer(&m).mul(&zt, &mut w_exact);
    for i in 0..3 {
        assert_close(zt[i], t * d[i], 1e-15);
        assert_close(wt[i], w_exact[i] + q[i], 1e-12);
    }
    // An ascent direction is refused.
    let up: Vec<f64> = grad.clone();
    let mut mup = [0.0; 3];
    DenseM::Faer(&m).mul(&up, &mut mup);
    assert!(armijo_search(f, &z, &w, &up, &mup, theta, -slope, 1e-4, 1e-16, &mut zt, &mut wt).is_none());
}

#[test]
fn singular_newton_matrix_falls_back_to_the_gradient() {
    // Min at z = 0 with q < 0 selects the rows of the singular M = [[1, 1], [1, 1]].
    let problem = dense_problem(faer::mat![[1.0, 1.0], [1.0, 1.0]], vec![-1.0, -1.0]);
    let options = NewtonOptions::default().with_function(NewtonFunction::Min);
    let mut solver = NewtonSolver::new(options).expect("valid options");
    let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
    let report = solver.solve(&problem, &mut z, &mut w).expect("solve runs");
    assert!(report.is_converged(), "{report:?}");
    assert_close(z[0] + z[1], 1.0, 1e-12);
}

#[test]
fn pinned_iteration_counts_on_deudeu() {
    // Siconos' lcp_deudeu.dat; Siconos 4.4 NEWTON_FB_FBLSA: 5 iterations at tolerance 1e-8,
    // NEWTONMIN: 2 iterations.
    let problem = dense_problem(faer::mat![[2.0, 1.0], [1.0, 2.0]], vec![-5.0, -6.0]);
    let mut counts = Vec::new();
    for function in [NewtonFunction::FischerBurmeister, NewtonFunction::Min] {
        for tolerance in [1e-8, 1e-12] {
            let options = NewtonOptions::default().with_function(function).with_tolerance(tolerance);
            let mut solver = NewtonSolver::new(options).expect("valid options");
            let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
            let report = solver.solve(&problem, &mut z, &mut w).expect("solve runs");
            assert!(report.is_converged() && report.residual <= tolerance, "{report:?}");
            assert_close(z[0], 4.0 / 3.0, 1e-7);
            assert_close(z[1], 7.0 / 3.0, 1e-7);
            counts.push(report.iterations);
        }
    }
    assert_eq!(counts, PINNED_DEUDEU);
}

const PINNED_DEUDEU: [usize; 4] = [5, 6, 1, 1];

#[test]
fn solved_warm_start_costs_no_iteration() {
    let problem = dense_problem(faer::mat![[2.0, 1.0], [1.0, 2.0]], vec![-5.0, -6.0]);
    let mut solver = NewtonSolver::new(NewtonOptions::default()).expect("valid options");
    let (mut z, mut w) = (vec![4.0 / 3.0, 7.0 / 3.0], vec![0.0; 2]);
    let report = solver.solve(&problem, &mut z, &mut w).expect("solve runs");
    assert!(report.is_converged());
    assert_eq!(report.iterations, 0);
}

#[test]
fn invalid_options_are_rejected() {
    let bad = [
        NewtonOptions::default().with_tolerance(-1.0),
        NewtonOptions::default().with_tolerance(f64::INFINITY),
        NewtonOptions::default().with_sufficient_decrease(0.0),
        NewtonOptions::default().with_sufficient_decrease(0.5),
        NewtonOptions::default().with_min_step(0.0),
        NewtonOptions::default().with_min_step(2.0),
        NewtonOptions::default().with_descent_test(-1.0, 2.1),
        NewtonOptions::default().with_descent_test(1e-8, f64::NAN),
    ];
    for options in bad {
        assert!(matches!(NewtonSolver::new(options), Err(NumericsError::InvalidOption { .. })));
    }
}
