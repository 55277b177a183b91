//! Small fixed-size algebra for rigid-body rotations: 3-vectors, 3×3 matrices, the Lie group
//! SO(3) and its exponential, unit quaternions and the kinematic operators `Ψ(p)` and `T(q)`.
//!
//! Source: the Siconos developer notes, chapter "NewtonEuler Dynamical Systems" (O. Bonnefon and
//! V. Acary), sections "Lie group SO(3) of finite rotations", "Lie group of unit quaternions" and
//! "Newton-Euler equation in quaternion form", in the Siconos documentation
//! (<https://nonsmooth.gricad-pages.univ-grenoble-alpes.fr/siconos/>). Where the notes misprint a
//! formula the standard one is used, and the item says so: the sign of `(1 − cos θ)/θ²` in
//! Rodrigues' formula, the extra ½ in the body-frame quaternion kinematics, `ΨᵀΨ = I₃`, and
//! `ψ(p)Ω` (not `ψ(p)ṗ`) in `T(q)`.
//!
//! Conventions:
//! * [`Vec3`] is `[f64; 3]`, [`Mat3`] is row-major `[[f64; 3]; 3]` (`m[i][j]` = row `i`,
//!   column `j`); every other matrix of this module is row-major too (`[[f64; cols]; rows]`).
//! * Quaternions are scalar first, `p = (p0, p1, p2, p3) = (p0, p⃗)`, and a generalized position is
//!   `q = (x, y, z, p0, p1, p2, p3) ∈ R⁷` (as Siconos' `NewtonEulerDS` stores it).
//! * Angular velocities `Ω` are expressed in the **body** frame: `Ṙ = R Ω̃`, `ṗ = ½ p∘(0, Ω)`.
//! * `θ = ‖Ω‖` is the rotation angle of a rotation vector `Ω`.
//!
//! Small angles: every coefficient that is `0/0` at `θ = 0` switches to its Taylor series below
//! [`SMALL_ANGLE`] (see there for the choice of the threshold and the error bounds).

use crate::MechanicsError;
use nonsmooth_kernel::KernelError;
use std::ops::Mul;

/// A vector of R³.
pub type Vec3 = [f64; 3];

/// A 3×3 matrix, row-major: `m[i][j]` is the entry of row `i` and column `j`.
pub type Mat3 = [[f64; 3]; 3];

// ---------------------------------------------------------------------------------------------
// Vector and matrix helpers.
// ---------------------------------------------------------------------------------------------

/// Sum `a + b`.
#[inline]
#[must_use]
pub fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// Difference `a − b`.
#[inline]
#[must_use]
pub fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Scaling `s a`.
#[inline]
#[must_use]
pub fn scale(s: f64, a: Vec3) -> Vec3 {
    [s * a[0], s * a[1], s * a[2]]
}

/// Dot product `a · b = Σ aᵢ bᵢ`.
#[inline]
#[must_use]
pub fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Cross product `a × b = (a₂b₃ − a₃b₂, a₃b₁ − a₁b₃, a₁b₂ − a₂b₁)`; equals `skew(a) b`
/// (developer notes, "The equations of motion").
#[inline]
#[must_use]
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Euclidean norm `‖a‖ = √(a · a)`.
#[inline]
#[must_use]
pub fn norm(a: Vec3) -> f64 {
    dot(a, a).sqrt()
}

/// Unit vector `a / ‖a‖`.
///
/// The vector is first divided by its largest entry magnitude, so that tiny or huge (but
/// finite, nonzero) vectors are normalized without underflow or overflow.
///
/// # Errors
/// [`KernelError::NonFinite`] if an entry is NaN or infinite, and
/// [`KernelError::InvalidOption`] (name `"vector"`) if `a = 0`, which has no direction.
#[inline]
pub fn normalize(a: Vec3) -> Result<Vec3, MechanicsError> {
    let m = scaled_unit(&a, "vector")?;
    let b = scale(1.0 / m, a);
    Ok(scale(1.0 / norm(b), b))
}

/// Matrix–vector product `m a` (`(m a)ᵢ = Σⱼ mᵢⱼ aⱼ`).
#[inline]
#[must_use]
pub fn mat_vec(m: &Mat3, a: Vec3) -> Vec3 {
    [dot(m[0], a), dot(m[1], a), dot(m[2], a)]
}

