//! Typed errors of the kernel: bad input is an `Err` with the exact `KernelError` variant,
//! detected when the model or the simulation is built. A running simulation raises by itself
//! only the non-convergence errors of its `NonConvergencePolicy` and, when a step leaves a NaN
//! or an infinity, `KernelError::NonFiniteState` (tested in `non_finite.rs`).

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{LagrangianDs, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth_kernel::numerics::fc::Fc2dMethod;
use nonsmooth_kernel::numerics::fc::nsgs2d::Nsgs2dOptions;
use nonsmooth_kernel::numerics::lcp::{LcpMethod, PgsOptions};
use nonsmooth_kernel::numerics::{NumericsError, SolverStatus};
use nonsmooth_kernel::simulation::{
    MoreauJeanOptions, MoreauJeanOsi, NonConvergencePolicy, OneStepNsProblem, TimeDiscretisation, TimeStepping,
    TimeSteppingOptions,
};

use crate::{G, RADIUS, ball, ball_mass};

/// The relation `y = x` of a ball on the ground at `x = 0`.
fn ground() -> Result<LagrangianLinearTir, KernelError> {
    LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])
}

/// The gap `y = x₂ − x₁ − 2R` between two stacked balls.
fn ball_on_ball() -> Result<LagrangianLinearTir, KernelError> {
    LagrangianLinearTir::new(faer::mat![[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0]])?.with_offset(vec![-2.0 * RADIUS])
}

/// A simulation of `nsds` with Moreau–Jean θ = 1/2 and the given problem and options.
fn simulation(nsds: Nsds, osns: OneStepNsProblem, options: TimeSteppingOptions) -> Result<TimeStepping, KernelError> {
    TimeStepping::new(nsds, MoreauJeanOsi::with_theta(0.5)?, osns, TimeDiscretisation::new(0.0, 1e-3, 0.1)?, options)
}

#[test]
fn mass_matrices_that_are_not_spd_are_refused() {
    let q0 = || vec![0.0; 2];
    let cases: [(&str, Mat<f64>); 4] = [
        ("non-symmetric", faer::mat![[1.0, 0.5], [0.0, 1.0]]),
        ("indefinite", faer::mat![[1.0, 2.0], [2.0, 1.0]]),
        ("singular", faer::mat![[1.0, 0.0], [0.0, 0.0]]),
        ("negative definite", faer::mat![[-1.0, 0.0], [0.0, -2.0]]),
    ];
    for (what, m) in cases {
        let tids = LagrangianLinearTids::new(q0(), q0(), m.clone());
        assert!(matches!(tids, Err(KernelError::NotPositiveDefinite { .. })), "{what}: {tids:?}");
        let ds = LagrangianDs::new(q0(), q0(), m.clone());
        assert!(matches!(ds, Err(KernelError::NotPositiveDefinite { .. })), "{what}: {:?}", ds.err());
        // A configuration-dependent mass is checked at q0.
        let with_fn = LagrangianDs::new(q0(), q0(), Mat::identity(2, 2))
            .and_then(|ds| ds.with_mass_fn(move |_q, out| out.copy_from(&m)));
        assert!(matches!(with_fn, Err(KernelError::NotPositiveDefinite { .. })), "{what}: {:?}", with_fn.err());
    }
    // A well-posed mass still passes, so the checks above are about the matrix.
    assert!(LagrangianLinearTids::new(q0(), q0(), faer::mat![[2.0, 1.0], [1.0, 2.0]]).is_ok());
}

