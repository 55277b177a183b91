//! A diverging scene stops with `MechanicsError::NonFiniteBody`, which names the body, and stays
//! stopped; a body thrown at a huge but representable speed is not reported as converged.

use nonsmooth_kernel::{KernelError, NonFiniteValue, StateQuantity};
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::Shape;
use nonsmooth_mechanics::scene::{BodySpec, Material, Scene, SceneBuilder, SceneNonConvergence, SceneOptions};
use nonsmooth_numerics::SolverStatus;

/// A sphere resting on the ground (body 0) and a sphere (body 1) at `position` with
/// `velocity`, `h = 1e-3`, to `t_end`.
fn two_spheres(
    position: [f64; 3],
    velocity: [f64; 3],
    t_end: f64,
    policy: SceneNonConvergence,
) -> Result<Scene, MechanicsError> {
    let mut b = SceneBuilder::new()
        .with_options(SceneOptions::default().with_policy(policy))
        .with_time_step(1e-3)
        .with_final_time(t_end);
    b.add_ground(0.0, Material::new(0.5, 0.5)?)?;
    b.add_body(BodySpec::new(Shape::sphere(0.1)?, 1000.0)?.with_position([0.0, 0.0, 0.1]));
    b.add_body(BodySpec::new(Shape::sphere(0.1)?, 1000.0)?.with_position(position).with_velocity(velocity));
    b.build()
}

/// The error's fields, or a panic naming it.
fn non_finite_body(e: &MechanicsError) -> (f64, usize, usize, NonFiniteValue) {
    match *e {
        MechanicsError::NonFiniteBody { time, step, body, what } => (time, step, body, what),
        ref other => panic!("expected NonFiniteBody, got {other:?}"),
    }
}

/// A body in free flight at 1e308 m/s: `x = 1 + 1e305 k` passes `f64::MAX` at step 1798.
#[test]
fn a_body_whose_position_overflows_stops_the_scene_naming_it() -> Result<(), MechanicsError> {
    let mut scene = two_spheres([1.0, 0.0, 1.0], [1e308, 0.0, 0.0], 3.0, SceneNonConvergence::Continue)?;
    let mut ok = 0;
    let error = loop {
        match scene.step() {
            Ok(_) => ok += 1,
            Err(e) => break e,
        }
    };
    let (time, step, body, what) = non_finite_body(&error);
    assert_eq!((step, ok), (1798, 1797), "{error}");
    assert_eq!(time.to_bits(), 1.798f64.to_bits());
    assert_eq!(body, 1);
    let ds = scene.body_ds(1)?.index();
    assert_eq!(what, NonFiniteValue::System { ds, quantity: StateQuantity::Position, component: 0 });
    // Stopped: the same error, no step counted.
    for _ in 0..2 {
        assert_eq!(non_finite_body(&scene.step().expect_err("stopped")), (time, step, body, what));
    }
    assert_eq!(scene.steps_done(), 1797);
    Ok(())
}

/// A body thrown into the ground at 1e308 m/s: its first step's position update overflows.
#[test]
fn a_body_thrown_at_the_ground_at_1e308_stops_the_first_step() -> Result<(), MechanicsError> {
    let mut scene = two_spheres([1.0, 0.0, 0.105], [0.0, 0.0, -1e308], 0.05, SceneNonConvergence::Continue)?;
    let error = scene.step().expect_err("the first step diverges");
    let (_, step, body, _) = non_finite_body(&error);
    assert_eq!((step, body), (1, 1), "{error}");
    Ok(())
}

/// At 1e200 m/s into the ground the state stays finite, but the contact problem breaks down
/// (NSGS ends with a residual of NaN): the step is not reported as converged, and with the
/// `Fail` policy it is an error.
#[test]
fn a_body_thrown_at_the_ground_at_1e200_is_not_reported_converged() -> Result<(), MechanicsError> {
    let mut scene = two_spheres([1.0, 0.0, 0.105], [0.0, 0.0, -1e200], 0.05, SceneNonConvergence::Continue)?;
    let report = scene.step()?;
    let osns = report.step.osns.expect("the contact is active");
    assert_eq!(osns.status, SolverStatus::NumericalBreakdown);
    assert!(!osns.is_converged());
    assert_eq!(scene.simulation().nonconverged_steps(), 1);
    let (q, v) = scene.body_state(1)?;
    assert!(q.iter().chain(v).all(|x| x.is_finite()), "q = {q:?}, v = {v:?}");

    let mut failing = two_spheres([1.0, 0.0, 0.105], [0.0, 0.0, -1e200], 0.05, SceneNonConvergence::Fail)?;
    let error = failing.step().expect_err("not converged");
    assert!(matches!(error, MechanicsError::Kernel(KernelError::NotConverged { step: 1, .. })), "{error:?}");
    Ok(())
}
