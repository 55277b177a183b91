//! Siconos' `BouncingBallNETS`: a Newton–Euler ball bouncing on a plane with friction.
//!
//! ```text
//! cargo run --release --example bouncing_ball_nets -- [--projection none|direct|combined] \
//!     [--output FILE [--siconos]] [--on-nonconvergence POLICY]
//! ```
//!
//! Without `--output` it prints a summary. `--output FILE` writes the 16 columns of
//! `BouncingBallNETS.ref` (`t x v_x p1_x lambda1_normal half_angle contact_force_norm q_x q_y q_z
//! q_p0 q_p1 q_p2 q_p3 v_y v_z`) after that header line; `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth::numerics::fc::nsgs::NsgsOptions;
use nonsmooth_examples::cli::mechanics::BouncingBallNetsArgs;
use nonsmooth_examples::mechanics::bouncing_ball_nets::{COLUMN_NAMES, NEWTON_TOLERANCE, simulate_projected};

fn main() -> anyhow::Result<()> {
    let args = BouncingBallNetsArgs::parse();
    let output = args.output.open()?;
    let policy = args.on_nonconvergence.kernel(NsgsOptions::default().tolerance, NEWTON_TOLERANCE);
    let (trajectory, summary) = simulate_projected(10.0, policy, args.projection)?;
    match output {
        Some(file) => file.write(&trajectory, &COLUMN_NAMES)?,
        None => {
            let contacts = trajectory.iter_rows().filter(|r| r[4] > 0.0).count();
            let last = trajectory.row(trajectory.rows() - 1);
            let lowest = trajectory.iter_rows().map(|r| r[1]).fold(f64::INFINITY, f64::min);
            println!(
                "{} rows; {contacts} steps with a contact impulse; lowest x = {lowest:.6e}; final x = {:.6e}, v = {:.6e}",
                trajectory.rows(),
                last[1],
                last[2]
            );
        }
    }
    println!("{summary}");
    Ok(())
}
