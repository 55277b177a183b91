//! Siconos' `BouncingBallED`: the bouncing ball simulated event by event.
//!
//! `cargo run --release --example bouncing_ball_ed -- --output FILE` writes the rows of
//! `BouncingBallED.ref` (t, x, ẋ, p(1), p(2), λ(1), λ(2), with a pre-impact row before each
//! impact); without `--output` it prints a summary.

use nonsmooth_examples::kernel::bouncing_ball_ed::BouncingBallEd;

fn main() -> anyhow::Result<()> {
    let trajectory = BouncingBallEd::default().simulate()?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
        None => {
            let impacts = trajectory.iter_rows().filter(|r| r[5] > 0.0).count();
            println!("{} rows, {impacts} impacts", trajectory.rows());
        }
    }
    Ok(())
}
