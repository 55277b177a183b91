//! The planar slider-crank with a translational clearance joint of Flores, Leine and Glocker
//! ("Modeling and analysis of planar rigid multibody systems with translational clearance joints
//! based on the non-smooth dynamics approach", Multibody Syst. Dyn. 23, 2010), as Siconos
//! simulates it in `examples/Mechanics/SliderCrank/` (`SliderCrankMoreauJeanOSI.cpp`,
//! `SliderCrankMoreauJeanDirectProjectionOSI.cpp`, `SliderCrankMoreauJeanCombinedProjectionOSI.cpp`
//! and the plugin `SliderCrankPlugin/SliderCrankPlugin.cpp`, whose parameters "according to Table
//! 1" of the paper and formulas are used here). Plain Moreau–Jean lets the
//! penetration of the nonlinear corner contacts grow, the projection schemes keep it below their
//! tolerance.
//!
//! Model: a crank (length `l1`, mass `m1`, inertia `J1` about its centre of mass) turns about the
//! origin; a connecting rod (`l2`, `m2`, `J2`) joins the crank tip to the centre of a rectangular
//! slider (half-length `a`, half-height `b`, mass `m3`, inertia `J3`) that moves between two
//! horizontal guides at heights `±(b + c)` (`c` is the clearance). Coordinates
//! `q = (θ1, θ2, θ3)`: crank angle, rod angle (both from the horizontal `x` axis) and slider angle;
//! the slider centre is at `(l1 cos θ1 + l2 cos θ2, l1 sin θ1 + l2 sin θ2)`. Gravity `g` acts
//! along `−y`. The Lagrange equations `M(q) q̈ + F_gyr(q, q̇) + F_int(q) = p` read, with
//! `k = (m2/2 + m3) l1 l2` and `s = sin(θ1 − θ2)`:
//! - `M(q) = [[J1 + (m1/4 + m2 + m3) l1², k cos(θ1 − θ2), 0], [k cos(θ1 − θ2), J2 + (m2/4 + m3) l2², 0], [0, 0, J3]]`
//!   (kinetic energy of the three bodies, centres of mass at the middle of crank and rod);
//! - `F_gyr = k s (ω2², −ω1², 0)` (the velocity-quadratic terms `d/dt ∂T/∂q̇ − ∂T/∂q − M q̈`);
//! - `F_int = ∂V/∂q = g ((m1/2 + m2 + m3) l1 cos θ1, (m2/2 + m3) l2 cos θ2, 0)`, the gradient of
//!   the potential `V = g ((m1/2 + m2 + m3) l1 sin θ1 + (m2/2 + m3) l2 sin θ2)` (Siconos puts
//!   gravity in `FInt` too).
//!
//! Contacts: the slider corner `i` at local coordinates `(σx a, σy b)` has height
//! `y_i = l1 sin θ1 + l2 sin θ2 + σx a sin θ3 + σy b cos θ3`; its gap to the guide on its side is
//! `g_i(q) = (b + c) − σy y_i`, with `(σx, σy) = (−1, 1), (1, 1), (−1, −1), (1, −1)` for corners
//! 1..4 (Siconos' `g1..g4`), and `G_i = ∂g_i/∂q = (−σy l1 cos θ1, −σy l2 cos θ2,
//! −σx σy a cos θ3 + b sin θ3)` (Siconos' `W1..W4`). Each is a [`LagrangianScleronomousR`] with a
//! Newton impact law. The gaps depend on `θ3` through `sin θ3`, `cos θ3`: the constraints are
//! nonlinear, and the velocity-level Moreau–Jean scheme, which only enforces `ẏ ≥ −e ẏ⁻` at the
//! end of the steps, lets the position-level gap drift below zero.
//!
//! Defaults (Siconos' `SliderCrankMoreauJeanOSI.cpp`): `l1 = 0.153`, `l2 = 0.306`, `a = 0.05`,
//! `b = 0.025`, `c = 0.001`, `m1 = m2 = 0.038`, `m3 = 0.076`, `J1 = 7.4e-5`, `J2 = 5.9e-4`,
//! `J3 = 2.7e-6`, `g = 9.81`, `q0 = 0`, `v0 = (150, −75, 0)`, `e = 0.1`, `h = 1e-5`, `T = 0.2`,
//! Moreau–Jean θ = 1/2, Lemke (tolerance `1e-8`, at most 100 pivots), Newton tolerance `1e-10`
//! with at most 200 iterations.
//!
//! Measured (tests `examples/tests/slider_crank.rs`): at `h = 1e-5` plain Moreau–Jean penetrates
//! by up to 6.6e-6 on impact steps, without growth over time; at `h = 1e-4` over 1 s its largest
//! penetration per tenth of the run grows from 6e-5 to 1.6e-4 while the scheme's `O(h)` energy
//! gain speeds the crank up (7.50 J to 27.5 J). The combined projection keeps every gap above
//! `−1e-8` on every step; the direct projection keeps the contacts of its index set within
//! `1e-8` and corrects an impact's penetration on the next step.
//!
//! Output rows ([`SliderCrank::simulate`]; row 0 is the initial state):
//! `t, θ1, θ2, θ3, ω1, ω2, ω3, g1, g2, g3, g4, min_i g_i` ([`COLUMNS`] = 12), the gaps
//! evaluated from `q` at the end of each step.

