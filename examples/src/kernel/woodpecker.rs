//! Siconos' `WoodPecker` example (Siconos tutorials): a woodpecker toy going
//! down a pole. One `LagrangianLinearTids` with `q = (y, φ_M, φ_S)` (sleeve height, sleeve
//! and woodpecker angles) coupled by a spring, three 2D frictional contacts (the beak on the
//! pole, the sleeve's two edges on the pole), Moreau–Jean θ = 1/2, FrictionContact(2) solved
//! by Siconos' dense NSGS, `h = 2e-5`, `T = 0.3`.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth::kernel::numerics::fc::{Fc2dMethod, Fc2dNsgsDenseOptions};
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::kernel::simulation::{
    MoreauJeanOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};

/// Names of the columns of [`simulate`]'s rows (header of the example's `--output` file; the
/// columns of Siconos' `Woodpecker.ref`): time, sleeve height `y` and velocity, sleeve angle
/// `φ_M` and angular velocity, woodpecker angle `φ_S` and angular velocity.
pub const COLUMN_NAMES: [&str; 7] = ["t", "y", "v_y", "phi_M", "omega_M", "phi_S", "omega_S"];

// Geometry.
const R_O: f64 = 0.0025;
const R_M: f64 = 0.0031;
const H_M: f64 = 0.0058;
const L_M: f64 = 0.010;
const L_G: f64 = 0.015;
const H_S: f64 = 0.02;
const L_S: f64 = 0.0201;
// Inertia.
const M_M: f64 = 3e-4;
const M_S: f64 = 4.5e-3;
const J_M: f64 = 5e-9;
const J_S: f64 = 7e-7;
// Spring and gravity.
const C_PHI: f64 = 0.0056;
const G: f64 = 9.81;

/// Time step of the reference run.
pub const H: f64 = 2e-5;
/// Final time of the reference run.
pub const T_END: f64 = 0.3;

/// The woodpecker model, ready to step, with the handle of its one system.
///
/// # Errors
/// Kernel errors (none for this model).
pub fn build() -> Result<(TimeStepping, DsId), KernelError> {
    let mass = faer::mat![
        [M_S + M_M, M_S * L_M, M_S * L_G],
        [M_S * L_M, J_M + M_S * L_M * L_M, M_S * L_M * L_G],
        [M_S * L_G, M_S * L_M * L_G, J_S + M_S * L_G * L_G],
    ];
    let stiffness = faer::mat![[0.0, 0.0, 0.0], [0.0, C_PHI, -C_PHI], [0.0, -C_PHI, C_PHI]];
    let f_ext = vec![-(M_S + M_M) * G, -M_S * L_M * G, -M_S * L_G * G];
    let ds = LagrangianLinearTids::new(vec![0.0, -0.1036, -0.2788], vec![-0.3411, 4.8572e-15, -7.4583], mass)?
        .with_stiffness(stiffness)?
        .with_external_force(f_ext)?;
    let mut nsds = Nsds::new();
    let ds = nsds.add_ds(ds);
    // Row 0: normal gap, row 1: tangential coordinate.
    let beak = LagrangianLinearTir::new(faer::mat![[0.0, 0.0, -H_S], [1.0, L_M, L_G - L_S]])?
        .with_offset(vec![L_M + L_G - L_S - R_O, 0.0])?;
    let sleeve_low =
        LagrangianLinearTir::new(faer::mat![[0.0, H_M, 0.0], [1.0, R_M, 0.0]])?.with_offset(vec![R_M - R_O, 0.0])?;
    let sleeve_high =
        LagrangianLinearTir::new(faer::mat![[0.0, -H_M, 0.0], [1.0, R_M, 0.0]])?.with_offset(vec![R_M - R_O, 0.0])?;
    nsds.link(beak, NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 2)?, &[ds])?;
    nsds.link(sleeve_low, NonsmoothLaw::newton_impact_friction(0.0, 0.0, 0.3, 2)?, &[ds])?;
    nsds.link(sleeve_high, NonsmoothLaw::newton_impact_friction(0.0, 0.0, 0.3, 2)?, &[ds])?;
    let sim = TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5)?,
        OneStepNsProblem::friction_contact_2d(Fc2dMethod::NsgsDense(Fc2dNsgsDenseOptions::default()))?,
        TimeDiscretisation::new(0.0, H, T_END)?,
        TimeSteppingOptions::default(),
    )?;
    Ok((sim, ds))
}

/// Runs `steps` steps (the reference run: `floor(T/h) = 14999`, as Siconos' driver computes
/// it) and returns the rows of `Woodpecker.ref`: `t, y, ẏ, φ_M, φ̇_M, φ_S, φ̇_S`, row 0 being
/// the initial state.
///
/// # Errors
/// Kernel errors.
pub fn simulate(steps: usize) -> Result<Trajectory, KernelError> {
    Ok(simulate_with_summary(steps)?.0)
}

/// As [`simulate`], with the convergence of the run's steps (`TimeStepping::run_summary`).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_with_summary(steps: usize) -> Result<(Trajectory, RunSummary), KernelError> {
    let (mut sim, ds) = build()?;
    let mut out = Trajectory::new(7);
    let row = |sim: &TimeStepping| -> Result<[f64; 7], KernelError> {
        let s = sim.nsds().ds(ds)?.state();
        let (q, v) = (s.q(), s.v());
        Ok([sim.time(), q[0], v[0], q[1], v[1], q[2], v[2]])
    };
    out.push(&row(&sim)?);
    for _ in 0..steps {
        sim.step()?;
        out.push(&row(&sim)?);
    }
    Ok((out, sim.run_summary()))
}

/// The number of steps of Siconos' driver: `floor(T / h)` in floating point (14999).
pub fn reference_steps() -> usize {
    (T_END / H).floor() as usize
}
