//! A one-step integrator written outside the crate runs in `TimeStepping` unchanged: the
//! symplectic Euler scheme with impulses (Moreau's "catching-up" at velocity level, explicit in
//! the forces),
//!
//! `M (v_{k+1} − v_k) = h F(t_k, q_k, v_k) + p_{k+1}`, `q_{k+1} = q_k + h v_{k+1}`,
//!
//! on systems with a constant mass. For a constant force this is Moreau–Jean with θ = 1.

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{DsId, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth_kernel::simulation::{
    Contribution, IndexSetRule, MoreauJeanOptions, MoreauJeanOsi, OneStepIntegrator, OneStepNsProblem, OneStepProblem,
    OsiContext, ProblemLevel, SecondOrderContribution, StepInterval, SystemSet, TimeDiscretisation, TimeStepping,
    TimeSteppingOptions,
};

use crate::{G, ball};

/// The explicit scheme: per system slot, the diagonal of `M` and the free velocity.
#[derive(Debug, Default)]
struct SymplecticEuler {
    mass: Vec<Vec<f64>>,
    v_free: Vec<Vec<f64>>,
}

impl SecondOrderContribution for SymplecticEuler {
    fn free(&self, ds: DsId) -> &[f64] {
        &self.v_free[ds.index()]
    }

    fn solve_w(&self, ds: DsId, x: &mut [f64]) {
        for (xi, m) in x.iter_mut().zip(&self.mass[ds.index()]) {
            *xi /= m;
        }
    }
}

impl OneStepIntegrator for SymplecticEuler {
    fn name(&self) -> &'static str {
        "symplectic Euler"
    }

    fn problem_level(&self) -> ProblemLevel {
        ProblemLevel::Velocity
    }

    fn check_system(&self, nsds: &Nsds, ds: DsId) -> Result<(), KernelError> {
        nsds.ds(ds).map(|_| ())
    }

    fn index_set_rule(&self) -> IndexSetRule {
        IndexSetRule::Activation
    }

    /// Moreau–Jean's rule: `y + ½ h ẏ ≤ 0`.
    fn enters(&self, y0: f64, y1: f64, h: f64) -> bool {
        y0 + 0.5 * h * y1 <= 0.0
    }

    fn initialize(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        _step: &StepInterval,
        _first: bool,
    ) -> Result<(), KernelError> {
        let ids: Vec<DsId> = systems.ids(nsds).collect();
        for id in ids {
            let slot = id.index();
            if self.mass.len() <= slot {
                self.mass.resize(slot + 1, Vec::new());
                self.v_free.resize(slot + 1, Vec::new());
            }
            let ds = nsds.ds_mut(id)?;
            let n = ds.velocity_size();
            let mut m = Mat::zeros(n, n);
            let q = ds.state().q().to_vec();
            ds.mass(&q, &mut m)?;
            self.mass[slot] = (0..n).map(|i| m[(i, i)]).collect();
            self.v_free[slot] = vec![0.0; n];
        }
        Ok(())
    }

    fn is_linear(&self, _nsds: &Nsds, _systems: &SystemSet) -> bool {
        true
    }

    fn begin_newton(&mut self, _ctx: OsiContext<'_>, _linear: bool) -> Result<f64, KernelError> {
        Ok(0.0)
    }

    /// `v_free = v_k + h M⁻¹ F(t_k, q_k, v_k)`, `p[1] = 0`.
    fn compute_free_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, systems, step, .. } = ctx;
        let ids: Vec<DsId> = systems.ids(nsds).collect();
        for id in ids {
            let ds = nsds.ds_mut(id)?;
            let (q, v) = (ds.state().q_memory().to_vec(), ds.state().v_memory().to_vec());
            let mut f = vec![0.0; v.len()];
            ds.forces(step.t_old, &q, &v, &mut f)?;
            let slot = id.index();
            for i in 0..v.len() {
                self.v_free[slot][i] = v[i] + step.h * f[i] / self.mass[slot][i];
            }
            ds.state_mut().p_mut(1).fill(0.0);
        }
        Ok(())
    }

    fn contribution(&self) -> Contribution<'_> {
        Contribution::SecondOrder(self)
    }

    /// `v = v_free + M⁻¹ p[1]`, `q = q_k + h v`.
    fn update_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, systems, step, .. } = ctx;
        let ids: Vec<DsId> = systems.ids(nsds).collect();
        for id in ids {
            let slot = id.index();
            let state = nsds.ds_mut(id)?.state_mut();
            let (p, q_k) = (state.p(1).to_vec(), state.q_memory().to_vec());
            let (q, v) = state.qv_mut();
            for i in 0..v.len() {
                v[i] = self.v_free[slot][i] + p[i] / self.mass[slot][i];
                q[i] = q_k[i] + step.h * v[i];
            }
        }
        Ok(())
    }

    fn newton_residual(&mut self, _ctx: OsiContext<'_>, _problem: &dyn OneStepProblem) -> Result<f64, KernelError> {
        Ok(0.0)
    }

    fn commit(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
        let OsiContext { nsds, systems, .. } = ctx;
        let ids: Vec<DsId> = systems.ids(nsds).collect();
        for id in ids {
            nsds.ds_mut(id)?.state_mut().commit_memories();
        }
        Ok(())
    }
}

/// Two balls falling on the ground and on each other, heights after each step.
fn heights(osi: impl OneStepIntegrator) -> Result<Vec<[f64; 2]>, KernelError> {
    let mut nsds = Nsds::new();
    let low = nsds.add_ds(ball(0.3, 0.0, 1.0)?);
    let high = nsds.add_ds(ball(0.6, -1.0, 0.5)?);
    nsds.link(
        LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?.with_offset(vec![-0.1])?,
        NonsmoothLaw::newton_impact(0.8)?,
        &[low],
    )?;
    let gap = LagrangianLinearTir::new(faer::mat![[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0]])?.with_offset(vec![-0.2])?;
    nsds.link(gap, NonsmoothLaw::newton_impact(0.5)?, &[low, high])?;
    let mut sim = TimeStepping::new(
        nsds,
        osi,
        OneStepNsProblem::lcp_default()?,
        TimeDiscretisation::new(0.0, 1e-3, 1.5)?,
        TimeSteppingOptions::default(),
    )?;
    let mut out = Vec::new();
    while sim.has_next_step() {
        sim.step()?;
        out.push([sim.nsds().ds(low)?.state().q()[0], sim.nsds().ds(high)?.state().q()[0]]);
    }
    Ok(out)
}

#[test]
fn an_integrator_defined_outside_the_crate_runs_in_time_stepping() -> Result<(), KernelError> {
    let explicit = heights(SymplecticEuler::default())?;
    let implicit = heights(MoreauJeanOsi::new(MoreauJeanOptions::default().with_theta(1.0))?)?;
    assert_eq!(explicit.len(), 1500);
    // The balls fell, hit the ground and each other, and stayed above the ground to O(h).
    let lowest = explicit.iter().map(|r| r[0]).fold(f64::INFINITY, f64::min);
    assert!(lowest > 0.1 - 1e-2 && lowest < 0.11, "lowest centre {lowest}");
    assert!(explicit.iter().all(|r| r[1] - r[0] > 0.2 - 1e-2), "the balls interpenetrate");
    // With a constant force the scheme is Moreau–Jean with θ = 1: the same trajectory to
    // round-off.
    for (k, (a, b)) in explicit.iter().zip(&implicit).enumerate() {
        for i in 0..2 {
            assert!((a[i] - b[i]).abs() <= 1e-12, "step {k}: {a:?} against {b:?} (g = {G})");
        }
    }
    Ok(())
}
