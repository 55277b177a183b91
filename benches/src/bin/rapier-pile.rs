//! The sphere pile of [`nonsmooth_benches::pile::PileSpec`] stepped by Rapier (`rapier3d`, its
//! default **f32** build), for the comparison of `docs/benchmarks/mechanics.md`.
//!
//! The scene: one dynamic body per sphere with a ball collider of the spec's radius, density,
//! friction and restitution (Rapier's `Average` combine rule, so every contact gets the spec's μ
//! and e), the box as five fixed half-space colliders on one fixed body, gravity `(0, 0, −g)`,
//! `dt = h`, and every other integration parameter at Rapier's default (4 solver iterations,
//! 1 internal PGS and 1 stabilization iteration, soft contacts, sleeping allowed, contact
//! recycling). `--no-sleep` forbids sleeping (every body solved at every step). Built with the
//! feature `rapier-parallel` (Rapier's `parallel`), the step runs on rayon's global pool: run it
//! with `RAYON_NUM_THREADS=2` for the 2-core figure.
//!
//! Usage: `rapier-pile [--n N] [--steps S] [--measure M] [--no-sleep]` (defaults 1000, 500, 200).
//! It steps `S` times, measures the wall time of the last `M` steps, and prints one JSON line:
//! engine, version, precision, n, h, steps, measured, seconds_per_step (mean of the measured
//! steps), max_penetration (of the final state, [`PileSpec::max_penetration`] on the f32
//! positions widened to f64), mean_height (final mean z; initial_mean_height beside it),
//! contacts (pairs with at least one solver contact at the end, Rapier's count, which includes
//! speculative contacts up to its prediction distance), touching_pairs (pairs whose manifold has a
//! point at distance ≤ 0), sleeping (bodies asleep at the end), and the setup time.
//!
//! `--life` (the whole-life part of the report, with `--measure` equal to `--steps`) prints before
//! that line one JSON line per step ([`nonsmooth_benches::life::StepRecord`]): the wall time of
//! the step, the kinetic energy after it (translational + rotational, from the f32 velocities),
//! Rapier's fixed solver iteration count, the max penetration and the mean height after the
//! step, and the pairs with an active contact; computed outside the timed part.

use std::time::Instant;

use nonsmooth_benches::life::{StepRecord, kinetic_energy};
use nonsmooth_benches::pile::PileSpec;
use rapier3d::na::Unit;
use rapier3d::prelude::*;

/// The Cargo.lock of the workspace, read at compile time for the version of `rapier3d` built.
const LOCK: &str = include_str!("../../../Cargo.lock");

/// The version of `rapier3d` recorded in the workspace lock file ("unknown" when absent).
fn rapier_version() -> &'static str {
    let mut lines = LOCK.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"rapier3d\""
            && let Some(v) = lines.next().and_then(|l| l.trim().strip_prefix("version = \""))
        {
            return v.trim_end_matches('"');
        }
    }
    "unknown"
}

/// Builds the pile in a Rapier world; returns the world and the sphere bodies in spec order.
fn build(spec: &PileSpec, sleep: bool) -> (PhysicsWorld, Vec<RigidBodyHandle>) {
    let mut world = PhysicsWorld { gravity: Vector::new(0.0, 0.0, -spec.gravity as f32), ..Default::default() };
    world.integration_parameters.dt = spec.h as f32;
    let walls = world.bodies.insert(RigidBodyBuilder::fixed());
    for (n, d) in spec.walls() {
        // Rapier's half-space is the solid side of a plane whose outward normal is given: the
        // box's inward normal n, through the point d·n.
        let normal = Vector::new(n[0] as f32, n[1] as f32, n[2] as f32);
        let wall = ColliderBuilder::halfspace(Unit::new_unchecked(normal))
            .translation(normal * d as f32)
            .friction(spec.friction as f32)
            .restitution(spec.restitution as f32);
        world.colliders.insert_with_parent(wall, walls, &mut world.bodies);
    }
    let handles = spec
        .initial_positions()
        .into_iter()
        .map(|p| {
            let body = RigidBodyBuilder::dynamic()
                .translation(Vector::new(p[0] as f32, p[1] as f32, p[2] as f32))
                .can_sleep(sleep);
            let ball = ColliderBuilder::ball(spec.radius as f32)
                .density(spec.density as f32)
                .friction(spec.friction as f32)
                .restitution(spec.restitution as f32);
            world.insert(body, ball).0
        })
        .collect();
    (world, handles)
}

fn positions(world: &PhysicsWorld, handles: &[RigidBodyHandle]) -> Vec<[f64; 3]> {
    handles
        .iter()
        .map(|&h| {
            let t = world.bodies[h].translation();
            [f64::from(t.x), f64::from(t.y), f64::from(t.z)]
        })
        .collect()
}

/// The whole-life record of step `step` (its wall time `seconds`) from the world after it.
fn life_record(
    spec: &PileSpec,
    world: &PhysicsWorld,
    handles: &[RigidBodyHandle],
    step: usize,
    seconds: f64,
) -> StepRecord {
    let widen = |v: Vector| [f64::from(v.x), f64::from(v.y), f64::from(v.z)];
    let velocities: Vec<[f64; 3]> = handles.iter().map(|&h| widen(world.bodies[h].linvel())).collect();
    let angular: Vec<[f64; 3]> = handles.iter().map(|&h| widen(world.bodies[h].angvel())).collect();
    let end = positions(world, handles);
    StepRecord {
        step,
        ke: kinetic_energy(spec.mass(), spec.inertia(), &velocities, &angular),
        seconds,
        iterations: Some(world.integration_parameters.num_solver_iterations),
        converged: None,
        residual: None,
        penetration: spec.max_penetration(&end),
        mean_height: PileSpec::mean_height(&end),
        contacts: world.narrow_phase.contact_pairs().filter(|p| p.has_any_active_contact()).count(),
    }
}

