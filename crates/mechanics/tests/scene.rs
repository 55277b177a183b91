//! Scenes: contact detection feeding Moreau–Jean with FC3D, on cases with known answers.

use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::Shape;
use nonsmooth_mechanics::lie::Quaternion;
use nonsmooth_mechanics::scene::{BodySpec, Material, Scene, SceneBuilder};

#[test]
fn a_dropped_box_comes_to_rest_on_four_contacts() -> Result<(), MechanicsError> {
    let mut b = SceneBuilder::new().with_time_step(1e-3).with_final_time(1.0);
    b.add_ground(0.0, Material::new(0.5, 0.0)?)?;
    let tilt = Quaternion::from_axis_angle([1.0, 0.3, 0.0], 0.2)?;
    b.add_body(
        BodySpec::new(Shape::cuboid([0.2, 0.1, 0.05])?, 500.0)?.with_position([0.0, 0.0, 0.3]).with_orientation(tilt),
    );
    let mut scene = b.build()?;
    while scene.has_next_step() {
        scene.step()?;
    }
    let (q, v) = scene.body_state(0)?;
    let speed = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    println!("box: {} contacts, z = {}, |v| = {speed:e}, p = {:?}", scene.number_of_contacts(), q[2], &q[3..]);
    assert_eq!(scene.number_of_contacts(), 4);
    // Rests on its largest face; Moreau–Jean keeps the O(h v) penetration of the landing.
    assert!((q[2] - 0.05).abs() < 3e-3, "rests on its largest face: z = {}", q[2]);
    assert!(speed < 1e-3);
    Ok(())
}

#[test]
fn a_column_of_spheres_rests_in_contact() -> Result<(), MechanicsError> {
    let r = 0.05;
    let mut b = SceneBuilder::new().with_time_step(1e-3).with_final_time(1.0);
    b.add_ground(0.0, Material::default())?;
    for k in 0..5 {
        b.add_body(BodySpec::new(Shape::sphere(r)?, 1000.0)?.with_position([0.0, 0.0, r + 2.2 * r * k as f64]));
    }
    let mut scene = b.build()?;
    let mut last = None;
    while scene.has_next_step() {
        last = Some(scene.step()?);
    }
    let last = last.expect("steps");
    for k in 0..5 {
        let (q, _) = scene.body_state(k)?;
        let expected = r + 2.0 * r * k as f64;
        // Each landing keeps its O(h v) penetration (Moreau–Jean without projection).
        assert!((q[2] - expected).abs() < 5e-4 * (k + 1) as f64, "sphere {k}: z = {}, expected {expected}", q[2]);
    }
    assert_eq!(last.contacts, 5);
    Ok(())
}

/// NSGS in body velocities on the factored operator and NSGS on the assembled `W` are the same
/// iteration up to round-off: on a 64-sphere pile (spheres: diagonal `W⁻¹`) and on the dropped
/// box (a cuboid with a non-isotropic inertia and the gyroscopic term), the trajectories agree
/// to round-off amplified by the contact events.
#[test]
fn factored_and_assembled_delassus_give_the_same_motion() -> Result<(), MechanicsError> {
    use nonsmooth_mechanics::pile::SpherePile;
    use nonsmooth_mechanics::scene::SceneOptions;
    let run = |factored: bool| -> Result<(Vec<f64>, usize), MechanicsError> {
        let options = SceneOptions::default().with_final_time(0.3).with_factored_delassus(factored);
        let mut scene = SpherePile::with_spheres(64).build(options)?;
        let mut contacts = 0;
        while scene.has_next_step() {
            contacts = scene.step()?.contacts;
        }
        let mut state = Vec::new();
        for b in 0..64 {
            state.extend_from_slice(scene.body_state(b)?.0);
        }
        Ok((state, contacts))
    };
    let (factored, contacts) = run(true)?;
    let (assembled, _) = run(false)?;
    let diff = factored.iter().zip(&assembled).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("pile of 64 after 0.3 s: {contacts} contacts, max |Δq| = {diff:.2e}");
    assert!(contacts > 64, "the pile has settled into many contacts");
    assert!(diff <= 1e-10, "max |Δq| = {diff:e}");

    let drop_box = |factored: bool| -> Result<Vec<f64>, MechanicsError> {
        let mut b = SceneBuilder::new()
            .with_time_step(1e-3)
            .with_final_time(0.5)
            .with_options(SceneOptions::default().with_final_time(0.5).with_factored_delassus(factored));
        b.add_ground(0.0, Material::new(0.5, 0.0)?)?;
        let tilt = Quaternion::from_axis_angle([1.0, 0.3, 0.0], 0.2)?;
        b.add_body(
            BodySpec::new(Shape::cuboid([0.2, 0.1, 0.05])?, 500.0)?
                .with_position([0.0, 0.0, 0.3])
                .with_orientation(tilt)
                .with_angular_velocity([0.0, 0.0, 3.0]),
        );
        let mut scene = b.build()?;
        while scene.has_next_step() {
            scene.step()?;
        }
        Ok(scene.body_state(0)?.0.to_vec())
    };
    let (f, a) = (drop_box(true)?, drop_box(false)?);
    let diff = f.iter().zip(&a).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    println!("dropped box: max |Δq| = {diff:.2e}");
    assert!(diff <= 1e-12, "max |Δq| = {diff:e}");
    Ok(())
}

