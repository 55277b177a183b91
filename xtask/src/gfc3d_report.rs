//! The GFC3D report (`gfc3d.md`, `gfc3d.csv`): our solvers on the global form of the frictional
//! contact problem (the global Alart–Curnier Newton method and ADMM) next to Siconos 4.4's
//! `GFC3D_NSN_AC` and `GFC3D_ADMM` on every file of `$NONSMOOTH_DATA/siconos/gfc3d/`, in the same
//! run.
//!
//! Steps:
//! 1. build `nonsmooth` (release);
//! 2. ours: `nonsmooth solve FILE --solver S --tolerance 1e-8 --repeat R --json` per pair (the
//!    median time of R solves from zero, status, iterations, global error);
//! 3. when python3-siconos imports, `xtask/siconos_gfc3d.py` on a manifest of the same files
//!    (FCLIB files converted to `.dat` by `nonsmooth convert`, as Siconos' Debian build has no
//!    FCLIB reader);
//! 4. the report files.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::bench_report::{Options, PYTHON, commit, cpu_model, folders, python, target_dir, utc_now};
use crate::report::{self, Header, SIDE_BY_SIDE_CSV_HEADER, Side, cell, csv_field, opt, push_csv_line};
use crate::{cargo, project_root, run_checked};

/// Tolerance on the global error, both sides.
const TOLERANCE: f64 = 1e-8;

/// (our CLI name, Siconos' constant, iteration cap on both sides: Siconos' defaults).
const SOLVERS: [(&str, &str, u64); 2] =
    [("global-nsn-ac", "SICONOS_GLOBAL_FRICTION_3D_NSN_AC", 200), ("admm", "SICONOS_GLOBAL_FRICTION_3D_ADMM", 20_000)];

/// One (file, solver) pair.
#[derive(Clone, Debug)]
pub(crate) struct GfcRow {
    pub(crate) problem: String,
    /// Global velocity size `n`.
    pub(crate) n: Option<u64>,
    pub(crate) contacts: Option<u64>,
    pub(crate) solver: String,
    pub(crate) ours: Side,
    pub(crate) siconos: Option<Side>,
}

impl GfcRow {
    fn ratio(&self) -> Option<f64> {
        let ours = self.ours.seconds?;
        let theirs = self.siconos.as_ref()?.seconds?;
        (theirs > 0.0).then(|| ours / theirs)
    }
}

/// The files of the collection folder (`.dat`, `.hdf5`), sorted.
fn collection(data: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let dir = data.join("siconos/gfc3d");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| e == "dat" || e == "hdf5"))
        .collect();
    files.sort();
    Ok(files)
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The data folder: `NONSMOOTH_DATA`, or `../shared/data` from the workspace root.
fn data_dir() -> PathBuf {
    std::env::var_os("NONSMOOTH_DATA").map_or_else(|| project_root().join("../shared/data"), PathBuf::from)
}

