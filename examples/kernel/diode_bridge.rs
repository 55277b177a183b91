//! Siconos' reference example `diode_bridge` (model in `nonsmooth_examples::kernel::diode_bridge`).
//!
//! `cargo run --release --example diode_bridge -- --output FILE` writes the rows of the Siconos `.ref`
//! file; without `--output` it prints a summary.

use nonsmooth_examples::kernel::diode_bridge;

fn main() -> anyhow::Result<()> {
    let trajectory = diode_bridge::simulate()?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
        None => {
            let last = trajectory.row(trajectory.rows() - 1);
            println!("{} rows; last row {:?}", trajectory.rows(), last);
        }
    }
    Ok(())
}
