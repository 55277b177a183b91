use super::*;

const G: f64 = 9.81;

type Rhs = dyn FnMut(f64, &[f64], &mut [f64]) -> Result<(), KernelError>;

fn ballistic(_t: f64, y: &[f64], d: &mut [f64]) -> Result<(), KernelError> {
    d[0] = y[1];
    d[1] = -G;
    Ok(())
}

fn oscillator(_t: f64, y: &[f64], d: &mut [f64]) -> Result<(), KernelError> {
    d[0] = y[1];
    d[1] = -y[0];
    Ok(())
}

fn height(_t: f64, y: &[f64], g: &mut [f64]) -> Result<(), KernelError> {
    g[0] = y[0];
    Ok(())
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

// Reference numbers of the real ODEPACK DLSODAR (`dlsodar_` in libsiconos_externals.so of
// Siconos 4.4.0), called from Python through ctypes with Siconos' LsodarOSI settings (rtol = 10ε,
// atol = 100ε, itol = 1, itask = 1, iopt = 0, jt = 2, lrw = 22 + neq·max(16, neq + 9) + 3·ng,
// liw = 20 + neq; istate = 1 on the first call, then the returned istate = 2), printing y, t with
// repr() and NST = IWORK(11), NFE = IWORK(12), NQU = IWORK(14), HU = RWORK(11), TN = RWORK(13).

/// x'' = −9.81 from x = 1, v = 0, tout = 10, g = x: DLSODAR returns istate = 3 at
/// t = 0.4515236409857305 with x = 0.0, v = -4.429446918070016 after NST = 14, NFE = 15,
/// NQU = 2, HU = 0.15188977631066475, TN = 0.5062486548214009.
#[test]
fn ballistic_root_matches_dlsodar() {
    let mut lsodar = LsodarIntegrator::siconos();
    lsodar.restart(0.0, &[1.0, 0.0]);
    let mut y = [0.0; 2];
    let mut g: &mut Rhs = &mut height;
    let (t, stop) = lsodar.advance(&mut ballistic, Some((1, &mut g)), 10.0, &mut y).expect("integrates");
    assert_eq!(stop, OdeStop::Root { index: 0 });
    let t_ref = 0.4515236409857305;
    assert!(rel(t, t_ref) <= 1e-15, "root {t:e} vs DLSODAR {t_ref:e}");
    assert!(y[0].abs() <= 1e-15, "x at the root {:e}", y[0]);
    assert!(rel(y[1], -4.429446918070016) <= 1e-15, "v at the root {:e}", y[1]);
    let s = lsodar.stats();
    assert_eq!((s.steps, s.f_evaluations, s.last_order), (14, 15, 2));
    assert!(rel(s.last_step, 0.15188977631066475) <= 1e-14, "hu {:e}", s.last_step);
    assert!(rel(s.tn, 0.5062486548214009) <= 1e-15, "tn {:e}", s.tn);
}

/// y'' = −y from (1, 0), tout = 1, 2, …, 10 with the history kept (istate = 2):
/// (x, v, NST, NFE, TN) returned by DLSODAR at each tout.
#[allow(clippy::excessive_precision)]
const OSCILLATOR_REF: [(f64, f64, usize, usize, f64); 10] = [
    (0.540302305868128, -0.8414709848078687, 56, 104, 1.0511195359382464),
    (-0.4161468365471138, -0.9092974268256451, 72, 135, 2.040137581972357),
    (-0.9899924966003885, -0.14112000805989577, 86, 163, 3.0533514779226474),
    (-0.6536436208636256, 0.7568024953078326, 99, 189, 4.023283895924716),
    (0.2836621854631009, 0.9589242746630982, 113, 217, 5.067826499926944),
    (0.9601702866502444, 0.2794154981990409, 126, 243, 6.037758917929012),
    (0.7539022543433515, -0.6569865987185898, 139, 269, 7.007691335931081),
    (-0.14550003380838325, -0.9893582466233085, 153, 297, 8.05223393993331),
    (-0.9111302618844662, -0.4121184852419397, 166, 323, 9.022166357935378),
    (-0.8390715290765035, 0.5440211108890576, 180, 351, 10.066708961937605),
];

#[test]
fn oscillator_with_history_matches_dlsodar() {
    let mut lsodar = LsodarIntegrator::siconos();
    lsodar.restart(0.0, &[1.0, 0.0]);
    let mut y = [1.0, 0.0];
    let mut worst = 0.0_f64;
    for (k, &(x, v, nst, nfe, tn)) in OSCILLATOR_REF.iter().enumerate() {
        let tout = (k + 1) as f64;
        let (t, stop) = lsodar.advance(&mut oscillator, None, tout, &mut y).expect("integrates");
        assert_eq!(stop, OdeStop::Reached);
        assert!((t - tout).abs() <= 0.0, "returned {t} instead of {tout}");
        worst = worst.max((y[0] - x).abs()).max((y[1] - v).abs());
        let s = lsodar.stats();
        assert_eq!((s.steps, s.f_evaluations), (nst, nfe), "counters at tout = {tout}");
        assert!(rel(s.tn, tn) <= 1e-14, "tn {:e} vs {tn:e} at tout = {tout}", s.tn);
    }
    println!("oscillator: max |y − y_DLSODAR| = {worst:e}");
    assert!(worst <= 1e-13, "max |y − y_DLSODAR| = {worst:e}");
}

/// Accuracy against exact solutions at rtol = atol = 1e-12 (no reference integrator needed).
#[test]
fn accuracy_against_exact_solutions() {
    let mut lsodar = LsodarIntegrator::new(1e-12, 1e-12).expect("valid tolerances");
    lsodar.restart(0.0, &[1.0, 0.0]);
    let mut y = [1.0, 0.0];
    for k in 1..=20 {
        let t = 0.5 * k as f64;
        lsodar.advance(&mut oscillator, None, t, &mut y).expect("integrates");
        let err = (y[0] - t.cos()).abs().max((y[1] + t.sin()).abs());
        assert!(err <= 2e-10, "oscillator error {err:e} at t = {t}");
    }
    // Exponential decay y' = −y, y(0) = 1, and a ballistic root with g = x − 0.25.
    let mut decay = |_t: f64, y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = -y[0];
        Ok(())
    };
    lsodar.restart(0.0, &[1.0]);
    let mut z = [1.0];
    lsodar.advance(&mut decay, None, 3.0, &mut z).expect("integrates");
    assert!(rel(z[0], (-3.0_f64).exp()) <= 1e-10, "decay {:e}", z[0]);
    let mut quarter = |_t: f64, y: &[f64], g: &mut [f64]| -> Result<(), KernelError> {
        g[0] = y[0] - 0.25;
        Ok(())
    };
    lsodar.restart(0.0, &[1.0, 0.0]);
    let mut y = [0.0; 2];
    let (t, stop) = lsodar.advance(&mut ballistic, Some((1, &mut quarter)), 5.0, &mut y).expect("integrates");
    assert_eq!(stop, OdeStop::Root { index: 0 });
    let exact = (2.0 * 0.75 / G).sqrt();
    assert!(rel(t, exact) <= 1e-12, "root {t} vs {exact}");
}

