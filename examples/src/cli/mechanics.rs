//! Command lines of the mechanics examples (`examples/mechanics/`, except the sphere pile).

use clap::Parser;

use super::{
    ON_NONCONVERGENCE_HELP, ON_NONCONVERGENCE_SHORT, OnNonConvergence, TrajectoryOutput, on_nonconvergence, positive,
};
use nonsmooth::mechanics::scene::SceneNonConvergence;

use crate::mechanics::bouncing_ball_nets::NetsProjection;
use crate::mechanics::rolling_sphere::RollingSphere;

/// Siconos' BouncingBallNETS: a Newton–Euler ball bouncing on a plane with friction.
///
/// The system: a ball of mass 1 and inertia I₃ (position and unit quaternion, twist (v, Ω)),
/// launched upwards at 2 m/s from x = 1 under gravity along −x, on the plane x = 0; Newton
/// impact with Coulomb friction, e_n = e_t = 0.9, μ = 0.6. The scheme: Moreau–Jean θ = 1/2,
/// Newton tolerance 1e-10, the 3D frictional contact by NSGS, h = 0.005, T = 10 (2001 rows).
/// With --projection direct (or combined) the scheme is Siconos' MoreauJeanDirectProjectionOSI
/// with TimeSteppingDirectProjection (or MoreauJeanCombinedProjectionOSI with
/// TimeSteppingCombinedProjection) at Siconos' default tolerances: after the velocity-level
/// step, the position is projected back onto x ≥ R through q ← q + T(q) Hᵀλ, the quaternion
/// kept unit.
///
/// Without --output it prints the number of steps with a contact impulse and the final state;
/// at the end, the run summary (steps above the tolerance, the worst error). With --output FILE
/// it writes the 16 columns of Siconos' BouncingBallNETS.ref: t, x, v_x,
/// p1_x, lambda1_normal, half_angle (acos of the quaternion's scalar part),
/// contact_force_norm, q_x, q_y, q_z, q_p0 … q_p3, v_y, v_z.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "bouncing_ball_nets", verbatim_doc_comment)]
pub struct BouncingBallNetsArgs {
    /// The integrator: none (Moreau–Jean), direct or combined projection onto the constraints.
    #[arg(long, value_enum, default_value_t = NetsProjection::None)]
    pub projection: NetsProjection,
    /// What a step above its tolerance does (the FC3D by NSGS at 1e-4, the Newton loop at 1e-10).
    #[arg(
        long,
        value_name = "POLICY",
        value_parser = on_nonconvergence,
        default_value_t = OnNonConvergence::Fail,
        help = ON_NONCONVERGENCE_SHORT,
        long_help = ON_NONCONVERGENCE_HELP,
    )]
    pub on_nonconvergence: OnNonConvergence,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A sphere sliding then rolling on a plane with Coulomb friction.
///
/// The system: a solid sphere (radius 0.1 m, I = 2/5 m R²) launched at V0 without spin on a
/// plane with friction coefficient MU: friction slows it and spins it up until it rolls, at
/// t* = 2 v0 / (7 μ g), then it rolls at 5 v0 / 7. The scheme: a mechanics scene (contacts
/// detected before every Moreau–Jean step, the 3D frictional contact problem by NSGS), time
/// step H, run to 2 t*.
///
/// It prints the measured transition time against 2 v0 / (7 μ g), the final speed against
/// 5 v0 / 7, the largest sinking into the plane and the solver's summary (steps above the
/// tolerance, the worst error). It writes no file.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "rolling_sphere", verbatim_doc_comment)]
pub struct RollingSphereArgs {
    /// Friction coefficient μ.
    #[arg(
        long,
        value_name = "MU",
        value_parser = positive,
        allow_negative_numbers = true,
        default_value_t = RollingSphere::default().mu,
    )]
    pub mu: f64,
    /// Initial speed along x, in m/s.
    #[arg(
        long,
        value_name = "V0",
        value_parser = positive,
        allow_negative_numbers = true,
        default_value_t = RollingSphere::default().v0,
    )]
    pub v0: f64,
    /// Time step in seconds.
    #[arg(
        long,
        value_name = "H",
        value_parser = positive,
        allow_negative_numbers = true,
        default_value_t = RollingSphere::default().h,
    )]
    pub h: f64,
    /// What a step above the NSGS tolerance does.
    #[arg(
        long,
        value_name = "POLICY",
        value_parser = on_nonconvergence,
        default_value_t = OnNonConvergence::FailAbove { factor: SceneNonConvergence::DEFAULT_FACTOR },
        help = ON_NONCONVERGENCE_SHORT,
        long_help = ON_NONCONVERGENCE_HELP,
    )]
    pub on_nonconvergence: OnNonConvergence,
}

