//! Scenes with joints: a chain of three spheres on ball joints, the first hanging from the
//! ground, released horizontally onto a frictional floor, stepped through the kernel's mixed
//! mechanical problem (the joints' equality blocks with the detected contacts' 3D Coulomb
//! blocks); and the builder's typed errors for bad joints.

use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::simulation::{OneStepNsProblem, OsnsKind, ProblemLevel};
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::Shape;
use nonsmooth_mechanics::scene::{BodySpec, Material, SceneBuilder, SceneJoint, StopSide};

const RADIUS: f64 = 0.05;
/// Distance between consecutive centres (and from the anchor to the first one).
const SPACING: f64 = 0.15;
const ANCHOR_HEIGHT: f64 = 1.0;
const FLOOR: f64 = 0.7;

/// The chain falls onto the floor (the anchor is 0.3 above it, the chain 0.45 long), bounces,
/// slides with friction and comes to rest, some spheres on the floor: at the end the speeds
/// vanish, no sphere is below the floor, and the joints' drift stays bounded.
#[test]
fn a_chain_on_ball_joints_falls_onto_a_floor_and_comes_to_rest() -> Result<(), MechanicsError> {
    let mut builder = SceneBuilder::new().with_time_step(1e-3).with_final_time(4.0);
    builder.add_ground(FLOOR, Material::new(0.3, 0.0)?)?;
    let mut spheres = Vec::new();
    for k in 0..3 {
        let x = SPACING * (k + 1) as f64;
        spheres.push(
            builder.add_body(
                BodySpec::new(Shape::sphere(RADIUS)?, 1000.0)?
                    .with_position([x, 0.0, ANCHOR_HEIGHT])
                    .with_material(Material::new(0.3, 0.0)?),
            ),
        );
    }
    builder.add_joint(SceneJoint::Ball { point: [0.0, 0.0, ANCHOR_HEIGHT] }, spheres[0], None)?;
    for k in 1..3 {
        let point = [SPACING * (k as f64 + 0.5), 0.0, ANCHOR_HEIGHT];
        builder.add_joint(SceneJoint::Ball { point }, spheres[k - 1], Some(spheres[k]))?;
    }
    let mut scene = builder.build()?;
    assert_eq!(scene.number_of_joints(), 3);
    // The scene with joints steps through the mixed problem.
    let kind = scene.simulation().problem_as::<OneStepNsProblem>(ProblemLevel::Velocity).map(OneStepNsProblem::kind);
    assert_eq!(kind, Some(OsnsKind::Mixed));
    let (mut drift, mut most_contacts, mut steps) = (0.0f64, 0, 0);
    while scene.has_next_step() {
        let report = scene.step()?;
        assert!(report.converged(), "step {steps}: {report:?}");
        most_contacts = most_contacts.max(scene.number_of_contacts());
        drift = drift.max(scene.joint_drift()?);
        steps += 1;
    }
    let mut speed = 0.0f64;
    let mut lowest = f64::INFINITY;
    for &s in &spheres {
        let (q, v) = scene.body_state(s)?;
        speed = speed.max((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt());
        lowest = lowest.min(q[2] - RADIUS - FLOOR);
    }
    let summary = scene.run_summary();
    println!(
        "chain of 3 spheres on ball joints: {steps} steps, up to {most_contacts} contacts, final max speed \
         {speed:.2e} m/s, lowest gap {lowest:.2e} m, max joint drift {drift:.2e} (at the end {:.2e}), \
         {} unconverged steps",
        scene.joint_drift()?,
        summary.unconverged
    );
    assert!(most_contacts >= 1, "the chain reaches the floor");
    assert!(speed <= 1e-3, "the chain comes to rest: {speed:e}");
    assert!(lowest >= -1e-3, "no sphere goes through the floor: {lowest:e}");
    assert!(drift <= 1e-3, "drift {drift:e}");
    Ok(())
}

/// Bad joints are typed errors: an unknown body, a joint of a body with itself, a non-finite
/// point, a stop on a ball joint or on no joint.
#[test]
fn bad_joints_are_typed_errors() -> Result<(), MechanicsError> {
    let mut builder = SceneBuilder::new();
    let a = builder.add_body(BodySpec::new(Shape::sphere(RADIUS)?, 1000.0)?);
    let ball = SceneJoint::Ball { point: [0.0; 3] };
    assert!(matches!(builder.add_joint(ball, 3, None), Err(MechanicsError::Kernel(KernelError::UnknownDs(3)))));
    assert!(matches!(builder.add_joint(ball, a, Some(a)), Err(MechanicsError::Kernel(KernelError::InvalidModel(_)))));
    let nan = SceneJoint::Ball { point: [f64::NAN, 0.0, 0.0] };
    assert!(matches!(builder.add_joint(nan, a, None), Err(MechanicsError::Kernel(KernelError::NonFinite { .. }))));
    let j = builder.add_joint(ball, a, None)?;
    assert!(builder.add_joint_stop(j, StopSide::Lower, 0.1, 0.5).is_err());
    assert!(builder.add_joint_stop(7, StopSide::Lower, 0.1, 0.5).is_err());
    let p = builder.add_joint(SceneJoint::Pivot { point: [0.0; 3], axis: [0.0, 1.0, 0.0] }, a, None)?;
    assert!(builder.add_joint_stop(p, StopSide::Upper, f64::INFINITY, 0.5).is_err());
    assert_eq!(builder.add_joint_stop(p, StopSide::Upper, 0.5, 0.5)?, 0);
    Ok(())
}

/// Two spheres whose shapes overlap at the ball joint between them, the first hanging from the
/// ground: they form a contact unless the pair is excluded; excluded, the only contacts are with
/// other bodies. A scene file says the same with `collide = false` or `[[no_contact]]`.
#[test]
fn an_excluded_pair_of_jointed_bodies_forms_no_contact() -> Result<(), MechanicsError> {
    use nonsmooth_mechanics::scene::ContactPartner;
    use nonsmooth_mechanics::scene_file::SceneFile;
    let build = |exclude: bool| -> Result<SceneBuilder, MechanicsError> {
        let mut builder = SceneBuilder::new().with_time_step(1e-3).with_final_time(1.0);
        let at = |x: f64| BodySpec::new(Shape::sphere(RADIUS)?, 1000.0).map(|b| b.with_position([x, 0.0, 1.0]));
        let a = builder.add_body(at(0.0)?);
        let b = builder.add_body(at(0.08)?);
        builder.add_body(at(0.17)?);
        builder.add_joint(SceneJoint::Ball { point: [-0.1, 0.0, 1.0] }, a, None)?;
        builder.add_joint(SceneJoint::Ball { point: [0.04, 0.0, 1.0] }, a, Some(b))?;
        if exclude {
            builder.disable_collisions(b, a)?;
        }
        Ok(builder)
    };
    let body_pairs = |builder: SceneBuilder| -> Result<Vec<(usize, usize)>, MechanicsError> {
        let mut scene = builder.build()?;
        let mut pairs = Vec::new();
        for _ in 0..20 {
            scene.step()?;
            for c in scene.contacts() {
                if let ContactPartner::Body(other) = c.partner {
                    let pair = (c.body.min(other), c.body.max(other));
                    if !pairs.contains(&pair) {
                        pairs.push(pair);
                    }
                }
            }
        }
        pairs.sort_unstable();
        Ok(pairs)
    };
    assert_eq!(body_pairs(build(false)?)?, vec![(0, 1), (1, 2)], "jointed bodies collide by default");
    let excluded = build(true)?;
    assert_eq!(excluded.collision_exclusions(), &[(0, 1)]);
    assert_eq!(body_pairs(excluded)?, vec![(1, 2)], "the excluded pair forms no contact");

    // Written out, the exclusion is the joint's `collide = false`; read back, the same pair.
    let text = SceneFile::from_builder(&build(true)?)?.to_string()?;
    assert!(text.contains("collide = false"), "{text}");
    let read: SceneFile = text.parse()?;
    assert_eq!(read.builder()?.collision_exclusions(), &[(0, 1)]);
    let mut other = build(false)?;
    other.disable_collisions(1, 2)?;
    let text = SceneFile::from_builder(&other)?.to_string()?;
    assert!(text.contains("[[no_contact]]"), "{text}");
    let read: SceneFile = text.parse()?;
    assert_eq!(read.builder()?.collision_exclusions(), &[(1, 2)]);

    // Bad pairs are typed errors.
    let mut builder = build(false)?;
    assert!(matches!(builder.disable_collisions(0, 0), Err(MechanicsError::Kernel(KernelError::InvalidModel(_)))));
    assert!(matches!(builder.disable_collisions(0, 9), Err(MechanicsError::Kernel(KernelError::UnknownDs(9)))));
    let ground = "[[body]]\nshape = \"sphere\"\nradius = 0.05\ndensity = 1000.0\n\n[[joint]]\nkind = \"ball\"\nbody = 0\npoint = [0.0, 0.0, 0.0]\ncollide = false\n";
    let error = ground.parse::<SceneFile>()?.builder().expect_err("a joint with the ground has no pair");
    assert!(error.to_string().contains("collide"), "{error}");
    Ok(())
}
