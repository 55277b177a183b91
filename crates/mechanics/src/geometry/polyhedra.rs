//! The shapes described by vertex lists ([`ConvexHull`], [`TriangleMesh`]) and the bridge to
//! `parry3d-f64`, whose contact-manifold queries (GJK/EPA with polygonal-feature clipping) give
//! the contacts of every pair that involves a cylinder, a convex hull or a triangle mesh.
//!
//! References: E. G. Gilbert, D. W. Johnson, S. S. Keerthi, "A fast procedure for computing the
//! distance between complex objects in three-dimensional space", IEEE J. Robotics and Automation
//! 4(2), 1988 (GJK); G. van den Bergen, *Collision Detection in Interactive 3D Environments*,
//! Morgan Kaufmann, 2004 (EPA, contact manifolds); the mass properties of a polyhedron by the
//! divergence theorem over its faces: B. Mirtich, "Fast and accurate computation of polyhedral
//! mass properties", J. Graphics Tools 1(2), 1996. Siconos offers the same shapes through its
//! Bullet back-end (`SiconosConvexHull`, `SiconosMesh`, `SiconosCylinder` in `SiconosShape.hpp`).

use super::V3;
use super::shapes::{Pose, Shape};
use crate::MechanicsError;
use nonsmooth_kernel::KernelError;
use parry3d_f64::math::{Pose as PPose, Rotation, Vector};
use parry3d_f64::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d_f64::shape::{
    Ball, Capsule, ConvexPolyhedron, Cuboid, Cylinder, HalfSpace, Shape as PShape, TriMesh, TriMeshFlags,
};
use std::fmt;
use std::sync::Arc;

fn invalid(name: &'static str, reason: &'static str) -> MechanicsError {
    MechanicsError::Kernel(KernelError::InvalidOption { name, reason })
}

fn finite_points(name: &'static str, points: &[[f64; 3]]) -> Result<(), MechanicsError> {
    if points.iter().flatten().any(|x| !x.is_finite()) {
        return Err(MechanicsError::Kernel(KernelError::NonFinite { what: name }));
    }
    Ok(())
}

#[inline]
fn vec(p: V3) -> Vector {
    Vector::new(p[0], p[1], p[2])
}

#[inline]
fn arr(v: Vector) -> V3 {
    [v.x, v.y, v.z]
}

/// The convex hull of a point set, a solid of uniform density.
///
/// Its body frame is the hull's principal frame: the origin is the centre of mass and the axes
/// are principal axes of inertia (the convention of every finite [`Shape`]). The points given to
/// [`Shape::convex_hull`] are in an *input frame*; [`ConvexHull::input_frame`] is the placement
/// of the input frame in the body frame, so a hull meant to sit at `P` in the input frame is
/// placed by the body pose `P ∘ input_frame⁻¹` (see [`ConvexHull::body_pose`]).
///
/// Mass properties (Mirtich 1996): with the hull split into tetrahedra `(c, f_i)` from an inner
/// point `c` over its triangulated faces, `V = Σ V_i`, centre `x_G = Σ V_i g_i / V`, and the
/// inertia tensor about `x_G` summed from the closed-form second moments of the tetrahedra; the
/// principal axes are the eigenvectors of that tensor.
#[derive(Clone)]
pub struct ConvexHull {
    poly: Arc<ConvexPolyhedron>,
    volume: f64,
    /// Principal moments of inertia for a unit density.
    unit_inertia: [f64; 3],
    input_frame: Pose,
}

impl fmt::Debug for ConvexHull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConvexHull")
            .field("vertices", &self.poly.points().len())
            .field("volume", &self.volume)
            .field("unit_inertia", &self.unit_inertia)
            .finish()
    }
}

impl PartialEq for ConvexHull {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.poly, &other.poly) || self.poly.points() == other.poly.points()
    }
}

