//! Event-driven simulation with Coulomb friction: a point mass thrown onto a plane, the
//! frictional impact (FC2D or FC3D at velocity level, plastic in the normal direction), the
//! sliding phase (the acceleration problem with `λ_T = −μ λ_N d`) and the stop, located by the
//! friction root function of the sliding velocity; the models the scheme refuses.

use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth_kernel::simulation::{
    EventDriven, EventDrivenOptions, EventKind, FrictionMode, LsodarSmooth, OdeOptions, RestartingOde,
    SmoothIntegrator, TimeDiscretisation,
};

const G: f64 = 9.81;
const MU: f64 = 0.2;

/// A point mass of `dim` coordinates (the last one is the height) at height `height` with
/// horizontal velocity `vt`, on the plane `height = 0` with a `dim`-D friction law (`μ = MU`,
/// no restitution), integrated by `integrator`.
fn thrown(
    dim: usize,
    height: f64,
    vt: &[f64],
    integrator: impl SmoothIntegrator + 'static,
) -> Result<EventDriven, KernelError> {
    let m = 2.0;
    let mut q0 = vec![0.0; dim];
    q0[dim - 1] = height;
    let mut v0 = vt.to_vec();
    v0.push(0.0);
    let mut gravity = vec![0.0; dim];
    gravity[dim - 1] = -m * G;
    let mass = faer::Mat::from_fn(dim, dim, |i, j| if i == j { m } else { 0.0 });
    let body = LagrangianLinearTids::new(q0, v0, mass)?.with_external_force(gravity)?;
    // Rows: the normal (height), then the tangents.
    let h =
        faer::Mat::from_fn(dim, dim, |i, j| if (i == 0 && j == dim - 1) || (i > 0 && j == i - 1) { 1.0 } else { 0.0 });
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(body);
    nsds.link(LagrangianLinearTir::new(h)?, NonsmoothLaw::newton_impact_friction(0.0, 0.0, MU, dim)?, &[b])?;
    EventDriven::new(nsds, TimeDiscretisation::new(0.0, 0.05, 2.0)?, integrator, EventDrivenOptions::default())
}

/// Runs to the end (where the contact must be sticking); returns the nonsmooth events
/// `(t, impact)`, the velocity after the impact and the final `(q, v)`.
#[allow(clippy::type_complexity)]
fn run(mut sim: EventDriven) -> Result<(Vec<(f64, bool)>, Vec<f64>, Vec<f64>, Vec<f64>), KernelError> {
    let mut events = Vec::new();
    let mut post_impact = Vec::new();
    while sim.has_next_event() {
        let Some(r) = sim.step()? else { break };
        if r.kind == EventKind::Nonsmooth {
            events.push((r.time, r.impact));
        }
        if r.impact {
            post_impact = sim
                .with_nsds(|n| n.ds_ids().map(|d| n.ds(d).map(|s| s.state().v().to_vec())).next())
                .expect("one system")?;
        }
    }
    let contact = sim.with_nsds(|n| n.interaction_ids().next()).expect("one contact");
    assert_eq!(sim.friction_mode(contact)?, FrictionMode::Sticking);
    let (q, v) = sim.with_nsds(|n| {
        let d = n.ds_ids().next().expect("one system");
        n.ds(d).map(|s| (s.state().q().to_vec(), s.state().v().to_vec()))
    })?;
    Ok((events, post_impact, q, v))
}

fn ode() -> RestartingOde {
    RestartingOde::new(OdeOptions::default().with_rtol(1e-12).with_atol(1e-12)).expect("valid options")
}

/// The analytic run from height `d` with horizontal speed `s`: impact at `t₁ = √(2d/g)`,
/// `|u_N⁻| = √(2 g d)`; sliding through the impact when `s > μ |u_N⁻|`
/// (`s⁺ = s − μ |u_N⁻|`), then decelerating at `μ g` to a stop at `t₁ + s⁺/(μ g)`.
fn analytic(d: f64, s: f64) -> (f64, f64, f64, f64) {
    let t1 = (2.0 * d / G).sqrt();
    let un = (2.0 * G * d).sqrt();
    let s_plus = (s - MU * un).max(0.0);
    let t2 = t1 + s_plus / (MU * G);
    // Distance: during the fall s t₁, then s⁺²/(2 μ g).
    (t1, s_plus, t2, s * t1 + s_plus * s_plus / (2.0 * MU * G))
}

