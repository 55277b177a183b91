//! Spheres poured into a box: the main example of nonsmooth.
//!
//! `cargo run --release --example pour_spheres -- [--n N] [--time T] [--out DIR] [--every K]
//! [--on-nonconvergence POLICY]`
//!
//! A column of N spheres (default 400) falls into a box, hits the floor, spreads and settles
//! into a heap: Moreau–Jean time-stepping of Newton–Euler bodies with contact detection, 3D
//! Coulomb friction and Newton impacts, the one-step problem solved by nonsmooth Gauss–Seidel.
//! A progress bar runs on standard error. In DIR (default `pour_spheres_output`) it writes:
//! `pour_spheres.pvd` (open it in ParaView: bodies, walls and contacts in time), `history.csv`
//! (per step: time, kinetic energy, heights, contacts, sweeps, convergence, penetration, the
//! solver's residual), and
//! `history.svg` (a plot of these quantities); it prints what it computed, where the files
//! are and, last, the run summary (steps above the solver's tolerance, the worst error).

use std::io::Write as _;
use std::time::Instant;

use anyhow::Context as _;
use clap::Parser as _;
use indicatif::{ProgressBar, ProgressStyle};
use nonsmooth::mechanics::output::vtk::VtkSeries;
use nonsmooth_examples::cli::mechanics::PourSpheresArgs;
use nonsmooth_examples::mechanics::pour::{Pour, PourSample};
use plotters::prelude::*;

fn main() -> anyhow::Result<()> {
    let args = PourSpheresArgs::parse();
    let pour = Pour {
        n: args.n as usize,
        t_end: args.time,
        on_nonconvergence: args.on_nonconvergence.scene(),
        ..Pour::default()
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("--out {}: cannot create the folder", args.out.display()))?;
    let mut series = VtkSeries::create(&args.out, "pour_spheres")?;
    let csv_path = args.out.join("history.csv");
    let svg_path = args.out.join("history.svg");
    let mut csv = std::fs::File::create(&csv_path).with_context(|| format!("cannot write {}", csv_path.display()))?;

    let mut scene = pour.build()?;
    let steps = (pour.t_end / pour.h).round() as u64;
    let bar = ProgressBar::new(steps).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps, t = {msg} [{elapsed} elapsed, {eta} left]")
            .expect("a valid template"),
    );
    let started = Instant::now();
    series.write_frame(&scene)?;
    let mut samples: Vec<PourSample> = Vec::with_capacity(steps as usize);
    let mut k = 0;
    while scene.has_next_step() {
        let report = match scene.step() {
            Ok(report) => report,
            Err(error) => {
                // The steps done before the one that stopped the run, then the error.
                println!("{}", scene.run_summary());
                return Err(error.into());
            }
        };
        samples.push(pour.sample(&scene, &report)?);
        k += 1;
        if k % args.every == 0 {
            series.write_frame(&scene)?;
        }
        bar.set_message(format!("{:.3} s, {} contacts", scene.time(), report.contacts));
        bar.inc(1);
    }
    bar.finish();
    let wall = started.elapsed().as_secs_f64();
    write_history(&mut csv, &samples)?;
    plot_history(&svg_path, &samples, &pour)?;

    let last = samples.last().context("the run made no step")?;
    let sweeps = samples.iter().map(|s| s.sweeps).sum::<usize>() as f64 / samples.len() as f64;
    let deepest = samples.iter().map(|s| s.penetration).fold(0.0, f64::max);
    println!(
        "{} spheres poured into a {:.2} m box: {} steps of {} ms in {wall:.1} s ({:.2} ms per step)",
        pour.n,
        pour.box_side(),
        samples.len(),
        1e3 * pour.h,
        1e3 * wall / samples.len() as f64
    );
    println!(
        "at t = {:.2} s: kinetic energy {:.3e} J (started at 0, peak {:.3e} J), {} contacts, heap mean height {:.3} m, top {:.3} m",
        last.t,
        last.kinetic_energy,
        samples.iter().map(|s| s.kinetic_energy).fold(0.0, f64::max),
        last.contacts,
        last.mean_height,
        last.top
    );
    println!(
        "solver: {sweeps:.1} NSGS sweeps per step; deepest penetration {:.2e} m ({:.1}% of the radius)",
        deepest,
        100.0 * deepest / pour.radius
    );
    println!("ParaView: {} ({} frames)", series.collection_path().display(), series.frames());
    println!("history: {} and {}", csv_path.display(), svg_path.display());
    println!("{}", scene.run_summary());
    Ok(())
}

