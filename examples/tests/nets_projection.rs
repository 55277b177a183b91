//! Projection onto the constraints of Newton–Euler bodies (`q ← q + T(q) Hᵀλ`, the quaternion
//! kept unit): Siconos' `BouncingBallNETS` under direct and combined projection against Siconos
//! 4.4 itself (`examples/data/siconos/BouncingBallNETS{Direct,Combined}Projection.ref`, written
//! by `examples/data/siconos/generate/bouncing_ball_nets_projection.py`), and a box resting on
//! a plane on four corners for 10⁴ steps.

use std::path::PathBuf;

use faer::Mat;
use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::io::read_trajectory;
use nonsmooth::kernel::model::{LagrangianRelation, NonsmoothLaw, Nsds, SecondOrderDs};
use nonsmooth::kernel::simulation::{
    DirectProjectionOptions, MoreauJeanDirectProjectionOsi, MoreauJeanOptions, NonConvergencePolicy, OneStepNsProblem,
    TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};
use nonsmooth::mechanics::body::NewtonEulerDs;
use nonsmooth::mechanics::contact::{contact_frame, jacobian_block};
use nonsmooth::mechanics::lie::{Mat3, Quaternion, Vec3};
use nonsmooth_examples::mechanics::bouncing_ball_nets::{NetsProjection, RADIUS, simulate_projected};

fn reference(name: &str) -> Trajectory {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/siconos").join(name);
    read_trajectory(&path).expect("readable reference")
}

fn run(projection: NetsProjection) -> Trajectory {
    simulate_projected(10.0, NonConvergencePolicy::Fail, projection).expect("the model runs").0
}

fn lowest(t: &Trajectory) -> f64 {
    t.iter_rows().map(|r| r[1]).fold(f64::INFINITY, f64::min)
}

#[test]
fn nets_direct_projection_reproduces_siconos() {
    let ours = run(NetsProjection::Direct);
    let reference = reference("BouncingBallNETSDirectProjection.ref");
    assert_eq!((ours.rows(), ours.columns()), (2001, 16));
    let diff = ours.max_abs_difference(&reference).expect("same shape as the reference");
    println!("BouncingBallNETSDirectProjection: max |difference| = {diff:e}");
    assert!(diff <= 1e-12, "max |difference| = {diff:e}");
    // The projection changed the run: the lowest point is higher than without it.
    let plain = run(NetsProjection::None);
    let (low, low_plain) = (lowest(&ours), lowest(&plain));
    println!("lowest x: {low:e} with direct projection, {low_plain:e} without");
    assert!(low > low_plain + 1e-3, "lowest x {low:e} against {low_plain:e}");
    assert!(ours.iter_rows().all(|r| (r[10] - 1.0).abs() <= 1e-15));
}

#[test]
fn nets_combined_projection_reproduces_siconos() {
    let ours = run(NetsProjection::Combined);
    let reference = reference("BouncingBallNETSCombinedProjection.ref");
    assert_eq!((ours.rows(), ours.columns()), (2001, 16));
    let diff = ours.max_abs_difference(&reference).expect("same shape as the reference");
    println!("BouncingBallNETSCombinedProjection: max |difference| = {diff:e}");
    assert!(diff <= 1e-12, "max |difference| = {diff:e}");
    // The ball never goes below the plane (x ≥ R up to the projection's tolerance).
    let low = lowest(&ours);
    assert!(low >= RADIUS - 1e-8, "lowest x = {low:e}");
}

/// The gap of a box corner (body-frame offset `corner`) above the plane `z = 0`, normal row of
/// the contact Jacobian at the corner (`[n | n·skew(G − P) R]`, twist coordinates).
#[derive(Debug)]
struct CornerOnPlane {
    corner: Vec3,
    frame: Mat3,
}

impl CornerOnPlane {
    fn new(corner: Vec3) -> Self {
        Self { corner, frame: contact_frame([0.0, 0.0, 1.0]).expect("valid normal") }
    }

    fn point(&self, q: &[f64]) -> (Vec3, Quaternion) {
        let p = Quaternion::new(q[3], q[4], q[5], q[6]);
        let r = p.rotate(self.corner);
        ([q[0] + r[0], q[1] + r[1], q[2] + r[2]], p)
    }
}

impl LagrangianRelation for CornerOnPlane {
    fn size(&self) -> usize {
        1
    }

