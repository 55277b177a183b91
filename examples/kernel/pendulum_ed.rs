//! A point mass on a unilateral string (a pendulum whose string can go slack), event-driven.
//!
//! ```text
//! cargo run --release --example pendulum_ed -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints the nonsmooth events. `--output FILE` writes the rows `t x z v_x
//! v_z y lambda1 lambda2 size_I1 size_I2 a_x a_z y_ddot` (tension `T = 2 l λ(2)`; accelerations
//! and `ÿ` as the simulation stores them) after that header line; `--siconos` leaves the header
//! out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::PendulumEdArgs;
use nonsmooth_examples::kernel::pendulum_ed::{COLUMN_NAMES, PendulumEd};

fn main() -> anyhow::Result<()> {
    let args = PendulumEdArgs::parse();
    let output = args.output.open()?;
    let run = PendulumEd::default().simulate()?;
    match output {
        Some(file) => file.write(&run.rows, &COLUMN_NAMES)?,
        None => {
            for (t, impact, i1, i2) in &run.events {
                println!("t = {t:.15}  impact {impact}  |I_1| = {i1}  |I_2| = {i2}");
            }
            println!("{} rows", run.rows.rows());
        }
    }
    Ok(())
}