/// A 1000-sphere pile stepped with the scenes' parallel options on 1 and on 2 threads gives the
/// same states bit for bit: nothing in a scene's step depends on the thread count (its FC3D
/// problems stay below the 4096 contacts where the halves schedule starts; that one is checked
/// for 1, 2 and 4 threads in numerics' `fc_nsgs_parallel`).
#[test]
fn a_pile_steps_the_same_on_one_and_two_threads() -> Result<(), MechanicsError> {
    use nonsmooth_mechanics::pile::SpherePile;
    use nonsmooth_mechanics::scene::SceneOptions;
    let run = |threads: usize| -> Result<(Vec<u64>, usize, usize), MechanicsError> {
        {
            let parallelism = nonsmooth_numerics::Parallelism::Rayon { threads };
            let nsgs = SceneOptions::default_nsgs().with_parallelism(parallelism);
            let options = SceneOptions::default()
                .with_final_time(0.3)
                .with_method(nonsmooth_numerics::fc::Fc3dMethod::Nsgs(nsgs));
            let mut scene = SpherePile::with_spheres(1000).build(options)?;
            let (mut contacts, mut sweeps) = (0, 0);
            while scene.has_next_step() {
                let report = scene.step()?;
                contacts = report.contacts;
                sweeps += report.step.osns.map_or(0, |r| r.iterations);
            }
            let mut bits = Vec::new();
            for b in 0..1000 {
                let (q, v) = scene.body_state(b)?;
                bits.extend(q.iter().chain(v.iter()).map(|x| x.to_bits()));
            }
            Ok((bits, contacts, sweeps))
        }
    };
    let (one, contacts, sweeps) = run(1)?;
    let (two, _, sweeps_two) = run(2)?;
    println!("1000 spheres after 0.3 s: {contacts} contacts, {sweeps} sweeps (1 thread), {sweeps_two} (2 threads)");
    assert!(contacts >= 2048, "{contacts} contacts: the pile has settled");
    assert_eq!(sweeps, sweeps_two);
    assert!(one == two, "the states differ between 1 and 2 threads");
    Ok(())
}

