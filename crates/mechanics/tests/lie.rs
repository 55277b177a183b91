//! Property tests of the SO(3) / quaternion toolkit `nonsmooth_mechanics::lie` (the identities of
//! the Siconos developer notes, chapter "NewtonEuler Dynamical Systems", with its misprints
//! corrected as the module's documentation says).

use nonsmooth_kernel::KernelError;
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::lie::{
    Mat3, Quaternion, SMALL_ANGLE, Vec3, add, cross, dexp, dexp_inv, dot, identity3, left_matrix, log_so3, mat_mul,
    mat_vec, norm, normalize, one_minus_cos_over_x2, one_minus_half_cot_over_x2, phi, psi, right_matrix, rodrigues,
    scale, sin_x_over_x, skew, sub, t_operator, transpose, vee, x_minus_sin_over_x3,
};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::f64::consts::PI;

// ------------------------------------------------------------------------------------------
// Helpers.
// ------------------------------------------------------------------------------------------

fn mat_dist(a: &Mat3, b: &Mat3) -> f64 {
    let mut d = 0.0_f64;
    for i in 0..3 {
        for j in 0..3 {
            d = d.max((a[i][j] - b[i][j]).abs());
        }
    }
    d
}

fn vec_dist(a: Vec3, b: Vec3) -> f64 {
    (0..3).fold(0.0_f64, |d, i| d.max((a[i] - b[i]).abs()))
}

fn quat_dist(p: Quaternion, q: Quaternion) -> f64 {
    let (a, b) = (p.to_array(), q.to_array());
    (0..4).fold(0.0_f64, |d, i| d.max((a[i] - b[i]).abs()))
}

/// Distance between p and q up to the sign (p and −p are the same rotation).
fn quat_dist_pm(p: Quaternion, q: Quaternion) -> f64 {
    let minus_q = Quaternion::from_array(q.to_array().map(|v| -v));
    quat_dist(p, q).min(quat_dist(p, minus_q))
}

fn det3(m: &Mat3) -> f64 {
    dot(m[0], cross(m[1], m[2]))
}

fn unit(p: [f64; 4]) -> Quaternion {
    Quaternion::from_array(p).normalized().expect("strategies produce nonzero quaternions")
}

fn unit_quaternion() -> impl Strategy<Value = Quaternion> {
    prop::array::uniform4(-1.0..1.0_f64)
        .prop_filter("away from zero", |p| p.iter().map(|v| v * v).sum::<f64>() > 1e-2)
        .prop_map(unit)
}

fn vec3(r: f64) -> impl Strategy<Value = Vec3> {
    prop::array::uniform3(-r..r)
}

/// A rotation vector with angle in (−π, π) (kept 1e-6 away from ±π, where log is two-valued).
fn rotation_vector() -> impl Strategy<Value = Vec3> {
    (
        prop::array::uniform3(-1.0..1.0_f64).prop_filter("axis", |a| norm(*a) > 0.1),
        -(PI - 1e-6)..(PI - 1e-6),
        prop_oneof![Just(1.0), Just(1e-3), Just(1e-7)],
    )
        .prop_map(|(a, angle, s)| {
            // s shrinks some samples into the small-angle branches.
            scale(s * angle, normalize(a).expect("the axis strategy is nonzero"))
        })
}

/// The flow of q̇ = T(q) v for a constant twist: x + t v_G, p∘expq(tΩ).
fn flow(q: &[f64; 7], v: &[f64; 6], t: f64) -> [f64; 7] {
    let p = Quaternion::new(q[3], q[4], q[5], q[6]) * Quaternion::exp([t * v[3], t * v[4], t * v[5]]);
    [q[0] + t * v[0], q[1] + t * v[1], q[2] + t * v[2], p.w, p.x, p.y, p.z]
}

fn t_times(t: &[[f64; 6]; 7], v: &[f64; 6]) -> [f64; 7] {
    let mut out = [0.0; 7];
    for (o, row) in out.iter_mut().zip(t) {
        *o = row.iter().zip(v).map(|(a, b)| a * b).sum();
    }
    out
}

/// Central difference of Ω ↦ expm(Ω̃) along Γ, right-trivialized: vee(dR Rᵀ) (should be T(Ω)Γ).
fn fd_dexp_right(omega: Vec3, gamma: Vec3, eps: f64) -> Vec3 {
    let rp = rodrigues(add(omega, scale(eps, gamma)));
    let rm = rodrigues(sub(omega, scale(eps, gamma)));
    let mut d = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            d[i][j] = (rp[i][j] - rm[i][j]) / (2.0 * eps);
        }
    }
    vee(&mat_mul(&d, &transpose(&rodrigues(omega))))
}

