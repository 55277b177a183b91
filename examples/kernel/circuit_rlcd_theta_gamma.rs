//! An RLC circuit with an ideal diode under the θ = γ = 1/2 Euler–Moreau scheme (model and the
//! discrete energy identity in `nonsmooth_examples::kernel::circuit_rlcd_theta_gamma`).
//!
//! `cargo run --release --example circuit_rlcd_theta_gamma -- --output FILE` writes the rows
//! `t, v_C, i_L, i_{k+1/2}, λ, E, D, (E + D − E₀)/E₀` (`--theta θ` changes θ, default 0.5);
//! without `--output` it prints the largest relative energy-balance defect.

use nonsmooth_examples::kernel::circuit_rlcd_theta_gamma;

fn main() -> anyhow::Result<()> {
    let theta = match nonsmooth_examples::option_value("--theta")? {
        Some(v) => v.parse::<f64>()?,
        None => 0.5,
    };
    let trajectory = circuit_rlcd_theta_gamma::simulate(theta, 0.5)?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
        None => {
            let defect = trajectory.iter_rows().map(|r| r[7].abs()).fold(0.0, f64::max);
            let last = trajectory.row(trajectory.rows() - 1);
            println!(
                "{} rows, theta = {theta}; max |E + D − E0|/E0 = {defect:e}; last row {last:?}",
                trajectory.rows()
            );
        }
    }
    Ok(())
}
