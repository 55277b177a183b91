//! Second-order dynamical systems `q̇ = T(q) v`, `M(q) v̇ = F(t, q, v) + p`, with
//! `F = F_ext(t) − F_int(t, q, v) − F_gyr(q, v)`, the total force on the right-hand side (Siconos
//! developer documentation, section "Lagrangian dynamical systems").

use faer::Mat;

use super::checks::{finite_matrix, finite_output};

use crate::KernelError;
use crate::error::{check_finite, check_len};
use crate::linalg::check_spd;

/// The state of a second-order system and its memories, as an integrator reads and writes it.
///
/// `q` and `v` are the current iterate (after a step: `q_{k+1}`, `v_{k+1}`); `q_memory` and
/// `v_memory` hold `q_k`, `v_k`, the values at the beginning of the step; `p[level]` is the
/// input of the interactions at that level (`p[1]` is the contact impulse over the step in
/// time-stepping, `p = Σ Hᵀ λ`).
#[derive(Clone, Debug)]
pub struct SecondOrderState {
    pub(crate) q: Vec<f64>,
    pub(crate) v: Vec<f64>,
    pub(crate) q_memory: Vec<f64>,
    pub(crate) v_memory: Vec<f64>,
    pub(crate) p: [Vec<f64>; 3],
    /// `F(t_k, q_k, v_k)`, kept by the nonlinear Moreau–Jean residual.
    pub(crate) forces_memory: Vec<f64>,
}

impl SecondOrderState {
    /// The state at `t0`: positions `q0` (any size) and velocities `v0`.
    ///
    /// # Errors
    /// [`KernelError::NonFinite`] when a value is NaN or infinite.
    pub fn new(q0: Vec<f64>, v0: Vec<f64>) -> Result<Self, KernelError> {
        check_finite("initial position q0", &q0)?;
        check_finite("initial velocity v0", &v0)?;
        let nv = v0.len();
        Ok(Self {
            q_memory: q0.clone(),
            v_memory: v0.clone(),
            q: q0,
            v: v0,
            p: [vec![0.0; nv], vec![0.0; nv], vec![0.0; nv]],
            forces_memory: vec![0.0; nv],
        })
    }

    /// Current positions `q`.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// Current velocities `v`.
    pub fn v(&self) -> &[f64] {
        &self.v
    }

    /// Positions at the beginning of the last step, `q_k`.
    pub fn q_memory(&self) -> &[f64] {
        &self.q_memory
    }

    /// Velocities at the beginning of the last step, `v_k`.
    pub fn v_memory(&self) -> &[f64] {
        &self.v_memory
    }

    /// The input `p` of the interactions at `level` (0, 1 or 2): `p[1]` is the impulse of the
    /// contacts over the last time-stepping step, `p = Σ_α H_αᵀ λ_α[1]`.
    ///
    /// # Panics
    /// When `level > 2`.
    #[track_caller]
    pub fn p(&self, level: usize) -> &[f64] {
        assert!(level <= 2, "input levels are 0, 1 and 2");
        &self.p[level]
    }

    /// The input `p` at `level`, mutably: a one-step integrator sets its level to zero before a
    /// one-step problem adds `Σ Hᵀ λ` to it.
    ///
    /// # Panics
    /// When `level > 2`.
    #[track_caller]
    pub fn p_mut(&mut self, level: usize) -> &mut [f64] {
        assert!(level <= 2, "input levels are 0, 1 and 2");
        &mut self.p[level]
    }

    /// The current positions and velocities, mutably, for a one-step integrator within a step
    /// (the memories `q_k`, `v_k` stay until [`SecondOrderState::commit_memories`]).
    pub fn qv_mut(&mut self) -> (&mut [f64], &mut [f64]) {
        (&mut self.q, &mut self.v)
    }

    /// Ends a step: `q_k ← q`, `v_k ← v`.
    pub fn commit_memories(&mut self) {
        self.q_memory.copy_from_slice(&self.q);
        self.v_memory.copy_from_slice(&self.v);
    }

    /// Overwrites positions and velocities (between steps), e.g. to restart from a chosen state.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] or [`KernelError::NonFinite`].
    pub fn set(&mut self, q: &[f64], v: &[f64]) -> Result<(), KernelError> {
        check_len("position q", self.q.len(), q.len())?;
        check_len("velocity v", self.v.len(), v.len())?;
        check_finite("position q", q)?;
        check_finite("velocity v", v)?;
        self.q.copy_from_slice(q);
        self.v.copy_from_slice(v);
        self.q_memory.copy_from_slice(q);
        self.v_memory.copy_from_slice(v);
        Ok(())
    }
}