use faer::Mat;
use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{LagrangianDs, LagrangianScleronomousR, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{
    CombinedProjectionOptions, DirectProjectionOptions, MoreauJeanCombinedProjectionOsi, MoreauJeanDirectProjectionOsi,
    MoreauJeanOptions, MoreauJeanOsi, NonConvergencePolicy, OneStepNsProblem, StepReport, TimeDiscretisation,
    TimeStepping, TimeSteppingOptions, Trajectory,
};
use nonsmooth::numerics::lcp::{LcpMethod, LemkeOptions};

/// Number of columns of the output rows.
pub const COLUMNS: usize = 12;

/// Names of the output columns (header of the example's `--output` file; see the module
/// documentation): time, angles, angular velocities, the four corner gaps and the smallest.
pub const COLUMN_NAMES: [&str; COLUMNS] =
    ["t", "theta1", "theta2", "theta3", "omega1", "omega2", "omega3", "g1", "g2", "g3", "g4", "g_min"];

/// Column of the smallest gap in the output rows.
pub const MIN_GAP_COLUMN: usize = 11;

/// Corner signs `(σx, σy)` of the four contacts (Siconos' `g1..g4`).
pub const CORNERS: [(f64, f64); 4] = [(-1.0, 1.0), (1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)];

/// The time-stepping scheme of a run (on the command line: `mj`, `direct`, `combined`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scheme {
    /// Plain Moreau–Jean (velocity-level impacts only; Siconos' `MoreauJeanOSI`).
    #[value(name = "mj")]
    MoreauJean,
    /// Moreau–Jean followed by a projection of the positions onto the active constraints
    /// (Siconos' `MoreauJeanDirectProjectionOSI` + `TimeSteppingDirectProjection`).
    #[value(name = "direct")]
    DirectProjection,
    /// Moreau–Jean with the combined velocity/position projection (Siconos'
    /// `MoreauJeanCombinedProjectionOSI` + `TimeSteppingCombinedProjection`).
    #[value(name = "combined")]
    CombinedProjection,
}

/// Parameters of the slider-crank (see the module documentation for the model).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliderCrank {
    /// Crank length `l1` (default: `0.153`).
    pub l1: f64,
    /// Connecting-rod length `l2` (default: `0.306`).
    pub l2: f64,
    /// Slider half-length `a` (default: `0.05`).
    pub a: f64,
    /// Slider half-height `b` (default: `0.025`).
    pub b: f64,
    /// Clearance `c` between the slider and each guide when centred (default: `0.001`).
    pub clearance: f64,
    /// Crank mass `m1` (default: `0.038`).
    pub m1: f64,
    /// Rod mass `m2` (default: `0.038`).
    pub m2: f64,
    /// Slider mass `m3` (default: `0.076`).
    pub m3: f64,
    /// Crank inertia about its centre of mass `J1` (default: `7.4e-5`).
    pub j1: f64,
    /// Rod inertia about its centre of mass `J2` (default: `5.9e-4`).
    pub j2: f64,
    /// Slider inertia about its centre `J3` (default: `2.7e-6`).
    pub j3: f64,
    /// Gravity along `−y` (default: `9.81`).
    pub gravity: f64,
    /// Initial angles (default: `(0, 0, 0)`).
    pub q0: [f64; 3],
    /// Initial angular velocities (default: `(150, −75, 0)`).
    pub v0: [f64; 3],
    /// Newton restitution coefficient of the four contacts (default: `0.1`).
    pub restitution: f64,
    /// Time step (default: `1e-5`).
    pub h: f64,
    /// Final time (default: `0.2`).
    pub t_end: f64,
    /// Newton tolerance (default: `1e-10`).
    pub newton_tolerance: f64,
    /// Newton iteration cap (default: `200`).
    pub newton_max_iterations: usize,
    /// What a step whose Newton loop or projection stops at its cap (or whose LCP ends above
    /// [`LCP_TOLERANCE`]) does (default: [`NonConvergencePolicy::Continue`]: its [`StepReport`]
    /// and the run summary say so).
    pub on_nonconvergence: NonConvergencePolicy,
}