#[test]
fn typed_errors() {
    assert!(matches!(LsodarIntegrator::new(-1.0, 1e-6), Err(KernelError::InvalidOption { name: "rtol", .. })));
    assert!(matches!(LsodarIntegrator::new(1e-6, 0.0), Err(KernelError::InvalidOption { name: "atol", .. })));
    // 500 steps per call (MXSTEP): a fast oscillator over a long interval.
    let mut fast = |_t: f64, y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = 1000.0 * y[1];
        d[1] = -1000.0 * y[0];
        Ok(())
    };
    let mut lsodar = LsodarIntegrator::siconos();
    lsodar.restart(0.0, &[1.0, 0.0]);
    let mut y = [0.0; 2];
    let err = lsodar.advance(&mut fast, None, 100.0, &mut y).expect_err("needs more than 500 steps");
    assert!(matches!(err, KernelError::OdeFailure { reason: OdeFailureReason::MaxSteps, .. }), "{err:?}");
    // Non-finite right-hand side: at the start, and after it.
    let mut nan = |_t: f64, _y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = f64::NAN;
        Ok(())
    };
    lsodar.restart(0.0, &[1.0]);
    let mut z = [0.0];
    let err = lsodar.advance(&mut nan, None, 1.0, &mut z).expect_err("NaN");
    assert!(matches!(err, KernelError::OdeFailure { reason: OdeFailureReason::NonFiniteDerivative, .. }), "{err:?}");
    let mut blow = |t: f64, _y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = if t > 0.0 { f64::INFINITY } else { 1.0 };
        Ok(())
    };
    lsodar.restart(0.0, &[1.0]);
    let err = lsodar.advance(&mut blow, None, 1.0, &mut z).expect_err("inf after t = 0");
    assert!(matches!(err, KernelError::OdeFailure { reason: OdeFailureReason::NonFiniteDerivative, .. }), "{err:?}");
    // Infinite beyond t = 0.5: the steps shrink towards 0.5 (each attempt across it fails) until
    // MXSTEP; no non-finite value is ever accepted.
    let mut wall = |t: f64, _y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = if t > 0.5 { f64::INFINITY } else { 1.0 };
        Ok(())
    };
    lsodar.restart(0.0, &[1.0]);
    let err = lsodar.advance(&mut wall, None, 1.0, &mut z).expect_err("inf after t = 0.5");
    match err {
        KernelError::OdeFailure { time, .. } => assert!((time - 0.5).abs() <= 1e-6 && time <= 0.5, "{time}"),
        other => panic!("{other:?}"),
    }
    assert!(z.iter().all(|v| v.is_finite()), "{z:?}");
    // A singularity: y' = 1/(1 − t) towards t = 1 exhausts the step size.
    let mut pole = |t: f64, _y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = 1.0 / (1.0 - t).powi(2);
        Ok(())
    };
    lsodar.restart(0.0, &[0.0]);
    let err = lsodar.advance(&mut pole, None, 2.0, &mut z).expect_err("pole at t = 1");
    assert!(matches!(err, KernelError::OdeFailure { .. }), "{err:?}");
    // Shapes.
    lsodar.restart(0.0, &[1.0, 0.0]);
    let mut short = [0.0];
    let err = lsodar.advance(&mut oscillator, None, 1.0, &mut short).expect_err("wrong length");
    assert!(matches!(err, KernelError::DimensionMismatch { .. }), "{err:?}");
    lsodar.restart(0.0, &[]);
    let err = lsodar.advance(&mut oscillator, None, 1.0, &mut []).expect_err("empty");
    assert!(matches!(err, KernelError::InvalidOption { .. }), "{err:?}");
    // A root of g exactly at and near t0 (DLSODAR error 632).
    let mut zero = |_t: f64, _y: &[f64], g: &mut [f64]| -> Result<(), KernelError> {
        g[0] = 0.0;
        Ok(())
    };
    lsodar.restart(0.0, &[1.0, 0.0]);
    let err = lsodar.advance(&mut oscillator, Some((1, &mut zero)), 1.0, &mut y).expect_err("root at t0");
    assert!(matches!(err, KernelError::InvalidOption { name: "g", .. }), "{err:?}");
}