/// Runs the GFC3D report.
pub(crate) fn run(o: &Options) -> anyhow::Result<()> {
    let clock = Instant::now();
    let root = project_root();
    let target = target_dir()?;
    let (work, out) = folders(o, &target)?;
    let data = data_dir();
    let mut files = collection(&data)?;
    if o.quick {
        files.retain(|f| file_name(f).starts_with("GFC3D_TwoRods1") || file_name(f).starts_with("GFC3D_Example1"));
    }
    if files.is_empty() {
        bail!("no gfc3d problem file in {}", data.join("siconos/gfc3d").display());
    }
    eprintln!("bench-report: building nonsmooth (release)");
    run_checked(cargo().args(["build", "--release", "-p", "nonsmooth-cli", "--bin", "nonsmooth"]))?;
    let nonsmooth = target.join("release/nonsmooth");
    let reps = (2 * o.reps + 1).max(3);

    eprintln!("bench-report: our GFC3D solvers ({reps} solves per pair)");
    let mut rows = Vec::new();
    for f in &files {
        let (n, contacts) = info(&nonsmooth, f)?;
        for (solver, _, cap) in SOLVERS {
            let ours = ours(&nonsmooth, f, solver, cap, reps)?;
            eprintln!(
                "  ours {solver:>13} {}: {} it={:?} res={:?}",
                file_name(f),
                ours.status,
                ours.iterations,
                ours.residual
            );
            rows.push(GfcRow { problem: file_name(f), n, contacts, solver: solver.to_owned(), ours, siconos: None });
        }
    }

    let siconos = match siconos_version() {
        Ok(version) => {
            eprintln!("bench-report: running Siconos' GFC3D solvers ({version})");
            let manifest = siconos_manifest(&nonsmooth, &files, &work)?;
            let results = work.join("siconos-gfc3d.jsonl");
            let mut py = python();
            py.arg(root.join("xtask/siconos_gfc3d.py"))
                .arg(&manifest)
                .arg("--out")
                .arg(&results)
                .args(["--reps", &reps.to_string()])
                .args(["--max-seconds", if o.quick { "2" } else { "10" }])
                .env("OPENBLAS_NUM_THREADS", "1")
                .env("OMP_NUM_THREADS", "1");
            run_checked(&mut py)?;
            let theirs = read_siconos(&results)?;
            for r in &mut rows {
                r.siconos = Some(
                    theirs
                        .get(&(r.problem.clone(), r.solver.clone()))
                        .cloned()
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
            format!(
                "problems: every file of `$NONSMOOTH_DATA/siconos/gfc3d/` (`.dat` and FCLIB `.hdf5`), tolerance {TOLERANCE:e} \
                 on Siconos' global error `gfc3d_compute_error` (relative equilibrium error + relative complementarity \
                 error with the De Saxcé velocity), every solve from r = u = v = 0"
            ),
            "solvers: ours `global-nsn-ac` (`GlobalNsnAcSolver`) against `GFC3D_NSN_AC`, ours `admm` (`AdmmSolver`) \
             against `GFC3D_ADMM`; iteration caps 200 and 20 000 on both sides, all other options the defaults of \
             each side (Siconos' NSN_AC: Jean–Moreau variant of the function, ρ = 1, Goldstein–Price; ADMM: ρ = 0.1 \
             constant, acceleration with restart)"
                .to_owned(),
            format!(
                "ours: median of {reps} timed solves in one `nonsmooth solve --repeat {reps} --json` process (release \
                 build; reading the file and building the solver not timed)"
            ),
            format!(
                "Siconos: median of up to {reps} timed `gfc3d_driver` calls (`xtask/siconos_gfc3d.py`, the file re-read \
                 before each call, OPENBLAS_NUM_THREADS=1); FCLIB files are given to Siconos as `.dat` files made by \
                 `nonsmooth convert` (its Debian build has no FCLIB reader)"
            ),
        ],
    };
    let elapsed = clock.elapsed().as_secs_f64();
    for (name, text) in [("gfc3d.md", markdown(&header, &rows, elapsed)), ("gfc3d.csv", csv(&rows))] {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("bench-report: wrote {}", path.display());
    }
    Ok(())
}

/// `Ok(version)` when `python3 -s` imports siconos.numerics (the `-s` keeps a user-site numpy
/// from shadowing the Debian one Siconos is built against), else why not.
fn siconos_version() -> Result<String, String> {
    match python().args(["-c", "import siconos.numerics"]).output() {
        Ok(o) if o.status.success() => {}
        Ok(_) => return Err("python3-siconos missing or not importable".into()),
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

/// `(n, contacts)` from `nonsmooth info FILE --json`.
fn info(nonsmooth: &Path, file: &Path) -> anyhow::Result<(Option<u64>, Option<u64>)> {
    let out = Command::new(nonsmooth).arg("info").arg(file).arg("--json").output()?;
    if !out.status.success() {
        return Ok((None, None));
    }
    let v: Value = serde_json::from_slice(&out.stdout).context("nonsmooth info: not JSON")?;
    let n = v["matrices"].as_array().and_then(|m| m.iter().find(|m| m["name"] == "M")).and_then(|m| m["rows"].as_u64());
    Ok((n, v["contacts"].as_u64()))
}

/// Our side of one pair.
fn ours(nonsmooth: &Path, file: &Path, solver: &str, cap: u64, reps: u32) -> anyhow::Result<Side> {
    let out = Command::new(nonsmooth)
        .arg("solve")
        .arg(file)
        .args(["--solver", solver, "--tolerance", &format!("{TOLERANCE:e}")])
        .args(["--max-iterations", &cap.to_string(), "--repeat", &reps.to_string(), "--json"])
        .output()
        .with_context(|| format!("cannot run {}", nonsmooth.display()))?;
    Ok(match out.status.code() {
        Some(0 | 1) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let v: Value = serde_json::from_str(text.trim())
                .with_context(|| format!("nonsmooth solve {} --solver {solver}: not JSON: {text}", file.display()))?;
            Side {
                seconds: v["solve_seconds_median"].as_f64(),
                status: v["status"].as_str().unwrap_or("?").to_owned(),
                iterations: v["iterations"].as_u64(),
                residual: v["residual"].as_f64(),
            }
        }
        Some(2) => {
            let err = String::from_utf8_lossy(&out.stderr);
            let first = err.lines().next().unwrap_or("").trim_start_matches("error: ").to_owned();
            Side { status: format!("error: {first}"), ..Side::default() }
        }
        _ => Side { status: format!("crashed ({})", out.status), ..Side::default() },
    })
}

/// The manifest of `siconos_gfc3d.py`, FCLIB files converted to `.dat` in `work`.
fn siconos_manifest(nonsmooth: &Path, files: &[PathBuf], work: &Path) -> anyhow::Result<PathBuf> {
    let mut problems = Vec::new();
    for f in files {
        let mut path = f.clone();
        if f.extension().and_then(|e| e.to_str()).is_some_and(|e| e == "hdf5") {
            let dat = work.join(format!("{}.dat", file_name(f)));
            run_checked(Command::new(nonsmooth).arg("convert").arg(f).arg(&dat))?;
            path = dat;
        }
        problems.push(json!({"name": file_name(f), "path": path.to_string_lossy()}));
    }
    let solvers: Vec<Value> =
        SOLVERS.iter().map(|(name, id, cap)| json!({"name": name, "siconos_id": id, "max_iterations": cap})).collect();
    let manifest = json!({"tolerance": TOLERANCE, "problems": problems, "solvers": solvers});
    let out = work.join("gfc3d-manifest-siconos.json");
    std::fs::write(&out, serde_json::to_string_pretty(&manifest)?)?;
    Ok(out)
}

/// Reads the JSON lines of `siconos_gfc3d.py`, keyed by (file, solver).
fn read_siconos(path: &Path) -> anyhow::Result<HashMap<(String, String), Side>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).with_context(|| format!("{}: not JSON: {line}", path.display()))?;
        let mut status = v["status"].as_str().unwrap_or("?").to_owned();
        if status == "failed"
            && let Some(info) = v["info"].as_i64()
        {
            status = format!("failed (info {info})");
        }
        let side = Side {
            seconds: v["seconds"].as_f64(),
            status,
            iterations: v["iterations"].as_u64(),
            residual: v["residual"].as_f64(),
        };
        let key =
            (v["problem"].as_str().unwrap_or_default().to_owned(), v["solver"].as_str().unwrap_or_default().to_owned());
        out.insert(key, side);
    }
    Ok(out)
}

