//! Properties of the first-order kernel examples `circuit_rlcd_theta_gamma` and
//! `nonlinear_switch`.
//!
//! Run with `cargo test --release -p nonsmooth-examples --test first_order_examples -- --nocapture`
//! to see the measured numbers.

use nonsmooth::kernel::simulation::Trajectory;
use nonsmooth_examples::kernel::circuit_rlcd_theta_gamma as rlcd;
use nonsmooth_examples::kernel::nonlinear_switch as switch;

// ---------------------------------------------------------------------------------------------
// circuit_rlcd_theta_gamma

/// Largest `|E_k + D_k − E₀| / E₀` over the run (column 7).
fn largest_balance_defect(run: &Trajectory) -> f64 {
    run.iter_rows().map(|r| r[7].abs()).fold(0.0, f64::max)
}

#[test]
fn rlcd_theta_gamma_half_keeps_the_energy_balance_to_round_off() {
    let run = rlcd::simulate(0.5, 0.5).expect("the RLCD circuit runs");
    assert_eq!(run.rows(), rlcd::STEPS + 1);
    let defect = largest_balance_defect(&run);
    // Both terms of the identity are exercised: the resistor dissipates (the diode conducts)
    // and, later, the diode blocks with λ > 0.
    let e0 = rlcd::energy(rlcd::V0, 0.0);
    let last = run.row(run.rows() - 1);
    let blocked = run.iter_rows().filter(|r| r[4] > 1e-3).count();
    let conducting = run.iter_rows().filter(|r| r[3] > 1e-3).count();
    // Complementarity at the midpoint, scaled by the largest current and voltage.
    let product = run.iter_rows().map(|r| (r[3] * r[4]).abs()).fold(0.0, f64::max);
    println!(
        "rlcd θ=γ=1/2: max |E+D−E0|/E0 = {defect:e}; dissipated {:.6e} of {e0:.6e}; {conducting} conducting \
         rows, {blocked} blocked rows; max |i_mid λ| = {product:e}",
        last[6]
    );
    assert!(defect <= 1e-13, "energy balance defect {defect:e}");
    assert!(conducting > 100 && blocked > 100, "conducting {conducting}, blocked {blocked}");
    assert!(last[6] > 0.3 * e0, "the resistor dissipated only {:e}", last[6]);
    assert!(product <= 1e-15, "midpoint complementarity |i λ| = {product:e}");
    // The state is the discrete solution: per step, E_{k+1} − E_k = −h R i_{k+1/2}².
    for k in 1..run.rows() {
        let (a, b) = (run.row(k - 1), run.row(k));
        let step = b[5] - a[5] + rlcd::H * rlcd::R * b[3] * b[3];
        assert!(step.abs() <= 1e-16 * e0 * 10.0, "step {k}: ΔE + hRi² = {step:e}");
    }
}

#[test]
fn rlcd_implicit_euler_dissipates_numerically() {
    let half = largest_balance_defect(&rlcd::simulate(0.5, 0.5).expect("runs"));
    let euler = rlcd::simulate(1.0, 1.0).expect("the RLCD circuit runs with θ = γ = 1");
    let last = euler.row(euler.rows() - 1)[7];
    println!("rlcd θ=γ=1: final (E+D−E0)/E0 = {last:e} (θ=γ=1/2: {half:e})");
    // Implicit Euler loses ½ ΔxᵀQΔx per step beyond the resistor: the balance drifts downwards,
    // by orders of magnitude more than the θ = 1/2 round-off.
    assert!(last < -1e-4, "implicit Euler balance {last:e}");
    assert!(last.abs() > 1e8 * half);
    // And the drift grows monotonically (numerical dissipation only).
    let mut previous = 0.0;
    for r in euler.iter_rows() {
        assert!(r[7] <= previous + 1e-15, "balance increased at t = {}", r[0]);
        previous = r[7];
    }
}

// ---------------------------------------------------------------------------------------------
// nonlinear_switch

