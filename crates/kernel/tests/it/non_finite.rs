//! A diverging simulation stops with `KernelError::NonFiniteState` at the first step whose state
//! is not finite, and stays stopped: an unstable spring (`K < 0`, the state grows as
//! `e^{√(−K/m) t}` until it overflows) and a force of `1e306` N (the position overflows near
//! `t = √(2 · 1.8e308 / 1e306) ≈ 19 s`), under every time-stepping integrator, and the same
//! models in event-driven runs.

use faer::Mat;
use nonsmooth_kernel::model::{
    FirstOrderLinearDs, FirstOrderLinearTir, LagrangianDs, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw,
    Nsds,
};
use nonsmooth_kernel::numerics::SolverStatus;
use nonsmooth_kernel::simulation::event_driven::{RhsFn, RootFns};
use nonsmooth_kernel::simulation::{
    CombinedProjectionOptions, DirectProjectionOptions, EulerMoreauOsi, EventDriven, EventDrivenOptions, LsodarSmooth,
    MoreauJeanCombinedProjectionOsi, MoreauJeanDirectProjectionOsi, MoreauJeanOptions, MoreauJeanOsi,
    NonConvergencePolicy, OdeFailureReason, OdeStop, OneStepIntegrator, OneStepNsProblem, SchatzmanPaoliOptions,
    SchatzmanPaoliOsi, SmoothIntegrator, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};
use nonsmooth_kernel::{KernelError, NonFiniteValue, StateQuantity};

/// Time step of the unstable spring and of the huge force.
const H: f64 = 5e-3;
/// Stiffness of the unstable spring (N/m, mass 1 kg).
const K: f64 = -1e4;
/// The huge force (N, mass 1 kg).
const HUGE: f64 = 1e306;
/// θ of Moreau–Jean.
const THETA: f64 = 0.5;

/// One degree of freedom of mass 1 at `q = 1`, at rest, with stiffness `k` and force `f`.
fn spring(k: f64, f: f64) -> Result<LagrangianLinearTids, KernelError> {
    LagrangianLinearTids::new(vec![1.0], vec![0.0], Mat::identity(1, 1))?
        .with_stiffness(faer::mat![[k]])?
        .with_external_force(vec![f])
}

/// The model: the spring alone, or with a ground `y = q + 1e6` a million metres away on the
/// other side of its motion (an interaction that never becomes active).
fn model(k: f64, f: f64, far_contact: bool) -> Result<Nsds, KernelError> {
    let mut nsds = Nsds::new();
    let ds = nsds.add_ds(spring(k, f)?);
    if far_contact {
        nsds.link(
            LagrangianLinearTir::new(faer::mat![[1.0]])?.with_offset(vec![1e6])?,
            NonsmoothLaw::newton_impact(0.0)?,
            &[ds],
        )?;
    }
    Ok(nsds)
}

/// 20 000 steps of `H`.
fn grid() -> Result<TimeDiscretisation, KernelError> {
    TimeDiscretisation::new(0.0, H, 100.0)
}

/// Moreau–Jean (θ = 1/2) on the model.
fn moreau_jean(nsds: Nsds) -> Result<TimeStepping, KernelError> {
    TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(THETA)?,
        OneStepNsProblem::lcp_default()?,
        grid()?,
        TimeSteppingOptions::default(),
    )
}

/// The first step of Moreau–Jean (θ = 1/2, linear time-invariant: `W = m + h²θ²k`,
/// `R_free = h²θ (k v_k) + h (k q_k) − h(1 − θ) f − hθ f`, `v = v_k − R_free / W`,
/// `q = q_k + h(θ v + (1 − θ) v_k)`, each product evaluated in the kernel's order: `k v_k`
/// overflows before `v_k` does) written as a plain loop, whose state is not finite.
fn plain_first_non_finite(k: f64, f: f64) -> usize {
    let (mut q, mut v) = (1.0f64, 0.0f64);
    let w = 1.0 + H * H * THETA * THETA * k;
    for step in 1..=20_000 {
        let mut r = 0.0;
        r += H * H * THETA * (k * v);
        r += H * (k * q);
        r += -H * (1.0 - THETA) * f;
        r += -H * THETA * f;
        let v_new = v - r / w;
        q += H * (THETA * v_new + (1.0 - THETA) * v);
        v = v_new;
        if !q.is_finite() || !v.is_finite() {
            return step;
        }
    }
    usize::MAX
}