/// Reference values of the small-angle coefficients from long Taylor series (x ≤ 0.3).
fn series_ref(x: f64, kind: u8) -> f64 {
    let t = x * x;
    let mut sum = 0.0;
    let mut term: f64;
    match kind {
        // sin x / x = Σ (−t)^k/(2k+1)!
        0 => {
            term = 1.0;
            for k in 0..15 {
                sum += term;
                term *= -t / (((2 * k + 2) * (2 * k + 3)) as f64);
            }
        }
        // (x − sin x)/x³ = Σ (−t)^k/(2k+3)!
        1 => {
            term = 1.0 / 6.0;
            for k in 0..15 {
                sum += term;
                term *= -t / (((2 * k + 4) * (2 * k + 5)) as f64);
            }
        }
        // (1 − cos x)/x² = Σ (−t)^k/(2k+2)!
        _ => {
            term = 0.5;
            for k in 0..15 {
                sum += term;
                term *= -t / (((2 * k + 3) * (2 * k + 4)) as f64);
            }
        }
    }
    sum
}

// ------------------------------------------------------------------------------------------
// Properties.
// ------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn skew_is_cross_product_and_vee_inverts_it(a in vec3(10.0), b in vec3(10.0)) {
        prop_assert!(vec_dist(mat_vec(&skew(a), b), cross(a, b)) < 1e-13);
        prop_assert!(vec_dist(vee(&skew(a)), a) < 1e-15);
        // Bracket [ã, b̃] = (a × b)~.
        let ab = mat_mul(&skew(a), &skew(b));
        let ba = mat_mul(&skew(b), &skew(a));
        let mut br = [[0.0; 3]; 3];
        for i in 0..3 { for j in 0..3 { br[i][j] = ab[i][j] - ba[i][j]; } }
        prop_assert!(mat_dist(&br, &skew(cross(a, b))) < 1e-12);
    }

    #[test]
    fn product_and_exp_preserve_unit_norm(p in unit_quaternion(), q in unit_quaternion(),
                                          omega in vec3(10.0)) {
        prop_assert!(((p * q).norm() - 1.0).abs() < 1e-15 * 4.0);
        prop_assert!((Quaternion::exp(omega).norm() - 1.0).abs() < 1e-15 * 4.0);
    }

    #[test]
    fn product_matches_matrix_forms(p in unit_quaternion(), q in unit_quaternion()) {
        let pq = (p * q).to_array();
        let (l, r) = (left_matrix(p), right_matrix(q));
        let (pa, qa) = (p.to_array(), q.to_array());
        for i in 0..4 {
            let li: f64 = (0..4).map(|j| l[i][j] * qa[j]).sum();
            let ri: f64 = (0..4).map(|j| r[i][j] * pa[j]).sum();
            prop_assert!((li - pq[i]).abs() < 1e-15 * 4.0);
            prop_assert!((ri - pq[i]).abs() < 1e-15 * 4.0);
        }
    }

    #[test]
    fn inverse_and_conjugate(p in prop::array::uniform4(-5.0..5.0_f64)
                             .prop_filter("nonzero", |p| p.iter().any(|v| v.abs() > 1e-3))) {
        let p = Quaternion::from_array(p);
        let inv = p.inverse().expect("nonzero");
        prop_assert!(quat_dist(p * inv, Quaternion::identity()) < 1e-13);
        prop_assert!(quat_dist(inv * p, Quaternion::identity()) < 1e-13);
        let n2 = p.norm() * p.norm();
        prop_assert!(quat_dist(p * p.conjugate(), Quaternion::new(n2, 0.0, 0.0, 0.0)) < 1e-13 * n2);
    }

    #[test]
    fn rotations_compose(p in unit_quaternion(), q in unit_quaternion()) {
        let lhs = (p * q).to_rotation_matrix();
        let rhs = mat_mul(&p.to_rotation_matrix(), &q.to_rotation_matrix());
        prop_assert!(mat_dist(&lhs, &rhs) < 1e-14);
        prop_assert!(mat_dist(&phi(p), &p.to_rotation_matrix()) < 1e-300);
    }

    #[test]
    fn rotate_equals_matrix_times_vector(p in unit_quaternion(), v in vec3(10.0)) {
        let r = p.to_rotation_matrix();
        prop_assert!(vec_dist(p.rotate(v), mat_vec(&r, v)) < 1e-13);
        // Vector part of p∘(0,v)∘p*, scalar part 0.
        let w = p * Quaternion::pure(v) * p.conjugate();
        prop_assert!(w.w.abs() < 1e-13);
        prop_assert!(vec_dist(w.vector(), p.rotate(v)) < 1e-13);
        // R is a rotation.
        prop_assert!(mat_dist(&mat_mul(&transpose(&r), &r), &identity3()) < 1e-14);
        prop_assert!((det3(&r) - 1.0).abs() < 1e-14);
    }

    #[test]
    fn rodrigues_is_rotation_matrix_of_exp(omega in vec3(10.0)) {
        let r = rodrigues(omega);
        prop_assert!(mat_dist(&r, &Quaternion::exp(omega).to_rotation_matrix()) < 1e-14);
        prop_assert!(mat_dist(&mat_mul(&transpose(&r), &r), &identity3()) < 1e-14);
        prop_assert!((det3(&r) - 1.0).abs() < 1e-14);
        // expm(Ω̃) fixes its axis.
        prop_assert!(vec_dist(mat_vec(&r, omega), omega) < 1e-13 * norm(omega).max(1.0));
    }

    #[test]
    fn so3_exp_log_are_inverse(omega in rotation_vector(), p in unit_quaternion()) {
        prop_assert!(vec_dist(log_so3(&rodrigues(omega)), omega) < 1e-9);
        let r = p.to_rotation_matrix();
        prop_assert!(mat_dist(&rodrigues(log_so3(&r)), &r) < 1e-14);
        prop_assert!(norm(log_so3(&r)) <= PI + 1e-15);
    }

    #[test]
    fn quaternion_exp_log_are_inverse(omega in rotation_vector(), p in unit_quaternion()) {
        let l = Quaternion::exp(omega).log().expect("unit");
        prop_assert!(vec_dist(l, omega) < 1e-14);
        let e = Quaternion::exp(p.log().expect("unit"));
        prop_assert!(quat_dist_pm(e, p) < 1e-15 * 4.0);
        // Same principal rotation vector from the matrix and from the quaternion (away from π).
        if norm(omega) < PI - 1e-3 {
            prop_assert!(vec_dist(log_so3(&rodrigues(omega)), l) < 1e-12);
        }
    }

    #[test]
    fn rotation_matrix_to_quaternion(p in unit_quaternion()) {
        let q = Quaternion::from_rotation_matrix(&p.to_rotation_matrix()).expect("finite");
        prop_assert!(q.w >= 0.0);
        prop_assert!(quat_dist_pm(q, p) < 1e-15 * 4.0);
    }

    #[test]
    fn axis_angle_is_exp(a in vec3(3.0).prop_filter("axis", |a| norm(*a) > 1e-3),
                         angle in -10.0..10.0_f64) {
        let q = Quaternion::from_axis_angle(a, angle).expect("nonzero axis");
        let e = Quaternion::exp(scale(angle, normalize(a).expect("nonzero")));
        prop_assert!(quat_dist(q, e) < 1e-15 * 4.0);
    }

    #[test]
    fn dexp_matches_finite_differences(omega in vec3(3.0), gamma in vec3(1.0)) {
        let eps = 1e-5;
        // Right-trivialized (T(Ω)) and left-trivialized (T(−Ω)) forms.
        let fd = fd_dexp_right(omega, gamma, eps);
        prop_assert!(vec_dist(fd, mat_vec(&dexp(omega), gamma)) < 1e-8);
        let rp = rodrigues(add(omega, scale(eps, gamma)));
        let rm = rodrigues(sub(omega, scale(eps, gamma)));
        let mut d = [[0.0; 3]; 3];
        for i in 0..3 { for j in 0..3 { d[i][j] = (rp[i][j] - rm[i][j]) / (2.0 * eps); } }
        let left = vee(&mat_mul(&transpose(&rodrigues(omega)), &d));
        prop_assert!(vec_dist(left, mat_vec(&dexp(scale(-1.0, omega)), gamma)) < 1e-8);
        // Quaternion form: d/dt expq(Ω) = (0, ½T(Ω)Ω̇)∘expq(Ω).
        let qp = Quaternion::exp(add(omega, scale(eps, gamma))).to_array();
        let qm = Quaternion::exp(sub(omega, scale(eps, gamma))).to_array();
        let fdq = Quaternion::from_array([0, 1, 2, 3].map(|i| (qp[i] - qm[i]) / (2.0 * eps)));
        let an = Quaternion::pure(scale(0.5, mat_vec(&dexp(omega), gamma))) * Quaternion::exp(omega);
        prop_assert!(quat_dist(fdq, an) < 1e-8);
        // T(Ω)Ω = Ω.
        prop_assert!(vec_dist(mat_vec(&dexp(omega), omega), omega) < 1e-14);
    }

    #[test]
    fn dexp_inverse(omega in vec3(3.5)) {
        let m = mat_mul(&dexp_inv(omega), &dexp(omega));
        prop_assert!(mat_dist(&m, &identity3()) < 1e-13);
    }

    #[test]
    fn psi_properties(p in unit_quaternion(), omega in vec3(5.0)) {
        let s = psi(p);
        let pa = p.to_array();
        // Ψ(p)Ω = p∘(0,Ω).
        let po = (p * Quaternion::pure(omega)).to_array();
        for i in 0..4 {
            let si: f64 = (0..3).map(|j| s[i][j] * omega[j]).sum();
            prop_assert!((si - po[i]).abs() < 1e-14);
        }
        // ΨᵀΨ = I₃, ΨΨᵀ = I₄ − ppᵀ, pᵀΨ = 0 (the developer notes swap I₃ and I₄).
        for i in 0..3 {
            for j in 0..3 {
                let v: f64 = (0..4).map(|k| s[k][i] * s[k][j]).sum();
                let e = f64::from(u8::from(i == j));
                prop_assert!((v - e).abs() < 1e-15 * 4.0);
            }
            let v: f64 = (0..4).map(|k| pa[k] * s[k][i]).sum();
            prop_assert!(v.abs() < 1e-15 * 4.0);
        }
        for i in 0..4 {
            for j in 0..4 {
                let v: f64 = (0..3).map(|k| s[i][k] * s[j][k]).sum();
                let e = f64::from(u8::from(i == j)) - pa[i] * pa[j];
                prop_assert!((v - e).abs() < 1e-15 * 4.0);
            }
        }
    }

    #[test]
    fn t_operator_matches_flow(p in unit_quaternion(), x in vec3(5.0), v in prop::array::uniform6(-3.0..3.0_f64)) {
        let q = [x[0], x[1], x[2], p.w, p.x, p.y, p.z];
        let t = t_operator(&q);
        let h = 1e-5;
        let (qp, qm) = (flow(&q, &v, h), flow(&q, &v, -h));
        let tv = t_times(&t, &v);
        for i in 0..7 {
            prop_assert!(((qp[i] - qm[i]) / (2.0 * h) - tv[i]).abs() < 1e-8);
        }
        // TᵀT = diag(I₃, ¼I₃), Tᵀ(0, p) = 0.
        for i in 0..6 {
            for j in 0..6 {
                let m: f64 = (0..7).map(|k| t[k][i] * t[k][j]).sum();
                let e = if i != j { 0.0 } else if i < 3 { 1.0 } else { 0.25 };
                prop_assert!((m - e).abs() < 1e-15 * 4.0);
            }
            let n: f64 = (3..7).map(|k| t[k][i] * q[k]).sum();
            prop_assert!(n.abs() < 1e-15 * 4.0);
        }
    }
}

