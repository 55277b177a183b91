//! Joints (`nonsmooth_mechanics::joints`): every analytic twist-space Jacobian against central
//! finite differences of `h` along `q ← q + T(q) δ` at random poses; `h = 0` along the free
//! motions of each joint and not along the others; the pivot angle and the prismatic
//! displacement with their stops; bad input refused with typed errors.

use std::f64::consts::PI;

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::LagrangianRelation;
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::joints::{
    BallJoint, CylindricalJoint, FixedJoint, JointCoordinate, JointStop, PivotJoint, PrismaticJoint, Reference,
};
use nonsmooth_mechanics::lie::{Quaternion, Vec3, add, normalize, sub, t_operator};
use nonsmooth_mechanics::relation::{NewtonEulerR, NewtonEulerRelation};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const SEED: u64 = 0x6a6f_696e_7473;

fn random_vec(rng: &mut StdRng, half_width: f64) -> Vec3 {
    std::array::from_fn(|_| rng.random_range(-half_width..half_width))
}

fn random_quaternion(rng: &mut StdRng) -> Quaternion {
    loop {
        let p = Quaternion::from_array(std::array::from_fn(|_| rng.random_range(-1.0..1.0)));
        if p.norm() > 0.1 {
            return p.normalized().expect("non-zero");
        }
    }
}

fn random_pose(rng: &mut StdRng) -> [f64; 7] {
    let x = random_vec(rng, 2.0);
    let p = random_quaternion(rng);
    [x[0], x[1], x[2], p.w, p.x, p.y, p.z]
}

fn pose(x: Vec3, p: Quaternion) -> [f64; 7] {
    [x[0], x[1], x[2], p.w, p.x, p.y, p.z]
}

fn centre(q: &[f64]) -> Vec3 {
    [q[0], q[1], q[2]]
}

fn orientation(q: &[f64]) -> Quaternion {
    Quaternion::new(q[3], q[4], q[5], q[6])
}

/// `q + T(q) δ`, body by body.
fn displaced(q: &[f64], delta: &[f64]) -> Vec<f64> {
    let mut out = q.to_vec();
    for b in 0..q.len() / 7 {
        let qb: [f64; 7] = std::array::from_fn(|k| q[7 * b + k]);
        let t = t_operator(&qb);
        for r in 0..7 {
            out[7 * b + r] += (0..6).map(|c| t[r][c] * delta[6 * b + c]).sum::<f64>();
        }
    }
    out
}

/// The largest `|H − H_fd|` relative to `max(1, max |H|)`, `H_fd` by central differences of
/// `h` along `q ← q + T(q) δ`.
fn jacobian_error(relation: &mut impl NewtonEulerRelation, q: &[f64]) -> f64 {
    let (m, n) = (relation.size(), 6 * relation.bodies());
    let mut h = vec![0.0; m * n];
    relation.jacobian(q, &mut h).expect("H(q) of a joint");
    let eps = 1e-6;
    let (mut yp, mut ym) = (vec![0.0; m], vec![0.0; m]);
    let mut worst = 0.0f64;
    for c in 0..n {
        let mut delta = vec![0.0; n];
        delta[c] = eps;
        relation.output(&displaced(q, &delta), &mut yp).expect("h(q) of a joint");
        delta[c] = -eps;
        relation.output(&displaced(q, &delta), &mut ym).expect("h(q) of a joint");
        for i in 0..m {
            let fd = (yp[i] - ym[i]) / (2.0 * eps);
            worst = worst.max((fd - h[i * n + c]).abs());
        }
    }
    let scale = h.iter().fold(1.0f64, |a, x| a.max(x.abs()));
    worst / scale
}

fn output(relation: &mut impl NewtonEulerRelation, q: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; relation.size()];
    relation.output(q, &mut y).expect("h(q) of a joint");
    y
}

fn max_abs(y: &[f64]) -> f64 {
    y.iter().fold(0.0f64, |a, x| a.max(x.abs()))
}

