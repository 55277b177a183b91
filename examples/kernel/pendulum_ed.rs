//! A point mass on a unilateral string (a pendulum whose string can go slack), event-driven.
//!
//! `cargo run --release --example pendulum_ed -- --output FILE` writes the rows
//! `t, x, z, ẋ, ż, y, λ(1), λ(2), |I_1|, |I_2|` (tension `T = 2 l λ(2)`); without `--output` it
//! prints the nonsmooth events.

use nonsmooth_examples::kernel::pendulum_ed::PendulumEd;

fn main() -> anyhow::Result<()> {
    let run = PendulumEd::default().simulate()?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&run.rows, &path)?,
        None => {
            for (t, impact, i1, i2) in &run.events {
                println!("t = {t:.15}  impact {impact}  |I_1| = {i1}  |I_2| = {i2}");
            }
            println!("{} rows", run.rows.rows());
        }
    }
    Ok(())
}
