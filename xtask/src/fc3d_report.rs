//! The FC3D part of `cargo xtask bench-report`: our FC3D solvers and Siconos 4.4's on every file
//! of `$NONSMOOTH_DATA/siconos/fc3d/`, measured in the same run; writes `fc3d.md`, `fc3d.csv` and
//! `fc3d-profile.svg`.
//!
//! Steps:
//! 1. `cargo bench -p nonsmooth-benches --bench fc3d -- --save-baseline NAME` with
//!    `NONSMOOTH_BENCH_FC3D_MANIFEST=<work>/fc3d-manifest.json`: criterion times every (file,
//!    solver) pair (groups `fc3d/<solver>`) and parallel NSGS on the largest problems (groups
//!    `fc3d-parallel/<variant>`); the bench writes the manifest (problems, unreadable files,
//!    solvers and whether they exist yet, one untimed solve per pair: status, iterations,
//!    residual);
//! 2. the criterion medians of that baseline (our times);
//! 3. when python3-siconos imports, `xtask/siconos_fc3d.py` on the manifest (Siconos' status,
//!    iterations, residual and median time);
//! 4. the report: one row per (file, solver), per solver the median time ratio on the files both
//!    solve and the number each side solves against the targets, the performance profile, the
//!    parallel speed-up table.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

use anyhow::{Context, bail};
use serde_json::Value;

use crate::bench_report::{
    Options, commit, cpu_model, folders, python, quick_env, siconos_available, target_dir, utc_now,
};
use crate::report::{
    Header, SIDE_BY_SIDE_CSV_HEADER, Side, cell, csv_field, header_markdown, iterations, median, opt, push_csv_line,
    ratio, residual, seconds, xml_escape,
};
use crate::{cargo, criterion, project_root, run_checked};

/// The environment variable naming the manifest the FC3D bench writes
/// (`nonsmooth_benches::FC3D_MANIFEST_ENV`).
const MANIFEST_ENV: &str = "NONSMOOTH_BENCH_FC3D_MANIFEST";

/// Our solver names and how Siconos names the matching solver.
const SICONOS_NAMES: [(&str, &str); 3] = [("nsgs", "NSGS"), ("nsn-ac", "NSN_AC"), ("prox", "PROX")];

/// Solvers whose median ratio ours/Siconos has the target ≤ 0.5.
const RATIO_TARGET: f64 = 0.5;
const RATIO_TARGET_SOLVERS: [&str; 2] = ["nsgs", "nsn-ac"];

/// One (file, solver) pair.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// The file name.
    pub(crate) problem: String,
    /// Number of contacts (`None` when neither side could read the file).
    pub(crate) contacts: Option<usize>,
    /// Our solver name (`nsgs`, `nsn-ac`, `prox`).
    pub(crate) solver: String,
    /// Our result.
    pub(crate) ours: Side,
    /// Siconos' result, when Siconos ran.
    pub(crate) siconos: Option<Side>,
}

impl Row {
    /// Our time over Siconos' time, when both were measured.
    pub(crate) fn ratio(&self) -> Option<f64> {
        let ours = self.ours.seconds?;
        let theirs = self.siconos.as_ref()?.seconds?;
        (theirs > 0.0).then(|| ours / theirs)
    }

    /// The ratio when both sides converged.
    fn comparable(&self) -> Option<f64> {
        let s = self.siconos.as_ref()?;
        if self.ours.converged() && s.converged() { self.ratio() } else { None }
    }
}

/// One solver's summary against the targets.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Summary {
    pub(crate) solver: String,
    /// Median of ours/Siconos over the files both solve, and the number of such files.
    pub(crate) median_ratio: Option<f64>,
    pub(crate) pairs: usize,
    /// Files we solve, files Siconos solves (`None` when Siconos did not run).
    pub(crate) solved_ours: usize,
    pub(crate) solved_siconos: Option<usize>,
    /// Whether our solver exists in this tree.
    pub(crate) available: bool,
    /// Median ratio ≤ 0.5 (only NSGS and NSN-AC have this target): `None` when not evaluated.
    pub(crate) ratio_met: Option<bool>,
    /// We solve at least as many files as Siconos' same solver: `None` when Siconos did not run.
    pub(crate) count_met: Option<bool>,
}

/// Per solver (in order of first appearance): the median ratio over files both converged on, the
/// counts of files solved by each side, and the targets (NSGS, NSN-AC: median ≤ 0.5; every
/// solver: solves at least as many files as Siconos' same solver).
pub(crate) fn summarize(rows: &[Row], available: &[String]) -> Vec<Summary> {
    let mut solvers: Vec<&str> = Vec::new();
    for r in rows {
        if !solvers.contains(&r.solver.as_str()) {
            solvers.push(&r.solver);
        }
    }
    let siconos_ran = rows.iter().any(|r| r.siconos.is_some());
    solvers
        .into_iter()
        .map(|solver| {
            let mine: Vec<&Row> = rows.iter().filter(|r| r.solver == solver).collect();
            let ratios: Vec<f64> = mine.iter().filter_map(|r| r.comparable()).collect();
            let pairs = ratios.len();
            let median_ratio = median(ratios);
            let solved_ours = mine.iter().filter(|r| r.ours.converged()).count();
            let solved_siconos =
                siconos_ran.then(|| mine.iter().filter(|r| r.siconos.as_ref().is_some_and(Side::converged)).count());
            let available = available.iter().any(|a| a == solver);
            let ratio_met = if RATIO_TARGET_SOLVERS.contains(&solver) {
                if available { median_ratio.map(|m| m <= RATIO_TARGET) } else { siconos_ran.then_some(false) }
            } else {
                None
            };
            let count_met = solved_siconos.map(|theirs| solved_ours >= theirs);
            Summary {
                solver: solver.to_owned(),
                median_ratio,
                pairs,
                solved_ours,
                solved_siconos,
                available,
                ratio_met,
                count_met,
            }
        })
        .collect()
}