/// Tolerance of the Lemke solver of each step's LCP.
pub const LCP_TOLERANCE: f64 = 1e-8;

impl Default for SliderCrank {
    fn default() -> Self {
        Self {
            l1: 0.1530,
            l2: 0.3060,
            a: 0.05,
            b: 0.025,
            clearance: 0.001,
            m1: 0.038,
            m2: 0.038,
            m3: 0.076,
            j1: 7.4e-5,
            j2: 5.9e-4,
            j3: 2.7e-6,
            gravity: 9.81,
            q0: [0.0; 3],
            v0: [150.0, -75.0, 0.0],
            restitution: 0.1,
            h: 1e-5,
            t_end: 0.2,
            newton_tolerance: 1e-10,
            newton_max_iterations: 200,
            on_nonconvergence: NonConvergencePolicy::Continue,
        }
    }
}

impl SliderCrank {
    /// The same mechanism with the guides out of reach (clearance `10`, larger than the slider's
    /// reach `l1 + l2 + a + b`): no contact ever closes.
    pub fn without_contact(mut self) -> Self {
        self.clearance = 10.0 * (self.l1 + self.l2 + self.a + self.b);
        self
    }

    /// `k = (m2/2 + m3) l1 l2`, the coefficient of the crank–rod coupling.
    fn coupling(&self) -> f64 {
        (0.5 * self.m2 + self.m3) * self.l1 * self.l2
    }

    /// `M(q)` written into `out` (3 × 3, see the module documentation).
    pub fn mass_matrix(&self, q: &[f64], out: &mut Mat<f64>) {
        let off = self.coupling() * (q[0] - q[1]).cos();
        out[(0, 0)] = self.j1 + (0.25 * self.m1 + self.m2 + self.m3) * self.l1 * self.l1;
        out[(0, 1)] = off;
        out[(0, 2)] = 0.0;
        out[(1, 0)] = off;
        out[(1, 1)] = self.j2 + (0.25 * self.m2 + self.m3) * self.l2 * self.l2;
        out[(1, 2)] = 0.0;
        out[(2, 0)] = 0.0;
        out[(2, 1)] = 0.0;
        out[(2, 2)] = self.j3;
    }

    /// `F_gyr(q, v) = k sin(θ1 − θ2) (ω2², −ω1², 0)`.
    pub fn gyroscopic(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let ks = self.coupling() * (q[0] - q[1]).sin();
        out[0] = ks * v[1] * v[1];
        out[1] = -ks * v[0] * v[0];
        out[2] = 0.0;
    }

    /// `∂F_gyr/∂q = k cos(θ1 − θ2) [[ω2², −ω2², 0], [−ω1², ω1², 0], [0, 0, 0]]`.
    pub fn gyroscopic_jacobian_q(&self, q: &[f64], v: &[f64], out: &mut Mat<f64>) {
        let kc = self.coupling() * (q[0] - q[1]).cos();
        zero(out);
        out[(0, 0)] = kc * v[1] * v[1];
        out[(0, 1)] = -kc * v[1] * v[1];
        out[(1, 0)] = -kc * v[0] * v[0];
        out[(1, 1)] = kc * v[0] * v[0];
    }

    /// `∂F_gyr/∂v = k sin(θ1 − θ2) [[0, 2 ω2, 0], [−2 ω1, 0, 0], [0, 0, 0]]`.
    pub fn gyroscopic_jacobian_v(&self, q: &[f64], v: &[f64], out: &mut Mat<f64>) {
        let ks = self.coupling() * (q[0] - q[1]).sin();
        zero(out);
        out[(0, 1)] = 2.0 * ks * v[1];
        out[(1, 0)] = -2.0 * ks * v[0];
    }

    /// `F_int(q) = g ((m1/2 + m2 + m3) l1 cos θ1, (m2/2 + m3) l2 cos θ2, 0)` (gravity).
    pub fn internal(&self, q: &[f64], out: &mut [f64]) {
        out[0] = (0.5 * self.m1 + self.m2 + self.m3) * self.gravity * self.l1 * q[0].cos();
        out[1] = (0.5 * self.m2 + self.m3) * self.gravity * self.l2 * q[1].cos();
        out[2] = 0.0;
    }

