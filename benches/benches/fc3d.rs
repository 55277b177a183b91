//! Criterion benches of the FC3D solvers: groups `fc3d/<solver>` (solver names as
//! `Fc3dMethod::from_name` spells them), function ids the collection file names; and the parallel
//! NSGS groups `fc3d-parallel/<variant>` (`sequential`, `rayon-1`, `rayon-2`) on the
//! [`FC3D_PARALLEL_PROBLEMS`] problems with the most contacts and on the synthetic granular
//! lattices of `granular_lattice_fc3d` (16³ and 32³ spheres; 16³ only with `--quick`), where every
//! variant does exactly `FC3D_SYNTHETIC_SWEEPS` sweeps (unreachable tolerance 1e-30, error evaluated
//! once after the last sweep) so that the times compare per sweep. The manifest's
//! `parallel.synthetic` lists their contacts and colour classes.
//!
//! Problems, tolerance (1e-8) and iteration caps come from `nonsmooth_benches` (`fc3d_bench_set`,
//! `FC3D_SOLVERS`). Each timed iteration resets `r` to 0, the start `xtask/siconos_fc3d.py` gives
//! Siconos' `fc3d_driver`, so the two timings compare. Before timing a pair, one untimed solve
//! checks it and gives its status, iterations and residual; when [`FC3D_MANIFEST_ENV`] names a
//! file, these results, the problems, the unreadable files and the solvers (available or not) are
//! written there as JSON for `cargo xtask bench-report`. Solver names that `from_name` does not
//! know yet are reported as not available and skipped.
//!
//! Sampling is flat with 10 samples; the measurement time of a pair grows with its solve time, so
//! the slow pairs (about a second per solve) cost about 11 solves and the fast ones get
//! hundreds.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkGroup, Criterion, SamplingMode, criterion_group, criterion_main, measurement::WallTime};
use nonsmooth::numerics::SolverReport;
use nonsmooth::numerics::fc::colouring::colour_contacts;
use nonsmooth::numerics::fc::nsgs::NsgsOptions;
use nonsmooth::numerics::fc::{Fc3dMethod, Fc3dProblem, Fc3dSolver};
use nonsmooth_benches::{
    FC3D_MANIFEST_ENV, FC3D_PARALLEL_PROBLEMS, FC3D_PARALLEL_THREADS, FC3D_SOLVERS, FC3D_SYNTHETIC_SEED,
    FC3D_SYNTHETIC_SWEEPS, FC3D_SYNTHETIC_TOLERANCE, FC3D_TOLERANCE, fc3d_bench_set, fc3d_max_iterations, fc3d_method,
    granular_lattice_fc3d, largest_by_contacts, quick_mode, synthetic_lattices, synthetic_name,
};
use serde_json::{Value, json};

/// NSGS as benchmarked under the name `nsgs` (tolerance, cap) with the parallel colour-by-colour
/// sweep switched on (`NsgsOptions::parallelism`) on the solver's pool of `threads` threads.
/// `None` when `nsgs` is not an NSGS method.
fn parallel_nsgs(threads: usize) -> Option<Fc3dMethod> {
    match fc3d_method("nsgs")? {
        Fc3dMethod::Nsgs(options) => {
            Some(Fc3dMethod::Nsgs(options.with_parallelism(nonsmooth::numerics::Parallelism::Rayon { threads })))
        }
        _ => None,
    }
}

/// NSGS for the synthetic lattices: `options` with the fixed sweep count
/// [`FC3D_SYNTHETIC_SWEEPS`], the unreachable tolerance [`FC3D_SYNTHETIC_TOLERANCE`] and the full
/// error evaluated only after the last sweep, so every variant does the same sweeps and the time is
/// (almost) all sweeping.
fn synthetic_nsgs(options: &NsgsOptions) -> Fc3dMethod {
    let mut o = options.clone().with_tolerance(FC3D_SYNTHETIC_TOLERANCE).with_max_iterations(FC3D_SYNTHETIC_SWEEPS);
    o.error_evaluation_frequency = FC3D_SYNTHETIC_SWEEPS;
    Fc3dMethod::Nsgs(o)
}

/// A synthetic granular problem of the parallel groups and its colouring summary (JSON).
struct Synthetic {
    name: String,
    problem: Fc3dProblem,
    info: Value,
}

