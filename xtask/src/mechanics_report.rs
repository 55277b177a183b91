//! The mechanics part of `cargo xtask bench-report`: the sphere pile
//! stepped by us (NSGS sequential and on 2 threads) and by Rapier (its single-threaded pipeline and
//! its parallel pipeline on 2 threads) on the same scene in the same run; writes `mechanics.md` and
//! `mechanics.csv`.
//!
//! Steps:
//! 1. `cargo build --release -p nonsmooth-benches --bin mechanics-pile`; then
//!    `cargo build --release -p nonsmooth-benches --features rapier --bin rapier-pile`, copied to
//!    `rapier-pile-1thread`, and the same with `--features rapier-parallel`, copied to
//!    `rapier-pile-2threads` (the two builds make the same binary name); when a Rapier build fails,
//!    the report says so and carries the other runs;
//! 2. for every case of [`cases`] (N, steps S, measured steps M), the four runs of [`RunKind`] in
//!    order: `mechanics-pile --n N --steps S --measure M`, the same with `--parallel` (rayon's
//!    global pool of 2 threads), `rapier-pile-1thread --n N --steps S --measure M` and
//!    `rapier-pile-2threads` with the same arguments and `RAYON_NUM_THREADS=2`; each prints one
//!    JSON line ([`PileRun`]), whose `parallel` and `threads` must be the run's ([`check_threads`]);
//! 3. the report: one table per N, the report's targets with PASS / FAIL as measured
//!    ([`targets`]), the growth of detection and assembly from N = 1000 to N = 20000
//!    ([`growth`]), what each engine solves, how to run it.
//!
//! `--quick` runs N = 1000 only, with fewer steps ([`cases`]).
//!
//! Then the whole life of the pile ([`life`]): ours and Rapier's single-threaded pipeline over
//! 2 s from the lattice at rest, Siconos 4.4 and MuJoCo in windows from our state, by phase of
//! the kinetic energy; written after the part above in `mechanics.md` and to
//! `mechanics-life.csv`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use serde_json::Value;

use crate::bench_report::{Options, commit, cpu_model, folders, target_dir, utc_now};
use crate::report::{cell, csv_field, opt, opt_f64};
use crate::{cargo, project_root, run_checked};

/// Sphere radius of the pile (`PileSpec::default().radius` in `benches/src/pile.rs`): the
/// penetrations are shown in units of it.
pub(crate) const RADIUS: f64 = 0.05;

/// The speed target: at N = [`TARGET_N`], at least this many steps per second on 2 cores.
pub(crate) const STEPS_PER_SECOND_TARGET: f64 = 10.0;

/// The comparison target: our per-step time at most this multiple of Rapier's.
pub(crate) const RAPIER_RATIO_TARGET: f64 = 3.0;

/// The N of the speed and Rapier targets.
pub(crate) const TARGET_N: usize = 5000;

/// Threads of the parallel runs, ours and Rapier's (the targets' "2 cores").
pub(crate) const PARALLEL_THREADS: usize = 2;

/// The two ends of the growth measurement (from N = 1000 to N = 20000).
pub(crate) const GROWTH_FROM: usize = 1000;
/// See [`GROWTH_FROM`].
pub(crate) const GROWTH_TO: usize = 20000;

/// "Near-linear": the per-step time of a phase grows at most like `N^1.2` between
/// [`GROWTH_FROM`] and [`GROWTH_TO`] …
pub(crate) const MAX_EXPONENT: f64 = 1.2;
/// … and its time per contact at most like `N^0.2` (the per-step times are taken at different
/// phases of the fall when the steps differ, the per-contact times remove the contact count).
pub(crate) const MAX_PER_CONTACT_EXPONENT: f64 = 0.2;

/// One measured pile: N spheres, S steps, the last M measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Case {
    pub(crate) n: usize,
    pub(crate) steps: usize,
    pub(crate) measure: usize,
}

/// The cases in report order. Full: every N with S = 500, M = 200 (t = 0.3 → 0.5 s: every layer
/// has landed, the 26 of N = 20000 included), the same window for all, so that the growth from
/// N = 1000 to 20000 compares piles at the same moments of their fall; the whole report (four runs
/// per N) took 13.6 minutes on 2 cores, most of it our N = 20000 runs, whose steps 400–500 need
/// 550–650 NSGS sweeps. `--quick`: N = 1000 with S = 100, M = 50.
pub(crate) fn cases(quick: bool) -> Vec<Case> {
    if quick {
        vec![Case { n: 1000, steps: 100, measure: 50 }]
    } else {
        vec![
            Case { n: 1000, steps: 500, measure: 200 },
            Case { n: 5000, steps: 500, measure: 200 },
            Case { n: 20000, steps: 500, measure: 200 },
        ]
    }
}

