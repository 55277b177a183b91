//! A buck converter with a nonlinear switch: Type2R relation, MLCP, Newton loop (model in
//! `nonsmooth_examples::kernel::nonlinear_switch`).
//!
//! ```text
//! cargo run --release --example nonlinear_switch -- [--output FILE [--siconos]] [--on-nonconvergence POLICY]
//! ```
//!
//! Without `--output` it prints the largest residuals, the Newton iteration counts and the
//! distance to the RK4 reference. `--output FILE` writes the rows `t i_L v_C v_A i_D switch
//! newton_iterations newton_residual equality_residual complementarity_residual scheme_residual`
//! after that header line; `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth_examples::cli::kernel::NonlinearSwitchArgs;
use nonsmooth_examples::kernel::nonlinear_switch::{self, COLUMN_NAMES};

fn main() -> anyhow::Result<()> {
    let args = NonlinearSwitchArgs::parse();
    let output = args.output.open()?;
    let policy = args.on_nonconvergence.kernel(nonlinear_switch::MLCP_TOLERANCE, nonlinear_switch::NEWTON_TOLERANCE);
    let run = nonlinear_switch::simulate_with(nonlinear_switch::H, policy)?;
    match output {
        Some(file) => file.write(&run.trajectory, &COLUMN_NAMES)?,
        None => {
            let reference = nonlinear_switch::reference(nonlinear_switch::H, 20);
            let mut error = 0.0f64;
            for (row, r) in run.trajectory.iter_rows().zip(reference.trajectory.iter_rows()) {
                error = error.max((row[1] - r[1]).abs()).max((row[2] - r[2]).abs());
            }
            let steps = run.trajectory.rows() - 1;
            println!(
                "{steps} steps; Newton iterations: max {}, mean {:.3}; max residuals: equality {:e}, \
                 complementarity {:e}, scheme {:e}; max |x − x_ref| = {error:e} (discontinuous conduction \
                 in the reference: {})",
                run.max_newton_iterations,
                run.total_newton_iterations as f64 / steps as f64,
                run.max_equality_residual,
                run.max_complementarity_residual,
                run.max_scheme_residual,
                reference.discontinuous_conduction
            );
        }
    }
    println!("{}", run.summary);
    Ok(())
}
