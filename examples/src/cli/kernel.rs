//! Command lines of the kernel examples (`examples/kernel/`).

use clap::Parser;

use super::{
    ON_NONCONVERGENCE_HELP, ON_NONCONVERGENCE_SHORT, OnNonConvergence, TrajectoryOutput, on_nonconvergence, positive,
    unit_interval,
};
use crate::kernel::bouncing_ball_ed_resting::BouncingBallEdResting;
use crate::kernel::bouncing_ball_projection::Projection;
use crate::kernel::column_of_beads::ColumnOfBeads;
use crate::kernel::double_pendulum::DoublePendulum;
use crate::kernel::slider_crank::Scheme;

/// Siconos' BouncingBallTS: a ball bouncing on the ground, Moreau–Jean time-stepping.
///
/// The system: a ball of mass 1 (q = (x, y, θ), x vertical) dropped from x = 1 on the ground
/// x = 0, Newton impact law with e = 0.9. The scheme: Moreau–Jean θ = 1/2, the LCP of each step
/// by Lemke, h = 0.005, T = 10 (2001 rows).
///
/// Without --output it prints the number of steps with a contact impulse and the final state.
/// With --output FILE it writes the rows t, x, v_x, p1_x (impulse on x over the step), lambda1
/// (contact impulse): the columns of Siconos' BouncingBallTS.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "bouncing_ball_ts", verbatim_doc_comment)]
pub struct BouncingBallTsArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// Siconos' BouncingBallED: the bouncing ball simulated event by event.
///
/// The system: the ball of BouncingBallTS (rotational inertia 3/5 m R²), e = 0.9, T = 8.5. The
/// scheme: event-driven, smooth flights integrated by our port of LSODAR at Siconos' tolerances
/// with root finding on the gap, impacts solved at velocity level, resting contact at
/// acceleration level, outputs every h = 0.005.
///
/// Without --output it prints the numbers of rows and impacts. With --output FILE it writes one
/// row per event, t, x, v_x, p1_x (impulse), p2_x (contact force), lambda1, lambda2, with a
/// pre-impact row (the state just before) before each impact row: the rows of Siconos'
/// BouncingBallED.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "bouncing_ball_ed", verbatim_doc_comment)]
pub struct BouncingBallEdArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// The event-driven bouncing ball of Siconos' BouncingBallED coming to rest on the floor.
///
/// The system: the ball of BouncingBallED dropped from x = 1 at rest; with 0 < e < 1 the flight
/// times add up to a finite accumulation (Zeno) time t* = t1 + 2 v1 e / (g (1 − e)), after which
/// the ball rests (contact force m g). The scheme: event-driven as BouncingBallED; the run
/// reaches rest when a post-impact gap velocity falls below Siconos' TOL_ED.
///
/// Without --output it prints the number of impacts and when the contact became persistent,
/// against t*. With --output FILE it writes one row per event, t, x, v_x, p1_x, p2_x, lambda1,
/// lambda2, size_I2 (1 while resting), a pre-impact row before each impact row.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "bouncing_ball_ed_resting", verbatim_doc_comment)]
pub struct BouncingBallEdRestingArgs {
    /// Restitution coefficient e of the Newton impact law, in [0, 1].
    #[arg(
        long,
        value_name = "E",
        value_parser = unit_interval,
        allow_negative_numbers = true,
        default_value_t = BouncingBallEdResting::default().restitution,
    )]
    pub restitution: f64,
    /// Final time in seconds.
    #[arg(
        long,
        value_name = "T",
        value_parser = positive,
        allow_negative_numbers = true,
        default_value_t = BouncingBallEdResting::default().t_end,
    )]
    pub t_end: f64,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A ball bouncing between a floor and a ceiling, simulated event by event.
