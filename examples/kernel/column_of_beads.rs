//! A column of 10 beads falling on a floor, bead–bead contacts linked and removed during the
//! run by a contact detector (model: `nonsmooth_examples::kernel::column_of_beads`).
//!
//! ```text
//! cargo run --release --example column_of_beads -- [--t-end T] [--output FILE [--siconos]]
//! ```
//!
//! It prints the numbers of contacts created and removed (`--t-end`, default 2 s); `--output FILE`
//! also writes the rows `t z_0 … z_9 v_0 … v_9 n_interactions n_active` after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::ColumnOfBeadsArgs;
use nonsmooth_examples::kernel::column_of_beads::ColumnOfBeads;

fn main() -> anyhow::Result<()> {
    let args = ColumnOfBeadsArgs::parse();
    let output = args.output.open()?;
    let model = ColumnOfBeads { t_end: args.t_end, ..ColumnOfBeads::default() };
    let run = model.simulate()?;
    let trajectory = &run.trajectory;
    let last = trajectory.row(trajectory.rows() - 1);
    println!(
        "{} steps, h = {}, T = {}: {} bead contacts created, {} removed, at most {} interactions at once; \
         final z_0 = {:.6e}, z_9 = {:.6e}",
        trajectory.rows() - 1,
        model.h,
        model.t_end,
        run.created,
        run.removed,
        run.max_interactions,
        last[1],
        last[model.beads],
    );
    if let Some(file) = output {
        let path = file.path().to_owned();
        let names = model.column_names();
        file.write(trajectory, &names.iter().map(String::as_str).collect::<Vec<_>>())?;
        println!("wrote {} rows to {}", trajectory.rows(), path.display());
    }
    println!("{}", run.summary);
    Ok(())
}
