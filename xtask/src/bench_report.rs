//! `cargo xtask bench-report`: measures our LCP solvers and Siconos 4.4's on the same problems in
//! the same run, and writes `lcp.md`, `lcp.csv` and `lcp-ratios.svg`.
//!
//! Steps:
//! 1. build `nonsmooth` and `write-bench-problems` (release);
//! 2. `write-bench-problems <work>/problems`: the random problems as `.dat` files and
//!    `manifest.json` (every problem, its size and tolerance, the solvers to run on it);
//! 3. `cargo bench -p nonsmooth-benches --bench lcp -- --save-baseline NAME`, then the medians of
//!    `<target>/criterion/**/NAME/estimates.json` (our times);
//! 4. quality pass: `nonsmooth solve FILE --json` for every pair (status, iterations, residual);
//! 5. when `/usr/bin/python3 -c "import siconos.numerics"` works, `xtask/siconos_lcp.py` on the
//!    manifest (Siconos' status, iterations, residual and median time);
//! 6. the report files.
//!
//! `--quick` (or `NONSMOOTH_BENCH_QUICK=1`) restricts everything to a small subset.
//!
//! The FC3D report (`fc3d.md`, `fc3d.csv`, `fc3d-profile.svg`) follows, see [`crate::fc3d_report`],
//! then the GFC3D report (`gfc3d.md`, `gfc3d.csv`), see [`crate::gfc3d_report`], then the kernel
//! report (`kernel.md`, `kernel.csv`), see [`crate::kernel_report`], then the
//! mechanics report (`mechanics.md`, `mechanics.csv`: the sphere pile, ours and Rapier's), see
//! [`crate::mechanics_report`], then the mixed mechanical problem report (`gmp.md`, `gmp.csv`),
//! see [`crate::gmp_report`]; `--only lcp|fc3d|gfc3d|kernel|mechanics|gmp` runs one of the six.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use anyhow::{Context, bail};
use serde_json::Value;

use crate::report::{Header, Row, Side};
use crate::{cargo, criterion, project_root, report, run_checked};

/// The environment variable the benches package reads for the quick subset.
pub(crate) const QUICK_ENV: &str = "NONSMOOTH_BENCH_QUICK";

/// The interpreter that has python3-siconos (Debian's system Python).
pub(crate) const PYTHON: &str = "/usr/bin/python3";

/// A command running [`PYTHON`] with `-s`: without the user's site folder, whose packages (a newer
/// numpy, say) would shadow the Debian ones python3-siconos is built against.
pub(crate) fn python() -> Command {
    let mut command = Command::new(PYTHON);
    command.arg("-s");
    command
}

/// Options of `bench-report`.
#[derive(Debug)]
pub(crate) struct Options {
    pub(crate) quick: bool,
    pub(crate) baseline: String,
    pub(crate) out: Option<PathBuf>,
    pub(crate) reps: u32,
    pub(crate) skip_bench: bool,
    /// `Some("lcp")`, `Some("fc3d")`, `Some("gfc3d")`, `Some("kernel")`, `Some("mechanics")` or
    /// `Some("gmp")`:
    /// only that report (default: all six).
    pub(crate) only: Option<String>,
    /// The pile sizes of the mechanics report's whole-life part (`--life-sizes 1000,5000`;
    /// default: all of [`crate::mechanics_report::life::life_cases`]).
    pub(crate) life_sizes: Option<Vec<usize>>,
}

