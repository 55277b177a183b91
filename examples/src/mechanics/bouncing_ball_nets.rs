//! Siconos' `BouncingBallNETS` example (Siconos tutorials): a Newton–Euler ball
//! (`q = (x, y, z, p0, p1, p2, p3)`, twist `(v, Ω)`), mass 1, inertia `I₃`, launched upwards at
//! 2 m/s from `x = 1` under gravity along `−x`, on the plane `x = 0` (the contact of its own
//! relation: `y = |x| − R`, normal `e_x`, contact point `(|x| − R, y, z)`), Newton impact with
//! Coulomb friction `e_n = e_t = 0.9`, `μ = 0.6`, Moreau–Jean θ = 1/2, `h = 0.005`, `T = 10`,
//! Newton tolerance 1e-10 with at most 10 iterations, the 3D frictional contact solved by NSGS
//! (Alart–Curnier Newton per contact, warm started).
//!
//! With [`NetsProjection::Direct`] or [`NetsProjection::Combined`] the integrator is Moreau–Jean
//! with projection onto the constraints (Siconos' `MoreauJeanDirectProjectionOSI` with
//! `TimeSteppingDirectProjection`, or `MoreauJeanCombinedProjectionOSI` with
//! `TimeSteppingCombinedProjection`, at their default tolerances): after the velocity-level
//! step, the ball's position is moved by `q ← q + T(q) Hᵀλ` along the normal row of the contact
//! until the gap is closed.

use faer::Mat;
use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianRelation, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{
    CombinedProjectionOptions, DirectProjectionOptions, MoreauJeanCombinedProjectionOsi, MoreauJeanDirectProjectionOsi,
    MoreauJeanOptions, MoreauJeanOsi, NonConvergencePolicy, OneStepIntegrator, OneStepNsProblem, RunSummary,
    TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};
use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::body::NewtonEulerDs;
use nonsmooth::mechanics::contact::{contact_frame, jacobian_block};
use nonsmooth::mechanics::lie::{Mat3, Quaternion};
use nonsmooth::numerics::fc::Fc3dMethod;
use nonsmooth::numerics::fc::nsgs::NsgsOptions;

/// Names of the columns of [`simulate`]'s rows (header of the example's `--output` file; the
/// columns of Siconos' `BouncingBallNETS.ref`): time, height `x`, velocity `v_x`, impulse
/// `p(1)[0]`, normal impulse `λ(1)[0]`, half rotation angle `acos(p0)`, contact force norm
/// `‖Hᵀλ(1)‖₂`, the position and unit quaternion `q`, the velocities `v_y`, `v_z`.
pub const COLUMN_NAMES: [&str; 16] = [
    "t",
    "x",
    "v_x",
    "p1_x",
    "lambda1_normal",
    "half_angle",
    "contact_force_norm",
    "q_x",
    "q_y",
    "q_z",
    "q_p0",
    "q_p1",
    "q_p2",
    "q_p3",
    "v_y",
    "v_z",
];

/// Newton tolerance of the Moreau–Jean loop.
pub const NEWTON_TOLERANCE: f64 = 1e-10;

/// Ball radius.
pub const RADIUS: f64 = 0.1;
/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// The integrator of the ball (on the command line: `none`, `direct`, `combined`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum NetsProjection {
    /// Moreau–Jean (Siconos' `MoreauJeanOSI` with `TimeStepping`).
    #[default]
    None,
    /// Moreau–Jean with direct projection ([`MoreauJeanDirectProjectionOsi`]).
    Direct,
    /// Moreau–Jean with combined projection ([`MoreauJeanCombinedProjectionOsi`]).
    Combined,
}

/// The relation of `BouncingBallNETS.cpp` (a `NewtonEuler3DR` whose `computeh` sets the gap, the
/// normal and the contact point from `q`).
#[derive(Debug)]
pub struct BallOnPlane {
    frame: Mat3,
}

impl BallOnPlane {
    /// The relation with normal `e_x`.
    ///
    /// # Errors
    /// None in practice (the normal is valid).
    pub fn new() -> Result<Self, MechanicsError> {
        Ok(Self { frame: contact_frame([1.0, 0.0, 0.0])? })
    }
}

impl LagrangianRelation for BallOnPlane {
    fn size(&self) -> usize {
        3
    }

    fn velocity_size(&self) -> Option<usize> {
        Some(6)
    }

    /// `y = (|x| − R, 0, 0)`.
    fn output(&mut self, _t: f64, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        y.fill(0.0);
        y[0] = q[0].abs() - RADIUS;
        Ok(())
    }

    /// `H = [F | F (S R)]` at the contact point `(|x| − R, y, z)` (`contact::jacobian_block`).
    fn jacobian(&mut self, _t: f64, q: &[f64], h: &mut Mat<f64>) -> Result<(), KernelError> {
        let point = [q[0].abs() - RADIUS, q[1], q[2]];
        let p = Quaternion::new(q[3], q[4], q[5], q[6]);
        let block = jacobian_block(&self.frame, [q[0], q[1], q[2]], point, p);
        for (i, row) in block.iter().enumerate() {
            for (j, x) in row.iter().enumerate() {
                h[(i, j)] = *x;
            }
        }
        Ok(())
    }
}

/// The simulation, ready to step, with the ball's and the contact's handles.
///
/// # Errors
/// Kernel or mechanics errors (none for this model).
pub fn build(t_end: f64) -> Result<(TimeStepping, DsId, InteractionId), MechanicsError> {
    build_with(t_end, NonConvergencePolicy::Fail)
}

