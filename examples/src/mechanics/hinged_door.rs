//! A hinged door: a box-shaped Newton–Euler body on a pivot joint with the fixed world, its
//! swing bounded by two joint stops with a Newton impact law (Siconos 4.4's `PivotJointR` and
//! `JointStopR` of `siconos.mechanics.joints`; Acary & Brogliato, *Numerical Methods for
//! Nonsmooth Dynamical Systems*, Springer 2008, §10 for the Moreau–Jean scheme).
//!
//! Model (`y` is up, gravity along `−y`): a door of mass `m = 20`, width `0.8` (`x`), height `2`
//! (`y`) and thickness `0.04` (`z`), inertia of a solid box about its centre
//! `diag(m(h² + t²), m(w² + t²), m(w² + h²))/12`, centre at `(0.4, 1, 0)`, hinged about the
//! vertical axis `A = e_y` through `(0, 1, 0)` (five equality rows: the anchor point and the
//! orientation across `A`). It starts turning at `Ω_y = 1.5` rad/s (the centre velocity
//! `Ω × (c − P) = (0, 0, −0.6)` consistent with the hinge). The pivot's coordinate is the
//! angle `φ = −θ` of the world relative to the door turned by `θ`; the stops are
//! `φ ≥ −1.2` (the door opens to `θ ≤ 1.2`) and `φ ≤ 0.3` (it closes to `θ ≥ −0.3`), each
//! with restitution `e = 0.5`: the door swings open, hits the first stop, comes back at half
//! its angular velocity, hits the second one, and so on.
//!
//! Scheme (the same on Siconos' side, `examples/data/siconos/generate/hinged_door.py`):
//! Moreau–Jean `θ = ½`, the MLCP one-step problem (equality rows of the pivot, complementarity
//! rows of the active stops) solved by enumeration at tolerance `1e-12`, Newton tolerance
//! `1e-10`, `h = 1e-3`, the position update with Siconos' quaternion exponential
//! ([`QuaternionExponential::Siconos`]: a turn of `h Ω` has a half angle below its `1e-3`
//! series threshold, where the exact exponential differs by `x²/2` relatively). With projection the integrator is the direct projection onto the
//! constraints (Siconos' `MoreauJeanDirectProjectionOSI`) at bilateral tolerance `1e-10`.
//!
//! Output rows ([`simulate`]; row 0 is the initial state): [`COLUMN_NAMES`], those of
//! `examples/data/siconos/HingedDoor.ref`; the run also reports the joint's constraint
//! violation `max |h(q)|` over the pivot's five rows (the drift).

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{
    DirectProjectionOptions, MoreauJeanDirectProjectionOsi, MoreauJeanOptions, MoreauJeanOsi, OneStepIntegrator,
    OneStepNsProblem, ProblemLevel, TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};
use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::body::{NewtonEulerDs, QuaternionExponential};
use nonsmooth::numerics::mlcp::{EnumOptions, MlcpMethod};
use nonsmooth_mechanics::joints::{JointStop, PivotJoint, Reference};
use nonsmooth_mechanics::relation::{NewtonEulerR, NewtonEulerRelation};

/// Names of the output columns: time, the door angle `θ = 2 atan2(p2, p0)` about `y`, the
/// centre, the unit quaternion, the angular velocity `Ω_y` (body frame), and the impulses
/// `λ(1)` of the opening and of the closing stop.
pub const COLUMN_NAMES: [&str; 12] =
    ["t", "theta", "x", "y", "z", "p0", "p1", "p2", "p3", "omega_y", "lambda_open", "lambda_close"];

/// Time step of the Siconos reference.
pub const H: f64 = 1e-3;
/// Number of steps of the Siconos reference (`T = 3`).
pub const REFERENCE_STEPS: usize = 3000;
/// Mass of the door.
pub const MASS: f64 = 20.0;
/// Width (`x`), height (`y`) and thickness (`z`) of the door.
pub const SIZE: [f64; 3] = [0.8, 2.0, 0.04];
/// Initial angular velocity about the hinge.
pub const RATE: f64 = 1.5;
/// The stop on the pivot coordinate `φ ≥ OPEN_STOP` (the door angle `θ ≤ −OPEN_STOP`).
pub const OPEN_STOP: f64 = -1.2;
/// The stop on the pivot coordinate `φ ≤ CLOSE_STOP` (the door angle `θ ≥ −CLOSE_STOP`).
pub const CLOSE_STOP: f64 = 0.3;
/// Restitution coefficient of both stops.
pub const RESTITUTION: f64 = 0.5;
/// Gravity.
pub const GRAVITY: f64 = 9.81;
/// Newton tolerance of the Moreau–Jean loop.
pub const NEWTON_TOLERANCE: f64 = 1e-10;

/// The door's model in a simulation, with its handles.
pub struct HingedDoor {
    /// The simulation, ready to step.
    pub simulation: TimeStepping,
    /// The door.
    pub door: DsId,
    /// The opening and the closing stop.
    pub stops: [InteractionId; 2],
    /// A copy of the pivot, to evaluate its rows (the drift).
    pub pivot: PivotJoint,
}