/// Siconos 4.4's EventDriven + LsodarOSI algorithm for BouncingBallED: restart after every root,
/// keep the history across TD events, TOL_ED-guarded g, 1×1 impact LCP, TD events merged within
/// 100 ticks of 1e-16 s. Returns the rows (t, x, v, p1, p2, λ1, λ2) as BouncingBallED.ref lists
/// them.
fn bouncing_ball_ed_rows() -> Vec<[f64; 7]> {
    let eps = f64::EPSILON;
    let tol_ed = 1000.0 * (10.0 * eps);
    let (e, m, r) = (0.9, 1.0, 0.1);
    let mass = [m, m, 3.0 / 5.0 * m * r * r];
    let fext = [-m * G, 0.0, 0.0];
    let (t0, t_end, h) = (0.0, 8.5, 0.005);
    let ticks = |t: f64| (t / 1e-16).round_ties_even() as i64;
    let mut f = |_t: f64, x: &[f64], xd: &mut [f64]| -> Result<(), KernelError> {
        for i in 0..3 {
            xd[i] = x[3 + i];
            xd[3 + i] = fext[i] / mass[i];
        }
        Ok(())
    };
    let mut g = |_t: f64, x: &[f64], out: &mut [f64]| -> Result<(), KernelError> {
        let (y, yd) = (x[0], x[3]);
        out[0] = if y > tol_ed {
            y
        } else if yd > -tol_ed {
            100.0 * tol_ed
        } else {
            y
        };
        Ok(())
    };
    let mut lsodar = LsodarIntegrator::siconos();
    let mut x = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let mut tstart = t0;
    let mut restart = true;
    let mut k = 1usize;
    let mut rows = Vec::new();
    loop {
        let tnext = t0 + h * k as f64;
        if tnext > t_end + 100.0 * eps {
            break;
        }
        if restart {
            lsodar.restart(tstart, &x);
        }
        let mut out = x;
        let (tout, stop) = lsodar.advance(&mut f, Some((1, &mut g)), tnext, &mut out).expect("integrates");
        x = out;
        if let OdeStop::Root { .. } = stop {
            let skip = (0..=100).contains(&(ticks(tnext) - ticks(tout)));
            let (qm, vm) = (x[0], x[3]);
            let w = 1.0 / mass[0];
            let q = vm + e * vm;
            let lam = if q < 0.0 { -q / w } else { 0.0 };
            x[3] = vm + lam / mass[0];
            rows.push([tout, qm, vm, lam, 0.0, 0.0, 0.0]);
            rows.push([tout, x[0], x[3], lam, 0.0, lam, 0.0]);
            restart = true;
            if skip {
                k += 1;
            }
        } else {
            rows.push([tout, x[0], x[3], 0.0, 0.0, 0.0, 0.0]);
            restart = false;
            k += 1;
        }
        tstart = tout;
    }
    rows
}

