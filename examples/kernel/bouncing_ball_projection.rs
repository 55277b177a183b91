//! The bouncing ball of `BouncingBallTS` integrated by Moreau–Jean with projection onto the
//! constraint.
//!
//! ```text
//! cargo run --release --example bouncing_ball_projection -- [--projection direct|combined]
//!     [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints a summary. `--output FILE` writes the rows `t x v_x p1_x lambda1
//! p0_x lambda0` (t, x, ẋ, p(1)[0], λ(1)[0], p(0)[0], λ(0)[0], those of
//! `examples/data/siconos/BouncingBall{Direct,Combined}Projection.ref`) after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::BouncingBallProjectionArgs;
use nonsmooth_examples::kernel::bouncing_ball::BouncingBall;
use nonsmooth_examples::kernel::bouncing_ball_projection::{COLUMN_NAMES, simulate_with_summary};

fn main() -> anyhow::Result<()> {
    let args = BouncingBallProjectionArgs::parse();
    let output = args.output.open()?;
    let projection = args.projection;
    let (trajectory, summary) = simulate_with_summary(&BouncingBall::default(), projection)?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            let projected = trajectory.iter_rows().filter(|r| r[6] != 0.0).count();
            let min_x = trajectory.iter_rows().map(|r| r[1]).fold(f64::INFINITY, f64::min);
            let last = trajectory.row(trajectory.rows() - 1);
            println!(
                "{} rows ({projection:?}); {projected} steps with a position correction; min x = {min_x:.6e}; final x = {:.6e}, v = {:.6e}",
                trajectory.rows(),
                last[1],
                last[2]
            );
        }
    }
    println!("{summary}");
    Ok(())
}