#[test]
fn non_finite_data_is_refused() {
    let spd = || Mat::<f64>::identity(3, 3);
    let q_nan = LagrangianLinearTids::new(vec![f64::NAN, 0.0, 0.0], vec![0.0; 3], spd());
    assert!(matches!(q_nan, Err(KernelError::NonFinite { .. })), "{q_nan:?}");
    let v_inf = LagrangianDs::new(vec![0.0; 3], vec![0.0, f64::INFINITY, 0.0], spd());
    assert!(matches!(v_inf, Err(KernelError::NonFinite { .. })), "{:?}", v_inf.err());
    let mut m = spd();
    m[(1, 1)] = f64::NAN;
    let m_nan = LagrangianLinearTids::new(vec![0.0; 3], vec![0.0; 3], m);
    assert!(matches!(m_nan, Err(KernelError::NonFinite { .. })), "{m_nan:?}");
    let h_nan = LagrangianLinearTir::new(faer::mat![[1.0, f64::NAN, 0.0]]);
    assert!(matches!(h_nan, Err(KernelError::NonFinite { .. })), "{h_nan:?}");
    let b_nan = LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]]).and_then(|r| r.with_offset(vec![f64::NAN]));
    assert!(matches!(b_nan, Err(KernelError::NonFinite { .. })), "{b_nan:?}");
    let f_nan = ball(1.0, 0.0, 1.0).and_then(|b| b.with_external_force(vec![0.0, f64::NAN, 0.0]));
    assert!(matches!(f_nan, Err(KernelError::NonFinite { .. })), "{f_nan:?}");
}

#[test]
fn a_user_force_returning_nan_stops_the_step() -> Result<(), KernelError> {
    let mut nsds = Nsds::new();
    let b = ball(1.0, 0.0, 1.0)?.with_external_force_fn(|t, out| {
        out.fill(0.0);
        out[0] = if t > 0.0 { f64::NAN } else { -G };
    });
    let b = nsds.add_ds(b);
    nsds.link(ground()?, NonsmoothLaw::newton_impact(0.9)?, &[b])?;
    let mut sim = simulation(nsds, OneStepNsProblem::lcp_default()?, TimeSteppingOptions::default())?;
    let err = sim.step();
    assert!(matches!(err, Err(KernelError::NonFiniteCallback { what: "F_ext", .. })), "{err:?}");
    Ok(())
}

#[test]
fn dimension_mismatches_are_refused() -> Result<(), KernelError> {
    let mismatch =
        |r: Result<LagrangianLinearTids, KernelError>| matches!(r, Err(KernelError::DimensionMismatch { .. }));
    // q0 vs v0.
    let r = LagrangianLinearTids::new(vec![0.0; 3], vec![0.0; 2], ball_mass(1.0));
    assert!(mismatch(r));
    let r = LagrangianDs::new(vec![0.0; 2], vec![0.0; 3], Mat::identity(2, 2));
    assert!(matches!(r, Err(KernelError::DimensionMismatch { expected: 2, found: 3, .. })), "{:?}", r.err());
    // M of the wrong size, or not square.
    assert!(mismatch(LagrangianLinearTids::new(vec![0.0; 3], vec![0.0; 3], Mat::identity(2, 2))));
    assert!(mismatch(LagrangianLinearTids::new(vec![0.0; 3], vec![0.0; 3], Mat::identity(3, 2))));
    // Empty state.
    assert!(mismatch(LagrangianLinearTids::new(vec![], vec![], Mat::identity(0, 0))));
    // C, K, F_ext of the wrong size.
    assert!(mismatch(ball(1.0, 0.0, 1.0)?.with_damping(Mat::identity(2, 2))));
    assert!(mismatch(ball(1.0, 0.0, 1.0)?.with_stiffness(Mat::identity(4, 4))));
    assert!(mismatch(ball(1.0, 0.0, 1.0)?.with_external_force(vec![0.0; 2])));
    // Relation offset of the wrong size.
    let r = ground()?.with_offset(vec![0.0, 1.0]);
    assert!(matches!(r, Err(KernelError::DimensionMismatch { expected: 1, found: 2, .. })), "{r:?}");

    // H columns vs the velocity size of the linked systems.
    let mut nsds = Nsds::new();
    let b1 = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    let b2 = nsds.add_ds(ball(2.0, 0.0, 1.0)?);
    let two_columns = LagrangianLinearTir::new(faer::mat![[1.0, 0.0]])?;
    let r = nsds.link(two_columns, NonsmoothLaw::newton_impact(0.5)?, &[b1]);
    assert!(matches!(r, Err(KernelError::DimensionMismatch { expected: 3, found: 2, .. })), "{r:?}");
    // A 3-column H on two 3-dof systems.
    let r = nsds.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[b1, b2]);
    assert!(matches!(r, Err(KernelError::DimensionMismatch { expected: 6, found: 3, .. })), "{r:?}");
    // Law size vs relation size: a 2D friction law needs a 2-row relation.
    let friction = NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 2)?;
    let r = nsds.link(ground()?, friction, &[b1]);
    assert!(matches!(r, Err(KernelError::DimensionMismatch { expected: 1, found: 2, .. })), "{r:?}");
    let three_rows = LagrangianLinearTir::new(Mat::identity(3, 3))?;
    let r = nsds.link(three_rows, friction, &[b1]);
    assert!(matches!(r, Err(KernelError::DimensionMismatch { expected: 3, found: 2, .. })), "{r:?}");
    // Nothing was linked by the failed calls.
    assert_eq!(nsds.number_of_interactions(), 0);
    assert_eq!(nsds.ds_graph().edge_count(), 0);
    Ok(())
}

