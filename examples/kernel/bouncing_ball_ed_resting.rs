//! The event-driven bouncing ball coming to rest.
//!
//! ```text
//! cargo run --release --example bouncing_ball_ed_resting -- [--restitution E] [--t-end T]
//!     [--output FILE [--siconos]]
//! ```
//!
//! `--restitution E` (default 0.5) and `--t-end T` (default 2) set the model. Without `--output`
//! it prints when the contact became persistent, against the accumulation time. `--output FILE`
//! writes the rows `t x v_x p1_x p2_x lambda1 lambda2 size_I2` (a pre-impact row before each
//! impact row) after that header line; `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::BouncingBallEdRestingArgs;
use nonsmooth_examples::kernel::bouncing_ball_ed_resting::{BouncingBallEdResting, COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = BouncingBallEdRestingArgs::parse();
    let output = args.output.open()?;
    let model = BouncingBallEdResting { restitution: args.restitution, t_end: args.t_end, ..Default::default() };
    let run = model.simulate()?;
    match output {
        Some(file) => file.write(&run.rows, &COLUMN_NAMES)?,
        None => {
            let t_star = model.accumulation_time();
            match run.rest_time {
                Some(t) => println!(
                    "{} impacts, at rest from t = {t:.15} (t* = {t_star:.15}, t − t* = {:e})",
                    run.impacts,
                    t - t_star
                ),
                None => println!("{} impacts, not at rest by t = {} (t* = {t_star})", run.impacts, model.t_end),
            }
        }
    }
    Ok(())
}