/// Dolan–Moré performance profile: `times[p][s]` is solver `s`'s time on problem `p` when it
/// solved it. For each solver, the sorted ratios `t_{p,s} / min_s' t_{p,s'}` over the problems it
/// solved; `ρ_s(τ)` is the number of these ratios ≤ τ over the number of problems.
pub(crate) fn profile_ratios(times: &[Vec<Option<f64>>], solvers: usize) -> Vec<Vec<f64>> {
    let mut out = vec![Vec::new(); solvers];
    for row in times {
        let best = row.iter().flatten().copied().filter(|t| *t > 0.0).fold(f64::INFINITY, f64::min);
        if !best.is_finite() {
            continue;
        }
        for (s, t) in row.iter().enumerate().take(solvers) {
            if let Some(t) = t.filter(|t| *t > 0.0) {
                out[s].push(t / best);
            }
        }
    }
    for v in &mut out {
        v.sort_by(f64::total_cmp);
    }
    out
}

fn count(x: Option<usize>) -> String {
    x.map_or_else(|| "–".to_owned(), |k| k.to_string())
}

fn pass(x: Option<bool>) -> &'static str {
    match x {
        Some(true) => "PASS",
        Some(false) => "**FAIL**",
        None => "not measured",
    }
}

/// Parallel NSGS on one problem under one variant.
#[derive(Clone, Debug, Default)]
pub(crate) struct ParallelCell {
    pub(crate) seconds: Option<f64>,
    pub(crate) status: String,
    pub(crate) iterations: Option<u64>,
}

/// The parallel NSGS measurements: whether the option exists, the problems (with contacts), the
/// variants (`sequential`, `rayon-1`, `rayon-2`) and `cells[problem][variant]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Parallel {
    pub(crate) available: bool,
    pub(crate) problems: Vec<(String, Option<usize>)>,
    pub(crate) variants: Vec<String>,
    pub(crate) cells: Vec<Vec<ParallelCell>>,
    /// The synthetic granular lattices (`granular_lattice_fc3d`), timed for a fixed sweep count.
    pub(crate) synthetic: Vec<SyntheticRow>,
}

/// One synthetic lattice of the parallel NSGS table: its size, colour classes and
/// `cells[variant]` (every variant does `sweeps` sweeps).
#[derive(Clone, Debug, Default)]
pub(crate) struct SyntheticRow {
    pub(crate) name: String,
    pub(crate) contacts: Option<usize>,
    pub(crate) colours: Option<usize>,
    pub(crate) smallest_class: Option<usize>,
    pub(crate) largest_class: Option<usize>,
    pub(crate) sweeps: Option<u64>,
    pub(crate) cells: Vec<ParallelCell>,
}

/// Everything the report shows besides the rows.
#[derive(Clone, Debug)]
pub(crate) struct Extra {
    /// Our solvers that exist in this tree.
    pub(crate) available: Vec<String>,
    /// Files we could not read, with the reason.
    pub(crate) unreadable: Vec<(String, String)>,
    pub(crate) parallel: Parallel,
    /// Wall time of the FC3D part, in seconds.
    pub(crate) elapsed: f64,
}

/// `docs/benchmarks/fc3d.md`.
pub(crate) fn markdown(header: &Header, rows: &[Row], extra: &Extra) -> String {
    let mut md = header_markdown(header, "FC3D solvers", "no comparison (our side only)");
    let _ = writeln!(md, "- wall time of the FC3D part of this run: {:.0} s", extra.elapsed);

    let _ = writeln!(md, "\n## Summary\n");
    let _ = writeln!(
        md,
        "Ratio = our time / Siconos' time (below 1: we are faster), median over the files both solve. \
         Targets: NSGS and NSN-AC median ratio ≤ {RATIO_TARGET}; each solver solves at least as many \
         files as Siconos' same solver.\n"
    );
    let _ = writeln!(
        md,
        "| solver | Siconos solver | median ratio (files) | solved: ours / Siconos | ratio target | count target |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|");
    let files = rows.iter().map(|r| r.problem.as_str()).collect::<std::collections::BTreeSet<_>>().len();
    for s in summarize(rows, &extra.available) {
        let theirs = SICONOS_NAMES.iter().find(|(o, _)| *o == s.solver).map_or("?", |(_, t)| t);
        let ratio_target = if RATIO_TARGET_SOLVERS.contains(&s.solver.as_str()) {
            pass(s.ratio_met).to_owned()
        } else {
            "–".to_owned()
        };
        let available = if s.available { "" } else { " (not available yet)" };
        let _ = writeln!(
            md,
            "| {}{available} | {theirs} | {} ({} files) | {} / {} of {files} | {ratio_target} | {} |",
            s.solver,
            ratio(s.median_ratio),
            s.pairs,
            s.solved_ours,
            count(s.solved_siconos),
            pass(s.count_met)
        );
    }
    if !extra.unreadable.is_empty() {
        let _ = writeln!(md, "\nUnreadable files (by our reader; they count as not solved on our side):\n");
        for (name, reason) in &extra.unreadable {
            let _ = writeln!(md, "- `{name}`: {}", cell(reason));
        }
    }

    let _ = writeln!(md, "\n## Performance profile\n");
    let _ = writeln!(
        md,
        "Dolan–Moré profile over the {files} files: for each solver, the fraction of files it solves within \
         a factor τ of the fastest solver on that file (higher and further left is better).\n"
    );
    let _ = writeln!(md, "![performance profile](fc3d-profile.svg)\n");

    let _ = writeln!(md, "## Parallel NSGS\n");
    parallel_markdown(&mut md, &extra.parallel);

    let _ = writeln!(md, "\n## Every file and solver\n");
    let _ = writeln!(
        md,
        "| file | contacts | solver | ours [s] | Siconos [s] | ours/Siconos | our status | Siconos status | \
         iterations (ours / Siconos) | our residual | Siconos residual |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
    let none = Side { status: "–".to_owned(), ..Side::default() };
    for r in rows {
        let s = r.siconos.as_ref().unwrap_or(&none);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} | {} |",
            cell(&r.problem),
            count(r.contacts),
            r.solver,
            seconds(r.ours.seconds),
            seconds(s.seconds),
            ratio(r.ratio()),
            cell(&r.ours.status),
            cell(&s.status),
            iterations(r.ours.iterations),
            iterations(s.iterations),
            residual(r.ours.residual),
            residual(s.residual)
        );
    }
    md
}

