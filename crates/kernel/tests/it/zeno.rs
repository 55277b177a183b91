//! Accumulation of impacts (Zeno) in event-driven runs: a ball dropped from `x₀ = 1` onto the
//! floor with `0 < e < 1` has flight times `2 eᵏ v₁ / g` after its first impact at
//! `t₁ = √(2 x₀ / g)` (`v₁ = g t₁`), which sum to the accumulation time
//! `t∞ = t₁ + (2 v₁ / g) e / (1 − e)` (Acary and Brogliato 2008, §7.1). At the default `TOL_ED`
//! the `I_2` switch catches it (the ball rests, no Zeno report); with a `TOL_ED` below the
//! integrator's errors it does not, and the detector must stop the run with a
//! [`ZenoAccumulation`] near `t∞` instead of letting it loop.

use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{DsId, InteractionId, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth_kernel::simulation::{
    EventDriven, EventDrivenOptions, FrictionMode, LsodarSmooth, OdeOptions, RestartingOde, SmoothIntegrator,
    TimeDiscretisation, ZenoAccumulation, ZenoPolicy,
};

use crate::{G, ball};

/// `t∞` of the ball dropped from 1 with restitution `e`.
fn accumulation_time(e: f64) -> f64 {
    let t1 = (2.0 / G).sqrt();
    t1 + 2.0 * G * t1 / G * e / (1.0 - e)
}

/// The ball dropped from 1 (restitution `e`) on the floor, with `TOL_ED = tolerance`.
fn dropped_ball(
    e: f64,
    tolerance: f64,
    policy: ZenoPolicy,
    t_end: f64,
    integrator: impl SmoothIntegrator + 'static,
) -> Result<(EventDriven, DsId, InteractionId), KernelError> {
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    let c = nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(e)?, &[b])?;
    let mut options = EventDrivenOptions::default();
    options.tolerance = tolerance;
    options.zeno_policy = policy;
    let sim = EventDriven::new(nsds, TimeDiscretisation::new(0.0, 0.005, t_end)?, integrator, options)?;
    Ok((sim, b, c))
}

/// Steps to the end (at most `cap` events); returns the events run and the Zeno reports.
fn run(sim: &mut EventDriven, cap: usize) -> Result<(usize, Vec<ZenoAccumulation>), KernelError> {
    let (mut events, mut reports) = (0, Vec::new());
    while sim.has_next_event() {
        let Some(report) = sim.step()? else { break };
        events += 1;
        reports.extend(report.zeno);
        assert!(events < cap, "no end after {cap} events");
    }
    Ok((events, reports))
}

fn dopri() -> Result<RestartingOde, KernelError> {
    RestartingOde::new(OdeOptions::default().with_rtol(1e-14).with_atol(1e-14))
}

/// Dormand–Prince at 1e-14 and `TOL_ED = 1e-14`: the impact times follow the geometric series
/// to ~1e-14 (the integrator's accuracy) until the intervals are ~1e-13 s; the detector's
/// geometric test fires there, with the series' tail as the estimated limit. Tolerance 1e-12
/// on `t∞`: the root times' errors (≤ 4e-14 over 44 impacts, `event_driven` examples) plus the
/// window `w = 1e-13 · max(1, t)` below which the tail is taken as zero.
#[test]
fn a_geometric_accumulation_stops_with_the_limit_time() -> Result<(), KernelError> {
    for e in [0.3, 0.5, 0.7] {
        let t_inf = accumulation_time(e);
        let (mut sim, _, c) = dropped_ball(e, 1e-14, ZenoPolicy::Stop, t_inf + 1.0, dopri()?)?;
        let (events, reports) = run(&mut sim, 100_000)?;
        let z = *reports.first().expect("an accumulation is reported");
        println!(
            "e = {e}: Zeno after {events} events, {} impacts, t = {:.16} (t∞ − t = {:e}), limit − t∞ = {:e}, r = {}",
            z.impacts,
            z.time,
            t_inf - z.time,
            z.estimated_limit - t_inf,
            z.ratio
        );
        assert_eq!(reports.len(), 1);
        assert_eq!(z.interaction, c.index());
        assert!((z.estimated_limit - t_inf).abs() <= 1e-12, "{z:?} vs {t_inf}");
        assert!(z.time <= z.estimated_limit && t_inf - z.time <= 1e-12, "{z:?}");
        assert!((z.ratio - e).abs() <= 1e-2, "the ratio of the flight times is e: {z:?}");
        assert!(z.impacts > 20, "{z:?}");
        // Stopped: no more events, step() says so, and the report stays readable.
        assert!(!sim.has_next_event());
        assert!(sim.step()?.is_none());
        assert_eq!(sim.zeno(), Some(z));
        assert!((sim.time() - z.time).abs() <= 0.0);
    }
    Ok(())
}