    fn velocity_size(&self) -> Option<usize> {
        Some(6)
    }

    fn output(&mut self, _t: f64, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        y[0] = self.point(q).0[2];
        Ok(())
    }

    fn jacobian(&mut self, _t: f64, q: &[f64], h: &mut Mat<f64>) -> Result<(), KernelError> {
        let (point, p) = self.point(q);
        let block = jacobian_block(&self.frame, [q[0], q[1], q[2]], point, p);
        for (j, x) in block[0].iter().enumerate() {
            h[(0, j)] = *x;
        }
        Ok(())
    }
}

const HALF: Vec3 = [0.2, 0.15, 0.1];

fn corners() -> [Vec3; 4] {
    let [a, b, c] = HALF;
    [[a, b, -c], [-a, b, -c], [-a, -b, -c], [a, -b, -c]]
}

fn box_body(q0: [f64; 7], v0: [f64; 6]) -> NewtonEulerDs {
    let m = 2.0;
    let [a, b, c] = HALF.map(|x| 2.0 * x);
    let inertia = [
        [m * (b * b + c * c) / 12.0, 0.0, 0.0],
        [0.0, m * (a * a + c * c) / 12.0, 0.0],
        [0.0, 0.0, m * (a * a + b * b) / 12.0],
    ];
    NewtonEulerDs::new(q0, v0, m, inertia)
        .and_then(|b| b.with_external_force([0.0, 0.0, -m * 9.81]))
        .expect("valid box")
}

/// `displace_position` is the map `δ ↦ T(q) δ` of the Jacobian's twist coordinates: the gap
/// of a corner moves by `H δ` to first order, and the quaternion stays unit.
#[test]
fn newton_euler_displacement_follows_the_twist_jacobian() {
    let angle: f64 = 0.4;
    let axis = [0.6, -0.48, 0.64];
    let s = (angle / 2.0).sin();
    let q0 = [0.1, -0.2, 0.3, (angle / 2.0).cos(), s * axis[0], s * axis[1], s * axis[2]];
    let body = box_body(q0, [0.0; 6]);
    let delta = [0.3, -0.1, 0.2, 0.7, -0.4, 0.5];
    for corner in corners() {
        let mut rel = CornerOnPlane::new(corner);
        let (mut y0, mut y1) = ([0.0], [0.0]);
        let mut h = Mat::zeros(1, 6);
        rel.output(0.0, &q0, &mut y0).expect("output");
        rel.jacobian(0.0, &q0, &mut h).expect("jacobian");
        let predicted: f64 = (0..6).map(|j| h[(0, j)] * delta[j]).sum();
        let eps = 1e-6;
        let mut q = q0;
        body.displace_position(&delta.map(|d| eps * d), &mut q);
        let norm = (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]).sqrt();
        assert!((norm - 1.0).abs() <= 1e-15, "|p| − 1 = {:e}", norm - 1.0);
        rel.output(0.0, &q, &mut y1).expect("output");
        let measured = (y1[0] - y0[0]) / eps;
        assert!((measured - predicted).abs() <= 1e-5 * (1.0 + predicted.abs()), "{measured} against {predicted}");
    }
}

/// What [`run_box`] measured.
struct BoxRun {
    steps: usize,
    projected_steps: usize,
    max_penetration: f64,
    max_norm_error: f64,
    q: Vec<f64>,
}

