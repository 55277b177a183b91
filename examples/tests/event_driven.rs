//! The event-driven bouncing ball against Siconos' reference and the analytic ballistic times,
//! and a ball coming to rest (e = 0) whose contact force equals its weight.

use nonsmooth::kernel::io::read_trajectory;
use nonsmooth_examples::data_dir;
use nonsmooth_examples::kernel::bouncing_ball_ed::{BouncingBallEd, GRAVITY, run};

/// Rows whose time appears twice are impacts (pre-impact row, then post-impact row).
fn impact_times(rows: &nonsmooth::kernel::simulation::Trajectory) -> Vec<f64> {
    (1..rows.rows())
        .filter(|&i| rows.row(i)[0].to_bits() == rows.row(i - 1)[0].to_bits())
        .map(|i| rows.row(i)[0])
        .collect()
}

#[test]
fn bouncing_ball_ed_follows_siconos() {
    let Some(data) = data_dir() else { return };
    let reference = read_trajectory(&data.join("reference/BouncingBallED.ref")).expect("readable reference");
    let ours = BouncingBallEd::default().simulate().expect("the model runs");
    // Same events: 1700 grid rows and 44 impacts (two rows each).
    assert_eq!((ours.rows(), ours.columns()), (1788, 7));
    assert_eq!(impact_times(&ours).len(), 44);
    let diff = ours.max_abs_difference(&reference).expect("same shape as the reference");
    println!("BouncingBallED (our LSODAR port): max |difference| = {diff:e}");
    assert!(diff <= 1e-12, "{diff:e}");
}

#[test]
fn bouncing_ball_ed_with_dormand_prince_follows_siconos_until_lsodar_errors_accumulate() {
    // An independent integrator: the same events, the same values until the LSODAR trajectory
    // errors (1e-14 in x) start to move Siconos' impact times.
    let Some(data) = data_dir() else { return };
    let reference = read_trajectory(&data.join("reference/BouncingBallED.ref")).expect("readable reference");
    let (sim, ball, contact) = BouncingBallEd::default().build_dopri().expect("the model builds");
    let ours = run(sim, ball, contact).expect("the model runs");
    assert_eq!((ours.rows(), ours.columns()), (1788, 7));
    let mut early = 0.0f64;
    let mut all = 0.0f64;
    for i in 0..ours.rows() {
        let d = ours.row(i).iter().zip(reference.row(i)).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        if reference.row(i)[0] <= 5.7 {
            early = early.max(d);
        }
        all = all.max(d);
    }
    println!("BouncingBallED with Dormand–Prince: {early:e} up to t = 5.7, {all:e} over the run");
    assert!(early <= 1e-12, "{early:e}");
    assert!(all <= 1e-10, "{all:e}");
}

#[test]
fn impact_times_are_the_ballistic_ones() {
    // Dormand–Prince at 1e-14: the impact times of the exact parabolas (Siconos' LSODAR drifts
    // from them by up to 4.7e-12 at the last impacts, its trajectory errors moving the roots).
    let (sim, ball, contact) = BouncingBallEd::default().build_dopri().expect("the model builds");
    let ours = run(sim, ball, contact).expect("the model runs");
    let times = impact_times(&ours);
    let (e, g) = (0.9f64, GRAVITY);
    let t1 = (2.0 / g).sqrt();
    let v1 = g * t1;
    let mut expected = t1;
    let mut worst = 0.0f64;
    for (k, t) in times.iter().enumerate() {
        if k > 0 {
            expected += 2.0 * e.powi(k as i32) * v1 / g;
        }
        worst = worst.max((t - expected).abs());
    }
    println!("{} impacts, max |t − t_analytic| = {worst:e}", times.len());
    assert!(worst <= 1e-12, "{worst:e}");
}

#[test]
fn a_ball_with_e_0_rests_and_the_contact_force_is_its_weight() {
    let model = BouncingBallEd { restitution: 0.0, t_end: 1.0, ..BouncingBallEd::default() };
    let rows = model.simulate().expect("the model runs");
    let times = impact_times(&rows);
    assert_eq!(times.len(), 1, "one impact, then rest");
    assert!((times[0] - (2.0 / GRAVITY).sqrt()).abs() <= 1e-12);
    let after: Vec<&[f64]> = rows.iter_rows().filter(|r| r[0] > times[0]).collect();
    assert!(!after.is_empty());
    for r in after {
        assert!(r[1].abs() <= 1e-12 && r[2].abs() <= 1e-12, "at rest: {r:?}");
        assert!((r[6] - GRAVITY).abs() <= 1e-12 && (r[4] - GRAVITY).abs() <= 1e-12, "force = weight: {r:?}");
    }
}

/// Time-stepping (Moreau–Jean) converges to the event-driven trajectory at order 1: the
/// largest position difference at the common output times (every 0.01 s up to t = 2, six
/// impacts) halves when h halves.
#[test]
fn time_stepping_converges_to_event_driven_at_order_one() {
    use nonsmooth_examples::kernel::bouncing_ball::BouncingBall;
    let ed = BouncingBallEd { h: 0.01, t_end: 2.0, ..BouncingBallEd::default() }.simulate().expect("the model runs");
    // Event-driven positions on the output grid (grid rows only: impact rows have other times).
    let grid: Vec<(f64, f64)> =
        ed.iter_rows().filter(|r| ((r[0] / 0.01).round() * 0.01 - r[0]).abs() < 1e-12).map(|r| (r[0], r[1])).collect();
    let mut errors = Vec::new();
    for h in [1e-3, 5e-4, 2.5e-4, 1.25e-4] {
        let ts = BouncingBall { h, t_end: 2.0, ..BouncingBall::default() }.simulate().expect("the model runs");
        let stride = (0.01 / h).round() as usize;
        let mut worst = 0.0f64;
        for &(t, x) in &grid {
            let k = (t / 0.01).round() as usize * stride;
            let row = ts.row(k);
            assert!((row[0] - t).abs() < 1e-9);
            worst = worst.max((row[1] - x).abs());
        }
        errors.push(worst);
    }
    let ratios: Vec<f64> = errors.windows(2).map(|w| w[0] / w[1]).collect();
    println!("max |x_TS − x_ED| for h = 1e-3 … 1.25e-4: {errors:?}, ratios {ratios:?}");
    for r in &ratios {
        assert!((1.6..=2.5).contains(r), "order-1 ratios expected, got {ratios:?}");
    }
}
