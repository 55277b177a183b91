//! `nonsmooth run SCENE`: run a scene to its final time with a progress bar, write its outputs
//! (the ParaView series and the HDF5 run record, see `nonsmooth::mechanics::output::record`)
//! and print a summary: steps, convergence (unconverged steps, worst error), wall time by phase.
//!
//! Exit codes: 0 the run reached its end (and, under a failing non-convergence policy, every
//! step converged); 1 the scene stopped on an error of its own (a step that did not converge
//! under a failing policy, a diverged state) or steps ended unconverged under a failing policy;
//! 2 bad input (an unreadable scene, an invalid option, an unwritable output).

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::run::{RunFailure, RunReport, RunSettings, run_scene};
use nonsmooth::mechanics::scene::Scene;
use nonsmooth::mechanics::scene_file::SceneFile;

use crate::{EXIT_NOT_CONVERGED, EXIT_OK, Outcome, RunArgs};

/// A scene ready to run, with the run settings its file gives.
pub(crate) struct Loaded {
    /// The scene.
    pub(crate) scene: Scene,
    /// The outputs and the output period.
    pub(crate) settings: RunSettings,
    /// Whether steps that end above the tolerance make the run fail (the scene's policy is not
    /// "continue").
    pub(crate) failing_policy: bool,
}

/// Reads the scene file of `args` and maps its `[output]` section onto the run's settings.
///
/// Output paths are relative to `--out DIR` when given, else to the scene file's folder. The
/// record goes to the file's `record` (default `STEM.h5`, STEM the scene file's stem); the
/// ParaView series (files `STEM.pvd`, `STEM_*.vtp`) to the file's `vtk` folder, or to `DIR`
/// itself when the file names none and `--out` is given; the CSV of the body states to the
/// file's `csv`, if any. `--every` replaces the file's `every`.
fn load(args: &RunArgs) -> Result<Loaded, String> {
    let file = SceneFile::from_path(&args.scene).map_err(|e| e.to_string())?;
    let scene = file.build().map_err(|e| e.to_string())?;
    let stem = args.scene.file_stem().and_then(|s| s.to_str()).unwrap_or("run").to_owned();
    let base = match &args.out {
        Some(dir) => dir.clone(),
        None => args.scene.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    let output = &file.output;
    let record = base.join(output.record.clone().unwrap_or_else(|| format!("{stem}.h5")));
    let vtk_dir = match (&output.vtk, &args.out) {
        (Some(dir), _) => Some(base.join(dir)),
        (None, Some(dir)) => Some(dir.clone()),
        (None, None) => None,
    };
    let settings = RunSettings {
        vtk_dir,
        vtk_name: stem,
        record: Some(record),
        csv: output.csv.as_ref().map(|c| base.join(c)),
        every: args.every.unwrap_or(output.every),
        max_steps: None,
        quantities: output.record_quantities(),
    };
    let failing_policy = file.solver.on_nonconvergence.as_deref() != Some("continue");
    Ok(Loaded { scene, settings, failing_policy })
}

/// Runs `nonsmooth run SCENE`.
pub(crate) fn run(args: &RunArgs, out: &mut dyn Write) -> Outcome {
    let loaded = match load(args) {
        Ok(l) => l,
        Err(message) => return Outcome::BadInput(message),
    };
    let progress = !args.no_progress && std::io::stderr().is_terminal();
    run_loaded(loaded, progress, out)
}

/// Runs a loaded scene with its settings, a progress bar on standard error when `progress`.
pub(crate) fn run_loaded(mut loaded: Loaded, progress: bool, out: &mut dyn Write) -> Outcome {
    let bar = if progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        // The template is a constant known to parse; fall back to the default style otherwise.
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} steps, t = {msg} [{elapsed_precise} < {eta}]")
        {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let result = run_scene(&mut loaded.scene, &loaded.settings, &mut |p| {
        if bar.length().is_none() {
            bar.set_length(p.steps as u64);
        }
        bar.set_position(p.step as u64);
        bar.set_message(format!("{:.4} s", p.time));
    });
    bar.finish_and_clear();
    let (report, error) = match result {
        Ok(report) => (report, None),
        Err(RunFailure { error, report }) => (*report, Some(error)),
    };
    let code = match &error {
        None if loaded.failing_policy && !report.convergence.all_converged() => EXIT_NOT_CONVERGED,
        None => EXIT_OK,
        Some(MechanicsError::Io { .. }) if report.steps == 0 => {
            return Outcome::BadInput(error.map_or_else(String::new, |e| e.to_string()));
        }
        Some(MechanicsError::Kernel(k)) if report.steps == 0 && is_option_error(k) => {
            return Outcome::BadInput(k.to_string());
        }
        Some(_) => EXIT_NOT_CONVERGED,
    };
    Outcome::printed(print_summary(out, &loaded.scene, &report, error.as_ref()), code)
}

/// Whether the kernel error is a refused option (bad input rather than a failed run).
fn is_option_error(e: &nonsmooth::kernel::KernelError) -> bool {
    matches!(e, nonsmooth::kernel::KernelError::InvalidOption { .. })
}

/// Seconds in a readable unit.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 { format!("{s:.3} s") } else { format!("{:.3} ms", s * 1e3) }
}

