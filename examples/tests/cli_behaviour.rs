//! The examples behave like programs: their command lines (the `Args` types of
//! `nonsmooth_examples::cli`, parsed with clap) answer `--help` naming every flag, refuse unknown
//! flags and bad values naming the flag (clap's exit code 2), check the output path before the
//! run, and write trajectories with a header naming the columns (`--siconos`: the bare `.ref`
//! layout).

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use nonsmooth::kernel::io::read_trajectory;
use nonsmooth::kernel::simulation::Trajectory;
use nonsmooth_examples::TrajectoryOutput;
use nonsmooth_examples::cli::kernel::*;
use nonsmooth_examples::cli::mechanics::{
    BouncingBallNetsArgs, HingedDoorArgs, PendulumChainArgs, PourSpheresArgs, RollingSphereArgs, RollingSphereEdArgs,
    SliderCrankNeArgs,
};
use nonsmooth_examples::cli::numerics::SolveLcpArgs;
use nonsmooth_examples::cli::{OnNonConvergence, on_nonconvergence};
use nonsmooth_examples::kernel::bouncing_ball::{self, BouncingBall};
use nonsmooth_examples::kernel::column_of_beads::ColumnOfBeads;
use nonsmooth_examples::kernel::{bouncing_ball_projection, bouncing_ball_schatzman_paoli, simple_example_relay};

/// Every example's command, by the example's name.
fn commands() -> Vec<clap::Command> {
    vec![
        BouncingBallTsArgs::command(),
        BouncingBallEdArgs::command(),
        BouncingBallEdRestingArgs::command(),
        BouncingBallEdTwoContactsArgs::command(),
        BouncingBallProjectionArgs::command(),
        BouncingBallSchatzmanPaoliArgs::command(),
        CamFollowerArgs::command(),
        CircuitRlcdThetaGammaArgs::command(),
        ColumnOfBeadsArgs::command(),
        DiodeBridgeArgs::command(),
        DoublePendulumArgs::command(),
        MixedIntegratorsArgs::command(),
        NonlinearSwitchArgs::command(),
        PendulumEdArgs::command(),
        SlopeBlockEdArgs::command(),
        LinearOscillatorEdArgs::command(),
        SimpleExampleRelayArgs::command(),
        SliderCrankArgs::command(),
        TwoBouncingBallsGlobalArgs::command(),
        WoodpeckerArgs::command(),
        BouncingBallNetsArgs::command(),
        RollingSphereArgs::command(),
        RollingSphereEdArgs::command(),
        HingedDoorArgs::command(),
        SliderCrankNeArgs::command(),
        PendulumChainArgs::command(),
        PourSpheresArgs::command(),
        SolveLcpArgs::command(),
    ]
}

/// A fresh folder under cargo's temporary directory for this test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_behaviour").join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("removable scratch folder");
    }
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The error clap gives for `args` (panics when they parse).
fn parse_error(mut command: clap::Command, args: &[&str]) -> clap::Error {
    let name = command.get_name().to_owned();
    command.try_get_matches_from_mut(std::iter::once(name.as_str()).chain(args.iter().copied())).expect_err("refused")
}

#[test]
fn every_parser_is_well_formed_and_named_after_its_example() {
    let names: Vec<String> = commands().iter().map(|c| c.get_name().to_owned()).collect();
    for name in &names {
        let source = ["kernel", "mechanics", "numerics"]
            .iter()
            .map(|dir| Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(format!("{name}.rs")))
            .find(|p| p.is_file());
        assert!(source.is_some(), "no example {name}.rs");
    }
    for command in commands() {
        command.debug_assert();
    }
}

#[test]
fn help_succeeds_and_names_each_flag() {
    for mut command in commands() {
        let name = command.get_name().to_owned();
        let flags: Vec<String> =
            command.get_arguments().filter_map(|a| a.get_long().map(|l| format!("--{l}"))).collect();
        let help = command.render_long_help().to_string();
        let error = parse_error(command, &["--help"]);
        assert_eq!(error.kind(), ErrorKind::DisplayHelp, "{name}");
        assert_eq!(error.exit_code(), 0, "{name}");
        for flag in &flags {
            assert!(help.contains(flag.as_str()), "{name} --help does not name {flag}:\n{help}");
        }
        // The long help says what the example models and what it prints or writes.
        assert!(help.contains("The system") || name == "solve_lcp", "{name}:\n{help}");
        assert!(help.contains("print"), "{name}:\n{help}");
    }
    let ts = BouncingBallTsArgs::command().render_long_help().to_string();
    for needle in ["BouncingBallTS", "Moreau–Jean", "--output <FILE>", "--siconos", "# t"] {
        assert!(ts.contains(needle), "bouncing_ball_ts --help lacks {needle}:\n{ts}");
    }
    let lcp = SolveLcpArgs::command().render_long_help().to_string();
    assert!(lcp.contains("[FILE]") && lcp.contains("lemke"), "{lcp}");
}

