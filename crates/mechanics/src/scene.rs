//! Scenes of rigid bodies with frictional contact: a builder (bodies with a shape, a density
//! and a material; static shapes such as a ground and walls; gravity) and a simulation that
//! detects the contacts before every Moreau–Jean step, creates the contact interactions that
//! appear, updates those that persist and removes those that vanish.
//!
//! Each step: poses of the bodies → broad phase ([`BroadPhase`], a uniform grid) → narrow phase
//! ([`collide`]) → contacts whose gap is at most the detection margin become
//! [`ContactRelation`]s with a Newton impact + Coulomb friction law (dimension 3) →
//! [`TimeStepping::step`] (Moreau–Jean θ-scheme of the Newton–Euler bodies, FC3D one-step
//! problem solved by NSGS warm started from the previous impulses of persisting contacts). A
//! contact is identified between steps by its pair of shapes and its index in the pair's
//! contact set.
//!
//! Joints ([`SceneBuilder::add_joint`]: ball, pivot, prismatic, between two bodies or a body and
//! the ground) and joint stops ([`SceneBuilder::add_joint_stop`]) are interactions of their own,
//! an equality law on the joint's rows and a Newton impact law on a stop. A scene with joints is
//! stepped through the kernel's mixed mechanical problem ([`OneStepNsProblem::mixed`], Siconos'
//! `GenericMechanical`: equality, complementarity and 3D Coulomb blocks in one problem, block
//! Gauss–Seidel at the NSGS's tolerance and sweep cap); a scene without joints keeps the FC3D
//! problem.
//!
//! ```no_run
//! use nonsmooth_mechanics::geometry::Shape;
//! use nonsmooth_mechanics::scene::{BodySpec, Material, SceneBuilder};
//! # fn main() -> Result<(), nonsmooth_mechanics::MechanicsError> {
//! let mut builder = SceneBuilder::new().with_time_step(1e-3).with_final_time(1.0);
//! builder.add_ground(0.0, Material::new(0.3, 0.0)?)?;
//! for k in 0..100 {
//!     let x = 0.11 * (k % 10) as f64;
//!     let z = 0.05 + 0.11 * (k / 10) as f64;
//!     builder.add_body(BodySpec::new(Shape::sphere(0.05)?, 1000.0)?.with_position([x, 0.0, z]));
//! }
//! let mut scene = builder.build()?;
//! while scene.has_next_step() {
//!     scene.step()?;
//! }
//! # Ok(())
//! # }
//! ```

use std::time::{Duration, Instant};

use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::NonFiniteValue;
use nonsmooth_kernel::model::{DsId, InteractionId, NonsmoothLaw, Nsds};
use nonsmooth_kernel::simulation::{
    MoreauJeanOsi, NonConvergencePolicy, OneStepNsProblem, RunSummary, StepReport, TimeDiscretisation, TimeStepping,
    TimeSteppingOptions,
};
use nonsmooth_numerics::SolverReport;
use nonsmooth_numerics::fc::Fc3dMethod;
use nonsmooth_numerics::fc::nsgs::NsgsOptions;

use crate::MechanicsError;
use crate::body::NewtonEulerDs;
use crate::contact::{ContactDimension, ContactRelation, jacobian_block};
use crate::geometry::{Aabb, BroadPhase, ContactPoint, Pose, Shape, check_pair, collide};
use crate::joints::{BallJoint, JointStop, PivotJoint, PrismaticJoint, Reference};
use crate::lie::{Mat3, Quaternion, Vec3};
use crate::output::BodyFrame;
use crate::relation::{NewtonEulerR, NewtonEulerRelation};
use nonsmooth_numerics::gmp::GmpNsgsOptions;

/// Contact coefficients of a surface: the Coulomb friction coefficient `μ` and the normal
/// restitution `e` of Siconos' `NewtonImpactFrictionNSL` (Acary & Brogliato 2008, ch. 3), checked
/// by [`Material::new`] and read by accessors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    friction: f64,
    restitution: f64,
}

impl Material {
    /// A material with friction coefficient `μ ≥ 0` (finite) and normal restitution
    /// `e ∈ [0, 1]`.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming `friction` for a negative or non-finite `μ`,
    /// `restitution` for `e ∉ [0, 1]` or NaN.
    pub fn new(friction: f64, restitution: f64) -> Result<Self, MechanicsError> {
        if !friction.is_finite() || friction < 0.0 {
            return Err(invalid("friction", friction, "must be finite and non-negative"));
        }
        if !(0.0..=1.0).contains(&restitution) {
            return Err(invalid("restitution", restitution, "must lie in [0, 1]"));
        }
        Ok(Self { friction, restitution })
    }

    /// The Coulomb friction coefficient `μ ≥ 0`.
    pub fn friction(&self) -> f64 {
        self.friction
    }

    /// The normal restitution coefficient `e ∈ [0, 1]`.
    pub fn restitution(&self) -> f64 {
        self.restitution
    }

    /// The law of a contact between two materials: the means of the coefficients.
    fn combine(self, other: Material) -> Material {
        Material {
            friction: 0.5 * (self.friction + other.friction),
            restitution: 0.5 * (self.restitution + other.restitution),
        }
    }
}

impl Default for Material {
    /// `μ = 0.3`, `e = 0`.
    fn default() -> Self {
        Self { friction: 0.3, restitution: 0.0 }
    }
}

/// The error of a parameter out of its range.
fn invalid(name: &'static str, value: f64, reason: &'static str) -> MechanicsError {
    KernelError::InvalidParameter { name, value, reason }.into()
}

/// Checks that every component of `values` is finite; the error names the first that is not.
fn check_finite(name: &'static str, values: &[f64]) -> Result<(), MechanicsError> {
    match values.iter().find(|x| !x.is_finite()) {
        Some(&value) => Err(invalid(name, value, "must be finite")),
        None => Ok(()),
    }
}

/// Checks that a pose's position and rotation are finite.
fn check_pose(name: &'static str, pose: &Pose) -> Result<(), MechanicsError> {
    check_finite(name, &pose.position)?;
    check_finite(name, pose.rotation.as_flattened())
}

/// A body to add to a scene: a finite shape of uniform density (mass and inertia from the
/// shape, [`Shape::mass_properties`]), its initial pose and velocities, its material.
#[derive(Clone, Debug, PartialEq)]
pub struct BodySpec {
    shape: Shape,
    mass: f64,
    inertia: [f64; 3],
    position: Vec3,
    orientation: Quaternion,
    velocity: Vec3,
    angular_velocity: Vec3,
    material: Material,
}

impl BodySpec {
    /// A body of shape `shape` and density `density` at the origin, at rest, default material.
    /// The mass and the principal inertia follow from the shape and are positive and finite.
    /// The position, orientation and velocities set by the `with_*` methods are checked finite
    /// (and the orientation non-zero) by [`SceneBuilder::build`].
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for a half-space (use [`SceneBuilder::add_static`]) or a
    /// density that is not positive and finite.
    pub fn new(shape: Shape, density: f64) -> Result<Self, MechanicsError> {
        let props = shape.mass_properties(density)?;
        Ok(Self {
            shape,
            mass: props.mass,
            inertia: props.principal_inertia,
            position: [0.0; 3],
            orientation: Quaternion::identity(),
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            material: Material::default(),
        })
    }

    /// Sets the position of the centre.
    pub fn with_position(mut self, position: Vec3) -> Self {
        self.position = position;
        self
    }

    /// Sets the orientation (normalized when the body is built).
    pub fn with_orientation(mut self, orientation: Quaternion) -> Self {
        self.orientation = orientation;
        self
    }

    /// Sets the velocity of the centre (inertial frame).
    pub fn with_velocity(mut self, velocity: Vec3) -> Self {
        self.velocity = velocity;
        self
    }

    /// Sets the angular velocity (body frame).
    pub fn with_angular_velocity(mut self, angular_velocity: Vec3) -> Self {
        self.angular_velocity = angular_velocity;
        self
    }

    /// Sets the material.
    pub fn with_material(mut self, material: Material) -> Self {
        self.material = material;
        self
    }

    /// The mass.
    pub fn mass(&self) -> f64 {
        self.mass
    }

    /// A body of shape `shape` with the given mass and principal inertia (about the body axes
    /// through the centre) instead of a density, at the origin, at rest, default material.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for a half-space or a triangle mesh (static only);
    /// [`KernelError::InvalidParameter`] naming `mass` or `inertia` for a value that is not
    /// positive and finite.
    pub fn with_mass_properties(shape: Shape, mass: f64, inertia: [f64; 3]) -> Result<Self, MechanicsError> {
        if shape.is_static_only() {
            return Err(
                KernelError::InvalidOption { name: "shape", reason: "a static-only shape cannot be a body" }.into()
            );
        }
        if !mass.is_finite() || mass <= 0.0 {
            return Err(invalid("mass", mass, "must be positive and finite"));
        }
        if let Some(&i) = inertia.iter().find(|i| !i.is_finite() || **i <= 0.0) {
            return Err(invalid("inertia", i, "must be positive and finite"));
        }
        Ok(Self {
            shape,
            mass,
            inertia,
            position: [0.0; 3],
            orientation: Quaternion::identity(),
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            material: Material::default(),
        })
    }

    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The principal inertia (about the body axes through the centre).
    pub fn inertia(&self) -> [f64; 3] {
        self.inertia
    }