/// Prints the summary of a run.
fn print_summary(
    out: &mut dyn Write,
    scene: &Scene,
    report: &RunReport,
    error: Option<&MechanicsError>,
) -> std::io::Result<()> {
    writeln!(out, "steps: {} (t = {} s, h = {} s)", report.steps, scene.time(), scene.time_step())?;
    writeln!(out, "convergence: {}", report.convergence)?;
    let t = &report.times;
    let per = |d: Duration| d.as_secs_f64() * 1e6 / report.steps.max(1) as f64;
    writeln!(out, "wall time: {} in total", seconds(report.wall))?;
    for (name, d) in [
        ("detection", t.detection),
        ("assembly", t.assembly),
        ("solve", t.solve),
        ("update", t.update),
        ("output", t.output),
    ] {
        writeln!(out, "  {name:<10} {:>12}  ({:.1} µs/step)", seconds(d), per(d))?;
    }
    if let Some(path) = &report.record {
        writeln!(out, "record: {} ({} steps)", path.display(), report.records)?;
    }
    if let Some(path) = &report.vtk {
        writeln!(out, "paraview: {} ({} frames)", path.display(), report.frames)?;
    }
    if let Some(e) = error {
        writeln!(out, "stopped: {e}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nonsmooth::mechanics::geometry::Shape;
    use nonsmooth::mechanics::scene::{BodySpec, Material, SceneBuilder};

    /// A sphere thrown at the ground at `velocity` (0: dropped from 5 mm), `h = 1e-3`, 20 steps.
    fn loaded(velocity: f64, failing_policy: bool) -> Loaded {
        let mut b = SceneBuilder::new().with_time_step(1e-3).with_final_time(0.02);
        b.add_ground(0.0, Material::new(0.5, 0.0).expect("material")).expect("ground");
        let sphere = BodySpec::new(Shape::sphere(0.1).expect("sphere"), 1000.0).expect("body");
        b.add_body(sphere.with_position([1.0, 0.0, 0.105]).with_velocity([0.0, 0.0, -velocity]));
        Loaded { scene: b.build().expect("scene"), settings: RunSettings::default(), failing_policy }
    }

    #[test]
    fn a_run_prints_its_summary_and_writes_its_outputs() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let mut text = Vec::new();
        let mut l = loaded(0.0, true);
        l.settings.vtk_dir = Some(dir.path().to_path_buf());
        l.settings.record = Some(dir.path().join("run.h5"));
        l.settings.every = 5;
        let outcome = run_loaded(l, false, &mut text);
        assert!(matches!(outcome, Outcome::Done(EXIT_OK)), "{outcome:?}");
        let text = String::from_utf8(text).expect("UTF-8");
        assert!(text.starts_with("steps: 20 (t = 0.02"), "{text}");
        assert!(text.contains("convergence: 20 steps"), "{text}");
        assert!(text.contains("record: ") && text.contains("(4 steps)"), "{text}");
        assert!(text.contains("(5 frames)"), "{text}");
        assert!(dir.path().join("run.h5").is_file() && dir.path().join("run.pvd").is_file());
    }

    #[test]
    fn a_diverged_scene_exits_1_and_an_unwritable_output_is_bad_input() {
        let mut text = Vec::new();
        let outcome = run_loaded(loaded(1e308, true), false, &mut text);
        assert!(matches!(outcome, Outcome::Done(EXIT_NOT_CONVERGED)), "{outcome:?}");
        assert!(String::from_utf8(text).expect("UTF-8").contains("stopped: body 0"));
        let dir = tempfile::tempdir().expect("temporary folder");
        let file = dir.path().join("f");
        std::fs::write(&file, "x").expect("file");
        let mut l = loaded(0.0, true);
        l.settings.record = Some(file.join("out/run.h5"));
        let outcome = run_loaded(l, false, &mut Vec::new());
        assert!(matches!(outcome, Outcome::BadInput(_)), "{outcome:?}");
    }
}