/// The contacts of the last step, read through the scene: a column of two spheres at rest on
/// the ground between two walls. At rest the impulses carry the weights over the step
/// (`λ_N = m g h` for the top contact, `2 m g h` for the ground's), the normals point up, the
/// gaps and relative velocities vanish, and the partners name the ground and the lower body.
#[test]
fn contacts_of_a_resting_column_carry_the_weights() -> Result<(), MechanicsError> {
    use nonsmooth_mechanics::scene::ContactPartner;
    let (r, h, g) = (0.05, 1e-3, 9.81);
    let mut b = SceneBuilder::new().with_time_step(h).with_final_time(0.5);
    let wall = b.add_wall([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], Material::default())?;
    let ground = b.add_ground(0.0, Material::default())?;
    b.add_static(
        Shape::cuboid([0.1, 0.1, 0.1])?,
        nonsmooth_mechanics::geometry::Pose::from_translation([2.0, 0.0, 0.1]),
        Material::default(),
    )?;
    let sphere = BodySpec::new(Shape::sphere(r)?, 1000.0)?;
    let mass = sphere.mass();
    b.add_body(sphere.clone().with_position([0.0, 0.0, r]));
    b.add_body(sphere.with_position([0.0, 0.0, 3.0 * r]));
    let mut scene = b.build()?;
    assert_eq!(scene.contacts().count(), 0, "no contacts before the first step");
    while scene.has_next_step() {
        scene.step()?;
    }
    assert_eq!((wall, ground), (0, 1));
    assert_eq!(scene.statics().len(), 3);
    assert!(matches!(scene.statics()[ground].shape, Shape::HalfSpace));
    assert!(matches!(scene.statics()[2].shape, Shape::Box { .. }));
    assert!((scene.time_step() - h).abs() < 1e-18);
    let contacts: Vec<_> = scene.contacts().collect();
    assert_eq!(contacts.len(), 2);
    for c in &contacts {
        println!("{c:?}");
        let n = c.normal();
        assert!((n[2] - 1.0).abs() < 1e-12, "the normal points up: {n:?}");
        assert!(c.gap.abs() < 1e-4 && c.detection_gap.abs() < 1e-4);
        assert!(c.relative_velocity.iter().all(|u| u.abs() < 1e-6), "{:?}", c.relative_velocity);
        assert!(c.active);
        let (weight, partner) = match c.body {
            0 => (2.0 * mass * g * h, ContactPartner::Static(ground)),
            _ => (mass * g * h, ContactPartner::Body(0)),
        };
        assert_eq!(c.partner, partner);
        // NSGS stops at a relative error of 1e-4 on the FC3D problem.
        assert!((c.impulse[0] - weight).abs() < 1e-3 * weight, "λ_N = {}, m g h = {weight}", c.impulse[0]);
        assert!(c.impulse[1].abs() < 1e-9 && c.impulse[2].abs() < 1e-9);
        assert!((c.normal_force()[2] - c.impulse[0] / h).abs() < 1e-12);
        assert!(c.tangential_force().iter().all(|f| f.abs() < 1e-6));
        // The points: P₁ on body 1's surface below its centre, P₂ on the partner.
        let (q, _) = scene.body_state(c.body)?;
        assert!((q[2] - c.point[2] - r).abs() < 1e-4);
        assert!((c.point[2] - c.partner_point[2] - c.gap).abs() < 1e-15);
        assert!((c.midpoint()[0] - q[0]).abs() < 1e-12);
    }
    Ok(())
}

/// The relative velocity of a contact is that of the material points: for a sphere sliding and
/// spinning on the ground, `u = Fᵀ(v + ω × (P − G))` with `ω = R Ω`, computed here from the
/// body state; the friction impulse opposes the slip.
#[test]
fn a_sliding_contact_reports_the_slip_velocity() -> Result<(), MechanicsError> {
    let r = 0.05;
    let mut b = SceneBuilder::new().with_time_step(1e-3).with_final_time(0.01);
    b.add_ground(0.0, Material::new(0.3, 0.0)?)?;
    b.add_body(
        BodySpec::new(Shape::sphere(r)?, 1000.0)?
            .with_position([0.0, 0.0, r])
            .with_velocity([1.0, 0.2, 0.0])
            .with_angular_velocity([3.0, -1.0, 2.0]),
    );
    let mut scene = b.build()?;
    while scene.has_next_step() {
        scene.step()?;
    }
    let contacts: Vec<_> = scene.contacts().collect();
    assert_eq!(contacts.len(), 1);
    let c = &contacts[0];
    let (q, v) = scene.body_state(0)?;
    let rotation = Quaternion::new(q[3], q[4], q[5], q[6]).to_rotation_matrix();
    let w: Vec<f64> = (0..3).map(|i| (0..3).map(|j| rotation[i][j] * v[3 + j]).sum()).collect();
    let arm = [c.point[0] - q[0], c.point[1] - q[1], c.point[2] - q[2]];
    let slip = [
        v[0] + w[1] * arm[2] - w[2] * arm[1],
        v[1] + w[2] * arm[0] - w[0] * arm[2],
        v[2] + w[0] * arm[1] - w[1] * arm[0],
    ];
    for (k, row) in c.frame.iter().enumerate() {
        let expected: f64 = (0..3).map(|j| row[j] * slip[j]).sum();
        assert!((c.relative_velocity[k] - expected).abs() < 1e-12, "row {k}: {} vs {expected}", c.relative_velocity[k]);
    }
    // Sliding: the friction impulse is on the cone's boundary and opposes the tangential slip.
    let (friction, slip_t) = (c.tangential_impulse(), [slip[0], slip[1], 0.0]);
    let along: f64 = (0..3).map(|k| friction[k] * slip_t[k]).sum();
    assert!(along < 0.0);
    let tangential = (c.impulse[1].powi(2) + c.impulse[2].powi(2)).sqrt();
    assert!(
        (tangential - 0.3 * c.impulse[0]).abs() < 1e-3 * c.impulse[0],
        "|λ_T| = {tangential}, μ λ_N = {}",
        0.3 * c.impulse[0]
    );
    Ok(())
}

