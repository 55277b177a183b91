//! Properties of the slider-crank example: Moreau–Jean's penetration, the
//! projections' bound on it, the model's energy and its Jacobians.
//!
//! Run with `cargo test --release -p nonsmooth-examples --test slider_crank -- --nocapture` to
//! see the measured numbers.

// Index loops mirror the formulas (matrices and vectors indexed together).
#![allow(clippy::needless_range_loop)]

use faer::Mat;
use nonsmooth::kernel::simulation::Trajectory;
use nonsmooth_examples::kernel::slider_crank::{CORNERS, MIN_GAP_COLUMN, Scheme, SliderCrank};

/// Sample configurations and velocities for the Jacobian checks.
const SAMPLES: [([f64; 3], [f64; 3]); 4] = [
    ([0.0, 0.0, 0.0], [150.0, -75.0, 0.0]),
    ([0.7, -0.3, 0.02], [-20.0, 8.0, 3.0]),
    ([2.5, 0.4, -0.05], [60.0, 31.0, -12.0]),
    ([-1.9, -2.8, 0.3], [5.0, -44.0, 90.0]),
];

fn run(model: &SliderCrank, scheme: Scheme) -> Trajectory {
    model.simulate(scheme).expect("the slider-crank runs")
}

/// Largest penetration `max(0, −min_i g_i)` over the steps (rows 1..) of each of `n` equal
/// windows of the run.
fn window_penetrations(trajectory: &Trajectory, n: usize) -> Vec<f64> {
    let steps = trajectory.rows() - 1;
    (0..n)
        .map(|w| {
            let (from, to) = (1 + w * steps / n, 1 + (w + 1) * steps / n);
            (from..to).map(|k| -trajectory.row(k)[MIN_GAP_COLUMN]).fold(0.0f64, f64::max)
        })
        .collect()
}

/// Least-squares line through `(i, values[i])`: `(value at 0, value at n − 1)`.
fn fitted_ends(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let x_mean = (n - 1.0) / 2.0;
    let y_mean = values.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in values.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (y - y_mean);
        sxx += dx * dx;
    }
    let slope = sxy / sxx;
    (y_mean - slope * x_mean, y_mean + slope * x_mean)
}

fn energy_of(model: &SliderCrank, row: &[f64]) -> f64 {
    model.energy(&row[1..4], &row[4..7])
}

// ---------------------------------------------------------------------------------------------
// (1) Moreau–Jean: penetration

/// At Siconos' projection step `h = 1e-4` over 1 s, Moreau–Jean's largest penetration per tenth
/// of the run grows with time. Measured window maxima (×1e-5): 6.04, 6.80, 9.40, 8.36, 5.77,
/// 11.0, 12.0, 15.5, 12.6, 15.9; the least-squares line goes from 5.5e-5 to 1.5e-4 (×2.7).
/// The nonlinear Moreau–Jean step gains energy (`O(h)`, see the energy test), from 7.50 J to
/// 27.5 J here, and the faster crank hits the guides harder, so each impact's `O(h v)`
/// penetration grows; nothing brings the positions back. (At Siconos' own `h = 1e-5` over 2 s
/// the energy decreases, 7.50 J to 5.39 J, and the window maxima stay between 4.4e-6 and
/// 8.6e-6: no growth.)
#[test]
fn moreau_jean_penetration_grows_with_time() {
    let model = SliderCrank { h: 1e-4, t_end: 1.0, ..SliderCrank::default() };
    let trajectory = run(&model, Scheme::MoreauJean);
    let windows = window_penetrations(&trajectory, 10);
    let (start, end) = fitted_ends(&windows);
    let e0 = energy_of(&model, trajectory.row(0));
    let e1 = energy_of(&model, trajectory.row(trajectory.rows() - 1));
    println!(
        "slider_crank MJ h = 1e-4, T = 1: window max penetrations {}; fitted {start:.3e} -> {end:.3e}; energy {e0:.3} -> {e1:.3}",
        windows.iter().map(|p| format!("{p:.2e}")).collect::<Vec<_>>().join(" ")
    );
    assert!(windows[0] > 1e-6, "the first window has no penetration ({:e})", windows[0]);
    assert!(end >= 2.0 * start, "penetration does not grow: fitted {start:e} -> {end:e}");
    let (first_half, second_half) =
        (windows[..5].iter().fold(0.0f64, |a, &b| a.max(b)), windows[5..].iter().fold(0.0f64, |a, &b| a.max(b)));
    assert!(second_half >= 1.4 * first_half, "second half {second_half:e} vs first half {first_half:e}");
    // The mechanism behind the growth: the scheme's energy gain.
    assert!(e1 >= 2.0 * e0, "energy {e0} -> {e1}");
}

