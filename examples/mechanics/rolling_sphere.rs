//! A sphere sliding then rolling on a plane: the transition time against `2 v0 / (7 μ g)`.
//!
//! `cargo run --release --example rolling_sphere -- [--mu MU] [--v0 V0] [--h H]`.

use nonsmooth_examples::mechanics::rolling_sphere::RollingSphere;

fn main() -> anyhow::Result<()> {
    let mut model = RollingSphere::default();
    if let Some(mu) = nonsmooth_examples::option_value("--mu")? {
        model.mu = mu.parse()?;
    }
    if let Some(v0) = nonsmooth_examples::option_value("--v0")? {
        model.v0 = v0.parse()?;
    }
    if let Some(h) = nonsmooth_examples::option_value("--h")? {
        model.h = h.parse()?;
    }
    model.t_end = 2.0 * (2.0 * model.v0 / (7.0 * model.mu * 9.81));
    let o = model.run()?;
    println!(
        "transition: measured {:.6} s, analytic 2 v0/(7 μ g) = {:.6} s, relative difference {:.2e}",
        o.measured,
        o.analytic,
        (o.measured - o.analytic).abs() / o.analytic
    );
    println!(
        "final speed {:.6} m/s (5 v0 / 7 = {:.6}); largest sinking {:.2e} m",
        o.final_speed,
        5.0 * model.v0 / 7.0,
        o.max_sink
    );
    Ok(())
}