#[test]
fn a_2d_mass_slides_through_its_frictional_impact_then_stops() -> Result<(), KernelError> {
    for integrator in [false, true] {
        let sim =
            if integrator { thrown(2, 1.0, &[3.0], LsodarSmooth::siconos())? } else { thrown(2, 1.0, &[3.0], ode())? };
        let (events, post, q, v) = run(sim)?;
        let (t1, s_plus, t2, x) = analytic(1.0, 3.0);
        println!("events {events:?}; analytic impact {t1}, stop {t2}; x {} (analytic {x})", q[0]);
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(events[0].1 && !events[1].1);
        assert!((events[0].0 - t1).abs() <= 1e-10 * t1);
        assert!((post[0] - s_plus).abs() <= 1e-10 && post[1].abs() <= 1e-12, "{post:?}");
        assert!((events[1].0 - t2).abs() <= 1e-8 * t2, "stop at {}, analytic {t2}", events[1].0);
        assert!((q[0] - x).abs() <= 1e-8 && q[1].abs() <= 1e-12 && v.iter().all(|x| x.abs() <= 1e-12), "{q:?} {v:?}");
    }
    Ok(())
}

/// Sticking impact: `s ≤ μ |u_N⁻|`, the tangential velocity is lost at the impact and the mass
/// stays where it landed.
#[test]
fn a_slow_2d_mass_sticks_at_its_impact() -> Result<(), KernelError> {
    let (events, post, q, v) = run(thrown(2, 1.0, &[0.5], ode())?)?;
    let (t1, ..) = analytic(1.0, 0.5);
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(events[0].1 && (events[0].0 - t1).abs() <= 1e-10 * t1);
    assert!(post.iter().all(|x| x.abs() <= 1e-12), "{post:?}");
    assert!((q[0] - 0.5 * t1).abs() <= 1e-10 && v.iter().all(|x| x.abs() <= 1e-12), "{q:?} {v:?}");
    Ok(())
}

/// In 3D the impact and the sliding keep the direction of the horizontal velocity `(3, 4)/5`:
/// the same speeds, stop time and distance as in 2D along it.
#[test]
fn a_3d_mass_slides_along_its_velocity_then_stops() -> Result<(), KernelError> {
    let (events, post, q, v) = run(thrown(3, 1.0, &[1.8, 2.4], ode())?)?;
    let (t1, s_plus, t2, x) = analytic(1.0, 3.0);
    println!("events {events:?}; analytic impact {t1}, stop {t2}; q {q:?} (distance {x})");
    assert_eq!(events.len(), 2, "{events:?}");
    assert!((events[0].0 - t1).abs() <= 1e-10 * t1);
    assert!((post[0] - 0.6 * s_plus).abs() <= 1e-10 && (post[1] - 0.8 * s_plus).abs() <= 1e-10, "{post:?}");
    assert!((events[1].0 - t2).abs() <= 1e-8 * t2, "stop at {}, analytic {t2}", events[1].0);
    assert!((q[0] - 0.6 * x).abs() <= 1e-8 && (q[1] - 0.8 * x).abs() <= 1e-8, "{q:?}");
    assert!(q[2].abs() <= 1e-12 && v.iter().all(|x| x.abs() <= 1e-12), "{q:?} {v:?}");
    Ok(())
}

/// Builds a model into an empty one.
type Build<'a> = Box<dyn Fn(&mut Nsds) -> Result<(), KernelError> + 'a>;