/// Matrix product `a b` (`(a b)ᵢⱼ = Σₖ aᵢₖ bₖⱼ`).
#[inline]
#[must_use]
pub fn mat_mul(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut c = [[0.0; 3]; 3];
    for (ci, ai) in c.iter_mut().zip(a) {
        for (j, cij) in ci.iter_mut().enumerate() {
            *cij = ai[0] * b[0][j] + ai[1] * b[1][j] + ai[2] * b[2][j];
        }
    }
    c
}

/// Transpose `mᵀ`.
#[inline]
#[must_use]
pub fn transpose(m: &Mat3) -> Mat3 {
    [[m[0][0], m[1][0], m[2][0]], [m[0][1], m[1][1], m[2][1]], [m[0][2], m[1][2], m[2][2]]]
}

/// The identity matrix `I₃`.
#[inline]
#[must_use]
pub fn identity3() -> Mat3 {
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
}

/// Largest entry magnitude of `a`, checked finite and nonzero (shared by the normalizations).
fn scaled_unit(a: &[f64], what: &'static str) -> Result<f64, MechanicsError> {
    if a.iter().any(|x| !x.is_finite()) {
        return Err(KernelError::NonFinite { what }.into());
    }
    let m = a.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    if m == 0.0 {
        return Err(KernelError::InvalidOption {
            name: what,
            reason: "zero norm: it has no direction and cannot be normalized or inverted",
        }
        .into());
    }
    Ok(m)
}

// ---------------------------------------------------------------------------------------------
// Small-angle coefficients.
// ---------------------------------------------------------------------------------------------

/// Angle (radians) below which the coefficients [`sin_x_over_x`], [`x_minus_sin_over_x3`] and
/// [`one_minus_half_cot_over_x2`] use their Taylor series instead of their closed forms:
/// `0.1`.
///
/// Why this value: the closed forms are `0/0` at `x = 0` and, for `x − sin x` and
/// `1 − (x/2)cot(x/2)`, lose about `6ε/x²` relative accuracy to cancellation (`ε` = 2.2e-16),
/// i.e. about `7e-14` at `x = 0.1` and much worse below. The series keep five terms (through
/// `x⁸`), whose truncation error at `x = 0.1` is below `3e-18` relative. Both branches thus agree
/// to ≈ 1e-13 relative at the switch, and in the matrices (where these coefficients multiply
/// `Ω̃²`, of size `θ²`) the difference is below `ε`. [`one_minus_cos_over_x2`] needs no branch
/// of its own: it is evaluated as `½ (sin(x/2)/(x/2))²`, which has no cancellation.
pub const SMALL_ANGLE: f64 = 0.1;

/// Evaluates `c₀ + c₁ t + c₂ t² + c₃ t³ + c₄ t⁴` (Horner).
#[inline]
fn poly4(t: f64, c: [f64; 5]) -> f64 {
    c[0] + t * (c[1] + t * (c[2] + t * (c[3] + t * c[4])))
}

/// `sin x / x` (`1` at `x = 0`).
///
/// Series below [`SMALL_ANGLE`]: `1 − x²/6 + x⁴/120 − x⁶/5040 + x⁸/362880`.
#[inline]
#[must_use]
pub fn sin_x_over_x(x: f64) -> f64 {
    if x.abs() < SMALL_ANGLE {
        poly4(x * x, [1.0, -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362_880.0])
    } else {
        x.sin() / x
    }
}

/// `(1 − cos x) / x²` (`½` at `x = 0`), the second Rodrigues coefficient (the developer notes
/// print `(cos θ − 1)/θ²`, with the wrong sign).
///
/// Evaluated as `½ (sin(x/2)/(x/2))²` (since `1 − cos x = 2 sin²(x/2)`), which is free of
/// cancellation; its small-angle branch is that of [`sin_x_over_x`], so near 0 it equals the
/// series `1/2 − x²/24 + x⁴/720 − …`.
#[inline]
#[must_use]
pub fn one_minus_cos_over_x2(x: f64) -> f64 {
    let s = sin_x_over_x(0.5 * x);
    0.5 * s * s
}