#[test]
fn handles_from_another_model_are_unknown() -> Result<(), KernelError> {
    let mut other = Nsds::new();
    other.add_ds(ball(1.0, 0.0, 1.0)?);
    let foreign_ds = other.add_ds(ball(2.0, 0.0, 1.0)?);
    let foreign_contact = other.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[foreign_ds])?;
    let foreign_contact = {
        // Index 1 in `other`, a slot `nsds` below never fills.
        let second = other.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[foreign_ds])?;
        assert_ne!(second, foreign_contact);
        second
    };

    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    let r = nsds.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[foreign_ds]);
    assert!(matches!(r, Err(KernelError::UnknownDs(1))), "{r:?}");
    let r = nsds.link(ball_on_ball()?, NonsmoothLaw::newton_impact(0.5)?, &[b, foreign_ds]);
    assert!(matches!(r, Err(KernelError::UnknownDs(1))), "{r:?}");
    assert!(matches!(nsds.ds(foreign_ds), Err(KernelError::UnknownDs(1))));
    assert!(matches!(nsds.ds_mut(foreign_ds), Err(KernelError::UnknownDs(1))));
    assert!(matches!(nsds.interactions_of(foreign_ds), Err(KernelError::UnknownDs(1))));

    // Unknown interactions: from another model, or already removed.
    let contact = nsds.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[b])?;
    let r = nsds.remove_interaction(foreign_contact);
    assert!(matches!(r, Err(KernelError::UnknownInteraction(1))), "{r:?}");
    assert!(matches!(nsds.interaction(foreign_contact), Err(KernelError::UnknownInteraction(1))));
    let removed = nsds.remove_interaction(contact)?;
    assert_eq!(removed.ds(), &[b]);
    let r = nsds.remove_interaction(contact);
    assert!(matches!(r, Err(KernelError::UnknownInteraction(0))), "{r:?}");
    // The freed slot is reused by the next link; the stale handle stays unknown.
    let reused = nsds.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[b])?;
    assert_eq!(reused.index(), contact.index());
    assert!(matches!(nsds.interaction(contact), Err(KernelError::UnknownInteraction(0))));
    assert!(nsds.interaction(reused).is_ok());
    // A system handle whose index exists in this model but belongs to another one.
    let other_first = other.ds_ids().next().expect("two systems");
    assert_eq!(other_first.index(), b.index());
    assert!(matches!(nsds.ds(other_first), Err(KernelError::UnknownDs(0))));

    // Zero, three, or twice the same system.
    let r = nsds.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[]);
    assert!(matches!(r, Err(KernelError::InvalidModel(_))), "{r:?}");
    let r = nsds.link(ball_on_ball()?, NonsmoothLaw::newton_impact(0.5)?, &[b, b]);
    assert!(matches!(r, Err(KernelError::InvalidModel(_))), "{r:?}");
    Ok(())
}

