//! Newton–Euler rigid bodies (Siconos' `NewtonEulerDS`; Siconos developer notes, chapter
//! "NewtonEuler Dynamical Systems": the equations of motion, their quaternion form, the
//! Moreau–Jean θ-schemes and the Jacobians of special cases).
//!
//! State `q = (x_G, p) ∈ R⁷` (centre of mass in the inertial frame, unit quaternion scalar
//! first) and twist `v = (v_G, Ω) ∈ R⁶` (velocity of the centre in the inertial frame, angular
//! velocity in the body frame), `q̇ = T(q) v`, and
//!
//! `𝕄 v̇ = F(t, q, v) + p`, `𝕄 = diag(m I₃, I)`,
//! `F = [f_ext(t) − f_int(t, q, v) ; M_ext(t, q) − M_int(t, q, v) − Ω × IΩ]`,
//!
//! forces in the inertial frame, moments in the body frame (an inertial-frame external moment
//! `m` is convected, `M = Rᵀ m`; the developer notes misprint it as `Φ(p) m = R m`).
//!
//! The kernel's Moreau–Jean scheme integrates it as the developer notes' "nearly implicit
//! version" of the θ-scheme with the Lie-group position update of Siconos 4.4 ([`NewtonEulerDs`]'s
//! [`SecondOrderDs::update_position`]): `inc = hθ v + h(1 − θ) v_k`, `x = x_k + inc_x`,
//! `p = p_k ∘ expq(inc_Ω)`, so the quaternion stays unit without renormalization;
//! `W = 𝕄 − hθ ∂F/∂v − h²θ² (∂F/∂q) T(q)` is recomputed at every Newton iterate (the
//! gyroscopic Jacobian: column i of `∂(Ω × IΩ)/∂Ω` is `eᵢ × IΩ + Ω × I eᵢ`).
//! The operations follow Siconos 4.4's order, so `BouncingBallNETS` and free rotations match it
//! bit for bit.

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::{SecondOrderDs, SecondOrderState};

use crate::MechanicsError;
use crate::lie::{Mat3, Quaternion, Vec3, cross};

/// A time-dependent 3-vector (force or moment) `f(t, out)`.
type VectorFn = Box<dyn FnMut(f64, &mut [f64; 3]) + Send>;
/// An internal wrench `F_int(t, q, v)` (6 components: force, then moment in the body frame).
type WrenchFn = Box<dyn FnMut(f64, &[f64], &[f64], &mut [f64; 6]) + Send>;
/// A Jacobian of the internal wrench, written into a zeroed matrix (`6 × 7` for `∂/∂q`,
/// `6 × 6` for `∂/∂v`).
type WrenchJacobianFn = Box<dyn FnMut(f64, &[f64], &[f64], &mut Mat<f64>) + Send>;

/// A constant or time-dependent vector.
enum Source {
    Constant([f64; 3]),
    Function(VectorFn),
}

impl Source {
    fn eval(&mut self, t: f64, what: &'static str) -> Result<[f64; 3], KernelError> {
        let v = match self {
            Source::Constant(v) => *v,
            Source::Function(f) => {
                let mut out = [0.0; 3];
                f(t, &mut out);
                out
            }
        };
        if v.iter().all(|x| x.is_finite()) { Ok(v) } else { Err(KernelError::NonFiniteCallback { what, time: t }) }
    }
}

/// The quaternion exponential used by the position update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QuaternionExponential {
    /// `expq(Ω) = (cos(θ/2), sin(θ/2) Ω/θ)` with `sin x / x` by its series below `x = 1e-3`
    /// (default).
    #[default]
    Exact,
    /// Siconos 4.4's `quaternionFromTwistVector`, whose small-angle helper (`|θ/2| ≤ 1e-3`) takes
    /// the series of `tan x / x` instead of `sin x / x` (a relative error of `x²/2`, 5e-7 at the
    /// threshold): for results equal to Siconos' bit for bit.
    Siconos,
}

