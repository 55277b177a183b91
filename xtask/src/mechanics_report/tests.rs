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

// The whole-life part (`life.rs`).

use super::life::{
    EngineRun, LifeCase, LifePhase, LifeResult, StepRecord, WholeRun, Window, extrapolate, life_cases, life_targets,
    parse_records, phases, phases_with, stats, window_start,
};

/// Kinetic energies shaped like our N = 1000 run (J): a fall to 150 J, then 29, 1.3, … 3e-4.
const KE: [f64; 14] = [0.0, 50.0, 150.0, 100.0, 29.0, 14.0, 1.3, 0.8, 0.27, 0.03, 5e-3, 3e-4, 1e-5, 1e-5];

/// A run whose step `k` (1-based) has kinetic energy `ke[k − 1]`, takes `seconds(k)`, sweeps
/// `10 k` times and converges unless `k` is in `missed`.
fn life_run(ke: &[f64], seconds: impl Fn(usize) -> f64, missed: &[usize], tolerance: bool) -> EngineRun {
    let records = ke
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            let step = i + 1;
            StepRecord {
                step,
                ke: e,
                seconds: seconds(step),
                iterations: Some(10.0 * step as f64),
                converged: tolerance.then_some(!missed.contains(&step)),
                residual: tolerance.then_some(if missed.contains(&step) { 3e-4 } else { 5e-5 }),
                penetration: 1e-3 * step as f64,
                mean_height: 0.5 - 0.01 * step as f64,
                contacts: 100.0,
            }
        })
        .collect();
    EngineRun { records, meta: serde_json::json!({"record": "run"}) }
}

#[test]
fn phases_follow_the_kinetic_energy() {
    let p = phases(&KE).unwrap();
    assert!((p.e_max - 150.0).abs() < 1e-12);
    // Falling: up to the last E ≥ 15 J (29 J, index 4); rest: from 5e-3 J (≤ 0.015 J to the end).
    assert_eq!((p.falling.clone(), p.settling.clone(), p.rest.clone()), (0..5, 5..10, 10..14));
    // A late burst above the rest threshold pushes the start of rest after it.
    let mut burst = KE;
    burst[12] = 0.02;
    assert_eq!(phases(&burst).unwrap().rest, 13..14);
    // Looser thresholds move the boundaries.
    let loose = phases_with(&KE, 0.2, 1e-3).unwrap();
    assert_eq!((loose.falling, loose.rest), (0..4, 9..14));
    // Never at rest, or never settling: the phase is empty; rest never starts inside the fall.
    assert!(phases(&[1.0, 2.0, 1.0]).unwrap().rest.is_empty());
    let flat = phases(&[0.0, 0.0]).unwrap();
    assert_eq!((flat.falling, flat.settling.len(), flat.rest.len()), (0..2, 0, 0));
    assert!(phases(&[]).is_none() && phases(&[1.0, f64::NAN]).is_none());
}

#[test]
fn windows_start_inside_their_phase_near_its_middle() {
    assert_eq!(window_start(1, 400, 50), Some(200));
    assert_eq!(window_start(401, 1100, 50), Some(750));
    assert_eq!(window_start(1101, 2000, 50), Some(1550));
    // The state before the phase's first step may start it; one after its last step may not.
    assert_eq!(window_start(401, 430, 50), Some(400));
    assert_eq!(window_start(405, 440, 50), None);
    assert_eq!(window_start(1, 3, 10), Some(0));
    assert_eq!(window_start(5, 4, 10), None);
    assert_eq!(window_start(1, 100, 0), None);
}

#[test]
fn phase_statistics_and_extrapolation() {
    let run = life_run(&KE, |k| if k <= 5 { 0.01 } else { 0.03 }, &[7], true);
    let s = stats(&run.records[5..10]).unwrap();
    assert_eq!((s.steps, s.first_step, s.last_step, s.unconverged, s.checked), (5, 6, 10, 1, 5));
    assert!((s.seconds_per_step - 0.03).abs() < 1e-15 && (s.iterations.unwrap() - 80.0).abs() < 1e-12);
    assert!((s.worst_residual.unwrap() - 3e-4).abs() < 1e-18);
    assert!((s.penetration_end - 0.010).abs() < 1e-15 && (s.penetration_max - 0.010).abs() < 1e-15);
    assert!((s.mean_height_end - 0.4).abs() < 1e-12);
    assert!(stats(&[]).is_none());
    let w = WholeRun::new(run, "ours").unwrap();
    assert_eq!(w.phase(LifePhase::Falling).unwrap().steps, 5);
    assert_eq!(w.whole().unwrap().unconverged, 1);
    assert_eq!(w.ke_at(0.002, 1e-3), Some(50.0));
    assert!(w.ke_at(0.1, 1e-3).is_none());
    // Σ window s/step × phase steps; an empty phase needs no window; a missing one stops it.
    let window = |phase, phase_steps, t: Result<f64, &str>| Window {
        phase,
        phase_steps,
        start: Ok(0),
        stats: t
            .map(|t| super::life::PhaseStats { seconds_per_step: t, steps: 2, ..Default::default() })
            .map_err(str::to_owned),
    };
    let ws = [
        window(LifePhase::Falling, 400, Ok(1.0)),
        window(LifePhase::Settling, 600, Ok(2.0)),
        window(LifePhase::Rest, 0, Err("empty phase")),
    ];
    assert!((extrapolate(&ws).unwrap() - 1600.0).abs() < 1e-9);
    let missing = [window(LifePhase::Falling, 400, Ok(1.0)), window(LifePhase::Rest, 10, Err("siconos failed"))];
    assert!(extrapolate(&missing).is_none());
}

