//! Project automation, run as `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! Commands:
//! - `bench-report [--quick] [--baseline NAME] [--out DIR] [--reps N] [--skip-bench] [--life-sizes N,..]`: runs the LCP
//!   benches, a quality pass through `nonsmooth solve --json`, and Siconos 4.4 on the same
//!   problems when `python3-siconos` is installed; writes `docs/benchmarks/lcp.{md,csv}` and
//!   `docs/benchmarks/lcp-ratios.svg`; then the FC3D benches, our parallel NSGS timings and
//!   Siconos 4.4's FC3D solvers, written to `docs/benchmarks/fc3d.{md,csv}` and
//!   `docs/benchmarks/fc3d-profile.svg`; then our global frictional contact solvers next to
//!   Siconos 4.4's `GFC3D_NSN_AC` and `GFC3D_ADMM`, written to `docs/benchmarks/gfc3d.{md,csv}`;
//!   then the kernel time-stepping benches (bouncing ball,
//!   bead column and stack) next to Siconos 4.4's Moreau–Jean loop on the same models, written to
//!   `docs/benchmarks/kernel.{md,csv}`; then the sphere pile, ours (NSGS sequential
//!   and on 2 threads) and Rapier's in the same run, and its whole life (ours, Rapier, Siconos 4.4
//!   and MuJoCo windows, by phase), written to `docs/benchmarks/mechanics.{md,csv}` and
//!   `mechanics-life.csv`; then the mixed mechanical problems, ours and Siconos 4.4's `gmp_driver`,
//!   written to `docs/benchmarks/gmp.{md,csv}` (`--only lcp|fc3d|gfc3d|kernel|mechanics|gmp` runs
//!   one of the six). See [`bench_report`], [`fc3d_report`], [`gfc3d_report`], [`kernel_report`],
//!   [`mechanics_report`] and [`gmp_report`].
//! - `system-deps`: fails when a package of the dependency graph links a native library
//!   ([`system_deps`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

mod bench_report;
mod criterion;
mod fc3d_report;
mod gfc3d_report;
mod gmp_report;
mod kernel_report;
mod mechanics_report;
mod report;
mod system_deps;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  bench-report [options]   run the LCP, FC3D and kernel benches, our quality pass and Siconos 4.4
                           side by side, and the sphere pile (ours and Rapier's); write
                           docs/benchmarks/lcp.md, lcp.csv, lcp-ratios.svg, fc3d.md, fc3d.csv,
                           fc3d-profile.svg, kernel.md, kernel.csv, mechanics.md, mechanics.csv
                           and mechanics-life.csv
    --quick                a small subset (random n = 50, two collection files, bead models with
                           N <= 100 and one Siconos kernel run, a pile of 1000 spheres for 100
                           steps, the whole life of 125 spheres for 1500 steps with windows of 2
                           steps, short measurements), written to target/bench-report-quick/
                           unless --out is given
    --baseline NAME        criterion baseline name (default: bench-report)
    --out DIR              output folder (default: docs/benchmarks)
    --reps N               timed repetitions per pair (kernel: per case) in the Siconos scripts
                           (default: 5)
    --skip-bench           reuse the criterion results of the last run with the same baseline
    --only lcp|fc3d|gfc3d|kernel|mechanics|gmp
                           only the LCP, the FC3D, the GFC3D, the kernel, the mechanics or the
                           mixed mechanical problem report (default: all six; the FC3D report
                           writes docs/benchmarks/fc3d.md, fc3d.csv and fc3d-profile.svg, the
                           GFC3D report gfc3d.md and gfc3d.csv, the kernel report kernel.md and
                           kernel.csv, the mechanics report mechanics.md, mechanics.csv and
                           mechanics-life.csv, the gmp report gmp.md and gmp.csv)
    --life-sizes N[,N]     the pile sizes of the mechanics report's whole-life part, among
                           1000 and 5000 (125 with --quick) (default: all)
  system-deps              check that no package of the workspace's dependency graph (normal,
                           build and dev, host platform) links a native library: building and
                           testing need nothing but the Rust toolchain
";

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench-report") => {
            let options = bench_report::Options::parse(&args[1..])?;
            bench_report::run(&options)
        }
        Some("system-deps") => system_deps::run(),
        Some("-h" | "--help" | "help") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown command {other:?}\n\n{USAGE}"),
    }
}

/// The workspace root (the parent of this crate's folder).
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask/ has a parent folder").to_path_buf()
}

/// The `cargo` that runs us (cargo sets `CARGO` for the processes it runs).
fn cargo() -> std::process::Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = std::process::Command::new(cargo);
    cmd.current_dir(project_root());
    cmd
}

/// Runs `cmd`, failing with its description when it does not exit with 0.
fn run_checked(cmd: &mut std::process::Command) -> anyhow::Result<()> {
    let status = cmd.status().with_context(|| format!("cannot start {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed: {status}");
    }
    Ok(())
}