/// `(x − sin x) / x³` (`1/6` at `x = 0`), the third coefficient of `T(Ω)`.
///
/// Series below [`SMALL_ANGLE`]: `1/6 − x²/120 + x⁴/5040 − x⁶/362880 + x⁸/39916800`.
#[inline]
#[must_use]
pub fn x_minus_sin_over_x3(x: f64) -> f64 {
    if x.abs() < SMALL_ANGLE {
        poly4(x * x, [1.0 / 6.0, -1.0 / 120.0, 1.0 / 5040.0, -1.0 / 362_880.0, 1.0 / 39_916_800.0])
    } else {
        (x - x.sin()) / (x * x * x)
    }
}

/// `(1 − (x/2) cot(x/2)) / x²` (`1/12` at `x = 0`), the coefficient of `Ω̃²` in `T(Ω)⁻¹`
/// (a closed form; the developer notes give only the Bernoulli series).
///
/// Series below [`SMALL_ANGLE`]: `1/12 + x²/720 + x⁴/30240 + x⁶/1209600 + x⁸/47900160`.
/// Singular at `x = 2πk`, `k ≥ 1` (where `T(Ω)` is not invertible).
#[inline]
#[must_use]
pub fn one_minus_half_cot_over_x2(x: f64) -> f64 {
    if x.abs() < SMALL_ANGLE {
        poly4(x * x, [1.0 / 12.0, 1.0 / 720.0, 1.0 / 30_240.0, 1.0 / 1_209_600.0, 1.0 / 47_900_160.0])
    } else {
        let h = 0.5 * x;
        (1.0 - h * h.cos() / h.sin()) / (x * x)
    }
}

// ---------------------------------------------------------------------------------------------
// SO(3).
// ---------------------------------------------------------------------------------------------

/// The skew (tilde) map `Ω ↦ Ω̃ = [[0, −Ω₃, Ω₂], [Ω₃, 0, −Ω₁], [−Ω₂, Ω₁, 0]]`, so that
/// `Ω̃ x = Ω × x` (developer notes, "Lie group SO(3) of finite rotations").
#[inline]
#[must_use]
pub fn skew(omega: Vec3) -> Mat3 {
    let [a, b, c] = omega;
    [[0.0, -c, b], [c, 0.0, -a], [-b, a, 0.0]]
}

/// The vee map, inverse of [`skew`]: `vee(Ω̃) = Ω`.
///
/// For a matrix that is not exactly skew-symmetric it returns the vector of its skew part
/// `(m − mᵀ)/2`, i.e. `((m₃₂ − m₂₃)/2, (m₁₃ − m₃₁)/2, (m₂₁ − m₁₂)/2)`.
#[inline]
#[must_use]
pub fn vee(m: &Mat3) -> Vec3 {
    [0.5 * (m[2][1] - m[1][2]), 0.5 * (m[0][2] - m[2][0]), 0.5 * (m[1][0] - m[0][1])]
}

/// `I₃ + a Ω̃ + b Ω̃²`, with `Ω̃² = Ω Ωᵀ − θ² I₃`.
fn i_plus_skew_terms(omega: Vec3, a: f64, b: f64) -> Mat3 {
    let t2 = dot(omega, omega);
    let mut m = [[0.0; 3]; 3];
    let s = skew(omega);
    for i in 0..3 {
        for j in 0..3 {
            let sq = omega[i] * omega[j] - if i == j { t2 } else { 0.0 };
            m[i][j] = if i == j { 1.0 } else { 0.0 } + a * s[i][j] + b * sq;
        }
    }
    m
}

/// The exponential of SO(3) (Rodrigues' formula): the rotation matrix of the rotation vector Ω,
///
/// `expm(Ω̃) = I₃ + (sin θ/θ) Ω̃ + ((1 − cos θ)/θ²) Ω̃²`, `θ = ‖Ω‖`
///
/// (developer notes, "The equations of motion" and "Lie group SO(3) of finite rotations", where
/// the last term's sign is misprinted). It is the exact solution `R(t) = R₀ expm((t − t₀)Ω̃)`
/// of `Ṙ = R Ω̃` for a constant body angular velocity Ω. The coefficients use their series
/// below [`SMALL_ANGLE`] (see [`sin_x_over_x`], [`one_minus_cos_over_x2`]).
#[must_use]
pub fn rodrigues(omega: Vec3) -> Mat3 {
    let t = norm(omega);
    i_plus_skew_terms(omega, sin_x_over_x(t), one_minus_cos_over_x2(t))
}

