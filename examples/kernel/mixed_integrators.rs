//! Moreau–Jean, Schatzman–Paoli and Euler–Moreau in one time-stepping simulation (model in
//! `nonsmooth_examples::kernel::mixed_integrators`): a column of beads, a bouncing ball and a
//! diode bridge, each under its own integrator and one-step problem.
//!
//! ```text
//! cargo run --release --example mixed_integrators -- [--output FILE [--siconos]]
//! ```
//!
//! It prints, for each part, its last row and whether it equals, bit for bit, the part simulated
//! alone; `--output FILE` writes the beads' rows `t z_0 … z_3 v_0 … v_3` after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::MixedIntegratorsArgs;
use nonsmooth_examples::kernel::mixed_integrators::{self, BEADS_COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = MixedIntegratorsArgs::parse();
    let output = args.output.open()?;
    let (together, summary) = mixed_integrators::simulate_with_summary()?;
    let alone = mixed_integrators::simulate_alone()?;
    if let Some(file) = output {
        file.write(&together.beads, &BEADS_COLUMN_NAMES)?;
    }
    let parts = [
        ("beads (Moreau–Jean)", &together.beads, &alone.beads),
        ("ball (Schatzman–Paoli)", &together.ball, &alone.ball),
        ("diode bridge (Euler–Moreau)", &together.diode_bridge, &alone.diode_bridge),
    ];
    for (name, mixed, single) in parts {
        let same = mixed.rows() == single.rows()
            && (0..mixed.rows())
                .all(|i| mixed.row(i).iter().zip(single.row(i)).all(|(a, b)| a.to_bits() == b.to_bits()));
        println!(
            "{name}: {} rows, last {:?}; {} the part simulated alone",
            mixed.rows(),
            mixed.row(mixed.rows() - 1),
            if same { "bit for bit" } else { "DIFFERS from" }
        );
    }
    println!("{summary}");
    Ok(())
}
