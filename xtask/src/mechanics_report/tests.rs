use super::*;

/// Lines in the layout of `mechanics-pile` and `rapier-pile` (made-up figures).
const OURS_LINE: &str = r#"{"assembly":0.000125,"contacts":463.8,"detection":0.000325,"engine":"nonsmooth","h":0.001,"initial_mean_height":0.555,"max_penetration":0.0009,"mean_height":0.5152,"measured":50,"n":1000,"parallel":false,"precision":"f64","seconds_per_step":0.0017,"setup_seconds":0.0025,"solve":0.000193,"steps":100,"sweeps":7.66,"threads":1,"tolerance":0.0001,"unconverged":0,"update":0.00106}"#;
const RAPIER_LINE: &str = r#"{"can_sleep":true,"contacts":3200,"engine":"rapier3d","h":0.001,"initial_mean_height":0.555,"max_penetration":0.0003,"mean_height":0.5153,"measured":50,"n":1000,"parallel":false,"precision":"f32","seconds_per_step":0.0023,"setup_seconds":0.0006,"sleeping":0,"solver_iterations":4,"stages_seconds_per_step":null,"steps":100,"threads":1,"touching_pairs":100,"version":"0.36.1"}"#;

/// Our run with per-step time `t`, detection and assembly `d`, `a`, `c` contacts.
fn ours(n: usize, t: f64, d: f64, a: f64, c: f64, unconverged: u64, parallel: bool) -> PileRun {
    PileRun {
        engine: "nonsmooth".into(),
        precision: "f64".into(),
        n,
        h: 1e-3,
        steps: 500,
        measured: 200,
        parallel,
        threads: if parallel { 2 } else { 1 },
        seconds_per_step: t,
        detection: Some(d),
        assembly: Some(a),
        solve: Some(0.5 * t),
        update: Some(0.1 * t),
        contacts: c,
        sweeps: Some(12.0),
        unconverged: Some(unconverged),
        max_penetration: 0.001,
        mean_height: 0.4,
        initial_mean_height: 0.55,
        ..PileRun::default()
    }
}

fn rapier(n: usize, t: f64) -> PileRun {
    PileRun {
        engine: "rapier3d".into(),
        version: Some("0.36.1".into()),
        precision: "f32".into(),
        n,
        h: 1e-3,
        steps: 500,
        measured: 200,
        threads: 1,
        seconds_per_step: t,
        contacts: 2000.0,
        active_pairs: Some(3000),
        max_penetration: 0.0005,
        mean_height: 0.41,
        initial_mean_height: 0.55,
        ..PileRun::default()
    }
}

fn case(n: usize, seq: Side, par: Side, rapier: Side) -> CaseResult {
    CaseResult { case: Case { n, steps: 500, measure: 200 }, seq, par, rapier }
}

/// A full run: N = 1000, 5000 (0.08 s/step sequential, 0.06 on 2 threads, Rapier 0.03) and 20000
/// (detection ×22 and assembly ×60 from N = 1000, contacts ×20).
fn full_run() -> Vec<CaseResult> {
    vec![
        case(
            1000,
            Ok(ours(1000, 0.004, 1e-3, 2e-4, 1000.0, 0, false)),
            Ok(ours(1000, 0.003, 1e-3, 2e-4, 1000.0, 0, true)),
            Ok(rapier(1000, 0.002)),
        ),
        case(
            5000,
            Ok(ours(5000, 0.08, 5e-3, 1e-3, 5000.0, 0, false)),
            Ok(ours(5000, 0.06, 5e-3, 1e-3, 5000.0, 0, true)),
            Ok(rapier(5000, 0.03)),
        ),
        case(
            20000,
            Ok(ours(20000, 0.5, 22e-3, 12e-3, 20000.0, 0, false)),
            Ok(ours(20000, 0.4, 22e-3, 12e-3, 20000.0, 0, true)),
            Ok(rapier(20000, 0.2)),
        ),
    ]
}

#[test]
fn parses_both_engines_lines() {
    let a = parse_run(&format!("\n{OURS_LINE}\n\n"), "ours").unwrap();
    assert_eq!(
        (a.engine.as_str(), a.n, a.steps, a.measured, a.threads, a.parallel),
        ("nonsmooth", 1000, 100, 50, 1, false)
    );
    assert!((a.seconds_per_step - 0.0017).abs() < 1e-15 && (a.detection.unwrap() - 0.000325).abs() < 1e-15);
    assert!((a.contacts - 463.8).abs() < 1e-12 && (a.sweeps.unwrap() - 7.66).abs() < 1e-12);
    assert_eq!((a.unconverged, a.active_pairs, a.version.as_deref()), (Some(0), None, None));
    let b = parse_run(&format!("some progress\n{RAPIER_LINE}"), "rapier").unwrap();
    assert_eq!((b.engine.as_str(), b.precision.as_str(), b.version.as_deref()), ("rapier3d", "f32", Some("0.36.1")));
    assert!((b.contacts - 100.0).abs() < 1e-12, "touching pairs");
    assert_eq!((b.active_pairs, b.detection, b.sweeps, b.unconverged), (Some(3200), None, None, None));
    assert!((b.steps_per_second().unwrap() - 1.0 / 0.0023).abs() < 1e-9);
}

