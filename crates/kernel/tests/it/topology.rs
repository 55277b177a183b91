//! Topology: interactions sharing a dynamical system couple through the
//! off-diagonal blocks of the one-step problem; interactions removed and linked between steps
//! keep the simulation consistent; the DS and interaction graphs have the expected shape.
//!
//! The reference values are computed by hand below, independently of the kernel: for balls
//! (`W = M`, diagonal) with `H` rows picking vertical positions, the one-step LCP of two
//! contacts is 2×2 and is solved in closed form.

use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{DsId, InteractionId, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth_kernel::simulation::{
    MatrixStorage, MoreauJeanOsi, OneStepNsProblem, ProblemLevel, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};

use crate::{G, RADIUS, ball};

/// The relation `y = x` of a ball on the ground at `x = 0`.
fn ground() -> Result<LagrangianLinearTir, KernelError> {
    LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])
}

/// The gap `y = x₂ − x₁ − 2R` between a ball and the one above it (radius `R`).
fn ball_on_ball() -> Result<LagrangianLinearTir, KernelError> {
    LagrangianLinearTir::new(faer::mat![[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0]])?.with_offset(vec![-2.0 * RADIUS])
}

/// A stack of two balls: `b1` (mass `m1`) on the ground, `b2` (mass `m2`) on `b1`.
struct Stack {
    sim: TimeStepping,
    b1: DsId,
    b2: DsId,
    ground: InteractionId,
    contact: InteractionId,
}

fn stack(
    (x1, v1, m1, e1): (f64, f64, f64, f64),
    (x2, v2, m2, e2): (f64, f64, f64, f64),
    h: f64,
    storage: MatrixStorage,
) -> Result<Stack, KernelError> {
    let mut nsds = Nsds::new();
    let b1 = nsds.add_ds(ball(x1, v1, m1)?);
    let b2 = nsds.add_ds(ball(x2, v2, m2)?);
    let ground = nsds.link(ground()?, NonsmoothLaw::newton_impact(e1)?, &[b1])?;
    let contact = nsds.link(ball_on_ball()?, NonsmoothLaw::newton_impact(e2)?, &[b1, b2])?;
    let sim = TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5)?,
        OneStepNsProblem::lcp_default()?.with_storage(storage),
        TimeDiscretisation::new(0.0, h, 1.0)?,
        TimeSteppingOptions::default(),
    )?;
    Ok(Stack { sim, b1, b2, ground, contact })
}

/// The solution of the 2×2 LCP `0 ≤ A λ + q ⊥ λ ≥ 0` when both contacts carry an impulse:
/// `λ = −A⁻¹ q` by Cramer's rule, asserted non-negative (`A` is symmetric positive definite,
/// a P-matrix, so this is then the unique solution).
fn solve_2x2_both_active(a: [[f64; 2]; 2], q: [f64; 2]) -> [f64; 2] {
    let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
    let l0 = -(a[1][1] * q[0] - a[0][1] * q[1]) / det;
    let l1 = -(a[0][0] * q[1] - a[1][0] * q[0]) / det;
    assert!(l0 > 0.0 && l1 > 0.0, "the hand case must have both contacts active: {l0}, {l1}");
    [l0, l1]
}

