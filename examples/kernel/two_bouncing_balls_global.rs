//! Two balls bouncing on a line under the global Moreau–Jean scheme (Siconos'
//! `TwoBouncingBallTS-MoreauJeanGOSI`).
//!
//! ```text
//! cargo run --release --example two_bouncing_balls_global -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints a summary. `--output FILE` writes the rows `t x1 v1_x p1_x
//! lambda_ground x2 v2_x p2_x` (those of `examples/data/siconos/TwoBouncingBallsGlobal.ref`) after
//! that header line; `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::TwoBouncingBallsGlobalArgs;
use nonsmooth_examples::kernel::two_bouncing_balls_global::{COLUMN_NAMES, TwoBouncingBallsGlobal};

fn main() -> anyhow::Result<()> {
    let args = TwoBouncingBallsGlobalArgs::parse();
    let output = args.output.open()?;
    let (trajectory, summary) = TwoBouncingBallsGlobal::default().simulate_with_summary()?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            let impacts = trajectory.iter_rows().filter(|r| r[4] != 0.0).count();
            let last = trajectory.row(trajectory.rows() - 1);
            println!(
                "{} rows; {impacts} steps with a ground impulse; final x1 = {:.6e}, x2 = {:.6e}, v1 = {:.6e}, v2 = {:.6e}",
                trajectory.rows(),
                last[1],
                last[5],
                last[2],
                last[6]
            );
        }
    }
    println!("{summary}");
    Ok(())
}
