//! The Schatzman–Paoli scheme on nonlinear Lagrangian systems (the Newton linearization of the
//! Siconos developer documentation; Siconos 4.4 has the linear case only): it reduces to the linear scheme when
//! `M` and `F` are constant, conserves a pendulum's energy to second order and converges at
//! order 2 in free motion, and keeps the unilateral law at position level.

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{LagrangianDs, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth_kernel::simulation::{
    OneStepNsProblem, SchatzmanPaoliOptions, SchatzmanPaoliOsi, SchatzmanPaoliStartup, TimeDiscretisation,
    TimeStepping, TimeSteppingOptions,
};

use crate::{G, ball, ball_mass};

fn sp(startup: SchatzmanPaoliStartup) -> Result<SchatzmanPaoliOsi, KernelError> {
    SchatzmanPaoliOsi::new(SchatzmanPaoliOptions::default().with_startup(startup))
}

/// The bouncing ball as a `LagrangianDs` (constant `M`, constant `F_ext`: the Newton path)
/// and as a `LagrangianLinearTids` (the linear path) give the same trajectory to round-off.
#[test]
fn the_nonlinear_path_reduces_to_the_linear_scheme() -> Result<(), KernelError> {
    let run = |nonlinear: bool| -> Result<Vec<[f64; 2]>, KernelError> {
        let mut nsds = Nsds::new();
        let d = if nonlinear {
            nsds.add_ds(
                LagrangianDs::new(vec![1.0, 0.0, 0.0], vec![0.0; 3], ball_mass(1.0))?
                    .with_external_force(vec![-G, 0.0, 0.0])?,
            )
        } else {
            nsds.add_ds(ball(1.0, 0.0, 1.0)?)
        };
        nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(0.9)?, &[d])?;
        let mut sim = TimeStepping::new(
            nsds,
            sp(SchatzmanPaoliStartup::Taylor)?,
            OneStepNsProblem::lcp_default()?,
            TimeDiscretisation::new(0.0, 5e-3, 3.0)?,
            TimeSteppingOptions::default().with_newton_tolerance(1e-12),
        )?;
        let mut rows = Vec::new();
        while sim.has_next_step() {
            let report = sim.step()?;
            assert!(report.newton_converged);
            let s = sim.nsds().ds(d)?.state();
            rows.push([s.q()[0], s.v()[0]]);
        }
        Ok(rows)
    };
    let (linear, nonlinear) = (run(false)?, run(true)?);
    let diff =
        linear.iter().zip(&nonlinear).map(|(a, b)| (a[0] - b[0]).abs().max((a[1] - b[1]).abs())).fold(0.0, f64::max);
    println!("Schatzman–Paoli ball, LagrangianDs against LagrangianLinearTids: max |difference| = {diff:e}");
    assert!(diff <= 1e-10, "{diff:e}");
    Ok(())
}

/// A pendulum in its angle (`m = 1`, `L = 1`: `θ̈ = −g sin θ`), released at 1 rad.
fn pendulum(theta0: f64) -> Result<LagrangianDs, KernelError> {
    Ok(LagrangianDs::new(vec![theta0], vec![0.0], Mat::identity(1, 1))?.with_internal_forces(
        |_, q, _, out| out[0] = G * q[0].sin(),
        |_, q, _, out| out[(0, 0)] = G * q[0].cos(),
        |_, _, _, _| {},
    ))
}

fn pendulum_energy(q: f64, v: f64) -> f64 {
    0.5 * v * v - G * q.cos()
}

