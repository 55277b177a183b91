//! Models of the mechanics examples (Newton–Euler rigid bodies, contact detection, scenes).

pub mod bouncing_ball_nets;
pub mod hinged_door;
pub mod pendulum_chain;
pub mod pour;
pub mod rolling_sphere;
pub mod rolling_sphere_ed;
pub mod slider_crank_ne;
pub mod sphere_pile;

/// Prints the joint constraint violation `drift[k]` (after step `k + 1` of size `h`): its
/// largest value over each tenth of the run, over the whole run, and at the end.
pub fn print_drift(drift: &[f64], h: f64) {
    let Some(last) = drift.last() else { return };
    let tenth = drift.len().div_ceil(10);
    for (i, chunk) in drift.chunks(tenth).enumerate() {
        let worst = chunk.iter().fold(0.0f64, |a, x| a.max(*x));
        let (from, to) = (i * tenth, i * tenth + chunk.len());
        println!("steps {:>6}..{to:<6} (t ≤ {:.3}): max joint drift {worst:.3e}", from + 1, to as f64 * h);
    }
    let worst = drift.iter().fold(0.0f64, |a, x| a.max(*x));
    println!("max joint drift over {} steps: {worst:.3e}; at the end: {last:.3e}", drift.len());
}
