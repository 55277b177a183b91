//! The LCP benchmark report: rows (one per problem and solver), summary against the targets,
//! and the three outputs (markdown, CSV, SVG plot of the time ratios).

use std::fmt::Write as _;

/// What one implementation did on one (problem, solver) pair.
#[derive(Clone, Debug, Default)]
pub(crate) struct Side {
    /// Time of one solve in seconds (ours: criterion median; Siconos: median of the repetitions).
    pub(crate) seconds: Option<f64>,
    /// `converged`, or how it stopped (`max-iterations`, `failed`, `n/a`, `error: ...`).
    pub(crate) status: String,
    /// Iterations reported by the solver.
    pub(crate) iterations: Option<u64>,
    /// Siconos' LCP error at the returned point.
    pub(crate) residual: Option<f64>,
}

impl Side {
    pub(crate) fn converged(&self) -> bool {
        self.status == "converged"
    }
}

/// One table row.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// `random` or the collection file's stem.
    pub(crate) problem: String,
    /// Size `n`.
    pub(crate) n: usize,
    /// Whether the problem is one of the random ones (else a collection file).
    pub(crate) random: bool,
    /// Solver name (`lemke`, `pgs`, ...).
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

    /// Whether both converged and both times exist: only such pairs enter the summary.
    fn comparable(&self) -> Option<f64> {
        let s = self.siconos.as_ref()?;
        if self.ours.converged() && s.converged() { self.ratio() } else { None }
    }
}

/// What the report's header states.
#[derive(Clone, Debug)]
pub(crate) struct Header {
    /// Commit of the measured tree.
    pub(crate) commit: String,
    /// CPU model and core count.
    pub(crate) cpu: String,
    /// Date of the run.
    pub(crate) date: String,
    /// `Ok(version)` when Siconos ran, `Err(reason)` otherwise.
    pub(crate) siconos: Result<String, String>,
    /// Whether only the quick subset was measured.
    pub(crate) quick: bool,
    /// Lines describing how the numbers were measured.
    pub(crate) method: Vec<String>,
}

/// One solver's summary against its target.
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    pub(crate) solver: String,
    /// Median ratio on the random problems with n ≥ 200, and the number of pairs.
    pub(crate) random_median: Option<f64>,
    pub(crate) random_pairs: usize,
    /// Largest ratio on the collection files, and the number of pairs.
    pub(crate) files_max: Option<f64>,
    pub(crate) files_pairs: usize,
    /// The target in words (empty when the solver has none).
    pub(crate) target: &'static str,
    /// `Some(met)` when the target could be evaluated.
    pub(crate) met: Option<bool>,
}

/// Size from which a random problem counts in the summary.
const SUMMARY_MIN_SIZE: usize = 200;

pub(crate) fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len();
    Some(if k % 2 == 1 { v[k / 2] } else { 0.5 * (v[k / 2 - 1] + v[k / 2]) })
}

/// Per solver (in order of first appearance): the median ratio on random problems with
/// n ≥ 200 and the largest ratio on the files, over pairs where both converged, next to the
/// targets (Lemke: median ≤ 0.5 and every file ≤ 1; PGS: median ≤ 0.5).
pub(crate) fn summarize(rows: &[Row]) -> Vec<Summary> {
    let mut solvers: Vec<&str> = Vec::new();
    for r in rows {
        if !solvers.contains(&r.solver.as_str()) {
            solvers.push(&r.solver);
        }
    }
    solvers
        .into_iter()
        .map(|solver| {
            let mine = rows.iter().filter(|r| r.solver == solver);
            let random: Vec<f64> =
                mine.clone().filter(|r| r.random && r.n >= SUMMARY_MIN_SIZE).filter_map(Row::comparable).collect();
            let files: Vec<f64> = mine.filter(|r| !r.random).filter_map(Row::comparable).collect();
            let (random_pairs, files_pairs) = (random.len(), files.len());
            let random_median = median(random);
            let files_max = files.into_iter().reduce(f64::max);
            let (target, met) = match solver {
                "lemke" => (
                    "median ≤ 0.5 on random n ≥ 200, and ≤ 1 on every file",
                    random_median.zip(files_max).map(|(m, f)| m <= 0.5 && f <= 1.0),
                ),
                "pgs" => ("median ≤ 0.5 on random n ≥ 200", random_median.map(|m| m <= 0.5)),
                _ => ("", None),
            };
            Summary { solver: solver.to_owned(), random_median, random_pairs, files_max, files_pairs, target, met }
        })
        .collect()
}

