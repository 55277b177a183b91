//! The global Moreau–Jean scheme (`MoreauJeanGlobalOsi` with `GlobalFrictionContact`, Siconos'
//! `MoreauJeanGOSI` with `GlobalFrictionContact`) solves the same problem as Moreau–Jean with the
//! local frictional-contact problem, whose unknowns are the impulses alone (the global problem's
//! velocities eliminated): the trajectories agree to round-off, in 3D and 2D, for linear and
//! nonlinear Lagrangian systems. Models it cannot take are typed errors.

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{
    DsId, FirstOrderLinearDs, InteractionId, LagrangianDs, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw,
    Nsds, SecondOrderDs,
};
use nonsmooth_kernel::numerics::fc::nsgs::NsgsOptions;
use nonsmooth_kernel::numerics::fc::nsgs2d::Nsgs2dOptions;
use nonsmooth_kernel::numerics::fc::{Fc2dMethod, Fc3dMethod};
use nonsmooth_kernel::numerics::gfc::{
    AdmmOptions, AdmmSolver, GlobalFcOptions, GlobalNsnAcOptions, GlobalNsnAcSolver,
};
use nonsmooth_kernel::simulation::{
    GlobalFrictionContact, MoreauJeanGlobalOsi, MoreauJeanOsi, NonConvergencePolicy, OneStepIntegrator,
    OneStepNsProblem, OneStepProblem, ProblemLevel, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};

use crate::{G, ball, ball_mass};

const TOLERANCE: f64 = 1e-10;

/// A ball of `BouncingBallTS` thrown sideways onto the ground (`x` vertical, `y` horizontal):
/// contact rows normal `x`, tangents `y` (and the angle `θ` for a 3D contact, a fixed second
/// tangent), restitution `e_n = 0.5`, friction `μ = 0.3`; the ball is `ds` (any second-order
/// model of `q = (x, y, θ)`).
fn thrown_ball(ds: impl SecondOrderDs + 'static, dimension: usize) -> Result<(Nsds, DsId, InteractionId), KernelError> {
    let mut nsds = Nsds::new();
    let ball = nsds.add_ds(ds);
    let h = Mat::from_fn(dimension, 3, |i, j| if i == j { 1.0 } else { 0.0 });
    let law = NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, dimension)?;
    let contact = nsds.link(LagrangianLinearTir::new(h)?, law, &[ball])?;
    Ok((nsds, ball, contact))
}

/// Runs `sim` to its end and returns the rows `q, v, p(1), λ(1)` of the ball and the contact
/// after each step, with the number of steps with a contact impulse (`λ_N > 1e-12`).
fn run(mut sim: TimeStepping, ball: DsId, contact: InteractionId) -> Result<(Vec<Vec<f64>>, usize), KernelError> {
    let mut rows = Vec::new();
    let mut impulses = 0;
    while sim.has_next_step() {
        let report = sim.step()?;
        assert!(report.solver().is_none_or(|r| r.is_converged()), "{report:?}");
        let state = sim.nsds().ds(ball)?.state();
        let lambda = sim.nsds().interaction(contact)?.lambda(1);
        impulses += usize::from(lambda[0].abs() > 1e-12);
        rows.push([state.q(), state.v(), state.p(1), lambda].concat());
    }
    Ok((rows, impulses))
}

fn max_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).flat_map(|(ra, rb)| ra.iter().zip(rb).map(|(x, y)| (x - y).abs())).fold(0.0, f64::max)
}

fn grid() -> Result<TimeDiscretisation, KernelError> {
    TimeDiscretisation::new(0.0, 1e-3, 1.5)
}

fn global(dimension: usize) -> Result<GlobalFrictionContact, KernelError> {
    GlobalFrictionContact::condensed(dimension, GlobalFcOptions::default().with_tolerance(TOLERANCE))
}