/// The simulation of [`build`] under the non-convergence policy `policy`.
///
/// # Errors
/// Kernel or mechanics errors (none for this model).
pub fn build_with(
    t_end: f64,
    policy: NonConvergencePolicy,
) -> Result<(TimeStepping, DsId, InteractionId), MechanicsError> {
    build_projected(t_end, policy, NetsProjection::None)
}

/// The simulation of [`build_with`] integrated by `projection`'s scheme (Moreau–Jean θ = 1/2;
/// the projections at their default options, those of Siconos).
///
/// # Errors
/// Kernel or mechanics errors (none for this model).
pub fn build_projected(
    t_end: f64,
    policy: NonConvergencePolicy,
    projection: NetsProjection,
) -> Result<(TimeStepping, DsId, InteractionId), MechanicsError> {
    let mj = MoreauJeanOptions::default().with_theta(0.5);
    match projection {
        NetsProjection::None => build_on(t_end, policy, MoreauJeanOsi::with_theta(0.5)?),
        NetsProjection::Direct => {
            build_on(t_end, policy, MoreauJeanDirectProjectionOsi::new(mj, DirectProjectionOptions::default())?)
        }
        NetsProjection::Combined => {
            build_on(t_end, policy, MoreauJeanCombinedProjectionOsi::new(mj, CombinedProjectionOptions::default())?)
        }
    }
}

/// The model integrated by `osi`.
fn build_on(
    t_end: f64,
    policy: NonConvergencePolicy,
    osi: impl OneStepIntegrator,
) -> Result<(TimeStepping, DsId, InteractionId), MechanicsError> {
    let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let ball = NewtonEulerDs::new([1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0, 0.0], 1.0, identity)?
        .with_external_force([-GRAVITY, 0.0, 0.0])?;
    let mut nsds = Nsds::new();
    let ball = nsds.add_ds(ball);
    let contact = nsds.link(BallOnPlane::new()?, NonsmoothLaw::newton_impact_friction(0.9, 0.9, 0.6, 3)?, &[ball])?;
    let nsgs = NsgsOptions::default();
    let sim = TimeStepping::new(
        nsds,
        osi,
        OneStepNsProblem::friction_contact_3d(Fc3dMethod::Nsgs(nsgs))?,
        TimeDiscretisation::new(0.0, 0.005, t_end)?,
        TimeSteppingOptions::default()
            .with_newton_tolerance(NEWTON_TOLERANCE)
            .with_newton_max_iterations(10)
            .with_policy(policy),
    )?;
    Ok((sim, ball, contact))
}

/// Runs the model and returns the 16 columns of `BouncingBallNETS.ref`: `t, x, v_x, p(1)[0],
/// λ(1)[0], acos(p0), ‖Hᵀλ(1)‖₂, q[0..7], v_y, v_z`, row 0 the initial state.
///
/// # Errors
/// Kernel or mechanics errors.
pub fn simulate(t_end: f64) -> Result<Trajectory, MechanicsError> {
    Ok(simulate_with(t_end, NonConvergencePolicy::Fail)?.0)
}

/// As [`simulate`], under the non-convergence policy `policy`, with the convergence of the
/// run's steps (`TimeStepping::run_summary`, with the NSGS tolerance).
///
/// # Errors
/// Kernel or mechanics errors (non-convergence as `policy` says).
pub fn simulate_with(t_end: f64, policy: NonConvergencePolicy) -> Result<(Trajectory, RunSummary), MechanicsError> {
    simulate_projected(t_end, policy, NetsProjection::None)
}

/// As [`simulate_with`], integrated by `projection`'s scheme ([`build_projected`]): with
/// [`NetsProjection::Direct`] the columns of our Siconos 4.4 reference
/// `examples/data/siconos/BouncingBallNETSDirectProjection.ref`, with
/// [`NetsProjection::Combined`] those of `BouncingBallNETSCombinedProjection.ref`.
///
/// # Errors
/// Kernel or mechanics errors (non-convergence as `policy` says).
pub fn simulate_projected(
    t_end: f64,
    policy: NonConvergencePolicy,
    projection: NetsProjection,
) -> Result<(Trajectory, RunSummary), MechanicsError> {
    let (mut sim, ball, contact) = build_projected(t_end, policy, projection)?;
    let mut out = Trajectory::new(16);
    let row = |sim: &TimeStepping| -> Result<[f64; 16], KernelError> {
        let state = sim.nsds().ds(ball)?.state();
        let inter = sim.nsds().interaction(contact)?;
        let (q, v, p) = (state.q(), state.v(), state.p(1));
        // The contact wrench Hᵀλ(1) (zero when the contact is not active).
        let lambda = inter.lambda(1);
        let h = inter.jacobian();
        let mut force = 0.0;
        if inter.is_active() {
            for j in 0..6 {
                let c: f64 = (0..3).map(|i| h[(i, j)] * lambda[i]).sum();
                force += c * c;
            }
        }
        Ok([
            sim.time(),
            q[0],
            v[0],
            p[0],
            lambda[0],
            q[3].acos(),
            force.sqrt(),
            q[0],
            q[1],
            q[2],
            q[3],
            q[4],
            q[5],
            q[6],
            v[1],
            v[2],
        ])
    };
    out.push(&row(&sim)?);
    while sim.has_next_step() {
        sim.step()?;
        out.push(&row(&sim)?);
    }
    Ok((out, sim.run_summary().with_tolerance(NsgsOptions::default().tolerance)))
}
