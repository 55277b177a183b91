//! The event-driven examples against closed-form mechanics: a ball between a floor and a
//! ceiling (impact times from the impact law), a ball coming to rest (force = weight after the
//! accumulation time), a pendulum on a unilateral string (tension, constraint, release angle).

use nonsmooth::kernel::simulation::Trajectory;
use nonsmooth_examples::kernel::bouncing_ball_ed_resting::BouncingBallEdResting;
use nonsmooth_examples::kernel::bouncing_ball_ed_two_contacts::{BouncingBallEdTwoContacts, GRAVITY};
use nonsmooth_examples::kernel::pendulum_ed::PendulumEd;

/// `(t, pre-impact row, post-impact row)` of every impact: rows whose time appears twice.
fn impacts(rows: &Trajectory) -> Vec<(f64, Vec<f64>, Vec<f64>)> {
    (1..rows.rows())
        .filter(|&i| rows.row(i)[0].to_bits() == rows.row(i - 1)[0].to_bits())
        .map(|i| (rows.row(i)[0], rows.row(i - 1).to_vec(), rows.row(i).to_vec()))
        .collect()
}

/// The impacts of the floor/ceiling ball from the impact law: exact parabola roots, `v⁺ = −e v⁻`.
/// Returns `(t, hits the ceiling, v⁻)` up to `t_end`.
fn analytic_two_contacts(model: &BouncingBallEdTwoContacts) -> Vec<(f64, bool, f64)> {
    let (g, e, h) = (GRAVITY, model.restitution, model.ceiling);
    let (mut t, mut x, mut v) = (0.0, model.x0, model.v0);
    let mut out = Vec::new();
    loop {
        // Ceiling first when the apex x + v²/2g is above it (smaller root of x + v s − g s²/2 = H),
        // else the floor (positive root of x + v s − g s²/2 = 0).
        let (dt, ceiling) = if v > 0.0 && x + v * v / (2.0 * g) > h {
            ((v - (v * v - 2.0 * g * (h - x)).sqrt()) / g, true)
        } else {
            ((v + (v * v + 2.0 * g * x).sqrt()) / g, false)
        };
        let v_minus = v - g * dt;
        t += dt;
        if t > model.t_end {
            return out;
        }
        out.push((t, ceiling, v_minus));
        x = if ceiling { h } else { 0.0 };
        v = -e * v_minus;
    }
}

#[test]
fn two_contacts_alternate_at_the_analytic_times_with_energy_loss_e_squared() {
    let model = BouncingBallEdTwoContacts::default();
    let rows = model.simulate().expect("the model runs");
    let ours = impacts(&rows);
    let expected = analytic_two_contacts(&model);
    let walls: String = expected.iter().map(|&(_, c, _)| if c { 'C' } else { 'F' }).collect();
    println!("analytic impact sequence {walls}");
    // Alternation ceiling/floor, then the floor only, with at least three ceiling impacts.
    let last_ceiling = expected.iter().rposition(|&(_, c, _)| c).expect("the ceiling is reached");
    assert!(last_ceiling >= 4, "{walls}");
    for (k, &(_, c, _)) in expected.iter().enumerate() {
        assert_eq!(c, k <= last_ceiling && k % 2 == 0, "{walls}");
    }
    assert!(expected.len() > last_ceiling + 2, "several floor-only impacts: {walls}");
    assert_eq!(ours.len(), expected.len());
    let e = model.restitution;
    let (mut dt, mut dv, mut de) = (0.0f64, 0.0f64, 0.0f64);
    for ((t, pre, post), &(ta, ceiling, va)) in ours.iter().zip(&expected) {
        // Which contact acted: λ_ceiling(1) (column 7) or λ_floor(1) (column 5).
        let (l_floor, l_ceiling) = (post[5], post[7]);
        assert_eq!(l_ceiling > 0.0, ceiling, "t = {t}");
        assert_eq!(l_floor > 0.0, !ceiling, "t = {t}");
        // Position at the wall.
        let wall = if ceiling { model.ceiling } else { 0.0 };
        assert!((pre[1] - wall).abs() <= 1e-12, "x = {} at t = {t}", pre[1]);
        dt = dt.max((t - ta).abs());
        dv = dv.max((pre[2] - va).abs());
        // Kinetic energy after = e² × before (the position is unchanged by the impact).
        let ratio = (post[2] * post[2]) / (pre[2] * pre[2]);
        de = de.max((ratio - e * e).abs());
        // The impulse is m (v⁺ − v⁻) = λ(1) Gᵢ with G = ±1.
        let impulse = if ceiling { -l_ceiling } else { l_floor };
        assert!((model.mass * (post[2] - pre[2]) - impulse).abs() <= 1e-12, "t = {t}");
    }
    println!(
        "{} impacts ({} on the ceiling): max |t − t_analytic| = {dt:e}, |v⁻ − v⁻_analytic| = {dv:e}, \
         |KE⁺/KE⁻ − e²| = {de:e}",
        ours.len(),
        last_ceiling / 2 + 1
    );
    assert!(dt <= 1e-12, "{dt:e}");
    assert!(dv <= 1e-11, "{dv:e}");
    assert!(de <= 1e-12, "{de:e}");
    // Between impacts the mechanical energy v²/2 + g x is conserved.
    let mut drift = 0.0f64;
    for w in rows.iter_rows().collect::<Vec<_>>().windows(2) {
        let energy = |r: &[f64]| 0.5 * r[2] * r[2] + GRAVITY * r[1];
        if w[1][5] == 0.0 && w[1][7] == 0.0 && w[0][0] < w[1][0] {
            drift = drift.max((energy(w[1]) - energy(w[0])).abs());
        }
    }
    println!("max energy change over a flight step: {drift:e}");
    assert!(drift <= 1e-11, "{drift:e}");
    // Acceleration level as the simulation stores it: free flight between the walls, so
    // ẍ = −g, ÿ_floor = ẍ and ÿ_ceiling = −ẍ on every row, no contact force.
    for r in rows.iter_rows() {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&r[9..12]), bits(&[-GRAVITY, -GRAVITY, GRAVITY]), "{r:?}");
        assert_eq!(bits(&[r[4], r[6], r[8]]), bits(&[0.0; 3]), "{r:?}");
    }
}