/// Internal wrench with its Jacobians.
struct InternalWrench {
    f: WrenchFn,
    jacobian_q: Option<WrenchJacobianFn>,
    jacobian_v: Option<WrenchJacobianFn>,
}

/// A rigid body in 3D (Siconos' `NewtonEulerDS`; module documentation).
pub struct NewtonEulerDs {
    state: SecondOrderState,
    mass: f64,
    inertia: Mat3,
    f_ext: Option<Source>,
    m_ext: Option<Source>,
    m_ext_inertial: Option<Source>,
    internal: Option<InternalWrench>,
    gyroscopic: bool,
    exponential: QuaternionExponential,
    /// Scratch for the user Jacobian `∂F_int/∂q` (6 × 7).
    jac_q: Mat<f64>,
}

impl std::fmt::Debug for NewtonEulerDs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewtonEulerDs")
            .field("q", &self.state.q())
            .field("v", &self.state.v())
            .field("mass", &self.mass)
            .field("inertia", &self.inertia)
            .field("gyroscopic", &self.gyroscopic)
            .finish_non_exhaustive()
    }
}

impl NewtonEulerDs {
    /// A body at `q0 = (x, y, z, p0, p1, p2, p3)` with twist `v0`, mass `m` and inertia `I`
    /// (body frame, about the centre of mass), gyroscopic term on, no force.
    ///
    /// # Errors
    /// [`KernelError::NonFinite`] for NaN or infinite data; [`KernelError::NotPositiveDefinite`]
    /// for a mass `m ≤ 0` or an inertia that is not symmetric positive definite;
    /// [`KernelError::InvalidOption`] for a quaternion whose norm is not 1 (to 1e-10).
    pub fn new(q0: [f64; 7], v0: [f64; 6], mass: f64, inertia: Mat3) -> Result<Self, MechanicsError> {
        let state = SecondOrderState::new(q0.to_vec(), v0.to_vec())?;
        if !mass.is_finite() || inertia.iter().flatten().any(|x| !x.is_finite()) {
            return Err(KernelError::NonFinite { what: "mass or inertia" }.into());
        }
        if mass <= 0.0 {
            return Err(KernelError::NotPositiveDefinite { what: "mass" }.into());
        }
        if !is_spd(&inertia) {
            return Err(KernelError::NotPositiveDefinite { what: "inertia" }.into());
        }
        let p = Quaternion::new(q0[3], q0[4], q0[5], q0[6]);
        if (p.norm() - 1.0).abs() > 1e-10 {
            return Err(KernelError::InvalidOption { name: "q0", reason: "the quaternion must have unit norm" }.into());
        }
        Ok(Self {
            state,
            mass,
            inertia,
            f_ext: None,
            m_ext: None,
            m_ext_inertial: None,
            internal: None,
            gyroscopic: true,
            exponential: QuaternionExponential::Exact,
            jac_q: Mat::zeros(6, 7),
        })
    }

    /// Adds a constant external force (inertial frame), e.g. gravity `(0, 0, −m g)`.
    ///
    /// # Errors
    /// [`KernelError::NonFinite`] for NaN or infinite values.
    pub fn with_external_force(mut self, f: [f64; 3]) -> Result<Self, MechanicsError> {
        check_finite3("external force", &f)?;
        self.f_ext = Some(Source::Constant(f));
        Ok(self)
    }

    /// Sets a time-dependent external force `f(t, out)` (inertial frame).
    pub fn with_external_force_fn(mut self, f: impl FnMut(f64, &mut [f64; 3]) + Send + 'static) -> Self {
        self.f_ext = Some(Source::Function(Box::new(f)));
        self
    }

    /// Adds a constant external moment expressed in the body frame.
    ///
    /// # Errors
    /// [`KernelError::NonFinite`] for NaN or infinite values.
    pub fn with_external_moment(mut self, m: [f64; 3]) -> Result<Self, MechanicsError> {
        check_finite3("external moment", &m)?;
        self.m_ext = Some(Source::Constant(m));
        Ok(self)
    }

