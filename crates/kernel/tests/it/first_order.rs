//! First-order systems under Euler–Moreau: one step compared with a hand
//! computation of the one-step problem `y = (D + h C W⁻¹ B) λ + C x_free + e` (off-diagonal
//! blocks of two interactions sharing a system; an MLCP with an equality and a complementarity
//! law), the Newton loop on a Type2R relation, and the typed errors.

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{
    FirstOrderLinearDs, FirstOrderLinearTir, FirstOrderNonLinearDs, FirstOrderType2R, NonsmoothLaw, Nsds,
};
use nonsmooth_kernel::numerics::mlcp::MlcpMethod;
use nonsmooth_kernel::numerics::relay::RelayMethod;
use nonsmooth_kernel::simulation::{
    EulerMoreauOptions, EulerMoreauOsi, MoreauJeanOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping,
    TimeSteppingOptions,
};

use crate::ball;

const H: f64 = 0.1;
const THETA: f64 = 0.5;

/// `A` of the shared linear system.
fn a() -> Mat<f64> {
    faer::mat![[-1.0, 0.5], [0.2, -2.0]]
}

const X0: [f64; 2] = [1.0, -1.0];

/// The shared system `ẋ = A x + r`, `x(0) = X0`.
fn system() -> FirstOrderLinearDs {
    FirstOrderLinearDs::new(X0.to_vec(), a()).expect("a valid system")
}

/// Interaction 1: `y = x₀ + ½λ − 2`, `r = (1, ½) λ`.
fn relation_1() -> FirstOrderLinearTir {
    FirstOrderLinearTir::new(faer::mat![[1.0, 0.0]], faer::mat![[1.0], [0.5]])
        .and_then(|r| r.with_d(faer::mat![[0.5]]))
        .and_then(|r| r.with_e(vec![-2.0]))
        .expect("a valid relation")
}

/// Interaction 2: `y = x₁ + 0.4λ − 0.5`, `r = (0.3, 1) λ`.
fn relation_2() -> FirstOrderLinearTir {
    FirstOrderLinearTir::new(faer::mat![[0.0, 1.0]], faer::mat![[0.3], [1.0]])
        .and_then(|r| r.with_d(faer::mat![[0.4]]))
        .and_then(|r| r.with_e(vec![-0.5]))
        .expect("a valid relation")
}

const C1: [f64; 2] = [1.0, 0.0];
const B1: [f64; 2] = [1.0, 0.5];
const D1: f64 = 0.5;
const E1: f64 = -2.0;
const C2: [f64; 2] = [0.0, 1.0];
const B2: [f64; 2] = [0.3, 1.0];
const D2: f64 = 0.4;
const E2: f64 = -0.5;

/// The hand computation of one θ step: `W = I − hθA`, `x_free = x₀ + h W⁻¹ A x₀`, `q_α = C_α
/// x_free + e_α`, `M_αβ = δ_αβ D_α + h C_α W⁻¹ B_β`, and `x₁ = x_free + h W⁻¹ Σ B_α λ_α`.
struct Hand {
    w_inv: [[f64; 2]; 2],
    x_free: [f64; 2],
    q: [f64; 2],
    m: [[f64; 2]; 2],
}

