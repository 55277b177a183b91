//! Narrow phase: the contact points of two posed shapes.
//!
//! Every pair among sphere (S), half-space (H), box (B) and capsule (C) is handled in closed
//! form, in both orders. Every pair that involves a cylinder (Y), a convex hull (X) or a triangle
//! mesh (M) goes through `parry3d-f64`'s contact manifolds
//! ([`polyhedra`](super::polyhedra)). The pairs of two static-only shapes (H–H, H–M, M–M) are
//! not detected: [`collide`] returns [`MechanicsError::UnsupportedShapePair`] for them (a scene
//! never pairs two static shapes). A pair given in the "wrong" order is computed in the
//! canonical order S < C < B < Y < X < M < H and flipped (normal negated, points swapped), and a
//! pair of two shapes of the same kind is computed in a canonical order of (shape parameters,
//! pose) so that `collide(b, a)` is exactly the flip of `collide(a, b)`.
//!
//! Why the analytic paths stay: on the same configurations they are several times faster than
//! the general GJK/EPA manifold (no iteration, no allocation), and the pairs of spheres, boxes,
//! capsules and half-spaces make up the granular scenes.
//!
//! Algorithms of the analytic pairs (none needs an iterative solver):
//! * S–S: centres `c_a, c_b`; `n = (c_b − c_a)/|c_b − c_a|`, `d = |c_b − c_a| − r_a − r_b`.
//! * S–H: height `h = (c − x_H)·n_H` of the centre over the plane (`n_H` = the half-space's
//!   body `+z`); `d = h − r`, normal `−n_H` (from the sphere into the half-space).
//! * S–B: centre in box coordinates; outside: closest point `clamp(p, −h, h)`; inside: the face
//!   of least depth `h_i − |p_i|` (normal `−sign(p_i) e_i`, distance `−(h_i − |p_i|) − r`).
//! * S–C: closest point of the capsule segment to the centre, then S–S with both radii.
//! * C–C: closest points of two segments (clamped parametric minimization); when the axes are
//!   parallel to `sin θ < 1e-3` and their projections overlap, two points: the ends of the
//!   overlap on A's axis and their closest points on B's axis (a capsule lying on a capsule).
//! * C–H: each end sphere of the capsule against the plane (1 or 2 points).
//! * C–B (in box coordinates): if the segment misses the box, the closest pair among
//!   {each end point vs the box (clamp), the segment vs each of the 12 box edges} (exact: the
//!   minimum distance of two polytopes is reached at such a feature pair). If it hits the box,
//!   the separating-axis test on the 6 axes `e_i` and `u × e_i` (the face normals of the
//!   Minkowski difference of a segment and a box) gives the exact penetration depth and its
//!   direction. When the normal is a box face normal and the capsule axis is within
//!   `|u·n| ≤ 0.1` of that face's plane, the segment is clipped to the face's rectangle and both
//!   ends of the clipped part are returned (a capsule lying on a box: 2 points).
//! * B–H: every corner `v` with height `(v − x_H)·n_H ≤ margin` (up to 8 points).
//! * B–B: separating-axis test on the 15 axes (3 + 3 face normals, 9 edge cross products); if one
//!   separates by more than `margin` there is no contact. Otherwise the axis of largest
//!   separation (least penetration) is chosen, face axes preferred (an edge axis must beat the
//!   best face axis by `1e-4 · max half extent`, and a face of B must beat a face of A by
//!   `1e-6 · max half extent`). Face axis: the incident face (of the other box, most
//!   anti-parallel to the reference normal) is clipped (Sutherland–Hodgman) against the four side
//!   planes of the reference face; each clipped vertex below `margin` is a contact, with its
//!   projection on the reference face as the other point (≤ 8 points, reduced to 4: the
//!   deepest, the one farthest from it, then the two of largest signed area on each side of
//!   that chord). Edge axis: closest points of the two supporting edges (1 point).
//!
//! The normal always points from A to B, and `distance = (point_b − point_a)·normal` exactly
//! as computed. The known limit: for boxes separated by less than `margin` along a diagonal,
//! where no face of one box projects onto the other, the face clipping may return no point
//! although the distance is within the margin (the separating-axis value is a lower bound of
//! the distance).

use super::shapes::{Pose, Shape};
use super::{V3, add, any_orthogonal, axpy, cross, dot, neg, norm, scale, sub};
use crate::MechanicsError;
use std::cmp::Ordering;

