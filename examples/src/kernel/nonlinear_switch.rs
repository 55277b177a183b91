//! A buck converter whose switch has a nonlinear on-characteristic: a [`FirstOrderType2R`]
//! relation with a mixed law (one equality, one complementarity), solved per step by the
//! Euler–Moreau Newton loop around an MLCP.
//!
//! # Model
//! A source `E` feeds node `A` through a switch; an ideal freewheeling diode goes from ground
//! to `A`; an inductor `L` goes from `A` to the output, where a capacitor `C` and a load `R`
//! sit. State `x = (i_L, v_C)`, multipliers `λ = (v_A, i_D)` (the node voltage, free, and the
//! diode current):
//!
//! - `L i̇ = v_A − v_C`, `C v̇ = i − v/R`: `ẋ = A x + g(λ)`, `A = [[0, −1/L], [1/C, −1/(RC)]]`,
//!   `g(λ) = (v_A/L, 0)` (a [`FirstOrderLinearTids`]);
//! - KCL at `A` (equality row): `y₁ = i − i_D − s(t) φ(E − v_A) = 0`, where the closed switch
//!   carries `φ(u) = G₁ u + G₃ u³` under the voltage `u` across it (a nonlinear on-resistance)
//!   and `s(t) ∈ {0, 1}` is the PWM command;
//! - the diode (complementarity row): `0 ≤ y₂ = v_A ⊥ i_D ≥ 0`.
//!
//! `y = h(t, x, λ)` is nonlinear in `λ` (Type2R: `C = ∂h/∂x = [[1, 0], [0, 0]]`,
//! `D = ∂h/∂λ = [[s φ'(E − v_A), −1], [1, 0]]`, `B = [[1/L, 0], [0, 0]]`), so each step runs
//! Newton on `(x, λ)`: linearize `h` at the iterate, solve the MLCP
//! `y = (D + h C W⁻¹ B) λ + q` by enumeration, update, and stop when the linearized output
//! and input match `h` and `g` at the new iterate to [`NEWTON_TOLERANCE`].
//!
//! Values: `E = 12 V`, `L = 1 mH`, `C = 100 µF`, `R = 2 Ω`, `G₁ = 1 S`, `G₃ = 1 S/V²`,
//! switching at 5 kHz (period 200 µs) with duty ratio 1/2, `x(0) = 0`, θ = 1/2,
//! `h = 1 µs`, `T = 5 ms` (25 periods). The switch is closed on `(kP, kP + P/2]` and open on
//! `(kP + P/2, (k+1)P]`; the relation reads `s` at the end of the step, so each step sees the
//! switch state it lies in (the switching instants are grid points).
//!
//! # Checks
//! Each step records: the Newton iterations and residual; the equality residual
//! `|i − i_D − s φ(E − v_A)|` at the returned `(x_{k+1}, λ_{k+1})`; the complementarity residual
//! `|min(v_A, i_D)|`; and the θ-scheme residual
//! `‖x_{k+1} − x_k − (h/2) A (x_k + x_{k+1}) − h g(λ_{k+1})‖∞`. [`reference()`] integrates the
//! same circuit independently, mode by mode (switch closed: `v_A = E − φ⁻¹(i)`; open with
//! `i > 0`: `v_A = 0`, the diode conducts), by RK4 with a fine step; it flags a discontinuous
//! conduction phase (`i ≤ 0` with the switch open), which these values avoid. The scheme holds
//! `λ_{k+1}` over the whole step (a rectangle rule on the input), so it is first order: the
//! error to the reference halves with `h`.

use faer::Mat;
use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{FirstOrderLinearTids, FirstOrderType2R, NonsmoothLaw, Nsds};
use nonsmooth::kernel::numerics::mlcp::MlcpMethod;
use nonsmooth::kernel::simulation::{
    EulerMoreauOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};
use nonsmooth::kernel::simulation::{NonConvergencePolicy, RunSummary};

/// Names of the columns of the rows of [`simulate`] (header of the example's `--output` file):
/// time, inductor current `i_L`, capacitor voltage `v_C`, node voltage `v_A`, diode current
/// `i_D`, switch command `s`, then the step's Newton iterations and residual and its equality,
/// complementarity and θ-scheme residuals.
pub const COLUMN_NAMES: [&str; 11] = [
    "t",
    "i_L",
    "v_C",
    "v_A",
    "i_D",
    "switch",
    "newton_iterations",
    "newton_residual",
    "equality_residual",
    "complementarity_residual",
    "scheme_residual",
];

/// Source voltage (V).
pub const E: f64 = 12.0;
/// Inductance (H).
pub const L: f64 = 1e-3;
/// Capacitance (F).
pub const C: f64 = 1e-4;
/// Load resistance (Ω).
pub const R: f64 = 2.0;
/// Linear conductance of the closed switch (S).
pub const G1: f64 = 1.0;
/// Cubic conductance of the closed switch (S/V²).
pub const G3: f64 = 1.0;
/// Switching period (s).
pub const PERIOD: f64 = 2e-4;
/// Duty ratio.
pub const DUTY: f64 = 0.5;
/// Time step of the example (s).
pub const H: f64 = 1e-6;
/// Final time (s).
pub const T_END: f64 = 5e-3;
/// Newton tolerance on the relations' residuals (A).
pub const NEWTON_TOLERANCE: f64 = 1e-10;
/// Tolerance of the MLCP enumeration.
pub const MLCP_TOLERANCE: f64 = 1e-12;