///
/// The system: the height x of a ball of mass 1 under gravity, two unilateral contacts (floor
/// x ≥ 0, ceiling x ≤ 1.5), Newton impact law e = 0.9 on both, launched from x = 1 at 8 m/s
/// upwards, T = 6. The scheme: event-driven (Dormand–Prince with root finding on both gaps,
/// impacts at velocity level), outputs every h = 0.005.
///
/// Without --output it prints each impact (time, wall, velocity after). With --output FILE it
/// writes one row per event, t, x, v_x, p1_x, p2_x, then lambda1 and lambda2 of the floor and
/// of the ceiling, then a_x, y_ddot_floor, y_ddot_ceiling (the acceleration and the gaps'
/// second derivatives as the simulation stores them), a pre-impact row before each impact row.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "bouncing_ball_ed_two_contacts", verbatim_doc_comment)]
pub struct BouncingBallEdTwoContactsArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// The ball of Siconos' BouncingBallTS under Moreau–Jean with projection onto the constraint.
///
/// The system: the ball of BouncingBallTS (e = 0.9, h = 0.005, T = 10). The scheme: Siconos'
/// MoreauJeanDirectProjectionOSI with TimeSteppingDirectProjection, or
/// MoreauJeanCombinedProjectionOSI with TimeSteppingCombinedProjection, at Siconos' default
/// tolerances: after the velocity-level step, the position is projected back onto x ≥ 0.
///
/// Without --output it prints the number of steps with a position correction and the lowest
/// and final heights. With --output FILE it writes the rows t, x, v_x, p1_x, lambda1 (velocity
/// level), p0_x, lambda0 (position correction of the last projection iteration): the columns of
/// our Siconos 4.4 references BouncingBallDirectProjection.ref and
/// BouncingBallCombinedProjection.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "bouncing_ball_projection", verbatim_doc_comment)]
pub struct BouncingBallProjectionArgs {
    /// Which projection scheme.
    #[arg(long, value_enum, default_value_t = Projection::Direct)]
    pub projection: Projection,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// Siconos' TwoBouncingBallTS-MoreauJeanGOSI: two balls on a line, the global Moreau–Jean scheme.
///
/// The system: two balls of radius 0.1 (masses 1 and 2, q = (x, y, θ), x vertical), the lower
/// one on the ground, the upper one on the lower one; frictional contacts of dimension 3, Newton
/// impact-friction law with e_n = e_t = 0.95, μ = 0.6. The scheme: Moreau–Jean global
/// (Siconos' MoreauJeanGOSI) θ = 1/2, the global frictional contact problem of each step solved
/// by condensation (SICONOS_GLOBAL_FRICTION_3D_NSGS_WR) at tolerance 1e-13, h = 0.001, T = 3
/// (3001 rows).
///
/// Without --output it prints the number of steps with a ground impulse and the final state.
/// With --output FILE it writes the rows t, x1, v1_x, p1_x, lambda_ground, x2, v2_x, p2_x: the
/// columns of our Siconos 4.4 reference TwoBouncingBallsGlobal.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "two_bouncing_balls_global", verbatim_doc_comment)]
pub struct TwoBouncingBallsGlobalArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// How the Schatzman–Paoli two-step recursion starts (the kernel's `SchatzmanPaoliStartup`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Startup {
    /// Siconos 4.4: (q₋₁, q₀) = (q0, q0 + h v0), the results of Siconos.
    Siconos,
    /// Second-order start by a backward Taylor expansion of q₋₁.
    Taylor,
}

impl From<Startup> for nonsmooth::kernel::simulation::SchatzmanPaoliStartup {
    fn from(startup: Startup) -> Self {
        match startup {
            Startup::Siconos => Self::Siconos,
            Startup::Taylor => Self::Taylor,
        }
    }
}