/// The constant matrices of a Lagrangian linear time-invariant system
/// `M v̇ + C v + K q = F_ext(t) + p`, which Moreau–Jean integrates with `W` factorized once.
#[derive(Clone, Copy, Debug)]
pub struct LinearTidsParts<'a> {
    /// Mass matrix `M`.
    pub mass: &'a Mat<f64>,
    /// Damping `C`, when present.
    pub damping: Option<&'a Mat<f64>>,
    /// Stiffness `K`, when present.
    pub stiffness: Option<&'a Mat<f64>>,
}

/// A second-order dynamical system `q̇ = T(q) v`, `M(q) v̇ = F(t, q, v) + p`
/// (Siconos developer documentation, sections "class LagrangianDS" and "Lagrangian dynamical
/// systems").
///
/// The kernel implements it for [`LagrangianDs`] and [`LagrangianLinearTids`]; the mechanics
/// crate implements it for Newton–Euler bodies, whose positions (`R⁷`: centre and unit
/// quaternion) and velocities (`R⁶`: twist) differ in size, through
/// [`SecondOrderDs::update_position`].
pub trait SecondOrderDs: Send {
    /// Size of the velocity `v` (the number of degrees of freedom).
    fn velocity_size(&self) -> usize;

    /// Size of the position `q` (equal to [`SecondOrderDs::velocity_size`] unless `T(q) ≠ I`).
    fn position_size(&self) -> usize {
        self.velocity_size()
    }

    /// The state and its memories.
    fn state(&self) -> &SecondOrderState;

    /// The state, mutably (integrators write it).
    fn state_mut(&mut self) -> &mut SecondOrderState;

    /// `Some` for a linear time-invariant system (constant `M`, `C`, `K`): Moreau–Jean then
    /// factorizes `W = M + hθC + h²θ²K` once and uses the linear free-state formula.
    fn linear_time_invariant(&self) -> Option<LinearTidsParts<'_>> {
        None
    }

    /// Whether `M` does not depend on `q`.
    fn is_mass_constant(&self) -> bool;

    /// Writes `M(q)` into `out` (`velocity_size` square).
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn mass(&mut self, q: &[f64], out: &mut Mat<f64>) -> Result<(), KernelError>;

    /// Writes the total force `F(t, q, v) = F_ext(t) − F_int(t, q, v) − F_gyr(q, v)` into `out`.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn forces(&mut self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) -> Result<(), KernelError>;

    /// Writes the Jacobians of the total force, `∂F/∂q` (with respect to the position, in
    /// velocity coordinates) and `∂F/∂v`, into `dq` and `dv` (both `velocity_size` square;
    /// zero on entry). Returns `false` when both are identically zero.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn forces_jacobians(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        dq: &mut Mat<f64>,
        dv: &mut Mat<f64>,
    ) -> Result<bool, KernelError>;

    /// Whether `∂F/∂q` and `∂F/∂v` are identically zero, for every `(t, q, v)` (then
    /// [`SecondOrderDs::forces_jacobians`] always returns `false`). With a constant mass, the
    /// Moreau–Jean iteration matrix is then `W = M` at every iterate and step, and is
    /// factorized once. `false` by default (the Jacobians are then evaluated at every iterate).
    fn forces_jacobians_vanish(&self) -> bool {
        false
    }

    /// Writes `F_ext(t)` into `out`; returns `false` (and leaves `out` untouched) when the
    /// system has no external force. Used by the linear time-invariant path.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn external_force(&mut self, t: f64, out: &mut [f64]) -> Result<bool, KernelError>;

    /// The θ-method position update `q = q_k + h (θ v + (1 − θ) v_k)` (Siconos developer
    /// documentation, section "Moreau–Jean event-capturing scheme"),
    /// written into `q`. Systems with `T(q) ≠ I` (Newton–Euler) override it with their
    /// Lie-group update.
    fn update_position(&self, h: f64, theta: f64, q_memory: &[f64], v_memory: &[f64], v: &[f64], q: &mut [f64]) {
        theta_position_update(h, theta, q_memory, v_memory, v, q);
    }

    /// Whether [`SecondOrderDs::displace_position`] moves this system: by default when
    /// positions and velocities have the same size (`T(q) = I`). Systems with `T(q) ≠ I` that
    /// implement the displacement (Newton–Euler bodies) override it to `true`. The projection
    /// onto the constraints refuses the other systems.
    fn can_displace_position(&self) -> bool {
        self.position_size() == self.velocity_size()
    }

    /// Moves the positions by a displacement `δ` given in velocity coordinates (a correction
    /// `Hᵀλ` of the projection onto the constraints): `q ← q + T(q) δ` (Acary, "Projected
    /// event-capturing time-stepping schemes for nonsmooth mechanical systems with unilateral
    /// contact and Coulomb's friction", CMAME 256, 2013; Siconos developer documentation,
    /// "Projection on constraints", approach using V). The default, for `T(q) = I`, is
    /// `q ← q + δ`; Newton–Euler bodies map the rotational part through `½Ψ(p)` and bring the
    /// quaternion back to the unit sphere.
    fn displace_position(&self, delta: &[f64], q: &mut [f64]) {
        for (qi, di) in q.iter_mut().zip(delta) {
            *qi += di;
        }
    }

    /// Writes the position rate `q̇ = T(q) v` into `out` (`position_size` entries), the
    /// kinematic equation the event-driven scheme integrates (Siconos developer documentation,
    /// "Lagrangian dynamical systems" and "NewtonEuler Dynamical Systems"); returns whether it
    /// did. The default, for `T(q) = I`, copies `v` (and returns `false`, writing nothing, when
    /// positions and velocities differ in size); Newton–Euler bodies give
    /// `(v_G, ½ p∘(0, Ω))`.
    fn position_rate(&self, _q: &[f64], v: &[f64], out: &mut [f64]) -> bool {
        if out.len() != v.len() {
            return false;
        }
        out.copy_from_slice(v);
        true
    }

    /// Brings positions integrated as `q̇ = T(q) v` back onto the system's configuration
    /// manifold (a Newton–Euler body's unit quaternion, `p ← p/|p|`); returns whether `q`
    /// changed. The default (`q ∈ Rⁿ`) leaves `q` as it is and returns `false`.
    fn normalize_position(&self, _q: &mut [f64]) -> bool {
        false
    }
}

