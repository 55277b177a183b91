//! The event-driven bouncing ball coming to rest (`e = 0.5` by default, `--restitution E`,
//! `--t-end T`).
//!
//! `cargo run --release --example bouncing_ball_ed_resting -- --output FILE` writes the rows
//! `t, x, ẋ, p(1), p(2), λ(1), λ(2), |I_2|` (a pre-impact row before each impact row); without
//! `--output` it prints when the contact became persistent, against the accumulation time.

use nonsmooth_examples::kernel::bouncing_ball_ed_resting::BouncingBallEdResting;

fn main() -> anyhow::Result<()> {
    let mut model = BouncingBallEdResting::default();
    if let Some(e) = nonsmooth_examples::option_value("--restitution")? {
        model.restitution = e.parse()?;
    }
    if let Some(t) = nonsmooth_examples::option_value("--t-end")? {
        model.t_end = t.parse()?;
    }
    let run = model.simulate()?;
    match nonsmooth_examples::output_argument()? {
        Some(path) => nonsmooth::kernel::io::write_trajectory(&run.rows, &path)?,
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
