//! A point mass on a massless inextensible string, simulated event by event: the string is a
//! unilateral constraint (it can go slack, it cannot stretch).
//!
//! Model. `q = (x, z)`, mass matrix `m I`, gravity `F = (0, −m g)` (along `−z`), the string of
//! length `l` attached at the origin. The constraint is the `LagrangianScleronomousR`
//! `y = h(q) = l² − (x² + z²) ≥ 0` with `G(q) = ∇h = (−2x, −2z)` and
//! `dG/dt · v = −2 (ẋ² + ż²)` (`with_jacobian_time_derivative`), so that
//! `ÿ = G q̈ + Ġ v`; the Newton impact law `ẏ⁺ = −e ẏ⁻` (default `e = 0`: a string that
//! tightens does not bounce).
//!
//! Tension. The reaction is `Gᵀ λ = −2 λ q`: a force of magnitude `2 l λ` pulling towards the
//! origin when `|q| = l`, so the tension is `T = 2 l λ`. Newton's law along the string
//! (centripetal acceleration `v²/l` towards the origin, `φ` the angle from the downward vertical,
//! `cos φ = −z/l`) gives `T − m g cos φ = m v²/l`, hence `T = m (v²/l + g cos φ)` and
//! `λ(2) = m (v²/l + g cos φ) / (2 l) = m (v² − g z) / (2 l²)`. This is also what the
//! acceleration LCP computes: `G M⁻¹ (F + Gᵀ λ) + Ġ v = 0` reads
//! `2 g z + 4 l² λ / m − 2 v² = 0`.
//!
//! Release. The tension vanishes where `v² = −g l cos φ = g z`; with the energy per unit mass
//! `E = v²/2 + g z` constant while the string is taut, this is the height `z = 2E/(3g)` (above
//! the pivot). There `λ(2)` crosses 0 and the contact leaves `I_2`: the mass flies on a
//! parabola inside the circle until the string tightens again (an impact).

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{
    DsId, InteractionId, LagrangianLinearTids, LagrangianScleronomousR, NonsmoothLaw, Nsds,
};
use nonsmooth::kernel::simulation::{EventDriven, EventKind, OdeOptions, RestartingOde, SmoothIntegrator, Trajectory};

/// Names of the columns of [`PendulumRun::rows`] (header of the example's `--output` file): time,
/// position `(x, z)`, velocity `(ẋ, ż)`, constraint `y = l² − |q|²`, multipliers `λ(1)`
/// (impulse) and `λ(2)` (force; tension `2 l λ(2)`), sizes of index sets 1 and 2, then the
/// acceleration `(ẍ, z̈)` and the constraint's second derivative `ÿ` (as the simulation stores
/// them: [`EventDriven::acceleration`], [`EventDriven::output`]).
pub const COLUMN_NAMES: [&str; 13] =
    ["t", "x", "z", "v_x", "v_z", "y", "lambda1", "lambda2", "size_I1", "size_I2", "a_x", "a_z", "y_ddot"];

/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// Parameters of the model.
#[derive(Clone, Copy, Debug)]
pub struct PendulumEd {
    /// Output step (default 0.005).
    pub h: f64,
    /// Final time (default 2).
    pub t_end: f64,
    /// String length `l` (default 1).
    pub length: f64,
    /// Mass `m` (default 1).
    pub mass: f64,
    /// Restitution coefficient of the string (default 0).
    pub restitution: f64,
    /// Initial position `(x, z)`, inside or on the circle (default `(0, −0.99)`: just above
    /// the lowest point, the string slack).
    pub q0: [f64; 2],
    /// Initial velocity (default `(6.5, 0)`: the string tightens at `t ≈ 0.02` (impact, the
    /// radial velocity is lost), then the mass swings up past the horizontal until the tension
    /// vanishes at `z = 2E/(3g) ≈ 0.74`, flies inside the circle and is caught again).
    pub v0: [f64; 2],
}

impl Default for PendulumEd {
    fn default() -> Self {
        Self { h: 0.005, t_end: 2.0, length: 1.0, mass: 1.0, restitution: 0.0, q0: [0.0, -0.99], v0: [6.5, 0.0] }
    }
}

