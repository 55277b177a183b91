//! Siconos' reference example `SimpleExampleRelay` (model in
//! `nonsmooth_examples::kernel::simple_example_relay`).
//!
//! ```text
//! cargo run --release --example simple_example_relay -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints a summary. `--output FILE` writes the rows of
//! `SimpleExampleRelay.ref` (`t x_0 x_1 lambda_0 lambda_1 y_0 y_1`) after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::SimpleExampleRelayArgs;
use nonsmooth_examples::kernel::simple_example_relay::{self, COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = SimpleExampleRelayArgs::parse();
    let output = args.output.open()?;
    let (trajectory, summary) = simple_example_relay::simulate_with_summary()?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            let last = trajectory.row(trajectory.rows() - 1);
            println!("{} rows; last row {:?}", trajectory.rows(), last);
        }
    }
    println!("{summary}");
    Ok(())
}
