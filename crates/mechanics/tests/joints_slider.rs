//! Joints under the kernel's Moreau–Jean scheme (`θ = ½`, `h = 1e-3`, MLCP by enumeration):
//! a body sliding down an inclined prismatic joint onto a stop, and two bodies welded by a
//! fixed joint, only one of them under gravity.

use nonsmooth_kernel::model::{DsId, NonsmoothLaw, Nsds};
use nonsmooth_kernel::numerics::mlcp::{EnumOptions, MlcpMethod};
use nonsmooth_kernel::simulation::{
    MoreauJeanOptions, MoreauJeanOsi, OneStepNsProblem, ProblemLevel, TimeDiscretisation, TimeStepping,
    TimeSteppingOptions,
};
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::body::NewtonEulerDs;
use nonsmooth_mechanics::joints::{FixedJoint, JointCoordinate, JointStop, PrismaticJoint, Reference};
use nonsmooth_mechanics::relation::{NewtonEulerR, NewtonEulerRelation};

const G: f64 = 9.81;
const H: f64 = 1e-3;
const INERTIA: [[f64; 3]; 3] = [[0.2, 0.0, 0.0], [0.0, 0.3, 0.0], [0.0, 0.0, 0.4]];

fn simulation(nsds: Nsds, systems: Vec<DsId>) -> Result<TimeStepping, MechanicsError> {
    let enumeration = MlcpMethod::Enum(EnumOptions::default().with_tolerance(1e-12));
    Ok(TimeStepping::builder(nsds, TimeDiscretisation::new(0.0, H, 100.0)?)
        .options(TimeSteppingOptions::default().with_newton_tolerance(1e-12))
        .integrator(MoreauJeanOsi::new(MoreauJeanOptions::default())?, systems)
        .problem(ProblemLevel::Velocity, OneStepNsProblem::mlcp(enumeration)?)
        .build()?)
}

/// A body on a prismatic joint with the world along `A = (cos α, 0, sin α)`, `α = 0.5`,
/// released at rest: it slides down with `s̈ = −g sin α` (the trapezoidal rule of `θ = ½` is
/// exact for a constant acceleration), so the joint's displacement (body 2, the world,
/// relative to body 1) is `d(t) = ½ g sin α t²`, until the upper stop `d ≤ 0.1` with `e = 0`
/// holds it at rest (a Newton impact law on a joint coordinate in the same MLCP as the five
/// equality rows).
#[test]
fn a_body_slides_down_a_prismatic_joint_onto_its_stop() -> Result<(), MechanicsError> {
    let alpha: f64 = 0.5;
    let axis = [alpha.cos(), 0.0, alpha.sin()];
    let q0 = [0.3, -0.2, 1.0, 1.0, 0.0, 0.0, 0.0];
    let body = NewtonEulerDs::new(q0, [0.0; 6], 2.0, INERTIA)?.with_external_force([0.0, 0.0, -2.0 * G])?;
    let mut nsds = Nsds::new();
    let ds = nsds.add_ds(body);
    let prismatic = PrismaticJoint::new(axis, Reference::Inertial, &q0, None)?;
    nsds.link(NewtonEulerR::new(prismatic.clone())?, NonsmoothLaw::equality(5)?, &[ds])?;
    let stop = 0.1;
    nsds.link(
        NewtonEulerR::new(JointStop::upper(prismatic.clone(), stop)?)?,
        NonsmoothLaw::newton_impact(0.0)?,
        &[ds],
    )?;
    let mut sim = simulation(nsds, vec![ds])?;
    let mut joint = prismatic;
    let mut y = [0.0; 5];
    let (mut free_error, mut drift, mut penetration, mut speed) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut first_contact = None;
    for k in 1..=1000 {
        let report = sim.step()?;
        assert!(report.newton_converged && report.solver().is_none_or(|r| r.is_converged()), "{report:?}");
        let q = sim.nsds().ds(ds)?.state().q().to_vec();
        let v = sim.nsds().ds(ds)?.state().v().to_vec();
        joint.output(&q, &mut y)?;
        drift = drift.max(y.iter().fold(0.0f64, |a, x| a.max(x.abs())));
        let d = joint.coordinate(&q);
        let t = k as f64 * H;
        let free = 0.5 * G * alpha.sin() * t * t;
        if free < stop - 2e-3 {
            free_error = free_error.max((d - free).abs());
        } else if free > stop + 0.05 {
            first_contact.get_or_insert(k);
            penetration = penetration.max(d - stop);
            speed = speed.max(v.iter().fold(0.0f64, |a, x| a.max(x.abs())));
        }
    }
    println!(
        "prismatic slide: max |d − ½ g sin α t²| before the stop {free_error:.2e}; at the stop \
         max d − d_stop {penetration:.2e}, max |v| {speed:.2e}; max joint drift {drift:.2e}"
    );
    assert!(first_contact.is_some());
    assert!(free_error <= 1e-10, "{free_error:e}");
    // At rest on the stop, past it by the velocity-level scheme's penetration of the impact
    // step (below h times the impact velocity, about 1 m/s), which a linear stop keeps.
    assert!(speed <= 1e-9, "{speed:e}");
    assert!((0.0..=H).contains(&penetration), "{penetration:e}");
    assert!(drift <= 1e-10, "{drift:e}");
    Ok(())
}