/// A box (2 kg, 0.4 × 0.3 × 0.2 m) on the plane `z = 0` on its four bottom corners, started
/// `sink` into the plane, tilted by `tilt` about `e_x`, spinning about its vertical axis at
/// `spin`, under Moreau–Jean with direct projection (Siconos' default options, h = 1e-3) for
/// `steps` steps: the largest penetration of a corner and `||p| − 1|` after each step.
fn run_box(sink: f64, tilt: f64, spin: f64, steps: usize) -> BoxRun {
    let q0 = [0.0, 0.0, HALF[2] - sink, (tilt / 2.0).cos(), (tilt / 2.0).sin(), 0.0, 0.0];
    let mut nsds = Nsds::new();
    let body = nsds.add_ds(box_body(q0, [0.0, 0.0, 0.0, 0.0, 0.0, spin]));
    let contacts: Vec<_> = corners()
        .into_iter()
        .map(|c| nsds.link(CornerOnPlane::new(c), NonsmoothLaw::newton_impact(0.0).expect("law"), &[body]))
        .collect::<Result<_, _>>()
        .expect("linked");
    let osi = MoreauJeanDirectProjectionOsi::new(
        MoreauJeanOptions::default().with_theta(0.5),
        DirectProjectionOptions::default(),
    )
    .expect("valid options");
    let mut sim = TimeStepping::new(
        nsds,
        osi,
        OneStepNsProblem::lcp_default().expect("LCP"),
        TimeDiscretisation::new(0.0, 1e-3, 1e-3 * steps as f64).expect("grid"),
        TimeSteppingOptions::default().with_newton_tolerance(1e-10).with_newton_max_iterations(10),
    )
    .expect("simulation");
    let mut run = BoxRun { steps: 0, projected_steps: 0, max_penetration: 0.0, max_norm_error: 0.0, q: Vec::new() };
    while sim.has_next_step() {
        let report = sim.step().expect("step");
        run.steps += 1;
        let projection = report.projection.expect("a projection report");
        assert!(projection.converged, "projection did not converge at step {}: {projection:?}", run.steps);
        if projection.iterations > 0 {
            run.projected_steps += 1;
        }
        for &c in &contacts {
            run.max_penetration = run.max_penetration.max(-sim.nsds().interaction(c).expect("contact").y(0)[0]);
        }
        let q = sim.nsds().ds(body).expect("body").state().q();
        let norm = (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]).sqrt();
        run.max_norm_error = run.max_norm_error.max((norm - 1.0).abs());
    }
    run.q = sim.nsds().ds(body).expect("body").state().q().to_vec();
    run
}

/// The box, 1 mm into the plane and spinning about the vertical at 1 rad/s, for 10⁴ steps:
/// the first step projects it out of the plane, and after every step the penetration of every
/// corner stays below the projection's tolerance (`1e-8`) and the quaternion is unit to 1e-12.
#[test]
fn resting_box_stays_on_the_plane_under_direct_projection() {
    let tolerance = DirectProjectionOptions::default().unilateral_tolerance;
    let run = run_box(1e-3, 0.0, 1.0, 10_000);
    println!(
        "resting box, {} steps: {} projected, max penetration {:e}, max ||p| − 1| {:e}, final q = {:?}",
        run.steps, run.projected_steps, run.max_penetration, run.max_norm_error, run.q
    );
    assert_eq!(run.steps, 10_000);
    assert!(run.projected_steps >= 1, "the initial penetration is projected");
    assert!(run.max_penetration <= tolerance, "max penetration {:e}", run.max_penetration);
    assert!(run.max_norm_error <= 1e-12, "max ||p| − 1| = {:e}", run.max_norm_error);
    // It spun 10 rad about the vertical (half angle 5 rad, up to the sign of p) at rest on the plane.
    assert!((run.q[3].abs() - 5.0f64.cos().abs()).abs() <= 1e-6, "p0 = {}", run.q[3]);
    assert!((run.q[2] - HALF[2]).abs() <= tolerance, "centre height {}", run.q[2]);
}

/// The box tilted by 0.005 rad and sunk 2 mm (every corner in the plane, by 1.25 to 2.75 mm):
/// one step of direct projection moves it out through a rotation and a translation
/// (`q ← q + T(q) Hᵀλ`), the quaternion unit.
#[test]
fn tilted_box_is_projected_out_by_a_rotation() {
    let tolerance = DirectProjectionOptions::default().unilateral_tolerance;
    let tilt: f64 = 0.005;
    let run = run_box(2e-3, tilt, 0.0, 1);
    println!(
        "tilted box after one step: max penetration {:e}, ||p| − 1| {:e}, q = {:?}",
        run.max_penetration, run.max_norm_error, run.q
    );
    assert_eq!(run.projected_steps, 1);
    assert!(run.max_penetration <= tolerance, "max penetration {:e}", run.max_penetration);
    assert!(run.max_norm_error <= 1e-15, "||p| − 1| = {:e}", run.max_norm_error);
    // The projection turned the box back towards flat (the step itself does not rotate it: no
    // twist, no moment), by 0.4 mrad of its 5, and lifted it by 0.69 mm: in the Euclidean
    // metric of the twist, a translation costs less than a rotation of a 0.3 m wide box.
    let (p1, p1_0) = (run.q[4], (tilt / 2.0).sin());
    assert!(p1 > 0.0 && p1 < p1_0 - 1e-4, "p1 = {p1} from {p1_0}");
}