/// Steps `sim` until an error; checks that every step before it left a finite state of
/// system 0; returns the error and the number of `Ok` steps.
fn run_until_error(sim: &mut TimeStepping) -> (KernelError, usize) {
    let mut ok = 0;
    while sim.has_next_step() {
        match sim.step() {
            Ok(report) => {
                ok += 1;
                assert_eq!(report.step, ok);
                let s = sim.nsds().ds(sim.nsds().ds_ids().next().expect("a system")).expect("a system").state();
                assert!(s.q().iter().chain(s.v()).all(|x| x.is_finite()), "step {ok} reported Ok");
            }
            Err(e) => return (e, ok),
        }
    }
    panic!("the run ended without an error after {ok} steps");
}

/// The error's `(time, step, what)`, or a panic naming it.
fn non_finite(e: &KernelError) -> (f64, usize, NonFiniteValue) {
    match *e {
        KernelError::NonFiniteState { time, step, what } => (time, step, what),
        ref other => panic!("expected NonFiniteState, got {other:?}"),
    }
}

/// After the error: the simulation stays at `t_k`, every later step returns the same error,
/// and the memories hold the last finite state.
fn assert_stopped(sim: &mut TimeStepping, error: &KernelError) {
    let (time, step, what) = non_finite(error);
    let done = sim.steps_done();
    assert_eq!(done, step - 1, "the failed step is not counted");
    for _ in 0..3 {
        let again = sim.step().expect_err("a stopped simulation stays stopped");
        let (t2, s2, w2) = non_finite(&again);
        assert_eq!((t2.to_bits(), s2, w2), (time.to_bits(), step, what));
    }
    assert_eq!(sim.steps_done(), done);
    assert!(sim.stopped().is_some());
    let s = sim.nsds().ds(sim.nsds().ds_ids().next().expect("a system")).expect("a system").state();
    assert!(s.q_memory().iter().chain(s.v_memory()).all(|x| x.is_finite()), "memories at t_k");
    assert!(!s.q().iter().chain(s.v()).all(|x| x.is_finite()), "the state of the failed step");
}

#[test]
fn an_unstable_spring_stops_at_its_first_non_finite_state() -> Result<(), KernelError> {
    let expected = plain_first_non_finite(K, 0.0);
    // `k v` overflows at step 1365 (t = 6.825), `v` would at 1374 and `q` at 1382.
    assert_eq!(expected, 1365, "the plain loop diverges at step {expected}");
    for far_contact in [false, true] {
        let mut sim = moreau_jean(model(K, 0.0, far_contact)?)?;
        let (error, ok) = run_until_error(&mut sim);
        let (time, step, what) = non_finite(&error);
        assert_eq!(step, expected, "far contact: {far_contact}: {error}");
        assert_eq!(ok, expected - 1);
        assert_eq!(time.to_bits(), sim.time_discretisation().time(expected).to_bits());
        assert!(matches!(what, NonFiniteValue::System { ds: 0, component: 0, .. }), "{what:?}");
        assert_stopped(&mut sim, &error);
    }
    Ok(())
}

#[test]
fn a_huge_force_stops_when_the_position_overflows() -> Result<(), KernelError> {
    let expected = plain_first_non_finite(0.0, HUGE);
    // `q ≈ ½ f t²` passes 1.8e308 at t ≈ 18.96 s.
    assert_eq!(expected, 3793, "the plain loop overflows at step {expected}");
    for far_contact in [false, true] {
        let mut sim = moreau_jean(model(0.0, HUGE, far_contact)?)?;
        let (error, _) = run_until_error(&mut sim);
        let (time, step, what) = non_finite(&error);
        assert_eq!(step, expected, "far contact: {far_contact}: {error}");
        assert_eq!(time.to_bits(), sim.time_discretisation().time(expected).to_bits());
        // The velocity, 5e303·k, stays finite; the position overflows.
        assert_eq!(what, NonFiniteValue::System { ds: 0, quantity: StateQuantity::Position, component: 0 });
        assert_stopped(&mut sim, &error);
    }
    Ok(())
}