/// Builds the synthetic lattices ([`synthetic_lattices`]) and colours their contact graphs,
/// printing the colour count and the smallest and largest class of each.
fn synthetic_problems(min_colour_size: usize) -> Vec<Synthetic> {
    synthetic_lattices()
        .into_iter()
        .map(|n| {
            let name = synthetic_name(n);
            let start = Instant::now();
            let problem = granular_lattice_fc3d(n, FC3D_SYNTHETIC_SEED);
            let built = start.elapsed().as_secs_f64();
            let nc = problem.number_of_contacts();
            let start = Instant::now();
            let coloured = colour_contacts(problem.w(), nc, 3);
            let colouring_seconds = start.elapsed().as_secs_f64();
            let info = match coloured {
                Ok(colouring) => {
                    let sizes: Vec<usize> = colouring.classes().iter().map(Vec::len).collect();
                    let (smallest, largest) =
                        (sizes.iter().copied().min().unwrap_or(0), sizes.iter().copied().max().unwrap_or(0));
                    println!(
                        "{name}: {nc} contacts, built in {built:.2} s, coloured in {:.1} ms: {} colours, classes of \
                         {smallest} to {largest} contacts ({} below parallel_min_colour_size = {min_colour_size})",
                        1e3 * colouring_seconds,
                        sizes.len(),
                        sizes.iter().filter(|&&k| k < min_colour_size).count(),
                    );
                    json!({
                        "name": name, "lattice": n, "seed": FC3D_SYNTHETIC_SEED, "contacts": nc,
                        "colours": sizes.len(), "smallest_class": smallest, "largest_class": largest,
                        "classes_below_min": sizes.iter().filter(|&&k| k < min_colour_size).count(),
                        "min_colour_size": min_colour_size, "colouring_seconds": colouring_seconds,
                        "sweeps": FC3D_SYNTHETIC_SWEEPS, "tolerance": FC3D_SYNTHETIC_TOLERANCE,
                    })
                }
                Err(e) => {
                    println!("{name}: colouring failed: {e}");
                    json!({"name": name, "lattice": n, "contacts": nc, "colouring_error": e.to_string()})
                }
            };
            Synthetic { name, problem, info }
        })
        .collect()
}

/// One untimed solve from `r = 0`: the report and its wall time, or the error's message.
fn solve_once(solver: &mut dyn Fc3dSolver, problem: &Fc3dProblem) -> Result<(SolverReport, f64), String> {
    let n = problem.size();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let start = Instant::now();
    let report = solver.solve(problem, &mut r, &mut u).map_err(|e| e.to_string())?;
    Ok((report, start.elapsed().as_secs_f64()))
}

fn report_json(result: &Result<(SolverReport, f64), String>) -> Value {
    match result {
        Ok((report, seconds)) => json!({
            "status": report.status.as_str(),
            "iterations": report.iterations,
            "residual": if report.residual.is_finite() { json!(report.residual) } else { Value::Null },
            "untimed_seconds": seconds,
        }),
        Err(e) => json!({"status": format!("error: {e}"), "iterations": null, "residual": null}),
    }
}

/// Sets the group's timing for a pair whose one solve took `seconds`: a short warm-up (one solve
/// for the slow pairs) and a measurement time long enough for 10 flat samples.
fn fit_timing(group: &mut BenchmarkGroup<'_, WallTime>, seconds: f64, quick: bool) {
    let base: f64 = if quick { 0.2 } else { 0.5 };
    let measurement = base.max(11.0 * seconds);
    group.warm_up_time(Duration::from_secs_f64(if quick { 0.05 } else { 0.1 }));
    group.measurement_time(Duration::from_secs_f64(measurement));
}

/// Times `solver` on `problem` (untimed check first); returns the check's JSON.
fn bench_pair(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: &str,
    solver: &mut (dyn Fc3dSolver + Send),
    problem: &Fc3dProblem,
    quick: bool,
) -> Value {
    let check = solve_once(&mut *solver, problem);
    let Ok((_, seconds)) = &check else {
        println!("skipped {id}: {}", check.as_ref().err().map_or("", String::as_str));
        return report_json(&check);
    };
    fit_timing(group, *seconds, quick);
    let n = problem.size();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let mut run = || {
        r.fill(0.0);
        let report = solver.solve(black_box(problem), black_box(&mut r), black_box(&mut u));
        black_box(report)
    };
    group.bench_function(id, |b| b.iter(&mut run));
    report_json(&check)
}