/// Builds joints of every kind at random initial poses (with the world, then between two
/// bodies, anchors and axes in both references) and checks `H` at other random poses.
fn check_jacobians<R: NewtonEulerRelation>(
    name: &str,
    size: usize,
    mut build: impl FnMut(&mut StdRng, Reference, &[f64], Option<&[f64]>) -> Result<R, MechanicsError>,
) -> Result<(), MechanicsError> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut worst = 0.0f64;
    for trial in 0..40 {
        let two = trial % 2 == 1;
        let reference = if trial % 4 < 2 { Reference::Body } else { Reference::Inertial };
        let q1 = random_pose(&mut rng);
        let q2 = random_pose(&mut rng);
        let mut joint = build(&mut rng, reference, &q1, two.then_some(&q2[..]))?;
        assert_eq!(joint.size(), size, "{name}");
        assert_eq!(joint.bodies(), 1 + usize::from(two), "{name}");
        let q0 = if two { [q1, q2].concat() } else { q1.to_vec() };
        let initial = max_abs(&output(&mut joint, &q0));
        assert!(initial <= 1e-12, "{name}: |h(q0)| = {initial:e}");
        let q =
            if two { [random_pose(&mut rng), random_pose(&mut rng)].concat() } else { random_pose(&mut rng).to_vec() };
        let error = jacobian_error(&mut joint, &q);
        worst = worst.max(error);
        assert!(error <= 1e-6, "{name} (trial {trial}): relative error {error:e}");
    }
    println!("{name}: worst relative error of H against finite differences {worst:e}");
    Ok(())
}

#[test]
fn ball_jacobian_matches_finite_differences() -> Result<(), MechanicsError> {
    check_jacobians("ball", 3, |rng, reference, q1, q2| BallJoint::new(random_vec(rng, 1.0), reference, q1, q2))
}

#[test]
fn pivot_jacobian_matches_finite_differences() -> Result<(), MechanicsError> {
    check_jacobians("pivot", 5, |rng, reference, q1, q2| {
        PivotJoint::new(random_vec(rng, 1.0), random_vec(rng, 1.0), reference, q1, q2)
    })
}

#[test]
fn prismatic_jacobian_matches_finite_differences() -> Result<(), MechanicsError> {
    check_jacobians("prismatic", 5, |rng, reference, q1, q2| {
        PrismaticJoint::new(random_vec(rng, 1.0), reference, q1, q2)
    })
}

#[test]
fn cylindrical_jacobian_matches_finite_differences() -> Result<(), MechanicsError> {
    check_jacobians("cylindrical", 4, |rng, reference, q1, q2| {
        CylindricalJoint::new(random_vec(rng, 1.0), random_vec(rng, 1.0), reference, q1, q2)
    })
}

#[test]
fn fixed_jacobian_matches_finite_differences() -> Result<(), MechanicsError> {
    check_jacobians("fixed", 6, |_, _, q1, q2| FixedJoint::new(q1, q2))
}

/// The angle Jacobian, away from the singular pose `r = (0, A⊥)` (a half turn about an axis
/// orthogonal to `A`): poses rotated about the axis plus a small random perturbation.
#[test]
fn coordinate_jacobians_match_finite_differences() -> Result<(), MechanicsError> {
    let mut rng = StdRng::seed_from_u64(SEED + 1);
    let mut worst = 0.0f64;
    for trial in 0..40 {
        let two = trial % 2 == 1;
        let q1 = random_pose(&mut rng);
        let q2 = random_pose(&mut rng);
        let q2opt = two.then_some(&q2[..]);
        let axis = normalize(random_vec(&mut rng, 1.0))?;
        let point = random_vec(&mut rng, 1.0);
        let pivot = PivotJoint::new(point, axis, Reference::Body, &q1, q2opt)?;
        let prismatic = PrismaticJoint::new(axis, Reference::Body, &q1, q2opt)?;
        // Body 1 turned about its own axis A by up to ±3 rad, then perturbed.
        let turn = Quaternion::from_axis_angle(axis, rng.random_range(-3.0..3.0))?;
        let wobble = Quaternion::exp(random_vec(&mut rng, 0.2));
        let p = orientation(&q1) * turn * wobble;
        let moved = pose(add(centre(&q1), random_vec(&mut rng, 0.5)), p);
        let q = if two { [moved, q2].concat() } else { moved.to_vec() };
        for stop in [
            &mut JointStop::lower(pivot.clone(), -0.5)? as &mut dyn NewtonEulerRelationDyn,
            &mut JointStop::upper(pivot.clone(), 0.7)?,
            &mut JointStop::lower(prismatic.clone(), 0.1)?,
            &mut JointStop::upper(prismatic.clone(), 0.3)?,
        ] {
            let error = stop.error(&q);
            worst = worst.max(error);
            assert!(error <= 1e-6, "trial {trial}: relative error {error:e}");
        }
    }
    println!("joint stops: worst relative error of H against finite differences {worst:e}");
    Ok(())
}

