//! The mixed mechanical problem part of `cargo xtask bench-report` (`--only gmp`): our block
//! Gauss–Seidel (`nonsmooth solve`) and Siconos 4.4's `gmp_driver` on every file of
//! `$NONSMOOTH_DATA/siconos/genericmechanical/`, in the same run; writes `gmp.md` and `gmp.csv`.
//!
//! Steps:
//! 1. build `nonsmooth` (release);
//! 2. ours: `nonsmooth solve FILE --json --repeat N --output <work>/gmp/<stem>.json` per file
//!    (status, sweeps, error, median time of the N solves, the solution `z`);
//! 3. when python3-siconos imports, `xtask/siconos_gmp.py` on the files (Siconos' block laws,
//!    status, sweeps, error, median time, its solution);
//! 4. the report: one row per file, both sides, whether the statuses agree, the difference of
//!    the errors and the largest difference of the solutions.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use serde_json::Value;

use crate::bench_report::{Options, PYTHON, commit, cpu_model, folders, target_dir, utc_now};
use crate::report::{Header, Side, cell, csv_field, header_markdown, iterations, opt, opt_f64, residual, seconds};
use crate::{cargo, project_root, run_checked};

/// The tolerance of both solvers (Siconos' default, ours too).
const TOLERANCE: f64 = 1e-4;

/// One file.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// The file name.
    pub(crate) file: String,
    /// Number of unknowns.
    pub(crate) size: Option<u64>,
    /// The block laws as Siconos read them (`2 eq(5) + 1 lcp(1)`), when Siconos ran.
    pub(crate) blocks: Option<String>,
    /// Our result.
    pub(crate) ours: Side,
    /// Siconos' result, when Siconos ran.
    pub(crate) siconos: Option<Side>,
    /// `max_k |z_k − z_k^Siconos|`, when both solutions are finite.
    pub(crate) max_dz: Option<f64>,
}

impl Row {
    /// Whether both sides converged, or both did not (`None` without Siconos).
    pub(crate) fn same_status(&self) -> Option<bool> {
        Some(self.ours.converged() == self.siconos.as_ref()?.converged())
    }

    /// `|error − error^Siconos|`.
    pub(crate) fn error_gap(&self) -> Option<f64> {
        Some((self.ours.residual? - self.siconos.as_ref()?.residual?).abs())
    }
}

/// `2 eq(5) + 1 lcp(1)`: the laws of Siconos' (type, size) pairs, run-length grouped.
pub(crate) fn describe_blocks(blocks: &[(i64, u64)]) -> String {
    let name = |t: i64| match t {
        0 => "lcp".to_owned(),
        2 => "eq".to_owned(),
        3 => "fc2d".to_owned(),
        4 => "fc3d".to_owned(),
        9 => "relay".to_owned(),
        other => format!("type {other}"),
    };
    let mut groups: Vec<(i64, u64, usize)> = Vec::new();
    for &(t, s) in blocks {
        match groups.last_mut() {
            Some((gt, gs, n)) if *gt == t && *gs == s => *n += 1,
            _ => groups.push((t, s, 1)),
        }
    }
    groups.iter().map(|(t, s, n)| format!("{n} {}({s})", name(*t))).collect::<Vec<_>>().join(" + ")
}

/// `docs/benchmarks/gmp.md`.
pub(crate) fn markdown(header: &Header, rows: &[Row]) -> String {
    let mut md = header_markdown(header, "Mixed mechanical problems (GenericMechanicalProblem)", "no comparison");
    md.push('\n');
    let _ = writeln!(
        md,
        "| file | n | blocks | ours status | Siconos status | same status | ours sweeps | Siconos sweeps | ours error | \
         Siconos error | error gap | max abs dz | ours time (s) | Siconos time (s) |"
    );
    let _ = writeln!(md, "|---|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let s = r.siconos.as_ref();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.file),
            opt(r.size),
            r.blocks.as_deref().map_or_else(|| "–".to_owned(), cell),
            cell(&r.ours.status),
            s.map_or_else(|| "–".to_owned(), |s| cell(&s.status)),
            r.same_status().map_or("–", |b| if b { "yes" } else { "**no**" }),
            iterations(r.ours.iterations),
            iterations(s.and_then(|s| s.iterations)),
            residual(r.ours.residual),
            residual(s.and_then(|s| s.residual)),
            residual(r.error_gap()),
            residual(r.max_dz),
            seconds(r.ours.seconds),
            seconds(s.and_then(|s| s.seconds)),
        );
    }
    let compared: Vec<&Row> = rows.iter().filter(|r| r.siconos.is_some()).collect();
    let same = compared.iter().filter(|r| r.same_status() == Some(true)).count();
    let same_sweeps =
        compared.iter().filter(|r| r.ours.iterations == r.siconos.as_ref().and_then(|s| s.iterations)).count();
    let close = compared.iter().filter(|r| r.error_gap().is_some_and(|g| g <= TOLERANCE)).count();
    let _ = writeln!(
        md,
        "\nSummary: {same} of {} files end with the same status, {same_sweeps} with the same number of sweeps, {close} \
         with errors within the tolerance {TOLERANCE:e} of each other.",
        compared.len()
    );
    notes(&mut md, rows);
    md
}

