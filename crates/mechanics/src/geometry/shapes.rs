//! Rigid poses, the contact shapes, their bounding boxes and their mass properties.

use super::polyhedra::{ConvexHull, TriangleMesh};
use super::{M3, V3, add, column, cross, dot, mat_t_vec, mat_vec, norm, scale, sub};
use crate::MechanicsError;
use nonsmooth_kernel::KernelError;
use std::f64::consts::PI;

/// A rigid placement, body frame → world frame: `x_world = rotation · x_body + position`.
///
/// `rotation` is row-major (`rotation[i][j]` is row `i`, column `j`); its column `j` is the body
/// axis `j` expressed in the world frame. It is assumed orthonormal with determinant 1 (build it
/// with [`Pose::from_axis_angle`] or from a unit quaternion); nothing here re-orthonormalizes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position of the body origin in the world frame.
    pub position: [f64; 3],
    /// Rotation matrix body → world (row-major).
    pub rotation: [[f64; 3]; 3],
}

impl Default for Pose {
    fn default() -> Self {
        Self::identity()
    }
}

impl Pose {
    /// The identity placement (origin, no rotation).
    #[must_use]
    pub fn identity() -> Self {
        Self { position: [0.0; 3], rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] }
    }

    /// A pure translation to `position`.
    #[must_use]
    pub fn from_translation(position: [f64; 3]) -> Self {
        Self { position, ..Self::identity() }
    }

    /// The placement at `position` rotated by `angle` (radians) about `axis` (normalized here; a
    /// zero axis gives no rotation). Rodrigues' formula
    /// `R = I + sin θ K + (1 − cos θ) K²`, with `K` the cross-product matrix of the unit axis.
    #[must_use]
    pub fn from_axis_angle(position: [f64; 3], axis: [f64; 3], angle: f64) -> Self {
        let n = norm(axis);
        if n == 0.0 || !n.is_finite() {
            return Self::from_translation(position);
        }
        let k = scale(1.0 / n, axis);
        let (s, c) = angle.sin_cos();
        let kx: M3 = [[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]];
        let mut r = [[0.0; 3]; 3];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, rij) in row.iter_mut().enumerate() {
                // K² = k kᵀ − I.
                let k2 = k[i] * k[j] - if i == j { 1.0 } else { 0.0 };
                *rij = if i == j { 1.0 } else { 0.0 } + s * kx[i][j] + (1.0 - c) * k2;
            }
        }
        Self { position, rotation: r }
    }

    /// `R p + x`: a body point in world coordinates.
    #[must_use]
    pub fn transform_point(&self, p: [f64; 3]) -> [f64; 3] {
        add(mat_vec(&self.rotation, p), self.position)
    }

    /// `Rᵀ (p − x)`: a world point in body coordinates.
    #[must_use]
    pub fn inverse_transform_point(&self, p: [f64; 3]) -> [f64; 3] {
        mat_t_vec(&self.rotation, sub(p, self.position))
    }

    /// `R v`: a body vector (direction) in world coordinates.
    #[must_use]
    pub fn transform_vector(&self, v: [f64; 3]) -> [f64; 3] {
        mat_vec(&self.rotation, v)
    }

    /// `Rᵀ v`: a world vector in body coordinates.
    #[must_use]
    pub fn inverse_transform_vector(&self, v: [f64; 3]) -> [f64; 3] {
        mat_t_vec(&self.rotation, v)
    }

    /// Body axis `j` (0, 1, 2) in the world frame: column `j` of the rotation.
    #[must_use]
    pub fn axis(&self, j: usize) -> [f64; 3] {
        column(&self.rotation, j)
    }
}

/// An axis-aligned bounding box in the world frame (closed: `min ≤ x ≤ max` componentwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub min: [f64; 3],
    /// Upper corner.
    pub max: [f64; 3],
}

impl Aabb {
    /// The box grown by `amount` on every side: `[min − amount, max + amount]`.
    #[must_use]
    pub fn inflated(&self, amount: f64) -> Self {
        Self {
            min: [self.min[0] - amount, self.min[1] - amount, self.min[2] - amount],
            max: [self.max[0] + amount, self.max[1] + amount, self.max[2] + amount],
        }
    }