    /// The initial position of the centre.
    pub fn position(&self) -> Vec3 {
        self.position
    }

    /// The initial orientation (as given, normalized when the body is built).
    pub fn orientation(&self) -> Quaternion {
        self.orientation
    }

    /// The initial velocity of the centre (inertial frame).
    pub fn velocity(&self) -> Vec3 {
        self.velocity
    }

    /// The initial angular velocity (body frame).
    pub fn angular_velocity(&self) -> Vec3 {
        self.angular_velocity
    }

    /// The material.
    pub fn material(&self) -> Material {
        self.material
    }
}

/// Options of a scene.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SceneOptions {
    /// Time step `h` (default: `1e-3`).
    pub h: f64,
    /// Final time (default: `1.0`).
    pub t_end: f64,
    /// θ of Moreau–Jean (default: `0.5`).
    pub theta: f64,
    /// Gravity (default: `(0, 0, −9.81)`).
    pub gravity: Vec3,
    /// Contacts with a gap up to this distance are created (default: `None`, a tenth of the
    /// smallest body's bounding radius).
    pub margin: Option<f64>,
    /// The FC3D solver (default: [`SceneOptions::default_nsgs`], warm started).
    pub method: Fc3dMethod,
    /// Newton tolerance and cap of the Moreau–Jean loop (default: `1e-8`, 20).
    pub newton_tolerance: f64,
    /// Newton iteration cap (default: 20).
    pub newton_max_iterations: usize,
    /// What a step does when the one-step problem or the Newton loop does not converge
    /// (default: [`SceneNonConvergence::FailAbove`] with the factor
    /// [`SceneNonConvergence::DEFAULT_FACTOR`], 100: a step whose FC3D residual ends above 100
    /// times the solver's tolerance, or whose Newton residual ends above 100 times
    /// [`SceneOptions::newton_tolerance`], stops the scene with
    /// [`KernelError::NotConverged`] (time, step and the solver's report) or
    /// [`KernelError::NewtonNotConverged`]; smaller misses go on, each step's report says so
    /// and [`Scene::unconverged_steps`] counts them).
    pub on_nonconvergence: SceneNonConvergence,
    /// Order the contacts of the one-step problem from the highest to the lowest along gravity
    /// ([`Nsds::set_priority`]), the sweep order in which Gauss–Seidel passes the weight of a
    /// pile down to its base (default: true).
    pub order_by_height: bool,
    /// With an NSGS `method`, solve the one-step problem in body velocities on the factored
    /// Delassus operator `W = H M⁻¹ Hᵀ` instead of assembling `W`
    /// ([`OneStepNsProblem::friction_contact_3d_factored`]; the same iteration up to round-off)
    /// (default: true). Other methods always assemble `W`. The factored form builds no `W`:
    /// each sweep reads a contact's rows of `H` instead of its block row of `W`.
    pub factored_delassus: bool,
}

impl Default for SceneOptions {
    fn default() -> Self {
        Self {
            h: 1e-3,
            t_end: 1.0,
            theta: 0.5,
            gravity: [0.0, 0.0, -9.81],
            margin: None,
            method: Fc3dMethod::Nsgs(Self::default_nsgs()),
            newton_tolerance: 1e-8,
            newton_max_iterations: 20,
            on_nonconvergence: SceneNonConvergence::default(),
            order_by_height: true,
            factored_delassus: true,
        }
    }
}

impl SceneOptions {
    /// Sweep cap of [`SceneOptions::default_nsgs`], far above Siconos' NSGS default of 1000:
    /// while a pile settles (spheres still rolling and hitting the heap) its problems need
    /// thousands of sweeps to reach the tolerance, a few more than ten thousand.
    pub const NSGS_MAX_SWEEPS: usize = 20_000;

    /// The plain-sweep fallback of [`SceneOptions::default_nsgs`]
    /// ([`NsgsOptions::plain_fallback_period`]): every this many sweeps the full error is
    /// compared with the previous check's, and the solve goes on with `ω = 1` and no
    /// acceleration once it has grown.
    pub const NSGS_FALLBACK_PERIOD: usize = 250;

    /// The NSGS of scenes: tolerance `1e-4` on Siconos' FC3D error, at most
    /// [`SceneOptions::NSGS_MAX_SWEEPS`] sweeps,
    /// Alart–Curnier local solver (closed form on the `diag(a, b, b)` blocks of sphere contacts),
    /// over-relaxation `ω = 1.5`, Anderson acceleration with memory 3
    /// ([`NsgsOptions::anderson_memory`]) on pairs of sweeps ([`NsgsOptions::anderson_period`]
    /// 2: one extrapolation per two sweeps, which also halves its cost), and Siconos' default
    /// error evaluation (the light increment error after each sweep, the full error to stop).
    /// When the over-relaxed, accelerated sweeps cycle instead of converging (the full error,
    /// checked every [`SceneOptions::NSGS_FALLBACK_PERIOD`] sweeps, has grown), the solve goes
    /// on with plain sweeps, Siconos' NSGS (`ω = 1`, no acceleration), which converges there;
    /// when the plain sweeps' error grows too (a warm start that traps the iterates of a
    /// settling heap), the solve starts once more from zero reactions
    /// ([`NsgsOptions::cold_restart`]). The full error of the over-relaxed sweeps is evaluated
    /// after one plain sweep on a copy ([`NsgsOptions::plain_check_sweep`]), so that the
    /// relaxation's overshoot does not count as error.
    /// Sequential ([`NsgsOptions::parallelism`]); with
    /// [`Parallelism::Rayon`](nonsmooth_numerics::Parallelism::Rayon), the sweeps run in two
    /// halves ([`NsgsSchedule::Halves`](nonsmooth_numerics::fc::nsgs::NsgsSchedule::Halves)),
    /// which keeps the top-down order within each half, on the solver's own thread pool; the
    /// rest of a step (detection, assembly, update) runs on the calling thread.
    pub fn default_nsgs() -> NsgsOptions {
        NsgsOptions::default()
            .with_max_iterations(Self::NSGS_MAX_SWEEPS)
            .with_plain_fallback_period(Self::NSGS_FALLBACK_PERIOD)
            .with_cold_restart(true)
            .with_plain_check_sweep(true)
            .with_relaxation(1.5)
            .with_anderson_memory(3)
            .with_anderson_period(2)
            .with_schedule(nonsmooth_numerics::fc::nsgs::NsgsSchedule::Halves)
            .with_error_evaluation(nonsmooth_numerics::fc::nsgs::NsgsErrorEvaluation::LightWithFullFinal)
    }

    /// Checks the options: `h > 0` finite, `t_end` finite, `θ ∈ [0, 1]`, gravity finite, a
    /// margin (when given) finite and `≥ 0`, a Newton tolerance `> 0` finite. [`SceneBuilder::build`]
    /// calls it; the solver's own options are checked when its solver is built.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming the option (`time step`, `final time`, `theta`,
    /// `gravity`, `margin`, `newton tolerance`) and its value.
    pub fn validate(&self) -> Result<(), MechanicsError> {
        if !self.h.is_finite() || self.h <= 0.0 {
            return Err(invalid("time step", self.h, "must be positive and finite"));
        }
        check_finite("final time", &[self.t_end])?;
        if !(0.0..=1.0).contains(&self.theta) {
            return Err(invalid("theta", self.theta, "must lie in [0, 1]"));
        }
        check_finite("gravity", &self.gravity)?;
        if let Some(margin) = self.margin
            && (!margin.is_finite() || margin < 0.0)
        {
            return Err(invalid("margin", margin, "must be finite and non-negative"));
        }
        if !self.newton_tolerance.is_finite() || self.newton_tolerance <= 0.0 {
            return Err(invalid("newton tolerance", self.newton_tolerance, "must be positive and finite"));
        }
        if let SceneNonConvergence::FailAbove { factor } = self.on_nonconvergence
            && (!factor.is_finite() || factor < 1.0)
        {
            return Err(invalid("non-convergence factor", factor, "must be finite and at least 1"));
        }
        Ok(())
    }

    /// The kernel's policy for these options: [`SceneNonConvergence::FailAbove`] becomes
    /// [`NonConvergencePolicy::FailAbove`] with the bounds `factor` times the FC3D solver's
    /// tolerance and `factor` times the Newton tolerance.
    fn kernel_policy(&self) -> NonConvergencePolicy {
        match self.on_nonconvergence {
            SceneNonConvergence::Fail => NonConvergencePolicy::Fail,
            SceneNonConvergence::Continue => NonConvergencePolicy::Continue,
            SceneNonConvergence::FailAbove { factor } => NonConvergencePolicy::FailAbove {
                residual: factor * self.method.tolerance(),
                newton_residual: factor * self.newton_tolerance,
            },
        }
    }

    /// Sets the time step.
    pub fn with_time_step(mut self, h: f64) -> Self {
        self.h = h;
        self
    }

