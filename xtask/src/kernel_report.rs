//! The kernel part of `cargo xtask bench-report`: Moreau–Jean time-stepping on the bouncing ball
//! and the two bead models, Euler–Moreau time-stepping on the first-order diode bridge
//! and relay examples, the event-driven bouncing ball, ours and Siconos 4.4's
//! in the same run; writes `kernel.md` and `kernel.csv`.
//!
//! Steps:
//! 1. `cargo bench -p nonsmooth-benches --bench kernel -- --save-baseline NAME`: criterion group
//!    `kernel`, ids `bouncing_ball`, `beads_column/N`, `beads_stack/N`, `diode_bridge`, `relay`,
//!    `bouncing_ball_ed`; one iteration is the whole
//!    stepping loop, so our per-step time is the median over the steps of the case
//!    ([`bench_steps`]; for the event-driven ball the events processed, 1744);
//! 2. `kernel-summary` (`cargo build --release -p nonsmooth-benches --bin kernel-summary`, then
//!    run): one JSON line per case with the active-contact statistics and the final-state
//!    checksums ([`CaseSummary`]);
//! 3. when python3-siconos imports, `xtask/siconos_kernel.py`: the same models built with
//!    Siconos 4.4's Python API, the same summary fields and the median loop
//!    time;
//! 4. the report: per case both per-step times, the ratio against the target (≤ 0.2; the
//!    Lagrangian time-stepping cases only: the first-order cases and the
//!    event-driven ball for the ratio, with no target),
//!    how the cost per step grows with N, the active contacts and the checksums side by side.
//!
//! `--quick` keeps N ≤ 100 (the bench and the summary bin read `NONSMOOTH_BENCH_QUICK`).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use anyhow::Context;
use serde_json::Value;

use crate::bench_report::{
    Options, commit, cpu_model, folders, python, quick_env, siconos_available, target_dir, utc_now,
};
use crate::report::{Header, cell, csv_field, header_markdown, opt, opt_f64, ratio, seconds};
use crate::{cargo, criterion, project_root, run_checked};

/// The criterion group of `benches/benches/kernel.rs`.
const GROUP: &str = "kernel";

/// The report's target: our per-step time at most this fraction of Siconos 4.4's, on every
/// Lagrangian (Moreau–Jean) case; the first-order cases have none.
pub(crate) const RATIO_TARGET: f64 = 0.2;

/// The first-order (Euler–Moreau) cases, one model each (N = 1), after the
/// Lagrangian ones.
const FIRST_ORDER: [&str; 2] = ["diode_bridge", "relay"];

/// Whether `case` is a first-order case (ratio shown, no target).
pub(crate) fn is_first_order(case: &str) -> bool {
    FIRST_ORDER.contains(&case)
}

/// The event-driven case (N = 1), last in the report: Siconos' `BouncingBallED`
/// (LSODAR, output grid h = 0.005 up to T = 8.5), ratio shown, no target.
const EVENT_DRIVEN: &str = "bouncing_ball_ed";

/// Events of one run of [`EVENT_DRIVEN`]: 1700 grid points and 44 impacts (both sides; the 1788
/// rows of `BouncingBallED.ref` are these events and one pre-impact row per impact).
const EVENT_DRIVEN_EVENTS: u64 = 1744;

/// Whether `case` is the event-driven case (its "steps" are events; ratio shown, no target).
pub(crate) fn is_event_driven(case: &str) -> bool {
    case == EVENT_DRIVEN
}

/// The bead counts of the two bead models.
const SIZES: [usize; 3] = [10, 100, 1000];

/// The cases in report order: `(case, N)`; the ball and the first-order cases have N = 1.
/// `--quick` keeps N ≤ 100.
pub(crate) fn cases(quick: bool) -> Vec<(&'static str, usize)> {
    let mut out = vec![("bouncing_ball", 1)];
    for case in ["beads_column", "beads_stack"] {
        out.extend(SIZES.iter().filter(|&&n| !quick || n <= 100).map(|&n| (case, n)));
    }
    out.extend(FIRST_ORDER.iter().map(|&case| (case, 1)));
    out.push((EVENT_DRIVEN, 1));
    out
}