    /// Sets a time-dependent external moment `m(t, out)` expressed in the inertial frame; the
    /// body sees `M = Rᵀ m` (the developer notes misprint it as `Φ(p) m = R m`).
    pub fn with_external_moment_inertial_fn(mut self, m: impl FnMut(f64, &mut [f64; 3]) + Send + 'static) -> Self {
        self.m_ext_inertial = Some(Source::Function(Box::new(m)));
        self
    }

    /// Sets an internal wrench `F_int(t, q, v)` (force in the inertial frame, then moment in the
    /// body frame; it enters `F` with a minus sign) and its Jacobians `∂F_int/∂q` (`6 × 7`) and
    /// `∂F_int/∂v` (`6 × 6`), each optional (then taken as zero in `W`).
    pub fn with_internal_wrench(
        mut self,
        f: impl FnMut(f64, &[f64], &[f64], &mut [f64; 6]) + Send + 'static,
        jacobian_q: Option<WrenchJacobianFn>,
        jacobian_v: Option<WrenchJacobianFn>,
    ) -> Self {
        self.internal = Some(InternalWrench { f: Box::new(f), jacobian_q, jacobian_v });
        self
    }

    /// Turns the gyroscopic moment `Ω × IΩ` off (on by default).
    pub fn without_gyroscopic(mut self) -> Self {
        self.gyroscopic = false;
        self
    }

    /// Chooses the quaternion exponential of the position update.
    pub fn with_exponential(mut self, exponential: QuaternionExponential) -> Self {
        self.exponential = exponential;
        self
    }

    /// The mass `m`.
    pub fn mass_value(&self) -> f64 {
        self.mass
    }

    /// The inertia `I` (body frame).
    pub fn inertia(&self) -> &Mat3 {
        &self.inertia
    }

    /// The centre of mass `x_G`.
    pub fn position(&self) -> Vec3 {
        let q = self.state.q();
        [q[0], q[1], q[2]]
    }

    /// The orientation quaternion.
    pub fn orientation(&self) -> Quaternion {
        let q = self.state.q();
        Quaternion::new(q[3], q[4], q[5], q[6])
    }

    /// Kinetic energy `½ m |v_G|² + ½ Ωᵀ I Ω`.
    pub fn kinetic_energy(&self) -> f64 {
        let v = self.state.v();
        let omega = [v[3], v[4], v[5]];
        let i_omega = inertia_times(&self.inertia, omega);
        0.5 * self.mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
            + 0.5 * (omega[0] * i_omega[0] + omega[1] * i_omega[1] + omega[2] * i_omega[2])
    }
}

/// `I ω`, row sums from 0.0 (Siconos' product).
fn inertia_times(i: &Mat3, w: Vec3) -> Vec3 {
    let mut out = [0.0; 3];
    for (r, o) in out.iter_mut().enumerate() {
        let mut s = 0.0;
        for (c, wc) in w.iter().enumerate() {
            s += i[r][c] * wc;
        }
        *o = s;
    }
    out
}

fn check_finite3(what: &'static str, v: &[f64; 3]) -> Result<(), KernelError> {
    if v.iter().all(|x| x.is_finite()) { Ok(()) } else { Err(KernelError::NonFinite { what }) }
}

/// Symmetric positive definite 3 × 3 (symmetry to 1e-12 relative, leading minors > 0).
fn is_spd(m: &Mat3) -> bool {
    let scale = m.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    let symmetric = (0..3).all(|i| (0..3).all(|j| (m[i][j] - m[j][i]).abs() <= 1e-12 * scale));
    let d1 = m[0][0];
    let d2 = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    let d3 = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    symmetric && d1 > 0.0 && d2 > 0.0 && d3 > 0.0
}