#[test]
fn a_law_that_does_not_fit_the_problem_is_an_invalid_model() -> Result<(), KernelError> {
    // A 2D friction law (2-row relation: normal x, tangent y) with an LCP.
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    let normal_tangent = LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0], [0.0, 1.0, RADIUS]])?;
    nsds.link(normal_tangent, NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 2)?, &[b])?;
    let r = simulation(nsds, OneStepNsProblem::lcp_default()?, TimeSteppingOptions::default());
    assert!(matches!(r, Err(KernelError::InvalidModel(_))), "{r:?}");

    // A Newton impact law with a 2D frictional-contact problem.
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    nsds.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[b])?;
    let r = simulation(
        nsds,
        OneStepNsProblem::friction_contact_2d(Fc2dMethod::Nsgs(Nsgs2dOptions::default()))?,
        TimeSteppingOptions::default(),
    );
    assert!(matches!(r, Err(KernelError::InvalidModel(_))), "{r:?}");

    // A friction law linked between steps is caught by the next step.
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball(1.0, 0.0, 1.0)?);
    nsds.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[b])?;
    let mut sim = simulation(nsds, OneStepNsProblem::lcp_default()?, TimeSteppingOptions::default())?;
    sim.step()?;
    let normal_tangent = LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0], [0.0, 1.0, RADIUS]])?;
    sim.nsds_mut().link(normal_tangent, NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 2)?, &[b])?;
    let r = sim.step();
    assert!(matches!(r, Err(KernelError::InvalidModel(_))), "{r:?}");
    Ok(())
}

