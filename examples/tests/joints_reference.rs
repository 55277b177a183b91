//! Newton–Euler joints and joint stops against Siconos 4.4 itself: the hinged door
//! (`examples/data/siconos/HingedDoor.ref`, written by
//! `examples/data/siconos/generate/hinged_door.py`) and the slider-crank
//! (`SliderCrankNE.ref`, by `slider_crank_ne.py`), both under Moreau–Jean `θ = ½` with the MLCP
//! one-step problem; and the drift of the joints over 10⁴ steps with the direct projection.

use std::path::PathBuf;

use nonsmooth::kernel::io::read_trajectory;
use nonsmooth::kernel::simulation::Trajectory;
use nonsmooth_examples::mechanics::{hinged_door, slider_crank_ne};

fn reference(name: &str) -> Trajectory {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/siconos").join(name);
    read_trajectory(&path).expect("readable reference")
}

/// Per column, the largest `|ours − reference|`.
fn column_differences(ours: &Trajectory, reference: &Trajectory) -> Vec<f64> {
    assert_eq!((ours.rows(), ours.columns()), (reference.rows(), reference.columns()));
    (0..ours.columns())
        .map(|j| (0..ours.rows()).map(|i| (ours.row(i)[j] - reference.row(i)[j]).abs()).fold(0.0, f64::max))
        .collect()
}

/// The door swings open, bounces on the opening stop (`θ ≤ 1.2`, `e = 0.5`) at `t ≈ 0.8`,
/// swings back at half its rate and bounces on the closing stop (`θ ≥ −0.3`) at `t ≈ 2.8`:
/// every column (angle, position, quaternion, rate, both stop impulses) within 1e-8 of Siconos.
#[test]
fn hinged_door_reproduces_siconos() {
    let reference = reference("HingedDoor.ref");
    let run = hinged_door::simulate(hinged_door::H, hinged_door::REFERENCE_STEPS, false).expect("the door runs");
    let diffs = column_differences(&run.trajectory, &reference);
    let worst = diffs.iter().fold(0.0f64, |a, x| a.max(*x));
    let impacts: Vec<f64> = run.trajectory.iter_rows().filter(|r| r[10] > 0.0 || r[11] > 0.0).map(|r| r[0]).collect();
    println!(
        "HingedDoor: max |difference| {worst:e} (per column {}); impacts at {impacts:?}; \
         max joint drift {:.2e}",
        diffs.iter().map(|d| format!("{d:.1e}")).collect::<Vec<_>>().join(" "),
        run.max_drift()
    );
    // Both stops are hit, each once, with a positive impulse.
    assert_eq!(impacts.len(), 2, "{impacts:?}");
    let angles = run.trajectory.iter_rows().map(|r| r[1]);
    let (lowest, highest) = angles.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    assert!(highest <= 1.2 + 1e-3 && lowest >= -0.3 - 1e-3, "{lowest} … {highest}");
    assert!(worst <= 1e-8, "max |difference| = {worst:e}");
}

/// The slider hits its stop twice (the crank turns back after the first impact and goes
/// round): every column within 1e-8 of Siconos.
#[test]
fn slider_crank_ne_reproduces_siconos() {
    let reference = reference("SliderCrankNE.ref");
    let run = slider_crank_ne::simulate(slider_crank_ne::H, slider_crank_ne::REFERENCE_STEPS, false)
        .expect("the slider-crank runs");
    let diffs = column_differences(&run.trajectory, &reference);
    let worst = diffs.iter().fold(0.0f64, |a, x| a.max(*x));
    let impacts: Vec<f64> = run.trajectory.iter_rows().filter(|r| r[13] > 0.0).map(|r| r[0]).collect();
    println!(
        "SliderCrankNE: max |difference| {worst:e} (per column {}); impacts at {impacts:?}; \
         max joint drift {:.2e}",
        diffs.iter().map(|d| format!("{d:.1e}")).collect::<Vec<_>>().join(" "),
        run.max_drift()
    );
    assert_eq!(impacts.len(), 2, "{impacts:?}");
    assert!(worst <= 1e-8, "max |difference| = {worst:e}");
}

