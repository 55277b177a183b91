//! Integration tests: the one-contact FC3D solvers (`nonsmooth_numerics::fc::local`).

use nonsmooth_numerics::fc::local::{
    AlartCurnierOptions, OneContactProblem, OneContactProjectionOptions, solve_alart_curnier, solve_projection,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const ID: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn both(p: &OneContactProblem) -> ([f64; 3], [f64; 3]) {
    let mut r1 = [0.0; 3];
    let rep = solve_projection(p, &mut r1, &OneContactProjectionOptions::default()).expect("valid options");
    assert!(rep.is_converged(), "projection: {rep:?} on {p:?}");
    let mut r2 = [0.0; 3];
    let rep = solve_alart_curnier(p, &mut r2, &AlartCurnierOptions::default()).expect("valid options");
    assert!(rep.is_converged(), "Alart-Curnier: {rep:?} on {p:?}");
    (r1, r2)
}

fn assert_close(r: &[f64; 3], expected: &[f64; 3], tol: f64) {
    for (a, b) in r.iter().zip(expected) {
        assert!((a - b).abs() <= tol, "{r:?} vs {expected:?}");
    }
}

/// Take-off: q_N > 0, so r = 0 and u = q (separating contact).
#[test]
fn take_off_case() {
    let p = OneContactProblem::new(ID, [0.5, 0.3, -0.2], 0.7).expect("valid");
    let (r1, r2) = both(&p);
    assert_close(&r1, &[0.0; 3], 1e-11);
    assert_close(&r2, &[0.0; 3], 1e-11);
}

/// Sticking with W = I: q = (−1, 0.2, 0), μ = 0.5. u = 0 gives r = −q = (1, −0.2, 0) with
/// ‖r_T‖ = 0.2 ≤ μ r_N = 0.5: inside the cone, so sticking.
#[test]
fn sticking_case() {
    let p = OneContactProblem::new(ID, [-1.0, 0.2, 0.0], 0.5).expect("valid");
    let (r1, r2) = both(&p);
    for r in [r1, r2] {
        assert_close(&r, &[1.0, -0.2, 0.0], 1e-10);
        assert_close(&p.velocity(&r), &[0.0; 3], 1e-10);
    }
}

/// Sliding with W = I: q = (−1, 2, 0), μ = 0.5. u_N = 0 so r_N = 1, r_T = −μ r_N e_x = (−0.5, 0),
/// u_T = r_T + q_T = (1.5, 0), opposite to r_T: sliding.
#[test]
fn sliding_case() {
    let p = OneContactProblem::new(ID, [-1.0, 2.0, 0.0], 0.5).expect("valid");
    let (r1, r2) = both(&p);
    for r in [r1, r2] {
        assert_close(&r, &[1.0, -0.5, 0.0], 1e-10);
    }
}

/// Frictionless (μ = 0) and the degenerate q = 0 (solution r = 0, start at the apex).
#[test]
fn frictionless_and_zero_q() {
    let p = OneContactProblem::new(ID, [-2.0, 1.0, 1.0], 0.0).expect("valid");
    let (r1, r2) = both(&p);
    assert_close(&r1, &[2.0, 0.0, 0.0], 1e-10);
    assert_close(&r2, &[2.0, 0.0, 0.0], 1e-10);
    let p = OneContactProblem::new(ID, [0.0; 3], 1.0).expect("valid");
    let (r1, r2) = both(&p);
    assert_close(&r1, &[0.0; 3], 1e-12);
    assert_close(&r2, &[0.0; 3], 1e-12);
}

fn random_problem(rng: &mut StdRng, eps: f64) -> OneContactProblem {
    random_scaled_problem(rng, eps, 1.0)
}

fn random_scaled_problem(rng: &mut StdRng, eps: f64, q_scale: f64) -> OneContactProblem {
    let a: [[f64; 3]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| rng.random_range(-1.0..1.0)));
    let w = std::array::from_fn(|i| {
        std::array::from_fn(|j| (0..3).map(|k| a[k][i] * a[k][j]).sum::<f64>() + if i == j { eps } else { 0.0 })
    });
    let q = std::array::from_fn(|_| q_scale * rng.random_range(-1.0..1.0));
    OneContactProblem::new(w, q, rng.random_range(0.0..1.5)).expect("valid random problem")
}

