use super::*;

/// A hand-written `kernel-summary` output in the contract's layout (values measured on
/// Siconos 4.4 where there are some).
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
    assert_eq!(rows.len(), 10);
    let per_step = |case: &str, n: usize| rows.iter().find(|r| r.case == case && r.n == n).unwrap().ours.per_step;
    assert!((per_step("bouncing_ball", 1).unwrap() - 5e-7).abs() < 1e-20);
    assert!((per_step("beads_stack", 1000).unwrap() - 1e-2).abs() < 1e-16);
    assert!(per_step("beads_column", 1000).is_none(), "not measured");
    assert!(rows.iter().all(|r| r.siconos.is_none() && r.ratio().is_none()));
    assert_eq!(cases(true).len(), 8, "quick: N ≤ 100");
    assert!(cases(true).iter().all(|&(_, n)| n <= 100));
}

#[test]
fn first_order_cases_follow_the_lagrangian_ones_with_their_steps() {
    let all = cases(false);
    assert_eq!(&all[7..9], &[("diode_bridge", 1), ("relay", 1)]);
    assert_eq!(&cases(true)[5..7], &[("diode_bridge", 1), ("relay", 1)], "quick keeps them");
    assert!(is_first_order("diode_bridge") && is_first_order("relay") && !is_first_order("bouncing_ball"));
    assert_eq!((bench_steps("diode_bridge", 1), bench_steps("relay", 1)), (5000, 800));
    // Criterion ids `kernel/diode_bridge` and `kernel/relay` have no value: N = 1.
    let times = ours_times(&[estimate("diode_bridge", None, 5000.0 * 2e-6), estimate("relay", None, 800.0 * 1e-6)]);
    let rows = rows(false, &times, &[], None);
    let per_step = |case: &str| rows.iter().find(|r| r.case == case && r.n == 1).unwrap().ours.per_step.unwrap();
    assert!((per_step("diode_bridge") - 2e-6).abs() < 1e-18);
    assert!((per_step("relay") - 1e-6).abs() < 1e-18);
}

/// The first-order summaries of the fixture: the diode bridge as measured (ours and Siconos 4.4
/// agree to 7e-15 there), the relay at rest in its sliding mode.
const FIRST_ORDER_SAMPLE: &str = r#"{"case":"diode_bridge","n":1,"steps":5000,"active_max":1,"active_mean":1.0,"steps_with_contacts":5000,"z_bottom":0.7883868726396618,"z_top":-0.002751979514978571,"sum_z":0.7856348931246833,"sum_v":0.7891752595123016}
{"case":"relay","n":1,"steps":800,"active_max":1,"active_mean":1.0,"steps_with_contacts":800,"z_bottom":0.0,"z_top":0.0,"sum_z":0.0,"sum_v":0.0}"#;