/// Steps of one criterion iteration (the contract with `benches/benches/kernel.rs`
/// and `xtask/siconos_kernel.py`): 2000 for the ball (h = 0.005,
/// T = 10), 1000 for the bead models (h = 1e-3), but 100 for the stack of 1000 beads; 5000 for
/// the diode bridge (h = 1e-6, T = 5e-3; `DiodeBridge.ref` keeps the first 4999) and 800 for
/// the relay (h = 1e-3, as `SimpleExampleRelay`); for the event-driven ball the events processed
/// by one run (1744: 1700 grid points and 44 impacts).
pub(crate) fn bench_steps(case: &str, n: usize) -> u64 {
    match (case, n) {
        (EVENT_DRIVEN, _) => EVENT_DRIVEN_EVENTS,
        ("bouncing_ball", _) => 2000,
        ("diode_bridge", _) => 5000,
        ("relay", _) => 800,
        ("beads_stack", n) if n >= 1000 => 100,
        _ => 1000,
    }
}

/// What `kernel-summary` and `siconos_kernel.py` print per case (one JSON object per line).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CaseSummary {
    pub(crate) case: String,
    pub(crate) n: usize,
    pub(crate) steps: u64,
    /// Largest number of interactions in the LCP of one step.
    pub(crate) active_max: u64,
    /// Mean number of interactions in the LCP, over all steps.
    pub(crate) active_mean: f64,
    /// Steps whose LCP had at least one interaction.
    pub(crate) steps_with_contacts: u64,
    /// Final height of the bottom and the top bead (the ball: x), their sum, and the sum of the
    /// final velocities. First-order cases: the first and the last component of the final
    /// state `x`, `Σ x`, and `Σ λ` of the final multipliers.
    pub(crate) z_bottom: f64,
    pub(crate) z_top: f64,
    pub(crate) sum_z: f64,
    pub(crate) sum_v: f64,
}

impl CaseSummary {
    /// Reads one line's object; the error names the first missing or mistyped field.
    fn from_json(v: &Value) -> Result<Self, &'static str> {
        let text = |k: &'static str| v[k].as_str().map(str::to_owned).ok_or(k);
        let int = |k: &'static str| v[k].as_u64().ok_or(k);
        let float = |k: &'static str| v[k].as_f64().ok_or(k);
        Ok(CaseSummary {
            case: text("case")?,
            n: usize::try_from(int("n")?).map_err(|_| "n")?,
            steps: int("steps")?,
            active_max: int("active_max")?,
            active_mean: float("active_mean")?,
            steps_with_contacts: int("steps_with_contacts")?,
            z_bottom: float("z_bottom")?,
            z_top: float("z_top")?,
            sum_z: float("sum_z")?,
            sum_v: float("sum_v")?,
        })
    }
}

/// One implementation's result on one case.
#[derive(Clone, Debug, Default)]
pub(crate) struct KernelSide {
    /// Time of one step in seconds (ours: criterion median / steps; Siconos: median loop time /
    /// steps).
    pub(crate) per_step: Option<f64>,
    pub(crate) summary: Option<CaseSummary>,
}

/// One case of the report.
#[derive(Clone, Debug)]
pub(crate) struct KernelRow {
    pub(crate) case: String,
    pub(crate) n: usize,
    pub(crate) ours: KernelSide,
    /// `None` when Siconos did not run.
    pub(crate) siconos: Option<KernelSide>,
}

impl KernelRow {
    /// Our per-step time over Siconos', when both were measured.
    pub(crate) fn ratio(&self) -> Option<f64> {
        let ours = self.ours.per_step?;
        let theirs = self.siconos.as_ref()?.per_step?;
        (theirs > 0.0).then(|| ours / theirs)
    }