/// Object-safe access to [`jacobian_error`] for a list of different stops.
trait NewtonEulerRelationDyn {
    fn error(&mut self, q: &[f64]) -> f64;
}

impl<R: NewtonEulerRelation> NewtonEulerRelationDyn for R {
    fn error(&mut self, q: &[f64]) -> f64 {
        jacobian_error(self, q)
    }
}

/// Rotates the pose `q` by `rotation` about the inertial point `about`.
fn rotated(q: &[f64], rotation: Quaternion, about: Vec3) -> [f64; 7] {
    let x = add(about, rotation.rotate(sub(centre(q), about)));
    pose(x, rotation * orientation(q))
}

fn translated(q: &[f64], by: Vec3) -> [f64; 7] {
    pose(add(centre(q), by), orientation(q))
}

#[test]
fn joints_hold_along_their_free_motions_only() -> Result<(), MechanicsError> {
    let mut rng = StdRng::seed_from_u64(SEED + 2);
    for _ in 0..20 {
        let q1 = random_pose(&mut rng);
        let q2 = random_pose(&mut rng);
        let point = random_vec(&mut rng, 1.0);
        let axis = normalize(random_vec(&mut rng, 1.0))?;
        // Anchor and axis in the inertial frame, and a common rigid motion of both bodies.
        let common = random_quaternion(&mut rng);
        let shift = random_vec(&mut rng, 1.0);
        let carry = |q: &[f64]| translated(&rotated(q, common, [0.0; 3]), shift);
        let theta = rng.random_range(-2.0..2.0);
        let s = rng.random_range(-1.0..1.0);
        let about_axis = Quaternion::from_axis_angle(axis, theta)?;
        let off_axis = Quaternion::from_axis_angle(normalize([axis[1], -axis[0], 0.3])?, 0.2)?;

        // Pivot: rotation about the axis through the anchor.
        let mut pivot = PivotJoint::new(point, axis, Reference::Inertial, &q1, Some(&q2))?;
        let moved = rotated(&q1, about_axis, point);
        let q = [carry(&moved), carry(&q2)].concat();
        assert!(max_abs(&output(&mut pivot, &q)) <= 1e-12);
        let angle = pivot.coordinate(&q);
        assert!((angle + theta).abs() <= 1e-12, "angle {angle} vs −{theta}");
        let q = [rotated(&q1, off_axis, point), q2].concat();
        let y = output(&mut pivot, &q);
        assert!(max_abs(&y[..3]) <= 1e-12 && max_abs(&y[3..]) >= 1e-2, "{y:?}");

        // Ball: any rotation about the anchor.
        let mut ball = BallJoint::new(point, Reference::Inertial, &q1, None)?;
        let q = rotated(&q1, random_quaternion(&mut rng), point);
        assert!(max_abs(&output(&mut ball, &q)) <= 1e-12);
        assert!(max_abs(&output(&mut ball, &translated(&q1, [0.0, 0.0, 0.1]))) >= 0.05);

        // Prismatic: translation along the axis, no rotation.
        let mut prismatic = PrismaticJoint::new(axis, Reference::Inertial, &q1, Some(&q2))?;
        let moved = translated(&q1, [s * axis[0], s * axis[1], s * axis[2]]);
        let q = [carry(&moved), carry(&q2)].concat();
        assert!(max_abs(&output(&mut prismatic, &q)) <= 1e-12);
        assert!((prismatic.coordinate(&q) + s).abs() <= 1e-12);
        let q = [rotated(&q1, about_axis, centre(&q1)), q2].concat();
        assert!(max_abs(&output(&mut prismatic, &q)) >= 1e-2 * theta.abs().min(1.0));

        // Cylindrical: translation along and rotation about the axis through the anchor.
        let mut cylindrical = CylindricalJoint::new(point, axis, Reference::Inertial, &q1, Some(&q2))?;
        let moved = translated(&rotated(&q1, about_axis, point), [s * axis[0], s * axis[1], s * axis[2]]);
        let q = [carry(&moved), carry(&q2)].concat();
        assert!(max_abs(&output(&mut cylindrical, &q)) <= 1e-12);
        let q = [rotated(&q1, about_axis, add(point, [0.0, 0.0, 0.5])), q2].concat();
        let (a, b) = ([axis[0], axis[1], axis[2]], [0.0, 0.0, 0.5]);
        let off_line = sub(b, nonsmooth_mechanics::lie::scale(nonsmooth_mechanics::lie::dot(a, b), a));
        if nonsmooth_mechanics::lie::norm(off_line) > 0.1 && theta.abs() > 0.3 {
            assert!(max_abs(&output(&mut cylindrical, &q)) >= 1e-3);
        }

        // Fixed: common rigid motions only.
        let mut fixed = FixedJoint::new(&q1, Some(&q2))?;
        let q = [carry(&q1), carry(&q2)].concat();
        assert!(max_abs(&output(&mut fixed, &q)) <= 1e-12);
        let q = [translated(&q1, [s, 0.0, 0.0]), q2].concat();
        assert!(max_abs(&output(&mut fixed, &q)) >= 0.9 * s.abs());
        let mut fixed = FixedJoint::new(&q1, None)?;
        assert!(max_abs(&output(&mut fixed, &q1)) <= 1e-12);
        assert!(max_abs(&output(&mut fixed, &rotated(&q1, off_axis, centre(&q1)))) >= 1e-2);
    }
    Ok(())
}

