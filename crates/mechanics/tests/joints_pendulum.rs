//! A Newton–Euler pendulum on a pivot to the world, stepped by the kernel (Moreau–Jean,
//! `θ = ½`, `h = 1e-3`, the MLCP one-step problem with the pivot's five equality rows): its
//! period against the physical pendulum's, the drift of the joint with and without the direct
//! projection, and a pivot stop with a Newton impact law (equality and complementarity rows
//! in one MLCP).

use std::f64::consts::PI;

use nonsmooth_kernel::model::{DsId, NonsmoothLaw, Nsds};
use nonsmooth_kernel::numerics::mlcp::{EnumOptions, MlcpMethod};
use nonsmooth_kernel::simulation::{
    DirectProjectionOptions, MoreauJeanDirectProjectionOsi, MoreauJeanOptions, MoreauJeanOsi, OneStepIntegrator,
    OneStepNsProblem, ProblemLevel, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::body::NewtonEulerDs;
use nonsmooth_mechanics::joints::{JointCoordinate, JointStop, PivotJoint, Reference};
use nonsmooth_mechanics::lie::Quaternion;
use nonsmooth_mechanics::relation::{NewtonEulerR, NewtonEulerRelation};

const G: f64 = 9.81;
const MASS: f64 = 1.0;
/// Distance from the pivot to the centre of mass.
const L: f64 = 1.0;
/// Inertia about the pivot axis (body `y`), at the centre.
const I_YY: f64 = 0.1;
const H: f64 = 1e-3;

/// The pendulum released at rest at angle `theta0` about `y` (the centre at
/// `(−L sin θ₀, 0, −L cos θ₀)`), its pivot at the origin, and the simulation.
fn pendulum(
    theta0: f64,
    projection: bool,
    stop: Option<(f64, f64)>,
) -> Result<(TimeStepping, DsId, PivotJoint), MechanicsError> {
    let p = Quaternion::from_axis_angle([0.0, 1.0, 0.0], theta0)?;
    let x = p.rotate([0.0, 0.0, -L]);
    let q0 = [x[0], x[1], x[2], p.w, p.x, p.y, p.z];
    let body = NewtonEulerDs::new(q0, [0.0; 6], MASS, [[0.1, 0.0, 0.0], [0.0, I_YY, 0.0], [0.0, 0.0, 0.01]])?
        .with_external_force([0.0, 0.0, -MASS * G])?;
    let mut nsds = Nsds::new();
    let ds = nsds.add_ds(body);
    let pivot = PivotJoint::new([0.0; 3], [0.0, 1.0, 0.0], Reference::Inertial, &q0, None)?;
    nsds.link(NewtonEulerR::new(pivot.clone())?, NonsmoothLaw::equality(5)?, &[ds])?;
    if let Some((limit, restitution)) = stop {
        // The pivot's coordinate is the angle of the world relative to the body, `θ₀ − θ`:
        // the stop `θ ≤ limit` is `θ₀ − θ ≥ θ₀ − limit`.
        let stop = JointStop::lower(pivot.clone(), theta0 - limit)?;
        nsds.link(NewtonEulerR::new(stop)?, NonsmoothLaw::newton_impact(restitution)?, &[ds])?;
    }
    let mj = MoreauJeanOptions::default();
    let osi: Box<dyn OneStepIntegrator> = if projection {
        Box::new(MoreauJeanDirectProjectionOsi::new(
            mj,
            DirectProjectionOptions::default().with_bilateral_tolerance(1e-10),
        )?)
    } else {
        Box::new(MoreauJeanOsi::new(mj)?)
    };
    let enumeration = MlcpMethod::Enum(EnumOptions::default().with_tolerance(1e-12));
    let sim = TimeStepping::builder(nsds, TimeDiscretisation::new(0.0, H, 100.0)?)
        .options(TimeSteppingOptions::default().with_newton_tolerance(1e-10))
        .boxed_integrator(osi, vec![ds])
        .problem(ProblemLevel::Velocity, OneStepNsProblem::mlcp(enumeration)?)
        .build()?;
    Ok((sim, ds, pivot))
}

/// What a run records at every step.
struct Run {
    /// The angle `θ` about `y` (`θ₀` minus the pivot's coordinate).
    angles: Vec<f64>,
    /// `Ω_y` (body frame, the pivot axis).
    rates: Vec<f64>,
    /// `max |h(q)|` over the pivot's rows.
    drift: Vec<f64>,
    /// Total energy `½ m |v|² + ½ ΩᵀIΩ + m g z`.
    energy: Vec<f64>,
}

fn run(theta0: f64, projection: bool, stop: Option<(f64, f64)>, steps: usize) -> Result<Run, MechanicsError> {
    let (mut sim, ds, mut pivot) = pendulum(theta0, projection, stop)?;
    let mut out = Run { angles: vec![], rates: vec![], drift: vec![], energy: vec![] };
    let mut y = [0.0; 5];
    for _ in 0..steps {
        let report = sim.step()?;
        assert!(report.newton_converged && report.solver().is_none_or(|r| r.is_converged()), "{report:?}");
        if let Some(p) = &report.projection {
            assert!(p.converged, "projection at step {}: {p:?}", report.step);
        }
        let state = sim.nsds().ds(ds)?.state();
        let (q, v) = (state.q(), state.v());
        pivot.output(q, &mut y)?;
        out.drift.push(y.iter().fold(0.0f64, |a, x| a.max(x.abs())));
        out.angles.push(theta0 - pivot.coordinate(q));
        out.rates.push(v[4]);
        let kinetic = 0.5 * MASS * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
            + 0.5 * (0.1 * v[3] * v[3] + I_YY * v[4] * v[4] + 0.01 * v[5] * v[5]);
        out.energy.push(kinetic + MASS * G * q[2]);
    }
    Ok(out)
}

/// Times of the upward zero crossings of `angles` (linear interpolation), step `k` at
/// `t = (k + 1) h`.
fn upward_crossings(angles: &[f64]) -> Vec<f64> {
    angles
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
        .map(|(k, w)| H * ((k + 1) as f64 + w[0] / (w[0] - w[1])))
        .collect()
}

/// The physical pendulum `(I_yy + m L²) θ̈ = −m g L sin θ`: the period of the swing of
/// amplitude `θ₀` is `T₀ (1 + θ₀²/16 + 11 θ₀⁴/3072 + …)`, `T₀ = 2π √((I_yy + m L²)/(m g L))`
/// (e.g. Landau & Lifshitz, Mechanics, §11, problem 1).
#[test]
fn the_pendulum_swings_with_the_physical_period() -> Result<(), MechanicsError> {
    let theta0: f64 = 0.1;
    let t0 = 2.0 * PI * ((I_YY + MASS * L * L) / (MASS * G * L)).sqrt();
    let expected = t0 * (1.0 + theta0 * theta0 / 16.0 + 11.0 * theta0.powi(4) / 3072.0);
    let steps = (5.2 * t0 / H) as usize;
    let mj = run(theta0, false, None, steps)?;
    let crossings = upward_crossings(&mj.angles);
    assert!(crossings.len() >= 5, "{crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let error = (period - expected).abs() / expected;
    let amplitude = mj.angles.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let drift = mj.drift.iter().fold(0.0f64, |a, x| a.max(*x));
    let energy = mj.energy.iter().fold(0.0f64, |a, e| a.max((e - mj.energy[0]).abs()));
    println!(
        "pendulum, Moreau–Jean: period {period:.6} s vs {expected:.6} s (relative error {error:.2e}), \
         amplitude {amplitude:.6}, max joint drift {drift:.2e}, max energy change {energy:.2e} J over {steps} steps"
    );
    assert!(error <= 1e-4, "period {period} vs {expected}");
    assert!((amplitude - theta0).abs() <= 1e-3, "amplitude {amplitude}");
    assert!(drift <= 1e-5, "drift {drift:e}");
    // Moreau–Jean imposes `H v = 0` at the predicted position, not at `q_{k+1}`: the swing
    // loses energy slowly (of order h per unit time), it never gains any.
    let swing = MASS * G * L * (1.0 - theta0.cos());
    assert!(energy <= 0.1 * swing, "energy change {energy:e} J of a swing of {swing:e} J");
    assert!(mj.energy.iter().all(|e| *e <= mj.energy[0] + 1e-12));

    let projected = run(theta0, true, None, steps)?;
    let drift_projected = projected.drift.iter().fold(0.0f64, |a, x| a.max(*x));
    let crossings = upward_crossings(&projected.angles);
    let period_projected = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    println!("pendulum, direct projection: period {period_projected:.6} s, max joint drift {drift_projected:.2e}");
    assert!(drift_projected <= 1e-9, "drift with projection {drift_projected:e}");
    assert!((period_projected - expected).abs() / expected <= 1e-4);
    Ok(())
}

/// A pivot stop at 0.05 rad with `e = 0.5`: the swing from −0.1 rad is stopped there and
/// reverses with half its angular velocity, the joint rows holding through the impact.
#[test]
fn a_pivot_stop_reverses_the_swing() -> Result<(), MechanicsError> {
    let (limit, restitution) = (0.05, 0.5);
    let steps = 2_000;
    let free = run(-0.1, false, None, steps)?;
    let stopped = run(-0.1, false, Some((limit, restitution)), steps)?;
    // The impact step: the first where the swing turns back.
    let impact = stopped.rates.windows(2).position(|w| w[0] > 0.0 && w[1] < 0.0).expect("the stop is reached") + 1;
    let max_angle = stopped.angles.iter().fold(f64::NEG_INFINITY, |a, x| a.max(*x));
    let (before, after) = (stopped.rates[impact - 1], stopped.rates[impact]);
    let drift = stopped.drift.iter().fold(0.0f64, |a, x| a.max(*x));
    println!(
        "pivot stop at {limit}: impact at step {impact}, rate {before:.5} → {after:.5} rad/s \
         (ratio {:.4}), max angle {max_angle:.6}, max joint drift {drift:.2e}",
        after / before
    );
    // Up to the impact the two runs agree, then the stopped one turns back.
    assert!((0..impact - 1).all(|k| (free.angles[k] - stopped.angles[k]).abs() <= 1e-12));
    assert!(before > 0.1 && (stopped.angles[impact] - limit).abs() <= 1e-3, "{before} at {}", stopped.angles[impact]);
    assert!((after / before + restitution).abs() <= 1e-6, "{before} → {after}");
    assert!(max_angle <= limit + 1e-4, "max angle {max_angle}");
    assert!(drift <= 1e-5, "drift {drift:e}");
    Ok(())
}
