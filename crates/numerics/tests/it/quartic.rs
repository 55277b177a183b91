//! Integration tests: quartic roots, property-tested against polynomials built from known roots.
//!
//! Tolerance. A polynomial rebuilt in f64 from its roots carries coefficient errors, and Horner's
//! rule adds its own; at x both are bounded by c·ε·|s|·Π_j(|x| + |r_j|) (c ≈ 20 for degree 4,
//! s the scale). A known root r lying in a cluster of k roots (roots closer than 1e-2 to one
//! another, multiplicities included) then moves by at most about
//! (c ε Π_j(|r| + |r_j|) / Π_{j ∉ cluster}|r − r_j|)^{1/k}: ~ε·κ for a simple root (κ its
//! condition number), ~√ε for a double, ~ε^{1/4} for a quadruple root. The tests use
//! c = 64 and a safety factor 4 on top.

use nonsmooth_numerics::roots::real_roots_quartic;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// Coefficients (highest degree first) of scale · Π (x − rᵢ), expanded in f64.
fn from_roots(roots: &[f64], scale: f64) -> Vec<f64> {
    let mut c = vec![scale];
    for &r in roots {
        let mut next = vec![0.0; c.len() + 1];
        for (i, &a) in c.iter().enumerate() {
            next[i] += a;
            next[i + 1] -= a * r;
        }
        c = next;
    }
    c
}

/// The perturbation radius of the known root `roots[i]` (see the module docs).
fn tolerance(roots: &[f64], i: usize) -> f64 {
    let r = roots[i];
    let in_cluster = |x: f64| (x - r).abs() < 1e-2;
    let k = roots.iter().filter(|&&x| in_cluster(x)).count() as f64;
    let size: f64 = roots.iter().map(|x| r.abs() + x.abs()).product();
    let gap: f64 = roots.iter().filter(|&&x| !in_cluster(x)).map(|x| (r - x).abs()).product();
    4.0 * (64.0 * f64::EPSILON * size.max(1.0) / gap).powf(1.0 / k)
}

/// Four roots in [−10, 10]: independent, or with an exact duplicate, a near-cluster, a triple,
/// a quadruple, or two double roots.
fn four_roots() -> impl Strategy<Value = Vec<f64>> {
    (prop::array::uniform4(-10.0..10.0_f64), 0_usize..6, -9.0..-3.0_f64).prop_map(|(mut r, pattern, log_gap)| {
        match pattern {
            1 => r[1] = r[0],
            2 => r[1] = r[0] + 10f64.powf(log_gap),
            3 => (r[1], r[2]) = (r[0], r[0]),
            4 => r = [r[0]; 4],
            5 => (r[1], r[3]) = (r[0], r[2]),
            _ => {}
        }
        r.to_vec()
    })
}

fn scale() -> impl Strategy<Value = f64> {
    (-3.0..3.0_f64, any::<bool>()).prop_map(|(e, neg)| if neg { -(10f64.powf(e)) } else { 10f64.powf(e) })
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(0x7175_6172), ..ProptestConfig::with_cases(256) })]

    #[test]
    fn four_known_real_roots_are_found(roots in four_roots(), s in scale()) {
        let c = from_roots(&roots, s);
        let found = real_roots_quartic([c[0], c[1], c[2], c[3], c[4]]).expect("finite, nonzero");
        let found = found.as_slice();
        prop_assert_eq!(found.len(), 4, "roots {:?} found {:?}", roots, found);
        prop_assert!(found.windows(2).all(|w| w[0] <= w[1]), "not sorted: {:?}", found);
        for (i, &r) in roots.iter().enumerate() {
            let tol = tolerance(&roots, i);
            let err = found.iter().map(|x| (x - r).abs()).fold(f64::INFINITY, f64::min);
            prop_assert!(err <= tol, "root {} (of {:?}) missed by {:e} > {:e}: {:?}", r, roots, err, tol, found);
        }
        // Conversely, every returned root is near a known one.
        for &x in found {
            let ok = roots.iter().enumerate().any(|(i, &r)| (x - r).abs() <= tolerance(&roots, i));
            prop_assert!(ok, "spurious root {} for {:?}", x, roots);
        }
    }

    #[test]
    fn two_real_roots_and_a_complex_pair(
        real in prop::array::uniform2(-10.0..10.0_f64),
        duplicate in any::<bool>(),
        re in -10.0..10.0_f64,
        im in 0.1..10.0_f64,
        s in scale(),
    ) {
        let real = if duplicate { [real[0]; 2] } else { real };
        let quadratic = [s, -2.0 * s * re, s * (re * re + im * im)];
        // (x − r0)(x − r1) · s (x² − 2 re x + re² + im²), expanded in f64.
        let mut c = [0.0; 5];
        let lin = from_roots(&real, 1.0);
        for (i, a) in lin.iter().enumerate() {
            for (j, b) in quadratic.iter().enumerate() {
                c[i + j] += a * b;
            }
        }
        let found = real_roots_quartic(c).expect("finite, nonzero");
        let found = found.as_slice();
        prop_assert_eq!(found.len(), 2, "real {:?} pair {}±{}i found {:?}", real, re, im, found);
        let mut want = real;
        want.sort_by(f64::total_cmp);
        // Away from the pair, the conditioning is that of a quartic with roots ≥ 0.1 apart.
        let tol = if duplicate { 1e-5 } else { 1e-9 * (1.0 + 1.0 / (real[0] - real[1]).abs()) };
        for (x, r) in found.iter().zip(want) {
            prop_assert!((x - r).abs() <= tol * r.abs().max(1.0), "{:?} vs {:?}", found, want);
        }
    }
}

#[test]
fn wilkinson_like_clustered_roots() {
    // Roots 1, 1 + 1e-6, 1 + 2e-6, 1 + 3e-6: a tight cluster of four simple roots. They must
    // be returned (as four roots, possibly merged) within the ε^{1/4}-level radius.
    let roots = [1.0, 1.0 + 1e-6, 1.0 + 2e-6, 1.0 + 3e-6];
    let c = from_roots(&roots, 1.0);
    let found = real_roots_quartic([c[0], c[1], c[2], c[3], c[4]]).expect("valid");
    assert_eq!(found.len(), 4, "{found:?}");
    for (i, &r) in roots.iter().enumerate() {
        let err = found.as_slice().iter().map(|x| (x - r).abs()).fold(f64::INFINITY, f64::min);
        assert!(err <= tolerance(&roots, i), "{r}: {err:e} in {found:?}");
    }
}
