//! A ball bouncing between a floor and a ceiling, simulated event by event.
//!
//! ```text
//! cargo run --release --example bouncing_ball_ed_two_contacts -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints the impacts. `--output FILE` writes the rows `t x v_x p1_x p2_x
//! lambda1_floor lambda2_floor lambda1_ceiling lambda2_ceiling a_x y_ddot_floor y_ddot_ceiling`
//! (a pre-impact row before each impact row) after that header line; `--siconos` leaves the
//! header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::BouncingBallEdTwoContactsArgs;
use nonsmooth_examples::kernel::bouncing_ball_ed_two_contacts::{BouncingBallEdTwoContacts, COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = BouncingBallEdTwoContactsArgs::parse();
    let output = args.output.open()?;
    let trajectory = BouncingBallEdTwoContacts::default().simulate()?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            for r in trajectory.iter_rows().filter(|r| r[5] > 0.0 || r[7] > 0.0) {
                let wall = if r[7] > 0.0 { "ceiling" } else { "floor" };
                println!("t = {:.15}  {wall:7}  v⁺ = {:+.15}", r[0], r[2]);
            }
            println!("{} rows", trajectory.rows());
        }
    }
    Ok(())
}
