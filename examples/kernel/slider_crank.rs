//! The slider-crank with a translational clearance joint (Flores, Leine, Glocker; Siconos'
//! `examples/Mechanics/SliderCrank`), model `nonsmooth_examples::kernel::slider_crank`.
//!
//! ```text
//! cargo run --release --example slider_crank -- [--scheme mj|direct|combined] [--steps N]
//!     [--output FILE [--siconos]] [--on-nonconvergence POLICY]
//! ```
//!
//! It runs `N` steps of `h = 1e-5` (default: up to `T = 0.2`, 20000 steps) and prints the
//! smallest gap (largest penetration) per tenth of the run; `--output FILE` also writes the rows
//! `t theta1 theta2 theta3 omega1 omega2 omega3 g1 g2 g3 g4 g_min` after that header line;
//! `--siconos` leaves the header out.

use clap::Parser;
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth_examples::cli::kernel::SliderCrankArgs;
use nonsmooth_examples::kernel::slider_crank::{COLUMN_NAMES, LCP_TOLERANCE, MIN_GAP_COLUMN, SliderCrank};

fn main() -> anyhow::Result<()> {
    let args = SliderCrankArgs::parse();
    let output = args.output.open()?;
    let scheme = args.scheme;
    let mut model = SliderCrank::default();
    model.on_nonconvergence = args.on_nonconvergence.kernel(LCP_TOLERANCE, model.newton_tolerance);
    if let Some(steps) = args.steps {
        model.t_end = model.h * steps as f64;
    }
    let (trajectory, reports) = model.simulate_with_reports(scheme)?;
    let mut summary = RunSummary::new().with_tolerance(LCP_TOLERANCE).with_newton_tolerance(model.newton_tolerance);
    for report in &reports {
        summary.add(report);
    }
    let steps = trajectory.rows() - 1;
    println!("{scheme:?}: {steps} steps of h = {:e}", model.h);
    let windows = 10.min(steps.max(1));
    for w in 0..windows {
        let (from, to) = (1 + w * steps / windows, 1 + (w + 1) * steps / windows);
        let penetration = (from..to).map(|k| -trajectory.row(k)[MIN_GAP_COLUMN]).fold(0.0f64, f64::max);
        println!(
            "  t in [{:.4}, {:.4}]: max penetration {penetration:.3e}",
            trajectory.row(from)[0],
            trajectory.row(to - 1)[0]
        );
    }
    if let Some(file) = output {
        let path = file.path().to_owned();
        file.write(&trajectory, &COLUMN_NAMES)?;
        println!("wrote {} rows to {}", trajectory.rows(), path.display());
    }
    println!("{summary}");
    Ok(())
}
