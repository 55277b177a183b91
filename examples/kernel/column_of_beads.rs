//! A column of 10 beads falling on a floor, bead–bead contacts linked and removed during the
//! run by a contact detector (model: `nonsmooth_examples::kernel::column_of_beads`).
//!
//! `cargo run --release --example column_of_beads -- [--t-end T] [--output FILE]` prints the
//! numbers of contacts created and removed; with `--output` it writes the rows
//! `t, z_0..z_9, v_0..v_9, n_interactions, n_active` (whitespace-separated, `%.15e`).

use nonsmooth_examples::kernel::column_of_beads::ColumnOfBeads;

fn main() -> anyhow::Result<()> {
    let mut model = ColumnOfBeads::default();
    if let Some(t_end) = nonsmooth_examples::option_value("--t-end")? {
        model.t_end = t_end.parse().map_err(|e| anyhow::anyhow!("--t-end {t_end}: {e}"))?;
    }
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
    if let Some(path) = nonsmooth_examples::output_argument()? {
        nonsmooth::kernel::io::write_trajectory(trajectory, &path)?;
        println!("wrote {} rows to {}", trajectory.rows(), path.display());
    }
    Ok(())
}
