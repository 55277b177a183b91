//! Our sphere pile ([`nonsmooth::mechanics::pile::SpherePile`], the scene of the `sphere_pile`
//! example) timed for the mechanics benchmark report `docs/benchmarks/mechanics.md`, next to the
//! same pile stepped by Rapier (`src/bin/rapier-pile.rs`).
//!
//! The scene: `SpherePile::with_spheres(n)` (the positions of [`PileSpec::with_n`]), Moreau–Jean
//! at `h = 1e-3` with FC3D solved by the scenes' NSGS (`SceneOptions::default_nsgs`: tolerance
//! 1e-4, over-relaxation 1.5, Anderson acceleration with memory 3 once per two sweeps, the full
//! error evaluated after one plain sweep, warm started from the previous step's reactions) in
//! body velocities on the factored Delassus operator (the scenes' default,
//! `SceneOptions::factored_delassus`); `--parallel` sweeps the two halves of the contacts in
//! parallel (`NsgsSchedule::Halves`, the scenes' parallel schedule) with
//! `Parallelism::Rayon { threads: 2 }`: the solver's own pool of 2 threads (the rest of the
//! step starts no thread). Without it the solver is `Parallelism::Sequential` and the run is
//! single-threaded (no thread besides the main one), like Rapier's default pipeline.
//!
//! `--assembled` solves on the assembled `W` instead (`SceneOptions::factored_delassus` false).
//!
//! Usage: `mechanics-pile [--n N] [--steps S] [--measure M] [--parallel] [--assembled]` (defaults 1000, 500,
//! 200). It steps `S` times, measures the last `M` steps, and prints one JSON line: engine, n, h,
//! steps, measured, parallel, threads, seconds_per_step (mean over the measured steps of the
//! scene step's wall time), detection, assembly, solve, update (seconds per step, means over the
//! measured steps, from [`nonsmooth::mechanics::scene::SceneStepReport`]), contacts (mean per
//! measured step), sweeps (mean NSGS sweeps of the last Newton iteration), newton_iterations
//! (mean per step: one FC3D problem is solved per iteration), unconverged (measured steps whose FC3D did not
//! reach its tolerance), max_penetration ([`PileSpec::max_penetration`] on the final centres,
//! the measure applied to Rapier's), mean_height and initial_mean_height, and the setup time.

use std::time::{Duration, Instant};

use nonsmooth::mechanics::scene::{SceneOptions, StepTotals};
use nonsmooth::numerics::Parallelism;
use nonsmooth::numerics::fc::Fc3dMethod;
use nonsmooth_benches::pile::PileSpec;

/// Threads of the NSGS solver's pool for `--parallel` (the 2-core figure of the mechanics report).
const PARALLEL_THREADS: usize = 2;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = nonsmooth_benches::pile::RunArgs::parse(std::env::args().skip(1), &["--parallel", "--assembled"])
        .map_err(|e| {
            format!(
                "{e}\nusage: mechanics-pile [--n N] [--steps S] [--measure M] [--seed K] [--parallel] [--assembled]"
            )
        })?;
    let (threads, parallelism) = if args.has("--parallel") {
        (PARALLEL_THREADS, Parallelism::Rayon { threads: PARALLEL_THREADS })
    } else {
        (1, Parallelism::Sequential)
    };
    let spec = PileSpec::from_args(&args);
    spec.validate()?;
    let h = spec.h;
    let nsgs = SceneOptions::default_nsgs().with_parallelism(parallelism);
    let tolerance = nsgs.tolerance;
    let options = SceneOptions::default()
        .with_final_time(h * args.steps as f64 + 0.5 * h)
        .with_method(Fc3dMethod::Nsgs(nsgs))
        .with_factored_delassus(!args.has("--assembled"));
    let setup = Instant::now();
    let mut scene = spec.to_scene().build(options)?;
    let setup_seconds = setup.elapsed().as_secs_f64();
    let initial_mean_height = PileSpec::mean_height(&spec.initial_positions());

    let mut sums = StepTotals::default();
    let mut wall_sum = Duration::ZERO;
    for step in 0..args.steps {
        if !scene.has_next_step() {
            return Err(format!("the scene ended after {step} of {} steps", args.steps).into());
        }
        let t = Instant::now();
        let report = scene.step()?;
        let wall = t.elapsed();
        if step + args.measure >= args.steps {
            sums.add(&report);
            wall_sum += wall;
        }
        // Progress on standard error every tenth of the run (the large piles take minutes).
        if (step + 1) % args.steps.div_ceil(10) == 0 {
            eprintln!(
                "mechanics-pile n = {}: step {}/{}, {} contacts, {:.1} ms/step",
                args.n,
                step + 1,
                args.steps,
                report.contacts,
                1e3 * wall.as_secs_f64()
            );
        }
    }

    let end: Vec<[f64; 3]> = scene.frames().iter().map(|f| f.position).collect();
    let m = args.measure as f64;
    let mean = |d: Duration| d.as_secs_f64() / m;
    let line = serde_json::json!({
        "engine": "nonsmooth",
        "precision": "f64",
        "n": spec.n,
        "seed": spec.seed,
        "h": h,
        "steps": args.steps,
        "measured": args.measure,
        "parallel": args.has("--parallel"),
        "threads": threads,
        "seconds_per_step": mean(wall_sum),
        "detection": mean(sums.detection),
        "assembly": mean(sums.assembly),
        "solve": mean(sums.solve),
        "update": mean(sums.update),
        "contacts": sums.contacts as f64 / m,
        "sweeps": sums.sweeps as f64 / m,
        "newton_iterations": sums.newton_iterations as f64 / m,
        "unconverged": sums.unconverged,
        "tolerance": tolerance,
        "max_penetration": spec.max_penetration(&end),
        "mean_height": PileSpec::mean_height(&end),
        "initial_mean_height": initial_mean_height,
        "setup_seconds": setup_seconds,
    });
    println!("{line}");
    Ok(())
}
