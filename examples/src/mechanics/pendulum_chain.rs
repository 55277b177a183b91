//! A pendulum chain: five Newton–Euler links on pivot joints, the first hanging from the fixed
//! world, released from horizontal onto a frictional floor, stepped with the mixed mechanical
//! one-step problem (Siconos' `GenericMechanical`: the pivots' equality rows and the contacts'
//! 3D Coulomb blocks in one problem, solved by block Gauss–Seidel; Acary & Brogliato,
//! *Numerical Methods for Nonsmooth Dynamical Systems*, Springer 2008, §10 and §13).
//!
//! Model (`z` is up, gravity along `−z`): links `k = 0..4` of mass `m = 1`, boxes of length
//! `0.5` (`x`) and section `0.05 × 0.05`, inertia about the centre
//! `diag(m(b² + c²), m(a² + c²), m(a² + b²))/12`; link `k`'s centre at `((k + ½) 0.5, 0, 0)`,
//! at rest. Pivots about `y` (five equality rows each): link 0 to the world at the origin,
//! link `k` to link `k − 1` at `(0.5 k, 0, 0)`. The far end of each link (body point
//! `(0.25, 0, 0)`) has a contact with the floor `z = −0.6` ([`EndOnFloor`]: Siconos'
//! `NewtonEuler3DR` on a body-fixed point), Newton impact friction `e_n = 0`, `e_t = 0`,
//! `μ = 0.3`.
//!
//! Scheme (the same on Siconos' side, `examples/data/siconos/generate/pendulum_chain.py`):
//! Moreau–Jean `θ = ½`, `h = 1e-3`, Newton tolerance `1e-10`, the mixed problem's Gauss–Seidel
//! at tolerance `1e-10` (at most 100 000 sweeps), the position update with Siconos' quaternion
//! exponential ([`QuaternionExponential::Siconos`]). A step whose Gauss–Seidel stops at the sweep
//! cap goes on with its last iterate, counted by the run summary (Siconos warns and goes on).
//!
//! Output rows ([`simulate`]; row 0 is the initial state): time, then for each link `q` (7) and
//! the twist (6), the columns of `examples/data/siconos/PendulumChain.ref`; the run also
//! reports the joints' constraint violation `max |h(q)|` over the pivots' rows (the drift).

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{
    MoreauJeanOptions, MoreauJeanOsi, NonConvergencePolicy, OneStepNsProblem, ProblemLevel, RunSummary,
    TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};
use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::body::{NewtonEulerDs, QuaternionExponential};
use nonsmooth::numerics::gmp::GmpNsgsOptions;
use nonsmooth_mechanics::contact::contact_frame;
use nonsmooth_mechanics::joints::{PivotJoint, Reference};
use nonsmooth_mechanics::lie::{Quaternion, Vec3, cross};
use nonsmooth_mechanics::relation::{NewtonEulerR, NewtonEulerRelation};

/// Number of links.
pub const LINKS: usize = 5;
/// Length of a link (`x`).
pub const LENGTH: f64 = 0.5;
/// Side of a link's square section.
pub const SECTION: f64 = 0.05;
/// Mass of a link.
pub const MASS: f64 = 1.0;
/// Height of the floor.
pub const FLOOR: f64 = -0.6;
/// Normal restitution, tangential restitution and friction coefficient of the floor.
pub const FLOOR_LAW: (f64, f64, f64) = (0.0, 0.0, 0.3);
/// Gravity.
pub const GRAVITY: f64 = 9.81;
/// Time step of the Siconos reference.
pub const H: f64 = 1e-3;
/// Number of steps of the Siconos reference (`T = 2`).
pub const REFERENCE_STEPS: usize = 2000;
/// Newton tolerance of the Moreau–Jean loop.
pub const NEWTON_TOLERANCE: f64 = 1e-10;
/// Tolerance and sweep cap of the mixed problem's Gauss–Seidel.
pub const SOLVER: (f64, usize) = (1e-10, 100_000);
/// Columns per link in the output: `q` (7) and the twist (6).
pub const LINK_COLUMNS: usize = 13;

