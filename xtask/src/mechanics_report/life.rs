//! The whole-life part of the mechanics report: the pile from the lattice at rest to the heap at
//! rest (2 s), ours and Rapier's single-threaded pipeline over the whole run, Siconos 4.4's
//! granular pipeline and MuJoCo in windows started from our state, split into phases by the
//! kinetic energy ([`phases`]).
//!
//! Every engine prints one JSON line per step (`"record": "step"`, [`StepRecord`]) and one
//! `"record": "run"` line; the runs:
//! 1. ours: `pile-life --n N --steps S --export-every E --export-dir DIR` (our state every E
//!    steps, step 0 included, in `DIR/state_<n>_<step>.txt`);
//! 2. Rapier: `rapier-pile-1thread --n N --steps S --measure S --life`;
//! 3. our phases from our kinetic energy; per non-empty phase, the exported step nearest its
//!    middle ([`window_start`]);
//! 4. Siconos (`/usr/bin/python3 -s benches/python/siconos_pile.py --state FILE --steps K`, with
//!    the graph-check shim preloaded when it compiles) and MuJoCo (`benches/python/mujoco_pile.py`
//!    in a venv under the target folder, created with `pip install mujoco numpy` when absent) from
//!    each of those states for K steps ([`LifeCase`]).

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::Value;

use super::RADIUS;
use crate::bench_report::python;
use crate::report::{cell, csv_field, opt_f64};

/// Falling: the steps up to the last one whose kinetic energy is at least this fraction of the
/// run's largest.
pub(crate) const FALLING_FRACTION: f64 = 0.1;
/// Rest: from the first step after which the kinetic energy stays at most this fraction of the
/// run's largest.
pub(crate) const REST_FRACTION: f64 = 1e-4;
/// Our FC3D tolerance (the scenes' NSGS, `SceneOptions::default_nsgs`).
pub(crate) const TOLERANCE: f64 = 1e-4;
/// Target (b): our cost per step at rest at most this multiple of our cost during the fall.
pub(crate) const REST_RATIO_TARGET: f64 = 2.0;
/// Target (c): our whole run at least this many times faster than Siconos' (extrapolated).
pub(crate) const SICONOS_SPEEDUP_TARGET: f64 = 50.0;
/// Target (d): our falling phase at most this multiple of Rapier's single-threaded pipeline's.
pub(crate) const RAPIER_FALL_RATIO_TARGET: f64 = 2.0;
/// Wall-time budget of a MuJoCo window (s): it stops after the first step that ends later.
pub(crate) const MUJOCO_WINDOW_SECONDS: f64 = 600.0;
/// Wall-time limit of a MuJoCo window's process (s): one Newton step on the connected
/// 5000-sphere heap takes longer (more than 27 minutes), so the window is stopped and reported as
/// not measured instead of holding the report for hours.
pub(crate) const MUJOCO_WINDOW_LIMIT_SECONDS: u64 = 900;
/// The times (s) at which the kinetic energy is tabled.
pub(crate) const KE_SAMPLES: [f64; 10] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0, 1.4, 1.9, 2.0];

/// One whole-life case: N spheres, `steps` steps from the lattice at rest, our state exported
/// every `export_every` steps, windows of `siconos_window` (Siconos) and `mujoco_window` (MuJoCo)
/// steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LifeCase {
    pub(crate) n: usize,
    pub(crate) steps: usize,
    pub(crate) export_every: usize,
    pub(crate) siconos_window: usize,
    pub(crate) mujoco_window: usize,
}

/// The cases. Full: N = 1000 and 5000, 2000 steps (2 s), windows of 10 (N = 1000) and 4
/// (N = 5000) Siconos steps (about 1.2 and 13 s per step), 3 and 1 MuJoCo steps (its Newton
/// solver's dense-like factorization of the whole pile takes seconds per step at N = 1000 once the
/// pile is connected). `--quick`: N = 125, 1500 steps (long enough to reach rest), windows of 2 steps.
pub(crate) fn life_cases(quick: bool) -> Vec<LifeCase> {
    if quick {
        vec![LifeCase { n: 125, steps: 1500, export_every: 10, siconos_window: 2, mujoco_window: 2 }]
    } else {
        vec![
            LifeCase { n: 1000, steps: 2000, export_every: 50, siconos_window: 10, mujoco_window: 3 },
            LifeCase { n: 5000, steps: 2000, export_every: 50, siconos_window: 4, mujoco_window: 1 },
        ]
    }
}

/// One step of a run (the `"record": "step"` line).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct StepRecord {
    /// Index of the step from the lattice (1 for the first).
    pub(crate) step: usize,
    /// Kinetic energy after the step (J).
    pub(crate) ke: f64,
    /// Wall time (s).
    pub(crate) seconds: f64,
    pub(crate) iterations: Option<f64>,
    /// Whether the solver reached its tolerance; `None` when it solved nothing or has none.
    pub(crate) converged: Option<bool>,
    pub(crate) residual: Option<f64>,
    /// Max penetration after the step (m).
    pub(crate) penetration: f64,
    pub(crate) mean_height: f64,
    pub(crate) contacts: f64,
}

