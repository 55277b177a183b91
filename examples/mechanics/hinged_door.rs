//! A hinged door: a Newton–Euler box on a pivot joint, bouncing between two joint stops
//! (Siconos 4.4's `PivotJointR` and `JointStopR`), with the drift of the joint.
//!
//! ```text
//! cargo run --release --example hinged_door -- [--steps N] [--projection] [--output FILE [--siconos]]
//! ```
//!
//! It prints the stop impacts and the joint constraint violation `max |h(q)|` (the drift) over
//! the run; `--output FILE` writes the columns of `examples/data/siconos/HingedDoor.ref`.

use clap::Parser;
use nonsmooth_examples::cli::mechanics::HingedDoorArgs;
use nonsmooth_examples::mechanics::hinged_door::{COLUMN_NAMES, H, simulate};
use nonsmooth_examples::mechanics::print_drift;

fn main() -> anyhow::Result<()> {
    let args = HingedDoorArgs::parse();
    let output = args.output.open()?;
    let steps = usize::try_from(args.steps)?;
    let run = simulate(H, steps, args.projection)?;
    for row in run.trajectory.iter_rows().filter(|r| r[10] > 0.0 || r[11] > 0.0) {
        let stop = if row[10] > 0.0 { "opening" } else { "closing" };
        println!("t = {:.3}: {stop} stop hit at θ = {:.6}, impulse {:.6e}", row[0], row[1], row[10] + row[11]);
    }
    print_drift(&run.drift, H);
    if let Some(file) = output {
        file.write(&run.trajectory, &COLUMN_NAMES)?;
    }
    Ok(())
}
