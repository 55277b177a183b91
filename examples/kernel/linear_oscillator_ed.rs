//! Siconos' `LinearOscillatorED`: a light ball on two stiff springs dropped on the ground,
//! simulated event by event with our port of LSODAR (Adams ↔ BDF switching as `DLSODAR`).
//!
//! ```text
//! cargo run --release --example linear_oscillator_ed -- [--output FILE [--siconos]]
//! ```
//!
//! Without `--output` it prints a summary (rows, impacts, integration counters and method
//! switches). `--output FILE` writes the rows of `LinearOscillatorED.ref` (`t x v_x p1_x p2_x
//! lambda1 lambda2 y v_y`, a pre-impact row before each impact) after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::LinearOscillatorEdArgs;
use nonsmooth_examples::kernel::linear_oscillator_ed::{COLUMN_NAMES, LinearOscillatorEd};

fn main() -> anyhow::Result<()> {
    let args = LinearOscillatorEdArgs::parse();
    let output = args.output.open()?;
    let run = LinearOscillatorEd::default().simulate()?;
    match output {
        Some(file) => file.write(&run.rows, &COLUMN_NAMES)?,
        None => {
            let impacts = run.rows.iter_rows().filter(|r| r[5] > 0.0).count();
            let last = run.rows.row(run.rows.rows() - 1)[0];
            let t = run.totals;
            println!("{} rows up to t = {last}, {impacts} impacts", run.rows.rows());
            println!(
                "LSODAR: {} calls, {} steps, {} f evaluations, {} Jacobians, {} method switches, \
                 {} calls ending with BDF (first switch to BDF at t = {:?})",
                t.calls, t.steps, t.f_evaluations, t.jacobian_evaluations, t.switches, t.bdf_calls, t.first_bdf
            );
        }
    }
    Ok(())
}