impl StepRecord {
    /// Reads one step line's object; the error names the first missing or mistyped field.
    pub(crate) fn from_json(v: &Value) -> Result<Self, &'static str> {
        let float = |k: &'static str| v[k].as_f64().ok_or(k);
        let maybe = |k: &'static str| if v[k].is_null() { Ok(None) } else { v[k].as_f64().map(Some).ok_or(k) };
        Ok(StepRecord {
            step: v["step"].as_u64().and_then(|s| usize::try_from(s).ok()).ok_or("step")?,
            ke: float("ke")?,
            seconds: float("seconds")?,
            iterations: maybe("iterations")?,
            converged: if v["converged"].is_null() { None } else { Some(v["converged"].as_bool().ok_or("converged")?) },
            residual: maybe("residual")?,
            penetration: float("penetration")?,
            mean_height: float("mean_height")?,
            contacts: float("contacts")?,
        })
    }
}

/// A run's step records and its `run` line.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct EngineRun {
    pub(crate) records: Vec<StepRecord>,
    pub(crate) meta: Value,
}

/// Parses a run's standard output: its step lines in order, and its `run` line (required, last);
/// other lines are ignored.
pub(crate) fn parse_records(stdout: &str, source: &str) -> anyhow::Result<EngineRun> {
    let mut out = EngineRun::default();
    let mut meta = None;
    for line in stdout.lines().map(str::trim).filter(|l| l.starts_with('{')) {
        let v: Value = serde_json::from_str(line).with_context(|| format!("{source}: not JSON: {line}"))?;
        match v["record"].as_str() {
            Some("step") => out
                .records
                .push(StepRecord::from_json(&v).map_err(|f| anyhow::anyhow!("{source}: no valid {f:?} in {line}"))?),
            Some("run") => meta = Some(v),
            _ => {}
        }
    }
    out.meta = meta.with_context(|| format!("{source}: no run line"))?;
    anyhow::ensure!(!out.records.is_empty(), "{source}: no step line");
    Ok(out)
}

/// The three phases of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LifePhase {
    Falling,
    Settling,
    Rest,
}

impl LifePhase {
    pub(crate) const ALL: [LifePhase; 3] = [LifePhase::Falling, LifePhase::Settling, LifePhase::Rest];

    pub(crate) fn name(self) -> &'static str {
        match self {
            LifePhase::Falling => "falling",
            LifePhase::Settling => "settling",
            LifePhase::Rest => "rest",
        }
    }
}

/// The phases of a run as ranges of its record indices, and its largest kinetic energy.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Phases {
    pub(crate) e_max: f64,
    pub(crate) falling: Range<usize>,
    pub(crate) settling: Range<usize>,
    pub(crate) rest: Range<usize>,
}

impl Phases {
    pub(crate) fn range(&self, phase: LifePhase) -> Range<usize> {
        match phase {
            LifePhase::Falling => self.falling.clone(),
            LifePhase::Settling => self.settling.clone(),
            LifePhase::Rest => self.rest.clone(),
        }
    }
}

/// The phases of the kinetic energies `ke` (one per step): with `E_max = max ke`, falling is the
/// steps up to the last one with `E ≥ falling · E_max`, rest the steps from the first one after
/// which `E ≤ rest · E_max` holds to the end, settling those between (rest never starts inside
/// the fall). `None` for no step or a non-finite energy.
pub(crate) fn phases_with(ke: &[f64], falling: f64, rest: f64) -> Option<Phases> {
    if ke.is_empty() || ke.iter().any(|e| !e.is_finite()) {
        return None;
    }
    let e_max = ke.iter().copied().fold(0.0, f64::max);
    let fall_end = ke.iter().rposition(|&e| e >= falling * e_max).map_or(0, |i| i + 1);
    let mut rest_start = ke.len();
    while rest_start > 0 && ke[rest_start - 1] <= rest * e_max {
        rest_start -= 1;
    }
    let rest_start = rest_start.max(fall_end);
    Some(Phases { e_max, falling: 0..fall_end, settling: fall_end..rest_start, rest: rest_start..ke.len() })
}

/// [`phases_with`] at the report's thresholds, [`FALLING_FRACTION`] and [`REST_FRACTION`].
pub(crate) fn phases(ke: &[f64]) -> Option<Phases> {
    phases_with(ke, FALLING_FRACTION, REST_FRACTION)
}

/// What a run did over some of its steps.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PhaseStats {
    /// Steps in the slice.
    pub(crate) steps: usize,
    /// First and last step index (from the lattice).
    pub(crate) first_step: usize,
    pub(crate) last_step: usize,
    pub(crate) seconds_per_step: f64,
    /// Mean solver iterations over the steps that report them.
    pub(crate) iterations: Option<f64>,
    /// Steps whose solver stopped above its tolerance, among `checked` that say.
    pub(crate) unconverged: usize,
    pub(crate) checked: usize,
    /// Largest solver error.
    pub(crate) worst_residual: Option<f64>,
    /// Penetration after the last step and the largest after any step (m).
    pub(crate) penetration_end: f64,
    pub(crate) penetration_max: f64,
    /// Mean height after the last step (m).
    pub(crate) mean_height_end: f64,
}

/// The statistics of `records` (`None` when empty).
pub(crate) fn stats(records: &[StepRecord]) -> Option<PhaseStats> {
    let (first, last) = (records.first()?, records.last()?);
    let m = records.len() as f64;
    let iterations: Vec<f64> = records.iter().filter_map(|r| r.iterations).collect();
    let residuals = records.iter().filter_map(|r| r.residual);
    Some(PhaseStats {
        steps: records.len(),
        first_step: first.step,
        last_step: last.step,
        seconds_per_step: records.iter().map(|r| r.seconds).sum::<f64>() / m,
        iterations: (!iterations.is_empty()).then(|| iterations.iter().sum::<f64>() / iterations.len() as f64),
        unconverged: records.iter().filter(|r| r.converged == Some(false)).count(),
        checked: records.iter().filter(|r| r.converged.is_some()).count(),
        worst_residual: residuals.reduce(f64::max),
        penetration_end: last.penetration,
        penetration_max: records.iter().map(|r| r.penetration).fold(0.0, f64::max),
        mean_height_end: last.mean_height,
    })
}