/// Siconos 4.4's `sin_x` helper: `sin x / x`, or for `|x| ≤ 1e-3` the series
/// `1 + x²/3 + 2x⁴/15 + 17x⁶/315 + 62x⁸/2835` (that of `tan x / x`).
fn siconos_sin_x(x: f64) -> f64 {
    if x.abs() <= 1e-3 {
        1.0 + x * x / 3.0 + x.powf(4.0) * 2.0 / 15.0 + x.powf(6.0) * 17.0 / 315.0 + x.powf(8.0) * 62.0 / 2835.0
    } else {
        x.sin() / x
    }
}

/// `sin x / x` with its series below `|x| ≤ 1e-3` (`1 − x²/6 + x⁴/120`, error below 1e-20).
fn sin_x(x: f64) -> f64 {
    if x.abs() <= 1e-3 {
        let x2 = x * x;
        1.0 - x2 / 6.0 + x2 * x2 / 120.0
    } else {
        x.sin() / x
    }
}

/// `expq(w)` in Siconos' order of operations: `φ = |w|`, `f = ½ sinx(φ/2)`,
/// `(cos(φ/2), w f)`.
fn exp_twist(w: Vec3, kind: QuaternionExponential) -> [f64; 4] {
    let phi = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    let s = match kind {
        QuaternionExponential::Exact => sin_x(phi * 0.5),
        QuaternionExponential::Siconos => siconos_sin_x(phi * 0.5),
    };
    let f = 0.5 * s;
    [(phi / 2.0).cos(), w[0] * f, w[1] * f, w[2] * f]
}

/// The quaternion product `a ∘ b` summed left to right (boost's order, as Siconos; the
/// toolkit's `Quaternion * Quaternion` groups the terms as `p0 q⃗ + q0 p⃗ + p⃗ × q⃗`, which rounds
/// differently).
fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [a0, a1, a2, a3] = a;
    let [b0, b1, b2, b3] = b;
    [
        a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
        a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
        a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
        a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0,
    ]
}

impl SecondOrderDs for NewtonEulerDs {
    fn velocity_size(&self) -> usize {
        6
    }