#[test]
fn invalid_options_are_refused() {
    let invalid = |r: Result<MoreauJeanOsi, KernelError>, option: &str| {
        assert!(matches!(&r, Err(KernelError::InvalidOption { name, .. }) if *name == option), "{option}: {r:?}");
    };
    invalid(MoreauJeanOsi::with_theta(1.5), "theta");
    invalid(MoreauJeanOsi::with_theta(-0.1), "theta");
    invalid(MoreauJeanOsi::with_theta(f64::NAN), "theta");
    invalid(MoreauJeanOsi::new(MoreauJeanOptions::default().with_gamma(-1.0)), "gamma");
    invalid(
        MoreauJeanOsi::new(MoreauJeanOptions::default().with_activation_threshold(f64::INFINITY)),
        "activation_threshold",
    );
    assert!(MoreauJeanOsi::with_theta(1.0).is_ok() && MoreauJeanOsi::with_theta(0.0).is_ok());

    for (t0, h, t_end) in
        [(0.0, 0.0, 1.0), (0.0, -1e-3, 1.0), (0.0, f64::NAN, 1.0), (1.0, 1e-3, 0.5), (0.0, 1e-3, f64::INFINITY)]
    {
        let r = TimeDiscretisation::new(t0, h, t_end);
        assert!(matches!(r, Err(KernelError::InvalidOption { .. })), "({t0}, {h}, {t_end}): {r:?}");
    }

    // Laws: every coefficient out of range is refused with its name and value.
    let refused = |r: Result<NonsmoothLaw, KernelError>, name: &str, value: f64| match r {
        Err(KernelError::InvalidParameter { name: n, value: v, .. }) => {
            assert_eq!(n, name);
            assert!(v.to_bits() == value.to_bits(), "{name}: {v} instead of {value}");
        }
        other => panic!("{name} = {value} accepted: {other:?}"),
    };
    for e in [1.5, -1.0, -0.5, f64::NAN, f64::INFINITY] {
        refused(NonsmoothLaw::newton_impact(e), "restitution", e);
        refused(NonsmoothLaw::newton_impact_friction(e, 0.0, 0.3, 3), "normal restitution", e);
        refused(NonsmoothLaw::newton_impact_friction(0.5, e, 0.3, 3), "tangential restitution", e);
    }
    for mu in [-0.1, f64::NAN, f64::INFINITY] {
        refused(NonsmoothLaw::newton_impact_friction(0.5, 0.0, mu, 2), "friction coefficient", mu);
    }
    refused(NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 4), "friction law dimension", 4.0);
    refused(NonsmoothLaw::relay(2, 1.0, -1.0), "relay lower bound", 1.0);
    refused(NonsmoothLaw::relay(2, f64::NEG_INFINITY, 1.0), "relay lower bound", f64::NEG_INFINITY);
    refused(NonsmoothLaw::relay(2, -1.0, f64::NAN), "relay upper bound", f64::NAN);
    refused(NonsmoothLaw::relay(0, -1.0, 1.0), "relay law size", 0.0);
    refused(NonsmoothLaw::complementarity(0), "complementarity law size", 0.0);
    refused(NonsmoothLaw::equality(0), "equality law size", 0.0);
    refused(NonsmoothLaw::mixed_complementarity(0, 0), "mixed complementarity law size", 0.0);
    // The ends of the ranges are laws.
    assert_eq!(NonsmoothLaw::newton_impact(1.0).expect("e = 1").normal_restitution(), Some(1.0));
    assert_eq!(NonsmoothLaw::newton_impact_friction(0.0, 1.0, 0.0, 3).expect("e_t = 1, mu = 0").friction(), Some(0.0));
    assert_eq!(NonsmoothLaw::relay(1, 0.5, 0.5).expect("equal bounds").size(), Some(1));
    assert_eq!(NonsmoothLaw::mixed_complementarity(0, 2).expect("no equality").size(), Some(2));

    // Solver options are validated by numerics and wrapped.
    let r = OneStepNsProblem::lcp(LcpMethod::Pgs(PgsOptions::default().with_tolerance(-1.0)));
    assert!(matches!(r, Err(KernelError::Numerics(NumericsError::InvalidOption { .. }))), "{r:?}");

    // Time-stepping options are checked by TimeStepping::new.
    for options in [
        TimeSteppingOptions::default().with_newton_tolerance(0.0),
        TimeSteppingOptions::default().with_newton_tolerance(f64::NAN),
        TimeSteppingOptions::default().with_newton_max_iterations(0),
    ] {
        let r = OneStepNsProblem::lcp_default().and_then(|osns| simulation(Nsds::new(), osns, options));
        assert!(matches!(r, Err(KernelError::InvalidOption { .. })), "{options:?}: {r:?}");
    }
}

#[test]
fn a_singular_iteration_matrix_is_refused() -> Result<(), KernelError> {
    // W = M + hθ C = 1 + (1e-3 · 0.5) C vanishes for C = −2000 (a negative damping).
    let ds = LagrangianLinearTids::new(vec![1.0], vec![0.0], faer::mat![[1.0]])?.with_damping(faer::mat![[-2000.0]])?;
    let mut nsds = Nsds::new();
    nsds.add_ds(ds);
    let r = simulation(nsds, OneStepNsProblem::lcp_default()?, TimeSteppingOptions::default());
    assert!(matches!(r, Err(KernelError::Singular { .. })), "{r:?}");
    Ok(())
}

