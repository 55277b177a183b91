//! Properties of the kernel examples `column_of_beads` and `double_pendulum`.
//!
//! Run with `cargo test --release -p nonsmooth-examples --test kernel_examples -- --nocapture`
//! to see the measured numbers.

use faer::Mat;
use nonsmooth::kernel::model::{LagrangianRelation, SecondOrderDs};
use nonsmooth_examples::kernel::column_of_beads::{BeadsRun, ColumnOfBeads, GRAVITY, MASS, RADIUS};
use nonsmooth_examples::kernel::double_pendulum::DoublePendulum;

// ---------------------------------------------------------------------------------------------
// column_of_beads

fn beads_run(model: &ColumnOfBeads) -> BeadsRun {
    model.simulate().expect("the column of beads runs")
}

/// Smallest floor gap and smallest bead–bead gap over all rows.
fn smallest_gaps(model: &ColumnOfBeads, run: &BeadsRun) -> (f64, f64) {
    let mut floor = f64::INFINITY;
    let mut pairs = f64::INFINITY;
    for row in run.trajectory.iter_rows() {
        floor = floor.min(row[1] - RADIUS);
        for i in 1..model.beads {
            pairs = pairs.min(row[1 + i] - row[i] - 2.0 * RADIUS);
        }
    }
    (floor, pairs)
}

#[test]
fn beads_contacts_are_created_and_removed() {
    let model = ColumnOfBeads::default();
    let run = beads_run(&model);
    println!(
        "column_of_beads: {} created, {} removed, at most {} interactions",
        run.created, run.removed, run.max_interactions
    );
    assert!(run.created > 0, "no bead contact was created");
    assert!(run.removed > 0, "no bead contact was removed");
    // Every contact removed was created first; the floor is always there.
    assert!(run.removed <= run.created);
    assert!(run.max_interactions <= model.beads);
    let last = run.trajectory.row(run.trajectory.rows() - 1);
    assert_eq!(last[1 + 2 * model.beads] as usize, 1 + run.created - run.removed);
}

#[test]
fn beads_do_not_penetrate_beyond_h_times_v() {
    let model = ColumnOfBeads::default();
    let run = beads_run(&model);
    let (floor, pairs) = smallest_gaps(&model, &run);
    // Largest relative approach speed before a contact, to scale the O(h v) bound.
    let vmax = run
        .trajectory
        .iter_rows()
        .flat_map(|r| (1..=model.beads).map(move |i| r[model.beads + i].abs()))
        .fold(0.0f64, f64::max);
    // A contact left out of step k's LCP has `y_k + γ h ẏ_k > 0` (γ = 1/2); with
    // `y_{k+1} = y_k + h (ẏ_k + ẏ_{k+1}) / 2` this gives `y_{k+1} > −γ h |ẏ_{k+1}|` whatever the
    // other contacts did to `ẏ` in the step, and the next step's LCP stops the approach. A
    // relative speed is at most `2 v_max`, hence the bound `γ h 2 v_max = h v_max` (gravity
    // gives all beads the same acceleration; for the floor it adds `O(g h²) = 1e-5`).
    let bound = 0.5 * model.h * 2.0 * vmax;
    println!(
        "column_of_beads: smallest floor gap {floor:.3e}, smallest bead gap {pairs:.3e}, h v_max = {:.3e}",
        model.h * vmax
    );
    assert!(floor >= -bound, "floor penetration {floor:e} beyond {bound:e}");
    assert!(pairs >= -bound, "bead penetration {pairs:e} beyond {bound:e}");
}

