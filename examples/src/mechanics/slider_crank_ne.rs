//! A slider-crank of three Newton–Euler bodies held by joints, the slider bouncing against a
//! stop on its prismatic joint (Siconos 4.4's `siconos.mechanics.joints`: `PivotJointR`,
//! `KneeJointR`, `PrismaticJointR`, `JointStopR`). The lengths, masses and inertias are those of
//! the Lagrangian [`crate::kernel::slider_crank`] (Flores, Leine & Glocker, Multibody Syst. Dyn.
//! 23, 2010, Table 1), here without the clearance and with a stop.
//!
//! Model (the plane `x–z`, gravity along `−z`, every joint axis along `y`): a body turned by `β`
//! about `y` has the quaternion `(cos β/2, 0, sin β/2, 0)` and its `x` axis along
//! `(cos β, 0, −sin β)`. The crank (length `l₁ = 0.153`, mass `0.038`, isotropic inertia
//! `7.4e-5`) turns about the origin on a pivot with the world; the rod (`l₂ = 0.306`, `0.038`,
//! `5.9e-4`) joins the crank tip `B` to the slider centre `C`; the slider (`0.076`, `2.7e-6`)
//! translates along `x` on a prismatic joint with the world. The rod is held at `B` and `C`
//! by ball joints: with pivots there, three of the twenty rows of the closed planar loop are
//! dependent (the loop's out-of-plane rows are counted twice), the MLCP matrix is singular,
//! and an enumeration with a linear solve fails ([`build_with_rod_pivots`]: our enumeration
//! stalls on the first step, which ends with an error; Siconos' ENUM fails on 243 of the 1000
//! steps and goes on). The ball joints give sixteen independent rows and the same planar
//! motion: the rod's spin about its own axis is a free degree of freedom that no force excites
//! (isotropic inertia, every force on the rod through its axis). The pivots are solved by the
//! mixed one-step problem instead ([`build_mixed`] with [`RodJoints::Pivots`]): its block
//! Gauss–Seidel never solves the singular system as a whole, and gives the ball-jointed motion.
//!
//! Initially the crank is vertical (`β₁ = −π/2`, `B = (0, 0, l₁)`), the rod goes from `B` to
//! `C = (l₂ cos β₂, 0, 0)`, `β₂ = asin(l₁/l₂)`, the crank turns at `β̇₁ = 10` rad/s and the rod
//! and the slider translate at the tip velocity `(l₁ β̇₁, 0, 0)` (the consistent velocities).
//! The stop bounds the prismatic coordinate, the displacement `d = x_C(0) − x_C` of the world
//! relative to the slider: `d ≥ −0.135` (the slider stops at `x = x_C(0) + 0.135`), Newton
//! impact with `e = 0.5`.
//!
//! Scheme: that of [`crate::mechanics::hinged_door`] (Moreau–Jean `θ = ½`, the MLCP one-step
//! problem by enumeration at `1e-12`, Newton tolerance `1e-10`, optionally the direct
//! projection, Siconos' quaternion exponential), `h = 1e-3`.

use std::f64::consts::FRAC_PI_2;

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{OneStepNsProblem, TimeStepping, Trajectory};
use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::body::{NewtonEulerDs, QuaternionExponential};
use nonsmooth::numerics::gmp::GmpNsgsOptions;
use nonsmooth_mechanics::joints::{BallJoint, JointStop, PivotJoint, PrismaticJoint, Reference};
use nonsmooth_mechanics::relation::{NewtonEulerR, NewtonEulerRelation};

use super::hinged_door::{joint_simulation, joint_simulation_with};

/// Names of the output columns: time, the crank's centre `x, z` and quaternion entries `p0, p2`,
/// the same for the rod, the slider's `x`, the angular velocities `Ω_y` of crank and rod, the
/// slider's velocity `v_x` and the stop's impulse `λ(1)`.
pub const COLUMN_NAMES: [&str; 14] = [
    "t",
    "crank_x",
    "crank_z",
    "crank_p0",
    "crank_p2",
    "rod_x",
    "rod_z",
    "rod_p0",
    "rod_p2",
    "slider_x",
    "crank_omega_y",
    "rod_omega_y",
    "slider_v_x",
    "lambda_stop",
];

