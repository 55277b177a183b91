//! Schatzman–Paoli and the projection schemes on small models: a resting stack of balls over
//! 10⁴ steps, a pendulum held by a bilateral constraint, and a bead running inside a ring (a
//! persistent unilateral contact along a curved constraint), a system moved through its
//! displacement `q ← q + T(q) δ`, plus typed errors of the options and models.

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{
    LagrangianLinearTids, LagrangianLinearTir, LagrangianRelation, LagrangianScleronomousR, NonsmoothLaw, Nsds,
    SecondOrderDs, SecondOrderState,
};
use nonsmooth_kernel::numerics::mlcp::{EnumOptions, MlcpMethod};
use nonsmooth_kernel::simulation::{
    CombinedProjectionOptions, DirectProjectionOptions, MoreauJeanCombinedProjectionOsi, MoreauJeanDirectProjectionOsi,
    MoreauJeanOptions, MoreauJeanOsi, OneStepIntegrator, OneStepNsProblem, ProblemLevel, SchatzmanPaoliOptions,
    SchatzmanPaoliOsi, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
};

use crate::{G, RADIUS, ball};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Scheme {
    MoreauJean,
    Direct,
    Combined,
}

fn integrator(scheme: Scheme) -> Result<Box<dyn OneStepIntegrator>, KernelError> {
    let mj = MoreauJeanOptions::default();
    Ok(match scheme {
        Scheme::MoreauJean => Box::new(MoreauJeanOsi::new(mj)?),
        Scheme::Direct => Box::new(MoreauJeanDirectProjectionOsi::new(
            mj,
            DirectProjectionOptions::default().with_bilateral_tolerance(1e-8),
        )?),
        Scheme::Combined => Box::new(MoreauJeanCombinedProjectionOsi::new(mj, CombinedProjectionOptions::default())?),
    })
}

/// A simulation of every system of `nsds` by `osi` (chosen at run time).
fn simulate(
    nsds: Nsds,
    osi: Box<dyn OneStepIntegrator>,
    osns: OneStepNsProblem,
    grid: TimeDiscretisation,
    options: TimeSteppingOptions,
) -> Result<TimeStepping, KernelError> {
    let systems: Vec<_> = nsds.ds_ids().collect();
    TimeStepping::builder(nsds, grid)
        .options(options)
        .boxed_integrator(osi, systems)
        .problem(ProblemLevel::Velocity, osns)
        .build()
}

/// Smallest gap (or, for bilateral constraints, largest `|y|` as a negative number) over the
/// interactions after each of `steps` steps.
fn run(mut sim: TimeStepping, steps: usize, bilateral: bool) -> Result<Vec<f64>, KernelError> {
    let ids: Vec<_> = sim.nsds().interaction_ids().collect();
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        let report = sim.step()?;
        if let Some(p) = report.projection {
            assert!(p.converged, "projection did not converge at step {}: {p:?}", report.step);
        }
        let mut worst = f64::INFINITY;
        for &id in &ids {
            let y = sim.nsds().interaction(id)?.y(0)[0];
            worst = worst.min(if bilateral { -y.abs() } else { y });
        }
        out.push(worst);
    }
    Ok(out)
}

/// Three balls (1 dof each used) on the ground with initial gaps `gaps`, `e = 0`, `h = 5e-3`.
fn stack(scheme: Scheme, gaps: [f64; 3]) -> Result<TimeStepping, KernelError> {
    let mut nsds = Nsds::new();
    let mut x = RADIUS + gaps[0];
    let b1 = nsds.add_ds(ball(x, 0.0, 1.0)?);
    x += 2.0 * RADIUS + gaps[1];
    let b2 = nsds.add_ds(ball(x, 0.0, 1.0)?);
    x += 2.0 * RADIUS + gaps[2];
    let b3 = nsds.add_ds(ball(x, 0.0, 1.0)?);
    let law = NonsmoothLaw::newton_impact(0.0)?;
    nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?.with_offset(vec![-RADIUS])?, law, &[b1])?;
    let between = || -> Result<LagrangianLinearTir, KernelError> {
        LagrangianLinearTir::new(faer::mat![[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0]])?.with_offset(vec![-2.0 * RADIUS])
    };
    nsds.link(between()?, law, &[b1, b2])?;
    nsds.link(between()?, law, &[b2, b3])?;
    simulate(
        nsds,
        integrator(scheme)?,
        OneStepNsProblem::lcp_default()?,
        TimeDiscretisation::new(0.0, 5e-3, 100.0)?,
        TimeSteppingOptions::default(),
    )
}

