//! A Newton–Euler body under the global Moreau–Jean scheme (`MoreauJeanGlobalOsi` with
//! `GlobalFrictionContact`, Siconos' `MoreauJeanGOSI`): a spinning sphere thrown onto a plane
//! bounces, slides, rolls and comes to rest on it, step for step as with Moreau–Jean and the
//! local frictional-contact problem (the same problem with the velocities eliminated).

use nonsmooth_kernel::model::{DsId, InteractionId, NonsmoothLaw, Nsds};
use nonsmooth_kernel::numerics::fc::Fc3dMethod;
use nonsmooth_kernel::numerics::fc::nsgs::NsgsOptions;
use nonsmooth_kernel::numerics::gfc::GlobalFcOptions;
use nonsmooth_kernel::simulation::{
    GlobalFrictionContact, MoreauJeanGlobalOsi, MoreauJeanOsi, OneStepIntegrator, OneStepNsProblem, OneStepProblem,
    TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::body::NewtonEulerDs;
use nonsmooth_mechanics::contact::{ContactDimension, ContactRelation};
use nonsmooth_mechanics::geometry::ContactPoint;

const RADIUS: f64 = 0.1;
const TOLERANCE: f64 = 1e-10;

/// A sphere of mass 1 and radius 0.1 at height 0.2, thrown along `x` with a spin about `y`,
/// above the plane `z = 0`: one frictional contact at the bottom point (`e_n = 0.5`, `μ = 0.3`).
fn sphere_on_plane() -> Result<(Nsds, DsId, InteractionId), MechanicsError> {
    let inertia = 0.4 * RADIUS * RADIUS;
    let q0 = [0.0, 0.0, 0.2, 1.0, 0.0, 0.0, 0.0];
    let body = NewtonEulerDs::new(
        q0,
        [1.0, 0.0, 0.0, 0.0, -5.0, 0.0],
        1.0,
        [[inertia, 0.0, 0.0], [0.0, inertia, 0.0], [0.0, 0.0, inertia]],
    )?
    .with_external_force([0.0, 0.0, -9.81])?;
    let mut nsds = Nsds::new();
    let ds = nsds.add_ds(body);
    let contact =
        ContactPoint { point_a: [0.0; 3], point_b: [0.0, 0.0, 0.2 - RADIUS], normal: [0.0, 0.0, 1.0], distance: 0.1 };
    let relation = ContactRelation::new(ContactDimension::Friction3d, &contact, &q0, None)?;
    let id = nsds.link(relation, NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 3)?, &[ds])?;
    Ok((nsds, ds, id))
}

/// Runs the sphere under `osi` and `osns` for 1 s (h = 1 ms): the rows `q, v, λ(1)` after each
/// step and the number of steps with a contact impulse.
fn run(osi: impl OneStepIntegrator, osns: impl OneStepProblem) -> Result<(Vec<Vec<f64>>, usize), MechanicsError> {
    let (nsds, ds, contact) = sphere_on_plane()?;
    let grid = TimeDiscretisation::new(0.0, 1e-3, 1.0)?;
    let mut sim = TimeStepping::new(nsds, osi, osns, grid, TimeSteppingOptions::default())?;
    let (mut rows, mut impulses) = (Vec::new(), 0);
    while sim.has_next_step() {
        let report = sim.step()?;
        assert!(report.newton_converged && report.solver().is_none_or(|r| r.is_converged()), "{report:?}");
        let state = sim.nsds().ds(ds)?.state();
        let lambda = sim.nsds().interaction(contact)?.lambda(1);
        impulses += usize::from(lambda[0] != 0.0);
        rows.push([state.q(), state.v(), lambda].concat());
    }
    Ok((rows, impulses))
}

#[test]
fn a_sphere_on_a_plane_runs_under_the_global_scheme() -> Result<(), MechanicsError> {
    let global = GlobalFrictionContact::condensed(3, GlobalFcOptions::default().with_tolerance(TOLERANCE))?;
    let (ours, impulses) = run(MoreauJeanGlobalOsi::with_theta(0.5)?, global)?;
    let nsgs = NsgsOptions::default().with_tolerance(TOLERANCE).with_max_iterations(10_000);
    let local = OneStepNsProblem::friction_contact_3d(Fc3dMethod::Nsgs(nsgs))?;
    let (reference, local_impulses) = run(MoreauJeanOsi::with_theta(0.5)?, local)?;
    let difference =
        ours.iter().zip(&reference).flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs())).fold(0.0, f64::max);
    println!("sphere on a plane: max |global − local| = {difference:e}, {impulses} steps with an impulse");
    assert_eq!(impulses, local_impulses);
    assert!(difference <= 1e-12, "max |difference| = {difference:e}");
    // It bounces, then rests on the plane: centre at height R, no vertical velocity, rolling
    // without slip (v_x = R ω_y) once friction has done its work.
    assert!(impulses > 500, "{impulses}");
    let last = ours.last().expect("steps");
    let (z, vz, vx, wy) = (last[2], last[9], last[7], last[11]);
    assert!((z - RADIUS).abs() <= 1e-4, "z = {z}");
    assert!(vz.abs() <= 1e-6, "v_z = {vz}");
    assert!((vx - RADIUS * wy).abs() <= 1e-6, "v_x = {vx}, R ω_y = {}", RADIUS * wy);
    // The quaternion stays a unit one.
    let norm = last[3..7].iter().map(|x| x * x).sum::<f64>().sqrt();
    assert!((norm - 1.0).abs() <= 1e-12, "|quaternion| = {norm}");
    Ok(())
}
