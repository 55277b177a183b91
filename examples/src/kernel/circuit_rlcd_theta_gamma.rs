//! A series RLC circuit with an ideal diode (as Siconos' `CircuitRLCD` example) integrated by
//! the full θ-γ Euler–Moreau scheme with θ = γ = 1/2, whose discrete energy balance holds to
//! round-off.
//!
//! # Model
//! A capacitor `C` discharges through an inductor `L`, a resistor `R` and an ideal diode in
//! series. State `x = (v_C, i_L)`; `λ ≥ 0` is the diode's reverse voltage and `y = i_L` its
//! current:
//!
//! `C v̇ = −i`, `L i̇ = v − R i + λ`, `0 ≤ y = i ⊥ λ ≥ 0`,
//!
//! i.e. `ẋ = A x + B λ` with `A = [[0, −1/C], [1/L, −R/L]]`, `B = (0, 1/L)ᵀ`, `y = (0 1) x`
//! (a [`FirstOrderLinearTids`] and a [`FirstOrderLinearTir`] with a complementarity law, LCP by
//! Lemke). Values: `R = 10 Ω`, `L = 0.5 H`, `C = 2·10⁻⁴ F`, `v_C(0) = 1 V`, `i_L(0) = 0`,
//! `h = 10⁻⁵ s`, `T = 0.05 s` (5000 steps). The circuit rings at `ω₀ = 1/√(LC) = 100 rad/s`
//! with damping `R/2L = 10 s⁻¹`; after about half a period the current would reverse, the
//! diode blocks and the capacitor keeps a negative charge.
//!
//! # The discrete energy identity
//! With the options `θ = γ = 1/2` and `gamma_for_relation` (Siconos' `_useGammaForRelation`) a
//! step reads `x_{k+1} − x_k = h A x_{k+1/2} + h B λ_{k+1}` with `x_{k+1/2} = (x_k + x_{k+1})/2`,
//! and the law holds at the midpoint: `0 ≤ y_{k+1/2} = i_{k+1/2} ⊥ λ_{k+1} ≥ 0`. Let
//! `Q = diag(C, L)` and `E(x) = ½ xᵀQx = ½ C v² + ½ L i²`. For a quadratic form,
//! `E_{k+1} − E_k = (x_{k+1} − x_k)ᵀ Q x_{k+1/2}` exactly, so
//!
//! `E_{k+1} − E_k = h x_{k+1/2}ᵀ (QA) x_{k+1/2} + h x_{k+1/2}ᵀ (QB) λ_{k+1}`.
//!
//! Here `QA = [[0, −1], [1, −R]]`, whose quadratic form is `−R i²`, and `QB = (0, 1)ᵀ`, so the
//! last term is `h i_{k+1/2} λ_{k+1} = 0` by complementarity (the ideal diode dissipates
//! nothing). Hence `E_{k+1} − E_k = −h R i_{k+1/2}²` and, summed,
//! `E_k + Σ_{j<k} h R i_{j+1/2}² = E_0` exactly in exact arithmetic. The example reports the
//! relative defect of this balance; [`simulate`] with θ = 1 (implicit Euler) shows the same sum
//! drifting (numerical dissipation `½ ΔxᵀQΔx` per step).
//!
//! Once the diode blocks, the midpoint current is 0, so the end-point current alternates
//! `±ε` around 0 (a known feature of the midpoint law: only `y_{k+1/2} ≥ 0` is enforced);
//! `½ L ε²` is then constant and the balance is unaffected.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{FirstOrderLinearTids, FirstOrderLinearTir, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::kernel::simulation::{
    EulerMoreauOptions, EulerMoreauOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
    Trajectory,
};

/// Names of the columns of [`simulate`]'s rows (header of the example's `--output` file): time,
/// capacitor voltage `v_C`, inductor current `i_L`, midpoint diode current `i_{k+1/2}`, diode
/// reverse voltage `λ`, stored energy `E`, dissipated energy `D`, relative balance defect
/// `(E + D − E₀)/E₀`.
pub const COLUMN_NAMES: [&str; 8] =
    ["t", "v_C", "i_L", "i_L_midpoint", "lambda_diode_voltage", "energy_stored", "energy_dissipated", "balance_defect"];

/// Resistance (Ω).
pub const R: f64 = 10.0;
/// Inductance (H).
pub const L: f64 = 0.5;
/// Capacitance (F).
pub const C: f64 = 2e-4;
/// Initial capacitor voltage (V).
pub const V0: f64 = 1.0;
/// Time step (s).
pub const H: f64 = 1e-5;
/// Number of steps (final time `STEPS · H = 0.05 s`).
pub const STEPS: usize = 5000;

/// Stored energy `½ C v² + ½ L i²`.
pub fn energy(v: f64, i: f64) -> f64 {
    0.5 * C * v * v + 0.5 * L * i * i
}

/// Runs the circuit with Euler–Moreau `θ` and the full θ-γ scheme with `γ = gamma`
/// (`gamma_for_relation = true`) for [`STEPS`] steps and returns `STEPS + 1` rows:
///
/// `t, v_C, i_L, i_{k+1/2}, λ, E, D, (E + D − E₀)/E₀`
///
/// where `i_{k+1/2} = (i_k + i_{k+1})/2` is the diode current the law sees, `λ` the diode reverse
/// voltage, `E = ½ C v² + ½ L i²` and `D = Σ h R i_{j+1/2}²` the energy dissipated in `R` so far
/// (row 0: the initial state, `D = 0`).
///
/// # Errors
/// Kernel errors (θ or γ outside `[0, 1]`).
pub fn simulate(theta: f64, gamma: f64) -> Result<Trajectory, KernelError> {
    Ok(simulate_with_summary(theta, gamma)?.0)
}

/// As [`simulate`], with the convergence of the run's steps (`TimeStepping::run_summary`).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_with_summary(theta: f64, gamma: f64) -> Result<(Trajectory, RunSummary), KernelError> {
    let a = faer::mat![[0.0, -1.0 / C], [1.0 / L, -R / L]];
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(FirstOrderLinearTids::new(vec![V0, 0.0], a)?);
    let relation = FirstOrderLinearTir::new(faer::mat![[0.0, 1.0]], faer::mat![[0.0], [1.0 / L]])?;
    let diode = nsds.link_first_order(relation, NonsmoothLaw::complementarity(1)?, &[ds])?;
    let options = EulerMoreauOptions::default().with_theta(theta).with_gamma(gamma).with_gamma_for_relation(true);
    let mut sim = TimeStepping::new(
        nsds,
        EulerMoreauOsi::new(options)?,
        OneStepNsProblem::lcp_default()?,
        TimeDiscretisation::new(0.0, H, H * STEPS as f64)?,
        TimeSteppingOptions::default(),
    )?;
    let e0 = energy(V0, 0.0);
    let mut out = Trajectory::new(8);
    out.push(&[0.0, V0, 0.0, 0.0, 0.0, e0, 0.0, 0.0]);
    let (mut i_old, mut dissipated) = (0.0, 0.0);
    for _ in 0..STEPS {
        sim.step()?;
        let x = sim.nsds().first_order_ds(ds)?.state().x().to_vec();
        let lambda = sim.nsds().interaction(diode)?.lambda(0)[0];
        let i_mid = 0.5 * (i_old + x[1]);
        dissipated += H * R * i_mid * i_mid;
        let e = energy(x[0], x[1]);
        out.push(&[sim.time(), x[0], x[1], i_mid, lambda, e, dissipated, (e + dissipated - e0) / e0]);
        i_old = x[1];
    }
    Ok((out, sim.run_summary()))
}
