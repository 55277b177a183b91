//! Siconos' reference example `simple_example_relay` (model in `nonsmooth_examples::kernel::simple_example_relay`).
//!
//! `cargo run --release --example simple_example_relay -- --output FILE` writes the rows of the Siconos `.ref`
//! file; without `--output` it prints a summary.

use nonsmooth_examples::kernel::simple_example_relay;

fn main() -> anyhow::Result<()> {
    let trajectory = simple_example_relay::simulate()?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
        None => {
            let last = trajectory.row(trajectory.rows() - 1);
            println!("{} rows; last row {:?}", trajectory.rows(), last);
        }
    }
    Ok(())
}