#[test]
fn bouncing_ball_ed_impact_times_match_the_reference() {
    let dir = match std::env::var_os("NONSMOOTH_DATA") {
        Some(d) => std::path::PathBuf::from(d),
        None => std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    let path = dir.join("reference/BouncingBallED.ref");
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("skipped: {} not found (set NONSMOOTH_DATA)", path.display());
        return;
    };
    let reference: Vec<Vec<f64>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(|v| v.parse::<f64>().expect("a number")).collect())
        .collect();
    let rows = bouncing_ball_ed_rows();
    assert_eq!(rows.len(), reference.len(), "row count");
    let mut worst_impact = 0.0_f64;
    let mut impacts = 0;
    let mut worst_col = [0.0_f64; 7];
    for (i, (a, b)) in rows.iter().zip(&reference).enumerate() {
        for c in 0..7 {
            worst_col[c] = worst_col[c].max((a[c] - b[c]).abs());
        }
        if i > 0 && (reference[i - 1][0] - b[0]).abs() <= 0.0 {
            impacts += 1;
            worst_impact = worst_impact.max((a[0] - b[0]).abs());
        }
    }
    println!("BouncingBallED: {impacts} impacts, max |Δt_impact| = {worst_impact:e}, max |Δ| per column {worst_col:?}");
    assert_eq!(impacts, 44);
    // The reference file holds 15 significant digits: the bound allows that rounding.
    assert!(worst_impact <= 2e-15, "impact times differ by {worst_impact:e}");
    assert!(worst_col.iter().all(|&d| d <= 2e-15), "max |Δ| per column {worst_col:?}");
}

