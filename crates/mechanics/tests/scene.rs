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
