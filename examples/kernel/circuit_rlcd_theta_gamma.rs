//! An RLC circuit with an ideal diode under the θ = γ = 1/2 Euler–Moreau scheme (model and the
//! discrete energy identity in `nonsmooth_examples::kernel::circuit_rlcd_theta_gamma`).
//!
//! ```text
//! cargo run --release --example circuit_rlcd_theta_gamma -- [--theta THETA] [--output FILE [--siconos]]
//! ```
//!
//! `--theta` sets θ (default 0.5). Without `--output` it prints the largest relative
//! energy-balance defect. `--output FILE` writes the rows `t v_C i_L i_L_midpoint
//! lambda_diode_voltage energy_stored energy_dissipated balance_defect` (t, v_C, i_L, i_{k+1/2},
//! λ, E, D, (E + D − E₀)/E₀) after that header line; `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::CircuitRlcdThetaGammaArgs;
use nonsmooth_examples::kernel::circuit_rlcd_theta_gamma::{self, COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = CircuitRlcdThetaGammaArgs::parse();
    let output = args.output.open()?;
    let theta = args.theta;
    let (trajectory, summary) = circuit_rlcd_theta_gamma::simulate_with_summary(theta, 0.5)?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            let defect = trajectory.iter_rows().map(|r| r[7].abs()).fold(0.0, f64::max);
            let last = trajectory.row(trajectory.rows() - 1);
            println!(
                "{} rows, theta = {theta}; max |E + D − E0|/E0 = {defect:e}; last row {last:?}",
                trajectory.rows()
            );
        }
    }
    println!("{summary}");
    Ok(())
}