#[test]
fn unknown_flags_are_refused_naming_the_flag() {
    for command in commands() {
        let name = command.get_name().to_owned();
        let error = parse_error(command, &["--outptu", "x.ref"]);
        assert_eq!(error.kind(), ErrorKind::UnknownArgument, "{name}");
        assert_eq!(error.exit_code(), 2, "{name}");
        assert!(error.to_string().contains("--outptu"), "{name}: {error}");
    }
}

#[test]
fn bad_values_are_refused_naming_the_flag() {
    let cases: [(clap::Command, &[&str], &str); 12] = [
        (ColumnOfBeadsArgs::command(), &["--t-end", "abc"], "--t-end"),
        (DoublePendulumArgs::command(), &["--t-end", "0"], "--t-end"),
        (BouncingBallEdRestingArgs::command(), &["--restitution", "1.5"], "--restitution"),
        (CamFollowerArgs::command(), &["--rpm", "-3"], "--rpm"),
        (CamFollowerArgs::command(), &["--scheme", "xx"], "--scheme"),
        (CircuitRlcdThetaGammaArgs::command(), &["--theta", "NaN"], "--theta"),
        (SliderCrankArgs::command(), &["--steps", "0"], "--steps"),
        (SliderCrankArgs::command(), &["--scheme", "moreau"], "--scheme"),
        (BouncingBallProjectionArgs::command(), &["--projection", "orthogonal"], "--projection"),
        (BouncingBallSchatzmanPaoliArgs::command(), &["--startup", "zero"], "--startup"),
        (RollingSphereArgs::command(), &["--mu", "inf"], "--mu"),
        (SolveLcpArgs::command(), &["problem.dat", "simplex"], "SOLVER"),
    ];
    for (command, args, flag) in cases {
        let name = command.get_name().to_owned();
        let error = parse_error(command, args);
        assert!(
            matches!(error.kind(), ErrorKind::ValueValidation | ErrorKind::InvalidValue),
            "{name} {args:?}: {:?}",
            error.kind()
        );
        assert_eq!(error.exit_code(), 2);
        let message = error.to_string();
        assert!(message.contains(flag) && message.contains(args[args.len() - 1]), "{name} {args:?}: {message}");
    }
    let error = parse_error(WoodpeckerArgs::command(), &["--output"]);
    assert!(error.to_string().contains("--output"), "{error}");
    let error = parse_error(BouncingBallTsArgs::command(), &["--siconos"]);
    assert_eq!(error.kind(), ErrorKind::MissingRequiredArgument);
    assert!(error.to_string().contains("--output"), "{error}");
}

#[test]
fn flags_reach_the_models_and_defaults_are_the_models() {
    let beads = ColumnOfBeadsArgs::try_parse_from(["column_of_beads"]).expect("parses");
    assert_eq!(beads.t_end.to_bits(), ColumnOfBeads::default().t_end.to_bits());
    assert_eq!(beads.output, TrajectoryOutput::default());
    let beads =
        ColumnOfBeadsArgs::try_parse_from(["column_of_beads", "--t-end", "0.5", "--output", "b.txt", "--siconos"])
            .expect("parses");
    assert_eq!(beads.t_end.to_bits(), 0.5f64.to_bits());
    assert_eq!(beads.output, TrajectoryOutput { output: Some("b.txt".into()), siconos: true });
    let crank =
        SliderCrankArgs::try_parse_from(["slider_crank", "--scheme", "combined", "--steps", "10"]).expect("parses");
    assert_eq!(crank.scheme, nonsmooth_examples::kernel::slider_crank::Scheme::CombinedProjection);
    assert_eq!(crank.steps, Some(10));
    let lcp = SolveLcpArgs::try_parse_from(["solve_lcp"]).expect("parses");
    assert_eq!((lcp.file, lcp.solver.as_str()), (None, "lemke"));
}