/// The ball of Siconos' BouncingBallTS integrated by the Schatzman–Paoli scheme.
///
/// The system: the ball of BouncingBallTS (e = 0.9, h = 0.005, T = 10). The scheme: Siconos'
/// SchatzmanPaoliOSI θ = 1/2, a position-level LCP 0 ≤ y_{k+1} + e y_{k−1} ⊥ λ ≥ 0 on the
/// contact at every step, by Lemke.
///
/// Without --output it prints the number of steps with a position-level impulse, the energy
/// at t0 and its largest value after, and the final state. With --output FILE it writes the
/// rows t, x, v_x (centred difference), p0_x, lambda0 (position-level impulse): with the
/// default start-up, the columns of our Siconos 4.4 reference BouncingBallSchatzmanPaoli.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "bouncing_ball_schatzman_paoli", verbatim_doc_comment)]
pub struct BouncingBallSchatzmanPaoliArgs {
    /// How the two-step recursion starts from the initial state.
    #[arg(long, value_enum, default_value_t = Startup::Siconos)]
    pub startup: Startup,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// Which schemes the cam-follower example runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CamSchemes {
    /// Moreau–Jean time-stepping only.
    Ts,
    /// Event-driven only.
    Ed,
    /// Both.
    Both,
}

/// The cam-follower of Siconos' CamFollower sample: a follower kept on a turning cam by a
/// rheonomous unilateral constraint.
///
/// The system: a follower of mass 1.221 on a spring (stiffness 1430.8), above a cam turning at
/// RPM: the constraint u ≥ c(t) (Siconos' LagrangianRheonomousR) with Newton's law of
/// restitution 0.8 relative to the cam. The schemes: Moreau–Jean time-stepping (θ = 1/2,
/// Lemke, h = 1e-4) and event-driven (Dormand–Prince at rtol 1e-13, atol 1e-14, impacts at
/// velocity level, contact phases at acceleration level).
///
/// It prints, for each scheme run, the number of impacts and when the follower first leaves
/// the cam. With --output FILE it writes the rows t, u_follower, v_follower, c_cam, cdot_cam,
/// lambda (contact force) of the event-driven run when it runs, else of the time-stepping one.
/// With --svg FILE it writes the impact Poincaré section of the event-driven run.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "cam_follower", verbatim_doc_comment)]
pub struct CamFollowerArgs {
    /// Cam speed in revolutions per minute.
    #[arg(long, value_name = "R", value_parser = positive, allow_negative_numbers = true, default_value_t = 660.0)]
    pub rpm: f64,
    /// Final time in seconds.
    #[arg(long, value_name = "T", value_parser = positive, allow_negative_numbers = true, default_value_t = 10.0)]
    pub t_end: f64,
    /// Which schemes to run.
    #[arg(long, value_enum, default_value_t = CamSchemes::Both)]
    pub scheme: CamSchemes,
    /// Write the impact Poincaré section of the event-driven run to FILE (SVG).
    ///
    /// The follower velocity before each impact against the cam angle, impacts after the first
    /// second (the transient) only. Runs the event-driven scheme even with --scheme ts. FILE is
    /// created before the runs.
    #[arg(long, value_name = "FILE", verbatim_doc_comment)]
    pub svg: Option<std::path::PathBuf>,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// An RLC circuit with an ideal diode (as Siconos' CircuitRLCD) under the θ-γ Euler–Moreau
/// scheme, whose discrete energy balance holds to round-off for θ = γ = 1/2.
///
/// The system: a capacitor (2e-4 F, charged to 1 V) discharging through an inductor (0.5 H), a
/// resistor (10 Ω) and an ideal diode in series: ẋ = A x + B λ, 0 ≤ i ⊥ λ ≥ 0. The scheme:
/// Euler–Moreau with θ and γ = 1/2 on the relation (Siconos' _useGammaForRelation), the LCP
/// by Lemke, h = 1e-5, 5000 steps.
///
/// Without --output it prints the largest relative defect |E + D − E0|/E0 of the energy
/// balance and the last row. With --output FILE it writes the rows t, v_C, i_L, i_L_midpoint,
/// lambda_diode_voltage, energy_stored (E), energy_dissipated (D), balance_defect.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "circuit_rlcd_theta_gamma", verbatim_doc_comment)]
pub struct CircuitRlcdThetaGammaArgs {
    /// θ of the Euler–Moreau scheme, in [0, 1] (θ = 1, implicit Euler: the balance drifts).
    #[arg(
        long,
        value_name = "THETA",
        value_parser = unit_interval,
        allow_negative_numbers = true,
        default_value_t = 0.5,
    )]
    pub theta: f64,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A column of 10 beads falling on a floor, bead–bead contacts linked and removed during the