#[test]
fn models_the_event_driven_scheme_does_not_handle_are_unsupported() -> Result<(), KernelError> {
    let grid = || TimeDiscretisation::new(0.0, 0.1, 1.0);
    let body = || LagrangianLinearTids::new(vec![0.0, 1.0], vec![0.0, 0.0], faer::mat![[1.0, 0.0], [0.0, 1.0]]);
    let normal = || LagrangianLinearTir::new(faer::mat![[0.0, 1.0]]);
    let normal_tangent = || LagrangianLinearTir::new(faer::mat![[0.0, 1.0], [1.0, 0.0]]);
    let cases: Vec<(&str, Build<'_>)> = vec![
        (
            "relay",
            Box::new(|n: &mut Nsds| {
                let b = n.add_ds(body()?);
                n.link(normal()?, NonsmoothLaw::relay(1, -1.0, 1.0)?, &[b]).map(|_| ())
            }),
        ),
        (
            "mixed laws",
            Box::new(|n: &mut Nsds| {
                let b = n.add_ds(body()?);
                n.link(normal()?, NonsmoothLaw::newton_impact(0.5)?, &[b])?;
                n.link(normal_tangent()?, NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 2)?, &[b]).map(|_| ())
            }),
        ),
    ];
    for (name, build) in cases {
        let mut nsds = Nsds::new();
        build(&mut nsds)?;
        let r = EventDriven::new(nsds, grid()?, ode(), EventDrivenOptions::default());
        println!("{name}: {:?}", r.as_ref().err());
        assert!(matches!(r, Err(KernelError::Unsupported { .. })), "{name}");
    }
    Ok(())
}