/// A resting stack over 10⁴ steps: both projections keep every gap `≥ −1e-8` on every step
/// (the stack starts touching; measured −5.6e-17); dropped from small gaps, the combined
/// projection keeps every step above `−1e-8` and the direct one does from the step after the
/// landing impacts (it only projects contacts already active when the step starts: −1.0e-4 on
/// an impact step), while plain Moreau–Jean keeps the penetration of its impact steps
/// (−4.7e-4) for ever.
#[test]
fn projection_keeps_a_resting_stack_out_of_penetration() -> Result<(), KernelError> {
    let tol = 1e-8;
    for scheme in [Scheme::Direct, Scheme::Combined] {
        let gaps = run(stack(scheme, [0.0; 3])?, 10_000, false)?;
        let min = gaps.iter().copied().fold(f64::INFINITY, f64::min);
        println!("resting stack, {scheme:?}: min gap over 10⁴ steps {min:e}");
        assert!(min >= -tol, "{scheme:?}: {min:e}");
    }
    let dropped = [0.0, 1e-3, 2e-3];
    let mj = run(stack(Scheme::MoreauJean, dropped)?, 10_000, false)?;
    let direct = run(stack(Scheme::Direct, dropped)?, 10_000, false)?;
    let combined = run(stack(Scheme::Combined, dropped)?, 10_000, false)?;
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "dropped stack: min gap MJ {:e} (last step {:e}), direct {:e} (from step 20: {:e}), combined {:e}",
        min(&mj),
        mj[mj.len() - 1],
        min(&direct),
        min(&direct[20..]),
        min(&combined)
    );
    // Linear relations: the penetration of the impact steps stays, it neither grows nor heals.
    assert!(
        mj[mj.len() - 1] < -4e-4 && (mj[mj.len() - 1] - mj[100]).abs() < 1e-12,
        "Moreau–Jean keeps its penetration"
    );
    assert!(min(&combined) >= -tol);
    assert!(min(&direct[20..]) >= -tol);
    Ok(())
}

/// A point mass on a massless rod of length 1 (bilateral constraint `|q| − 1 = 0`), released
/// horizontally, `h = 1e-3`, 10⁴ steps (5 swings), Moreau–Jean with an MLCP (equality rows).
fn pendulum(scheme: Scheme) -> Result<TimeStepping, KernelError> {
    let mut nsds = Nsds::new();
    let mass = LagrangianLinearTids::new(vec![1.0, 0.0], vec![0.0, 0.0], Mat::identity(2, 2))?
        .with_external_force(vec![0.0, -G])?;
    let m = nsds.add_ds(mass);
    let rod = LagrangianScleronomousR::new(
        1,
        |q, y| y[0] = (q[0] * q[0] + q[1] * q[1]).sqrt() - 1.0,
        |q, h| {
            let r = (q[0] * q[0] + q[1] * q[1]).sqrt();
            h[(0, 0)] = q[0] / r;
            h[(0, 1)] = q[1] / r;
        },
    )?;
    nsds.link(rod, NonsmoothLaw::equality(1)?, &[m])?;
    let enumeration = MlcpMethod::Enum(EnumOptions::default().with_tolerance(1e-12));
    simulate(
        nsds,
        integrator(scheme)?,
        OneStepNsProblem::mlcp(enumeration)?,
        TimeDiscretisation::new(0.0, 1e-3, 100.0)?,
        TimeSteppingOptions::default().with_newton_tolerance(1e-10),
    )
}

/// Moreau–Jean enforces the rod at velocity level only (with `H` at the predicted position
/// `q_k + h v_k`, as Siconos): the length error stays of order `h²` (measured max `|y|` 2.5e-6
/// over the first 2 s and 2.7e-6 over the last 2 s) and is never corrected. The projections
/// remove it: direct projection (bilateral tolerance set to 1e-8 here; its default 1e-4 is
/// above this drift) and combined projection keep `|y| ≤ 1e-8`.
#[test]
fn projection_removes_the_drift_of_a_bilateral_constraint() -> Result<(), KernelError> {
    let mj = run(pendulum(Scheme::MoreauJean)?, 10_000, true)?;
    let worst = |v: &[f64]| -v.iter().copied().fold(f64::INFINITY, f64::min);
    let (first, last) = (worst(&mj[..2_000]), worst(&mj[8_000..]));
    let direct = worst(&run(pendulum(Scheme::Direct)?, 10_000, true)?);
    let combined = worst(&run(pendulum(Scheme::Combined)?, 10_000, true)?);
    println!("pendulum |y|: MJ first 2 s {first:e}, last 2 s {last:e}; direct {direct:e}; combined {combined:e}");
    assert!(first > 1e-6 && last > 0.5 * first, "Moreau–Jean keeps an uncorrected drift: {first:e} → {last:e}");
    assert!(direct <= 1e-8 + 1e-15 && combined <= 1e-8 + 1e-15);
    Ok(())
}