/// A whole run split into its own phases.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WholeRun {
    pub(crate) run: EngineRun,
    pub(crate) phases: Phases,
}

impl WholeRun {
    /// Splits `run` by its kinetic energy.
    pub(crate) fn new(run: EngineRun, source: &str) -> Result<Self, String> {
        let ke: Vec<f64> = run.records.iter().map(|r| r.ke).collect();
        let phases = phases(&ke).ok_or_else(|| format!("{source}: no step or a non-finite kinetic energy"))?;
        Ok(WholeRun { run, phases })
    }

    /// The statistics of `phase` (`None` when the phase is empty).
    pub(crate) fn phase(&self, phase: LifePhase) -> Option<PhaseStats> {
        stats(&self.run.records[self.phases.range(phase)])
    }

    /// The statistics of the whole run.
    pub(crate) fn whole(&self) -> Option<PhaseStats> {
        stats(&self.run.records)
    }

    /// The kinetic energy after the step ending nearest `t` (s), for a step `h`, if the run got
    /// there.
    pub(crate) fn ke_at(&self, t: f64, h: f64) -> Option<f64> {
        let step = (t / h).round() as usize;
        self.run.records.iter().find(|r| r.step == step).map(|r| r.ke)
    }
}

/// The exported step (a multiple of `every`) that starts a window for the phase covering the
/// steps `first..=last`: the one nearest the phase's middle among those from `first − 1` (the
/// state before the phase's first step) to `last − 1` (so that the window's first step is in the
/// phase). `None` when no multiple of `every` lies there.
pub(crate) fn window_start(first: usize, last: usize, every: usize) -> Option<usize> {
    if every == 0 || last < first || first == 0 {
        return None;
    }
    let (lo, hi) = (first - 1, last - 1);
    let middle = (first + last) / 2;
    let below = middle / every * every;
    [below, below + every].into_iter().filter(|s| (lo..=hi).contains(s)).min_by_key(|s| s.abs_diff(middle))
}

/// A window of an engine started from our state in one of our phases.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Window {
    pub(crate) phase: LifePhase,
    /// The phase's steps in our run (the weight of the window in the extrapolation).
    pub(crate) phase_steps: usize,
    /// The step of our state it started from, or why it did not run.
    pub(crate) start: Result<usize, String>,
    pub(crate) stats: Result<PhaseStats, String>,
}

/// Σ over the windows of their seconds per step × their phase's steps (the extrapolated whole
/// run), when every non-empty phase has a measured window.
pub(crate) fn extrapolate(windows: &[Window]) -> Option<f64> {
    let mut total = 0.0;
    for w in windows.iter().filter(|w| w.phase_steps > 0) {
        total += w.stats.as_ref().ok()?.seconds_per_step * w.phase_steps as f64;
    }
    (!windows.is_empty()).then_some(total)
}

/// One case of the whole-life part.
#[derive(Clone, Debug)]
pub(crate) struct LifeResult {
    pub(crate) case: LifeCase,
    pub(crate) ours: Result<WholeRun, String>,
    pub(crate) rapier: Result<WholeRun, String>,
    /// The windows, or why the engine did not run at all.
    pub(crate) siconos: Result<Vec<Window>, String>,
    pub(crate) mujoco: Result<Vec<Window>, String>,
}