/// Builds a time-stepping integrator from Moreau–Jean's options.
type MakeIntegrator = fn(MoreauJeanOptions) -> Result<Box<dyn OneStepIntegrator>, KernelError>;

/// The models of [`every_second_order_integrator_stops_a_diverging_run`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Diverging {
    /// The unstable spring, linear time-invariant.
    LinearSpring,
    /// The huge force on a `LagrangianDs` (the Newton path).
    NonlinearForce,
    /// The unstable spring as a `LagrangianDs`, `F_int = k q` given as a function.
    NonlinearSpring,
}

/// Every time-stepping integrator of second-order systems, on the unstable spring and on the
/// huge force, linear and nonlinear (the Newton path): each stops at a step whose state is not
/// finite, having reported only finite states before. The spring's force given as a user
/// function overflows first (`k q` for a finite `q`), which is that function's own error.
#[test]
fn every_second_order_integrator_stops_a_diverging_run() -> Result<(), KernelError> {
    let mj = MoreauJeanOptions::default();
    let schemes: [(&str, MakeIntegrator); 4] = [
        ("Moreau–Jean", |mj| Ok(Box::new(MoreauJeanOsi::new(mj)?))),
        ("direct projection", |mj| {
            Ok(Box::new(MoreauJeanDirectProjectionOsi::new(mj, DirectProjectionOptions::default())?))
        }),
        ("combined projection", |mj| {
            Ok(Box::new(MoreauJeanCombinedProjectionOsi::new(mj, CombinedProjectionOptions::default())?))
        }),
        ("Schatzman–Paoli", |_| Ok(Box::new(SchatzmanPaoliOsi::new(SchatzmanPaoliOptions::default())?))),
    ];
    for (name, osi) in schemes {
        for model in [Diverging::LinearSpring, Diverging::NonlinearForce, Diverging::NonlinearSpring] {
            let mut nsds = Nsds::new();
            let unit = || LagrangianDs::new(vec![1.0], vec![0.0], Mat::identity(1, 1));
            let ds = match model {
                Diverging::LinearSpring => nsds.add_ds(spring(K, 0.0)?),
                Diverging::NonlinearForce => nsds.add_ds(unit()?.with_external_force(vec![HUGE])?),
                Diverging::NonlinearSpring => nsds.add_ds(unit()?.with_internal_forces(
                    |_, q, _, out| out[0] = K * q[0],
                    |_, _, _, j| j[(0, 0)] = K,
                    |_, _, _, _| {},
                )),
            };
            nsds.link(
                LagrangianLinearTir::new(faer::mat![[1.0]])?.with_offset(vec![1e6])?,
                NonsmoothLaw::newton_impact(0.0)?,
                &[ds],
            )?;
            let osi = osi(mj)?;
            let level = osi.problem_level();
            // The Newton loop of a nonlinear system cannot reach its absolute tolerance once
            // the state is large: keep going, to the overflow.
            let mut sim = TimeStepping::builder(nsds, grid()?)
                .options(TimeSteppingOptions::default().with_policy(NonConvergencePolicy::Continue))
                .boxed_integrator(osi, [ds])
                .problem(level, OneStepNsProblem::lcp_default()?)
                .build()?;
            let (error, ok) = run_until_error(&mut sim);
            if model == Diverging::NonlinearSpring {
                assert!(matches!(error, KernelError::NonFiniteCallback { what: "F_int", .. }), "{name}: {error:?}");
                continue;
            }
            let (_, step, what) = non_finite(&error);
            assert_eq!(step, ok + 1, "{name}, {model:?}: {error}");
            assert!((1_000..20_000).contains(&step), "{name}, {model:?}: step {step}");
            assert!(matches!(what, NonFiniteValue::System { ds: 0, component: 0, .. }), "{name}: {what:?}");
            if let NonFiniteValue::System { quantity: StateQuantity::FreeState, .. } = what {
                // Schatzman–Paoli's position-level problem reads `h(q_free)` of every
                // interaction: it refuses the overflowed free state before the state is updated.
                assert_eq!(name, "Schatzman–Paoli");
                assert_eq!(non_finite(&sim.step().expect_err("stopped")), (non_finite(&error)));
                continue;
            }
            assert_stopped(&mut sim, &error);
        }
    }
    Ok(())
}