/// Current through the closed switch under the voltage `u`: `φ(u) = G₁ u + G₃ u³`.
pub fn phi(u: f64) -> f64 {
    G1 * u + G3 * u * u * u
}

/// `φ'(u) = G₁ + 3 G₃ u²`.
pub fn phi_prime(u: f64) -> f64 {
    G1 + 3.0 * G3 * u * u
}

/// `φ⁻¹(i)`: the real root of `G₃ u³ + G₁ u − i` (Cardano's formula, `φ` being increasing,
/// then two Newton steps to round-off).
pub fn phi_inverse(i: f64) -> f64 {
    let (p, q) = (G1 / G3, -i / G3);
    let s = (q * q / 4.0 + p * p * p / 27.0).sqrt();
    let mut u = (-q / 2.0 + s).cbrt() + (-q / 2.0 - s).cbrt();
    for _ in 0..2 {
        u -= (phi(u) - i) / phi_prime(u);
    }
    u
}

/// The grid step index of `t` on a grid of step `h` from 0.
fn step_index(t: f64, h: f64) -> usize {
    (t / h).round().max(0.0) as usize
}

/// Whether the switch is closed during the step of a grid of step `h` that ends at `t`:
/// closed on `(kP, kP + dP]`, open on `(kP + dP, (k+1)P]` (`P/h` and `dP/h` are rounded to
/// integers).
pub fn switch_closed(t: f64, h: f64) -> bool {
    let per_period = (PERIOD / h).round() as usize;
    let closed = (DUTY * PERIOD / h).round() as usize;
    let m = step_index(t, h) % per_period.max(1);
    (1..=closed).contains(&m)
}

/// `A = [[0, −1/L], [1/C, −1/(RC)]]`.
fn matrix_a() -> Mat<f64> {
    faer::mat![[0.0, -1.0 / L], [1.0 / C, -1.0 / (R * C)]]
}

/// The result of [`simulate`].
#[derive(Clone, Debug)]
pub struct SwitchRun {
    /// One row per grid point: `t, i_L, v_C, v_A, i_D, s, Newton iterations, Newton residual,
    /// equality residual, complementarity residual, θ-scheme residual` (row 0: the initial
    /// state with zeros).
    pub trajectory: Trajectory,
    /// Largest number of Newton iterations in a step.
    pub max_newton_iterations: usize,
    /// Total Newton iterations.
    pub total_newton_iterations: usize,
    /// Steps whose Newton loop or MLCP did not converge.
    pub nonconverged_steps: usize,
    /// Largest equality residual `|i − i_D − s φ(E − v_A)|` (A).
    pub max_equality_residual: f64,
    /// Largest complementarity residual `|min(v_A, i_D)|`.
    pub max_complementarity_residual: f64,
    /// Largest θ-scheme residual `‖x_{k+1} − x_k − (h/2)A(x_k + x_{k+1}) − h g(λ)‖∞`.
    pub max_scheme_residual: f64,
    /// Convergence of the run's steps (`TimeStepping::run_summary`, with the MLCP tolerance).
    pub summary: RunSummary,
}

/// Runs the converter with step `h` up to [`T_END`] (`round(T_END/h)` steps).
///
/// # Errors
/// Kernel errors (a Newton loop or MLCP that does not converge stops the run).
pub fn simulate(h: f64) -> Result<SwitchRun, KernelError> {
    simulate_with(h, NonConvergencePolicy::Fail)
}