#[test]
fn beads_dynamic_contacts_give_the_same_trajectory_as_all_contacts() {
    let dynamic = ColumnOfBeads::default();
    let all = ColumnOfBeads { all_contacts_from_start: true, ..dynamic };
    let (a, b) = (beads_run(&dynamic), beads_run(&all));
    assert_eq!(a.trajectory.rows(), b.trajectory.rows());
    assert_eq!(b.created + b.removed, 0);
    // Columns t, z, v (the interaction counts differ by construction).
    let cols = 1 + 2 * dynamic.beads;
    let mut diff = 0.0f64;
    for k in 0..a.trajectory.rows() {
        let (ra, rb) = (a.trajectory.row(k), b.trajectory.row(k));
        for j in 0..cols {
            diff = diff.max((ra[j] - rb[j]).abs());
        }
    }
    println!("column_of_beads: dynamic vs all contacts from the start, max |difference| = {diff:.3e}");
    assert!(diff <= 1e-12, "trajectories differ by {diff:e}");
    let floor_diff = a.floor_impulse.iter().zip(&b.floor_impulse).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    assert!(floor_diff <= 1e-12, "floor impulses differ by {floor_diff:e}");
}

#[test]
fn beads_momentum_changes_by_gravity_and_floor_impulse_only() {
    let model = ColumnOfBeads::default();
    let run = beads_run(&model);
    let n = model.beads;
    let momentum = |row: &[f64]| (0..n).map(|i| MASS * row[1 + n + i]).sum::<f64>();
    let mut worst = 0.0f64;
    let mut floor_steps = 0;
    for k in 0..run.trajectory.rows() - 1 {
        let h = run.trajectory.row(k + 1)[0] - run.trajectory.row(k)[0];
        let change = momentum(run.trajectory.row(k + 1)) - momentum(run.trajectory.row(k));
        let expected = -(n as f64) * MASS * GRAVITY * h + run.floor_impulse[k];
        worst = worst.max((change - expected).abs());
        if run.floor_impulse[k] > 0.0 {
            floor_steps += 1;
        }
    }
    println!(
        "column_of_beads: momentum balance max error {worst:.3e} per step ({floor_steps} steps with a floor impulse)"
    );
    assert!(floor_steps > 0);
    assert!(worst <= 1e-12, "momentum balance off by {worst:e}");
}

// ---------------------------------------------------------------------------------------------
// double_pendulum

/// Largest `|E(t_k) − E(0)|` of the free double pendulum over 1 s at step `h`, with its run.
fn free_pendulum_drift(h: f64) -> (f64, nonsmooth_examples::kernel::double_pendulum::PendulumRun) {
    let model = DoublePendulum { t_end: 1.0, h, ..DoublePendulum::default() }.without_contact();
    let run = model.simulate().expect("the free double pendulum runs");
    let e0 = run.trajectory.row(0)[9];
    let drift = run.trajectory.iter_rows().map(|r| (r[9] - e0).abs()).fold(0.0f64, f64::max);
    (drift, run)
}

/// Bound of the free pendulum's energy drift over 1 s at `h = 1e-3` (measured `3.18e-2`, 0.46%
/// of `|E|`): the nonlinear Moreau–Jean residual `M(q_{k+1})(v_{k+1} − v_k) − h(θ F_{k+1} +
/// (1 − θ) F_k)` takes `M` at the end of the step instead of the midpoint, an `O(h²)` local
/// error in the kinetic energy, so the drift is `O(h)` (≈ 32 h per second here, energy
/// growing), not the `O(h²)` of the linear trapezoidal rule.
const DRIFT_BOUND: f64 = 4e-2;

#[test]
fn free_double_pendulum_energy_drift_and_newton() {
    let (drift, run) = free_pendulum_drift(1e-3);
    let e0 = run.trajectory.row(0)[9];
    let impulses = run.trajectory.iter_rows().map(|r| r[12].abs() + r[13].abs()).fold(0.0f64, f64::max);
    println!(
        "double_pendulum (free, 1 s, h = 1e-3): energy {e0:.6}, max |E - E0| = {drift:.3e} (relative {:.3e}); \
         Newton: {} iterations over {} steps, max {}, largest residual {:.3e}",
        drift / e0.abs(),
        run.newton_total,
        run.steps,
        run.newton_max,
        run.newton_residual_max
    );
    assert_eq!(run.steps, 1000);
    assert!(impulses <= 0.0, "a contact acted on the free pendulum");
    assert_eq!(run.newton_failures, 0);
    assert!(run.newton_max <= 5, "Newton took {} iterations", run.newton_max);
    assert!(run.newton_residual_max <= 1e-10);
    assert!(drift <= DRIFT_BOUND, "energy drift {drift:e}");
    // The drift is a discretisation error (first order), not a model error: it halves with h.
    let (half, _) = free_pendulum_drift(5e-4);
    println!("double_pendulum (free, 1 s, h = 5e-4): max |E - E0| = {half:.3e}, ratio {:.3}", drift / half);
    assert!((1.8..2.2).contains(&(drift / half)), "drift ratio {} for h -> h/2", drift / half);
}