/// Euler–Moreau on `ẋ = 100 x` (first order): the state `x` is checked.
#[test]
fn a_diverging_first_order_system_stops_naming_x() -> Result<(), KernelError> {
    let mut nsds = Nsds::new();
    nsds.add_first_order_ds(FirstOrderLinearDs::new(vec![1.0, 0.0], faer::mat![[100.0, 0.0], [0.0, -1.0]])?);
    let mut sim = TimeStepping::new(
        nsds,
        EulerMoreauOsi::with_theta(THETA)?,
        OneStepNsProblem::lcp_default()?,
        grid()?,
        TimeSteppingOptions::default(),
    )?;
    let mut ok = 0;
    let error = loop {
        match sim.step() {
            Ok(_) => ok += 1,
            Err(e) => break e,
        }
    };
    let (_, step, what) = non_finite(&error);
    assert_eq!(step, ok + 1);
    assert_eq!(what, NonFiniteValue::System { ds: 0, quantity: StateQuantity::State, component: 0 });
    let again = sim.step().expect_err("stopped");
    assert_eq!(non_finite(&again).1, step);
    Ok(())
}

/// A multiplier that overflows while the state stays finite (`r = B λ` with `B = 0`): the
/// interaction is named. `y = 1e-300 λ − 1e300 ≥ 0` needs `λ = 1e600`, beyond `f64`.
#[test]
fn an_overflowing_multiplier_is_named() -> Result<(), KernelError> {
    for policy in [NonConvergencePolicy::Fail, NonConvergencePolicy::Continue] {
        let mut nsds = Nsds::new();
        let ds = nsds.add_first_order_ds(FirstOrderLinearDs::new(vec![1.0], faer::mat![[-1.0]])?);
        nsds.link_first_order(
            FirstOrderLinearTir::new(faer::mat![[0.0]], faer::mat![[0.0]])?
                .with_d(faer::mat![[1e-300]])?
                .with_e(vec![-1e300])?,
            NonsmoothLaw::complementarity(1).unwrap(),
            &[ds],
        )?;
        let mut sim = TimeStepping::new(
            nsds,
            EulerMoreauOsi::with_theta(THETA)?,
            OneStepNsProblem::lcp_default()?,
            grid()?,
            TimeSteppingOptions::default().with_policy(policy),
        )?;
        let error = sim.step().expect_err("λ overflows at the first step");
        let (_, step, what) = non_finite(&error);
        assert_eq!(step, 1, "{policy:?}");
        // Failing, the step stops at the one-step problem, whose solution is not finite;
        // continuing, it applies `r = 0 · λ`, NaN, to the state, checked first.
        let expected = match policy {
            NonConvergencePolicy::Fail => NonFiniteValue::Multiplier { interaction: 0, level: 0, component: 0 },
            _ => NonFiniteValue::System { ds: 0, quantity: StateQuantity::State, component: 0 },
        };
        assert_eq!(what, expected, "{policy:?}");
        assert!(sim.step().is_err());
    }
    Ok(())
}

