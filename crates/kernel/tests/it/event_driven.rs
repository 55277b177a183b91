//! Event-driven simulation with a rheonomous relation: a ball on a floor
//! moving at constant speed `v_f` (`y = x − v_f t`, `G = (1 0 0)`, `∂h/∂t = −v_f`,
//! `∂²h/∂t² = 0`) moves relative to the floor exactly as a ball on a fixed floor (`y = x`)
//! with the initial velocity `v₀ − v_f` (Galilean invariance: gravity is the same in both
//! frames), impacts and the final resting contact included.

use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{LagrangianLinearTir, LagrangianRheonomousR, NonsmoothLaw, Nsds};
use nonsmooth_kernel::simulation::{EventDriven, EventDrivenOptions, LsodarSmooth, TimeDiscretisation};

use crate::ball;

/// Floor speed.
const V_FLOOR: f64 = 0.75;
/// Restitution coefficient.
const E: f64 = 0.5;

/// The floor `y = x − v_f t`, with or without its second time derivative.
fn moving_floor(with_second_derivative: bool) -> Result<LagrangianRheonomousR, KernelError> {
    let relation = LagrangianRheonomousR::new(
        1,
        |q, t, y| y[0] = q[0] - V_FLOOR * t,
        |_, _, g| g[(0, 0)] = 1.0,
        |_, _, dhdt| dhdt[0] = -V_FLOOR,
    )?;
    Ok(if with_second_derivative {
        relation.with_time_second_derivative(|_, _, _, out| out[0] = 0.0)
    } else {
        relation
    })
}

/// One event: time, position and velocity relative to the floor, impact flag, `|I_1|`, `|I_2|`.
type Row = (f64, f64, f64, bool, usize, usize);

/// Runs a ball dropped from height `x0` relative to the floor with relative velocity `w0`,
/// on the moving floor (`moving`) or the fixed one, to `t_end`; returns the events.
fn run(moving: bool, x0: f64, w0: f64, t_end: f64) -> Result<Vec<Row>, KernelError> {
    let vf = if moving { V_FLOOR } else { 0.0 };
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(x0, w0 + vf, 1.0)?);
    let law = NonsmoothLaw::newton_impact(E)?;
    if moving {
        nsds.link(moving_floor(true)?, law, &[b])?;
    } else {
        nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, law, &[b])?;
    }
    let grid = TimeDiscretisation::new(0.0, 0.01, t_end)?;
    let mut sim = EventDriven::new(nsds, grid, LsodarSmooth::siconos(), EventDrivenOptions::default())?;
    let mut rows = Vec::new();
    while sim.has_next_event() {
        let Some(report) = sim.step()? else { break };
        let (x, v) = sim.with_nsds(|n| -> Result<_, KernelError> {
            let s = n.ds(b)?.state();
            Ok((s.q()[0], s.v()[0]))
        })?;
        rows.push((report.time, x - vf * report.time, v - vf, report.impact, report.index_sets.0, report.index_sets.1));
    }
    Ok(rows)
}

#[test]
fn moving_floor_gives_the_fixed_floor_relative_motion() -> Result<(), KernelError> {
    let fixed = run(false, 0.5, 0.3, 2.0)?;
    let moving = run(true, 0.5, 0.3, 2.0)?;
    assert_eq!(fixed.len(), moving.len(), "same events");
    let impacts = fixed.iter().filter(|r| r.3).count();
    assert!(impacts >= 20, "{impacts} impacts");
    assert!(fixed.last().is_some_and(|r| r.5 == 1), "the ball ends at rest on the floor");
    // Every event agrees to 1e-12 except the impacts at the end of the accumulation (flights
    // shorter than 1e-3): there the rounding of `x − v_f t` (1e-16) is amplified by each
    // ever-shorter flight, and the impact times and velocities agree only to 1e-8.
    let (mut worst, mut worst_cascade, mut last_impact): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for (a, b) in fixed.iter().zip(&moving) {
        assert_eq!((a.3, a.4, a.5), (b.3, b.4, b.5), "same event kinds at t = {}", a.0);
        let d = (a.0 - b.0).abs().max((a.1 - b.1).abs()).max((a.2 - b.2).abs());
        if a.3 && a.0 - last_impact < 1e-3 {
            worst_cascade = worst_cascade.max(d);
        } else {
            worst = worst.max(d);
        }
        if a.3 {
            last_impact = a.0;
        }
    }
    eprintln!("{impacts} impacts; largest difference {worst:e}, in the accumulation {worst_cascade:e}");
    assert!(worst <= 1e-12, "largest difference {worst:e}");
    assert!(worst_cascade <= 1e-8, "largest difference in the accumulation {worst_cascade:e}");
    Ok(())
}

#[test]
fn moving_floor_impacts_follow_the_relative_restitution_law() -> Result<(), KernelError> {
    // v⁺ − v_f = −e (v⁻ − v_f) at each impact, in the floor's frame.
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(0.5, V_FLOOR, 1.0)?);
    nsds.link(moving_floor(true)?, NonsmoothLaw::newton_impact(E)?, &[b])?;
    let grid = TimeDiscretisation::new(0.0, 0.05, 0.9)?;
    let mut sim = EventDriven::new(nsds, grid, LsodarSmooth::siconos(), EventDrivenOptions::default())?;
    let mut checked = 0;
    while sim.has_next_event() {
        let Some(report) = sim.step()? else { break };
        if report.impact {
            let (_, pre_v) = sim.pre_impact_state(b)?;
            let post_v = sim.with_nsds(|n| n.ds(b).map(|d| d.state().v()[0]))?;
            let expected = V_FLOOR - E * (pre_v[0] - V_FLOOR);
            assert!((post_v - expected).abs() <= 1e-12, "{post_v} vs {expected}");
            checked += 1;
        }
    }
    assert!(checked >= 1, "no impact");
    Ok(())
}