/// Time step of the Siconos reference.
pub const H: f64 = 1e-3;
/// Number of steps of the Siconos reference (`T = 1`).
pub const REFERENCE_STEPS: usize = 1000;
/// Crank and rod lengths.
pub const LENGTHS: [f64; 2] = [0.153, 0.306];
/// Masses of crank, rod and slider.
pub const MASSES: [f64; 3] = [0.038, 0.038, 0.076];
/// Isotropic inertias of crank, rod and slider.
pub const INERTIAS: [f64; 3] = [7.4e-5, 5.9e-4, 2.7e-6];
/// Initial crank rate `β̇₁`.
pub const RATE: f64 = 10.0;
/// The stop on the prismatic coordinate, `d ≥ STOP`.
pub const STOP: f64 = -0.135;
/// Restitution coefficient of the stop.
pub const RESTITUTION: f64 = 0.5;
/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// The joints of the model, to evaluate their rows (the drift).
#[derive(Clone, Debug)]
pub struct Joints {
    /// Crank to the world.
    pub crank: PivotJoint,
    /// Crank to rod, at `B`.
    pub elbow: BallJoint,
    /// Rod to slider, at `C`.
    pub wrist: BallJoint,
    /// Slider to the world.
    pub slider: PrismaticJoint,
}

impl Joints {
    /// `max |h(q)|` over the sixteen rows at the positions `q` of crank, rod and slider.
    ///
    /// # Errors
    /// What the joints' `h(q)` report.
    pub fn violation(&mut self, q: [&[f64]; 3]) -> Result<f64, KernelError> {
        let mut worst = 0.0f64;
        let mut y = [0.0; 5];
        let mut pair = [0.0; 14];
        self.crank.output(q[0], &mut y)?;
        worst = y.iter().fold(worst, |a, x| a.max(f64::abs(*x)));
        self.slider.output(q[2], &mut y)?;
        worst = y.iter().fold(worst, |a, x| a.max(f64::abs(*x)));
        for (joint, (a, b)) in [(&mut self.elbow, (q[0], q[1])), (&mut self.wrist, (q[1], q[2]))] {
            pair[..7].copy_from_slice(a);
            pair[7..].copy_from_slice(b);
            joint.output(&pair, &mut y[..3])?;
            worst = y[..3].iter().fold(worst, |acc, x| acc.max(f64::abs(*x)));
        }
        Ok(worst)
    }
}

/// The model in a simulation, with its handles.
pub struct SliderCrankNe {
    /// The simulation, ready to step.
    pub simulation: TimeStepping,
    /// Crank, rod and slider.
    pub bodies: [DsId; 3],
    /// The stop on the slider.
    pub stop: InteractionId,
    /// Copies of the joints.
    pub joints: Joints,
}

/// The quaternion `(cos β/2, 0, sin β/2, 0)` of a turn by `β` about `y`.
fn about_y(beta: f64) -> [f64; 4] {
    [(beta / 2.0).cos(), 0.0, (beta / 2.0).sin(), 0.0]
}

/// The three bodies in an [`Nsds`] without joints.
struct Bodies {
    nsds: Nsds,
    /// Crank, rod and slider.
    ids: [DsId; 3],
    /// Their initial positions.
    q: [[f64; 7]; 3],
    /// The crank tip `B` and the slider centre `C`.
    b: [f64; 3],
    c: [f64; 3],
}

