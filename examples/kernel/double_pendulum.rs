//! A double pendulum (nonlinear Lagrangian system in angles) hitting a floor and a wall
//! (nonlinear scleronomous relations), Moreau–Jean with its Newton loop (model:
//! `nonsmooth_examples::kernel::double_pendulum`).
//!
//! ```text
//! cargo run --release --example double_pendulum -- [--t-end T] [--output FILE [--siconos]]
//!     [--on-nonconvergence POLICY]
//! ```
//!
//! It prints the steps, Newton iterations (total, maximum per step) and impacts (`--t-end`,
//! default 5 s); `--output FILE` also writes the rows `t theta1 theta2 omega1 omega2 x1 y1 x2 y2
//! energy gap_floor gap_wall lambda_floor lambda_wall newton_iterations` after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::DoublePendulumArgs;
use nonsmooth_examples::kernel::double_pendulum::{COLUMN_NAMES, DoublePendulum, LCP_TOLERANCE};

fn main() -> anyhow::Result<()> {
    let args = DoublePendulumArgs::parse();
    let output = args.output.open()?;
    let mut model = DoublePendulum { t_end: args.t_end, ..DoublePendulum::default() };
    model.on_nonconvergence = args.on_nonconvergence.kernel(LCP_TOLERANCE, model.newton_tolerance);
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
    if let Some(file) = output {
        let path = file.path().to_owned();
        file.write(trajectory, &COLUMN_NAMES)?;
        println!("wrote {} rows to {}", trajectory.rows(), path.display());
    }
    println!("{}", run.summary);
    Ok(())
}