/// A bead of mass 1 running inside a ring of radius 1 (unilateral `y = 1 − |q| ≥ 0`, `e = 0`),
/// fast enough to stay on it (`v² > 5g` at the bottom): the contact slides along a curved
/// constraint.
fn bead_in_ring(scheme: Scheme) -> Result<TimeStepping, KernelError> {
    let mut nsds = Nsds::new();
    let mass = LagrangianLinearTids::new(vec![0.0, -1.0], vec![8.0, 0.0], Mat::identity(2, 2))?
        .with_external_force(vec![0.0, -G])?;
    let m = nsds.add_ds(mass);
    let ring = LagrangianScleronomousR::new(
        1,
        |q, y| y[0] = 1.0 - (q[0] * q[0] + q[1] * q[1]).sqrt(),
        |q, h| {
            let r = (q[0] * q[0] + q[1] * q[1]).sqrt();
            h[(0, 0)] = -q[0] / r;
            h[(0, 1)] = -q[1] / r;
        },
    )?;
    nsds.link(ring, NonsmoothLaw::newton_impact(0.0)?, &[m])?;
    simulate(
        nsds,
        integrator(scheme)?,
        OneStepNsProblem::lcp_default()?,
        TimeDiscretisation::new(0.0, 1e-3, 100.0)?,
        TimeSteppingOptions::default().with_newton_tolerance(1e-10),
    )
}

/// Moreau–Jean's penetration along the curved wall stays (measured max 7.4e-5 over the first
/// 2 s, 7.5e-5 over the last 2 s: the velocity-level constraint lets `|q|` drift by `O(h²)` per
/// contact phase, and an impact after a short flight adds its `O(h v)`); the combined projection
/// keeps it below 1e-8 on every step; the direct one only corrects contacts already active when
/// a step starts (measured 3.6e-5 on impact steps), still halving Moreau–Jean's worst value.
#[test]
fn projection_keeps_a_sliding_contact_on_a_curved_constraint() -> Result<(), KernelError> {
    let mj = run(bead_in_ring(Scheme::MoreauJean)?, 10_000, false)?;
    let pen = |v: &[f64]| -v.iter().copied().fold(f64::INFINITY, f64::min);
    let (first, last) = (pen(&mj[..2_000]), pen(&mj[8_000..]));
    let direct = pen(&run(bead_in_ring(Scheme::Direct)?, 10_000, false)?);
    let combined = pen(&run(bead_in_ring(Scheme::Combined)?, 10_000, false)?);
    println!(
        "bead in a ring, penetration: MJ first 2 s {first:e}, last 2 s {last:e}; direct {direct:e}; combined {combined:e}"
    );
    assert!(first > 1e-5 && last > 0.5 * first, "Moreau–Jean keeps its penetration: {first:e} → {last:e}");
    assert!(combined <= 1e-8, "combined {combined:e}");
    assert!(direct < 0.6 * last.max(first), "direct {direct:e}");
    Ok(())
}

#[test]
fn invalid_options_of_schatzman_paoli_and_projection_are_refused() -> Result<(), KernelError> {
    assert!(matches!(
        SchatzmanPaoliOsi::new(SchatzmanPaoliOptions::default().with_theta(1.5)),
        Err(KernelError::InvalidOption { name: "theta", .. })
    ));
    let mj = MoreauJeanOptions::default();
    assert!(matches!(
        MoreauJeanDirectProjectionOsi::new(mj, DirectProjectionOptions::default().with_unilateral_tolerance(0.0)),
        Err(KernelError::InvalidOption { name: "unilateral_tolerance", .. })
    ));
    assert!(matches!(
        MoreauJeanDirectProjectionOsi::new(mj, DirectProjectionOptions::default().with_max_iterations(0)),
        Err(KernelError::InvalidOption { name: "max_iterations", .. })
    ));
    assert!(matches!(
        MoreauJeanCombinedProjectionOsi::new(
            mj,
            CombinedProjectionOptions::default().with_bilateral_tolerance(f64::NAN)
        ),
        Err(KernelError::InvalidOption { name: "bilateral_tolerance", .. })
    ));
    assert!(matches!(
        MoreauJeanCombinedProjectionOsi::new(mj, CombinedProjectionOptions::default().with_max_passes(0)),
        Err(KernelError::InvalidOption { name: "max_passes", .. })
    ));
    Ok(())
}

/// A falling point whose position carries a second, frozen coordinate: `q = (z, c)`, `v = ż`,
/// `q̇ = T v` with `T = [1; 0]` (positions and velocities of different sizes). With `displaces`
/// it implements the projection's displacement `q ← q + T δ`.
struct TaggedPoint {
    state: SecondOrderState,
    displaces: bool,
}

