//! The Moreau–Jean one-step integrator in the global form (Siconos' `MoreauJeanGOSI`, kernel
//! source `MoreauJeanGOSI.cpp`, with the one-step problem `GlobalFrictionContact`; V. Acary and
//! B. Brogliato, *Numerical Methods for Nonsmooth Dynamical Systems*, Springer 2008, chapter 10;
//! M. Jean, "The non-smooth contact dynamics method", CMAME 177, 1999).
//!
//! The same θ-scheme as [`MoreauJeanOsi`], with the velocities among the unknowns of the one-step
//! problem instead of being condensed out of it. One step from `t_k` to `t_{k+1} = t_k + h`:
//! - iteration matrix `Ŵ = M + hθC + h²θ²K` (Lagrangian linear time-invariant systems), or
//!   `Ŵ = M(q) − hθ ∂F/∂v − h²θ² ∂F/∂q` at the Newton iterate (Lagrangian and Newton–Euler
//!   systems), and the free velocity `v_free = v − Ŵ⁻¹ R_free`, both as [`MoreauJeanOsi`];
//! - the global problem at [`ProblemLevel::GlobalVelocity`]
//!   ([`GlobalFrictionContact`](super::GlobalFrictionContact)):
//!   `Ŵ v_{k+1} = Ŵ v_free + H r`, `u = Hᵀ v_{k+1} + b`, `b_α = e_n u_{N,k}` on the normal
//!   component, Coulomb's law between `r` and `u`; it sets `v_{k+1}` of the systems of the
//!   active interactions (the others keep `v_free`) and `λ[1] = r`, and the inputs
//!   `p[1] = Σ Hᵀ r` follow;
//! - the position update from the solved velocity, `q_{k+1} = q_k + h((1 − θ) v_k + θ v_{k+1})`
//!   (through `T(q)` for Newton–Euler bodies, [`SecondOrderDs::update_position`]);
//! - activation as [`MoreauJeanOsi`]: an interaction enters index set 1 when
//!   `y₀ + γ h ẏ₀ ≤ threshold` at the beginning of the step.
//!
//! Nonlinear systems iterate Newton's method as [`MoreauJeanOsi`] does (the residual
//! `‖R_free − p[1]‖₂` at the new iterate).
//!
//! [`SecondOrderDs::update_position`]: crate::model::ds::SecondOrderDs::update_position

use faer::Mat;

use crate::KernelError;
use crate::model::{DsId, Nsds};
use crate::simulation::moreau_jean::{MoreauJeanOptions, MoreauJeanOsi, check_second_order};
use crate::simulation::osi::{
    Contribution, IndexSetRule, OneStepIntegrator, OsiContext, ProblemLevel, SecondOrderContribution, StepInterval,
    SystemSet,
};
use crate::simulation::osns::OneStepProblem;

/// The Moreau–Jean θ-scheme with the global one-step problem (Siconos' `MoreauJeanGOSI`): the
/// module documentation gives the step. Pair it with a
/// [`GlobalFrictionContact`](super::GlobalFrictionContact) at [`ProblemLevel::GlobalVelocity`].
#[doc(alias = "MoreauJeanGOSI")]
#[derive(Debug)]
pub struct MoreauJeanGlobalOsi {
    /// The scheme's smooth part (iteration matrices, free velocities, residuals, memories).
    inner: MoreauJeanOsi,
}

impl MoreauJeanGlobalOsi {
    /// The integrator with the given options (θ, and γ and the threshold of the activation).
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] as [`MoreauJeanOsi::new`].
    pub fn new(options: MoreauJeanOptions) -> Result<Self, KernelError> {
        Ok(Self { inner: MoreauJeanOsi::new(options)? })
    }

    /// θ, with γ = 1/2 and threshold 0 (Siconos' `MoreauJeanGOSI(theta)`).
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for θ outside `[0, 1]`.
    pub fn with_theta(theta: f64) -> Result<Self, KernelError> {
        Self::new(MoreauJeanOptions::default().with_theta(theta))
    }

    /// The options.
    pub fn options(&self) -> &MoreauJeanOptions {
        self.inner.options()
    }
}

