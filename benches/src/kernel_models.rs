//! The kernel benchmark models, built exactly as the Siconos driver `xtask/siconos_kernel.py`
//! builds them:
//! - Moreau–Jean (θ = 1/2, Siconos' default LCP): the bouncing ball (2000 steps of
//!   h = 0.005), the falling bead column and the resting bead stack (N beads, h = 1e-3, e = 0.9,
//!   1000 steps; 100 for the stack of 1000);
//! - Euler–Moreau, first-order systems (the Siconos tutorials' examples): Siconos'
//!   `DiodeBridge` (5000 steps of h = 1e-6, t = 0 → 5e-3) and `SimpleExampleRelay` (800 steps of
//!   h = 1e-3), the models of `examples/src/kernel/{diode_bridge,simple_example_relay}.rs`;
//! - event-driven: Siconos' `BouncingBallED` (LSODAR at Siconos' tolerances, impact and
//!   acceleration LCPs, output grid h = 0.005 up to T = 8.5: 1744 events, 1700 grid points and 44
//!   impacts), the model of `examples/src/kernel/bouncing_ball_ed.rs`.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{
    DsId, FirstOrderLinearDs, FirstOrderLinearTir, InteractionId, LagrangianLinearTids, LagrangianLinearTir,
    NonsmoothLaw, Nsds,
};
use nonsmooth::kernel::numerics::relay::RelayMethod;
use nonsmooth::kernel::simulation::{
    EulerMoreauOsi, EventDriven, EventDrivenOptions, LsodarSmooth, MatrixStorage, MoreauJeanOsi, OneStepNsProblem,
    TimeDiscretisation, TimeStepping, TimeSteppingOptions,
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
    out.extend([("diode_bridge", 1), ("relay", 1)]);
    out
}

/// Whether `case` is one of the first-order (Euler–Moreau) models, whose one system is `x`
/// and whose one interaction takes part in every step.
pub fn is_first_order(case: &str) -> bool {
    matches!(case, "diode_bridge" | "relay")
}

/// The event-driven cases: `(name, N)`, reported after the time-stepping ones of
/// [`kernel_cases`] (`quick` keeps them: N = 1).
pub fn event_driven_cases() -> Vec<(&'static str, usize)> {
    vec![("bouncing_ball_ed", 1)]
}

/// Whether `case` is an event-driven case (built by [`bouncing_ball_ed`], run by
/// [`run_event_driven`]; its "steps" are the events processed).
pub fn is_event_driven(case: &str) -> bool {
    case == "bouncing_ball_ed"
}

/// Steps of one run of `case` with `n` beads: 5000 for the diode bridge (h = 1e-6 up to
/// T = 5e-3, as Siconos' `while hasNextEvent()` loop runs them; the reference file
/// `DiodeBridge.ref` keeps only the first 4999), 800 for the relay (as `SimpleExampleRelay`).
pub fn kernel_steps(case: &str, n: usize) -> usize {
    match (case, n) {
        ("bouncing_ball", _) => 2000,
        ("diode_bridge", _) => 5000,
        ("relay", _) => 800,
        // Events, not steps: the 1700 points of the output grid (0.005 up to 8.5) and 44
        // impacts, as Siconos 4.4's run and `BouncingBallED.ref` (1744 events + 44 pre-impact rows).
        ("bouncing_ball_ed", _) => BOUNCING_BALL_ED_EVENTS,
        ("beads_stack", n) if n >= 1000 => 100,
        _ => 1000,
    }
}

/// Events of one run of [`bouncing_ball_ed`]: 1700 grid points and 44 impacts.
pub const BOUNCING_BALL_ED_EVENTS: usize = 1744;

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

