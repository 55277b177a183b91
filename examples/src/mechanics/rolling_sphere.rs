//! A sphere launched without spin on a plane with Coulomb friction: it slides, friction slows
//! it and spins it up, `v = v0 − μ g t`, `ω = (5 μ g / 2R) t`, until it rolls (`v = ω R`) at
//! `t* = 2 v0 / (7 μ g)`, then rolls at `5 v0 / 7` (solid sphere, `I = 2/5 m R²`).

use nonsmooth::kernel::simulation::RunSummary;
use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::geometry::Shape;
use nonsmooth::mechanics::lie::Quaternion;
use nonsmooth::mechanics::scene::{BodySpec, Material, Scene, SceneBuilder, SceneNonConvergence, SceneOptions};

/// Gravity.
pub const GRAVITY: f64 = 9.81;

/// Parameters.
#[derive(Clone, Copy, Debug)]
pub struct RollingSphere {
    /// Time step (default 1e-4).
    pub h: f64,
    /// Friction coefficient (default 0.3).
    pub mu: f64,
    /// Initial speed along x (default 2 m/s).
    pub v0: f64,
    /// Radius (default 0.1 m).
    pub radius: f64,
    /// Final time (default 0.4 s).
    pub t_end: f64,
    /// What a step above the NSGS tolerance does (default: the scenes' default,
    /// [`SceneNonConvergence::default`]).
    pub on_nonconvergence: SceneNonConvergence,
}

impl Default for RollingSphere {
    fn default() -> Self {
        Self { h: 1e-4, mu: 0.3, v0: 2.0, radius: 0.1, t_end: 0.4, on_nonconvergence: SceneNonConvergence::default() }
    }
}

/// What a run measured.
#[derive(Clone, Copy, Debug)]
pub struct RollingOutcome {
    /// The analytic transition time `2 v0 / (7 μ g)`.
    pub analytic: f64,
    /// The measured one: the zero of the slip velocity, interpolated between the two steps
    /// around it.
    pub measured: f64,
    /// Final speed of the centre.
    pub final_speed: f64,
    /// Largest sinking of the centre below `R`.
    pub max_sink: f64,
    /// Convergence of the run's steps ([`Scene::run_summary`]).
    pub summary: RunSummary,
}

impl RollingSphere {
    /// The scene: the ground `z = 0` and the sphere at `z = R` with speed `v0` along x.
    ///
    /// # Errors
    /// Mechanics errors.
    pub fn build(&self) -> Result<Scene, MechanicsError> {
        let material = Material::new(self.mu, 0.0)?;
        let options = SceneOptions::default()
            .with_time_step(self.h)
            .with_final_time(self.t_end)
            .with_policy(self.on_nonconvergence);
        let mut b = SceneBuilder::new().with_options(options);
        b.add_ground(0.0, material)?;
        b.add_body(
            BodySpec::new(Shape::sphere(self.radius)?, 1000.0)?
                .with_position([0.0, 0.0, self.radius])
                .with_velocity([self.v0, 0.0, 0.0])
                .with_material(material),
        );
        b.build()
    }

    /// Slip velocity `v_x − ω_y R` of the contact point (`ω = R(p) Ω`, inertial frame).
    fn slip(&self, scene: &Scene) -> Result<f64, MechanicsError> {
        let (q, v) = scene.body_state(0)?;
        let rot = Quaternion::new(q[3], q[4], q[5], q[6]).to_rotation_matrix();
        let wy = rot[1][0] * v[3] + rot[1][1] * v[4] + rot[1][2] * v[5];
        Ok(v[0] - wy * self.radius)
    }

    /// Runs to `t_end`.
    ///
    /// # Errors
    /// Mechanics errors; [`nonsmooth::kernel::KernelError::InvalidModel`] if the sphere never rolls.
    pub fn run(&self) -> Result<RollingOutcome, MechanicsError> {
        let mut scene = self.build()?;
        let (mut t_prev, mut s_prev) = (0.0, self.slip(&scene)?);
        let mut measured = None;
        let mut max_sink = 0.0f64;
        while scene.has_next_step() {
            scene.step()?;
            let s = self.slip(&scene)?;
            let (q, _) = scene.body_state(0)?;
            max_sink = max_sink.max(self.radius - q[2]);
            if measured.is_none() && s <= 1e-9 * self.v0 {
                measured = Some(t_prev + (scene.time() - t_prev) * s_prev / (s_prev - s));
            }
            (t_prev, s_prev) = (scene.time(), s);
        }
        let measured = measured.ok_or_else(|| {
            nonsmooth::kernel::KernelError::InvalidModel("the sphere did not start rolling before t_end".into())
        })?;
        let (_, v) = scene.body_state(0)?;
        Ok(RollingOutcome {
            analytic: 2.0 * self.v0 / (7.0 * self.mu * GRAVITY),
            measured,
            final_speed: v[0],
            max_sink,
            summary: scene.run_summary(),
        })
    }
}
