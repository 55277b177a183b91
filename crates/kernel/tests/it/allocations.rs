//! A steady-state time step allocates nothing: the one-step problem is refilled in place, its
//! matrix neither rebuilt nor cloned while the active set and the operators do not change.

use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth_kernel::numerics::lcp::{LcpMethod, PgsOptions};
use nonsmooth_kernel::simulation::{
    MatrixStorage, MoreauJeanOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};

use crate::ball;

/// A stack of `n` balls resting on the ground, each on the one below (every contact active at
/// every step), with the one-step problem `osns`.
fn resting_stack(n: usize, osns: OneStepNsProblem) -> Result<TimeStepping, KernelError> {
    let mut nsds = Nsds::new();
    let mut below = None;
    for i in 0..n {
        let b = nsds.add_ds(ball(0.1 + 0.2 * i as f64, 0.0, 1.0)?);
        match below {
            None => nsds.link(
                LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?.with_offset(vec![-0.1])?,
                NonsmoothLaw::newton_impact(0.0)?,
                &[b],
            )?,
            Some(a) => nsds.link(
                LagrangianLinearTir::new(faer::mat![[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0]])?.with_offset(vec![-0.2])?,
                NonsmoothLaw::newton_impact(0.0)?,
                &[a, b],
            )?,
        };
        below = Some(b);
    }
    TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5)?,
        osns,
        TimeDiscretisation::new(0.0, 1e-3, 1.0)?,
        TimeSteppingOptions::default(),
    )
}

#[test]
fn a_steady_state_step_allocates_nothing() -> Result<(), KernelError> {
    for storage in [MatrixStorage::Dense, MatrixStorage::SparseBlock] {
        let pgs = LcpMethod::Pgs(PgsOptions::default().with_tolerance(1e-12).with_max_iterations(10_000));
        let mut sim = resting_stack(5, OneStepNsProblem::lcp(pgs)?.with_storage(storage))?;
        for _ in 0..20 {
            sim.step()?;
        }
        // The allocations of this thread (the counter's global allocator counts per thread).
        let mut result = Ok(());
        let info = allocation_counter::measure(|| {
            for _ in 0..100 {
                match sim.step() {
                    Ok(report) => assert_eq!(report.active, 5, "every contact stays active"),
                    Err(e) => result = Err(e),
                }
            }
        });
        result?;
        let during = info.count_total;
        assert_eq!(during, 0, "{storage:?}: {during} allocations in 100 steady-state steps");
    }
    Ok(())
}