/// The three bodies at their initial state (module documentation).
fn bodies() -> Result<Bodies, MechanicsError> {
    let [l1, l2] = LENGTHS;
    let (beta1, beta2) = (-FRAC_PI_2, (l1 / l2).asin());
    let b = [l1 * beta1.cos(), 0.0, -l1 * beta1.sin()];
    let c = [b[0] + l2 * beta2.cos(), 0.0, 0.0];
    let vb = [l1 * RATE * -beta1.sin(), 0.0, l1 * RATE * -beta1.cos()];
    let pose = |x: [f64; 3], p: [f64; 4]| [x[0], x[1], x[2], p[0], p[1], p[2], p[3]];
    let q_crank = pose([b[0] / 2.0, 0.0, b[2] / 2.0], about_y(beta1));
    let q_rod = pose([(b[0] + c[0]) / 2.0, 0.0, (b[2] + c[2]) / 2.0], about_y(beta2));
    let q_slider = pose(c, [1.0, 0.0, 0.0, 0.0]);
    let iso = |j: f64| [[j, 0.0, 0.0], [0.0, j, 0.0], [0.0, 0.0, j]];
    let body = |q: [f64; 7], v: [f64; 6], k: usize| -> Result<NewtonEulerDs, MechanicsError> {
        Ok(NewtonEulerDs::new(q, v, MASSES[k], iso(INERTIAS[k]))?
            .with_external_force([0.0, 0.0, -MASSES[k] * GRAVITY])?
            .with_exponential(QuaternionExponential::Siconos))
    };
    let mut nsds = Nsds::new();
    let crank = nsds.add_ds(body(q_crank, [vb[0] / 2.0, 0.0, vb[2] / 2.0, 0.0, RATE, 0.0], 0)?);
    let rod = nsds.add_ds(body(q_rod, [vb[0], 0.0, vb[2], 0.0, 0.0, 0.0], 1)?);
    let slider = nsds.add_ds(body(q_slider, [vb[0], 0.0, vb[2], 0.0, 0.0, 0.0], 2)?);
    Ok(Bodies { nsds, ids: [crank, rod, slider], q: [q_crank, q_rod, q_slider], b, c })
}

/// Builds the model for `steps` steps of size `h` (module documentation), integrated by
/// Moreau–Jean or, with `projection`, by the direct projection onto the constraints.
///
/// # Errors
/// Bad `h` or no step (kernel errors), never for this model otherwise.
pub fn build(h: f64, steps: usize, projection: bool) -> Result<SliderCrankNe, MechanicsError> {
    let Bodies { mut nsds, ids: [crank, rod, slider], q: [q_crank, q_rod, q_slider], b, c } = bodies()?;
    let joints = Joints {
        crank: PivotJoint::new([0.0; 3], [0.0, 1.0, 0.0], Reference::Inertial, &q_crank, None)?,
        elbow: BallJoint::new(b, Reference::Inertial, &q_crank, Some(&q_rod))?,
        wrist: BallJoint::new(c, Reference::Inertial, &q_rod, Some(&q_slider))?,
        slider: PrismaticJoint::new([1.0, 0.0, 0.0], Reference::Inertial, &q_slider, None)?,
    };
    nsds.link(NewtonEulerR::new(joints.crank.clone())?, NonsmoothLaw::equality(5)?, &[crank])?;
    nsds.link(NewtonEulerR::new(joints.elbow.clone())?, NonsmoothLaw::equality(3)?, &[crank, rod])?;
    nsds.link(NewtonEulerR::new(joints.wrist.clone())?, NonsmoothLaw::equality(3)?, &[rod, slider])?;
    nsds.link(NewtonEulerR::new(joints.slider.clone())?, NonsmoothLaw::equality(5)?, &[slider])?;
    let stop = nsds.link(
        NewtonEulerR::new(JointStop::lower(joints.slider.clone(), STOP)?)?,
        NonsmoothLaw::newton_impact(RESTITUTION)?,
        &[slider],
    )?;
    let simulation = joint_simulation(nsds, vec![crank, rod, slider], h, steps, projection)?;
    Ok(SliderCrankNe { simulation, bodies: [crank, rod, slider], stop, joints })
}