/// `q = q_k + h θ v + h (1 − θ) v_k`, in Siconos 4.4's order of operations
/// (`q ← (hθ) v; q += (h(1 − θ)) v_k; q += q_k`).
pub(crate) fn theta_position_update(h: f64, theta: f64, q_memory: &[f64], v_memory: &[f64], v: &[f64], q: &mut [f64]) {
    let a = h * theta;
    let b = h * (1.0 - theta);
    for i in 0..q.len() {
        let mut x = a * v[i];
        x += b * v_memory[i];
        x += q_memory[i];
        q[i] = x;
    }
}

/// The state of a Lagrangian system (`q̇ = v`) after checking the sizes of `q0`, `v0` and the
/// mass matrix and that the mass matrix is symmetric positive definite.
fn lagrangian_state(q0: Vec<f64>, v0: Vec<f64>, mass: &Mat<f64>) -> Result<SecondOrderState, KernelError> {
    let n = q0.len();
    if n == 0 {
        return Err(KernelError::DimensionMismatch { what: "initial position q0", expected: 1, found: 0 });
    }
    check_len("initial velocity v0", n, v0.len())?;
    check_len("mass matrix", n, mass.nrows())?;
    check_spd(mass, "mass matrix")?;
    SecondOrderState::new(q0, v0)
}

/// A user function of time writing a vector (e.g. `F_ext(t)`).
pub type TimeFn = Box<dyn FnMut(f64, &mut [f64]) + Send>;
/// A user function `(t, q, v) ↦ vector` (e.g. `F_int`, `F_gyr`; `F_gyr` ignores `t`).
pub type StateFn = Box<dyn FnMut(f64, &[f64], &[f64], &mut [f64]) + Send>;
/// A user function `(t, q, v) ↦ matrix` (Jacobians of forces), written into a zeroed matrix.
pub type StateMatrixFn = Box<dyn FnMut(f64, &[f64], &[f64], &mut Mat<f64>) + Send>;
/// A user function `q ↦ M(q)`, written into a zeroed matrix.
pub type MassFn = Box<dyn FnMut(&[f64], &mut Mat<f64>) + Send>;