    fn position_size(&self) -> usize {
        7
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

    /// `𝕄 = diag(m, m, m, I)`.
    fn mass(&mut self, _q: &[f64], out: &mut Mat<f64>) -> Result<(), KernelError> {
        out.fill(0.0);
        for i in 0..3 {
            out[(i, i)] = self.mass;
            for j in 0..3 {
                out[(3 + i, 3 + j)] = self.inertia[i][j];
            }
        }
        Ok(())
    }

    /// `F = [f_ext − f_int ; M_ext + Rᵀ m_ext − M_int − Ω × IΩ]`, accumulated from zero in this
    /// order (Siconos' `computeForces`).
    fn forces(&mut self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        out.fill(0.0);
        if let Some(f) = &mut self.f_ext {
            let f = f.eval(t, "external force")?;
            for i in 0..3 {
                out[i] += f[i];
            }
        }
        if let Some(m) = &mut self.m_ext {
            let m = m.eval(t, "external moment")?;
            for i in 0..3 {
                out[3 + i] += m[i];
            }
        }
        if let Some(m) = &mut self.m_ext_inertial {
            let m = m.eval(t, "external moment (inertial frame)")?;
            let r = Quaternion::new(q[3], q[4], q[5], q[6]).to_rotation_matrix();
            for i in 0..3 {
                out[3 + i] += r[0][i] * m[0] + r[1][i] * m[1] + r[2][i] * m[2];
            }
        }
        if let Some(internal) = &mut self.internal {
            let mut w = [0.0; 6];
            (internal.f)(t, q, v, &mut w);
            if w.iter().any(|x| !x.is_finite()) {
                return Err(KernelError::NonFiniteCallback { what: "internal wrench", time: t });
            }
            for i in 0..6 {
                out[i] -= w[i];
            }
        }
        if self.gyroscopic {
            let omega = [v[3], v[4], v[5]];
            let g = cross(omega, inertia_times(&self.inertia, omega));
            for i in 0..3 {
                out[3 + i] -= g[i];
            }
        }
        Ok(())
    }

    /// True without the gyroscopic moment, a convected (inertial-frame) moment and user
    /// Jacobians of the internal wrench (the terms [`SecondOrderDs::forces_jacobians`] adds):
    /// then `W = 𝕄` at every iterate (spheres, whose isotropic inertia gives `Ω × IΩ = 0`, are
    /// built without the gyroscopic term by the scenes).
    fn forces_jacobians_vanish(&self) -> bool {
        !self.gyroscopic
            && self.m_ext_inertial.is_none()
            && self.internal.as_ref().is_none_or(|w| w.jacobian_q.is_none() && w.jacobian_v.is_none())
    }

    /// `∂F/∂v = −[0 ; ∂(Ω × IΩ)/∂Ω] − ∂F_int/∂v` and `∂F/∂q · T(q)` (convected moment and user
    /// Jacobian), both `6 × 6` (developer notes, "Computation of the Jacobian in special case").
    fn forces_jacobians(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        dq: &mut Mat<f64>,
        dv: &mut Mat<f64>,
    ) -> Result<bool, KernelError> {
        let mut any = false;
        if self.gyroscopic {
            let omega = [v[3], v[4], v[5]];
            let i_omega = inertia_times(&self.inertia, omega);
            for c in 0..3 {
                let mut e = [0.0; 3];
                e[c] = 1.0;
                let a = cross(e, i_omega);
                let b = cross(omega, [self.inertia[0][c], self.inertia[1][c], self.inertia[2][c]]);
                for r in 0..3 {
                    dv[(3 + r, 3 + c)] = -(a[r] + b[r]);
                }
            }
            any = true;
        }
        let mut d_dq7 = false;
        self.jac_q.fill(0.0);
        if let Some(m) = &mut self.m_ext_inertial {
            // ∂(Rᵀ m)/∂p (3 × 4), derived from Φ(p)ᵀ m (the developer notes differentiate Φ(p) m).
            let m = m.eval(t, "external moment (inertial frame)")?;
            let (p0, p1, p2, p3) = (q[3], q[4], q[5], q[6]);
            let (m1, m2, m3) = (m[0], m[1], m[2]);
            let rows = [
                [
                    2.0 * p3 * m2 - 2.0 * p2 * m3,
                    2.0 * p2 * m2 + 2.0 * p3 * m3,
                    -4.0 * p2 * m1 + 2.0 * p1 * m2 - 2.0 * p0 * m3,
                    -4.0 * p3 * m1 + 2.0 * p0 * m2 + 2.0 * p1 * m3,
                ],
                [
                    -2.0 * p3 * m1 + 2.0 * p1 * m3,
                    2.0 * p2 * m1 - 4.0 * p1 * m2 + 2.0 * p0 * m3,
                    2.0 * p1 * m1 + 2.0 * p3 * m3,
                    -2.0 * p0 * m1 - 4.0 * p3 * m2 + 2.0 * p2 * m3,
                ],
                [
                    2.0 * p2 * m1 - 2.0 * p1 * m2,
                    2.0 * p3 * m1 - 2.0 * p0 * m2 - 4.0 * p1 * m3,
                    2.0 * p0 * m1 + 2.0 * p3 * m2 - 4.0 * p2 * m3,
                    2.0 * p1 * m1 + 2.0 * p2 * m2,
                ],
            ];
            for (r, row) in rows.iter().enumerate() {
                for (c, x) in row.iter().enumerate() {
                    self.jac_q[(3 + r, 3 + c)] += x;
                }
            }
            d_dq7 = true;
        }
        if let Some(internal) = &mut self.internal {
            if let Some(jq) = &mut internal.jacobian_q {
                let mut m = Mat::zeros(6, 7);
                jq(t, q, v, &mut m);
                for r in 0..6 {
                    for c in 0..7 {
                        self.jac_q[(r, c)] -= m[(r, c)];
                    }
                }
                d_dq7 = true;
            }
            if let Some(jv) = &mut internal.jacobian_v {
                let mut m = Mat::zeros(6, 6);
                jv(t, q, v, &mut m);
                for r in 0..6 {
                    for c in 0..6 {
                        dv[(r, c)] -= m[(r, c)];
                    }
                }
                any = true;
            }
        }
        if d_dq7 {
            // (∂F/∂q) T(q): translation columns as is, rotation columns through ½Ψ(p).
            let t_op = crate::lie::t_operator(&[q[0], q[1], q[2], q[3], q[4], q[5], q[6]]);
            for r in 0..6 {
                for c in 0..6 {
                    let mut s = 0.0;
                    for k in 0..7 {
                        s += self.jac_q[(r, k)] * t_op[k][c];
                    }
                    dq[(r, c)] = s;
                }
            }
            any = true;
        }
        if (0..6).any(|r| (0..6).any(|c| !dv[(r, c)].is_finite() || !dq[(r, c)].is_finite())) {
            return Err(KernelError::NonFiniteCallback { what: "wrench Jacobians", time: t });
        }
        Ok(any)
    }

    /// The external wrench `[f_ext ; M_ext]` (body-frame moment only).
    fn external_force(&mut self, t: f64, out: &mut [f64]) -> Result<bool, KernelError> {
        if self.f_ext.is_none() && self.m_ext.is_none() {
            return Ok(false);
        }
        out.fill(0.0);
        if let Some(f) = &mut self.f_ext {
            out[..3].copy_from_slice(&f.eval(t, "external force")?);
        }
        if let Some(m) = &mut self.m_ext {
            out[3..].copy_from_slice(&m.eval(t, "external moment")?);
        }
        Ok(true)
    }

    /// The Lie-group θ-update (Siconos 4.4 `MoreauJeanOSI::updatePosition` for Newton–Euler):
    /// `inc = (hθ) v + (h(1 − θ)) v_k`, `x = x_k + inc_x`, `p = p_k ∘ expq(inc_Ω)`, `p`
    /// renormalized when `| |p|² − 1 | > 1e-12` (with the exact exponential).
    fn update_position(&self, h: f64, theta: f64, q_memory: &[f64], v_memory: &[f64], v: &[f64], q: &mut [f64]) {
        let a = h * theta;
        let b = h * (1.0 - theta);
        let mut inc = [0.0; 6];
        for i in 0..6 {
            inc[i] = a * v[i];
            inc[i] += b * v_memory[i];
        }
        for i in 0..3 {
            q[i] = q_memory[i] + inc[i];
        }
        let mut p = quat_mul(
            [q_memory[3], q_memory[4], q_memory[5], q_memory[6]],
            exp_twist([inc[3], inc[4], inc[5]], self.exponential),
        );
        // The product of unit quaternions is unit up to round-off, which a long run accumulates:
        // renormalize once the norm has drifted by more than 1e-12. Siconos never does, and its
        // small-angle series makes `expq` slightly non-unit: in `QuaternionExponential::Siconos`
        // mode the drift is kept, as Siconos has it.
        let n2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3];
        if self.exponential == QuaternionExponential::Exact && (n2 - 1.0).abs() > 1e-12 {
            let n = n2.sqrt();
            for x in &mut p {
                *x /= n;
            }
        }
        q[3..7].copy_from_slice(&p);
    }

