//! A ball bouncing between a floor and a ceiling, simulated event by event.
//!
//! `cargo run --release --example bouncing_ball_ed_two_contacts -- --output FILE` writes the rows
//! `t, x, ẋ, p(1), p(2), λ_floor(1), λ_floor(2), λ_ceiling(1), λ_ceiling(2)` (a pre-impact row
//! before each impact row); without `--output` it prints the impacts.

use nonsmooth_examples::kernel::bouncing_ball_ed_two_contacts::BouncingBallEdTwoContacts;

fn main() -> anyhow::Result<()> {
    let trajectory = BouncingBallEdTwoContacts::default().simulate()?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
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