/// The logarithm of SO(3), inverse of [`rodrigues`]: the rotation vector Ω with `‖Ω‖ ≤ π` and
/// `expm(Ω̃) = R`, for a rotation matrix `R`.
///
/// With `c = (tr R − 1)/2 = cos θ` and `w = vee(R) = sin θ · u` (the skew part of
/// `R = I + sin θ ũ + (1 − cos θ) ũ²`, `u` the unit axis), `θ = atan2(‖w‖, c)` and:
/// * if `c ≥ 0` (`θ ≤ π/2`): `Ω = w / (sin θ/θ)`, with the series of [`sin_x_over_x`] near 0;
/// * if `c < 0` (near `π`, where `w → 0` carries no accurate axis): the symmetric part gives
///   `B = (R + Rᵀ)/2 − c I = (1 − c) u uᵀ`; `u` is the column of `B` with the largest diagonal
///   entry, divided by `√((1 − c) Bᵢᵢ)`, with its sign chosen so that `u · w ≥ 0`. At `θ = π`
///   exactly, `±π u` are both logarithms; either may be returned.
///
/// The input is assumed to be a rotation matrix; `c` is clamped to `[−1, 1]` to absorb rounding.
#[must_use]
pub fn log_so3(r: &Mat3) -> Vec3 {
    let c = (0.5 * (r[0][0] + r[1][1] + r[2][2] - 1.0)).clamp(-1.0, 1.0);
    let w = vee(r);
    let s = norm(w);
    let theta = s.atan2(c);
    if c >= 0.0 {
        return scale(1.0 / sin_x_over_x(theta), w);
    }
    let mut b = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            b[i][j] = 0.5 * (r[i][j] + r[j][i]) - if i == j { c } else { 0.0 };
        }
    }
    let k = (0..3).max_by(|&i, &j| b[i][i].total_cmp(&b[j][j])).expect("the range 0..3 is not empty");
    // (1 − c) ≥ 1 here and trace(B) = 1 − c, so the largest diagonal entry is ≥ 1/3: no division
    // by zero.
    let d = ((1.0 - c) * b[k][k]).sqrt();
    let mut u = [b[0][k] / d, b[1][k] / d, b[2][k] / d];
    if dot(u, w) < 0.0 {
        u = scale(-1.0, u);
    }
    scale(theta, u)
}

/// The matrix `T(Ω)` of the differential of the exponential of SO(3), **right-trivialized**:
///
/// `d/dt expm(Ω̃(t)) = (T(Ω) Ω̇)~ expm(Ω̃(t))`, with
/// `T(Ω) = I₃ + ((1 − cos θ)/θ²) Ω̃ + ((θ − sin θ)/θ³) Ω̃² = Σₖ Ω̃ᵏ/(k+1)!`
///
/// (developer notes, "Differential of the exponential map"). The left-trivialized form,
/// which matches the body-frame kinematics `Ṙ = R Ω̃`, is `T(−Ω)`:
/// `d/dt expm(Ω̃) = expm(Ω̃) (T(−Ω) Ω̇)~` — call `dexp(scale(-1.0, omega))`. The same matrix gives
/// the differential of the quaternion exponential: `d/dt expq(Ω) = (0, ½T(Ω)Ω̇)∘expq(Ω)`.
/// `T(Ω) Ω = Ω`. Small angles: series of [`x_minus_sin_over_x3`] below [`SMALL_ANGLE`];
/// at `θ = 0`, `T = I₃`.
#[must_use]
pub fn dexp(omega: Vec3) -> Mat3 {
    let t = norm(omega);
    i_plus_skew_terms(omega, one_minus_cos_over_x2(t), x_minus_sin_over_x3(t))
}

/// The inverse of [`dexp`]:
/// `T(Ω)⁻¹ = I₃ − ½ Ω̃ + ((1 − (θ/2) cot(θ/2))/θ²) Ω̃²`
///
/// (a closed form, checked symbolically, of the Bernoulli series `Σ Bₖ/k! ad_Ωᵏ` that the
/// developer notes give). Valid for `θ < 2π` (`T(Ω)` is singular at `θ = 2π`), which
/// holds for any rotation vector returned by [`log_so3`] or [`Quaternion::log`] (`θ ≤ π`).
/// Small angles: series of [`one_minus_half_cot_over_x2`] below [`SMALL_ANGLE`].
#[must_use]
pub fn dexp_inv(omega: Vec3) -> Mat3 {
    let t = norm(omega);
    i_plus_skew_terms(omega, -0.5, one_minus_half_cot_over_x2(t))
}

