//! Contact detection: shapes, narrow phase and broad phase.
//!
//! * [`shapes`]: the rigid [`Pose`] (body → world), the [`Shape`] enum (sphere, half-space, box,
//!   capsule, cylinder, convex hull, static triangle mesh), axis-aligned bounding boxes ([`Aabb`]) and mass properties of solids of uniform
//!   density ([`MassProperties`]).
//! * [`polyhedra`]: the shapes given by vertices ([`ConvexHull`], [`TriangleMesh`]) and the
//!   bridge to `parry3d-f64`'s contact manifolds, used for every pair that involves a cylinder,
//!   a convex hull or a mesh.
//! * [`narrow`]: [`collide`], the analytic contact points of a pair of posed shapes
//!   ([`ContactPoint`]: a point on each surface, the unit normal from A to B and the signed
//!   distance, negative when the shapes overlap).
//! * [`broad`]: [`BroadPhase`], a uniform grid (plus a list of oversized shapes) that returns the
//!   candidate pairs whose inflated bounding boxes overlap, in sorted order, without allocating
//!   once warmed up.
//!
//! Conventions: vectors are `[f64; 3]`; matrices are `[[f64; 3]; 3]`, row-major (`m[i][j]` is
//! row `i`, column `j`); a rotation's columns are the body axes expressed in the world frame. The
//! pairs of spheres, boxes, capsules and half-spaces are written here (a closed form or a finite
//! feature enumeration, see [`narrow`]); the other shapes go through `parry3d-f64`.

pub mod broad;
pub mod narrow;
pub mod polyhedra;
pub mod shapes;

pub use broad::BroadPhase;
pub use narrow::{ContactPoint, check_pair, collide};
pub use polyhedra::{ConvexHull, TriangleMesh};
pub use shapes::{Aabb, MassProperties, Pose, Shape};

// Vector helpers: those of the toolkit, and a few only the geometry needs.

/// A 3-vector.
type V3 = crate::lie::Vec3;
/// A row-major 3×3 matrix.
type M3 = crate::lie::Mat3;

use crate::lie::{add, cross, dot, mat_vec, norm, scale, sub};

/// `a + s b`.
#[inline]
fn axpy(a: V3, s: f64, b: V3) -> V3 {
    [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]]
}

#[inline]
fn neg(a: V3) -> V3 {
    [-a[0], -a[1], -a[2]]
}

/// `mᵀ v`.
#[inline]
fn mat_t_vec(m: &M3, v: V3) -> V3 {
    [
        m[0][0] * v[0] + m[1][0] * v[1] + m[2][0] * v[2],
        m[0][1] * v[0] + m[1][1] * v[1] + m[2][1] * v[2],
        m[0][2] * v[0] + m[1][2] * v[1] + m[2][2] * v[2],
    ]
}

/// Column `j` of `m` (the body axis `j` in the world frame for a rotation).
#[inline]
fn column(m: &M3, j: usize) -> V3 {
    [m[0][j], m[1][j], m[2][j]]
}

/// A unit vector orthogonal to the unit vector `n` (deterministic choice).
fn any_orthogonal(n: V3) -> V3 {
    // Cross with the world axis least aligned with n.
    let (ax, ay, az) = (n[0].abs(), n[1].abs(), n[2].abs());
    let e = if ax <= ay && ax <= az {
        [1.0, 0.0, 0.0]
    } else if ay <= az {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    let c = cross(n, e);
    scale(1.0 / norm(c), c)
}