fn local(dimension: usize) -> Result<OneStepNsProblem, KernelError> {
    if dimension == 3 {
        let nsgs = NsgsOptions::default().with_tolerance(TOLERANCE).with_max_iterations(10_000);
        OneStepNsProblem::friction_contact_3d(Fc3dMethod::Nsgs(nsgs))
    } else {
        let nsgs = Nsgs2dOptions::default().with_tolerance(TOLERANCE).with_max_iterations(10_000);
        OneStepNsProblem::friction_contact_2d(Fc2dMethod::Nsgs(nsgs))
    }
}

/// The same model under both schemes: the maximum difference of the rows and the number of
/// steps with an impulse.
fn compare(make: impl Fn() -> Result<(Nsds, DsId, InteractionId), KernelError>, dimension: usize) -> (f64, usize) {
    compare_with(make, global(dimension).expect("valid problem"), dimension)
}

/// As [`compare`], with the global problem `problem`.
fn compare_with(
    make: impl Fn() -> Result<(Nsds, DsId, InteractionId), KernelError>,
    problem: GlobalFrictionContact,
    dimension: usize,
) -> (f64, usize) {
    let (nsds, ball, contact) = make().expect("valid model");
    let sim = TimeStepping::new(
        nsds,
        MoreauJeanGlobalOsi::with_theta(0.5).expect("valid theta"),
        problem,
        grid().expect("valid grid"),
        TimeSteppingOptions::default(),
    )
    .expect("valid simulation");
    let (ours, impulses) = run(sim, ball, contact).expect("the global scheme runs");
    let (nsds, ball, contact) = make().expect("valid model");
    let sim = TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5).expect("valid theta"),
        local(dimension).expect("valid problem"),
        grid().expect("valid grid"),
        TimeSteppingOptions::default(),
    )
    .expect("valid simulation");
    let (reference, local_impulses) = run(sim, ball, contact).expect("the local scheme runs");
    assert_eq!(impulses, local_impulses);
    (max_difference(&ours, &reference), impulses)
}

/// A ball of `BouncingBallTS` (mass 1.3: not a power of two, so that `W⁻¹ (W v)` need not be
/// `v` exactly) dropped from `x = 0.1` with the sideways velocity 2.
fn linear_ball() -> Result<LagrangianLinearTids, KernelError> {
    const M: f64 = 1.3;
    LagrangianLinearTids::new(vec![0.1, 0.0, 0.0], vec![0.0, 2.0, 0.0], ball_mass(M))?.with_external_force(vec![
        -M * G,
        0.0,
        0.0,
    ])
}

/// The same ball as a nonlinear `LagrangianDs`, with the quadratic air drag
/// `F_int = −c |v| v` (c = 0.5) and its Jacobian `∂F/∂v = −c (|v| I + v vᵀ/|v|)`.
fn dragged_ball() -> Result<LagrangianDs, KernelError> {
    const C: f64 = 0.5;
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    Ok(LagrangianDs::new(vec![0.1, 0.0, 0.0], vec![0.0, 2.0, 0.0], ball_mass(1.0))?
        .with_external_force(vec![-G, 0.0, 0.0])?
        .with_internal_forces(
            move |_t, _q, v, f| {
                let n = norm(v);
                for (fi, vi) in f.iter_mut().zip(v) {
                    *fi = -C * n * vi;
                }
            },
            |_t, _q, _v, j| j.fill(0.0),
            move |_t, _q, v, j| {
                let n = norm(v);
                for r in 0..v.len() {
                    for c in 0..v.len() {
                        let identity = if r == c { n } else { 0.0 };
                        let outer = if n > 0.0 { v[r] * v[c] / n } else { 0.0 };
                        j[(r, c)] = -C * (identity + outer);
                    }
                }
            },
        ))
}

#[test]
fn a_ball_bouncing_on_the_ground_follows_the_local_scheme_in_3d_and_2d() {
    for dimension in [3, 2] {
        let (difference, impulses) = compare(|| thrown_ball(linear_ball()?, dimension), dimension);
        println!("linear ball, {dimension}D contact: max |global − local| = {difference:e}, {impulses} impulses");
        assert!(impulses > 100, "the ball bounces and comes to rest on the ground: {impulses}");
        assert!(difference <= 1e-12, "{dimension}D: max |difference| = {difference:e}");
    }
}