/// One engine's run on one case: the JSON line of `mechanics-pile` or `rapier-pile`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PileRun {
    /// `nonsmooth` or `rapier3d`.
    pub(crate) engine: String,
    /// Rapier's crate version (none for ours).
    pub(crate) version: Option<String>,
    /// `f64` (ours) or `f32` (Rapier).
    pub(crate) precision: String,
    pub(crate) n: usize,
    pub(crate) h: f64,
    pub(crate) steps: usize,
    pub(crate) measured: usize,
    pub(crate) parallel: bool,
    pub(crate) threads: usize,
    /// Mean wall time of a measured step.
    pub(crate) seconds_per_step: f64,
    /// Our phases, seconds per step (none for Rapier).
    pub(crate) detection: Option<f64>,
    pub(crate) assembly: Option<f64>,
    pub(crate) solve: Option<f64>,
    pub(crate) update: Option<f64>,
    /// Ours: mean contacts per measured step. Rapier: pairs touching (distance ≤ 0) at the end.
    pub(crate) contacts: f64,
    /// Rapier: pairs with an active (possibly speculative) contact at the end.
    pub(crate) active_pairs: Option<u64>,
    /// Ours: mean NSGS sweeps per measured step.
    pub(crate) sweeps: Option<f64>,
    /// Ours: measured steps whose FC3D did not reach its tolerance.
    pub(crate) unconverged: Option<u64>,
    /// Largest penetration of the final state (m), measured the same way on both engines.
    pub(crate) max_penetration: f64,
    /// Final and initial mean height of the centres (m).
    pub(crate) mean_height: f64,
    pub(crate) initial_mean_height: f64,
}

impl PileRun {
    /// Reads one line's object; the error names the first missing or mistyped field.
    pub(crate) fn from_json(v: &Value) -> Result<Self, &'static str> {
        let text = |k: &'static str| v[k].as_str().map(str::to_owned).ok_or(k);
        let int = |k: &'static str| v[k].as_u64().and_then(|x| usize::try_from(x).ok()).ok_or(k);
        let float = |k: &'static str| v[k].as_f64().ok_or(k);
        let engine = text("engine")?;
        let ours = engine == "nonsmooth";
        // Fields only ours prints are required from ours.
        let ours_float = |k: &'static str| if ours { float(k).map(Some) } else { Ok(None) };
        let (contacts, active_pairs) = if ours {
            (float("contacts")?, None)
        } else {
            (int("touching_pairs")? as f64, Some(v["contacts"].as_u64().ok_or("contacts")?))
        };
        Ok(PileRun {
            version: v["version"].as_str().map(str::to_owned),
            precision: text("precision")?,
            n: int("n")?,
            h: float("h")?,
            steps: int("steps")?,
            measured: int("measured")?,
            parallel: v["parallel"].as_bool().ok_or("parallel")?,
            threads: int("threads")?,
            seconds_per_step: float("seconds_per_step")?,
            detection: ours_float("detection")?,
            assembly: ours_float("assembly")?,
            solve: ours_float("solve")?,
            update: ours_float("update")?,
            contacts,
            active_pairs,
            sweeps: ours_float("sweeps")?,
            unconverged: if ours { Some(v["unconverged"].as_u64().ok_or("unconverged")?) } else { None },
            max_penetration: float("max_penetration")?,
            mean_height: float("mean_height")?,
            initial_mean_height: float("initial_mean_height")?,
            engine,
        })
    }

    /// Steps per second.
    pub(crate) fn steps_per_second(&self) -> Option<f64> {
        (self.seconds_per_step > 0.0).then(|| 1.0 / self.seconds_per_step)
    }
}

/// Parses the output of one run: the last non-blank line of `stdout` must be the JSON object.
pub(crate) fn parse_run(stdout: &str, source: &str) -> anyhow::Result<PileRun> {
    let line = stdout.lines().rev().find(|l| !l.trim().is_empty()).with_context(|| format!("{source}: no output"))?;
    let v: Value = serde_json::from_str(line).with_context(|| format!("{source}: not JSON: {line}"))?;
    PileRun::from_json(&v).map_err(|field| anyhow::anyhow!("{source}: no valid {field:?} in {line}"))
}

/// A run, or why it is missing.
pub(crate) type Side = Result<PileRun, String>;

/// The four runs of a case, in run order and table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunKind {
    /// Ours, NSGS sequential (`Parallelism::Sequential`: no thread started).
    OursSequential,
    /// Ours, NSGS parallel (rayon's global pool of [`PARALLEL_THREADS`]).
    OursParallel,
    /// Rapier's single-threaded pipeline (feature `rapier`).
    RapierSequential,
    /// Rapier's parallel pipeline (feature `rapier-parallel`) on [`PARALLEL_THREADS`] threads.
    RapierParallel,
}

impl RunKind {
    /// Every run, in order.
    pub(crate) const ALL: [RunKind; 4] =
        [RunKind::OursSequential, RunKind::OursParallel, RunKind::RapierSequential, RunKind::RapierParallel];

    /// The label of the run's table row.
    pub(crate) fn label(self) -> &'static str {
        match self {
            RunKind::OursSequential => "ours, NSGS sequential",
            RunKind::OursParallel => "ours, NSGS parallel (2 threads)",
            RunKind::RapierSequential => "Rapier, single-threaded pipeline",
            RunKind::RapierParallel => "Rapier, parallel pipeline (2 threads)",
        }
    }

    /// The `engine` of the run's JSON line.
    pub(crate) fn engine(self) -> &'static str {
        if self.is_rapier() { "rapier3d" } else { "nonsmooth" }
    }

    /// Whether the run is Rapier's.
    pub(crate) fn is_rapier(self) -> bool {
        matches!(self, RunKind::RapierSequential | RunKind::RapierParallel)
    }

    /// The `parallel` the run's JSON line must carry.
    pub(crate) fn parallel(self) -> bool {
        matches!(self, RunKind::OursParallel | RunKind::RapierParallel)
    }

    /// The `threads` the run's JSON line must carry.
    pub(crate) fn threads(self) -> usize {
        if self.parallel() { PARALLEL_THREADS } else { 1 }
    }
}

