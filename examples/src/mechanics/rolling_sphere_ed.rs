//! A sphere launched sliding on a plane with Coulomb friction, simulated event by event: a
//! Newton–Euler body and a 3D frictional contact in the event-driven scheme.
//!
//! While it slides, friction `−μ m g` slows the centre and spins the sphere up, `v = v0 − μ g t`,
//! `ω = (5 μ g / 2R) t`; the sliding velocity of the contact point `v − ω R` vanishes at
//! `t* = 2 v0 / (7 μ g)` (solid sphere, `I = 2/5 m R²`), where the friction root function of the
//! sliding contact locates the slip → stick event; the sphere then rolls at `5 v0 / 7` with a
//! zero friction force and a contact point at rest.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{
    EventDriven, EventDrivenOptions, EventKind, FrictionMode, LsodarSmooth, OdeOptions, RestartingOde,
    TimeDiscretisation, Trajectory,
};
use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::body::NewtonEulerDs;
use nonsmooth::mechanics::contact::{ContactDimension, ContactRelation};
use nonsmooth::mechanics::geometry::ContactPoint;
use nonsmooth::mechanics::lie::Quaternion;

/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// Names of the columns of [`RollingSphereEdRun::rows`]: time, centre, velocity of the centre,
/// angular velocity in the inertial frame, velocity of the contact point (`slip_x`, `slip_y`),
/// norm of the quaternion, normal force `λ_N(2)`, sizes of index sets 1 and 2.
pub const COLUMN_NAMES: [&str; 16] = [
    "t",
    "x",
    "y",
    "z",
    "v_x",
    "v_y",
    "v_z",
    "w_x",
    "w_y",
    "w_z",
    "slip_x",
    "slip_y",
    "quaternion_norm",
    "lambda2_n",
    "size_I1",
    "size_I2",
];

/// Parameters.
#[derive(Clone, Copy, Debug)]
pub struct RollingSphereEd {
    /// Output step (default 0.01).
    pub h: f64,
    /// Friction coefficient (default 0.3).
    pub mu: f64,
    /// Initial speed along x (default 2 m/s).
    pub v0: f64,
    /// Radius (default 0.1 m).
    pub radius: f64,
    /// Mass (default 1 kg).
    pub mass: f64,
    /// Final time (default 0.4 s).
    pub t_end: f64,
    /// Height of the sphere above the plane at `t = 0` (default 0: in contact). A positive
    /// drop gives a frictional impact first (at velocity level, FC3D), with no restitution.
    pub drop: f64,
    /// Integrate with our port of LSODAR (Siconos' `LsodarOSI` defaults) instead of
    /// Dormand–Prince (default `false`).
    pub lsodar: bool,
}

impl Default for RollingSphereEd {
    fn default() -> Self {
        Self { h: 0.01, mu: 0.3, v0: 2.0, radius: 0.1, mass: 1.0, t_end: 0.4, drop: 0.0, lsodar: false }
    }
}

/// The rows and the events of a run.
#[derive(Clone, Debug)]
pub struct RollingSphereEdRun {
    /// One row per processed event (columns [`COLUMN_NAMES`]).
    pub rows: Trajectory,
    /// The nonsmooth events: `(t, impact, |I_1|, |I_2|)`.
    pub events: Vec<(f64, bool, usize, usize)>,
    /// The friction mode of the contact after each row's event.
    pub modes: Vec<FrictionMode>,
}

impl RollingSphereEd {
    /// The analytic transition time `2 v0 / (7 μ g)`.
    pub fn transition_time(&self) -> f64 {
        2.0 * self.v0 / (7.0 * self.mu * GRAVITY)
    }

    /// The simulation: the sphere at `z = R + drop` with speed `v0` along x and no spin, gravity
    /// along −z, its contact with the plane `z = 0` (`μ`, no restitution); Dormand–Prince at
    /// `rtol = atol = 1e-12`, or LSODAR with Siconos' tolerances.
    ///
    /// # Errors
    /// Mechanics and kernel errors.
    pub fn build(&self) -> Result<(EventDriven, DsId, InteractionId), MechanicsError> {
        let (m, r) = (self.mass, self.radius);
        let i = 0.4 * m * r * r;
        let q0 = [0.0, 0.0, r + self.drop, 1.0, 0.0, 0.0, 0.0];
        let body = NewtonEulerDs::new(
            q0,
            [self.v0, 0.0, 0.0, 0.0, 0.0, 0.0],
            m,
            [[i, 0.0, 0.0], [0.0, i, 0.0], [0.0, 0.0, i]],
        )?
        .with_external_force([0.0, 0.0, -m * GRAVITY])?
        .without_gyroscopic();
        // The plane (A) below the sphere (B): the normal from A to B is +z.
        let point = ContactPoint {
            point_a: [0.0; 3],
            point_b: [0.0, 0.0, self.drop],
            normal: [0.0, 0.0, 1.0],
            distance: self.drop,
        };
        let contact = ContactRelation::new(ContactDimension::Friction3d, &point, &q0, None)?;
        let mut nsds = Nsds::new();
        let body = nsds.add_ds(body);
        let contact = nsds.link(contact, NonsmoothLaw::newton_impact_friction(0.0, 0.0, self.mu, 3)?, &[body])?;
        let grid = TimeDiscretisation::new(0.0, self.h, self.t_end)?;
        let sim = if self.lsodar {
            EventDriven::new(nsds, grid, LsodarSmooth::siconos(), EventDrivenOptions::default())?
        } else {
            let options = OdeOptions::default().with_rtol(1e-12).with_atol(1e-12);
            EventDriven::new(nsds, grid, RestartingOde::new(options)?, EventDrivenOptions::default())?
        };
        Ok((sim, body, contact))
    }

    /// Runs the simulation.
    ///
    /// # Errors
    /// Mechanics and kernel errors.
    pub fn simulate(&self) -> Result<RollingSphereEdRun, MechanicsError> {
        let (mut sim, body, contact) = self.build()?;
        let mut rows = Trajectory::new(COLUMN_NAMES.len());
        let mut events = Vec::new();
        let mut modes = Vec::new();
        let r = self.radius;
        while sim.has_next_event() {
            sim.advance_to_event()?;
            let Some(report) = sim.process_events()? else { break };
            let (i1, i2) = report.index_sets;
            if report.kind == EventKind::Nonsmooth {
                events.push((report.time, report.impact, i1, i2));
            }
            let row = sim.with_nsds(|nsds| -> Result<[f64; 16], KernelError> {
                let s = nsds.ds(body)?.state();
                let (q, v) = (s.q(), s.v());
                let rot = Quaternion::new(q[3], q[4], q[5], q[6]).to_rotation_matrix();
                let w: Vec<f64> = (0..3).map(|k| rot[k][0] * v[3] + rot[k][1] * v[4] + rot[k][2] * v[5]).collect();
                // v_P = v_G + ω × (P − G), P − G = (0, 0, −R).
                let slip = [v[0] - r * w[1], v[1] + r * w[0]];
                let qn = (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]).sqrt();
                let lambda = nsds.interaction(contact)?.lambda(2)[0];
                Ok([
                    report.time,
                    q[0],
                    q[1],
                    q[2],
                    v[0],
                    v[1],
                    v[2],
                    w[0],
                    w[1],
                    w[2],
                    slip[0],
                    slip[1],
                    qn,
                    lambda,
                    i1 as f64,
                    i2 as f64,
                ])
            })?;
            rows.push(&row);
            modes.push(sim.friction_mode(contact)?);
        }
        Ok(RollingSphereEdRun { rows, events, modes })
    }
}