/// run by a contact detector.
///
/// The system: 10 beads of mass 1 and radius 0.1 on a vertical line, launched upwards at
/// different speeds so that they spread, collide and bounce on the floor; Newton impact law
/// e = 0.9 on the floor and between neighbours. The scheme: Moreau–Jean θ = 1/2, Lemke,
/// h = 1e-3.
///
/// It prints the numbers of bead contacts created and removed and the final heights. With
/// --output FILE it writes the rows t, z_0 … z_9 (heights), v_0 … v_9 (velocities),
/// n_interactions (linked during the step), n_active (in its velocity-level problem).
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "column_of_beads", verbatim_doc_comment)]
pub struct ColumnOfBeadsArgs {
    /// Final time in seconds.
    #[arg(
        long,
        value_name = "T",
        value_parser = positive,
        allow_negative_numbers = true,
        default_value_t = ColumnOfBeads::default().t_end,
    )]
    pub t_end: f64,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// Siconos' DiodeBridge: an LC oscillator feeding a resistor through a bridge of four ideal
/// diodes.
///
/// The system: x = (V_C, i_L), L = 1e-2, C = 1e-6, R = 1e3, ẋ = A x + r, a linear
/// time-invariant relation of size 4 with a complementarity law. The scheme: Euler–Moreau
/// θ = 1/2, the LCP by Lemke, h = 1e-6, T = 5e-3 (5000 rows).
///
/// Without --output it prints the number of rows and the last row. With --output FILE it
/// writes the rows t, v_C, i_L, i_diode_R1, v_diode_R1, v_diode_F2, i_diode_F1, i_resistor:
/// the columns of Siconos' DiodeBridge.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "diode_bridge", verbatim_doc_comment)]
pub struct DiodeBridgeArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A double pendulum hitting a floor and a wall: a nonlinear Lagrangian system with nonlinear
/// scleronomous relations.
///
/// The system: two unit masses on rods of length 1, in angles (θ1, θ2), released at rest from
/// (−π/2, −π/4); the lower mass meets a floor, the upper one a wall (Siconos'
/// LagrangianScleronomousR), Newton impact law e = 0.5. The scheme: Moreau–Jean θ = 1/2 with
/// its Newton loop (tolerance 1e-10), Lemke, h = 1e-3.
///
/// It prints the steps, the Newton iterations (total, largest per step), the impacts and the
/// run summary (steps above the tolerance, the worst error). With
/// --output FILE it writes the rows t, theta1, theta2, omega1, omega2, x1, y1, x2, y2, energy,
/// gap_floor, gap_wall, lambda_floor, lambda_wall (impulses of the step), newton_iterations.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "double_pendulum", verbatim_doc_comment)]
pub struct DoublePendulumArgs {
    /// Final time in seconds.
    #[arg(
        long,
        value_name = "T",
        value_parser = positive,
        allow_negative_numbers = true,
        default_value_t = DoublePendulum::default().t_end,
    )]
    pub t_end: f64,
    /// What a step above its tolerance does (the LCP by Lemke at 1e-6, the Newton loop at 1e-10).
    #[arg(
        long,
        value_name = "POLICY",
        value_parser = on_nonconvergence,
        default_value_t = OnNonConvergence::Continue,
        help = ON_NONCONVERGENCE_SHORT,
        long_help = ON_NONCONVERGENCE_HELP,
    )]
    pub on_nonconvergence: OnNonConvergence,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// Moreau–Jean, Schatzman–Paoli and Euler–Moreau in one time-stepping simulation.
