use super::*;

type Rhs = dyn FnMut(f64, &[f64], &mut [f64]) -> Result<(), KernelError>;

fn decay(_t: f64, y: &[f64], d: &mut [f64]) -> Result<(), KernelError> {
    d[0] = -y[0];
    Ok(())
}

fn oscillator(_t: f64, y: &[f64], d: &mut [f64]) -> Result<(), KernelError> {
    d[0] = y[1];
    d[1] = -y[0];
    Ok(())
}

const G: f64 = 9.81;

/// Ballistic flight: x' = v, v' = −g.
fn ballistic(_t: f64, y: &[f64], d: &mut [f64]) -> Result<(), KernelError> {
    d[0] = y[1];
    d[1] = -G;
    Ok(())
}

/// Robertson's chemical kinetics (Hairer–Wanner, Solving ODE II, §IV.1).
fn robertson(_t: f64, y: &[f64], d: &mut [f64]) -> Result<(), KernelError> {
    d[0] = -0.04 * y[0] + 1.0e4 * y[1] * y[2];
    d[1] = 0.04 * y[0] - 1.0e4 * y[1] * y[2] - 3.0e7 * y[1] * y[1];
    d[2] = 3.0e7 * y[1] * y[1];
    Ok(())
}

/// Robertson at t = 40 (the Hairer–Wanner reference solution, to 1e-12).
const ROBERTSON_40: [f64; 3] = [0.7158270687194044, 9.185534764557785e-06, 0.28416374574582975];

fn tight(method: OdeMethod) -> OdeIntegrator {
    OdeIntegrator::new(OdeOptions::default().with_rtol(1e-14).with_atol(1e-14).with_method(method)).expect("valid")
}

fn siconos(method: OdeMethod) -> OdeIntegrator {
    OdeIntegrator::new(OdeOptions::default().with_rtol(10.0 * EPS).with_atol(100.0 * EPS).with_method(method))
        .expect("valid")
}

#[test]
fn decay_and_oscillator_at_rtol_1e_14() {
    for method in [OdeMethod::Explicit, OdeMethod::Auto, OdeMethod::Stiff] {
        let mut ode = tight(method);
        let mut y = [1.0];
        let (t, stop, stats) = ode.integrate(&mut decay, None, 0.0, &mut y, 1.0).expect("integrates");
        assert_eq!(stop, OdeStop::Reached);
        assert!((t - 1.0).abs() < 1e-15);
        let e = (y[0] - (-1.0_f64).exp()).abs();
        eprintln!("{method:?} decay: error {e:.2e}, {stats:?}");
        assert!(e <= 1e-13, "{method:?}: {e:e}");

        let period = 2.0 * std::f64::consts::PI;
        let mut y = [1.0, 0.0];
        let (t, stop, stats) = ode.integrate(&mut oscillator, None, 0.0, &mut y, period).expect("integrates");
        assert_eq!(stop, OdeStop::Reached);
        assert!((t - period).abs() < 1e-15);
        let e = (y[0] - period.cos()).abs().max((y[1] + period.sin()).abs());
        eprintln!("{method:?} oscillator: error {e:.2e}, {stats:?}");
        // Radau IIA controls its order-3 estimate against Hairer's rtol' = 0.1·rtol^{2/3},
        // atol' = rtol'·atol/rtol (4.6e-11 here), hence its looser bound.
        let bound = if method == OdeMethod::Stiff { 5e-13 } else { 1e-13 };
        assert!(e <= bound, "{method:?}: {e:e}");
        // The Siconos LsodarOSI tolerances (rtol = 10ε, atol = 100ε) work too.
        let mut y = [1.0, 0.0];
        let mut ode = siconos(method);
        let (_, _, stats) = ode.integrate(&mut oscillator, None, 0.0, &mut y, period).expect("integrates");
        let e = (y[0] - period.cos()).abs().max((y[1] + period.sin()).abs());
        eprintln!("{method:?} oscillator at Siconos tolerances: error {e:.2e}, {stats:?}");
        assert!(e <= bound, "{method:?}: {e:e}");
    }
}

#[test]
fn dense_output_is_accurate_between_steps() {
    // The root of g = y₁ − cos(1.234) on the oscillator (y₁ = cos t) is t = 1.234: checks the
    // dense output in the middle of steps.
    for method in [OdeMethod::Explicit, OdeMethod::Stiff] {
        let mut ode = OdeIntegrator::new(OdeOptions::default().with_rtol(1e-12).with_atol(1e-12).with_method(method))
            .expect("ok");
        let target = 1.234_f64;
        let mut g = |_t: f64, y: &[f64], out: &mut [f64]| -> Result<(), KernelError> {
            out[0] = y[0] - target.cos();
            Ok(())
        };
        let mut y = [1.0, 0.0];
        let (t, stop, _) = ode.integrate(&mut oscillator, Some((1, &mut g)), 0.0, &mut y, 3.0).expect("ok");
        assert_eq!(stop, OdeStop::Root { index: 0 });
        eprintln!("{method:?}: root error {:.2e}", (t - target).abs());
        assert!((t - target).abs() < 1e-10, "{method:?}: {t}");
        assert!((y[0] - t.cos()).abs() < 1e-11 && (y[1] + t.sin()).abs() < 1e-11);
    }
}

