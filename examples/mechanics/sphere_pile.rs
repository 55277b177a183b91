//! The sphere pile: N spheres dropped into a box (`nonsmooth::mechanics::pile::SpherePile`).
//!
//! `cargo run --release --example sphere_pile -- [--n N] [--steps S] [--parallel] [--vtk DIR]
//! [--csv FILE]`: N = 1000 and S = 1000 (1 s) by default; a progress bar on standard error; at
//! the end the mean per-step time split into detection, assembly, solve and update, and, with
//! `--vtk DIR`, the final frame `DIR/sphere_pile.vtp` (open it in ParaView, Glyph filter with
//! the `radius` array); `--csv FILE` writes positions and orientations every 10 steps.

use std::io::Write as _;
use std::time::Instant;

use nonsmooth::mechanics::output::{CsvWriter, write_vtp};
use nonsmooth_examples::mechanics::sphere_pile::{PhaseTimes, build};

fn main() -> anyhow::Result<()> {
    let n: usize = nonsmooth_examples::option_value("--n")?.map_or(Ok(1000), |v| v.parse())?;
    let steps: usize = nonsmooth_examples::option_value("--steps")?.map_or(Ok(1000), |v| v.parse())?;
    let parallel = std::env::args().any(|a| a == "--parallel");
    let vtk = nonsmooth_examples::option_value("--vtk")?;
    let csv = nonsmooth_examples::option_value("--csv")?;
    let h = 1e-3;
    let mut scene = build(n, h * steps as f64 + 0.5 * h, parallel)?;
    let mut csv = csv.map(CsvWriter::create).transpose()?;
    let mut times = PhaseTimes::default();
    let started = Instant::now();
    let mut k = 0;
    while scene.has_next_step() && k < steps {
        let report = scene.step()?;
        times.add(&report);
        k += 1;
        if let Some(w) = csv.as_mut()
            && k % 10 == 0
        {
            w.write_frame(k, scene.time(), &scene.frames())?;
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
    if let Some(dir) = vtk {
        std::fs::create_dir_all(&dir)?;
        let path = std::path::Path::new(&dir).join("sphere_pile.vtp");
        write_vtp(&path, &scene.frames())?;
        println!("final frame: {}", path.display());
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
        "per step: total {:.3} ms = detection {:.3} + assembly {:.3} + solve {:.3} + update {:.3} ms; {:.1} NSGS sweeps per step, {} steps above tolerance",
        1e3 * times.per_step(),
        1e3 * times.mean(times.detection),
        1e3 * times.mean(times.assembly),
        1e3 * times.mean(times.solve),
        1e3 * times.mean(times.update),
        times.sweeps as f64 / times.steps.max(1) as f64,
        times.unconverged
    );
    Ok(())
}
