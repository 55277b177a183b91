//! The Schatzman–Paoli bouncing ball: no energy gain for e ≤ 1, and convergence to the
//! event-driven trajectory as h shrinks.

use nonsmooth::kernel::simulation::SchatzmanPaoliStartup;
use nonsmooth_examples::kernel::bouncing_ball::{BouncingBall, GRAVITY};
use nonsmooth_examples::kernel::bouncing_ball_ed::BouncingBallEd;
use nonsmooth_examples::kernel::bouncing_ball_schatzman_paoli::simulate;

/// The discrete energy per unit mass of the step `k → k+1`,
/// `E_{k+½} = ½ ((x_{k+1} − x_k)/h)² + g (x_k + x_{k+1})/2`, which the scheme conserves exactly
/// in free flight (`x_{k+1} − 2x_k + x_{k−1} = −g h²`).
fn discrete_energy(rows: &nonsmooth::kernel::simulation::Trajectory, k: usize, h: f64) -> f64 {
    let (a, b) = (rows.row(k)[1], rows.row(k + 1)[1]);
    0.5 * ((b - a) / h).powi(2) + GRAVITY * (a + b) / 2.0
}

/// No energy gain: on the reference ball (h = 0.005, Siconos' start-up) the discrete energy
/// never exceeds its initial value for e ∈ {0, 0.5, 0.9, 1} (measured: 2.7e-13 relative above
/// it for e = 1, round-off), nor with the second-order start-up for e < 1; with e < 1 the ball
/// comes to rest. An impact spans two steps and changes the energy by
/// `ΔE = −p (1 + e) x_{k−1} / (2h²)` (with `x_{k+1} = −e x_{k−1}`): a loss unless the previous
/// step already penetrated (`x_{k−1} < 0`), which nearly elastic impacts allow depending on where
/// the impact falls in the step. So with e = 1 and the second-order start-up the energy is not
/// monotone (measured: +0.87 % after one impact at this h; +0.87 % also with Siconos' start-up
/// at h = 0.0025, where the phase differs): it is asserted to stay within
/// 1 % above and 2 % below its initial value at the end of the 10 s (about 20 impacts).
#[test]
fn schatzman_paoli_never_gains_energy() {
    let h = BouncingBall::default().h;
    for startup in [SchatzmanPaoliStartup::Siconos, SchatzmanPaoliStartup::Taylor] {
        for e in [0.0, 0.5, 0.9, 1.0] {
            let ball = BouncingBall { restitution: e, ..BouncingBall::default() };
            let rows = simulate(&ball, startup).expect("the model runs");
            let n = rows.rows() - 1;
            let e0 = discrete_energy(&rows, 0, h);
            let energies: Vec<f64> = (1..n).map(|k| discrete_energy(&rows, k, h)).collect();
            let max_e = energies.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let min_e = energies.iter().copied().fold(f64::INFINITY, f64::min);
            let last = energies[energies.len() - 1];
            println!("{startup:?} e = {e}: E0 = {e0}, E in [{min_e}, {max_e}], final E = {last:e}");
            if e < 1.0 || startup == SchatzmanPaoliStartup::Siconos {
                assert!(max_e <= e0 * (1.0 + 1e-12), "{startup:?} e = {e}: energy gain {:e}", max_e - e0);
            } else {
                assert!(max_e <= e0 * 1.01 && last >= 0.98 * e0, "{startup:?} e = 1: E in [{min_e}, {max_e}]");
            }
            if e < 1.0 {
                assert!(last.abs() < 1e-6 * e0, "{startup:?} e = {e}: final energy {last:e}");
            }
        }
    }
}

/// With the second-order start-up, the position difference to the event-driven trajectory at
/// the common output times (every 0.01 s up to t = 2, six impacts) shrinks at order one as h
/// goes from 1e-3 to 1.5625e-5: the least-squares slope of log(error) against log(h) is at
/// least 0.8 for the largest and the mean difference (single halvings are irregular: where an
/// impact falls within a step changes with h).
#[test]
fn schatzman_paoli_converges_to_event_driven() {
    let ed = BouncingBallEd { h: 0.01, t_end: 2.0, ..BouncingBallEd::default() }.simulate().expect("the model runs");
    let grid: Vec<(f64, f64)> =
        ed.iter_rows().filter(|r| ((r[0] / 0.01).round() * 0.01 - r[0]).abs() < 1e-12).map(|r| (r[0], r[1])).collect();
    let (mut hs, mut max_errors, mut mean_errors) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..7 {
        let h = 1e-3 / f64::from(1 << j);
        let ball = BouncingBall { h, t_end: 2.0, ..BouncingBall::default() };
        let sp = simulate(&ball, SchatzmanPaoliStartup::Taylor).expect("the model runs");
        let stride = (0.01 / h).round() as usize;
        let (mut worst, mut sum) = (0.0f64, 0.0);
        for &(t, x) in &grid {
            let row = sp.row((t / 0.01).round() as usize * stride);
            assert!((row[0] - t).abs() < 1e-9);
            worst = worst.max((row[1] - x).abs());
            sum += (row[1] - x).abs();
        }
        hs.push(h);
        max_errors.push(worst);
        mean_errors.push(sum / grid.len() as f64);
    }
    let slope = |errors: &[f64]| {
        let xs: Vec<f64> = hs.iter().map(|h| h.ln()).collect();
        let ys: Vec<f64> = errors.iter().map(|e| e.ln()).collect();
        let n = xs.len() as f64;
        let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
        let num: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
        let den: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
        num / den
    };
    let (order_max, order_mean) = (slope(&max_errors), slope(&mean_errors));
    println!("max |x_SP − x_ED|: {max_errors:?} (order {order_max:.3}); mean: {mean_errors:?} (order {order_mean:.3})");
    assert!(order_max >= 0.8 && order_mean >= 0.8, "orders {order_max}, {order_mean}");
    assert!(max_errors[6] < 5e-4 && mean_errors[6] < 1e-4, "errors {max_errors:?} {mean_errors:?}");
}