impl ConvexHull {
    /// The hull of `points` (input frame), re-expressed in its principal frame. Errors:
    /// `NonFinite { what: "points" }`; `InvalidOption { name: "points" }` for fewer than four
    /// points or a flat (zero-volume) hull.
    pub(crate) fn new(points: &[[f64; 3]]) -> Result<Self, MechanicsError> {
        finite_points("points", points)?;
        if points.len() < 4 {
            return Err(invalid("points", "a convex hull needs at least four points"));
        }
        let input: Vec<Vector> = points.iter().map(|&p| vec(p)).collect();
        let flat = || invalid("points", "the convex hull is flat (zero volume)");
        let hull = ConvexPolyhedron::from_convex_hull(&input).ok_or_else(flat)?;
        let mp = hull.mass_properties(1.0);
        let volume = mp.mass();
        let size = input.iter().fold(0.0_f64, |m, p| m.max((*p - mp.local_com).length()));
        if !(volume.is_finite() && volume > 1e-12 * size.powi(3)) {
            return Err(flat());
        }
        // Keep the input axes when they are already principal (up to round-off): symmetric
        // solids then keep the orientation they were given.
        let r = mp.principal_inertia_local_frame;
        let ip = mp.principal_inertia();
        let axes = [r * Vector::X, r * Vector::Y, r * Vector::Z];
        let mut tensor = [[0.0; 3]; 3];
        for (i, row) in tensor.iter_mut().enumerate() {
            for (j, t) in row.iter_mut().enumerate() {
                *t = (0..3).map(|k| ip[k] * axes[k][i] * axes[k][j]).sum();
            }
        }
        let trace = tensor[0][0] + tensor[1][1] + tensor[2][2];
        let off = tensor[0][1].abs().max(tensor[0][2].abs()).max(tensor[1][2].abs());
        let (rotation, unit_inertia) = if off <= 1e-10 * trace {
            (Rotation::IDENTITY, [tensor[0][0], tensor[1][1], tensor[2][2]])
        } else {
            (r, [ip.x, ip.y, ip.z])
        };
        let inv = rotation.inverse();
        let body: Vec<Vector> = input.iter().map(|p| inv * (*p - mp.local_com)).collect();
        let poly = ConvexPolyhedron::from_convex_hull(&body).ok_or_else(flat)?;
        // x_input = rotation · x_body + com: the body frame placed in the input frame; its
        // inverse places the input frame in the body frame.
        let body_in_input = pose_from_parry(&PPose::from_parts(mp.local_com, rotation));
        let input_frame = Pose {
            position: body_in_input.inverse_transform_point([0.0; 3]),
            rotation: transpose(&body_in_input.rotation),
        };
        Ok(Self { poly: Arc::new(poly), volume, unit_inertia, input_frame })
    }

    /// The hull's vertices in the body frame (centre of mass at the origin, principal axes).
    #[must_use]
    pub fn vertices(&self) -> Vec<[f64; 3]> {
        self.poly.points().iter().map(|&p| arr(p)).collect()
    }

    /// The volume `V`.
    #[must_use]
    pub fn volume(&self) -> f64 {
        self.volume
    }

    /// The principal moments of inertia about the centre of mass for a unit density (multiply
    /// by the density `ρ` for the solid's inertia).
    #[must_use]
    pub fn unit_inertia(&self) -> [f64; 3] {
        self.unit_inertia
    }

    /// The placement of the input frame (the frame of the points given to
    /// [`Shape::convex_hull`]) in the body frame: `x_body = R x_input + t`.
    #[must_use]
    pub fn input_frame(&self) -> Pose {
        self.input_frame
    }

    /// The body pose that puts the input frame at `input_pose` in the world:
    /// `input_pose ∘ input_frame⁻¹`, i.e. `x_world = R_w (R_fᵀ (x_body − t_f)) + x_w`.
    #[must_use]
    pub fn body_pose(&self, input_pose: &Pose) -> Pose {
        let f = &self.input_frame;
        // input_frame⁻¹: x_input = R_fᵀ x_body − R_fᵀ t_f.
        let rot_t = transpose(&f.rotation);
        let position = input_pose.transform_point(super::mat_vec(&rot_t, super::neg(f.position)));
        let mut rotation = [[0.0; 3]; 3];
        for (i, row) in rotation.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x = (0..3).map(|k| input_pose.rotation[i][k] * rot_t[k][j]).sum();
            }
        }
        Pose { position, rotation }
    }

    pub(crate) fn parry(&self) -> &ConvexPolyhedron {
        &self.poly
    }
}

fn transpose(m: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    [[m[0][0], m[1][0], m[2][0]], [m[0][1], m[1][1], m[2][1]], [m[0][2], m[1][2], m[2][2]]]
}