#[test]
fn an_open_box_needs_a_positive_finite_side() {
    let material = Material::new(0.3, 0.0).unwrap();
    let mut builder = SceneBuilder::new();
    assert_eq!(builder.add_open_box(1.0, material).unwrap(), 0);
    for side in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(builder.add_open_box(side, material).is_err(), "side {side}");
    }
    builder.add_body(BodySpec::new(Shape::sphere(0.1).unwrap(), 1000.0).unwrap().with_position([0.5, 0.5, 0.5]));
    let scene = builder.build().unwrap();
    assert_eq!(scene.statics().len(), 5, "the ground and four walls");
}

/// Asserts that `r` is [`KernelError::InvalidParameter`] naming `name` with the value `value`.
fn assert_refused<T: std::fmt::Debug>(r: Result<T, MechanicsError>, name: &str, value: f64) {
    use nonsmooth_kernel::KernelError;
    match r {
        Err(MechanicsError::Kernel(KernelError::InvalidParameter { name: n, value: v, .. })) => {
            assert_eq!(n, name);
            assert!(v.to_bits() == value.to_bits(), "{name}: {v} instead of {value}");
        }
        other => panic!("{name} = {value} accepted: {other:?}"),
    }
}

/// Materials, statics, bodies and options out of range are refused with their name and value:
/// nothing reaches the simulation that the laws and the integrator would not accept.
#[test]
fn scene_parameters_out_of_range_are_refused_with_their_values() -> Result<(), MechanicsError> {
    use nonsmooth_mechanics::geometry::Pose;
    use nonsmooth_mechanics::scene::SceneOptions;
    for mu in [-0.1, f64::NAN, f64::INFINITY] {
        assert_refused(Material::new(mu, 0.0), "friction", mu);
    }
    for e in [1.5, -1.0, f64::NAN] {
        assert_refused(Material::new(0.3, e), "restitution", e);
    }
    let m = Material::new(0.4, 1.0)?;
    assert_eq!((m.friction(), m.restitution()), (0.4, 1.0));

    let mut b = SceneBuilder::new();
    assert_refused(b.add_ground(f64::NAN, m), "ground height", f64::NAN);
    assert_refused(b.add_wall([0.0, f64::INFINITY, 0.0], [1.0, 0.0, 0.0], m), "wall point", f64::INFINITY);
    assert_refused(b.add_wall([0.0; 3], [1.0, f64::NAN, 0.0], m), "wall normal", f64::NAN);
    let mut pose = Pose::from_translation([0.0, 0.0, 1.0]);
    pose.rotation[1][2] = f64::NEG_INFINITY;
    assert_refused(b.add_static(Shape::sphere(0.1)?, pose, m), "static pose", f64::NEG_INFINITY);
    assert!(b.add_ground(-1.0, m).is_ok());

    let sphere = BodySpec::new(Shape::sphere(0.05)?, 1000.0)?;
    for density in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(BodySpec::new(Shape::sphere(0.05)?, density).is_err(), "density {density}");
    }
    let with_body = |body: BodySpec| {
        let mut b = SceneBuilder::new();
        b.add_body(body);
        b.build()
    };
    assert_refused(with_body(sphere.clone().with_position([0.0, f64::NAN, 0.0])), "body position", f64::NAN);
    assert_refused(
        with_body(sphere.clone().with_orientation(Quaternion::new(f64::INFINITY, 0.0, 0.0, 0.0))),
        "body orientation",
        f64::INFINITY,
    );
    assert_refused(
        with_body(sphere.clone().with_velocity([f64::NEG_INFINITY, 0.0, 0.0])),
        "body velocity",
        f64::NEG_INFINITY,
    );
    assert_refused(
        with_body(sphere.clone().with_angular_velocity([0.0, 0.0, f64::NAN])),
        "body angular velocity",
        f64::NAN,
    );
    assert!(with_body(sphere.with_velocity([1.0, 2.0, 3.0])).is_ok());

    let with_options = |options: SceneOptions| SceneBuilder::new().with_options(options).build();
    let o = SceneOptions::default;
    for h in [0.0, -1e-3, f64::NAN, f64::INFINITY] {
        assert_refused(with_options(o().with_time_step(h)), "time step", h);
    }
    assert_refused(with_options(o().with_final_time(f64::INFINITY)), "final time", f64::INFINITY);
    for theta in [-0.1, 1.5, f64::NAN] {
        assert_refused(with_options(o().with_theta(theta)), "theta", theta);
    }
    assert_refused(with_options(o().with_gravity([0.0, 0.0, f64::NAN])), "gravity", f64::NAN);
    for margin in [-1e-3, f64::NAN, f64::INFINITY] {
        assert_refused(with_options(o().with_margin(margin)), "margin", margin);
    }
    assert!(with_options(o().with_theta(1.0).with_margin(0.0)).is_ok());
    Ok(())
}