/// `with_max_step` bounds every step (LSODAR's `HMAX`): `y' = −y` on `[0, 1]` with `hmax = 1e-3`
/// takes at least 1000 steps, none longer than `hmax`, and keeps its accuracy; a bad `hmax` is
/// refused.
#[test]
fn max_step_bounds_every_step() {
    let hmax = 1e-3;
    let mut lsodar =
        LsodarIntegrator::new(1e-10, 1e-12).expect("valid tolerances").with_max_step(hmax).expect("valid hmax");
    let mut y = [1.0];
    lsodar.restart(0.0, &y);
    let mut f = |_t: f64, y: &[f64], out: &mut [f64]| -> Result<(), KernelError> {
        out[0] = -y[0];
        Ok(())
    };
    let mut t = 0.0;
    let mut longest = 0.0f64;
    for k in 1..=100 {
        let tout = 0.01 * f64::from(k);
        let (reached, _) = lsodar.advance(&mut f, None, tout, &mut y).expect("integrates");
        t = reached;
        longest = longest.max(lsodar.stats().last_step.abs());
    }
    assert!((t - 1.0).abs() < 1e-14);
    assert!(longest <= hmax * (1.0 + 1e-12), "longest step {longest:e}");
    assert!(lsodar.stats().steps >= 1000, "{} steps", lsodar.stats().steps);
    assert!((y[0] - (-1.0f64).exp()).abs() < 1e-9, "{}", y[0]);
    for bad in [0.0, -1.0, f64::NAN] {
        let r = LsodarIntegrator::new(1e-10, 1e-12).expect("valid tolerances").with_max_step(bad);
        assert!(matches!(r, Err(KernelError::InvalidOption { .. })));
    }
}

/// `y' = −1000 (y − cos t)`, `y(0) = 0` at rtol = 1e-8, atol = 1e-10, tout = 0.1, 0.2, …, 1:
/// `(y, NST, NFE, NJE, NQU, TN)` returned by DLSODAR (JT = 2) at each tout; it switched to BDF
/// at TSW = 0.021919022192167806 (MUSED = MCUR = 2 at every tout).
#[allow(clippy::excessive_precision)]
const STIFF_REF: [(f64, usize, usize, usize, usize, f64); 10] = [
    (0.9951030050959282, 114, 230, 3, 3, 0.10293026562089665),
    (0.980264270007954, 121, 246, 4, 4, 0.2060621019510942),
    (0.9556310547938945, 127, 255, 4, 4, 0.3068610830731231),
    (0.9214494905134366, 132, 261, 4, 4, 0.4145565380677644),
    (0.8780611092539621, 136, 268, 5, 4, 0.5270430849335335),
    (0.8258994304682673, 139, 275, 6, 5, 0.631512550264473),
    (0.7654856402041538, 141, 279, 6, 5, 0.7207679600412051),
    (0.6974233678808999, 143, 283, 6, 5, 0.8100233698179373),
    (0.6223926726067133, 145, 287, 6, 5, 0.9080077170947467),
    (0.5411432360711197, 147, 291, 6, 5, 1.0147210018716333),
];

fn relaxation(t: f64, y: &[f64], d: &mut [f64]) -> Result<(), KernelError> {
    d[0] = -1000.0 * (y[0] - t.cos());
    Ok(())
}

/// `y(t)` of `y' = −λ (y − cos t)`, `y(0) = 0`.
fn relaxation_exact(t: f64) -> f64 {
    let l = 1000.0_f64;
    l * (l * t.cos() + t.sin() - l * (-l * t).exp()) / (l * l + 1.0)
}

