//! Siconos' `DiodeBridge` example (`electronics/DiodeBridge` in the Siconos tutorials): an LC
//! oscillator (`L = 1e-2`, `C = 1e-6`) feeding a resistor `R = 1e3` through a bridge of four ideal
//! diodes. `x = (V_C, i_L)`, `ẋ = A x + r`, a linear time-invariant relation of size 4 with a
//! complementarity law; Euler–Moreau θ = 1/2, LCP by Lemke, `h = 1e-6`, `T = 5e-3`.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, FirstOrderLinearDs, FirstOrderLinearTir, InteractionId, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::kernel::simulation::{
    EulerMoreauOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};

/// Names of the columns of [`simulate`]'s rows (header of the example's `--output` file; the
/// columns of Siconos' `DiodeBridge.ref`): time, capacitor voltage `V_C`, inductor current `i_L`,
/// diode R1 current `y₀`, diode R1 voltage `−λ₀`, diode F2 voltage `−λ₁`, diode F1 current `λ₂`,
/// resistor current `y₀ + λ₂`.
pub const COLUMN_NAMES: [&str; 8] =
    ["t", "v_C", "i_L", "i_diode_R1", "v_diode_R1", "v_diode_F2", "i_diode_F1", "i_resistor"];

/// Inductance.
pub const L: f64 = 1e-2;
/// Capacitance.
pub const C: f64 = 1e-6;
/// Load resistance.
pub const R: f64 = 1e3;
/// Time step.
pub const H: f64 = 1e-6;
/// Final time.
pub const T_END: f64 = 5e-3;

/// The circuit, ready to step, with its system and its interaction.
///
/// # Errors
/// Kernel errors (none for this model).
pub fn build() -> Result<(TimeStepping, DsId, InteractionId), KernelError> {
    let mut nsds = Nsds::new();
    let (ds, diodes) = add_circuit(&mut nsds)?;
    let sim = TimeStepping::new(
        nsds,
        EulerMoreauOsi::with_theta(0.5)?,
        OneStepNsProblem::lcp_default()?,
        TimeDiscretisation::new(0.0, H, T_END)?,
        TimeSteppingOptions::default(),
    )?;
    Ok((sim, ds, diodes))
}

/// Adds the circuit to `nsds`: its system `x = (V_C, i_L)` and the diodes' interaction.
///
/// # Errors
/// Kernel errors (none for this model).
pub fn add_circuit(nsds: &mut Nsds) -> Result<(DsId, InteractionId), KernelError> {
    let a = faer::mat![[0.0, -1.0 / C], [1.0 / L, 0.0]];
    let ds = nsds.add_first_order_ds(FirstOrderLinearDs::new(vec![10.0, 0.0], a)?);
    // y = C x + D λ: the diode currents and voltages; r = B λ: the current into the capacitor.
    let c = faer::mat![[0.0, 0.0], [0.0, 0.0], [-1.0, 0.0], [1.0, 0.0]];
    let d = faer::mat![
        [1.0 / R, 1.0 / R, -1.0, 0.0],
        [1.0 / R, 1.0 / R, 0.0, -1.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
    ];
    let b = faer::mat![[0.0, 0.0, -1.0 / C, 1.0 / C], [0.0, 0.0, 0.0, 0.0]];
    let relation = FirstOrderLinearTir::new(c, b)?.with_d(d)?;
    let diodes = nsds.link_first_order(relation, NonsmoothLaw::complementarity(4)?, &[ds])?;
    Ok((ds, diodes))
}

/// Runs the reference run (`ceil(T/h) = 5000` rows) and returns the rows of `DiodeBridge.ref`:
/// `t, V_C, i_L, y₀ (diode R1 current), −λ₀ (R1 voltage), −λ₁ (F2 voltage), λ₂ (F1 current),
/// y₀ + λ₂ (resistor current)`; row 0 is the initial state with `y = λ = 0`, as Siconos writes it.
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
    let (mut sim, ds, diodes) = build()?;
    let rows = (T_END / H).ceil() as usize;
    let mut out = Trajectory::new(8);
    out.push(&[0.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    for _ in 1..rows {
        sim.step()?;
        let x = sim.nsds().first_order_ds(ds)?.state().x().to_vec();
        let inter = sim.nsds().interaction(diodes)?;
        let (y, l) = (inter.y(0), inter.lambda(0));
        out.push(&[sim.time(), x[0], x[1], y[0], -l[0], -l[1], l[2], y[0] + l[2]]);
    }
    Ok((out, sim.run_summary()))
}