#[test]
fn ballistic_root_time_is_analytic() {
    let h0 = 1.0;
    let exact = (2.0 * h0 / G).sqrt();
    for method in [OdeMethod::Explicit, OdeMethod::Auto, OdeMethod::Stiff] {
        for mut ode in [tight(method), siconos(method)] {
            let mut g = |_t: f64, y: &[f64], out: &mut [f64]| -> Result<(), KernelError> {
                out[0] = y[0];
                Ok(())
            };
            let mut y = [h0, 0.0];
            let (t, stop, stats) =
                ode.integrate(&mut ballistic, Some((1, &mut g)), 0.0, &mut y, 2.0).expect("integrates");
            assert_eq!(stop, OdeStop::Root { index: 0 });
            let rel = (t - exact).abs() / exact;
            eprintln!("{method:?}: t = {t:.17}, rel {rel:.2e}, x = {:.2e}, {stats:?}", y[0]);
            assert!(rel <= 1e-14, "{method:?}: {rel:e}");
            // At the returned time g has crossed (or is zero), and the state is the exact one.
            assert!(y[0] <= 0.0 && y[0] > -1e-14, "{method:?}: x = {:e}", y[0]);
            assert!((y[1] + G * t).abs() <= 1e-13, "{method:?}: v = {}", y[1]);
        }
    }
}

#[test]
fn robertson_is_integrated_by_stiff_and_auto_in_few_steps() {
    // rtol 1e-10 with atol 1e-14 (y₂ ~ 1e-5): caps on the steps that a stiff method meets and an
    // explicit one alone would not.
    for (method, max_steps) in [(OdeMethod::Stiff, 400), (OdeMethod::Auto, 1500)] {
        let mut ode = OdeIntegrator::new(
            OdeOptions::default().with_rtol(1e-10).with_atol(1e-14).with_method(method).with_max_steps(max_steps),
        )
        .expect("valid");
        let mut y = [1.0, 0.0, 0.0];
        let (t, stop, stats) = ode.integrate(&mut robertson, None, 0.0, &mut y, 40.0).expect("integrates");
        assert_eq!(stop, OdeStop::Reached);
        assert!((t - 40.0).abs() < 1e-12);
        eprintln!("{method:?} Robertson: y = {y:?}, {stats:?}");
        for (yi, ri) in y.iter().zip(ROBERTSON_40) {
            assert!((yi - ri).abs() <= 1e-8 * ri, "{method:?}: {yi} vs {ri}");
        }
        assert!(stats.steps + stats.rejected <= max_steps);
        assert!(stats.jacobian_evaluations > 0);
    }
    // At a tight tolerance Radau IIA still finishes (no stall).
    let mut ode = OdeIntegrator::new(
        OdeOptions::default().with_rtol(1e-14).with_atol(1e-18).with_method(OdeMethod::Stiff).with_max_steps(20_000),
    )
    .expect("valid");
    let mut y = [1.0, 0.0, 0.0];
    let (_, _, stats) = ode.integrate(&mut robertson, None, 0.0, &mut y, 40.0).expect("integrates");
    eprintln!("Stiff Robertson at rtol 1e-14: y = {y:?}, {stats:?}");
    for (yi, ri) in y.iter().zip(ROBERTSON_40) {
        assert!((yi - ri).abs() <= 1e-11 * ri, "{yi} vs {ri}");
    }
}

#[test]
fn explicit_on_robertson_hits_max_steps() {
    let mut ode = OdeIntegrator::new(
        OdeOptions::default().with_rtol(1e-10).with_atol(1e-14).with_method(OdeMethod::Explicit).with_max_steps(500),
    )
    .expect("valid");
    let mut y = [1.0, 0.0, 0.0];
    let err = ode.integrate(&mut robertson, None, 0.0, &mut y, 40.0).expect_err("too many steps");
    assert!(
        matches!(err, KernelError::OdeFailure { reason: OdeFailureReason::MaxSteps, time } if time > 0.0 && time < 40.0),
        "{err:?}"
    );
}