/// A column of five spheres dropped on the ground, NSGS capped at three sweeps so that some
/// steps end above the tolerance, under `policy`.
fn capped_column(policy: nonsmooth_mechanics::scene::SceneNonConvergence) -> Result<Scene, MechanicsError> {
    use nonsmooth_mechanics::scene::SceneOptions;
    use nonsmooth_numerics::fc::Fc3dMethod;
    let r = 0.05;
    let nsgs = SceneOptions::default_nsgs().with_max_iterations(3);
    let options = SceneOptions::default().with_final_time(0.3).with_method(Fc3dMethod::Nsgs(nsgs)).with_policy(policy);
    let mut b = SceneBuilder::new().with_options(options);
    b.add_ground(0.0, Material::default())?;
    for k in 0..5 {
        b.add_body(BodySpec::new(Shape::sphere(r)?, 1000.0)?.with_position([0.0, 0.0, r + 2.05 * r * k as f64]));
    }
    b.build()
}

/// The scenes' policy: a step that ends far above the tolerance (more than `factor` times)
/// stops the scene with its time, its step and the solver's report; smaller misses go on and
/// are counted by `Scene::unconverged_steps`.
#[test]
fn scenes_stop_far_above_the_tolerance_and_count_small_misses() -> Result<(), MechanicsError> {
    use nonsmooth_kernel::KernelError;
    use nonsmooth_mechanics::scene::SceneNonConvergence;
    let tolerance = nonsmooth_mechanics::scene::SceneOptions::default_nsgs().tolerance;

    // The reference run goes on whatever happens.
    let mut scene = capped_column(SceneNonConvergence::Continue)?;
    let mut steps = Vec::new();
    while scene.has_next_step() {
        let report = scene.step()?.step;
        assert!(report.newton_converged);
        steps.push((report.step, report.time, report.osns));
    }
    let misses: Vec<_> = steps
        .iter()
        .filter_map(|&(step, time, osns)| osns.filter(|o| !o.is_converged()).map(|o| (step, time, o)))
        .collect();
    let ratio = |o: &nonsmooth_numerics::SolverReport| o.residual / tolerance;
    let farthest = misses.iter().map(|(_, _, o)| ratio(o)).fold(0.0, f64::max);
    println!("{} of {} steps above the tolerance, the farthest {farthest:.1} times", misses.len(), steps.len());
    assert!(misses.len() >= 2 && misses.iter().all(|(_, _, o)| ratio(o) > 1.0));
    assert_eq!(scene.unconverged_steps(), misses.len());

    // Small misses: a factor above the farthest lets the run go on, the same run, counted.
    let mut scene = capped_column(SceneNonConvergence::FailAbove { factor: 2.0 * farthest })?;
    for (_, _, expected) in &steps {
        let osns = scene.step()?.step.osns;
        assert_eq!(osns.map(|o| o.residual.to_bits()), expected.map(|o| o.residual.to_bits()));
    }
    assert_eq!(scene.unconverged_steps(), misses.len());

    // Far above: a factor below the farthest stops at the first step beyond it.
    let factor = 0.5 * (1.0 + farthest);
    let (step, time, report) = misses.iter().find(|(_, _, o)| ratio(o) > factor).expect("one is beyond");
    let mut scene = capped_column(SceneNonConvergence::FailAbove { factor })?;
    let stopped = loop {
        match scene.step() {
            Ok(_) => assert!(scene.has_next_step(), "the run ended without stopping"),
            Err(e) => break e,
        }
    };
    match stopped {
        MechanicsError::Kernel(KernelError::NotConverged { step: s, time: t, report: r }) => {
            assert_eq!((s, t.to_bits()), (*step, time.to_bits()));
            assert_eq!(r.residual.to_bits(), report.residual.to_bits());
        }
        other => panic!("expected NotConverged, got {other:?}"),
    }
    // Fail stops at the first miss.
    let mut scene = capped_column(SceneNonConvergence::Fail)?;
    let first = loop {
        if let Err(e) = scene.step() {
            break e;
        }
    };
    assert!(matches!(first, MechanicsError::Kernel(KernelError::NotConverged { step, .. }) if step == misses[0].0));

    // The factor is checked.
    for factor in [0.5, f64::NAN, f64::INFINITY] {
        assert_refused(capped_column(SceneNonConvergence::FailAbove { factor }), "non-convergence factor", factor);
    }
    Ok(())
}

