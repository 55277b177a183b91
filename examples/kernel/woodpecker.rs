//! Siconos' `WoodPecker`: a woodpecker toy with three 2D frictional contacts, Moreau–Jean
//! time-stepping.
//!
//! ```text
//! cargo run --release --example woodpecker -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints a summary. `--output FILE` writes the rows of `Woodpecker.ref`
//! (`t y v_y phi_M omega_M phi_S omega_S`: t, y, ẏ, φ_M, φ̇_M, φ_S, φ̇_S) after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::WoodpeckerArgs;
use nonsmooth_examples::kernel::woodpecker::{self, COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = WoodpeckerArgs::parse();
    let output = args.output.open()?;
    let (trajectory, summary) = woodpecker::simulate_with_summary(woodpecker::reference_steps())?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            let last = trajectory.row(trajectory.rows() - 1);
            println!("{} rows; final t = {:.5}, sleeve height y = {:.6e}", trajectory.rows(), last[0], last[1]);
        }
    }
    println!("{summary}");
    Ok(())
}