/// Rapier's stage timers summed over the measured steps (all zero without the
/// `rapier-profiler` feature, whose timers are no-ops otherwise).
#[derive(Default)]
struct Stages {
    collision_detection: f64,
    broad_phase: f64,
    narrow_phase: f64,
    island_construction: f64,
    constraints_collection: f64,
    solver: f64,
    velocity_assembly: f64,
    velocity_resolution: f64,
    update: f64,
    ccd: f64,
}

impl Stages {
    fn add(&mut self, c: &rapier3d::counters::Counters) {
        let ms = |t: &rapier3d::counters::Timer| t.time_ms() * 1e-3;
        self.collision_detection += ms(&c.stages.collision_detection_time);
        self.broad_phase += ms(&c.cd.broad_phase_time);
        self.narrow_phase += ms(&c.cd.narrow_phase_time);
        self.island_construction += ms(&c.stages.island_construction_time);
        self.constraints_collection += ms(&c.stages.island_constraints_collection_time);
        self.solver += ms(&c.stages.solver_time);
        self.velocity_assembly += ms(&c.solver.velocity_assembly_time);
        self.velocity_resolution += ms(&c.solver.velocity_resolution_time);
        self.update += ms(&c.stages.update_time);
        self.ccd += ms(&c.stages.ccd_time);
    }

    /// The per-step means, or `null` when the profiler is not built in.
    fn json(&self, steps: usize) -> serde_json::Value {
        if !cfg!(feature = "rapier-profiler") {
            return serde_json::Value::Null;
        }
        let m = steps as f64;
        serde_json::json!({
            "collision_detection": self.collision_detection / m,
            "broad_phase": self.broad_phase / m,
            "narrow_phase": self.narrow_phase / m,
            "island_construction": self.island_construction / m,
            "constraints_collection": self.constraints_collection / m,
            "solver": self.solver / m,
            "velocity_assembly": self.velocity_assembly / m,
            "velocity_resolution": self.velocity_resolution / m,
            "update": self.update / m,
            "ccd": self.ccd / m,
        })
    }
}

/// Threads of Rapier's pipeline: rayon's global pool (`RAYON_NUM_THREADS`) with the
/// `rapier-parallel` feature, else 1.
fn threads() -> usize {
    #[cfg(feature = "rapier-parallel")]
    {
        rapier3d::rayon::current_num_threads()
    }
    #[cfg(not(feature = "rapier-parallel"))]
    {
        1
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args =
        nonsmooth_benches::pile::RunArgs::parse(std::env::args().skip(1), &["--no-sleep", "--life"]).map_err(|e| {
            format!("{e}\nusage: rapier-pile [--n N] [--steps S] [--measure M] [--seed K] [--no-sleep] [--life]")
        })?;
    let spec = PileSpec::from_args(&args);
    spec.validate()?;
    let setup = Instant::now();
    let (mut world, handles) = build(&spec, !args.has("--no-sleep"));
    let setup_seconds = setup.elapsed().as_secs_f64();
    // Rapier's mass from the density, checked against the spec's (f32 rounding only).
    let rapier_mass = f64::from(world.bodies[handles[0]].mass());
    if (rapier_mass - spec.mass()).abs() > 1e-5 * spec.mass() {
        return Err(format!("Rapier mass {rapier_mass} differs from the spec's {}", spec.mass()).into());
    }
    let initial_mean_height = PileSpec::mean_height(&spec.initial_positions());

    let mut measured_seconds = 0.0;
    let mut stages = Stages::default();
    world.physics_pipeline.counters.enable();
    let life = args.has("--life");
    for step in 0..args.steps {
        if step + args.measure >= args.steps {
            let t = Instant::now();
            world.step();
            let seconds = t.elapsed().as_secs_f64();
            measured_seconds += seconds;
            stages.add(&world.physics_pipeline.counters);
            if life {
                println!("{}", life_record(&spec, &world, &handles, step + 1, seconds).to_json());
            }
        } else {
            world.step();
        }
    }

    let end = positions(&world, &handles);
    let (mut contacts, mut touching_pairs) = (0usize, 0usize);
    for pair in world.narrow_phase.contact_pairs() {
        if pair.has_any_active_contact() {
            contacts += 1;
        }
        if pair.manifolds().iter().any(|m| m.points.iter().any(|c| c.dist <= 0.0)) {
            touching_pairs += 1;
        }
    }
    let sleeping = handles.iter().filter(|&&h| world.bodies[h].is_sleeping()).count();
    let line = serde_json::json!({
        "record": "run",
        "engine": "rapier3d",
        "version": rapier_version(),
        "precision": "f32",
        "n": spec.n,
        "seed": spec.seed,
        "h": spec.h,
        "steps": args.steps,
        "measured": args.measure,
        "seconds_per_step": measured_seconds / args.measure as f64,
        "max_penetration": spec.max_penetration(&end),
        "mean_height": PileSpec::mean_height(&end),
        "initial_mean_height": initial_mean_height,
        "contacts": contacts,
        "touching_pairs": touching_pairs,
        "sleeping": sleeping,
        "can_sleep": !args.has("--no-sleep"),
        "solver_iterations": world.integration_parameters.num_solver_iterations,
        "parallel": cfg!(feature = "rapier-parallel"),
        "threads": threads(),
        "stages_seconds_per_step": stages.json(args.measure),
        "setup_seconds": setup_seconds,
    });
    println!("{line}");
    Ok(())
}
