//! A pendulum chain: five Newton–Euler links on pivot joints falling onto a frictional floor,
//! stepped with the mixed mechanical one-step problem (Siconos' `GenericMechanical`), with the
//! drift of the joints.
//!
//! ```text
//! cargo run --release --example pendulum_chain -- [--steps N] [--output FILE [--siconos]]
//! ```
//!
//! It prints the links in contact and the joints' constraint violation `max |h(q)|` (the drift)
//! over the run; `--output FILE` writes the columns of `examples/data/siconos/PendulumChain.ref`.

use clap::Parser;
use nonsmooth_examples::cli::mechanics::PendulumChainArgs;
use nonsmooth_examples::mechanics::pendulum_chain::{H, column_names, simulate};
use nonsmooth_examples::mechanics::print_drift;

fn main() -> anyhow::Result<()> {
    let args = PendulumChainArgs::parse();
    let output = args.output.open()?;
    let steps = usize::try_from(args.steps)?;
    let run = simulate(H, steps)?;
    let tenth = steps.div_ceil(10);
    for (i, chunk) in run.contacts.chunks(tenth).enumerate() {
        let most = chunk.iter().max().copied().unwrap_or(0);
        println!("steps {:>6}..{:<6}: at most {most} link ends on the floor", i * tenth + 1, i * tenth + chunk.len());
    }
    println!("{} of {} steps with an unconverged one-step problem", run.summary.unconverged, run.summary.steps);
    print_drift(&run.drift, H);
    if let Some(file) = output {
        let names = column_names();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        file.write(&run.trajectory, &names)?;
    }
    Ok(())
}
