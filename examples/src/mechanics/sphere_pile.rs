//! The sphere pile (`nonsmooth::mechanics::pile::SpherePile`): `n` spheres dropped into a box,
//! Moreau–Jean + FC3D NSGS (tolerance 1e-4, warm started, `SceneOptions::default_nsgs`), with the per-step time split into
//! detection, assembly, solve and update.

use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::pile::SpherePile;
use nonsmooth::mechanics::scene::{Scene, SceneNonConvergence, SceneOptions};
use nonsmooth::numerics::Parallelism;
use nonsmooth::numerics::fc::Fc3dMethod;

/// Sums of the per-step phases (re-exported from the mechanics crate).
pub use nonsmooth::mechanics::scene::StepTotals as PhaseTimes;

/// The pile of `n` spheres with NSGS at tolerance 1e-4 (the two halves of the contacts swept in
/// parallel on the solver's 2 threads when `parallel`, `NsgsSchedule::Halves`), up to `t_end`.
///
/// # Errors
/// Mechanics errors.
pub fn build(n: usize, t_end: f64, parallel: bool) -> Result<Scene, MechanicsError> {
    build_with(n, t_end, parallel, SceneNonConvergence::default())
}

/// The pile of [`build`] under the non-convergence policy `policy`.
///
/// # Errors
/// Mechanics errors.
pub fn build_with(n: usize, t_end: f64, parallel: bool, policy: SceneNonConvergence) -> Result<Scene, MechanicsError> {
    let pile = SpherePile::with_spheres(n);
    let parallelism = if parallel { Parallelism::Rayon { threads: 2 } } else { Parallelism::Sequential };
    let nsgs = SceneOptions::default_nsgs().with_parallelism(parallelism);
    let options =
        SceneOptions::default().with_final_time(t_end).with_method(Fc3dMethod::Nsgs(nsgs)).with_policy(policy);
    pile.build(options)
}