fn parallel_markdown(md: &mut String, p: &Parallel) {
    if !p.available {
        let _ = writeln!(
            md,
            "Not measured: `NsgsOptions::parallelism` does not exist in this tree (problems that would be timed: {}).",
            p.problems.iter().map(|(n, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        );
        return;
    }
    let _ = writeln!(
        md,
        "NSGS (tolerance 1e-8, cap 10 000 sweeps) on the problems with the most contacts: sequential, and with \
         `parallelism = Rayon {{ threads }}` with 1 and 2 threads. Speed-up = sequential time / parallel time; the \
         parallel sweep visits the contacts colour by colour, so its sweep count differs, and the per-sweep \
         speed-up (time per sweep, sequential / parallel) isolates the parallelism.\n"
    );
    let mut head = String::from("| file | contacts |");
    let mut rule = String::from("|---|---|");
    for v in &p.variants {
        let _ = write!(head, " {v} [s] (status, sweeps) |");
        rule.push_str("---|");
    }
    for v in p.variants.iter().skip(1) {
        let _ = write!(head, " speed-up {v} (per sweep) |");
        rule.push_str("---|");
    }
    let _ = writeln!(md, "{head}\n{rule}");
    for ((name, contacts), cells) in p.problems.iter().zip(&p.cells) {
        let mut line = format!("| {} | {} |", cell(name), count(*contacts));
        for c in cells {
            let _ = write!(line, " {} ({}, {}) |", seconds(c.seconds), cell(&c.status), iterations(c.iterations));
        }
        let per_sweep = |c: &ParallelCell| {
            let k = c.iterations.filter(|k| *k > 0)?;
            c.seconds.map(|t| t / k as f64)
        };
        let sequential = cells.first();
        for c in cells.iter().skip(1) {
            let speedup = |f: &dyn Fn(&ParallelCell) -> Option<f64>| {
                sequential.and_then(f).zip(f(c)).filter(|(_, t)| *t > 0.0).map(|(s, t)| s / t)
            };
            let _ = write!(line, " {} ({}) |", ratio(speedup(&|c| c.seconds)), ratio(speedup(&per_sweep)));
        }
        let _ = writeln!(md, "{line}");
    }
    synthetic_markdown(md, p);
}

/// The synthetic-lattice rows of the parallel section: time per sweep of each variant and the
/// per-sweep speed-up over sequential NSGS.
fn synthetic_markdown(md: &mut String, p: &Parallel) {
    if p.synthetic.is_empty() {
        return;
    }
    let sweeps =
        p.synthetic.iter().find_map(|s| s.sweeps).map_or_else(|| "a fixed number of".to_owned(), |k| k.to_string());
    let _ = writeln!(
        md,
        "\nSynthetic granular scenes (`granular_lattice_fc3d` in `benches/src/lib.rs`: spheres on a lattice, one \
         contact per pair of neighbours, `W = H M⁻¹ Hᵀ` in sparse-block storage, seeded): every variant does exactly \
         {sweeps} sweeps (tolerance 1e-30, which cannot be reached; the full error is evaluated once, after the last \
         sweep), so the variants do the same work and the time per sweep compares directly. Colours: number of \
         colour classes of the contact graph (smallest–largest class; `parallel_min_colour_size` is 1024).\n"
    );
    let mut head = String::from("| problem | contacts | colours (classes) |");
    let mut rule = String::from("|---|---|---|");
    for v in &p.variants {
        let _ = write!(head, " {v} [ms/sweep] |");
        rule.push_str("---|");
    }
    for v in p.variants.iter().skip(1) {
        let _ = write!(head, " speed-up {v} |");
        rule.push_str("---|");
    }
    let _ = writeln!(md, "{head}\n{rule}");
    for s in &p.synthetic {
        let classes = match (s.smallest_class, s.largest_class) {
            (Some(a), Some(b)) => format!("{a}–{b}"),
            _ => "–".to_owned(),
        };
        let mut line = format!("| {} | {} | {} ({classes}) |", cell(&s.name), count(s.contacts), count(s.colours));
        let per_sweep = |c: &ParallelCell| {
            let k = c.iterations.filter(|k| *k > 0)?;
            c.seconds.map(|t| t / k as f64)
        };
        for c in &s.cells {
            let ms = per_sweep(c).map_or_else(|| "–".to_owned(), |t| format!("{:.2}", 1e3 * t));
            let _ = write!(line, " {ms} |");
        }
        let sequential = s.cells.first().and_then(per_sweep);
        for c in s.cells.iter().skip(1) {
            let speedup = sequential.zip(per_sweep(c)).filter(|(_, t)| *t > 0.0).map(|(a, b)| a / b);
            let _ = write!(line, " {} |", ratio(speedup));
        }
        let _ = writeln!(md, "{line}");
    }
    // One sentence on the largest lattice: the per-sweep speed-up of the last variant over
    // sequential NSGS and over the first parallel variant (the thread scaling).
    let per = |c: &ParallelCell| c.seconds.zip(c.iterations.filter(|k| *k > 0)).map(|(t, k)| t / k as f64);
    let largest = p.synthetic.iter().filter(|s| s.cells.len() >= 3).max_by_key(|s| s.contacts.unwrap_or(0));
    if let Some(s) = largest {
        let times: Vec<Option<f64>> = s.cells.iter().map(per).collect();
        let ratio_of = |a: Option<f64>, b: Option<f64>| a.zip(b).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b);
        let last = times.last().copied().flatten();
        let (over_sequential, over_first) = (ratio_of(times[0], last), ratio_of(times[1], last));
        let names = (p.variants.get(1).map_or("?", String::as_str), p.variants.last().map_or("?", String::as_str));
        if let (Some(a), Some(b)) = (over_sequential, over_first) {
            let _ = writeln!(
                md,
                "\nOn `{}` every colour class is above `parallel_min_colour_size`, so every colour goes through rayon: \
                 per sweep, {} is {a:.2}× as fast as sequential NSGS and {b:.2}× as fast as {} (the thread scaling of \
                 the coloured sweep; the colouring, done once per solve, is inside the times).",
                s.name, names.1, names.0
            );
        }
    }
}

/// `docs/benchmarks/fc3d.csv`: one line per row, empty fields for values not measured.
pub(crate) fn csv(rows: &[Row]) -> String {
    let mut out = format!("file,contacts,solver,{SIDE_BY_SIDE_CSV_HEADER}\n");
    for r in rows {
        let fields = [csv_field(&r.problem), opt(r.contacts), csv_field(&r.solver)];
        push_csv_line(&mut out, &fields, &r.ours, r.siconos.as_ref(), r.ratio());
    }
    out
}

/// Colours of our three solvers; Siconos' same solver gets the same colour, dashed.
const COLORS: [&str; 3] = ["#1f77b4", "#d62728", "#2ca02c"];

/// `docs/benchmarks/fc3d-profile.svg`: the performance profile (see [`profile_ratios`]) of our
/// solvers (solid) and Siconos' (dashed), τ on a log₂ axis from 1, one step curve per solver.
/// Solvers that are not available (or Siconos when it did not run) have no curve.
pub(crate) fn svg(rows: &[Row], available: &[String]) -> String {
    let mut files: Vec<&str> = Vec::new();
    for r in rows {
        if !files.contains(&r.problem.as_str()) {
            files.push(&r.problem);
        }
    }
    // Curves: (label, colour, dashed) and which column each reads: (our solver name, ours?).
    let mut curves: Vec<(String, &str, bool)> = Vec::new();
    let mut columns: Vec<(&str, bool)> = Vec::new();
    let siconos_ran = rows.iter().any(|r| r.siconos.is_some());
    for (k, (ours, theirs)) in SICONOS_NAMES.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        if available.iter().any(|a| a == ours) {
            curves.push((format!("nonsmooth {ours}"), color, false));
            columns.push((ours, true));
        }
        if siconos_ran {
            curves.push((format!("Siconos {theirs}"), color, true));
            columns.push((ours, false));
        }
    }
    // The time of a converged solve, per file and column.
    let solved_time = |r: &Row, ours: bool| {
        let side = if ours { Some(&r.ours) } else { r.siconos.as_ref() }?;
        if side.converged() { side.seconds } else { None }
    };
    let times: Vec<Vec<Option<f64>>> = files
        .iter()
        .map(|f| {
            columns
                .iter()
                .map(|&(solver, ours)| {
                    rows.iter().find(|r| r.problem == *f && r.solver == solver).and_then(|r| solved_time(r, ours))
                })
                .collect()
        })
        .collect();
    let ratios = profile_ratios(&times, curves.len());

    let (left, plot_w, top, plot_h, legend_h) = (60.0, 560.0, 40.0, 300.0, 24.0 * 3.0 + 20.0);
    let width = left + plot_w + 30.0;
    let height = top + plot_h + 50.0 + legend_h;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" font-size="14" text-anchor="middle">FC3D performance profile, {} files (tolerance 1e-8)</text>"#,
        width / 2.0,
        files.len()
    );
    if curves.is_empty() || files.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">no solver measured</text>"#,
            width / 2.0,
            top + 20.0
        );
        s.push_str("</svg>\n");
        return s;
    }
    let max_ratio = ratios.iter().flatten().copied().fold(1.0f64, f64::max);
    let hi = (max_ratio * 1.5).log2().ceil().max(1.0);
    let x_of = |tau: f64| left + plot_w * tau.log2().clamp(0.0, hi) / hi;
    let y_of = |frac: f64| top + plot_h * (1.0 - frac);
    let bottom = top + plot_h;
    // Grid: powers of two on x (labels thinned to at most ~12), tenths on y.
    let step = (hi / 12.0).ceil().max(1.0) as usize;
    for e in (0..=hi as usize).step_by(step) {
        let x = x_of(2f64.powi(e as i32));
        let _ = writeln!(s, r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{bottom}" stroke="#ddd"/>"##);
        let _ = writeln!(s, r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#, bottom + 14.0, 1u64 << e);
    }
    for k in 0..=10 {
        let frac = f64::from(k) / 10.0;
        let y = y_of(frac);
        let _ = writeln!(s, r##"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#eee"/>"##, left + plot_w);
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{frac:.1}</text>"#, left - 6.0, y + 4.0);
    }
    let _ =
        writeln!(s, r##"<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#444"/>"##);
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">τ (time / fastest time on the file, log scale)</text>"#,
        left + plot_w / 2.0,
        bottom + 32.0
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="{:.1}" text-anchor="middle" transform="rotate(-90 16 {:.1})">fraction of files solved within τ</text>"#,
        top + plot_h / 2.0,
        top + plot_h / 2.0
    );
    let total = files.len() as f64;
    for ((label, color, dashed), r) in curves.iter().zip(&ratios) {
        let mut points = vec![(x_of(1.0), y_of(0.0))];
        let mut solved = 0usize;
        for &tau in r {
            let x = x_of(tau);
            points.push((x, y_of(solved as f64 / total)));
            solved += 1;
            points.push((x, y_of(solved as f64 / total)));
        }
        points.push((left + plot_w, y_of(solved as f64 / total)));
        let path: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let dash = if *dashed { r#" stroke-dasharray="6 4""# } else { "" };
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}><title>{}: {} of {} files solved</title></polyline>"#,
            path.join(" "),
            xml_escape(label),
            solved,
            files.len()
        );
    }
    // Legend: one line per solver pair.
    let legend_top = bottom + 48.0;
    for (k, (label, color, dashed)) in curves.iter().enumerate() {
        let (col, row) = (k % 2, k / 2);
        let x = left + 280.0 * col as f64;
        let y = legend_top + 24.0 * row as f64;
        let dash = if *dashed { r#" stroke-dasharray="6 4""# } else { "" };
        let _ = writeln!(
            s,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{color}" stroke-width="2"{dash}/>"#,
            x + 30.0
        );
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">{}</text>"#, x + 38.0, y + 4.0, xml_escape(label));
    }
    s.push_str("</svg>\n");
    s
}

/// Runs the FC3D part of the report.
pub(crate) fn run(o: &Options) -> anyhow::Result<()> {
    let clock = Instant::now();
    let root = project_root();
    let target = target_dir()?;
    let (work, out) = folders(o, &target)?;
    let manifest_path = work.join("fc3d-manifest.json");

    let started = SystemTime::now();
    if o.skip_bench {
        eprintln!("bench-report: reusing the FC3D criterion baseline {:?} and {}", o.baseline, manifest_path.display());
    } else {
        eprintln!("bench-report: running the FC3D criterion benches (baseline {:?})", o.baseline);
        let _ = std::fs::remove_file(&manifest_path);
        let mut bench = cargo();
        bench.args(["bench", "-p", "nonsmooth-benches", "--bench", "fc3d", "--", "--save-baseline", &o.baseline]);
        bench.env(MANIFEST_ENV, &manifest_path);
        quick_env(&mut bench, o.quick);
        run_checked(&mut bench)?;
    }
    let manifest =
        read_json(&manifest_path).context("the FC3D bench writes this manifest; run without --skip-bench")?;
    let criterion_dir =
        std::env::var_os("CRITERION_HOME").map_or_else(|| target.join("criterion"), std::path::PathBuf::from);
    let estimates = criterion::read_estimates(&criterion_dir, &o.baseline, (!o.skip_bench).then_some(started))?;
    let times: HashMap<(String, String), f64> =
        estimates.into_iter().map(|e| ((e.group, e.function), e.median_seconds)).collect();

    let (mut rows, available, unreadable) = ours_rows(&manifest, &times)?;
    let parallel = parallel_table(&manifest, &times);

    let siconos = match siconos_available() {
        Ok(version) => {
            eprintln!("bench-report: running Siconos' FC3D solvers ({version})");
            let results = work.join("siconos-fc3d.jsonl");
            let siconos_manifest = siconos_manifest(&manifest, &work)?;
            let mut py = python();
            py.arg(root.join("xtask/siconos_fc3d.py"))
                .arg(&siconos_manifest)
                .arg("--out")
                .arg(&results)
                .args(["--reps", &o.reps.to_string()])
                .args(["--max-seconds", if o.quick { "2" } else { "10" }])
                .env("OPENBLAS_NUM_THREADS", "1")
                .env("OMP_NUM_THREADS", "1");
            run_checked(&mut py)?;
            let theirs = read_siconos(&results)?;
            for r in &mut rows {
                let side = theirs.get(&(r.problem.clone(), r.solver.clone()));
                if r.contacts.is_none() {
                    r.contacts = side.and_then(|(_, nc)| *nc);
                }
                r.siconos = Some(
                    side.map(|(s, _)| s.clone())
                        .unwrap_or_else(|| Side { status: "missing".into(), ..Side::default() }),
                );
            }
            Ok(version)
        }
        Err(reason) => {
            eprintln!("bench-report: Siconos not run: {reason}");
            Err(reason)
        }
    };

    let header = Header {
        commit: commit(&root),
        cpu: cpu_model(),
        date: utc_now(),
        siconos,
        quick: o.quick,
        method: vec![
            "problems: every file of `$NONSMOOTH_DATA/siconos/fc3d/` (`.dat`, and `.hdf5` when our reader takes \
             it), tolerance 1e-8 on Siconos' FC3D error, every solve from r = 0"
                .to_owned(),
            "iteration cap: 10 000 sweeps for NSGS, 1000 steps for NSN-AC and PROX, on both sides".to_owned(),
            "ours: criterion median of one solve (`benches/benches/fc3d.rs`, built with the `bench` profile: fat \
             LTO, one codegen unit; flat sampling, r reset to 0 inside each timed iteration); status, iterations and residual from one untimed solve of the same bench"
                .to_owned(),
            format!(
                "Siconos: median of up to {} timed `fc3d_driver` calls (`xtask/siconos_fc3d.py`, the file re-read \
                 before each call, OPENBLAS_NUM_THREADS=1); NSGS with the full error evaluation every sweep \
                 (iparam[7] = 0) so sweep counts compare; residual from `fc3d_compute_error`; FCLIB files are \
                 given to Siconos as `.dat` files made by `nonsmooth convert` (its Debian build has no FCLIB reader)",
                o.reps
            ),
            "residual: Siconos' FC3D error ‖r − P_K(r − (u + μ‖u_T‖ e_N))‖ / max(‖q‖, ‖r‖, ‖u‖) on both sides"
                .to_owned(),
        ],
    };
    let extra = Extra { available: available.clone(), unreadable, parallel, elapsed: clock.elapsed().as_secs_f64() };
    let files = [
        ("fc3d.md", markdown(&header, &rows, &extra)),
        ("fc3d.csv", csv(&rows)),
        ("fc3d-profile.svg", svg(&rows, &available)),
    ];
    for (name, text) in files {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("bench-report: wrote {}", path.display());
    }
    Ok(())
}

fn read_json(path: &Path) -> anyhow::Result<Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

fn side_of(v: &Value, seconds: Option<f64>) -> Side {
    Side {
        seconds,
        status: v["status"].as_str().unwrap_or("?").to_owned(),
        iterations: v["iterations"].as_u64(),
        residual: v["residual"].as_f64(),
    }
}

type OursRows = (Vec<Row>, Vec<String>, Vec<(String, String)>);

/// Our rows from the bench's manifest and the criterion medians (keyed by (group, function)):
/// one per (file, solver), files sorted by name, unreadable files included; plus the available
/// solvers and the unreadable files.
fn ours_rows(manifest: &Value, times: &HashMap<(String, String), f64>) -> anyhow::Result<OursRows> {
    let bad = || "unexpected layout of the FC3D manifest";
    let solvers: Vec<(String, bool)> = manifest["solvers"]
        .as_array()
        .with_context(bad)?
        .iter()
        .map(|s| Some((s["name"].as_str()?.to_owned(), s["available"].as_bool()?)))
        .collect::<Option<_>>()
        .with_context(bad)?;
    let available: Vec<String> = solvers.iter().filter(|(_, a)| *a).map(|(n, _)| n.clone()).collect();
    let unreadable: Vec<(String, String)> = manifest["unreadable"]
        .as_array()
        .with_context(bad)?
        .iter()
        .map(|u| Some((u["name"].as_str()?.to_owned(), u["reason"].as_str().unwrap_or("").to_owned())))
        .collect::<Option<_>>()
        .with_context(bad)?;
    // (name, contacts, our results or None when unreadable)
    let mut files: Vec<(String, Option<usize>, Option<&Value>)> = manifest["problems"]
        .as_array()
        .with_context(bad)?
        .iter()
        .map(|p| {
            Some((
                p["name"].as_str()?.to_owned(),
                p["contacts"].as_u64().and_then(|k| usize::try_from(k).ok()),
                Some(&p["ours"]),
            ))
        })
        .collect::<Option<_>>()
        .with_context(bad)?;
    files.extend(unreadable.iter().map(|(name, _)| (name.clone(), None, None)));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut rows = Vec::new();
    for (name, contacts, ours) in &files {
        for (solver, is_available) in &solvers {
            let side = match ours {
                None => Side { status: "unreadable".into(), ..Side::default() },
                Some(_) if !is_available => Side { status: "not available".into(), ..Side::default() },
                Some(results) => {
                    let check = &results[solver.as_str()];
                    if check.is_null() {
                        Side { status: "missing".into(), ..Side::default() }
                    } else {
                        side_of(check, times.get(&(format!("fc3d/{solver}"), name.clone())).copied())
                    }
                }
            };
            rows.push(Row {
                problem: name.clone(),
                contacts: *contacts,
                solver: solver.clone(),
                ours: side,
                siconos: None,
            });
        }
    }
    if rows.is_empty() {
        bail!("the FC3D manifest lists no problem (is $NONSMOOTH_DATA/siconos/fc3d/ present?)");
    }
    Ok((rows, available, unreadable))
}

/// The parallel NSGS table from the manifest and the criterion medians.
fn parallel_table(manifest: &Value, times: &HashMap<(String, String), f64>) -> Parallel {
    let p = &manifest["parallel"];
    let contacts_of = |name: &str| {
        manifest["problems"]
            .as_array()
            .and_then(|ps| ps.iter().find(|q| q["name"].as_str() == Some(name)))
            .and_then(|q| q["contacts"].as_u64())
            .and_then(|k| usize::try_from(k).ok())
    };
    let problems: Vec<(String, Option<usize>)> = p["problems"]
        .as_array()
        .map(|a| a.iter().filter_map(|n| n.as_str()).map(|n| (n.to_owned(), contacts_of(n))).collect())
        .unwrap_or_default();
    let variants_json = p["variants"].as_array().cloned().unwrap_or_default();
    let variants: Vec<String> = variants_json.iter().filter_map(|v| v["variant"].as_str().map(str::to_owned)).collect();
    let cells = problems
        .iter()
        .map(|(name, _)| {
            variants_json
                .iter()
                .map(|v| {
                    let variant = v["variant"].as_str().unwrap_or("?");
                    let check = &v["results"][name.as_str()];
                    ParallelCell {
                        seconds: times.get(&(format!("fc3d-parallel/{variant}"), name.clone())).copied(),
                        status: check["status"].as_str().unwrap_or("–").to_owned(),
                        iterations: check["iterations"].as_u64(),
                    }
                })
                .collect()
        })
        .collect();
    let synthetic = p["synthetic"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|q| {
                    let name = q["name"].as_str()?.to_owned();
                    let size = |key: &str| q[key].as_u64().and_then(|k| usize::try_from(k).ok());
                    let cells = variants_json
                        .iter()
                        .map(|v| {
                            let variant = v["variant"].as_str().unwrap_or("?");
                            let check = &v["results"][name.as_str()];
                            ParallelCell {
                                seconds: times.get(&(format!("fc3d-parallel/{variant}"), name.clone())).copied(),
                                status: check["status"].as_str().unwrap_or("–").to_owned(),
                                iterations: check["iterations"].as_u64(),
                            }
                        })
                        .collect();
                    Some(SyntheticRow {
                        contacts: size("contacts"),
                        colours: size("colours"),
                        smallest_class: size("smallest_class"),
                        largest_class: size("largest_class"),
                        sweeps: q["sweeps"].as_u64(),
                        name,
                        cells,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Parallel { available: p["available"].as_bool().unwrap_or(false), problems, variants, cells, synthetic }
}

/// Siconos' results: (file, solver) → (result, contacts).
type SiconosResults = HashMap<(String, String), (Side, Option<usize>)>;

/// The manifest handed to `siconos_fc3d.py`: the Debian build of Siconos 4.4 has no FCLIB
/// reader, so each FCLIB problem is first converted to a Siconos `.dat` file in `work` by
/// `nonsmooth convert` (bit-exact, tested in `tests/it/fclib.rs`), as the reference CSV of the
/// data folder was made; the file names stay those of the collection.
fn siconos_manifest(manifest: &serde_json::Value, work: &Path) -> anyhow::Result<PathBuf> {
    let mut manifest = manifest.clone();
    let target = target_dir()?;
    let mut converted = 0;
    if let Some(problems) = manifest["problems"].as_array_mut() {
        for p in problems {
            let Some(path) = p["path"].as_str().map(PathBuf::from) else { continue };
            let fclib = path.extension().and_then(|e| e.to_str()).is_some_and(|e| e == "hdf5" || e == "h5");
            if !fclib {
                continue;
            }
            if converted == 0 {
                run_checked(cargo().args(["build", "--release", "-p", "nonsmooth-cli", "--bin", "nonsmooth"]))?;
            }
            let dat = work.join(format!("{}.dat", path.file_name().and_then(|n| n.to_str()).unwrap_or("fclib")));
            run_checked(Command::new(target.join("release/nonsmooth")).arg("convert").arg(&path).arg(&dat))?;
            p["path"] = serde_json::Value::String(dat.to_string_lossy().into_owned());
            converted += 1;
        }
    }
    let out = work.join("fc3d-manifest-siconos.json");
    std::fs::write(&out, serde_json::to_string_pretty(&manifest)?)?;
    Ok(out)
}

/// Reads the JSON lines of `siconos_fc3d.py`.
fn read_siconos(path: &Path) -> anyhow::Result<SiconosResults> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).with_context(|| format!("{}: not JSON: {line}", path.display()))?;
        let key =
            (v["problem"].as_str().unwrap_or_default().to_owned(), v["solver"].as_str().unwrap_or_default().to_owned());
        let mut side = side_of(&v, v["seconds"].as_f64());
        if side.status == "failed"
            && let Some(info) = v["info"].as_i64()
        {
            side.status = format!("failed (info {info})");
        }
        let contacts = v["contacts"].as_u64().and_then(|k| usize::try_from(k).ok());
        out.insert(key, (side, contacts));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(seconds: f64, status: &str) -> Side {
        Side { seconds: Some(seconds), status: status.to_owned(), iterations: Some(5), residual: Some(1e-9) }
    }

    fn row(problem: &str, solver: &str, ours: f64, theirs: f64) -> Row {
        Row {
            problem: problem.to_owned(),
            contacts: Some(4),
            solver: solver.to_owned(),
            ours: side(ours, "converged"),
            siconos: Some(side(theirs, "converged")),
        }
    }

    fn fixture() -> Vec<Row> {
        vec![
            row("a.dat", "nsgs", 1.0, 4.0),  // 0.25
            row("b.dat", "nsgs", 3.0, 10.0), // 0.3
            Row { ours: side(9.0, "max-iterations"), ..row("c.dat", "nsgs", 9.0, 1.0) },
            row("a.dat", "nsn-ac", 2.0, 1.0), // 2.0
            Row { siconos: Some(side(1.0, "failed (info -1)")), ..row("b.dat", "nsn-ac", 1.0, 1.0) },
            Row { ours: Side { status: "not available".into(), ..Side::default() }, ..row("a.dat", "prox", 1.0, 1.0) },
        ]
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn summary_counts_and_targets() {
        let s = summarize(&fixture(), &names(&["nsgs", "nsn-ac"]));
        assert_eq!(s.len(), 3);
        let nsgs = &s[0];
        assert_eq!((nsgs.pairs, nsgs.solved_ours, nsgs.solved_siconos), (2, 2, Some(3)));
        assert!((nsgs.median_ratio.unwrap() - 0.275).abs() < 1e-12);
        assert_eq!(nsgs.ratio_met, Some(true));
        assert_eq!(nsgs.count_met, Some(false), "Siconos solves c.dat, we do not");
        let nsn = &s[1];
        assert_eq!((nsn.pairs, nsn.solved_ours, nsn.solved_siconos), (1, 2, Some(1)));
        assert_eq!(nsn.ratio_met, Some(false), "median 2.0 misses 0.5");
        assert_eq!(nsn.count_met, Some(true));
        let prox = &s[2];
        assert!(!prox.available);
        assert_eq!(prox.ratio_met, None, "PROX has no ratio target");
        assert_eq!(prox.count_met, Some(false), "not available: solves 0 of Siconos' 1");
    }

    #[test]
    fn profile_ratios_are_relative_to_the_fastest_solver() {
        let times = vec![
            vec![Some(1.0), Some(2.0), None],
            vec![Some(3.0), Some(1.5), Some(6.0)],
            vec![None, None, None], // nobody solves it: no ratio anywhere
        ];
        let r = profile_ratios(&times, 3);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].len(), 2);
        assert!((r[0][0] - 1.0).abs() < 1e-15 && (r[0][1] - 2.0).abs() < 1e-15, "{:?}", r[0]);
        assert!((r[1][0] - 1.0).abs() < 1e-15 && (r[1][1] - 2.0).abs() < 1e-15, "{:?}", r[1]);
        assert_eq!(r[2].len(), 1);
        assert!((r[2][0] - 4.0).abs() < 1e-15);
    }

    #[test]
    fn markdown_csv_and_svg_cover_every_pair() {
        let header = Header {
            commit: "abc".into(),
            cpu: "Test CPU".into(),
            date: "2025-01-01 00:00 UTC".into(),
            siconos: Ok("Siconos 4.4.0".into()),
            quick: false,
            method: vec!["tolerance 1e-8".into()],
        };
        let rows = fixture();
        let extra = Extra {
            available: names(&["nsgs", "nsn-ac"]),
            unreadable: vec![("x.hdf5".into(), "HDF5 not supported".into())],
            parallel: Parallel { problems: vec![("b.dat".into(), Some(4))], ..Parallel::default() },
            elapsed: 12.0,
        };
        let md = markdown(&header, &rows, &extra);
        assert!(md.contains("| nsgs | NSGS | 0.275 (2 files) | 2 / 3 of 3 | PASS | **FAIL** |"), "{md}");
        assert!(md.contains("| prox (not available yet) | PROX |"), "{md}");
        assert!(md.contains("`x.hdf5`: HDF5 not supported"));
        assert!(md.contains("Not measured: `NsgsOptions::parallelism`") && md.contains("`b.dat`"));
        let table =
            md.lines().filter(|l| l.starts_with("| a.dat") || l.starts_with("| b.dat") || l.starts_with("| c.dat"));
        assert_eq!(table.count(), rows.len());
        let csv = csv(&rows);
        assert_eq!(csv.lines().count(), rows.len() + 1);
        assert!(csv.lines().nth(1).unwrap().starts_with("a.dat,4,nsgs,1e0,4e0,2.5e-1,converged,converged,5,5,"));
        let svg = svg(&rows, &extra.available);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        // nsgs and nsn-ac ours + all three Siconos curves.
        assert_eq!(svg.matches("<polyline").count(), 5, "{svg}");
        assert!(svg.contains("nonsmooth nsgs: 2 of 3 files solved"), "{svg}");
        assert!(svg.contains("Siconos PROX") && !svg.contains("nonsmooth prox"));
    }

    #[test]
    fn parallel_table_shows_speedups() {
        let p = Parallel {
            available: true,
            problems: vec![("big.dat".into(), Some(300))],
            variants: names(&["sequential", "rayon-1", "rayon-2"]),
            cells: vec![vec![
                ParallelCell { seconds: Some(1.0), status: "converged".into(), iterations: Some(100) },
                ParallelCell { seconds: Some(1.25), status: "converged".into(), iterations: Some(100) },
                ParallelCell { seconds: Some(0.5), status: "converged".into(), iterations: Some(101) },
            ]],
            synthetic: Vec::new(),
        };
        let mut md = String::new();
        parallel_markdown(&mut md, &p);
        assert!(!md.contains("Synthetic granular"), "no synthetic rows, no synthetic table");
        assert!(md.contains("| big.dat | 300 | 1.000e0 (converged, 100) | 1.250e0 (converged, 100) | 5.000e-1 (converged, 101) | 0.800 (0.800) | 2.000 (2.020) |"), "{md}");
    }

    #[test]
    fn our_rows_from_a_manifest() {
        let manifest = serde_json::json!({
            "solvers": [{"name": "nsgs", "available": true}, {"name": "prox", "available": false}],
            "problems": [{"name": "b.dat", "contacts": 2, "ours": {"nsgs": {"status": "converged", "iterations": 7, "residual": 1e-9}}}],
            "unreadable": [{"name": "a.hdf5", "reason": "no reader"}],
            "parallel": {"available": false, "problems": ["b.dat"], "variants": []},
        });
        let mut times = HashMap::new();
        times.insert(("fc3d/nsgs".to_owned(), "b.dat".to_owned()), 2e-3);
        let (rows, available, unreadable) = ours_rows(&manifest, &times).unwrap();
        assert_eq!(available, names(&["nsgs"]));
        assert_eq!(unreadable.len(), 1);
        assert_eq!(rows.len(), 4, "two files × two solvers");
        assert_eq!((rows[0].problem.as_str(), rows[0].ours.status.as_str()), ("a.hdf5", "unreadable"));
        assert_eq!(rows[2].ours.seconds, Some(2e-3));
        assert_eq!(rows[2].ours.iterations, Some(7));
        assert_eq!(rows[3].ours.status, "not available");
        let par = parallel_table(&manifest, &times);
        assert!(!par.available);
        assert_eq!(par.problems, vec![("b.dat".to_owned(), Some(2))]);
        assert!(ours_rows(&serde_json::json!({"solvers": []}), &times).is_err());
    }

    #[test]
    fn synthetic_rows_show_time_per_sweep_and_speedup() {
        let manifest = serde_json::json!({
            "problems": [],
            "parallel": {
                "available": true,
                "problems": [],
                "variants": [
                    {"variant": "sequential", "results": {"lattice-2x2x2": {"status": "max-iterations", "iterations": 20}}},
                    {"variant": "rayon-1", "results": {"lattice-2x2x2": {"status": "max-iterations", "iterations": 20}}},
                    {"variant": "rayon-2", "results": {"lattice-2x2x2": {"status": "max-iterations", "iterations": 20}}},
                ],
                "synthetic": [{"name": "lattice-2x2x2", "contacts": 12, "colours": 6, "smallest_class": 2,
                               "largest_class": 2, "sweeps": 20}],
            },
        });
        let mut times = HashMap::new();
        times.insert(("fc3d-parallel/sequential".to_owned(), "lattice-2x2x2".to_owned()), 0.2);
        times.insert(("fc3d-parallel/rayon-1".to_owned(), "lattice-2x2x2".to_owned()), 0.125);
        times.insert(("fc3d-parallel/rayon-2".to_owned(), "lattice-2x2x2".to_owned()), 0.125);
        let p = parallel_table(&manifest, &times);
        assert_eq!(p.synthetic.len(), 1);
        let mut md = String::new();
        parallel_markdown(&mut md, &p);
        assert!(md.contains("exactly 20 sweeps"), "{md}");
        assert!(md.contains("| lattice-2x2x2 | 12 | 6 (2–2) | 10.00 | 6.25 | 6.25 | 1.600 | 1.600 |"), "{md}");
        assert!(md.contains("rayon-2 is 1.60× as fast as sequential NSGS and 1.00× as fast as rayon-1"), "{md}");
    }
}
