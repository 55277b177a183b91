//! The cam-follower of Siconos' `CamFollower` example (rheonomous unilateral constraint
//! `u ≥ c(t)`), run with Moreau–Jean time-stepping (`h = 1e-4`) and event-driven.
//!
//! `cargo run --release --example cam_follower -- [--rpm R] [--t-end T] [--scheme ts|ed|both]
//! [--output FILE] [--svg FILE]`
//! - `--rpm R`: cam speed (default 660);
//! - `--t-end T`: final time in seconds (default 10);
//! - `--scheme`: which schemes to run (default `both`);
//! - `--output FILE`: the trajectory rows `t, u, v, c, ċ, λ` (of the event-driven run when it
//!   runs, else of the time-stepping one);
//! - `--svg FILE`: the impact Poincaré section (follower velocity before impact against cam
//!   angle) of the event-driven run, impacts after the first second (the transient) only.

use nonsmooth_examples::kernel::cam_follower::{TIME_STEP, poincare_svg, run_event_driven, run_time_stepping};
use nonsmooth_examples::{option_value, output_argument};

/// Impacts before this time are the transient, left out of the Poincaré section.
const TRANSIENT: f64 = 1.0;

fn main() -> anyhow::Result<()> {
    let rpm: f64 = option_value("--rpm")?.map(|s| s.parse()).transpose()?.unwrap_or(660.0);
    let t_end: f64 = option_value("--t-end")?.map(|s| s.parse()).transpose()?.unwrap_or(10.0);
    let scheme = option_value("--scheme")?.unwrap_or_else(|| "both".into());
    let (ts, ed) = match scheme.as_str() {
        "ts" => (true, false),
        "ed" => (false, true),
        "both" => (true, true),
        other => anyhow::bail!("--scheme must be ts, ed or both, not {other}"),
    };
    let svg = option_value("--svg")?;
    let mut trajectory = None;
    if ts {
        let run = run_time_stepping(rpm, TIME_STEP, t_end)?;
        println!(
            "time-stepping (h = {TIME_STEP}): {} impacts, first separation at {:?}",
            run.impacts.len(),
            run.first_separation
        );
        trajectory = Some(run.trajectory);
    }
    if ed || svg.is_some() {
        let run = run_event_driven(rpm, t_end)?;
        println!("event-driven: {} impacts, first separation at {:?}", run.impacts.len(), run.first_separation);
        if let Some(path) = &svg {
            let section: Vec<_> = run.impacts.iter().copied().filter(|i| i.time >= TRANSIENT).collect();
            let title = format!("cam-follower, {rpm} rpm: impact Poincaré section ({} impacts)", section.len());
            std::fs::write(path, poincare_svg(&section, &title))?;
            println!("wrote {path} ({} impacts after t = {TRANSIENT} s)", section.len());
        }
        trajectory = Some(run.trajectory);
    }
    if let (Some(path), Some(trajectory)) = (output_argument()?, trajectory) {
        nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?;
    }
    Ok(())
}