#[test]
fn non_finite_right_hand_side_is_a_typed_error() {
    for method in [OdeMethod::Explicit, OdeMethod::Stiff] {
        let mut ode = OdeIntegrator::new(OdeOptions::default().with_method(method)).expect("ok");
        // NaN from the start.
        let mut nan = |_t: f64, _y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
            d[0] = f64::NAN;
            Ok(())
        };
        let mut y = [1.0];
        let err = ode.integrate(&mut nan, None, 0.0, &mut y, 1.0).expect_err("NaN");
        assert!(
            matches!(err, KernelError::OdeFailure { reason: OdeFailureReason::NonFiniteDerivative, .. }),
            "{err:?}"
        );
        // NaN from t = 0.5 on: the step shrinks, then fails at t ≈ 0.5.
        let mut late = |t: f64, y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
            d[0] = if t >= 0.5 { f64::NAN } else { -y[0] };
            Ok(())
        };
        let mut y = [1.0];
        let err = ode.integrate(&mut late, None, 0.0, &mut y, 1.0).expect_err("NaN");
        match err {
            KernelError::OdeFailure { reason: OdeFailureReason::NonFiniteDerivative, time } => {
                assert!((time - 0.5).abs() < 1e-9, "{method:?}: {time}");
            }
            other => panic!("{method:?}: {other:?}"),
        }
        // y holds the last accepted state, finite.
        assert!(y[0].is_finite());
    }
}

#[test]
fn callback_errors_are_propagated() {
    let mut ode = OdeIntegrator::new(OdeOptions::default()).expect("ok");
    let mut failing = |t: f64, y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        if t > 0.25 {
            return Err(KernelError::InvalidModel("user failure".into()));
        }
        d[0] = -y[0];
        Ok(())
    };
    let mut y = [1.0];
    let err = ode.integrate(&mut failing, None, 0.0, &mut y, 1.0).expect_err("propagated");
    assert!(matches!(err, KernelError::InvalidModel(ref s) if s == "user failure"), "{err:?}");
    let mut g = |_t: f64, _y: &[f64], _o: &mut [f64]| -> Result<(), KernelError> { Err(KernelError::UnknownDs(7)) };
    let mut y = [1.0];
    let err = ode.integrate(&mut decay, Some((1, &mut g)), 0.0, &mut y, 1.0).expect_err("propagated");
    assert!(matches!(err, KernelError::UnknownDs(7)), "{err:?}");
    let mut gnan = |t: f64, _y: &[f64], o: &mut [f64]| -> Result<(), KernelError> {
        o[0] = if t > 0.0 { f64::NAN } else { 1.0 };
        Ok(())
    };
    let err = ode.integrate(&mut decay, Some((1, &mut gnan)), 0.0, &mut y, 1.0).expect_err("NaN g");
    assert!(matches!(err, KernelError::NonFiniteCallback { .. }), "{err:?}");
}

#[test]
fn bad_options_and_arguments_are_refused() {
    let bad = [
        OdeOptions::default().with_rtol(-1.0),
        OdeOptions::default().with_rtol(f64::NAN),
        OdeOptions::default().with_atol(0.0),
        OdeOptions::default().with_atol(f64::INFINITY),
        OdeOptions::default().with_max_steps(0),
        OdeOptions::default().with_initial_step(Some(0.0)),
        OdeOptions::default().with_initial_step(Some(f64::NAN)),
        OdeOptions::default().with_max_step(Some(-1.0)),
    ];
    for o in bad {
        assert!(matches!(OdeIntegrator::new(o.clone()), Err(KernelError::InvalidOption { .. })), "{o:?}");
    }
    let mut ode = OdeIntegrator::new(OdeOptions::default()).expect("ok");
    let mut y = [1.0];
    assert!(matches!(
        ode.integrate(&mut decay, None, 1.0, &mut y, 1.0),
        Err(KernelError::InvalidOption { name: "t_end", .. })
    ));
    assert!(matches!(ode.integrate(&mut decay, None, 0.0, &mut y, f64::NAN), Err(KernelError::InvalidOption { .. })));
    let mut empty: [f64; 0] = [];
    assert!(matches!(
        ode.integrate(&mut decay, None, 0.0, &mut empty, 1.0),
        Err(KernelError::DimensionMismatch { expected: 1, found: 0, .. })
    ));
    let mut ynan = [f64::NAN];
    assert!(matches!(ode.integrate(&mut decay, None, 0.0, &mut ynan, 1.0), Err(KernelError::NonFinite { .. })));
}