fn fc3d(c: &mut Criterion) {
    let set = fc3d_bench_set();
    let quick = quick_mode();
    for (name, _, reason) in &set.unreadable {
        println!("unreadable {name}: {reason}");
    }
    // results[problem][solver] = the untimed check.
    let mut results: Vec<serde_json::Map<String, Value>> = vec![serde_json::Map::new(); set.problems.len()];
    let mut solvers = Vec::new();
    for (solver_name, siconos_id, cap) in FC3D_SOLVERS {
        let built = fc3d_method(solver_name).map(Fc3dMethod::build);
        solvers.push(json!({
            "name": solver_name,
            "siconos_id": siconos_id,
            "max_iterations": cap,
            "available": matches!(built, Some(Ok(_))),
        }));
        let mut solver = match built {
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                println!("skipped fc3d/{solver_name}: {e}");
                continue;
            }
            None => {
                println!("skipped fc3d/{solver_name}: solver not available yet (Fc3dMethod::from_name)");
                continue;
            }
        };
        let mut group = c.benchmark_group(format!("fc3d/{solver_name}"));
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(10);
        for (k, p) in set.problems.iter().enumerate() {
            let check = bench_pair(&mut group, &p.name, solver.as_mut(), &p.problem, quick);
            results[k].insert(solver_name.to_owned(), check);
        }
        group.finish();
    }

    let largest = largest_by_contacts(&set.problems, FC3D_PARALLEL_PROBLEMS);
    let mut parallel = Vec::new();
    let parallel_method = parallel_nsgs(1);
    let synthetic = match &parallel_method {
        Some(Fc3dMethod::Nsgs(options)) => synthetic_problems(options.parallel_min_colour_size),
        _ => Vec::new(),
    };
    if let (Some(_), Some(sequential)) = (parallel_method.clone(), fc3d_method("nsgs")) {
        let mut variants: Vec<(String, Fc3dMethod, Option<usize>)> = vec![("sequential".to_owned(), sequential, None)];
        for threads in FC3D_PARALLEL_THREADS {
            if let Some(method) = parallel_nsgs(threads) {
                variants.push((format!("rayon-{threads}"), method, Some(threads)));
            }
        }
        for (variant, method, threads) in variants {
            let built = match &method {
                Fc3dMethod::Nsgs(options) => {
                    method.clone().build().and_then(|s| Ok((s, synthetic_nsgs(options).build()?)))
                }
                _ => Err(nonsmooth::numerics::NumericsError::InvalidInput {
                    what: "parallel benchmark",
                    reason: "nsgs is not an NSGS method".into(),
                }),
            };
            let (mut solver, mut synthetic_solver) = match built {
                Ok(s) => s,
                Err(e) => {
                    println!("skipped fc3d-parallel/{variant}: {e}");
                    continue;
                }
            };
            let mut group = c.benchmark_group(format!("fc3d-parallel/{variant}"));
            group.sampling_mode(SamplingMode::Flat);
            group.sample_size(10);
            let mut checks = serde_json::Map::new();
            for &k in &largest {
                let p = &set.problems[k];
                let check = bench_pair(&mut group, &p.name, solver.as_mut(), &p.problem, quick);
                checks.insert(p.name.clone(), check);
            }
            for p in &synthetic {
                let check = bench_pair(&mut group, &p.name, synthetic_solver.as_mut(), &p.problem, quick);
                checks.insert(p.name.clone(), check);
            }
            group.finish();
            parallel.push(json!({"variant": variant, "threads": threads, "results": checks}));
        }
    } else {
        println!("skipped fc3d-parallel: NsgsOptions::parallelism is not available in this tree");
    }

    if let Some(path) = std::env::var_os(FC3D_MANIFEST_ENV) {
        let problems: Vec<Value> = set
            .problems
            .iter()
            .zip(results)
            .map(|(p, ours)| {
                json!({
                    "name": p.name,
                    "path": p.path.to_string_lossy(),
                    "contacts": p.contacts(),
                    "n": p.size(),
                    "storage": p.problem.w().storage().as_str(),
                    "ours": ours,
                })
            })
            .collect();
        let unreadable: Vec<Value> = set
            .unreadable
            .iter()
            .map(|(name, path, reason)| json!({"name": name, "path": path.to_string_lossy(), "reason": reason}))
            .collect();
        let manifest = json!({
            "tolerance": FC3D_TOLERANCE,
            "quick": quick,
            "solvers": solvers,
            "problems": problems,
            "unreadable": unreadable,
            "parallel": {
                "available": parallel_method.is_some(),
                "problems": largest.iter().map(|&k| set.problems[k].name.clone()).collect::<Vec<_>>(),
                "max_iterations": fc3d_max_iterations("nsgs"),
                "variants": parallel,
                "synthetic": synthetic.iter().map(|p| p.info.clone()).collect::<Vec<_>>(),
            },
        });
        let path = Path::new(&path);
        let text = serde_json::to_string_pretty(&manifest).expect("a JSON value always serialises");
        if let Err(e) = std::fs::write(path, text + "\n") {
            // The bench itself succeeded; the report tool notices the missing manifest.
            println!("cannot write {}: {e}", path.display());
        }
    }
}

criterion_group! {
    name = benches;
    // No HTML plots: they cost more than the fast solves themselves; the report reads the medians.
    config = Criterion::default().without_plots();
    targets = fc3d
}
criterion_main!(benches);