/// The pivot angle goes on past ±π (two turns and back), and measures, as Siconos 4.4's
/// `PivotJointR::computehDoF`, body 2 (here the world) relative to body 1: body 1 turned by
/// `θ` gives `−θ` (Siconos gives −0.3 for `θ = 0.3` about `y`), the prismatic displacement
/// likewise (Siconos gives −0.25 for body 1 moved by 0.25 along the axis); the stops have the
/// signs of `JointStopR`.
#[test]
fn the_pivot_angle_is_unwrapped_and_stops_have_their_sign() -> Result<(), MechanicsError> {
    let q1 = pose([0.0, 0.0, -1.0], Quaternion::from_axis_angle([0.3, 0.1, 0.9], 0.4)?);
    let axis = [0.0, 1.0, 0.0];
    let mut pivot = PivotJoint::new([0.0, 0.0, 1.0], axis, Reference::Body, &q1, None)?;
    let inertial_axis = orientation(&q1).rotate(axis);
    let anchor = add(centre(&q1), orientation(&q1).rotate([0.0, 0.0, 1.0]));
    let angles: Vec<f64> = (0..=200)
        .map(|k| 4.0 * PI * f64::from(k) / 200.0)
        .chain((0..=200).rev().map(|k| 4.0 * PI * f64::from(k) / 200.0))
        .collect();
    let mut lower = JointStop::lower(pivot.clone(), -0.5)?;
    let mut upper = JointStop::upper(pivot.clone(), 0.5)?;
    for theta in angles {
        let q = rotated(&q1, Quaternion::from_axis_angle(inertial_axis, theta)?, anchor);
        assert!(max_abs(&output(&mut pivot, &q)) <= 1e-12);
        let angle = pivot.coordinate(&q);
        assert!((angle + theta).abs() <= 1e-9, "{angle} vs −{theta}");
        assert!((output(&mut lower, &q)[0] - (0.5 - theta)).abs() <= 1e-9);
        assert!((output(&mut upper, &q)[0] - (0.5 + theta)).abs() <= 1e-9);
    }
    let mut prismatic = PrismaticJoint::new(axis, Reference::Body, &q1, None)?;
    let mut upper = JointStop::upper(prismatic.clone(), 0.2)?;
    let q = translated(&q1, nonsmooth_mechanics::lie::scale(0.3, inertial_axis));
    assert!((prismatic.coordinate(&q) + 0.3).abs() <= 1e-12);
    assert!((output(&mut upper, &q)[0] - 0.5).abs() <= 1e-12);
    Ok(())
}