/// Checks that a run used the pipeline and the thread count of `kind`; `name` is the binary's.
pub(crate) fn check_threads(run: PileRun, kind: RunKind, name: &str) -> Side {
    if run.parallel == kind.parallel() && run.threads == kind.threads() {
        Ok(run)
    } else {
        Err(format!(
            "{name} ran with parallel = {} on {} thread(s), expected parallel = {} on {}",
            run.parallel,
            run.threads,
            kind.parallel(),
            kind.threads()
        ))
    }
}

/// One case of the report: our two runs and Rapier's two.
#[derive(Clone, Debug)]
pub(crate) struct CaseResult {
    pub(crate) case: Case,
    /// NSGS sequential (1 thread).
    pub(crate) seq: Side,
    /// NSGS parallel (rayon, 2 threads).
    pub(crate) par: Side,
    /// Rapier's single-threaded pipeline.
    pub(crate) rapier: Side,
    /// Rapier's parallel pipeline (rayon, 2 threads).
    pub(crate) rapier_par: Side,
}

impl CaseResult {
    /// The run of `kind`.
    pub(crate) fn side(&self, kind: RunKind) -> &Side {
        match kind {
            RunKind::OursSequential => &self.seq,
            RunKind::OursParallel => &self.par,
            RunKind::RapierSequential => &self.rapier,
            RunKind::RapierParallel => &self.rapier_par,
        }
    }

    /// The per-step time of the run `kind` over that of the Rapier run `reference`, when both
    /// were measured.
    pub(crate) fn ratio(&self, kind: RunKind, reference: RunKind) -> Option<f64> {
        let run = self.side(kind).as_ref().ok()?.seconds_per_step;
        let theirs = self.side(reference).as_ref().ok()?.seconds_per_step;
        (theirs > 0.0).then(|| run / theirs)
    }
}

/// A target of the report and how the run met it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Target {
    /// The target in words.
    pub(crate) name: String,
    /// What was measured (the figures behind the verdict, or why nothing was).
    pub(crate) measured: String,
    /// `Some(met)` when measured, `None` when not.
    pub(crate) met: Option<bool>,
}

impl Target {
    pub(crate) fn verdict(&self) -> &'static str {
        match self.met {
            Some(true) => "PASS",
            Some(false) => "**FAIL**",
            None => "not measured",
        }
    }
}

/// `log(y2 / y1) / log(n2 / n1)`, when both values are positive and the sizes differ.
pub(crate) fn exponent(n1: usize, y1: f64, n2: usize, y2: f64) -> Option<f64> {
    (y1 > 0.0 && y2 > 0.0 && n1 > 0 && n2 > 0 && n1 != n2).then(|| (y2 / y1).ln() / (n2 as f64 / n1 as f64).ln())
}

/// A phase of our step whose growth is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Detection,
    Assembly,
}

impl Phase {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Phase::Detection => "detection",
            Phase::Assembly => "assembly",
        }
    }

    pub(crate) fn of(self, run: &PileRun) -> Option<f64> {
        match self {
            Phase::Detection => run.detection,
            Phase::Assembly => run.assembly,
        }
    }
}

/// Growth of one phase of the sequential runs from [`GROWTH_FROM`] to [`GROWTH_TO`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Growth {
    /// Seconds per step at the two ends.
    pub(crate) per_step: Option<(f64, f64)>,
    /// Seconds per contact at the two ends.
    pub(crate) per_contact: Option<(f64, f64)>,
    /// Exponents of the per-step and of the per-contact time.
    pub(crate) exponent: Option<f64>,
    pub(crate) per_contact_exponent: Option<f64>,
}

/// Seconds per contact of a phase of a run.
pub(crate) fn per_contact(run: &PileRun, phase: Phase) -> Option<f64> {
    let t = phase.of(run)?;
    (run.contacts > 0.0).then(|| t / run.contacts)
}

/// The growth of `phase` on the sequential runs (detection and assembly do not use the pool).
pub(crate) fn growth(results: &[CaseResult], phase: Phase) -> Growth {
    let run = |n: usize| results.iter().find(|r| r.case.n == n).and_then(|r| r.seq.as_ref().ok());
    let (a, b) = (run(GROWTH_FROM), run(GROWTH_TO));
    let per_step = a.zip(b).and_then(|(a, b)| phase.of(a).zip(phase.of(b)));
    let per_contact = a.zip(b).and_then(|(a, b)| per_contact(a, phase).zip(per_contact(b, phase)));
    Growth {
        per_step,
        per_contact,
        exponent: per_step.and_then(|(x, y)| exponent(GROWTH_FROM, x, GROWTH_TO, y)),
        per_contact_exponent: per_contact.and_then(|(x, y)| exponent(GROWTH_FROM, x, GROWTH_TO, y)),
    }
}

