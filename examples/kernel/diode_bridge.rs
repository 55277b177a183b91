//! Siconos' reference example `DiodeBridge` (model in `nonsmooth_examples::kernel::diode_bridge`).
//!
//! ```text
//! cargo run --release --example diode_bridge -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints a summary. `--output FILE` writes the rows of `DiodeBridge.ref`
//! (`t v_C i_L i_diode_R1 v_diode_R1 v_diode_F2 i_diode_F1 i_resistor`) after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::DiodeBridgeArgs;
use nonsmooth_examples::kernel::diode_bridge::{self, COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = DiodeBridgeArgs::parse();
    let output = args.output.open()?;
    let (trajectory, summary) = diode_bridge::simulate_with_summary()?;
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