    fn can_displace_position(&self) -> bool {
        true
    }

    /// The displacement of the projection onto the constraints, `q ← q + T(q) δ` with
    /// `T(q) = diag(I₃, ½Ψ(p))`: `x ← x + δ_x`, `p ← p + ½ p∘(0, δ_Ω)`, then `p ← p/|p|`
    /// (Siconos 4.4 `TimeSteppingDirectProjection::advanceToEvent` brings the quaternion back
    /// to the unit sphere after every projection iteration, `NewtonEulerDS::normalizeq`).
    fn displace_position(&self, delta: &[f64], q: &mut [f64]) {
        for i in 0..3 {
            q[i] += delta[i];
        }
        let p = [q[3], q[4], q[5], q[6]];
        let dp = quat_mul(p, [0.0, 0.5 * delta[3], 0.5 * delta[4], 0.5 * delta[5]]);
        let mut n2 = 0.0;
        for k in 0..4 {
            q[3 + k] = p[k] + dp[k];
            n2 += q[3 + k] * q[3 + k];
        }
        let inv = 1.0 / n2.sqrt();
        for x in &mut q[3..7] {
            *x *= inv;
        }
    }

    /// `q̇ = T(q) v = (v_G, ½ p∘(0, Ω))` (developer notes, "The equations of motion": the
    /// quaternion rate of a body-frame angular velocity).
    fn position_rate(&self, q: &[f64], v: &[f64], out: &mut [f64]) -> bool {
        out[..3].copy_from_slice(&v[..3]);
        let dp = quat_mul([q[3], q[4], q[5], q[6]], [0.0, 0.5 * v[3], 0.5 * v[4], 0.5 * v[5]]);
        out[3..7].copy_from_slice(&dp);
        true
    }

