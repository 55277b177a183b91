//! A Newton–Euler sphere launched sliding on a frictional plane, simulated event by event: the
//! slip → stick event against `t* = 2 v0 / (7 μ g)`.
//!
//! ```text
//! cargo run --release --example rolling_sphere_ed -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints the nonsmooth events, the stick time against `t*` and the final
//! speed against `5 v0 / 7`. `--output FILE` writes the rows of
//! `nonsmooth_examples::mechanics::rolling_sphere_ed::COLUMN_NAMES` after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::mechanics::RollingSphereEdArgs;
use nonsmooth_examples::mechanics::rolling_sphere_ed::{COLUMN_NAMES, RollingSphereEd};

fn main() -> anyhow::Result<()> {
    let args = RollingSphereEdArgs::parse();
    let output = args.output.open()?;
    let model = RollingSphereEd::default();
    let run = model.simulate()?;
    match output {
        Some(file) => file.write(&run.rows, &COLUMN_NAMES)?,
        None => {
            for (t, impact, i1, i2) in &run.events {
                println!("t = {t:.15}  impact {impact}  |I_1| = {i1}  |I_2| = {i2}");
            }
            let ts = model.transition_time();
            if let Some(&(t, ..)) = run.events.iter().find(|e| e.0 > 0.0) {
                println!(
                    "stick at t = {t:.15}, analytic 2 v0/(7 μ g) = {ts:.15} (relative {:.1e})",
                    (t - ts).abs() / ts
                );
            }
            let last = run.rows.row(run.rows.rows() - 1);
            println!(
                "t = {}: speed {:.12} (5 v0 / 7 = {:.12}), contact point velocity ({:.1e}, {:.1e})",
                last[0],
                last[4],
                5.0 * model.v0 / 7.0,
                last[10],
                last[11]
            );
        }
    }
    Ok(())
}