/// The faster of our two runs at `n` and its label.
fn best_ours(results: &[CaseResult], n: usize) -> Option<(&'static str, &PileRun)> {
    let r = results.iter().find(|r| r.case.n == n)?;
    let candidates = [("sequential", r.seq.as_ref().ok()), ("parallel, 2 threads", r.par.as_ref().ok())];
    candidates
        .into_iter()
        .filter_map(|(label, run)| Some((label, run?)))
        .min_by(|a, b| a.1.seconds_per_step.total_cmp(&b.1.seconds_per_step))
}

/// The target "per-step time of `ours` ≤ [`RAPIER_RATIO_TARGET`]× that of `theirs`" at
/// [`TARGET_N`], named `name`.
fn ratio_target(results: &[CaseResult], name: String, ours: RunKind, theirs: RunKind) -> Target {
    let case = results.iter().find(|r| r.case.n == TARGET_N);
    let ratio = case.and_then(|c| c.ratio(ours, theirs));
    let measured = match (case, ratio) {
        (Some(c), Some(r)) => format!(
            "ours / Rapier = {r:.2} ({} against {} ms/step)",
            ms(c.side(ours).as_ref().ok().map(|run| run.seconds_per_step)),
            ms(c.side(theirs).as_ref().ok().map(|run| run.seconds_per_step))
        ),
        (Some(c), None) => format!(
            "no ratio: {}",
            [c.side(ours), c.side(theirs)]
                .iter()
                .filter_map(|s| s.as_ref().err().cloned())
                .collect::<Vec<_>>()
                .join("; ")
        ),
        (None, _) => format!("N = {TARGET_N} not run"),
    };
    Target { name, measured, met: ratio.map(|r| r <= RAPIER_RATIO_TARGET) }
}

/// The report's targets, evaluated on what was measured:
/// 1. N = 5000: at least 10 steps/s on this 2-core machine (the faster of our sequential and
///    2-thread runs), every measured step's FC3D converged to the tolerance;
/// 2. N = 5000 on 2 cores: our per-step time within 3× Rapier's, as the target states it (our
///    2-thread run against Rapier's parallel pipeline on the same 2 threads);
/// 3. N = 5000 on 1 core, the stricter reading: our sequential run within 3× Rapier's
///    single-threaded pipeline;
/// 4. and 5. detection and assembly near-linear from N = 1000 to 20000 (exponent of the per-step
///    time ≤ [`MAX_EXPONENT`] and of the per-contact time ≤ [`MAX_PER_CONTACT_EXPONENT`]).
pub(crate) fn targets(results: &[CaseResult]) -> Vec<Target> {
    let mut out = Vec::new();
    let speed = best_ours(results, TARGET_N);
    out.push(Target {
        name: format!("N = {TARGET_N}: ≥ {STEPS_PER_SECOND_TARGET} steps/s on 2 cores (NSGS to 1e-4, warm started)"),
        measured: match speed {
            Some((label, run)) => format!(
                "{:.2} steps/s ({:.1} ms/step, NSGS {label}); {} of {} measured steps above the tolerance",
                run.steps_per_second().unwrap_or(0.0),
                1e3 * run.seconds_per_step,
                run.unconverged.unwrap_or(0),
                run.measured
            ),
            None => format!("N = {TARGET_N} not run"),
        },
        met: speed.map(|(_, run)| {
            run.steps_per_second().is_some_and(|s| s >= STEPS_PER_SECOND_TARGET) && run.unconverged == Some(0)
        }),
    });
    out.push(ratio_target(
        results,
        format!(
            "N = {TARGET_N} on 2 cores: per-step time ≤ {RAPIER_RATIO_TARGET}× Rapier's on 2 cores (ours NSGS \
             parallel, 2 threads, against Rapier's parallel pipeline, 2 threads)"
        ),
        RunKind::OursParallel,
        RunKind::RapierParallel,
    ));
    out.push(ratio_target(
        results,
        format!(
            "N = {TARGET_N} on 1 core: per-step time ≤ {RAPIER_RATIO_TARGET}× Rapier's single-threaded pipeline \
             (ours NSGS sequential)"
        ),
        RunKind::OursSequential,
        RunKind::RapierSequential,
    ));

    for phase in [Phase::Detection, Phase::Assembly] {
        let g = growth(results, phase);
        out.push(Target {
            name: format!(
                "{} near-linear from N = {GROWTH_FROM} to {GROWTH_TO} (exponent ≤ {MAX_EXPONENT} per step, ≤ \
                 {MAX_PER_CONTACT_EXPONENT} per contact)",
                phase.name()
            ),
            measured: match (g.exponent, g.per_contact_exponent) {
                (Some(e), Some(c)) => format!("exponent {e:.2} per step, {c:.2} per contact"),
                _ => format!("needs the sequential runs at N = {GROWTH_FROM} and {GROWTH_TO}"),
            },
            met: g
                .exponent
                .zip(g.per_contact_exponent)
                .map(|(e, c)| e <= MAX_EXPONENT && c <= MAX_PER_CONTACT_EXPONENT),
        });
    }
    out
}