/// What explains the rows where the two sides differ.
fn notes(md: &mut String, rows: &[Row]) {
    let differ: Vec<&Row> = rows.iter().filter(|r| r.same_status() == Some(false)).collect();
    if differ.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "
Where the statuses differ:
"
    );
    for r in differ {
        let siconos_nan = r.siconos.as_ref().and_then(|s| s.residual) == Some(10.0);
        let why = if siconos_nan && r.ours.converged() {
            "Siconos' error is 10, its value for a NaN iterate: its one-contact FC3D solver \
             (`SICONOS_FRICTION_3D_ONECONTACT_QUARTIC`) returns NaN with info 0 when the contact's diagonal \
             block is the identity (the sliding polynomial degenerates; alone, `fc3d_driver` with that solver on \
             W = I, q = (−1, 1, 3), μ = 0.1 gives NaN, and Siconos' NSGS gives r = (1, −0.0316, −0.0949), our \
             answer). Our enumeration handles that case, so the first sweep solves each contact exactly."
        } else {
            "not analysed by this report."
        };
        let _ = writeln!(md, "- {}: {why}", r.file);
    }
}

/// `docs/benchmarks/gmp.csv`: one line per file, empty fields for values not measured.
pub(crate) fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "file,n,blocks,ours_status,siconos_status,ours_sweeps,siconos_sweeps,ours_error,siconos_error,max_abs_dz,\
         ours_seconds,siconos_seconds\n",
    );
    for r in rows {
        let s = r.siconos.as_ref();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&r.file),
            opt(r.size),
            csv_field(r.blocks.as_deref().unwrap_or("")),
            csv_field(&r.ours.status),
            csv_field(s.map_or("", |s| s.status.as_str())),
            opt(r.ours.iterations),
            opt(s.and_then(|s| s.iterations)),
            opt_f64(r.ours.residual),
            opt_f64(s.and_then(|s| s.residual)),
            opt_f64(r.max_dz),
            opt_f64(r.ours.seconds),
            opt_f64(s.and_then(|s| s.seconds)),
        );
    }
    out
}

/// The reference data folder: `NONSMOOTH_DATA`, or `../shared/data` seen from the workspace root.
fn data_dir() -> PathBuf {
    std::env::var_os("NONSMOOTH_DATA").map_or_else(|| project_root().join("../shared/data"), PathBuf::from)
}