/// Two unit-mass balls resting on each other on the ground, both contacts closed: the first
/// step's LCP is `M = [[1, −1], [−1, 2]]`, `q = (−g h, 0)`, solved by `λ = (2 g h, g h)`. One
/// projected Gauss–Seidel sweep from `λ = 0` gives `λ = (g h, g h/2)`, far from it.
fn resting_stack(policy: NonConvergencePolicy) -> Result<TimeStepping, KernelError> {
    let mut nsds = Nsds::new();
    let b1 = nsds.add_ds(ball(0.0, 0.0, 1.0)?);
    let b2 = nsds.add_ds(ball(2.0 * RADIUS, 0.0, 1.0)?);
    nsds.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[b1])?;
    nsds.link(ball_on_ball()?, NonsmoothLaw::newton_impact(0.5)?, &[b1, b2])?;
    let one_sweep = OneStepNsProblem::lcp(LcpMethod::Pgs(PgsOptions::default().with_max_iterations(1)))?;
    simulation(nsds, one_sweep, TimeSteppingOptions::default().with_policy(policy))
}

#[test]
fn a_one_step_problem_that_does_not_converge_fails_or_is_recorded() -> Result<(), KernelError> {
    let mut sim = resting_stack(NonConvergencePolicy::Fail)?;
    let r = sim.step();
    match r {
        Err(KernelError::NotConverged { step, report, time }) => {
            assert_eq!(step, 1);
            assert!((time - 1e-3).abs() < 1e-15);
            assert_eq!(report.status, SolverStatus::MaxIterations);
            assert_eq!(report.iterations, 1);
        }
        other => panic!("expected NotConverged, got {other:?}"),
    }

    let mut sim = resting_stack(NonConvergencePolicy::Continue)?;
    let report = sim.step()?;
    let osns = report.osns.expect("both contacts are active");
    assert_eq!(report.active, 2);
    assert!(!osns.is_converged(), "{osns:?}");
    assert_eq!(sim.nonconverged_steps(), 1);
    // The run goes on and keeps counting: one warm-started sweep per step is still not enough
    // for the 1e-6 tolerance on most steps (measured: 20 of 21).
    for _ in 0..20 {
        sim.step()?;
    }
    assert!(sim.nonconverged_steps() > 1 && sim.nonconverged_steps() <= 21);
    assert_eq!(sim.steps_done(), 21);
    Ok(())
}

/// `FailAbove` stops at a one-step problem that ends above its bound, with the time, the step
/// and the solver's report, and lets smaller misses go on, counted as under `Continue`.
#[test]
fn fail_above_stops_only_far_above_the_bound() -> Result<(), KernelError> {
    let mut reference = resting_stack(NonConvergencePolicy::Continue)?;
    let mut residuals = Vec::new();
    for _ in 0..21 {
        residuals.push(reference.step()?.osns.expect("both contacts are active").residual);
    }
    let first = residuals[0];
    let largest = residuals.iter().fold(0.0f64, |m, r| m.max(*r));
    assert!(first > 0.0 && largest.is_finite());

    // Far above: the first step stops, naming its time and the solver's residual.
    let policy = NonConvergencePolicy::FailAbove { residual: 0.5 * first, newton_residual: 1.0 };
    match resting_stack(policy)?.step() {
        Err(KernelError::NotConverged { step, time, report }) => {
            assert_eq!(step, 1);
            assert!((time - 1e-3).abs() < 1e-15);
            assert_eq!(report.status, SolverStatus::MaxIterations);
            assert_eq!(report.residual.to_bits(), first.to_bits());
        }
        other => panic!("expected NotConverged, got {other:?}"),
    }

    // Small misses: the run goes on as under Continue, each counted.
    let policy = NonConvergencePolicy::FailAbove { residual: 2.0 * largest, newton_residual: 1.0 };
    let mut sim = resting_stack(policy)?;
    for r in &residuals {
        let report = sim.step()?;
        assert_eq!(report.osns.expect("both contacts are active").residual.to_bits(), r.to_bits());
    }
    assert_eq!(sim.nonconverged_steps(), reference.nonconverged_steps());
    assert!(sim.nonconverged_steps() > 1);

    // The bounds are checked when the simulation is built.
    for bad in [-1.0, f64::NAN] {
        let r = resting_stack(NonConvergencePolicy::FailAbove { residual: bad, newton_residual: 1.0 });
        assert!(matches!(r, Err(KernelError::InvalidParameter { .. })), "{r:?}");
        let r = resting_stack(NonConvergencePolicy::FailAbove { residual: 1.0, newton_residual: bad });
        assert!(matches!(r, Err(KernelError::InvalidParameter { .. })), "{r:?}");
    }
    Ok(())
}

