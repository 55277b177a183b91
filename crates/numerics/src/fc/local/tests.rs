use super::alart_curnier::alart_curnier_function;
use super::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn random_problem(rng: &mut StdRng) -> OneContactProblem {
    let a: [[f64; 3]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| rng.random_range(-1.0..1.0)));
    let w = std::array::from_fn(|i| {
        std::array::from_fn(|j| (0..3).map(|k| a[k][i] * a[k][j]).sum::<f64>() + if i == j { 0.1 } else { 0.0 })
    });
    let q = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
    OneContactProblem::new(w, q, rng.random_range(0.0..1.5)).expect("valid random problem")
}

/// Away from the kinks the Jacobian element equals the finite-difference derivative of Φ.
#[test]
fn jacobian_matches_finite_differences() {
    let mut rng = StdRng::seed_from_u64(0x0ac7);
    let mut checked = 0;
    for _ in 0..500 {
        let p = random_problem(&mut rng);
        let r: [f64; 3] = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
        let rho = [1.0 / p.w()[0][0], 2.0 / (p.w()[1][1] + p.w()[2][2])];
        let (phi, jac) = alart_curnier_function(&p, &r, rho);
        let h = 1e-7;
        let mut ok = true;
        let mut fd = [[0.0; 3]; 3];
        for j in 0..3 {
            let mut rp = r;
            rp[j] += h;
            let mut rm = r;
            rm[j] -= h;
            let (pp, jp) = alart_curnier_function(&p, &rp, rho);
            let (pm, jm) = alart_curnier_function(&p, &rm, rho);
            // Skip points where a kink lies within h (the Jacobian element changes).
            if jp.iter().flatten().zip(jm.iter().flatten()).any(|(a, b)| (a - b).abs() > 1e-4) {
                ok = false;
            }
            for i in 0..3 {
                fd[i][j] = (pp[i] - pm[i]) / (2.0 * h);
            }
        }
        assert!(phi.iter().all(|v| v.is_finite()));
        if ok {
            checked += 1;
            for i in 0..3 {
                for j in 0..3 {
                    assert!((fd[i][j] - jac[i][j]).abs() < 1e-5, "J[{i}][{j}] = {} vs fd {}", jac[i][j], fd[i][j]);
                }
            }
        }
    }
    assert!(checked > 400, "only {checked} smooth points");
}

#[test]
fn invalid_input_and_options_are_typed_errors() {
    let w = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    assert!(matches!(OneContactProblem::new(w, [0.0; 3], -0.1), Err(NumericsError::InvalidInput { .. })));
    assert!(matches!(OneContactProblem::new(w, [f64::NAN, 0.0, 0.0], 0.1), Err(NumericsError::NonFinite { .. })));
    let mut w0 = w;
    w0[1][1] = 0.0;
    assert!(matches!(OneContactProblem::new(w0, [0.0; 3], 0.1), Err(NumericsError::InvalidInput { .. })));
    let p = OneContactProblem::new(w, [-1.0, 0.0, 0.0], 0.5).expect("valid");
    let mut r = [0.0; 3];
    let opts = AlartCurnierOptions { tolerance: 0.0, ..Default::default() };
    assert!(matches!(solve_alart_curnier(&p, &mut r, &opts), Err(NumericsError::InvalidOption { .. })));
    let opts = OneContactProjectionOptions { max_iterations: 0, ..Default::default() };
    assert!(matches!(solve_projection(&p, &mut r, &opts), Err(NumericsError::InvalidOption { .. })));
    let mut r = [f64::INFINITY, 0.0, 0.0];
    assert!(matches!(
        solve_projection(&p, &mut r, &OneContactProjectionOptions::default()),
        Err(NumericsError::NonFinite { .. })
    ));
}