// ---------------------------------------------------------------------------------------------
// Quaternions.
// ---------------------------------------------------------------------------------------------

/// A quaternion `p = (w, x, y, z) = (p0, p⃗)`, scalar first (developer notes, "Lie group of unit
/// quaternions").
///
/// Unit quaternions (`|p| = 1`, the group H1 ≅ SU(2)) represent rotations, `p` and `−p` the same
/// one. Orientation of a body: `p` maps body-frame coordinates to inertial ones,
/// `x_abs = p∘(0, x_body)∘p*`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quaternion {
    /// Scalar part `p0`.
    pub w: f64,
    /// First vector component `p1`.
    pub x: f64,
    /// Second vector component `p2`.
    pub y: f64,
    /// Third vector component `p3`.
    pub z: f64,
}

impl Default for Quaternion {
    /// The identity `e = (1, 0, 0, 0)`.
    fn default() -> Self {
        Self::identity()
    }
}

impl Quaternion {
    /// The identity `e = (1, 0⃗)`.
    #[inline]
    #[must_use]
    pub const fn identity() -> Self {
        Self { w: 1.0, x: 0.0, y: 0.0, z: 0.0 }
    }

    /// The quaternion `(w, x, y, z)`, stored as given (not normalized).
    #[inline]
    #[must_use]
    pub const fn new(w: f64, x: f64, y: f64, z: f64) -> Self {
        Self { w, x, y, z }
    }

    /// From `[p0, p1, p2, p3]` (scalar first, the layout of `q[3..7]`), not normalized.
    #[inline]
    #[must_use]
    pub const fn from_array(p: [f64; 4]) -> Self {
        Self::new(p[0], p[1], p[2], p[3])
    }

    /// `[p0, p1, p2, p3]` (scalar first).
    #[inline]
    #[must_use]
    pub const fn to_array(self) -> [f64; 4] {
        [self.w, self.x, self.y, self.z]
    }

    /// The pure quaternion `(0, v)`.
    #[inline]
    #[must_use]
    pub const fn pure(v: Vec3) -> Self {
        Self::new(0.0, v[0], v[1], v[2])
    }

    /// The vector part `p⃗ = (p1, p2, p3)`.
    #[inline]
    #[must_use]
    pub const fn vector(self) -> Vec3 {
        [self.x, self.y, self.z]
    }

    /// The conjugate `p* = (p0, −p⃗)`.
    #[inline]
    #[must_use]
    pub const fn conjugate(self) -> Self {
        Self::new(self.w, -self.x, -self.y, -self.z)
    }

    /// The norm `|p| = √(pᵀp)`; `p∘p* = |p|² e`.
    #[inline]
    #[must_use]
    pub fn norm(self) -> f64 {
        (self.w * self.w + self.x * self.x + self.y * self.y + self.z * self.z).sqrt()
    }

    /// The unit quaternion `p / |p|` (Siconos `normalizeq`), computed after dividing by the
    /// largest entry magnitude (no underflow/overflow for finite nonzero `p`).
    ///
    /// # Errors
    /// [`KernelError::NonFinite`] if an entry is NaN or infinite, [`KernelError::InvalidOption`]
    /// (name `"quaternion"`) for the zero quaternion (Siconos' `normalizeq` throws there too).
    pub fn normalized(self) -> Result<Self, MechanicsError> {
        let a = self.to_array();
        let m = scaled_unit(&a, "quaternion")?;
        let b = Self::from_array(a.map(|v| v / m));
        let n = b.norm();
        Ok(Self::from_array(b.to_array().map(|v| v / n)))
    }

    /// The inverse `p⁻¹ = p*/|p|²`; `p∘p⁻¹ = p⁻¹∘p = e`. For a unit quaternion it
    /// is `p*`.
    ///
    /// # Errors
    /// As [`Quaternion::normalized`]: `p = 0` has no inverse, non-finite entries are refused.
    pub fn inverse(self) -> Result<Self, MechanicsError> {
        let a = self.to_array();
        let m = scaled_unit(&a, "quaternion")?;
        // p⁻¹ = (p/m)* / (m |p/m|²), with |p/m| ∈ [1, 2].
        let b = Self::from_array(a.map(|v| v / m));
        let d = m * (b.w * b.w + b.x * b.x + b.y * b.y + b.z * b.z);
        Ok(Self::from_array(b.conjugate().to_array().map(|v| v / d)))
    }