#[test]
fn with_e_0_the_ball_rests_at_the_first_impact_under_its_weight() {
    let model = BouncingBallEdResting { restitution: 0.0, t_end: 1.0, ..BouncingBallEdResting::default() };
    let run = model.simulate().expect("the model runs");
    let t1 = (2.0 / GRAVITY).sqrt();
    assert_eq!(run.impacts, 1);
    let rest = run.rest_time.expect("at rest");
    assert!((rest - t1).abs() <= 1e-12, "{rest} vs {t1}");
    let later: Vec<&[f64]> = run.rows.iter_rows().filter(|r| r[0] > rest).collect();
    assert!(later.len() > 100);
    for r in later {
        assert!(r[1].abs() <= 1e-12 && r[2].abs() <= 1e-12, "at rest: {r:?}");
        assert!((r[6] - GRAVITY).abs() <= 1e-12 && (r[4] - GRAVITY).abs() <= 1e-12, "λ(2) = m g: {r:?}");
        assert!((r[7] - 1.0).abs() < 0.5, "in I_2: {r:?}");
    }
}

/// `e = 0.5` (T = 2) and `e = 0.9` (T = 10, Siconos' `BouncingBallED` ball).
#[test]
fn with_e_positive_the_ball_rests_at_the_accumulation_time_under_its_weight() {
    for (e, t_end) in [(0.5f64, 2.0), (0.9, 10.0)] {
        let model = BouncingBallEdResting { restitution: e, t_end, ..BouncingBallEdResting::default() };
        let t_star = model.accumulation_time();
        assert!(model.t_end > t_star + 0.5);
        let run = model.simulate().expect("the model runs");
        let rest = run.rest_time.expect("at rest before the end");
        println!(
            "e = {e}: {} impacts, rest (contact in I_2) at {rest:.15}, t* = {t_star:.15}, t − t* = {:e}",
            run.impacts,
            rest - t_star
        );
        // Rest comes slightly before t*: the last flights are cut short by the TOL_ED guards and
        // the integrator's 1e-14 errors (LSODAR, as Siconos' LsodarOSI).
        assert!(rest < t_star && t_star - rest <= 2e-6, "{:e}", rest - t_star);
        if e > 0.85 {
            // Siconos 4.4.0 (research report §6, T = 10 run): 185 nonsmooth events, rest at
            // t = 8.578947785488516, 1.4e-6 s before t*.
            assert!((rest - 8.578947785488516).abs() <= 1e-12, "{rest} vs Siconos 8.578947785488516");
        }
        assert!(run.impacts > 20);
        assert!(run.zeno.is_none(), "the I_2 switch caught the accumulation: {:?}", run.zeno);
        // The first impacts follow the geometric series of flight times 2 eᵏ v₁ / g = 2 eᵏ t₁.
        let t1 = (2.0 / GRAVITY).sqrt();
        let mut expected = t1;
        let mut worst = 0.0f64;
        for (k, (t, _, _)) in impacts(&run.rows).iter().enumerate().take(10) {
            if k > 0 {
                expected += 2.0 * e.powi(k as i32) * t1;
            }
            worst = worst.max((t - expected).abs());
        }
        // LSODAR's root times carry its ~1e-14 position errors divided by the (small) impact
        // velocity, accumulated over the impacts.
        println!("  first 10 impacts: max |t − t_analytic| = {worst:e}");
        assert!(worst <= 1e-11, "{worst:e}");
        let later: Vec<&[f64]> = run.rows.iter_rows().filter(|r| r[0] > rest).collect();
        assert!(later.len() > 100);
        for r in later {
            assert!((r[7] - 1.0).abs() < 0.5, "stays in I_2: {r:?}");
            assert!((r[6] - GRAVITY).abs() <= 1e-12 && (r[4] - GRAVITY).abs() <= 1e-12, "λ(2) = m g: {r:?}");
            assert!(r[1].abs() <= 1e-10 && r[2].abs() <= 1e-10, "at rest: {r:?}");
            assert!(r[3].abs() <= 1e-12 && r[5].abs() <= 1e-12, "no more impulses: {r:?}");
        }
    }
}