#[test]
fn a_newton_loop_that_does_not_converge_fails_or_is_recorded() -> Result<(), KernelError> {
    // A hardening spring F_int = k q³ (∂F_int/∂q = 3 k q²): one Newton iteration cannot
    // reach the 1e-6 tolerance from q0 = 1.
    let k = 1e4;
    let build = |policy| -> Result<TimeStepping, KernelError> {
        let ds = LagrangianDs::new(vec![1.0], vec![0.0], faer::mat![[1.0]])?.with_internal_forces(
            move |_t, q, _v, out| out[0] = k * q[0].powi(3),
            move |_t, q, _v, out| out[(0, 0)] = 3.0 * k * q[0] * q[0],
            |_t, _q, _v, _out| {},
        );
        let mut nsds = Nsds::new();
        nsds.add_ds(ds);
        let options = TimeSteppingOptions::default().with_newton_max_iterations(1).with_policy(policy);
        simulation(nsds, OneStepNsProblem::lcp_default()?, options)
    };
    let r = build(NonConvergencePolicy::Fail)?.step();
    assert!(matches!(r, Err(KernelError::NewtonNotConverged { step: 1, iterations: 1, .. })), "{r:?}");

    let mut sim = build(NonConvergencePolicy::Continue)?;
    let report = sim.step()?;
    assert!(!report.newton_converged && report.newton_iterations == 1, "{report:?}");
    assert_eq!(sim.nonconverged_steps(), 1);

    // FailAbove: the Newton residual against its own bound.
    let r =
        build(NonConvergencePolicy::FailAbove { residual: 1.0, newton_residual: 0.5 * report.newton_residual })?.step();
    assert!(matches!(r, Err(KernelError::NewtonNotConverged { step: 1, iterations: 1, .. })), "{r:?}");
    let mut sim =
        build(NonConvergencePolicy::FailAbove { residual: 1.0, newton_residual: 2.0 * report.newton_residual })?;
    let again = sim.step()?;
    assert_eq!(again.newton_residual.to_bits(), report.newton_residual.to_bits());
    assert_eq!(sim.nonconverged_steps(), 1);
    Ok(())
}