impl Options {
    /// Parses the arguments after `bench-report`.
    pub(crate) fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut o = Options {
            quick: false,
            baseline: "bench-report".into(),
            out: None,
            reps: 5,
            skip_bench: false,
            only: None,
            life_sizes: None,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value")).cloned();
            match arg.as_str() {
                "--quick" => o.quick = true,
                "--skip-bench" => o.skip_bench = true,
                "--baseline" => o.baseline = value("--baseline")?,
                "--out" => o.out = Some(PathBuf::from(value("--out")?)),
                "--reps" => o.reps = value("--reps")?.parse().context("--reps needs a positive integer")?,
                "--only" => match value("--only")?.as_str() {
                    only @ ("lcp" | "fc3d" | "gfc3d" | "kernel" | "mechanics" | "gmp") => {
                        o.only = Some(only.to_owned())
                    }
                    other => bail!("--only takes lcp, fc3d, gfc3d, kernel, mechanics or gmp, not {other:?}"),
                },
                "--life-sizes" => {
                    let sizes: Result<Vec<usize>, _> = value("--life-sizes")?.split(',').map(str::parse).collect();
                    match sizes {
                        Ok(sizes) if !sizes.is_empty() && sizes.iter().all(|&n| n > 0) => o.life_sizes = Some(sizes),
                        _ => bail!("--life-sizes takes positive pile sizes separated by commas, e.g. 1000,5000"),
                    }
                }
                other => bail!("unknown bench-report option {other:?} (see cargo xtask --help)"),
            }
        }
        if o.reps == 0 {
            bail!("--reps needs a positive integer");
        }
        if std::env::var(QUICK_ENV).is_ok_and(|v| !v.is_empty() && v != "0") {
            o.quick = true;
        }
        if o.quick && o.baseline == "bench-report" {
            o.baseline = "bench-report-quick".into();
        }
        Ok(o)
    }
}

/// Runs the LCP, FC3D, GFC3D, kernel and mechanics reports (or the one `--only` names).
pub(crate) fn run(o: &Options) -> anyhow::Result<()> {
    let wanted = |report: &str| o.only.as_deref().is_none_or(|only| only == report);
    if wanted("lcp") {
        run_lcp(o)?;
    }
    if wanted("fc3d") {
        crate::fc3d_report::run(o)?;
    }
    if wanted("gfc3d") {
        crate::gfc3d_report::run(o)?;
    }
    if wanted("kernel") {
        crate::kernel_report::run(o)?;
    }
    if wanted("mechanics") {
        crate::mechanics_report::run(o)?;
    }
    if wanted("gmp") {
        crate::gmp_report::run(o)?;
    }
    Ok(())
}

/// The work folder (problems, manifests, Siconos results) and the output folder of a run.
pub(crate) fn folders(o: &Options, target: &Path) -> anyhow::Result<(PathBuf, PathBuf)> {
    let work = target.join(if o.quick { "bench-report-quick" } else { "bench-report" });
    let out =
        o.out.clone().unwrap_or_else(|| if o.quick { work.clone() } else { project_root().join("docs/benchmarks") });
    std::fs::create_dir_all(&work)?;
    std::fs::create_dir_all(&out)?;
    Ok((work, out))
}

