//! The cam-follower of Siconos' `CamFollower` sample (rheonomous unilateral constraint
//! `u ≥ c(t)`), run with Moreau–Jean time-stepping (`h = 1e-4`) and event-driven.
//!
//! ```text
//! cargo run --release --example cam_follower -- [--rpm R] [--t-end T] [--scheme ts|ed|both]
//!     [--svg FILE] [--output FILE [--siconos]]
//! ```
//!
//! - `--rpm R`: cam speed (default 660);
//! - `--t-end T`: final time in seconds (default 10);
//! - `--scheme`: which schemes to run (default `both`);
//! - `--svg FILE`: the impact Poincaré section (follower velocity before impact against cam
//!   angle) of the event-driven run, impacts after the first second (the transient) only;
//! - `--output FILE`: the trajectory rows `t u_follower v_follower c_cam cdot_cam lambda` (of the
//!   event-driven run when it runs, else of the time-stepping one) after that header line;
//!   `--siconos` leaves the header out.
//!
//! Both files are created before the runs.

use std::io::Write as _;

use anyhow::Context as _;
use clap::Parser;
use nonsmooth_examples::cli::create_output_file;
use nonsmooth_examples::cli::kernel::{CamFollowerArgs, CamSchemes};
use nonsmooth_examples::kernel::cam_follower::{
    COLUMN_NAMES, TIME_STEP, poincare_svg, run_event_driven, run_time_stepping,
};

/// Impacts before this time are the transient, left out of the Poincaré section.
const TRANSIENT: f64 = 1.0;

fn main() -> anyhow::Result<()> {
    let args = CamFollowerArgs::parse();
    let (rpm, t_end) = (args.rpm, args.t_end);
    let output = args.output.open()?;
    let mut svg =
        args.svg.as_deref().map(|path| Ok::<_, anyhow::Error>((path, create_output_file(path, "SVG")?))).transpose()?;
    let (ts, ed) = match args.scheme {
        CamSchemes::Ts => (true, false),
        CamSchemes::Ed => (false, true),
        CamSchemes::Both => (true, true),
    };
    let mut trajectory = None;
    if ts {
        let run = run_time_stepping(rpm, TIME_STEP, t_end)?;
        println!(
            "time-stepping (h = {TIME_STEP}): {} impacts, first separation at {:?}",
            run.impacts.len(),
            run.first_separation
        );
        if let Some(summary) = &run.summary {
            println!("time-stepping: {summary}");
        }
        trajectory = Some(run.trajectory);
    }
    if ed || svg.is_some() {
        let run = run_event_driven(rpm, t_end)?;
        println!("event-driven: {} impacts, first separation at {:?}", run.impacts.len(), run.first_separation);
        if let Some((path, file)) = &mut svg {
            let section: Vec<_> = run.impacts.iter().copied().filter(|i| i.time >= TRANSIENT).collect();
            let title = format!("cam-follower, {rpm} rpm: impact Poincaré section ({} impacts)", section.len());
            file.write_all(poincare_svg(&section, &title).as_bytes())
                .with_context(|| format!("writing the SVG file {}", path.display()))?;
            println!("wrote {} ({} impacts after t = {TRANSIENT} s)", path.display(), section.len());
        }
        trajectory = Some(run.trajectory);
    }
    if let (Some(file), Some(trajectory)) = (output, trajectory) {
        file.write(&trajectory, &COLUMN_NAMES)?;
    }
    Ok(())
}
