//! A slider-crank of three Newton–Euler bodies held by joints (Siconos 4.4's `PivotJointR`,
//! `KneeJointR`, `PrismaticJointR`), the slider bouncing on a `JointStopR`, with the drift of
//! the joints.
//!
//! ```text
//! cargo run --release --example slider_crank_ne -- [--steps N] [--projection | --rod-pivots] [--output FILE [--siconos]]
//! ```
//!
//! It prints the stop impacts and the joint constraint violation `max |h(q)|` (the drift) over
//! the run; `--output FILE` writes the columns of `examples/data/siconos/SliderCrankNE.ref`.
//! `--rod-pivots` holds the rod by pivots (a redundant set of joint rows) and solves the mixed
//! one-step problem instead of the MLCP.

use clap::Parser;
use nonsmooth_examples::cli::mechanics::SliderCrankNeArgs;
use nonsmooth_examples::mechanics::print_drift;
use nonsmooth_examples::mechanics::slider_crank_ne::{COLUMN_NAMES, H, RodJoints, build_mixed, run, simulate};

fn main() -> anyhow::Result<()> {
    let args = SliderCrankNeArgs::parse();
    let output = args.output.open()?;
    let steps = usize::try_from(args.steps)?;
    let run = if args.rod_pivots {
        run(build_mixed(H, steps, RodJoints::Pivots, 1e-12)?)?
    } else {
        simulate(H, steps, args.projection)?
    };
    for row in run.trajectory.iter_rows().filter(|r| r[13] > 0.0) {
        println!("t = {:.3}: slider stopped at x = {:.6}, impulse {:.6e}", row[0], row[9], row[13]);
    }
    print_drift(&run.drift, H);
    if let Some(file) = output {
        file.write(&run.trajectory, &COLUMN_NAMES)?;
    }
    Ok(())
}