/// A static triangle mesh (terrain, floors, containers): a surface, without volume or mass.
///
/// The triangles are one-sided: each is counter-clockwise seen from the side where bodies may
/// touch it (its normal `(v₁ − v₀) × (v₂ − v₀)` points outwards). Contacts against a body are
/// computed triangle by triangle; along an edge shared by two triangles the contact normal is
/// restricted to the cone of the two face normals (parry's "internal edge" correction), so a
/// body sliding over a flat mesh does not catch on the diagonals.
#[derive(Clone)]
pub struct TriangleMesh {
    mesh: Arc<TriMesh>,
}

impl fmt::Debug for TriangleMesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TriangleMesh")
            .field("vertices", &self.mesh.vertices().len())
            .field("triangles", &self.mesh.indices().len())
            .finish()
    }
}

impl PartialEq for TriangleMesh {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.mesh, &other.mesh)
            || (self.mesh.vertices() == other.mesh.vertices() && self.mesh.indices() == other.mesh.indices())
    }
}

impl TriangleMesh {
    /// The mesh of `vertices` and triangles `indices`. Errors: `NonFinite { what: "vertices" }`;
    /// `InvalidOption { name: "indices" }` for no triangle, an index out of range, a triangle
    /// repeating a vertex or of zero area.
    pub(crate) fn new(vertices: &[[f64; 3]], indices: &[[u32; 3]]) -> Result<Self, MechanicsError> {
        finite_points("vertices", vertices)?;
        if indices.is_empty() {
            return Err(invalid("indices", "a triangle mesh needs at least one triangle"));
        }
        let n = vertices.len();
        for t in indices {
            if t.iter().any(|&k| k as usize >= n) {
                return Err(invalid("indices", "a vertex index is out of range"));
            }
            if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
                return Err(invalid("indices", "a triangle repeats a vertex"));
            }
            let [a, b, c] = t.map(|k| vec(vertices[k as usize]));
            let scale = (b - a).length().max((c - a).length());
            if (b - a).cross(c - a).length() <= 1e-14 * scale * scale {
                return Err(invalid("indices", "a triangle has zero area"));
            }
        }
        let mesh = TriMesh::with_flags(
            vertices.iter().map(|&p| vec(p)).collect(),
            indices.to_vec(),
            TriMeshFlags::FIX_INTERNAL_EDGES,
        )
        .map_err(|_| invalid("indices", "the triangles do not form a valid mesh"))?;
        Ok(Self { mesh: Arc::new(mesh) })
    }

    /// The vertices (body frame).
    #[must_use]
    pub fn vertices(&self) -> Vec<[f64; 3]> {
        self.mesh.vertices().iter().map(|&p| arr(p)).collect()
    }

    /// The triangles (indices into [`TriangleMesh::vertices`]).
    #[must_use]
    pub fn indices(&self) -> &[[u32; 3]] {
        self.mesh.indices()
    }

    pub(crate) fn parry(&self) -> &TriMesh {
        &self.mesh
    }
}

/// Our pose as parry's (unit quaternion + translation).
pub(crate) fn pose_to_parry(p: &Pose) -> PPose {
    let r = &p.rotation;
    let m = parry3d_f64::math::Mat3::from_cols(
        vec([r[0][0], r[1][0], r[2][0]]),
        vec([r[0][1], r[1][1], r[2][1]]),
        vec([r[0][2], r[1][2], r[2][2]]),
    );
    PPose::from_parts(vec(p.position), Rotation::from_mat3(&m).normalize())
}

/// Parry's pose as ours.
pub(crate) fn pose_from_parry(p: &PPose) -> Pose {
    let cols = [p.rotation * Vector::X, p.rotation * Vector::Y, p.rotation * Vector::Z];
    let mut rotation = [[0.0; 3]; 3];
    for (i, row) in rotation.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = cols[j][i];
        }
    }
    Pose { position: arr(p.translation), rotation }
}

