//! Criterion benches of the LCP solvers: groups `lcp/<solver>`, ids `<problem>/<n>`.
//!
//! Problems and tolerances come from `nonsmooth_benches::bench_problems` (random `AᵀA + 0.1 I`
//! problems at 1e-10, the Siconos collection files at 1e-8). Each timed iteration resets `z` to 0,
//! the start Siconos' driver is given in `xtask/siconos_lcp.py`, so the two timings compare.
//! Pairs where our solver returns an error (e.g. a storage it does not handle) are skipped with
//! a printed line.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use nonsmooth_benches::{SOLVERS, bench_problems, quick_mode};

fn lcp(c: &mut Criterion) {
    let problems = bench_problems();
    let quick = quick_mode();
    for (solver_name, _) in SOLVERS {
        let mut group = c.benchmark_group(format!("lcp/{solver_name}"));
        // Flat sampling: the slow cases (Lemke on n = 1000 takes about half a second) then need
        // only sample_size iterations; the fast ones still get many iterations per sample.
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(if quick { 100 } else { 300 }));
        group.measurement_time(Duration::from_millis(if quick { 300 } else { 1000 }));
        for p in problems.iter().filter(|p| p.runs(solver_name)) {
            let Some(method) = p.method(solver_name) else {
                println!("skipped lcp/{solver_name}: unknown solver name");
                continue;
            };
            let mut solver = match method.build() {
                Ok(s) => s,
                Err(e) => {
                    println!("skipped lcp/{solver_name}/{}/{}: {e}", p.name, p.size());
                    continue;
                }
            };
            let n = p.size();
            let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
            // One untimed solve: pairs the solver rejects are skipped, not timed.
            if let Err(e) = solver.solve(&p.problem, &mut z, &mut w) {
                println!("skipped lcp/{solver_name}/{}/{n}: {e}", p.name);
                continue;
            }
            group.bench_function(BenchmarkId::new(&p.name, n), |b| {
                b.iter(|| {
                    z.fill(0.0);
                    let report = solver.solve(black_box(&p.problem), black_box(&mut z), black_box(&mut w));
                    black_box(report)
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, lcp);
criterion_main!(benches);