// ---------------------------------------------------------------------------------------------
// (2) Projection

/// Unilateral tolerance of both projections (the kernel's defaults, Siconos' values) and the
/// round-off allowed on a gap of order `l1 + l2`.
const TOLERANCE: f64 = 1e-8;
const ROUND_OFF: f64 = 1e-13;

/// The two settings of the projection tests: Siconos' `h = 1e-5` over its 0.2 s and the
/// `h = 1e-4` over 1 s where Moreau–Jean's penetration grows.
fn projection_settings() -> [SliderCrank; 2] {
    [SliderCrank::default(), SliderCrank { h: 1e-4, t_end: 1.0, ..SliderCrank::default() }]
}

/// Combined projection keeps every gap above `−1e-8` on every step (measured smallest gap
/// `−9.98e-9` at `h = 1e-5` and `−1.0e-8` at `h = 1e-4`, one projection iteration per step at
/// most), where Moreau–Jean penetrates by up to 6.6e-6 and 1.6e-4.
#[test]
fn combined_projection_keeps_penetration_below_tolerance() {
    for model in projection_settings() {
        let (trajectory, reports) = model.simulate_with_reports(Scheme::CombinedProjection).expect("runs");
        let worst = trajectory.iter_rows().map(|r| -r[MIN_GAP_COLUMN]).fold(0.0f64, f64::max);
        let plain = window_penetrations(&run(&model, Scheme::MoreauJean), 1)[0];
        let projected = reports.iter().filter(|r| r.projection.is_some_and(|p| p.iterations > 0)).count();
        println!(
            "slider_crank combined projection h = {:e}: max penetration {worst:.3e} ({projected} steps projected), Moreau-Jean {plain:.3e}",
            model.h
        );
        assert!(worst <= TOLERANCE + ROUND_OFF, "penetration {worst:e} at h = {:e}", model.h);
        assert!(reports.iter().all(|r| r.projection.is_some_and(|p| p.converged)), "a projection did not converge");
        assert!(reports.iter().all(|r| r.newton_converged), "a Newton loop did not converge");
        assert!(projected > 0, "nothing was projected");
        assert!(plain >= 100.0 * TOLERANCE, "Moreau-Jean penetrates by {plain:e} only");
    }
}

/// Direct projection projects the contacts of index set 1, the ones active at the start of the
/// step: their violation ends below `1e-8` on every step (the projection report), and a gap can
/// only go below `−1e-8` on the step where its contact closes (an impact), never on two steps
/// in a row: the next step projects it. Measured: 11 such steps of 20000 at `h = 1e-5` (largest
/// 2.1e-6), 892 of 10000 at `h = 1e-4` (largest 7.9e-5).
#[test]
fn direct_projection_corrects_penetration_the_step_after_an_impact() {
    for model in projection_settings() {
        let (trajectory, reports) = model.simulate_with_reports(Scheme::DirectProjection).expect("runs");
        let violation = reports
            .iter()
            .map(|r| r.projection.map_or(f64::INFINITY, |p| p.max_unilateral_violation))
            .fold(0.0f64, f64::max);
        let penetrating: Vec<usize> =
            (1..trajectory.rows()).filter(|&k| trajectory.row(k)[MIN_GAP_COLUMN] < -(TOLERANCE + ROUND_OFF)).collect();
        let worst = trajectory.iter_rows().map(|r| -r[MIN_GAP_COLUMN]).fold(0.0f64, f64::max);
        println!(
            "slider_crank direct projection h = {:e}: projected-set violation {violation:.3e}; {} of {} steps above the tolerance (largest {worst:.3e})",
            model.h,
            penetrating.len(),
            reports.len()
        );
        assert!(violation <= TOLERANCE, "projected-set violation {violation:e}");
        assert!(reports.iter().all(|r| r.projection.is_some_and(|p| p.converged)), "a projection did not converge");
        for pair in penetrating.windows(2) {
            assert!(pair[1] > pair[0] + 1, "penetration beyond the tolerance on steps {} and {}", pair[0], pair[1]);
        }
        assert!(penetrating.len() * 10 <= reports.len(), "{} penetrating steps", penetrating.len());
    }
}