/// Free swings, with the energy of `(q_k, v_{k+1})`: the centred velocity
/// `v_{k+1} = (q_{k+1} − q_{k−1})/(2h)` approximates `v(t_k)`. With θ = 0 (forces at `q_k`,
/// Störmer–Verlet) the angle at `t = 2` converges at order 2 (Taylor start-up) against a run with
/// `h/16` and the energy error is `O(h²)`; with θ = 1/2 the forces at `(q_{k+1} + q_k)/2` lag the
/// centred difference by half a step: order 1 (the documented θ-scheme, which Siconos 4.4 follows for
/// its stiffness term).
#[test]
fn free_pendulum_orders() -> Result<(), KernelError> {
    let run = |h: f64, theta: f64| -> Result<(f64, f64), KernelError> {
        let mut nsds = Nsds::new();
        let d = nsds.add_ds(pendulum(1.0)?);
        let osi = SchatzmanPaoliOsi::new(
            SchatzmanPaoliOptions::default().with_theta(theta).with_startup(SchatzmanPaoliStartup::Taylor),
        )?;
        let mut sim = TimeStepping::new(
            nsds,
            osi,
            OneStepNsProblem::lcp_default()?,
            TimeDiscretisation::new(0.0, h, 2.0)?,
            TimeSteppingOptions::default().with_newton_tolerance(1e-10),
        )?;
        let e0 = pendulum_energy(1.0, 0.0);
        let mut drift = 0.0f64;
        let mut q_prev = 1.0;
        while sim.has_next_step() {
            let report = sim.step()?;
            assert!(report.newton_converged && report.newton_iterations <= 4, "{report:?}");
            let s = sim.nsds().ds(d)?.state();
            drift = drift.max((pendulum_energy(q_prev, s.v()[0]) - e0).abs());
            q_prev = s.q()[0];
        }
        Ok((sim.nsds().ds(d)?.state().q()[0], drift))
    };
    for (theta, order) in [(0.0, 4.0), (0.5, 2.0)] {
        let (reference, _) = run(1e-3 / 16.0, theta)?;
        let (mut errors, mut drifts) = (Vec::new(), Vec::new());
        for h in [4e-3, 2e-3, 1e-3] {
            let (q, drift) = run(h, theta)?;
            errors.push((q - reference).abs());
            drifts.push(drift);
        }
        println!("pendulum θ = {theta}: |q(2) − q_ref| = {errors:?}, max |E − E0| = {drifts:?}");
        for k in 0..2 {
            let (re, rd) = (errors[k] / errors[k + 1], drifts[k] / drifts[k + 1]);
            assert!((0.75 * order..=1.3 * order).contains(&re), "θ = {theta}: error ratio {re}");
            assert!((0.75 * order..=1.3 * order).contains(&rd), "θ = {theta}: energy ratio {rd}");
        }
    }
    Ok(())
}

/// The pendulum swinging against a wall at `θ = −0.5` (`y = θ + 0.5 ≥ 0`, `e = 0.5`): the
/// position-level law keeps `y_{k+1} + e y_{k−1} ≥ 0` at every step (with equality when the
/// impulse is positive), the energy never grows, and the impacts take it below the wall's
/// level: the pendulum ends swinging freely without reaching the wall.
#[test]
fn pendulum_against_a_wall_loses_energy_at_impacts() -> Result<(), KernelError> {
    let (h, e) = (1e-3, 0.5);
    let mut nsds = Nsds::new();
    let d = nsds.add_ds(pendulum(1.0)?);
    let wall = nsds.link(
        LagrangianLinearTir::new(faer::mat![[1.0]])?.with_offset(vec![0.5])?,
        NonsmoothLaw::newton_impact(e)?,
        &[d],
    )?;
    let mut sim = TimeStepping::new(
        nsds,
        sp(SchatzmanPaoliStartup::Taylor)?,
        OneStepNsProblem::lcp_default()?,
        TimeDiscretisation::new(0.0, h, 20.0)?,
        TimeSteppingOptions::default().with_newton_tolerance(1e-12),
    )?;
    let e0 = pendulum_energy(1.0, 0.0);
    let (mut y_prev, mut y) = (1.5, 1.5);
    let (mut max_e, mut impacts) = (f64::NEG_INFINITY, 0);
    while sim.has_next_step() {
        sim.step()?;
        let inter = sim.nsds().interaction(wall)?;
        let y_next = inter.y(0)[0];
        if inter.lambda(0)[0] > 0.0 {
            impacts += 1;
            assert!((y_next + e * y_prev).abs() <= 1e-9, "active law: {y_next} + e {y_prev}");
        } else {
            assert!(y_next + e * y_prev >= -1e-9);
        }
        (y_prev, y) = (y, y_next);
        let s = sim.nsds().ds(d)?.state();
        max_e = max_e.max(pendulum_energy(s.q()[0], s.v()[0]));
    }
    let ds = sim.nsds().ds(d)?;
    let final_e = pendulum_energy(ds.state().q()[0], ds.state().v()[0]);
    println!("pendulum against a wall: {impacts} contact steps, max E − E0 = {:e}, final E = {final_e}", max_e - e0);
    assert!(impacts >= 4, "{impacts} contact steps");
    assert!(max_e <= e0 + 1e-4, "no energy gain beyond the O(h²) of the free swing");
    assert!(final_e < pendulum_energy(-0.5, 0.0) && y > 0.0, "swings below the wall's level");
    Ok(())
}