/// 3000 seeded random problems W = AᵀA + εI (A uniform in [−1, 1], ε = 0.1), q uniform in
/// [−1, 1]³, μ ∈ [0, 1.5]: both solvers reach error ≤ 1e-12 (relative to max(‖q‖, ‖r‖, ‖u‖, 1)).
/// Their reactions agree to 1e-7 except on problems with several solutions; the count of
/// disagreements is bounded and each such pair is checked to be two solutions.
#[test]
fn random_problems_both_converge_and_agree() {
    let mut rng = StdRng::seed_from_u64(0x0fc3_d001);
    let mut disagree = 0;
    let (mut it_p, mut it_ac, mut max_ac, mut pure_fail) = (0, 0, 0, 0);
    let n = 3000;
    for _ in 0..n {
        let p = random_problem(&mut rng, 0.1);
        let mut r1 = [0.0; 3];
        let rep1 = solve_projection(&p, &mut r1, &OneContactProjectionOptions::default()).expect("valid");
        let mut r2 = [0.0; 3];
        let rep2 = solve_alart_curnier(&p, &mut r2, &AlartCurnierOptions::default()).expect("valid");
        assert!(rep1.is_converged(), "projection {rep1:?} on {p:?}");
        assert!(rep2.is_converged(), "Alart-Curnier {rep2:?} on {p:?}");
        assert!(p.error(&r1) <= 1e-12 && p.error(&r2) <= 1e-12);
        it_p += rep1.iterations;
        it_ac += rep2.iterations;
        max_ac = max_ac.max(rep2.iterations);
        let mut r3 = [0.0; 3];
        let mut pure = AlartCurnierOptions::default();
        pure.hybrid_projection_iterations = 0;
        if !solve_alart_curnier(&p, &mut r3, &pure).expect("valid").is_converged() {
            pure_fail += 1;
        }
        let scale = 1.0 + r1.iter().chain(&r2).fold(0.0_f64, |m, v| m.max(v.abs()));
        if r1.iter().zip(&r2).any(|(a, b)| (a - b).abs() > 1e-7 * scale) {
            disagree += 1;
        }
    }
    println!(
        "projection mean iterations {:.1}, Alart-Curnier {:.2} (max {max_ac}), disagreements {disagree}/{n}, pure Newton failures {pure_fail}",
        it_p as f64 / n as f64,
        it_ac as f64 / n as f64
    );
    assert!(disagree * 100 <= n, "{disagree} disagreements out of {n}");
    // Newton alone (no hybrid fallback) already solves the vast majority.
    assert!(pure_fail * 50 <= n, "pure Newton failed {pure_fail} times out of {n}");
}

/// 2000 harder problems: ε = 1e-3 (condition numbers up to ~1e4) and q scaled by 10^k,
/// k ∈ [−3, 3]: both solvers converge to the relative error 1e-13 (tight, so that the forward
/// error, up to κ(W)·error, stays below the comparison threshold) and agree on r to 1e-7
/// relative to `10^k + max|r|`, up to 1% of problems with several solutions.
#[test]
fn ill_conditioned_and_scaled_problems() {
    let mut rng = StdRng::seed_from_u64(0x0fc3_d002);
    let n = 2000;
    let mut disagree = 0;
    let mut popts = OneContactProjectionOptions::default();
    popts.tolerance = 1e-13;
    popts.max_iterations = 200_000;
    let mut aopts = AlartCurnierOptions::default();
    aopts.tolerance = 1e-13;
    for _ in 0..n {
        let s = 10f64.powi(rng.random_range(-3..=3));
        let p = random_scaled_problem(&mut rng, 1e-3, s);
        let mut r1 = [0.0; 3];
        let rep1 = solve_projection(&p, &mut r1, &popts).expect("valid");
        let mut r2 = [0.0; 3];
        let rep2 = solve_alart_curnier(&p, &mut r2, &aopts).expect("valid");
        assert!(rep1.is_converged(), "projection {rep1:?} on {p:?}");
        assert!(rep2.is_converged(), "Alart-Curnier {rep2:?} on {p:?}");
        assert!(p.error(&r1) <= 1e-13 && p.error(&r2) <= 1e-13);
        let scale = s + r1.iter().chain(&r2).fold(0.0_f64, |m, v| m.max(v.abs()));
        if r1.iter().zip(&r2).any(|(a, b)| (a - b).abs() > 1e-7 * scale) {
            disagree += 1;
        }
    }
    println!("ill-conditioned: disagreements {disagree}/{n}");
    assert!(disagree * 100 <= n, "{disagree} disagreements out of {n}");
}
