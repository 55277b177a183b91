//! The whole life of our sphere pile, for the whole-life part of `docs/benchmarks/mechanics.md`:
//! the pile of `mechanics-pile` (`PileSpec::with_n`, Moreau–Jean at `h = 1e-3`, the scenes' NSGS
//! to 1e-4, warm started, on the factored Delassus operator) stepped from the lattice at rest,
//! sequentially (the scenes' default `Parallelism::Sequential`: the step starts no thread), with the non-convergence policy
//! `SceneNonConvergence::Continue`, so that a step whose FC3D stops above its tolerance is
//! recorded and the run goes on.
//!
//! Usage: `pile-life [--n N] [--steps S] [--seed K] [--export-every E] [--export STEP,...]
//! [--export-dir DIR]` (defaults 1000 spheres, 2000 steps, seed 42, no export, folder `.`).
//!
//! It prints one JSON line per step ([`nonsmooth_benches::life::StepRecord`]: the wall time of
//! `Scene::step`, the kinetic energy after it, the NSGS sweeps of its last FC3D solve, whether
//! that solve reached the tolerance and its `fc3d_compute_error`, the max penetration and the
//! mean height after the step, the contacts), then a `"record": "run"` line (engine, n, h, steps,
//! tolerance, threads, the mean detection, assembly, solve and update times, the setup time).
//! With `--export-every E` (and at the steps of `--export`) it writes the state of every sphere
//! after those steps, step 0 (the lattice at rest) included, to `DIR/state_<n>_<step>.txt`
//! ([`nonsmooth_benches::life::state_text`]): the start of the other engines' runs. Everything but
//! `Scene::step` is outside the timed part.

use std::path::PathBuf;
use std::time::Instant;

use nonsmooth::mechanics::output::BodyFrame;
use nonsmooth::mechanics::scene::{SceneNonConvergence, SceneOptions, StepTotals};
use nonsmooth::numerics::fc::Fc3dMethod;
use nonsmooth_benches::life::{SphereState, StepRecord, kinetic_energy, state_text, write_state};
use nonsmooth_benches::pile::PileSpec;

const USAGE: &str =
    "usage: pile-life [--n N] [--steps S] [--seed K] [--export-every E] [--export STEP,...] [--export-dir DIR]";

/// The options.
struct Args {
    n: usize,
    steps: usize,
    seed: u64,
    export_every: Option<usize>,
    export: Vec<usize>,
    export_dir: PathBuf,
}

fn parse() -> Result<Args, String> {
    let mut out =
        Args { n: 1000, steps: 2000, seed: 42, export_every: None, export: Vec::new(), export_dir: PathBuf::from(".") };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |v: &str| v.parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--n" => out.n = number(&value)?,
            "--steps" => out.steps = number(&value)?,
            "--seed" => out.seed = value.parse().map_err(|e| format!("{flag} {value}: {e}"))?,
            "--export-every" => out.export_every = Some(number(&value)?).filter(|&e| e > 0),
            "--export" => {
                out.export = value.split(',').filter(|s| !s.is_empty()).map(number).collect::<Result<_, _>>()?;
            }
            "--export-dir" => out.export_dir = PathBuf::from(value),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if out.n == 0 || out.steps == 0 {
        return Err("--n and --steps must be positive".into());
    }
    Ok(out)
}

fn states(frames: &[BodyFrame]) -> Vec<SphereState> {
    frames
        .iter()
        .map(|f| SphereState {
            position: f.position,
            orientation: f.orientation,
            velocity: f.velocity,
            angular_velocity: f.angular_velocity,
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse().map_err(|e| format!("{e}\n{USAGE}"))?;
    let spec = PileSpec(nonsmooth::mechanics::pile::SpherePile {
        seed: args.seed,
        ..nonsmooth::mechanics::pile::SpherePile::with_spheres(args.n)
    });
    spec.validate()?;
    let h = spec.h;
    let nsgs = SceneOptions::default_nsgs();
    let tolerance = nsgs.tolerance;
    let options = SceneOptions::default()
        .with_final_time(h * args.steps as f64 + 0.5 * h)
        .with_method(Fc3dMethod::Nsgs(nsgs))
        .with_factored_delassus(true)
        .with_policy(SceneNonConvergence::Continue);
    let setup = Instant::now();
    let mut scene = spec.to_scene().build(options)?;
    let setup_seconds = setup.elapsed().as_secs_f64();
    let (mass, inertia, radius, side) = (spec.mass(), spec.inertia(), spec.radius, spec.box_side());
    let exported =
        |step: usize| args.export.contains(&step) || args.export_every.is_some_and(|e| step.is_multiple_of(e));
    let export = |step: usize, time: f64, frames: &[BodyFrame]| -> std::io::Result<()> {
        let path = args.export_dir.join(format!("state_{}_{step}.txt", args.n));
        write_state(&path, &state_text(args.seed, step, time, radius, side, &states(frames)))
    };
    if exported(0) {
        std::fs::create_dir_all(&args.export_dir)?;
        export(0, scene.time(), &scene.frames())?;
    }

    let mut sums = StepTotals::default();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    for step in 1..=args.steps {
        if !scene.has_next_step() {
            return Err(format!("the scene ended after {} of {} steps", step - 1, args.steps).into());
        }
        let t = Instant::now();
        let report = scene.step()?;
        let seconds = t.elapsed().as_secs_f64();
        sums.add(&report);
        let frames = scene.frames();
        let positions: Vec<[f64; 3]> = frames.iter().map(|f| f.position).collect();
        let velocities: Vec<[f64; 3]> = frames.iter().map(|f| f.velocity).collect();
        let angular: Vec<[f64; 3]> = frames.iter().map(|f| f.angular_velocity).collect();
        let record = StepRecord {
            step,
            ke: kinetic_energy(mass, inertia, &velocities, &angular),
            seconds,
            iterations: report.step.osns.map(|o| o.iterations),
            converged: report.step.osns.map(|o| o.is_converged()),
            residual: report.step.osns.map(|o| o.residual),
            penetration: spec.max_penetration(&positions),
            mean_height: PileSpec::mean_height(&positions),
            contacts: report.contacts,
        };
        std::io::Write::write_all(&mut stdout, format!("{}\n", record.to_json()).as_bytes())?;
        if exported(step) {
            std::fs::create_dir_all(&args.export_dir)?;
            export(step, scene.time(), &frames)?;
        }
        if step % args.steps.div_ceil(10) == 0 {
            eprintln!(
                "pile-life n = {}: step {step}/{}, {} contacts, KE {:.3e} J, {:.1} ms/step",
                args.n,
                args.steps,
                report.contacts,
                record.ke,
                1e3 * seconds
            );
        }
    }
    let line = serde_json::json!({
        "record": "run",
        "engine": "nonsmooth",
        "precision": "f64",
        "n": spec.n,
        "seed": spec.seed,
        "h": h,
        "start_step": 0,
        "steps": args.steps,
        "tolerance": tolerance,
        "threads": 1,
        "detection": sums.mean(sums.detection),
        "assembly": sums.mean(sums.assembly),
        "solve": sums.mean(sums.solve),
        "update": sums.mean(sums.update),
        "initial_mean_height": PileSpec::mean_height(&spec.initial_positions()),
        "setup_seconds": setup_seconds,
    });
    std::io::Write::write_all(&mut stdout, format!("{line}\n").as_bytes())?;
    std::io::Write::flush(&mut stdout)?;
    Ok(())
}
