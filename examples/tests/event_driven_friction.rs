//! The event-driven scheme with Coulomb friction against closed-form mechanics: a block on a
//! slope that tilts (stick → slip when `tan θ(t) = μ`), and a Newton–Euler sphere launched
//! sliding on a plane (slip → stick at `t* = 2 v0 / (7 μ g)`, then rolling at `5 v0 / 7`).

use nonsmooth::kernel::simulation::FrictionMode;
use nonsmooth_examples::kernel::slope_block_ed::{GRAVITY, SlopeBlockEd};
use nonsmooth_examples::mechanics::rolling_sphere_ed::{GRAVITY as G, RollingSphereEd};

/// The block sticks until `t_s = (atan μ − θ₀)/ω` with the forces `λ_N = m g cos θ`,
/// `λ_T = −m g sin θ`; the slip event is located to 1e-8 (relative); then it slides as the
/// analytic `x(t)`, `ẋ(t)`, on the slope (`y = 0`, the contact in `I_2`).
#[test]
fn the_block_slips_when_the_slope_reaches_the_friction_angle() {
    let model = SlopeBlockEd::default();
    let run = model.simulate().expect("the model runs");
    let ts = model.slip_time();
    let nonsmooth: Vec<f64> = run.events.iter().map(|e| e.0).collect();
    println!("nonsmooth events {nonsmooth:?}, analytic slip time {ts}");
    assert_eq!(run.events.len(), 2, "{:?}", run.events);
    assert!(run.events.iter().all(|&(_, impact, i1, i2)| !impact && i1 == 1 && i2 == 1));
    let t_slip = run.events[1].0;
    let rel = (t_slip - ts).abs() / ts;
    println!("slip event at {t_slip:.15}, analytic {ts:.15}, relative {rel:.2e}");
    assert!(rel <= 1e-8, "relative {rel:e}");
    let (mut dx, mut dv, mut df) = (0.0f64, 0.0f64, 0.0f64);
    for (r, mode) in run.rows.iter_rows().zip(&run.modes) {
        let t = r[0];
        assert!(r[2].abs() <= 1e-12 && r[4].abs() <= 1e-12, "on the slope at t = {t}: {r:?}");
        // Sticking before the slip event, sliding down the slope (+x) from it.
        let expected =
            if t < t_slip { FrictionMode::Sticking } else { FrictionMode::Sliding { direction: [1.0, 0.0] } };
        assert_eq!(*mode, expected, "t = {t}");
        assert_eq!((r[8], r[9]), (1.0, 1.0), "t = {t}");
        let (x, v) = model.analytic(t);
        dx = dx.max((r[1] - x).abs());
        dv = dv.max((r[3] - v).abs());
        let th = model.theta(t);
        let normal = model.mass * GRAVITY * th.cos();
        df = df.max((r[6] - normal).abs());
        if t < t_slip {
            assert!(r[1].abs() <= 1e-12 && r[3].abs() <= 1e-12, "at rest at t = {t}: {r:?}");
            df = df.max((r[7] + model.mass * GRAVITY * th.sin()).abs());
        } else {
            // Sliding down the slope: λ_T = −μ λ_N.
            df = df.max((r[7] + model.mu * normal).abs());
            assert!(r[3] >= 0.0);
        }
    }
    println!("max |x − x_analytic| {dx:.2e}, |ẋ − ẋ_analytic| {dv:.2e}, forces {df:.2e}");
    assert!(dx <= 1e-9 && dv <= 1e-9 && df <= 1e-9);
    let last = run.rows.row(run.rows.rows() - 1);
    assert!(last[3] > 0.1, "it slides: {last:?}");
}

/// On a slope already steeper than the friction angle (`θ₀ = 0.6 > atan 0.5`) the block starts
/// sliding at `t = 0`: the event at `t₀` finds the sticking force outside the cone and sets the
/// sliding mode down the slope; then the analytic motion with `t_s = 0`.
#[test]
fn the_block_on_a_steep_slope_slides_from_the_start() {
    let model = SlopeBlockEd { theta0: 0.6, ..SlopeBlockEd::default() };
    let run = model.simulate().expect("the model runs");
    assert_eq!(run.events.len(), 1, "{:?}", run.events);
    assert!(run.modes.iter().all(|m| *m == FrictionMode::Sliding { direction: [1.0, 0.0] }), "{:?}", run.modes);
    let mut worst = 0.0f64;
    for r in run.rows.iter_rows() {
        let (x, v) = model.analytic(r[0]);
        worst = worst.max((r[1] - x).abs()).max((r[3] - v).abs());
    }
    println!("steep slope: worst |x − x_a|, |ẋ − ẋ_a| = {worst:.1e}");
    assert!(worst <= 1e-9, "{worst:e}");
}