#[test]
fn an_output_path_in_a_missing_folder_fails_before_the_run_naming_it() {
    let path = scratch("missing").join("no/such/folder/bb.ref");
    let output = TrajectoryOutput { output: Some(path.clone()), siconos: false };
    let error = output.open().expect_err("the folder does not exist");
    assert!(format!("{error:#}").contains(&path.display().to_string()), "{error:#}");
    assert!(TrajectoryOutput::default().open().expect("no output asked").is_none());
}

#[test]
fn a_written_trajectory_names_its_columns_and_siconos_gives_the_bare_layout() {
    let dir = scratch("header");
    let trajectory = BouncingBall::default().simulate().expect("the model runs");
    let with_header = dir.join("bb.ref");
    let bare = dir.join("bb-siconos.ref");
    let file = TrajectoryOutput { output: Some(with_header.clone()), siconos: false }.open().expect("creatable");
    assert!(with_header.is_file(), "created before the run");
    file.expect("asked").write(&trajectory, &bouncing_ball::COLUMN_NAMES).expect("writes");
    let file = TrajectoryOutput { output: Some(bare.clone()), siconos: true }.open().expect("creatable");
    file.expect("asked").write(&trajectory, &bouncing_ball::COLUMN_NAMES).expect("writes");

    let text = std::fs::read_to_string(&with_header).expect("readable");
    assert_eq!(text.lines().next(), Some("# t x v_x p1_x lambda1"));
    assert_eq!(std::fs::read_to_string(&bare).expect("readable"), trajectory.to_ref_string());
    assert_eq!(text, format!("# t x v_x p1_x lambda1\n{}", trajectory.to_ref_string()));
    assert_same(&read_trajectory(&with_header).expect("the reader skips the header"), &trajectory);

    // Too few names is a typed error, not a panic.
    let file = TrajectoryOutput { output: Some(dir.join("short.ref")), siconos: false }.open().expect("creatable");
    assert!(file.expect("asked").write(&trajectory, &["t", "x"]).is_err());
}

#[test]
fn column_names_fit_the_trajectories() {
    let ball = BouncingBall::default();
    let cases: [(&[&str], Trajectory); 4] = [
        (&bouncing_ball::COLUMN_NAMES, ball.simulate().expect("runs")),
        (
            &bouncing_ball_projection::COLUMN_NAMES,
            bouncing_ball_projection::simulate(&ball, bouncing_ball_projection::Projection::Direct).expect("runs"),
        ),
        (
            &bouncing_ball_schatzman_paoli::COLUMN_NAMES,
            bouncing_ball_schatzman_paoli::simulate(&ball, Startup::Siconos.into()).expect("runs"),
        ),
        (&simple_example_relay::COLUMN_NAMES, simple_example_relay::simulate().expect("runs")),
    ];
    for (names, trajectory) in cases {
        assert_eq!(names.len(), trajectory.columns(), "{names:?}");
    }
    let beads = ColumnOfBeads::default();
    assert_eq!(beads.column_names().len(), beads.columns());
}

fn assert_same(a: &Trajectory, b: &Trajectory) {
    assert_eq!((a.rows(), a.columns()), (b.rows(), b.columns()));
    for (x, y) in a.iter_rows().zip(b.iter_rows()) {
        for (u, v) in x.iter().zip(y) {
            assert!((u - v).abs() <= 1e-15 * v.abs().max(1.0), "{u} vs {v}");
        }
    }
}

/// The `bouncing_ball_ts` program that cargo built with this test (`target/<profile>/examples/`),
/// if it did: `cargo test -p nonsmooth-examples` builds the examples, `--test cli_behaviour` alone
/// does not.
fn built_example(name: &str) -> Option<PathBuf> {
    let deps = std::env::current_exe().ok()?.parent()?.to_path_buf();
    let path = deps.parent()?.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Some(path)
    } else {
        println!("skipped: {} not built (run `cargo test -p nonsmooth-examples`)", path.display());
        None
    }
}