#[test]
fn switch_steps_satisfy_the_mlcp_and_the_theta_scheme() {
    let run = switch::simulate(switch::H).expect("the converter runs");
    let steps = run.trajectory.rows() - 1;
    println!(
        "nonlinear_switch: {steps} steps, Newton max {} total {}, residuals: equality {:e}, \
         complementarity {:e}, scheme {:e}",
        run.max_newton_iterations,
        run.total_newton_iterations,
        run.max_equality_residual,
        run.max_complementarity_residual,
        run.max_scheme_residual
    );
    assert_eq!(run.nonconverged_steps, 0);
    // The equality holds at the returned (x, λ) to the Newton tolerance (plus the MLCP's).
    assert!(run.max_equality_residual <= switch::NEWTON_TOLERANCE + 10.0 * switch::MLCP_TOLERANCE);
    assert!(run.max_complementarity_residual <= 1e-12);
    assert!(run.max_scheme_residual <= 1e-12);
    // Both diode states occur, with nonnegative multipliers.
    let rows: Vec<&[f64]> = run.trajectory.iter_rows().skip(1).collect();
    assert!(rows.iter().all(|r| r[3] >= -1e-12 && r[4] >= -1e-12));
    assert!(rows.iter().any(|r| r[3] > 1.0) && rows.iter().any(|r| r[4] > 1.0));
    // The Newton loop works: the switch-on steps start far from the solution.
    assert!(run.max_newton_iterations >= 5, "max Newton iterations {}", run.max_newton_iterations);
    for r in &rows {
        assert!(r[7] <= switch::NEWTON_TOLERANCE, "Newton residual {:e} at t = {}", r[7], r[0]);
    }
    // Steps just after the switch closes (t = kP + h) start from v_A = 0, far from the new
    // solution, and need several iterations; the others need at most 3.
    let per_period = (switch::PERIOD / switch::H).round() as usize;
    for (k, r) in rows.iter().enumerate() {
        let iterations = r[6] as usize;
        if k % per_period == 0 {
            assert!(iterations >= 5, "switch-on step {} took {iterations} iterations", k + 1);
        } else {
            assert!(iterations <= 3, "step {} took {iterations} iterations", k + 1);
        }
    }
}

/// Largest `|i − i_ref|`, `|v − v_ref|` over the common rows.
fn distance(run: &switch::SwitchRun, reference: &switch::ReferenceRun) -> f64 {
    assert_eq!(run.trajectory.rows(), reference.trajectory.rows());
    let mut e = 0.0f64;
    for (a, b) in run.trajectory.iter_rows().zip(reference.trajectory.iter_rows()) {
        assert!((a[0] - b[0]).abs() <= 1e-12);
        e = e.max((a[1] - b[1]).abs()).max((a[2] - b[2]).abs());
    }
    e
}

#[test]
fn switch_converges_at_first_order_to_the_mode_reference() {
    let h = switch::H;
    let reference = switch::reference(h, 20);
    let finer = switch::reference(h, 40);
    assert!(!reference.discontinuous_conduction, "the reference left continuous conduction");
    let rk4_error = reference.trajectory.max_abs_difference(&finer.trajectory).expect("same shape");
    let e1 = distance(&switch::simulate(h).expect("runs"), &reference);
    let reference_2h = switch::reference(2.0 * h, 40);
    let e2 = distance(&switch::simulate(2.0 * h).expect("runs"), &reference_2h);
    println!("nonlinear_switch: |x − x_ref| = {e1:e} (h), {e2:e} (2h), ratio {:.3}; RK4 {rk4_error:e}", e2 / e1);
    // The reference is exact at the scale of the comparison.
    assert!(rk4_error <= 1e-6 * e1, "RK4 error {rk4_error:e}");
    // The scheme holds λ_{k+1} over the step (rectangle rule on the input): first order, so the
    // error halves with h, and at h = 1 µs it is below 1e-3 A·V (currents ≈ 3 A, voltages ≈ 5 V).
    assert!(e1 <= 1e-3, "error {e1:e}");
    assert!((1.7..=2.3).contains(&(e2 / e1)), "ratio {}", e2 / e1);
}