/// Siconos' `DiodeBridge`: an LC oscillator (`L = 1e-2`, `C = 1e-6`, `x = (V_C, i_L)`,
/// `x₀ = (10, 0)`) feeding a resistor `R = 1e3` through four ideal diodes: `ẋ = A x + r`,
/// `y = C x + D λ`, `r = B λ`, `0 ≤ y ⊥ λ ≥ 0` (size 4); Euler–Moreau θ = 1/2, the LCP by Lemke
/// (Siconos' default), `h = 1e-6` on the double grid (as Siconos' Python driver).
/// The model of `examples/src/kernel/diode_bridge.rs`.
///
/// # Errors
/// Kernel errors (none for this model).
pub fn diode_bridge() -> Result<(TimeStepping, Vec<DsId>), KernelError> {
    let (l, c, r) = (1e-2, 1e-6, 1e3);
    let a = faer::mat![[0.0, -1.0 / c], [1.0 / l, 0.0]];
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(FirstOrderLinearDs::new(vec![10.0, 0.0], a)?);
    let c_out = faer::mat![[0.0, 0.0], [0.0, 0.0], [-1.0, 0.0], [1.0, 0.0]];
    let d = faer::mat![
        [1.0 / r, 1.0 / r, -1.0, 0.0],
        [1.0 / r, 1.0 / r, 0.0, -1.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
    ];
    let b = faer::mat![[0.0, 0.0, -1.0 / c, 1.0 / c], [0.0, 0.0, 0.0, 0.0]];
    let relation = FirstOrderLinearTir::new(c_out, b)?.with_d(d)?;
    nsds.link_first_order(relation, NonsmoothLaw::complementarity(4)?, &[ds])?;
    let sim = first_order_simulation(nsds, 1e-6, OneStepNsProblem::lcp_default()?)?;
    Ok((sim, vec![ds]))
}

/// Siconos' `SimpleExampleRelay`: `ẋ = r` (A = 0), `x₀ = (1, −1)`, `y = x` (C = I, D = 0),
/// `r = 2λ` (B = 2I), relay law `−y ∈ N_[−1,1](λ)` (size 2); Euler–Moreau θ = 1/2, the relay
/// problem by projected Gauss–Seidel (Siconos' `SICONOS_RELAY_PGS`), `h = 1e-3`.
/// The model of `examples/src/kernel/simple_example_relay.rs`.
///
/// # Errors
/// Kernel errors (none for this model).
pub fn simple_relay() -> Result<(TimeStepping, Vec<DsId>), KernelError> {
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(FirstOrderLinearDs::new(vec![1.0, -1.0], faer::Mat::zeros(2, 2))?);
    let relation = FirstOrderLinearTir::new(faer::Mat::identity(2, 2), faer::mat![[2.0, 0.0], [0.0, 2.0]])?
        .with_d(faer::Mat::zeros(2, 2))?;
    nsds.link_first_order(relation, NonsmoothLaw::relay(2, -1.0, 1.0)?, &[ds])?;
    let method = RelayMethod::from_name("pgs", None, None)
        .ok_or_else(|| KernelError::InvalidModel("no relay solver named \"pgs\"".into()))?;
    let sim = first_order_simulation(nsds, 1e-3, OneStepNsProblem::relay(method)?)?;
    Ok((sim, vec![ds]))
}

/// Siconos' `BouncingBallED` (the model of `examples/src/kernel/bouncing_ball_ed.rs`,
/// `BouncingBallEd::default()`): the ball `q₀ = (1, 0, 0)`, `v₀ = 0`,
/// `M = diag(m, m, 3/5 m R²)` with `m = 1`, `R = 0.1`, `F_ext = (−m g, 0, 0)`, one contact
/// `y = q[0]` with a Newton impact law `e = 0.9`; event-driven, the smooth flights by our port of
/// LSODAR at Siconos' tolerances (`LsodarOSI`), output grid `h = 0.005` on `[0, 8.5]`. Returns the
/// simulation, the ball and the contact.
///
/// # Errors
/// Kernel errors (none for this model).
pub fn bouncing_ball_ed() -> Result<(EventDriven, DsId, InteractionId), KernelError> {
    let (m, r) = (1.0, 0.1);
    let mass = faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, 3.0 / 5.0 * m * r * r]];
    let ball = LagrangianLinearTids::new(vec![1.0, 0.0, 0.0], vec![0.0; 3], mass)?.with_external_force(vec![
        -m * G,
        0.0,
        0.0,
    ])?;
    let mut nsds = Nsds::new();
    let ball = nsds.add_ds(ball);
    let contact =
        nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(0.9)?, &[ball])?;
    let sim = EventDriven::new(
        nsds,
        TimeDiscretisation::new(0.0, 0.005, 8.5)?,
        LsodarSmooth::siconos(),
        EventDrivenOptions::default(),
    )?;
    Ok((sim, ball, contact))
}

/// What one event-driven run did: the events processed and, among them, the impacts (the
/// nonsmooth events whose impact LCP was solved).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventDrivenRun {
    /// Events processed (grid points and nonsmooth events).
    pub events: usize,
    /// Events with an impact (a velocity jump).
    pub impacts: usize,
}

/// Runs `sim` to its end as Siconos' driver does, `while has_next_event { advance_to_event;
/// process_events }`, counting the events and the impacts.
///
/// # Errors
/// Kernel errors of the simulation.
pub fn run_event_driven(sim: &mut EventDriven) -> Result<EventDrivenRun, KernelError> {
    let mut run = EventDrivenRun::default();
    while sim.has_next_event() {
        sim.advance_to_event()?;
        let Some(report) = sim.process_events()? else { break };
        run.events += 1;
        run.impacts += usize::from(report.impact);
    }
    Ok(run)
}