/// The door's initial position `(x, y, z, p0, p1, p2, p3)`.
pub fn initial_position() -> [f64; 7] {
    [SIZE[0] / 2.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
}

/// Builds the model for `steps` steps of size `h`, integrated by Moreau–Jean (`projection`
/// false) or by the direct projection onto the constraints.
///
/// # Errors
/// Bad `h` or `steps` (kernel errors), never for this model otherwise.
pub fn build(h: f64, steps: usize, projection: bool) -> Result<HingedDoor, MechanicsError> {
    let [w, hh, t] = SIZE;
    let inertia = [
        [MASS * (hh * hh + t * t) / 12.0, 0.0, 0.0],
        [0.0, MASS * (w * w + t * t) / 12.0, 0.0],
        [0.0, 0.0, MASS * (w * w + hh * hh) / 12.0],
    ];
    let q0 = initial_position();
    let body = NewtonEulerDs::new(q0, [0.0, 0.0, -RATE * w / 2.0, 0.0, RATE, 0.0], MASS, inertia)?
        .with_external_force([0.0, -MASS * GRAVITY, 0.0])?
        .with_exponential(QuaternionExponential::Siconos);
    let mut nsds = Nsds::new();
    let door = nsds.add_ds(body);
    let pivot = PivotJoint::new([0.0, 1.0, 0.0], [0.0, 1.0, 0.0], Reference::Inertial, &q0, None)?;
    nsds.link(NewtonEulerR::new(pivot.clone())?, NonsmoothLaw::equality(5)?, &[door])?;
    let open = nsds.link(
        NewtonEulerR::new(JointStop::lower(pivot.clone(), OPEN_STOP)?)?,
        NonsmoothLaw::newton_impact(RESTITUTION)?,
        &[door],
    )?;
    let close = nsds.link(
        NewtonEulerR::new(JointStop::upper(pivot.clone(), CLOSE_STOP)?)?,
        NonsmoothLaw::newton_impact(RESTITUTION)?,
        &[door],
    )?;
    let simulation = joint_simulation(nsds, vec![door], h, steps, projection)?;
    Ok(HingedDoor { simulation, door, stops: [open, close], pivot })
}

/// The scheme of the joint examples on `systems`: Moreau–Jean `θ = ½` (or its direct
/// projection onto the constraints, bilateral tolerance `1e-10`), the MLCP one-step problem by
/// enumeration (tolerance `1e-12`), Newton tolerance [`NEWTON_TOLERANCE`], `steps` steps of `h`.
///
/// # Errors
/// Bad `h` or no step (kernel errors).
pub(crate) fn joint_simulation(
    nsds: Nsds,
    systems: Vec<DsId>,
    h: f64,
    steps: usize,
    projection: bool,
) -> Result<TimeStepping, MechanicsError> {
    let enumeration = MlcpMethod::Enum(EnumOptions::default().with_tolerance(1e-12));
    joint_simulation_with(nsds, systems, h, steps, projection, OneStepNsProblem::mlcp(enumeration)?)
}

/// As [`joint_simulation`], with the velocity-level one-step problem `problem`.
///
/// # Errors
/// Bad `h` or no step (kernel errors).
pub(crate) fn joint_simulation_with(
    nsds: Nsds,
    systems: Vec<DsId>,
    h: f64,
    steps: usize,
    projection: bool,
    problem: OneStepNsProblem,
) -> Result<TimeStepping, MechanicsError> {
    let mj = MoreauJeanOptions::default().with_theta(0.5);
    let osi: Box<dyn OneStepIntegrator> = if projection {
        Box::new(MoreauJeanDirectProjectionOsi::new(
            mj,
            DirectProjectionOptions::default().with_bilateral_tolerance(1e-10),
        )?)
    } else {
        Box::new(MoreauJeanOsi::new(mj)?)
    };
    if steps == 0 {
        return Err(KernelError::InvalidOption { name: "steps", reason: "needs at least one step" }.into());
    }
    Ok(TimeStepping::builder(nsds, TimeDiscretisation::new(0.0, h, h * (steps as f64 + 0.5))?)
        .options(TimeSteppingOptions::default().with_newton_tolerance(NEWTON_TOLERANCE))
        .boxed_integrator(osi, systems)
        .problem(ProblemLevel::Velocity, problem)
        .build()?)
}

/// What a run of the door gives.
#[derive(Debug)]
pub struct DoorRun {
    /// The rows of [`COLUMN_NAMES`], row 0 the initial state.
    pub trajectory: Trajectory,
    /// `max |h(q)|` over the pivot's rows after each step (row `k` after step `k + 1`).
    pub drift: Vec<f64>,
}

impl DoorRun {
    /// The largest drift of the run.
    pub fn max_drift(&self) -> f64 {
        self.drift.iter().fold(0.0, |a, x| a.max(*x))
    }
}

/// Runs `steps` steps of size `h` ([`build`]) and records the rows and the drift.
///
/// # Errors
/// Kernel or mechanics errors, among them a step whose Newton loop or MLCP does not converge.
pub fn simulate(h: f64, steps: usize, projection: bool) -> Result<DoorRun, MechanicsError> {
    let HingedDoor { mut simulation, door, stops, mut pivot } = build(h, steps, projection)?;
    let row = |sim: &TimeStepping| -> Result<[f64; 12], KernelError> {
        let state = sim.nsds().ds(door)?.state();
        let (q, v) = (state.q(), state.v());
        let open = sim.nsds().interaction(stops[0])?.lambda(1)[0];
        let close = sim.nsds().interaction(stops[1])?.lambda(1)[0];
        Ok([sim.time(), 2.0 * q[5].atan2(q[3]), q[0], q[1], q[2], q[3], q[4], q[5], q[6], v[4], open, close])
    };
    let mut trajectory = Trajectory::new(COLUMN_NAMES.len());
    trajectory.push(&row(&simulation)?);
    let mut drift = Vec::with_capacity(steps);
    let mut y = [0.0; 5];
    for _ in 0..steps {
        simulation.step()?;
        let q = simulation.nsds().ds(door)?.state().q();
        pivot.output(q, &mut y)?;
        drift.push(y.iter().fold(0.0f64, |a, x| a.max(f64::abs(*x))));
        trajectory.push(&row(&simulation)?);
    }
    Ok(DoorRun { trajectory, drift })
}