fn fixture() -> Vec<KernelRow> {
    let times = ours_times(&[
        estimate("bouncing_ball", None, 2000.0 * 5e-7),
        estimate("beads_column", Some("10"), 1000.0 * 1e-5),
        estimate("beads_column", Some("100"), 1000.0 * 1e-4),
        estimate("beads_column", Some("1000"), 1000.0 * 4e-4),
        estimate("diode_bridge", None, 5000.0 * 1e-6),
        estimate("relay", None, 800.0 * 2e-6),
    ]);
    let first_order: Vec<CaseSummary> =
        parse_summaries(FIRST_ORDER_SAMPLE, "first order").unwrap().into_iter().map(|(s, _)| s).collect();
    let ours: Vec<CaseSummary> = summaries().into_iter().chain(first_order.iter().cloned()).collect();
    let mut theirs = HashMap::new();
    for (case, n, per_step) in [
        ("bouncing_ball", 1, 4e-6),
        ("beads_column", 10, 5.5e-5),
        ("beads_column", 100, 1e-3),
        ("beads_column", 1000, 1.5e-2),
        ("diode_bridge", 1, 4e-6),
        // Ratio 0.5: above the Lagrangian target, which does not apply here.
        ("relay", 1, 4e-6),
    ] {
        let summary = ours.iter().find(|s| s.case == case && s.n == n).cloned().map(|mut s| {
            if !is_first_order(case) {
                s.z_top *= 1.0 + 1e-3;
            }
            s
        });
        theirs.insert((case.to_owned(), n), KernelSide { per_step: Some(per_step), summary });
    }
    rows(false, &times, &ours, Some(&theirs))
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

    // First order: the ratio, but no target, even above 0.2.
    let diode = rows.iter().find(|r| r.case == "diode_bridge").unwrap();
    assert!((diode.ratio().unwrap() - 0.25).abs() < 1e-12);
    let relay = rows.iter().find(|r| r.case == "relay").unwrap();
    assert!((relay.ratio().unwrap() - 0.5).abs() < 1e-12);
    assert!(!diode.has_target() && !relay.has_target() && ball.has_target());
    assert_eq!((diode.target_met(), relay.target_met()), (None, None));
    assert!(diode.checksum_difference().unwrap() < 1e-300, "identical summaries");
    assert!(relay.checksum_difference().unwrap() < 1e-300, "0 against 0 is no difference");
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
        method: vec!["models: see the examples".into()],
    };
    let rows = fixture();
    let md = markdown(&header, &rows);
    assert!(md.contains("# Kernel time-stepping: nonsmooth against Siconos 4.4"), "{md}");
    assert!(md.contains("| bouncing_ball | 1 | 2000 | 5.000e-7 | 4.000e-6 | 0.125 | PASS |"), "{md}");
    // 4e-4 / 1.5e-2 passes, 1e-5 / 5.5e-5 = 0.18 passes: four measured cases, the stacks are not.
    assert!(md.contains("Target met on 4 of 4 measured cases (7 cases with the target in this run)."), "{md}");
    // The first-order rows: ratio, no PASS/FAIL (relay 0.5 > 0.2 is not a failure).
    assert!(md.contains("| diode_bridge | 1 | 5000 | 1.000e-6 | 4.000e-6 | 0.250 | no target |"), "{md}");
    assert!(md.contains("| relay | 1 | 800 | 2.000e-6 | 4.000e-6 | 0.500 | no target |"), "{md}");
    assert!(!md.contains("**FAIL**"), "{md}");
    assert!(
        md.contains("| diode_bridge | 1 | 5000 / 5000 | 1 / 1 | 1.0 / 1.0 | 5000 / 5000 | 0.788387 / 0.788387 |"),
        "{md}"
    );
    assert!(md.contains("Their ratio is shown"), "{md}");
    assert!(md.contains("| beads_stack | 1000 | 100 | – | – | – | not measured |"), "{md}");
    assert!(md.contains("statistically"), "the report says the bead runs only match statistically");
    assert!(md.contains("| beads_column | 100 | 1000 / 1000 | 96 / 96 | 58.8 / 58.8 | 840 / 840 |"), "{md}");
    assert!(!md.contains("Warning"), "our summary's steps equal the bench's");

    let csv = csv(&rows);
    assert_eq!(csv.lines().count(), rows.len() + 1);
    let columns = csv.lines().next().unwrap().split(',').count();
    assert!(csv.lines().all(|l| l.split(',').count() == columns), "{csv}");
    assert!(csv.lines().nth(1).unwrap().starts_with("bouncing_ball,1,2000,5e-7,4e-6,1.25e-1,true,2000,1,"), "{csv}");
    let relay_line = csv.lines().find(|l| l.starts_with("relay,")).unwrap();
    assert!(relay_line.starts_with("relay,1,800,2e-6,4e-6,5e-1,,800,1,"), "no target: empty field: {relay_line}");

    let absent = Header { siconos: Err("python3-siconos missing".into()), ..header };
    let times = HashMap::from([(("bouncing_ball".to_owned(), 1), 2000.0 * 9e-7)]);
    let mut odd = summaries();
    odd[1].steps = 999;
    let md = markdown(&absent, &super::rows(true, &times, &odd, None));
    assert!(md.contains("Siconos 4.4 not installed: python3-siconos missing, no comparison"), "{md}");
    assert!(md.contains("Target met on 0 of 0 measured cases (5 cases with the target in this run)."), "{md}");
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

#[test]
fn a_slow_first_order_case_does_not_spoil_every_case_passes() {
    let header = Header {
        commit: "abc123".into(),
        cpu: "Test CPU".into(),
        date: "2025-01-01 00:00 UTC".into(),
        siconos: Ok("Siconos 4.4.0".into()),
        quick: true,
        method: vec![],
    };
    let (mut estimates, mut theirs) = (Vec::new(), HashMap::new());
    for (case, n) in cases(true) {
        let steps = bench_steps(case, n) as f64;
        let value = (n > 1).then(|| n.to_string());
        // Lagrangian ratio 0.1; the relay 2.0 (slower than Siconos), the diode bridge 0.1.
        let ours = if case == "relay" { 2e-6 } else { 1e-7 };
        estimates.push(estimate(case, value.as_deref(), steps * ours));
        theirs.insert((case.to_owned(), n), KernelSide { per_step: Some(1e-6), summary: None });
    }
    let rows = rows(true, &ours_times(&estimates), &[], Some(&theirs));
    let md = markdown(&header, &rows);
    assert!(
        md.contains(
            "Target met on 5 of 5 measured cases (5 cases with the target in this run): **every case passes**."
        ),
        "{md}"
    );
    assert!(md.contains("| relay | 1 | 800 | 2.000e-6 | 1.000e-6 | 2.000 | no target |"), "{md}");

    // One Lagrangian case above 0.2 fails, and the summary says so.
    theirs.insert(("beads_stack".to_owned(), 10), KernelSide { per_step: Some(1e-7), summary: None });
    let md = markdown(&header, &super::rows(true, &ours_times(&estimates), &[], Some(&theirs)));
    assert!(md.contains("| beads_stack | 10 | 1000 | 1.000e-7 | 1.000e-7 | 1.000 | **FAIL** |"), "{md}");
    assert!(md.contains("Target met on 4 of 5 measured cases (5 cases with the target in this run)."), "{md}");
}

