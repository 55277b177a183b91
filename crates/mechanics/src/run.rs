//! Running a scene to its final time with outputs ([`run_scene`]): the steps of the Moreau–Jean
//! time-stepping (Acary & Brogliato, *Numerical Methods for Nonsmooth Dynamical Systems*,
//! Springer 2008, ch. 10; Siconos' `TimeStepping::run`), a ParaView series
//! ([`VtkSeries`]) and an HDF5 run record ([`RunRecord`]) every `K` steps, a progress callback
//! after each step, and a summary: steps, unconverged steps with the worst error, wall time by
//! phase.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use nonsmooth_kernel::simulation::RunSummary;
use thiserror::Error;

use crate::MechanicsError;
use crate::output::CsvWriter;
use crate::output::record::{PhaseTimes, RecordQuantities, RunRecord};
use crate::output::vtk::VtkSeries;
use crate::scene::Scene;

/// What [`run_scene`] writes and how far it goes.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// The folder of the ParaView series (created when missing); `None`: no series.
    pub vtk_dir: Option<PathBuf>,
    /// The stem of the series' files: `NAME.pvd` and `NAME_*.vtp`.
    pub vtk_name: String,
    /// The HDF5 run record (its folder is created when missing); `None`: no record.
    pub record: Option<PathBuf>,
    /// The CSV of the body states ([`CsvWriter`], at the same steps as the record); `None`: no
    /// CSV.
    pub csv: Option<PathBuf>,
    /// Steps between outputs, at least 1; the last step of the run is always written, and
    /// the series also holds the initial state.
    pub every: usize,
    /// At most this many steps (`None`: up to the scene's final time).
    pub max_steps: Option<usize>,
    /// What the record holds (default: everything).
    pub quantities: RecordQuantities,
}

impl Default for RunSettings {
    /// No output files, every step, up to the final time, the series named `run`.
    fn default() -> Self {
        Self {
            vtk_dir: None,
            vtk_name: "run".to_owned(),
            record: None,
            csv: None,
            every: 1,
            max_steps: None,
            quantities: RecordQuantities::default(),
        }
    }
}

/// Where a run is, given to the progress callback after each step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunProgress {
    /// Steps done by this run.
    pub step: usize,
    /// Steps this run will do when nothing stops it.
    pub steps: usize,
    /// The scene's time after the step.
    pub time: f64,
    /// Contacts of the step.
    pub contacts: usize,
    /// Whether the step converged.
    pub converged: bool,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunReport {
    /// Steps done by this run.
    pub steps: usize,
    /// The scene's convergence summary (unconverged steps, worst error with its step and time).
    pub convergence: RunSummary,
    /// Wall time by phase over the run (detection, assembly, solve, update, output).
    pub times: PhaseTimes,
    /// Wall time of the whole run.
    pub wall: Duration,
    /// The HDF5 record written, if any.
    pub record: Option<PathBuf>,
    /// The ParaView collection written, if any.
    pub vtk: Option<PathBuf>,
    /// Records written to the HDF5 file.
    pub records: usize,
    /// Frames written to the ParaView series.
    pub frames: usize,
}

/// A run that stopped on an error: the error (the scene's own, such as
/// [`MechanicsError::NonFiniteBody`], or an output's [`MechanicsError::Io`]) and what the run
/// did before it. The record holds the steps recorded before the error.
#[derive(Debug, Error)]
#[error("the run stopped after {} steps: {error}", report.steps)]
pub struct RunFailure {
    /// The error.
    #[source]
    pub error: MechanicsError,
    /// The run up to the error (boxed: the error stays small).
    pub report: Box<RunReport>,
}

/// Steps from the scene's current time to its final time: the `k` with `t_k ≤ t_end`.
pub fn remaining_steps(scene: &Scene) -> usize {
    let grid = scene.simulation().time_discretisation();
    let done = scene.steps_done();
    let mut n = ((grid.t_end() - grid.t0()) / grid.h()).floor().max(0.0) as usize;
    while n > 0 && grid.time(n) > grid.t_end() {
        n -= 1;
    }
    while grid.time(n + 1) <= grid.t_end() {
        n += 1;
    }
    n.saturating_sub(done)
}

