//! Prints one JSON line per kernel bench case (`nonsmooth_benches::kernel_models`): the number
//! of active contacts per step (max, mean over all steps, steps with contacts) and physical
//! checksums of the final state (`kernel_models::final_checksums`: bottom and top position, Σ z,
//! Σ v; for the first-order cases x₀, x_last, Σ x, Σ λ), for `cargo xtask bench-report` to set
//! beside Siconos' run of the same models. For the first-order cases "active" counts the
//! interactions of the step's problem (every interaction, index set 0), i.e. 1.
//! For the event-driven ball (`bouncing_ball_ed`) a "step" is an event processed: steps = events
//! (1744), active = 1 on an event whose impact LCP was solved (else 0), so steps with contacts =
//! impacts (44); the checksums are the final x, x, x, ẋ (`event_driven_checksums`).
//!
//! `kernel-summary CASE N` runs one case only (e.g. under a profiler).

use nonsmooth_benches::kernel_models::{
    bouncing_ball_ed, event_driven_cases, event_driven_checksums, final_checksums, is_event_driven, kernel_case,
    kernel_cases, kernel_steps, run_event_driven,
};
use nonsmooth_benches::quick_mode;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cases = match args.as_slice() {
        [case, n] => {
            let known = kernel_cases(false)
                .into_iter()
                .chain(event_driven_cases())
                .find(|(c, m)| c == case && m.to_string() == *n);
            vec![known.ok_or_else(|| format!("unknown case {case} {n}"))?]
        }
        [] => kernel_cases(quick_mode()).into_iter().chain(event_driven_cases()).collect(),
        _ => return Err("usage: kernel-summary [CASE N]".into()),
    };
    for (case, n) in cases {
        if is_event_driven(case) {
            let (mut sim, ball, _) = bouncing_ball_ed()?;
            let run = run_event_driven(&mut sim)?;
            let [z_bottom, z_top, sum_z, sum_v] = event_driven_checksums(&sim, ball)?;
            let line = serde_json::json!({
                "case": case,
                "n": n,
                "steps": run.events,
                "active_max": usize::from(run.impacts > 0),
                "active_mean": run.impacts as f64 / run.events.max(1) as f64,
                "steps_with_contacts": run.impacts,
                "z_bottom": z_bottom,
                "z_top": z_top,
                "sum_z": sum_z,
                "sum_v": sum_v,
                "impacts": run.impacts,
            });
            println!("{line}");
            continue;
        }
        let steps = kernel_steps(case, n);
        let (mut sim, ids) = kernel_case(case, n)?;
        let (mut active_max, mut active_sum, mut with_contacts) = (0usize, 0usize, 0usize);
        for _ in 0..steps {
            let report = sim.step()?;
            active_max = active_max.max(report.active);
            active_sum += report.active;
            with_contacts += usize::from(report.active > 0);
        }
        let [z_bottom, z_top, sum_z, sum_v] = final_checksums(case, &sim, &ids)?;
        let line = serde_json::json!({
            "case": case,
            "n": n,
            "steps": steps,
            "active_max": active_max,
            "active_mean": active_sum as f64 / steps as f64,
            "steps_with_contacts": with_contacts,
            "z_bottom": z_bottom,
            "z_top": z_top,
            "sum_z": sum_z,
            "sum_v": sum_v,
        });
        println!("{line}");
    }
    Ok(())
}