impl SecondOrderContribution for MoreauJeanGlobalOsi {
    fn free(&self, ds: DsId) -> &[f64] {
        self.inner.v_free(ds)
    }

    fn solve_w(&self, ds: DsId, x: &mut [f64]) {
        self.inner.solve_w(ds, x);
    }

    fn iteration_matrix(&self, ds: DsId) -> Option<&Mat<f64>> {
        Some(self.inner.iteration_matrix(ds))
    }
}

/// The global Moreau–Jean scheme in a time-stepping simulation: global problems at
/// [`ProblemLevel::GlobalVelocity`] on index set 1 (activation `y + γhẏ ≤ threshold`).
impl OneStepIntegrator for MoreauJeanGlobalOsi {
    fn name(&self) -> &'static str {
        "Moreau–Jean global"
    }

    fn problem_level(&self) -> ProblemLevel {
        ProblemLevel::GlobalVelocity
    }

    /// Lagrangian (linear time-invariant or not) and Newton–Euler systems; a first-order system
    /// is [`KernelError::InvalidModel`].
    fn check_system(&self, nsds: &Nsds, ds: DsId) -> Result<(), KernelError> {
        check_second_order(self.name(), nsds, ds)
    }

    fn index_set_rule(&self) -> IndexSetRule {
        IndexSetRule::Activation
    }

    fn enters(&self, y0: f64, y1: f64, h: f64) -> bool {
        self.inner.is_active(y0, y1, h)
    }

    fn initialize(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        step: &StepInterval,
        first: bool,
    ) -> Result<(), KernelError> {
        self.inner.initialize_on(nsds, systems, step, first)
    }

    fn is_linear(&self, nsds: &Nsds, systems: &SystemSet) -> bool {
        self.inner.is_linear_on(nsds, systems)
    }

    fn begin_newton(&mut self, ctx: OsiContext<'_>, linear: bool) -> Result<f64, KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        self.inner.begin_newton_on(nsds, step, linear)
    }

    fn prepare_newton_iteration(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, interactions, step, .. } = ctx;
        self.inner.prepare_iteration_on(nsds, interactions, step)
    }

    /// `v_free` and `p[1] = 0` as [`MoreauJeanOsi`]; then `v = v_free` for every system, the
    /// velocity of the systems that no active interaction reaches (the global problem sets the
    /// others).
    fn compute_free_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, systems, .. } = ctx;
        self.inner.compute_free_state(nsds);
        for slot in 0..nsds.ds_bound() {
            let Some(id) = nsds.ds_at(slot).filter(|_| systems.contains_slot(slot)) else {
                continue;
            };
            if let Some(ds) = nsds.ds_slot_mut(slot) {
                ds.state_mut().v.copy_from_slice(self.inner.v_free(id));
            }
        }
        Ok(())
    }

    fn contribution(&self) -> Contribution<'_> {
        Contribution::SecondOrder(self)
    }

    /// The position update from the velocity the global problem left in each system:
    /// `q = q_k + h((1 − θ) v_k + θ v)` (Newton–Euler bodies through their own update).
    fn update_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, systems, step, .. } = ctx;
        let theta = self.inner.options().theta;
        for slot in 0..nsds.ds_bound() {
            if !systems.contains_slot(slot) {
                continue;
            }
            if let Some(ds) = nsds.ds_slot_mut(slot) {
                let mut q = std::mem::take(&mut ds.state_mut().q);
                let state = ds.state();
                ds.update_position(step.h, theta, &state.q_memory, &state.v_memory, &state.v, &mut q);
                ds.state_mut().q = q;
            }
        }
        Ok(())
    }

    fn newton_residual(&mut self, ctx: OsiContext<'_>, _problem: &dyn OneStepProblem) -> Result<f64, KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        self.inner.compute_residu(nsds, step.t_old, step.t, step.h)
    }

    /// The forces of the last residual are those at the final state: they are kept, not
    /// evaluated again.
    fn commit(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, step, .. } = ctx;
        self.inner.swap_memories(nsds, step.t, true)
    }
}