/// Runs `scene` up to its final time (or [`RunSettings::max_steps`]), writing the outputs of
/// `settings` and calling `progress` after each step.
///
/// # Errors
/// [`RunFailure`] with [`MechanicsError::Kernel`] for `every = 0` or an invalid series name,
/// [`MechanicsError::Io`] when an output cannot be written, and the scene's step errors (a
/// diverged state, a step that did not converge under a failing policy). The outputs written
/// before the error stay (the record is written with the steps done).
pub fn run_scene(
    scene: &mut Scene,
    settings: &RunSettings,
    progress: &mut impl FnMut(&RunProgress),
) -> Result<RunReport, RunFailure> {
    let started = Instant::now();
    let mut report = RunReport::default();
    let fail = |error: MechanicsError, mut report: RunReport| {
        report.wall = started.elapsed();
        RunFailure { error, report: Box::new(report) }
    };
    if settings.every == 0 {
        let e = nonsmooth_kernel::KernelError::InvalidOption { name: "every", reason: "must be at least 1" };
        return Err(fail(e.into(), report));
    }
    let mut outputs = match Outputs::open(scene, settings) {
        Ok(o) => o,
        Err(e) => return Err(fail(e, report)),
    };
    report.record = outputs.record.as_ref().map(|r| r.path().to_path_buf());
    report.vtk = outputs.vtk.as_ref().map(VtkSeries::collection_path);
    let steps = settings.max_steps.map_or(remaining_steps(scene), |m| m.min(remaining_steps(scene)));
    let mut span = PhaseTimes::default();
    let mut result = Ok(());
    if let Some(vtk) = outputs.vtk.as_mut() {
        let t = Instant::now();
        result = vtk.write_frame(scene);
        span.output += t.elapsed();
    }
    while result.is_ok() && report.steps < steps && scene.has_next_step() {
        let r = match scene.step() {
            Ok(r) => r,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        report.steps += 1;
        span.add_step(&r);
        let last = report.steps == steps || !scene.has_next_step();
        if report.steps % settings.every == 0 || last {
            let t = Instant::now();
            if let Some(vtk) = outputs.vtk.as_mut() {
                result = vtk.write_frame(scene);
            }
            if let (Ok(()), Some(csv)) = (&result, outputs.csv.as_mut()) {
                result = csv.write_frame(report.steps, scene.time(), &scene.frames());
            }
            span.output += t.elapsed();
            if let (Ok(()), Some(record)) = (&result, outputs.record.as_mut()) {
                let t = Instant::now();
                result = record.push(scene, &r, &span);
                span.output += t.elapsed();
            }
            report.times.add(&span);
            span = PhaseTimes::default();
        }
        progress(&RunProgress {
            step: report.steps,
            steps,
            time: scene.time(),
            contacts: r.contacts,
            converged: r.converged(),
        });
    }
    report.times.add(&span);
    // The record is written whole at the end, also after an error (the steps before it).
    if let Some(record) = outputs.record.as_ref() {
        let t = Instant::now();
        let written = record.write();
        report.times.output += t.elapsed();
        report.records = record.len();
        if result.is_ok() {
            result = written;
        }
    }
    if let Some(csv) = outputs.csv.take() {
        let t = Instant::now();
        let flushed = csv.finish();
        report.times.output += t.elapsed();
        if result.is_ok() {
            result = flushed;
        }
    }
    report.frames = outputs.vtk.as_ref().map_or(0, VtkSeries::frames);
    report.convergence = scene.run_summary();
    report.wall = started.elapsed();
    match result {
        Ok(()) => Ok(report),
        Err(error) => Err(RunFailure { error, report: Box::new(report) }),
    }
}

/// The output writers of a run.
struct Outputs {
    vtk: Option<VtkSeries>,
    record: Option<RunRecord>,
    csv: Option<CsvWriter>,
}

impl Outputs {
    fn open(scene: &Scene, settings: &RunSettings) -> Result<Self, MechanicsError> {
        let mkdir = |dir: &std::path::Path| {
            std::fs::create_dir_all(dir).map_err(|e| MechanicsError::Io { path: dir.to_path_buf(), source: e })
        };
        let vtk = match settings.vtk_dir.as_ref() {
            Some(dir) => {
                mkdir(dir)?;
                Some(VtkSeries::create(dir, &settings.vtk_name)?)
            }
            None => None,
        };
        let record = match settings.record.as_ref() {
            Some(path) => {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    mkdir(parent)?;
                }
                Some(RunRecord::create_with(path, scene, settings.every, settings.quantities)?)
            }
            None => None,
        };
        let csv = match settings.csv.as_ref() {
            Some(path) => {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    mkdir(parent)?;
                }
                Some(CsvWriter::create(path)?)
            }
            None => None,
        };
        Ok(Self { vtk, record, csv })
    }
}
