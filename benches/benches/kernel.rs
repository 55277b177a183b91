//! Criterion benches of time-stepping: group `kernel`, ids `bouncing_ball`, `beads_column/N`,
//! `beads_stack/N` (Moreau–Jean), `diode_bridge` and `relay` (Euler–Moreau, first-order),
//! `bouncing_ball_ed` (event-driven) (`nonsmooth_benches::kernel_models`). One iteration is the
//! whole stepping loop of a freshly built model (building is not timed), as Siconos' loop is
//! timed in `xtask/siconos_kernel.py`; for the event-driven ball, the whole
//! `while has_next_event { advance_to_event; process_events }` loop (1744 events).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use nonsmooth_benches::kernel_models::{
    bouncing_ball_ed, event_driven_cases, kernel_case, kernel_cases, kernel_steps, run_event_driven,
};
use nonsmooth_benches::quick_mode;

fn kernel(c: &mut Criterion) {
    let quick = quick_mode();
    let mut group = c.benchmark_group("kernel");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(if quick { 100 } else { 500 }));
    group.measurement_time(Duration::from_millis(if quick { 500 } else { 2000 }));
    for (case, n) in kernel_cases(quick) {
        let steps = kernel_steps(case, n);
        let run = |b: &mut criterion::Bencher<'_>| {
            b.iter_batched(
                || kernel_case(case, n).expect("the bench model builds").0,
                |mut sim| {
                    for _ in 0..steps {
                        black_box(sim.step().expect("the bench model steps"));
                    }
                    sim
                },
                BatchSize::PerIteration,
            )
        };
        // The single-model cases have no parameter (N = 1 in the report).
        if matches!(case, "bouncing_ball" | "diode_bridge" | "relay") {
            group.bench_function(case, run);
        } else {
            group.bench_function(BenchmarkId::new(case, n), run);
        }
    }
    for (case, _) in event_driven_cases() {
        group.bench_function(case, |b| {
            b.iter_batched(
                || bouncing_ball_ed().expect("the bench model builds").0,
                |mut sim| {
                    black_box(run_event_driven(&mut sim).expect("the bench model runs"));
                    sim
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, kernel);
criterion_main!(benches);