/// The solvers on the global form itself (the Alart–Curnier Newton and ADMM) give the trajectory
/// of the condensation at their tolerance, and refuse 2D problems when the problem is built.
#[test]
fn the_native_global_solvers_follow_the_local_scheme() {
    let newton = GlobalNsnAcSolver::new(GlobalNsnAcOptions::default().with_tolerance(1e-12)).expect("valid options");
    let problem = GlobalFrictionContact::new(3, newton).expect("3D");
    let (difference, impulses) = compare_with(|| thrown_ball(linear_ball()?, 3), problem, 3);
    println!("global NSN-AC: max |global − local| = {difference:e}, {impulses} impulses");
    assert!(impulses > 100, "{impulses}");
    assert!(difference <= 1e-9, "global NSN-AC: max |difference| = {difference:e}");

    let admm = AdmmSolver::new(AdmmOptions::default().with_tolerance(1e-12).with_max_iterations(100_000))
        .expect("valid options");
    let problem = GlobalFrictionContact::new(3, admm).expect("3D");
    let (difference, impulses) = compare_with(|| thrown_ball(linear_ball()?, 3), problem, 3);
    println!("ADMM: max |global − local| = {difference:e}, {impulses} impulses");
    assert!(impulses > 100, "{impulses}");
    assert!(difference <= 1e-9, "ADMM: max |difference| = {difference:e}");

    let newton = GlobalNsnAcSolver::new(GlobalNsnAcOptions::default()).expect("valid options");
    assert!(matches!(GlobalFrictionContact::new(2, newton), Err(KernelError::InvalidOption { .. })));
    let admm = AdmmSolver::new(AdmmOptions::default()).expect("valid options");
    assert!(matches!(GlobalFrictionContact::new(2, admm), Err(KernelError::InvalidOption { .. })));
}

#[test]
fn a_nonlinear_lagrangian_ball_follows_the_local_scheme() {
    let (difference, impulses) = compare(|| thrown_ball(dragged_ball()?, 3), 3);
    println!("dragged ball: max |global − local| = {difference:e}, {impulses} impulses");
    assert!(impulses > 100, "{impulses}");
    assert!(difference <= 1e-12, "max |difference| = {difference:e}");
}

