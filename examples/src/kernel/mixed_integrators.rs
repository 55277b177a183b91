//! Three one-step integrators in one time-stepping simulation, each with its own systems and
//! its own one-step problem:
//!
//! - a column of [`BEADS`] beads on a floor (one degree of freedom each, radius `R = 0.05`,
//!   Newton impact `e = 0.9`), **Moreau–Jean** θ = 1/2, velocity-level LCP on index set 1;
//! - a ball of mass 1 above its own floor (`e = 0.8`), **Schatzman–Paoli** θ = 1/2,
//!   position-level LCP on every interaction;
//! - Siconos' diode bridge (an LC oscillator feeding a resistor through four ideal diodes,
//!   [`super::diode_bridge`]), **Euler–Moreau** θ = 1/2, level-0 LCP;
//!
//! all stepped together by one [`TimeStepping`] with `h = 2·10⁻⁵` up to `T = 0.2`, each LCP by
//! Lemke. The parts share no interaction, so each part's trajectory is, bit for bit, the one it
//! has when simulated alone ([`simulate_alone`]).

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::kernel::simulation::{
    EulerMoreauOsi, MoreauJeanOsi, OneStepNsProblem, ProblemLevel, SchatzmanPaoliOsi, TimeDiscretisation, TimeStepping,
    TimeSteppingOptions, Trajectory,
};

/// Number of beads in the column.
pub const BEADS: usize = 4;

/// Names of the columns of [`Parts::beads`] (header of the example's `--output` file): time,
/// the heights `z_i` then the velocities `v_i` of the [`BEADS`] beads.
pub const BEADS_COLUMN_NAMES: [&str; 1 + 2 * BEADS] = ["t", "z_0", "z_1", "z_2", "z_3", "v_0", "v_1", "v_2", "v_3"];
/// Radius of a bead.
pub const RADIUS: f64 = 0.05;
/// Gravity.
pub const GRAVITY: f64 = 9.81;
/// Time step.
pub const H: f64 = 2e-5;
/// Final time.
pub const T_END: f64 = 0.2;

/// The beads: one degree of freedom (height) each, 1 cm gaps between neighbours and to the
/// floor, at rest; contacts with the floor and between neighbours linked from the start.
fn add_beads(nsds: &mut Nsds) -> Result<Vec<DsId>, KernelError> {
    let mut beads = Vec::with_capacity(BEADS);
    for i in 0..BEADS {
        let z = RADIUS + 0.01 + i as f64 * (2.0 * RADIUS + 0.01);
        let bead =
            LagrangianLinearTids::new(vec![z], vec![0.0], faer::mat![[1.0]])?.with_external_force(vec![-GRAVITY])?;
        beads.push(nsds.add_ds(bead));
    }
    let law = NonsmoothLaw::newton_impact(0.9)?;
    nsds.link(LagrangianLinearTir::new(faer::mat![[1.0]])?.with_offset(vec![-RADIUS])?, law, &[beads[0]])?;
    for pair in beads.windows(2) {
        let gap = LagrangianLinearTir::new(faer::mat![[-1.0, 1.0]])?.with_offset(vec![-2.0 * RADIUS])?;
        nsds.link(gap, law, pair)?;
    }
    Ok(beads)
}

/// The ball: height 3 cm above its floor, at rest.
fn add_ball(nsds: &mut Nsds) -> Result<(DsId, InteractionId), KernelError> {
    let ball =
        LagrangianLinearTids::new(vec![0.03], vec![0.0], faer::mat![[1.0]])?.with_external_force(vec![-GRAVITY])?;
    let ball = nsds.add_ds(ball);
    let floor = nsds.link(LagrangianLinearTir::new(faer::mat![[1.0]])?, NonsmoothLaw::newton_impact(0.8)?, &[ball])?;
    Ok((ball, floor))
}

/// The trajectories of the three parts, one row per time `t_k` from `t_0`.
#[derive(Clone, Debug)]
pub struct Parts {
    /// `t, z_0 … z_{N−1}, v_0 … v_{N−1}` of the beads.
    pub beads: Trajectory,
    /// `t, z, v, λ` (position-level multiplier) of the ball.
    pub ball: Trajectory,
    /// `t, V_C, i_L, λ_0 … λ_3` of the diode bridge.
    pub diode_bridge: Trajectory,
}

/// Where each part is in a model.
struct Handles {
    beads: Option<Vec<DsId>>,
    ball: Option<(DsId, InteractionId)>,
    circuit: Option<(DsId, InteractionId)>,
}

impl Handles {
    /// Appends the current row of each part present to `parts`.
    fn record(&self, sim: &TimeStepping, parts: &mut Parts) -> Result<(), KernelError> {
        let t = sim.time();
        let nsds = sim.nsds();
        if let Some(beads) = &self.beads {
            let mut row = vec![t];
            for &b in beads {
                row.push(nsds.ds(b)?.state().q()[0]);
            }
            for &b in beads {
                row.push(nsds.ds(b)?.state().v()[0]);
            }
            parts.beads.push(&row);
        }
        if let Some((ball, floor)) = self.ball {
            let state = nsds.ds(ball)?.state();
            parts.ball.push(&[t, state.q()[0], state.v()[0], nsds.interaction(floor)?.lambda(0)[0]]);
        }
        if let Some((circuit, diodes)) = self.circuit {
            let x = nsds.first_order_ds(circuit)?.state().x();
            let l = nsds.interaction(diodes)?.lambda(0);
            parts.diode_bridge.push(&[t, x[0], x[1], l[0], l[1], l[2], l[3]]);
        }
        Ok(())
    }
}