    /// `p ← p/|p|` (Siconos' `NewtonEulerDS::normalizeq`); `true` when a bit of `p` changed.
    fn normalize_position(&self, q: &mut [f64]) -> bool {
        let n = (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]).sqrt();
        let mut changed = false;
        for x in &mut q[3..7] {
            let y = *x / n;
            changed |= y.to_bits() != x.to_bits();
            *x = y;
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> NewtonEulerDs {
        let inertia = [[0.1, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.35]];
        NewtonEulerDs::new([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, -2.0, 3.0], 2.0, inertia)
            .expect("valid body")
    }

    #[test]
    fn gyroscopic_jacobian_matches_finite_differences() {
        let mut b = body();
        let q = b.state().q().to_vec();
        let v = b.state().v().to_vec();
        let (mut dq, mut dv) = (Mat::zeros(6, 6), Mat::zeros(6, 6));
        assert!(b.forces_jacobians(0.0, &q, &v, &mut dq, &mut dv).expect("finite"));
        let eps = 1e-6;
        for c in 0..6 {
            let (mut vp, mut vm) = (v.clone(), v.clone());
            vp[c] += eps;
            vm[c] -= eps;
            let (mut fp, mut fm) = ([0.0; 6], [0.0; 6]);
            b.forces(0.0, &q, &vp, &mut fp).expect("finite");
            b.forces(0.0, &q, &vm, &mut fm).expect("finite");
            for r in 0..6 {
                let fd = (fp[r] - fm[r]) / (2.0 * eps);
                assert!((fd - dv[(r, c)]).abs() < 1e-8, "({r}, {c}): {fd} vs {}", dv[(r, c)]);
            }
        }
    }

    #[test]
    fn convected_moment_jacobian_matches_finite_differences_along_the_flow() {
        let m = [0.3, -0.7, 1.1];
        let mut b = body().without_gyroscopic().with_external_moment_inertial_fn(move |_, out| *out = m);
        let p = Quaternion::from_axis_angle([0.2, 0.5, -0.4], 0.9).expect("axis");
        let q = vec![0.0, 0.0, 0.0, p.w, p.x, p.y, p.z];
        let v = vec![0.0; 6];
        let (mut dq, mut dv) = (Mat::zeros(6, 6), Mat::zeros(6, 6));
        assert!(b.forces_jacobians(0.0, &q, &v, &mut dq, &mut dv).expect("finite"));
        // d/dε F(p ∘ expq(ε eᵢ)) = (∂F/∂q) T(q) eᵢ (body angular velocity eᵢ).
        let eps = 1e-6;
        for c in 0..3 {
            let mut w = [0.0; 3];
            w[c] = eps;
            let shifted = |w: [f64; 3]| {
                let e = exp_twist(w, QuaternionExponential::Exact);
                let r = quat_mul([q[3], q[4], q[5], q[6]], e);
                vec![0.0, 0.0, 0.0, r[0], r[1], r[2], r[3]]
            };
            let (qp, qm) = (shifted(w), shifted([-w[0], -w[1], -w[2]]));
            let (mut fp, mut fm) = ([0.0; 6], [0.0; 6]);
            b.forces(0.0, &qp, &v, &mut fp).expect("finite");
            b.forces(0.0, &qm, &v, &mut fm).expect("finite");
            for r in 0..6 {
                let fd = (fp[r] - fm[r]) / (2.0 * eps);
                assert!((fd - dq[(r, 3 + c)]).abs() < 1e-8, "({r}, {c}): {fd} vs {}", dq[(r, 3 + c)]);
            }
        }
    }

    #[test]
    fn the_position_update_keeps_the_quaternion_unit() {
        let b = body();
        let q_k = b.state().q().to_vec();
        let v_k = vec![0.0, 0.0, 0.0, 3.0, -1.0, 2.0];
        let mut q = vec![0.0; 7];
        let mut current = q_k.clone();
        for _ in 0..10_000 {
            b.update_position(1e-2, 0.5, &current, &v_k, &v_k, &mut q);
            current.copy_from_slice(&q);
        }
        let n = (current[3] * current[3] + current[4] * current[4] + current[5] * current[5] + current[6] * current[6])
            .sqrt();
        assert!((n - 1.0).abs() < 1e-12, "norm {n}");
    }

    /// `T(q) v` is the derivative of the exact Lie-group motion `(x + h v_G, p ∘ expq(h Ω))` at
    /// `h = 0`; the normalization brings a drifted quaternion back and reports it.
    #[test]
    fn the_position_rate_is_the_derivative_of_the_motion() {
        let b = body();
        let p = Quaternion::from_axis_angle([0.3, -1.0, 0.5], 0.8).expect("an axis");
        let q = [0.1, -0.2, 0.3, p.w, p.x, p.y, p.z];
        let v = [0.5, -0.3, 0.2, 1.0, -2.0, 0.7];
        let mut rate = [0.0; 7];
        assert!(b.position_rate(&q, &v, &mut rate));
        let h = 1e-6;
        let (mut qp, mut qm) = ([0.0; 7], [0.0; 7]);
        let v_minus: Vec<f64> = v.iter().map(|x| -x).collect();
        b.update_position(h, 1.0, &q, &v, &v, &mut qp);
        b.update_position(h, 1.0, &q, &v_minus, &v_minus, &mut qm);
        for k in 0..7 {
            let fd = (qp[k] - qm[k]) / (2.0 * h);
            assert!((fd - rate[k]).abs() < 1e-9, "{k}: {fd} vs {}", rate[k]);
        }
        let mut drifted = q;
        for x in &mut drifted[3..] {
            *x *= 1.0 + 1e-6;
        }
        assert!(b.normalize_position(&mut drifted));
        let n = (drifted[3..].iter().map(|x| x * x).sum::<f64>()).sqrt();
        assert!((n - 1.0).abs() < 1e-15, "norm {n}");
        let mut unit = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        assert!(!b.normalize_position(&mut unit));
    }

    #[test]
    fn a_drifted_quaternion_is_renormalized() {
        let b = body();
        let drifted = [0.0, 0.0, 0.0, 1.0 + 1e-9, 0.0, 0.0, 0.0];
        let v = [0.0, 0.0, 0.0, 0.3, 0.2, 0.1];
        let mut q = vec![0.0; 7];
        b.update_position(1e-3, 0.5, &drifted, &v, &v, &mut q);
        let n = (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]).sqrt();
        assert!((n - 1.0).abs() < 1e-15, "norm {n}");
    }

    #[test]
    fn bad_bodies_are_refused() {
        let id = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let q = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        assert!(NewtonEulerDs::new(q, [0.0; 6], 0.0, id).is_err());
        assert!(NewtonEulerDs::new(q, [0.0; 6], 1.0, [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]).is_err());
        assert!(NewtonEulerDs::new([0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0], [0.0; 6], 1.0, id).is_err());
        assert!(NewtonEulerDs::new(q, [f64::NAN, 0.0, 0.0, 0.0, 0.0, 0.0], 1.0, id).is_err());
    }
}
