//! Integration tests: the quartic (enumerative) one-contact solver
//! (`nonsmooth_numerics::fc::local::quartic`) against Alart–Curnier and hand cases.

use nonsmooth_numerics::SolverStatus;
use nonsmooth_numerics::fc::local::{AlartCurnierOptions, OneContactProblem, solve_alart_curnier};
use nonsmooth_numerics::fc::local::{QuarticOptions, solve_quartic};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const ID: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn quartic(p: &OneContactProblem) -> [f64; 3] {
    let mut r = [0.0; 3];
    let rep = solve_quartic(p, &mut r, &QuarticOptions::default()).expect("valid options");
    assert_eq!(rep.status, SolverStatus::Converged, "{rep:?} on {p:?}");
    assert!(rep.residual <= 1e-10);
    r
}

fn assert_close(r: &[f64; 3], expected: &[f64; 3], tol: f64) {
    for (a, b) in r.iter().zip(expected) {
        assert!((a - b).abs() <= tol, "{r:?} vs {expected:?}");
    }
}

/// Take-off: q_N > 0 gives r = 0.
#[test]
fn quartic_take_off() {
    let p = OneContactProblem::new(ID, [0.5, 0.3, -0.2], 0.7).expect("valid");
    assert_close(&quartic(&p), &[0.0; 3], 1e-14);
}

/// Sticking: W = I, q = (−1, 0.1, −0.2), μ = 0.7: r = −q lies inside the cone (‖r_T‖ ≈ 0.224 < 0.7).
#[test]
fn quartic_sticking() {
    let p = OneContactProblem::new(ID, [-1.0, 0.1, -0.2], 0.7).expect("valid");
    assert_close(&quartic(&p), &[1.0, -0.1, 0.2], 1e-13);
}

/// Sliding with W = I: r_N = −q_N, r_T = −μ r_N q_T/‖q_T‖ (here ‖q_T‖ = 5 > μ r_N).
#[test]
fn quartic_sliding_identity() {
    let p = OneContactProblem::new(ID, [-2.0, 3.0, -4.0], 0.5).expect("valid");
    assert_close(&quartic(&p), &[2.0, -0.6, 0.8], 1e-12);
    // Sliding along −e₁ exactly (θ = π, the t = ∞ case of the quartic).
    let p = OneContactProblem::new(ID, [-1.0, 2.0, 0.0], 0.5).expect("valid");
    assert_close(&quartic(&p), &[1.0, -0.5, 0.0], 1e-12);
}

/// Frictionless (μ = 0): r = (max(0, −q_N/W_NN), 0, 0) .
#[test]
fn quartic_frictionless() {
    let w = [[2.0, 0.3, 0.1], [0.3, 1.0, 0.0], [0.1, 0.0, 1.5]];
    let p = OneContactProblem::new(w, [-1.0, 0.4, 0.2], 0.0).expect("valid");
    assert_close(&quartic(&p), &[0.5, 0.0, 0.0], 1e-13);
}

/// Thousands of seeded random problems W = AᵀA + 0.1 I, q ∈ [−1, 1]³, μ ∈ [0.05, 1.5]: the
/// quartic solver and Alart–Curnier both converge and agree on r to 1e-7.
#[test]
fn quartic_agrees_with_alart_curnier_on_random_problems() {
    let mut rng = StdRng::seed_from_u64(0x9a47_1c12);
    let n = 5000;
    let mut failures = Vec::new();
    for k in 0..n {
        let a: [[f64; 3]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| rng.random_range(-1.0..1.0)));
        let w: [[f64; 3]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|j| (0..3).map(|m| a[m][i] * a[m][j]).sum::<f64>() + if i == j { 0.1 } else { 0.0 })
        });
        let q: [f64; 3] = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
        let mu = rng.random_range(0.05..1.5);
        let p = OneContactProblem::new(w, q, mu).expect("valid");
        let mut rq = [0.0; 3];
        let repq = solve_quartic(&p, &mut rq, &QuarticOptions::default()).expect("valid options");
        let mut ra = [0.0; 3];
        let repa = solve_alart_curnier(&p, &mut ra, &AlartCurnierOptions::default()).expect("valid options");
        let diff = rq.iter().zip(&ra).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        if !(repq.is_converged() && repa.is_converged() && diff <= 1e-7) {
            failures.push(format!("#{k}: quartic {repq:?} r={rq:?}; AC {repa:?} r={ra:?}; diff {diff:.3e}; {p:?}"));
        }
    }
    let ok = n - failures.len();
    println!("quartic vs Alart-Curnier: {ok}/{n} agree ({:.3}%)", 100.0 * ok as f64 / n as f64);
    for f in &failures {
        println!("{f}");
    }
    assert!(ok * 100 >= n * 99, "{} failures out of {n}", failures.len());
}