/// Body 1 (mass 2, under gravity) above body 2 (mass 1, no force), welded by a fixed joint:
/// the pair falls with `z̈ = −g m₁/(m₁ + m₂)` and keeps its shape (the joint carries the
/// weight `m₂ z̈` of body 2).
#[test]
fn welded_bodies_fall_together() -> Result<(), MechanicsError> {
    let (m1, m2) = (2.0, 1.0);
    let q1 = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    let p = nonsmooth_mechanics::lie::Quaternion::from_axis_angle([0.3, -0.4, 0.8], 0.6)?;
    let q2 = [0.0, 0.0, 0.4, p.w, p.x, p.y, p.z];
    let mut nsds = Nsds::new();
    let b1 = nsds.add_ds(NewtonEulerDs::new(q1, [0.0; 6], m1, INERTIA)?.with_external_force([0.0, 0.0, -m1 * G])?);
    let b2 = nsds.add_ds(NewtonEulerDs::new(q2, [0.0; 6], m2, INERTIA)?);
    let mut fixed = FixedJoint::new(&q1, Some(&q2))?;
    nsds.link(NewtonEulerR::new(fixed.clone())?, NonsmoothLaw::equality(6)?, &[b1, b2])?;
    let mut sim = simulation(nsds, vec![b1, b2])?;
    let a = G * m1 / (m1 + m2);
    let (mut error, mut drift) = (0.0f64, 0.0f64);
    let mut y = [0.0; 6];
    for k in 1..=500 {
        sim.step()?;
        let t = k as f64 * H;
        let qa = sim.nsds().ds(b1)?.state().q().to_vec();
        let qb = sim.nsds().ds(b2)?.state().q().to_vec();
        error = error.max((qa[2] - (1.0 - 0.5 * a * t * t)).abs()).max((qb[2] - (0.4 - 0.5 * a * t * t)).abs());
        fixed.output(&[qa, qb].concat(), &mut y)?;
        drift = drift.max(y.iter().fold(0.0f64, |m, x| m.max(x.abs())));
    }
    println!("welded pair: max |z − z_analytic| {error:.2e}, max joint drift {drift:.2e}");
    assert!(error <= 1e-10, "{error:e}");
    assert!(drift <= 1e-10, "{drift:e}");
    Ok(())
}

