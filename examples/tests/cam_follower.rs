//! The cam-follower example: the cam profile, contact at low speed, impacts
//! at 660 rpm in both schemes, and the Poincaré-section SVG.

use nonsmooth::kernel::KernelError;
use nonsmooth_examples::kernel::cam_follower::{
    RESTITUTION, TIME_STEP, cam_state, omega, poincare_svg, run_event_driven, run_time_stepping,
};

/// The junction angles `β` of the profile in `[0, π]` (Siconos' `CamFollower` example).
const JUNCTIONS: [f64; 3] = [
    std::f64::consts::FRAC_PI_2,
    std::f64::consts::FRAC_PI_2 + 1.050328174371336,
    std::f64::consts::FRAC_PI_2 + 1.22173047639603,
];

/// Time at which `β = ω t + π/2` equals `beta` (first half turn).
fn junction_time(beta: f64, rpm: f64) -> f64 {
    (beta - std::f64::consts::FRAC_PI_2) / omega(rpm)
}

/// Time at which the mirrored angle `2π − (ω t + π/2)` equals `beta` (second half turn).
fn mirror_junction_time(beta: f64, rpm: f64) -> f64 {
    (1.5 * std::f64::consts::PI - beta) / omega(rpm)
}

#[test]
fn cam_profile_is_continuous_and_c1_with_jumps_of_acceleration() {
    let rpm = 60.0;
    let eps = 1e-9;
    let mut jumps = Vec::new();
    for beta in JUNCTIONS {
        // Both sides of the junction, and its mirror image in the second half turn.
        for t in [junction_time(beta, rpm), mirror_junction_time(beta, rpm)] {
            let (a, b) = (cam_state(t - eps, rpm), cam_state(t + eps, rpm));
            assert!((a.0 - b.0).abs() < 1e-8, "c jumps at t = {t}: {a:?} {b:?}");
            assert!((a.1 - b.1).abs() < 1e-6, "ċ jumps at t = {t}: {a:?} {b:?}");
            jumps.push((a.2 - b.2).abs());
        }
    }
    // The profile is only C¹: c̈ jumps at the junctions (by more than 8 at 60 rpm).
    assert!(jumps.iter().all(|&j| j > 8.0), "{jumps:?}");
}

#[test]
fn cam_profile_derivatives_match_finite_differences() {
    let rpm = 660.0;
    let period = 60.0 / rpm;
    let d = 1e-7 * period;
    let mut checked = 0;
    for i in 0..2000 {
        let t = (f64::from(i) + 0.37) / 2000.0 * period;
        let near_junction = JUNCTIONS.iter().any(|&b| {
            (t - junction_time(b, rpm)).abs() < 2.0 * d || (t - mirror_junction_time(b, rpm)).abs() < 2.0 * d
        });
        if near_junction {
            continue;
        }
        let (_, cd, cdd) = cam_state(t, rpm);
        let (p, m) = (cam_state(t + d, rpm), cam_state(t - d, rpm));
        let (fd1, fd2) = ((p.0 - m.0) / (2.0 * d), (p.1 - m.1) / (2.0 * d));
        assert!((fd1 - cd).abs() <= 1e-5 * (1.0 + cd.abs()), "ċ at t = {t}: {cd} vs {fd1}");
        assert!((fd2 - cdd).abs() <= 1e-4 * (1.0 + cdd.abs()), "c̈ at t = {t}: {cdd} vs {fd2}");
        checked += 1;
    }
    assert!(checked > 1900);
}