/// An external force: none, a constant vector, or a function of time.
enum ExternalForce {
    None,
    Constant(Vec<f64>),
    Function(TimeFn),
}

impl ExternalForce {
    /// A constant force of size `n`, checked finite.
    fn constant(f: Vec<f64>, n: usize) -> Result<Self, KernelError> {
        check_len("external force", n, f.len())?;
        check_finite("external force", &f)?;
        Ok(ExternalForce::Constant(f))
    }

    fn eval(&mut self, t: f64, out: &mut [f64]) -> Result<bool, KernelError> {
        match self {
            ExternalForce::None => Ok(false),
            ExternalForce::Constant(f) => {
                out.copy_from_slice(f);
                Ok(true)
            }
            ExternalForce::Function(f) => {
                f(t, out);
                finite_output("F_ext", t, out)?;
                Ok(true)
            }
        }
    }
}

fn check_square(what: &'static str, m: &Mat<f64>, n: usize) -> Result<(), KernelError> {
    super::checks::check_matrix(what, m, n, n)
}

/// Lagrangian linear time-invariant system `M v̇ + C v + K q = F_ext(t) + p`, `q̇ = v`
/// (Siconos' `LagrangianLinearTIDS`; Siconos developer documentation, section "The Linear
/// Time-invariant NonSmooth Lagrangian Dynamics"). `M` is symmetric positive definite, `C` and `K`
/// constant.
#[doc(alias = "LagrangianLinearTIDS")]
pub struct LagrangianLinearTids {
    state: SecondOrderState,
    mass: Mat<f64>,
    damping: Option<Mat<f64>>,
    stiffness: Option<Mat<f64>>,
    f_ext: ExternalForce,
}

impl std::fmt::Debug for LagrangianLinearTids {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LagrangianLinearTids")
            .field("state", &self.state)
            .field("mass", &self.mass)
            .field("damping", &self.damping)
            .field("stiffness", &self.stiffness)
            .finish_non_exhaustive()
    }
}

impl LagrangianLinearTids {
    /// A system with initial position `q0`, velocity `v0` and mass matrix `mass`, without
    /// damping, stiffness or external force.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] when sizes differ, [`KernelError::NonFinite`],
    /// [`KernelError::NotPositiveDefinite`] when `mass` is not symmetric positive definite.
    pub fn new(q0: Vec<f64>, v0: Vec<f64>, mass: Mat<f64>) -> Result<Self, KernelError> {
        Ok(Self {
            state: lagrangian_state(q0, v0, &mass)?,
            mass,
            damping: None,
            stiffness: None,
            f_ext: ExternalForce::None,
        })
    }

    /// Adds the damping matrix `C`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_damping(mut self, c: Mat<f64>) -> Result<Self, KernelError> {
        check_square("damping matrix C", &c, self.state.v.len())?;
        self.damping = Some(c);
        Ok(self)
    }

    /// Adds the stiffness matrix `K`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_stiffness(mut self, k: Mat<f64>) -> Result<Self, KernelError> {
        check_square("stiffness matrix K", &k, self.state.v.len())?;
        self.stiffness = Some(k);
        Ok(self)
    }

    /// Sets a constant external force `F_ext`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_external_force(mut self, f: Vec<f64>) -> Result<Self, KernelError> {
        self.f_ext = ExternalForce::constant(f, self.state.v.len())?;
        Ok(self)
    }

    /// Sets a time-dependent external force `F_ext(t)`, written by `f(t, out)`.
    pub fn with_external_force_fn(mut self, f: impl FnMut(f64, &mut [f64]) + Send + 'static) -> Self {
        self.f_ext = ExternalForce::Function(Box::new(f));
        self
    }

    /// The mass matrix `M`.
    pub fn mass_matrix(&self) -> &Mat<f64> {
        &self.mass
    }
}

impl SecondOrderDs for LagrangianLinearTids {
    fn velocity_size(&self) -> usize {
        self.state.v.len()
    }

    fn state(&self) -> &SecondOrderState {
        &self.state
    }

    fn state_mut(&mut self) -> &mut SecondOrderState {
        &mut self.state
    }

