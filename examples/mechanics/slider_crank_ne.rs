//! A slider-crank of three Newton–Euler bodies held by joints (Siconos 4.4's `PivotJointR`,
//! `KneeJointR`, `PrismaticJointR`), the slider bouncing on a `JointStopR`, with the drift of
//! the joints.
//!
//! ```text
//! cargo run --release --example slider_crank_ne -- [--steps N] [--projection] [--output FILE [--siconos]]
//! ```
//!
//! It prints the stop impacts and the joint constraint violation `max |h(q)|` (the drift) over
//! the run; `--output FILE` writes the columns of `examples/data/siconos/SliderCrankNE.ref`.

use clap::Parser;
use nonsmooth_examples::cli::mechanics::SliderCrankNeArgs;
use nonsmooth_examples::mechanics::print_drift;
use nonsmooth_examples::mechanics::slider_crank_ne::{COLUMN_NAMES, H, simulate};

fn main() -> anyhow::Result<()> {
    let args = SliderCrankNeArgs::parse();
    let output = args.output.open()?;
    let steps = usize::try_from(args.steps)?;
    let run = simulate(H, steps, args.projection)?;
    for row in run.trajectory.iter_rows().filter(|r| r[13] > 0.0) {
        println!("t = {:.3}: slider stopped at x = {:.6}, impulse {:.6e}", row[0], row[9], row[13]);
    }
    print_drift(&run.drift, H);
    if let Some(file) = output {
        file.write(&run.trajectory, &COLUMN_NAMES)?;
    }
    Ok(())
}