/// With pivots at both ends of the rod (twenty equality rows, three dependent) the mixed
/// problem's block Gauss–Seidel solves every step, and the motion is Siconos' run of the
/// ball-jointed rod (the same planar mechanism) to the solver's tolerance; the ball-jointed rod
/// under the mixed problem gives the same.
#[test]
fn rod_pivots_under_the_mixed_problem_follow_the_ball_joints() {
    let reference = reference("SliderCrankNE.ref");
    for rod in [slider_crank_ne::RodJoints::Pivots, slider_crank_ne::RodJoints::Balls] {
        let model = slider_crank_ne::build_mixed(slider_crank_ne::H, slider_crank_ne::REFERENCE_STEPS, rod, 1e-12)
            .expect("the model builds");
        let run = slider_crank_ne::run(model).expect("every step converges");
        let diffs = column_differences(&run.trajectory, &reference);
        let worst = diffs.iter().fold(0.0f64, |a, x| a.max(*x));
        let impacts = run.trajectory.iter_rows().filter(|r| r[13] > 0.0).count();
        println!(
            "{rod:?} under the mixed problem: max |difference| to Siconos' ball joints {worst:e}; \
             {impacts} impacts; max joint drift {:.2e}",
            run.max_drift()
        );
        assert_eq!(impacts, 2);
        assert!(worst <= 1e-8, "{rod:?}: max |difference| = {worst:e}");
    }
}

/// 10⁴ steps of the door and of the slider-crank: Moreau–Jean lets the joint rows drift (it
/// imposes `H v = 0`, not `h(q) = 0`), the direct projection keeps every row below 1e-8.
#[test]
fn the_direct_projection_keeps_the_joints_closed() {
    let steps = 10_000;
    let plain = hinged_door::simulate(hinged_door::H, steps, false).expect("Moreau–Jean runs");
    let projected = hinged_door::simulate(hinged_door::H, steps, true).expect("the projection runs");
    let (drift, drift_projected) = (plain.max_drift(), projected.max_drift());
    println!(
        "door over {steps} steps: max joint drift {drift:.2e} (Moreau–Jean), {drift_projected:.2e} (direct projection)"
    );
    assert!(drift_projected <= 1e-8, "{drift_projected:e}");
    assert!(drift > drift_projected, "{drift:e} vs {drift_projected:e}");

    let plain = slider_crank_ne::simulate(slider_crank_ne::H, steps, false).expect("Moreau–Jean runs");
    let projected = slider_crank_ne::simulate(slider_crank_ne::H, steps, true).expect("the projection runs");
    let (drift, drift_projected) = (plain.max_drift(), projected.max_drift());
    let impacts = projected.trajectory.iter_rows().filter(|r| r[13] > 0.0).count();
    println!(
        "slider-crank over {steps} steps: max joint drift {drift:.2e} (Moreau–Jean), \
         {drift_projected:.2e} (direct projection, {impacts} impact steps)"
    );
    assert!(impacts >= 2);
    assert!(drift_projected <= 1e-8, "{drift_projected:e}");
    assert!(drift > drift_projected, "{drift:e} vs {drift_projected:e}");
}

/// With pivots at both rod ends three of the twenty equality rows are dependent and the MLCP of
/// the step is singular: the enumeration finds no solution and the first step fails with an
/// error (not a panic); Siconos' ENUM fails likewise, on 243 of 1000 steps.
#[test]
fn pivots_at_both_rod_ends_make_the_step_fail() {
    let mut sim = slider_crank_ne::build_with_rod_pivots(slider_crank_ne::H, 10).expect("the model builds");
    let error = sim.step().expect_err("a singular MLCP");
    println!("slider-crank with pivots at both rod ends: {error}");
    assert!(error.to_string().contains("one-step problem did not converge"), "{error}");
}
