//! Joints between two Newton–Euler bodies or between a body and the fixed world, as equality
//! relations `h(q) = 0` with their Jacobians in twist space, and joint stops as unilateral
//! relations (Siconos 4.4's `siconos.mechanics.joints`: `KneeJointR`, `PivotJointR`,
//! `PrismaticJointR`, `CylindricalJointR`, `FixedJointR`, `JointStopR`; Siconos documentation,
//! "Mechanics: joints").
//!
//! # Conventions
//!
//! Body `i` has its centre `xᵢ`, its orientation `pᵢ` (rotation `Rᵢ`) and its twist
//! `(vᵢ, Ωᵢ)` (centre velocity in the inertial frame, angular velocity in the body frame). As in
//! Siconos, anchor points and axes are given in the frame of body 1 ([`Reference::Body`]) or in
//! the inertial frame at the initial positions ([`Reference::Inertial`]); the joint is built
//! from the initial positions, where every `h` is 0:
//!
//! - the anchor `a₁` (body-1 frame) and its image `a₂` on body 2 (body-2 frame) at the initial
//!   positions, or the fixed inertial point `P₂` for a joint with the world; the anchors are at
//!   `P₁ = x₁ + R₁ a₁`, `P₂ = x₂ + R₂ a₂`;
//! - the relative orientation `r = (p₂ ∘ c)⁻¹ ∘ p₁` with `c = p₂(0)⁻¹ ∘ p₁(0)` (`p₂ = e` for the
//!   world), which is `e` initially and `(cos θ/2, sin θ/2 A)` after a rotation of body 1
//!   relative to body 2 by `θ` about the body-1 axis `A`;
//! - the unit axis `A` (body-1 frame) and the orthonormal `B₁, B₂` completing it
//!   ([`crate::contact::contact_frame`]).
//!
//! The constraint blocks (each row with its twist Jacobian, derived from
//! `δx = δv`, `δR = R skew(δΩ)`, `δr = ½ r ∘ (0, δΩ₁) − ½ (0, R_cᵀ δΩ₂) ∘ r`, `R_c` the rotation
//! of `c`):
//!
//! - point, 3 rows: `P₁ − P₂`; `H₁ = [I | −R₁ skew(a₁)]`, `H₂ = [−I | R₂ skew(a₂)]`;
//! - orientation along a body-1 unit vector `e`: `e·r⃗`; `H₁ = [0 | ½(r₀ e + e × r⃗)ᵀ]`,
//!   `H₂ = [0 | −½ (R_c (r₀ e − e × r⃗))ᵀ]`;
//! - line along a body-1 unit vector `V`: `V·R₁ᵀ(P₂ − P₁)`;
//!   `H₁ = [−(R₁V)ᵀ | (V × R₁ᵀ(P₂ − x₁))ᵀ]`, `H₂ = [(R₁V)ᵀ | (a₂ × R₂ᵀR₁V)ᵀ]`.
//!
//! | joint | rows | free motion |
//! |---|---|---|
//! | [`BallJoint`] (`KneeJointR`) | point (3) | rotations about the anchor |
//! | [`PivotJoint`] (`PivotJointR`) | point (3), orientation along `B₁, B₂` (2) | rotation about the axis through the anchor |
//! | [`PrismaticJoint`] (`PrismaticJointR`) | line along `B₁, B₂` (2), orientation (3) | translation along the axis |
//! | [`CylindricalJoint`] (`CylindricalJointR`) | line along `B₁, B₂` (2), orientation along `B₁, B₂` (2) | translation along and rotation about the axis |
//! | [`FixedJoint`] (`FixedJointR`) | point at `x₁` (3), orientation (3) | none |
//!
//! Joint coordinates ([`JointCoordinate`]) measure body 2 relative to body 1, as Siconos 4.4's
//! `computehDoF` does: the pivot angle `φ = −2 atan2(A·r⃗, r₀)` (body 1 turned by `θ` about `A`
//! gives `φ = −θ`; unwrapped along the calls, as Siconos counts the turns) and the prismatic
//! displacement `d = A·R₁ᵀ(P₂ − P₁)`, both 0 initially. [`JointStop`] bounds one of them
//! (Siconos' `JointStopR`: `y = (d − d_stop)·s`, `s = 1` for a lower stop, `−1` for an upper
//! one) and is meant for a Newton impact law.
//!
//! The ball, pivot and cylindrical rows are Siconos 4.4's, value for value (checked with the
//! world and the anchor and axis in the body frame; its
//! `orthoBaseFromVector` builds `B₁, B₂`; it fails on axes whose largest entry is `z`, where we
//! take the orthogonal vector, see [`crate::contact::contact_frame`]). Siconos 4.4's prismatic
//! and fixed joints measure the orientation error in the inertial frame and the prismatic
//! line rows in a basis of their own: their `h` is another function with the same zero set,
//! whose Jacobian spans the same rows there (the same motions and reactions `Hᵀλ`, other
//! multipliers `λ`).

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use std::f64::consts::PI;

