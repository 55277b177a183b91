//! Siconos' `WoodPecker`: a woodpecker toy with three 2D frictional contacts, Moreau–Jean
//! time-stepping.
//!
//! `cargo run --release --example woodpecker -- --output FILE` writes the rows of
//! `Woodpecker.ref` (t, y, ẏ, φ_M, φ̇_M, φ_S, φ̇_S); without `--output` it prints a summary.

use nonsmooth_examples::kernel::woodpecker;

fn main() -> anyhow::Result<()> {
    let trajectory = woodpecker::simulate(woodpecker::reference_steps())?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
        None => {
            let last = trajectory.row(trajectory.rows() - 1);
            println!("{} rows; final t = {:.5}, sleeve height y = {:.6e}", trajectory.rows(), last[0], last[1]);
        }
    }
    Ok(())
}