    /// Whether the 0.2 target applies (the Lagrangian time-stepping cases; not the
    /// first-order ones nor the event-driven ball).
    pub(crate) fn has_target(&self) -> bool {
        !is_first_order(&self.case) && !is_event_driven(&self.case)
    }

    /// `Some(ratio ≤ 0.2)` when the target applies and the ratio was measured.
    pub(crate) fn target_met(&self) -> Option<bool> {
        self.ratio().filter(|_| self.has_target()).map(|r| r <= RATIO_TARGET)
    }

    /// Largest relative difference between the two sides' z checksums (bottom, top, Σz).
    pub(crate) fn checksum_difference(&self) -> Option<f64> {
        let a = self.ours.summary.as_ref()?;
        let b = self.siconos.as_ref()?.summary.as_ref()?;
        let rel = |x: f64, y: f64| (x - y).abs() / x.abs().max(y.abs()).max(f64::MIN_POSITIVE);
        Some(rel(a.z_bottom, b.z_bottom).max(rel(a.z_top, b.z_top)).max(rel(a.sum_z, b.sum_z)))
    }
}

/// Parses JSON lines of [`CaseSummary`] objects (blank lines skipped; other fields ignored).
pub(crate) fn parse_summaries(text: &str, source: &str) -> anyhow::Result<Vec<(CaseSummary, Value)>> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: Value =
            serde_json::from_str(line).with_context(|| format!("{source}, line {}: not JSON: {line}", k + 1))?;
        let summary = CaseSummary::from_json(&v)
            .map_err(|field| anyhow::anyhow!("{source}, line {}: no valid {field:?} in {line}", k + 1))?;
        out.push((summary, v));
    }
    Ok(out)
}

/// Our per-case median times (seconds per criterion iteration) from the criterion estimates:
/// group `kernel`, function = case, value = N (none for the ball, N = 1).
pub(crate) fn ours_times(estimates: &[criterion::Estimate]) -> HashMap<(String, usize), f64> {
    estimates
        .iter()
        .filter(|e| e.group == GROUP)
        .filter_map(|e| {
            let n = match &e.value {
                None => 1,
                Some(v) => v.parse().ok()?,
            };
            Some(((e.function.clone(), n), e.median_seconds))
        })
        .collect()
}

/// Siconos' side per case from `siconos_kernel.py`'s lines: the summary and `seconds` / steps.
pub(crate) fn siconos_sides(text: &str, source: &str) -> anyhow::Result<HashMap<(String, usize), KernelSide>> {
    Ok(parse_summaries(text, source)?
        .into_iter()
        .map(|(s, v)| {
            let per_step = v["seconds"].as_f64().filter(|_| s.steps > 0).map(|t| t / s.steps as f64);
            ((s.case.clone(), s.n), KernelSide { per_step, summary: Some(s) })
        })
        .collect())
}

/// The report rows: one per case of [`cases`], ours from the criterion medians and our summary
/// lines, Siconos' when it ran (a case it did not report gets an empty side).
pub(crate) fn rows(
    quick: bool,
    times: &HashMap<(String, usize), f64>,
    ours: &[CaseSummary],
    siconos: Option<&HashMap<(String, usize), KernelSide>>,
) -> Vec<KernelRow> {
    cases(quick)
        .into_iter()
        .map(|(case, n)| {
            let key = (case.to_owned(), n);
            let per_step = times.get(&key).map(|t| t / bench_steps(case, n) as f64);
            let summary = ours.iter().find(|s| s.case == case && s.n == n).cloned();
            KernelRow {
                case: case.to_owned(),
                n,
                ours: KernelSide { per_step, summary },
                siconos: siconos.map(|m| m.get(&key).cloned().unwrap_or_default()),
            }
        })
        .collect()
}