/// Writes the per-step history as CSV with a header naming the columns.
fn write_history(out: &mut impl std::io::Write, samples: &[PourSample]) -> anyhow::Result<()> {
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "t,kinetic_energy,mean_height,top,contacts,sweeps,converged,penetration,residual")?;
    for s in samples {
        writeln!(
            w,
            "{:?},{:?},{:?},{:?},{},{},{},{:?},{:?}",
            s.t,
            s.kinetic_energy,
            s.mean_height,
            s.top,
            s.contacts,
            s.sweeps,
            u8::from(s.converged),
            s.penetration,
            s.residual
        )?;
    }
    w.flush()?;
    Ok(())
}

/// A curve of a panel: its legend, its colour and the quantity it draws.
type Curve<'a> = (&'a str, RGBColor, &'a dyn Fn(&PourSample) -> f64);

/// Plots the history in four panels: kinetic energy (logarithmic axis), heights of the centres,
/// contacts, solver sweeps per step.
fn plot_history(path: &std::path::Path, samples: &[PourSample], pour: &Pour) -> anyhow::Result<()> {
    let root = SVGBackend::new(path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(&format!("{} spheres poured into a box", pour.n), ("sans-serif", 24))?;
    let panels = root.split_evenly((2, 2));
    let t_end = samples.last().map_or(pour.t_end, |s| s.t);

    let positive = samples.iter().map(|s| s.kinetic_energy).filter(|e| *e > 0.0);
    let e_max = positive.clone().fold(f64::MIN_POSITIVE, f64::max);
    let e_min = positive.fold(e_max, f64::min).max(e_max * 1e-12);
    let mut chart = ChartBuilder::on(&panels[0])
        .caption("kinetic energy", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..t_end, (0.5 * e_min..2.0 * e_max).log_scale())?;
    chart.configure_mesh().x_desc("t (s)").y_desc("J").y_label_formatter(&|v| format!("{v:.0e}")).draw()?;
    chart.draw_series(LineSeries::new(
        samples.iter().filter(|s| s.kinetic_energy > 0.0).map(|s| (s.t, s.kinetic_energy)),
        RED.stroke_width(2),
    ))?;

    let linear = |area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
                  title: &str,
                  y_label: &str,
                  curves: &[Curve]|
     -> anyhow::Result<()> {
        let y_max = curves.iter().flat_map(|(_, _, f)| samples.iter().map(f)).fold(0.0_f64, f64::max);
        let y_max = if y_max > 0.0 { 1.05 * y_max } else { 1.0 };
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..t_end, 0.0..y_max)?;
        let digits = if y_max >= 10.0 { 0 } else { 2 };
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .y_desc(y_label)
            .y_label_formatter(&|v| format!("{v:.digits$}"))
            .draw()?;
        for &(name, color, f) in curves {
            chart
                .draw_series(LineSeries::new(samples.iter().map(|s| (s.t, f(s))), color.stroke_width(2)))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        if curves.len() > 1 {
            chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
        }
        Ok(())
    };
    linear(
        &panels[1],
        "heights of the centres",
        "m",
        &[("mean", BLUE, &|s| s.mean_height), ("top", GREEN, &|s| s.top)],
    )?;
    linear(&panels[2], "contacts", "count", &[("contacts", MAGENTA, &|s| s.contacts as f64)])?;
    linear(&panels[3], "NSGS sweeps per step", "sweeps", &[("sweeps", BLACK, &|s| s.sweeps as f64)])?;
    root.present()?;
    Ok(())
}