use nonsmooth_kernel::KernelError;

use crate::MechanicsError;
use crate::contact::contact_frame;
use crate::lie::{Mat3, Quaternion, Vec3, cross, dot, mat_vec, sub, transpose};
use crate::relation::NewtonEulerRelation;

/// The frame in which a joint's anchor point and axis are given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reference {
    /// The frame of body 1 (anchor relative to its centre), Siconos' `absoluteRef = false`
    /// (default).
    #[default]
    Body,
    /// The inertial frame, at the initial positions (Siconos' `absoluteRef = true`).
    Inertial,
}

/// The pose of a body: centre and rotation.
fn pose(q: &[f64]) -> (Vec3, Mat3) {
    ([q[0], q[1], q[2]], Quaternion::new(q[3], q[4], q[5], q[6]).to_rotation_matrix())
}

fn quaternion(q: &[f64]) -> Quaternion {
    Quaternion::new(q[3], q[4], q[5], q[6])
}

/// A body position checked: 7 finite entries, the quaternion normalized.
fn checked_position(q: &[f64]) -> Result<[f64; 7], MechanicsError> {
    if q.len() != 7 {
        return Err(KernelError::DimensionMismatch { what: "body position", expected: 7, found: q.len() }.into());
    }
    if q.iter().any(|x| !x.is_finite()) {
        return Err(KernelError::NonFinite { what: "body position" }.into());
    }
    let p = quaternion(q).normalized()?;
    Ok([q[0], q[1], q[2], p.w, p.x, p.y, p.z])
}

fn checked_vector(what: &'static str, v: Vec3) -> Result<Vec3, MechanicsError> {
    if v.iter().all(|x| x.is_finite()) { Ok(v) } else { Err(KernelError::NonFinite { what }.into()) }
}

/// What every joint keeps from its initial positions (module documentation).
#[derive(Clone, Debug)]
struct Geometry {
    two_bodies: bool,
    /// `a₁`, body-1 frame.
    a1: Vec3,
    /// `a₂` (body-2 frame), or the inertial point `P₂` with the world.
    a2: Vec3,
    /// `[A; B₁; B₂]`, body-1 frame.
    axes: Mat3,
    /// `c⁻¹`.
    c_inverse: Quaternion,
    /// `R_c`.
    rc: Mat3,
}

/// Per-call quantities of a [`Geometry`] at `q`.
struct State {
    x1: Vec3,
    r1: Mat3,
    r2: Mat3,
    /// `P₁`, `P₂`.
    p1: Vec3,
    p2: Vec3,
    /// The relative orientation `r`.
    r: Quaternion,
}