/// A target of the whole-life part (the shape of the report's [`super::Target`]).
pub(crate) fn life_targets(results: &[LifeResult]) -> Vec<super::Target> {
    let mut out = Vec::new();
    for r in results {
        let n = r.case.n;
        let seconds = r.case.steps as f64 * 1e-3;
        let ours = r.ours.as_ref();
        let whole = ours.ok().and_then(WholeRun::whole);
        out.push(super::Target {
            name: format!(
                "(a) N = {n}: zero unconverged steps over the whole {seconds} s (ours, FC3D to {TOLERANCE:e})"
            ),
            measured: match (&whole, ours) {
                (Some(w), _) => format!(
                    "{} of {} steps above the tolerance; worst error {}",
                    w.unconverged,
                    w.steps,
                    sci(w.worst_residual)
                ),
                (None, Err(e)) => format!("ours not measured: {e}"),
                (None, Ok(_)) => "no step".to_owned(),
            },
            met: whole.as_ref().map(|w| w.unconverged == 0),
        });
        let phase_ms = |p: LifePhase| ours.ok().and_then(|o| o.phase(p)).map(|s| s.seconds_per_step);
        let (fall, settle, rest) =
            (phase_ms(LifePhase::Falling), phase_ms(LifePhase::Settling), phase_ms(LifePhase::Rest));
        let rest_ratio = fall.zip(rest).map(|(f, r)| r / f);
        out.push(super::Target {
            name: format!(
                "(b) N = {n}: our cost per step at rest ≤ {REST_RATIO_TARGET}× our cost per step during the fall"
            ),
            measured: match rest_ratio {
                Some(q) => format!(
                    "rest / falling = {q:.2} ({} against {} ms/step); settling / falling = {} ({} ms/step)",
                    ms(rest),
                    ms(fall),
                    fixed(fall.zip(settle).map(|(f, s)| s / f), 2),
                    ms(settle)
                ),
                None => match ours {
                    Err(e) => format!("ours not measured: {e}"),
                    Ok(_) => "no rest phase in the run (the kinetic energy never stays below the threshold)".into(),
                },
            },
            met: rest_ratio.map(|q| q <= REST_RATIO_TARGET),
        });
        let siconos_total = r.siconos.as_ref().ok().and_then(|w| extrapolate(w));
        let ours_total = whole.as_ref().map(|w| w.seconds_per_step * w.steps as f64);
        let speedup = siconos_total.zip(ours_total).and_then(|(s, o)| (o > 0.0).then(|| s / o));
        out.push(super::Target {
            name: format!(
                "(c) N = {n}: our whole run ≥ {SICONOS_SPEEDUP_TARGET}× faster than Siconos 4.4's (extrapolated from \
                 its windows)"
            ),
            measured: match speedup {
                Some(q) => format!(
                    "Siconos / ours = {q:.1} ({:.1} s extrapolated against {:.1} s measured)",
                    siconos_total.unwrap_or(0.0),
                    ours_total.unwrap_or(0.0)
                ),
                None => format!(
                    "no ratio: {}",
                    [r.siconos.as_ref().err().cloned(), ours.err().cloned()]
                        .into_iter()
                        .flatten()
                        .next()
                        .unwrap_or_else(|| "a window was not measured".into())
                ),
            },
            met: speedup.map(|q| q >= SICONOS_SPEEDUP_TARGET),
        });
        let rapier_fall = r.rapier.as_ref().ok().and_then(|w| w.phase(LifePhase::Falling)).map(|s| s.seconds_per_step);
        let fall_ratio = fall.zip(rapier_fall).map(|(o, t)| o / t);
        out.push(super::Target {
            name: format!(
                "(d) N = {n}: our falling phase within {RAPIER_FALL_RATIO_TARGET}× of Rapier's single-threaded \
                 pipeline (ms per step, each engine's own falling phase)"
            ),
            measured: match fall_ratio {
                Some(q) => format!("ours / Rapier = {q:.2} ({} against {} ms/step)", ms(fall), ms(rapier_fall)),
                None => format!(
                    "no ratio: {}",
                    [r.rapier.as_ref().err().cloned(), ours.err().cloned()]
                        .into_iter()
                        .flatten()
                        .next()
                        .unwrap_or_else(|| "no falling phase".into())
                ),
            },
            met: fall_ratio.map(|q| q <= RAPIER_FALL_RATIO_TARGET),
        });
    }
    out
}

fn ms(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |s| format!("{:.3}", 1e3 * s))
}

fn fixed(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
}

fn sci(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{v:.2e}"))
}

/// A table row of `stats` (or of why there are none): label, phase, steps, t range, ms/step,
/// iterations, unconverged, worst error, penetration at the end and max, mean height at the end.
fn stats_row(label: &str, phase: &str, steps: &str, stats: Result<&PhaseStats, &str>) -> String {
    match stats {
        Ok(s) => format!(
            "| {label} | {phase} | {steps} | {:.3}–{:.3} | {} | {} | {} | {} | {:.4} | {:.4} | {:.4} |",
            (s.first_step - 1) as f64 * 1e-3,
            s.last_step as f64 * 1e-3,
            ms(Some(s.seconds_per_step)),
            fixed(s.iterations, 1),
            if s.checked > 0 { format!("{} / {}", s.unconverged, s.checked) } else { "–".to_owned() },
            sci(s.worst_residual),
            s.penetration_end / RADIUS,
            s.penetration_max / RADIUS,
            s.mean_height_end,
        ),
        Err(reason) => format!("| {label} | {phase} | {steps} | {} |{}", cell(reason), " |".repeat(7)),
    }
}

/// The rows of a whole run: one per phase, then the whole run.
fn whole_rows(md: &mut String, label: &str, run: &Result<WholeRun, String>) {
    match run {
        Ok(w) => {
            for p in LifePhase::ALL {
                let range = w.phases.range(p);
                let row = match w.phase(p) {
                    Some(s) => stats_row(label, p.name(), &range.len().to_string(), Ok(&s)),
                    None => stats_row(label, p.name(), "0", Err("empty phase")),
                };
                let _ = writeln!(md, "{row}");
            }
            if let Some(s) = w.whole() {
                let _ = writeln!(md, "{}", stats_row(label, "**whole run**", &s.steps.to_string(), Ok(&s)));
            }
        }
        Err(reason) => {
            let _ = writeln!(md, "{}", stats_row(label, "–", "–", Err(&format!("not measured: {reason}"))));
        }
    }
}

/// The rows of an engine's windows, then its extrapolated whole run.
fn window_rows(md: &mut String, label: &str, windows: &Result<Vec<Window>, String>) {
    match windows {
        Ok(ws) => {
            for w in ws {
                let steps = match (&w.start, &w.stats) {
                    (Ok(start), Ok(s)) => format!("{} from step {start} (phase: {})", s.steps, w.phase_steps),
                    _ => format!("– (phase: {})", w.phase_steps),
                };
                let reason = w.start.as_ref().err().or(w.stats.as_ref().err());
                let row = match (&w.stats, reason) {
                    (Ok(s), _) => stats_row(label, w.phase.name(), &steps, Ok(s)),
                    (Err(_), Some(reason)) => stats_row(label, w.phase.name(), &steps, Err(reason)),
                    (Err(e), None) => stats_row(label, w.phase.name(), &steps, Err(e)),
                };
                let _ = writeln!(md, "{row}");
            }
            let total = extrapolate(ws);
            let steps: usize = ws.iter().map(|w| w.phase_steps).sum();
            let text = match total {
                Some(t) => format!(
                    "extrapolated: {:.1} s ({} ms/step over {steps} steps) = Σ window ms/step × phase steps",
                    t,
                    ms(Some(t / steps.max(1) as f64))
                ),
                None => "no extrapolation: a window is missing".to_owned(),
            };
            let _ = writeln!(md, "| {label} | **whole run** | {steps} | {text} |{}", " |".repeat(7));
        }
        Err(reason) => {
            let _ = writeln!(md, "{}", stats_row(label, "–", "–", Err(&format!("not measured: {reason}"))));
        }
    }
}