/// What the header of the report states.
#[derive(Clone, Debug)]
pub(crate) struct MechHeader {
    pub(crate) commit: String,
    pub(crate) cpu: String,
    pub(crate) date: String,
    /// The command that wrote the report.
    pub(crate) command: String,
    pub(crate) quick: bool,
    /// Rapier's version when it ran, else why not.
    pub(crate) rapier: Result<String, String>,
    /// Wall time of the whole report (s).
    pub(crate) elapsed_seconds: f64,
}

fn ms(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |s| format!("{:.3}", 1e3 * s))
}

fn fixed(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
}

/// One table row of a run.
fn table_row(result: &CaseResult, kind: RunKind) -> String {
    let label = kind.label();
    let run = match result.side(kind) {
        Ok(run) => run,
        Err(reason) => return format!("| {label} | not measured: {} |{}", cell(reason), " |".repeat(12)),
    };
    let contacts = match run.active_pairs {
        Some(active) => format!("{:.0} ({active} active)", run.contacts),
        None => format!("{:.1}", run.contacts),
    };
    format!(
        "| {label} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.4} | {:.4} | {} | {} |",
        ms(Some(run.seconds_per_step)),
        fixed(run.steps_per_second(), 1),
        ms(run.detection),
        ms(run.assembly),
        ms(run.solve),
        ms(run.update),
        contacts,
        fixed(run.sweeps, 1),
        run.unconverged.map_or_else(|| "–".to_owned(), |u| u.to_string()),
        run.max_penetration / RADIUS,
        run.mean_height,
        fixed(result.ratio(kind, RunKind::RapierSequential), 2),
        fixed(result.ratio(kind, RunKind::RapierParallel), 2),
    )
}

/// `Ok` when the run `kind` was measured on some case, else why not (its first case's reason).
fn measured_on_some_case(results: &[CaseResult], kind: RunKind) -> Result<(), String> {
    if results.iter().any(|r| r.side(kind).is_ok()) {
        return Ok(());
    }
    Err(results.first().and_then(|r| r.side(kind).as_ref().err().cloned()).unwrap_or_else(|| "no case run".to_owned()))
}