/// Spheres poured into a box: a column of spheres falls, spreads and settles into a heap.
///
/// The system: N spheres (radius 2 cm, density 2500 kg/m³) at rest in a tall column above a
/// square box (floor and four walls), μ = 0.4, e = 0.2. The scheme: a mechanics scene (contacts
/// detected before every step; Moreau–Jean θ = 1/2 on Newton–Euler bodies; the 3D frictional
/// contact problem by nonsmooth Gauss–Seidel at tolerance 1e-4), h = 1 ms, up to TIME.
///
/// A progress bar runs on standard error. In DIR it writes pour_spheres.pvd (the ParaView time
/// series: bodies, walls and contacts, one frame every K steps), history.csv (per step: time,
/// kinetic energy, mean and top heights, contacts, solver sweeps, convergence, deepest
/// penetration, with a header) and history.svg (a plot of these quantities). At the end it
/// prints what it computed, where the files are and the solver's summary (steps above the
/// tolerance, the worst error).
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "pour_spheres", verbatim_doc_comment)]
pub struct PourSpheresArgs {
    /// Number of spheres.
    #[arg(long, value_name = "N", default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub n: u32,
    /// Simulated time in seconds.
    #[arg(long, value_name = "TIME", value_parser = positive, allow_negative_numbers = true, default_value_t = 1.0)]
    pub time: f64,
    /// Folder for the ParaView series, the CSV history and the SVG plot (created if missing).
    #[arg(long, value_name = "DIR", default_value = "pour_spheres_output")]
    pub out: std::path::PathBuf,
    /// Write a ParaView frame every K steps.
    #[arg(long, value_name = "K", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub every: u32,
    /// What a step above the NSGS tolerance does.
    #[arg(
        long,
        value_name = "POLICY",
        value_parser = on_nonconvergence,
        default_value_t = OnNonConvergence::FailAbove { factor: 100.0 },
        help = ON_NONCONVERGENCE_SHORT,
        long_help = ON_NONCONVERGENCE_HELP,
    )]
    pub on_nonconvergence: OnNonConvergence,
}

/// A hinged door: a Newton–Euler box on a pivot joint with two joint stops.
///
/// The system: a door of mass 20, 0.8 × 2 × 0.04 (inertia of a solid box), hinged about the
/// vertical axis y through (0, 1, 0) (a pivot joint with the world, five equality rows), gravity
/// along −y, turning at 1.5 rad/s; its angle θ about y is bounded by two joint stops on the
/// pivot angle, θ ≤ 1.2 and θ ≥ −0.3, each with a Newton impact law of restitution 0.5: it
/// swings open, bounces back at half its rate, bounces on the other stop, and so on. The
/// scheme: Moreau–Jean θ = 1/2, the MLCP of each step (the pivot's equality rows and the
/// active stops' complementarity rows) by enumeration at 1e-12, Newton tolerance 1e-10,
/// h = 1e-3 (Siconos' MoreauJeanOSI with MLCP; the first 3000 steps are our Siconos 4.4
/// reference HingedDoor.ref). With --projection the integrator is the direct projection onto
/// the constraints (Siconos' MoreauJeanDirectProjectionOSI), bilateral tolerance 1e-10.
///
/// It prints the stop impacts, the joint constraint violation max |h(q)| over the pivot's rows
/// (the drift) at each tenth of the run, its largest value and its value at the end. With
/// --output FILE it writes the rows t, theta, x, y, z, p0, p1, p2, p3, omega_y, lambda_open,
/// lambda_close (the stops' impulses): the columns of HingedDoor.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "hinged_door", verbatim_doc_comment)]
pub struct HingedDoorArgs {
    /// Number of steps of h = 1e-3 to run.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..),
        allow_negative_numbers = true,
        default_value_t = 10_000
    )]
    pub steps: u64,
    /// Integrate by the direct projection onto the constraints instead of plain Moreau–Jean.
    #[arg(long)]
    pub projection: bool,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A pendulum chain: five Newton–Euler links on pivot joints falling onto a frictional floor.