/// The same mechanism (without the stop) with pivots about `y` at both ends of the rod instead
/// of ball joints, under plain Moreau–Jean: twenty equality rows of which three are dependent
/// (module documentation), so the MLCP matrix of every step is singular.
///
/// # Errors
/// Bad `h` or no step (kernel errors).
pub fn build_with_rod_pivots(h: f64, steps: usize) -> Result<TimeStepping, MechanicsError> {
    let Bodies { mut nsds, ids: [crank, rod, slider], q: [q_crank, q_rod, q_slider], b, c } = bodies()?;
    let axis = [0.0, 1.0, 0.0];
    let pivots = [
        (PivotJoint::new([0.0; 3], axis, Reference::Inertial, &q_crank, None)?, vec![crank]),
        (PivotJoint::new(b, axis, Reference::Inertial, &q_crank, Some(&q_rod))?, vec![crank, rod]),
        (PivotJoint::new(c, axis, Reference::Inertial, &q_rod, Some(&q_slider))?, vec![rod, slider]),
    ];
    for (pivot, systems) in pivots {
        nsds.link(NewtonEulerR::new(pivot)?, NonsmoothLaw::equality(5)?, &systems)?;
    }
    let prismatic = PrismaticJoint::new([1.0, 0.0, 0.0], Reference::Inertial, &q_slider, None)?;
    nsds.link(NewtonEulerR::new(prismatic)?, NonsmoothLaw::equality(5)?, &[slider])?;
    joint_simulation(nsds, vec![crank, rod, slider], h, steps, false)
}

/// The joints that hold the rod at the crank tip and at the slider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RodJoints {
    /// Ball joints (three rows each): sixteen independent rows in all.
    Balls,
    /// Pivots about `y` (five rows each): twenty rows, three of them dependent.
    Pivots,
}

/// The mechanism with its stop, the rod held by `rod`, under Moreau–Jean `θ = ½` with the mixed
/// one-step problem (Siconos' `GenericMechanical`: one equality block per joint, one
/// complementarity block for the stop) solved by block Gauss–Seidel to `tolerance`. Each block
/// is solved on its own, so the dependent rows of [`RodJoints::Pivots`] need no linear solve of
/// the whole singular system: Gauss–Seidel on a consistent positive semidefinite system
/// converges (Y. Saad, *Iterative Methods for Sparse Linear Systems*, 2nd ed., SIAM 2003,
/// section 4.2), to one of its equally valid sets of multipliers.
///
/// # Errors
/// Bad `h`, `tolerance` or no step (kernel errors).
pub fn build_mixed(h: f64, steps: usize, rod: RodJoints, tolerance: f64) -> Result<SliderCrankNe, MechanicsError> {
    let Bodies { mut nsds, ids: [crank, rod_body, slider], q: [q_crank, q_rod, q_slider], b, c } = bodies()?;
    let axis = [0.0, 1.0, 0.0];
    let joints = Joints {
        crank: PivotJoint::new([0.0; 3], axis, Reference::Inertial, &q_crank, None)?,
        elbow: BallJoint::new(b, Reference::Inertial, &q_crank, Some(&q_rod))?,
        wrist: BallJoint::new(c, Reference::Inertial, &q_rod, Some(&q_slider))?,
        slider: PrismaticJoint::new([1.0, 0.0, 0.0], Reference::Inertial, &q_slider, None)?,
    };
    nsds.link(NewtonEulerR::new(joints.crank.clone())?, NonsmoothLaw::equality(5)?, &[crank])?;
    match rod {
        RodJoints::Balls => {
            nsds.link(NewtonEulerR::new(joints.elbow.clone())?, NonsmoothLaw::equality(3)?, &[crank, rod_body])?;
            nsds.link(NewtonEulerR::new(joints.wrist.clone())?, NonsmoothLaw::equality(3)?, &[rod_body, slider])?;
        }
        RodJoints::Pivots => {
            let elbow = PivotJoint::new(b, axis, Reference::Inertial, &q_crank, Some(&q_rod))?;
            let wrist = PivotJoint::new(c, axis, Reference::Inertial, &q_rod, Some(&q_slider))?;
            nsds.link(NewtonEulerR::new(elbow)?, NonsmoothLaw::equality(5)?, &[crank, rod_body])?;
            nsds.link(NewtonEulerR::new(wrist)?, NonsmoothLaw::equality(5)?, &[rod_body, slider])?;
        }
    }
    nsds.link(NewtonEulerR::new(joints.slider.clone())?, NonsmoothLaw::equality(5)?, &[slider])?;
    let stop = nsds.link(
        NewtonEulerR::new(JointStop::lower(joints.slider.clone(), STOP)?)?,
        NonsmoothLaw::newton_impact(RESTITUTION)?,
        &[slider],
    )?;
    let problem =
        OneStepNsProblem::mixed(GmpNsgsOptions::default().with_tolerance(tolerance).with_max_iterations(100_000))?;
    let simulation = joint_simulation_with(nsds, vec![crank, rod_body, slider], h, steps, false, problem)?;
    Ok(SliderCrankNe { simulation, bodies: [crank, rod_body, slider], stop, joints })
}