/// A body-fixed point `point` (body frame) against the floor `z ≥ floor`, with the contact frame
/// `[n; t₁; t₂]` of `n = e_z` ([`contact_frame`]): `y_N = z_P − floor` with
/// `P = G + R point` (the tangential outputs are zero), and the rows of `H` are those of
/// Siconos' `NewtonEuler3DR` at `P`: `[eᵀ, (point × Rᵀe)ᵀ]` for each axis `e` of the frame (the
/// velocity of the point, `v + R (Ω × point)`, along `e`).
#[derive(Clone, Debug)]
pub struct EndOnFloor {
    /// The point in the body frame.
    pub point: Vec3,
    /// The floor's height.
    pub floor: f64,
}

impl NewtonEulerRelation for EndOnFloor {
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
        // The frame of e_z: n = e_z, t₁ = (0, −1, 0), t₂ = (1, 0, 0) (never fails for e_z).
        let frame = contact_frame([0.0, 0.0, 1.0]).unwrap_or([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]]);
        let back = Quaternion::new(q[3], q[4], q[5], q[6]).conjugate();
        for (i, e) in frame.iter().enumerate() {
            let angular = cross(self.point, back.rotate(*e));
            rows[i * 6..i * 6 + 3].copy_from_slice(e);
            rows[i * 6 + 3..i * 6 + 6].copy_from_slice(&angular);
        }
        Ok(())
    }
}

/// The chain's model in a simulation, with its handles.
pub struct PendulumChain {
    /// The simulation, ready to step.
    pub simulation: TimeStepping,
    /// The links, from the one hanging from the world.
    pub links: Vec<DsId>,
    /// Copies of the pivots (link `k` to link `k − 1`, link 0 to the world), to evaluate their
    /// rows (the drift).
    pub pivots: Vec<PivotJoint>,
}