/// Every system belongs to exactly one integrator of a simulation, and an interaction to the
/// integrator of its systems; a scheme refuses systems it cannot integrate, and an integrator
/// needs a one-step problem of its level.
#[test]
fn integrator_assignments_are_checked() -> Result<(), KernelError> {
    use nonsmooth_kernel::model::FirstOrderLinearDs;
    use nonsmooth_kernel::simulation::{ProblemLevel, SchatzmanPaoliOsi};
    let grid = || TimeDiscretisation::new(0.0, 1e-3, 0.1);
    let two_balls = || -> Result<(Nsds, [nonsmooth_kernel::model::DsId; 2]), KernelError> {
        let mut nsds = Nsds::new();
        let a = nsds.add_ds(ball(RADIUS, 0.0, 1.0)?);
        let b = nsds.add_ds(ball(3.0 * RADIUS, 0.0, 1.0)?);
        Ok((nsds, [a, b]))
    };
    let lcp = OneStepNsProblem::lcp_default;

    // An interaction between the systems of two integrators.
    let (mut nsds, [a, b]) = two_balls()?;
    let contact = nsds.link(ball_on_ball()?, NonsmoothLaw::newton_impact(0.5)?, &[a, b])?;
    let result = TimeStepping::builder(nsds, grid()?)
        .integrator(MoreauJeanOsi::with_theta(0.5)?, [a])
        .integrator(MoreauJeanOsi::with_theta(1.0)?, [b])
        .problem(ProblemLevel::Velocity, lcp()?)
        .build();
    assert!(
        matches!(result, Err(KernelError::SharedBetweenIntegrators { what: "interaction", index }) if index == contact.index())
    );

    // A system in two integrators, and a system in none.
    let (nsds, [a, _]) = two_balls()?;
    let result = TimeStepping::builder(nsds, grid()?)
        .integrator(MoreauJeanOsi::with_theta(0.5)?, [a])
        .integrator(MoreauJeanOsi::with_theta(1.0)?, [a])
        .problem(ProblemLevel::Velocity, lcp()?)
        .build();
    assert!(matches!(result, Err(KernelError::SharedBetweenIntegrators { what: "system", .. })));
    let (nsds, [a, b]) = two_balls()?;
    let result = TimeStepping::builder(nsds, grid()?)
        .integrator(MoreauJeanOsi::with_theta(0.5)?, [a])
        .integrator(SchatzmanPaoliOsi::with_theta(0.5)?, [])
        .problem(ProblemLevel::Velocity, lcp()?)
        .problem(ProblemLevel::Position, lcp()?)
        .build();
    assert!(matches!(result, Err(KernelError::UnassignedSystem { ds }) if ds == b.index()));

    // An integrator without a problem of its level; a problem without an integrator.
    let (nsds, [a, b]) = two_balls()?;
    let result = TimeStepping::builder(nsds, grid()?)
        .integrator(MoreauJeanOsi::with_theta(0.5)?, [a])
        .integrator(SchatzmanPaoliOsi::with_theta(0.5)?, [b])
        .problem(ProblemLevel::Velocity, lcp()?)
        .build();
    assert!(matches!(result, Err(KernelError::InvalidModel(_))));
    let (nsds, [a, b]) = two_balls()?;
    let result = TimeStepping::builder(nsds, grid()?)
        .integrator(MoreauJeanOsi::with_theta(0.5)?, [a, b])
        .problem(ProblemLevel::Velocity, lcp()?)
        .problem(ProblemLevel::Position, lcp()?)
        .build();
    assert!(matches!(result, Err(KernelError::InvalidModel(_))));

    // A first-order system under a second-order scheme.
    let (mut nsds, [a, b]) = two_balls()?;
    let circuit =
        nsds.add_first_order_ds(FirstOrderLinearDs::new(vec![1.0, 0.0], faer::mat![[0.0, 1.0], [-1.0, 0.0]])?);
    let result = TimeStepping::builder(nsds, grid()?)
        .integrator(MoreauJeanOsi::with_theta(0.5)?, [a, b, circuit])
        .problem(ProblemLevel::Velocity, lcp()?)
        .build();
    assert!(matches!(result, Err(KernelError::InvalidModel(_))));

    // A system added between steps is refused until it is assigned.
    let (nsds, [a, b]) = two_balls()?;
    let mut sim = TimeStepping::builder(nsds, grid()?)
        .integrator(MoreauJeanOsi::with_theta(0.5)?, [a])
        .integrator(MoreauJeanOsi::with_theta(1.0)?, [b])
        .problem(ProblemLevel::Velocity, lcp()?)
        .build()?;
    sim.step()?;
    let c = sim.nsds_mut().add_ds(ball(5.0 * RADIUS, 0.0, 1.0)?);
    assert!(matches!(sim.step(), Err(KernelError::UnassignedSystem { ds }) if ds == c.index()));
    assert!(matches!(sim.assign(c, 7), Err(KernelError::InvalidOption { .. })));
    assert!(matches!(sim.assign(a, 1), Err(KernelError::SharedBetweenIntegrators { what: "system", .. })));
    sim.assign(c, 1)?;
    sim.step()?;
    assert_eq!(sim.number_of_integrators(), 2);
    assert!(sim.integrator_as::<MoreauJeanOsi>(1).is_some_and(|o| o.options().theta.to_bits() == 1.0f64.to_bits()));
    Ok(())
}