    /// `∂F_int/∂q = −g diag((m1/2 + m2 + m3) l1 sin θ1, (m2/2 + m3) l2 sin θ2, 0)`.
    pub fn internal_jacobian_q(&self, q: &[f64], out: &mut Mat<f64>) {
        zero(out);
        out[(0, 0)] = -(0.5 * self.m1 + self.m2 + self.m3) * self.gravity * self.l1 * q[0].sin();
        out[(1, 1)] = -(0.5 * self.m2 + self.m3) * self.gravity * self.l2 * q[1].sin();
    }

    /// Potential energy `V(q) = g ((m1/2 + m2 + m3) l1 sin θ1 + (m2/2 + m3) l2 sin θ2)`.
    pub fn potential_energy(&self, q: &[f64]) -> f64 {
        self.gravity
            * ((0.5 * self.m1 + self.m2 + self.m3) * self.l1 * q[0].sin()
                + (0.5 * self.m2 + self.m3) * self.l2 * q[1].sin())
    }

    /// Total energy `½ vᵀ M(q) v + V(q)`.
    pub fn energy(&self, q: &[f64], v: &[f64]) -> f64 {
        let mut m = Mat::zeros(3, 3);
        self.mass_matrix(q, &mut m);
        let mut kinetic = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                kinetic += 0.5 * v[i] * m[(i, j)] * v[j];
            }
        }
        kinetic + self.potential_energy(q)
    }

    /// Gap `g_i(q) = (b + c) − σy (l1 sin θ1 + l2 sin θ2 + σx a sin θ3 + σy b cos θ3)` of corner
    /// `corner` (0-based, Siconos' `g1..g4` for 0..3) to its guide.
    ///
    /// # Panics
    /// When `corner > 3`.
    pub fn gap(&self, corner: usize, q: &[f64]) -> f64 {
        let (sx, sy) = CORNERS[corner];
        let height = self.l1 * q[0].sin() + self.l2 * q[1].sin() + sx * self.a * q[2].sin() + sy * self.b * q[2].cos();
        self.b + self.clearance - sy * height
    }

    /// The four gaps `g_1..g_4`.
    pub fn gaps(&self, q: &[f64]) -> [f64; 4] {
        [self.gap(0, q), self.gap(1, q), self.gap(2, q), self.gap(3, q)]
    }

    /// `G_i = ∂g_i/∂q = (−σy l1 cos θ1, −σy l2 cos θ2, −σx σy a cos θ3 + b sin θ3)` (Siconos'
    /// `W1..W4`).
    ///
    /// # Panics
    /// When `corner > 3`.
    pub fn gap_gradient(&self, corner: usize, q: &[f64]) -> [f64; 3] {
        let (sx, sy) = CORNERS[corner];
        [-sy * self.l1 * q[0].cos(), -sy * self.l2 * q[1].cos(), -sx * sy * self.a * q[2].cos() + self.b * q[2].sin()]
    }

    /// The nonlinear Lagrangian system: `M(q)`, `F_int` (gravity) and `F_gyr` with their exact
    /// Jacobians (`∂F_int/∂v = 0`).
    ///
    /// # Errors
    /// [`KernelError::NotPositiveDefinite`] for non-positive masses or inertias, other kernel
    /// errors for non-finite values.
    pub fn lagrangian_ds(&self) -> Result<LagrangianDs, KernelError> {
        let p = *self;
        let mut m0 = Mat::zeros(3, 3);
        p.mass_matrix(&self.q0, &mut m0);
        Ok(LagrangianDs::new(self.q0.to_vec(), self.v0.to_vec(), m0)?
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

    /// The contact relation of corner `corner` (0-based; size 1).
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] when `corner > 3`.
    pub fn corner_relation(&self, corner: usize) -> Result<LagrangianScleronomousR, KernelError> {
        if corner >= CORNERS.len() {
            return Err(KernelError::InvalidModel(format!("the slider has 4 corners, not corner {corner}")));
        }
        let p = *self;
        LagrangianScleronomousR::new(
            1,
            move |q, y| y[0] = p.gap(corner, q),
            move |q, g| {
                let d = p.gap_gradient(corner, q);
                for (j, dj) in d.into_iter().enumerate() {
                    g[(0, j)] = dj;
                }
            },
        )
    }

    /// The model: the mechanism and its four corner contacts (Newton impact law `e`).
    ///
    /// # Errors
    /// Kernel errors of [`SliderCrank::lagrangian_ds`] and of the laws (`e` outside `[0, 1]`).
    pub fn nsds(&self) -> Result<Nsds, KernelError> {
        let mut nsds = Nsds::new();
        let ds = nsds.add_ds(self.lagrangian_ds()?);
        for corner in 0..CORNERS.len() {
            nsds.link(self.corner_relation(corner)?, NonsmoothLaw::newton_impact(self.restitution)?, &[ds])?;
        }
        Ok(nsds)
    }

    /// The simulation ready to step with `scheme`: Moreau–Jean θ = γ = 1/2, the projections with
    /// the kernel's default options ([`DirectProjectionOptions`]: unilateral tolerance `1e-8`, 10
    /// iterations, activation threshold `1e-7`; [`CombinedProjectionOptions`]: tolerance `1e-8`,
    /// 50 iterations, 50 passes), Lemke with tolerance `1e-8` and at most 100 pivots (Siconos'
    /// drivers' settings). The policy is [`SliderCrank::on_nonconvergence`].
    ///
    /// # Errors
    /// Kernel errors of the model and of the simulation's set-up.
    pub fn build(&self, scheme: Scheme) -> Result<TimeStepping, KernelError> {
        let nsds = self.nsds()?;
        let osns = OneStepNsProblem::lcp(LcpMethod::Lemke(
            LemkeOptions::default().with_tolerance(LCP_TOLERANCE).with_max_iterations(100),
        ))?;
        let grid = TimeDiscretisation::new(0.0, self.h, self.t_end)?;
        let options = TimeSteppingOptions::default()
            .with_newton_tolerance(self.newton_tolerance)
            .with_newton_max_iterations(self.newton_max_iterations)
            .with_policy(self.on_nonconvergence);
        match scheme {
            Scheme::MoreauJean => TimeStepping::new(nsds, MoreauJeanOsi::with_theta(0.5)?, osns, grid, options),
            Scheme::DirectProjection => TimeStepping::new(
                nsds,
                MoreauJeanDirectProjectionOsi::new(MoreauJeanOptions::default(), DirectProjectionOptions::default())?,
                osns,
                grid,
                options,
            ),
            Scheme::CombinedProjection => TimeStepping::new(
                nsds,
                MoreauJeanCombinedProjectionOsi::new(
                    MoreauJeanOptions::default(),
                    CombinedProjectionOptions::default(),
                )?,
                osns,
                grid,
                options,
            ),
        }
    }

    /// One output row at the current state of `sim`.
    fn row(&self, sim: &TimeStepping) -> Result<[f64; COLUMNS], KernelError> {
        let id = sim.nsds().ds_ids().next().ok_or_else(|| KernelError::InvalidModel("no system".into()))?;
        let state = sim.nsds().ds(id)?.state();
        let (q, v) = (state.q(), state.v());
        let g = self.gaps(q);
        Ok([
            sim.time(),
            q[0],
            q[1],
            q[2],
            v[0],
            v[1],
            v[2],
            g[0],
            g[1],
            g[2],
            g[3],
            g.into_iter().fold(f64::INFINITY, f64::min),
        ])
    }

    /// Runs the model with `scheme` and returns the rows (see the module documentation).
    ///
    /// # Errors
    /// Kernel errors (under the default policy, a Newton loop or a projection stopping at its
    /// cap is not one).
    pub fn simulate(&self, scheme: Scheme) -> Result<Trajectory, KernelError> {
        Ok(self.simulate_with_reports(scheme)?.0)
    }

    /// Runs the model with `scheme` and returns the rows and the report of every step (the
    /// `k`-th report belongs to row `k + 1`): Newton iterations, active contacts and, for the
    /// projection schemes, what the projection did.
    ///
    /// # Errors
    /// As [`SliderCrank::simulate`].
    pub fn simulate_with_reports(&self, scheme: Scheme) -> Result<(Trajectory, Vec<StepReport>), KernelError> {
        let mut sim = self.build(scheme)?;
        let mut trajectory = Trajectory::new(COLUMNS);
        let mut reports = Vec::new();
        trajectory.push(&self.row(&sim)?);
        while sim.has_next_step() {
            reports.push(sim.step()?);
            trajectory.push(&self.row(&sim)?);
        }
        Ok((trajectory, reports))
    }
}

/// Sets every entry of `m` to zero.
fn zero(m: &mut Mat<f64>) {
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            m[(i, j)] = 0.0;
        }
    }
}