// ---------------------------------------------------------------------------------------------
// (3) Energy in free flight

/// `q̈ = M(q)⁻¹ (−F_gyr(q, q̇) − F_int(q))` of the model's own functions (`M` is block diagonal:
/// a 2 × 2 block and `J3`).
fn acceleration(model: &SliderCrank, q: &[f64; 3], v: &[f64; 3]) -> [f64; 3] {
    let mut m = Mat::zeros(3, 3);
    model.mass_matrix(q, &mut m);
    let (mut gyr, mut int) = ([0.0; 3], [0.0; 3]);
    model.gyroscopic(q, v, &mut gyr);
    model.internal(q, &mut int);
    let r = [-gyr[0] - int[0], -gyr[1] - int[1], -gyr[2] - int[2]];
    let det = m[(0, 0)] * m[(1, 1)] - m[(0, 1)] * m[(1, 0)];
    [(r[0] * m[(1, 1)] - m[(0, 1)] * r[1]) / det, (m[(0, 0)] * r[1] - m[(1, 0)] * r[0]) / det, r[2] / m[(2, 2)]]
}

/// Largest `|E − E0|` of a classical RK4 integration of the free equations over `[0, T]`.
fn rk4_energy_drift(model: &SliderCrank, h: f64) -> f64 {
    let (mut q, mut v) = (model.q0, model.v0);
    let e0 = model.energy(&q, &v);
    let add = |x: &[f64; 3], d: &[f64; 3], s: f64| [x[0] + s * d[0], x[1] + s * d[1], x[2] + s * d[2]];
    let mut drift = 0.0f64;
    for _ in 0..(model.t_end / h).round() as usize {
        let (k1q, k1v) = (v, acceleration(model, &q, &v));
        let (k2q, k2v) =
            (add(&v, &k1v, h / 2.0), acceleration(model, &add(&q, &k1q, h / 2.0), &add(&v, &k1v, h / 2.0)));
        let (k3q, k3v) =
            (add(&v, &k2v, h / 2.0), acceleration(model, &add(&q, &k2q, h / 2.0), &add(&v, &k2v, h / 2.0)));
        let (k4q, k4v) = (add(&v, &k3v, h), acceleration(model, &add(&q, &k3q, h), &add(&v, &k3v, h)));
        for i in 0..3 {
            q[i] += h / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + k4q[i]);
            v[i] += h / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i]);
        }
        drift = drift.max((model.energy(&q, &v) - e0).abs());
    }
    drift
}

/// Largest `|E − E0|` of a Moreau–Jean run.
fn moreau_jean_energy_drift(model: &SliderCrank) -> (f64, f64) {
    let trajectory = run(model, Scheme::MoreauJean);
    let e0 = energy_of(model, trajectory.row(0));
    let drift = trajectory.iter_rows().map(|r| (energy_of(model, r) - e0).abs()).fold(0.0f64, f64::max);
    (e0, drift)
}