    /// Sets [`SceneOptions::factored_delassus`].
    pub fn with_factored_delassus(mut self, factored: bool) -> Self {
        self.factored_delassus = factored;
        self
    }

    /// Sets the final time.
    pub fn with_final_time(mut self, t_end: f64) -> Self {
        self.t_end = t_end;
        self
    }

    /// Sets θ.
    pub fn with_theta(mut self, theta: f64) -> Self {
        self.theta = theta;
        self
    }

    /// Sets gravity.
    pub fn with_gravity(mut self, gravity: Vec3) -> Self {
        self.gravity = gravity;
        self
    }

    /// Sets the detection margin.
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.margin = Some(margin);
        self
    }

    /// Sets the FC3D solver.
    pub fn with_method(mut self, method: Fc3dMethod) -> Self {
        self.method = method;
        self
    }

    /// Sets the non-convergence policy.
    pub fn with_policy(mut self, policy: SceneNonConvergence) -> Self {
        self.on_nonconvergence = policy;
        self
    }

    /// Turns the ordering of contacts by height on or off.
    pub fn with_order_by_height(mut self, order: bool) -> Self {
        self.order_by_height = order;
        self
    }
}

/// What a scene does when a step's one-step problem (FC3D) or Newton loop does not reach its
/// tolerance ([`SceneOptions::on_nonconvergence`]). A step ends unconverged when the solver
/// reaches its iteration cap; the residual is Siconos' FC3D error (`fc3d_compute_error`), the one
/// the solver compares with its tolerance.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum SceneNonConvergence {
    /// Stop when a step ends far from converged: its FC3D residual above `factor` times the
    /// solver's tolerance ([`KernelError::NotConverged`], naming the time, the step and the
    /// solver's report), or its Newton residual above `factor` times the Newton tolerance
    /// ([`KernelError::NewtonNotConverged`]). Smaller misses go on and are counted
    /// ([`Scene::unconverged_steps`]). `factor ≥ 1`, finite. The default, with
    /// [`SceneNonConvergence::DEFAULT_FACTOR`].
    FailAbove {
        /// How far above the tolerance a step may end and the scene go on.
        factor: f64,
    },
    /// Stop at the first step that does not converge.
    Fail,
    /// Go on whatever the residual; the step reports say what happened and
    /// [`Scene::unconverged_steps`] counts such steps.
    Continue,
}

impl SceneNonConvergence {
    /// The factor of the default policy, 100: a step may end up to 100 times above the
    /// tolerance (NSGS stagnating just above it at its sweep cap) and the scene go on.
    pub const DEFAULT_FACTOR: f64 = 100.0;
}

impl Default for SceneNonConvergence {
    /// [`SceneNonConvergence::FailAbove`] with [`SceneNonConvergence::DEFAULT_FACTOR`].
    fn default() -> Self {
        Self::FailAbove { factor: Self::DEFAULT_FACTOR }
    }
}

/// A static shape of a scene: the ground, a wall or any shape fixed in the world (not a
/// dynamical system). [`Scene::statics`] lists them in the order they were added.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticShape {
    /// The shape (a half-space is the side `z_body ≤ 0` of its pose's plane).
    pub shape: Shape,
    /// Its placement in the world (for a half-space, a point of the plane and the outward
    /// normal as the body `+z` axis).
    pub pose: Pose,
    /// Its material.
    pub material: Material,
}

/// A joint of a scene ([`SceneBuilder::add_joint`]), its point and axis in the inertial frame at
/// the bodies' initial positions (Siconos' `KneeJointR`, `PivotJointR`, `PrismaticJointR` with
/// `absoluteRef`; see [`crate::joints`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum SceneJoint {
    /// Ball joint at `point` (3 equality rows).
    Ball {
        /// The joint's point.
        point: Vec3,
    },
    /// Pivot (hinge) at `point` about `axis` (5 equality rows).
    Pivot {
        /// A point of the hinge's axis.
        point: Vec3,
        /// The hinge's axis.
        axis: Vec3,
    },
    /// Prismatic (slider) along `axis` (5 equality rows).
    Prismatic {
        /// The sliding axis.
        axis: Vec3,
    },
}

/// Which side of a joint coordinate a stop bounds ([`SceneBuilder::add_joint_stop`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopSide {
    /// `d ≥ stop`.
    Lower,
    /// `d ≤ stop`.
    Upper,
}

/// A joint of a scene as built: its relation (a copy, for [`Scene::joint_drift`]) and bodies.
#[derive(Clone, Debug)]
enum BuiltJoint {
    Ball(BallJoint),
    Pivot(PivotJoint),
    Prismatic(PrismaticJoint),
}

impl BuiltJoint {
    fn relation(&mut self) -> &mut dyn NewtonEulerRelation {
        match self {
            BuiltJoint::Ball(j) => j,
            BuiltJoint::Pivot(j) => j,
            BuiltJoint::Prismatic(j) => j,
        }
    }
}

/// A joint added to a builder: its kind, its body and the other body (`None`: the ground).
#[derive(Clone, Copy, Debug, PartialEq)]
struct JointSpec {
    kind: SceneJoint,
    body: usize,
    other: Option<usize>,
}

/// A stop added to a builder on the coordinate of joint `joint`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct StopSpec {
    joint: usize,
    side: StopSide,
    stop: f64,
    restitution: f64,
}

/// Builds a [`Scene`].
#[derive(Clone, Debug, Default)]
pub struct SceneBuilder {
    options: SceneOptions,
    bodies: Vec<BodySpec>,
    statics: Vec<StaticShape>,
    joints: Vec<JointSpec>,
    stops: Vec<StopSpec>,
    /// Pairwise contact laws replacing the mean of two materials.
    pair_laws: Vec<(Material, Material, Material)>,
    /// Pairs of bodies `(a, b)`, `a < b`, sorted, that never form contacts.
    no_contact: Vec<(usize, usize)>,
}

/// A pose whose local `+z` axis is the unit vector `n` (the outward normal of a half-space).
fn pose_with_normal(point: Vec3, normal: Vec3) -> Result<Pose, MechanicsError> {
    let frame = crate::contact::contact_frame(normal)?;
    // Columns: t₁, t₂, n (right-handed since t₂ = n × t₁ ⇒ t₁ × t₂ = n).
    let [n, t1, t2] = frame;
    let rotation = [[t1[0], t2[0], n[0]], [t1[1], t2[1], n[1]], [t1[2], t2[2], n[2]]];
    Ok(Pose { position: point, rotation })
}

impl SceneBuilder {
    /// An empty scene with default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the options.
    pub fn with_options(mut self, options: SceneOptions) -> Self {
        self.options = options;
        self
    }

    /// Sets the time step.
    pub fn with_time_step(mut self, h: f64) -> Self {
        self.options.h = h;
        self
    }

    /// Sets the final time.
    pub fn with_final_time(mut self, t_end: f64) -> Self {
        self.options.t_end = t_end;
        self
    }

    /// Sets gravity.
    pub fn with_gravity(mut self, gravity: Vec3) -> Self {
        self.options.gravity = gravity;
        self
    }

    /// Sets the FC3D solver.
    pub fn with_method(mut self, method: Fc3dMethod) -> Self {
        self.options.method = method;
        self
    }

