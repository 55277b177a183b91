//! Scenes: contact detection feeding Moreau–Jean with FC3D, on cases with known answers.

use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::Shape;
use nonsmooth_mechanics::lie::Quaternion;
use nonsmooth_mechanics::scene::{BodySpec, Material, Scene, SceneBuilder};

const G: f64 = 9.81;

/// A sphere of radius `r` launched along x without spin on the ground: it slides with
/// `v = v0 − μ g t`, `ω = (5 μ g / 2r) t` until `v = ω r`, at `t* = 2 v0 / (7 μ g)`.
fn rolling_sphere(h: f64, mu: f64, v0: f64, r: f64) -> Result<(Scene, f64), MechanicsError> {
    let mut b = SceneBuilder::new().with_time_step(h).with_final_time(0.4);
    b.add_ground(0.0, Material::new(mu, 0.0)?);
    b.add_body(
        BodySpec::new(Shape::sphere(r)?, 1000.0)?
            .with_position([0.0, 0.0, r])
            .with_velocity([v0, 0.0, 0.0])
            .with_material(Material::new(mu, 0.0)?),
    );
    Ok((b.build()?, 2.0 * v0 / (7.0 * mu * G)))
}

/// Slip velocity `v_x − (R Ω)_y r` of the contact point.
fn slip(scene: &Scene, r: f64) -> Result<f64, MechanicsError> {
    let (q, v) = scene.body_state(0)?;
    let rot = Quaternion::new(q[3], q[4], q[5], q[6]).to_rotation_matrix();
    let wy = rot[1][0] * v[3] + rot[1][1] * v[4] + rot[1][2] * v[5];
    Ok(v[0] - wy * r)
}

#[test]
fn sliding_to_rolling_transition_time_is_the_analytic_one() -> Result<(), MechanicsError> {
    let (mu, v0, r) = (0.3, 2.0, 0.1);
    let (mut scene, t_star) = rolling_sphere(1e-4, mu, v0, r)?;
    let (mut t_prev, mut s_prev) = (0.0, slip(&scene, r)?);
    let mut transition = None;
    let mut max_sink = 0.0f64;
    while scene.has_next_step() {
        let report = scene.step()?;
        assert!(report.step.newton_converged);
        let s = slip(&scene, r)?;
        let (q, _) = scene.body_state(0)?;
        max_sink = max_sink.max(r - q[2]);
        if transition.is_none() && s <= 1e-9 * v0 {
            // Slip decreases linearly while sliding: interpolate its zero.
            transition = Some(t_prev + (scene.time() - t_prev) * s_prev / (s_prev - s));
        }
        (t_prev, s_prev) = (scene.time(), s);
    }
    let transition = transition.expect("the sphere starts rolling");
    let (q, v) = scene.body_state(0)?;
    println!(
        "rolling sphere: t* = {t_star:.6}, measured {transition:.6} (|diff| {:.2e}, relative {:.2e}); final v = {:.6} (analytic 5/7 v0 = {:.6}); max sink {max_sink:.2e}; z = {}",
        (transition - t_star).abs(),
        (transition - t_star).abs() / t_star,
        v[0],
        5.0 / 7.0 * v0,
        q[2]
    );
    assert!((transition - t_star).abs() <= 1e-3 * t_star, "transition at {transition}, analytic {t_star}");
    assert!((v[0] - 5.0 / 7.0 * v0).abs() < 1e-3, "rolling speed {}", v[0]);
    Ok(())
}

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
