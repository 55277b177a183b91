//! The sphere pile (`nonsmooth::mechanics::pile::SpherePile`): `n` spheres dropped into a box,
//! Moreau–Jean + FC3D NSGS (tolerance 1e-4, warm started, `SceneOptions::default_nsgs`), with the per-step time split into
//! detection, assembly, solve and update.

use std::time::Duration;

use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::pile::SpherePile;
use nonsmooth::mechanics::scene::{Scene, SceneOptions, SceneStepReport};
use nonsmooth::numerics::fc::Fc3dMethod;

/// Sums of the per-step phases over measured steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Steps measured.
    pub steps: usize,
    /// Contact detection and contact bookkeeping.
    pub detection: Duration,
    /// One-step problem assembly.
    pub assembly: Duration,
    /// One-step problem solver.
    pub solve: Duration,
    /// The rest of the step (iteration matrices, free velocities, updates, outputs).
    pub update: Duration,
    /// Contacts summed over the measured steps.
    pub contacts: usize,
    /// NSGS sweeps summed over the measured steps.
    pub sweeps: usize,
    /// Steps whose one-step problem did not reach its tolerance.
    pub unconverged: usize,
}

impl PhaseTimes {
    /// Adds one step.
    pub fn add(&mut self, r: &SceneStepReport) {
        self.steps += 1;
        self.detection += r.detection;
        self.assembly += r.step.timings.assembly;
        self.solve += r.step.timings.solve;
        self.update += r.update();
        self.contacts += r.contacts;
        if let Some(o) = r.step.osns {
            self.sweeps += o.iterations;
            if !o.is_converged() {
                self.unconverged += 1;
            }
        }
    }

    /// Total time per step (seconds).
    pub fn per_step(&self) -> f64 {
        (self.detection + self.assembly + self.solve + self.update).as_secs_f64() / self.steps.max(1) as f64
    }

    /// Seconds per step of one phase.
    pub fn mean(&self, d: Duration) -> f64 {
        d.as_secs_f64() / self.steps.max(1) as f64
    }
}

/// The pile of `n` spheres with NSGS at tolerance 1e-4 (parallel sweeps over contact colours
/// when `parallel`), up to `t_end`.
///
/// # Errors
/// Mechanics errors.
pub fn build(n: usize, t_end: f64, parallel: bool) -> Result<Scene, MechanicsError> {
    let pile = SpherePile::with_spheres(n);
    let nsgs = SceneOptions::default_nsgs().with_parallel(parallel);
    let options = SceneOptions::default().with_final_time(t_end).with_method(Fc3dMethod::Nsgs(nsgs));
    pile.build(options)
}