/// One contact point between shape A and shape B (world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// The point on the surface of A.
    pub point_a: [f64; 3],
    /// The point on the surface of B.
    pub point_b: [f64; 3],
    /// Unit normal pointing from A to B.
    pub normal: [f64; 3],
    /// Signed distance `(point_b − point_a)·normal`: positive = gap, negative = penetration.
    pub distance: f64,
}

impl ContactPoint {
    /// The same contact seen from B: points swapped, normal negated, same distance.
    #[must_use]
    pub fn flipped(&self) -> Self {
        Self { point_a: self.point_b, point_b: self.point_a, normal: neg(self.normal), distance: self.distance }
    }
}

/// Appends to `out` the contact points of shape `a` at `pose_a` and shape `b` at `pose_b` whose
/// signed distance is `≤ margin` (see [`ContactPoint`]; the algorithms are listed in the module
/// documentation), and returns how many were appended. `margin` may be negative (only
/// penetrations deeper than `−margin`).
///
/// # Errors
/// [`MechanicsError::UnsupportedShapePair`] for two static-only shapes ([`check_pair`]) or a
/// pair the geometry back-end rejects; nothing is appended then.
pub fn collide(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> Result<usize, MechanicsError> {
    check_pair(a, b)?;
    let start = out.len();
    let (ra, rb) = (rank(a), rank(b));
    let swap = match ra.cmp(&rb) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => canonical_key(b, pose_b) < canonical_key(a, pose_a),
    };
    let result = if swap {
        let r = collide_ordered(b, pose_b, a, pose_a, margin, out);
        for c in &mut out[start..] {
            *c = c.flipped();
        }
        r
    } else {
        collide_ordered(a, pose_a, b, pose_b, margin, out)
    };
    if let Err(e) = result {
        out.truncate(start);
        return Err(e);
    }
    Ok(out.len() - start)
}

/// Whether [`collide`] detects contacts between shapes of the kinds of `a` and `b`: every pair
/// except two static-only shapes ([`Shape::is_static_only`]: half-spaces and triangle meshes),
/// which cannot meet in a scene (both fixed) and have no finite contact set to report (two
/// half-spaces, or a mesh and a half-space, overlap along unbounded or whole regions).
///
/// # Errors
/// [`MechanicsError::UnsupportedShapePair`] naming both kinds.
pub fn check_pair(a: &Shape, b: &Shape) -> Result<(), MechanicsError> {
    if a.is_static_only() && b.is_static_only() {
        return Err(MechanicsError::UnsupportedShapePair { a: a.kind_name(), b: b.kind_name() });
    }
    Ok(())
}

/// Canonical order of kinds: sphere < capsule < box < cylinder < convex hull < mesh <
/// half-space.
fn rank(s: &Shape) -> u8 {
    match s {
        Shape::Sphere { .. } => 0,
        Shape::Capsule { .. } => 1,
        Shape::Box { .. } => 2,
        Shape::Cylinder { .. } => 3,
        Shape::ConvexHull(_) => 4,
        Shape::TriangleMesh(_) => 5,
        Shape::HalfSpace => 6,
    }
}

/// A total order on (shape parameters, pose) used to order two shapes of the same kind.
#[derive(PartialEq)]
struct Key([f64; 15]);

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        for (x, y) in self.0.iter().zip(other.0.iter()) {
            match x.total_cmp(y) {
                Ordering::Equal => {}
                o => return Some(o),
            }
        }
        Some(Ordering::Equal)
    }
}

fn canonical_key(s: &Shape, p: &Pose) -> Key {
    let mut k = [0.0; 15];
    match s {
        Shape::Sphere { radius } => k[0] = *radius,
        Shape::HalfSpace => {}
        Shape::Cylinder { radius, half_height } => {
            k[0] = *radius;
            k[1] = *half_height;
        }
        Shape::ConvexHull(h) => {
            k[0] = h.volume();
            k[1..3].copy_from_slice(&h.unit_inertia()[..2]);
        }
        Shape::TriangleMesh(m) => {
            let v = m.parry().vertices();
            k[0] = v.len() as f64;
            k[1] = v[0].x;
            k[2] = v[0].y;
        }
        Shape::Box { half_extents } => k[..3].copy_from_slice(half_extents),
        Shape::Capsule { radius, half_length } => {
            k[0] = *radius;
            k[1] = *half_length;
        }
    }
    k[3..6].copy_from_slice(&p.position);
    for i in 0..3 {
        k[6 + 3 * i..9 + 3 * i].copy_from_slice(&p.rotation[i]);
    }
    Key(k)
}