/// A seeded SplitMix64 generator of uniform numbers in `[a, b)`.
struct SplitMix(u64);

impl SplitMix {
    fn uniform(&mut self, a: f64, b: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        a + (b - a) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    }
}

#[test]
fn double_pendulum_jacobians_match_central_differences() {
    let model = DoublePendulum { m1: 1.3, m2: 0.7, l1: 1.1, l2: 0.6, ..DoublePendulum::default() };
    let mut ds = model.lagrangian_ds().expect("valid pendulum");
    let mut relations = [model.floor_relation().expect("relation"), model.wall_relation().expect("relation")];
    let mut rng = SplitMix(20_240_604);
    let eps = 1e-6;
    let mut worst = 0.0f64;
    for _ in 0..50 {
        let q = [rng.uniform(-3.0, 3.0), rng.uniform(-3.0, 3.0)];
        let v = [rng.uniform(-5.0, 5.0), rng.uniform(-5.0, 5.0)];
        let (mut dq, mut dv) = (Mat::zeros(2, 2), Mat::zeros(2, 2));
        assert!(ds.forces_jacobians(0.0, &q, &v, &mut dq, &mut dv).expect("finite"));
        for j in 0..2 {
            let (mut fp, mut fm) = ([0.0; 2], [0.0; 2]);
            // ∂F/∂q_j.
            let (mut qp, mut qm) = (q, q);
            qp[j] += eps;
            qm[j] -= eps;
            ds.forces(0.0, &qp, &v, &mut fp).expect("finite");
            ds.forces(0.0, &qm, &v, &mut fm).expect("finite");
            for i in 0..2 {
                worst = worst.max(((fp[i] - fm[i]) / (2.0 * eps) - dq[(i, j)]).abs());
            }
            // ∂F/∂v_j.
            let (mut vp, mut vm) = (v, v);
            vp[j] += eps;
            vm[j] -= eps;
            ds.forces(0.0, &q, &vp, &mut fp).expect("finite");
            ds.forces(0.0, &q, &vm, &mut fm).expect("finite");
            for i in 0..2 {
                worst = worst.max(((fp[i] - fm[i]) / (2.0 * eps) - dv[(i, j)]).abs());
            }
        }
        for relation in &mut relations {
            let mut g = Mat::zeros(1, 2);
            relation.jacobian(0.0, &q, &mut g).expect("finite");
            for j in 0..2 {
                let (mut qp, mut qm) = (q, q);
                qp[j] += eps;
                qm[j] -= eps;
                let (mut yp, mut ym) = ([0.0], [0.0]);
                relation.output(0.0, &qp, &mut yp).expect("finite");
                relation.output(0.0, &qm, &mut ym).expect("finite");
                worst = worst.max(((yp[0] - ym[0]) / (2.0 * eps) - g[(0, j)]).abs());
            }
        }
    }
    println!("double_pendulum: analytic vs central-difference Jacobians, max |difference| = {worst:.3e}");
    assert!(worst <= 1e-6, "Jacobians differ from finite differences by {worst:e}");
}