/// The rows and the events of a run.
#[derive(Clone, Debug)]
pub struct PendulumRun {
    /// One row per processed event: `t, x, z, ẋ, ż, y, λ(1), λ(2), |I_1|, |I_2|, ẍ, z̈, ÿ` (the
    /// row of an impact holds the post-impact state).
    pub rows: Trajectory,
    /// The nonsmooth events: `(t, impact, |I_1|, |I_2|)`.
    pub events: Vec<(f64, bool, usize, usize)>,
}

impl PendulumEd {
    /// The simulation (Dormand–Prince at `rtol = atol = 1e-14`, Siconos' default `TOL_ED` and
    /// Lemke LCPs), its mass and its string.
    ///
    /// # Errors
    /// Kernel errors (e.g. an initial position outside the circle).
    pub fn build(&self) -> Result<(EventDriven, DsId, InteractionId), KernelError> {
        let options = OdeOptions::default().with_rtol(1e-14).with_atol(1e-14);
        self.build_with(RestartingOde::new(options)?)
    }

    /// The simulation with the given smooth integrator (e.g. `LsodarSmooth::siconos()`, as
    /// Siconos' `LsodarOSI`), its mass and its string.
    ///
    /// # Errors
    /// Kernel errors (e.g. an initial position outside the circle).
    pub fn build_with(
        &self,
        integrator: impl SmoothIntegrator + 'static,
    ) -> Result<(EventDriven, DsId, InteractionId), KernelError> {
        let (m, l) = (self.mass, self.length);
        let body = LagrangianLinearTids::new(self.q0.to_vec(), self.v0.to_vec(), faer::mat![[m, 0.0], [0.0, m]])?
            .with_external_force(vec![0.0, -m * GRAVITY])?;
        let string = LagrangianScleronomousR::new(
            1,
            move |q, y| y[0] = l * l - (q[0] * q[0] + q[1] * q[1]),
            |q, g| {
                g[(0, 0)] = -2.0 * q[0];
                g[(0, 1)] = -2.0 * q[1];
            },
        )?
        .with_jacobian_time_derivative(|_q, v, out| out[0] = -2.0 * (v[0] * v[0] + v[1] * v[1]));
        let mut nsds = Nsds::new();
        let body = nsds.add_ds(body);
        let string = nsds.link(string, NonsmoothLaw::newton_impact(self.restitution)?, &[body])?;
        let sim = super::event_driven(nsds, self.h, self.t_end, integrator)?;
        Ok((sim, body, string))
    }

    /// The string tension `λ(2)` of a taut string at state `(q, v)`:
    /// `m (v² − g z) / (2 l²)` (see the module documentation).
    pub fn analytic_lambda(&self, q: [f64; 2], v: [f64; 2]) -> f64 {
        let v2 = v[0] * v[0] + v[1] * v[1];
        self.mass * (v2 - GRAVITY * q[1]) / (2.0 * self.length * self.length)
    }

    /// Runs the simulation.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate(&self) -> Result<PendulumRun, KernelError> {
        let (sim, body, string) = self.build()?;
        run(sim, body, string)
    }
}

/// Steps `sim` (built by [`PendulumEd::build_with`]) to the end, writing the rows of
/// [`PendulumEd::simulate`].
///
/// # Errors
/// Kernel errors.
pub fn run(mut sim: EventDriven, body: DsId, string: InteractionId) -> Result<PendulumRun, KernelError> {
    let mut rows = Trajectory::new(COLUMN_NAMES.len());
    let mut events = Vec::new();
    while sim.has_next_event() {
        sim.advance_to_event()?;
        let Some(report) = sim.process_events()? else { break };
        let (i1, i2) = report.index_sets;
        if report.kind == EventKind::Nonsmooth {
            events.push((report.time, report.impact, i1, i2));
        }
        let (q, v) = sim.with_nsds(|nsds| -> Result<_, KernelError> {
            let s = nsds.ds(body)?.state();
            Ok(([s.q()[0], s.q()[1]], [s.v()[0], s.v()[1]]))
        })?;
        let a = sim.acceleration(body)?;
        rows.push(&[
            report.time,
            q[0],
            q[1],
            v[0],
            v[1],
            sim.output(string, 0)?[0],
            sim.multiplier(string, 1)?[0],
            sim.multiplier(string, 2)?[0],
            i1 as f64,
            i2 as f64,
            a[0],
            a[1],
            sim.output(string, 2)?[0],
        ]);
    }
    Ok(PendulumRun { rows, events })
}
