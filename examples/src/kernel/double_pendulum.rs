//! A double pendulum with a floor and a wall: a nonlinear [`LagrangianDs`] in generalised
//! angles and two nonlinear scleronomous unilateral relations, so Moreau–Jean's Newton loop
//! and the nonlinear relations are exercised.
//!
//! Model: two point masses `m1`, `m2` on massless rods `l1`, `l2`, pivot at the origin, `y` up,
//! angles `q = (θ1, θ2)` from the downward vertical; positions `x1 = l1 sin θ1`,
//! `y1 = −l1 cos θ1`, `x2 = x1 + l2 sin θ2`, `y2 = y1 − l2 cos θ2`. With `c = cos(θ1 − θ2)`,
//! `s = sin(θ1 − θ2)` the Lagrange equations `M(q) q̈ + F_gyr(q, q̇) + F_int(q) = p` read
//! - `M(q) = [[(m1 + m2) l1², m2 l1 l2 c], [m2 l1 l2 c, m2 l2²]]`,
//! - `F_gyr = m2 l1 l2 s (ω2², −ω1²)` (the velocity-quadratic terms),
//! - `F_int = g ((m1 + m2) l1 sin θ1, m2 l2 sin θ2)` (gravity, the gradient of
//!   `V = −(m1 + m2) g l1 cos θ1 − m2 g l2 cos θ2`),
//!
//! with the exact Jacobians of [`DoublePendulum::gyroscopic_jacobian_q`],
//! [`DoublePendulum::gyroscopic_jacobian_v`] and [`DoublePendulum::internal_jacobian_q`].
//! Energy `E = ½ q̇ᵀ M(q) q̇ + V(q)`.
//!
//! Relations ([`LagrangianScleronomousR`], Newton impact law `e = 0.5`):
//! - floor under mass 2: `y = y2 − y_floor = −l1 cos θ1 − l2 cos θ2 − y_floor`,
//!   `G = (l1 sin θ1, l2 sin θ2)`, with `y_floor = −0.8 (l1 + l2)`;
//! - wall right of mass 1: `y = x_wall − x1 = x_wall − l1 sin θ1`, `G = (−l1 cos θ1, 0)`, with
//!   `x_wall = 0.8 l1` (a floor under mass 1 would be out of its reach: `y1 ≥ −l1`).
//!
//! Defaults: `m1 = m2 = 1`, `l1 = l2 = 1`, `g = 9.81`, released at rest from
//! `θ = (−π/2, −π/4)`, Moreau–Jean θ = 1/2, Lemke, `h = 1e-3`, `T = 5`, Newton tolerance
//! `1e-10`.
//!
//! Output rows ([`DoublePendulum::simulate`], the example's `--output` file), row 0 being the
//! initial state: `t, θ1, θ2, ω1, ω2, x1, y1, x2, y2, E, y_floor_gap, y_wall_gap, λ_floor,
//! λ_wall, newton_iterations` (15 columns; `λ` is the impulse of the step, the Newton
//! iterations those of the step; 0 in row 0).

use faer::Mat;
use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianDs, LagrangianScleronomousR, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::kernel::simulation::{
    MoreauJeanOsi, NonConvergencePolicy, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
    Trajectory,
};

/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// Number of columns of the output rows.
pub const COLUMNS: usize = 15;

/// Names of the output columns (header of the example's `--output` file; see the module
/// documentation).
pub const COLUMN_NAMES: [&str; COLUMNS] = [
    "t",
    "theta1",
    "theta2",
    "omega1",
    "omega2",
    "x1",
    "y1",
    "x2",
    "y2",
    "energy",
    "gap_floor",
    "gap_wall",
    "lambda_floor",
    "lambda_wall",
    "newton_iterations",
];

/// Parameters of the double pendulum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DoublePendulum {
    /// Mass 1 (default: `1`).
    pub m1: f64,
    /// Mass 2 (default: `1`).
    pub m2: f64,
    /// Rod 1 length (default: `1`).
    pub l1: f64,
    /// Rod 2 length (default: `1`).
    pub l2: f64,
    /// Initial angles `(θ1, θ2)` (default: `(−π/2, −π/4)`).
    pub theta0: [f64; 2],
    /// Initial angular velocities (default: `(0, 0)`).
    pub omega0: [f64; 2],
    /// Height of the floor under mass 2 (default: `−0.8 (l1 + l2) = −1.6`).
    pub floor: f64,
    /// Abscissa of the wall right of mass 1 (default: `0.8 l1 = 0.8`).
    pub wall: f64,
    /// Restitution coefficient (default: `0.5`).
    pub restitution: f64,
    /// Time step (default: `1e-3`).
    pub h: f64,
    /// Final time (default: `5`).
    pub t_end: f64,
    /// Newton tolerance on `‖R‖₂` (default: `1e-10`).
    pub newton_tolerance: f64,
    /// What a step whose Newton loop stops at its cap (or whose LCP ends above
    /// [`LCP_TOLERANCE`]) does (default: [`NonConvergencePolicy::Continue`]: the step is counted
    /// in [`PendulumRun::newton_failures`] and the run summary instead of ending the run).
    pub on_nonconvergence: NonConvergencePolicy,
}