/// The whole-life section of `mechanics.md`.
pub(crate) fn markdown(results: &[LifeResult], siconos_shim: &Result<PathBuf, String>) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "\n## Whole life: from the lattice at rest to the heap at rest\n");
    let runs = results
        .iter()
        .map(|r| {
            format!(
                "N = {}: {} steps ({} s), Siconos windows of {} steps, MuJoCo windows of {} steps",
                r.case.n,
                r.case.steps,
                r.case.steps as f64 * 1e-3,
                r.case.siconos_window,
                r.case.mujoco_window
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let _ = writeln!(
        md,
        "- runs: {runs}. The same pile (the same initial positions on every engine), h = 1e-3 s. Ours \
         (`benches/src/bin/pile-life.rs`, sequential: `Parallelism::Sequential`, the scenes' NSGS to 1e-4, \
         non-convergence policy `Continue` so that a missed step is counted, not fatal) and Rapier's \
         single-threaded pipeline (`rapier-pile --life`) run the whole time. Siconos 4.4 and MuJoCo run \
         **windows**: from our state exported at the step nearest the middle of each of our phases, K steps; \
         their whole-run time is **extrapolated** as Σ over our phases of (window ms/step × the phase's steps), \
         not measured."
    );
    let _ = writeln!(
        md,
        "- phases, by each engine's own kinetic energy E (translational + rotational, after each step): with \
         E_max the run's largest, **falling** = the steps up to the last one with E ≥ {FALLING_FRACTION}·E_max; \
         **rest** = from the first step after which E stays ≤ {REST_FRACTION:e}·E_max, to the end; **settling** = \
         between. The windows take our phases."
    );
    match siconos_shim {
        Ok(path) => {
            let _ = writeln!(
                md,
                "- Siconos runs with `LD_PRELOAD={}` (`benches/python/siconos_graph_shim.cpp`, compiled by the report \
                 with g++): Debian's build keeps its debug graph assertions, which walk the whole contact graph at \
                 every insertion and removal; the shim answers them in O(1) with the same answers, so the solver \
                 and the results are unchanged",
                path.display()
            );
        }
        Err(reason) => {
            let _ = writeln!(
                md,
                "- Siconos runs without the graph-check shim ({}): its steps include Debian's debug graph walks",
                cell(reason)
            );
        }
    }
    let _ = writeln!(md, "\n### Targets (whole life)\n");
    let _ = writeln!(md, "| target | measured | verdict |");
    let _ = writeln!(md, "|---|---|---|");
    for t in life_targets(results) {
        let _ = writeln!(md, "| {} | {} | {} |", cell(&t.name), cell(&t.measured), t.verdict());
    }
    for r in results {
        let _ = writeln!(md, "\n### N = {}, whole life ({} steps)\n", r.case.n, r.case.steps);
        let _ = writeln!(
            md,
            "Steps: the phase's steps (windows: the window's steps, the start step and the phase's steps in our run). \
             t: from the start of the first step to the end of the last. Iterations: mean per step (ours: NSGS \
             sweeps of the step's FC3D; Siconos: NSGS iterations; MuJoCo: `solver_niter`; Rapier: its fixed \
             count). Unconv.: steps whose solver stopped above its tolerance / steps that solved a problem \
             (MuJoCo: stopped at `opt.iterations` before its tolerance). Penetration in units of r, after the \
             phase's last step and the largest after any of its steps (`PileSpec::max_penetration`).\n"
        );
        let _ = writeln!(
            md,
            "| engine | phase | steps | t [s] | ms/step | iterations | unconv. | worst error | penetration at end [r] | \
             max penetration [r] | mean height at end [m] |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
        whole_rows(&mut md, "ours, NSGS sequential", &r.ours);
        whole_rows(&mut md, "Rapier, single-threaded pipeline", &r.rapier);
        window_rows(&mut md, "Siconos 4.4 (windows)", &r.siconos);
        window_rows(&mut md, "MuJoCo (windows)", &r.mujoco);

        let whole: Vec<(&str, &WholeRun)> = [("ours", &r.ours), ("Rapier", &r.rapier)]
            .into_iter()
            .filter_map(|(l, w)| Some((l, w.as_ref().ok()?)))
            .collect();
        if !whole.is_empty() {
            let samples: Vec<f64> =
                KE_SAMPLES.iter().copied().filter(|&t| t <= r.case.steps as f64 * 1e-3 + 1e-9).collect();
            let _ = writeln!(md, "\nKinetic energy [J] after the step ending at t, and where the phases start:\n");
            let head: String = samples.iter().map(|t| format!(" t = {t} |")).collect();
            let _ = writeln!(md, "| engine | E_max |{head} settling from [s] | rest from [s] |");
            let _ = writeln!(md, "|---|---|{}---|---|", "---|".repeat(samples.len()));
            for (label, w) in &whole {
                let cells: String = samples.iter().map(|&t| format!(" {} |", sci(w.ke_at(t, 1e-3)))).collect();
                let start = |range: Range<usize>| {
                    if range.is_empty() { "–".to_owned() } else { format!("{:.3}", range.start as f64 * 1e-3) }
                };
                let _ = writeln!(
                    md,
                    "| {label} | {:.3e} |{cells} {} | {} |",
                    w.phases.e_max,
                    start(w.phases.settling.clone()),
                    start(w.phases.rest.clone())
                );
            }
            if let Some((_, o)) = whole.first().filter(|(l, _)| *l == "ours") {
                let ke: Vec<f64> = o.run.records.iter().map(|x| x.ke).collect();
                let alt = [(0.2, 1e-4), (0.05, 1e-4), (0.1, 1e-3), (0.1, 1e-5)]
                    .into_iter()
                    .filter_map(|(f, rf)| {
                        let p = phases_with(&ke, f, rf)?;
                        let cost = |range: Range<usize>| stats(&o.run.records[range]).map(|s| s.seconds_per_step);
                        Some(format!(
                            "falling {f}·E_max, rest {rf:e}·E_max: settling from {:.3} s, rest from {} s, ms/step \
                             {} / {} / {}",
                            p.falling.end as f64 * 1e-3,
                            if p.rest.is_empty() {
                                "–".to_owned()
                            } else {
                                format!("{:.3}", p.rest.start as f64 * 1e-3)
                            },
                            ms(cost(p.falling.clone())),
                            ms(cost(p.settling.clone())),
                            ms(cost(p.rest.clone()))
                        ))
                    })
                    .collect::<Vec<_>>();
                let _ = writeln!(
                    md,
                    "\nOther thresholds on our run (falling / settling / rest ms per step), to judge how sharply the \
                     definition separates the phases: {}.",
                    alt.join("; ")
                );
            }
        }
    }
    let _ = writeln!(md, "\n### What each solves (whole life)\n");
    let _ = writeln!(
        md,
        "- **ours**: as above (exact Coulomb cone, NSGS to `fc3d_compute_error` ≤ 1e-4 at every step, warm \
         started), sequential; every step counts, including those whose FC3D stopped above the tolerance."
    );
    let _ = writeln!(
        md,
        "- **Siconos 4.4** (`benches/python/siconos_pile.py`, Debian `python3-siconos`, `/usr/bin/python3 -s`): \
         its own granular pipeline as `mechanics_run` sets it up without HDF5: `RigidBodyDS` + `SiconosSphere`, \
         five static `SiconosBox` walls, Bullet contact detection (`SiconosBulletCollisionManager`, contact \
         breaking threshold r/10), `MoreauJeanOSI` θ = 0.5, `FrictionContact(3)` with NSGS on the exact cone to \
         1e-4 (warm started), `TimeStepping` with mechanics_run's Newton options. Unconv. counts steps whose \
         `dparam[RESIDU]` ended above 1e-4."
    );
    let _ = writeln!(
        md,
        "- **MuJoCo** (`benches/python/mujoco_pile.py`, pip `mujoco` in a venv under the target folder): soft \
         contacts (default solref/solimp), elliptic cone (`opt.cone = mjCONE_ELLIPTIC`), its default Newton \
         solver with its tolerance 1e-8 on the cost improvement and gradient and at most 100 iterations, five \
         planes, μ = 0.3, no restitution, h = 1e-3. It runs windows, not the whole 2 s: once the pile is \
         connected its Newton step factors the Hessian of the whole pile, seconds per step at N = 1000, too slow \
         for 2000 steps; a window stops after the first step that ends {MUJOCO_WINDOW_SECONDS} s after it began \
         (its steps column says how many it took), and a window still running after \
         {MUJOCO_WINDOW_LIMIT_SECONDS} s is stopped and shown as not measured. Unconv. counts steps that used \
         all of `opt.iterations`."
    );
    let _ = writeln!(
        md,
        "- **Rapier** (single-threaded pipeline, `rapier-pile --life`): soft contacts, its fixed 4 solver \
         iterations, no tolerance, sleeping allowed (bodies at rest cost nothing)."
    );
    let _ = writeln!(md, "\n### How to run (whole life)\n");
    let _ = writeln!(
        md,
        "- ours: `cargo run --release -p nonsmooth-benches --bin pile-life -- --n 1000 --steps 2000 --export-every 50 \
         --export-dir target/pile-life` (per-step JSON lines; state files `state_<n>_<step>.txt`)"
    );
    let _ = writeln!(
        md,
        "- Rapier: `cargo run --release -p nonsmooth-benches --features rapier --bin rapier-pile -- --n 1000 --steps \
         2000 --measure 2000 --life`"
    );
    let _ = writeln!(
        md,
        "- a Siconos window: `LD_PRELOAD=target/siconos_graph_shim.so /usr/bin/python3 -s \
         benches/python/siconos_pile.py --state target/pile-life/state_1000_300.txt --steps 10`"
    );
    let _ = writeln!(
        md,
        "- a MuJoCo window: `target/pile-venv/bin/python benches/python/mujoco_pile.py --state \
         target/pile-life/state_1000_300.txt --steps 3`"
    );
    md
}

/// `mechanics-life.csv`: one line per (N, engine, phase), empty fields for values not measured.
pub(crate) fn csv(results: &[LifeResult]) -> String {
    let mut out = String::from(
        "n,engine,mode,phase,start_step,first_step,last_step,steps,phase_steps,seconds_per_step,iterations,\
         unconverged,checked,worst_residual,penetration_end,penetration_max,mean_height_end,status\n",
    );
    let line = |out: &mut String, head: [String; 5], phase_steps: Option<usize>, s: Result<&PhaseStats, &str>| {
        let mut v: Vec<String> = head.to_vec();
        match s {
            Ok(s) => {
                v.extend([s.first_step.to_string(), s.last_step.to_string(), s.steps.to_string()]);
                v.push(phase_steps.map_or_else(String::new, |p| p.to_string()));
                v.extend([opt_f64(Some(s.seconds_per_step)), opt_f64(s.iterations)]);
                v.extend([s.unconverged.to_string(), s.checked.to_string(), opt_f64(s.worst_residual)]);
                v.extend([
                    opt_f64(Some(s.penetration_end)),
                    opt_f64(Some(s.penetration_max)),
                    opt_f64(Some(s.mean_height_end)),
                ]);
                v.push("measured".into());
            }
            Err(reason) => {
                v.extend(std::iter::repeat_n(String::new(), 12));
                v.push(csv_field(&format!("not measured: {reason}")));
            }
        }
        out.push_str(&v.join(","));
        out.push('\n');
    };
    for r in results {
        let n = r.case.n.to_string();
        for (engine, run) in [("nonsmooth", &r.ours), ("rapier3d", &r.rapier)] {
            let head = |phase: &str| [n.clone(), engine.into(), "whole".into(), phase.into(), "0".into()];
            match run {
                Ok(w) => {
                    for p in LifePhase::ALL {
                        let len = w.phases.range(p).len();
                        match w.phase(p) {
                            Some(s) => line(&mut out, head(p.name()), Some(len), Ok(&s)),
                            None => line(&mut out, head(p.name()), Some(0), Err("empty phase")),
                        }
                    }
                    if let Some(s) = w.whole() {
                        line(&mut out, head("whole"), Some(s.steps), Ok(&s));
                    }
                }
                Err(e) => line(&mut out, head("whole"), None, Err(e)),
            }
        }
        for (engine, windows) in [("siconos", &r.siconos), ("mujoco", &r.mujoco)] {
            match windows {
                Ok(ws) => {
                    for w in ws {
                        let start = w.start.as_ref().map_or_else(|_| String::new(), |s| s.to_string());
                        let head = [n.clone(), engine.into(), "window".into(), w.phase.name().into(), start];
                        let reason = w.start.as_ref().err().map(String::as_str);
                        match (&w.stats, reason) {
                            (Ok(s), _) => line(&mut out, head, Some(w.phase_steps), Ok(s)),
                            (Err(_), Some(e)) => line(&mut out, head, Some(w.phase_steps), Err(e)),
                            (Err(e), None) => line(&mut out, head, Some(w.phase_steps), Err(e)),
                        }
                    }
                }
                Err(e) => line(
                    &mut out,
                    [n.clone(), engine.into(), "window".into(), String::new(), String::new()],
                    None,
                    Err(e),
                ),
            }
        }
    }
    out
}

/// Runs `cmd` (described as `name`) and parses its records; a failure becomes the reason, and a
/// process still running after `limit` is stopped (killed) and reported so.
pub(crate) fn run_records(cmd: &mut Command, name: &str, limit: Option<Duration>) -> Result<EngineRun, String> {
    eprintln!("bench-report: {name}");
    let started = Instant::now();
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    let mut stdout = child.stdout.take().ok_or_else(|| format!("{name}: no standard output"))?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).map(|_| text)
    });
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("{name}: {e}"))? {
            break status;
        }
        if let Some(limit) = limit
            && started.elapsed() > limit
        {
            let _ = child.kill();
            let _ = child.wait();
            let _ = reader.join();
            return Err(format!("{name}: stopped after {} s without finishing", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stdout = reader
        .join()
        .map_err(|_| format!("{name}: the output reader panicked"))?
        .map_err(|e| format!("{name}: cannot read its output: {e}"))?;
    if !status.success() {
        return Err(format!("{name} failed ({status})"));
    }
    let run = parse_records(&stdout, name).map_err(|e| format!("{e:#}"))?;
    eprintln!("bench-report:   {} steps in {:.0} s", run.records.len(), started.elapsed().as_secs_f64());
    Ok(run)
}

/// Compiles the graph-check shim of Siconos into `target`; its path, or why there is none.
pub(crate) fn build_shim(root: &Path, target: &Path) -> Result<PathBuf, String> {
    let out = target.join("siconos_graph_shim.so");
    let source = root.join("benches/python/siconos_graph_shim.cpp");
    let status = Command::new("g++")
        .args(["-O2", "-shared", "-fPIC", "-I/usr/include/siconos/kernel", "-I/usr/include/siconos/numerics"])
        .args(["-I/usr/include/siconos", "-o"])
        .arg(&out)
        .arg(&source)
        .status()
        .map_err(|e| format!("cannot run g++: {e}"))?;
    if !status.success() {
        return Err(format!("g++ {} failed ({status})", source.display()));
    }
    Ok(out)
}

/// Whether Siconos' mechanics with Bullet imports under `/usr/bin/python3 -s`.
pub(crate) fn siconos_available() -> Result<(), String> {
    let output = python()
        .args(["-c", "import siconos.mechanics.collision.bullet"])
        .output()
        .map_err(|e| format!("cannot run /usr/bin/python3: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&output.stderr);
        Err(format!("import siconos failed: {}", err.lines().last().unwrap_or("").trim()))
    }
}

/// The venv of MuJoCo under `target`: created with `python3 -m venv` and `pip install mujoco
/// numpy` when it cannot import them; its python, or why there is none.
pub(crate) fn mujoco_python(target: &Path) -> Result<PathBuf, String> {
    let venv = target.join("pile-venv");
    let python = venv.join("bin/python");
    let imports =
        |p: &Path| Command::new(p).args(["-c", "import mujoco, numpy"]).output().is_ok_and(|o| o.status.success());
    if imports(&python) {
        return Ok(python);
    }
    eprintln!("bench-report: creating {} (pip install mujoco numpy)", venv.display());
    let status = Command::new("python3").arg("-m").arg("venv").arg(&venv).status();
    if !status.is_ok_and(|s| s.success()) {
        return Err("python3 -m venv failed".into());
    }
    let status = Command::new(&python).args(["-m", "pip", "install", "-q", "mujoco", "numpy"]).status();
    if !status.is_ok_and(|s| s.success()) {
        return Err("pip install mujoco numpy failed (no network or no package index?)".into());
    }
    if imports(&python) { Ok(python) } else { Err("import mujoco failed after pip install".into()) }
}

/// What the whole-life runs need: the binaries, the Python of each engine (or why not), the shim.
pub(crate) struct LifeTools {
    pub(crate) pile_life: PathBuf,
    pub(crate) rapier: Result<PathBuf, String>,
    pub(crate) siconos: Result<(), String>,
    pub(crate) shim: Result<PathBuf, String>,
    pub(crate) mujoco: Result<PathBuf, String>,
    pub(crate) scripts: PathBuf,
    pub(crate) states: PathBuf,
}

/// Runs the windows of one engine from our states.
fn windows(
    case: LifeCase,
    ours: &WholeRun,
    states: &Path,
    engine: &str,
    steps: usize,
    limit: Option<Duration>,
    command: &dyn Fn(&Path) -> Command,
) -> Vec<Window> {
    LifePhase::ALL
        .into_iter()
        .map(|phase| {
            let range = ours.phases.range(phase);
            let phase_steps = range.len();
            let start = if range.is_empty() {
                Err("empty phase".to_owned())
            } else {
                let (first, last) = (ours.run.records[range.start].step, ours.run.records[range.end - 1].step);
                window_start(first, last, case.export_every)
                    .ok_or_else(|| format!("no exported state in steps {}–{}", first - 1, last - 1))
            };
            let stats = start.clone().and_then(|s| {
                let file = states.join(format!("state_{}_{s}.txt", case.n));
                let mut cmd = command(&file);
                cmd.args(["--steps", &steps.to_string()]);
                let run = run_records(
                    &mut cmd,
                    &format!("{engine} window n = {} from step {s}, {steps} steps", case.n),
                    limit,
                )?;
                stats(&run.records).ok_or_else(|| "no step".to_owned())
            });
            if let Err(e) = &stats {
                eprintln!("bench-report:   {engine} {} window not measured: {e}", phase.name());
            }
            Window { phase, phase_steps, start, stats }
        })
        .collect()
}

/// Runs one whole-life case.
pub(crate) fn run_case(case: LifeCase, tools: &LifeTools) -> LifeResult {
    let states = tools.states.join(case.n.to_string());
    let ours = std::fs::create_dir_all(&states)
        .map_err(|e| format!("cannot create {}: {e}", states.display()))
        .and_then(|()| {
            let mut cmd = Command::new(&tools.pile_life);
            cmd.args(["--n", &case.n.to_string(), "--steps", &case.steps.to_string()])
                .args(["--export-every", &case.export_every.to_string()])
                .arg("--export-dir")
                .arg(&states);
            run_records(&mut cmd, &format!("pile-life --n {} --steps {}", case.n, case.steps), None)
        })
        .and_then(|run| WholeRun::new(run, "pile-life"));
    let rapier = tools.rapier.clone().and_then(|bin| {
        let (n, s) = (case.n.to_string(), case.steps.to_string());
        let mut cmd = Command::new(bin);
        cmd.args(["--n", &n, "--steps", &s, "--measure", &s, "--life"]);
        run_records(&mut cmd, &format!("rapier-pile-1thread --n {n} --steps {s} --life"), None)
            .and_then(|run| WholeRun::new(run, "rapier-pile"))
    });
    let scripts = &tools.scripts;
    let siconos = match (&ours, &tools.siconos) {
        (Err(e), _) => Err(format!("ours not measured: {e}")),
        (_, Err(e)) => Err(e.clone()),
        (Ok(o), Ok(())) => Ok(windows(case, o, &states, "siconos", case.siconos_window, None, &|state| {
            let mut cmd = python();
            cmd.arg(scripts.join("siconos_pile.py")).arg("--state").arg(state);
            if let Ok(shim) = &tools.shim {
                cmd.env("LD_PRELOAD", shim);
            }
            cmd
        })),
    };
    let mujoco_limit = Duration::from_secs(MUJOCO_WINDOW_LIMIT_SECONDS);
    let mujoco = match (&ours, &tools.mujoco) {
        (Err(e), _) => Err(format!("ours not measured: {e}")),
        (_, Err(e)) => Err(e.clone()),
        (Ok(o), Ok(python)) => {
            Ok(windows(case, o, &states, "mujoco", case.mujoco_window, Some(mujoco_limit), &|state| {
                let mut cmd = Command::new(python);
                cmd.arg(scripts.join("mujoco_pile.py")).arg("--state").arg(state);
                cmd.args(["--max-seconds", &MUJOCO_WINDOW_SECONDS.to_string()]);
                cmd
            }))
        }
    };
    LifeResult { case, ours, rapier, siconos, mujoco }
}
