//! The slider-crank with a translational clearance joint (Flores, Leine, Glocker; Siconos'
//! `examples/Mechanics/SliderCrank`), model `nonsmooth_examples::kernel::slider_crank`.
//!
//! `cargo run --release --example slider_crank -- [--scheme mj|direct|combined] [--steps N]
//! [--output FILE]` runs `N` steps of `h = 1e-5` (default: up to `T = 0.2`, 20000 steps) and
//! prints the smallest gap (largest penetration) per tenth of the run; with `--output` it writes
//! the rows `t, θ1, θ2, θ3, ω1, ω2, ω3, g1, g2, g3, g4, min g` (whitespace-separated, `%.15e`).

use nonsmooth_examples::kernel::slider_crank::{MIN_GAP_COLUMN, Scheme, SliderCrank};

fn main() -> anyhow::Result<()> {
    let mut model = SliderCrank::default();
    let scheme = match nonsmooth_examples::option_value("--scheme")?.as_deref() {
        None | Some("mj") => Scheme::MoreauJean,
        Some("direct") => Scheme::DirectProjection,
        Some("combined") => Scheme::CombinedProjection,
        Some(other) => anyhow::bail!("--scheme {other}: expected mj, direct or combined"),
    };
    if let Some(steps) = nonsmooth_examples::option_value("--steps")? {
        let steps: usize = steps.parse().map_err(|e| anyhow::anyhow!("--steps {steps}: {e}"))?;
        if steps == 0 {
            anyhow::bail!("--steps must be at least 1");
        }
        model.t_end = model.h * steps as f64;
    }
    let trajectory = model.simulate(scheme)?;
    let steps = trajectory.rows() - 1;
    println!("{scheme:?}: {steps} steps of h = {:e}", model.h);
    let windows = 10.min(steps.max(1));
    for w in 0..windows {
        let (from, to) = (1 + w * steps / windows, 1 + (w + 1) * steps / windows);
        let penetration = (from..to).map(|k| -trajectory.row(k)[MIN_GAP_COLUMN]).fold(0.0f64, f64::max);
        println!(
            "  t in [{:.4}, {:.4}]: max penetration {penetration:.3e}",
            trajectory.row(from)[0],
            trajectory.row(to - 1)[0]
        );
    }
    if let Some(path) = nonsmooth_examples::output_argument()? {
        nonsmooth::kernel::io::write_trajectory(&trajectory, &path)?;
        println!("wrote {} rows to {}", trajectory.rows(), path.display());
    }
    Ok(())
}