#[test]
fn at_100_rpm_the_follower_stays_on_the_cam() -> Result<(), KernelError> {
    let (rpm, t_end) = (100.0, 1.5);
    let ed = run_event_driven(rpm, t_end)?;
    assert!(ed.impacts.is_empty() && ed.first_separation.is_none(), "{:?}", ed.first_separation);
    let (mut gap, mut force): (f64, f64) = (0.0, f64::INFINITY);
    for r in ed.trajectory.iter_rows().skip(1) {
        gap = gap.max((r[1] - r[3]).abs()).max((r[2] - r[4]).abs());
        force = force.min(r[5]);
    }
    eprintln!("event-driven at 100 rpm: |y|, |ẏ| ≤ {gap:e}, λ ≥ {force}");
    assert!(gap <= 1e-9, "{gap:e}");
    assert!(force > 50.0, "{force}");

    let ts = run_time_stepping(rpm, TIME_STEP, t_end)?;
    assert!(ts.impacts.is_empty() && ts.first_separation.is_none(), "{:?}", ts.first_separation);
    // After the start-up chatter of a few steps (see `run_time_stepping`), the impulse is
    // positive at every step and the gap stays within a few 1e-7 of the cam.
    let (mut gap, mut force): (f64, f64) = (0.0, f64::INFINITY);
    for r in ts.trajectory.iter_rows().filter(|r| r[0] > 10.0 * TIME_STEP) {
        gap = gap.max((r[1] - r[3]).abs());
        force = force.min(r[5]);
    }
    eprintln!("time-stepping at 100 rpm: |y| ≤ {gap:e}, λ ≥ {force}");
    assert!(gap <= 1e-6, "{gap:e}");
    assert!(force > 50.0, "{force}");
    Ok(())
}

#[test]
fn at_660_rpm_both_schemes_give_impacts() -> Result<(), KernelError> {
    let (rpm, t_end) = (660.0, 2.0);
    let ed = run_event_driven(rpm, t_end)?;
    let ts = run_time_stepping(rpm, TIME_STEP, t_end)?;
    assert!(ed.impacts.len() >= 10, "{} event-driven impacts", ed.impacts.len());
    assert!(ts.impacts.len() >= 10, "{} time-stepping impacts", ts.impacts.len());
    // Newton's law relative to the cam: v⁺ − ċ = −r (v⁻ − ċ).
    let mut worst: f64 = 0.0;
    for i in &ed.impacts {
        let (_, cd, _) = cam_state(i.time, rpm);
        worst = worst.max((i.v_after - cd + RESTITUTION * (i.v_before - cd)).abs());
        assert!(i.v_before - cd < 0.0, "approaching the cam at t = {}", i.time);
    }
    assert!(worst <= 1e-10, "{worst:e}");
    let (Some(t_ed), Some(t_ts)) = (ed.first_separation, ts.first_separation) else {
        panic!("no separation: {:?} {:?}", ed.first_separation, ts.first_separation);
    };
    eprintln!(
        "660 rpm, {t_end} s: {} / {} impacts (ED / TS), restitution residual {worst:e}, separation {t_ed} / {t_ts}",
        ed.impacts.len(),
        ts.impacts.len()
    );
    assert!((t_ed - t_ts).abs() <= 2.0 * TIME_STEP, "{t_ed} vs {t_ts}");
    // The first impact after that separation agrees to O(h) as well.
    let (a, b) = (ed.impacts[0].time, ts.impacts[0].time);
    assert!((a - b).abs() <= 5.0 * TIME_STEP, "first impact {a} vs {b}");
    Ok(())
}

#[test]
fn poincare_section_svg_has_one_point_per_impact() -> Result<(), Box<dyn std::error::Error>> {
    let run = run_event_driven(660.0, 3.0)?;
    let section: Vec<_> = run.impacts.iter().copied().filter(|i| i.time >= 1.0).collect();
    assert!(section.len() >= 10, "{}", section.len());
    let path = std::env::temp_dir().join(format!("cam_follower_{}.svg", std::process::id()));
    std::fs::write(&path, poincare_svg(&section, "cam-follower <660 rpm>"))?;
    let text = std::fs::read_to_string(&path)?;
    std::fs::remove_file(&path)?;
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert_eq!(text.matches("<circle class=\"impact\"").count(), section.len());
    assert!(text.contains("&lt;660 rpm&gt;"));
    Ok(())
}