/// A mass sliding on the plane under a constant lateral force `F` below the friction limit
/// (`|F| = μ m g / 2` along `y`, launched along `x` at `s₀`): its path curves, the friction force
/// stays opposite the current sliding velocity (`λ_T = −μ λ_N u_T/‖u_T‖`), it stops and then
/// sticks with `λ_T = −F`. With `u = s (cos φ, sin φ)`, `a = μ g = 2 b`, `b = F/m`:
/// `ṡ = b sin φ − a`, `s φ̇ = b cos φ`, so `s cos φ (sec φ + tan φ)² = s₀` and
/// `dt/dφ = s/(b cos φ) = s₀ / (b (1 + sin φ)²)`: the stop (`φ → π/2`) is at
/// `t = (s₀/b) ∫₀^{π/2} dφ/(1 + sin φ)² = (2/3) s₀/b`. The direction turns ever faster as
/// `s → 0`, which the integration resolves to about 1e-6 in time (the straight cases above
/// reach 1e-8).
#[test]
fn a_3d_mass_pushed_sideways_curves_stops_and_sticks() -> Result<(), KernelError> {
    let m = 2.0;
    let f = 0.5 * MU * m * G;
    let mass = faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, m]];
    let body = LagrangianLinearTids::new(vec![0.0; 3], vec![3.0, 0.0, 0.0], mass)?.with_external_force(vec![
        0.0,
        f,
        -m * G,
    ])?;
    let h = faer::mat![[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(body);
    let c = nsds.link(LagrangianLinearTir::new(h)?, NonsmoothLaw::newton_impact_friction(0.0, 0.0, MU, 3)?, &[b])?;
    let mut sim =
        EventDriven::new(nsds, TimeDiscretisation::new(0.0, 0.01, 4.0)?, ode(), EventDrivenOptions::default())?;
    let (mut events, mut worst, mut stopped_at) = (Vec::new(), 0.0f64, None);
    while sim.has_next_event() {
        let Some(r) = sim.step()? else { break };
        if r.kind == EventKind::Nonsmooth {
            events.push(r.time);
        }
        let (v, lambda) = sim.with_nsds(|n| -> Result<_, KernelError> {
            Ok((n.ds(b)?.state().v().to_vec(), n.interaction(c)?.lambda(2).to_vec()))
        })?;
        let speed = v[0].hypot(v[1]);
        assert!((lambda[0] - m * G).abs() <= 1e-9, "normal force {lambda:?}");
        if speed > 1e-9 {
            worst = worst.max((lambda[1] + MU * lambda[0] * v[0] / speed).abs());
            worst = worst.max((lambda[2] + MU * lambda[0] * v[1] / speed).abs());
        } else {
            stopped_at.get_or_insert(r.time);
            assert!(lambda[1].abs() <= 1e-9 && (lambda[2] + f).abs() <= 1e-9, "sticking force {lambda:?}");
        }
    }
    println!("events {events:?}; stopped at {stopped_at:?}; max |λ_T + μ λ_N u_T/‖u_T‖| = {worst:.1e}");
    assert!(worst <= 1e-9, "{worst:e}");
    let stop = stopped_at.expect("the mass stops");
    let analytic = 2.0 / 3.0 * 3.0 / (f / m);
    let last_event = *events.last().expect("events");
    println!(
        "stop event at {last_event:.12}, analytic (2/3) s₀/b = {analytic:.12}, relative {:.1e}",
        (last_event - analytic).abs() / analytic
    );
    assert!((last_event - analytic).abs() <= 1e-5 * analytic);
    assert!(events.len() >= 2 && events.len() <= 6, "{events:?}");
    assert!(stop < 4.0 && events.last().is_some_and(|&t| t < stop + 1e-12));
    Ok(())
}

/// A bar `(x, y, θ)` lying on the floor on its two ends (two 2D frictional contacts whose
/// tangential rows are equal: the sticking block `W_EE` is singular), pushed along `x` by
/// `F = k t`: it sticks with the least-norm split `λ_T = −F/2` at each end until
/// `F = μ m g`, `t_s = μ m g / k`, where both ends slip together; then
/// `ẍ = k (t − t_s)/m`, `x = k (t − t_s)³/(6 m)`.
#[test]
fn a_bar_on_two_sticking_ends_slips_when_the_push_reaches_the_friction_limit() -> Result<(), KernelError> {
    use nonsmooth_kernel::model::LagrangianScleronomousR;
    let (m, l, k) = (2.0, 1.0, 3.0);
    let inertia = m * l * l / 12.0;
    let bar = LagrangianLinearTids::new(
        vec![0.0; 3],
        vec![0.0; 3],
        faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, inertia]],
    )?
    .with_external_force_fn(move |t, f| {
        f[0] = k * t;
        f[1] = -m * G;
        f[2] = 0.0;
    });
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(bar);
    let mut ends = Vec::new();
    for side in [-1.0, 1.0] {
        let a = side * l / 2.0;
        let end = LagrangianScleronomousR::new(
            2,
            move |q, y| {
                y[0] = q[1] + a * q[2].sin();
                y[1] = q[0] + a * q[2].cos();
            },
            move |q, g| {
                g[(0, 1)] = 1.0;
                g[(0, 2)] = a * q[2].cos();
                g[(1, 0)] = 1.0;
                g[(1, 2)] = -a * q[2].sin();
            },
        )?
        .with_jacobian_time_derivative(move |q, v, out| {
            out[0] = -a * q[2].sin() * v[2] * v[2];
            out[1] = -a * q[2].cos() * v[2] * v[2];
        });
        ends.push(nsds.link(end, NonsmoothLaw::newton_impact_friction(0.0, 0.0, MU, 2)?, &[b])?);
    }
    let mut sim =
        EventDriven::new(nsds, TimeDiscretisation::new(0.0, 0.05, 2.0)?, ode(), EventDrivenOptions::default())?;
    let ts = MU * m * G / k;
    let (mut events, mut worst) = (Vec::new(), 0.0f64);
    while sim.has_next_event() {
        let Some(r) = sim.step()? else { break };
        if r.kind == EventKind::Nonsmooth {
            events.push(r.time);
        }
        let t = r.time;
        let (q, v, lambdas) = sim.with_nsds(|n| -> Result<_, KernelError> {
            let s = n.ds(b)?.state();
            let l: Vec<Vec<f64>> =
                ends.iter().map(|&e| n.interaction(e).map(|i| i.lambda(2).to_vec())).collect::<Result<_, _>>()?;
            Ok((s.q().to_vec(), s.v().to_vec(), l))
        })?;
        let sliding = t >= events.get(1).copied().unwrap_or(f64::INFINITY);
        for (&e, lambda) in ends.iter().zip(&lambdas) {
            let mode = sim.friction_mode(e)?;
            worst = worst.max((lambda[0] - m * G / 2.0).abs());
            if sliding {
                assert_eq!(mode, FrictionMode::Sliding { direction: [1.0, 0.0] }, "t = {t}");
                worst = worst.max((lambda[1] + MU * lambda[0]).abs());
            } else {
                assert_eq!(mode, FrictionMode::Sticking, "t = {t}");
                worst = worst.max((lambda[1] + k * t / 2.0).abs());
            }
        }
        let (x, xd) =
            if t > ts { (k * (t - ts).powi(3) / (6.0 * m), k * (t - ts).powi(2) / (2.0 * m)) } else { (0.0, 0.0) };
        worst = worst.max((q[0] - x).abs()).max((v[0] - xd).abs()).max(q[1].abs()).max(q[2].abs());
    }
    println!("events {events:?}, analytic slip {ts}; worst deviation {worst:.1e}");
    assert_eq!(events.len(), 2, "{events:?}");
    assert!((events[1] - ts).abs() <= 1e-8 * ts, "slip at {}, analytic {ts}", events[1]);
    assert!(worst <= 1e-9, "{worst:e}");
    Ok(())
}