#[test]
fn step_size_underflow_is_a_typed_error() {
    // y' = y² from y(0) = 1 blows up at t = 1.
    let mut blow = |_t: f64, y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = y[0] * y[0];
        Ok(())
    };
    for method in [OdeMethod::Explicit, OdeMethod::Stiff] {
        let mut ode = OdeIntegrator::new(OdeOptions::default().with_method(method)).expect("ok");
        let mut y = [1.0];
        let err = ode.integrate(&mut blow, None, 0.0, &mut y, 2.0).expect_err("blow-up");
        match err {
            KernelError::OdeFailure { time, .. } => assert!((time - 1.0).abs() < 1e-3, "{method:?}: {time}"),
            other => panic!("{method:?}: {other:?}"),
        }
    }
}

#[test]
fn a_root_at_t0_is_not_reported() {
    // Thrown up from the ground: g = x is zero at t0, the next root is at t = 2v₀/g.
    let v0 = 5.0;
    let exact = 2.0 * v0 / G;
    for method in [OdeMethod::Explicit, OdeMethod::Stiff] {
        let mut ode = tight(method);
        let mut g = |_t: f64, y: &[f64], out: &mut [f64]| -> Result<(), KernelError> {
            out[0] = y[0];
            Ok(())
        };
        let mut y = [0.0, v0];
        let (t, stop, _) = ode.integrate(&mut ballistic, Some((1, &mut g)), 0.0, &mut y, 5.0).expect("ok");
        assert_eq!(stop, OdeStop::Root { index: 0 });
        assert!((t - exact).abs() <= 1e-14 * exact, "{method:?}: {t} vs {exact}");
    }
    // A component identically zero is never reported.
    let mut ode = tight(OdeMethod::Explicit);
    let mut g = |_t: f64, _y: &[f64], out: &mut [f64]| -> Result<(), KernelError> {
        out[0] = 0.0;
        Ok(())
    };
    let mut y = [1.0];
    let (t, stop, _) = ode.integrate(&mut decay, Some((1, &mut g)), 0.0, &mut y, 1.0).expect("ok");
    assert_eq!(stop, OdeStop::Reached);
    assert!((t - 1.0).abs() < 1e-15);
}

#[test]
fn two_roots_in_one_step_gives_the_first() {
    // y' = 0 lets a single step cover [0, 1]; g₀ = t − 0.3 and g₁ = 0.2 − t both cross in it.
    let mut zero = |_t: f64, _y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = 0.0;
        Ok(())
    };
    for method in [OdeMethod::Explicit, OdeMethod::Stiff] {
        let mut ode =
            OdeIntegrator::new(OdeOptions::default().with_method(method).with_initial_step(Some(1.0))).expect("ok");
        let mut g = |t: f64, _y: &[f64], out: &mut [f64]| -> Result<(), KernelError> {
            out[0] = t - 0.3;
            out[1] = 0.2 - t;
            Ok(())
        };
        let mut y = [1.0];
        let (t, stop, stats) = ode.integrate(&mut zero, Some((2, &mut g)), 0.0, &mut y, 1.0).expect("ok");
        assert_eq!(stats.steps, 1, "{method:?}");
        assert_eq!(stop, OdeStop::Root { index: 1 }, "{method:?}");
        assert!((t - 0.2).abs() <= 4.0 * EPS, "{method:?}: {t}");
        assert!(t >= 0.2);
    }
}

#[test]
fn auto_stays_explicit_on_non_stiff_problems() {
    for rtol in [1e-4, 1e-8, 1e-14] {
        let mut ode = OdeIntegrator::new(OdeOptions::default().with_rtol(rtol).with_atol(rtol)).expect("ok");
        let mut y = [1.0, 0.0];
        let (_, _, stats) = ode.integrate(&mut oscillator, None, 0.0, &mut y, 20.0).expect("ok");
        assert_eq!(stats.jacobian_evaluations, 0, "rtol {rtol}: {stats:?}");
    }
}

#[test]
fn auto_switches_to_stiff_on_a_stiff_linear_problem() {
    // y' = −1e6 (y − cos t): DOPRI5 is stability-bound (h ≲ 3.3e-6), Radau IIA is not.
    let mut f = |t: f64, y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = -1.0e6 * (y[0] - t.cos());
        Ok(())
    };
    let f: &mut Rhs = &mut f;
    let mut ode = OdeIntegrator::new(OdeOptions::default().with_rtol(1e-8).with_atol(1e-10)).expect("ok");
    let mut y = [1.0];
    let (_, _, stats) = ode.integrate(f, None, 0.0, &mut y, 10.0).expect("ok");
    eprintln!("Auto stiff linear: {stats:?}, y = {}", y[0]);
    assert!(stats.steps < 2000, "{stats:?}");
    assert!(stats.jacobian_evaluations > 0);
    // Slow manifold y ≈ cos t + 1e-6 sin t.
    let expect = 10.0_f64.cos() + 1e-6 * 10.0_f64.sin();
    assert!((y[0] - expect).abs() < 1e-8, "{} vs {expect}", y[0]);
}