/// The sphere slides with `slip = v0 − 7/2 μ g t`, sticks at `t* = 2 v0 / (7 μ g)` (event to
/// 1e-8 relative) and then rolls: contact point at rest, speed `5 v0 / 7`, quaternion unit, on
/// the plane.
#[test]
fn the_sphere_rolls_from_the_analytic_stick_time() {
    let model = RollingSphereEd::default();
    let run = model.simulate().expect("the model runs");
    let ts = model.transition_time();
    println!("nonsmooth events {:?}, analytic stick time {ts}", run.events);
    assert_eq!(run.events.len(), 2, "{:?}", run.events);
    assert!(run.events.iter().all(|&(_, impact, i1, i2)| !impact && i1 == 1 && i2 == 1));
    let t_stick = run.events[1].0;
    let rel = (t_stick - ts).abs() / ts;
    println!("stick event at {t_stick:.15}, analytic {ts:.15}, relative {rel:.2e}");
    assert!(rel <= 1e-8, "relative {rel:e}");
    let (mut slip_err, mut rolling_slip, mut speed_err, mut qn, mut sink) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut after = 0;
    for (r, mode) in run.rows.iter_rows().zip(&run.modes) {
        let t = r[0];
        assert_eq!(matches!(mode, FrictionMode::Sliding { .. }), t < t_stick, "t = {t}: {mode:?}");
        assert_eq!(*mode == FrictionMode::Sticking, t >= t_stick, "t = {t}: {mode:?}");
        qn = qn.max((r[12] - 1.0).abs());
        sink = sink.max((r[3] - model.radius).abs());
        assert!((r[13] - model.mass * G).abs() <= 1e-9, "normal force at t = {t}: {}", r[13]);
        assert!(r[11].abs() <= 1e-12 && r[5].abs() <= 1e-12, "planar motion at t = {t}");
        if t < t_stick {
            slip_err = slip_err.max((r[10] - (model.v0 - 3.5 * model.mu * G * t)).abs());
        } else {
            after += 1;
            rolling_slip = rolling_slip.max(r[10].abs());
            speed_err = speed_err.max((r[4] - 5.0 / 7.0 * model.v0).abs());
        }
    }
    println!(
        "sliding: max |slip − (v0 − 7/2 μ g t)| {slip_err:.2e}; rolling ({after} rows): max |slip| {rolling_slip:.2e}, \
         max |v − 5 v0/7| {speed_err:.2e}; max ||p| − 1| {qn:.1e}; max |z − R| {sink:.1e}"
    );
    assert!(after >= 10);
    assert!(slip_err <= 1e-9);
    assert!(rolling_slip <= 1e-10, "the contact point stays at rest: {rolling_slip:e}");
    assert!(speed_err <= 1e-9);
    assert!(qn <= 1e-14 && sink <= 1e-12);
}

/// The same sphere integrated by our LSODAR port (Siconos' `LsodarOSI` tolerances, history kept
/// across output times; the quaternion renormalized after each segment restarts it): the
/// stick event is again at `t*` to 1e-8 and the sphere rolls at `5 v0 / 7`.
#[test]
fn the_sphere_rolls_from_the_analytic_stick_time_with_lsodar() {
    let model = RollingSphereEd { lsodar: true, ..RollingSphereEd::default() };
    let run = model.simulate().expect("the model runs");
    let ts = model.transition_time();
    assert_eq!(run.events.len(), 2, "{:?}", run.events);
    let rel = (run.events[1].0 - ts).abs() / ts;
    let last = run.rows.row(run.rows.rows() - 1);
    println!(
        "LSODAR: stick event at {:.15} (relative {rel:.2e}); final speed {:.15}, slip {:.1e}, |p| − 1 = {:.1e}",
        run.events[1].0,
        last[4],
        last[10],
        last[12] - 1.0
    );
    assert!(rel <= 1e-8, "relative {rel:e}");
    assert!((last[4] - 5.0 / 7.0 * model.v0).abs() <= 1e-9);
    assert!(last[10].abs() <= 1e-10 && (last[12] - 1.0).abs() <= 1e-14);
}

