//! The bouncing ball of `BouncingBallTS` integrated by the Schatzman–Paoli scheme.
//!
//! `cargo run --release --example bouncing_ball_schatzman_paoli -- --output FILE [--startup siconos|taylor]`
//! writes the rows t, x, ẋ, p(0)[0], λ(0)[0] (those of `examples/data/siconos/BouncingBallSchatzmanPaoli.ref`
//! with the default Siconos start-up); without `--output` it prints a summary.

use nonsmooth::kernel::simulation::SchatzmanPaoliStartup;
use nonsmooth_examples::kernel::bouncing_ball::{BouncingBall, GRAVITY};
use nonsmooth_examples::kernel::bouncing_ball_schatzman_paoli::simulate;

fn main() -> anyhow::Result<()> {
    let startup = match nonsmooth_examples::option_value("--startup")?.as_deref() {
        None | Some("siconos") => SchatzmanPaoliStartup::Siconos,
        Some("taylor") => SchatzmanPaoliStartup::Taylor,
        Some(other) => anyhow::bail!("unknown start-up {other} (siconos or taylor)"),
    };
    let trajectory = simulate(&BouncingBall::default(), startup)?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
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
    Ok(())
}
