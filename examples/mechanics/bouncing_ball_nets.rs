//! Siconos' `BouncingBallNETS`: a Newton–Euler ball bouncing on a plane with friction.
//!
//! `cargo run --release --example bouncing_ball_nets -- --output FILE` writes the 16 columns of
//! `BouncingBallNETS.ref`; without `--output` it prints a summary.

fn main() -> anyhow::Result<()> {
    let trajectory = nonsmooth_examples::mechanics::bouncing_ball_nets::simulate(10.0)?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?,
        None => {
            let contacts = trajectory.iter_rows().filter(|r| r[4] > 0.0).count();
            let last = trajectory.row(trajectory.rows() - 1);
            println!(
                "{} rows; {contacts} steps with a contact impulse; final x = {:.6e}, v = {:.6e}",
                trajectory.rows(),
                last[1],
                last[2]
            );
        }
    }
    Ok(())
}