/// With the guides out of reach, the model's equations (`M`, `F_gyr`, `F_int` and the energy
/// `½ vᵀMv + V`) are consistent: RK4 of them conserves the energy to `O(h⁴)` (measured over
/// 0.2 s: 4.4e-7 at `h = 1e-4`, 2.5e-8 at `h = 5e-5`, ratio 17). The kernel's nonlinear
/// Moreau–Jean (θ = 1/2) conserves it to first order only (measured 1.58, 0.713, 0.342, 0.133
/// at `h` = 1e-4, 5e-5, 2.5e-5, 1e-5 for `E0 = 7.50`): its residual takes `M(q_{k+1})` at the
/// end of the step (as Siconos' `MoreauJeanOSI`), an `O(h²)` local error.
#[test]
fn free_flight_energy() {
    let model = SliderCrank::default().without_contact();
    let (coarse, fine) = (rk4_energy_drift(&model, 1e-4), rk4_energy_drift(&model, 5e-5));
    println!("slider_crank free flight, RK4 energy drift over 0.2 s: {coarse:.3e} (h = 1e-4), {fine:.3e} (h = 5e-5)");
    assert!(coarse <= 2e-6, "RK4 energy drift {coarse:e}");
    assert!(coarse >= 10.0 * fine, "RK4 drift is not O(h^4): {coarse:e} -> {fine:e}");

    let mut drifts = Vec::new();
    for h in [4e-5, 2e-5, 1e-5] {
        let (e0, drift) = moreau_jean_energy_drift(&SliderCrank { h, ..model });
        // No contact was active: all gaps stay open.
        drifts.push((h, e0, drift));
    }
    println!(
        "slider_crank free flight, Moreau-Jean energy drift over 0.2 s: {}",
        drifts.iter().map(|(h, e0, d)| format!("h = {h:e}: {d:.3e} (E0 = {e0:.4})")).collect::<Vec<_>>().join(", ")
    );
    for pair in drifts.windows(2) {
        let ratio = pair[0].2 / pair[1].2;
        assert!((1.7..=2.6).contains(&ratio), "halving h divides the drift by {ratio}, not about 2");
    }
    let (_, e0, finest) = drifts[2];
    assert!(finest <= 0.025 * e0, "drift {finest:e} at h = 1e-5");
}

/// The run without contact never closes a gap.
#[test]
fn free_flight_has_no_contact() {
    let model = SliderCrank { t_end: 0.05, ..SliderCrank::default() }.without_contact();
    let trajectory = run(&model, Scheme::MoreauJean);
    let smallest = trajectory.iter_rows().map(|r| r[MIN_GAP_COLUMN]).fold(f64::INFINITY, f64::min);
    assert!(smallest > 1.0, "smallest gap {smallest}");
}

// ---------------------------------------------------------------------------------------------
// (4) Jacobians and formulas

/// Central differences of `f` at `x` along coordinate `j`.
fn central<const N: usize>(x: &[f64; 3], j: usize, step: f64, mut f: impl FnMut(&[f64; 3]) -> [f64; N]) -> [f64; N] {
    let (mut plus, mut minus) = (*x, *x);
    plus[j] += step;
    minus[j] -= step;
    let (fp, fm) = (f(&plus), f(&minus));
    std::array::from_fn(|i| (fp[i] - fm[i]) / (2.0 * step))
}

fn assert_close(what: &str, exact: f64, approx: f64, scale: f64) {
    let tolerance = 1e-7 * scale.max(1.0);
    assert!((exact - approx).abs() <= tolerance, "{what}: exact {exact:e}, finite difference {approx:e}");
}

#[test]
fn force_jacobians_match_finite_differences() {
    let model = SliderCrank::default();
    let step = 1e-6;
    for (q, v) in SAMPLES {
        let (mut jq, mut jv, mut ji) = (Mat::zeros(3, 3), Mat::zeros(3, 3), Mat::zeros(3, 3));
        model.gyroscopic_jacobian_q(&q, &v, &mut jq);
        model.gyroscopic_jacobian_v(&q, &v, &mut jv);
        model.internal_jacobian_q(&q, &mut ji);
        let scale = v.iter().map(|x| x * x).fold(1.0, f64::max) * 1e-2;
        for j in 0..3 {
            let dq = central(&q, j, step, |x| {
                let mut out = [0.0; 3];
                model.gyroscopic(x, &v, &mut out);
                out
            });
            let dv = central(&v, j, step, |x| {
                let mut out = [0.0; 3];
                model.gyroscopic(&q, x, &mut out);
                out
            });
            let di = central(&q, j, step, |x| {
                let mut out = [0.0; 3];
                model.internal(x, &mut out);
                out
            });
            for i in 0..3 {
                assert_close(&format!("dFgyr/dq ({i},{j}) at {q:?}"), jq[(i, j)], dq[i], scale);
                assert_close(&format!("dFgyr/dv ({i},{j}) at {q:?}"), jv[(i, j)], dv[i], scale);
                assert_close(&format!("dFint/dq ({i},{j}) at {q:?}"), ji[(i, j)], di[i], 1.0);
            }
        }
        // F_int is the gradient of the potential.
        let mut int = [0.0; 3];
        model.internal(&q, &mut int);
        for j in 0..3 {
            let dv = central(&q, j, step, |x| [model.potential_energy(x)]);
            assert_close(&format!("dV/dq {j}"), int[j], dv[0], 1.0);
        }
    }
}