/// `docs/benchmarks/mechanics.md`.
pub(crate) fn markdown(header: &MechHeader, results: &[CaseResult]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Mechanics: the sphere pile, nonsmooth against Rapier\n");
    let _ = writeln!(md, "Generated by `{}`; do not edit.\n", header.command);
    if header.quick {
        let _ = writeln!(md, "**Quick subset only** (pipeline check): not a measurement to quote.\n");
    }
    let _ = writeln!(md, "- commit: `{}`", header.commit);
    let _ = writeln!(md, "- CPU: {}", header.cpu);
    let _ = writeln!(md, "- date: {}", header.date);
    match &header.rapier {
        Ok(version) => {
            let mut line = format!(
                "- Rapier: `rapier3d` {version} (f32), measured in the same run with its single-threaded pipeline \
                 and with its parallel pipeline on {PARALLEL_THREADS} threads"
            );
            for (kind, pipeline) in
                [(RunKind::RapierSequential, "single-threaded"), (RunKind::RapierParallel, "parallel")]
            {
                if let Err(reason) = measured_on_some_case(results, kind) {
                    let _ = write!(line, "; the {pipeline} pipeline not measured: {}", cell(&reason));
                }
            }
            let _ = writeln!(md, "{line}");
        }
        Err(reason) => {
            let _ = writeln!(md, "- Rapier not measured: {}", cell(reason));
        }
    }
    let _ = writeln!(
        md,
        "- scene (`benches/src/pile.rs`, `crates/mechanics/src/pile.rs`): N spheres of radius r = {RADIUS} m, \
         density 1000 kg/m³, μ = 0.3, e = 0, on a jittered cubic lattice (spacing 2.2 r) in an open box, at rest, \
         g = 9.81 m/s², h = 1e-3 s; the same initial positions on both engines"
    );
    let steps = results
        .iter()
        .map(|r| format!("N = {}: {} steps, the last {} measured", r.case.n, r.case.steps, r.case.measure))
        .collect::<Vec<_>>()
        .join("; ");
    let _ = writeln!(
        md,
        "- runs: {steps}; per case, in this order: ours sequential, ours on 2 threads, Rapier single-threaded, \
         Rapier on 2 threads, all four with the same steps and the same measured ones. A layer k lands after a \
         fall of about 0.2 r (k + 1), so by t = 0.3 s the 26 layers of N = 20000 have landed: every N is \
         measured over the same window, t = 0.3 → 0.5 s"
    );
    let _ = writeln!(
        md,
        "- ours: `benches/src/bin/mechanics-pile.rs` (release), wall time of `Scene::step` averaged over the \
         measured steps, split by the step report into detection (contact detection and bookkeeping), assembly \
         (the FC3D problem: `q`, the contacts' `H` and the bodies' `M⁻¹` of the factored Delassus operator \
         `W = H M⁻¹ Hᵀ`, the scenes' default; `W` itself is not assembled), solve (NSGS in body velocities) and \
         update (the rest: iteration matrices, free velocities, state \
         updates); sequential = `Parallelism::Sequential` (no thread started: everything on one core, like \
         Rapier's single-threaded pipeline); 2 threads = `Parallelism::Rayon {{ threads: 2 }}`, the solver's own \
         pool of 2 threads: NSGS's parallel sweeps (`NsgsSchedule::Halves`, from 8192 contacts on: the top and \
         bottom parts of the contacts at the same time through a `rayon::join`, or one after the other when \
         that is faster, then the layer between \
         them; the Anderson extrapolation and the body velocities after it by the same parts; the same \
         numbers on any thread count); the rest of the step runs on the main thread"
    );
    let _ = writeln!(
        md,
        "- Rapier: `benches/src/bin/rapier-pile.rs` (release), wall time of `PhysicsWorld::step` averaged over \
         the measured steps; single-threaded pipeline = built with the feature `rapier` (run as \
         `rapier-pile-1thread`); parallel pipeline (2 threads) = built with the feature `rapier-parallel` \
         (`rapier3d`'s `parallel`: the narrow phase, the solver and the body updates run on rayon's global \
         pool), run as `rapier-pile-2threads` with `RAYON_NUM_THREADS=2`. Every run's JSON line must state \
         the expected pipeline and thread count, else the run counts as not measured"
    );
    let _ = writeln!(md, "- whole report: {:.1} min", header.elapsed_seconds / 60.0);

    let _ = writeln!(md, "\n## Targets\n");
    let _ = writeln!(md, "| target | measured | verdict |");
    let _ = writeln!(md, "|---|---|---|");
    for t in targets(results) {
        let _ = writeln!(md, "| {} | {} | {} |", cell(&t.name), cell(&t.measured), t.verdict());
    }

    let _ = writeln!(md, "\n## Per-step cost\n");
    let _ = writeln!(
        md,
        "Times in ms per step (means over the measured steps). Contacts: ours, the mean number of detected \
         contacts per measured step (gap within the margin r/10; those whose predicted gap `y + h ẏ / 2` closes \
         enter the FC3D problem); Rapier, the pairs \
         touching (distance ≤ 0) at the end, and in parentheses the pairs with an active contact (speculative \
         ones included). Sweeps: mean NSGS sweeps per step; unconv.: measured steps whose FC3D stopped above \
         the tolerance 1e-4. Max penetration: the deepest sphere–sphere or sphere–wall overlap of the final \
         state, in units of r, the same measure on both engines. Ratios: the row's per-step time over that of \
         Rapier's single-threaded pipeline and over that of its parallel pipeline on 2 threads.\n"
    );
    for r in results {
        let _ = writeln!(md, "### N = {} ({} steps, {} measured)\n", r.case.n, r.case.steps, r.case.measure);
        let _ = writeln!(
            md,
            "| engine | ms/step | steps/s | detection | assembly | solve | update | contacts | sweeps | unconv. | \
             max penetration [r] | mean height [m] | ratio to Rapier 1 thread | ratio to Rapier 2 threads |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for kind in RunKind::ALL {
            let _ = writeln!(md, "{}", table_row(r, kind));
        }
        if let Some(initial) = RunKind::ALL.iter().find_map(|&kind| r.side(kind).as_ref().ok()) {
            let _ = writeln!(md, "\nInitial mean height: {:.4} m.\n", initial.initial_mean_height);
        } else {
            let _ = writeln!(md);
        }
    }

    let _ = writeln!(md, "## Growth of detection and assembly with N\n");
    let _ = writeln!(
        md,
        "Our sequential runs. Exponent = log(t({GROWTH_TO}) / t({GROWTH_FROM})) / log({GROWTH_TO} / {GROWTH_FROM}): \
         1 is linear. The per-step exponent compares steps taken at different moments of the fall when the runs \
         differ in length; the per-contact one (time per contact of the step) removes the contact count.\n"
    );
    let _ = writeln!(md, "| phase | N | ms/step | µs per contact |");
    let _ = writeln!(md, "|---|---|---|---|");
    for phase in [Phase::Detection, Phase::Assembly] {
        for r in results {
            if let Ok(run) = &r.seq {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} |",
                    phase.name(),
                    r.case.n,
                    ms(phase.of(run)),
                    fixed(per_contact(run, phase).map(|t| 1e6 * t), 3)
                );
            }
        }
    }
    let _ = writeln!(md);
    for phase in [Phase::Detection, Phase::Assembly] {
        let g = growth(results, phase);
        let _ = writeln!(
            md,
            "- {}: exponent {} per step, {} per contact",
            phase.name(),
            fixed(g.exponent, 2),
            fixed(g.per_contact_exponent, 2)
        );
    }

    let _ = writeln!(md, "\n## What each solves\n");
    let _ = writeln!(
        md,
        "- **ours**: Moreau–Jean time-stepping (θ = 1/2) of Newton–Euler bodies in f64; at every step the \
         frictional contact problem (FC3D) with the exact Coulomb cone, solved by NSGS in body velocities on \
         the factored Delassus operator (the same iteration as on the assembled `W` up to round-off; \
         over-relaxation \
         ω = 1.5 and Anderson acceleration with memory 3 on pairs of sweeps, one extrapolation per two \
         sweeps, the full error evaluated after one more, plain, sweep on a copy, contacts swept from the top of \
         the pile down, the one-contact problems of sphere contacts solved in closed form) until Siconos' \
         relative error \
         `fc3d_compute_error` is ≤ 1e-4, warm started from the previous step's reactions. Moreau–Jean \
         works at the velocity level (Newton impact law on the contacts with `y + h ẏ / 2 ≤ 0`): it keeps no \
         position constraint, \
         so spheres overlap by O(h v) at impacts and the penetration stays there (no stabilization)."
    );
    let _ = writeln!(
        md,
        "- **Rapier 0.36**: f32, soft (compliant) contact constraints, its default integration parameters: 4 \
         solver iterations (1 internal PGS iteration and 1 stabilization iteration each), predictive \
         (speculative) contacts within its prediction distance, sleeping bodies allowed. It stops after a fixed \
         number of iterations, not at a tolerance on the Coulomb problem, and its softness and stabilization \
         set its penetration (shown above, same measure as ours). Its two runs solve the same scene with the \
         same parameters; the parallel one spreads the pipeline's work over 2 threads."
    );
    let _ = writeln!(
        md,
        "- The times therefore compare an exact-cone solve to 1e-4 with a fixed-iteration soft solve; the mean \
         heights and penetrations in the tables compare where the two piles end up."
    );

    let _ = writeln!(md, "\n## How to run\n");
    let _ = writeln!(
        md,
        "- the report: `cargo xtask bench-report --only mechanics` (`--quick`: N = 1000, 100 steps, 50 measured, \
         written to `target/bench-report-quick/`)"
    );
    let _ = writeln!(
        md,
        "- one run of ours: `cargo run --release -p nonsmooth-benches --bin mechanics-pile -- --n 5000 --steps 500 \
         --measure 200 [--parallel]`"
    );
    let _ = writeln!(
        md,
        "- one run of Rapier, single-threaded pipeline: `cargo run --release -p nonsmooth-benches --features \
         rapier --bin rapier-pile -- --n 5000 --steps 500 --measure 200`"
    );
    let _ = writeln!(
        md,
        "- one run of Rapier, parallel pipeline on 2 threads: `RAYON_NUM_THREADS=2 cargo run --release -p \
         nonsmooth-benches --features rapier-parallel --bin rapier-pile -- --n 5000 --steps 500 --measure 200`"
    );
    let _ = writeln!(
        md,
        "- the example with a progress bar and a VTK frame: `cargo run --release --example sphere_pile -- --n 5000 \
         --steps 500 --vtk out/`"
    );
    md
}