/// An impact at −1e200 m/s cannot be solved to the tolerance: under the default policy the
/// scene stops instead of stepping on.
#[test]
fn a_hopeless_impact_stops_the_scene_by_default() -> Result<(), MechanicsError> {
    let r = 0.05;
    let mut b = SceneBuilder::new().with_final_time(0.05);
    b.add_ground(0.0, Material::default())?;
    b.add_body(
        BodySpec::new(Shape::sphere(r)?, 1000.0)?.with_position([0.0, 0.0, r]).with_velocity([0.0, 0.0, -1e200]),
    );
    let mut scene = b.build()?;
    let mut outcome = Ok(());
    while scene.has_next_step() {
        match scene.step() {
            Ok(report) => println!("t = {}: {:?}", scene.time(), report.step.osns),
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    println!("{outcome:?} after {} steps", scene.steps_done());
    assert!(outcome.is_err(), "{} steps went on", scene.steps_done());
    Ok(())
}

/// The run summary of a scene: each step that stopped above the tolerance is counted, the worst
/// error is recorded with its time and step, and the line says so; a run whose every step
/// converged says that instead.
#[test]
fn the_run_summary_counts_the_steps_above_the_tolerance_and_the_worst() -> Result<(), MechanicsError> {
    use nonsmooth_mechanics::scene::SceneNonConvergence;
    let mut scene = capped_column(SceneNonConvergence::Continue)?;
    let (mut misses, mut worst) = (0, None::<(usize, f64, f64)>);
    while scene.has_next_step() {
        let report = scene.step()?;
        assert_eq!(report.converged(), report.solver().is_none_or(|o| o.is_converged()));
        if !report.converged() {
            misses += 1;
            let residual = report.solver().expect("an unconverged problem").residual;
            if worst.is_none_or(|(_, _, r)| residual > r) {
                worst = Some((report.step.step, report.step.time, residual));
            }
        }
    }
    let summary = scene.run_summary();
    let (step, time, residual) = worst.expect("the capped column misses");
    assert_eq!((summary.steps, summary.unconverged, summary.problem_misses), (scene.steps_done(), misses, misses));
    let miss = summary.worst_problem.expect("a worst step");
    assert_eq!((miss.step, miss.time.to_bits(), miss.residual.to_bits()), (step, time.to_bits(), residual.to_bits()));
    let line = summary.to_string();
    println!("{line}");
    assert!(
        line.starts_with(&format!(
            "{} steps; {misses} stopped above the tolerance 1e-4, worst error",
            scene.steps_done()
        ))
    );
    assert!(line.ends_with(&format!("(step {step})")));

    let r = 0.05;
    let mut b = SceneBuilder::new().with_final_time(0.05);
    b.add_ground(0.0, Material::default())?;
    b.add_body(BodySpec::new(Shape::sphere(r)?, 1000.0)?.with_position([0.0, 0.0, r]));
    let mut scene = b.build()?;
    while scene.has_next_step() {
        scene.step()?;
    }
    assert!(scene.run_summary().all_converged());
    assert_eq!(scene.run_summary().to_string(), format!("{} steps, all converged to 1e-4", scene.steps_done()));
    Ok(())
}