/// Tolerance of the LCP solver of each step (the kernel's default Lemke,
/// `OneStepNsProblem::lcp_default`).
pub const LCP_TOLERANCE: f64 = 1e-6;

impl Default for DoublePendulum {
    fn default() -> Self {
        Self {
            m1: 1.0,
            m2: 1.0,
            l1: 1.0,
            l2: 1.0,
            theta0: [-std::f64::consts::FRAC_PI_2, -std::f64::consts::FRAC_PI_4],
            omega0: [0.0, 0.0],
            floor: -1.6,
            wall: 0.8,
            restitution: 0.5,
            h: 1e-3,
            t_end: 5.0,
            newton_tolerance: 1e-10,
            on_nonconvergence: NonConvergencePolicy::Continue,
        }
    }
}

/// The result of [`DoublePendulum::simulate`].
#[derive(Clone, Debug)]
pub struct PendulumRun {
    /// The rows (see the module documentation).
    pub trajectory: Trajectory,
    /// Steps taken.
    pub steps: usize,
    /// Newton iterations summed over the steps.
    pub newton_total: usize,
    /// Largest number of Newton iterations in one step.
    pub newton_max: usize,
    /// Largest final Newton residual of a step.
    pub newton_residual_max: f64,
    /// Steps whose Newton loop did not converge.
    pub newton_failures: usize,
    /// Impacts: steps where a contact's impulse is positive after a step where it was zero.
    pub impacts: usize,
    /// Convergence of the run's steps (`TimeStepping::run_summary`).
    pub summary: RunSummary,
}

impl DoublePendulum {
    /// The same pendulum with the floor and the wall out of reach (`y_floor = −10 (l1 + l2)`,
    /// `x_wall = 10 (l1 + l2)`): a free double pendulum.
    pub fn without_contact(mut self) -> Self {
        self.floor = -10.0 * (self.l1 + self.l2);
        self.wall = 10.0 * (self.l1 + self.l2);
        self
    }

    /// `M(q)` written into `out` (2 × 2).
    pub fn mass_matrix(&self, q: &[f64], out: &mut Mat<f64>) {
        let c = (q[0] - q[1]).cos();
        let off = self.m2 * self.l1 * self.l2 * c;
        out[(0, 0)] = (self.m1 + self.m2) * self.l1 * self.l1;
        out[(0, 1)] = off;
        out[(1, 0)] = off;
        out[(1, 1)] = self.m2 * self.l2 * self.l2;
    }

    /// `F_gyr(q, v) = m2 l1 l2 sin(θ1 − θ2) (ω2², −ω1²)`.
    pub fn gyroscopic(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let k = self.m2 * self.l1 * self.l2 * (q[0] - q[1]).sin();
        out[0] = k * v[1] * v[1];
        out[1] = -k * v[0] * v[0];
    }

    /// `∂F_gyr/∂q = m2 l1 l2 cos(θ1 − θ2) [[ω2², −ω2²], [−ω1², ω1²]]`.
    pub fn gyroscopic_jacobian_q(&self, q: &[f64], v: &[f64], out: &mut Mat<f64>) {
        let k = self.m2 * self.l1 * self.l2 * (q[0] - q[1]).cos();
        out[(0, 0)] = k * v[1] * v[1];
        out[(0, 1)] = -k * v[1] * v[1];
        out[(1, 0)] = -k * v[0] * v[0];
        out[(1, 1)] = k * v[0] * v[0];
    }

    /// `∂F_gyr/∂v = m2 l1 l2 sin(θ1 − θ2) [[0, 2 ω2], [−2 ω1, 0]]`.
    pub fn gyroscopic_jacobian_v(&self, q: &[f64], v: &[f64], out: &mut Mat<f64>) {
        let k = self.m2 * self.l1 * self.l2 * (q[0] - q[1]).sin();
        out[(0, 0)] = 0.0;
        out[(0, 1)] = 2.0 * k * v[1];
        out[(1, 0)] = -2.0 * k * v[0];
        out[(1, 1)] = 0.0;
    }

