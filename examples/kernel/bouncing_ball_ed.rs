//! Siconos' `BouncingBallED`: the bouncing ball simulated event by event.
//!
//! ```text
//! cargo run --release --example bouncing_ball_ed -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints a summary. `--output FILE` writes the rows of `BouncingBallED.ref`
//! (`t x v_x p1_x p2_x lambda1 lambda2`: t, x, ẋ, p(1), p(2), λ(1), λ(2), with a pre-impact row
//! before each impact) after that header line; `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::BouncingBallEdArgs;
use nonsmooth_examples::kernel::bouncing_ball_ed::{BouncingBallEd, COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = BouncingBallEdArgs::parse();
    let output = args.output.open()?;
    let trajectory = BouncingBallEd::default().simulate()?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            let impacts = trajectory.iter_rows().filter(|r| r[5] > 0.0).count();
            println!("{} rows, {impacts} impacts", trajectory.rows());
        }
    }
    Ok(())
}
