use super::*;

/// A hand-written `kernel-summary` output in the contract's layout (values from
/// siconos44.md's table where it gives them).
const SUMMARY_SAMPLE: &str = r#"{"case":"bouncing_ball","n":1,"steps":2000,"active_max":1,"active_mean":0.177,"steps_with_contacts":354,"z_bottom":-2.2886180905507172e-05,"z_top":-2.2886180905507172e-05,"sum_z":-2.2886180905507172e-05,"sum_v":-2.7755575615628914e-17}

{"case":"beads_column","n":10,"steps":1000,"active_max":10,"active_mean":5.825,"steps_with_contacts":769,"z_bottom":0.0999646,"z_top":1.8998946,"sum_z":9.9992843,"sum_v":1.5e-17}
{"case":"beads_column","n":100,"steps":1000,"active_max":96,"active_mean":58.8,"steps_with_contacts":840,"z_bottom":0.0996539,"z_top":20.0301706,"sum_z":998.5585515,"sum_v":-0.2131137}
{"case":"beads_stack","n":10,"steps":1000,"active_max":10,"active_mean":9.97,"steps_with_contacts":1000,"z_bottom":0.125,"z_top":2.375,"sum_z":12.4996,"sum_v":0.0}
"#;

fn summaries() -> Vec<CaseSummary> {
    parse_summaries(SUMMARY_SAMPLE, "sample").unwrap().into_iter().map(|(s, _)| s).collect()
}

fn estimate(function: &str, value: Option<&str>, median_seconds: f64) -> criterion::Estimate {
    criterion::Estimate {
        group: GROUP.to_owned(),
        function: function.to_owned(),
        value: value.map(str::to_owned),
        median_seconds,
    }
}

#[test]
fn parses_the_summary_lines_of_the_contract() {
    let s = summaries();
    assert_eq!(s.len(), 4, "the blank line is skipped");
    assert_eq!(s[0].case, "bouncing_ball");
    assert_eq!((s[0].n, s[0].steps, s[0].active_max, s[0].steps_with_contacts), (1, 2000, 1, 354));
    assert!((s[0].z_top + 2.2886180905507172e-05).abs() < 1e-20);
    assert_eq!((s[2].case.as_str(), s[2].n), ("beads_column", 100));
    assert!((s[2].active_mean - 58.8).abs() < 1e-12 && (s[2].sum_z - 998.5585515).abs() < 1e-9);
    assert!((s[3].sum_v).abs() < 1e-300);
}