/// What a run gives.
#[derive(Debug)]
pub struct SliderCrankRun {
    /// The rows of [`COLUMN_NAMES`], row 0 the initial state.
    pub trajectory: Trajectory,
    /// `max |h(q)|` over the sixteen joint rows after each step.
    pub drift: Vec<f64>,
}

impl SliderCrankRun {
    /// The largest drift of the run.
    pub fn max_drift(&self) -> f64 {
        self.drift.iter().fold(0.0, |a, x| a.max(*x))
    }
}

/// Runs `steps` steps of size `h` ([`build`]) and records the rows and the drift.
///
/// # Errors
/// Kernel or mechanics errors, among them a step whose Newton loop or MLCP does not converge.
pub fn simulate(h: f64, steps: usize, projection: bool) -> Result<SliderCrankRun, MechanicsError> {
    run(build(h, steps, projection)?)
}

/// Runs a built model to its end and records the rows and the drift (of the rows of
/// [`Joints`]: with [`RodJoints::Pivots`], the rod's pivots are measured by their point rows).
///
/// # Errors
/// Kernel or mechanics errors, among them a step whose Newton loop or one-step problem does not
/// converge.
pub fn run(model: SliderCrankNe) -> Result<SliderCrankRun, MechanicsError> {
    let SliderCrankNe { mut simulation, bodies, stop, mut joints } = model;
    let row = |sim: &TimeStepping| -> Result<[f64; 14], KernelError> {
        let [c, r, s] = [sim.nsds().ds(bodies[0])?, sim.nsds().ds(bodies[1])?, sim.nsds().ds(bodies[2])?]
            .map(|ds| (ds.state().q(), ds.state().v()));
        let lambda = sim.nsds().interaction(stop)?.lambda(1)[0];
        Ok([
            sim.time(),
            c.0[0],
            c.0[2],
            c.0[3],
            c.0[5],
            r.0[0],
            r.0[2],
            r.0[3],
            r.0[5],
            s.0[0],
            c.1[4],
            r.1[4],
            s.1[0],
            lambda,
        ])
    };
    let mut trajectory = Trajectory::new(COLUMN_NAMES.len());
    trajectory.push(&row(&simulation)?);
    let mut drift = Vec::new();
    while simulation.has_next_step() {
        simulation.step()?;
        let nsds = simulation.nsds();
        drift.push(joints.violation([
            nsds.ds(bodies[0])?.state().q(),
            nsds.ds(bodies[1])?.state().q(),
            nsds.ds(bodies[2])?.state().q(),
        ])?);
        trajectory.push(&row(&simulation)?);
    }
    Ok(SliderCrankRun { trajectory, drift })
}