/// `docs/benchmarks/gfc3d.md`.
pub(crate) fn markdown(header: &Header, rows: &[GfcRow], elapsed: f64) -> String {
    let mut md = report::header_markdown(header, "Global frictional contact (GFC3D) solvers", "our columns only");
    let _ = writeln!(md, "- the whole report took {elapsed:.1} s\n");
    let converged =
        |f: &dyn Fn(&GfcRow) -> bool, solver: &str| rows.iter().filter(|r| r.solver == solver && f(r)).count();
    let _ = writeln!(md, "## Summary\n");
    let _ = writeln!(
        md,
        "| solver | files | ours converged | Siconos converged | median time ratio (ours / Siconos, both converged) |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|");
    for (solver, _, _) in SOLVERS {
        let total = rows.iter().filter(|r| r.solver == solver).count();
        let ours = converged(&|r| r.ours.converged(), solver);
        let theirs = converged(&|r| r.siconos.as_ref().is_some_and(Side::converged), solver);
        let ratios: Vec<f64> = rows
            .iter()
            .filter(|r| r.solver == solver && r.ours.converged() && r.siconos.as_ref().is_some_and(Side::converged))
            .filter_map(GfcRow::ratio)
            .collect();
        let _ = writeln!(md, "| {solver} | {total} | {ours} | {theirs} | {} |", report::ratio(report::median(ratios)));
    }
    let _ = writeln!(md, "\n## Per file\n");
    let _ = writeln!(
        md,
        "| file | n | contacts | solver | ours [s] | Siconos [s] | ratio | ours status | Siconos status | ours it. | Siconos it. | ours error | Siconos error |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let s = r.siconos.clone().unwrap_or_else(|| Side { status: "not run".into(), ..Side::default() });
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.problem),
            opt(r.n),
            opt(r.contacts),
            r.solver,
            report::seconds(r.ours.seconds),
            report::seconds(s.seconds),
            report::ratio(r.ratio()),
            cell(&r.ours.status),
            cell(&s.status),
            report::iterations(r.ours.iterations),
            report::iterations(s.iterations),
            report::residual(r.ours.residual),
            report::residual(s.residual),
        );
    }
    md
}