/// A value with six significant digits (exponent notation outside [1e-3, 1e5)), or `–`.
fn value(x: Option<f64>) -> String {
    match x {
        None => "–".to_owned(),
        Some(v) if v == 0.0 || (1e-3..1e5).contains(&v.abs()) => {
            let digits = if v == 0.0 { 5 } else { (5 - v.abs().log10().floor() as i32).max(0) as usize };
            format!("{v:.digits$}")
        }
        Some(v) => format!("{v:.5e}"),
    }
}

fn pass(r: &KernelRow) -> &'static str {
    match r.target_met() {
        _ if !r.has_target() => "no target",
        Some(true) => "PASS",
        Some(false) => "**FAIL**",
        None => "not measured",
    }
}

/// "cost per step vs N" for one bead model: on each side, the per-step time ratio and the mean
/// active-contact ratio for N = 10 → 100 and 100 → 1000 (linear growth: the two ratios match),
/// then the mean active counts themselves.
pub(crate) fn growth_line(rows: &[KernelRow], case: &str) -> String {
    let find = |n: usize| rows.iter().find(|r| r.case == case && r.n == n);
    let side = |r: &KernelRow, ours: bool| if ours { Some(r.ours.clone()) } else { r.siconos.clone() };
    let time = |n: usize, ours: bool| side(find(n)?, ours)?.per_step;
    let active = |n: usize, ours: bool| side(find(n)?, ours)?.summary.map(|s| s.active_mean);
    let growth = |f: &dyn Fn(usize, bool) -> Option<f64>, a: usize, b: usize, ours: bool| {
        let (x, y) = (f(a, ours)?, f(b, ours)?);
        (x > 0.0).then(|| y / x)
    };
    let times = |ours: bool| {
        [(10, 100), (100, 1000)]
            .iter()
            .map(|&(a, b)| {
                format!(
                    "time ×{}, active ×{} ({a} → {b})",
                    ratio(growth(&time, a, b, ours)),
                    ratio(growth(&active, a, b, ours))
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let means = |ours: bool| {
        SIZES
            .iter()
            .map(|&n| active(n, ours).map_or_else(|| "–".to_owned(), |m| format!("{m:.1}")))
            .collect::<Vec<_>>()
            .join(" → ")
    };
    format!(
        "`{case}`: ours {}. Siconos {}. Mean active contacts (N = 10 → 100 → 1000): ours {}, Siconos {}",
        times(true),
        times(false),
        means(true),
        means(false)
    )
}

/// `docs/benchmarks/kernel.md`.
pub(crate) fn markdown(header: &Header, rows: &[KernelRow]) -> String {
    let mut md = header_markdown(header, "Kernel time-stepping", "no comparison (our side only)");

    let _ = writeln!(md, "\n## Summary\n");
    let _ = writeln!(
        md,
        "Per-step time of Moreau–Jean time-stepping (θ = 1/2) with the LCP `W = H M⁻¹ Hᵀ` solved \
         exactly at every step. Siconos: Lemke on the dense matrix (its default). Ours: the same Lemke on \
         the dense matrix for the ball and N = 10; for N ≥ 100 block principal pivoting (`bpp`, tolerance \
         1e-10) on the sparse-block matrix, warm started from the previous step's active set \
         (`benches/src/kernel_models.rs`). The LCP matrix is positive definite, so its solution is unique \
         and both solvers return it to rounding. Ratio = ours / Siconos' (below 1: we are faster). Target: \
         ratio ≤ {RATIO_TARGET} on the bouncing ball and on every bead case.\n\n\
         First-order cases: Euler–Moreau time-stepping (θ = 1/2), every interaction in every \
         step's problem. `diode_bridge` (Siconos' `DiodeBridge`): a 4×4 LCP per step, by Lemke on the dense \
         matrix on both sides. `relay` (Siconos' `SimpleExampleRelay`): a relay problem of size 2 per step, \
         by projected Gauss–Seidel on both sides (`SICONOS_RELAY_PGS`). Their ratio is shown \
         with no PASS/FAIL (\"no target\").\n\n\
         Event-driven case: `bouncing_ball_ed` (Siconos' `BouncingBallED`, output grid h = 0.005 up \
         to T = 8.5): smooth flights by LSODAR at Siconos' tolerances (ours: our port of it; Siconos: \
         `LsodarOSI`) with root finding on the gap, an impact LCP (`SICONOS_OSNSP_ED_IMPACT`) and an \
         acceleration LCP (`SICONOS_OSNSP_ED_SMOOTH_ACC`) at the nonsmooth events. Its \"steps\" are the \
         events processed by the `while has_next_event {{ advance_to_event; process_events }}` loop: \
         {EVENT_DRIVEN_EVENTS} (1700 grid points and 44 impacts, on both sides), so its times are per event \
         (loop time / {EVENT_DRIVEN_EVENTS}). Its ratio is shown with no PASS/FAIL (\"no target\").\n"
    );
    let _ = writeln!(
        md,
        "| case | N | steps | ours [s/step] | Siconos [s/step] | ours/Siconos | target ≤ {RATIO_TARGET} |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    for r in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.case),
            r.n,
            bench_steps(&r.case, r.n),
            seconds(r.ours.per_step),
            seconds(r.siconos.as_ref().and_then(|s| s.per_step)),
            ratio(r.ratio()),
            pass(r)
        );
    }
    let measured: Vec<bool> = rows.iter().filter_map(KernelRow::target_met).collect();
    let met = measured.iter().filter(|m| **m).count();
    let with_target = rows.iter().filter(|r| r.has_target()).count();
    let _ = writeln!(
        md,
        "\nTarget met on {met} of {} measured cases ({with_target} cases with the target in this run){}.",
        measured.len(),
        if !measured.is_empty() && met == measured.len() && measured.len() == with_target {
            ": **every case passes**"
        } else {
            ""
        }
    );

    let _ = writeln!(md, "\n## Cost per step vs N\n");
    let _ = writeln!(
        md,
        "Ratio of per-step times between consecutive N, next to the mean number of active contacts (the LCP \
         size) per step; the cost should grow like the active contacts do. The stack with N = 1000 runs only \
         100 steps, so its mean covers the first 100 steps.\n"
    );
    for case in ["beads_column", "beads_stack"] {
        let _ = writeln!(md, "- {}", growth_line(rows, case));
    }

    let _ = writeln!(md, "\n## Active contacts and physical checksums\n");
    let _ = writeln!(
        md,
        "Active = interactions in the LCP of a step (Siconos: `y + γ h ẏ ≤ 0` at the start of the step, γ = 1/2). \
         z = final height of the bottom / top bead (the ball: x), Σz and Σv over every bead. The ball should \
         match to rounding. The bead models match exactly only until the first impacts: once beads rest on \
         each other, whether a contact with a gap ≈ 0 enters the LCP is decided at rounding level, so after \
         that the runs agree statistically (close active counts and checksums), not digit for digit. \
         Rel. diff = largest relative difference of z bottom, z top and Σz.\n\n\
         First-order cases: active = interactions in the step's problem (index set 0, so always 1); the columns \
         hold the final state `x`: z bottom = x₀, z top = the last xᵢ, Σz = Σ xᵢ, Σv = Σ λⱼ of the final \
         multipliers. `diode_bridge`: x = (V_C, i_L), λ = the diode voltages and currents. `relay`: x = (x₀, x₁), \
         both in the sliding mode at 0 from t = 0.5 on, so the final values are 0 (or rounding-level).\n\n\
         Event-driven ball: steps = events processed; active = 1 on an event that solved an impact (else 0), \
         so steps with contacts = the number of impacts; z bottom = z top = Σz = the final x, Σv = the final \
         ẋ (t = 8.5). It should match to rounding (ours reproduces `BouncingBallED.ref` to 8.9e-16).\n"
    );
    let _ = writeln!(
        md,
        "| case | N | steps (ours / Siconos) | active max | active mean | steps with contacts | z bottom | z top | \
         Σz | Σv | rel. diff |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let a = r.ours.summary.as_ref();
        let b = r.siconos.as_ref().and_then(|s| s.summary.as_ref());
        let pair = |f: &dyn Fn(&CaseSummary) -> String| {
            format!("{} / {}", a.map_or_else(|| "–".to_owned(), f), b.map_or_else(|| "–".to_owned(), f))
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.case),
            r.n,
            pair(&|s| s.steps.to_string()),
            pair(&|s| s.active_max.to_string()),
            pair(&|s| format!("{:.1}", s.active_mean)),
            pair(&|s| s.steps_with_contacts.to_string()),
            pair(&|s| value(Some(s.z_bottom))),
            pair(&|s| value(Some(s.z_top))),
            pair(&|s| value(Some(s.sum_z))),
            pair(&|s| value(Some(s.sum_v))),
            r.checksum_difference().map_or_else(|| "–".to_owned(), |d| format!("{d:.1e}"))
        );
    }
    let off: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let s = r.ours.summary.as_ref()?;
            (s.steps != bench_steps(&r.case, r.n)).then(|| format!("`{}/{}` ({} steps)", r.case, r.n, s.steps))
        })
        .collect();
    if !off.is_empty() {
        let _ = writeln!(
            md,
            "\n**Warning**: our summary ran a different number of steps than the bench on {}; the per-step times \
             divide by the bench's count.",
            off.join(", ")
        );
    }
    md
}