    /// The rotation of `v` by `p`: the vector part of `p∘(0, v)∘p*`, i.e.
    /// `(p0² − p⃗·p⃗) v + 2 p0 (p⃗ × v) + 2 (p⃗·v) p⃗` (developer notes, "Lie group of unit
    /// quaternions", whose `pᵀp⃗` means `p⃗·p⃗`). For a unit `p` this is `R(p) v`; for any `p`
    /// it is `|p|² R(p/|p|) v`.
    #[inline]
    #[must_use]
    pub fn rotate(self, v: Vec3) -> Vec3 {
        let (p0, pv) = (self.w, self.vector());
        add(add(scale(p0 * p0 - dot(pv, pv), v), scale(2.0 * p0, cross(pv, v))), scale(2.0 * dot(pv, v), pv))
    }

    /// The rotation matrix `R = Φ(p)`:
    ///
    /// `[[1−2p2²−2p3², 2(p1p2−p3p0), 2(p1p3+p2p0)],
    ///   [2(p1p2+p3p0), 1−2p1²−2p3², 2(p2p3−p1p0)],
    ///   [2(p1p3−p2p0), 2(p2p3+p1p0), 1−2p1²−2p2²]]`.
    ///
    /// Its columns are `p∘eᵢ∘p*` (body → inertial frame); its
    /// transpose maps inertial to body coordinates. The diagonal uses `|p| = 1`: for a non-unit
    /// `p` it differs from [`Quaternion::rotate`] (as in Siconos); normalize first.
    #[must_use]
    pub fn to_rotation_matrix(self) -> Mat3 {
        let (p0, p1, p2, p3) = (self.w, self.x, self.y, self.z);
        [
            [1.0 - 2.0 * (p2 * p2 + p3 * p3), 2.0 * (p1 * p2 - p3 * p0), 2.0 * (p1 * p3 + p2 * p0)],
            [2.0 * (p1 * p2 + p3 * p0), 1.0 - 2.0 * (p1 * p1 + p3 * p3), 2.0 * (p2 * p3 - p1 * p0)],
            [2.0 * (p1 * p3 - p2 * p0), 2.0 * (p2 * p3 + p1 * p0), 1.0 - 2.0 * (p1 * p1 + p2 * p2)],
        ]
    }

    /// The unit quaternion (with `p0 ≥ 0`) of a rotation matrix, inverse of
    /// [`Quaternion::to_rotation_matrix`] up to the sign `±p`. (Shepperd's method: from `Φ(p)`,
    /// `4p0² = 1 + tr R`, `4p1² = 1 + R₀₀ − R₁₁ − R₂₂`, …, `4p0p1 = R₂₁ − R₁₂`, …; the largest of
    /// the four squares is taken first, so the divisions are by a number ≥ ½.)
    ///
    /// # Errors
    /// [`KernelError::NonFinite`] if an entry of `r` is not finite.
    pub fn from_rotation_matrix(r: &Mat3) -> Result<Self, MechanicsError> {
        if r.iter().flatten().any(|v| !v.is_finite()) {
            return Err(KernelError::NonFinite { what: "rotation matrix" }.into());
        }
        let tr = r[0][0] + r[1][1] + r[2][2];
        let d = [tr, r[0][0], r[1][1], r[2][2]];
        let k = (0..4).max_by(|&i, &j| d[i].total_cmp(&d[j])).expect("the range 0..4 is not empty");
        let p = match k {
            0 => {
                let s = 2.0 * (1.0 + tr).max(0.0).sqrt(); // 4 p0
                [0.25 * s, (r[2][1] - r[1][2]) / s, (r[0][2] - r[2][0]) / s, (r[1][0] - r[0][1]) / s]
            }
            1 => {
                let s = 2.0 * (1.0 + r[0][0] - r[1][1] - r[2][2]).max(0.0).sqrt(); // 4 p1
                [(r[2][1] - r[1][2]) / s, 0.25 * s, (r[0][1] + r[1][0]) / s, (r[0][2] + r[2][0]) / s]
            }
            2 => {
                let s = 2.0 * (1.0 - r[0][0] + r[1][1] - r[2][2]).max(0.0).sqrt(); // 4 p2
                [(r[0][2] - r[2][0]) / s, (r[0][1] + r[1][0]) / s, 0.25 * s, (r[1][2] + r[2][1]) / s]
            }
            _ => {
                let s = 2.0 * (1.0 - r[0][0] - r[1][1] + r[2][2]).max(0.0).sqrt(); // 4 p3
                [(r[1][0] - r[0][1]) / s, (r[0][2] + r[2][0]) / s, (r[1][2] + r[2][1]) / s, 0.25 * s]
            }
        };
        let p = Self::from_array(p);
        let p = if p.w < 0.0 { Self::from_array(p.to_array().map(|v| -v)) } else { p };
        p.normalized()
    }