/// Event-driven runs of the unstable spring and of the huge force end with an error, never
/// with a trajectory reported finite: the ODE integrator refuses to accept a step to a
/// non-finite state, and fails first (LSODAR: on the spring it switches to BDF at once, as
/// DLSODAR does, and fails when `f` overflows near `t = 7.01`, where DLSODAR returns NaN; an
/// interpolation error at once on the huge force).
#[test]
fn event_driven_runs_of_diverging_models_end_with_an_error() -> Result<(), KernelError> {
    for (k, f) in [(K, 0.0), (0.0, HUGE)] {
        let mut sim =
            EventDriven::new(model(k, f, true)?, grid()?, LsodarSmooth::siconos(), EventDrivenOptions::default())?;
        let mut last_time = 0.0;
        let error = loop {
            assert!(sim.has_next_event(), "k = {k}, f = {f}: the run ended at t = {last_time} without an error");
            match sim.step() {
                Ok(report) => {
                    let finite = sim.with_nsds(|n| {
                        let s = n.ds(n.ds_ids().next().expect("a system")).expect("a system").state();
                        s.q().iter().chain(s.v()).all(|x| x.is_finite())
                    });
                    assert!(finite, "an Ok event with a non-finite state at {report:?}");
                    last_time = report.map_or(last_time, |r| r.time);
                }
                Err(e) => break e,
            }
        };
        let expected = if k < 0.0 {
            matches!(error, KernelError::OdeFailure { reason: OdeFailureReason::NonFiniteDerivative, time } if time > 7.0)
        } else {
            matches!(error, KernelError::InvalidOption { name: "tout", .. })
        };
        assert!(expected, "k = {k}, f = {f:e}: {error:?} (last event {last_time})");
    }
    Ok(())
}

/// A smooth integrator without safeguards: one explicit Euler step to `tout`, roots ignored
/// (what a user's integrator may do; the library's refuse non-finite states).
struct ExplicitEuler {
    t: f64,
    rate: Vec<f64>,
}

impl SmoothIntegrator for ExplicitEuler {
    fn restart(&mut self, t0: f64, _y0: &[f64]) {
        self.t = t0;
    }

    fn advance(
        &mut self,
        f: RhsFn<'_>,
        _roots: RootFns<'_>,
        tout: f64,
        y: &mut [f64],
    ) -> Result<(f64, OdeStop), KernelError> {
        if tout > self.t {
            self.rate.resize(y.len(), 0.0);
            f(self.t, y, &mut self.rate)?;
            for (yi, r) in y.iter_mut().zip(&self.rate) {
                *yi += (tout - self.t) * r;
            }
            self.t = tout;
        }
        Ok((self.t, OdeStop::Reached))
    }
}

/// An event-driven run whose integrator reaches a non-finite state (explicit Euler on the
/// unstable spring, `q ← q + h v`, `v ← v − h k q`) stops at the first such event time, with
/// the value named, and stays stopped.
#[test]
fn an_event_driven_run_that_blows_up_stops_at_the_first_non_finite_state() -> Result<(), KernelError> {
    let (mut q, mut v, mut k_expected) = (1.0f64, 0.0f64, 0);
    let grid = grid()?;
    for k in 1..=20_000 {
        let h = grid.time(k) - grid.time(k - 1);
        (q, v) = (q + h * v, v + h * (-K * q));
        if !q.is_finite() || !v.is_finite() {
            k_expected = k;
            break;
        }
    }
    assert!(k_expected > 0, "the plain loop diverges");
    let euler = ExplicitEuler { t: 0.0, rate: Vec::new() };
    let mut sim = EventDriven::new(model(K, 0.0, false)?, grid, euler, EventDrivenOptions::default())?;
    let error = loop {
        match sim.step() {
            Ok(_) => {
                let finite = sim.with_nsds(|n| {
                    let s = n.ds(n.ds_ids().next().expect("a system")).expect("a system").state();
                    s.q().iter().chain(s.v()).all(|x| x.is_finite())
                });
                assert!(finite, "an Ok event with a non-finite state at t = {}", sim.time());
            }
            Err(e) => break e,
        }
    };
    let (time, step, what) = non_finite(&error);
    assert_eq!(time.to_bits(), grid.time(k_expected).to_bits(), "{error}");
    assert_eq!(step, 0);
    assert!(matches!(what, NonFiniteValue::System { ds: 0, component: 0, .. }), "{what:?}");
    for _ in 0..2 {
        assert_eq!(non_finite(&sim.step().expect_err("stopped")), (time, step, what));
        assert_eq!(non_finite(&sim.process_events().expect_err("stopped")), (time, step, what));
    }
    assert!(sim.stopped().is_some());
    Ok(())
}

