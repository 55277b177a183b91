//! The kernel benchmark models of `../shared/notes/siconos44.md` section 8, built exactly as the
//! Siconos driver `xtask/siconos_kernel.py` builds them: the bouncing ball (2000 steps of
//! h = 0.005), the falling bead column and the resting bead stack (N beads, h = 1e-3, e = 0.9,
//! 1000 steps; 100 for the stack of 1000).

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{
    MatrixStorage, MoreauJeanOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};
use nonsmooth::numerics::lcp::{BppOptions, LcpMethod};

/// Gravity.
const G: f64 = 9.81;

/// The cases: `(name, N)`, in report order.
pub fn kernel_cases(quick: bool) -> Vec<(&'static str, usize)> {
    let mut out = vec![("bouncing_ball", 1)];
    for case in ["beads_column", "beads_stack"] {
        out.extend([10, 100, 1000].into_iter().filter(|&n| !quick || n <= 100).map(|n| (case, n)));
    }
    out
}

/// Steps of one run of `case` with `n` beads.
pub fn kernel_steps(case: &str, n: usize) -> usize {
    match (case, n) {
        ("bouncing_ball", _) => 2000,
        ("beads_stack", n) if n >= 1000 => 100,
        _ => 1000,
    }
}

/// The one-step problem of the bead models: exact LCP solutions (unique: `M = H W⁻¹ Hᵀ` is
/// positive definite). Small problems go to Lemke on a dense matrix, as Siconos; the chain
/// structure of larger ones is kept in sparse-block storage for the block principal pivoting
/// solver, warm started from the previous step's active set (and, on the first step of a
/// resting stack, from every non-positive `q_i`).
fn bead_osns(n: usize) -> Result<OneStepNsProblem, KernelError> {
    if n <= 10 {
        OneStepNsProblem::lcp_default()
    } else {
        let bpp = BppOptions::default()
            .with_tolerance(1e-10)
            .with_max_iterations(100_000)
            .with_free_nonpositive_on_cold_start(true);
        Ok(OneStepNsProblem::lcp(LcpMethod::Bpp(bpp))?.with_storage(MatrixStorage::SparseBlock).with_warm_start(true))
    }
}

fn simulation(nsds: Nsds, h: f64, osns: OneStepNsProblem) -> Result<TimeStepping, KernelError> {
    TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5)?,
        osns,
        // The runs take a fixed number of steps; the final time only bounds them.
        TimeDiscretisation::new(0.0, h, 1e6)?,
        TimeSteppingOptions::default(),
    )
}

/// The bouncing ball (Siconos' `BouncingBallTS` model), with its system.
///
/// # Errors
/// Kernel errors (none for this model).
pub fn bouncing_ball() -> Result<(TimeStepping, Vec<DsId>), KernelError> {
    let mass = faer::mat![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0 / 5.0 * 1.0 * 0.1 * 0.1]];
    let ball =
        LagrangianLinearTids::new(vec![1.0, 0.0, 0.0], vec![0.0; 3], mass)?.with_external_force(vec![-G, 0.0, 0.0])?;
    let mut nsds = Nsds::new();
    let ball = nsds.add_ds(ball);
    nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(0.9)?, &[ball])?;
    Ok((simulation(nsds, 0.005, OneStepNsProblem::lcp_default()?)?, vec![ball]))
}

/// N beads on a vertical line above the ground, 1 dof each (mass 1, gravity), radius `r`,
/// bottom bead centre at `z0`, centres `pitch` apart; ground contact `y = z_0 − r` and
/// neighbour contacts `y = z_i − z_{i−1} − 2r`, Newton impact e = 0.9.
fn beads(n: usize, r: f64, z0: f64, pitch: f64) -> Result<(TimeStepping, Vec<DsId>), KernelError> {
    let mut nsds = Nsds::new();
    let mut ids = Vec::with_capacity(n);
    for i in 0..n {
        let bead = LagrangianLinearTids::new(vec![z0 + i as f64 * pitch], vec![0.0], faer::mat![[1.0]])?
            .with_external_force(vec![-G])?;
        ids.push(nsds.add_ds(bead));
    }
    let law = NonsmoothLaw::newton_impact(0.9)?;
    nsds.link(LagrangianLinearTir::new(faer::mat![[1.0]])?.with_offset(vec![-r])?, law, &[ids[0]])?;
    for i in 1..n {
        let relation = LagrangianLinearTir::new(faer::mat![[-1.0, 1.0]])?.with_offset(vec![-2.0 * r])?;
        nsds.link(relation, law, &[ids[i - 1], ids[i]])?;
    }
    Ok((simulation(nsds, 1e-3, bead_osns(n)?)?, ids))
}

/// The falling column: R = 0.1, `z_i = R + 0.1 + i (2R + 0.01)` (gaps 0.01), at rest.
///
/// # Errors
/// Kernel errors (none for `n ≥ 1`).
pub fn beads_column(n: usize) -> Result<(TimeStepping, Vec<DsId>), KernelError> {
    let r = 0.1;
    beads(n, r, r + 0.1, 2.0 * r + 0.01)
}

/// The resting stack: R = 0.125, `z_i = R + 2R i` (every gap exactly 0).
///
/// # Errors
/// Kernel errors (none for `n ≥ 1`).
pub fn beads_stack(n: usize) -> Result<(TimeStepping, Vec<DsId>), KernelError> {
    let r = 0.125;
    beads(n, r, r, 2.0 * r)
}

/// Builds a case by name.
///
/// # Errors
/// Kernel errors; [`KernelError::InvalidModel`] for an unknown name.
pub fn kernel_case(case: &str, n: usize) -> Result<(TimeStepping, Vec<DsId>), KernelError> {
    match case {
        "bouncing_ball" => bouncing_ball(),
        "beads_column" => beads_column(n),
        "beads_stack" => beads_stack(n),
        other => Err(KernelError::InvalidModel(format!("unknown kernel bench case {other:?}"))),
    }
}
