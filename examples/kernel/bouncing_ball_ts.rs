//! Siconos' `BouncingBallTS`: a ball bouncing on the ground, Moreau–Jean time-stepping.
//!
//! `cargo run --release --example bouncing_ball_ts -- --output FILE` writes the rows of
//! `BouncingBallTS.ref` (t, x, ẋ, p(1)[0], λ(1)[0]); without `--output` it prints a summary.

use nonsmooth_examples::kernel::bouncing_ball::BouncingBall;

fn main() -> anyhow::Result<()> {
    let trajectory = BouncingBall::default().simulate()?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
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
    Ok(())
}