    /// Adds a joint `kind` between body `body` and body `other` (`None`: the fixed ground), its
    /// point and axis given in the inertial frame at the bodies' initial positions; returns the
    /// joint's index. The joint's rows are linked with an equality law; the two bodies still
    /// collide as shapes unless [`SceneBuilder::disable_collisions`] excludes the pair (as
    /// MuJoCo does for a body and its parent; Siconos and Rapier keep the contacts).
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`] for a body index not yet added; [`KernelError::InvalidModel`]
    /// for a joint of a body with itself; [`KernelError::NonFinite`] for a point or an axis
    /// that is not finite (a zero axis is reported when the scene is built).
    pub fn add_joint(&mut self, kind: SceneJoint, body: usize, other: Option<usize>) -> Result<usize, MechanicsError> {
        for b in std::iter::once(body).chain(other) {
            if b >= self.bodies.len() {
                return Err(KernelError::UnknownDs(b).into());
            }
        }
        if other == Some(body) {
            return Err(KernelError::InvalidModel(format!("a joint of body {body} with itself")).into());
        }
        let finite = match kind {
            SceneJoint::Ball { point } => point.iter().all(|x| x.is_finite()),
            SceneJoint::Pivot { point, axis } => point.iter().chain(&axis).all(|x| x.is_finite()),
            SceneJoint::Prismatic { axis } => axis.iter().all(|x| x.is_finite()),
        };
        if !finite {
            return Err(KernelError::NonFinite { what: "joint point or axis" }.into());
        }
        self.joints.push(JointSpec { kind, body, other });
        Ok(self.joints.len() - 1)
    }

    /// Excludes the pair of bodies `a`, `b` from contact detection: they never form contacts
    /// (jointed links whose shapes overlap at the joint, parts that are meant to pass through
    /// each other). Contacts with other bodies and with the static shapes are unchanged.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`] for a body index not yet added; [`KernelError::InvalidModel`]
    /// for a body paired with itself.
    pub fn disable_collisions(&mut self, a: usize, b: usize) -> Result<(), MechanicsError> {
        for body in [a, b] {
            if body >= self.bodies.len() {
                return Err(KernelError::UnknownDs(body).into());
            }
        }
        if a == b {
            return Err(KernelError::InvalidModel(format!("body {a} excluded from contacts with itself")).into());
        }
        let pair = (a.min(b), a.max(b));
        if let Err(at) = self.no_contact.binary_search(&pair) {
            self.no_contact.insert(at, pair);
        }
        Ok(())
    }

    /// The pairs of bodies excluded from contact detection ([`SceneBuilder::disable_collisions`]),
    /// each as `(a, b)` with `a < b`, sorted.
    pub fn collision_exclusions(&self) -> &[(usize, usize)] {
        &self.no_contact
    }

    /// Adds a stop on the coordinate of joint `joint` (a pivot's angle or a prismatic
    /// displacement, [`crate::joints::JointCoordinate`]; Siconos' `JointStopR`): `d ≥ stop`
    /// ([`StopSide::Lower`]) or `d ≤ stop`, with a Newton impact law of restitution
    /// `restitution`. Returns the stop's index.
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] for an unknown joint or a ball joint (no coordinate);
    /// [`KernelError::NonFinite`] for a stop that is not finite; the law's errors for a
    /// restitution out of `[0, 1]`.
    pub fn add_joint_stop(
        &mut self,
        joint: usize,
        side: StopSide,
        stop: f64,
        restitution: f64,
    ) -> Result<usize, MechanicsError> {
        match self.joints.get(joint).map(|j| j.kind) {
            None => return Err(KernelError::InvalidModel(format!("no joint {joint} for a stop")).into()),
            Some(SceneJoint::Ball { .. }) => {
                return Err(KernelError::InvalidModel("a ball joint has no coordinate to stop".into()).into());
            }
            Some(_) => {}
        }
        if !stop.is_finite() {
            return Err(KernelError::NonFinite { what: "joint stop" }.into());
        }
        NonsmoothLaw::newton_impact(restitution)?;
        self.stops.push(StopSpec { joint, side, stop, restitution });
        Ok(self.stops.len() - 1)
    }

    /// Adds a body; returns its index.
    pub fn add_body(&mut self, body: BodySpec) -> usize {
        self.bodies.push(body);
        self.bodies.len() - 1
    }

    /// Adds the ground: the half-space `z ≤ height`; returns its index in [`Scene::statics`].
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming `ground height` when `height` is not finite.
    pub fn add_ground(&mut self, height: f64, material: Material) -> Result<usize, MechanicsError> {
        check_finite("ground height", &[height])?;
        self.statics.push(StaticShape {
            shape: Shape::HalfSpace,
            pose: Pose::from_translation([0.0, 0.0, height]),
            material,
        });
        Ok(self.statics.len() - 1)
    }

    /// Adds a wall: the half-space behind the plane through `point` with outward normal
    /// `normal` (the side the bodies are on); returns its index in [`Scene::statics`].
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming `wall point` or `wall normal` for a non-finite
    /// component; [`KernelError::InvalidOption`] for a zero normal.
    pub fn add_wall(&mut self, point: Vec3, normal: Vec3, material: Material) -> Result<usize, MechanicsError> {
        check_finite("wall point", &point)?;
        check_finite("wall normal", &normal)?;
        let pose = pose_with_normal(point, normal)?;
        self.statics.push(StaticShape { shape: Shape::HalfSpace, pose, material });
        Ok(self.statics.len() - 1)
    }

    /// Adds an open square box over `[0, side]²`: the ground `z = 0`, then the walls `x = 0`,
    /// `x = side`, `y = 0` and `y = side` (normals pointing inwards), all of `material`;
    /// returns the index of the ground in [`Scene::statics`], the four walls follow it.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] when `side` is not a positive finite length.
    pub fn add_open_box(&mut self, side: f64, material: Material) -> Result<usize, MechanicsError> {
        if !(side.is_finite() && side > 0.0) {
            return Err(KernelError::InvalidOption { name: "side", reason: "must be a positive finite length" }.into());
        }
        let ground = self.add_ground(0.0, material)?;
        self.add_wall([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], material)?;
        self.add_wall([side, 0.0, 0.0], [-1.0, 0.0, 0.0], material)?;
        self.add_wall([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], material)?;
        self.add_wall([0.0, side, 0.0], [0.0, -1.0, 0.0], material)?;
        Ok(ground)
    }

    /// Adds a static shape (any shape) at `pose`; returns its index in [`Scene::statics`].
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming `static pose` for a non-finite position or
    /// rotation.
    pub fn add_static(&mut self, shape: Shape, pose: Pose, material: Material) -> Result<usize, MechanicsError> {
        check_pose("static pose", &pose)?;
        self.statics.push(StaticShape { shape, pose, material });
        Ok(self.statics.len() - 1)
    }

    /// The bodies added so far.
    pub fn bodies(&self) -> &[BodySpec] {
        &self.bodies
    }

    /// Sets the contact law between a surface of material `a` and one of material `b` (either
    /// order), replacing the mean of their coefficients (the coefficients of a pair of
    /// materials, as Siconos' `NewtonImpactFrictionNSL` registered per pair of contactor
    /// groups). A later call for the same pair replaces the earlier one.
    pub fn set_pair_law(&mut self, a: Material, b: Material, law: Material) {
        self.pair_laws.retain(|(x, y, _)| !((*x == a && *y == b) || (*x == b && *y == a)));
        self.pair_laws.push((a, b, law));
    }

    /// The pairwise contact laws ([`SceneBuilder::set_pair_law`]): materials `a`, `b` and the law.
    pub fn pair_laws(&self) -> &[(Material, Material, Material)] {
        &self.pair_laws
    }

    /// The options.
    pub fn options(&self) -> &SceneOptions {
        &self.options
    }

    /// The static shapes added so far, in the order of addition.
    pub fn statics(&self) -> &[StaticShape] {
        &self.statics
    }

    /// The joints added so far: kind, body and other body (`None`: the ground).
    pub fn joints(&self) -> impl Iterator<Item = (SceneJoint, usize, Option<usize>)> + '_ {
        self.joints.iter().map(|j| (j.kind, j.body, j.other))
    }

    /// The joint stops added so far: joint index, side, stop and restitution.
    pub fn joint_stops(&self) -> impl Iterator<Item = (usize, StopSide, f64, f64)> + '_ {
        self.stops.iter().map(|s| (s.joint, s.side, s.stop, s.restitution))
    }

    /// Builds the scene at `t = 0`.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] for options out of range ([`SceneOptions::validate`])
    /// and for a body whose position, orientation, velocity or angular velocity is not finite
    /// (naming `body position`, `body orientation`, `body velocity` or `body angular velocity`
    /// and the first non-finite component); [`MechanicsError::UnsupportedShapePair`] when two
    /// shapes the scene can pair have no contact detection
    /// ([`crate::geometry::check_pair`]); errors of the bodies (zero quaternion) and
    /// of the kernel.
    pub fn build(self) -> Result<Scene, MechanicsError> {
        let o = &self.options;
        o.validate()?;
        // Every pair of shape kinds the scene can form (body–body, body–static) is detectable.
        let mut kinds: Vec<&Shape> = Vec::new();
        for shape in self.bodies.iter().map(|b| &b.shape) {
            if !kinds.iter().any(|k| k.kind_name() == shape.kind_name()) {
                kinds.push(shape);
            }
        }
        for (i, a) in kinds.iter().enumerate() {
            for b in kinds[i..].iter().copied().chain(self.statics.iter().map(|s| &s.shape)) {
                check_pair(a, b)?;
            }
        }
        for spec in &self.bodies {
            check_finite("body position", &spec.position)?;
            let p = spec.orientation;
            check_finite("body orientation", &[p.w, p.x, p.y, p.z])?;
            check_finite("body velocity", &spec.velocity)?;
            check_finite("body angular velocity", &spec.angular_velocity)?;
        }
        let margin = match o.margin {
            Some(m) => m,
            None => {
                let smallest = self
                    .bodies
                    .iter()
                    .filter_map(|b| b.shape.aabb(&Pose::identity()))
                    .map(|a| a.half_extents().iter().fold(f64::INFINITY, |m, x| m.min(*x)))
                    .fold(f64::INFINITY, f64::min);
                if smallest.is_finite() { 0.1 * smallest } else { 0.0 }
            }
        };
        let mut nsds = Nsds::new();
        let mut bodies = Vec::with_capacity(self.bodies.len());
        for spec in &self.bodies {
            let p = spec.orientation.normalized()?;
            let q0 = [spec.position[0], spec.position[1], spec.position[2], p.w, p.x, p.y, p.z];
            let v0 = [
                spec.velocity[0],
                spec.velocity[1],
                spec.velocity[2],
                spec.angular_velocity[0],
                spec.angular_velocity[1],
                spec.angular_velocity[2],
            ];
            let i = spec.inertia;
            let inertia = [[i[0], 0.0, 0.0], [0.0, i[1], 0.0], [0.0, 0.0, i[2]]];
            let g = o.gravity;
            let mut ds = NewtonEulerDs::new(q0, v0, spec.mass, inertia)?.with_external_force([
                spec.mass * g[0],
                spec.mass * g[1],
                spec.mass * g[2],
            ])?;
            if i[0].to_bits() == i[1].to_bits() && i[1].to_bits() == i[2].to_bits() {
                // Ω × IΩ = 0 for an isotropic inertia: the Newton loop is then linear in v.
                ds = ds.without_gyroscopic();
            }
            let id = nsds.add_ds(ds);
            bodies.push(SceneBody { ds: id, shape: spec.shape.clone(), material: spec.material });
        }
        let joints = link_joints(&mut nsds, &bodies, &self.joints, &self.stops)?;
        let problem = if joints.is_empty() {
            match (&o.method, o.factored_delassus) {
                (Fc3dMethod::Nsgs(nsgs), true) => OneStepNsProblem::friction_contact_3d_factored(nsgs.clone())?,
                (method, _) => OneStepNsProblem::friction_contact_3d(method.clone())?,
            }
        } else {
            // The block Gauss–Seidel takes the NSGS's tolerance and sweep cap.
            let sweeps = match &o.method {
                Fc3dMethod::Nsgs(nsgs) => nsgs.max_iterations,
                _ => SceneOptions::NSGS_MAX_SWEEPS,
            };
            OneStepNsProblem::mixed(
                GmpNsgsOptions::default().with_tolerance(o.method.tolerance()).with_max_iterations(sweeps),
            )?
        };
        let sim = TimeStepping::new(
            nsds,
            MoreauJeanOsi::with_theta(o.theta)?,
            problem,
            TimeDiscretisation::new(0.0, o.h, o.t_end)?,
            TimeSteppingOptions::default()
                .with_newton_tolerance(o.newton_tolerance)
                .with_newton_max_iterations(o.newton_max_iterations)
                .with_policy(o.kernel_policy())
                // Every step's detection updates the contacts, whose outputs the next step then
                // recomputes: the outputs at the end of a step would be computed for nothing.
                .with_deferred_outputs(true),
        )?;
        let finite_statics: Vec<StaticShape> =
            self.statics.iter().filter(|s| !matches!(s.shape, Shape::HalfSpace)).cloned().collect();
        let half_spaces: Vec<StaticShape> =
            self.statics.iter().filter(|s| matches!(s.shape, Shape::HalfSpace)).cloned().collect();
        // Static shapes do not move: their boxes are computed once.
        let static_aabbs: Vec<Aabb> = finite_statics
            .iter()
            .map(|s| {
                s.shape.aabb(&s.pose).ok_or_else(|| {
                    MechanicsError::from(KernelError::InvalidModel(
                        "a finite static shape without a bounding box".into(),
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        // The scene numbers the finite statics first, then the half-spaces; `static_index` maps
        // that numbering back to the order of addition.
        let is_half_space = |s: &StaticShape| matches!(s.shape, Shape::HalfSpace);
        let static_index: Vec<usize> = (0..self.statics.len())
            .filter(|&k| !is_half_space(&self.statics[k]))
            .chain((0..self.statics.len()).filter(|&k| is_half_space(&self.statics[k])))
            .collect();
        Ok(Scene {
            joints,
            tolerance: o.method.tolerance(),
            statics: self.statics,
            static_index,
            sim,
            gravity: if o.order_by_height { Some(o.gravity) } else { None },
            margin,
            broad: BroadPhase::new(margin)?,
            bodies,
            finite_statics,
            static_aabbs,
            half_space_poses: half_spaces.iter().map(|s| s.pose).collect(),
            half_spaces,
            pair_laws: self.pair_laws,
            no_contact: self.no_contact,
            contacts: Vec::new(),
            next_contacts: Vec::new(),
            poses: Vec::new(),
            qs: Vec::new(),
            aabbs: Vec::new(),
            points: Vec::new(),
            found: Vec::new(),
        })
    }
}

/// Links the joints `specs` and their stops `stops` between the scene's `bodies` in `nsds`
/// (equality laws on the joints' rows, Newton impact laws on the stops), built at the bodies'
/// initial positions; returns the joints with their systems.
fn link_joints(
    nsds: &mut Nsds,
    bodies: &[SceneBody],
    specs: &[JointSpec],
    stops: &[StopSpec],
) -> Result<Vec<(BuiltJoint, DsId, Option<DsId>)>, MechanicsError> {
    let mut built = Vec::with_capacity(specs.len());
    for spec in specs {
        let ds1 = bodies[spec.body].ds;
        let ds2 = spec.other.map(|b| bodies[b].ds);
        let q1: Vec<f64> = nsds.ds(ds1)?.state().q().to_vec();
        let q2: Option<Vec<f64>> = ds2.map(|d| nsds.ds(d).map(|s| s.state().q().to_vec())).transpose()?;
        let systems: Vec<DsId> = std::iter::once(ds1).chain(ds2).collect();
        let joint = match spec.kind {
            SceneJoint::Ball { point } => {
                let j = BallJoint::new(point, Reference::Inertial, &q1, q2.as_deref())?;
                nsds.link(NewtonEulerR::new(j.clone())?, NonsmoothLaw::equality(3)?, &systems)?;
                BuiltJoint::Ball(j)
            }
            SceneJoint::Pivot { point, axis } => {
                let j = PivotJoint::new(point, axis, Reference::Inertial, &q1, q2.as_deref())?;
                nsds.link(NewtonEulerR::new(j.clone())?, NonsmoothLaw::equality(5)?, &systems)?;
                BuiltJoint::Pivot(j)
            }
            SceneJoint::Prismatic { axis } => {
                let j = PrismaticJoint::new(axis, Reference::Inertial, &q1, q2.as_deref())?;
                nsds.link(NewtonEulerR::new(j.clone())?, NonsmoothLaw::equality(5)?, &systems)?;
                BuiltJoint::Prismatic(j)
            }
        };
        built.push((joint, ds1, ds2));
    }
    for stop in stops {
        let (joint, ds1, ds2) = &built[stop.joint];
        let systems: Vec<DsId> = std::iter::once(*ds1).chain(*ds2).collect();
        let law = NonsmoothLaw::newton_impact(stop.restitution)?;
        match (joint, stop.side) {
            (BuiltJoint::Pivot(j), StopSide::Lower) => {
                nsds.link(NewtonEulerR::new(JointStop::lower(j.clone(), stop.stop)?)?, law, &systems)?
            }
            (BuiltJoint::Pivot(j), StopSide::Upper) => {
                nsds.link(NewtonEulerR::new(JointStop::upper(j.clone(), stop.stop)?)?, law, &systems)?
            }
            (BuiltJoint::Prismatic(j), StopSide::Lower) => {
                nsds.link(NewtonEulerR::new(JointStop::lower(j.clone(), stop.stop)?)?, law, &systems)?
            }
            (BuiltJoint::Prismatic(j), StopSide::Upper) => {
                nsds.link(NewtonEulerR::new(JointStop::upper(j.clone(), stop.stop)?)?, law, &systems)?
            }
            (BuiltJoint::Ball(_), _) => {
                return Err(KernelError::InvalidModel("a ball joint has no coordinate to stop".into()).into());
            }
        };
    }
    Ok(built)
}

/// A body of a scene.
#[derive(Clone, Debug)]
struct SceneBody {
    ds: DsId,
    shape: Shape,
    material: Material,
}

/// A contact's identity between steps: the two shapes (bodies first, then finite statics, then
/// half-spaces, in one numbering) and the index in their contact set.
type ContactKey = (usize, usize, usize);

/// The other side of a contact ([`ContactView::partner`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactPartner {
    /// Another body, by its index (the order of [`SceneBuilder::add_body`]).
    Body(usize),
    /// A static shape, by its index in [`Scene::statics`].
    Static(usize),
}

/// A contact of the last step as user code sees it ([`Scene::contacts`]).
///
/// Body 1 ([`ContactView::body`]) is the body the normal `n` points to; the partner is body 2
/// or a static shape. With the contact points `P₁` on body 1 and `P₂` on the partner, the local
/// frame `(n, t₁, t₂)` (Siconos' `orthoBaseFromVector`, [`crate::contact::contact_frame`]) and
/// the rows `H₁ = [F | F skew(G₁ − P₁) R₁]`, `H₂` likewise, `F = [n; t₁; t₂]`:
///
/// - gap `g = (P₁ − P₂)·n` (negative: penetration);
/// - relative velocity `u = H₁ v₁ − H₂ v₂ = (u_N, u_T1, u_T2)`, the velocity of the material
///   point of body 1 at `P₁` relative to that of body 2 at `P₂`, in the local frame;
/// - reaction: the multiplier `λ = (λ_N, λ_T1, λ_T2)` of the Moreau–Jean step, the **impulse**
///   (percussion, N·s) of the contact over the step `[t_k, t_k + h]`, as Siconos' `lambda(1)`
///   (Acary & Brogliato, *Numerical Methods for Nonsmooth Dynamical Systems*, Springer 2008,
///   ch. 10). It acts on body 1 as `Fᵀλ` at `P₁` and on the partner as `−Fᵀλ` at `P₂`; the mean
///   force over the step is `λ / h` ([`ContactView::normal_force`]). A contact that the step did
///   not activate (predicted to stay open) has `λ = 0`.
///
/// Points, gap and relative velocity are at the end of the step (the scene's current state);
/// the normal is the one of the detection at the beginning of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ContactView {
    /// Body 1: the body the normal points to.
    pub body: usize,
    /// Body 2 or the static shape.
    pub partner: ContactPartner,
    /// `P₁`, the contact point on body 1 (world frame).
    pub point: Vec3,
    /// `P₂`, the contact point on the partner (world frame).
    pub partner_point: Vec3,
    /// The local frame, rows `n`, `t₁`, `t₂` (world frame; `n` from the partner to body 1).
    pub frame: Mat3,
    /// The gap `(P₁ − P₂)·n` at the current positions.
    pub gap: f64,
    /// The signed distance found by the detection at the beginning of the step.
    pub detection_gap: f64,
    /// `λ = (λ_N, λ_T1, λ_T2)`, the impulse over the step in the local frame.
    pub impulse: Vec3,
    /// `u = (u_N, u_T1, u_T2)`, the relative velocity at the current state in the local frame.
    pub relative_velocity: Vec3,
    /// Whether the step's one-step problem included the contact (index set 1).
    pub active: bool,
    /// The contact's interaction in the scene's model ([`Scene::simulation`]).
    pub interaction: InteractionId,
    time_step: f64,
}

impl ContactView {
    /// The unit normal `n` (world frame, from the partner to body 1).
    pub fn normal(&self) -> Vec3 {
        self.frame[0]
    }

    /// The midpoint `(P₁ + P₂) / 2`.
    pub fn midpoint(&self) -> Vec3 {
        let (a, b) = (self.point, self.partner_point);
        [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])]
    }

    /// The normal impulse on body 1 as a world vector, `λ_N n`.
    pub fn normal_impulse(&self) -> Vec3 {
        let n = self.frame[0];
        [self.impulse[0] * n[0], self.impulse[0] * n[1], self.impulse[0] * n[2]]
    }

    /// The tangential (friction) impulse on body 1 as a world vector, `λ_T1 t₁ + λ_T2 t₂`.
    pub fn tangential_impulse(&self) -> Vec3 {
        let [_, t1, t2] = self.frame;
        let [_, a, b] = self.impulse;
        [a * t1[0] + b * t2[0], a * t1[1] + b * t2[1], a * t1[2] + b * t2[2]]
    }

    /// The mean normal force on body 1 over the step, `λ_N n / h` (N).
    pub fn normal_force(&self) -> Vec3 {
        self.normal_impulse().map(|x| x / self.time_step)
    }

    /// The mean tangential force on body 1 over the step, `(λ_T1 t₁ + λ_T2 t₂) / h` (N).
    pub fn tangential_force(&self) -> Vec3 {
        self.tangential_impulse().map(|x| x / self.time_step)
    }

    /// The time step `h` the impulse was taken over.
    pub fn time_step(&self) -> f64 {
        self.time_step
    }
}

/// What one scene step did.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct SceneStepReport {
    /// The kernel's step report (Newton, one-step problem, timings of assembly and solve).
    pub step: StepReport,
    /// Time spent in contact detection and in creating, updating and removing contacts.
    pub detection: Duration,
    /// Contacts after detection (interactions of the step).
    pub contacts: usize,
    /// Contacts created by this step's detection.
    pub created: usize,
    /// Contacts removed by this step's detection.
    pub removed: usize,
}

