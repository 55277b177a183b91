//! The mixed mechanical one-step problem (Siconos' `GenericMechanical`) in time-stepping: on a
//! model with equality and unilateral rows it follows the MLCP problem's trajectory, on a
//! frictional model the FC3D problem's (each to the solvers' tolerances); laws it cannot hold
//! are refused, and steps whose problem stops early are counted by the run summary.

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{DsId, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth_kernel::numerics::fc::Fc3dMethod;
use nonsmooth_kernel::numerics::gmp::GmpNsgsOptions;
use nonsmooth_kernel::numerics::mlcp::{EnumOptions, MlcpMethod};
use nonsmooth_kernel::simulation::{
    MoreauJeanOsi, NonConvergencePolicy, OneStepNsProblem, OsnsKind, TimeDiscretisation, TimeStepping,
    TimeSteppingOptions,
};

use crate::{G, RADIUS, ball, ball_mass};

const H: f64 = 1e-3;

/// A ball of mass `m` at `(x, y)` with velocity `(vx, vy)`, under gravity along `−x`.
fn moving_ball(x: f64, y: f64, vx: f64, vy: f64, m: f64) -> Result<LagrangianLinearTids, KernelError> {
    LagrangianLinearTids::new(vec![x, y, 0.0], vec![vx, vy, 0.0], ball_mass(m))?.with_external_force(vec![
        -m * G,
        0.0,
        0.0,
    ])
}

/// Two balls held at distance `0.3` along both `x` and `y` by a two-row equality (a rigid
/// rod, `x₂ − x₁ − 0.3 = 0`, `y₂ − y₁ = 0`), the lower one bouncing on the floor `x ≥ R`
/// (`e = 0.5`), and a third ball in a corner (`x ≥ R`, `y ≥ −1 + R`: one Newton impact law on
/// two rows, `e = 0.3`) thrown towards it. Returns the model and its systems.
fn rod_and_corner() -> Result<(Nsds, Vec<DsId>), KernelError> {
    let mut nsds = Nsds::new();
    let b1 = nsds.add_ds(moving_ball(0.5, 0.0, 0.0, 0.4, 1.0)?);
    let b2 = nsds.add_ds(moving_ball(0.8, 0.0, 0.0, 0.4, 2.0)?);
    let b3 = nsds.add_ds(moving_ball(0.3, 0.0, 0.0, -2.0, 1.0)?);
    nsds.link(
        LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?.with_offset(vec![-RADIUS])?,
        NonsmoothLaw::newton_impact(0.5)?,
        &[b1],
    )?;
    nsds.link(
        LagrangianLinearTir::new(faer::mat![[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0, 1.0, 0.0]])?
            .with_offset(vec![-0.3, 0.0])?,
        NonsmoothLaw::equality(2)?,
        &[b1, b2],
    )?;
    nsds.link(
        LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])?
            .with_offset(vec![-RADIUS, 1.0 - RADIUS])?,
        NonsmoothLaw::newton_impact(0.3)?,
        &[b3],
    )?;
    Ok((nsds, vec![b1, b2, b3]))
}

/// Point masses `(x, y, z)` (`z` vertical, unit mass) stacked on the floor with friction
/// (`μ = 0.3`): the lower one on the floor, the upper one on the lower one (a contact between
/// two systems), sliding at different velocities, and a third one dropped onto the floor with
/// a tangential velocity (`e_n = 0.5`). Rows: normal, then the two tangents.
fn frictional_stack() -> Result<(Nsds, Vec<DsId>), KernelError> {
    let mut nsds = Nsds::new();
    let mass = |q: [f64; 3], v: [f64; 3]| -> Result<LagrangianLinearTids, KernelError> {
        LagrangianLinearTids::new(q.to_vec(), v.to_vec(), Mat::identity(3, 3))?.with_external_force(vec![0.0, 0.0, -G])
    };
    let lower = nsds.add_ds(mass([0.0, 0.0, 0.0], [1.0, 0.2, 0.0])?);
    let upper = nsds.add_ds(mass([0.0, 0.0, 1.0], [-0.5, 0.8, 0.0])?);
    let dropped = nsds.add_ds(mass([5.0, 0.0, 0.3], [0.5, -1.0, 0.0])?);
    let floor = || LagrangianLinearTir::new(faer::mat![[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    nsds.link(floor()?, NonsmoothLaw::newton_impact_friction(0.0, 0.0, 0.3, 3)?, &[lower])?;
    let on_top = LagrangianLinearTir::new(faer::mat![
        [0.0, 0.0, -1.0, 0.0, 0.0, 1.0],
        [-1.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        [0.0, -1.0, 0.0, 0.0, 1.0, 0.0]
    ])?
    .with_offset(vec![-1.0, 0.0, 0.0])?;
    nsds.link(on_top, NonsmoothLaw::newton_impact_friction(0.0, 0.0, 0.3, 3)?, &[lower, upper])?;
    nsds.link(floor()?, NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 3)?, &[dropped])?;
    Ok((nsds, vec![lower, upper, dropped]))
}

/// Runs `steps` steps of Moreau–Jean (`θ = ½`) with the problem `osns`; returns the states
/// `(q, v)` of `systems` after each step and the largest number of active interactions.
fn trajectory(
    nsds: Nsds,
    systems: &[DsId],
    osns: OneStepNsProblem,
    steps: usize,
) -> Result<(Vec<Vec<f64>>, usize), KernelError> {
    let mut sim = TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5)?,
        osns,
        TimeDiscretisation::new(0.0, H, 10.0)?,
        TimeSteppingOptions::default(),
    )?;
    let mut states = Vec::with_capacity(steps);
    let mut active = 0;
    for _ in 0..steps {
        let report = sim.step()?;
        assert!(report.converged(), "{report:?}");
        active = active.max(report.active);
        let mut state = Vec::new();
        for &d in systems {
            let s = sim.nsds().ds(d)?.state();
            state.extend_from_slice(s.q());
            state.extend_from_slice(s.v());
        }
        states.push(state);
    }
    assert!(sim.run_summary().all_converged());
    Ok((states, active))
}

/// The largest difference between two trajectories.
fn max_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    a.iter().zip(b).flat_map(|(x, y)| x.iter().zip(y).map(|(u, v)| (u - v).abs())).fold(0.0, f64::max)
}