    /// `F_int(q) = g ((m1 + m2) l1 sin θ1, m2 l2 sin θ2)` (gravity).
    pub fn internal(&self, q: &[f64], out: &mut [f64]) {
        out[0] = (self.m1 + self.m2) * GRAVITY * self.l1 * q[0].sin();
        out[1] = self.m2 * GRAVITY * self.l2 * q[1].sin();
    }

    /// `∂F_int/∂q = g diag((m1 + m2) l1 cos θ1, m2 l2 cos θ2)`.
    pub fn internal_jacobian_q(&self, q: &[f64], out: &mut Mat<f64>) {
        out[(0, 0)] = (self.m1 + self.m2) * GRAVITY * self.l1 * q[0].cos();
        out[(0, 1)] = 0.0;
        out[(1, 0)] = 0.0;
        out[(1, 1)] = self.m2 * GRAVITY * self.l2 * q[1].cos();
    }

    /// Energy `½ vᵀ M(q) v − (m1 + m2) g l1 cos θ1 − m2 g l2 cos θ2`.
    pub fn energy(&self, q: &[f64], v: &[f64]) -> f64 {
        let mut m = Mat::zeros(2, 2);
        self.mass_matrix(q, &mut m);
        let kinetic = 0.5 * (m[(0, 0)] * v[0] * v[0] + 2.0 * m[(0, 1)] * v[0] * v[1] + m[(1, 1)] * v[1] * v[1]);
        kinetic - (self.m1 + self.m2) * GRAVITY * self.l1 * q[0].cos() - self.m2 * GRAVITY * self.l2 * q[1].cos()
    }

    /// Cartesian positions `(x1, y1, x2, y2)`.
    pub fn positions(&self, q: &[f64]) -> [f64; 4] {
        let (x1, y1) = (self.l1 * q[0].sin(), -self.l1 * q[0].cos());
        [x1, y1, x1 + self.l2 * q[1].sin(), y1 - self.l2 * q[1].cos()]
    }

    /// Floor gap of mass 2, `y2 − y_floor`.
    pub fn floor_gap(&self, q: &[f64]) -> f64 {
        -self.l1 * q[0].cos() - self.l2 * q[1].cos() - self.floor
    }

    /// `G = ∂(floor gap)/∂q = (l1 sin θ1, l2 sin θ2)`.
    pub fn floor_gradient(&self, q: &[f64]) -> [f64; 2] {
        [self.l1 * q[0].sin(), self.l2 * q[1].sin()]
    }

    /// Wall gap of mass 1, `x_wall − x1`.
    pub fn wall_gap(&self, q: &[f64]) -> f64 {
        self.wall - self.l1 * q[0].sin()
    }

    /// `G = ∂(wall gap)/∂q = (−l1 cos θ1, 0)`.
    pub fn wall_gradient(&self, q: &[f64]) -> [f64; 2] {
        [-self.l1 * q[0].cos(), 0.0]
    }

    /// The nonlinear Lagrangian system: `M(q)`, `F_int` (gravity) and `F_gyr` with their exact
    /// Jacobians (`∂F_int/∂v = 0`).
    ///
    /// # Errors
    /// [`KernelError::NotPositiveDefinite`] for non-positive masses or lengths, other kernel
    /// errors for non-finite values.
    pub fn lagrangian_ds(&self) -> Result<LagrangianDs, KernelError> {
        let p = *self;
        let mut m0 = Mat::zeros(2, 2);
        p.mass_matrix(&self.theta0, &mut m0);
        Ok(LagrangianDs::new(self.theta0.to_vec(), self.omega0.to_vec(), m0)?
            .with_mass_fn(move |q, out| p.mass_matrix(q, out))?
            .with_internal_forces(
                move |_t, q, _v, out| p.internal(q, out),
                move |_t, q, _v, out| p.internal_jacobian_q(q, out),
                |_t, _q, _v, _out| {},
            )
            .with_gyroscopic_forces(
                move |_t, q, v, out| p.gyroscopic(q, v, out),
                move |_t, q, v, out| p.gyroscopic_jacobian_q(q, v, out),
                move |_t, q, v, out| p.gyroscopic_jacobian_v(q, v, out),
            ))
    }