/// `docs/benchmarks/kernel.csv`: one line per case, empty fields for values not measured.
pub(crate) fn csv(rows: &[KernelRow]) -> String {
    let mut out = String::from("case,n,steps,ours_seconds_per_step,siconos_seconds_per_step,ratio,target_met");
    for side in ["ours", "siconos"] {
        for field in
            ["steps", "active_max", "active_mean", "steps_with_contacts", "z_bottom", "z_top", "sum_z", "sum_v"]
        {
            let _ = write!(out, ",{side}_{field}");
        }
    }
    out.push('\n');
    for r in rows {
        let mut fields = vec![
            csv_field(&r.case),
            r.n.to_string(),
            bench_steps(&r.case, r.n).to_string(),
            opt_f64(r.ours.per_step),
            opt_f64(r.siconos.as_ref().and_then(|s| s.per_step)),
            opt_f64(r.ratio()),
            opt(r.target_met()),
        ];
        for summary in [r.ours.summary.as_ref(), r.siconos.as_ref().and_then(|s| s.summary.as_ref())] {
            let s = summary;
            fields.extend([
                opt(s.map(|s| s.steps)),
                opt(s.map(|s| s.active_max)),
                opt_f64(s.map(|s| s.active_mean)),
                opt(s.map(|s| s.steps_with_contacts)),
                opt_f64(s.map(|s| s.z_bottom)),
                opt_f64(s.map(|s| s.z_top)),
                opt_f64(s.map(|s| s.sum_z)),
                opt_f64(s.map(|s| s.sum_v)),
            ]);
        }
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// Runs the kernel part of the report.
pub(crate) fn run(o: &Options) -> anyhow::Result<()> {
    let root = project_root();
    let target = target_dir()?;
    let (work, out) = folders(o, &target)?;

    let started = SystemTime::now();
    if o.skip_bench {
        eprintln!("bench-report: reusing the kernel criterion baseline {:?}", o.baseline);
    } else {
        eprintln!("bench-report: running the kernel criterion benches (baseline {:?})", o.baseline);
        let mut bench = cargo();
        bench.args(["bench", "-p", "nonsmooth-benches", "--bench", "kernel", "--", "--save-baseline", &o.baseline]);
        quick_env(&mut bench, o.quick);
        run_checked(&mut bench)?;
    }
    let criterion_dir = std::env::var_os("CRITERION_HOME").map_or_else(|| target.join("criterion"), PathBuf::from);
    let estimates = criterion::read_estimates(&criterion_dir, &o.baseline, (!o.skip_bench).then_some(started))?;
    let times = ours_times(&estimates);

    eprintln!("bench-report: our kernel summaries (kernel-summary)");
    run_checked(cargo().args(["build", "--release", "-p", "nonsmooth-benches", "--bin", "kernel-summary"]))?;
    let mut summary = Command::new(target.join("release").join("kernel-summary"));
    quick_env(&mut summary, o.quick);
    let output = summary.output().context("cannot run kernel-summary")?;
    if !output.status.success() {
        anyhow::bail!("kernel-summary failed ({}): {}", output.status, String::from_utf8_lossy(&output.stderr));
    }
    let ours: Vec<CaseSummary> = parse_summaries(&String::from_utf8_lossy(&output.stdout), "kernel-summary output")?
        .into_iter()
        .map(|(s, _)| s)
        .collect();

    let (siconos_version, theirs) = match siconos_available() {
        Ok(version) => {
            eprintln!("bench-report: running Siconos' time-stepping ({version})");
            let results = work.join("siconos-kernel.jsonl");
            let mut py = python();
            py.arg(root.join("xtask/siconos_kernel.py"))
                .arg("--out")
                .arg(&results)
                .args(["--reps", &o.reps.to_string()])
                .args(["--max-seconds", if o.quick { "2" } else { "20" }])
                .env("OPENBLAS_NUM_THREADS", "1")
                .env("OMP_NUM_THREADS", "1");
            if o.quick {
                py.arg("--quick");
            }
            run_checked(&mut py)?;
            let text = read(&results)?;
            (Ok(version), Some(siconos_sides(&text, &results.display().to_string())?))
        }
        Err(reason) => {
            eprintln!("bench-report: Siconos not run: {reason}");
            (Err(reason), None)
        }
    };

    let rows = rows(o.quick, &times, &ours, theirs.as_ref());
    let header = Header {
        commit: commit(&root),
        cpu: cpu_model(),
        date: utc_now(),
        siconos: siconos_version,
        quick: o.quick,
        method: vec![
            "models: Siconos' examples — bouncing ball (h = 0.005, 2000 steps), falling bead \
             column (R = 0.1, gaps 0.01) and resting bead stack (R = 0.125, gaps 0), N = 10, 100, 1000, h = 1e-3, \
             e = 0.9, 1000 steps (100 for the stack of 1000 beads); first order (`../shared/data/reference/README.md`): \
             diode bridge (h = 1e-6, 5000 steps, t = 0 → 5e-3; `DiodeBridge.ref` holds the first 4999) and \
             relay (`SimpleExampleRelay`, h = 1e-3, 800 steps); event-driven: bouncing ball \
             (`BouncingBallED`, LSODAR, h = 0.005, T = 8.5, 1744 events: 1700 grid points, 44 impacts)"
                .to_owned(),
            "ours: criterion median of the whole stepping loop on a freshly built model (`benches/benches/kernel.rs`, \
             `bench` profile), divided by the steps; active contacts and checksums from the `kernel-summary` bin"
                .to_owned(),
            format!(
                "Siconos: median of up to {} timed `while s.hasNextEvent(): s.computeOneStep(); s.nextStep()` loops \
                 (event-driven: `s.advanceToEvent(); s.processEvents()`), each on a newly built model \
                 (`xtask/siconos_kernel.py`, OPENBLAS_NUM_THREADS=1), divided by the steps (events); active \
                 contacts (the LCP size) and checksums from one more, untimed and instrumented, run",
                if o.quick { 1 } else { o.reps }
            ),
            "caveat: Siconos' loop is driven from Python: three binding calls per step, about 0.1 µs each \
             (measured on `hasNextEvent`; three per event for the event-driven ball), which weighs only on the \
             cases of a few µs per step (the bouncing balls, the diode bridge and the relay)"
                .to_owned(),
        ],
    };
    for (name, text) in [("kernel.md", markdown(&header, &rows)), ("kernel.csv", csv(&rows))] {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("bench-report: wrote {}", path.display());
    }
    Ok(())
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

#[cfg(test)]
mod tests;