/// Our port of LSODAR (Siconos' integrator) at `TOL_ED = 1e-14`: near `t∞` the impacts stall,
/// thousands of them at intervals of ~1e-14 s. The stall test fires after `N = 1000` impacts within
/// `1e-10 · max(1, t)`. Tolerance 1e-6 on `t∞`: LSODAR's root times drift from the exact ones by
/// its ~1e-14 position errors divided by the small impact velocities; the default-`TOL_ED` run
/// of the same ball rests before `t∞` by about the same amount for that reason
/// (`bouncing_ball_ed_resting`), and the stall is found at the same place.
#[test]
fn stalled_impacts_stop_near_the_limit_time() -> Result<(), KernelError> {
    for (e, tol) in [(0.5, 2e-7), (0.9, 2e-6)] {
        let t_inf = accumulation_time(e);
        let (mut sim, _, _) = dropped_ball(e, 1e-14, ZenoPolicy::Stop, t_inf + 1.0, LsodarSmooth::siconos())?;
        let (events, reports) = run(&mut sim, 100_000)?;
        let z = *reports.first().expect("an accumulation is reported");
        println!(
            "e = {e}: Zeno after {events} events, {} impacts, t = {:.16} (t∞ − t = {:e}), r = {}",
            z.impacts,
            z.time,
            t_inf - z.time,
            z.ratio
        );
        assert!(z.impacts >= 1000, "{z:?}");
        assert!(z.time < t_inf && t_inf - z.time <= tol, "{z:?} vs {t_inf}");
        assert!(!sim.has_next_event());
    }
    Ok(())
}

/// With [`ZenoPolicy::Rest`] the accumulating contact is made persistent: the ball rests on the
/// floor from the detection on, with the contact force `m g` and no acceleration.
#[test]
fn the_rest_policy_puts_the_ball_to_rest_and_goes_on() -> Result<(), KernelError> {
    let e = 0.5;
    let t_inf = accumulation_time(e);
    let t_end = t_inf + 0.5;
    let (mut sim, b, c) = dropped_ball(e, 1e-14, ZenoPolicy::Rest, t_end, LsodarSmooth::siconos())?;
    let mut reports = Vec::new();
    let mut checked = 0;
    while sim.has_next_event() {
        let Some(report) = sim.step()? else { break };
        reports.extend(report.zeno);
        if !reports.is_empty() {
            let (x, v) = sim.with_nsds(|n| -> Result<_, KernelError> {
                let s = n.ds(b)?.state();
                Ok((s.q()[0], s.v()[0]))
            })?;
            assert_eq!(report.index_sets.1, 1, "in I_2 at t = {}", report.time);
            assert!(x.abs() <= 1e-12 && v.abs() <= 1e-12, "at rest: x = {x}, v = {v}");
            assert!(sim.acceleration(b)?[0].abs() <= 1e-12, "{:?}", &*sim.acceleration(b)?);
            assert!((sim.multiplier(c, 2)?[0] - G).abs() <= 1e-12);
            assert!(sim.output(c, 2)?[0].abs() <= 1e-12);
            checked += 1;
        }
    }
    assert_eq!(reports.len(), 1, "{reports:?}");
    // The last grid point (h = 0.005) before t_end.
    assert!(sim.time() > t_end - 0.005 && sim.time() <= t_end, "ran to the end: {}", sim.time());
    assert!(checked > 50);
    assert!((reports[0].time - t_inf).abs() <= 2e-7);
    Ok(())
}

/// At the default `TOL_ED` the `I_2` switch catches the accumulation (the ball rests) and the
/// detector stays silent, with both integrators and several restitutions.
#[test]
fn a_ball_caught_by_the_i2_switch_reports_no_zeno() -> Result<(), KernelError> {
    for e in [0.3, 0.5, 0.7, 0.9] {
        let t_end = accumulation_time(e) + 0.5;
        let tol = EventDrivenOptions::default().tolerance;
        for lsodar in [true, false] {
            let (mut sim, b, c) = if lsodar {
                dropped_ball(e, tol, ZenoPolicy::Stop, t_end, LsodarSmooth::siconos())?
            } else {
                dropped_ball(e, tol, ZenoPolicy::Stop, t_end, dopri()?)?
            };
            let (_, reports) = run(&mut sim, 100_000)?;
            assert!(reports.is_empty() && sim.zeno().is_none(), "e = {e}: {reports:?}");
            assert!(sim.time() > t_end - 0.005 && sim.time() <= t_end, "ran to the end: {}", sim.time());
            assert_eq!(sim.index_set_sizes(), (1, 1), "e = {e}: at rest");
            assert!((sim.multiplier(c, 2)?[0] - G).abs() <= 1e-12);
            assert!(sim.acceleration(b)?[0].abs() <= 1e-12);
        }
    }
    Ok(())
}