#[test]
fn stiff_relaxation_switches_to_bdf_as_dlsodar() {
    let mut lsodar = LsodarIntegrator::new(1e-8, 1e-10).expect("valid tolerances");
    lsodar.restart(0.0, &[0.0]);
    let mut y = [0.0];
    let mut worst = 0.0_f64;
    let mut worst_exact = 0.0_f64;
    for (k, &(yr, nst, nfe, nje, nqu, tn)) in STIFF_REF.iter().enumerate() {
        let tout = 0.1 * (k + 1) as f64;
        let (t, stop) = lsodar.advance(&mut relaxation, None, tout, &mut y).expect("integrates");
        assert_eq!((t, stop), (tout, OdeStop::Reached));
        let s = lsodar.stats();
        println!(
            "t = {tout}: y = {:e} (DLSODAR {yr:e}), nst {} nfe {} nje {} nqu {} method {:?} tsw {}",
            y[0], s.steps, s.f_evaluations, s.jacobian_evaluations, s.last_order, s.method, s.switch_time
        );
        worst = worst.max((y[0] - yr).abs());
        worst_exact = worst_exact.max((y[0] - relaxation_exact(tout)).abs());
        assert_eq!((s.steps, s.f_evaluations, s.jacobian_evaluations, s.last_order), (nst, nfe, nje, nqu));
        assert!(rel(s.tn, tn) <= 1e-14, "tn {:e} vs {tn:e}", s.tn);
        assert_eq!((s.method_used, s.method, s.switches), (Some(LsodarMethod::Bdf), LsodarMethod::Bdf, 1));
        assert!(rel(s.switch_time, 0.021919022192167806) <= 1e-14, "tsw {}", s.switch_time);
    }
    println!("stiff relaxation: max |y − y_DLSODAR| = {worst:e}, max |y − y_exact| = {worst_exact:e}");
    assert!(worst <= 1e-14, "max |y − y_DLSODAR| = {worst:e}");
    assert!(worst_exact <= 1e-7, "max |y − y_exact| = {worst_exact:e}");
    // Adams alone is held to |h|·1000 ≲ 0.5 by its stability region: many more steps.
    let mut adams = LsodarIntegrator::new(1e-8, 1e-10).expect("valid tolerances").without_method_switching();
    adams.restart(0.0, &[0.0]);
    let mut z = [0.0];
    for k in 1..=10 {
        adams.advance(&mut relaxation, None, 0.1 * f64::from(k), &mut z).expect("integrates");
        assert_eq!(adams.stats().method, LsodarMethod::Adams);
    }
    let steps = adams.stats().steps;
    let bdf_steps = STIFF_REF[9].1;
    println!("steps to t = 1: Adams only {steps}, with switching {bdf_steps}");
    assert!((z[0] - relaxation_exact(1.0)).abs() <= 1e-7);
    assert!(steps >= 5 * bdf_steps, "Adams {steps} vs BDF {bdf_steps}");
}

/// `y' = −10⁴ e^{−5t} (y − cos 10t)`, `y(0) = 0` at rtol = 1e-8, atol = 1e-10, tout = 0.5, 1, 1.5,
/// 2: stiff at first, then not. DLSODAR switched to BDF at t = 0.002198440452924658 and back to
/// Adams at t = 0.6975964656275485. `(y, NST, NFE, NJE, TN, TSW)` at each tout.
#[allow(clippy::excessive_precision)]
const FADING_REF: [(f64, usize, usize, usize, f64, f64); 4] = [
    (0.2720107349369835, 345, 626, 42, 0.5017883982424232, 0.002198440452924658),
    (-0.8983539645485302, 523, 962, 53, 1.0015146170255582, 0.6975964656275485),
    (0.13192702471491943, 586, 1096, 53, 1.5001687592061634, 0.6975964656275485),
    (-0.10789689995799348, 628, 1190, 53, 2.0025647364757355, 0.6975964656275485),
];

#[test]
fn fading_stiffness_switches_to_bdf_and_back_as_dlsodar() {
    let mut fading = |t: f64, y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = -1e4 * (-5.0 * t).exp() * (y[0] - (10.0 * t).cos());
        Ok(())
    };
    let mut lsodar = LsodarIntegrator::new(1e-8, 1e-10).expect("valid tolerances");
    lsodar.restart(0.0, &[0.0]);
    let mut y = [0.0];
    for (k, &(yr, nst, nfe, nje, tn, tsw)) in FADING_REF.iter().enumerate() {
        let tout = 0.5 * (k + 1) as f64;
        lsodar.advance(&mut fading, None, tout, &mut y).expect("integrates");
        let s = lsodar.stats();
        assert!((y[0] - yr).abs() <= 1e-15, "y {:e} vs DLSODAR {yr:e} at {tout}", y[0]);
        assert_eq!((s.steps, s.f_evaluations, s.jacobian_evaluations), (nst, nfe, nje), "at {tout}");
        assert!(rel(s.tn, tn) <= 1e-14 && rel(s.switch_time, tsw) <= 1e-14, "tn {} tsw {}", s.tn, s.switch_time);
        let (method, switches) = if k == 0 { (LsodarMethod::Bdf, 1) } else { (LsodarMethod::Adams, 2) };
        assert_eq!((s.method, s.method_used, s.switches), (method, Some(method), switches), "at {tout}");
    }
}

