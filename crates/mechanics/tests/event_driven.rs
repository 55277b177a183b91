//! Newton–Euler bodies in the kernel's event-driven scheme: a spinning ball bouncing on a
//! frictionless plane (Newton impact law on the normal row of a contact relation). The impacts
//! are at the ballistic times, `v_z⁺ = −e v_z⁻`, the spin `Ω` is untouched by the normal
//! impulses through the centre, and the quaternion follows `p(t) = expq(t Ω)` and stays unit.

use nonsmooth_kernel::model::{NonsmoothLaw, Nsds};
use nonsmooth_kernel::simulation::{EventDriven, EventDrivenOptions, LsodarSmooth, TimeDiscretisation};
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::body::NewtonEulerDs;
use nonsmooth_mechanics::contact::{ContactDimension, ContactRelation};
use nonsmooth_mechanics::geometry::ContactPoint;

const G: f64 = 9.81;

#[test]
fn a_spinning_newton_euler_ball_bounces_at_the_ballistic_times() -> Result<(), MechanicsError> {
    let (r, m, e, h0) = (0.1, 1.0, 0.8, 1.0);
    let i = 0.4 * m * r * r;
    let omega = [0.0, 0.0, 3.0];
    let q0 = [0.0, 0.0, r + h0, 1.0, 0.0, 0.0, 0.0];
    let ball = NewtonEulerDs::new(
        q0,
        [0.0, 0.0, 0.0, omega[0], omega[1], omega[2]],
        m,
        [[i, 0.0, 0.0], [0.0, i, 0.0], [0.0, 0.0, i]],
    )?
    .with_external_force([0.0, 0.0, -m * G])?;
    let point = ContactPoint { point_a: [0.0; 3], point_b: [0.0, 0.0, h0], normal: [0.0, 0.0, 1.0], distance: h0 };
    let contact = ContactRelation::new(ContactDimension::Normal, &point, &q0, None)?;
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(ball);
    nsds.link(contact, NonsmoothLaw::newton_impact(e)?, &[b])?;
    let mut sim = EventDriven::new(
        nsds,
        TimeDiscretisation::new(0.0, 0.05, 2.0)?,
        LsodarSmooth::siconos(),
        EventDrivenOptions::default(),
    )?;
    // Ballistic impact times: t₁ = √(2h/g), then flights of 2 e^k v₁ / g.
    let v1 = (2.0 * G * h0).sqrt();
    let mut expected = vec![v1 / G];
    let mut v = v1;
    while *expected.last().expect("one") < 2.0 {
        v *= e;
        let next = expected.last().expect("one") + 2.0 * v / G;
        expected.push(next);
    }
    expected.pop();
    let (mut impacts, mut worst_q) = (Vec::new(), 0.0f64);
    while sim.has_next_event() {
        let Some(report) = sim.step()? else { break };
        let (q, vel) = sim.with_nsds(|n| n.ds(b).map(|d| (d.state().q().to_vec(), d.state().v().to_vec())))?;
        if report.impact {
            let (_, pre) = sim.pre_impact_state(b)?;
            assert!((vel[2] + e * pre[2]).abs() <= 1e-10 * pre[2].abs(), "v⁺ = {} for v⁻ = {}", vel[2], pre[2]);
            impacts.push(report.time);
        }
        // Spin untouched, quaternion expq(t Ω) = (cos(tω/2), 0, 0, sin(tω/2)) and unit.
        assert!((vel[5] - omega[2]).abs() <= 1e-12 && vel[3].abs() + vel[4].abs() <= 1e-12);
        let half = 0.5 * omega[2] * report.time;
        worst_q = worst_q.max((q[3] - half.cos()).abs()).max((q[6] - half.sin()).abs());
        let n = (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]).sqrt();
        assert!((n - 1.0).abs() <= 1e-15, "|p| = {n}");
    }
    println!("impacts {impacts:?}\nexpected {expected:?}\nworst quaternion deviation {worst_q:.1e}");
    assert_eq!(impacts.len(), expected.len());
    for (t, ta) in impacts.iter().zip(&expected) {
        assert!((t - ta).abs() <= 1e-9, "{t} vs {ta}");
    }
    assert!(worst_q <= 1e-9, "{worst_q:e}");
    assert!(sim.stopped().is_none());
    Ok(())
}