#[test]
fn zeno_options_and_levels_are_checked() -> Result<(), KernelError> {
    let build = |options: EventDrivenOptions| -> Result<EventDriven, KernelError> {
        let mut nsds = Nsds::new();
        let b = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
        nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(0.5)?, &[b])?;
        EventDriven::new(nsds, TimeDiscretisation::new(0.0, 0.01, 0.1)?, LsodarSmooth::siconos(), options)
    };
    let mut bad = Vec::new();
    let mut o = EventDrivenOptions::default();
    o.zeno_impacts = 1;
    bad.push(o);
    let mut o = EventDrivenOptions::default();
    o.zeno_window = f64::NAN;
    bad.push(o);
    let mut o = EventDrivenOptions::default();
    o.zeno_ratio_spread = 0.5;
    bad.push(o);
    let mut o = EventDrivenOptions::default();
    o.zeno_stall_impacts = 0;
    bad.push(o);
    let mut o = EventDrivenOptions::default();
    o.zeno_stall_window = -1.0;
    bad.push(o);
    for options in bad {
        let err = build(options).expect_err("refused");
        assert!(matches!(err, KernelError::InvalidOption { .. }), "{err:?}");
    }
    let sim = build(EventDrivenOptions::default())?;
    let (b, c) = sim.with_nsds(|n| (n.ds_ids().next().expect("one system"), n.interaction_ids().next().expect("one")));
    // At t0, in flight: q̈ = −g, ÿ = −g, no force.
    let exact = |a: f64, b: f64| a.to_bits() == b.to_bits();
    assert!(exact(sim.acceleration(b)?[0], -G));
    assert!(exact(sim.output(c, 2)?[0], -G));
    assert!(exact(sim.output(c, 0)?[0], 1.0));
    assert!(exact(sim.multiplier(c, 2)?[0], 0.0));
    for err in [sim.multiplier(c, 0).err(), sim.output(c, 3).err(), sim.reaction(b, 0).err()] {
        assert!(matches!(err, Some(KernelError::InvalidOption { .. })), "{err:?}");
    }
    Ok(())
}

/// [`ZenoPolicy::Rest`] with a frictional contact (2D Coulomb law, `e_N = 1/2`, rows: the
/// height, then the contact point's horizontal velocity `v_y + R θ̇`): the normal row of the
/// frictional impact problem is solved with `e_N = 0` at the detection, the ball then rests
/// (sticking, `λ[2] = (m g, 0)`, `q̈ = 0`) up to the end.
#[test]
fn the_rest_policy_applies_to_the_normal_row_of_a_frictional_contact() -> Result<(), KernelError> {
    let e = 0.5;
    let t_inf = accumulation_time(e);
    let t_end = t_inf + 0.2;
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    let h = faer::mat![[1.0, 0.0, 0.0], [0.0, 1.0, crate::RADIUS]];
    let c = nsds.link(LagrangianLinearTir::new(h)?, NonsmoothLaw::newton_impact_friction(e, 0.0, 0.3, 2)?, &[b])?;
    let mut options = EventDrivenOptions::default();
    options.tolerance = 1e-14;
    options.zeno_policy = ZenoPolicy::Rest;
    let grid = TimeDiscretisation::new(0.0, 0.005, t_end)?;
    let mut sim = EventDriven::new(nsds, grid, LsodarSmooth::siconos(), options)?;
    let (mut reports, mut checked) = (Vec::new(), 0);
    while sim.has_next_event() {
        let Some(report) = sim.step()? else { break };
        reports.extend(report.zeno);
        if !reports.is_empty() {
            let (x, v) = sim.with_nsds(|n| -> Result<_, KernelError> {
                let s = n.ds(b)?.state();
                Ok((s.q()[0], s.v()[0]))
            })?;
            assert_eq!(report.index_sets.1, 1, "in I_2 at t = {}", report.time);
            assert_eq!(sim.friction_mode(c)?, FrictionMode::Sticking, "t = {}", report.time);
            assert!(x.abs() <= 1e-12 && v.abs() <= 1e-12, "at rest: x = {x}, v = {v}");
            assert!(sim.acceleration(b)?.iter().all(|a| a.abs() <= 1e-12), "{:?}", &*sim.acceleration(b)?);
            let l2 = sim.multiplier(c, 2)?.to_vec();
            assert!((l2[0] - G).abs() <= 1e-12 && l2[1].abs() <= 1e-12, "{l2:?}");
            assert!(sim.output(c, 2)?.iter().all(|y| y.abs() <= 1e-12));
            checked += 1;
        }
    }
    println!("frictional contact: {reports:?} (t∞ = {t_inf}), {checked} events at rest");
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(sim.time() > t_end - 0.005 && sim.time() <= t_end, "ran to the end: {}", sim.time());
    assert!(checked > 20);
    assert!((reports[0].time - t_inf).abs() <= 2e-7);
    Ok(())
}