/// The LCP matrix of the stack: `A = H W⁻¹ Hᵀ` with `H = [[1, 0], [−1, 1]]` on the vertical
/// velocities and `W = diag(m1, m2)`; the off-diagonal `−1/m1` comes from the shared ball 1.
fn stack_matrix(m1: f64, m2: f64) -> [[f64; 2]; 2] {
    [[1.0 / m1, -1.0 / m1], [-1.0 / m1, 1.0 / m1 + 1.0 / m2]]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

#[test]
fn stacked_balls_couple_through_the_off_diagonal_block() -> Result<(), KernelError> {
    // Ball 1 hits the ground while ball 2 hits ball 1, in the same step.
    let (x1, v1, m1, e1) = (0.0, -1.0, 1.0, 0.5);
    let (x2, v2, m2, e2) = (2.0 * RADIUS, -2.0, 2.0, 0.8);
    let h = 1e-2;

    // By hand: free velocities v − g h; q_α = H_α v_free + e_α ẏ_α,k.
    let (v1_free, v2_free) = (v1 - G * h, v2 - G * h);
    let q = [v1_free + e1 * v1, (v2_free - v1_free) + e2 * (v2 - v1)];
    let a = stack_matrix(m1, m2);
    let lambda = solve_2x2_both_active(a, q);
    let v1_new = v1_free + (lambda[0] - lambda[1]) / m1;
    let v2_new = v2_free + lambda[1] / m2;
    let x1_new = x1 + 0.5 * h * (v1 + v1_new);
    let x2_new = x2 + 0.5 * h * (v2 + v2_new);
    // Newton's law holds with equality on both contacts.
    assert!(close(v1_new, -e1 * v1) && close(v2_new - v1_new, -e2 * (v2 - v1)));
    // Without the off-diagonal blocks the impulses would differ by far more than round-off.
    let decoupled = [-q[0] / a[0][0], -q[1] / a[1][1]];
    assert!((decoupled[0] - lambda[0]).abs() > 1.0 && (decoupled[1] - lambda[1]).abs() > 1.0);

    for storage in [MatrixStorage::Dense, MatrixStorage::SparseBlock] {
        let mut s = stack((x1, v1, m1, e1), (x2, v2, m2, e2), h, storage)?;
        let report = s.sim.step()?;
        assert_eq!(report.active, 2);
        assert_eq!(s.sim.problem(ProblemLevel::Velocity).map_or(0, |p| p.last_size()), 2);
        assert!(report.osns.is_some_and(|r| r.is_converged()), "{report:?}");
        let nsds = s.sim.nsds();
        let got = [nsds.interaction(s.ground)?.lambda(1)[0], nsds.interaction(s.contact)?.lambda(1)[0]];
        assert!(close(got[0], lambda[0]) && close(got[1], lambda[1]), "{storage:?}: λ = {got:?}, by hand {lambda:?}");
        let (s1, s2) = (nsds.ds(s.b1)?.state(), nsds.ds(s.b2)?.state());
        assert!(close(s1.v()[0], v1_new) && close(s2.v()[0], v2_new), "{storage:?}: v = {}, {}", s1.v()[0], s2.v()[0]);
        assert!(close(s1.q()[0], x1_new) && close(s2.q()[0], x2_new), "{storage:?}: x = {}, {}", s1.q()[0], s2.q()[0]);
        // Inputs p = Σ Hᵀ λ: ball 1 feels both contacts, ball 2 only its own.
        assert!(close(s1.p(1)[0], lambda[0] - lambda[1]) && close(s2.p(1)[0], lambda[1]));
        assert!(s1.p(1)[1..].iter().chain(&s2.p(1)[1..]).all(|p| p.abs() <= 1e-15));
        // The outputs at t_{k+1} agree with the state.
        let y = nsds.interaction(s.contact)?.y(1)[0];
        assert!(close(y, v2_new - v1_new));
    }
    Ok(())
}

#[test]
fn removing_and_linking_between_steps_keeps_the_simulation_consistent() -> Result<(), KernelError> {
    // Two balls at rest on each other (gaps 0): both contacts carry the weights above them.
    let (m1, m2, e) = (1.0, 2.0, 0.5);
    let h = 1e-3;
    let gh = G * h;
    let mut s = stack((0.0, 0.0, m1, e), (2.0 * RADIUS, 0.0, m2, e), h, MatrixStorage::SparseBlock)?;
    s.sim.step()?;
    let nsds = s.sim.nsds();
    assert_eq!(nsds.active_interactions(), &[s.ground, s.contact]);
    assert!(close(nsds.interaction(s.ground)?.lambda(1)[0], (m1 + m2) * gh));
    assert!(close(nsds.interaction(s.contact)?.lambda(1)[0], m2 * gh));

    // Remove the ball-ball contact: its multiplier leaves with it.
    let removed = s.sim.nsds_mut().remove_interaction(s.contact)?;
    assert!(close(removed.lambda(1)[0], m2 * gh));
    let nsds = s.sim.nsds();
    assert_eq!(nsds.number_of_interactions(), 1);
    assert_eq!(nsds.active_interactions(), &[s.ground]);
    assert_eq!(nsds.interactions_of(s.b2)?, Vec::<InteractionId>::new());
    assert_eq!(nsds.interaction_graph().edge_count(), 0);
    // Cache hints take any handle: a stale one is ignored, a live one changes nothing (the
    // steps below are checked by hand).
    for id in [s.contact, s.ground] {
        nsds.prefetch_interaction(id);
        nsds.prefetch_relation(id);
    }

    // Two steps without it: ball 1 carries only its own weight, ball 2 falls freely.
    for k in 1..=2 {
        let report = s.sim.step()?;
        assert_eq!(report.active, 1);
        let nsds = s.sim.nsds();
        assert!(close(nsds.interaction(s.ground)?.lambda(1)[0], m1 * gh), "step {}", report.step);
        let (s1, s2) = (nsds.ds(s.b1)?.state(), nsds.ds(s.b2)?.state());
        assert!(close(s1.p(1)[0], m1 * gh) && s2.p(1).iter().all(|p| p.abs() <= 0.0));
        assert!(s1.v()[0].abs() <= 1e-14 && s1.q()[0].abs() <= 1e-14);
        let k = k as f64;
        assert!(close(s2.v()[0], -k * gh), "v2 = {}", s2.v()[0]);
        // θ = 1/2 integrates the free fall exactly: x = 2R − g t²/2.
        assert!(close(s2.q()[0], 2.0 * RADIUS - 0.5 * G * (k * h).powi(2)), "x2 = {}", s2.q()[0]);
    }

    // Link it again: ball 2 has sunk into ball 1 (y = −2 g h², ẏ = −2 g h), so the next step
    // activates it after the ground contact, which keeps its place.
    let relinked = s.sim.nsds_mut().link(ball_on_ball()?, NonsmoothLaw::newton_impact(e)?, &[s.b1, s.b2])?;
    assert_eq!(s.sim.nsds().interaction_graph().edge_count(), 1);
    let report = s.sim.step()?;
    assert_eq!(report.active, 2);
    let nsds = s.sim.nsds();
    assert_eq!(nsds.active_interactions(), &[s.ground, relinked]);
    let inter = nsds.interaction(relinked)?;
    assert!(close(inter.y_memory(0)[0], -2.0 * G * h * h) && close(inter.y_memory(1)[0], -2.0 * gh), "{inter:?}");
    // By hand: v_free = (−g h, −3 g h), q = (−g h, −2 g h (1 + e)); here λ = g h (9, 8).
    let lambda = solve_2x2_both_active(stack_matrix(m1, m2), [-gh, -2.0 * gh * (1.0 + e)]);
    let got = [nsds.interaction(s.ground)?.lambda(1)[0], inter.lambda(1)[0]];
    assert!(close(got[0], lambda[0]) && close(got[1], lambda[1]), "λ = {got:?}, by hand {lambda:?}");
    assert!(close(lambda[0], 9.0 * gh) && close(lambda[1], 8.0 * gh));
    // Newton's law on the new contact: ẏ⁺ = −e ẏ⁻ = 2 e g h; ball 1 stays at rest.
    let (v1, v2) = (nsds.ds(s.b1)?.state().v()[0], nsds.ds(s.b2)?.state().v()[0]);
    assert!(v1.abs() <= 1e-14 && close(v2 - v1, 2.0 * e * gh), "v = {v1}, {v2}");
    Ok(())
}

#[test]
fn graphs_have_the_expected_nodes_and_edges() -> Result<(), KernelError> {
    let mut nsds = Nsds::new();
    let b: Vec<DsId> =
        (0..3).map(|i| ball(2.0 * RADIUS * i as f64, 0.0, 1.0).map(|d| nsds.add_ds(d))).collect::<Result<_, _>>()?;
    assert_eq!((nsds.ds_graph().node_count(), nsds.ds_graph().edge_count()), (3, 0));
    let ground = nsds.link(ground()?, NonsmoothLaw::newton_impact(0.5)?, &[b[0]])?;
    let c01 = nsds.link(ball_on_ball()?, NonsmoothLaw::newton_impact(0.5)?, &[b[0], b[1]])?;
    let c12 = nsds.link(ball_on_ball()?, NonsmoothLaw::newton_impact(0.5)?, &[b[1], b[2]])?;

    // DS graph: 3 balls; one edge per interaction (the ground contact is a loop on ball 0).
    assert_eq!((nsds.ds_graph().node_count(), nsds.ds_graph().edge_count()), (3, 3));
    // Interaction graph: 3 contacts; an edge per shared ball (ground–c01 via ball 0, c01–c12
    // via ball 1), none between the ground and c12.
    let ig = nsds.interaction_graph();
    assert_eq!((ig.node_count(), ig.edge_count()), (3, 2));
    let mut shared: Vec<DsId> = ig.edge_weights().copied().collect();
    shared.sort();
    assert_eq!(shared, vec![b[0], b[1]]);
    let sorted = |mut v: Vec<InteractionId>| {
        v.sort();
        v
    };
    assert_eq!(sorted(nsds.interactions_of(b[0])?), vec![ground, c01]);
    assert_eq!(sorted(nsds.interactions_of(b[1])?), vec![c01, c12]);
    assert_eq!(nsds.interactions_of(b[2])?, vec![c12]);
    assert_eq!(nsds.interaction_ids().collect::<Vec<_>>(), vec![ground, c01, c12]);
    assert_eq!(nsds.interaction(c12)?.ds(), &[b[1], b[2]]);

    // A second contact on ball 0 alone shares ball 0 with both of its interactions.
    let wall =
        nsds.link(LagrangianLinearTir::new(faer::mat![[0.0, 1.0, 0.0]])?, NonsmoothLaw::newton_impact(0.0)?, &[b[0]])?;
    assert_eq!((nsds.ds_graph().edge_count(), nsds.interaction_graph().edge_count()), (4, 4));

    // Removing the middle contact removes its DS edge and its two interaction edges.
    nsds.remove_interaction(c01)?;
    assert_eq!((nsds.ds_graph().node_count(), nsds.ds_graph().edge_count()), (3, 3));
    let ig = nsds.interaction_graph();
    assert_eq!((ig.node_count(), ig.edge_count()), (3, 1));
    assert_eq!(sorted(nsds.interactions_of(b[0])?), vec![ground, wall]);
    assert_eq!(nsds.interactions_of(b[1])?, vec![c12]);
    assert_eq!(nsds.number_of_interactions(), 3);
    assert_eq!(nsds.number_of_ds(), 3);
    Ok(())
}