// ------------------------------------------------------------------------------------------
// Small-angle branches, special values, bad input.
// ------------------------------------------------------------------------------------------

#[test]
fn small_angle_series_agree_with_closed_forms_at_threshold() {
    let mut worst = [0.0_f64; 4];
    for &x in &[
        SMALL_ANGLE * (1.0 - 1e-12),
        SMALL_ANGLE * (1.0 + 1e-12),
        SMALL_ANGLE * 0.5,
        SMALL_ANGLE * 1.5,
        1e-4,
        1e-8,
        0.0,
    ] {
        let rel = |a: f64, b: f64| (a - b).abs() / b.abs();
        worst[0] = worst[0].max(rel(sin_x_over_x(x), series_ref(x, 0)));
        worst[1] = worst[1].max(rel(x_minus_sin_over_x3(x), series_ref(x, 1)));
        worst[2] = worst[2].max(rel(one_minus_cos_over_x2(x), series_ref(x, 2)));
        // (1 − (x/2)cot(x/2))/x² against its Bernoulli series through x¹⁰ (sympy):
        // 1/12 + x²/720 + x⁴/30240 + x⁶/1209600 + x⁸/47900160 + 691x¹⁰/1307674368000.
        let t = x * x;
        let bern = 1.0 / 12.0
            + t * (1.0 / 720.0
                + t * (1.0 / 30_240.0
                    + t * (1.0 / 1_209_600.0 + t * (1.0 / 47_900_160.0 + t * 691.0 / 1.307_674_368e12))));
        worst[3] = worst[3].max(rel(one_minus_half_cot_over_x2(x), bern));
    }
    println!(
        "small-angle coefficients, max relative error vs long series: sinc {:.1e}, (x-sin)/x^3 {:.1e}, (1-cos)/x^2 {:.1e}, cot coef {:.1e}",
        worst[0], worst[1], worst[2], worst[3]
    );
    assert!(worst[0] < 1e-15, "sin x / x: {:e}", worst[0]);
    assert!(worst[1] < 2e-13, "(x - sin x)/x^3: {:e}", worst[1]);
    assert!(worst[2] < 1e-15, "(1 - cos x)/x^2: {:e}", worst[2]);
    assert!(worst[3] < 5e-13, "(1 - (x/2)cot(x/2))/x^2: {:e}", worst[3]);
    // Matrices are continuous across the threshold: Ω = (x, 0, 0) with x the last float below
    // SMALL_ANGLE (series branch) and x = SMALL_ANGLE (closed forms); ‖ΔΩ‖ ≈ 1.4e-17.
    let below = [f64::from_bits(SMALL_ANGLE.to_bits() - 1), 0.0, 0.0];
    let above = [SMALL_ANGLE, 0.0, 0.0];
    assert!(mat_dist(&rodrigues(below), &rodrigues(above)) < 1e-15);
    assert!(mat_dist(&dexp(below), &dexp(above)) < 1e-15);
    assert!(mat_dist(&dexp_inv(below), &dexp_inv(above)) < 1e-15);
    assert!(quat_dist(Quaternion::exp(below), Quaternion::exp(above)) < 1e-15);
}

