//! The scenes' NSGS on a settling pile: the plain-sweep fallback
//! (`NsgsOptions::plain_fallback_period`) reaches the tolerance on the problems where the
//! over-relaxed, accelerated sweeps cycle; with the cold restart
//! (`NsgsOptions::cold_restart`) of the scenes' defaults, every step reaches it.

use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::pile::SpherePile;
use nonsmooth_mechanics::scene::{SceneNonConvergence, SceneOptions};
use nonsmooth_numerics::fc::Fc3dMethod;

/// Steps of the 125-sphere pile (from the lattice at rest, 1 ms steps) whose FC3D ended above
/// the tolerance, with the scenes' NSGS whose fallback check period is `period` (0: none),
/// capped at `cap` sweeps; also the total of sweeps.
fn unconverged_steps(period: usize, cap: usize, steps: usize, restart: bool) -> Result<(usize, usize), MechanicsError> {
    let nsgs = SceneOptions::default_nsgs()
        .with_plain_fallback_period(period)
        .with_max_iterations(cap)
        .with_cold_restart(restart);
    let options = SceneOptions::default()
        .with_final_time(steps as f64 * 1e-3 + 0.5e-3)
        .with_method(Fc3dMethod::Nsgs(nsgs))
        .with_policy(SceneNonConvergence::Continue);
    let mut scene = SpherePile::with_spheres(125).build(options)?;
    let mut sweeps = 0;
    while scene.has_next_step() {
        if let Some(report) = scene.step()?.solver() {
            sweeps += report.iterations;
        }
    }
    Ok((scene.unconverged_steps(), sweeps))
}

#[test]
fn the_plain_fallback_converges_where_accelerated_sweeps_cycle() -> Result<(), MechanicsError> {
    let steps = 1000;
    let (without, sweeps_without) = unconverged_steps(0, 3000, steps, false)?;
    let (with, sweeps_with) = unconverged_steps(SceneOptions::NSGS_FALLBACK_PERIOD, 3000, steps, false)?;
    eprintln!(
        "125 spheres, {steps} steps: {without} unconverged without the fallback ({sweeps_without} sweeps), {with} with it ({sweeps_with})"
    );
    assert!(without > 0, "the settling pile should have steps where the accelerated sweeps cycle");
    assert!(with < without, "{with} unconverged steps with the fallback, {without} without");
    let (default, sweeps_default) =
        unconverged_steps(SceneOptions::NSGS_FALLBACK_PERIOD, SceneOptions::NSGS_MAX_SWEEPS, steps, true)?;
    eprintln!(
        "with the scenes' cap of {}: {default} unconverged ({sweeps_default} sweeps)",
        SceneOptions::NSGS_MAX_SWEEPS
    );
    assert_eq!(default, 0, "the scenes' NSGS reaches the tolerance at every step of the settling pile");
    Ok(())
}