///
/// The system: three parts sharing no interaction: a column of 4 beads on a floor under
/// Moreau–Jean (velocity-level LCP), a ball above its own floor under Schatzman–Paoli
/// (position-level LCP), and Siconos' DiodeBridge under Euler–Moreau (level-0 LCP), all
/// stepped together by one time-stepping simulation, h = 2e-5, T = 0.2, each LCP by Lemke.
///
/// It prints, for each part, its last row and whether it equals, bit for bit, the part
/// simulated alone. With --output FILE it writes the beads' rows t, z_0 … z_3, v_0 … v_3.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "mixed_integrators", verbatim_doc_comment)]
pub struct MixedIntegratorsArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A buck converter with a nonlinear switch: a Type2R relation (Siconos' FirstOrderType2R),
/// an MLCP and a Newton loop per step.
///
/// The system: a 12 V source feeding an LC filter and a 2 Ω load through a switch with a
/// nonlinear on-characteristic, switched at 5 kHz with duty ratio 1/2, and an ideal
/// freewheeling diode. The scheme: Euler–Moreau θ = 1/2 with its Newton loop, the MLCP (one
/// equality, one complementarity) by enumeration, h = 1 µs, T = 5 ms.
///
/// Without --output it prints the largest residuals, the Newton iteration counts and the
/// distance to an RK4 reference; at the end, the run summary (steps above the tolerance, the
/// worst error). With --output FILE it writes the rows t, i_L, v_C, v_A, i_D,
/// switch, newton_iterations, newton_residual, equality_residual, complementarity_residual,
/// scheme_residual.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "nonlinear_switch", verbatim_doc_comment)]
pub struct NonlinearSwitchArgs {
    /// What a step above its tolerance does (the MLCP at 1e-12, the Newton loop at 1e-10).
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

/// Siconos' LinearOscillatorED: a light ball on two stiff springs dropped on the ground.
///
/// The system: q = (x, y, angle), m = 1e-3, M = diag(m, m, 3/5 m R²) with R = 0.1,
/// K = diag(100, 100, 0), weight −m g along x, q0 = (1, 0.001, 0) at rest; the ground contact
/// y = x ≥ 0 with e = 0.9; T = 8.5. The scheme: event-driven, the flights integrated by our
/// port of LSODAR at Siconos' tolerances, switching between Adams and BDF as DLSODAR does,
/// impacts at velocity level, resting contact at acceleration level, outputs every h = 0.005.
///
/// Without --output it prints the numbers of rows and impacts and the integration counters
/// (steps, Jacobians, method switches). With --output FILE it writes one row per event, t, x,
/// v_x, p1_x, p2_x, lambda1, lambda2, y, v_y, with a pre-impact row before each impact row:
/// the rows of Siconos' LinearOscillatorED.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "linear_oscillator_ed", verbatim_doc_comment)]
pub struct LinearOscillatorEdArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A point mass on a unilateral string (a pendulum whose string can go slack), event-driven.
///
/// The system: q = (x, z), mass 1, the string of length 1 a LagrangianScleronomousR
/// y = l² − |q|² ≥ 0, Newton impact law e = 0 (a string that tightens does not bounce),
/// launched sideways at 6.5 m/s from just inside the circle below the pivot. The scheme: event-driven
/// (Dormand–Prince with root finding, impacts at velocity level, tension at acceleration
/// level), outputs every h = 0.005, T = 2.
///
/// Without --output it prints the nonsmooth events. With --output FILE it writes one row per
/// event, t, x, z, v_x, v_z, y, lambda1, lambda2 (tension 2 l λ(2)), size_I1, size_I2, a_x,
/// a_z, y_ddot (the acceleration and the constraint's second derivative as the simulation stores
/// them).
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "pendulum_ed", verbatim_doc_comment)]
pub struct PendulumEdArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// Siconos' SimpleExampleRelay: ẋ = 2λ with a relay law λ = −sgn(x) per component.
///
/// The system: x ∈ R², x(0) = (1, −1), y = x, r = 2λ, λ_i ∈ −sgn(y_i) (Siconos' RelayNSL on
/// [−1, 1]): each component goes to 0 at slope 2 and stays there (sliding mode). The scheme:
/// Euler–Moreau θ = 1/2, the relay problem by projected Gauss–Seidel, h = 1e-3, 800 rows.
///
/// Without --output it prints the number of rows and the last row. With --output FILE it
/// writes the rows t, x_0, x_1, lambda_0, lambda_1, y_0, y_1: the columns of Siconos'
/// SimpleExampleRelay.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "simple_example_relay", verbatim_doc_comment)]
pub struct SimpleExampleRelayArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// The slider-crank with a translational clearance joint of Flores, Leine and Glocker (2010),
/// as Siconos' examples/Mechanics/SliderCrank.
///
/// The system: a crank, a connecting rod and a rectangular slider moving between two guides
/// with a clearance of 1 mm: four nonlinear unilateral contacts (the slider's corners), Newton
/// impact law e = 0.1. The schemes: plain Moreau–Jean, which lets the penetration of the
/// corners grow, or Moreau–Jean with the direct or combined projection onto the constraints;
/// θ = 1/2, Lemke, h = 1e-5.
///
/// It prints the largest penetration per tenth of the run and the run summary (steps above
/// the tolerance, the worst error). With --output FILE it writes the
/// rows t, theta1, theta2, theta3, omega1, omega2, omega3, g1 … g4 (corner gaps), g_min.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "slider_crank", verbatim_doc_comment)]
pub struct SliderCrankArgs {
    /// Time-stepping scheme: plain Moreau–Jean, or with the direct or combined projection.
    #[arg(long, value_enum, default_value_t = Scheme::MoreauJean)]
    pub scheme: Scheme,
    /// Number of steps of h = 1e-5 to run (default: up to T = 0.2, 20000 steps).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
    pub steps: Option<u64>,
    /// What a step above its tolerance does (the LCP by Lemke at 1e-8, the Newton loop at 1e-10, the projection).
    #[arg(
        long,
        value_name = "POLICY",
        value_parser = on_nonconvergence,
        default_value_t = OnNonConvergence::Continue,
        help = ON_NONCONVERGENCE_SHORT,
        long_help = ON_NONCONVERGENCE_HELP,
    )]
    pub on_nonconvergence: OnNonConvergence,
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// Siconos' WoodPecker: a woodpecker toy going down a pole, three 2D frictional contacts.
///
/// The system: q = (y, φ_M, φ_S), the sleeve's height and angle and the woodpecker's angle,
/// coupled by a spring; the beak and the sleeve's two edges touch the pole (Newton impact and
/// Coulomb friction μ = 0.3). The scheme: Moreau–Jean θ = 1/2, FrictionContact(2) by dense
/// NSGS, h = 2e-5, T = 0.3 (15000 rows).
///
/// Without --output it prints the number of rows and the final sleeve height. With --output
/// FILE it writes the rows t, y, v_y, phi_M, omega_M, phi_S, omega_S: the columns of Siconos'
/// Woodpecker.ref.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "woodpecker", verbatim_doc_comment)]
pub struct WoodpeckerArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}

/// A block on a frictional slope that tilts with time, simulated event by event.
///
/// The system: a point mass of 1 kg on a plane whose angle grows as θ(t) = 0.2 + 0.5 t rad
/// (gravity rotated in the frame of the slope), 2D Newton impact law with Coulomb friction
/// μ = 0.5, starting at rest. The scheme: event-driven (Dormand–Prince with root finding; the
/// acceleration problem in the sticking mode until the friction force reaches the cone,
/// tan θ(t) = μ, then sliding), outputs every h = 0.05, T = 1.
///
/// Without --output it prints the nonsmooth events and the slip time against
/// (atan μ − θ₀)/ω. With --output FILE it writes one row per event: t, x, y, v_x, v_y,
/// theta, lambda2_n, lambda2_t, size_I1, size_I2.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(name = "slope_block_ed", verbatim_doc_comment)]
pub struct SlopeBlockEdArgs {
    /// The trajectory file (`--output FILE`, `--siconos`).
    #[command(flatten)]
    pub output: TrajectoryOutput,
}