/// Two systems in one frictional contact: a block `(x_b, y_b)` on a cart `x_c` (rails without
/// friction) pushed by `F = k t`. The block rides along (`λ_T` the force that accelerates it,
/// `m_b F/(m_b + m_c)` along `+x` on the block, its opposite on the cart) until that force reaches `μ m_b g` at `t_s = μ g (m_b + m_c)/k`, then
/// slips backwards on the cart: `ẍ_b = μ g`, `ẍ_c = (F − μ m_b g)/m_c`.
#[test]
fn a_block_on_a_pushed_cart_slips_when_its_inertia_needs_more_than_friction() -> Result<(), KernelError> {
    let (mb, mc, k) = (1.0, 3.0, 4.0);
    let block = LagrangianLinearTids::new(vec![0.0, 0.0], vec![0.0, 0.0], faer::mat![[mb, 0.0], [0.0, mb]])?
        .with_external_force(vec![0.0, -mb * G])?;
    let cart = LagrangianLinearTids::new(vec![0.0], vec![0.0], faer::mat![[mc]])?
        .with_external_force_fn(move |t, f| f[0] = k * t);
    let mut nsds = Nsds::new();
    let b = nsds.add_ds(block);
    let c = nsds.add_ds(cart);
    // q = [x_b, y_b, x_c]: gap y_b, tangential x_b − x_c.
    let relation = LagrangianLinearTir::new(faer::mat![[0.0, 1.0, 0.0], [1.0, 0.0, -1.0]])?;
    let contact = nsds.link(relation, NonsmoothLaw::newton_impact_friction(0.0, 0.0, MU, 2)?, &[b, c])?;
    let mut sim =
        EventDriven::new(nsds, TimeDiscretisation::new(0.0, 0.05, 2.0)?, ode(), EventDrivenOptions::default())?;
    let ts = MU * G * (mb + mc) / k;
    let (mut events, mut worst) = (Vec::new(), 0.0f64);
    while sim.has_next_event() {
        let Some(r) = sim.step()? else { break };
        if r.kind == EventKind::Nonsmooth {
            events.push(r.time);
        }
        let t = r.time;
        let (xb, xc, lambda) = sim.with_nsds(|n| -> Result<_, KernelError> {
            Ok((n.ds(b)?.state().q()[0], n.ds(c)?.state().q()[0], n.interaction(contact)?.lambda(2).to_vec()))
        })?;
        let mode = sim.friction_mode(contact)?;
        // Analytic positions: together, x = k t³ / (6 (m_b + m_c)); after t_s the block at
        // μ g, the cart at (k t − μ m_b g)/m_c.
        let x_s = k * ts.powi(3) / (6.0 * (mb + mc));
        let v_s = k * ts * ts / (2.0 * (mb + mc));
        let (xb_a, xc_a) = if t <= ts {
            (k * t.powi(3) / (6.0 * (mb + mc)), k * t.powi(3) / (6.0 * (mb + mc)))
        } else {
            let d = t - ts;
            let b_pos = x_s + v_s * d + 0.5 * MU * G * d * d;
            let a_s = MU * mb * G / mc; // cart acceleration jump: (k t_s − μ m_b g)/m_c at t_s
            let c_pos = x_s + v_s * d + (k * ts / mc - a_s) * d * d / 2.0 + k * d.powi(3) / (6.0 * mc);
            (b_pos, c_pos)
        };
        worst = worst.max((xb - xb_a).abs()).max((xc - xc_a).abs()).max((lambda[0] - mb * G).abs());
        if t < events.get(1).copied().unwrap_or(f64::INFINITY) {
            assert_eq!(mode, FrictionMode::Sticking, "t = {t}");
            worst = worst.max((lambda[1] - mb * k * t / (mb + mc)).abs());
        } else {
            // The block lags behind the cart: it slides along −x relative to it.
            assert_eq!(mode, FrictionMode::Sliding { direction: [-1.0, 0.0] }, "t = {t}");
            worst = worst.max((lambda[1] - MU * mb * G).abs());
        }
    }
    println!("events {events:?}, analytic slip {ts}; worst deviation {worst:.1e}");
    assert_eq!(events.len(), 2, "{events:?}");
    assert!((events[1] - ts).abs() <= 1e-8 * ts, "slip at {}, analytic {ts}", events[1]);
    assert!(worst <= 1e-9, "{worst:e}");
    Ok(())
}