/// Dropped from `d` above the plane: the impact at `√(2d/g)` is the FC3D problem at velocity
/// level with `W_NN = 1/m`, `W_TT = 7/(2m)`; with `μ P_N < 2 m slip⁻ / 7` the sphere slides
/// through it: `P_N = m √(2 g d)`, `v_x⁺ = v0 − μ P_N/m`, `slip⁺ = v0 − 7/2 μ P_N/m`, and it
/// sticks at `t_impact + slip⁺/(7/2 μ g)`, then rolls at `v_x⁺ − slip⁺/(7/2)`.
#[test]
fn a_sphere_dropped_sliding_slides_through_its_frictional_impact_then_rolls() {
    let model = RollingSphereEd { drop: 0.05, ..RollingSphereEd::default() };
    let run = model.simulate().expect("the model runs");
    let (g, mu, v0) = (G, model.mu, model.v0);
    let t1 = (2.0 * model.drop / g).sqrt();
    let pn = (2.0 * g * model.drop).sqrt();
    let (vx, slip) = (v0 - mu * pn, v0 - 3.5 * mu * pn);
    let t2 = t1 + slip / (3.5 * mu * g);
    let v_roll = vx - slip / 3.5;
    println!("events {:?}; analytic impact {t1}, stick {t2}, rolling speed {v_roll}", run.events);
    assert_eq!(run.events.len(), 2, "{:?}", run.events);
    let (ti, impact, i1, i2) = run.events[0];
    assert!(impact && (i1, i2) == (1, 1));
    assert!((ti - t1).abs() / t1 <= 1e-8, "impact at {ti}, analytic {t1}");
    // The post-impact row (the second of the two rows at the impact time).
    let post = run.rows.iter_rows().filter(|r| r[0].to_bits() == ti.to_bits()).last().expect("the impact row");
    assert!((post[4] - vx).abs() <= 1e-10 && (post[10] - slip).abs() <= 1e-10 && post[6].abs() <= 1e-12, "{post:?}");
    let (ts, impact, ..) = run.events[1];
    assert!(!impact);
    let rel = (ts - t2).abs() / t2;
    println!("impact at {ti:.15}: v_x⁺ {:.15} (analytic {vx:.15}); stick at {ts:.15} (relative {rel:.2e})", post[4]);
    assert!(rel <= 1e-8, "relative {rel:e}");
    let last = run.rows.row(run.rows.rows() - 1);
    assert!((last[4] - v_roll).abs() <= 1e-9 && last[10].abs() <= 1e-10, "{last:?}");
}

/// The acceleration getters on a Newton–Euler body with friction: `q̈` is the twist rate `v̇`
/// (6 components). While the sphere slides `v̇ = (−μ g, 0, 0, 0, 5 μ g / (2 R), 0)` (the friction
/// force at the contact point, `I = 2/5 m R²`) and `λ[2] = (m g, ±μ m g, 0)` up to the tangent
/// basis; once it rolls `v̇ = 0`, the contact's `ÿ = 0` and `λ[2] = (m g, 0, 0)`, up to round-off.
#[test]
fn the_acceleration_getters_of_the_rolling_sphere() {
    let model = RollingSphereEd::default();
    let (mut sim, body, contact) = model.build().expect("the model builds");
    let (mu, m, r) = (model.mu, model.mass, model.radius);
    let (mut sliding, mut rolling) = (0, 0);
    let (mut worst_slide, mut worst_roll) = (0.0f64, 0.0f64);
    while sim.has_next_event() {
        sim.advance_to_event().expect("integrates");
        let Some(report) = sim.process_events().expect("processes the event") else { break };
        let a = sim.acceleration(body).expect("a system").to_vec();
        let y2 = sim.output(contact, 2).expect("a contact").to_vec();
        let l2 = sim.multiplier(contact, 2).expect("a contact").to_vec();
        assert_eq!((a.len(), y2.len(), l2.len()), (6, 3, 3));
        match sim.friction_mode(contact).expect("a contact") {
            FrictionMode::Sliding { .. } => {
                sliding += 1;
                let expected = [-mu * G, 0.0, 0.0, 0.0, 2.5 * mu * G / r, 0.0];
                let da = a.iter().zip(expected).map(|(x, e)| (x - e).abs()).fold(0.0, f64::max);
                let dl = (l2[0] - m * G).abs().max((l2[1].hypot(l2[2]) - mu * m * G).abs());
                // The contact point's tangential acceleration v̇_x − R ω̇_y = −7/2 μ g.
                let dy = y2[0].abs().max((y2[1].hypot(y2[2]) - 3.5 * mu * G).abs());
                worst_slide = worst_slide.max(da).max(dl).max(dy);
            }
            mode => {
                assert_eq!(mode, FrictionMode::Sticking, "t = {}", report.time);
                rolling += 1;
                let da = a.iter().fold(0.0f64, |w, x| w.max(x.abs()));
                let dy = y2.iter().fold(0.0f64, |w, x| w.max(x.abs()));
                let dl = (l2[0] - m * G).abs().max(l2[1].abs()).max(l2[2].abs());
                worst_roll = worst_roll.max(da).max(dy).max(dl);
            }
        }
    }
    println!(
        "sliding ({sliding} events): worst deviation {worst_slide:.1e}; rolling ({rolling} events): worst {worst_roll:.1e}"
    );
    assert!(sliding >= 3 && rolling >= 3, "{sliding} {rolling}");
    assert!(worst_slide <= 1e-9 && worst_roll <= 1e-9, "{worst_slide:e} {worst_roll:e}");
}
