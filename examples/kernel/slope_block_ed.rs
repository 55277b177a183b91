//! A block on a frictional slope that tilts with time: it sticks, then slips when
//! `tan θ(t) = μ`, simulated event by event.
//!
//! ```text
//! cargo run --release --example slope_block_ed -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints the nonsmooth events and the slip time against the analytic
//! `(atan μ − θ₀)/ω`. `--output FILE` writes the rows `t x y v_x v_y theta lambda2_n lambda2_t
//! size_I1 size_I2` after that header line; `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::SlopeBlockEdArgs;
use nonsmooth_examples::kernel::slope_block_ed::{COLUMN_NAMES, SlopeBlockEd};

fn main() -> anyhow::Result<()> {
    let args = SlopeBlockEdArgs::parse();
    let output = args.output.open()?;
    let model = SlopeBlockEd::default();
    let run = model.simulate()?;
    match output {
        Some(file) => file.write(&run.rows, &COLUMN_NAMES)?,
        None => {
            for (t, impact, i1, i2) in &run.events {
                println!("t = {t:.15}  impact {impact}  |I_1| = {i1}  |I_2| = {i2}");
            }
            let ts = model.slip_time();
            if let Some(&(t, ..)) = run.events.iter().find(|e| e.0 > 0.0) {
                println!(
                    "slip at t = {t:.15}, analytic (atan μ − θ₀)/ω = {ts:.15} (relative {:.1e})",
                    (t - ts).abs() / ts
                );
            }
            let last = run.rows.row(run.rows.rows() - 1);
            let (x, v) = model.analytic(last[0]);
            println!(
                "t = {}: x = {:.12} (analytic {x:.12}), v_x = {:.12} (analytic {v:.12})",
                last[0], last[1], last[3]
            );
        }
    }
    Ok(())
}