/// The LCP report.
fn run_lcp(o: &Options) -> anyhow::Result<()> {
    let root = project_root();
    let target = target_dir()?;
    let (work, out) = folders(o, &target)?;

    eprintln!("bench-report: building the release tools");
    run_checked(cargo().args([
        "build",
        "--release",
        "-p",
        "nonsmooth-cli",
        "--bin",
        "nonsmooth",
        "-p",
        "nonsmooth-benches",
        "--bin",
        "write-bench-problems",
    ]))?;
    let release = target.join("release");

    let problems_dir = work.join("problems");
    let mut write = Command::new(release.join("write-bench-problems"));
    write.arg(&problems_dir);
    quick_env(&mut write, o.quick);
    run_checked(&mut write)?;
    let manifest = Manifest::read(&problems_dir.join("manifest.json"))?;

    let started = SystemTime::now();
    if o.skip_bench {
        eprintln!("bench-report: reusing the criterion baseline {:?}", o.baseline);
    } else {
        eprintln!("bench-report: running the criterion benches (baseline {:?})", o.baseline);
        let mut bench = cargo();
        bench.args(["bench", "-p", "nonsmooth-benches", "--bench", "lcp", "--", "--save-baseline", &o.baseline]);
        quick_env(&mut bench, o.quick);
        run_checked(&mut bench)?;
    }
    let criterion_dir = std::env::var_os("CRITERION_HOME").map_or_else(|| target.join("criterion"), PathBuf::from);
    let estimates = criterion::read_estimates(&criterion_dir, &o.baseline, (!o.skip_bench).then_some(started))?;
    let times: HashMap<(String, usize, String), f64> = estimates
        .into_iter()
        .filter_map(|e| {
            let solver = e.group.strip_prefix("lcp/")?.to_owned();
            let n = e.value.as_deref()?.parse().ok()?;
            Some(((e.function, n, solver), e.median_seconds))
        })
        .collect();

    eprintln!("bench-report: quality pass (nonsmooth solve --json)");
    let nonsmooth = release.join("nonsmooth");
    let mut rows = Vec::new();
    for p in &manifest.problems {
        for solver in &p.solvers {
            let mut ours = quality(&nonsmooth, p, solver, manifest.max_iterations(solver))?;
            ours.seconds = times.get(&(p.name.clone(), p.n, solver.clone())).copied();
            rows.push(Row {
                problem: p.name.clone(),
                n: p.n,
                random: p.random,
                solver: solver.clone(),
                ours,
                siconos: None,
            });
        }
    }

    let siconos = match siconos_available() {
        Ok(version) => {
            eprintln!("bench-report: running Siconos ({version})");
            let results = work.join("siconos.jsonl");
            let script = root.join("xtask/siconos_lcp.py");
            let mut py = python();
            py.arg(&script)
                .arg(problems_dir.join("manifest.json"))
                .arg("--out")
                .arg(&results)
                .args(["--reps", &o.reps.to_string()])
                // Our solvers run on one thread; so does Siconos' BLAS/LAPACK here.
                .env("OPENBLAS_NUM_THREADS", "1")
                .env("OMP_NUM_THREADS", "1");
            run_checked(&mut py)?;
            let theirs = read_siconos(&results)?;
            for r in &mut rows {
                r.siconos = Some(
                    theirs
                        .get(&(r.problem.clone(), r.n, r.solver.clone()))
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
                "problems: random `M = AᵀA + 0.1 I` (A, q uniform in [−1, 1), fixed seeds) at tolerance {}, \
                 Siconos collection files at tolerance {}; every solve starts from z = 0",
                fmt_tol(manifest.tolerance(true)),
                fmt_tol(manifest.tolerance(false))
            ),
            format!(
                "iteration cap {} for every solver but enum (which has none, as in Siconos); enum only for n ≤ {}",
                manifest.max_iterations("lemke").map_or_else(|| "–".to_owned(), |k| k.to_string()),
                manifest.enum_max_size
            ),
            "ours: criterion median of one solve (`benches/benches/lcp.rs`, built with the `bench` profile: fat LTO, \
             one codegen unit; z reset to 0 inside each timed iteration); status, iterations and residual from `nonsmooth solve --json`"
                .to_owned(),
            format!(
                "Siconos: median of up to {} timed `linearComplementarity_driver` calls (`xtask/siconos_lcp.py`, \
                 OPENBLAS_NUM_THREADS=1), residual from `lcp_compute_error`",
                o.reps
            ),
            "residual: Siconos' LCP error ‖z − max(0, z − w)‖ / ‖q‖ on both sides".to_owned(),
            "caveat: Siconos' time includes the Python-to-C call of the binding (a fraction of a microsecond), \
             which weighs on the tiny collection files (n ≤ 9) and not on the random problems"
                .to_owned(),
        ],
    };
    let files = [
        ("lcp.md", report::markdown(&header, &rows)),
        ("lcp.csv", report::csv(&rows)),
        ("lcp-ratios.svg", report::svg(&rows)),
    ];
    for (name, text) in files {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("bench-report: wrote {}", path.display());
    }
    Ok(())
}

pub(crate) fn quick_env(cmd: &mut Command, quick: bool) {
    if quick {
        cmd.env(QUICK_ENV, "1");
    } else {
        cmd.env_remove(QUICK_ENV);
    }
}

fn fmt_tol(t: Option<f64>) -> String {
    t.map_or_else(|| "–".to_owned(), |t| format!("{t:e}"))
}

/// The problems and solvers listed by `write-bench-problems`.
#[derive(Debug)]
struct Manifest {
    enum_max_size: usize,
    /// (solver name, iteration cap).
    solvers: Vec<(String, Option<u64>)>,
    problems: Vec<ManifestProblem>,
}

#[derive(Debug)]
struct ManifestProblem {
    name: String,
    n: usize,
    path: PathBuf,
    random: bool,
    tolerance: f64,
    solvers: Vec<String>,
}

impl Manifest {
    fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let v: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        let bad = || format!("unexpected manifest layout in {}", path.display());
        let solvers = v["solvers"]
            .as_array()
            .with_context(bad)?
            .iter()
            .map(|s| Some((s["name"].as_str()?.to_owned(), s["max_iterations"].as_u64())))
            .collect::<Option<Vec<_>>>()
            .with_context(bad)?;
        let problems = v["problems"]
            .as_array()
            .with_context(bad)?
            .iter()
            .map(|p| {
                Some(ManifestProblem {
                    name: p["name"].as_str()?.to_owned(),
                    n: usize::try_from(p["n"].as_u64()?).ok()?,
                    path: PathBuf::from(p["path"].as_str()?),
                    random: p["source"].as_str()? == "random",
                    tolerance: p["tolerance"].as_f64()?,
                    solvers: p["solvers"]
                        .as_array()?
                        .iter()
                        .map(|s| s.as_str().map(str::to_owned))
                        .collect::<Option<_>>()?,
                })
            })
            .collect::<Option<Vec<_>>>()
            .with_context(bad)?;
        let enum_max_size = v["enum_max_size"].as_u64().and_then(|k| usize::try_from(k).ok()).with_context(bad)?;
        Ok(Manifest { enum_max_size, solvers, problems })
    }

    fn max_iterations(&self, solver: &str) -> Option<u64> {
        self.solvers.iter().find(|(name, _)| name == solver).and_then(|(_, cap)| *cap)
    }

    fn tolerance(&self, random: bool) -> Option<f64> {
        self.problems.iter().find(|p| p.random == random).map(|p| p.tolerance)
    }
}

