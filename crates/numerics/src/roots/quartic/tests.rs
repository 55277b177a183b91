use super::*;

fn roots(c: [f64; 5]) -> Vec<f64> {
    real_roots_quartic(c).expect("valid coefficients").as_slice().to_vec()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "got {got:?}, want {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tol * w.abs().max(1.0), "got {got:?}, want {want:?}");
    }
}

#[test]
fn x4_minus_1_has_two_real_roots() {
    assert_close(&roots([1.0, 0.0, 0.0, 0.0, -1.0]), &[-1.0, 1.0], 1e-15);
}

#[test]
fn double_root_and_two_simple() {
    // (x − 1)²(x + 2)(x − 3) = x⁴ − 3x³ − 3x² + 11x − 6.
    assert_close(&roots([1.0, -3.0, -3.0, 11.0, -6.0]), &[-2.0, 1.0, 1.0, 3.0], 1e-8);
}

#[test]
fn quadruple_root() {
    // (x − 1)⁴ = x⁴ − 4x³ + 6x² − 4x + 1.
    assert_close(&roots([1.0, -4.0, 6.0, -4.0, 1.0]), &[1.0; 4], 1e-4);
    // (x + 0.5)⁴ scaled by −3, with exactly representable coefficients.
    assert_close(&roots([-3.0, -6.0, -4.5, -1.5, -0.1875]), &[-0.5; 4], 1e-4);
}

#[test]
fn all_roots_at_zero() {
    assert_close(&roots([2.0, 0.0, 0.0, 0.0, 0.0]), &[0.0; 4], 0.0);
    // x²(x² − 4)
    assert_close(&roots([1.0, 0.0, -4.0, 0.0, 0.0]), &[-2.0, 0.0, 0.0, 2.0], 1e-15);
}

#[test]
fn tiny_leading_coefficient_keeps_the_far_root() {
    // 1e-14 x⁴ + (x − 1)(x − 2)(x − 3): three roots near 1, 2, 3 and one near −1e14.
    let r = roots([1e-14, 1.0, -6.0, 11.0, -6.0]);
    assert_eq!(r.len(), 4, "{r:?}");
    assert!((r[0] + 1e14).abs() < 1e-6 * 1e14, "{r:?}");
    assert_close(&r[1..], &[1.0, 2.0, 3.0], 1e-12);
    // Each root is a root of the quartic: residual at Horner's rounding level.
    let p = Poly { c: [-6.0, 11.0, -6.0, 1.0, 1e-14], n: 4 };
    for &x in &r {
        let (v, _, s) = p.eval(x);
        assert!(v.abs() <= 64.0 * f64::EPSILON * s, "p({x}) = {v}");
    }
}

#[test]
fn negligible_leading_coefficient_degrades_to_cubic() {
    // 1e-17 is below ε relative: the fourth root (near −1e17) is at infinity.
    assert_close(&roots([1e-17, 1.0, -6.0, 11.0, -6.0]), &[1.0, 2.0, 3.0], 1e-12);
    // Exact zeros: cubic, quadratic, linear.
    assert_close(&roots([0.0, 1.0, -6.0, 11.0, -6.0]), &[1.0, 2.0, 3.0], 1e-12);
    assert_close(&roots([0.0, 0.0, 1.0, -2.0, 1.0]), &[1.0, 1.0], 1e-8);
    assert_close(&roots([0.0, 0.0, 0.0, 2.0, -3.0]), &[1.5], 0.0);
    // A tiny leading term over a constant is never dropped: 1e-40 x⁴ − 1 has roots ±1e10.
    assert_close(&roots([1e-40, 0.0, 0.0, 0.0, -1.0]), &[-1e10, 1e10], 1e-14);
}

#[test]
fn complex_roots_only() {
    assert!(roots([1.0, 0.0, 0.0, 0.0, 1.0]).is_empty());
    assert!(roots([0.0, 0.0, 0.0, 0.0, 5.0]).is_empty());
    // (x² + 1)(x² + 2x + 5)
    assert!(roots([1.0, 2.0, 6.0, 2.0, 5.0]).is_empty());
}

#[test]
fn bad_input_is_a_typed_error() {
    assert!(matches!(real_roots_quartic([0.0; 5]), Err(NumericsError::InvalidInput { .. })));
    assert!(matches!(real_roots_quartic([1.0, f64::NAN, 0.0, 0.0, 0.0]), Err(NumericsError::NonFinite { .. })));
    assert!(matches!(real_roots_quartic([1.0, 0.0, 0.0, 0.0, f64::INFINITY]), Err(NumericsError::NonFinite { .. })));
}

#[test]
fn extreme_scales() {
    // (x − 1)(x − 2)(x + 3)(x + 4) times 1e-300 and times 1e300.
    let base = [1.0, 4.0, -7.0, -22.0, 24.0];
    for s in [1e-300, 1e300] {
        let c = base.map(|a| a * s);
        assert_close(&roots(c), &[-4.0, -3.0, 1.0, 2.0], 1e-13);
    }
}