/// One of our shapes as a parry shape, with the placement of parry's shape frame in our body
/// frame (parry's cylinder axis is its local `y`; ours is `z`).
enum Bridged<'a> {
    Ball(Ball),
    Cuboid(Cuboid),
    Capsule(Capsule),
    Cylinder(Cylinder),
    HalfSpace(HalfSpace),
    Convex(&'a ConvexPolyhedron),
    Mesh(&'a TriMesh),
}

impl Bridged<'_> {
    fn of(s: &Shape) -> Bridged<'_> {
        match s {
            Shape::Sphere { radius } => Bridged::Ball(Ball::new(*radius)),
            Shape::Box { half_extents } => Bridged::Cuboid(Cuboid::new(vec(*half_extents))),
            Shape::Capsule { radius, half_length } => Bridged::Capsule(Capsule::new_z(*half_length, *radius)),
            Shape::Cylinder { radius, half_height } => Bridged::Cylinder(Cylinder::new(*half_height, *radius)),
            Shape::HalfSpace => Bridged::HalfSpace(HalfSpace::new(Vector::Z)),
            Shape::ConvexHull(h) => Bridged::Convex(h.parry()),
            Shape::TriangleMesh(m) => Bridged::Mesh(m.parry()),
        }
    }

    fn shape(&self) -> &dyn PShape {
        match self {
            Bridged::Ball(s) => s,
            Bridged::Cuboid(s) => s,
            Bridged::Capsule(s) => s,
            Bridged::Cylinder(s) => s,
            Bridged::HalfSpace(s) => s,
            Bridged::Convex(s) => *s,
            Bridged::Mesh(s) => *s,
        }
    }

    /// Parry's shape frame in the world for our body pose `p`.
    fn placed(&self, p: &Pose) -> PPose {
        let pose = pose_to_parry(p);
        match self {
            // Rotating by +90° about x maps parry's axis y onto our axis z.
            Bridged::Cylinder(_) => pose * PPose::from_rotation(Rotation::from_rotation_x(std::f64::consts::FRAC_PI_2)),
            _ => pose,
        }
    }
}

/// Appends the contacts of `a` at `pa` and `b` at `pb` with signed distance `≤ margin`, from
/// parry's contact manifolds (several points where faces touch: the clipped overlap of the two
/// supporting polygonal features; one point otherwise). Every point is re-expressed in the world,
/// the normal `n` is A's manifold normal, and the distance is recomputed as
/// `(point_b − point_a)·n`.
pub(crate) fn collide_parry(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    margin: f64,
    out: &mut Vec<super::ContactPoint>,
) -> Result<(), MechanicsError> {
    let (ga, gb) = (Bridged::of(a), Bridged::of(b));
    let (pos_a, pos_b) = (ga.placed(pa), gb.placed(pb));
    let pos12 = pos_a.inv_mul(&pos_b);
    let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
    let mut workspace = None;
    DefaultQueryDispatcher
        .contact_manifolds(&pos12, ga.shape(), gb.shape(), margin.max(0.0), &mut manifolds, &mut workspace)
        .map_err(|_| MechanicsError::UnsupportedShapePair { a: a.kind_name(), b: b.kind_name() })?;
    for m in &manifolds {
        let sub1 = m.subshape_pos1().copied().unwrap_or(PPose::IDENTITY);
        let sub2 = m.subshape_pos2().copied().unwrap_or(PPose::IDENTITY);
        let (w1, w2) = (pos_a * sub1, pos_b * sub2);
        let n = (w1.rotation * m.local_n1).normalize_or_zero();
        if n.length_squared() == 0.0 {
            continue;
        }
        for c in &m.points {
            let p1 = w1.transform_point(c.local_p1);
            let p2 = w2.transform_point(c.local_p2);
            let distance = (p2 - p1).dot(n);
            if distance <= margin {
                out.push(super::ContactPoint { point_a: arr(p1), point_b: arr(p2), normal: arr(n), distance });
            }
        }
    }
    Ok(())
}

/// The surface of a cylinder, convex hull or mesh as triangles in the body frame (`None` for
/// the other shapes); the cylinder's caps and side with `segments` facets around.
pub(crate) fn surface(shape: &Shape, segments: u32) -> Option<(Vec<V3>, Vec<[u32; 3]>)> {
    match shape {
        Shape::Cylinder { radius, half_height } => {
            let (v, t) = Cylinder::new(*half_height, *radius).to_trimesh(segments.max(3));
            let q = Rotation::from_rotation_x(std::f64::consts::FRAC_PI_2);
            Some((v.into_iter().map(|p| arr(q * p)).collect(), t))
        }
        Shape::ConvexHull(h) => {
            let (v, t) = h.parry().to_trimesh();
            Some((v.into_iter().map(arr).collect(), t))
        }
        Shape::TriangleMesh(m) => Some((m.vertices(), m.indices().to_vec())),
        _ => None,
    }
}
