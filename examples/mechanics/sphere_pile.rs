//! The sphere pile: N spheres dropped into a box (`nonsmooth::mechanics::pile::SpherePile`).
//!
//! `cargo run --release --example sphere_pile -- [--n N] [--steps S] [--parallel] [--vtk DIR
//! [--every K]] [--csv FILE] [--on-nonconvergence POLICY]` (`--help` for the details):
//! N = 1000 and S = 1000 (1 s) by default; a progress bar on standard error; at the end the
//! mean per-step time split into detection, assembly, solve and update, and the run summary
//! (steps above the solver's tolerance, the worst error). `--vtk DIR` writes a ParaView time series
//! (`DIR/sphere_pile.pvd`: body surfaces, centres, contacts with their forces, the ground and
//! walls) of the initial state and of every K-th step (K = 20 by default: 50 frames per
//! second of simulated time); `--csv FILE` writes the positions and orientations every 10
//! steps, under a header line naming the columns.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use clap::Parser;
use nonsmooth::mechanics::output::CsvWriter;
use nonsmooth::mechanics::output::vtk::VtkSeries;
use nonsmooth::mechanics::scene::SceneNonConvergence;
use nonsmooth_examples::cli::{
    ON_NONCONVERGENCE_HELP, ON_NONCONVERGENCE_SHORT, OnNonConvergence, on_nonconvergence as policy,
};
use nonsmooth_examples::mechanics::sphere_pile::{PhaseTimes, build_with};

/// Rigid spheres (radius 5 cm, 1000 kg/m³) dropped from a jittered cubic lattice into a square
/// box (ground and four walls), with Coulomb friction μ = 0.3 and no restitution: Newton–Euler
/// bodies integrated by Moreau–Jean (θ = 1/2, h = 1 ms), contacts detected before every step,
/// each step's frictional contact problem (FC3D) solved by NSGS to 1e-4.
///
/// Prints the mean time per step split into detection, assembly, solve and update, the mean
/// number of contacts and NSGS sweeps per step, the mean height of the spheres at the end and
/// the solver's summary (steps above the tolerance, the worst error).
#[derive(Debug, Parser)]
#[command(name = "sphere_pile", about, long_about)]
struct Args {
    /// Number of spheres.
    #[arg(long, default_value_t = 1000)]
    n: usize,
    /// Number of time steps (h = 1 ms).
    #[arg(long, default_value_t = 1000)]
    steps: usize,
    /// Sweep the contacts in two halves on two threads (NSGS halves schedule).
    #[arg(long)]
    parallel: bool,
    /// Write a ParaView time series into DIR (created if missing; checked before the run):
    /// open DIR/sphere_pile.pvd, or DIR/sphere_pile_{bodies,centres,contacts}.pvd one by one.
    #[arg(long, value_name = "DIR")]
    vtk: Option<PathBuf>,
    /// Steps between two frames of the VTK series (the initial state and the last step are
    /// written too).
    #[arg(long, value_name = "K", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    every: u64,
    /// Write the positions, orientations and velocities of the spheres every 10 steps to FILE
    /// (CSV; the first line names the columns).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// What a step above the NSGS tolerance does.
    #[arg(
        long,
        value_name = "POLICY",
        value_parser = policy,
        default_value_t = OnNonConvergence::FailAbove { factor: SceneNonConvergence::DEFAULT_FACTOR },
        help = ON_NONCONVERGENCE_SHORT,
        long_help = ON_NONCONVERGENCE_HELP,
    )]
    on_nonconvergence: OnNonConvergence,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let (n, steps, parallel) = (args.n, args.steps, args.parallel);
    let every = usize::try_from(args.every)?;
    let h = 1e-3;
    let mut scene = build_with(n, h * steps as f64 + 0.5 * h, parallel, args.on_nonconvergence.scene())?;
    // The outputs are checked before the run.
    let mut series = match &args.vtk {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let mut series = VtkSeries::create(dir, "sphere_pile")?;
            series.write_frame(&scene)?;
            Some(series)
        }
        None => None,
    };
    let mut csv = args.csv.as_ref().map(CsvWriter::create).transpose()?;
    let mut times = PhaseTimes::default();
    let started = Instant::now();
    let mut k = 0;
    while scene.has_next_step() && k < steps {
        let report = match scene.step() {
            Ok(report) => report,
            Err(error) => {
                // The steps done before the one that stopped the run, then the error.
                println!("{}", scene.run_summary());
                return Err(error.into());
            }
        };
        times.add(&report);
        k += 1;
        if let Some(w) = csv.as_mut()
            && k % 10 == 0
        {
            w.write_frame(k, scene.time(), &scene.frames())?;
        }
        if let Some(s) = series.as_mut()
            && (k % every == 0 || k == steps)
        {
            s.write_frame(&scene)?;
        }
        if k % 10 == 0 || k == steps {
            let width = 30;
            let done = width * k / steps;
            let elapsed = started.elapsed().as_secs_f64();
            eprint!(
                "\r[{}{}] {k}/{steps} t = {:.3} s, {} contacts, {:.1} ms/step, {:.0} s left ",
                "#".repeat(done),
                " ".repeat(width - done),
                scene.time(),
                report.contacts,
                1e3 * elapsed / k as f64,
                elapsed / k as f64 * (steps - k) as f64
            );
            std::io::stderr().flush()?;
        }
    }
    eprintln!();
    if let Some(w) = csv {
        w.finish()?;
    }
    if let Some(s) = &series {
        println!("VTK series: {} ({} frames)", s.collection_path().display(), s.frames());
    }
    let frames = scene.frames();
    let mean_z = frames.iter().map(|f| f.position[2]).sum::<f64>() / frames.len() as f64;
    println!(
        "{n} spheres, {} steps ({}), {:.2} contacts per step, mean height {mean_z:.4} m",
        times.steps,
        if parallel { "NSGS parallel" } else { "NSGS sequential" },
        times.contacts as f64 / times.steps.max(1) as f64
    );
    println!(
        "per step: total {:.3} ms = detection {:.3} + assembly {:.3} + solve {:.3} + update {:.3} ms; {:.1} NSGS sweeps per step",
        1e3 * times.per_step(),
        1e3 * times.mean(times.detection),
        1e3 * times.mean(times.assembly),
        1e3 * times.mean(times.solve),
        1e3 * times.mean(times.update),
        times.sweeps as f64 / times.steps.max(1) as f64,
    );
    println!("{}", scene.run_summary());
    Ok(())
}