/// Runs `nonsmooth solve` on one pair; exit 0 or 1 give the JSON report, 2 an `error: ...` status.
fn quality(nonsmooth: &Path, p: &ManifestProblem, solver: &str, cap: Option<u64>) -> anyhow::Result<Side> {
    let mut cmd = Command::new(nonsmooth);
    cmd.arg("solve").arg(&p.path).args(["--type", "lcp", "--solver", solver, "--json"]);
    cmd.args(["--tolerance", &format!("{:e}", p.tolerance)]);
    if let Some(k) = cap {
        cmd.args(["--max-iterations", &k.to_string()]);
    }
    let out = cmd.output().with_context(|| format!("cannot run {}", nonsmooth.display()))?;
    let side = match out.status.code() {
        Some(0 | 1) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let v: Value = serde_json::from_str(text.trim())
                .with_context(|| format!("nonsmooth solve {} --solver {solver}: not JSON: {text}", p.path.display()))?;
            Side {
                seconds: None,
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
    };
    eprintln!("  ours {solver:>10} {}/{}: {}", p.name, p.n, side.status);
    Ok(side)
}

/// `Ok(version)` when python3-siconos can be imported, else why not.
pub(crate) fn siconos_available() -> Result<String, String> {
    let import = python().args(["-c", "import siconos.numerics"]).output();
    match import {
        Ok(o) if o.status.success() => {}
        Ok(_) => return Err("python3-siconos missing".into()),
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

/// Reads the JSON lines of `siconos_lcp.py`.
fn read_siconos(path: &Path) -> anyhow::Result<HashMap<(String, usize, String), Side>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).with_context(|| format!("{}: not JSON: {line}", path.display()))?;
        let key = (
            v["problem"].as_str().unwrap_or_default().to_owned(),
            v["n"].as_u64().and_then(|n| usize::try_from(n).ok()).unwrap_or_default(),
            v["solver"].as_str().unwrap_or_default().to_owned(),
        );
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
        out.insert(key, side);
    }
    Ok(out)
}