#[test]
fn life_lines_parse() {
    let out = format!(
        "progress\n{}\n{}\n{}\n",
        r#"{"record":"step","step":1,"ke":0.5,"seconds":0.002,"iterations":12,"converged":true,"residual":5e-5,"penetration":0.0,"mean_height":0.55,"contacts":10}"#,
        r#"{"record":"step","step":2,"ke":1.5,"seconds":0.003,"iterations":null,"converged":null,"residual":null,"penetration":1e-4,"mean_height":0.54,"contacts":0}"#,
        r#"{"record":"run","engine":"nonsmooth","n":1000}"#
    );
    let run = parse_records(&out, "pile-life").unwrap();
    assert_eq!(run.records.len(), 2);
    assert_eq!((run.records[0].iterations, run.records[0].converged), (Some(12.0), Some(true)));
    assert_eq!((run.records[1].iterations, run.records[1].converged, run.records[1].residual), (None, None, None));
    assert_eq!(run.meta["engine"], "nonsmooth");
    let no_run = out.replace(r#"{"record":"run","engine":"nonsmooth","n":1000}"#, "");
    assert!(parse_records(&no_run, "x").unwrap_err().to_string().contains("no run line"));
    let bad = out.replace(r#""ke":0.5"#, r#""energy":0.5"#);
    assert!(parse_records(&bad, "x").unwrap_err().to_string().contains("\"ke\""));
}

/// A whole-life case with made-up runs: ours 10 ms/step falling, 30 settling, `rest` at rest;
/// Rapier 6 ms/step; Siconos windows of 1.5 s/step.
fn life_result(rest: f64, missed: &[usize]) -> LifeResult {
    let case = LifeCase { n: 1000, steps: 14, export_every: 2, siconos_window: 2, mujoco_window: 1 };
    let ours_seconds = move |k: usize| {
        if k <= 5 {
            0.01
        } else if k <= 10 {
            0.03
        } else {
            rest
        }
    };
    let ours = WholeRun::new(life_run(&KE, ours_seconds, missed, true), "ours").unwrap();
    let rapier = WholeRun::new(life_run(&KE, |_| 0.006, &[], false), "rapier").unwrap();
    let windows = |t: f64| {
        LifePhase::ALL
            .into_iter()
            .map(|phase| Window {
                phase,
                phase_steps: ours.phases.range(phase).len(),
                start: Ok(2),
                stats: Ok(super::life::PhaseStats {
                    steps: 2,
                    first_step: 3,
                    last_step: 4,
                    seconds_per_step: t,
                    iterations: Some(700.0),
                    checked: 2,
                    worst_residual: Some(9e-5),
                    ..Default::default()
                }),
            })
            .collect::<Vec<_>>()
    };
    LifeResult { case, rapier: Ok(rapier), siconos: Ok(windows(1.5)), mujoco: Ok(windows(2.0)), ours: Ok(ours) }
}

#[test]
fn life_targets_on_made_up_numbers() {
    let t = life_targets(&[life_result(0.015, &[])]);
    assert_eq!(t.len(), 4);
    assert_eq!(t.iter().map(|t| t.met).collect::<Vec<_>>(), [Some(true), Some(true), Some(true), Some(true)], "{t:?}");
    assert!(t[0].measured.starts_with("0 of 14 steps above the tolerance"), "{}", t[0].measured);
    // Rest 15 ms against falling 10: 1.5; settling 30 against 10: 3.
    assert!(t[1].measured.contains("rest / falling = 1.50") && t[1].measured.contains("settling / falling = 3.00"));
    // Siconos 1.5 s × 14 steps = 21 s against ours 5·0.01 + 5·0.03 + 4·0.015 = 0.26 s: 80.8×.
    assert!(t[2].measured.contains("Siconos / ours = 80.8"), "{}", t[2].measured);
    // Falling 10 ms against Rapier's 6: 1.67.
    assert!(t[3].measured.contains("ours / Rapier = 1.67"), "{}", t[3].measured);
    // An unconverged step, a slow rest (3×), a slow whole run (Siconos only 21 / 0.5 = 42×): FAIL.
    let t = life_targets(&[life_result(0.03, &[12])]);
    assert_eq!((t[0].met, t[1].met), (Some(false), Some(false)));
    assert!(t[0].measured.contains("1 of 14") && t[0].measured.contains("3.00e-4"), "{}", t[0].measured);
    let t = life_targets(&[life_result(0.08, &[])]);
    assert_eq!(t[2].met, Some(false), "{}", t[2].measured);
    // Engines not measured: no verdict, the reason shown.
    let mut r = life_result(0.015, &[]);
    r.siconos = Err("import siconos failed".into());
    r.rapier = Err("rapier-pile failed".into());
    let t = life_targets(&[r]);
    assert_eq!((t[0].met, t[2].met, t[3].met), (Some(true), None, None));
    assert!(t[2].measured.contains("import siconos failed") && t[3].measured.contains("rapier-pile failed"));
}

#[test]
fn life_markdown_and_csv() {
    let mut r = life_result(0.015, &[]);
    if let Ok(ws) = &mut r.mujoco {
        ws[2].stats = Err("mujoco window failed".into());
    }
    let md = super::life::markdown(&[r.clone()], &Ok(std::path::PathBuf::from("target/siconos_graph_shim.so")));
    for needle in [
        "## Whole life: from the lattice at rest to the heap at rest",
        "**falling** = the steps up to the last one with E ≥ 0.1·E_max",
        "E stays ≤ 1e-4·E_max",
        "### N = 1000, whole life (14 steps)",
        "| Siconos 4.4 (windows) | **whole run** | 14 | extrapolated: 21.0 s",
        "| MuJoCo (windows) | **whole run** | 14 | no extrapolation: a window is missing",
        "mujoco window failed",
        "`LD_PRELOAD=target/siconos_graph_shim.so`",
        "### What each solves (whole life)",
        "Other thresholds on our run",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    assert_eq!(md.matches("| PASS |").count(), 4, "{md}");
    // Every row of the phase tables has the header's 11 columns.
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| ["| ours,", "| Rapier,", "| Siconos", "| MuJoCo"].iter().any(|p| l.starts_with(p)))
        .collect();
    assert_eq!(rows.len(), 4 + 4 + 4 + 4);
    for row in rows {
        assert_eq!(row.matches('|').count(), 12, "{row}");
    }
    assert!(
        md.contains("| ours, NSGS sequential | falling | 5 | 0.000–0.005 | 10.000 | 30.0 | 0 / 5 | 5.00e-5 |"),
        "{md}"
    );
    let text = super::life::csv(&[r]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 4 + 4 + 3 + 3);
    let columns = lines[0].split(',').count();
    assert_eq!(columns, 18);
    assert!(lines[1..].iter().all(|l| l.split(',').count() == columns), "{text}");
    assert!(lines[1].starts_with("1000,nonsmooth,whole,falling,0,1,5,5,5,1e-2,"), "{}", lines[1]);
    assert!(lines[9].starts_with("1000,siconos,window,falling,2,3,4,2,5,1.5e0,"), "{}", lines[9]);
    assert!(lines[14].ends_with(",not measured: mujoco window failed"), "{}", lines[14]);
}

#[test]
fn life_cases_in_report_order() {
    let full = life_cases(false);
    assert_eq!(full.iter().map(|c| (c.n, c.steps)).collect::<Vec<_>>(), [(1000, 2000), (5000, 2000)]);
    assert!(full.iter().all(|c| c.siconos_window >= 3 && c.export_every > 0));
    let quick = life_cases(true);
    assert!(quick.len() == 1 && quick[0].n < 1000 && quick[0].steps < 2000);
}

/// A window's process still running at its wall-time limit is stopped, and said so.
#[test]
fn a_run_past_its_limit_is_stopped() {
    let mut cmd = std::process::Command::new("sleep");
    cmd.arg("30");
    let started = std::time::Instant::now();
    let error = super::life::run_records(&mut cmd, "sleep 30", Some(std::time::Duration::from_millis(300)))
        .expect_err("stopped at its limit");
    assert!(error.contains("stopped after") && started.elapsed().as_secs() < 10, "{error}");
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", "echo not a record; exit 3"]);
    let error = super::life::run_records(&mut cmd, "sh", None).expect_err("a failing process");
    assert!(error.contains("failed"), "{error}");
}