    /// The floor relation of mass 2 (size 1).
    ///
    /// # Errors
    /// None in practice (size 1 is valid).
    pub fn floor_relation(&self) -> Result<LagrangianScleronomousR, KernelError> {
        let p = *self;
        LagrangianScleronomousR::new(
            1,
            move |q, y| y[0] = p.floor_gap(q),
            move |q, g| {
                let d = p.floor_gradient(q);
                g[(0, 0)] = d[0];
                g[(0, 1)] = d[1];
            },
        )
    }

    /// The wall relation of mass 1 (size 1).
    ///
    /// # Errors
    /// None in practice (size 1 is valid).
    pub fn wall_relation(&self) -> Result<LagrangianScleronomousR, KernelError> {
        let p = *self;
        LagrangianScleronomousR::new(
            1,
            move |q, y| y[0] = p.wall_gap(q),
            move |q, g| {
                let d = p.wall_gradient(q);
                g[(0, 0)] = d[0];
                g[(0, 1)] = d[1];
            },
        )
    }

    /// The simulation ready to step, with the pendulum's, the floor's and the wall's handles.
    ///
    /// # Errors
    /// Kernel errors (see [`DoublePendulum::lagrangian_ds`]).
    pub fn build(&self) -> Result<(TimeStepping, DsId, InteractionId, InteractionId), KernelError> {
        let mut nsds = Nsds::new();
        let ds = nsds.add_ds(self.lagrangian_ds()?);
        let floor = nsds.link(self.floor_relation()?, NonsmoothLaw::newton_impact(self.restitution)?, &[ds])?;
        let wall = nsds.link(self.wall_relation()?, NonsmoothLaw::newton_impact(self.restitution)?, &[ds])?;
        let sim = TimeStepping::new(
            nsds,
            MoreauJeanOsi::with_theta(0.5)?,
            OneStepNsProblem::lcp_default()?,
            TimeDiscretisation::new(0.0, self.h, self.t_end)?,
            TimeSteppingOptions::default()
                .with_newton_tolerance(self.newton_tolerance)
                .with_policy(self.on_nonconvergence),
        )?;
        Ok((sim, ds, floor, wall))
    }

    /// Runs the model and returns the rows and the Newton and impact counts.
    ///
    /// # Errors
    /// Kernel errors (a Newton loop stopping at its cap of 50 iterations is not one: it is
    /// counted in [`PendulumRun::newton_failures`]).
    pub fn simulate(&self) -> Result<PendulumRun, KernelError> {
        let (mut sim, ds, floor, wall) = self.build()?;
        let mut trajectory = Trajectory::new(COLUMNS);
        let row = |sim: &TimeStepping, iterations: usize| -> Result<[f64; COLUMNS], KernelError> {
            let state = sim.nsds().ds(ds)?.state();
            let (q, v) = (state.q(), state.v());
            let x = self.positions(q);
            let (f, w) = (sim.nsds().interaction(floor)?, sim.nsds().interaction(wall)?);
            Ok([
                sim.time(),
                q[0],
                q[1],
                v[0],
                v[1],
                x[0],
                x[1],
                x[2],
                x[3],
                self.energy(q, v),
                f.y(0)[0],
                w.y(0)[0],
                f.lambda(1)[0],
                w.lambda(1)[0],
                iterations as f64,
            ])
        };
        trajectory.push(&row(&sim, 0)?);
        let (mut steps, mut newton_total, mut newton_max, mut newton_failures, mut impacts) = (0, 0, 0, 0, 0);
        let mut newton_residual_max = 0.0f64;
        let mut previous = [0.0f64; 2];
        while sim.has_next_step() {
            let report = sim.step()?;
            steps += 1;
            newton_total += report.newton_iterations;
            newton_max = newton_max.max(report.newton_iterations);
            newton_residual_max = newton_residual_max.max(report.newton_residual);
            if !report.newton_converged {
                newton_failures += 1;
            }
            let lambda = [sim.nsds().interaction(floor)?.lambda(1)[0], sim.nsds().interaction(wall)?.lambda(1)[0]];
            impacts += (0..2).filter(|&i| lambda[i] > 0.0 && previous[i] <= 0.0).count();
            previous = lambda;
            trajectory.push(&row(&sim, report.newton_iterations)?);
        }
        let summary = sim.run_summary().with_tolerance(LCP_TOLERANCE);
        Ok(PendulumRun {
            trajectory,
            steps,
            newton_total,
            newton_max,
            newton_residual_max,
            newton_failures,
            impacts,
            summary,
        })
    }
}
