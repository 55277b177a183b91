//! The bouncing ball of `BouncingBallTS` integrated by the Schatzman–Paoli scheme.
//!
//! ```text
//! cargo run --release --example bouncing_ball_schatzman_paoli -- [--startup siconos|taylor]
//!     [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints a summary. `--output FILE` writes the rows `t x v_x p0_x lambda0`
//! (t, x, ẋ, p(0)[0], λ(0)[0], those of `examples/data/siconos/BouncingBallSchatzmanPaoli.ref`
//! with the default Siconos start-up) after that header line; `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::BouncingBallSchatzmanPaoliArgs;
use nonsmooth_examples::kernel::bouncing_ball::{BouncingBall, GRAVITY};
use nonsmooth_examples::kernel::bouncing_ball_schatzman_paoli::{COLUMN_NAMES, simulate_with_summary};

fn main() -> anyhow::Result<()> {
    let args = BouncingBallSchatzmanPaoliArgs::parse();
    let output = args.output.open()?;
    let (trajectory, summary) = simulate_with_summary(&BouncingBall::default(), args.startup.into())?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            let contacts = trajectory.iter_rows().filter(|r| r[4] > 0.0).count();
            let energy = |r: &[f64]| 0.5 * r[2] * r[2] + GRAVITY * r[1];
            let e0 = energy(trajectory.row(0));
            let max_e = trajectory.iter_rows().skip(1).map(energy).fold(f64::NEG_INFINITY, f64::max);
            let last = trajectory.row(trajectory.rows() - 1);
            println!(
                "{} rows; {contacts} steps with a position-level impulse; energy {e0:.6} at t0, at most {max_e:.6} after; final x = {:.6e}, v = {:.6e}",
                trajectory.rows(),
                last[1],
                last[2]
            );
        }
    }
    println!("{summary}");
    Ok(())
}