/// The initial position of link `k`.
pub fn initial_position(k: usize) -> [f64; 7] {
    [(k as f64 + 0.5) * LENGTH, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
}

/// Builds the model for `steps` steps of size `h`.
///
/// # Errors
/// Bad `h` or no step (kernel errors), never for this model otherwise.
pub fn build(h: f64, steps: usize) -> Result<PendulumChain, MechanicsError> {
    if steps == 0 {
        return Err(KernelError::InvalidOption { name: "steps", reason: "needs at least one step" }.into());
    }
    let (a, b) = (LENGTH, SECTION);
    let inertia = [
        [MASS * 2.0 * b * b / 12.0, 0.0, 0.0],
        [0.0, MASS * (a * a + b * b) / 12.0, 0.0],
        [0.0, 0.0, MASS * (a * a + b * b) / 12.0],
    ];
    let mut nsds = Nsds::new();
    let mut links = Vec::with_capacity(LINKS);
    for k in 0..LINKS {
        let body = NewtonEulerDs::new(initial_position(k), [0.0; 6], MASS, inertia)?
            .with_external_force([0.0, 0.0, -MASS * GRAVITY])?
            .with_exponential(QuaternionExponential::Siconos);
        links.push(nsds.add_ds(body));
    }
    let axis = [0.0, 1.0, 0.0];
    let mut pivots = Vec::with_capacity(LINKS);
    for k in 0..LINKS {
        let point = [k as f64 * LENGTH, 0.0, 0.0];
        let (pivot, bodies) = if k == 0 {
            (PivotJoint::new(point, axis, Reference::Inertial, &initial_position(0), None)?, vec![links[0]])
        } else {
            let (q1, q2) = (initial_position(k - 1), initial_position(k));
            (PivotJoint::new(point, axis, Reference::Inertial, &q1, Some(&q2))?, vec![links[k - 1], links[k]])
        };
        nsds.link(NewtonEulerR::new(pivot.clone())?, NonsmoothLaw::equality(5)?, &bodies)?;
        pivots.push(pivot);
    }
    let (e_n, e_t, mu) = FLOOR_LAW;
    for &link in &links {
        nsds.link(
            NewtonEulerR::new(EndOnFloor { point: [LENGTH / 2.0, 0.0, 0.0], floor: FLOOR })?,
            NonsmoothLaw::newton_impact_friction(e_n, e_t, mu, 3)?,
            &[link],
        )?;
    }
    let problem =
        OneStepNsProblem::mixed(GmpNsgsOptions::default().with_tolerance(SOLVER.0).with_max_iterations(SOLVER.1))?;
    let simulation = TimeStepping::builder(nsds, TimeDiscretisation::new(0.0, h, h * (steps as f64 + 0.5))?)
        .options(
            TimeSteppingOptions::default()
                .with_newton_tolerance(NEWTON_TOLERANCE)
                .with_policy(NonConvergencePolicy::Continue),
        )
        .integrator(MoreauJeanOsi::new(MoreauJeanOptions::default().with_theta(0.5))?, links.clone())
        .problem(ProblemLevel::Velocity, problem)
        .build()?;
    Ok(PendulumChain { simulation, links, pivots })
}

/// What a run of the chain gives.
#[derive(Debug)]
pub struct ChainRun {
    /// Time, then `q` and the twist of each link; row 0 the initial state.
    pub trajectory: Trajectory,
    /// `max |h(q)|` over the pivots' rows after each step (row `k` after step `k + 1`).
    pub drift: Vec<f64>,
    /// Number of active contacts after each step.
    pub contacts: Vec<usize>,
    /// The run's summary (unconverged steps).
    pub summary: RunSummary,
}

impl ChainRun {
    /// The largest drift of the run.
    pub fn max_drift(&self) -> f64 {
        self.drift.iter().fold(0.0, |a, x| a.max(*x))
    }
}

/// The output columns' names: `t`, then `x_k, y_k, z_k, p0_k, …, p3_k, vx_k, vy_k, vz_k,
/// wx_k, wy_k, wz_k` for each link `k`.
pub fn column_names() -> Vec<String> {
    let mut names = vec!["t".to_owned()];
    for k in 0..LINKS {
        for c in ["x", "y", "z", "p0", "p1", "p2", "p3", "vx", "vy", "vz", "wx", "wy", "wz"] {
            names.push(format!("{c}_{k}"));
        }
    }
    names
}

/// Runs `steps` steps of size `h` ([`build`]) and records the rows, the drift and the contacts.
///
/// # Errors
/// Kernel or mechanics errors, among them a step whose Newton loop or one-step problem does
/// not converge.
pub fn simulate(h: f64, steps: usize) -> Result<ChainRun, MechanicsError> {
    let PendulumChain { mut simulation, links, mut pivots } = build(h, steps)?;
    let row = |sim: &TimeStepping| -> Result<Vec<f64>, KernelError> {
        let mut out = vec![sim.time()];
        for &link in &links {
            let state = sim.nsds().ds(link)?.state();
            out.extend_from_slice(state.q());
            out.extend_from_slice(state.v());
        }
        Ok(out)
    };
    let mut trajectory = Trajectory::new(1 + LINKS * LINK_COLUMNS);
    trajectory.push(&row(&simulation)?);
    let (mut drift, mut contacts) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let mut y = [0.0; 5];
    let mut q = Vec::with_capacity(14);
    for _ in 0..steps {
        let report = simulation.step()?;
        contacts.push(report.active.saturating_sub(LINKS));
        let mut worst = 0.0f64;
        for (k, pivot) in pivots.iter_mut().enumerate() {
            q.clear();
            if k > 0 {
                q.extend_from_slice(simulation.nsds().ds(links[k - 1])?.state().q());
            }
            q.extend_from_slice(simulation.nsds().ds(links[k])?.state().q());
            pivot.output(&q, &mut y)?;
            worst = y.iter().fold(worst, |a, x| a.max(x.abs()));
        }
        drift.push(worst);
        trajectory.push(&row(&simulation)?);
    }
    Ok(ChainRun { trajectory, drift, contacts, summary: simulation.run_summary() })
}