/// Checks every row with the string in `I_2`: `|y| ≤ 1e-10` and `λ(2)` equal to the analytic
/// tension over `2l` at the row's state to 1e-8. Returns the worst of both and the row count.
/// Also checks the acceleration level the simulation stores on every row (see
/// [`check_accelerations`]).
fn check_taut_rows(model: &PendulumEd, rows: &Trajectory) -> (f64, f64, usize) {
    let (mut worst_y, mut worst_l, mut n) = (0.0f64, 0.0f64, 0);
    for r in rows.iter_rows().filter(|r| r[9] > 0.5) {
        let analytic = model.analytic_lambda([r[1], r[2]], [r[3], r[4]]);
        worst_y = worst_y.max(r[5].abs());
        worst_l = worst_l.max((r[7] - analytic).abs());
        n += 1;
    }
    assert!(worst_y <= 1e-10, "|y| = {worst_y:e}");
    assert!(worst_l <= 1e-8, "|λ(2) − λ_analytic| = {worst_l:e}");
    check_accelerations(model, rows);
    (worst_y, worst_l, n)
}

/// The acceleration columns against Newton's law with the recorded force: `m q̈ = (0, −m g) +
/// Gᵀ λ(2)` with `Gᵀ λ = −2 λ q` (taut rows; `λ(2) = 0` on slack rows) to 1e-12, and
/// `ÿ = G q̈ + Ġ v = −2 q·q̈ − 2 |v|²`, which is 0 (to 1e-10) while the string is taut.
/// Returns the worst differences `(q̈, ÿ, |ÿ| on taut rows)`.
fn check_accelerations(model: &PendulumEd, rows: &Trajectory) -> (f64, f64, f64) {
    let (mut worst_a, mut worst_yddot, mut taut) = (0.0f64, 0.0f64, 0.0f64);
    let m = model.mass;
    for r in rows.iter_rows() {
        let (x, z, vx, vz, lambda2) = (r[1], r[2], r[3], r[4], r[7]);
        let (ax, az, yddot) = (r[10], r[11], r[12]);
        let expected = [-2.0 * lambda2 * x / m, -GRAVITY - 2.0 * lambda2 * z / m];
        worst_a = worst_a.max((ax - expected[0]).abs()).max((az - expected[1]).abs());
        let expected_yddot = -2.0 * (x * ax + z * az) - 2.0 * (vx * vx + vz * vz);
        worst_yddot = worst_yddot.max((yddot - expected_yddot).abs());
        if r[9] > 0.5 {
            taut = taut.max(yddot.abs());
        }
    }
    assert!(worst_a <= 1e-12, "|q̈ − M⁻¹(F + Gᵀλ)| = {worst_a:e}");
    assert!(worst_yddot <= 1e-12, "|ÿ − (G q̈ + Ġ v)| = {worst_yddot:e}");
    assert!(taut <= 1e-10, "|ÿ| on taut rows = {taut:e}");
    (worst_a, worst_yddot, taut)
}

