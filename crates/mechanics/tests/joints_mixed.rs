//! A Newton–Euler pendulum on a pivot whose end strikes a frictional floor, stepped by the
//! kernel's mixed mechanical one-step problem (Siconos' `GenericMechanical`: the pivot's five
//! equality rows and the contact's 3D Coulomb block in one problem), Moreau–Jean `θ = ½`,
//! `h = 1e-3`: the energy never grows, the end bounces off the floor without going through it,
//! and the joint's drift stays small. The end strikes the floor at 33.6° from the vertical, where
//! the friction (μ = 0.3) cannot wedge it.

use std::f64::consts::FRAC_PI_2;

use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{NonsmoothLaw, Nsds};
use nonsmooth_kernel::numerics::gmp::GmpNsgsOptions;
use nonsmooth_kernel::simulation::{
    MoreauJeanOsi, OneStepNsProblem, ProblemLevel, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::body::NewtonEulerDs;
use nonsmooth_mechanics::contact::contact_frame;
use nonsmooth_mechanics::joints::{PivotJoint, Reference};
use nonsmooth_mechanics::lie::{Quaternion, Vec3, cross, dot};
use nonsmooth_mechanics::relation::{NewtonEulerR, NewtonEulerRelation};

const G: f64 = 9.81;
const MASS: f64 = 1.0;
/// Distance from the pivot to the centre of mass.
const L: f64 = 1.0;
const INERTIA: [[f64; 3]; 3] = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.01]];
const H: f64 = 1e-3;
/// The end of the pendulum in its body frame, and the floor's height.
const END: Vec3 = [0.0, 0.0, -0.2];
const FLOOR: f64 = -1.0;

/// A material point `point` of a body (body frame) against the floor `z ≥ floor`, with its
/// contact frame `[n; t₁; t₂]` for `n = e_z`: `y_N = z_P − floor` (the tangential outputs are
/// zero), and `H` row `e` is `[eᵀ, (point × Rᵀe)ᵀ]` (the velocity of the point
/// `v + R (Ω × point)` along `e`; Siconos' `NewtonEuler3DR` on a body-fixed point).
struct PointOnFloor {
    point: Vec3,
    floor: f64,
}

impl NewtonEulerRelation for PointOnFloor {
    fn size(&self) -> usize {
        3
    }

    fn bodies(&self) -> usize {
        1
    }

    fn output(&mut self, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        let p = Quaternion::new(q[3], q[4], q[5], q[6]).rotate(self.point);
        y[0] = q[2] + p[2] - self.floor;
        y[1] = 0.0;
        y[2] = 0.0;
        Ok(())
    }

    fn jacobian(&mut self, q: &[f64], rows: &mut [f64]) -> Result<(), KernelError> {
        let frame = contact_frame([0.0, 0.0, 1.0]).expect("a unit normal");
        let back = Quaternion::new(q[3], q[4], q[5], q[6]).conjugate();
        for (i, e) in frame.iter().enumerate() {
            let local = back.rotate(*e);
            let angular = cross(self.point, local);
            rows[i * 6..i * 6 + 3].copy_from_slice(e);
            rows[i * 6 + 3..i * 6 + 6].copy_from_slice(&angular);
        }
        Ok(())
    }
}

#[test]
fn a_pendulum_strikes_a_frictional_floor_through_the_mixed_problem() -> Result<(), MechanicsError> {
    let p = Quaternion::from_axis_angle([0.0, 1.0, 0.0], FRAC_PI_2)?;
    let x = p.rotate([0.0, 0.0, -L]);
    let q0 = [x[0], x[1], x[2], p.w, p.x, p.y, p.z];
    let body = NewtonEulerDs::new(q0, [0.0; 6], MASS, INERTIA)?.with_external_force([0.0, 0.0, -MASS * G])?;
    let mut nsds = Nsds::new();
    let ds = nsds.add_ds(body);
    let mut pivot = PivotJoint::new([0.0; 3], [0.0, 1.0, 0.0], Reference::Inertial, &q0, None)?;
    nsds.link(NewtonEulerR::new(pivot.clone())?, NonsmoothLaw::equality(5)?, &[ds])?;
    nsds.link(
        NewtonEulerR::new(PointOnFloor { point: END, floor: FLOOR })?,
        NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 3)?,
        &[ds],
    )?;
    // The pivot and the contact share the pendulum's one free rotation: at rest the reactions
    // are not unique and the block Gauss–Seidel stalls near 1e-6 (measured 7.6e-7); at the
    // impacts it converges to 1e-8 and beyond.
    let mut sim = TimeStepping::builder(nsds, TimeDiscretisation::new(0.0, H, 3.0)?)
        .options(TimeSteppingOptions::default().with_newton_tolerance(1e-10))
        .integrator(MoreauJeanOsi::with_theta(0.5)?, vec![ds])
        .problem(ProblemLevel::Velocity, OneStepNsProblem::mixed(GmpNsgsOptions::default().with_tolerance(1e-6))?)
        .build()?;
    let energy = |q: &[f64], v: &[f64]| {
        0.5 * MASS * dot([v[0], v[1], v[2]], [v[0], v[1], v[2]])
            + 0.5 * (INERTIA[0][0] * v[3] * v[3] + INERTIA[1][1] * v[4] * v[4] + INERTIA[2][2] * v[5] * v[5])
            + MASS * G * q[2]
    };
    let e0 = energy(&q0, &[0.0; 6]);
    let (mut previous, mut drift, mut lowest, mut contacts, mut growth) = (e0, 0.0f64, f64::INFINITY, 0, 0.0f64);
    let mut highest = f64::NEG_INFINITY;
    let mut y = [0.0; 5];
    let mut end = PointOnFloor { point: END, floor: FLOOR };
    let mut gap = [0.0; 3];
    while sim.has_next_step() {
        let report = sim.step()?;
        assert!(report.converged(), "{report:?}");
        contacts += usize::from(report.active == 2);
        let state = sim.nsds().ds(ds)?.state();
        let (q, v) = (state.q(), state.v());
        pivot.output(q, &mut y)?;
        drift = drift.max(y.iter().fold(0.0f64, |a, x| a.max(x.abs())));
        end.output(q, &mut gap)?;
        lowest = lowest.min(gap[0]);
        let e = energy(q, v);
        growth = growth.max(e - previous);
        highest = highest.max(e);
        previous = e;
    }
    let summary = sim.run_summary();
    println!(
        "pendulum on a frictional floor (mixed problem): {contacts} steps in contact, energy {e0:.6} → \
         {previous:.6} J (highest {highest:.2e}), largest growth in a step {growth:.2e} J, lowest gap {lowest:.2e} m, max joint drift \
         {drift:.2e}, {} unconverged steps",
        summary.unconverged
    );
    assert!(contacts > 10, "the end reaches the floor");
    assert!(previous < e0 - 0.1, "the impacts and the friction dissipate: {e0} → {previous}");
    // The energy never exceeds its initial value; a step at rest on the floor may gain a little
    // within the solver's tolerance (1e-6 on the problem's error).
    assert!(highest <= e0 + 1e-12, "the energy never grows above its start: {highest} > {e0}");
    assert!(growth <= 1e-6, "the energy grows by at most the solver's tolerance in a step: {growth:e}");
    assert!(lowest >= -1e-3, "the end stays above the floor: {lowest:e}");
    assert!(drift <= 1e-3, "drift {drift:e}");
    assert!(summary.all_converged());
    Ok(())
}
