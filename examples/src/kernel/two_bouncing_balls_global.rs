//! Two balls bouncing on a vertical line under the global Moreau–Jean scheme (Siconos tutorial
//! `TwoBouncingBallTS-MoreauJeanGOSI`): the lower ball (mass 1) on the ground, the upper one
//! (mass 2) on the lower one, both `LagrangianLinearTids` with `q = (x, y, θ)` (`x` vertical) and
//! radius 0.1; two frictional contacts of dimension 3 (`LagrangianLinearTir`, ball–ground
//! `H = I₃`, ball–ball `H = [−I₃ I₃]`, `b = (−2R, 0, 0)`), Newton impact-friction law
//! `e_n = e_t = 0.95`, `μ = 0.6`; `MoreauJeanGlobalOsi` θ = 1/2 with the global frictional
//! contact problem solved by condensation (Siconos' `SICONOS_GLOBAL_FRICTION_3D_NSGS_WR`) at
//! tolerance 1e-13, `h = 0.001`, `T = 3`.

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{
    GlobalFrictionContact, MoreauJeanGlobalOsi, RunSummary, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
    Trajectory,
};
use nonsmooth::numerics::gfc::GlobalFcOptions;

/// Names of the columns of [`TwoBouncingBallsGlobal::simulate`]'s rows (header of the example's
/// `--output` file): time, then the lower ball's height, velocity and impulse `p(1)[0]`, the
/// ground contact's normal impulse `λ(1)[0]`, and the upper ball's height, velocity and impulse.
pub const COLUMN_NAMES: [&str; 8] = ["t", "x1", "v1_x", "p1_x", "lambda_ground", "x2", "v2_x", "p2_x"];

/// Radius of both balls.
pub const RADIUS: f64 = 0.1;
/// Gravity.
pub const GRAVITY: f64 = 9.81;
/// Masses of the lower and the upper ball.
pub const MASSES: [f64; 2] = [1.0, 2.0];

/// Parameters of the model.
#[derive(Clone, Copy, Debug)]
pub struct TwoBouncingBallsGlobal {
    /// Time step (default 0.001).
    pub h: f64,
    /// Final time (default 3).
    pub t_end: f64,
    /// Tolerance of the global problem's solver (default 1e-13).
    pub tolerance: f64,
}

impl Default for TwoBouncingBallsGlobal {
    fn default() -> Self {
        Self { h: 0.001, t_end: 3.0, tolerance: 1e-13 }
    }
}

/// The handles of the model: the two balls and the ball–ground contact.
#[derive(Clone, Copy, Debug)]
pub struct Handles {
    /// The lower ball.
    pub lower: DsId,
    /// The upper ball.
    pub upper: DsId,
    /// The contact of the lower ball with the ground.
    pub ground: InteractionId,
}

impl TwoBouncingBallsGlobal {
    /// The simulation, ready to step, with the model's handles.
    ///
    /// # Errors
    /// Kernel errors (none for valid parameters).
    pub fn build(&self) -> Result<(TimeStepping, Handles), KernelError> {
        let ball = |m: f64, x: f64| -> Result<LagrangianLinearTids, KernelError> {
            let r = RADIUS;
            let mass = faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, 2.0 / 5.0 * m * r * r]];
            LagrangianLinearTids::new(vec![x, 0.0, 0.0], vec![0.0; 3], mass)?.with_external_force(vec![
                -m * GRAVITY,
                0.0,
                0.0,
            ])
        };
        let mut nsds = Nsds::new();
        let lower = nsds.add_ds(ball(MASSES[0], 0.1)?);
        let upper = nsds.add_ds(ball(MASSES[1], 0.1 + 2.0 * RADIUS + 0.001)?);
        let law = || NonsmoothLaw::newton_impact_friction(0.95, 0.95, 0.6, 3);
        let identity = faer::Mat::<f64>::identity(3, 3);
        let ground = nsds.link(LagrangianLinearTir::new(identity)?, law()?, &[lower])?;
        let h_bb = faer::Mat::from_fn(3, 6, |i, j| {
            if j == i {
                -1.0
            } else if j == i + 3 {
                1.0
            } else {
                0.0
            }
        });
        nsds.link(
            LagrangianLinearTir::new(h_bb)?.with_offset(vec![-2.0 * RADIUS, 0.0, 0.0])?,
            law()?,
            &[lower, upper],
        )?;
        let problem = GlobalFrictionContact::condensed(3, GlobalFcOptions::default().with_tolerance(self.tolerance))?;
        let sim = TimeStepping::new(
            nsds,
            MoreauJeanGlobalOsi::with_theta(0.5)?,
            problem,
            TimeDiscretisation::new(0.0, self.h, self.t_end)?,
            TimeSteppingOptions::default(),
        )?;
        Ok((sim, Handles { lower, upper, ground }))
    }

    /// Runs the model and returns the rows of `examples/data/siconos/TwoBouncingBallsGlobal.ref`:
    /// `t, x₁, ẋ₁, p₁(1)[0], λ_ground(1)[0], x₂, ẋ₂, p₂(1)[0]`, row 0 being the initial state.
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate(&self) -> Result<Trajectory, KernelError> {
        Ok(self.simulate_with_summary()?.0)
    }

    /// As [`TwoBouncingBallsGlobal::simulate`], with the convergence of the run's steps
    /// (`TimeStepping::run_summary`).
    ///
    /// # Errors
    /// Kernel errors.
    pub fn simulate_with_summary(&self) -> Result<(Trajectory, RunSummary), KernelError> {
        let (mut sim, handles) = self.build()?;
        let mut out = Trajectory::new(8);
        let row = |sim: &TimeStepping| -> Result<[f64; 8], KernelError> {
            let lower = sim.nsds().ds(handles.lower)?.state();
            let upper = sim.nsds().ds(handles.upper)?.state();
            let ground = sim.nsds().interaction(handles.ground)?;
            Ok([
                sim.time(),
                lower.q()[0],
                lower.v()[0],
                lower.p(1)[0],
                ground.lambda(1)[0],
                upper.q()[0],
                upper.v()[0],
                upper.p(1)[0],
            ])
        };
        out.push(&row(&sim)?);
        while sim.has_next_step() {
            sim.step()?;
            out.push(&row(&sim)?);
        }
        Ok((out, sim.run_summary()))
    }
}