/// `docs/benchmarks/mechanics.csv`: one line per (N, run), empty fields for values not measured;
/// `parallel` and `threads` say which run a line is, also when it was not measured.
pub(crate) fn csv(results: &[CaseResult]) -> String {
    let mut out = String::from(
        "n,steps,measured,engine,parallel,threads,seconds_per_step,steps_per_second,detection,assembly,solve,update,\
         contacts,active_pairs,sweeps,unconverged,max_penetration,mean_height,initial_mean_height,\
         ratio_to_rapier_1thread,ratio_to_rapier_2threads,status\n",
    );
    for r in results {
        for kind in RunKind::ALL {
            let engine = kind.engine();
            let fields = match r.side(kind) {
                Ok(run) => vec![
                    r.case.n.to_string(),
                    r.case.steps.to_string(),
                    r.case.measure.to_string(),
                    engine.to_owned(),
                    run.parallel.to_string(),
                    run.threads.to_string(),
                    opt_f64(Some(run.seconds_per_step)),
                    opt_f64(run.steps_per_second()),
                    opt_f64(run.detection),
                    opt_f64(run.assembly),
                    opt_f64(run.solve),
                    opt_f64(run.update),
                    opt_f64(Some(run.contacts)),
                    opt(run.active_pairs),
                    opt_f64(run.sweeps),
                    opt(run.unconverged),
                    opt_f64(Some(run.max_penetration)),
                    opt_f64(Some(run.mean_height)),
                    opt_f64(Some(run.initial_mean_height)),
                    opt_f64(r.ratio(kind, RunKind::RapierSequential)),
                    opt_f64(r.ratio(kind, RunKind::RapierParallel)),
                    "measured".to_owned(),
                ],
                Err(reason) => {
                    let mut v = vec![r.case.n.to_string(), r.case.steps.to_string(), r.case.measure.to_string()];
                    v.push(engine.to_owned());
                    v.push(kind.parallel().to_string());
                    v.push(kind.threads().to_string());
                    v.extend(std::iter::repeat_n(String::new(), 15));
                    v.push(csv_field(&format!("not measured: {reason}")));
                    v
                }
            };
            out.push_str(&fields.join(","));
            out.push('\n');
        }
    }
    out
}

/// Runs one pile binary as the run `kind` (our `--parallel`, Rapier's `RAYON_NUM_THREADS`); a
/// failure, or a JSON line with another pipeline or thread count, becomes the side's reason.
fn run_pile(bin: &Path, case: Case, kind: RunKind) -> Side {
    let name = bin.file_name().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let extra: &[&str] = if kind == RunKind::OursParallel { &["--parallel"] } else { &[] };
    let threads = PARALLEL_THREADS.to_string();
    let env: &[(&str, &str)] = if kind == RunKind::RapierParallel { &[("RAYON_NUM_THREADS", &threads)] } else { &[] };
    eprintln!(
        "bench-report: {}{name} --n {} --steps {} --measure {} {}",
        env.iter().map(|(k, v)| format!("{k}={v} ")).collect::<String>(),
        case.n,
        case.steps,
        case.measure,
        extra.join(" ")
    );
    let started = Instant::now();
    let output = Command::new(bin)
        .args(["--n", &case.n.to_string(), "--steps", &case.steps.to_string(), "--measure", &case.measure.to_string()])
        .args(extra)
        .envs(env.iter().copied())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{name} failed ({})", output.status));
    }
    let run = parse_run(&String::from_utf8_lossy(&output.stdout), &name).map_err(|e| format!("{e:#}"))?;
    let run = check_threads(run, kind, &name)?;
    eprintln!("bench-report:   {:.3} ms/step ({:.0} s)", 1e3 * run.seconds_per_step, started.elapsed().as_secs_f64());
    Ok(run)
}