/// Robertson's chemical kinetics (the classic stiff test; three species, a Jacobian that needs
/// pivoting) at rtol = 1e-6, atol = 1e-10, tout = 0.4·10^k: `(y, NST, NFE, NJE, TN)` returned by
/// DLSODAR, which switched to BDF at t = 0.007616368053185099.
#[allow(clippy::excessive_precision)]
const ROBERTSON_REF: [([f64; 3], usize, usize, usize, f64); 6] = [
    ([0.9851721098262802, 3.386395304628856e-05, 0.014794026220673339], 76, 163, 6, 0.4076444953366932),
    ([0.9055186795510963, 2.240476059449893e-05, 0.0944589156883092], 115, 239, 12, 4.058667632809952),
    ([0.7158268911503232, 9.185525217872284e-06, 0.28416392332445883], 200, 411, 27, 40.61736816682076),
    ([0.4505182587182336, 3.222896141481425e-06, 0.5494785183856257], 294, 610, 47, 415.0794218111845),
    ([0.1832014660701645, 8.942448709860815e-07, 0.8167976396849651], 374, 750, 59, 4116.2890607201225),
    ([0.03898342624017943, 1.6217712307249803e-07, 0.9610164115826976], 467, 935, 76, 40548.37957059536),
];

#[test]
fn robertson_matches_dlsodar() {
    let mut robertson = |_t: f64, y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
        d[2] = 3e7 * y[1] * y[1];
        d[1] = -d[0] - d[2];
        Ok(())
    };
    let mut lsodar = LsodarIntegrator::new(1e-6, 1e-10).expect("valid tolerances");
    lsodar.restart(0.0, &[1.0, 0.0, 0.0]);
    let mut y = [1.0, 0.0, 0.0];
    let mut worst = 0.0_f64;
    for (k, &(yr, nst, nfe, nje, tn)) in ROBERTSON_REF.iter().enumerate() {
        let tout = 0.4 * 10f64.powi(k as i32);
        lsodar.advance(&mut robertson, None, tout, &mut y).expect("integrates");
        let s = lsodar.stats();
        for i in 0..3 {
            worst = worst.max((y[i] - yr[i]).abs() / yr[i].abs());
        }
        assert_eq!((s.steps, s.f_evaluations, s.jacobian_evaluations), (nst, nfe, nje), "at {tout}");
        assert!(rel(s.tn, tn) <= 1e-13, "tn {} vs {tn}", s.tn);
        assert_eq!((s.method, s.switches), (LsodarMethod::Bdf, 1));
        assert!(rel(s.switch_time, 0.007616368053185099) <= 1e-14, "tsw {}", s.switch_time);
    }
    println!("Robertson: max relative |y − y_DLSODAR| = {worst:e}");
    assert!(worst <= 1e-12, "{worst:e}");
}

/// `DPRJA`'s increments and the singular iteration matrix, with powers of two so that every
/// operation is exact: `rtol = 0`, `atol = 2⁻²⁰`, `y = 0`, `f(y) = 16 y`, `h·l₀ = 1/16`. Then
/// `f = 0` gives `r₀ = 1`, the increment is `r = r₀/w = 2⁻²⁰`, `J = 16` and `P = 1 − J/16 = 0`:
/// `jacobian` reports it (`IERPJ = 1`) and `‖J‖ = 16`; with `f(y) = 8 y`, `P = 1/2` is accepted.
#[test]
fn singular_iteration_matrix_is_detected() {
    let atol = 2f64.powi(-20);
    for (k, singular) in [(16.0, true), (8.0, false)] {
        let mut lsodar = LsodarIntegrator::new(0.0, atol).expect("valid tolerances");
        let mut f = move |_t: f64, y: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
            d[0] = k * y[0];
            Ok(())
        };
        lsodar.restart(0.0, &[0.0]);
        lsodar.start(&mut f, 0, 1.0).expect("starts");
        lsodar.h = 0.0625;
        lsodar.el0 = 1.0;
        lsodar.set_weights();
        lsodar.savf[0] = 0.0;
        let ok = lsodar.jacobian(&mut f).expect("f succeeds");
        assert_eq!(ok, !singular, "k = {k}");
        assert!((lsodar.pdnorm - k).abs() <= 0.0, "‖J‖ = {}", lsodar.pdnorm);
        assert_eq!((lsodar.nje, lsodar.nfe), (1, 2));
        assert!(lsodar.ywork[0].abs() <= 0.0, "y restored");
    }
    assert_eq!(OdeFailureReason::SingularIterationMatrix.to_string(), "the iteration matrix I - h l0 J is singular");
}