/// `docs/benchmarks/gfc3d.csv`: one line per (file, solver), empty fields for values not measured.
pub(crate) fn csv(rows: &[GfcRow]) -> String {
    let mut out = format!("problem,n,contacts,solver,{SIDE_BY_SIDE_CSV_HEADER}\n");
    for r in rows {
        let fields = [csv_field(&r.problem), opt(r.n), opt(r.contacts), csv_field(&r.solver)];
        push_csv_line(&mut out, &fields, &r.ours, r.siconos.as_ref(), r.ratio());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(seconds: f64, status: &str, it: u64) -> Side {
        Side { seconds: Some(seconds), status: status.to_owned(), iterations: Some(it), residual: Some(1e-9) }
    }

    #[test]
    fn markdown_and_csv_cover_every_pair() {
        let rows = vec![
            GfcRow {
                problem: "a.dat".into(),
                n: Some(3),
                contacts: Some(1),
                solver: "admm".into(),
                ours: side(1e-4, "converged", 30),
                siconos: Some(side(2e-4, "converged", 35)),
            },
            GfcRow {
                problem: "b.hdf5".into(),
                n: Some(9),
                contacts: Some(2),
                solver: "global-nsn-ac".into(),
                ours: side(1e-3, "max-iterations", 200),
                siconos: None,
            },
        ];
        let header = Header {
            commit: "abc".into(),
            cpu: "cpu".into(),
            date: "today".into(),
            siconos: Err("not installed".into()),
            quick: false,
            method: vec!["m".into()],
        };
        let md = markdown(&header, &rows, 1.0);
        assert!(
            md.contains("| a.dat | 3 | 1 | admm | 1.000e-4 | 2.000e-4 | 0.500 | converged | converged | 30 | 35 |"),
            "{md}"
        );
        assert!(md.contains("| b.hdf5 | 9 | 2 | global-nsn-ac |") && md.contains("not run"), "{md}");
        assert!(md.contains("| admm | 1 | 1 | 1 | 0.500 |"), "{md}");
        let csv = csv(&rows);
        assert_eq!(csv.lines().count(), 3);
        assert!(
            csv.lines()
                .nth(1)
                .is_some_and(|l| l.starts_with("a.dat,3,1,admm,1e-4,2e-4,5e-1,converged,converged,30,35")),
            "{csv}"
        );
    }
}