#[test]
fn zero_rotation_and_half_turn() {
    let z = [0.0; 3];
    assert!(mat_dist(&rodrigues(z), &identity3()) < 1e-300);
    assert!(mat_dist(&dexp(z), &identity3()) < 1e-300);
    assert!(mat_dist(&dexp_inv(z), &identity3()) < 1e-300);
    assert!(quat_dist(Quaternion::exp(z), Quaternion::identity()) < 1e-300);
    assert!(norm(log_so3(&identity3())) < 1e-300);
    assert!(norm(Quaternion::identity().log().expect("unit")) < 1e-300);
    // Half turn about x: log is ±π e_x; −e (the other cover of the identity) logs to 0.
    let r = [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]];
    let l = log_so3(&r);
    assert!((l[0].abs() - PI).abs() < 1e-15 && l[1].abs() < 1e-15 && l[2].abs() < 1e-15);
    assert!(mat_dist(&rodrigues(l), &r) < 1e-15);
    let minus_e = Quaternion::new(-1.0, 0.0, 0.0, 0.0);
    assert!(norm(minus_e.log().expect("unit")) < 1e-300);
    // Near the half turn (θ = π − 1e-9): the symmetric-part branch keeps the axis accurate.
    let u = normalize([1.0, 2.0, -2.0]).expect("nonzero");
    let omega = scale(PI - 1e-9, u);
    assert!(vec_dist(log_so3(&rodrigues(omega)), omega) < 1e-12);
}