/// A time in seconds with three significant digits, or `–`.
pub(crate) fn seconds(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |s| format!("{s:.3e}"))
}

pub(crate) fn ratio(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |r| format!("{r:.3}"))
}

pub(crate) fn residual(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |r| format!("{r:.2e}"))
}

pub(crate) fn iterations(x: Option<u64>) -> String {
    x.map_or_else(|| "–".to_owned(), |k| k.to_string())
}

/// Markdown cells must not contain `|` or line breaks.
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "/").replace('\n', " ")
}

/// The top of a report: title, provenance (commit, CPU, date, Siconos or why not), the method
/// lines. `without_siconos` completes the sentence when Siconos is not installed.
pub(crate) fn header_markdown(header: &Header, title: &str, without_siconos: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# {title}: nonsmooth against Siconos 4.4\n");
    let _ = writeln!(
        md,
        "Generated by `cargo xtask bench-report{}`; do not edit.\n",
        if header.quick { " --quick" } else { "" }
    );
    if header.quick {
        let _ = writeln!(md, "**Quick subset only** (pipeline check): not a measurement to quote.\n");
    }
    let _ = writeln!(md, "- commit: `{}`", header.commit);
    let _ = writeln!(md, "- CPU: {}", header.cpu);
    let _ = writeln!(md, "- date: {}", header.date);
    match &header.siconos {
        Ok(version) => {
            let _ = writeln!(md, "- Siconos: {version}, measured in the same run");
        }
        Err(reason) => {
            let _ = writeln!(md, "- Siconos 4.4 not installed: {reason}, {without_siconos}");
        }
    }
    for line in &header.method {
        let _ = writeln!(md, "- {line}");
    }
    md
}