/// Builds `rapier-pile` with `feature` and copies it to `release/copy` (both feature sets make
/// the same binary name); the copy's path, or why there is none.
fn build_rapier(release: &Path, feature: &str, copy: &str) -> Result<PathBuf, String> {
    eprintln!("bench-report: building rapier-pile --features {feature} as {copy}");
    let status = cargo()
        .args(["build", "--release", "-p", "nonsmooth-benches", "--features", feature, "--bin", "rapier-pile"])
        .status()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    if !status.success() {
        return Err(format!("the rapier-pile build with --features {feature} failed ({status})"));
    }
    let (built, copied) = (release.join("rapier-pile"), release.join(copy));
    std::fs::copy(&built, &copied)
        .map_err(|e| format!("cannot copy {} to {}: {e}", built.display(), copied.display()))?;
    Ok(copied)
}

/// Runs the mechanics part of the report.
pub(crate) fn run(o: &Options) -> anyhow::Result<()> {
    let started = Instant::now();
    let root = project_root();
    let target = target_dir()?;
    let (_, out) = folders(o, &target)?;
    let release = target.join("release");

    eprintln!("bench-report: building mechanics-pile");
    run_checked(cargo().args([
        "build",
        "--release",
        "-p",
        "nonsmooth-benches",
        "--bin",
        "mechanics-pile",
        "--bin",
        "pile-life",
    ]))?;
    let ours: Result<PathBuf, String> = Ok(release.join("mechanics-pile"));
    let rapier_seq = build_rapier(&release, "rapier", "rapier-pile-1thread");
    let rapier_par = build_rapier(&release, "rapier-parallel", "rapier-pile-2threads");

    let mut results = Vec::new();
    for case in cases(o.quick) {
        let [seq, par, rapier, rapier_par] = RunKind::ALL.map(|kind| {
            let bin = match kind {
                RunKind::OursSequential | RunKind::OursParallel => &ours,
                RunKind::RapierSequential => &rapier_seq,
                RunKind::RapierParallel => &rapier_par,
            };
            let side = match bin {
                Ok(bin) => run_pile(bin, case, kind),
                Err(reason) => Err(reason.clone()),
            };
            if let Err(reason) = &side {
                eprintln!("bench-report:   {} not measured: {reason}", kind.label());
            }
            side
        });
        results.push(CaseResult { case, seq, par, rapier, rapier_par });
    }

    let tools = life::LifeTools {
        pile_life: release.join("pile-life"),
        rapier: rapier_seq.clone(),
        siconos: life::siconos_available(),
        shim: life::build_shim(&root, &target),
        mujoco: life::mujoco_python(&target),
        scripts: root.join("benches/python"),
        states: target.join("pile-life"),
    };
    for (engine, ready) in [("Siconos", tools.siconos.as_ref().err()), ("MuJoCo", tools.mujoco.as_ref().err())] {
        if let Some(reason) = ready {
            eprintln!("bench-report: {engine} not measured: {reason}");
        }
    }
    let life_results: Vec<life::LifeResult> = life::life_cases(o.quick)
        .into_iter()
        .filter(|case| o.life_sizes.as_ref().is_none_or(|sizes| sizes.contains(&case.n)))
        .map(|case| life::run_case(case, &tools))
        .collect();

    // The version from any Rapier run, else why neither pipeline ran (the first case's reasons).
    let rapier_version = results
        .iter()
        .flat_map(|r| [&r.rapier, &r.rapier_par])
        .find_map(|s| s.as_ref().ok())
        .map(|r| r.version.clone().unwrap_or_else(|| "(version unknown)".to_owned()))
        .ok_or_else(|| {
            let reasons: Vec<String> = [RunKind::RapierSequential, RunKind::RapierParallel]
                .into_iter()
                .filter_map(|kind| measured_on_some_case(&results, kind).err())
                .collect();
            reasons.join("; ")
        });
    let header = MechHeader {
        commit: commit(&root),
        cpu: cpu_model(),
        date: utc_now(),
        command: format!("cargo xtask bench-report --only mechanics{}", if o.quick { " --quick" } else { "" }),
        quick: o.quick,
        rapier: rapier_version,
        elapsed_seconds: started.elapsed().as_secs_f64(),
    };
    let md = markdown(&header, &results) + &life::markdown(&life_results, &tools.shim);
    for (name, text) in
        [("mechanics.md", md), ("mechanics.csv", csv(&results)), ("mechanics-life.csv", life::csv(&life_results))]
    {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("bench-report: wrote {}", path.display());
    }
    Ok(())
}

pub(crate) mod life;

#[cfg(test)]
mod tests;