#[test]
fn bouncing_ball_ts_program_end_to_end() {
    let Some(program) = built_example("bouncing_ball_ts") else { return };
    let dir = scratch("end_to_end");
    let run = |args: &[&str]| Command::new(&program).args(args).output().expect("the example runs");

    let help = run(&["--help"]);
    assert!(help.status.success());
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--output") && help.contains("--siconos"), "{help}");

    let typo = run(&["--outptu", "x.ref"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&typo.stderr).contains("--outptu"));

    let missing = dir.join("missing/bb.ref");
    let failed = run(&["--output", missing.to_str().expect("utf-8 path")]);
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
    assert!(failed.stdout.is_empty(), "nothing ran: {}", String::from_utf8_lossy(&failed.stdout));

    let with_header = dir.join("bb.ref");
    assert!(run(&["--output", with_header.to_str().expect("utf-8 path")]).status.success());
    let text = std::fs::read_to_string(&with_header).expect("written");
    assert_eq!(text.lines().next(), Some("# t x v_x p1_x lambda1"));
    assert_eq!(text.lines().count(), 1 + 2001);

    let bare = dir.join("bb-siconos.ref");
    assert!(run(&["--output", bare.to_str().expect("utf-8 path"), "--siconos"]).status.success());
    let bare_text = std::fs::read_to_string(&bare).expect("written");
    assert_eq!(text.split_once('\n').map(|(_, rows)| rows), Some(bare_text.as_str()));
    if let Some(data) = nonsmooth_examples::data_dir() {
        let reference = std::fs::read_to_string(data.join("reference/BouncingBallTS.ref")).expect("readable reference");
        assert_eq!(bare_text, reference, "--siconos writes Siconos' BouncingBallTS.ref byte for byte");
    }
}

/// The commands that take `--on-nonconvergence`, with the default each shows.
fn policy_commands() -> Vec<(clap::Command, &'static str)> {
    vec![
        (BouncingBallNetsArgs::command(), "fail"),
        (RollingSphereArgs::command(), "fail-above=100"),
        (PourSpheresArgs::command(), "fail-above=100"),
        (DoublePendulumArgs::command(), "continue"),
        (SliderCrankArgs::command(), "continue"),
        (NonlinearSwitchArgs::command(), "fail"),
    ]
}

#[test]
fn help_explains_each_nonconvergence_policy_its_default_and_the_summary() {
    for (mut command, default) in policy_commands() {
        let name = command.get_name().to_owned();
        let help = command.render_long_help().to_string();
        for needle in [
            "--on-nonconvergence <POLICY>",
            "fail ",
            "continue ",
            "fail-above=FACTOR",
            "prints at the end",
            "worst error",
            &format!("[default: {default}]"),
        ] {
            assert!(help.contains(needle), "{name} --help lacks {needle:?}:\n{help}");
        }
        let short = command.render_help().to_string();
        assert!(short.contains("fail, continue or fail-above=FACTOR"), "{name} -h:\n{short}");
    }
}

#[test]
fn nonconvergence_policies_parse_and_bad_ones_are_refused_naming_the_value() {
    assert_eq!(on_nonconvergence("fail"), Ok(OnNonConvergence::Fail));
    assert_eq!(on_nonconvergence("continue"), Ok(OnNonConvergence::Continue));
    assert_eq!(on_nonconvergence("fail-above=250"), Ok(OnNonConvergence::FailAbove { factor: 250.0 }));
    let args =
        SliderCrankArgs::try_parse_from(["slider_crank", "--on-nonconvergence", "fail-above=10"]).expect("parses");
    assert_eq!(args.on_nonconvergence, OnNonConvergence::FailAbove { factor: 10.0 });
    assert_eq!(
        SliderCrankArgs::try_parse_from(["slider_crank"]).expect("parses").on_nonconvergence,
        OnNonConvergence::Continue
    );
    for (command, _) in policy_commands() {
        let name = command.get_name().to_owned();
        for bad in ["sometimes", "fail-above=0.5", "fail-above=abc", "fail-above=inf", "Fail"] {
            let error = parse_error(command.clone(), &["--on-nonconvergence", bad]);
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{name} {bad}: {error}");
            assert_eq!(error.exit_code(), 2);
            let message = error.to_string();
            assert!(message.contains(bad) && message.contains("--on-nonconvergence"), "{name}: {message}");
        }
    }
}

#[test]
fn a_short_run_prints_its_convergence_summary_at_the_end() {
    let Some(program) = built_example("rolling_sphere") else { return };
    let run = Command::new(&program).args(["--h", "1e-3"]).output().expect("the example runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let last = stdout.lines().last().expect("a summary line");
    assert!(
        last.ends_with("steps, all converged to 1e-4")
            || last.contains("stopped above the tolerance 1e-4, worst error"),
        "{stdout}"
    );

    let Some(program) = built_example("slider_crank") else { return };
    let run = Command::new(&program)
        .args(["--steps", "300", "--on-nonconvergence", "continue"])
        .output()
        .expect("the example runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let last = stdout.lines().last().expect("a summary line");
    assert!(last.starts_with("300 steps"), "{stdout}");

    let refused = Command::new(&program).args(["--on-nonconvergence", "never"]).output().expect("the example runs");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("'never'"));
}
