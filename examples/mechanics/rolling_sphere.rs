//! A sphere sliding then rolling on a plane: the transition time against `2 v0 / (7 μ g)`.
//!
//! ```text
//! cargo run --release --example rolling_sphere -- [--mu MU] [--v0 V0] [--h H] [--on-nonconvergence POLICY]
//! ```
//!
//! `--mu` is the friction coefficient (default 0.3), `--v0` the initial speed (default 2 m/s),
//! `--h` the time step (default 1e-4 s). It prints the measured and analytic transition times,
//! the final speed against `5 v0 / 7` and the largest sinking into the plane.

use clap::Parser;
use nonsmooth_examples::cli::mechanics::RollingSphereArgs;
use nonsmooth_examples::mechanics::rolling_sphere::{GRAVITY, RollingSphere};

fn main() -> anyhow::Result<()> {
    let args = RollingSphereArgs::parse();
    let mut model = RollingSphere {
        mu: args.mu,
        v0: args.v0,
        h: args.h,
        on_nonconvergence: args.on_nonconvergence.scene(),
        ..RollingSphere::default()
    };
    model.t_end = 2.0 * (2.0 * model.v0 / (7.0 * model.mu * GRAVITY));
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
    println!("{}", o.summary);
    Ok(())
}