impl Geometry {
    /// From the anchor `point` and `axis` in `reference` at the initial positions.
    fn new(
        point: Vec3,
        axis: Vec3,
        reference: Reference,
        q1: &[f64],
        q2: Option<&[f64]>,
    ) -> Result<Self, MechanicsError> {
        let q1 = checked_position(q1)?;
        let q2 = q2.map(checked_position).transpose()?;
        let point = checked_vector("joint anchor", point)?;
        let axis = checked_vector("joint axis", axis)?;
        let (x1, r1) = pose(&q1);
        let (a1, axis) = match reference {
            Reference::Body => (point, axis),
            Reference::Inertial => {
                let r1t = transpose(&r1);
                (mat_vec(&r1t, sub(point, x1)), mat_vec(&r1t, axis))
            }
        };
        let axes = contact_frame(axis)
            .map_err(|_| KernelError::InvalidOption { name: "joint axis", reason: "must be non-zero" })?;
        let anchor = add3(x1, mat_vec(&r1, a1));
        let p1 = quaternion(&q1);
        let (a2, c) = match &q2 {
            Some(q2) => {
                let (x2, r2) = pose(q2);
                let p2 = quaternion(q2);
                (mat_vec(&transpose(&r2), sub(anchor, x2)), p2.conjugate() * p1)
            }
            None => (anchor, p1),
        };
        Ok(Self { two_bodies: q2.is_some(), a1, a2, axes, c_inverse: c.conjugate(), rc: c.to_rotation_matrix() })
    }

    fn bodies(&self) -> usize {
        if self.two_bodies { 2 } else { 1 }
    }

    fn columns(&self) -> usize {
        6 * self.bodies()
    }

    fn state(&self, q: &[f64]) -> State {
        let (x1, r1) = pose(&q[..7]);
        let p1 = add3(x1, mat_vec(&r1, self.a1));
        let (p2, r2, r) = if self.two_bodies {
            let (x2, r2) = pose(&q[7..14]);
            let r = self.c_inverse * (quaternion(&q[7..14]).conjugate() * quaternion(&q[..7]));
            (add3(x2, mat_vec(&r2, self.a2)), r2, r)
        } else {
            (self.a2, [[0.0; 3]; 3], self.c_inverse * quaternion(&q[..7]))
        };
        State { x1, r1, r2, p1, p2, r }
    }

    /// The point rows `P₁ − P₂` from row `row`.
    fn point(&self, s: &State, row: usize, y: &mut [f64]) {
        let d = sub(s.p1, s.p2);
        y[row..row + 3].copy_from_slice(&d);
    }

    fn point_jacobian(&self, s: &State, row: usize, rows: &mut [f64]) {
        let n = self.columns();
        for k in 0..3 {
            let out = &mut rows[(row + k) * n..(row + k + 1) * n];
            out.fill(0.0);
            out[k] = 1.0;
            // e_k·R₁(δΩ × a₁) = (a₁ × R₁ᵀe_k)·δΩ.
            let r1e = [s.r1[k][0], s.r1[k][1], s.r1[k][2]];
            out[3..6].copy_from_slice(&cross(self.a1, r1e));
            if self.two_bodies {
                out[6 + k] = -1.0;
                let r2e = [s.r2[k][0], s.r2[k][1], s.r2[k][2]];
                let c = cross(self.a2, r2e);
                out[9..12].copy_from_slice(&[-c[0], -c[1], -c[2]]);
            }
        }
    }

    /// The orientation row `e·r⃗`.
    fn orientation(&self, s: &State, e: Vec3) -> f64 {
        dot(e, s.r.vector())
    }

    fn orientation_jacobian(&self, s: &State, e: Vec3, out: &mut [f64]) {
        out.fill(0.0);
        let (r0, rv) = (s.r.w, s.r.vector());
        let exr = cross(e, rv);
        for j in 0..3 {
            out[3 + j] = 0.5 * (r0 * e[j] + exr[j]);
        }
        if self.two_bodies {
            let w = mat_vec(&self.rc, [r0 * e[0] - exr[0], r0 * e[1] - exr[1], r0 * e[2] - exr[2]]);
            for j in 0..3 {
                out[9 + j] = -0.5 * w[j];
            }
        }
    }

    /// The line row `V·R₁ᵀ(P₂ − P₁)`.
    fn line(&self, s: &State, v: Vec3) -> f64 {
        dot(mat_vec(&s.r1, v), sub(s.p2, s.p1))
    }

    fn line_jacobian(&self, s: &State, v: Vec3, out: &mut [f64]) {
        out.fill(0.0);
        let r1v = mat_vec(&s.r1, v);
        let w = mat_vec(&transpose(&s.r1), sub(s.p2, s.x1));
        let rot1 = cross(v, w);
        for j in 0..3 {
            out[j] = -r1v[j];
            out[3 + j] = rot1[j];
        }
        if self.two_bodies {
            let u = mat_vec(&transpose(&s.r2), r1v);
            let rot2 = cross(self.a2, u);
            out[6..9].copy_from_slice(&r1v);
            out[9..12].copy_from_slice(&rot2);
        }
    }