fn mat_vec(m: &[[f64; 2]; 2], v: [f64; 2]) -> [f64; 2] {
    [m[0][0] * v[0] + m[0][1] * v[1], m[1][0] * v[0] + m[1][1] * v[1]]
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn hand() -> Hand {
    let a = a();
    let w =
        [[1.0 - H * THETA * a[(0, 0)], -H * THETA * a[(0, 1)]], [-H * THETA * a[(1, 0)], 1.0 - H * THETA * a[(1, 1)]]];
    let det = w[0][0] * w[1][1] - w[0][1] * w[1][0];
    let w_inv = [[w[1][1] / det, -w[0][1] / det], [-w[1][0] / det, w[0][0] / det]];
    let ax0 = [a[(0, 0)] * X0[0] + a[(0, 1)] * X0[1], a[(1, 0)] * X0[0] + a[(1, 1)] * X0[1]];
    let dx = mat_vec(&w_inv, ax0);
    let x_free = [X0[0] + H * dx[0], X0[1] + H * dx[1]];
    let (wb1, wb2) = (mat_vec(&w_inv, B1), mat_vec(&w_inv, B2));
    let m = [[D1 + H * dot(C1, wb1), H * dot(C1, wb2)], [H * dot(C2, wb1), D2 + H * dot(C2, wb2)]];
    let q = [dot(C1, x_free) + E1, dot(C2, x_free) + E2];
    Hand { w_inv, x_free, q, m }
}

impl Hand {
    /// `x₁ = x_free + h W⁻¹ (B₁ λ₁ + B₂ λ₂)`.
    fn state(&self, l: [f64; 2]) -> [f64; 2] {
        let r = [B1[0] * l[0] + B2[0] * l[1], B1[1] * l[0] + B2[1] * l[1]];
        let d = mat_vec(&self.w_inv, r);
        [self.x_free[0] + H * d[0], self.x_free[1] + H * d[1]]
    }
}

/// The 2×2 LCP `w = M z + q ≥ 0 ⊥ z ≥ 0` by enumeration of the four index sets (the one
/// feasible set; `M` is a P-matrix in these tests).
fn lcp_2x2(m: [[f64; 2]; 2], q: [f64; 2]) -> [f64; 2] {
    let mut found = Vec::new();
    for case in 0..4 {
        let (a0, a1) = (case & 1 == 1, case & 2 == 2);
        let z = match (a0, a1) {
            (false, false) => [0.0, 0.0],
            (true, false) => [-q[0] / m[0][0], 0.0],
            (false, true) => [0.0, -q[1] / m[1][1]],
            (true, true) => {
                let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
                [(-q[0] * m[1][1] + q[1] * m[0][1]) / det, (-q[1] * m[0][0] + q[0] * m[1][0]) / det]
            }
        };
        let w = [m[0][0] * z[0] + m[0][1] * z[1] + q[0], m[1][0] * z[0] + m[1][1] * z[1] + q[1]];
        if (0..2).all(|i| z[i] >= -1e-14 && w[i] >= -1e-14) {
            found.push(z);
        }
    }
    assert_eq!(found.len(), 1, "the hand LCP has {} solutions", found.len());
    found[0]
}

fn grid() -> TimeDiscretisation {
    TimeDiscretisation::new(0.0, H, 1.0).expect("a valid grid")
}

#[test]
fn two_interactions_on_one_system_couple_through_off_diagonal_blocks() {
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(system());
    let i1 = nsds
        .link_first_order(relation_1(), NonsmoothLaw::complementarity(1).expect("a valid law"), &[ds])
        .expect("links");
    let i2 = nsds
        .link_first_order(relation_2(), NonsmoothLaw::complementarity(1).expect("a valid law"), &[ds])
        .expect("links");
    let osi = EulerMoreauOsi::with_theta(THETA).expect("θ = 1/2");
    let mut sim =
        TimeStepping::new(nsds, osi, OneStepNsProblem::lcp_default().expect("Lemke"), grid(), Default::default())
            .expect("a valid simulation");
    sim.step().expect("one step");

    let hand = hand();
    // The coupling is real: the off-diagonal blocks are not small, and dropping them changes λ.
    assert!(hand.m[0][1].abs() > 1e-2 && hand.m[1][0].abs() > 1e-2, "M = {:?}", hand.m);
    let lambda = lcp_2x2(hand.m, hand.q);
    let uncoupled = lcp_2x2([[hand.m[0][0], 0.0], [0.0, hand.m[1][1]]], hand.q);
    assert!(lambda.iter().all(|&l| l > 0.1), "both constraints active: λ = {lambda:?}");
    assert!((lambda[0] - uncoupled[0]).abs() > 1e-3 || (lambda[1] - uncoupled[1]).abs() > 1e-3);

    println!("coupled λ = {lambda:?}, without the off-diagonal blocks {uncoupled:?}");
    let got = [sim.nsds().interaction(i1).unwrap().lambda(0)[0], sim.nsds().interaction(i2).unwrap().lambda(0)[0]];
    for k in 0..2 {
        assert!((got[k] - lambda[k]).abs() <= 1e-12, "λ{k}: kernel {} hand {}", got[k], lambda[k]);
    }
    let x = sim.nsds().first_order_ds(ds).unwrap().state().x().to_vec();
    let x_hand = hand.state(lambda);
    for k in 0..2 {
        assert!((x[k] - x_hand[k]).abs() <= 1e-12, "x{k}: kernel {} hand {}", x[k], x_hand[k]);
    }
    // The stored outputs are y = C x₁ + D λ + e, zero on both active constraints.
    let y1 = sim.nsds().interaction(i1).unwrap().y(0)[0];
    let y2 = sim.nsds().interaction(i2).unwrap().y(0)[0];
    assert!((y1 - (dot(C1, [x[0], x[1]]) + D1 * got[0] + E1)).abs() <= 1e-14 && y1.abs() <= 1e-12);
    assert!((y2 - (dot(C2, [x[0], x[1]]) + D2 * got[1] + E2)).abs() <= 1e-14 && y2.abs() <= 1e-12);
}

#[test]
fn an_mlcp_step_with_an_equality_and_a_complementarity_law_matches_the_hand_computation() {
    // Interaction 1 (complementarity) is linked first: the kernel puts the equality rows first
    // in the MLCP, so this also checks the permutation back.
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(system());
    let ic = nsds
        .link_first_order(relation_1(), NonsmoothLaw::complementarity(1).expect("a valid law"), &[ds])
        .expect("links");
    let ie =
        nsds.link_first_order(relation_2(), NonsmoothLaw::equality(1).expect("a valid law"), &[ds]).expect("links");
    let method = MlcpMethod::from_name("enum", Some(1e-12), None).expect("enum");
    let osi = EulerMoreauOsi::with_theta(THETA).expect("θ = 1/2");
    let mut sim =
        TimeStepping::new(nsds, osi, OneStepNsProblem::mlcp(method).expect("MLCP"), grid(), Default::default())
            .expect("a valid simulation");
    sim.step().expect("one step");

    // By hand: w_e = M_ec λ_c + M_ee λ_e + q_e = 0, 0 ≤ w_c = M_cc λ_c + M_ce λ_e + q_c ⊥ λ_c ≥ 0.
    let Hand { m, q, .. } = hand();
    let inactive_e = -q[1] / m[1][1];
    let inactive_w = m[0][1] * inactive_e + q[0];
    let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    let active = [(-q[0] * m[1][1] + q[1] * m[0][1]) / det, (-q[1] * m[0][0] + q[0] * m[1][0]) / det];
    // Exactly one case is feasible, and it is the active one.
    assert!(inactive_w < 0.0, "λ_c = 0 would be feasible: w_c = {inactive_w}");
    assert!(active[0] > 0.0, "λ_c = {}", active[0]);
    let got = [sim.nsds().interaction(ic).unwrap().lambda(0)[0], sim.nsds().interaction(ie).unwrap().lambda(0)[0]];
    for k in 0..2 {
        assert!((got[k] - active[k]).abs() <= 1e-12, "λ{k}: kernel {} hand {}", got[k], active[k]);
    }
    let x = sim.nsds().first_order_ds(ds).unwrap().state().x().to_vec();
    let x_hand = hand().state(active);
    for k in 0..2 {
        assert!((x[k] - x_hand[k]).abs() <= 1e-12, "x{k}: kernel {} hand {}", x[k], x_hand[k]);
    }
    // Both outputs vanish: the equality always, the complementarity because λ_c > 0.
    assert!(sim.nsds().interaction(ie).unwrap().y(0)[0].abs() <= 1e-12);
    assert!(sim.nsds().interaction(ic).unwrap().y(0)[0].abs() <= 1e-12);
}

#[test]
fn the_newton_loop_on_a_type2r_relation_converges_below_its_tolerance() {
    // ẋ = −x³ + r, r = g(λ) = −λ, and the equality y = λ + λ³ − x = 0 (nonlinear in λ).
    let tolerance = 1e-12;
    let mut nsds = Nsds::new();
    let f = |x: f64| -x * x * x;
    let ds = nsds.add_first_order_ds(
        FirstOrderNonLinearDs::new(
            vec![2.0],
            move |_t, x, out| out[0] = f(x[0]),
            |_t, x, jac| jac[(0, 0)] = -3.0 * x[0] * x[0],
        )
        .expect("a valid system"),
    );
    let relation = FirstOrderType2R::new(
        1,
        |_t, x, l, y| y[0] = l[0] + l[0] * l[0] * l[0] - x[0],
        |_t, _x, l, c, d| {
            c[(0, 0)] = -1.0;
            d[(0, 0)] = 1.0 + 3.0 * l[0] * l[0];
        },
        |_t, l, r| r[0] = -l[0],
        |_t, _l, b| b[(0, 0)] = -1.0,
    )
    .expect("a valid relation");
    let inter = nsds.link_first_order(relation, NonsmoothLaw::equality(1).expect("a valid law"), &[ds]).expect("links");
    let method = MlcpMethod::from_name("enum", Some(1e-14), None).expect("enum");
    let options = TimeSteppingOptions::default().with_newton_tolerance(tolerance);
    let mut sim = TimeStepping::new(
        nsds,
        EulerMoreauOsi::with_theta(THETA).expect("θ = 1/2"),
        OneStepNsProblem::mlcp(method).expect("MLCP"),
        grid(),
        options,
    )
    .expect("a valid simulation");
    let mut x_old = 2.0;
    let mut max_iterations = 0;
    for _ in 0..10 {
        let report = sim.step().expect("a converged step");
        assert!(report.newton_converged);
        assert!(report.newton_residual <= tolerance, "residual {:e}", report.newton_residual);
        max_iterations = max_iterations.max(report.newton_iterations);
        let x = sim.nsds().first_order_ds(ds).unwrap().state().x()[0];
        let l = sim.nsds().interaction(inter).unwrap().lambda(0)[0];
        // The converged pair solves the θ-scheme and the relation (independently evaluated).
        let scheme = x - x_old - H * (THETA * f(x) + (1.0 - THETA) * f(x_old)) - H * (-l);
        let relation = l + l * l * l - x;
        assert!(scheme.abs() <= 10.0 * tolerance, "θ-scheme residual {scheme:e}");
        assert!(relation.abs() <= 10.0 * tolerance, "relation residual {relation:e}");
        x_old = x;
    }
    println!("Type2R Newton: at most {max_iterations} iterations per step");
    // From λ = 0, x = 2 the first step needs several Newton iterations.
    assert!(max_iterations >= 3, "at most {max_iterations} Newton iterations");
}

fn expect_invalid_model<T: std::fmt::Debug>(result: Result<T, KernelError>, what: &str) {
    match result {
        Err(KernelError::InvalidModel(_)) => {}
        other => panic!("{what}: expected InvalidModel, got {other:?}"),
    }
}

fn expect_invalid_option<T: std::fmt::Debug>(result: Result<T, KernelError>, option: &str) {
    match result {
        Err(KernelError::InvalidOption { name, .. }) => assert_eq!(name, option),
        other => panic!("expected InvalidOption {{ {option} }}, got {other:?}"),
    }
}

fn expect_dimension_mismatch<T: std::fmt::Debug>(result: Result<T, KernelError>, what: &str) {
    match result {
        Err(KernelError::DimensionMismatch { .. }) => {}
        other => panic!("{what}: expected DimensionMismatch, got {other:?}"),
    }
}

/// A first-order model with one complementarity interaction.
fn first_order_model() -> Nsds {
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(system());
    nsds.link_first_order(relation_1(), NonsmoothLaw::complementarity(1).expect("a valid law"), &[ds]).expect("links");
    nsds
}

#[test]
fn integrators_refuse_systems_of_the_other_order() {
    let mj = MoreauJeanOsi::with_theta(0.5).expect("θ = 1/2");
    let lcp = || OneStepNsProblem::lcp_default().expect("Lemke");
    expect_invalid_model(
        TimeStepping::new(first_order_model(), mj, lcp(), grid(), Default::default()),
        "first-order system under Moreau–Jean",
    );
    let mut nsds = Nsds::new();
    nsds.add_ds(ball(1.0, 0.0, 1.0).expect("a ball"));
    let em = EulerMoreauOsi::with_theta(0.5).expect("θ = 1/2");
    expect_invalid_model(
        TimeStepping::new(nsds, em, lcp(), grid(), Default::default()),
        "second-order system under Euler–Moreau",
    );
}

#[test]
fn a_complementarity_law_is_refused_by_a_relay_problem() {
    let relay = OneStepNsProblem::relay(RelayMethod::from_name("pgs", None, None).expect("pgs")).expect("relay");
    let em = EulerMoreauOsi::with_theta(0.5).expect("θ = 1/2");
    expect_invalid_model(
        TimeStepping::new(first_order_model(), em, relay, grid(), Default::default()),
        "complementarity law in a relay problem",
    );
}

#[test]
fn euler_moreau_options_are_checked() {
    expect_invalid_option(
        EulerMoreauOsi::new(EulerMoreauOptions::default().with_gamma_for_relation(true)),
        "gamma_for_relation",
    );
    for theta in [-0.1, 1.5, f64::NAN] {
        expect_invalid_option(EulerMoreauOsi::with_theta(theta), "theta");
    }
    expect_invalid_option(EulerMoreauOsi::new(EulerMoreauOptions::default().with_gamma(1.2)), "gamma");
    // The bounds themselves are accepted.
    assert!(EulerMoreauOsi::with_theta(0.0).is_ok() && EulerMoreauOsi::with_theta(1.0).is_ok());
}

#[test]
fn relation_matrices_of_the_wrong_shape_are_refused() {
    // B must be n × m for C of size m × n.
    expect_dimension_mismatch(FirstOrderLinearTir::new(faer::mat![[1.0, 0.0]], Mat::zeros(3, 1)), "B rows");
    expect_dimension_mismatch(FirstOrderLinearTir::new(faer::mat![[1.0, 0.0]], Mat::zeros(2, 2)), "B columns");
    expect_dimension_mismatch(FirstOrderLinearTir::new(Mat::zeros(0, 2), Mat::zeros(2, 0)), "empty C");
    // D must be m × m.
    expect_dimension_mismatch(
        FirstOrderLinearTir::new(faer::mat![[1.0, 0.0]], faer::mat![[1.0], [0.0]])
            .and_then(|r| r.with_d(Mat::zeros(2, 2))),
        "D",
    );
    expect_dimension_mismatch(
        FirstOrderLinearTir::new(faer::mat![[1.0, 0.0]], faer::mat![[1.0], [0.0]]).and_then(|r| r.with_e(vec![0.0; 2])),
        "e",
    );
    // C with 3 columns on a system of size 2; a law of the wrong size.
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(system());
    let wide = FirstOrderLinearTir::new(faer::mat![[1.0, 0.0, 0.0]], Mat::zeros(3, 1)).expect("a valid relation");
    expect_dimension_mismatch(
        nsds.link_first_order(wide, NonsmoothLaw::complementarity(1).expect("a valid law"), &[ds]),
        "C columns against the system size",
    );
    expect_dimension_mismatch(
        nsds.link_first_order(relation_1(), NonsmoothLaw::complementarity(2).expect("a valid law"), &[ds]),
        "law size",
    );
    // The model is unchanged by the refused links.
    assert_eq!(nsds.number_of_interactions(), 0);
}

#[test]
fn an_impact_law_on_a_first_order_interaction_is_refused() {
    let mut nsds = Nsds::new();
    let ds = nsds.add_first_order_ds(system());
    let law = NonsmoothLaw::newton_impact(0.5).expect("a valid law");
    expect_invalid_model(nsds.link_first_order(relation_1(), law, &[ds]), "impact law on a first-order interaction");
}