fn grid() -> Result<TimeDiscretisation, KernelError> {
    TimeDiscretisation::new(0.0, H, T_END)
}

fn empty_parts() -> Parts {
    Parts { beads: Trajectory::new(1 + 2 * BEADS), ball: Trajectory::new(4), diode_bridge: Trajectory::new(7) }
}

/// Steps `sim` to its end, recording the parts of `handles`; returns the convergence summary.
fn run(mut sim: TimeStepping, handles: &Handles, parts: &mut Parts) -> Result<RunSummary, KernelError> {
    handles.record(&sim, parts)?;
    while sim.has_next_step() {
        sim.step()?;
        handles.record(&sim, parts)?;
    }
    Ok(sim.run_summary())
}

/// The three parts in one model and one simulation: Moreau–Jean on the beads, Schatzman–Paoli
/// on the ball, Euler–Moreau on the circuit, each with its one-step problem.
///
/// # Errors
/// Kernel errors (none for this model).
pub fn build() -> Result<(TimeStepping, Vec<DsId>, DsId, DsId), KernelError> {
    let (sim, handles) = build_with_handles()?;
    let beads = handles.beads.unwrap_or_default();
    let ball = handles.ball.map(|(b, _)| b).ok_or_else(|| KernelError::InvalidModel("no ball".into()))?;
    let circuit = handles.circuit.map(|(c, _)| c).ok_or_else(|| KernelError::InvalidModel("no circuit".into()))?;
    Ok((sim, beads, ball, circuit))
}

fn build_with_handles() -> Result<(TimeStepping, Handles), KernelError> {
    let mut nsds = Nsds::new();
    let beads = add_beads(&mut nsds)?;
    let ball = add_ball(&mut nsds)?;
    let circuit = super::diode_bridge::add_circuit(&mut nsds)?;
    let sim = TimeStepping::builder(nsds, grid()?)
        .integrator(MoreauJeanOsi::with_theta(0.5)?, beads.iter().copied())
        .integrator(SchatzmanPaoliOsi::with_theta(0.5)?, [ball.0])
        .integrator(EulerMoreauOsi::with_theta(0.5)?, [circuit.0])
        .problem(ProblemLevel::Velocity, OneStepNsProblem::lcp_default()?)
        .problem(ProblemLevel::Position, OneStepNsProblem::lcp_default()?)
        .problem(ProblemLevel::FirstOrder, OneStepNsProblem::lcp_default()?)
        .build()?;
    Ok((sim, Handles { beads: Some(beads), ball: Some(ball), circuit: Some(circuit) }))
}

/// The trajectories of the three parts stepped together ([`build`]).
///
/// # Errors
/// Kernel errors.
pub fn simulate() -> Result<Parts, KernelError> {
    Ok(simulate_with_summary()?.0)
}

/// As [`simulate`], with the convergence of the run's steps (`TimeStepping::run_summary`).
///
/// # Errors
/// Kernel errors.
pub fn simulate_with_summary() -> Result<(Parts, RunSummary), KernelError> {
    let (sim, handles) = build_with_handles()?;
    let mut parts = empty_parts();
    let summary = run(sim, &handles, &mut parts)?;
    Ok((parts, summary))
}

/// The trajectories of the three parts, each simulated alone (its own model and simulation,
/// with the same integrator, problem and grid).
///
/// # Errors
/// Kernel errors.
pub fn simulate_alone() -> Result<Parts, KernelError> {
    let mut parts = empty_parts();
    let options = TimeSteppingOptions::default();

    let mut nsds = Nsds::new();
    let beads = add_beads(&mut nsds)?;
    let sim =
        TimeStepping::new(nsds, MoreauJeanOsi::with_theta(0.5)?, OneStepNsProblem::lcp_default()?, grid()?, options)?;
    run(sim, &Handles { beads: Some(beads), ball: None, circuit: None }, &mut parts)?;

    let mut nsds = Nsds::new();
    let ball = add_ball(&mut nsds)?;
    let sim = TimeStepping::new(
        nsds,
        SchatzmanPaoliOsi::with_theta(0.5)?,
        OneStepNsProblem::lcp_default()?,
        grid()?,
        options,
    )?;
    run(sim, &Handles { beads: None, ball: Some(ball), circuit: None }, &mut parts)?;

    let mut nsds = Nsds::new();
    let circuit = super::diode_bridge::add_circuit(&mut nsds)?;
    let sim =
        TimeStepping::new(nsds, EulerMoreauOsi::with_theta(0.5)?, OneStepNsProblem::lcp_default()?, grid()?, options)?;
    run(sim, &Handles { beads: None, ball: None, circuit: Some(circuit) }, &mut parts)?;
    Ok(parts)
}