    /// Whether the two closed boxes intersect: `self.min_k ≤ other.max_k` and
    /// `other.min_k ≤ self.max_k` for k = 0, 1, 2.
    #[must_use]
    pub fn intersects(&self, other: &Aabb) -> bool {
        (0..3).all(|k| self.min[k] <= other.max[k] && other.min[k] <= self.max[k])
    }

    /// Centre `(min + max) / 2`.
    #[must_use]
    pub fn center(&self) -> [f64; 3] {
        scale(0.5, add(self.min, self.max))
    }

    /// Half extents `(max − min) / 2`.
    #[must_use]
    pub fn half_extents(&self) -> [f64; 3] {
        scale(0.5, sub(self.max, self.min))
    }
}

/// A contact shape, in its body frame (placed in the world by a [`Pose`]).
///
/// Build the variants with the validating constructors ([`Shape::sphere`], [`Shape::cuboid`],
/// [`Shape::capsule`], [`Shape::cylinder`], [`Shape::convex_hull`], [`Shape::triangle_mesh`],
/// [`Shape::half_space`]); the fields are public so that the narrow phase can match on them.
/// Cloning a convex hull or a mesh shares its vertex data (reference counted).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Ball of the given radius centred at the body origin.
    Sphere {
        /// Radius (> 0).
        radius: f64,
    },
    /// The solid `{x : z_body ≤ 0}`: everything below the plane through the pose origin whose
    /// outward normal is the pose's local `+z` axis (ground, walls). Unbounded: no bounding box
    /// and no mass.
    HalfSpace,
    /// Rectangular box `|x_i| ≤ h_i` (body frame), centred at the body origin.
    Box {
        /// Half extents `h` along the body axes (each > 0).
        half_extents: [f64; 3],
    },
    /// Points within `radius` of the segment from `(0, 0, −half_length)` to
    /// `(0, 0, half_length)` (body frame): a cylinder of height `2 half_length` capped by two
    /// hemispheres.
    Capsule {
        /// Radius (> 0).
        radius: f64,
        /// Half length of the axis segment (> 0).
        half_length: f64,
    },
    /// Solid circular cylinder `x² + y² ≤ radius²`, `|z| ≤ half_height` (body frame): the axis
    /// is the body `z`, as for [`Shape::Capsule`].
    Cylinder {
        /// Radius (> 0).
        radius: f64,
        /// Half height (> 0).
        half_height: f64,
    },
    /// The convex hull of a point set, in its principal frame (see [`ConvexHull`]).
    ConvexHull(ConvexHull),
    /// A static triangle mesh (see [`TriangleMesh`]): only for static shapes
    /// ([`SceneBuilder::add_static`](crate::scene::SceneBuilder::add_static)); it has no mass.
    TriangleMesh(TriangleMesh),
}

/// Mass, volume and principal inertia of a solid of uniform density, about its centre (the
/// body origin) in the body frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Volume `V`.
    pub volume: f64,
    /// Mass `m = ρ V`.
    pub mass: f64,
    /// Principal moments of inertia `(I_xx, I_yy, I_zz)` about the body axes through the centre
    /// (the body axes are principal for every finite shape here).
    pub principal_inertia: [f64; 3],
}

impl MassProperties {
    /// The inertia tensor in the body frame: `diag(principal_inertia)`.
    #[must_use]
    pub fn inertia_tensor(&self) -> [[f64; 3]; 3] {
        let i = self.principal_inertia;
        [[i[0], 0.0, 0.0], [0.0, i[1], 0.0], [0.0, 0.0, i[2]]]
    }
}

/// Checks that `value` is finite and > 0.
fn positive(name: &'static str, value: f64) -> Result<f64, MechanicsError> {
    if value.is_nan() || value <= 0.0 || value.is_infinite() {
        Err(MechanicsError::Kernel(KernelError::InvalidOption { name, reason: "must be positive and finite" }))
    } else {
        Ok(value)
    }
}

impl Shape {
    /// A sphere of radius `radius`. Errors: `InvalidOption { name: "radius" }` unless
    /// `0 < radius < ∞`.
    pub fn sphere(radius: f64) -> Result<Self, MechanicsError> {
        Ok(Self::Sphere { radius: positive("radius", radius)? })
    }

    /// A box of half extents `half_extents`. Errors: `InvalidOption { name: "half_extents" }`
    /// unless each is finite and > 0.
    pub fn cuboid(half_extents: [f64; 3]) -> Result<Self, MechanicsError> {
        for h in half_extents {
            positive("half_extents", h)?;
        }
        Ok(Self::Box { half_extents })
    }

