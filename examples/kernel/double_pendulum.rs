//! A double pendulum (nonlinear Lagrangian system in angles) hitting a floor and a wall
//! (nonlinear scleronomous relations), Moreau–Jean with its Newton loop (model:
//! `nonsmooth_examples::kernel::double_pendulum`).
//!
//! `cargo run --release --example double_pendulum -- [--t-end T] [--output FILE]` prints the
//! steps, Newton iterations (total, maximum per step) and impacts; with `--output` it writes
//! the rows `t, θ1, θ2, ω1, ω2, x1, y1, x2, y2, E, floor gap, wall gap, λ_floor, λ_wall,
//! newton_iterations` (whitespace-separated, `%.15e`).

use nonsmooth_examples::kernel::double_pendulum::DoublePendulum;

fn main() -> anyhow::Result<()> {
    let mut model = DoublePendulum::default();
    if let Some(t_end) = nonsmooth_examples::option_value("--t-end")? {
        model.t_end = t_end.parse().map_err(|e| anyhow::anyhow!("--t-end {t_end}: {e}"))?;
    }
    let run = model.simulate()?;
    let trajectory = &run.trajectory;
    let (first, last) = (trajectory.row(0), trajectory.row(trajectory.rows() - 1));
    println!(
        "{} steps, {} Newton iterations (max {} per step, {} steps not converged, largest residual {:.3e}), \
         {} impacts; energy {:.6} -> {:.6}",
        run.steps,
        run.newton_total,
        run.newton_max,
        run.newton_failures,
        run.newton_residual_max,
        run.impacts,
        first[9],
        last[9],
    );
    if let Some(path) = nonsmooth_examples::output_argument()? {
        nonsmooth::kernel::io::write_trajectory(trajectory, &path)?;
        println!("wrote {} rows to {}", trajectory.rows(), path.display());
    }
    Ok(())
}