#[test]
fn double_pendulum_with_contacts_does_not_penetrate_nor_gain_energy_at_impacts() {
    let model = DoublePendulum::default();
    let run = model.simulate().expect("the double pendulum runs");
    let t = &run.trajectory;
    let floor_gap = t.iter_rows().map(|r| r[10]).fold(f64::INFINITY, f64::min);
    let wall_gap = t.iter_rows().map(|r| r[11]).fold(f64::INFINITY, f64::min);
    let mut impact_steps = 0;
    let mut impact_gain = f64::NEG_INFINITY;
    let mut smooth_change = 0.0f64;
    for k in 0..t.rows() - 1 {
        let (before, after) = (t.row(k), t.row(k + 1));
        let change = after[9] - before[9];
        let new_impulse = (after[12] > 0.0 && before[12] <= 0.0) || (after[13] > 0.0 && before[13] <= 0.0);
        if new_impulse {
            impact_steps += 1;
            impact_gain = impact_gain.max(change);
        } else if after[12] <= 0.0 && after[13] <= 0.0 {
            smooth_change = smooth_change.max(change.abs());
        }
    }
    println!(
        "double_pendulum: {} steps, {} Newton iterations (max {}), {} impacts; smallest gaps floor {floor_gap:.3e}, \
         wall {wall_gap:.3e}; largest energy change over an impact step {impact_gain:.3e}, over a free step {smooth_change:.3e}",
        run.steps, run.newton_total, run.newton_max, run.impacts
    );
    assert_eq!(impact_steps, run.impacts);
    assert!(run.impacts >= 2, "expected impacts on the floor and the wall");
    assert_eq!(run.newton_failures, 0);
    // Largest normal speed |G(q) q̇| of each contact, to scale the O(h) penetration bound as
    // for the beads: h |ẏ|_max = 2 γ h |ẏ|_max, the factor 2 for the drift of a curved constraint
    // while mass 2 slides on the floor (the velocity-level law keeps ẏ ≥ 0, not y ≥ 0).
    let (mut floor_speed, mut wall_speed) = (0.0f64, 0.0f64);
    for r in t.iter_rows() {
        let (g, w) = (model.floor_gradient(&r[1..3]), model.wall_gradient(&r[1..3]));
        floor_speed = floor_speed.max((g[0] * r[3] + g[1] * r[4]).abs());
        wall_speed = wall_speed.max((w[0] * r[3] + w[1] * r[4]).abs());
    }
    println!("double_pendulum: largest normal speeds floor {floor_speed:.3}, wall {wall_speed:.3}");
    assert!(floor_gap >= -model.h * floor_speed, "floor penetration {floor_gap:e}");
    assert!(wall_gap >= -model.h * wall_speed, "wall penetration {wall_gap:e}");
    assert!(impact_gain <= 0.0, "energy increased by {impact_gain:e} over an impact step");
}

/// Moreau–Jean, Schatzman–Paoli and Euler–Moreau in one simulation: each part's trajectory is,
/// bit for bit, the one it has alone, and each part does something (impacts, diode switching).
#[test]
fn mixed_integrators_give_each_part_its_trajectory_alone() {
    use nonsmooth_examples::kernel::mixed_integrators::{BEADS, simulate, simulate_alone};
    let together = simulate().expect("the mixed simulation runs");
    let alone = simulate_alone().expect("the parts run alone");
    for (name, mixed, single) in [
        ("beads", &together.beads, &alone.beads),
        ("ball", &together.ball, &alone.ball),
        ("diode bridge", &together.diode_bridge, &alone.diode_bridge),
    ] {
        assert_eq!(mixed.rows(), 10_001, "{name}");
        assert_eq!(mixed.rows(), single.rows(), "{name}");
        for i in 0..mixed.rows() {
            let (a, b) = (mixed.row(i), single.row(i));
            assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()), "{name}, row {i}: {a:?} against {b:?}");
        }
    }
    // The lowest bead bounced (its velocity changed sign), the ball hit its floor (a positive
    // position-level multiplier), the diodes switched (a positive multiplier).
    let rows =
        |t: &nonsmooth::kernel::simulation::Trajectory| (0..t.rows()).map(|i| t.row(i).to_vec()).collect::<Vec<_>>();
    assert!(rows(&together.beads).iter().any(|r| r[1 + BEADS] > 0.1));
    assert!(rows(&together.ball).iter().any(|r| r[3] > 0.0));
    assert!(rows(&together.diode_bridge).iter().any(|r| r[3..].iter().any(|&l| l > 0.0)));
}