/// A singular (positive semidefinite) `W` makes the sticking Jacobian `diag(ρ) W` singular: the
/// solver takes the Levenberg–Marquardt step instead of panicking, and at the resulting
/// stationary point of `½‖Φ‖²` (not a solution) the hybrid projection phase. Here `W e = 0` for
/// `e = (1, −1, 0)/√2` and `q = (−1, 0.1, 0.05)` admits solutions; both solvers must solve it.
#[test]
fn singular_newton_matrix_falls_back() {
    let w = [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    assert!(super::alart_curnier::solve3(w, [1.0, 0.0, 0.0]).is_none());
    let p = OneContactProblem::new(w, [-1.0, 0.1, 0.05], 0.8).expect("valid");
    let mut r = [0.0; 3];
    let rep = solve_projection(&p, &mut r, &OneContactProjectionOptions::default()).expect("valid");
    assert!(rep.is_converged() && p.error(&r) <= 1e-12, "{rep:?} {r:?}");
    let mut r = [0.0; 3];
    let rep = solve_alart_curnier(&p, &mut r, &AlartCurnierOptions::default()).expect("valid");
    assert!(rep.is_converged() && p.error(&r) <= 1e-12, "{rep:?} {r:?}");
}

/// The closed-form take-off and sticking cases are exact solutions (error ≤ 1e-14) whenever they
/// apply, agree with the quartic enumeration, and are declined (None) exactly on the random
/// problems whose solution slides.
#[test]
fn take_off_or_stick_is_exact_where_it_applies() {
    let mut rng = StdRng::seed_from_u64(0x57_1c);
    let (mut applied, mut declined) = (0, 0);
    for _ in 0..2000 {
        let p = random_problem(&mut rng);
        let mut exact = [0.0; 3];
        let rep = solve_quartic(&p, &mut exact, &QuarticOptions::default()).expect("valid options");
        match super::alart_curnier::take_off_or_stick(&p) {
            Some(r) => {
                applied += 1;
                assert!(p.error(&r) <= 1e-14, "closed form is not a solution: {r:?}");
            }
            None => {
                declined += 1;
                // Declined: the exact solution is not a take-off (r = 0 with q_N ≥ 0) and not
                // a sticking one (u = 0) inside the cone.
                if rep.is_converged() {
                    let u = p.velocity(&exact);
                    let sticking = u.iter().all(|v| v.abs() <= 1e-9) && exact[0] > 1e-9;
                    assert!(p.q()[0] < 0.0 && !sticking, "declined a take-off/stick case: {exact:?} u {u:?}");
                }
            }
        }
    }
    assert!(applied > 200 && declined > 200, "both kinds must occur: {applied} applied, {declined} declined");
}

/// The closed form for `W = diag(a, b, b)` solves every such problem (take-off, sticking and
/// sliding all occur) to round-off, matches the Alart–Curnier Newton solution, and
/// `isotropic_inverse` accepts exactly the blocks of that form up to 1e-12.
#[test]
fn isotropic_closed_form_is_exact() {
    let mut rng = StdRng::seed_from_u64(0x150);
    let mut kinds = [0usize; 3];
    for _ in 0..3000 {
        let (a, b) = (rng.random_range(0.1..10.0), rng.random_range(0.1..10.0));
        let w = [[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, b]];
        let q = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
        let p = OneContactProblem::new(w, q, rng.random_range(0.0..1.5)).expect("valid");
        let inverse = super::alart_curnier::isotropic_inverse(p.w()).expect("diag(a, b, b)");
        let r = super::alart_curnier::solve_isotropic(inverse, p.q(), p.mu());
        assert!(p.error(&r) <= 1e-15, "{p:?}: {r:?} error {}", p.error(&r));
        let mut newton = [0.0; 3];
        let rep = solve_alart_curnier(&p, &mut newton, &AlartCurnierOptions::default()).expect("valid");
        assert!(rep.is_converged(), "{rep:?}");
        let gap = (0..3).map(|i| (r[i] - newton[i]).abs()).fold(0.0, f64::max);
        assert!(gap <= 1e-10 * (1.0 + r[0].abs()), "{r:?} vs Newton {newton:?}");
        let tangential = (r[1] * r[1] + r[2] * r[2]).sqrt();
        kinds[if r[0] == 0.0 {
            0
        } else if tangential < p.mu() * r[0] * (1.0 - 1e-12) {
            1
        } else {
            2
        }] += 1;
    }
    assert!(kinds.iter().all(|&k| k > 300), "take-off, stick, slide: {kinds:?}");
    // Off-diagonal terms or unequal tangential entries beyond round-off are declined.
    let near = [[2.0, 1e-13, 0.0], [1e-13, 3.0, 0.0], [0.0, 0.0, 3.0 + 1e-12]];
    assert!(super::alart_curnier::isotropic_inverse(&near).is_some());
    let coupled = [[2.0, 1e-6, 0.0], [1e-6, 3.0, 0.0], [0.0, 0.0, 3.0]];
    assert!(super::alart_curnier::isotropic_inverse(&coupled).is_none());
    let anisotropic = [[2.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 3.1]];
    assert!(super::alart_curnier::isotropic_inverse(&anisotropic).is_none());
    let singular = [[0.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 3.0]];
    assert!(super::alart_curnier::isotropic_inverse(&singular).is_none());
}
