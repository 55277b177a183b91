//! Siconos' `BouncingBallTS`: a ball bouncing on the ground, Moreau–Jean time-stepping.
//!
//! ```text
//! cargo run --release --example bouncing_ball_ts -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints a summary. `--output FILE` writes the rows of `BouncingBallTS.ref`
//! (`t x v_x p1_x lambda1`: t, x, ẋ, p(1)[0], λ(1)[0]) after a header line `# t x v_x p1_x
//! lambda1`; `--siconos` leaves the header out (the bare `.ref` layout). `--help` says more.

use clap::Parser;
use nonsmooth_examples::cli::kernel::BouncingBallTsArgs;
use nonsmooth_examples::kernel::bouncing_ball::{BouncingBall, COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = BouncingBallTsArgs::parse();
    let output = args.output.open()?;
    let (trajectory, summary) = BouncingBall::default().simulate_with_summary()?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            let impacts = trajectory.iter_rows().filter(|r| r[4] > 0.0).count();
            let last = trajectory.row(trajectory.rows() - 1);
            println!(
                "{} rows; {impacts} steps with a contact impulse; final x = {:.6e}, v = {:.6e}",
                trajectory.rows(),
                last[1],
                last[2]
            );
        }
    }
    println!("{summary}");
    Ok(())
}