#[test]
fn unsupported_models_are_typed_errors() -> Result<(), KernelError> {
    let options = TimeSteppingOptions::default;
    // A first-order system.
    let mut nsds = Nsds::new();
    nsds.add_first_order_ds(FirstOrderLinearDs::new(vec![1.0, 0.0], faer::mat![[0.0, 1.0], [-1.0, 0.0]])?);
    let r = TimeStepping::new(nsds, MoreauJeanGlobalOsi::with_theta(0.5)?, global(3)?, grid()?, options());
    assert!(matches!(r, Err(KernelError::InvalidModel(ref m)) if m.contains("first-order")), "{:?}", r.err());
    // A frictionless Newton impact law, and a contact of the wrong dimension.
    for (law, m) in
        [(NonsmoothLaw::newton_impact(0.9)?, 1), (NonsmoothLaw::newton_impact_friction(0.9, 0.0, 0.3, 2)?, 2)]
    {
        let mut nsds = Nsds::new();
        let b = nsds.add_ds(ball(0.5, 0.0, 1.0)?);
        let h = Mat::from_fn(m, 3, |i, j| if i == j { 1.0 } else { 0.0 });
        nsds.link(LagrangianLinearTir::new(h)?, law, &[b])?;
        let r = TimeStepping::new(nsds, MoreauJeanGlobalOsi::with_theta(0.5)?, global(3)?, grid()?, options());
        assert!(matches!(r, Err(KernelError::InvalidModel(_))), "{law:?}: {:?}", r.err());
    }
    // A problem dimension other than 2 or 3, and θ outside [0, 1].
    let r = GlobalFrictionContact::condensed(4, GlobalFcOptions::default());
    assert!(matches!(r, Err(KernelError::InvalidOption { name: "dimension", .. })), "{:?}", r.err());
    let r = MoreauJeanGlobalOsi::with_theta(1.5);
    assert!(matches!(r, Err(KernelError::InvalidOption { name: "theta", .. })), "{:?}", r.err());
    // The global scheme with a local problem (each belongs at its own level), and the global
    // problem with the local scheme: the step is refused before any state changes.
    let (nsds, ..) = thrown_ball(linear_ball()?, 3)?;
    let mut sim = TimeStepping::builder(nsds, grid()?)
        .integrator_of_all(MoreauJeanGlobalOsi::with_theta(0.5)?)
        .problem(ProblemLevel::GlobalVelocity, local(3)?)
        .build()?;
    let mut refused = None;
    while sim.has_next_step() && refused.is_none() {
        refused = sim.step().err();
    }
    assert!(matches!(refused, Some(KernelError::InvalidModel(_))), "{refused:?}");
    let mut problem = global(3)?;
    let (mut nsds, _, contact) = thrown_ball(linear_ball()?, 3)?;
    let osi = MoreauJeanOsi::with_theta(0.5)?;
    let r = problem.compute(&mut nsds, osi.contribution(), &[contact], 0.0, true, ProblemLevel::GlobalVelocity);
    assert!(matches!(r, Err(KernelError::InvalidModel(ref m)) if m.contains("iteration matrix")), "{r:?}");
    let r = problem.compute(&mut nsds, osi.contribution(), &[contact], 0.0, true, ProblemLevel::Velocity);
    assert!(matches!(r, Err(KernelError::InvalidModel(_))), "{r:?}");
    Ok(())
}

/// A global problem that stops early says so: its report reaches each step's `StepReport`, the
/// run summary counts the steps (policy `Continue`), and the default policy stops the run at the
/// first one.
#[test]
fn unconverged_global_problems_are_reported_and_counted() -> Result<(), KernelError> {
    // One NSGS sweep towards an unreachable tolerance.
    let starved = || {
        let nsgs = NsgsOptions::default().with_max_iterations(1);
        let options = GlobalFcOptions::default().with_tolerance(1e-300).with_fc3d_method(Fc3dMethod::Nsgs(nsgs));
        GlobalFrictionContact::condensed(3, options.with_max_refinements(0))
    };
    let (nsds, ..) = thrown_ball(linear_ball()?, 3)?;
    let options = TimeSteppingOptions::default().with_policy(NonConvergencePolicy::Continue);
    let mut sim = TimeStepping::new(nsds, MoreauJeanGlobalOsi::with_theta(0.5)?, starved()?, grid()?, options)?;
    let mut unconverged = 0;
    while sim.has_next_step() {
        let report = sim.step()?;
        if let Some(solver) = report.solver() {
            // Some steps are solved exactly (error 0) by the one sweep; the others say they
            // stopped early.
            assert!(solver.is_converged() == (solver.residual <= 1e-300), "{solver:?}");
            unconverged += usize::from(!solver.is_converged());
        }
    }
    assert!(unconverged > 100, "{unconverged}");
    assert_eq!(sim.run_summary().unconverged, unconverged);
    let (nsds, ..) = thrown_ball(linear_ball()?, 3)?;
    let mut sim = TimeStepping::new(
        nsds,
        MoreauJeanGlobalOsi::with_theta(0.5)?,
        starved()?,
        grid()?,
        TimeSteppingOptions::default(),
    )?;
    let mut stopped = None;
    while sim.has_next_step() && stopped.is_none() {
        stopped = sim.step().err();
    }
    assert!(matches!(stopped, Some(KernelError::NotConverged { .. })), "{stopped:?}");
    Ok(())
}