/// `docs/benchmarks/lcp.md`.
pub(crate) fn markdown(header: &Header, rows: &[Row]) -> String {
    let mut md = header_markdown(header, "LCP solvers", "no comparison");

    let _ = writeln!(md, "\n## Summary\n");
    let _ = writeln!(
        md,
        "Ratio = our time / Siconos' time (below 1: we are faster). Only pairs where both converged \
         count here; every pair is in the table below.\n"
    );
    let _ = writeln!(md, "| solver | median ratio, random n ≥ 200 | max ratio, files | target | met |");
    let _ = writeln!(md, "|---|---|---|---|---|");
    for s in summarize(rows) {
        let met = match s.met {
            Some(true) => "yes",
            Some(false) => "**no**",
            None if s.target.is_empty() => "",
            None => "not measured",
        };
        let _ = writeln!(
            md,
            "| {} | {} ({} pairs) | {} ({} pairs) | {} | {} |",
            s.solver,
            ratio(s.random_median),
            s.random_pairs,
            ratio(s.files_max),
            s.files_pairs,
            if s.target.is_empty() { "–" } else { s.target },
            met
        );
    }

    let _ = writeln!(md, "\n## Every problem and solver\n");
    let _ = writeln!(md, "![ratios](lcp-ratios.svg)\n");
    let _ = writeln!(
        md,
        "| problem | n | solver | ours [s] | Siconos [s] | ours/Siconos | our status | Siconos status | \
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
            r.n,
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

pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

pub(crate) fn opt<T: ToString>(x: Option<T>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

/// A float in the shortest form that reads back exactly, in exponent notation (`1.5e-6`).
pub(crate) fn opt_f64(x: Option<f64>) -> String {
    x.map(|v| format!("{v:e}")).unwrap_or_default()
}

/// `docs/benchmarks/lcp.csv`: one line per row, empty fields for values not measured.
pub(crate) fn csv(rows: &[Row]) -> String {
    let mut out = format!("problem,n,solver,{SIDE_BY_SIDE_CSV_HEADER}\n");
    for r in rows {
        let fields = [csv_field(&r.problem), r.n.to_string(), csv_field(&r.solver)];
        push_csv_line(&mut out, &fields, &r.ours, r.siconos.as_ref(), r.ratio());
    }
    out
}

/// The CSV columns of one side-by-side result, after the columns naming the problem and solver.
pub(crate) const SIDE_BY_SIDE_CSV_HEADER: &str = "ours_seconds,siconos_seconds,ratio,ours_status,siconos_status,\
     ours_iterations,siconos_iterations,ours_residual,siconos_residual";

/// Appends one CSV line: `leading` (the columns naming the problem and solver), then ours and
/// Siconos' results in the order of [`SIDE_BY_SIDE_CSV_HEADER`], empty fields for values not
/// measured.
pub(crate) fn push_csv_line(
    out: &mut String,
    leading: &[String],
    ours: &Side,
    siconos: Option<&Side>,
    ratio: Option<f64>,
) {
    let s = siconos.cloned().unwrap_or_default();
    let results = [
        opt_f64(ours.seconds),
        opt_f64(s.seconds),
        opt_f64(ratio),
        csv_field(&ours.status),
        csv_field(&s.status),
        opt(ours.iterations),
        opt(s.iterations),
        opt_f64(ours.residual),
        opt_f64(s.residual),
    ];
    out.push_str(&leading.iter().chain(&results).cloned().collect::<Vec<_>>().join(","));
    out.push('\n');
}

pub(crate) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const COLORS: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

/// `docs/benchmarks/lcp-ratios.svg`: one dot per (problem, solver) pair with both times, on a
/// log-scale axis of the ratio ours/Siconos, with lines at 1 and 0.5. Hollow dots mark pairs
/// where one side did not converge.
pub(crate) fn svg(rows: &[Row]) -> String {
    // Grouped by solver (in order of first appearance), then in table order.
    let mut order: Vec<&str> = Vec::new();
    for r in rows {
        if !order.contains(&r.solver.as_str()) {
            order.push(&r.solver);
        }
    }
    let points: Vec<(&Row, f64)> = order
        .iter()
        .flat_map(|solver| rows.iter().filter(move |r| r.solver == *solver))
        .filter_map(|r| r.ratio().filter(|x| *x > 0.0).map(|x| (r, x)))
        .collect();
    let (label_w, plot_w, row_h, top, bottom) = (230.0, 520.0, 16.0, 56.0, 64.0);
    let width = label_w + plot_w + 30.0;
    let height = top + bottom + row_h * points.len().max(1) as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" font-size="14" text-anchor="middle">LCP solve time, nonsmooth / Siconos 4.4 (log scale; left of 1 = faster)</text>"#,
        width / 2.0
    );
    if points.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">no ratio measured (Siconos did not run)</text>"#,
            width / 2.0,
            top + 8.0
        );
        s.push_str("</svg>\n");
        return s;
    }
    let lo_data = points.iter().map(|p| p.1.log10()).fold(f64::INFINITY, f64::min);
    let hi_data = points.iter().map(|p| p.1.log10()).fold(f64::NEG_INFINITY, f64::max);
    let lo = lo_data.min(0.5f64.log10()).floor();
    let hi = hi_data.max(0.0).ceil().max(lo + 1.0);
    let x_of = |ratio: f64| label_w + plot_w * (ratio.log10() - lo) / (hi - lo);
    let plot_bottom = top + row_h * points.len() as f64;

    // Decade grid with labels.
    let mut decade = lo;
    while decade <= hi + 1e-9 {
        let x = label_w + plot_w * (decade - lo) / (hi - lo);
        let label = 10f64.powf(decade);
        let _ = writeln!(s, r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{plot_bottom}" stroke="#ddd"/>"##);
        let _ = writeln!(s, r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{label}</text>"#, plot_bottom + 14.0);
        decade += 1.0;
    }
    for (value, dash, name) in [(1.0, "", "1"), (0.5, r#" stroke-dasharray="4 3""#, "0.5")] {
        let x = x_of(value);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{plot_bottom}" stroke="#444"{dash}/>"##,
            top - 6.0
        );
        let _ = writeln!(s, r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{name}</text>"#, top - 9.0);
    }

    let mut solvers: Vec<&str> = Vec::new();
    for (i, (r, value)) in points.iter().enumerate() {
        let k = solvers.iter().position(|x| *x == r.solver).unwrap_or_else(|| {
            solvers.push(&r.solver);
            solvers.len() - 1
        });
        let color = COLORS[k % COLORS.len()];
        let y = top + row_h * (i as f64 + 0.5);
        let both = r.ours.converged() && r.siconos.as_ref().is_some_and(Side::converged);
        let fill = if both { color } else { "white" };
        let label = xml_escape(&format!("{} · {}/{}", r.solver, r.problem, r.n));
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"#, label_w - 8.0, y + 4.0);
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{y:.1}" r="4.5" fill="{fill}" stroke="{color}" stroke-width="1.5"><title>{label}: {value:.3}</title></circle>"#,
            x_of(*value)
        );
    }
    let legend_y = plot_bottom + 34.0;
    let mut x = label_w;
    for (k, solver) in solvers.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let _ = writeln!(s, r#"<circle cx="{x:.1}" cy="{legend_y:.1}" r="4.5" fill="{color}"/>"#);
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">{}</text>"#, x + 8.0, legend_y + 4.0, xml_escape(solver));
        x += 90.0;
    }
    let _ = writeln!(
        s,
        r#"<text x="{label_w:.1}" y="{:.1}">hollow dot: one side did not converge; dashed line: 0.5</text>"#,
        legend_y + 22.0
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(seconds: f64, status: &str) -> Side {
        Side { seconds: Some(seconds), status: status.to_owned(), iterations: Some(3), residual: Some(1e-12) }
    }

    fn row(problem: &str, n: usize, solver: &str, ours: f64, theirs: f64) -> Row {
        Row {
            problem: problem.to_owned(),
            n,
            random: problem == "random",
            solver: solver.to_owned(),
            ours: side(ours, "converged"),
            siconos: Some(side(theirs, "converged")),
        }
    }

    fn fixture() -> Vec<Row> {
        vec![
            row("random", 50, "lemke", 9.0, 1.0),       // n < 200: not in the summary median
            row("random", 200, "lemke", 1.0, 4.0),      // 0.25
            row("random", 1000, "lemke", 3.0, 10.0),    // 0.3
            row("lcp_exp_murty", 6, "lemke", 2.0, 1.0), // 2.0 on a file: target missed
            row("random", 200, "pgs", 1.0, 4.0),
            Row {
                siconos: Some(Side { status: "failed".into(), ..side(1.0, "failed") }),
                ..row("lcp_CPS_3", 4, "pgs", 5.0, 1.0)
            },
        ]
    }

    #[test]
    fn summary_uses_large_random_problems_and_converged_pairs() {
        let s = summarize(&fixture());
        assert_eq!(s.len(), 2);
        let lemke = &s[0];
        assert_eq!(lemke.solver, "lemke");
        assert_eq!(lemke.random_pairs, 2);
        assert!((lemke.random_median.unwrap() - 0.275).abs() < 1e-12);
        assert!((lemke.files_max.unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(lemke.met, Some(false), "the file ratio 2 misses ≤ 1");
        let pgs = &s[1];
        assert_eq!(pgs.files_pairs, 0, "Siconos failed on the only file: not comparable");
        assert_eq!(pgs.met, Some(true));
    }

    #[test]
    fn markdown_has_header_summary_and_one_row_per_pair() {
        let header = Header {
            commit: "abc123".into(),
            cpu: "Test CPU (2 logical CPUs)".into(),
            date: "2025-01-01 00:00 UTC".into(),
            siconos: Ok("4.4.0".into()),
            quick: false,
            method: vec!["tolerance 1e-10".into()],
        };
        let rows = fixture();
        let md = markdown(&header, &rows);
        assert!(md.contains("commit: `abc123`") && md.contains("Test CPU") && md.contains("Siconos: 4.4.0"));
        assert!(md.contains("| lemke | 0.275 (2 pairs) | 2.000 (1 pairs) |"), "{md}");
        assert!(md.contains("**no**") && md.contains("| yes |"));
        let table_rows = md.lines().filter(|l| l.starts_with("| random |") || l.starts_with("| lcp_")).count();
        assert_eq!(table_rows, rows.len());
        assert!(
            md.contains("| random | 200 | lemke | 1.000e0 | 4.000e0 | 0.250 | converged | converged | 3 / 3 |"),
            "{md}"
        );

        let absent = Header { siconos: Err("python3-siconos missing".into()), ..header };
        let md = markdown(&absent, &[Row { siconos: None, ..row("random", 50, "lemke", 1.0, 1.0) }]);
        assert!(md.contains("Siconos 4.4 not installed: python3-siconos missing, no comparison"), "{md}");
        assert!(md.contains("| – | – | converged | – |"), "{md}");
    }

    #[test]
    fn csv_and_svg_cover_every_pair() {
        let rows = fixture();
        let csv = csv(&rows);
        assert_eq!(csv.lines().count(), rows.len() + 1);
        assert!(
            csv.lines().nth(2).unwrap().starts_with("random,200,lemke,1e0,4e0,2.5e-1,converged,converged,3,3,1e-12,")
        );
        let svg = svg(&rows);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<circle cx").count() - 2, rows.len(), "one dot per pair plus two legend dots");
        assert!(svg.contains(">0.5</text>") && svg.contains(">1</text>"));
        assert!(svg.contains(r#"fill="white" stroke"#), "the pair Siconos failed is hollow");
        let empty = super::svg(&[]);
        assert!(empty.contains("no ratio measured"));
    }
}