/// Runs the report.
pub(crate) fn run(o: &Options) -> anyhow::Result<()> {
    let root = project_root();
    let target = target_dir()?;
    let (work, out) = folders(o, &target)?;
    let folder = data_dir().join("siconos/genericmechanical");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .with_context(|| format!("reading {} (set NONSMOOTH_DATA)", folder.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    if o.quick {
        files.truncate(2);
    }
    if files.is_empty() {
        bail!("no .dat file in {}", folder.display());
    }

    eprintln!("bench-report: building nonsmooth (release)");
    run_checked(cargo().args(["build", "--release", "-p", "nonsmooth-cli", "--bin", "nonsmooth"]))?;
    let nonsmooth = target.join("release").join("nonsmooth");
    let solutions = work.join("gmp");
    std::fs::create_dir_all(&solutions)?;

    eprintln!("bench-report: ours on {} mixed problems", files.len());
    let mut rows = Vec::new();
    let mut ours_z = Vec::new();
    for path in &files {
        let (row, z) = ours(&nonsmooth, path, &solutions, o.reps)?;
        rows.push(row);
        ours_z.push(z);
    }

    let siconos = siconos_version();
    if let Ok(version) = &siconos {
        eprintln!("bench-report: running Siconos ({version})");
        let results = work.join("gmp-siconos.jsonl");
        let mut py = Command::new(PYTHON);
        py.arg("-s").arg(root.join("xtask/siconos_gmp.py")).args(&files);
        py.arg("--reps").arg(o.reps.to_string()).arg("--out").arg(&results);
        py.env("OPENBLAS_NUM_THREADS", "1");
        run_checked(&mut py)?;
        let text = std::fs::read_to_string(&results).with_context(|| format!("reading {}", results.display()))?;
        for (line, (row, z)) in text.lines().filter(|l| !l.trim().is_empty()).zip(rows.iter_mut().zip(&ours_z)) {
            let v: Value = serde_json::from_str(line).with_context(|| format!("not JSON: {line}"))?;
            apply_siconos(row, z, &v);
        }
    }

    let header = Header {
        commit: commit(&root),
        cpu: cpu_model(),
        date: utc_now(),
        siconos,
        quick: o.quick,
        method: vec![
            "problems: every `.dat` file of `$NONSMOOTH_DATA/siconos/genericmechanical/`, each solve from z = 0 with \
             the default options of both sides: block Gauss–Seidel, tolerance 1e-4, at most 10 000 sweeps; local \
             solvers: LU for equality blocks, Lemke (closed form for one unknown) for LCP blocks, the exact \
             one-contact quartic enumeration for FC3D blocks"
                .to_owned(),
            format!("ours: `nonsmooth solve FILE --json --repeat {}` (release build), median of the solves", o.reps),
            format!(
                "Siconos: median of {} `gmp_driver` calls (SICONOS_GENERIC_MECHANICAL_NSGS) through ctypes \
                 (`xtask/siconos_gmp.py`: the Debian Python module does not wrap the generic mechanical problem), \
                 the file re-read before each call, OPENBLAS_NUM_THREADS=1",
                o.reps
            ),
            "error: Siconos' `gmp_compute_error` on both sides: the largest block error, equality blocks max |w|, \
             LCP and contact blocks their family's error divided by 1 + ‖q̃_i‖ (q̃_i the block's local vector); \
             Siconos reports 10 when an iterate is NaN"
                .to_owned(),
            "max abs dz: the largest difference between the two solutions, when both are finite".to_owned(),
        ],
    };
    for (name, text) in [("gmp.md", markdown(&header, &rows)), ("gmp.csv", csv(&rows))] {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("bench-report: wrote {}", path.display());
    }
    Ok(())
}

/// `Ok(version)` when python3-siconos imports under `python3 -s` (the user site ignored: a
/// user-site numpy can shadow the one Siconos' Debian package is built against), else why not.
fn siconos_version() -> Result<String, String> {
    match Command::new(PYTHON).args(["-s", "-c", "import siconos.numerics"]).output() {
        Ok(o) if o.status.success() => {}
        Ok(_) => return Err("python3-siconos missing (it does not import with `python3 -s`)".into()),
        Err(_) => return Err(format!("{PYTHON} not found")),
    }
    let dpkg = Command::new("dpkg-query").args(["-W", "-f=${Version}", "python3-siconos"]).output();
    Ok(match dpkg {
        Ok(o) if o.status.success() && !o.stdout.is_empty() => {
            let v = String::from_utf8_lossy(&o.stdout).trim().to_owned();
            let upstream = v.split(['+', '-']).next().unwrap_or(&v).to_owned();
            format!("Siconos {upstream} (Debian python3-siconos {v})")
        }
        _ => "Siconos (python3-siconos, version unknown)".into(),
    })
}

/// Our side of one file, and our solution.
fn ours(nonsmooth: &Path, path: &Path, solutions: &Path, reps: u32) -> anyhow::Result<(Row, Vec<f64>)> {
    let name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let solution = solutions.join(format!("{name}.json"));
    let out = Command::new(nonsmooth)
        .arg("solve")
        .arg(path)
        .args(["--type", "gmp", "--json", "--repeat", &reps.to_string(), "--output"])
        .arg(&solution)
        .output()
        .with_context(|| format!("cannot run {}", nonsmooth.display()))?;
    let mut row =
        Row { file: name.clone(), size: None, blocks: None, ours: Side::default(), siconos: None, max_dz: None };
    let mut z = Vec::new();
    match out.status.code() {
        Some(0 | 1) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let v: Value = serde_json::from_str(text.trim()).with_context(|| format!("{name}: not JSON: {text}"))?;
            row.size = v["size"].as_u64();
            row.ours = Side {
                seconds: v["solve_seconds_median"].as_f64(),
                status: v["status"].as_str().unwrap_or("?").to_owned(),
                iterations: v["iterations"].as_u64(),
                residual: v["residual"].as_f64(),
            };
            let s: Value = serde_json::from_str(&std::fs::read_to_string(&solution)?)?;
            z = numbers(&s["vectors"]["z"]);
        }
        _ => {
            let err = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            row.ours.status = format!("error: {err}");
        }
    }
    Ok((row, z))
}

/// The numbers of a JSON array (a `null` as NaN).
fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().map(|a| a.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect()).unwrap_or_default()
}