#[test]
fn resting_on_a_rheonomous_floor_needs_its_second_derivative() -> Result<(), KernelError> {
    // The ball starts at rest on the floor (relative to it): I_2 at t₀, acceleration problem.
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(0.0, V_FLOOR, 1.0)?);
    nsds.link(moving_floor(false)?, NonsmoothLaw::newton_impact(E)?, &[b])?;
    let grid = TimeDiscretisation::new(0.0, 0.05, 0.2)?;
    let err = EventDriven::new(nsds, grid, LsodarSmooth::siconos(), EventDrivenOptions::default())
        .expect_err("the acceleration problem at t0 cannot be formed");
    assert!(matches!(err, KernelError::InvalidModel(_)), "{err:?}");
    Ok(())
}

/// Simultaneous impacts: two balls (masses 1 and 2) dropped from the same height hit the floor
/// at the same instant; one nonsmooth event solves the 2×2 impact LCP and both rebound with
/// `v⁺ = −e v⁻` at the ballistic time.
#[test]
fn simultaneous_impacts_are_solved_in_one_event() -> Result<(), KernelError> {
    let mut nsds = Nsds::new();
    let a = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    let b = nsds.add_ds(ball(1.0, 0.0, 2.0)?);
    let floor = || LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]]);
    nsds.link(floor()?, NonsmoothLaw::newton_impact(E)?, &[a])?;
    nsds.link(floor()?, NonsmoothLaw::newton_impact(E)?, &[b])?;
    let grid = TimeDiscretisation::new(0.0, 0.01, 0.6)?;
    let mut sim = EventDriven::new(nsds, grid, LsodarSmooth::siconos(), EventDrivenOptions::default())?;
    let t_impact = (2.0 / crate::G).sqrt();
    let mut impacts = Vec::new();
    while sim.has_next_event() {
        sim.advance_to_event()?;
        if let Some(report) = sim.process_events()?
            && report.impact
        {
            let v = sim.with_nsds(|n| -> Result<(f64, f64), KernelError> {
                Ok((n.ds(a)?.state().v()[0], n.ds(b)?.state().v()[0]))
            })?;
            let pre = (sim.pre_impact_state(a)?.1[0], sim.pre_impact_state(b)?.1[0]);
            impacts.push((report.time, report.index_sets.0, pre, v));
        }
    }
    assert_eq!(impacts.len(), 1, "one event for both impacts: {impacts:?}");
    let (t, in_i1, (pre_a, pre_b), (va, vb)) = impacts[0];
    assert!((t - t_impact).abs() <= 1e-12, "{impacts:?}");
    assert_eq!(in_i1, 2, "both contacts in I_1");
    assert!((pre_a + crate::G * t_impact).abs() <= 1e-12 && (pre_b + crate::G * t_impact).abs() <= 1e-12);
    assert!((va + E * pre_a).abs() <= 1e-12 && (vb + E * pre_b).abs() <= 1e-12, "{impacts:?}");
    Ok(())
}

/// A ball resting on the floor at `t0`: its contact force `λ[2] = m g` is known before the
/// first event, and the floor holds it there (zero acceleration).
#[test]
fn the_contact_force_of_a_resting_ball_is_known_at_t0() -> Result<(), KernelError> {
    let m = 2.5;
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(0.0, 0.0, m)?);
    let contact =
        nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(E)?, &[b])?;
    let grid = TimeDiscretisation::new(0.0, 0.01, 0.05)?;
    let sim = EventDriven::new(nsds, grid, LsodarSmooth::siconos(), EventDrivenOptions::default())?;
    let lambda = sim.multiplier(contact, 2)?[0];
    assert!((lambda - m * crate::G).abs() <= 1e-12 * m * crate::G, "λ[2] at t0: {lambda}");
    assert!(sim.acceleration(b)?[0].abs() <= 1e-12, "q̈ at t0: {:?}", &*sim.acceleration(b)?);
    Ok(())
}

/// LSODAR's counters add up over the restarts of a run with impacts; an integrator that keeps
/// none reports none.
#[test]
fn the_integration_totals_add_up_over_the_restarts() -> Result<(), KernelError> {
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(E)?, &[b])?;
    let grid = TimeDiscretisation::new(0.0, 0.01, 3.0)?;
    let mut sim = EventDriven::new(nsds, grid, LsodarSmooth::siconos(), EventDrivenOptions::default())?;
    let mut last_steps = 0;
    let mut impacts = 0;
    while sim.has_next_event() {
        let Some(report) = sim.step()? else { break };
        let totals = sim.integration_totals().expect("LSODAR keeps its counters");
        assert!(totals.steps >= last_steps, "totals never decrease");
        if report.impact {
            impacts += 1;
        }
        last_steps = totals.steps;
    }
    let totals = sim.integration_totals().expect("LSODAR keeps its counters");
    assert!(impacts >= 3 && totals.calls >= 250 && totals.steps > 0, "{totals:?}");
    assert!(totals.f_evaluations > totals.steps, "{totals:?}");
    assert_eq!((totals.switches, totals.bdf_calls, totals.first_bdf), (0, 0, None), "a free flight stays on Adams");

    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(E)?, &[b])?;
    let ode = nonsmooth_kernel::simulation::RestartingOde::new(nonsmooth_kernel::simulation::OdeOptions::default())?;
    let sim = EventDriven::new(nsds, TimeDiscretisation::new(0.0, 0.01, 0.1)?, ode, EventDrivenOptions::default())?;
    assert!(sim.integration_totals().is_none());
    Ok(())
}
