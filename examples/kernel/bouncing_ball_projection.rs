//! The bouncing ball of `BouncingBallTS` integrated by Moreau–Jean with projection onto the
//! constraint.
//!
//! `cargo run --release --example bouncing_ball_projection -- --output FILE [--projection direct|combined]`
//! writes the rows t, x, ẋ, p(1)[0], λ(1)[0], p(0)[0], λ(0)[0] (those of
//! `examples/data/siconos/BouncingBall{Direct,Combined}Projection.ref`); without `--output` it prints
//! a summary.

use nonsmooth_examples::kernel::bouncing_ball::BouncingBall;
use nonsmooth_examples::kernel::bouncing_ball_projection::{Projection, simulate};

fn main() -> anyhow::Result<()> {
    let projection = match nonsmooth_examples::option_value("--projection")?.as_deref() {
        None | Some("direct") => Projection::Direct,
        Some("combined") => Projection::Combined,
        Some(other) => anyhow::bail!("unknown projection {other} (direct or combined)"),
    };
    let trajectory = simulate(&BouncingBall::default(), projection)?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
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
    Ok(())
}