#[test]
fn pendulum_released_taut_from_rest_keeps_the_analytic_tension() {
    let phi0 = 60f64.to_radians();
    let model = PendulumEd { q0: [phi0.sin(), -phi0.cos()], v0: [0.0, 0.0], t_end: 4.0, ..PendulumEd::default() };
    let run = model.simulate().expect("the model runs");
    // One nonsmooth event at t0 (closed contact, no velocity: no impact, into I_2), then the
    // string stays taut: the tension m g (3 cos φ − 2 cos φ0) never vanishes for φ0 < 90°.
    assert_eq!(run.events.len(), 1, "{:?}", run.events);
    assert!(run.events[0].0.abs() <= 1e-15 && !run.events[0].1 && run.events[0].3 == 1);
    assert!(run.rows.iter_rows().all(|r| r[9] > 0.5));
    let (wy, wl, n) = check_taut_rows(&model, &run.rows);
    // Energy is conserved, so the tension is also m g (3 cos φ − 2 cos φ0) / (2l).
    let mut worst_t = 0.0f64;
    for r in run.rows.iter_rows() {
        let cos_phi = -r[2] / model.length;
        let lambda = model.mass * GRAVITY * (3.0 * cos_phi - 2.0 * phi0.cos()) / (2.0 * model.length);
        worst_t = worst_t.max((r[7] - lambda).abs());
    }
    println!("{n} taut rows: max |y| = {wy:e}, max |λ(2) − m(v² − g z)/2l²| = {wl:e}, vs energy form {worst_t:e}");
    assert!(worst_t <= 1e-8, "{worst_t:e}");
    // It swings: the lowest point is crossed with v² = 2 g l (1 − cos φ0).
    let vmax = run.rows.iter_rows().map(|r| r[3].hypot(r[4])).fold(0.0, f64::max);
    assert!((vmax - (2.0 * GRAVITY * (1.0 - phi0.cos())).sqrt()).abs() < 1e-2, "{vmax}");
}

/// Regression test: the double condition after the acceleration LCP must include the
/// `Ġ v` term of a scleronomous relation in `ÿ`; without it a taut string with a tangential
/// velocity reported "acceleration and force both nonzero" (`ÿ` off by `2 |v|² = 2`).
#[test]
fn a_taut_string_with_velocity_starts() {
    let model = PendulumEd { q0: [0.0, -1.0], v0: [1.0, 0.0], t_end: 0.01, ..PendulumEd::default() };
    let run = model.simulate().expect("the model runs");
    check_taut_rows(&model, &run.rows);
}

#[test]
fn pendulum_on_a_string_tightens_swings_and_goes_slack_at_the_analytic_angle() {
    let model = PendulumEd::default();
    let run = model.simulate().expect("the model runs");
    let (g, l) = (GRAVITY, model.length);
    // First event: the string tightens (impact, e = 0: ẏ⁺ = 0 so into I_2) where the parabola
    // from q0 with v0 meets the circle; Newton's method on |q(t)|² = l².
    let (x0, z0, vx, vz) = (model.q0[0], model.q0[1], model.v0[0], model.v0[1]);
    let q = |t: f64| (x0 + vx * t, z0 + vz * t - 0.5 * g * t * t);
    let mut t_hit = 0.01;
    for _ in 0..50 {
        let (x, z) = q(t_hit);
        let (dx, dz) = (vx, vz - g * t_hit);
        t_hit -= (x * x + z * z - l * l) / (2.0 * (x * dx + z * dz));
    }
    let (t0, impact, _, i2) = run.events[0];
    assert!(impact && i2 == 1, "{:?}", run.events);
    assert!((t0 - t_hit).abs() <= 1e-12, "{t0} vs {t_hit}");
    // Tangential velocity kept: the energy per unit mass while taut.
    let (x, z) = q(t_hit);
    let (ux, uz) = (vx, vz - g * t_hit);
    let vt = (-z * ux + x * uz) / l;
    let energy = 0.5 * vt * vt + g * z;
    // Then the release: the next nonsmooth event leaves I_2 where v² = g z, i.e. z = 2E/(3g).
    let (t1, impact1, _, i2_after) = run.events[1];
    assert!(!impact1 && i2_after == 0, "{:?}", run.events);
    let row = run.rows.iter_rows().find(|r| r[0].to_bits() == t1.to_bits()).expect("the release row");
    let z_release = 2.0 * energy / (3.0 * g);
    let phi_release = (-z_release / l).acos();
    let phi = (-row[2] / l).acos();
    println!("tightened at {t0} (analytic {t_hit}), released at t = {t1}: φ = {phi} vs analytic {phi_release}");
    assert!((phi - phi_release).abs() <= 1e-7, "{phi} vs {phi_release}");
    let (wy, wl, n) = check_taut_rows(&model, &run.rows);
    println!("{n} taut rows: max |y| = {wy:e}, max |λ(2) − m(v² − g z)/2l²| = {wl:e}");
    let (wa, wydd, taut) = check_accelerations(&model, &run.rows);
    println!("accelerations: max |q̈ − M⁻¹(F + Gᵀλ)| = {wa:e}, |ÿ − G q̈ − Ġ v| = {wydd:e}, taut |ÿ| = {taut:e}");
    // Slack rows (in flight inside the circle): free fall.
    let free_fall = |r: &[f64]| r[10].to_bits() == 0.0f64.to_bits() && r[11].to_bits() == (-GRAVITY).to_bits();
    assert!(run.rows.iter_rows().filter(|r| r[9] < 0.5).all(free_fall));
}