/// Two bodies (`m = 1`, isotropic inertia `0.05` about their centres) in a chain of two pivots
/// about `y`: body 1 hangs from the world at distance `L₁ = 1`, body 2 from the centre of
/// body 1 at distance `L₂ = 1`. Linearized, `M θ̈ + K θ = 0` with
/// `M = [[m₁L₁² + I₁ + m₂L₁², m₂L₁L₂], [m₂L₁L₂, m₂L₂² + I₂]]`, `K = diag((m₁ + m₂) g L₁, m₂ g L₂)`
/// (absolute angles; e.g. Goldstein, Classical Mechanics, §6.4): released in either normal
/// mode at `θ₁ = 0.005` rad, the chain swings with that mode's period.
#[test]
fn a_double_pendulum_swings_in_its_normal_modes() -> Result<(), MechanicsError> {
    use nonsmooth_mechanics::joints::PivotJoint;
    use nonsmooth_mechanics::lie::Quaternion;
    let (m, l, i) = (1.0, 1.0, 0.05);
    let inertia = [[i, 0.0, 0.0], [0.0, i, 0.0], [0.0, 0.0, i]];
    let (m11, m12, m22) = (m * l * l + i + m * l * l, m * l * l, m * l * l + i);
    let (k11, k22) = (2.0 * m * G * l, m * G * l);
    // det(K − λM) = 0.
    let (a, b, c) = (m11 * m22 - m12 * m12, -(k11 * m22 + k22 * m11), k11 * k22);
    let root = (b * b - 4.0 * a * c).sqrt();
    for lambda in [(-b - root) / (2.0 * a), (-b + root) / (2.0 * a)] {
        let expected = 2.0 * std::f64::consts::PI / lambda.sqrt();
        let ratio = (k11 - lambda * m11) / (lambda * m12);
        let amplitude = 0.005;
        let (theta1, theta2) = (amplitude, amplitude * ratio);
        let p1 = Quaternion::from_axis_angle([0.0, 1.0, 0.0], theta1)?;
        let p2 = Quaternion::from_axis_angle([0.0, 1.0, 0.0], theta2)?;
        let x1 = p1.rotate([0.0, 0.0, -l]);
        let x2 = nonsmooth_mechanics::lie::add(x1, p2.rotate([0.0, 0.0, -l]));
        let q1 = [x1[0], x1[1], x1[2], p1.w, p1.x, p1.y, p1.z];
        let q2 = [x2[0], x2[1], x2[2], p2.w, p2.x, p2.y, p2.z];
        let mut nsds = Nsds::new();
        let b1 = nsds.add_ds(NewtonEulerDs::new(q1, [0.0; 6], m, inertia)?.with_external_force([0.0, 0.0, -m * G])?);
        let b2 = nsds.add_ds(NewtonEulerDs::new(q2, [0.0; 6], m, inertia)?.with_external_force([0.0, 0.0, -m * G])?);
        let top = PivotJoint::new([0.0; 3], [0.0, 1.0, 0.0], Reference::Inertial, &q1, None)?;
        let mut elbow = PivotJoint::new(x1, [0.0, 1.0, 0.0], Reference::Inertial, &q1, Some(&q2))?;
        nsds.link(NewtonEulerR::new(top)?, NonsmoothLaw::equality(5)?, &[b1])?;
        nsds.link(NewtonEulerR::new(elbow.clone())?, NonsmoothLaw::equality(5)?, &[b1, b2])?;
        let mut sim = simulation(nsds, vec![b1, b2])?;
        let steps = (3.2 * expected / H) as usize;
        let (mut angles, mut drift) = (Vec::with_capacity(steps), 0.0f64);
        let mut y = [0.0; 5];
        for _ in 0..steps {
            let report = sim.step()?;
            assert!(report.newton_converged && report.solver().is_none_or(|r| r.is_converged()), "{report:?}");
            let qa = sim.nsds().ds(b1)?.state().q().to_vec();
            let qb = sim.nsds().ds(b2)?.state().q().to_vec();
            angles.push(2.0 * qa[5].atan2(qa[3]));
            elbow.output(&[qa, qb].concat(), &mut y)?;
            drift = drift.max(y.iter().fold(0.0f64, |acc, x| acc.max(x.abs())));
        }
        let crossings: Vec<f64> = angles
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
            .map(|(k, w)| H * ((k + 1) as f64 + w[0] / (w[0] - w[1])))
            .collect();
        assert!(crossings.len() >= 3, "{crossings:?}");
        let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
        let error = (period - expected).abs() / expected;
        println!(
            "double pendulum, mode θ₂/θ₁ = {ratio:.4}: period {period:.6} s vs {expected:.6} s \
             (relative error {error:.2e}), max elbow drift {drift:.2e}"
        );
        // At 0.02 rad the fast mode is 6.3e-4 off, at 0.005 rad 3.5e-5: the amplitude's
        // nonlinearity, not the joints.
        assert!(error <= 1e-4, "period {period} vs {expected}");
        assert!(drift <= 1e-6, "{drift:e}");
    }
    Ok(())
}