/// As [`simulate`], under the non-convergence policy `policy` (the run's summary counts the
/// steps it let go on).
///
/// # Errors
/// Kernel errors (non-convergence as `policy` says).
pub fn simulate_with(h: f64, policy: NonConvergencePolicy) -> Result<SwitchRun, KernelError> {
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(FirstOrderLinearTids::new(vec![0.0, 0.0], matrix_a())?);
    let relation = FirstOrderType2R::new(
        2,
        move |t, x, l, y| {
            let s = if switch_closed(t, h) { 1.0 } else { 0.0 };
            y[0] = x[0] - l[1] - s * phi(E - l[0]);
            y[1] = l[0];
        },
        move |t, _x, l, cm, dm| {
            let s = if switch_closed(t, h) { 1.0 } else { 0.0 };
            cm[(0, 0)] = 1.0;
            dm[(0, 0)] = s * phi_prime(E - l[0]);
            dm[(0, 1)] = -1.0;
            dm[(1, 0)] = 1.0;
        },
        |_t, l, r| {
            r[0] = l[0] / L;
            r[1] = 0.0;
        },
        |_t, _l, bm| bm[(0, 0)] = 1.0 / L,
    )?;
    let law = NonsmoothLaw::mixed_complementarity(1, 1)?;
    let inter = nsds.link_first_order(relation, law, &[ds])?;
    let method = MlcpMethod::from_name("enum", Some(MLCP_TOLERANCE), None).expect("a known MLCP solver");
    let steps = (T_END / h).round() as usize;
    let mut sim = TimeStepping::new(
        nsds,
        EulerMoreauOsi::with_theta(0.5)?,
        OneStepNsProblem::mlcp(method)?,
        TimeDiscretisation::new(0.0, h, h * steps as f64)?,
        TimeSteppingOptions::default()
            .with_newton_tolerance(NEWTON_TOLERANCE)
            .with_newton_max_iterations(50)
            .with_policy(policy),
    )?;
    let a = matrix_a();
    let mut run = SwitchRun {
        trajectory: Trajectory::new(11),
        max_newton_iterations: 0,
        total_newton_iterations: 0,
        nonconverged_steps: 0,
        max_equality_residual: 0.0,
        max_complementarity_residual: 0.0,
        max_scheme_residual: 0.0,
        summary: RunSummary::new(),
    };
    run.trajectory.push(&[0.0; 11]);
    let mut x_old = vec![0.0, 0.0];
    for _ in 0..steps {
        let report = sim.step()?;
        let t = sim.time();
        let x = sim.nsds().first_order_ds(ds)?.state().x().to_vec();
        let l = sim.nsds().interaction(inter)?.lambda(0).to_vec();
        let s = if switch_closed(t, h) { 1.0 } else { 0.0 };
        let equality = (x[0] - l[1] - s * phi(E - l[0])).abs();
        let complementarity = l[0].min(l[1]).abs();
        let g = [l[0] / L, 0.0];
        let mut scheme = 0.0f64;
        for row in 0..2 {
            let ax: f64 = (0..2).map(|c| a[(row, c)] * (x_old[c] + x[c])).sum();
            scheme = scheme.max((x[row] - x_old[row] - 0.5 * h * ax - h * g[row]).abs());
        }
        run.max_newton_iterations = run.max_newton_iterations.max(report.newton_iterations);
        run.total_newton_iterations += report.newton_iterations;
        if !report.newton_converged || report.osns.is_some_and(|o| !o.is_converged()) {
            run.nonconverged_steps += 1;
        }
        run.max_equality_residual = run.max_equality_residual.max(equality);
        run.max_complementarity_residual = run.max_complementarity_residual.max(complementarity);
        run.max_scheme_residual = run.max_scheme_residual.max(scheme);
        run.trajectory.push(&[
            t,
            x[0],
            x[1],
            l[0],
            l[1],
            s,
            report.newton_iterations as f64,
            report.newton_residual,
            equality,
            complementarity,
            scheme,
        ]);
        x_old = x;
    }
    run.summary = sim.run_summary().with_tolerance(MLCP_TOLERANCE);
    Ok(run)
}

/// The result of [`reference()`].
#[derive(Clone, Debug)]
pub struct ReferenceRun {
    /// One row per output point: `t, i_L, v_C`.
    pub trajectory: Trajectory,
    /// Whether the current reached 0 with the switch open (a discontinuous-conduction phase,
    /// which the mode model of [`reference()`] does not handle).
    pub discontinuous_conduction: bool,
}

/// `ẋ` in the mode of the switch: closed, `v_A = E − φ⁻¹(i)`; open, `v_A = 0`.
fn mode_rhs(closed: bool, x: [f64; 2]) -> [f64; 2] {
    let v_a = if closed { E - phi_inverse(x[0]) } else { 0.0 };
    [(v_a - x[1]) / L, (x[0] - x[1] / R) / C]
}

/// The converter integrated mode by mode with RK4 (`substeps` steps of `h/substeps` per output
/// step `h`, the switching instants being output points), independent of the kernel. Rows at
/// `t = k h`, `k = 0..=round(T_END/h)`.
pub fn reference(h: f64, substeps: usize) -> ReferenceRun {
    let steps = (T_END / h).round() as usize;
    let substeps = substeps.max(1);
    let dt = h / substeps as f64;
    let mut x = [0.0, 0.0];
    let mut out = ReferenceRun { trajectory: Trajectory::new(3), discontinuous_conduction: false };
    out.trajectory.push(&[0.0, 0.0, 0.0]);
    for k in 1..=steps {
        let t = h * k as f64;
        let closed = switch_closed(t, h);
        for _ in 0..substeps {
            let k1 = mode_rhs(closed, x);
            let k2 = mode_rhs(closed, [x[0] + 0.5 * dt * k1[0], x[1] + 0.5 * dt * k1[1]]);
            let k3 = mode_rhs(closed, [x[0] + 0.5 * dt * k2[0], x[1] + 0.5 * dt * k2[1]]);
            let k4 = mode_rhs(closed, [x[0] + dt * k3[0], x[1] + dt * k3[1]]);
            for j in 0..2 {
                x[j] += dt / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]);
            }
            if !closed && x[0] <= 0.0 {
                out.discontinuous_conduction = true;
            }
        }
        out.trajectory.push(&[t, x[0], x[1]]);
    }
    out
}