    fn linear_time_invariant(&self) -> Option<LinearTidsParts<'_>> {
        Some(LinearTidsParts { mass: &self.mass, damping: self.damping.as_ref(), stiffness: self.stiffness.as_ref() })
    }

    fn is_mass_constant(&self) -> bool {
        true
    }

    fn mass(&mut self, _q: &[f64], out: &mut Mat<f64>) -> Result<(), KernelError> {
        out.copy_from(&self.mass);
        Ok(())
    }

    fn forces(&mut self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        if !self.f_ext.eval(t, out)? {
            out.fill(0.0);
        }
        let n = out.len();
        if let Some(c) = &self.damping {
            for i in 0..n {
                out[i] -= (0..n).map(|j| c[(i, j)] * v[j]).sum::<f64>();
            }
        }
        if let Some(k) = &self.stiffness {
            for i in 0..n {
                out[i] -= (0..n).map(|j| k[(i, j)] * q[j]).sum::<f64>();
            }
        }
        Ok(())
    }

    fn forces_jacobians(
        &mut self,
        _t: f64,
        _q: &[f64],
        _v: &[f64],
        dq: &mut Mat<f64>,
        dv: &mut Mat<f64>,
    ) -> Result<bool, KernelError> {
        let mut any = false;
        if let Some(k) = &self.stiffness {
            dq.copy_from(k);
            *dq *= faer::Scale(-1.0);
            any = true;
        }
        if let Some(c) = &self.damping {
            dv.copy_from(c);
            *dv *= faer::Scale(-1.0);
            any = true;
        }
        Ok(any)
    }

    fn external_force(&mut self, t: f64, out: &mut [f64]) -> Result<bool, KernelError> {
        self.f_ext.eval(t, out)
    }
}

/// A user-supplied force term with its two Jacobians.
struct ForceTerm {
    f: StateFn,
    jacobian_q: StateMatrixFn,
    jacobian_v: StateMatrixFn,
}

/// Nonlinear Lagrangian system `M(q) v̇ + F_gyr(q, v) + F_int(t, q, v) = F_ext(t) + p`,
/// `q̇ = v` (Siconos' `LagrangianDS`; Siconos developer documentation, section "Lagrangian
/// dynamical systems"). Every force given as a function comes with its Jacobians, which Moreau–Jean's
/// Newton loop uses in `W = M − hθ ∂F/∂v − h²θ² ∂F/∂q`.
#[doc(alias = "LagrangianDS")]
pub struct LagrangianDs {
    state: SecondOrderState,
    mass: Mat<f64>,
    mass_fn: Option<MassFn>,
    f_int: Option<ForceTerm>,
    f_gyr: Option<ForceTerm>,
    f_ext: ExternalForce,
    work: Vec<f64>,
    work_matrix: Mat<f64>,
}

impl std::fmt::Debug for LagrangianDs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LagrangianDs").field("state", &self.state).field("mass", &self.mass).finish_non_exhaustive()
    }
}