/// `(x, y, ẋ, ẏ)`, `ISTATE`, `NST`, `NFE`, `NJE`, `MCUR`, `TN`, `TSW` after a DLSODAR call.
type FlightRow = ([f64; 4], i32, usize, usize, usize, usize, f64, f64);

/// One flight of Siconos' `LinearOscillatorED` (mass 1e-3 on springs k = 100, weight along x,
/// the guarded ground root `g` of Siconos' event-driven scheme) from a post-impact state, at
/// Siconos' tolerances, time shifted to start at 0: DLSODAR (JT = 2) switches to BDF within it.
/// `(x, y, ẋ, ẏ, ISTATE, NST, NFE, NJE, MCUR, TN, TSW)` at tout = 0.0027530188769529, then
/// 0.0077530188769529 and the root.
#[allow(clippy::excessive_precision)]
const FLIGHT_REF: [FlightRow; 3] = [
    (
        [0.01392079424199789, 0.0007002072505366163, 3.6950669403933785, 0.225767536704375],
        2,
        78,
        126,
        0,
        1,
        0.002869259618939192,
        0.0,
    ),
    (
        [0.01144111482137892, 0.0007066596872422631, -4.471142069021601, -0.2237480919303564],
        2,
        245,
        480,
        7,
        2,
        0.0077569793758523135,
        0.005517835122249212,
    ),
    (
        [-4.472333961502706e-19, 0.00010544756594204672, -5.771091483396819, -0.31446475332443957],
        3,
        373,
        772,
        13,
        2,
        0.00991631817453433,
        0.005517835122249212,
    ),
];

#[test]
fn oscillator_flight_switches_to_bdf_as_dlsodar() {
    let (m, k) = (1e-3, 1e2);
    let tol_ed = 1000.0 * (10.0 * f64::EPSILON);
    let mut f = move |_t: f64, x: &[f64], d: &mut [f64]| -> Result<(), KernelError> {
        d[0] = x[3];
        d[1] = x[4];
        d[2] = x[5];
        d[3] = (-m * G - k * x[0]) / m;
        d[4] = (-k * x[1]) / m;
        d[5] = 0.0;
        Ok(())
    };
    let mut g = move |_t: f64, x: &[f64], out: &mut [f64]| -> Result<(), KernelError> {
        let (y, yd) = (x[0], x[3]);
        out[0] = if y > tol_ed {
            y
        } else if yd > -tol_ed {
            100.0 * tol_ed
        } else {
            y
        };
        Ok(())
    };
    let t0 = 3.722469811230471e-01;
    let seed = [-3.002155815612362e-16, -9.475091194379469e-05, 0.0, 5.771091483404373, 0.3148050610593081, 0.0];
    let mut lsodar = LsodarIntegrator::siconos();
    lsodar.restart(0.0, &seed);
    let mut x = seed;
    for (i, tout) in [0.375 - t0, 0.38 - t0, 0.385 - t0].into_iter().enumerate() {
        let (xr, istate, nst, nfe, nje, mcur, tn, tsw) = FLIGHT_REF[i];
        let mut gr: &mut Rhs = &mut g;
        let (_, stop) = lsodar.advance(&mut f, Some((1, &mut gr)), tout, &mut x).expect("integrates");
        assert_eq!(matches!(stop, OdeStop::Root { .. }), istate == 3);
        let s = lsodar.stats();
        let method = if mcur == 2 { LsodarMethod::Bdf } else { LsodarMethod::Adams };
        assert_eq!((s.steps, s.f_evaluations, s.jacobian_evaluations, s.method), (nst, nfe, nje, method), "call {i}");
        assert!(rel(s.tn, tn) <= 1e-14 && (s.switch_time - tsw).abs() <= 1e-16, "tn {} tsw {}", s.tn, s.switch_time);
        let got = [x[0], x[1], x[3], x[4]];
        for c in 0..4 {
            assert!((got[c] - xr[c]).abs() <= 1e-15 * xr[c].abs().max(1e-3), "call {i} component {c}: {got:?}");
        }
    }
}