impl SceneStepReport {
    /// The report of the step's FC3D solver (status, iterations, residual on Siconos' FC3D
    /// error), `None` when the step had no active contact.
    pub fn solver(&self) -> Option<&SolverReport> {
        self.step.solver()
    }

    /// Whether the step converged: its FC3D problem (when one was solved) and its Newton loop
    /// ended within their tolerances ([`StepReport::converged`]).
    pub fn converged(&self) -> bool {
        self.step.converged()
    }

    /// The rest of the step: iteration matrices, free velocities, state updates, outputs
    /// (`total − assembly − solve`).
    pub fn update(&self) -> Duration {
        self.step.timings.total.saturating_sub(self.step.timings.assembly + self.step.timings.solve)
    }
}

/// Sums of [`SceneStepReport`]s over a run (per-phase times, contacts, NSGS sweeps).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepTotals {
    /// Steps added.
    pub steps: usize,
    /// Contact detection and contact bookkeeping.
    pub detection: Duration,
    /// One-step problem assembly.
    pub assembly: Duration,
    /// One-step problem solver.
    pub solve: Duration,
    /// The rest of the steps (iteration matrices, free velocities, updates, outputs).
    pub update: Duration,
    /// Contacts summed over the steps.
    pub contacts: usize,
    /// Solver iterations (NSGS sweeps) summed over the steps.
    pub sweeps: usize,
    /// Steps whose one-step problem did not reach its tolerance.
    pub unconverged: usize,
    /// Newton iterations summed over the steps (one one-step problem is solved per iteration).
    pub newton_iterations: usize,
}