    /// The unit quaternion of the rotation by the angle `angle` (radians) about `axis`:
    /// `(cos(angle/2), sin(angle/2) axis/‖axis‖)`, [`Quaternion::exp`] of
    /// `Ω = angle · axis/‖axis‖`.
    ///
    /// # Errors
    /// As [`normalize`]: a zero or non-finite axis is refused; a non-finite angle gives
    /// [`KernelError::NonFinite`].
    pub fn from_axis_angle(axis: Vec3, angle: f64) -> Result<Self, MechanicsError> {
        if !angle.is_finite() {
            return Err(KernelError::NonFinite { what: "angle" }.into());
        }
        let u = normalize(axis)?;
        let (s, c) = (0.5 * angle).sin_cos();
        Ok(Self::new(c, s * u[0], s * u[1], s * u[2]))
    }

    /// The quaternion exponential `expq` of the rotation vector Ω:
    ///
    /// `expq(Ω̂) = (cos(θ/2), sin(θ/2) Ω/θ)`, `θ = ‖Ω‖`, with the hat map `Ω̂ = (0, Ω/2)`
    ///
    /// (developer notes, "Lie group of unit quaternions"). It is the unit quaternion of the
    /// rotation `expm(Ω̃)`
    /// ([`rodrigues`]), and the exact flow of `ṗ = ½ p∘(0, Ω)` for a constant body Ω:
    /// `p(t) = p₀∘expq(tΩ)` (the Siconos position update `q_{k+1} = q_k∘expq(h Ω)`). The
    /// notes' form with ½ and the "rotation by Ω" form are the same thing. Small angles:
    /// `sin(θ/2)/θ = ½ sin_x_over_x(θ/2)` (series below [`SMALL_ANGLE`]; Siconos' `sin_x` helper,
    /// which uses the series of `tan x/x`, is not reproduced).
    #[must_use]
    pub fn exp(omega: Vec3) -> Self {
        let t = norm(omega);
        let h = 0.5 * t;
        let s = 0.5 * sin_x_over_x(h);
        Self::new(h.cos(), s * omega[0], s * omega[1], s * omega[2])
    }

    /// The logarithm: the principal rotation vector Ω (`‖Ω‖ ≤ π`) of the rotation of `p`, so that
    /// `exp(log(p)) = p/|p|` if `p0 ≥ 0` and `−p/|p|` otherwise (the same rotation).
    ///
    /// With `(w, v) = ±(p0, p⃗)` chosen so that `w ≥ 0`: `θ/2 = atan2(‖v‖, w)` and
    /// `Ω = (θ/‖v‖) v` (inverse of [`Quaternion::exp`]). `atan2` is accurate for small
    /// arguments, so the only special case is `v = 0`, where `Ω = 0`. The result depends only on
    /// the direction of `p`.
    ///
    /// # Errors
    /// As [`Quaternion::normalized`] (zero or non-finite `p`).
    pub fn log(self) -> Result<Vec3, MechanicsError> {
        let p = self.normalized()?;
        let (w, v) = if p.w < 0.0 { (-p.w, scale(-1.0, p.vector())) } else { (p.w, p.vector()) };
        let s = norm(v);
        if s == 0.0 {
            return Ok([0.0; 3]);
        }
        Ok(scale(2.0 * s.atan2(w) / s, v))
    }
}

/// The quaternion product `p∘q = (p0 q0 − p⃗·q⃗, p0 q⃗ + q0 p⃗ + p⃗ × q⃗)`: `p * q`, or
/// `p.mul(q)` with `std::ops::Mul` in scope (no inherent `mul`, which clippy's
/// `should_implement_trait` refuses). Associative, not commutative; `R(p∘q) = R(p) R(q)`.
impl Mul for Quaternion {
    type Output = Self;