/// Fills Siconos' side of `row` from one line of `siconos_gmp.py`.
fn apply_siconos(row: &mut Row, z: &[f64], v: &Value) {
    let mut status = v["status"].as_str().unwrap_or("?").to_owned();
    if status == "failed"
        && let Some(info) = v["info"].as_i64()
    {
        status = format!("failed (info {info})");
    }
    row.siconos = Some(Side {
        seconds: v["seconds"].as_f64(),
        status,
        iterations: v["iterations"].as_u64(),
        residual: v["error"].as_f64(),
    });
    let blocks: Vec<(i64, u64)> = v["blocks"]
        .as_array()
        .map(|a| a.iter().filter_map(|b| Some((b[0].as_i64()?, b[1].as_u64()?))).collect())
        .unwrap_or_default();
    row.blocks = (!blocks.is_empty()).then(|| describe_blocks(&blocks));
    let theirs = numbers(&v["reaction"]);
    if theirs.len() == z.len() && theirs.iter().chain(z).all(|x| x.is_finite()) {
        row.max_dz = Some(z.iter().zip(&theirs).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(status: &str, iterations: u64, residual: f64) -> Side {
        Side { seconds: Some(1e-5), status: status.to_owned(), iterations: Some(iterations), residual: Some(residual) }
    }

    #[test]
    fn blocks_are_grouped_by_law_and_size() {
        assert_eq!(describe_blocks(&[(2, 5), (2, 5), (0, 1), (4, 3), (4, 3)]), "2 eq(5) + 1 lcp(1) + 2 fc3d(3)");
        assert_eq!(describe_blocks(&[(7, 2)]), "1 type 7(2)");
    }

    #[test]
    fn markdown_and_csv_cover_every_file() {
        let header = Header {
            commit: "abc".into(),
            cpu: "cpu".into(),
            date: "today".into(),
            siconos: Ok("Siconos 4.4".into()),
            quick: false,
            method: vec![],
        };
        let rows = vec![
            Row {
                file: "GMP0.dat".into(),
                size: Some(6),
                blocks: Some("1 eq(5) + 1 lcp(1)".into()),
                ours: side("converged", 6, 7.4e-5),
                siconos: Some(side("converged", 6, 7.4e-5)),
                max_dz: Some(1e-12),
            },
            Row {
                file: "GMP6.dat".into(),
                size: Some(37),
                blocks: None,
                ours: side("max-iterations", 10000, 1.6e-3),
                siconos: Some(side("failed (info 1)", 10000, 1.6e-3)),
                max_dz: None,
            },
        ];
        let md = markdown(&header, &rows);
        assert!(md.contains("| GMP0.dat | 6 | 1 eq(5) + 1 lcp(1) | converged | converged | yes | 6 | 6 |"), "{md}");
        assert!(md.contains("| GMP6.dat | 37 | – | max-iterations | failed (info 1) | yes | 10000 | 10000 |"), "{md}");
        assert!(md.contains("2 of 2 files end with the same status, 2 with the same number of sweeps"), "{md}");
        let csv = csv(&rows);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.lines().nth(1).unwrap().starts_with("GMP0.dat,6,1 eq(5) + 1 lcp(1),converged,converged,6,6,"));
    }
}