///
/// The system (gravity along −z): five boxes of mass 1, 0.5 × 0.05 × 0.05 (inertia of a solid
/// box), the first on a pivot about y with the world at the origin, each next one on a pivot
/// about y with the previous one at their common end; released at rest along x (horizontal).
/// The far end of each link has a contact with the floor z = −0.6: Newton impact with Coulomb
/// friction, e_n = 0, e_t = 0, μ = 0.3. The scheme: Moreau–Jean θ = 1/2, h = 1e-3, Newton
/// tolerance 1e-10, the mixed mechanical problem of each step (Siconos' GenericMechanical: the
/// pivots' equality blocks and the contacts' 3D Coulomb blocks) by block Gauss–Seidel at
/// tolerance 1e-10; the first 2000 steps are our Siconos 4.4 reference PendulumChain.ref.
///
/// It prints the number of links in contact at each tenth of the run, the joints' constraint
/// violation max |h(q)| over the pivots' rows (the drift) at each tenth of the run, its largest
/// value and its value at the end. With --output FILE it writes the rows t, then for each link
/// k: x_k, y_k, z_k, p0_k..p3_k, vx_k, vy_k, vz_k, wx_k, wy_k, wz_k (the columns of
/// PendulumChain.ref).
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "pendulum_chain", verbatim_doc_comment)]
pub struct PendulumChainArgs {
    /// Number of steps of h = 1e-3 to run.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..),
        allow_negative_numbers = true,
        default_value_t = 2_000
    )]
    pub steps: u64,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A slider-crank of three Newton–Euler bodies held by joints, the slider bouncing on a stop.
///
/// The system (the plane x–z, gravity along −z): a crank (length 0.153) on a pivot with the
/// world about y, a rod (0.306) held by ball joints at the crank tip and at the slider, a
/// slider on a prismatic joint with the world along x (masses 0.038, 0.038, 0.076, isotropic
/// inertias 7.4e-5, 5.9e-4, 2.7e-6: Siconos' SliderCrank example). The crank starts vertical,
/// turning at 10 rad/s; a joint stop on the prismatic displacement, with a Newton impact law of
/// restitution 0.5, stops the slider 0.135 past its start. The rod's ends are ball joints since
/// pivots there would make three of the closed loop's rows dependent (a singular MLCP). The
/// scheme: that of hinged_door (Moreau–Jean θ = 1/2, the MLCP by enumeration, h = 1e-3; the
/// first 1000 steps are our Siconos 4.4 reference SliderCrankNE.ref), --projection likewise.
///
/// It prints the stop impacts, the joint constraint violation max |h(q)| over the sixteen joint
/// rows (the drift) at each tenth of the run, its largest value and its value at the end. With
/// --output FILE it writes the rows t, crank_x, crank_z, crank_p0, crank_p2, rod_x, rod_z,
/// rod_p0, rod_p2, slider_x, crank_omega_y, rod_omega_y, slider_v_x, lambda_stop: the columns
/// of SliderCrankNE.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "slider_crank_ne", verbatim_doc_comment)]
pub struct SliderCrankNeArgs {
    /// Number of steps of h = 1e-3 to run.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..),
        allow_negative_numbers = true,
        default_value_t = 10_000
    )]
    pub steps: u64,
    /// Integrate by the direct projection onto the constraints instead of plain Moreau–Jean.
    #[arg(long, conflicts_with = "rod_pivots")]
    pub projection: bool,
    /// Hold the rod by pivots at both ends (twenty joint rows, three dependent) and solve the
    /// mixed one-step problem by block Gauss–Seidel (tolerance 1e-12) instead of the MLCP.
    #[arg(long)]
    pub rod_pivots: bool,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A sphere launched sliding on a plane with Coulomb friction, simulated event by event.
///
/// The system: a Newton–Euler solid sphere (radius 0.1 m, mass 1 kg, I = 2/5 m R²) at rest on
/// the plane z = 0 but for its speed of 2 m/s along x, without spin; the contact is a 3D
/// Newton impact law with Coulomb friction, μ = 0.3, no restitution. The scheme: event-driven
/// (Dormand–Prince with root finding; the acceleration problem with the sliding, then sticking
/// mode; the slip → stick event located by the root of the sliding velocity), outputs every
/// h = 0.01, T = 0.4.
///
/// Without --output it prints the nonsmooth events, the stick time against
/// t* = 2 v0 / (7 μ g) and the final speed against 5 v0 / 7. With --output FILE it writes one
/// row per event: t, x, y, z, v_x, v_y, v_z, w_x, w_y, w_z (angular velocity, inertial frame),
/// slip_x, slip_y (velocity of the contact point), quaternion_norm, lambda2_n, size_I1, size_I2.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "rolling_sphere_ed", verbatim_doc_comment)]
pub struct RollingSphereEdArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}