#[test]
fn bad_input_gives_typed_errors() {
    let zero = Quaternion::new(0.0, 0.0, 0.0, 0.0);
    assert!(matches!(
        zero.normalized(),
        Err(MechanicsError::Kernel(KernelError::InvalidOption { name: "quaternion", .. }))
    ));
    assert!(matches!(zero.inverse(), Err(MechanicsError::Kernel(KernelError::InvalidOption { .. }))));
    assert!(matches!(zero.log(), Err(MechanicsError::Kernel(KernelError::InvalidOption { .. }))));
    let nan = Quaternion::new(f64::NAN, 0.0, 0.0, 1.0);
    assert!(matches!(nan.normalized(), Err(MechanicsError::Kernel(KernelError::NonFinite { what: "quaternion" }))));
    let inf = Quaternion::new(1.0, f64::INFINITY, 0.0, 0.0);
    assert!(matches!(inf.inverse(), Err(MechanicsError::Kernel(KernelError::NonFinite { .. }))));
    assert!(matches!(
        normalize([0.0; 3]),
        Err(MechanicsError::Kernel(KernelError::InvalidOption { name: "vector", .. }))
    ));
    assert!(matches!(
        Quaternion::from_axis_angle([0.0; 3], 1.0),
        Err(MechanicsError::Kernel(KernelError::InvalidOption { .. }))
    ));
    assert!(matches!(
        Quaternion::from_axis_angle([1.0, 0.0, 0.0], f64::NAN),
        Err(MechanicsError::Kernel(KernelError::NonFinite { what: "angle" }))
    ));
    let mut r = identity3();
    r[1][2] = f64::NAN;
    assert!(matches!(Quaternion::from_rotation_matrix(&r), Err(MechanicsError::Kernel(KernelError::NonFinite { .. }))));
    // Tiny and huge finite quaternions normalize without underflow / overflow.
    for s in [1e-300, 1e300] {
        let p = Quaternion::new(s, -s, s, s).normalized().expect("nonzero and finite");
        assert!(quat_dist(p, Quaternion::new(0.5, -0.5, 0.5, 0.5)) < 1e-15);
        let inv = Quaternion::new(s, 0.0, 0.0, 0.0).inverse().expect("nonzero");
        assert!((inv.w * s - 1.0).abs() < 1e-15);
    }
}