#[test]
fn a_malformed_line_names_the_field() {
    let missing = OURS_LINE.replace(r#""sweeps":7.66,"#, "");
    let err = parse_run(&missing, "ours").unwrap_err();
    assert!(err.to_string().contains("\"sweeps\""), "{err}");
    let err = parse_run(&RAPIER_LINE.replace("touching_pairs", "pairs"), "rapier").unwrap_err();
    assert!(err.to_string().contains("touching_pairs"), "{err}");
    assert!(parse_run("", "x").unwrap_err().to_string().contains("no output"));
    assert!(parse_run("{not json", "x").unwrap_err().to_string().contains("not JSON"));
}

#[test]
fn exponents() {
    assert!((exponent(1000, 1.0, 20000, 20.0).unwrap() - 1.0).abs() < 1e-12);
    assert!((exponent(1000, 1.0, 20000, 400.0).unwrap() - 2.0).abs() < 1e-12);
    assert!(exponent(1000, 0.0, 20000, 1.0).is_none());
    assert!(exponent(1000, 1.0, 1000, 2.0).is_none());
}

#[test]
fn targets_on_made_up_numbers() {
    let t = targets(&full_run());
    assert_eq!(t.len(), 4);
    // 0.06 s/step on 2 threads: 16.7 steps/s ≥ 10.
    assert_eq!(t[0].met, Some(true), "{:?}", t[0]);
    assert!(t[0].measured.contains("16.67 steps/s") && t[0].measured.contains("parallel"), "{}", t[0].measured);
    // Sequential 0.08 / Rapier 0.03 = 2.67 ≤ 3.
    assert_eq!(t[1].met, Some(true), "{:?}", t[1]);
    assert!(t[1].measured.contains("2.67") && t[1].measured.contains("2 threads: 2.00"), "{}", t[1].measured);
    // Detection: ×22 per step (exponent 1.03), ×1.1 per contact (0.03): near-linear.
    assert_eq!(t[2].met, Some(true), "{:?}", t[2]);
    // Assembly: ×60 per step (exponent 1.37): not near-linear.
    assert_eq!(t[3].met, Some(false), "{:?}", t[3]);
    let g = growth(&full_run(), Phase::Assembly);
    assert!((g.exponent.unwrap() - 60f64.ln() / 20f64.ln()).abs() < 1e-12);
    assert!((g.per_contact_exponent.unwrap() - 3f64.ln() / 20f64.ln()).abs() < 1e-12);

    // Slow, unconverged or too far behind Rapier: FAIL.
    let mut slow = full_run();
    slow[1].seq = Ok(ours(5000, 0.2, 5e-3, 1e-3, 5000.0, 0, false));
    slow[1].par = Ok(ours(5000, 0.15, 5e-3, 1e-3, 5000.0, 0, true));
    let t = targets(&slow);
    assert_eq!((t[0].met, t[1].met), (Some(false), Some(false)));
    let mut unconverged = full_run();
    unconverged[1].par = Ok(ours(5000, 0.06, 5e-3, 1e-3, 5000.0, 3, true));
    assert_eq!(targets(&unconverged)[0].met, Some(false), "3 steps above the tolerance");
}

#[test]
fn targets_not_measured_are_never_passed() {
    // The quick run: N = 1000 only.
    let quick = vec![full_run().remove(0)];
    assert!(targets(&quick).iter().all(|t| t.met.is_none()), "{:?}", targets(&quick));
    // Rapier missing at N = 5000: no ratio verdict, the others stand.
    let mut no_rapier = full_run();
    no_rapier[1].rapier = Err("the rapier-pile build failed".into());
    let t = targets(&no_rapier);
    assert_eq!((t[0].met, t[1].met), (Some(true), None));
    assert!(t[1].measured.contains("rapier-pile build failed"), "{}", t[1].measured);
    // Our N = 20000 sequential run failed: no growth verdict.
    let mut no_big = full_run();
    no_big[2].seq = Err("mechanics-pile failed".into());
    assert!(targets(&no_big)[2..].iter().all(|t| t.met.is_none() && t.verdict() == "not measured"));
}

fn header(quick: bool) -> MechHeader {
    MechHeader {
        commit: "abc123".into(),
        cpu: "Test CPU (2 logical CPUs)".into(),
        date: "2026-01-01 00:00 UTC".into(),
        command: "cargo xtask bench-report --only mechanics".into(),
        quick,
        rapier: Ok("0.36.1".into()),
        elapsed_seconds: 90.0,
    }
}

#[test]
fn markdown_tables() {
    let md = markdown(&header(false), &full_run());
    for needle in [
        "- commit: `abc123`",
        "- CPU: Test CPU (2 logical CPUs)",
        "- date: 2026-01-01 00:00 UTC",
        "Generated by `cargo xtask bench-report --only mechanics`",
        "`rapier3d` 0.36.1",
        "### N = 5000 (500 steps, 200 measured)",
        "## What each solves",
        "## How to run",
        "- whole report: 1.5 min",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    assert!(!md.contains("Quick subset"));
    // The N = 5000 rows: ms/step, steps/s, detection, assembly, ..., ratio.
    assert!(
        md.contains("| ours, NSGS sequential | 80.000 | 12.5 | 5.000 | 1.000 | 40.000 | 8.000 | 5000.0 | 12.0 | 0 | 0.0200 | 0.4000 | 2.67 |"),
        "{md}"
    );
    assert!(
        md.contains("| Rapier | 30.000 | 33.3 | – | – | – | – | 2000 (3000 active) | – | – | 0.0100 | 0.4100 | 1 |"),
        "{md}"
    );
    // Verdicts: three passes, the assembly growth fails.
    assert_eq!(md.matches("| PASS |").count(), 3, "{md}");
    assert_eq!(md.matches("| **FAIL** |").count(), 1, "{md}");
    // Per-contact table: detection at N = 20000 is 22 ms / 20000 contacts = 1.1 µs.
    assert!(md.contains("| detection | 20000 | 22.000 | 1.100 |"), "{md}");
    // Every table row has the header's column count.
    for line in md.lines().filter(|l| l.starts_with("| ours") || l.starts_with("| Rapier")) {
        assert_eq!(line.matches('|').count(), 14, "{line}");
    }
}

#[test]
fn markdown_of_a_quick_run_with_a_missing_side() {
    let mut results = vec![full_run().remove(0)];
    results[0].rapier = Err("the rapier-pile build failed (exit status: 101)".into());
    let mut h = header(true);
    h.rapier = Err("the rapier-pile build failed (exit status: 101)".into());
    let md = markdown(&h, &results);
    assert!(md.contains("**Quick subset only**"));
    assert!(md.contains("- Rapier not measured: the rapier-pile build failed"));
    let row = md.lines().find(|l| l.starts_with("| Rapier |")).unwrap();
    assert!(row.contains("not measured"), "{row}");
    assert_eq!(row.matches('|').count(), 14, "{row}");
    assert_eq!(md.matches("| not measured |").count(), 4, "every target unmeasured: {md}");
    assert!(!md.contains("PASS") && !md.contains("FAIL"));
}

#[test]
fn csv_lines() {
    let mut results = full_run();
    results[2].rapier = Err("rapier-pile failed, exit 1".into());
    let text = csv(&results);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 9);
    let columns = lines[0].split(',').count();
    assert_eq!(columns, 21);
    assert!(lines.iter().skip(1).take(8).all(|l| l.split(',').count() == columns));
    assert!(lines[4].starts_with("5000,500,200,nonsmooth,false,1,8e-2,1.25e1,5e-3,1e-3,"), "{}", lines[4]);
    assert!(lines[4].ends_with(",measured"), "{}", lines[4]);
    let ratio: f64 = lines[4].split(',').nth(19).unwrap().parse().unwrap();
    assert!((ratio - 0.08 / 0.03).abs() < 1e-12, "ratio column {ratio}");
    assert_eq!(lines[6].split(',').nth(19), Some(""), "no ratio on Rapier's own line");
    assert!(
        lines[9].starts_with("20000,500,200,rapier3d,false,,")
            && lines[9].ends_with("\"not measured: rapier-pile failed, exit 1\""),
        "{}",
        lines[9]
    );
}

#[test]
fn cases_in_report_order() {
    let full = cases(false);
    assert_eq!(full.iter().map(|c| c.n).collect::<Vec<_>>(), [GROWTH_FROM, TARGET_N, GROWTH_TO]);
    assert!(full.iter().all(|c| c.measure > 0 && c.measure <= c.steps));
    let quick = cases(true);
    assert_eq!(quick.len(), 1);
    assert!(quick[0].n == 1000 && quick[0].steps < full[0].steps);
}