/// `F_gyr = Ṁ v − ½ ∂(vᵀ M v)/∂q` (Lagrange's equations with `T = ½ vᵀ M(q) v`), both terms by
/// finite differences of `M`.
#[test]
fn gyroscopic_forces_follow_from_the_mass_matrix() {
    let model = SliderCrank::default();
    let step = 1e-6;
    let mass = |x: &[f64; 3]| {
        let mut m = Mat::zeros(3, 3);
        model.mass_matrix(x, &mut m);
        m
    };
    for (q, v) in SAMPLES {
        let m0 = mass(&q);
        for i in 0..3 {
            for j in 0..3 {
                assert!((m0[(i, j)] - m0[(j, i)]).abs() <= 1e-18, "M is not symmetric");
            }
        }
        let mut gyr = [0.0; 3];
        model.gyroscopic(&q, &v, &mut gyr);
        let mut expected = [0.0; 3];
        for k in 0..3 {
            // ∂M/∂q_k
            let (mut plus, mut minus) = (q, q);
            plus[k] += step;
            minus[k] -= step;
            let (mp, mm) = (mass(&plus), mass(&minus));
            let dm = |i: usize, j: usize| (mp[(i, j)] - mm[(i, j)]) / (2.0 * step);
            for i in 0..3 {
                for j in 0..3 {
                    // (Ṁ v)_i = Σ_k Σ_j ∂M_ij/∂q_k v_k v_j; ½ ∂(vᵀMv)/∂q_k = ½ Σ_ij v_i ∂M_ij/∂q_k v_j.
                    expected[i] += dm(i, j) * v[k] * v[j];
                    expected[k] -= 0.5 * v[i] * dm(i, j) * v[j];
                }
            }
        }
        let scale = v.iter().map(|x| x * x).fold(1.0, f64::max) * 1e-2;
        for i in 0..3 {
            assert_close(&format!("F_gyr {i} at {q:?}"), gyr[i], expected[i], scale);
        }
    }
}

#[test]
fn gap_gradients_match_finite_differences_and_siconos_formulas() {
    let model = SliderCrank::default();
    let (l1, l2, a, b, c) = (model.l1, model.l2, model.a, model.b, model.clearance);
    let d = 2.0 * (b + c);
    for (q, _) in SAMPLES {
        // Siconos' SliderCrankPlugin g1..g4, written out.
        let (s1, s2, s3, c3) = (q[0].sin(), q[1].sin(), q[2].sin(), q[2].cos());
        let siconos = [
            0.5 * d - (l1 * s1 + l2 * s2 - a * s3 + b * c3),
            0.5 * d - (l1 * s1 + l2 * s2 + a * s3 + b * c3),
            0.5 * d + l1 * s1 + l2 * s2 - a * s3 - b * c3,
            0.5 * d + l1 * s1 + l2 * s2 + a * s3 - b * c3,
        ];
        for corner in 0..CORNERS.len() {
            assert_close(&format!("g{} at {q:?}", corner + 1), siconos[corner], model.gap(corner, &q), 1e-3);
            let gradient = model.gap_gradient(corner, &q);
            for j in 0..3 {
                let fd = central(&q, j, 1e-6, |x| [model.gap(corner, x)]);
                assert_close(&format!("dg{}/dq{j} at {q:?}", corner + 1), gradient[j], fd[0], 1.0);
            }
        }
    }
    assert!(model.corner_relation(4).is_err());
}