    /// The raw angle `2 atan2(A·r⃗, r₀) ∈ (−2π, 2π]`.
    fn raw_angle(&self, s: &State) -> f64 {
        2.0 * dot(self.axes[0], s.r.vector()).atan2(s.r.w)
    }

    fn angle_jacobian(&self, s: &State, out: &mut [f64]) {
        out.fill(0.0);
        let a = self.axes[0];
        let (r0, rv) = (s.r.w, s.r.vector());
        let sigma = dot(a, rv);
        let k = 2.0 / (r0 * r0 + sigma * sigma);
        // dθ = k (r₀ dσ − σ dr₀), dr₀ = −½ r⃗·δΩ₁ + ½ (R_c r⃗)·δΩ₂.
        let mut ds = [0.0; 12];
        self.orientation_jacobian(s, a, &mut ds[..self.columns()]);
        for j in 0..3 {
            out[3 + j] = k * (r0 * ds[3 + j] + sigma * 0.5 * rv[j]);
        }
        if self.two_bodies {
            let rcr = mat_vec(&self.rc, rv);
            for j in 0..3 {
                out[9 + j] = k * (r0 * ds[9 + j] - sigma * 0.5 * rcr[j]);
            }
        }
    }
}

fn add3(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// Writes the orientation rows along `vectors` from `row` (output).
fn orientation_rows(g: &Geometry, s: &State, vectors: &[Vec3], row: usize, y: &mut [f64]) {
    for (k, e) in vectors.iter().enumerate() {
        y[row + k] = g.orientation(s, *e);
    }
}

fn orientation_jacobian_rows(g: &Geometry, s: &State, vectors: &[Vec3], row: usize, rows: &mut [f64]) {
    let n = g.columns();
    for (k, e) in vectors.iter().enumerate() {
        g.orientation_jacobian(s, *e, &mut rows[(row + k) * n..(row + k + 1) * n]);
    }
}

fn line_rows(g: &Geometry, s: &State, row: usize, y: &mut [f64]) {
    y[row] = g.line(s, g.axes[1]);
    y[row + 1] = g.line(s, g.axes[2]);
}

fn line_jacobian_rows(g: &Geometry, s: &State, row: usize, rows: &mut [f64]) {
    let n = g.columns();
    g.line_jacobian(s, g.axes[1], &mut rows[row * n..(row + 1) * n]);
    g.line_jacobian(s, g.axes[2], &mut rows[(row + 1) * n..(row + 2) * n]);
}

const E: [Vec3; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// A ball (spherical, knee) joint: the anchor points of the two bodies coincide,
/// `h = P₁ − P₂ ∈ R³` (Siconos' `KneeJointR`; module documentation).
#[doc(alias = "KneeJointR")]
#[derive(Clone, Debug)]
pub struct BallJoint {
    geometry: Geometry,
}

impl BallJoint {
    /// A ball joint at `point` (in `reference`) between body 1 at `q1` and body 2 at `q2`, or
    /// the world when `q2` is `None`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] for positions not in `R⁷`,
    /// [`KernelError::NonFinite`] for NaN or infinite data, [`KernelError::InvalidOption`] for a
    /// zero quaternion.
    pub fn new(point: Vec3, reference: Reference, q1: &[f64], q2: Option<&[f64]>) -> Result<Self, MechanicsError> {
        Ok(Self { geometry: Geometry::new(point, [1.0, 0.0, 0.0], reference, q1, q2)? })
    }
}

impl NewtonEulerRelation for BallJoint {
    fn size(&self) -> usize {
        3
    }

    fn bodies(&self) -> usize {
        self.geometry.bodies()
    }

    fn output(&mut self, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        let s = self.geometry.state(q);
        self.geometry.point(&s, 0, y);
        Ok(())
    }

    fn jacobian(&mut self, q: &[f64], rows: &mut [f64]) -> Result<(), KernelError> {
        let s = self.geometry.state(q);
        self.geometry.point_jacobian(&s, 0, rows);
        Ok(())
    }
}

/// A pivot (hinge, revolute) joint: a ball joint whose relative rotation is about the axis
/// `A`, `h = (P₁ − P₂, B₁·r⃗, B₂·r⃗) ∈ R⁵` (Siconos' `PivotJointR`; module documentation). Its
/// coordinate is the angle `φ` of body 2 relative to body 1 about `A`.
#[doc(alias = "PivotJointR")]
#[doc(alias = "HingeJoint")]
#[derive(Clone, Debug)]
pub struct PivotJoint {
    geometry: Geometry,
    /// The last angle returned, and whether there is one (for the unwrapping).
    previous: Option<f64>,
}

impl PivotJoint {
    /// A pivot at `point` about `axis` (both in `reference`) between body 1 at `q1` and body 2
    /// at `q2`, or the world when `q2` is `None`.
    ///
    /// # Errors
    /// As [`BallJoint::new`]; [`KernelError::InvalidOption`] for a zero axis.
    pub fn new(
        point: Vec3,
        axis: Vec3,
        reference: Reference,
        q1: &[f64],
        q2: Option<&[f64]>,
    ) -> Result<Self, MechanicsError> {
        Ok(Self { geometry: Geometry::new(point, axis, reference, q1, q2)?, previous: None })
    }

    /// The axis `A` (unit, body-1 frame).
    pub fn axis(&self) -> Vec3 {
        self.geometry.axes[0]
    }
}

impl NewtonEulerRelation for PivotJoint {
    fn size(&self) -> usize {
        5
    }

    fn bodies(&self) -> usize {
        self.geometry.bodies()
    }

    fn output(&mut self, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        let g = &self.geometry;
        let s = g.state(q);
        g.point(&s, 0, y);
        orientation_rows(g, &s, &[g.axes[1], g.axes[2]], 3, y);
        Ok(())
    }

    fn jacobian(&mut self, q: &[f64], rows: &mut [f64]) -> Result<(), KernelError> {
        let g = &self.geometry;
        let s = g.state(q);
        g.point_jacobian(&s, 0, rows);
        orientation_jacobian_rows(g, &s, &[g.axes[1], g.axes[2]], 3, rows);
        Ok(())
    }
}

/// A prismatic (slider) joint: body 1 translates relative to body 2 along the axis `A`
/// without rotating, `h = (B₁·R₁ᵀ(P₂ − P₁), B₂·R₁ᵀ(P₂ − P₁), r⃗) ∈ R⁵` with the anchor at the
/// centre of body 1 (Siconos' `PrismaticJointR`; module documentation). Its coordinate is the
/// displacement `d = A·R₁ᵀ(P₂ − P₁)` of body 2 relative to body 1.
#[doc(alias = "PrismaticJointR")]
#[derive(Clone, Debug)]
pub struct PrismaticJoint {
    geometry: Geometry,
}

impl PrismaticJoint {
    /// A prismatic joint along `axis` (in `reference`) between body 1 at `q1` and body 2 at
    /// `q2`, or the world when `q2` is `None`.
    ///
    /// # Errors
    /// As [`PivotJoint::new`].
    pub fn new(axis: Vec3, reference: Reference, q1: &[f64], q2: Option<&[f64]>) -> Result<Self, MechanicsError> {
        let q = checked_position(q1)?;
        let centre = match reference {
            Reference::Body => [0.0; 3],
            Reference::Inertial => [q[0], q[1], q[2]],
        };
        Ok(Self { geometry: Geometry::new(centre, axis, reference, q1, q2)? })
    }

    /// The axis `A` (unit, body-1 frame).
    pub fn axis(&self) -> Vec3 {
        self.geometry.axes[0]
    }
}

impl NewtonEulerRelation for PrismaticJoint {
    fn size(&self) -> usize {
        5
    }

    fn bodies(&self) -> usize {
        self.geometry.bodies()
    }

    fn output(&mut self, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        let g = &self.geometry;
        let s = g.state(q);
        line_rows(g, &s, 0, y);
        orientation_rows(g, &s, &E, 2, y);
        Ok(())
    }

    fn jacobian(&mut self, q: &[f64], rows: &mut [f64]) -> Result<(), KernelError> {
        let g = &self.geometry;
        let s = g.state(q);
        line_jacobian_rows(g, &s, 0, rows);
        orientation_jacobian_rows(g, &s, &E, 2, rows);
        Ok(())
    }
}

/// A cylindrical joint: body 1 translates along and rotates about the axis `A` through the
/// anchor, `h = (B₁·R₁ᵀ(P₂ − P₁), B₂·R₁ᵀ(P₂ − P₁), B₁·r⃗, B₂·r⃗) ∈ R⁴` (Siconos'
/// `CylindricalJointR`; module documentation).
#[doc(alias = "CylindricalJointR")]
#[derive(Clone, Debug)]
pub struct CylindricalJoint {
    geometry: Geometry,
}

impl CylindricalJoint {
    /// A cylindrical joint about the line through `point` along `axis` (both in `reference`)
    /// between body 1 at `q1` and body 2 at `q2`, or the world when `q2` is `None`.
    ///
    /// # Errors
    /// As [`PivotJoint::new`].
    pub fn new(
        point: Vec3,
        axis: Vec3,
        reference: Reference,
        q1: &[f64],
        q2: Option<&[f64]>,
    ) -> Result<Self, MechanicsError> {
        Ok(Self { geometry: Geometry::new(point, axis, reference, q1, q2)? })
    }
}

impl NewtonEulerRelation for CylindricalJoint {
    fn size(&self) -> usize {
        4
    }

    fn bodies(&self) -> usize {
        self.geometry.bodies()
    }

    fn output(&mut self, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        let g = &self.geometry;
        let s = g.state(q);
        line_rows(g, &s, 0, y);
        orientation_rows(g, &s, &[g.axes[1], g.axes[2]], 2, y);
        Ok(())
    }

    fn jacobian(&mut self, q: &[f64], rows: &mut [f64]) -> Result<(), KernelError> {
        let g = &self.geometry;
        let s = g.state(q);
        line_jacobian_rows(g, &s, 0, rows);
        orientation_jacobian_rows(g, &s, &[g.axes[1], g.axes[2]], 2, rows);
        Ok(())
    }
}

/// A fixed (welded) joint: body 1 keeps its initial position and orientation relative to
/// body 2, `h = (P₁ − P₂, r⃗) ∈ R⁶` with the anchor at the centre of body 1 (Siconos'
/// `FixedJointR`; module documentation).
#[doc(alias = "FixedJointR")]
#[derive(Clone, Debug)]
pub struct FixedJoint {
    geometry: Geometry,
}

impl FixedJoint {
    /// Welds body 1 at `q1` to body 2 at `q2`, or to the world when `q2` is `None`.
    ///
    /// # Errors
    /// As [`BallJoint::new`].
    pub fn new(q1: &[f64], q2: Option<&[f64]>) -> Result<Self, MechanicsError> {
        Ok(Self { geometry: Geometry::new([0.0; 3], [1.0, 0.0, 0.0], Reference::Body, q1, q2)? })
    }
}

impl NewtonEulerRelation for FixedJoint {
    fn size(&self) -> usize {
        6
    }

    fn bodies(&self) -> usize {
        self.geometry.bodies()
    }

    fn output(&mut self, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        let g = &self.geometry;
        let s = g.state(q);
        g.point(&s, 0, y);
        orientation_rows(g, &s, &E, 3, y);
        Ok(())
    }

    fn jacobian(&mut self, q: &[f64], rows: &mut [f64]) -> Result<(), KernelError> {
        let g = &self.geometry;
        let s = g.state(q);
        g.point_jacobian(&s, 0, rows);
        orientation_jacobian_rows(g, &s, &E, 3, rows);
        Ok(())
    }
}

/// The free coordinate of a one-degree-of-freedom joint and its twist-space gradient
/// (Siconos' `NewtonEulerJointR::computehDoF` and `computeJachqDoF`).
pub trait JointCoordinate: Clone + Send + 'static {
    /// Number of bodies (1 or 2).
    fn bodies(&self) -> usize;

    /// The coordinate at `q`, 0 at the initial positions.
    fn coordinate(&mut self, q: &[f64]) -> f64;

    /// Writes its gradient in twist space (`6·bodies` entries).
    fn coordinate_jacobian(&mut self, q: &[f64], row: &mut [f64]);
}

impl JointCoordinate for PivotJoint {
    fn bodies(&self) -> usize {
        self.geometry.bodies()
    }

    /// The angle `φ = −2 atan2(A·r⃗, r₀)` of body 2 relative to body 1 about `A` (radians),
    /// unwrapped: of the values equal to it modulo `2π`, the one closest to the previous
    /// call's (Siconos counts the turns the same way).
    fn coordinate(&mut self, q: &[f64]) -> f64 {
        let s = self.geometry.state(q);
        let raw = -self.geometry.raw_angle(&s);
        let angle = match self.previous {
            None => raw,
            Some(previous) => raw + 2.0 * PI * ((previous - raw) / (2.0 * PI)).round(),
        };
        self.previous = Some(angle);
        angle
    }

    fn coordinate_jacobian(&mut self, q: &[f64], row: &mut [f64]) {
        let s = self.geometry.state(q);
        self.geometry.angle_jacobian(&s, row);
        for x in row.iter_mut() {
            *x = -*x;
        }
    }
}

impl JointCoordinate for PrismaticJoint {
    fn bodies(&self) -> usize {
        self.geometry.bodies()
    }

    /// The displacement `d = A·R₁ᵀ(P₂ − P₁)` of body 2 relative to body 1 along the axis.
    fn coordinate(&mut self, q: &[f64]) -> f64 {
        let s = self.geometry.state(q);
        self.geometry.line(&s, self.geometry.axes[0])
    }

    fn coordinate_jacobian(&mut self, q: &[f64], row: &mut [f64]) {
        let s = self.geometry.state(q);
        self.geometry.line_jacobian(&s, self.geometry.axes[0], row);
    }
}

/// A stop on a joint coordinate `d` (Siconos' `JointStopR`): `y = (d − d_stop)·s ≥ 0` with
/// `s = 1` for a lower stop (`d ≥ d_stop`) and `s = −1` for an upper one (`d ≤ d_stop`), to
/// be linked with a Newton impact law (`0 ≤ ẏ⁺ + e ẏ⁻ ⊥ λ ≥ 0` when `y ≤ 0`). It keeps its own
/// copy of the joint (built from the same initial positions).
#[doc(alias = "JointStopR")]
#[derive(Clone, Debug)]
pub struct JointStop<J> {
    joint: J,
    stop: f64,
    direction: f64,
}

impl<J: JointCoordinate> JointStop<J> {
    /// The stop `d ≥ stop` (Siconos' `JointStopR` with `dir = false`).
    ///
    /// # Errors
    /// [`KernelError::NonFinite`] for a NaN or infinite stop.
    pub fn lower(joint: J, stop: f64) -> Result<Self, MechanicsError> {
        Self::new(joint, stop, 1.0)
    }

    /// The stop `d ≤ stop` (Siconos' `JointStopR` with `dir = true`).
    ///
    /// # Errors
    /// [`KernelError::NonFinite`] for a NaN or infinite stop.
    pub fn upper(joint: J, stop: f64) -> Result<Self, MechanicsError> {
        Self::new(joint, stop, -1.0)
    }

    fn new(joint: J, stop: f64, direction: f64) -> Result<Self, MechanicsError> {
        if !stop.is_finite() {
            return Err(KernelError::NonFinite { what: "joint stop" }.into());
        }
        Ok(Self { joint, stop, direction })
    }

    /// The joint.
    pub fn joint(&self) -> &J {
        &self.joint
    }
}

impl<J: JointCoordinate> NewtonEulerRelation for JointStop<J> {
    fn size(&self) -> usize {
        1
    }

    fn bodies(&self) -> usize {
        self.joint.bodies()
    }

    fn output(&mut self, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        y[0] = (self.joint.coordinate(q) - self.stop) * self.direction;
        Ok(())
    }

    fn jacobian(&mut self, q: &[f64], rows: &mut [f64]) -> Result<(), KernelError> {
        self.joint.coordinate_jacobian(q, rows);
        for x in rows.iter_mut() {
            *x *= self.direction;
        }
        Ok(())
    }
}