    /// A capsule of radius `radius` around the body z-segment `[−half_length, half_length]`.
    /// Errors: `InvalidOption { name: "radius" | "half_length" }` unless both are finite and > 0.
    pub fn capsule(radius: f64, half_length: f64) -> Result<Self, MechanicsError> {
        Ok(Self::Capsule { radius: positive("radius", radius)?, half_length: positive("half_length", half_length)? })
    }

    /// The half-space below the plane `z_body = 0` (outward normal: body `+z`).
    #[must_use]
    pub fn half_space() -> Self {
        Self::HalfSpace
    }

    /// A cylinder of radius `radius` and height `2 half_height` along the body z axis.
    /// Errors: `InvalidOption { name: "radius" | "half_height" }` unless both are finite and > 0.
    pub fn cylinder(radius: f64, half_height: f64) -> Result<Self, MechanicsError> {
        Ok(Self::Cylinder { radius: positive("radius", radius)?, half_height: positive("half_height", half_height)? })
    }

    /// The convex hull of `points`, re-expressed in its principal frame (centre of mass at the
    /// origin, principal axes of inertia; [`ConvexHull::input_frame`] relates it to the frame of
    /// `points`, and [`ConvexHull::body_pose`] places it). Errors: `NonFinite { what: "points" }`;
    /// `InvalidOption { name: "points" }` for fewer than 4 points or a flat hull.
    pub fn convex_hull(points: &[[f64; 3]]) -> Result<Self, MechanicsError> {
        Ok(Self::ConvexHull(ConvexHull::new(points)?))
    }

    /// A static triangle mesh of `vertices` and `triangles` (each counter-clockwise seen from
    /// the side bodies touch). Errors: `NonFinite { what: "vertices" }`;
    /// `InvalidOption { name: "indices" }` for no triangle, an index out of range or a
    /// degenerate triangle.
    pub fn triangle_mesh(vertices: &[[f64; 3]], triangles: &[[u32; 3]]) -> Result<Self, MechanicsError> {
        Ok(Self::TriangleMesh(TriangleMesh::new(vertices, triangles)?))
    }