impl StepTotals {
    /// Adds one step.
    pub fn add(&mut self, r: &SceneStepReport) {
        self.steps += 1;
        self.detection += r.detection;
        self.assembly += r.step.timings.assembly;
        self.solve += r.step.timings.solve;
        self.update += r.update();
        self.contacts += r.contacts;
        self.newton_iterations += r.step.newton_iterations;
        if let Some(o) = r.step.osns {
            self.sweeps += o.iterations;
            if !o.is_converged() {
                self.unconverged += 1;
            }
        }
    }

    /// Seconds per step of a phase total (mean over the steps).
    pub fn mean(&self, d: Duration) -> f64 {
        d.as_secs_f64() / self.steps.max(1) as f64
    }

    /// Seconds per step, all phases.
    pub fn per_step(&self) -> f64 {
        self.mean(self.detection + self.assembly + self.solve + self.update)
    }
}

/// The detection updates the relations of the current contacts in batches of this many: before
/// batch `b`, it hints the records of the interactions of batch `b + 2`
/// ([`Nsds::prefetch_interaction`](nonsmooth_kernel::model::Nsds::prefetch_interaction)) and
/// the relations of batch `b + 1` ([`Nsds::prefetch_relation`](nonsmooth_kernel::model::Nsds::prefetch_relation),
/// whose records were hinted a batch earlier), so that the misses on these scattered objects
/// overlap the updates.
const RELATION_BATCH: usize = 16;

/// A scene being simulated (see the module documentation).
pub struct Scene {
    sim: TimeStepping,
    /// The joints (copies of their relations) with their systems, for [`Scene::joint_drift`].
    joints: Vec<(BuiltJoint, DsId, Option<DsId>)>,
    /// The FC3D solver's tolerance, for [`Scene::run_summary`].
    tolerance: f64,
    /// Gravity, when contacts are ordered by height.
    gravity: Option<Vec3>,
    margin: f64,
    broad: BroadPhase,
    bodies: Vec<SceneBody>,
    finite_statics: Vec<StaticShape>,
    /// The bounding boxes of `finite_statics`, computed once.
    static_aabbs: Vec<Aabb>,
    half_spaces: Vec<StaticShape>,
    half_space_poses: Vec<Pose>,
    /// The static shapes in the order of addition.
    statics: Vec<StaticShape>,
    /// The index in `statics` of the scene's static shape `k` (finite ones, then half-spaces).
    static_index: Vec<usize>,
    /// Pairwise contact laws ([`SceneBuilder::set_pair_law`]).
    pair_laws: Vec<(Material, Material, Material)>,
    /// Pairs of bodies without contacts ([`SceneBuilder::disable_collisions`]), sorted.
    no_contact: Vec<(usize, usize)>,
    /// Current contacts, sorted by key.
    contacts: Vec<(ContactKey, InteractionId)>,
    next_contacts: Vec<(ContactKey, InteractionId)>,
    poses: Vec<Pose>,
    /// The positions `q = (x, p)` of the bodies at this step's detection (read once per body,
    /// then by every contact of the body).
    qs: Vec<[f64; 7]>,
    aabbs: Vec<Aabb>,
    points: Vec<ContactPoint>,
    /// Contacts found by this step's detection, sorted by key.
    found: Vec<(ContactKey, ContactPoint)>,
}

impl std::fmt::Debug for Scene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scene")
            .field("bodies", &self.bodies.len())
            .field("contacts", &self.contacts.len())
            .field("time", &self.sim.time())
            .finish_non_exhaustive()
    }
}

impl Scene {
    /// Whether another step fits before the final time.
    pub fn has_next_step(&self) -> bool {
        self.sim.has_next_step()
    }

    /// The current time.
    pub fn time(&self) -> f64 {
        self.sim.time()
    }