/// The joint as a kernel relation: same values, errors typed.
#[test]
fn the_kernel_adapter_checks_its_input() -> Result<(), MechanicsError> {
    let q1 = pose([0.1, 0.2, 0.3], Quaternion::from_axis_angle([1.0, 2.0, 3.0], 0.5)?);
    let q2 = pose([-0.4, 0.0, 0.7], Quaternion::from_axis_angle([0.0, 1.0, -1.0], 1.5)?);
    let joint = PivotJoint::new([0.2, 0.0, 0.1], [0.0, 0.0, 1.0], Reference::Body, &q1, Some(&q2))?;
    let mut direct = joint.clone();
    let mut relation = NewtonEulerR::new(joint)?;
    assert_eq!(relation.size(), 5);
    assert_eq!(relation.velocity_size(), Some(12));
    let q = [translated(&q1, [0.1, 0.0, 0.0]), q2].concat();
    let mut h = Mat::zeros(5, 12);
    relation.jacobian(0.0, &q, &mut h)?;
    let mut rows = vec![0.0; 60];
    assert!(relation.jacobian_rows(0.0, &q, &mut rows)?);
    let mut expected = vec![0.0; 60];
    direct.jacobian(&q, &mut expected)?;
    for i in 0..5 {
        for j in 0..12 {
            assert_eq!(h[(i, j)].to_bits(), expected[i * 12 + j].to_bits());
            assert_eq!(rows[i * 12 + j].to_bits(), expected[i * 12 + j].to_bits());
        }
    }
    let mut y = [0.0; 5];
    relation.output(0.0, &q, &mut y)?;
    assert!((y[0] - 0.1).abs() <= 1e-15);
    assert!(matches!(relation.output(0.0, &q[..7], &mut y), Err(KernelError::DimensionMismatch { .. })));
    let mut bad = q.clone();
    bad[0] = f64::NAN;
    assert!(matches!(relation.output(0.0, &bad, &mut y), Err(KernelError::NonFiniteCallback { .. })));

    let refused = |r: Result<PivotJoint, MechanicsError>| matches!(r, Err(MechanicsError::Kernel(_)));
    assert!(refused(PivotJoint::new([0.0; 3], [0.0; 3], Reference::Body, &q1, None)));
    assert!(refused(PivotJoint::new([f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], Reference::Body, &q1, None)));
    assert!(refused(PivotJoint::new([0.0; 3], [1.0, 0.0, 0.0], Reference::Body, &q1[..6], None)));
    assert!(refused(PivotJoint::new([0.0; 3], [1.0, 0.0, 0.0], Reference::Body, &[0.0; 7], None)));
    assert!(
        JointStop::lower(PivotJoint::new([0.0; 3], [1.0, 0.0, 0.0], Reference::Body, &q1, None)?, f64::INFINITY)
            .is_err()
    );
    Ok(())
}

/// One body and the world, anchor and axis in the body frame: the ball, pivot and cylindrical
/// rows are Siconos 4.4's (`KneeJointR`, `PivotJointR`, `CylindricalJointR::computeh`, values
/// printed by `tests/data/joints_siconos.py`), to round-off.
#[test]
fn rows_equal_siconos_where_they_should() -> Result<(), MechanicsError> {
    let pose_of = |x: Vec3, axis: Vec3, angle: f64| -> Result<[f64; 7], MechanicsError> {
        Ok(pose(x, Quaternion::from_axis_angle(axis, angle)?))
    };
    let q0 = pose_of([0.1, 0.2, 0.3], [1.0, 2.0, 3.0], 0.5)?;
    let q = pose_of([0.15, 0.1, 0.35], [1.0, 2.0, 2.5], 0.6)?;
    let point = [0.2, 0.0, 0.1];
    let axis = normalize([0.8, 0.3, 0.4])?;
    let siconos_ball = [0.050207533769235146, -0.09149934015444117, 0.03304079148214978];
    let siconos_pivot =
        [0.050207533769235146, -0.09149934015444117, 0.03304079148214978, -0.02900477685306582, -0.004356634456139153];
    let siconos_cylindrical = [-0.08359451740633694, 0.06954789215304374, -0.0290047768530658, -0.004356634456139149];
    let close = |ours: Vec<f64>, theirs: &[f64]| ours.iter().zip(theirs).all(|(a, b)| (a - b).abs() <= 1e-15);
    assert!(close(output(&mut BallJoint::new(point, Reference::Body, &q0, None)?, &q), &siconos_ball));
    assert!(close(output(&mut PivotJoint::new(point, axis, Reference::Body, &q0, None)?, &q), &siconos_pivot));
    let mut cylindrical = CylindricalJoint::new(point, axis, Reference::Body, &q0, None)?;
    assert!(close(output(&mut cylindrical, &q), &siconos_cylindrical));
    Ok(())
}