fn mixed(tolerance: f64) -> Result<OneStepNsProblem, KernelError> {
    OneStepNsProblem::mixed(GmpNsgsOptions::default().with_tolerance(tolerance))
}

/// Equality and unilateral rows only: the mixed problem (equality blocks solved by LU,
/// complementarity blocks by the closed form or Lemke) and the MLCP (enumeration) solve the
/// same problem at every step, so the trajectories agree to the solvers' tolerances over
/// bounces of the rod's lower ball and of the ball in the corner. The block Gauss–Seidel is
/// asked for 1e-10 (it stalls near 2e-11 on the coupled rod rows at rest, where the
/// enumeration is exact).
#[test]
fn the_mixed_problem_follows_the_mlcp_on_equalities_and_impacts() -> Result<(), KernelError> {
    let steps = 1_500;
    let (nsds, systems) = rod_and_corner()?;
    let enumeration = MlcpMethod::Enum(EnumOptions::default().with_tolerance(1e-12));
    let (mlcp, active) = trajectory(nsds, &systems, OneStepNsProblem::mlcp(enumeration)?, steps)?;
    let (nsds, systems) = rod_and_corner()?;
    let (gmp, _) = trajectory(nsds, &systems, mixed(1e-10)?, steps)?;
    let difference = max_difference(&mlcp, &gmp);
    // The rod's lower ball has bounced: its velocity changed sign at least once.
    let bounced = mlcp.windows(2).any(|w| w[0][3] < 0.0 && w[1][3] > 0.0);
    println!("mixed vs MLCP: max difference {difference:.2e} over {steps} steps (up to {active} active)");
    assert!(bounced && active == 3, "the model reaches its contacts: bounced {bounced}, active {active}");
    assert!(difference <= 1e-9, "difference {difference:e}");
    Ok(())
}

/// Frictional contacts only (3D, one between two systems): the mixed problem's block
/// Gauss–Seidel with the exact one-contact solver and the FC3D NSGS agree to the tolerances.
#[test]
fn the_mixed_problem_follows_the_fc3d_problem_on_friction() -> Result<(), KernelError> {
    let steps = 1_000;
    let (nsds, systems) = frictional_stack()?;
    let fc3d = Fc3dMethod::from_name("nsgs", Some(1e-13), Some(10_000)).expect("known name");
    let (reference, active) = trajectory(nsds, &systems, OneStepNsProblem::friction_contact_3d(fc3d)?, steps)?;
    let (nsds, systems) = frictional_stack()?;
    let (gmp, _) = trajectory(nsds, &systems, mixed(1e-13)?, steps)?;
    let difference = max_difference(&reference, &gmp);
    // The lower mass slides, then sticks: its velocity along x ends at zero.
    let last = &reference[steps - 1];
    println!(
        "mixed vs FC3D: max difference {difference:.2e} over {steps} steps (up to {active} active), \
         final velocities {:?}",
        [last[3], last[4], last[9], last[10]]
    );
    assert!(active == 3, "active {active}");
    assert!(last[3].abs() <= 1e-9 && last[9].abs() <= 1e-9, "the stack sticks: {last:?}");
    assert!(difference <= 1e-9, "difference {difference:e}");
    Ok(())
}

/// Laws of first-order systems are refused when the simulation is built, naming the law.
#[test]
fn the_mixed_problem_refuses_laws_it_cannot_hold() -> Result<(), KernelError> {
    let problem = mixed(1e-8)?;
    assert_eq!(problem.kind(), OsnsKind::Mixed);
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(0.5, 0.0, 1.0)?);
    nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::complementarity(1)?, &[b])?;
    let built = TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5)?,
        problem,
        TimeDiscretisation::new(0.0, H, 1.0)?,
        TimeSteppingOptions::default(),
    );
    match built {
        Err(KernelError::InvalidModel(message)) => assert!(message.contains("Mixed"), "{message}"),
        other => panic!("expected InvalidModel, got {other:?}"),
    }
    Ok(())
}

/// One sweep is not enough for the rod's coupled rows: under `Continue` each such step goes on
/// with the solver's report saying so, and the run summary counts it.
#[test]
fn unconverged_mixed_steps_are_counted() -> Result<(), KernelError> {
    let (nsds, _) = rod_and_corner()?;
    let problem = OneStepNsProblem::mixed(GmpNsgsOptions::default().with_tolerance(1e-14).with_max_iterations(1))?;
    let mut sim = TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5)?,
        problem,
        TimeDiscretisation::new(0.0, H, 10.0)?,
        TimeSteppingOptions::default().with_policy(NonConvergencePolicy::Continue),
    )?;
    let mut missed = 0;
    for _ in 0..300 {
        let report = sim.step()?;
        missed += usize::from(report.solver().is_some_and(|r| !r.is_converged()));
    }
    let summary = sim.run_summary();
    println!("one sweep: {missed} of 300 steps unconverged, summary {summary:?}");
    assert!(missed > 0 && summary.unconverged == missed && !summary.all_converged());
    Ok(())
}