/// The final-state checksums of [`bouncing_ball_ed`] after a run, in the layout of
/// [`final_checksums`]: `(x, x, x, ẋ)` of the ball (as the time-stepping ball).
///
/// # Errors
/// [`KernelError`] when `ball` is not a system of `sim`.
pub fn event_driven_checksums(sim: &EventDriven, ball: DsId) -> Result<[f64; 4], KernelError> {
    sim.with_nsds(|nsds| {
        let s = nsds.ds(ball)?.state();
        let (x, v) = (s.q()[0], s.v()[0]);
        Ok([x, x, x, v])
    })
}

fn first_order_simulation(nsds: Nsds, h: f64, osns: OneStepNsProblem) -> Result<TimeStepping, KernelError> {
    TimeStepping::new(
        nsds,
        EulerMoreauOsi::with_theta(0.5)?,
        osns,
        // The runs take a fixed number of steps; the final time only bounds them.
        TimeDiscretisation::new(0.0, h, 1e6)?,
        TimeSteppingOptions::default(),
    )
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
        "diode_bridge" => diode_bridge(),
        "relay" => simple_relay(),
        ed if is_event_driven(ed) => {
            Err(KernelError::InvalidModel(format!("{ed:?} is event-driven: build it with `bouncing_ball_ed`")))
        }
        other => Err(KernelError::InvalidModel(format!("unknown kernel bench case {other:?}"))),
    }
}

/// The final-state checksums `(z_bottom, z_top, Σz, Σv)` that `kernel-summary` prints for a
/// case built by [`kernel_case`] (the same as `final_state` in `xtask/siconos_kernel.py`):
/// - Lagrangian cases: `q[0]` of the first and the last system, `Σ q[0]` and `Σ v[0]` over
///   the systems (the bead heights and velocities; the ball: x, ẋ);
/// - first-order cases (one system `x ∈ Rⁿ`, one interaction): `x₀`, `x_{n−1}`, `Σᵢ xᵢ` and
///   `Σⱼ λⱼ` of the interaction (the diode bridge: `V_C`, `i_L`, `V_C + i_L`, Σ of the diode
///   currents and voltages; the relay: `x₀`, `x₁`, `x₀ + x₁`, `λ₀ + λ₁`).
///
/// # Errors
/// [`KernelError`] when an id does not belong to `sim` or `ids` is empty.
pub fn final_checksums(case: &str, sim: &TimeStepping, ids: &[DsId]) -> Result<[f64; 4], KernelError> {
    let nsds = sim.nsds();
    let (&first, &last) =
        ids.first().zip(ids.last()).ok_or_else(|| KernelError::InvalidModel("a bench case without systems".into()))?;
    if is_first_order(case) {
        let x = nsds.first_order_ds(first)?.state().x();
        let mut sum_lambda = 0.0;
        // (`Nsds::interactions_of` only accepts second-order systems, so the interactions are
        // filtered here.)
        for id in nsds.interaction_ids() {
            let inter = nsds.interaction(id)?;
            if inter.ds().contains(&first) {
                sum_lambda += inter.lambda(0).iter().sum::<f64>();
            }
        }
        let (x0, xn) = x.first().zip(x.last()).map_or((f64::NAN, f64::NAN), |(a, b)| (*a, *b));
        return Ok([x0, xn, x.iter().sum(), sum_lambda]);
    }
    let (mut sum_z, mut sum_v) = (0.0, 0.0);
    for &id in ids {
        let s = nsds.ds(id)?.state();
        sum_z += s.q()[0];
        sum_v += s.v()[0];
    }
    Ok([nsds.ds(first)?.state().q()[0], nsds.ds(last)?.state().q()[0], sum_z, sum_v])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_event_driven_ball_runs_siconos_1744_events_and_ends_where_siconos_does() {
        let (mut sim, ball, _) = bouncing_ball_ed().expect("the model builds");
        let run = run_event_driven(&mut sim).expect("the model runs");
        assert_eq!(run, EventDrivenRun { events: BOUNCING_BALL_ED_EVENTS, impacts: 44 });
        assert_eq!(kernel_steps("bouncing_ball_ed", 1), 1744);
        let [x, x_top, sum_x, v] = event_driven_checksums(&sim, ball).expect("the ball is in the model");
        // Siconos 4.4 (`xtask/siconos_kernel.py`): x = 5.565550791198585e-6, v = -0.04166519585822917 at t = 8.5.
        assert!((x - 5.565550791198585e-6).abs() < 1e-15, "{x:e}");
        assert!((v + 0.04166519585822917).abs() < 1e-14, "{v:e}");
        assert!((x_top - x).abs() < 1e-300 && (sum_x - x).abs() < 1e-300);
        assert!(kernel_case("bouncing_ball_ed", 1).is_err(), "not a time-stepping case");
    }
}