impl TaggedPoint {
    fn new(z: f64, displaces: bool) -> Self {
        Self { state: SecondOrderState::new(vec![z, 7.0], vec![0.0]).expect("finite state"), displaces }
    }
}

impl SecondOrderDs for TaggedPoint {
    fn velocity_size(&self) -> usize {
        1
    }

    fn position_size(&self) -> usize {
        2
    }

    fn state(&self) -> &SecondOrderState {
        &self.state
    }

    fn state_mut(&mut self) -> &mut SecondOrderState {
        &mut self.state
    }

    fn is_mass_constant(&self) -> bool {
        true
    }

    fn mass(&mut self, _q: &[f64], out: &mut Mat<f64>) -> Result<(), KernelError> {
        out[(0, 0)] = 1.0;
        Ok(())
    }

    fn forces(&mut self, _t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        out[0] = -G;
        Ok(())
    }

    fn forces_jacobians(
        &mut self,
        _t: f64,
        _q: &[f64],
        _v: &[f64],
        _dq: &mut Mat<f64>,
        _dv: &mut Mat<f64>,
    ) -> Result<bool, KernelError> {
        Ok(false)
    }

    fn forces_jacobians_vanish(&self) -> bool {
        true
    }

    fn external_force(&mut self, _t: f64, out: &mut [f64]) -> Result<bool, KernelError> {
        out[0] = -G;
        Ok(true)
    }

    fn update_position(&self, h: f64, theta: f64, q_memory: &[f64], v_memory: &[f64], v: &[f64], q: &mut [f64]) {
        q[0] = q_memory[0] + h * (theta * v[0] + (1.0 - theta) * v_memory[0]);
        q[1] = q_memory[1];
    }

    fn can_displace_position(&self) -> bool {
        self.displaces
    }

    fn displace_position(&self, delta: &[f64], q: &mut [f64]) {
        q[0] += delta[0];
    }
}

/// The gap `y = z` of a [`TaggedPoint`] (`H = [1]` in velocity coordinates).
struct Floor;

impl LagrangianRelation for Floor {
    fn size(&self) -> usize {
        1
    }

    fn velocity_size(&self) -> Option<usize> {
        Some(1)
    }

    fn output(&mut self, _t: f64, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        y[0] = q[0];
        Ok(())
    }

    fn jacobian(&mut self, _t: f64, _q: &[f64], h: &mut Mat<f64>) -> Result<(), KernelError> {
        h[(0, 0)] = 1.0;
        Ok(())
    }
}

fn tagged(scheme: Scheme, displaces: bool) -> Result<TimeStepping, KernelError> {
    let mut nsds = Nsds::new();
    let point = nsds.add_ds(TaggedPoint::new(-1e-3, displaces));
    nsds.link(Floor, NonsmoothLaw::newton_impact(0.0)?, &[point])?;
    simulate(
        nsds,
        integrator(scheme)?,
        OneStepNsProblem::lcp_default()?,
        TimeDiscretisation::new(0.0, 1e-3, 1.0)?,
        TimeSteppingOptions::default(),
    )
}

/// Systems whose positions and velocities differ in size enter the projection schemes only
/// through their displacement `q ← q + T(q) δ`: without it they are refused with a typed error;
/// with it the projection moves them by it (here `T = [1; 0]`, the frozen coordinate kept).
#[test]
fn projection_moves_systems_through_their_displacement_or_refuses_them() -> Result<(), KernelError> {
    for scheme in [Scheme::Direct, Scheme::Combined] {
        let refused = tagged(scheme, false);
        assert!(
            matches!(&refused, Err(KernelError::InvalidModel(m)) if m.contains("q ← q + T(q) δ")),
            "{scheme:?}: {refused:?}"
        );
        let mut sim = tagged(scheme, true)?;
        for _ in 0..100 {
            sim.step()?;
            let ids: Vec<_> = sim.nsds().interaction_ids().collect();
            let y = sim.nsds().interaction(ids[0])?.y(0)[0];
            let q = sim.nsds().ds_ids().map(|d| sim.nsds().ds(d).map(|ds| ds.state().q().to_vec())).next().unwrap()?;
            assert!(y >= -1e-8, "{scheme:?}: y = {y:e}");
            assert!(q[1].to_bits() == 7.0f64.to_bits(), "{scheme:?}: the frozen coordinate moved");
        }
    }
    // Moreau–Jean alone takes the system (no projection).
    assert!(tagged(Scheme::MoreauJean, false).is_ok());
    Ok(())
}