    /// `p∘q`.
    #[inline]
    fn mul(self, q: Self) -> Self {
        let (p0, pv, q0, qv) = (self.w, self.vector(), q.w, q.vector());
        let v = add(add(scale(p0, qv), scale(q0, pv)), cross(pv, qv));
        Self::new(p0 * q0 - dot(pv, qv), v[0], v[1], v[2])
    }
}

/// The left-multiplication matrix `[p∘]`: `p∘q = [p∘] q` for `q` as a 4-vector,
///
/// `[p∘] = [[p0,−p1,−p2,−p3],[p1,p0,−p3,p2],[p2,p3,p0,−p1],[p3,−p2,p1,p0]]`.
#[must_use]
pub fn left_matrix(p: Quaternion) -> [[f64; 4]; 4] {
    let [p0, p1, p2, p3] = p.to_array();
    [[p0, -p1, -p2, -p3], [p1, p0, -p3, p2], [p2, p3, p0, -p1], [p3, -p2, p1, p0]]
}

/// The right-multiplication matrix `[∘q]`: `p∘q = [∘q] p` for `p` as a 4-vector,
///
/// `[∘q] = [[q0,−q1,−q2,−q3],[q1,q0,q3,−q2],[q2,−q3,q0,q1],[q3,q2,−q1,q0]]`.
#[must_use]
pub fn right_matrix(q: Quaternion) -> [[f64; 4]; 4] {
    let [q0, q1, q2, q3] = q.to_array();
    [[q0, -q1, -q2, -q3], [q1, q0, q3, -q2], [q2, -q3, q0, q1], [q3, q2, -q1, q0]]
}

/// `Φ(p)`, the 3×3 rotation matrix of a unit quaternion; the same as
/// [`Quaternion::to_rotation_matrix`]. (The developer notes' Φ is this 3×3 matrix; the 4×4 product
/// matrices are [`left_matrix`] and [`right_matrix`].)
#[inline]
#[must_use]
pub fn phi(p: Quaternion) -> Mat3 {
    p.to_rotation_matrix()
}

/// `Ψ(p)`, 4 rows × 3 columns, row-major: the last three columns of
/// `[p∘]`, so that `p∘(0, Ω) = Ψ(p) Ω`:
///
/// `Ψ(p) = [[−p1,−p2,−p3],[p0,−p3,p2],[p3,p0,−p1],[−p2,p1,p0]]`.
///
/// Body-frame kinematics: `ṗ = ½ p∘(0, Ω) = ½ Ψ(p) Ω` (the developer notes also print it with a
/// spurious extra ½); inverse `Ω = 2 Ψ(p)ᵀ ṗ`. For a unit `p` (the notes swap the identity
/// matrices): `ΨᵀΨ = I₃`, `ΨΨᵀ = I₄ − p pᵀ`, `pᵀΨ = 0`.
#[must_use]
pub fn psi(p: Quaternion) -> [[f64; 3]; 4] {
    let [p0, p1, p2, p3] = p.to_array();
    [[-p1, -p2, -p3], [p0, -p3, p2], [p3, p0, -p1], [-p2, p1, p0]]
}

/// The 7×6 operator `T(q)` (7 rows × 6 columns, row-major) with `q̇ = T(q) v`, for
/// `q = (x_G, p) ∈ R⁷` and the twist `v = (v_G, Ω) ∈ R⁶` (centre velocity in the inertial frame,
/// angular velocity in the body frame):
///
/// `T(q) = [[I₃, 0₃ₓ₃], [0₄ₓ₃, ½ Ψ(p)]]`
///
/// (developer notes, "Newton-Euler equation in quaternion form"; one of its two statements
/// prints `ψ(p)ṗ` for `ψ(p)Ω`, with `ψ = ½Ψ`). For a
/// unit `p`: `TᵀT = diag(I₃, ¼ I₃)` and `Tᵀ (0, p) = 0`.
#[must_use]
pub fn t_operator(q: &[f64; 7]) -> [[f64; 6]; 7] {
    let mut t = [[0.0; 6]; 7];
    for (i, row) in t.iter_mut().take(3).enumerate() {
        row[i] = 1.0;
    }
    let s = psi(Quaternion::new(q[3], q[4], q[5], q[6]));
    for (row, srow) in t.iter_mut().skip(3).zip(s) {
        for (j, v) in srow.into_iter().enumerate() {
            row[3 + j] = 0.5 * v;
        }
    }
    t
}