    /// A short name of the shape's kind ("sphere", "box", ...), used in error messages.
    #[must_use]
    pub fn kind_name(&self) -> &'static str {
        match self {
            Shape::Sphere { .. } => "sphere",
            Shape::HalfSpace => "half-space",
            Shape::Box { .. } => "box",
            Shape::Capsule { .. } => "capsule",
            Shape::Cylinder { .. } => "cylinder",
            Shape::ConvexHull(_) => "convex hull",
            Shape::TriangleMesh(_) => "triangle mesh",
        }
    }

    /// Whether the shape can only be static (a half-space or a triangle mesh: no finite mass).
    #[must_use]
    pub fn is_static_only(&self) -> bool {
        matches!(self, Shape::HalfSpace | Shape::TriangleMesh(_))
    }

    /// The world axis-aligned bounding box of the shape placed at `pose` (`None` for a
    /// half-space, which is unbounded).
    ///
    /// Box: centre `x`, half extent along world axis `i` equal to `Σ_j |R_ij| h_j` (exact for a
    /// box). Capsule: `|R_i2| half_length + radius` (exact). Sphere: `x ± r`. Cylinder of axis
    /// `u = R e_z`: `|u_i| half_height + radius √(1 − u_i²)` (exact: the extent of a disc of
    /// normal `u` along `e_i` is `radius √(1 − u_i²)`). Convex hull and mesh: the extremes of
    /// their placed vertices (exact).
    #[must_use]
    pub fn aabb(&self, pose: &Pose) -> Option<Aabb> {
        let c = pose.position;
        let r = &pose.rotation;
        let vertices = |points: &[parry3d_f64::math::Vector]| {
            let mut b = Aabb { min: [f64::INFINITY; 3], max: [f64::NEG_INFINITY; 3] };
            for p in points {
                let w = pose.transform_point([p.x, p.y, p.z]);
                for (k, x) in w.into_iter().enumerate() {
                    b.min[k] = b.min[k].min(x);
                    b.max[k] = b.max[k].max(x);
                }
            }
            b
        };
        let ext: V3 = match *self {
            Shape::ConvexHull(ref h) => return Some(vertices(h.parry().points())),
            Shape::TriangleMesh(ref m) => return Some(vertices(m.parry().vertices())),
            Shape::Cylinder { radius, half_height } => {
                let mut e = [0.0; 3];
                for (i, ei) in e.iter_mut().enumerate() {
                    let u = r[i][2].abs();
                    *ei = u * half_height + radius * (1.0 - u * u).max(0.0).sqrt();
                }
                e
            }
            Shape::Sphere { radius } => [radius; 3],
            Shape::HalfSpace => return None,
            Shape::Box { half_extents: h } => {
                let mut e = [0.0; 3];
                for (i, ei) in e.iter_mut().enumerate() {
                    *ei = r[i][0].abs() * h[0] + r[i][1].abs() * h[1] + r[i][2].abs() * h[2];
                }
                e
            }
            Shape::Capsule { radius, half_length } => {
                let mut e = [0.0; 3];
                for (i, ei) in e.iter_mut().enumerate() {
                    *ei = r[i][2].abs() * half_length + radius;
                }
                e
            }
        };
        Some(Aabb { min: sub(c, ext), max: add(c, ext) })
    }

    /// The volume (`None` for a half-space).
    ///
    /// Sphere `4/3 π r³`; box `8 h_x h_y h_z`; capsule `π r² L + 4/3 π r³` with `L = 2 half_length`;
    /// cylinder `2 π r² half_height`; convex hull: see [`ConvexHull`]; `None` for a triangle mesh
    /// (a surface).
    #[must_use]
    pub fn volume(&self) -> Option<f64> {
        match *self {
            Shape::Cylinder { radius, half_height } => Some(2.0 * PI * radius * radius * half_height),
            Shape::ConvexHull(ref h) => Some(h.volume()),
            Shape::TriangleMesh(_) => None,
            Shape::Sphere { radius } => Some(4.0 / 3.0 * PI * radius.powi(3)),
            Shape::HalfSpace => None,
            Shape::Box { half_extents: h } => Some(8.0 * h[0] * h[1] * h[2]),
            Shape::Capsule { radius, half_length } => {
                Some(PI * radius * radius * 2.0 * half_length + 4.0 / 3.0 * PI * radius.powi(3))
            }
        }
    }

    /// Mass, volume and principal inertia (body frame, about the centre) of the solid of
    /// uniform density `density`.
    ///
    /// * Sphere: `I = 2/5 m r²` about every axis.
    /// * Box (full sides `a = 2h_x`, `b = 2h_y`, `c = 2h_z`): `I_xx = m (b² + c²)/12`,
    ///   `I_yy = m (a² + c²)/12`, `I_zz = m (a² + b²)/12`.
    /// * Capsule (radius `r`, cylinder height `L = 2 half_length`, axis z): cylinder mass
    ///   `m_c = ρ π r² L`, mass of each hemisphere `m_h = ρ 2/3 π r³`;
    ///   `I_zz = m_c r²/2 + 2 · (2/5) m_h r²`;
    ///   `I_xx = I_yy = m_c (r²/4 + L²/12) + 2 [ (83/320) m_h r² + m_h (L/2 + 3r/8)² ]`,
    ///   where `83/320 m_h r² = (2/5 − 9/64) m_h r²` is a hemisphere's inertia about a transverse
    ///   axis through its own centre of mass, which lies `3r/8` from its flat face, itself at
    ///   `L/2` from the capsule centre (parallel-axis theorem).
    /// * Cylinder (radius `r`, height `L = 2 half_height`, axis z): `I_zz = m r²/2`,
    ///   `I_xx = I_yy = m (3 r² + L²)/12`.
    /// * Convex hull: `ρ` times [`ConvexHull::unit_inertia`].
    ///
    /// Errors: `InvalidOption { name: "density" }` unless `0 < density < ∞`;
    /// `InvalidOption { name: "shape" }` for a half-space or a triangle mesh (no finite mass).
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties, MechanicsError> {
        let rho = positive("density", density)?;
        let no_mass = MechanicsError::Kernel(KernelError::InvalidOption {
            name: "shape",
            reason: "a half-space or a triangle mesh has no finite mass (static only)",
        });
        let volume = self.volume().ok_or(no_mass)?;
        let mass = rho * volume;
        let principal_inertia = match *self {
            Shape::Sphere { radius } => [0.4 * mass * radius * radius; 3],
            Shape::HalfSpace | Shape::TriangleMesh(_) => {
                return Err(MechanicsError::Kernel(KernelError::InvalidOption {
                    name: "shape",
                    reason: "a half-space or a triangle mesh has no finite mass (static only)",
                }));
            }
            Shape::Cylinder { radius: r, half_height } => {
                let l = 2.0 * half_height;
                let i_xx = mass * (3.0 * r * r + l * l) / 12.0;
                [i_xx, i_xx, 0.5 * mass * r * r]
            }
            Shape::ConvexHull(ref h) => h.unit_inertia().map(|i| rho * i),
            Shape::Box { half_extents: h } => {
                let (a2, b2, c2) = (4.0 * h[0] * h[0], 4.0 * h[1] * h[1], 4.0 * h[2] * h[2]);
                [mass * (b2 + c2) / 12.0, mass * (a2 + c2) / 12.0, mass * (a2 + b2) / 12.0]
            }
            Shape::Capsule { radius: r, half_length } => {
                let l = 2.0 * half_length;
                let m_c = rho * PI * r * r * l;
                let m_h = rho * 2.0 / 3.0 * PI * r.powi(3);
                let i_zz = 0.5 * m_c * r * r + 2.0 * 0.4 * m_h * r * r;
                let arm = 0.5 * l + 3.0 * r / 8.0;
                let i_xx = m_c * (r * r / 4.0 + l * l / 12.0) + 2.0 * (83.0 / 320.0 * m_h * r * r + m_h * arm * arm);
                [i_xx, i_xx, i_zz]
            }
        };
        Ok(MassProperties { volume, mass, principal_inertia })
    }

    /// The support point in world coordinates: the point of the shape maximizing `d · x` for a
    /// direction `d` (`None` for a half-space). Used by tests and by callers that need an
    /// extreme point; ties are broken towards the `+` side of each body axis (cylinder: the
    /// centre of a cap when `d` is along the axis; convex hull and mesh: the first vertex of
    /// largest `d · x`).
    #[must_use]
    pub fn support_point(&self, pose: &Pose, d: [f64; 3]) -> Option<[f64; 3]> {
        let dl = pose.inverse_transform_vector(d);
        let sgn = |x: f64| if x < 0.0 { -1.0 } else { 1.0 };
        let local = match *self {
            Shape::Sphere { radius } => {
                let n = norm(dl);
                if n == 0.0 { [0.0, 0.0, radius] } else { scale(radius / n, dl) }
            }
            Shape::HalfSpace => return None,
            Shape::Box { half_extents: h } => [sgn(dl[0]) * h[0], sgn(dl[1]) * h[1], sgn(dl[2]) * h[2]],
            Shape::Capsule { radius, half_length } => {
                let n = norm(dl);
                let ball = if n == 0.0 { [0.0, 0.0, radius] } else { scale(radius / n, dl) };
                add(ball, [0.0, 0.0, sgn(dl[2]) * half_length])
            }
            Shape::Cylinder { radius, half_height } => {
                let rho = (dl[0] * dl[0] + dl[1] * dl[1]).sqrt();
                let (x, y) = if rho > 0.0 { (radius * dl[0] / rho, radius * dl[1] / rho) } else { (0.0, 0.0) };
                [x, y, sgn(dl[2]) * half_height]
            }
            Shape::ConvexHull(ref h) => extreme(h.vertices(), dl),
            Shape::TriangleMesh(ref m) => extreme(m.vertices(), dl),
        };
        Some(pose.transform_point(local))
    }
}

/// The first point of largest `d · p`.
fn extreme(points: Vec<V3>, d: V3) -> V3 {
    let mut best = points[0];
    for p in points {
        if dot(p, d) > dot(best, d) {
            best = p;
        }
    }
    best
}

/// `true` when the rotation is orthonormal to `tol` (`‖RᵀR − I‖_max ≤ tol`); a helper for
/// callers that validate poses.
#[must_use]
pub fn is_rotation(r: &[[f64; 3]; 3], tol: f64) -> bool {
    let cols = [column(r, 0), column(r, 1), column(r, 2)];
    for i in 0..3 {
        for j in 0..3 {
            let e = if i == j { 1.0 } else { 0.0 };
            if (dot(cols[i], cols[j]) - e).abs() > tol {
                return false;
            }
        }
    }
    // det = c0 · (c1 × c2) = +1.
    (dot(cols[0], cross(cols[1], cols[2])) - 1.0).abs() <= tol
}
