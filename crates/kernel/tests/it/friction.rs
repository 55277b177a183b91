//! Frictional contact one-step problems in time-stepping: a point mass sliding on the ground
//! under gravity decelerates at `μ g` and then sticks (Coulomb's law), in 2D and in 3D.
//!
//! With Moreau–Jean, a resting contact carries the normal impulse `λ_N = m g h` per step and,
//! while sliding, the tangential impulse `μ λ_N` opposes the slip: the tangential velocity drops
//! by exactly `μ g h` per step until it would change sign, then the contact sticks (`v_T = 0`).

use faer::Mat;
use nonsmooth_kernel::model::{LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth_kernel::numerics::fc::Fc3dMethod;
use nonsmooth_kernel::numerics::fc::nsgs2d::Nsgs2dOptions;
use nonsmooth_kernel::numerics::fc::{Fc2dMethod, Fc2dNsgsDenseOptions};
use nonsmooth_kernel::simulation::{
    MoreauJeanOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};

use crate::G;

const MU: f64 = 0.4;
const H: f64 = 1e-3;

/// A point mass (`dim` coordinates, the last vertical) resting on the ground with tangential
/// velocity `v_t` along the first coordinate; contact rows: normal (vertical), then tangents.
fn sliding_mass(dim: usize, v_t: f64, osns: OneStepNsProblem) -> TimeStepping {
    let q0 = vec![0.0; dim];
    let mut v0 = vec![0.0; dim];
    v0[0] = v_t;
    let mut f = vec![0.0; dim];
    f[dim - 1] = -G;
    let ds = LagrangianLinearTids::new(q0, v0, Mat::identity(dim, dim))
        .and_then(|d| d.with_external_force(f))
        .expect("valid mass");
    let mut nsds = Nsds::new();
    let ds = nsds.add_ds(ds);
    // Row 0: the normal gap (vertical coordinate); rows 1..: tangential coordinates.
    let h = Mat::from_fn(dim, dim, |i, j| if (i == 0 && j == dim - 1) || (i > 0 && j == i - 1) { 1.0 } else { 0.0 });
    let law = NonsmoothLaw::newton_impact_friction(0.0, 0.0, MU, dim).expect("valid law");
    nsds.link(LagrangianLinearTir::new(h).expect("finite H"), law, &[ds]).expect("one system");
    TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5).expect("valid theta"),
        osns,
        TimeDiscretisation::new(0.0, H, 1.0).expect("valid grid"),
        TimeSteppingOptions::default(),
    )
    .expect("valid simulation")
}

/// Steps until the mass sticks and checks the deceleration `μ g h` per step, the normal
/// impulse `g h`, and that the slip stops where Coulomb's law says.
fn check_slide_then_stick(mut sim: TimeStepping, tolerance: f64) {
    let v0 = 0.5;
    let stop_time = v0 / (MU * G);
    let ds = sim.nsds().ds_ids().next().expect("one system");
    let contact = sim.nsds().interaction_ids().next().expect("one contact");
    let mut previous = v0;
    while sim.has_next_step() {
        let report = sim.step().expect("the step converges");
        assert_eq!(report.active, 1, "the resting contact stays active");
        let v_t = sim.nsds().ds(ds).expect("known").state().v()[0];
        let lambda = sim.nsds().interaction(contact).expect("known").lambda(1).to_vec();
        assert!((lambda[0] - G * H).abs() <= tolerance, "normal impulse {} at t = {}", lambda[0], sim.time());
        if sim.time() < stop_time - 2.0 * H {
            // Sliding: v drops by μ g h, the friction impulse is on the cone's edge.
            assert!((previous - v_t - MU * G * H).abs() <= tolerance, "deceleration at t = {}", sim.time());
            assert!((lambda[1] + MU * lambda[0]).abs() <= tolerance, "sliding friction {lambda:?}");
        } else if sim.time() > stop_time + 2.0 * H {
            // Stuck: no slip, no friction needed.
            assert!(v_t.abs() <= tolerance, "stuck velocity {v_t} at t = {}", sim.time());
            assert!(lambda[1].abs() <= tolerance, "stuck friction {lambda:?}");
        }
        previous = v_t;
    }
}

#[test]
fn fc2d_siconos_nsgs_slides_then_sticks() {
    let osns = OneStepNsProblem::friction_contact_2d(Fc2dMethod::NsgsDense(Fc2dNsgsDenseOptions::default()))
        .expect("valid options");
    check_slide_then_stick(sliding_mass(2, 0.5, osns), 1e-12);
}

#[test]
fn fc2d_nsgs_slides_then_sticks() {
    let osns =
        OneStepNsProblem::friction_contact_2d(Fc2dMethod::Nsgs(Nsgs2dOptions::default())).expect("valid options");
    check_slide_then_stick(sliding_mass(2, 0.5, osns), 1e-12);
}

#[test]
fn fc3d_nsgs_slides_then_sticks() {
    let method = Fc3dMethod::from_name("nsgs", Some(1e-12), Some(1000)).expect("known name");
    let osns = OneStepNsProblem::friction_contact_3d(method).expect("valid options");
    check_slide_then_stick(sliding_mass(3, 0.5, osns), 1e-10);
}

#[test]
fn fc3d_nsn_ac_slides_then_sticks() {
    let method = Fc3dMethod::from_name("nsn-ac", Some(1e-12), Some(100)).expect("known name");
    let osns = OneStepNsProblem::friction_contact_3d(method).expect("valid options");
    check_slide_then_stick(sliding_mass(3, 0.5, osns), 1e-10);
}