impl LagrangianDs {
    /// A system with a constant mass matrix (replace it with [`LagrangianDs::with_mass_fn`]).
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`],
    /// [`KernelError::NotPositiveDefinite`].
    pub fn new(q0: Vec<f64>, v0: Vec<f64>, mass: Mat<f64>) -> Result<Self, KernelError> {
        let n = q0.len();
        Ok(Self {
            state: lagrangian_state(q0, v0, &mass)?,
            mass,
            mass_fn: None,
            f_int: None,
            f_gyr: None,
            f_ext: ExternalForce::None,
            work: vec![0.0; n],
            work_matrix: Mat::zeros(n, n),
        })
    }

    /// A configuration-dependent mass matrix `M(q)`, written by `m(q, out)` into a zeroed matrix;
    /// checked symmetric positive definite at `q0`.
    ///
    /// # Errors
    /// [`KernelError::NotPositiveDefinite`] or [`KernelError::NonFinite`] at `q0`.
    pub fn with_mass_fn(
        mut self,
        mut m: impl FnMut(&[f64], &mut Mat<f64>) + Send + 'static,
    ) -> Result<Self, KernelError> {
        let n = self.state.v.len();
        let mut at_q0 = Mat::zeros(n, n);
        m(&self.state.q, &mut at_q0);
        check_spd(&at_q0, "mass matrix M(q0)")?;
        self.mass = at_q0;
        self.mass_fn = Some(Box::new(m));
        Ok(self)
    }

    /// Internal forces `F_int(t, q, v)` with their Jacobians `∂F_int/∂q` and `∂F_int/∂v`.
    pub fn with_internal_forces(
        mut self,
        f: impl FnMut(f64, &[f64], &[f64], &mut [f64]) + Send + 'static,
        jacobian_q: impl FnMut(f64, &[f64], &[f64], &mut Mat<f64>) + Send + 'static,
        jacobian_v: impl FnMut(f64, &[f64], &[f64], &mut Mat<f64>) + Send + 'static,
    ) -> Self {
        self.f_int =
            Some(ForceTerm { f: Box::new(f), jacobian_q: Box::new(jacobian_q), jacobian_v: Box::new(jacobian_v) });
        self
    }

    /// Gyroscopic (nonlinear inertia) forces `F_gyr(q, v)` with their Jacobians; the functions
    /// receive `t` too, for a uniform signature, and may ignore it.
    pub fn with_gyroscopic_forces(
        mut self,
        f: impl FnMut(f64, &[f64], &[f64], &mut [f64]) + Send + 'static,
        jacobian_q: impl FnMut(f64, &[f64], &[f64], &mut Mat<f64>) + Send + 'static,
        jacobian_v: impl FnMut(f64, &[f64], &[f64], &mut Mat<f64>) + Send + 'static,
    ) -> Self {
        self.f_gyr =
            Some(ForceTerm { f: Box::new(f), jacobian_q: Box::new(jacobian_q), jacobian_v: Box::new(jacobian_v) });
        self
    }

    /// A constant external force `F_ext`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_external_force(mut self, f: Vec<f64>) -> Result<Self, KernelError> {
        self.f_ext = ExternalForce::constant(f, self.state.v.len())?;
        Ok(self)
    }

    /// A time-dependent external force `F_ext(t)`.
    pub fn with_external_force_fn(mut self, f: impl FnMut(f64, &mut [f64]) + Send + 'static) -> Self {
        self.f_ext = ExternalForce::Function(Box::new(f));
        self
    }
}

impl SecondOrderDs for LagrangianDs {
    fn velocity_size(&self) -> usize {
        self.state.v.len()
    }

    fn state(&self) -> &SecondOrderState {
        &self.state
    }

    fn state_mut(&mut self) -> &mut SecondOrderState {
        &mut self.state
    }

    fn is_mass_constant(&self) -> bool {
        self.mass_fn.is_none()
    }

    fn mass(&mut self, q: &[f64], out: &mut Mat<f64>) -> Result<(), KernelError> {
        match &mut self.mass_fn {
            None => out.copy_from(&self.mass),
            Some(m) => {
                out.fill(0.0);
                m(q, out);
                finite_matrix("M(q)", f64::NAN, out)?;
            }
        }
        Ok(())
    }

    fn forces(&mut self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        if !self.f_ext.eval(t, out)? {
            out.fill(0.0);
        }
        for (term, what) in [(&mut self.f_int, "F_int"), (&mut self.f_gyr, "F_gyr")] {
            if let Some(term) = term {
                self.work.fill(0.0);
                (term.f)(t, q, v, &mut self.work);
                finite_output(what, t, &self.work)?;
                for (o, w) in out.iter_mut().zip(&self.work) {
                    *o -= w;
                }
            }
        }
        Ok(())
    }

    /// Without internal and gyroscopic forces (the external force does not depend on the state).
    fn forces_jacobians_vanish(&self) -> bool {
        self.f_int.is_none() && self.f_gyr.is_none()
    }

    fn forces_jacobians(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        dq: &mut Mat<f64>,
        dv: &mut Mat<f64>,
    ) -> Result<bool, KernelError> {
        let mut any = false;
        for (term, what) in [(&mut self.f_int, "Jacobian of F_int"), (&mut self.f_gyr, "Jacobian of F_gyr")] {
            if let Some(term) = term {
                for (jac, target) in [(&mut term.jacobian_q, &mut *dq), (&mut term.jacobian_v, &mut *dv)] {
                    self.work_matrix.fill(0.0);
                    jac(t, q, v, &mut self.work_matrix);
                    finite_matrix(what, t, &self.work_matrix)?;
                    *target -= &self.work_matrix;
                }
                any = true;
            }
        }
        Ok(any)
    }

    fn external_force(&mut self, t: f64, out: &mut [f64]) -> Result<bool, KernelError> {
        self.f_ext.eval(t, out)
    }
}