    /// The joints' constraint violation at the current state: `max |h(q)|` over the rows of
    /// every joint of the scene (0 without joints), the drift of Moreau–Jean's velocity-level
    /// constraints.
    ///
    /// # Errors
    /// What a joint's `h(q)` reports ([`NewtonEulerRelation::output`]).
    pub fn joint_drift(&mut self) -> Result<f64, MechanicsError> {
        let mut worst = 0.0f64;
        let (mut q, mut y) = (Vec::with_capacity(14), [0.0; 5]);
        for (joint, ds1, ds2) in &mut self.joints {
            q.clear();
            for d in std::iter::once(*ds1).chain(*ds2) {
                if let Ok(ds) = self.sim.nsds().ds(d) {
                    q.extend_from_slice(ds.state().q());
                }
            }
            let relation = joint.relation();
            let m = relation.size();
            relation.output(&q, &mut y[..m])?;
            worst = y[..m].iter().fold(worst, |a, x| a.max(x.abs()));
        }
        Ok(worst)
    }

    /// Number of joints.
    pub fn number_of_joints(&self) -> usize {
        self.joints.len()
    }

    /// Number of bodies.
    pub fn number_of_bodies(&self) -> usize {
        self.bodies.len()
    }

    /// Number of contacts (interactions) of the last step.
    pub fn number_of_contacts(&self) -> usize {
        self.contacts.len()
    }

    /// The detection margin.
    pub fn margin(&self) -> f64 {
        self.margin
    }

    /// The simulation (its model: [`TimeStepping::nsds`]).
    pub fn simulation(&self) -> &TimeStepping {
        &self.sim
    }

    /// The handle of body `i`'s dynamical system.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`] for an index out of range.
    pub fn body_ds(&self, i: usize) -> Result<DsId, MechanicsError> {
        self.bodies.get(i).map(|b| b.ds).ok_or_else(|| KernelError::UnknownDs(i).into())
    }

    /// Positions `q = (x, p)` and twists `v` of body `i`.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`] for an index out of range.
    pub fn body_state(&self, i: usize) -> Result<(&[f64], &[f64]), MechanicsError> {
        let ds = self.sim.nsds().ds(self.body_ds(i)?)?;
        Ok((ds.state().q(), ds.state().v()))
    }