/// Dispatch for `rank(a) ≤ rank(b)`.
fn collide_ordered(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> Result<(), MechanicsError> {
    match (a, b) {
        (&Shape::Sphere { radius: r1 }, &Shape::Sphere { radius: r2 }) => {
            sphere_sphere(pa.position, r1, pb.position, r2, [0.0, 0.0, 1.0], margin, out);
        }
        (&Shape::Sphere { radius }, &Shape::Capsule { radius: rc, half_length }) => {
            let u = pb.axis(2);
            let q = closest_on_axis(pb.position, u, half_length, pa.position);
            sphere_sphere(pa.position, radius, q, rc, any_orthogonal(u), margin, out);
        }
        (&Shape::Sphere { radius }, &Shape::Box { half_extents }) => {
            sphere_box(pa.position, radius, pb, half_extents, margin, out);
        }
        (&Shape::Sphere { radius }, &Shape::HalfSpace) => {
            sphere_half_space(pa.position, radius, pb, margin, out);
        }
        (&Shape::Capsule { radius: r1, half_length: l1 }, &Shape::Capsule { radius: r2, half_length: l2 }) => {
            capsule_capsule(pa, r1, l1, pb, r2, l2, margin, out);
        }
        (&Shape::Capsule { radius, half_length }, &Shape::Box { half_extents }) => {
            capsule_box(pa, radius, half_length, pb, half_extents, margin, out);
        }
        (&Shape::Capsule { radius, half_length }, &Shape::HalfSpace) => {
            let u = pa.axis(2);
            for s in [-1.0, 1.0] {
                sphere_half_space(axpy(pa.position, s * half_length, u), radius, pb, margin, out);
            }
        }
        (&Shape::Box { half_extents: h1 }, &Shape::Box { half_extents: h2 }) => {
            box_box(pa, h1, pb, h2, margin, out);
        }
        (&Shape::Box { half_extents: h }, &Shape::HalfSpace) => {
            let n = pb.axis(2);
            for corner in 0..8 {
                let local = [
                    if corner & 1 == 0 { -h[0] } else { h[0] },
                    if corner & 2 == 0 { -h[1] } else { h[1] },
                    if corner & 4 == 0 { -h[2] } else { h[2] },
                ];
                let v = pa.transform_point(local);
                let height = dot(sub(v, pb.position), n);
                push(out, margin, v, axpy(v, -height, n), neg(n), height);
            }
        }
        // Every pair with a cylinder, a convex hull or a mesh (two static-only shapes are
        // rejected by `check_pair` before).
        (Shape::Cylinder { .. } | Shape::ConvexHull(_) | Shape::TriangleMesh(_), _)
        | (_, Shape::Cylinder { .. } | Shape::ConvexHull(_) | Shape::TriangleMesh(_)) => {
            return super::polyhedra::collide_parry(a, pa, b, pb, margin, out);
        }
        // H–H (rejected by `check_pair`) and the orders excluded by rank(a) ≤ rank(b).
        _ => return Err(MechanicsError::UnsupportedShapePair { a: a.kind_name(), b: b.kind_name() }),
    }
    Ok(())
}

/// Pushes a contact if `distance ≤ margin`.
fn push(out: &mut Vec<ContactPoint>, margin: f64, point_a: V3, point_b: V3, normal: V3, distance: f64) {
    if distance <= margin {
        out.push(ContactPoint { point_a, point_b, normal, distance });
    }
}

/// Two balls; `fallback` is the normal used when the centres (nearly) coincide.
fn sphere_sphere(ca: V3, ra: f64, cb: V3, rb: f64, fallback: V3, margin: f64, out: &mut Vec<ContactPoint>) {
    let d = sub(cb, ca);
    let len = norm(d);
    let n = if len > 1e-14 * (ra + rb) { scale(1.0 / len, d) } else { fallback };
    let distance = dot(d, n) - ra - rb;
    push(out, margin, axpy(ca, ra, n), axpy(cb, -rb, n), n, distance);
}

/// Ball (A) against half-space (B).
fn sphere_half_space(c: V3, r: f64, ph: &Pose, margin: f64, out: &mut Vec<ContactPoint>) {
    let n = ph.axis(2);
    let h = dot(sub(c, ph.position), n);
    push(out, margin, axpy(c, -r, n), axpy(c, -h, n), neg(n), h - r);
}

/// The point of the segment `x + t u`, `|t| ≤ half_length`, closest to `p`.
fn closest_on_axis(x: V3, u: V3, half_length: f64, p: V3) -> V3 {
    let t = dot(sub(p, x), u).clamp(-half_length, half_length);
    axpy(x, t, u)
}

/// `clamp(p, −h, h)` componentwise.
fn clamp_box(p: V3, h: V3) -> V3 {
    [p[0].clamp(-h[0], h[0]), p[1].clamp(-h[1], h[1]), p[2].clamp(-h[2], h[2])]
}

/// Ball (A) against box (B).
fn sphere_box(c: V3, r: f64, pb: &Pose, h: V3, margin: f64, out: &mut Vec<ContactPoint>) {
    let p = pb.inverse_transform_point(c);
    let q = clamp_box(p, h);
    let d = sub(q, p);
    let len = norm(d);
    let (q, n_local) = if len > 0.0 {
        (q, scale(1.0 / len, d))
    } else {
        // Centre inside: leave through the face of least depth.
        let mut k = 0;
        for i in 1..3 {
            if h[i] - p[i].abs() < h[k] - p[k].abs() {
                k = i;
            }
        }
        let s = if p[k] < 0.0 { -1.0 } else { 1.0 };
        let mut q = p;
        q[k] = s * h[k];
        let mut n = [0.0; 3];
        n[k] = -s;
        (q, n)
    };
    let n = pb.transform_vector(n_local);
    let distance = dot(sub(q, p), n_local) - r;
    push(out, margin, axpy(c, r, n), pb.transform_point(q), n, distance);
}

/// Closest points `(p, q)` of the segments `[p0, p1]` and `[q0, q1]`: minimizes
/// `|p0 + s (p1 − p0) − q0 − t (q1 − q0)|²` over `s, t ∈ [0, 1]` (solve the 2×2 normal
/// equations, clamp `s`, recompute `t`, clamp `t` and recompute `s`).
fn closest_segments(p0: V3, p1: V3, q0: V3, q1: V3) -> (V3, V3) {
    let d1 = sub(p1, p0);
    let d2 = sub(q1, q0);
    let r = sub(p0, q0);
    let a = dot(d1, d1);
    let e = dot(d2, d2);
    let f = dot(d2, r);
    let tiny = 1e-300;
    let (s, t) = if a <= tiny && e <= tiny {
        (0.0, 0.0)
    } else if a <= tiny {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = dot(d1, r);
        if e <= tiny {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            let mut s = if denom > 1e-14 * a * e { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (axpy(p0, s, d1), axpy(q0, t, d2))
}

/// Below this `sin θ` two capsule axes are treated as parallel (two contact points).
const PARALLEL_SIN: f64 = 1e-3;

#[allow(clippy::too_many_arguments)]
fn capsule_capsule(pa: &Pose, ra: f64, la: f64, pb: &Pose, rb: f64, lb: f64, margin: f64, out: &mut Vec<ContactPoint>) {
    let (ca, cb) = (pa.position, pb.position);
    let (ua, ub) = (pa.axis(2), pb.axis(2));
    let c = cross(ua, ub);
    let sin = norm(c);
    if sin < PARALLEL_SIN {
        let t0 = dot(sub(axpy(cb, -lb, ub), ca), ua);
        let t1 = dot(sub(axpy(cb, lb, ub), ca), ua);
        let lo = t0.min(t1).max(-la);
        let hi = t0.max(t1).min(la);
        if hi - lo > 1e-9 * (la + lb) {
            let fallback = any_orthogonal(ua);
            for t in [lo, hi] {
                let p = axpy(ca, t, ua);
                let q = closest_on_axis(cb, ub, lb, p);
                sphere_sphere(p, ra, q, rb, fallback, margin, out);
            }
            return;
        }
    }
    let (p, q) = closest_segments(axpy(ca, -la, ua), axpy(ca, la, ua), axpy(cb, -lb, ub), axpy(cb, lb, ub));
    let fallback = if sin > 1e-12 {
        let n = scale(1.0 / sin, c);
        if dot(n, sub(cb, ca)) < 0.0 { neg(n) } else { n }
    } else {
        any_orthogonal(ua)
    };
    sphere_sphere(p, ra, q, rb, fallback, margin, out);
}

/// Whether the closed segment `[p0, p1]` meets the box `|x_i| ≤ h_i` (slab clipping).
fn segment_hits_box(p0: V3, p1: V3, h: V3) -> bool {
    let d = sub(p1, p0);
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for i in 0..3 {
        if d[i].abs() < 1e-300 {
            if p0[i].abs() > h[i] {
                return false;
            }
        } else {
            let a = (-h[i] - p0[i]) / d[i];
            let b = (h[i] - p0[i]) / d[i];
            lo = lo.max(a.min(b));
            hi = hi.min(a.max(b));
            if lo > hi {
                return false;
            }
        }
    }
    true
}

/// Capsule (A) against box (B); see the module documentation.
fn capsule_box(pc: &Pose, r: f64, hl: f64, pb: &Pose, h: V3, margin: f64, out: &mut Vec<ContactPoint>) {
    let c = pb.inverse_transform_point(pc.position);
    let u = pb.inverse_transform_vector(pc.axis(2));
    let p0 = axpy(c, -hl, u);
    let p1 = axpy(c, hl, u);
    let size = h[0].max(h[1]).max(h[2]).max(hl);
    // Primary contact (box coordinates): segment point, box point, normal capsule → box.
    let mut primary = None;
    if !segment_hits_box(p0, p1, h) {
        let mut best = (f64::INFINITY, p0, p0);
        for p in [p0, p1] {
            let q = clamp_box(p, h);
            let d2 = dot(sub(q, p), sub(q, p));
            if d2 < best.0 {
                best = (d2, p, q);
            }
        }
        for i in 0..3 {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            for (sj, sk) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
                let mut e0 = [0.0; 3];
                e0[j] = sj * h[j];
                e0[k] = sk * h[k];
                let mut e1 = e0;
                e0[i] = -h[i];
                e1[i] = h[i];
                let (p, q) = closest_segments(p0, p1, e0, e1);
                let d2 = dot(sub(q, p), sub(q, p));
                if d2 < best.0 {
                    best = (d2, p, q);
                }
            }
        }
        let len = best.0.sqrt();
        if len > 1e-14 * size {
            primary = Some((best.1, best.2, scale(1.0 / len, sub(best.2, best.1))));
        }
    }
    let (ps, pbox, n) = match primary {
        Some(x) => x,
        None => capsule_box_penetrating(p0, p1, u, h, size),
    };
    // Manifold: normal along a box face and the axis nearly in that face's plane.
    if let Some(k) = (0..3).find(|&k| n[k].abs() > 1.0 - 1e-12)
        && dot(u, n).abs() <= 0.1
    {
        let face = -n[k].signum() * h[k];
        let (mut lo, mut hi) = (-hl, hl);
        for i in (0..3).filter(|&i| i != k) {
            if u[i].abs() < 1e-300 {
                if c[i].abs() > h[i] {
                    lo = f64::INFINITY;
                }
            } else {
                let a = (-h[i] - c[i]) / u[i];
                let b = (h[i] - c[i]) / u[i];
                lo = lo.max(a.min(b));
                hi = hi.min(a.max(b));
            }
        }
        if hi - lo > 1e-9 * size {
            let nw = pb.transform_vector(n);
            for t in [lo, hi] {
                let s = axpy(c, t, u);
                let mut q = s;
                q[k] = face;
                let distance = dot(sub(q, s), n) - r;
                push(out, margin, add(pb.transform_point(s), scale(r, nw)), pb.transform_point(q), nw, distance);
            }
            return;
        }
    }
    let nw = pb.transform_vector(n);
    let distance = dot(sub(pbox, ps), n) - r;
    push(out, margin, add(pb.transform_point(ps), scale(r, nw)), pb.transform_point(pbox), nw, distance);
}

/// Segment `[p0, p1]` (direction `u`) meeting the box `|x_i| ≤ h_i`: separating-axis test on
/// `e_i` and `u × e_i`; returns (segment point, box point, normal from the segment to the box).
fn capsule_box_penetrating(p0: V3, p1: V3, u: V3, h: V3, size: f64) -> (V3, V3, V3) {
    // (depth, axis index: 0..3 faces, 3..6 crosses, normal)
    let mut best_face = (f64::INFINITY, 0usize, [0.0; 3]);
    let mut best_edge = (f64::INFINITY, 0usize, [0.0; 3]);
    for i in 0..6 {
        let mut a = [0.0; 3];
        if i < 3 {
            a[i] = 1.0;
        } else {
            let mut e = [0.0; 3];
            e[i - 3] = 1.0;
            let c = cross(u, e);
            let l = norm(c);
            if l < 1e-9 {
                continue;
            }
            a = scale(1.0 / l, c);
        }
        let rb = h[0] * a[0].abs() + h[1] * a[1].abs() + h[2] * a[2].abs();
        let (s0, s1) = (dot(p0, a).min(dot(p1, a)), dot(p0, a).max(dot(p1, a)));
        let plus = rb - s0;
        let minus = s1 + rb;
        let (depth, n) = if plus <= minus { (plus, neg(a)) } else { (minus, a) };
        let slot = if i < 3 { &mut best_face } else { &mut best_edge };
        if depth < slot.0 {
            *slot = (depth, i, n);
        }
    }
    if best_edge.0 + 1e-9 * size < best_face.0 {
        let (_, i, n) = best_edge;
        let e_axis = i - 3;
        let mut e0 = [0.0; 3];
        for k in (0..3).filter(|&k| k != e_axis) {
            e0[k] = -n[k].signum() * h[k];
        }
        let mut e1 = e0;
        e0[e_axis] = -h[e_axis];
        e1[e_axis] = h[e_axis];
        let (ps, pe) = closest_segments(p0, p1, e0, e1);
        (ps, pe, n)
    } else {
        let (_, k, n) = best_face;
        let ps = if dot(p1, n) > dot(p0, n) { p1 } else { p0 };
        let mut q = ps;
        q[k] = -n[k].signum() * h[k];
        (ps, q, n)
    }
}

/// A candidate of the box–box face clipping: point on the reference box, on the incident box,
/// separation along the reference normal.
#[derive(Clone, Copy)]
struct Clipped {
    on_reference: V3,
    on_incident: V3,
    separation: f64,
}

/// Box (A) against box (B); see the module documentation.
#[allow(clippy::needless_range_loop)] // i, j index both boxes' axes and name the edge pair
fn box_box(pa: &Pose, ha: V3, pb: &Pose, hb: V3, margin: f64, out: &mut Vec<ContactPoint>) {
    let d = sub(pb.position, pa.position);
    let a_ax = [pa.axis(0), pa.axis(1), pa.axis(2)];
    let b_ax = [pb.axis(0), pb.axis(1), pb.axis(2)];
    let size = ha.iter().chain(hb.iter()).fold(0.0_f64, |m, &x| m.max(x));
    let radius = |l: V3, ax: &[V3; 3], h: V3| (0..3).map(|k| h[k] * dot(ax[k], l).abs()).sum::<f64>();
    let separation = |l: V3| dot(d, l).abs() - radius(l, &a_ax, ha) - radius(l, &b_ax, hb);

    let mut face_a = (f64::NEG_INFINITY, 0usize);
    let mut face_b = (f64::NEG_INFINITY, 0usize);
    let mut edge = (f64::NEG_INFINITY, 0usize, 0usize, [0.0; 3]);
    for i in 0..3 {
        let s = separation(a_ax[i]);
        if s > margin {
            return;
        }
        if s > face_a.0 {
            face_a = (s, i);
        }
    }
    for j in 0..3 {
        let s = separation(b_ax[j]);
        if s > margin {
            return;
        }
        if s > face_b.0 {
            face_b = (s, j);
        }
    }
    for i in 0..3 {
        for j in 0..3 {
            let c = cross(a_ax[i], b_ax[j]);
            let l = norm(c);
            if l < 1e-6 {
                continue;
            }
            let axis = scale(1.0 / l, c);
            let s = separation(axis);
            if s > margin {
                return;
            }
            if s > edge.0 {
                edge = (s, i, j, axis);
            }
        }
    }
    let use_b = face_b.0 > face_a.0 + 1e-6 * size;
    let best_face = if use_b { face_b.0 } else { face_a.0 };
    if edge.0 > best_face + 1e-4 * size {
        let (_, i, j, mut l) = edge;
        if dot(l, d) < 0.0 {
            l = neg(l);
        }
        let mut pa_edge = pa.position;
        for k in (0..3).filter(|&k| k != i) {
            pa_edge = axpy(pa_edge, dot(a_ax[k], l).signum() * ha[k], a_ax[k]);
        }
        let mut pb_edge = pb.position;
        for k in (0..3).filter(|&k| k != j) {
            pb_edge = axpy(pb_edge, -dot(b_ax[k], l).signum() * hb[k], b_ax[k]);
        }
        let (p, q) = closest_segments(
            axpy(pa_edge, -ha[i], a_ax[i]),
            axpy(pa_edge, ha[i], a_ax[i]),
            axpy(pb_edge, -hb[j], b_ax[j]),
            axpy(pb_edge, hb[j], b_ax[j]),
        );
        push(out, margin, p, q, l, dot(sub(q, p), l));
        return;
    }
    // Face contact: reference box R, incident box I.
    let (cr, r_ax, hr, k, ci, i_ax, hi) = if use_b {
        (pb.position, b_ax, hb, face_b.1, pa.position, a_ax, ha)
    } else {
        (pa.position, a_ax, ha, face_a.1, pb.position, b_ax, hb)
    };
    let mut n = r_ax[k];
    if dot(sub(ci, cr), n) < 0.0 {
        n = neg(n);
    }
    let mut j = 0;
    for m in 1..3 {
        if dot(i_ax[m], n).abs() > dot(i_ax[j], n).abs() {
            j = m;
        }
    }
    let s = if dot(i_ax[j], n) > 0.0 { -1.0 } else { 1.0 };
    let fc = axpy(ci, s * hi[j], i_ax[j]);
    let (u, v) = ((j + 1) % 3, (j + 2) % 3);
    let (eu, ev) = (scale(hi[u], i_ax[u]), scale(hi[v], i_ax[v]));
    let mut poly = Polygon::default();
    for (a, b) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
        poly.push(add(fc, add(scale(a, eu), scale(b, ev))));
    }
    for m in (0..3).filter(|&m| m != k) {
        let off = dot(cr, r_ax[m]);
        poly = poly.clip(r_ax[m], off + hr[m]);
        poly = poly.clip(neg(r_ax[m]), -off + hr[m]);
    }
    let mut cand = [Clipped { on_reference: [0.0; 3], on_incident: [0.0; 3], separation: 0.0 }; POLY_CAP];
    let mut count = 0;
    for p in &poly.points[..poly.len] {
        let sep = dot(sub(*p, cr), n) - hr[k];
        if sep <= margin {
            cand[count] = Clipped { on_reference: axpy(*p, -sep, n), on_incident: *p, separation: sep };
            count += 1;
        }
    }
    let selected = reduce_to_four(&cand[..count], n);
    for &idx in selected.iter().take_while(|&&i| i != usize::MAX) {
        let c = cand[idx];
        if use_b {
            // A is incident: normal from A to B is −n.
            push(out, margin, c.on_incident, c.on_reference, neg(n), c.separation);
        } else {
            push(out, margin, c.on_reference, c.on_incident, n, c.separation);
        }
    }
}

/// Capacity of the clipping buffers (a quadrilateral clipped by 4 planes has ≤ 8 vertices).
const POLY_CAP: usize = 16;

/// A small convex polygon on the stack.
#[derive(Clone, Copy)]
struct Polygon {
    points: [V3; POLY_CAP],
    len: usize,
}

impl Default for Polygon {
    fn default() -> Self {
        Self { points: [[0.0; 3]; POLY_CAP], len: 0 }
    }
}

impl Polygon {
    fn push(&mut self, p: V3) {
        if self.len < POLY_CAP {
            self.points[self.len] = p;
            self.len += 1;
        }
    }

    /// Sutherland–Hodgman: the part of the polygon with `x·n ≤ offset`.
    fn clip(&self, n: V3, offset: f64) -> Self {
        let mut out = Self::default();
        for i in 0..self.len {
            let a = self.points[i];
            let b = self.points[(i + 1) % self.len];
            let da = dot(a, n) - offset;
            let db = dot(b, n) - offset;
            if da <= 0.0 {
                out.push(a);
            }
            if (da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0) {
                out.push(axpy(a, da / (da - db), sub(b, a)));
            }
        }
        out
    }
}

/// Indices (into `cand`) of at most 4 points kept from the clipped candidates: all of them if
/// ≤ 4; else the deepest, the farthest from it, and the two with the largest signed areas
/// (`(p1 − p0) × (p − p0) · n`) on either side of that chord. Unused slots hold `usize::MAX`.
fn reduce_to_four(cand: &[Clipped], n: V3) -> [usize; 4] {
    let mut sel = [usize::MAX; 4];
    if cand.len() <= 4 {
        for (i, s) in sel.iter_mut().enumerate().take(cand.len()) {
            *s = i;
        }
        return sel;
    }
    let p = |i: usize| cand[i].on_incident;
    let i0 = (0..cand.len()).min_by(|&x, &y| cand[x].separation.total_cmp(&cand[y].separation)).unwrap_or(0);
    let dist2 = |i: usize, j: usize| {
        let d = sub(p(i), p(j));
        dot(d, d)
    };
    let i1 = (0..cand.len()).max_by(|&x, &y| dist2(x, i0).total_cmp(&dist2(y, i0))).unwrap_or(0);
    let area = |i: usize| dot(cross(sub(p(i1), p(i0)), sub(p(i), p(i0))), n);
    let i2 = (0..cand.len()).max_by(|&x, &y| area(x).total_cmp(&area(y))).unwrap_or(0);
    let mut i3 = (0..cand.len()).min_by(|&x, &y| area(x).total_cmp(&area(y))).unwrap_or(0);
    if area(i3) >= 0.0 || i3 == i2 {
        // Every point on one side: take the remaining point farthest from the three chosen.
        let far = |i: usize| dist2(i, i0).min(dist2(i, i1)).min(dist2(i, i2));
        i3 = (0..cand.len())
            .filter(|&i| i != i0 && i != i1 && i != i2)
            .max_by(|&x, &y| far(x).total_cmp(&far(y)))
            .unwrap_or(i0);
    }
    sel[0] = i0;
    let mut m = 1;
    for i in [i1, i2, i3] {
        if !sel[..m].contains(&i) {
            sel[m] = i;
            m += 1;
        }
    }
    sel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_segments_crossing_and_parallel() {
        let (p, q) = closest_segments([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, -1.0, 2.0], [0.5, 1.0, 2.0]);
        assert!(norm(sub(p, [0.5, 0.0, 0.0])) < 1e-15);
        assert!(norm(sub(q, [0.5, 0.0, 2.0])) < 1e-15);
        // Parallel overlapping: any pair at distance 1 along y.
        let (p, q) = closest_segments([0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 1.0, 0.0], [3.0, 1.0, 0.0]);
        assert!((norm(sub(q, p)) - 1.0).abs() < 1e-15);
        // Disjoint collinear: endpoint to endpoint.
        let (p, q) = closest_segments([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [3.0, 0.0, 0.0], [4.0, 0.0, 0.0]);
        assert!(norm(sub(p, [1.0, 0.0, 0.0])) < 1e-15 && norm(sub(q, [3.0, 0.0, 0.0])) < 1e-15);
    }

    #[test]
    fn polygon_clip_square_by_half_plane() {
        let mut sq = Polygon::default();
        for p in [[1.0, 1.0, 0.0], [-1.0, 1.0, 0.0], [-1.0, -1.0, 0.0], [1.0, -1.0, 0.0]] {
            sq.push(p);
        }
        let c = sq.clip([1.0, 0.0, 0.0], 0.5);
        assert_eq!(c.len, 4);
        assert!(c.points[..c.len].iter().all(|p| p[0] <= 0.5 + 1e-15));
        let c = c.clip([1.0, 1.0, 0.0], 0.0);
        // x + y ≤ 0 of [−1, 0.5] × [−1, 1]: corners (−1, 1), (−1, −1), (0.5, −1), (0.5, −0.5).
        assert_eq!(c.len, 4);
    }

    #[test]
    fn segment_box_hit_test() {
        let h = [1.0, 1.0, 1.0];
        assert!(segment_hits_box([-2.0, 0.0, 0.0], [2.0, 0.0, 0.0], h));
        assert!(!segment_hits_box([-2.0, 1.5, 0.0], [2.0, 1.5, 0.0], h));
        assert!(!segment_hits_box([2.0, 0.0, 0.0], [0.0, 2.5, 0.0], h));
        assert!(segment_hits_box([2.0, 0.0, 0.0], [0.0, 1.9, 0.0], h));
    }
}