/// Cargo's target directory (`cargo metadata`), so `CARGO_TARGET_DIR` is honoured.
pub(crate) fn target_dir() -> anyhow::Result<PathBuf> {
    let out = cargo().args(["metadata", "--format-version", "1", "--no-deps"]).output()?;
    if !out.status.success() {
        bail!("cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let v: Value = serde_json::from_slice(&out.stdout).context("parsing cargo metadata")?;
    Ok(PathBuf::from(v["target_directory"].as_str().context("no target_directory in cargo metadata")?))
}

/// `git rev-parse HEAD`, marked when the tree has uncommitted changes.
pub(crate) fn commit(root: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    match git(&["rev-parse", "HEAD"]) {
        Some(hash) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty { format!("{hash} (with uncommitted changes)") } else { hash }
        }
        None => "unknown (not a git checkout)".into(),
    }
}

/// The CPU model from `/proc/cpuinfo`, with its family and model numbers (a virtual machine may
/// name only the vendor's line, "AMD EPYC", for processors of different generations), and the
/// number of logical CPUs.
pub(crate) fn cpu_model() -> String {
    match std::fs::read_to_string("/proc/cpuinfo") {
        Ok(info) => cpu_model_from(&info),
        Err(_) => "unknown".into(),
    }
}

/// [`cpu_model`] from the text of `/proc/cpuinfo`.
fn cpu_model_from(info: &str) -> String {
    // The first processor's `key : value` fields.
    let field = |key: &str| {
        info.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().to_owned())
        })
    };
    let model = field("model name").unwrap_or_else(|| "unknown model".into());
    let count = info.lines().filter(|l| l.split_once(':').is_some_and(|(k, _)| k.trim() == "processor")).count();
    match (field("cpu family"), field("model")) {
        (Some(family), Some(number)) => format!("{model} (family {family}, model {number}; {count} logical CPUs)"),
        _ => format!("{model} ({count} logical CPUs)"),
    }
}

/// The current UTC date and time, `YYYY-MM-DD HH:MM UTC`.
pub(crate) fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400) as i64);
    let rem = secs % 86_400;
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", rem / 3600, (rem % 3600) / 60)
}

/// Gregorian (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_fields() {
        let info = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n\
                    model name\t: AMD EPYC\n\nprocessor\t: 1\ncpu family\t: 26\nmodel\t\t: 2\n\
                    model name\t: AMD EPYC\n";
        assert_eq!(cpu_model_from(info), "AMD EPYC (family 26, model 2; 2 logical CPUs)");
        assert_eq!(cpu_model_from("processor : 0\n"), "unknown model (1 logical CPUs)");
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_089), (2025, 1, 1));
    }

    #[test]
    fn options_parse() {
        let args: Vec<String> = ["--quick", "--reps", "3", "--out", "x"].iter().map(|s| s.to_string()).collect();
        let o = Options::parse(&args).unwrap();
        assert!(o.quick && o.reps == 3 && o.out == Some(PathBuf::from("x")));
        assert_eq!(o.baseline, "bench-report-quick");
        assert!(Options::parse(&["--reps".to_string()]).is_err());
        assert!(Options::parse(&["--bogus".to_string()]).is_err());
        let only = |v: &str| Options::parse(&["--only".to_string(), v.to_string()]);
        assert_eq!(only("fc3d").unwrap().only.as_deref(), Some("fc3d"));
        assert_eq!(only("lcp").unwrap().only.as_deref(), Some("lcp"));
        assert_eq!(only("mechanics").unwrap().only.as_deref(), Some("mechanics"));
        assert_eq!(only("gfc3d").unwrap().only.as_deref(), Some("gfc3d"));
        assert_eq!(only("gmp").unwrap().only.as_deref(), Some("gmp"));
        assert!(only("mlcp").is_err());
    }
}