    /// The frames of all bodies, for [`crate::output`].
    pub fn frames(&self) -> Vec<BodyFrame> {
        self.bodies
            .iter()
            .map(|b| {
                let s = self.sim.nsds().ds(b.ds).expect("a scene body exists").state();
                let (q, v) = (s.q(), s.v());
                let (kind, radius, extents) = match b.shape {
                    Shape::Sphere { radius } => (0, radius, [0.0; 3]),
                    Shape::Box { half_extents: e } => (1, (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt(), e),
                    Shape::Capsule { radius, half_length } => (2, radius, [0.0, 0.0, half_length]),
                    Shape::HalfSpace => (3, 0.0, [0.0; 3]),
                    Shape::Cylinder { radius, half_height } => (4, radius, [0.0, 0.0, half_height]),
                    Shape::ConvexHull(_) | Shape::TriangleMesh(_) => {
                        let e = b.shape.aabb(&Pose::identity()).map_or([0.0; 3], |a| a.half_extents());
                        (
                            if matches!(b.shape, Shape::ConvexHull(_)) { 5 } else { 6 },
                            (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt(),
                            e,
                        )
                    }
                };
                BodyFrame {
                    position: [q[0], q[1], q[2]],
                    orientation: [q[3], q[4], q[5], q[6]],
                    velocity: [v[0], v[1], v[2]],
                    angular_velocity: [v[3], v[4], v[5]],
                    shape_kind: kind,
                    radius,
                    extents,
                }
            })
            .collect()
    }

    /// The time step `h`.
    pub fn time_step(&self) -> f64 {
        self.sim.time_discretisation().h()
    }

    /// Number of steps done.
    pub fn steps_done(&self) -> usize {
        self.sim.steps_done()
    }

    /// Steps whose one-step problem or Newton loop ended above its tolerance and that the
    /// scene's policy let go on ([`SceneOptions::on_nonconvergence`]).
    pub fn unconverged_steps(&self) -> usize {
        self.sim.nonconverged_steps()
    }

    /// Convergence of the steps done: how many stopped above the FC3D solver's tolerance (or
    /// the Newton tolerance) and went on under the scene's policy
    /// ([`SceneOptions::on_nonconvergence`]), the worst error with the time and the step it
    /// occurred at. Its `Display` is one line, e.g. `1000 steps; 3 stopped above the tolerance
    /// 1e-4, worst error 2.3e-4 at t = 0.614 s (step 614)` or `1000 steps, all converged to
    /// 1e-4`. A step that stopped the scene (an error) is not in it.
    pub fn run_summary(&self) -> RunSummary {
        self.sim.run_summary().with_tolerance(self.tolerance)
    }

    /// The shape of body `i`.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`] for an index out of range.
    pub fn body_shape(&self, i: usize) -> Result<Shape, MechanicsError> {
        self.bodies.get(i).map(|b| b.shape.clone()).ok_or_else(|| KernelError::UnknownDs(i).into())
    }

    /// The static shapes (ground, walls, fixed shapes) in the order they were added; a
    /// contact's [`ContactPartner::Static`] is an index into this list.
    pub fn statics(&self) -> &[StaticShape] {
        &self.statics
    }

    /// The contacts of the last step, in the scene's order (by the pair of shapes, then the
    /// index of the point in the pair's contact set), with their points, local frame, gap,
    /// reaction and relative velocity (see [`ContactView`]).
    ///
    /// Nothing here is computed by the step for this purpose: the points and the normal are
    /// those the last detection gave the contact relation, moved with the bodies as the
    /// relation moves them (each point keeps its offset from its body's centre); the reaction
    /// is the multiplier `λ(1)` the step's one-step problem left in the interaction; the gap and
    /// the relative velocity are evaluated here at the bodies' current positions and
    /// velocities. Before the first step there are none.
    pub fn contacts(&self) -> impl Iterator<Item = ContactView> + '_ {
        let nb = self.bodies.len();
        let h = self.time_step();
        let nsds = self.sim.nsds();
        let state = move |b: usize| {
            let s = nsds.ds(self.bodies[b].ds).expect("a scene body exists").state();
            (s.q(), s.v())
        };
        // After a detection, `found` and `contacts` hold the same keys in the same order.
        self.found.iter().zip(&self.contacts).filter(|(f, c)| f.0 == c.0).map(move |(&((i, j, _), raw), &(_, id))| {
            // Body 1 is the body the normal points to (the orientation of `Scene::detect`).
            let (body, partner, c) = if j < nb {
                (j, ContactPartner::Body(i), raw)
            } else {
                (i, ContactPartner::Static(self.static_index[j - nb]), raw.flipped())
            };
            let frame = crate::contact::contact_frame(c.normal).expect("a detected normal is a unit vector");
            let (q1, v1) = state(body);
            let at_detection1 = self.qs[body];
            let moved = |q: &[f64], q_detection: &[f64; 7], p: Vec3| -> Vec3 {
                [q[0] + (p[0] - q_detection[0]), q[1] + (p[1] - q_detection[1]), q[2] + (p[2] - q_detection[2])]
            };
            let point = moved(q1, &at_detection1, c.point_b);
            let block1 =
                jacobian_block(&frame, [q1[0], q1[1], q1[2]], point, Quaternion::new(q1[3], q1[4], q1[5], q1[6]));
            let mut u = [0.0; 3];
            for (r, row) in block1.iter().enumerate() {
                u[r] = (0..6).map(|k| row[k] * v1[k]).sum();
            }
            let partner_point = match partner {
                ContactPartner::Body(b2) => {
                    let (q2, v2) = state(b2);
                    let p2 = moved(q2, &self.qs[b2], c.point_a);
                    let block2 =
                        jacobian_block(&frame, [q2[0], q2[1], q2[2]], p2, Quaternion::new(q2[3], q2[4], q2[5], q2[6]));
                    for (r, row) in block2.iter().enumerate() {
                        u[r] -= (0..6).map(|k| row[k] * v2[k]).sum::<f64>();
                    }
                    p2
                }
                ContactPartner::Static(_) => c.point_a,
            };
            let n = frame[0];
            let d = [point[0] - partner_point[0], point[1] - partner_point[1], point[2] - partner_point[2]];
            let inter = nsds.interaction(id).expect("a scene contact is an interaction");
            let mut impulse = [0.0; 3];
            for (x, l) in impulse.iter_mut().zip(inter.lambda(1)) {
                *x = *l;
            }
            ContactView {
                body,
                partner,
                point,
                partner_point,
                frame,
                gap: d[0] * n[0] + d[1] * n[1] + d[2] * n[2],
                detection_gap: c.distance,
                impulse,
                relative_velocity: u,
                active: inter.is_active(),
                interaction: id,
                time_step: h,
            }
        })
    }

    /// Detects the contacts at the current positions, then advances one step.
    ///
    /// A step that leaves a NaN or an infinity in a body's state or in a contact's impulse
    /// stops the scene with [`MechanicsError::NonFiniteBody`] (see [`TimeStepping::step`]);
    /// every later step returns that error again, without detecting contacts.
    ///
    /// # Errors
    /// [`MechanicsError::NonFiniteBody`] when the scene diverged; errors of the kernel step
    /// (under [`NonConvergencePolicy::Fail`], non-convergence).
    pub fn step(&mut self) -> Result<SceneStepReport, MechanicsError> {
        if let Some(error) = self.sim.stopped() {
            return Err(self.name_body(error));
        }
        let started = Instant::now();
        let (created, removed) = self.detect()?;
        let detection = started.elapsed();
        let step = self.sim.step().map_err(|e| self.name_body(e))?;
        Ok(SceneStepReport { step, detection, contacts: self.contacts.len(), created, removed })
    }

    /// The kernel's error, as [`MechanicsError::NonFiniteBody`] when it is a non-finite value
    /// of a body's system or of one of its contacts.
    fn name_body(&self, error: KernelError) -> MechanicsError {
        let KernelError::NonFiniteState { time, step, what } = error else { return error.into() };
        let body = match what {
            NonFiniteValue::System { ds, .. } => self.bodies.iter().position(|b| b.ds.index() == ds),
            // A contact's key starts with its body of lower index (the shapes are numbered
            // bodies first).
            NonFiniteValue::Multiplier { interaction, .. } => {
                self.contacts.iter().find(|(_, id)| id.index() == interaction).map(|&((body, _, _), _)| body)
            }
            _ => None,
        };
        match body {
            Some(body) => MechanicsError::NonFiniteBody { time, step, body, what },
            None => error.into(),
        }
    }

    /// The shape, pose and material of shape `k` in the scene's numbering.
    fn shape_at(&self, k: usize) -> (&Shape, &Pose, &Material) {
        let nb = self.bodies.len();
        let nf = self.finite_statics.len();
        if k < nb {
            let b = &self.bodies[k];
            (&b.shape, &self.poses[k], &b.material)
        } else if k < nb + nf {
            let s = &self.finite_statics[k - nb];
            (&s.shape, &s.pose, &s.material)
        } else {
            let s = &self.half_spaces[k - nb - nf];
            (&s.shape, &s.pose, &s.material)
        }
    }

    /// The position `q = (x, p)` of body `b` at this step's detection.
    fn body_q(&self, b: usize) -> [f64; 7] {
        self.qs[b]
    }

    /// The cache hints before the relation updates of `current[start..]` (see
    /// [`RELATION_BATCH`]): the records of the batch after next and the relations of the next
    /// batch; with `first`, also the records of the first two batches and the relations of the
    /// first.
    fn prefetch_relations(&self, current: &[(ContactKey, InteractionId)], start: usize, first: bool) {
        let nsds = self.sim.nsds();
        let batch = |k: usize| {
            let from = (start + k * RELATION_BATCH).min(current.len());
            &current[from..(from + RELATION_BATCH).min(current.len())]
        };
        if first {
            for &(_, id) in batch(0).iter().chain(batch(1)) {
                nsds.prefetch_interaction(id);
            }
            for &(_, id) in batch(0) {
                nsds.prefetch_relation(id);
            }
        }
        for &(_, id) in batch(2) {
            nsds.prefetch_interaction(id);
        }
        for &(_, id) in batch(1) {
            nsds.prefetch_relation(id);
        }
    }

    /// With ordering by height: the contact's priority `P·g` (highest first).
    fn order(&mut self, id: InteractionId, c: &ContactPoint) -> Result<(), MechanicsError> {
        if let Some(g) = self.gravity {
            let p = c.point_b;
            self.sim.nsds_mut().set_priority(id, p[0] * g[0] + p[1] * g[1] + p[2] * g[2])?;
        }
        Ok(())
    }

    /// Broad and narrow phases; creates, updates and removes contact interactions. Returns the
    /// numbers created and removed.
    fn detect(&mut self) -> Result<(usize, usize), MechanicsError> {
        let nb = self.bodies.len();
        let nf = self.finite_statics.len();
        self.poses.clear();
        self.qs.clear();
        self.aabbs.clear();
        for b in &self.bodies {
            let q = self.sim.nsds().ds(b.ds)?.state().q();
            let mut copy = [0.0; 7];
            copy.copy_from_slice(&q[..7]);
            self.qs.push(copy);
            let rotation = Quaternion::new(q[3], q[4], q[5], q[6]).to_rotation_matrix();
            let pose = Pose { position: [q[0], q[1], q[2]], rotation };
            self.aabbs.push(b.shape.aabb(&pose).ok_or_else(|| {
                KernelError::InvalidModel("a scene body must have a finite shape (half-spaces are static)".into())
            })?);
            self.poses.push(pose);
        }
        self.aabbs.extend_from_slice(&self.static_aabbs);
        self.broad.update(&self.aabbs, &self.half_space_poses)?;

        // Narrow phase, in key order: for each first shape i, its pairs (i, j) (j < nb + nf),
        // then its half-spaces.
        self.found.clear();
        let (pairs, hs_pairs) = (self.broad.pairs(), self.broad.half_space_pairs());
        let (mut ip, mut ih) = (0, 0);
        let mut points = std::mem::take(&mut self.points);
        while ip < pairs.len() || ih < hs_pairs.len() {
            let take_pair = match (pairs.get(ip), hs_pairs.get(ih)) {
                (Some(p), Some(h)) => p.0 <= h.0,
                (Some(_), None) => true,
                _ => false,
            };
            let (i, j) = if take_pair {
                ip += 1;
                pairs[ip - 1]
            } else {
                ih += 1;
                let (s, h) = hs_pairs[ih - 1];
                (s, nb + nf + h)
            };
            if i >= nb && j >= nb {
                continue; // two static shapes
            }
            if j < nb && !self.no_contact.is_empty() && self.no_contact.binary_search(&(i.min(j), i.max(j))).is_ok() {
                continue; // an excluded pair of bodies
            }
            let (si, pi, _) = self.shape_at(i);
            let (sj, pj, _) = self.shape_at(j);
            points.clear();
            collide(si, pi, sj, pj, self.margin, &mut points)?;
            for (k, c) in points.iter().enumerate() {
                self.found.push(((i, j, k), *c));
            }
        }
        self.points = points;

        // Merge with the current contacts (both sorted by key).
        let mut current = std::mem::take(&mut self.contacts);
        let mut next = std::mem::take(&mut self.next_contacts);
        next.clear();
        let (mut created, mut removed) = (0, 0);
        let mut ic = 0;
        let mut touched = 0;
        for idx in 0..self.found.len() {
            let (key, contact) = self.found[idx];
            while ic < current.len() && current[ic].0 < key {
                self.sim.nsds_mut().remove_interaction(current[ic].1)?;
                removed += 1;
                ic += 1;
            }
            // Body 1 is the dynamic body the normal points to.
            let (i, j, _) = key;
            let (b1, b2, c) = if j < nb {
                (j, Some(i), contact)
            } else if i < nb {
                (i, None, contact.flipped())
            } else {
                (j, None, contact)
            };
            if ic < current.len() && current[ic].0 == key {
                let id = current[ic].1;
                if ic >= touched {
                    self.prefetch_relations(&current, ic, touched == 0);
                    touched = ic + RELATION_BATCH;
                }
                ic += 1;
                let (q1, q2) = (self.body_q(b1), b2.map(|b| self.body_q(b)));
                let contact_relation = self.sim.nsds_mut().relation_mut_as::<ContactRelation>(id)?;
                contact_relation.update(&c, &q1, q2.as_ref().map(|q| q.as_slice()))?;
                self.order(id, &c)?;
                next.push((key, id));
            } else {
                let (_, _, mi) = self.shape_at(i);
                let (_, _, mj) = self.shape_at(j);
                let (mi, mj) = (*mi, *mj);
                let material = self
                    .pair_laws
                    .iter()
                    .find(|(a, b, _)| (*a == mi && *b == mj) || (*a == mj && *b == mi))
                    .map_or_else(|| mi.combine(mj), |(_, _, law)| *law);
                let law = NonsmoothLaw::newton_impact_friction(material.restitution(), 0.0, material.friction(), 3)?;
                let ds1 = self.bodies[b1].ds;
                let q1 = self.body_q(b1);
                let q2 = b2.map(|b| self.body_q(b));
                let nsds = self.sim.nsds_mut();
                let id = match (b2, q2) {
                    (Some(b), Some(q2)) => {
                        let ds2 = self.bodies[b].ds;
                        let relation = ContactRelation::new(ContactDimension::Friction3d, &c, &q1, Some(&q2))?;
                        nsds.link(relation, law, &[ds1, ds2])?
                    }
                    _ => {
                        let relation = ContactRelation::new(ContactDimension::Friction3d, &c, &q1, None)?;
                        nsds.link(relation, law, &[ds1])?
                    }
                };
                created += 1;
                self.order(id, &c)?;
                next.push((key, id));
            }
        }
        for &(_, id) in &current[ic..] {
            self.sim.nsds_mut().remove_interaction(id)?;
            removed += 1;
        }
        current.clear();
        self.contacts = next;
        self.next_contacts = current;
        Ok((created, removed))
    }
}