/// An impact whose impulse overflows (a ball of 1e10 kg on the ground at 1e300 m/s:
/// `λ[1] = (1 + e) m v = 2e310`) ends the run at the impact: Lemke's pivots break down.
#[test]
fn an_event_driven_impact_that_overflows_ends_the_run() -> Result<(), KernelError> {
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(crate::ball(0.0, -1e300, 1e10)?);
    nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(1.0)?, &[b])?;
    let grid = TimeDiscretisation::new(0.0, 0.01, 1.0)?;
    let mut sim = EventDriven::new(nsds, grid, LsodarSmooth::siconos(), EventDrivenOptions::default())?;
    let error = sim.step().expect_err("the impact at t0 fails");
    assert!(
        matches!(error, KernelError::NotConverged { report, .. } if report.status == SolverStatus::NumericalBreakdown),
        "{error:?}"
    );
    Ok(())
}

/// An external force that turns NaN at `t = 0.1` ends the event-driven run with the error of
/// the user function (the state stays finite: the integrator does not accept the step).
#[test]
fn an_event_driven_force_that_turns_nan_ends_the_run() -> Result<(), KernelError> {
    let mut nsds = Nsds::new();
    nsds.add_ds(
        LagrangianLinearTids::new(vec![1.0], vec![0.0], Mat::identity(1, 1))?
            .with_external_force_fn(|t, out| out[0] = if t < 0.1 { -9.81 } else { f64::NAN }),
    );
    let mut sim = EventDriven::new(nsds, grid()?, LsodarSmooth::siconos(), EventDrivenOptions::default())?;
    let error = loop {
        if let Err(e) = sim.step() {
            break e;
        }
    };
    assert!(matches!(error, KernelError::NonFiniteCallback { what: "F_ext", time } if time >= 0.1), "{error:?}");
    Ok(())
}

/// An error of a step after a change of the model (an interaction removed, one linking the
/// systems of two integrators added) is that error: the search for a non-finite value that
/// follows a failed step skips the removed interaction.
#[test]
fn an_invalid_change_of_the_model_is_not_taken_for_a_divergence() -> Result<(), KernelError> {
    let mut nsds = Nsds::new();
    let a = nsds.add_ds(crate::ball(0.1, 0.0, 1.0)?);
    let b = nsds.add_ds(crate::ball(0.5, 0.0, 1.0)?);
    let ground = || -> Result<LagrangianLinearTir, KernelError> {
        LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?.with_offset(vec![-0.1])
    };
    let under_a = nsds.link(ground()?, NonsmoothLaw::newton_impact(0.0)?, &[a])?;
    nsds.link(ground()?, NonsmoothLaw::newton_impact(0.0)?, &[b])?;
    let mut sim = TimeStepping::builder(nsds, TimeDiscretisation::new(0.0, 1e-3, 1.0)?)
        .integrator(MoreauJeanOsi::with_theta(THETA)?, [a])
        .integrator(MoreauJeanOsi::with_theta(THETA)?, [b])
        .problem(nonsmooth_kernel::simulation::ProblemLevel::Velocity, OneStepNsProblem::lcp_default()?)
        .build()?;
    for _ in 0..10 {
        sim.step()?;
    }
    assert!(sim.nsds().active_interactions().contains(&under_a), "ball a rests on the ground");
    // Linked first, so that the removed interaction leaves its slot empty.
    let between = LagrangianLinearTir::new(faer::mat![[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0]])?.with_offset(vec![-0.2])?;
    sim.nsds_mut().link(between, NonsmoothLaw::newton_impact(0.0)?, &[a, b])?;
    sim.nsds_mut().remove_interaction(under_a)?;
    let error = sim.step().expect_err("an interaction between two integrators");
    assert!(matches!(error, KernelError::SharedBetweenIntegrators { what: "interaction", .. }), "{error:?}");
    assert!(sim.stopped().is_none());
    Ok(())
}