#[test]
fn a_malformed_summary_line_names_the_field() {
    let err = parse_summaries(r#"{"case":"beads_stack","n":10,"steps":1000}"#, "out").unwrap_err();
    assert!(err.to_string().contains("active_max"), "{err}");
    let err = parse_summaries(r#"{"case":"beads_stack","n":-3}"#, "out").unwrap_err();
    assert!(err.to_string().contains("\"n\""), "{err}");
    let err = parse_summaries("not json", "out").unwrap_err();
    assert!(err.to_string().contains("line 1: not JSON"), "{err}");
}

#[test]
fn siconos_lines_give_the_per_step_time() {
    let line = r#"{"case": "beads_column", "n": 100, "steps": 1000, "active_max": 96, "active_mean": 58.837, "steps_with_contacts": 840, "z_bottom": 0.0996, "z_top": 20.03, "sum_z": 998.56, "sum_v": -0.213, "seconds": 0.75, "seconds_per_step": 0.00075, "times": [0.75], "reps": 1, "deterministic": true}"#;
    let sides = siconos_sides(line, "siconos").unwrap();
    let side = &sides[&("beads_column".to_owned(), 100)];
    assert!((side.per_step.unwrap() - 7.5e-4).abs() < 1e-18);
    assert_eq!(side.summary.as_ref().unwrap().active_max, 96);
}

#[test]
fn criterion_ids_map_to_cases_and_per_step_times_use_the_bench_steps() {
    let estimates = vec![
        estimate("bouncing_ball", None, 2000.0 * 5e-7),
        estimate("beads_column", Some("10"), 1000.0 * 4e-6),
        estimate("beads_column", Some("100"), 1000.0 * 5e-5),
        estimate("beads_stack", Some("1000"), 100.0 * 1e-2),
        criterion::Estimate { group: "lcp/lemke".into(), ..estimate("random", Some("50"), 1.0) },
    ];
    let times = ours_times(&estimates);
    assert_eq!(times.len(), 4, "only the kernel group: {times:?}");
    assert_eq!(bench_steps("beads_stack", 1000), 100);
    assert_eq!(bench_steps("beads_stack", 100), 1000);
    assert_eq!(bench_steps("bouncing_ball", 1), 2000);

    let rows = rows(false, &times, &summaries(), None);
    assert_eq!(rows.len(), 7);
    let per_step = |case: &str, n: usize| rows.iter().find(|r| r.case == case && r.n == n).unwrap().ours.per_step;
    assert!((per_step("bouncing_ball", 1).unwrap() - 5e-7).abs() < 1e-20);
    assert!((per_step("beads_stack", 1000).unwrap() - 1e-2).abs() < 1e-16);
    assert!(per_step("beads_column", 1000).is_none(), "not measured");
    assert!(rows.iter().all(|r| r.siconos.is_none() && r.ratio().is_none()));
    assert_eq!(cases(true).len(), 5, "quick: N ≤ 100");
    assert!(cases(true).iter().all(|&(_, n)| n <= 100));
}

fn fixture() -> Vec<KernelRow> {
    let times = ours_times(&[
        estimate("bouncing_ball", None, 2000.0 * 5e-7),
        estimate("beads_column", Some("10"), 1000.0 * 1e-5),
        estimate("beads_column", Some("100"), 1000.0 * 1e-4),
        estimate("beads_column", Some("1000"), 1000.0 * 4e-4),
    ]);
    let mut theirs = HashMap::new();
    for (case, n, per_step) in [
        ("bouncing_ball", 1, 4e-6),
        ("beads_column", 10, 5.5e-5),
        ("beads_column", 100, 1e-3),
        ("beads_column", 1000, 1.5e-2),
    ] {
        let summary = summaries().into_iter().find(|s| s.case == case && s.n == n).map(|mut s| {
            s.z_top *= 1.0 + 1e-3;
            s
        });
        theirs.insert((case.to_owned(), n), KernelSide { per_step: Some(per_step), summary });
    }
    rows(false, &times, &summaries(), Some(&theirs))
}

#[test]
fn ratios_and_the_target() {
    let rows = fixture();
    let ball = &rows[0];
    assert!((ball.ratio().unwrap() - 0.125).abs() < 1e-12);
    assert_eq!(ball.target_met(), Some(true));
    let column10 = &rows[1];
    assert!((column10.ratio().unwrap() - 1e-5 / 5.5e-5).abs() < 1e-12);
    assert_eq!(rows[2].target_met(), Some(true), "1e-4 / 1e-3 = 0.1");
    let stack = rows.iter().find(|r| r.case == "beads_stack" && r.n == 10).unwrap();
    assert_eq!(stack.target_met(), None, "Siconos has no line for it");
    assert!(stack.siconos.as_ref().is_some_and(|s| s.per_step.is_none()));
    // z_top differs by 1e-3 relatively on the fixture.
    let d = column10.checksum_difference().unwrap();
    assert!((d - 1e-3 / (1.0 + 1e-3)).abs() < 1e-9, "{d}");
}

#[test]
fn growth_line_reports_time_and_active_ratios() {
    let line = growth_line(&fixture(), "beads_column");
    // ours: 1e-5 → 1e-4 → 4e-4; Siconos: 5.5e-5 → 1e-3 → 1.5e-2.
    // Active means: 5.825 → 58.8 on both sides, none for N = 1000.
    assert!(
        line.contains("ours time ×10.000, active ×10.094 (10 → 100); time ×4.000, active ×– (100 → 1000)."),
        "{line}"
    );
    assert!(
        line.contains("Siconos time ×18.182, active ×10.094 (10 → 100); time ×15.000, active ×– (100 → 1000)."),
        "{line}"
    );
    assert!(line.contains("ours 5.8 → 58.8 → –, Siconos 5.8 → 58.8 → –"), "{line}");
    let stack = growth_line(&fixture(), "beads_stack");
    assert!(stack.contains("ours time ×–, active ×– (10 → 100)"), "{stack}");
}

#[test]
fn markdown_and_csv_cover_every_case() {
    let header = Header {
        commit: "abc123".into(),
        cpu: "Test CPU (2 logical CPUs)".into(),
        date: "2025-01-01 00:00 UTC".into(),
        siconos: Ok("Siconos 4.4.0".into()),
        quick: false,
        method: vec!["models: see siconos44.md".into()],
    };
    let rows = fixture();
    let md = markdown(&header, &rows);
    assert!(md.contains("# Kernel time-stepping: nonsmooth against Siconos 4.4"), "{md}");
    assert!(md.contains("| bouncing_ball | 1 | 2000 | 5.000e-7 | 4.000e-6 | 0.125 | PASS |"), "{md}");
    // 4e-4 / 1.5e-2 passes, 1e-5 / 5.5e-5 = 0.18 passes: four measured cases, the stacks are not.
    assert!(md.contains("Target met on 4 of 4 measured cases (7 cases in this run)."), "{md}");
    assert!(md.contains("| beads_stack | 1000 | 100 | – | – | – | not measured |"), "{md}");
    assert!(md.contains("statistically"), "the report says the bead runs only match statistically");
    assert!(md.contains("| beads_column | 100 | 1000 / 1000 | 96 / 96 | 58.8 / 58.8 | 840 / 840 |"), "{md}");
    assert!(!md.contains("Warning"), "our summary's steps equal the bench's");

    let csv = csv(&rows);
    assert_eq!(csv.lines().count(), rows.len() + 1);
    let columns = csv.lines().next().unwrap().split(',').count();
    assert!(csv.lines().all(|l| l.split(',').count() == columns), "{csv}");
    assert!(csv.lines().nth(1).unwrap().starts_with("bouncing_ball,1,2000,5e-7,4e-6,1.25e-1,true,2000,1,"), "{csv}");

    let absent = Header { siconos: Err("python3-siconos missing".into()), ..header };
    let times = HashMap::from([(("bouncing_ball".to_owned(), 1), 2000.0 * 9e-7)]);
    let mut odd = summaries();
    odd[1].steps = 999;
    let md = markdown(&absent, &super::rows(true, &times, &odd, None));
    assert!(md.contains("Siconos 4.4 not installed: python3-siconos missing, no comparison"), "{md}");
    assert!(md.contains("Target met on 0 of 0 measured cases (5 cases in this run)."), "{md}");
    assert!(md.contains("**Warning**") && md.contains("`beads_column/10` (999 steps)"), "{md}");
}

#[test]
fn only_kernel_is_an_option() {
    let only = |v: &str| Options::parse(&["--only".to_string(), v.to_string()]);
    assert_eq!(only("kernel").unwrap().only.as_deref(), Some("kernel"));
    assert_eq!(only("fc3d").unwrap().only.as_deref(), Some("fc3d"));
    let err = only("mlcp").unwrap_err();
    assert!(err.to_string().contains("kernel"), "{err}");
    assert!(Options::parse(&[]).unwrap().only.is_none(), "the default runs all three");
}
