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

/// Rapier's run with per-step time `t`, single-threaded or parallel on 2 threads.
fn rapier(n: usize, t: f64, parallel: bool) -> PileRun {
    PileRun {
        engine: "rapier3d".into(),
        version: Some("0.36.1".into()),
        precision: "f32".into(),
        n,
        h: 1e-3,
        steps: 500,
        measured: 200,
        parallel,
        threads: if parallel { 2 } else { 1 },
        seconds_per_step: t,
        contacts: 2000.0,
        active_pairs: Some(3000),
        max_penetration: 0.0005,
        mean_height: 0.41,
        initial_mean_height: 0.55,
        ..PileRun::default()
    }
}

fn case(n: usize, seq: Side, par: Side, rapier: Side, rapier_par: Side) -> CaseResult {
    CaseResult { case: Case { n, steps: 500, measure: 200 }, seq, par, rapier, rapier_par }
}

/// A full run: N = 1000, 5000 (0.08 s/step sequential, 0.06 on 2 threads, Rapier 0.03
/// single-threaded and 0.025 on 2 threads) and 20000 (detection ×22 and assembly ×60 from
/// N = 1000, contacts ×20).
fn full_run() -> Vec<CaseResult> {
    vec![
        case(
            1000,
            Ok(ours(1000, 0.004, 1e-3, 2e-4, 1000.0, 0, false)),
            Ok(ours(1000, 0.003, 1e-3, 2e-4, 1000.0, 0, true)),
            Ok(rapier(1000, 0.002, false)),
            Ok(rapier(1000, 0.0016, true)),
        ),
        case(
            5000,
            Ok(ours(5000, 0.08, 5e-3, 1e-3, 5000.0, 0, false)),
            Ok(ours(5000, 0.06, 5e-3, 1e-3, 5000.0, 0, true)),
            Ok(rapier(5000, 0.03, false)),
            Ok(rapier(5000, 0.025, true)),
        ),
        case(
            20000,
            Ok(ours(20000, 0.5, 22e-3, 12e-3, 20000.0, 0, false)),
            Ok(ours(20000, 0.4, 22e-3, 12e-3, 20000.0, 0, true)),
            Ok(rapier(20000, 0.2, false)),
            Ok(rapier(20000, 0.15, true)),
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
fn a_run_on_the_wrong_thread_count_is_not_measured() {
    let single = parse_run(RAPIER_LINE, "rapier-pile-2threads").unwrap();
    // The single-threaded build where the parallel one was expected (or RAYON_NUM_THREADS ignored).
    let err = check_threads(single.clone(), RunKind::RapierParallel, "rapier-pile-2threads").unwrap_err();
    assert!(
        err.contains("rapier-pile-2threads") && err.contains("on 1 thread(s), expected parallel = true on 2"),
        "{err}"
    );
    assert_eq!(check_threads(single, RunKind::RapierSequential, "rapier-pile-1thread").map(|r| r.threads), Ok(1));
    // The parallel build on a pool of 1 thread is not the 2-thread run either.
    let one_thread = parse_run(&RAPIER_LINE.replace(r#""parallel":false"#, r#""parallel":true"#), "r").unwrap();
    assert!(check_threads(one_thread.clone(), RunKind::RapierParallel, "r").is_err());
    assert!(check_threads(one_thread, RunKind::RapierSequential, "r").is_err(), "parallel build, not the 1-thread one");
    let two = parse_run(
        &RAPIER_LINE.replace(r#""parallel":false"#, r#""parallel":true"#).replace(r#""threads":1"#, r#""threads":2"#),
        "r",
    )
    .unwrap();
    assert_eq!(check_threads(two, RunKind::RapierParallel, "r").map(|r| (r.parallel, r.threads)), Ok((true, 2)));
    // Ours: `--parallel` must report 2 threads.
    let ours_line = parse_run(OURS_LINE, "mechanics-pile").unwrap();
    assert!(check_threads(ours_line.clone(), RunKind::OursSequential, "mechanics-pile").is_ok());
    assert!(check_threads(ours_line, RunKind::OursParallel, "mechanics-pile").is_err());
}

#[test]
fn run_kinds_in_report_order() {
    assert_eq!(
        RunKind::ALL.map(|k| (k.engine(), k.parallel(), k.threads())),
        [("nonsmooth", false, 1), ("nonsmooth", true, 2), ("rapier3d", false, 1), ("rapier3d", true, 2)]
    );
    let r = &full_run()[1];
    assert_eq!(RunKind::ALL.map(|k| r.side(k).as_ref().unwrap().threads), [1, 2, 1, 2]);
    assert!(!r.side(RunKind::RapierSequential).as_ref().unwrap().parallel);
    assert!(r.side(RunKind::RapierParallel).as_ref().unwrap().parallel);
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
    assert_eq!(t.len(), 5);
    // 0.06 s/step on 2 threads: 16.7 steps/s ≥ 10.
    assert_eq!(t[0].met, Some(true), "{:?}", t[0]);
    assert!(t[0].measured.contains("16.67 steps/s") && t[0].measured.contains("parallel"), "{}", t[0].measured);
    // On 2 cores: ours 2 threads 0.06 / Rapier's parallel pipeline 0.025 = 2.40 ≤ 3.
    assert!(t[1].name.starts_with("N = 5000 on 2 cores: per-step time ≤ 3× Rapier's on 2 cores"), "{}", t[1].name);
    assert_eq!(t[1].met, Some(true), "{:?}", t[1]);
    assert!(t[1].measured.contains("= 2.40 (60.000 against 25.000 ms/step)"), "{}", t[1].measured);
    // On 1 core: sequential 0.08 / Rapier's single-threaded pipeline 0.03 = 2.67 ≤ 3.
    assert!(t[2].name.starts_with("N = 5000 on 1 core: per-step time ≤ 3× Rapier's single-threaded"), "{}", t[2].name);
    assert_eq!(t[2].met, Some(true), "{:?}", t[2]);
    assert!(t[2].measured.contains("= 2.67 (80.000 against 30.000 ms/step)"), "{}", t[2].measured);
    // Detection: ×22 per step (exponent 1.03), ×1.1 per contact (0.03): near-linear.
    assert_eq!(t[3].met, Some(true), "{:?}", t[3]);
    // Assembly: ×60 per step (exponent 1.37): not near-linear.
    assert_eq!(t[4].met, Some(false), "{:?}", t[4]);
    let g = growth(&full_run(), Phase::Assembly);
    assert!((g.exponent.unwrap() - 60f64.ln() / 20f64.ln()).abs() < 1e-12);
    assert!((g.per_contact_exponent.unwrap() - 3f64.ln() / 20f64.ln()).abs() < 1e-12);

    // Slow, unconverged or too far behind Rapier: FAIL.
    let mut slow = full_run();
    slow[1].seq = Ok(ours(5000, 0.2, 5e-3, 1e-3, 5000.0, 0, false));
    slow[1].par = Ok(ours(5000, 0.15, 5e-3, 1e-3, 5000.0, 0, true));
    let t = targets(&slow);
    assert_eq!((t[0].met, t[1].met, t[2].met), (Some(false), Some(false), Some(false)));
    let mut unconverged = full_run();
    unconverged[1].par = Ok(ours(5000, 0.06, 5e-3, 1e-3, 5000.0, 3, true));
    assert_eq!(targets(&unconverged)[0].met, Some(false), "3 steps above the tolerance");

    // Each ratio target reads its own pair of runs. Rapier's parallel pipeline at 0.015 s/step:
    // 0.06 / 0.015 = 4 > 3 on 2 cores, while the single-core ratio (2.67) still passes.
    let mut fast_parallel_rapier = full_run();
    fast_parallel_rapier[1].rapier_par = Ok(rapier(5000, 0.015, true));
    let t = targets(&fast_parallel_rapier);
    assert_eq!((t[1].met, t[2].met), (Some(false), Some(true)), "{t:?}");
    assert!(t[1].measured.contains("= 4.00"), "{}", t[1].measured);
    // Rapier's single-threaded pipeline at 0.02 s/step: 0.08 / 0.02 = 4 > 3 on 1 core only.
    let mut fast_single_rapier = full_run();
    fast_single_rapier[1].rapier = Ok(rapier(5000, 0.02, false));
    let t = targets(&fast_single_rapier);
    assert_eq!((t[1].met, t[2].met), (Some(true), Some(false)), "{t:?}");
    // Exactly 3× (3/32 against 1/32 s/step, exact in binary): met (≤).
    let mut at_bound = full_run();
    at_bound[1].par = Ok(ours(5000, 0.09375, 5e-3, 1e-3, 5000.0, 0, true));
    at_bound[1].rapier_par = Ok(rapier(5000, 0.03125, true));
    assert_eq!(targets(&at_bound)[1].met, Some(true));
}

#[test]
fn targets_not_measured_are_never_passed() {
    // The quick run: N = 1000 only.
    let quick = vec![full_run().remove(0)];
    assert!(targets(&quick).iter().all(|t| t.met.is_none()), "{:?}", targets(&quick));
    // Rapier's single-threaded run missing at N = 5000: no 1-core verdict, the others stand.
    let mut no_rapier = full_run();
    no_rapier[1].rapier = Err("the rapier-pile build with --features rapier failed".into());
    let t = targets(&no_rapier);
    assert_eq!((t[0].met, t[1].met, t[2].met), (Some(true), Some(true), None));
    assert!(
        t[2].measured.contains("no ratio: the rapier-pile build with --features rapier failed"),
        "{}",
        t[2].measured
    );
    // Rapier's parallel run missing: no 2-core verdict, the 1-core one stands.
    let mut no_parallel_rapier = full_run();
    no_parallel_rapier[1].rapier_par = Err("rapier-pile-2threads ran with parallel = true on 1 thread(s)".into());
    let t = targets(&no_parallel_rapier);
    assert_eq!((t[0].met, t[1].met, t[2].met), (Some(true), None, Some(true)));
    assert!(t[1].measured.contains("no ratio: rapier-pile-2threads ran"), "{}", t[1].measured);
    assert_eq!(t[1].verdict(), "not measured");
    // Our 2-thread run missing: the speed target falls back on the sequential run (12.5 steps/s),
    // the 2-core ratio is not measured.
    let mut no_par = full_run();
    no_par[1].par = Err("mechanics-pile failed".into());
    let t = targets(&no_par);
    assert_eq!((t[0].met, t[1].met, t[2].met), (Some(true), None, Some(true)));
    assert!(t[1].measured.contains("mechanics-pile failed"), "{}", t[1].measured);
    // Our N = 20000 sequential run failed: no growth verdict.
    let mut no_big = full_run();
    no_big[2].seq = Err("mechanics-pile failed".into());
    assert!(targets(&no_big)[3..].iter().all(|t| t.met.is_none() && t.verdict() == "not measured"));
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
        "- Rapier: `rapier3d` 0.36.1 (f32), measured in the same run with its single-threaded pipeline and with \
         its parallel pipeline on 2 threads\n",
        "### N = 5000 (500 steps, 200 measured)",
        "| ratio to Rapier 1 thread | ratio to Rapier 2 threads |",
        "## What each solves",
        "## How to run",
        "`RAYON_NUM_THREADS=2 cargo run --release -p nonsmooth-benches --features rapier-parallel --bin rapier-pile \
         -- --n 5000",
        "- whole report: 1.5 min",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    assert!(!md.contains("Quick subset") && !md.contains("not measured:"));
    // The N = 5000 rows in run order: ms/step, steps/s, detection, assembly, ..., the two ratios
    // (to Rapier's 30 and 25 ms/step).
    let rows = rows_of_n5000(&md);
    assert_eq!(
        rows,
        [
            "| ours, NSGS sequential | 80.000 | 12.5 | 5.000 | 1.000 | 40.000 | 8.000 | 5000.0 | 12.0 | 0 | 0.0200 | 0.4000 | 2.67 | 3.20 |",
            "| ours, NSGS parallel (2 threads) | 60.000 | 16.7 | 5.000 | 1.000 | 30.000 | 6.000 | 5000.0 | 12.0 | 0 | 0.0200 | 0.4000 | 2.00 | 2.40 |",
            "| Rapier, single-threaded pipeline | 30.000 | 33.3 | – | – | – | – | 2000 (3000 active) | – | – | 0.0100 | 0.4100 | 1.00 | 1.20 |",
            "| Rapier, parallel pipeline (2 threads) | 25.000 | 40.0 | – | – | – | – | 2000 (3000 active) | – | – | 0.0100 | 0.4100 | 0.83 | 1.00 |",
        ]
    );
    // Targets: speed, the two Rapier ratios and the detection growth pass; the assembly growth fails.
    assert_eq!(md.matches("| PASS |").count(), 4, "{md}");
    assert_eq!(md.matches("| **FAIL** |").count(), 1, "{md}");
    assert!(md.contains("| N = 5000 on 2 cores: per-step time ≤ 3× Rapier's on 2 cores (ours NSGS parallel, 2 threads, against Rapier's parallel pipeline, 2 threads) | ours / Rapier = 2.40 (60.000 against 25.000 ms/step) | PASS |"), "{md}");
    assert!(md.contains("| N = 5000 on 1 core: per-step time ≤ 3× Rapier's single-threaded pipeline (ours NSGS sequential) | ours / Rapier = 2.67 (80.000 against 30.000 ms/step) | PASS |"), "{md}");
    // Per-contact table: detection at N = 20000 is 22 ms / 20000 contacts = 1.1 µs.
    assert!(md.contains("| detection | 20000 | 22.000 | 1.100 |"), "{md}");
    // Every table row has the header's column count: 14 columns, 15 bars.
    let table_rows = md.lines().filter(|l| l.starts_with("| ours") || l.starts_with("| Rapier"));
    assert_eq!(table_rows.clone().count(), 12, "four rows per case");
    for line in table_rows {
        assert_eq!(line.matches('|').count(), 15, "{line}");
    }
}

#[test]
fn markdown_of_a_quick_run_with_a_missing_side() {
    let mut results = vec![full_run().remove(0)];
    let failed = "the rapier-pile build with --features rapier failed (exit status: 101)";
    results[0].rapier = Err(failed.into());
    results[0].rapier_par = Err(failed.replace("rapier ", "rapier-parallel "));
    let mut h = header(true);
    h.rapier = Err(failed.into());
    let md = markdown(&h, &results);
    assert!(md.contains("**Quick subset only**"));
    assert!(md.contains("- Rapier not measured: the rapier-pile build with --features rapier failed"));
    for label in ["| Rapier, single-threaded pipeline |", "| Rapier, parallel pipeline (2 threads) |"] {
        let row = md.lines().find(|l| l.starts_with(label)).unwrap();
        assert!(row.contains("| not measured: the rapier-pile build"), "{row}");
        assert_eq!(row.matches('|').count(), 15, "{row}");
    }
    // Our rows have no ratio at all.
    for row in md.lines().filter(|l| l.starts_with("| ours")) {
        assert!(row.ends_with("| – | – |"), "{row}");
    }
    assert_eq!(md.matches("| not measured |").count(), 5, "every target unmeasured: {md}");
    assert!(!md.contains("PASS") && !md.contains("FAIL"));
}

#[test]
fn markdown_with_only_the_parallel_rapier_run_missing() {
    let mut results = full_run();
    let reason = "rapier-pile-2threads ran with parallel = true on 1 thread(s), expected parallel = true on 2";
    for r in &mut results {
        r.rapier_par = Err(reason.into());
    }
    let md = markdown(&header(false), &results);
    // The header names the pipeline that was not measured and why; the single-threaded one stands.
    assert!(
        md.contains(&format!(
            "with its parallel pipeline on 2 threads; the parallel pipeline not measured: {reason}\n"
        )),
        "{md}"
    );
    assert!(!md.contains("the single-threaded pipeline not measured"), "{md}");
    let rows = rows_of_n5000(&md);
    // Ratios to Rapier 1 thread measured, to Rapier 2 threads "–".
    assert!(rows[0].ends_with("| 2.67 | – |"), "{}", rows[0]);
    assert!(rows[1].ends_with("| 2.00 | – |"), "{}", rows[1]);
    assert!(rows[2].ends_with("| 1.00 | – |"), "{}", rows[2]);
    assert_eq!(
        rows[3],
        format!("| Rapier, parallel pipeline (2 threads) | not measured: {reason} |{}", " |".repeat(12))
    );
    // The 2-core target is not measured, the 1-core one is.
    let target = |prefix: &str| md.lines().find(|l| l.starts_with(prefix)).unwrap().to_owned();
    assert!(target("| N = 5000 on 2 cores").ends_with("| not measured |"), "{md}");
    assert!(target("| N = 5000 on 1 core").ends_with("| PASS |"), "{md}");
}

#[test]
fn csv_lines() {
    let mut results = full_run();
    results[2].rapier = Err("rapier-pile-1thread failed, exit 1".into());
    results[2].rapier_par = Err("rapier-pile-2threads failed, exit 1".into());
    let text = csv(&results);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 12, "four lines per case");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(header.len(), 22);
    assert_eq!(header[5], "threads");
    assert_eq!(header[19..], ["ratio_to_rapier_1thread", "ratio_to_rapier_2threads", "status"]);
    assert!(lines.iter().skip(1).take(10).all(|l| l.split(',').count() == header.len()));
    // N = 5000, lines 5 to 8: ours sequential and parallel, Rapier single-threaded and parallel.
    let field = |line: usize, column: usize| lines[line].split(',').nth(column).unwrap().to_owned();
    let ratios = |line: usize| [19, 20].map(|c| field(line, c).parse::<f64>().unwrap());
    assert!(lines[5].starts_with("5000,500,200,nonsmooth,false,1,8e-2,1.25e1,5e-3,1e-3,"), "{}", lines[5]);
    assert!(lines[5].ends_with(",measured"), "{}", lines[5]);
    let [to_1, to_2] = ratios(5);
    assert!((to_1 - 0.08 / 0.03).abs() < 1e-12 && (to_2 - 0.08 / 0.025).abs() < 1e-12, "{to_1} {to_2}");
    assert!(lines[6].starts_with("5000,500,200,nonsmooth,true,2,6e-2,"), "{}", lines[6]);
    assert!(lines[7].starts_with("5000,500,200,rapier3d,false,1,3e-2,"), "{}", lines[7]);
    let [to_1, to_2] = ratios(7);
    assert!((to_1 - 1.0).abs() < 1e-12 && (to_2 - 0.03 / 0.025).abs() < 1e-12, "Rapier against itself: {to_1} {to_2}");
    assert!(lines[8].starts_with("5000,500,200,rapier3d,true,2,2.5e-2,"), "{}", lines[8]);
    assert!((ratios(8)[1] - 1.0).abs() < 1e-12);
    // N = 20000 without Rapier: our lines have no ratios, Rapier's lines say which run failed and why.
    assert_eq!((field(9, 19), field(9, 20)), (String::new(), String::new()));
    assert_eq!(
        lines[11],
        format!(
            "20000,500,200,rapier3d,false,1,{}\"not measured: rapier-pile-1thread failed, exit 1\"",
            ",".repeat(15)
        )
    );
    assert_eq!(
        lines[12],
        format!(
            "20000,500,200,rapier3d,true,2,{}\"not measured: rapier-pile-2threads failed, exit 1\"",
            ",".repeat(15)
        )
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

/// The four table rows (ours ×2, Rapier ×2) of the N = 5000 case of a report.
fn rows_of_n5000(md: &str) -> Vec<&str> {
    md.lines()
        .skip_while(|l| !l.starts_with("### N = 5000"))
        .filter(|l| l.starts_with("| ours") || l.starts_with("| Rapier"))
        .take(4)
        .collect()
}