/// The acceleration getters with friction: in flight `q̈ = (0, −g)`, `ÿ = (−g, 0)`; while the
/// mass slides (+x) after its impact `q̈ = (−μ g, 0)`, `ÿ = (ü_N, ü_T) = (0, −μ g)`,
/// `λ[2] = (m g, −μ m g)` and `p[2] = Gᵀ λ[2] = (−μ m g, m g)` (the tangential force is in
/// the accelerations); once it sticks `q̈ = 0`, `ÿ = 0`, `λ[2] = (m g, 0)`.
#[test]
fn the_acceleration_getters_include_the_friction_force() -> Result<(), KernelError> {
    let m = 2.0;
    let mut sim = thrown(2, 1.0, &[3.0], ode())?;
    let body = sim.with_nsds(|n| n.ds_ids().next()).expect("one system");
    let contact = sim.with_nsds(|n| n.interaction_ids().next()).expect("one contact");
    let close = |a: &[f64], b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-9);
    let mut seen = [0usize; 3];
    let mut impacted = false;
    while sim.has_next_event() {
        let Some(r) = sim.step()? else { break };
        impacted |= r.impact;
        let (a, y2, l2, p2) = (
            sim.acceleration(body)?.to_vec(),
            sim.output(contact, 2)?.to_vec(),
            sim.multiplier(contact, 2)?.to_vec(),
            sim.reaction(body, 2)?.to_vec(),
        );
        let expected: [&[f64]; 4] = match sim.friction_mode(contact)? {
            FrictionMode::Inactive => {
                assert!(!impacted, "t = {}", r.time);
                seen[0] += 1;
                [&[0.0, -G], &[-G, 0.0], &[0.0, 0.0], &[0.0, 0.0]]
            }
            FrictionMode::Sliding { .. } => {
                seen[1] += 1;
                [&[-MU * G, 0.0], &[0.0, -MU * G], &[m * G, -MU * m * G], &[-MU * m * G, m * G]]
            }
            mode => {
                assert_eq!(mode, FrictionMode::Sticking, "t = {}", r.time);
                seen[2] += 1;
                [&[0.0, 0.0], &[0.0, 0.0], &[m * G, 0.0], &[0.0, m * G]]
            }
        };
        let got = [&a[..], &y2[..], &l2[..], &p2[..]];
        for (name, (g, e)) in ["q̈", "ÿ", "λ[2]", "p[2]"].iter().zip(got.iter().zip(expected)) {
            assert!(close(g, e), "t = {}: {name} = {g:?}, expected {e:?}", r.time);
        }
    }
    println!("events in flight, sliding, sticking: {seen:?}");
    assert!(seen.iter().all(|&k| k >= 3), "{seen:?}");
    Ok(())
}
