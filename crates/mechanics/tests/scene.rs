//! Scenes: contact detection feeding Moreau–Jean with FC3D, on cases with known answers.

use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::Shape;
use nonsmooth_mechanics::lie::Quaternion;
use nonsmooth_mechanics::scene::{BodySpec, Material, SceneBuilder};

#[test]
fn a_dropped_box_comes_to_rest_on_four_contacts() -> Result<(), MechanicsError> {
    let mut b = SceneBuilder::new().with_time_step(1e-3).with_final_time(1.0);
    b.add_ground(0.0, Material::new(0.5, 0.0)?);
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
    b.add_ground(0.0, Material::default());
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
        b.add_ground(0.0, Material::new(0.5, 0.0)?);
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
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
        pool.install(|| {
            let nsgs = SceneOptions::default_nsgs().with_parallel(true);
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
        })
    };
    let (one, contacts, sweeps) = run(1)?;
    let (two, _, sweeps_two) = run(2)?;
    println!("1000 spheres after 0.3 s: {contacts} contacts, {sweeps} sweeps (1 thread), {sweeps_two} (2 threads)");
    assert!(contacts >= 2048, "{contacts} contacts: the pile has settled");
    assert_eq!(sweeps, sweeps_two);
    assert!(one == two, "the states differ between 1 and 2 threads");
    Ok(())
}
