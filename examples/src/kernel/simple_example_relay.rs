//! Siconos' `SimpleExampleRelay` example (`control/Relay` in the Siconos tutorials): `ẋ = r`,
//! `y = x`, `r = 2λ`, `λ_i = −sgn(y_i)` (relay law on `[−1, 1]`), so each component goes to 0
//! at slope 2 and stays there (sliding mode). Euler–Moreau θ = 1/2, the relay problem by
//! projected Gauss–Seidel (Siconos' `SICONOS_RELAY_PGS`), `h = 1e-3`, 800 steps.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, FirstOrderLinearDs, FirstOrderLinearTir, InteractionId, NonsmoothLaw, Nsds};
use nonsmooth::kernel::numerics::relay::RelayMethod;
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::kernel::simulation::{
    EulerMoreauOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};

/// Names of the columns of [`simulate`]'s rows (header of the example's `--output` file; the
/// columns of Siconos' `SimpleExampleRelay.ref`): time, state `x`, relay multipliers `λ`, outputs
/// `y`.
pub const COLUMN_NAMES: [&str; 7] = ["t", "x_0", "x_1", "lambda_0", "lambda_1", "y_0", "y_1"];

/// Time step.
pub const H: f64 = 1e-3;
/// Steps of the reference run.
pub const STEPS: usize = 800;

/// The model, ready to step, with its system and its interaction.
///
/// # Errors
/// Kernel errors (none for this model).
pub fn build() -> Result<(TimeStepping, DsId, InteractionId), KernelError> {
    let ds = FirstOrderLinearDs::new(vec![1.0, -1.0], faer::Mat::zeros(2, 2))?;
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(ds);
    let relation = FirstOrderLinearTir::new(faer::Mat::identity(2, 2), faer::mat![[2.0, 0.0], [0.0, 2.0]])?
        .with_d(faer::Mat::zeros(2, 2))?;
    let relay = nsds.link_first_order(relation, NonsmoothLaw::relay(2, -1.0, 1.0)?, &[ds])?;
    let method = RelayMethod::from_name("pgs", None, None).expect("a known relay solver");
    let sim = TimeStepping::new(
        nsds,
        EulerMoreauOsi::with_theta(0.5)?,
        OneStepNsProblem::relay(method)?,
        TimeDiscretisation::new(0.0, H, 1.0)?,
        TimeSteppingOptions::default(),
    )?;
    Ok((sim, ds, relay))
}

/// Runs the reference run and returns the rows of `SimpleExampleRelay.ref`:
/// `t, x₀, x₁, λ₀, λ₁, y₀, y₁`, row 0 with `y = x₀` (the driver computes the output at t₀); as
/// Siconos' driver, the last of the 800 steps is computed but not kept (800 rows).
///
/// # Errors
/// Kernel errors.
pub fn simulate() -> Result<Trajectory, KernelError> {
    Ok(simulate_with_summary()?.0)
}

/// As [`simulate`], with the convergence of the run's steps (`TimeStepping::run_summary`).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_with_summary() -> Result<(Trajectory, RunSummary), KernelError> {
    let (mut sim, ds, relay) = build()?;
    let mut out = Trajectory::new(7);
    let row = |sim: &TimeStepping| -> Result<[f64; 7], KernelError> {
        let x = sim.nsds().first_order_ds(ds)?.state().x().to_vec();
        let inter = sim.nsds().interaction(relay)?;
        let (l, y) = (inter.lambda(0), inter.y(0));
        Ok([sim.time(), x[0], x[1], l[0], l[1], y[0], y[1]])
    };
    out.push(&row(&sim)?);
    for step in 1..=STEPS {
        sim.step()?;
        if step < STEPS {
            out.push(&row(&sim)?);
        }
    }
    Ok((out, sim.run_summary()))
}