/// The event-driven ball as measured: ours and Siconos 4.4 end in the same state, bit for bit.
const EVENT_DRIVEN_SAMPLE: &str = r#"{"case":"bouncing_ball_ed","n":1,"steps":1744,"active_max":1,"active_mean":0.02522935779816514,"steps_with_contacts":44,"z_bottom":5.565550791198585e-6,"z_top":5.565550791198585e-6,"sum_z":5.565550791198585e-6,"sum_v":-0.04166519585822917,"impacts":44}"#;

#[test]
fn the_event_driven_ball_comes_last_with_per_event_times_and_no_target() {
    for quick in [false, true] {
        assert_eq!(cases(quick).last(), Some(&("bouncing_ball_ed", 1)), "quick = {quick}");
    }
    assert!(is_event_driven("bouncing_ball_ed") && !is_event_driven("bouncing_ball"));
    assert!(!is_first_order("bouncing_ball_ed"));
    assert_eq!(bench_steps("bouncing_ball_ed", 1), 1744, "1700 grid points + 44 impacts");

    let ours: Vec<CaseSummary> =
        parse_summaries(EVENT_DRIVEN_SAMPLE, "event driven").unwrap().into_iter().map(|(s, _)| s).collect();
    // Criterion id `kernel/bouncing_ball_ed`: no value, N = 1; ours 1 µs per event, Siconos 2.5 µs.
    let times = ours_times(&[estimate("bouncing_ball_ed", None, 1744.0 * 1e-6)]);
    let line = EVENT_DRIVEN_SAMPLE.replace("\"impacts\":44}", "\"impacts\":44,\"seconds\":0.00436}");
    let theirs = siconos_sides(&line, "siconos").unwrap();
    let rows = rows(true, &times, &ours, Some(&theirs));
    let ed = rows.last().unwrap();
    assert_eq!((ed.case.as_str(), ed.n), ("bouncing_ball_ed", 1));
    assert!((ed.ours.per_step.unwrap() - 1e-6).abs() < 1e-18);
    assert!((ed.siconos.as_ref().unwrap().per_step.unwrap() - 2.5e-6).abs() < 1e-18, "0.00436 / 1744");
    assert!((ed.ratio().unwrap() - 0.4).abs() < 1e-12);
    assert!(!ed.has_target() && ed.target_met().is_none(), "ratio 0.4 > 0.2 is no failure");
    assert!(ed.checksum_difference().unwrap() < 1e-300, "identical final states");

    let header = Header {
        commit: "abc123".into(),
        cpu: "Test CPU".into(),
        date: "2025-01-01 00:00 UTC".into(),
        siconos: Ok("Siconos 4.4.0".into()),
        quick: true,
        method: vec![],
    };
    let md = markdown(&header, &rows);
    assert!(md.contains("| bouncing_ball_ed | 1 | 1744 | 1.000e-6 | 2.500e-6 | 0.400 | no target |"), "{md}");
    assert!(md.contains("| bouncing_ball_ed | 1 | 1744 / 1744 | 1 / 1 | 0.0 / 0.0 | 44 / 44 |"), "{md}");
    assert!(md.contains("1744 (1700 grid points and 44 impacts, on both sides)"), "{md}");
    assert!(md.contains("(5 cases with the target in this run)"), "the event-driven case has none: {md}");
    assert!(!md.contains("**FAIL**") && !md.contains("Warning"), "{md}");
    let csv = csv(&rows);
    let ed_line = csv.lines().last().unwrap();
    let fields: Vec<&str> = ed_line.split(',').collect();
    assert_eq!(&fields[..4], &["bouncing_ball_ed", "1", "1744", "1e-6"], "{ed_line}");
    assert_eq!((fields[6], fields[7], fields[10]), ("", "1744", "44"), "no target; steps, impacts: {ed_line}");
}