/// Seeded sweep that measures the largest error of each identity (printed with `--nocapture`)
/// and asserts the tolerances used above.
#[test]
fn measured_errors_sweep() {
    let mut rng = StdRng::seed_from_u64(8);
    let rq = |rng: &mut StdRng| loop {
        let a: [f64; 4] = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
        if a.iter().map(|v| v * v).sum::<f64>() > 1e-2 {
            break unit(a);
        }
    };
    let mut worst = [0.0_f64; 9];
    let names = [
        "|pq|-1",
        "R(pq)-R(p)R(q)",
        "rotate-Rv",
        "rodrigues-R(expq)",
        "log_so3(expm(W))-W",
        "log(expq(W))-W",
        "dexp vs FD (eps 1e-5)",
        "T(q)v vs FD (h 1e-5)",
        "T^-1 T - I",
    ];
    for _ in 0..20_000 {
        let (p, q) = (rq(&mut rng), rq(&mut rng));
        let scale_pick = [1.0, 1e-2, 1e-6][rng.random_range(0..3)];
        let dir = normalize(std::array::from_fn(|_| rng.random_range(-1.0..1.0))).expect("nonzero");
        let omega = scale(scale_pick * rng.random_range(-(PI - 1e-6)..(PI - 1e-6)), dir);
        let gamma: Vec3 = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
        let v: Vec3 = std::array::from_fn(|_| rng.random_range(-10.0..10.0));
        worst[0] = worst[0].max(((p * q).norm() - 1.0).abs());
        worst[1] = worst[1]
            .max(mat_dist(&(p * q).to_rotation_matrix(), &mat_mul(&p.to_rotation_matrix(), &q.to_rotation_matrix())));
        worst[2] = worst[2].max(vec_dist(p.rotate(v), mat_vec(&p.to_rotation_matrix(), v)));
        worst[3] = worst[3].max(mat_dist(&rodrigues(omega), &Quaternion::exp(omega).to_rotation_matrix()));
        worst[4] = worst[4].max(vec_dist(log_so3(&rodrigues(omega)), omega));
        worst[5] = worst[5].max(vec_dist(Quaternion::exp(omega).log().expect("unit"), omega));
        worst[6] = worst[6].max(vec_dist(fd_dexp_right(omega, gamma, 1e-5), mat_vec(&dexp(omega), gamma)));
        let qv = [v[0], v[1], v[2], p.w, p.x, p.y, p.z];
        let tw = [gamma[0], gamma[1], gamma[2], omega[0], omega[1], omega[2]];
        let (qp, qm) = (flow(&qv, &tw, 1e-5), flow(&qv, &tw, -1e-5));
        let tv = t_times(&t_operator(&qv), &tw);
        for i in 0..7 {
            worst[7] = worst[7].max(((qp[i] - qm[i]) / 2e-5 - tv[i]).abs());
        }
        worst[8] = worst[8].max(mat_dist(&mat_mul(&dexp_inv(omega), &dexp(omega)), &identity3()));
    }
    for (n, w) in names.iter().zip(worst) {
        println!("max error {n}: {w:.2e}");
    }
    let tol = [4e-15, 1e-14, 1e-13, 1e-14, 1e-9, 1e-14, 1e-8, 1e-8, 1e-13];
    for ((n, w), t) in names.iter().zip(worst).zip(tol) {
        assert!(w < t, "{n}: {w:e} >= {t:e}");
    }
}
