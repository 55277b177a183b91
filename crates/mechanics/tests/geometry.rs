//! Contact detection: analytic cases for every shape pair, symmetry, brute-force checks of the
//! narrow phase (support functions) and of the broad phase, mass properties.

use nonsmooth_kernel::KernelError;
use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::{Aabb, BroadPhase, ContactPoint, Pose, Shape, collide};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

type V = [f64; 3];

fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn norm(a: V) -> f64 {
    dot(a, a).sqrt()
}
fn close(a: V, b: V, tol: f64) -> bool {
    norm(sub(a, b)) <= tol
}

fn sphere(r: f64) -> Shape {
    Shape::sphere(r).expect("valid radius")
}
fn cuboid(h: V) -> Shape {
    Shape::cuboid(h).expect("valid half extents")
}
fn capsule(r: f64, l: f64) -> Shape {
    Shape::capsule(r, l).expect("valid capsule")
}
fn at(p: V) -> Pose {
    Pose::from_translation(p)
}

fn contacts(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, margin: f64) -> Vec<ContactPoint> {
    let mut out = Vec::new();
    if matches!((a, b), (Shape::HalfSpace, Shape::HalfSpace)) {
        // Two static-only shapes: a typed error, nothing appended.
        assert!(collide(a, pa, b, pb, margin, &mut out).is_err() && out.is_empty());
        return out;
    }
    let n = collide(a, pa, b, pb, margin, &mut out).expect("a supported pair");
    assert_eq!(n, out.len());
    // Invariants of every contact: unit normal, distance = (pb − pa)·n, ≤ margin.
    for c in &out {
        assert!((norm(c.normal) - 1.0).abs() < 1e-12, "normal {:?}", c.normal);
        assert!((dot(sub(c.point_b, c.point_a), c.normal) - c.distance).abs() < 1e-12, "{c:?}");
        assert!(c.distance <= margin);
    }
    out
}

fn one(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, margin: f64) -> ContactPoint {
    let c = contacts(a, pa, b, pb, margin);
    assert_eq!(c.len(), 1, "{c:?}");
    c[0]
}

#[test]
fn sphere_sphere_touching_penetrating_margin() {
    let (a, b) = (sphere(1.0), sphere(0.5));
    let c = one(&a, &at([0.0; 3]), &b, &at([0.0, 1.5, 0.0]), 0.0);
    assert!(c.distance.abs() < 1e-15 && close(c.normal, [0.0, 1.0, 0.0], 1e-15));
    assert!(close(c.point_a, [0.0, 1.0, 0.0], 1e-15) && close(c.point_b, [0.0, 1.0, 0.0], 1e-15));
    let c = one(&a, &at([0.0; 3]), &b, &at([0.0, 0.0, 1.2]), 0.0);
    assert!((c.distance + 0.3).abs() < 1e-15 && close(c.point_b, [0.0, 0.0, 0.7], 1e-15));
    // Gap 0.1: reported with margin 0.2, not with margin 0.05.
    assert!(contacts(&a, &at([0.0; 3]), &b, &at([1.6, 0.0, 0.0]), 0.05).is_empty());
    let c = one(&a, &at([0.0; 3]), &b, &at([1.6, 0.0, 0.0]), 0.2);
    assert!((c.distance - 0.1).abs() < 1e-15);
}

#[test]
fn sphere_half_space_ground_and_wall() {
    let s = sphere(0.5);
    let ground = Pose::identity();
    let c = one(&s, &at([1.0, 2.0, 0.4]), &Shape::half_space(), &ground, 0.0);
    assert!((c.distance + 0.1).abs() < 1e-15 && close(c.normal, [0.0, 0.0, -1.0], 1e-15));
    assert!(close(c.point_a, [1.0, 2.0, -0.1], 1e-15) && close(c.point_b, [1.0, 2.0, 0.0], 1e-15));
    // Wall at x = 3 with outward normal −x (rotate +z by −90° about y).
    let wall = Pose::from_axis_angle([3.0, 0.0, 0.0], [0.0, 1.0, 0.0], -FRAC_PI_2);
    assert!(close(wall.axis(2), [-1.0, 0.0, 0.0], 1e-15));
    // The wall's solid is x ≥ 3 (below its plane along −x); a sphere at x = 2.6 has gap −0.1.
    let c = one(&s, &at([2.6, 0.0, 1.0]), &Shape::half_space(), &wall, 0.0);
    assert!((c.distance + 0.1).abs() < 1e-15 && close(c.normal, [1.0, 0.0, 0.0], 1e-15));
    assert!(contacts(&s, &at([0.0, 0.0, 0.6]), &Shape::half_space(), &ground, 0.05).is_empty());
}

#[test]
fn sphere_box_face_edge_corner_inside_rotated() {
    let b = cuboid([1.0, 2.0, 3.0]);
    let id = Pose::identity();
    let s = sphere(0.5);
    // Face: centre at x = 1.4.
    let c = one(&s, &at([1.4, 0.3, -0.2]), &b, &id, 0.0);
    assert!((c.distance + 0.1).abs() < 1e-15 && close(c.normal, [-1.0, 0.0, 0.0], 1e-15));
    assert!(close(c.point_b, [1.0, 0.3, -0.2], 1e-15));
    // Edge (x = 1, y = 2): centre at (1.3, 2.4, 0): distance 0.5 − 0.5 = 0.
    let c = one(&s, &at([1.3, 2.4, 0.0]), &b, &id, 1e-12);
    assert!(c.distance.abs() < 1e-15 && close(c.normal, [-0.6, -0.8, 0.0], 1e-15));
    // Corner: centre at (1, 2, 3) + (0.2, 0.2, 0.2)·... → distance √0.12 − 0.5.
    let c = one(&s, &at([1.2, 2.2, 3.2]), &b, &id, 0.0);
    assert!((c.distance - (0.12_f64.sqrt() - 0.5)).abs() < 1e-15 && close(c.point_b, [1.0, 2.0, 3.0], 1e-15));
    // Inside, nearest face y = −2 (depth 0.3): distance −0.3 − 0.5, normal +y.
    let c = one(&s, &at([0.1, -1.7, 0.5]), &b, &id, 0.0);
    assert!((c.distance + 0.8).abs() < 1e-14 && close(c.normal, [0.0, 1.0, 0.0], 1e-15));
    assert!(close(c.point_b, [0.1, -2.0, 0.5], 1e-15));
    // Rotated box (45° about z, at (5, 0, 0)): the corner along +x sits at x = 5 + √2 (h = 1, 1, 1).
    let cube = cuboid([1.0; 3]);
    let pose = Pose::from_axis_angle([5.0, 0.0, 0.0], [0.0, 0.0, 1.0], FRAC_PI_4);
    let c = one(&s, &at([5.0 + 2f64.sqrt() + 0.5, 0.0, 0.3]), &cube, &pose, 1e-12);
    assert!(c.distance.abs() < 1e-14, "{c:?}");
    assert!(close(c.normal, [-1.0, 0.0, 0.0], 1e-14) && close(c.point_b, [5.0 + 2f64.sqrt(), 0.0, 0.3], 1e-14));
}

#[test]
fn sphere_capsule_side_and_cap() {
    let s = sphere(0.5);
    let cap = capsule(0.25, 1.0);
    // Capsule along x (rotate z → x by +90° about y), at origin.
    let pose = Pose::from_axis_angle([0.0; 3], [0.0, 1.0, 0.0], FRAC_PI_2);
    let c = one(&s, &at([0.3, 0.0, 0.7]), &cap, &pose, 0.0);
    assert!((c.distance + 0.05).abs() < 1e-14 && close(c.normal, [0.0, 0.0, -1.0], 1e-14));
    assert!(close(c.point_b, [0.3, 0.0, 0.25], 1e-14));
    // Beyond the cap: centre (2, 0, 0), cap end at x = 1: distance 1 − 0.75.
    let c = one(&s, &at([2.0, 0.0, 0.0]), &cap, &pose, 0.5);
    assert!((c.distance - 0.25).abs() < 1e-14 && close(c.point_b, [1.25, 0.0, 0.0], 1e-14));
}

#[test]
fn capsule_capsule_crossing_and_parallel() {
    let a = capsule(0.2, 1.0);
    let b = capsule(0.3, 2.0);
    // A along x at origin, B along y at z = 0.45: gap 0.45 − 0.5 = −0.05 at the crossing.
    let pa = Pose::from_axis_angle([0.0; 3], [0.0, 1.0, 0.0], FRAC_PI_2);
    let pb = Pose::from_axis_angle([0.3, 0.0, 0.45], [1.0, 0.0, 0.0], FRAC_PI_2);
    let c = one(&a, &pa, &b, &pb, 0.0);
    assert!((c.distance + 0.05).abs() < 1e-14 && close(c.normal, [0.0, 0.0, 1.0], 1e-14));
    assert!(close(c.point_a, [0.3, 0.0, 0.2], 1e-14) && close(c.point_b, [0.3, 0.0, 0.15], 1e-14));
    // Parallel, side by side along x, B shifted by 1.5 along x and 0.5 along y: overlap x ∈ [−0.5, 1].
    let pb = Pose::from_axis_angle([1.5, 0.5, 0.0], [0.0, 1.0, 0.0], FRAC_PI_2);
    let cs = contacts(&a, &pa, &b, &pb, 0.0);
    assert_eq!(cs.len(), 2, "{cs:?}");
    for (c, x) in cs.iter().zip([-0.5, 1.0]) {
        assert!(c.distance.abs() < 1e-14 && close(c.normal, [0.0, 1.0, 0.0], 1e-14));
        assert!(close(c.point_a, [x, 0.2, 0.0], 1e-14), "{c:?}");
    }
    // End to end along the same line: one point between the caps.
    let pb = Pose::from_axis_angle([3.6, 0.0, 0.0], [0.0, 1.0, 0.0], FRAC_PI_2);
    let c = one(&a, &pa, &b, &pb, 0.2);
    assert!((c.distance - 0.1).abs() < 1e-14 && close(c.normal, [1.0, 0.0, 0.0], 1e-14));
}

#[test]
fn capsule_half_space_flat_and_tilted() {
    let cap = capsule(0.5, 1.0);
    let ground = Pose::identity();
    let flat = Pose::from_axis_angle([0.0, 0.0, 0.49], [1.0, 0.0, 0.0], FRAC_PI_2);
    let cs = contacts(&cap, &flat, &Shape::half_space(), &ground, 0.0);
    assert_eq!(cs.len(), 2);
    for c in &cs {
        assert!((c.distance + 0.01).abs() < 1e-14 && close(c.normal, [0.0, 0.0, -1.0], 1e-15));
        assert!((c.point_b[2]).abs() < 1e-15 && (c.point_a[1].abs() - 1.0).abs() < 1e-14);
    }
    // Tilted 30° from vertical: lower end at z = 2 − cos 30°, distance 2 − cos30° − 0.5.
    let tilt = Pose::from_axis_angle([0.0, 0.0, 2.0], [1.0, 0.0, 0.0], PI / 6.0);
    let c = one(&cap, &tilt, &Shape::half_space(), &ground, 1.0);
    assert!((c.distance - (1.5 - (PI / 6.0).cos())).abs() < 1e-14);
    // Both orders.
    let c2 = one(&Shape::half_space(), &ground, &cap, &tilt, 1.0);
    assert!(close(c2.normal, [0.0, 0.0, 1.0], 1e-15));
}

#[test]
fn capsule_box_lying_crossing_edge_and_penetrating() {
    let cap = capsule(0.1, 0.5);
    let b = cuboid([1.0, 1.0, 1.0]);
    let id = Pose::identity();
    // Lying along x on top of the box at gap 0.02: two points, x = ±0.5.
    let lying = Pose::from_axis_angle([0.2, 0.0, 1.12], [0.0, 1.0, 0.0], FRAC_PI_2);
    let cs = contacts(&cap, &lying, &b, &id, 0.05);
    assert_eq!(cs.len(), 2, "{cs:?}");
    for (c, x) in cs.iter().zip([-0.3, 0.7]) {
        assert!((c.distance - 0.02).abs() < 1e-14 && close(c.normal, [0.0, 0.0, -1.0], 1e-14), "{c:?}");
        assert!(close(c.point_b, [x, 0.0, 1.0], 1e-14), "{c:?}");
    }
    // Overhanging (centre at x = 0.9): the clipped part is x ∈ [0.4, 1].
    let over = Pose::from_axis_angle([0.9, 0.0, 1.1], [0.0, 1.0, 0.0], FRAC_PI_2);
    let cs = contacts(&cap, &over, &b, &id, 1e-12);
    assert_eq!(cs.len(), 2);
    assert!(close(cs[0].point_b, [0.4, 0.0, 1.0], 1e-14) && close(cs[1].point_b, [1.0, 0.0, 1.0], 1e-14));
    // Across the edge x = 1, z = 1 (along y), axis along (1, 0, −1) (tangent to the edge's
    // diagonal), centre 0.15 from the edge: one point at the edge, distance 0.05.
    let d = 0.15 / 2f64.sqrt();
    let across = Pose::from_axis_angle([1.0 + d, 0.3, 1.0 + d], [0.0, 1.0, 0.0], 3.0 * FRAC_PI_4);
    let c = one(&cap, &across, &b, &id, 0.1);
    assert!((c.distance - 0.05).abs() < 1e-14, "{c:?}");
    assert!(close(c.point_b, [1.0, 0.3, 1.0], 1e-14));
    let s = 0.5f64.sqrt();
    assert!(close(c.normal, [-s, 0.0, -s], 1e-14));
    // Vertical capsule pushed 0.3 into the top face: one point, distance −0.3 − r... segment end at
    // z = 0.7 is 0.3 inside: distance −0.3 − 0.1.
    let down = at([0.2, 0.1, 1.2]);
    let c = one(&cap, &down, &b, &id, 0.0);
    assert!((c.distance + 0.4).abs() < 1e-14 && close(c.normal, [0.0, 0.0, -1.0], 1e-14), "{c:?}");
    assert!(close(c.point_b, [0.2, 0.1, 1.0], 1e-14));
}

#[test]
fn box_half_space_flat_on_edge_and_margin() {
    let b = cuboid([1.0, 0.5, 0.25]);
    let ground = Pose::identity();
    let cs = contacts(&b, &at([0.0, 0.0, 0.25]), &Shape::half_space(), &ground, 1e-12);
    assert_eq!(cs.len(), 4);
    assert!(cs.iter().all(|c| c.distance.abs() < 1e-15 && close(c.normal, [0.0, 0.0, -1.0], 0.0)));
    // Rotated 45° about x: resting on an edge along x (two corners) at height 0.
    let pose = Pose::from_axis_angle([0.0; 3], [1.0, 0.0, 0.0], FRAC_PI_4);
    let lowest = (0..8)
        .map(|k| {
            let l = [
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { -0.5 } else { 0.5 },
                if k & 4 == 0 { -0.25 } else { 0.25 },
            ];
            pose.transform_point(l)[2]
        })
        .fold(f64::INFINITY, f64::min);
    let pose = Pose { position: [0.0, 0.0, -lowest - 0.01], ..pose };
    let cs = contacts(&b, &pose, &Shape::half_space(), &ground, 0.0);
    assert_eq!(cs.len(), 2, "{cs:?}");
    assert!(cs.iter().all(|c| (c.distance + 0.01).abs() < 1e-14));
    // A huge margin reports all 8 corners.
    assert_eq!(contacts(&b, &pose, &Shape::half_space(), &ground, 10.0).len(), 8);
}

#[test]
fn box_box_resting_stack_gives_four_points() {
    let big = cuboid([2.0, 2.0, 0.5]);
    let small = cuboid([0.5, 0.5, 0.5]);
    // Small box resting on the big one, rotated 30° about z.
    let pb = Pose::from_axis_angle([0.3, -0.2, 1.0], [0.0, 0.0, 1.0], PI / 6.0);
    let cs = contacts(&big, &Pose::identity(), &small, &pb, 1e-9);
    assert_eq!(cs.len(), 4, "{cs:?}");
    for c in &cs {
        assert!(c.distance.abs() < 1e-14 && close(c.normal, [0.0, 0.0, 1.0], 1e-14), "{c:?}");
        assert!((c.point_a[2] - 0.5).abs() < 1e-14);
    }
    // The four points are the four bottom corners of the small box.
    for k in 0..4 {
        let l = [if k & 1 == 0 { -0.5 } else { 0.5 }, if k & 2 == 0 { -0.5 } else { 0.5 }, -0.5];
        let w = pb.transform_point(l);
        assert!(cs.iter().any(|c| close(c.point_b, w, 1e-14)), "corner {w:?} missing");
    }
    // Equal boxes stacked exactly: 4 points; penetration 0.01 → distance −0.01.
    let cube = cuboid([0.5; 3]);
    let cs = contacts(&cube, &Pose::identity(), &cube, &at([0.0, 0.0, 0.99]), 0.0);
    assert_eq!(cs.len(), 4);
    assert!(cs.iter().all(|c| (c.distance + 0.01).abs() < 1e-14 && close(c.normal, [0.0, 0.0, 1.0], 1e-15)));
    // Offset equal boxes (overlap 0.5 × 0.5 square): 4 points at its corners.
    let cs = contacts(&cube, &Pose::identity(), &cube, &at([0.5, 0.5, 1.0]), 1e-12);
    assert_eq!(cs.len(), 4);
    for p in [[0.0, 0.0], [0.5, 0.0], [0.0, 0.5], [0.5, 0.5]] {
        assert!(cs.iter().any(|c| close(c.point_a, [p[0], p[1], 0.5], 1e-14)));
    }
    // Separated by 0.2 with margin 0.1: none.
    assert!(contacts(&cube, &Pose::identity(), &cube, &at([0.0, 0.0, 1.2]), 0.1).is_empty());
}

#[test]
fn box_box_rotated_vertex_face_and_edge_edge() {
    let cube = cuboid([0.5; 3]);
    // Upper cube balanced on a corner: rotate so the body diagonal is vertical.
    let axis = [1.0, -1.0, 0.0];
    let angle = (1.0f64 / 3f64.sqrt()).acos(); // the angle between (1,1,1) and z
    let rot = Pose::from_axis_angle([0.0; 3], axis, angle);
    let corner = rot.transform_point([-0.5, -0.5, -0.5]);
    let half_diag = 0.75f64.sqrt();
    assert!(close(corner, [0.0, 0.0, -half_diag], 1e-14));
    let pb = Pose { position: [0.1, 0.2, 0.5 + half_diag - 0.02], ..rot };
    let c = one(&cube, &Pose::identity(), &cube, &pb, 0.0);
    assert!((c.distance + 0.02).abs() < 1e-14 && close(c.normal, [0.0, 0.0, 1.0], 1e-14), "{c:?}");
    assert!(close(c.point_b, [0.1, 0.2, 0.48], 1e-14));
    // Edge on edge: A rotated 45° about x (top edge along x at z = √2/2), B rotated 45° about y
    // (bottom edge along y), crossing at distance 0.03.
    let s = 0.5f64.sqrt();
    let pa = Pose::from_axis_angle([0.0; 3], [1.0, 0.0, 0.0], FRAC_PI_4);
    let pb = Pose::from_axis_angle([0.1, -0.2, 2.0 * s + 0.03], [0.0, 1.0, 0.0], FRAC_PI_4);
    let c = one(&cube, &pa, &cube, &pb, 0.05);
    assert!((c.distance - 0.03).abs() < 1e-14 && close(c.normal, [0.0, 0.0, 1.0], 1e-14), "{c:?}");
    assert!(close(c.point_a, [0.1, 0.0, s], 1e-14) && close(c.point_b, [0.1, 0.0, s + 0.03], 1e-14));
}

/// A random shape (sphere, capsule, box, half-space) with a random pose.
fn random_shape(rng: &mut StdRng, kinds: u32) -> (Shape, Pose) {
    let kind = rng.random_range(0..kinds);
    let shape = match kind {
        0 => sphere(rng.random_range(0.2..1.0)),
        1 => capsule(rng.random_range(0.1..0.6), rng.random_range(0.1..1.0)),
        2 => cuboid([rng.random_range(0.1..1.0), rng.random_range(0.1..1.0), rng.random_range(0.1..1.0)]),
        _ => Shape::half_space(),
    };
    let pos = [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)];
    let axis = [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)];
    (shape, Pose::from_axis_angle(pos, axis, rng.random_range(0.0..PI)))
}

#[test]
fn collide_is_symmetric_for_every_pair() {
    let mut rng = StdRng::seed_from_u64(8);
    let mut total = 0;
    for _ in 0..4000 {
        let (a, pa) = random_shape(&mut rng, 4);
        let (b, pb) = random_shape(&mut rng, 4);
        let ab = contacts(&a, &pa, &b, &pb, 0.1);
        let ba = contacts(&b, &pb, &a, &pa, 0.1);
        assert_eq!(ab.len(), ba.len());
        for (x, y) in ab.iter().zip(ba.iter()) {
            assert_eq!(*x, y.flipped());
        }
        if matches!((a, b), (Shape::HalfSpace, Shape::HalfSpace)) {
            assert!(ab.is_empty());
        }
        total += ab.len();
    }
    assert!(total > 2000, "too few contacts to test anything: {total}");
}

/// Signed distance of `p` to the convex shape by brute force on its support function:
/// `sd(p) = max_{|n| = 1} (n·p − h(n))`, maximized over 4000 Fibonacci directions and then by
/// a shrinking-step random search.
fn brute_signed_distance(shape: &Shape, pose: &Pose, p: V, rng: &mut StdRng) -> f64 {
    let f = |n: V| {
        let l = norm(n);
        let n = [n[0] / l, n[1] / l, n[2] / l];
        let s = shape.support_point(pose, n).expect("finite shape");
        dot(n, p) - dot(n, s)
    };
    let m = 4000;
    let mut best = (f64::NEG_INFINITY, [0.0, 0.0, 1.0]);
    for i in 0..m {
        let z = 1.0 - 2.0 * (i as f64 + 0.5) / m as f64;
        let r = (1.0 - z * z).sqrt();
        let phi = i as f64 * PI * (3.0 - 5f64.sqrt());
        let n = [r * phi.cos(), r * phi.sin(), z];
        let v = f(n);
        if v > best.0 {
            best = (v, n);
        }
    }
    let mut step = 0.05;
    while step > 1e-10 {
        let mut improved = false;
        for _ in 0..200 {
            let d = [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)];
            let n = [best.1[0] + step * d[0], best.1[1] + step * d[1], best.1[2] + step * d[2]];
            let v = f(n);
            if v > best.0 {
                let l = norm(n);
                best = (v, [n[0] / l, n[1] / l, n[2] / l]);
                improved = true;
            }
        }
        if !improved {
            step *= 0.7;
        }
    }
    best.0
}

#[test]
fn sphere_versus_box_and_capsule_matches_brute_force() {
    let mut rng = StdRng::seed_from_u64(44);
    let mut worst: f64 = 0.0;
    for trial in 0..300 {
        let (b, pb) = random_shape(&mut rng, 3);
        let b = if matches!(b, Shape::Sphere { .. }) { cuboid([0.7, 0.3, 0.5]) } else { b };
        let r = 0.3;
        let c = [rng.random_range(-2.5..2.5), rng.random_range(-2.5..2.5), rng.random_range(-2.5..2.5)];
        let cs = contacts(&sphere(r), &at(c), &b, &pb, 10.0);
        assert_eq!(cs.len(), 1, "trial {trial}");
        let k = cs[0];
        let expected = brute_signed_distance(&b, &pb, c, &mut rng) - r;
        worst = worst.max((k.distance - expected).abs());
        // The brute force is a lower bound of the signed distance (any direction gives one).
        assert!(k.distance >= expected - 1e-12, "trial {trial}: {} < {expected}", k.distance);
        assert!(k.distance - expected < 1e-5, "trial {trial}: {} vs {expected}", k.distance);
        // Closest-point check: point_b lies on B's surface, point_a on the sphere.
        let q = pb.inverse_transform_point(k.point_b);
        let on_surface = match b {
            Shape::Box { half_extents: h } => (0..3).map(|i| q[i].abs() - h[i]).fold(f64::NEG_INFINITY, f64::max),
            Shape::Capsule { radius, half_length } => {
                norm([q[0], q[1], q[2] - q[2].clamp(-half_length, half_length)]) - radius
            }
            _ => f64::NAN,
        };
        assert!(on_surface.abs() < 1e-12, "trial {trial}: point_b off the surface by {on_surface:e}");
        assert!((norm(sub(k.point_a, c)) - r).abs() < 1e-12);
    }
    eprintln!("sphere vs box/capsule: worst |narrow − brute force| = {worst:e}");
}

#[test]
fn capsule_box_distance_matches_brute_force_when_separated() {
    // Separated capsule–box: the distance equals the segment–box distance minus r; brute force
    // over 2001 points of the segment, each against the box (clamp in box coordinates).
    let mut rng = StdRng::seed_from_u64(45);
    for trial in 0..300 {
        let h = [rng.random_range(0.2..1.0), rng.random_range(0.2..1.0), rng.random_range(0.2..1.0)];
        let (_, pb) = random_shape(&mut rng, 1);
        let (_, mut pc) = random_shape(&mut rng, 1);
        pc.position = [rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0)];
        let (r, l) = (0.05, rng.random_range(0.2..1.0));
        let cs = contacts(&capsule(r, l), &pc, &cuboid(h), &pb, 10.0);
        let mut brute = f64::INFINITY;
        for i in 0..=2000 {
            let t = -l + 2.0 * l * i as f64 / 2000.0;
            let p = pb.inverse_transform_point(pc.transform_point([0.0, 0.0, t]));
            let q = [p[0].clamp(-h[0], h[0]), p[1].clamp(-h[1], h[1]), p[2].clamp(-h[2], h[2])];
            brute = brute.min(norm(sub(p, q)));
        }
        if brute < 1e-3 {
            continue; // touching or crossing: not the separated case.
        }
        let min = cs.iter().map(|c| c.distance).fold(f64::INFINITY, f64::min);
        // The sampled minimum is above the true one by at most O(spacing²) near a smooth minimum,
        // O(spacing) at a kink.
        assert!(min <= brute - r + 1e-12, "trial {trial}: {min} > {}", brute - r);
        assert!(min >= brute - r - 2.0 * l / 2000.0, "trial {trial}: {min} vs {}", brute - r);
    }
}

#[test]
fn broad_phase_matches_brute_force_on_2000_spheres() {
    let mut rng = StdRng::seed_from_u64(2000);
    let margin = 0.01;
    let mut bp = BroadPhase::new(margin).expect("valid margin");
    let ground = [Pose::identity(), Pose::from_axis_angle([10.0, 0.0, 0.0], [0.0, 1.0, 0.0], -FRAC_PI_2)];
    for round in 0..3 {
        let n = 2000;
        let mut boxes: Vec<Aabb> = (0..n)
            .map(|_| {
                let r = if round == 0 { 0.1 } else { rng.random_range(0.05..0.2) };
                let c = [rng.random_range(0.0..10.0), rng.random_range(0.0..10.0), rng.random_range(0.0..3.0)];
                sphere(r).aabb(&at(c)).expect("finite")
            })
            .collect();
        if round == 2 {
            // A big container-sized box and a long thin one.
            boxes[7] = Aabb { min: [-1.0, -1.0, -1.0], max: [11.0, 11.0, 0.05] };
            boxes[1500] = Aabb { min: [0.0, 5.0, 1.0], max: [10.0, 5.1, 1.1] };
        }
        bp.update(&boxes, &ground).expect("finite boxes");
        let mut brute = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if boxes[i].inflated(0.5 * margin).intersects(&boxes[j].inflated(0.5 * margin)) {
                    brute.push((i, j));
                }
            }
        }
        assert_eq!(bp.pairs(), brute.as_slice(), "round {round}");
        let mut brute_h = Vec::new();
        for (i, b) in boxes.iter().enumerate() {
            if b.min[2] <= margin {
                brute_h.push((i, 0));
            }
            if b.max[0] >= 10.0 - margin {
                brute_h.push((i, 1));
            }
        }
        assert_eq!(bp.half_space_pairs(), brute_h.as_slice(), "round {round}");
        eprintln!("round {round}: {} pairs, {} half-space pairs, cell {}", brute.len(), brute_h.len(), bp.cell_size());
        assert!(!brute.is_empty() && !brute_h.is_empty());
    }
}

/// Boxes whose inflated copies touch exactly (a lattice at the spacing of their extent, far from
/// the origin, and a jittered copy): the grid's cells are the size of the largest extent, so
/// touching boxes sit in neighbouring cells up to the rounding of the cell coordinates; no pair
/// may be lost to it.
#[test]
fn broad_phase_keeps_boxes_that_touch_exactly() {
    let margin = 0.01;
    let h = 0.05;
    let spacing = 2.0 * h + margin;
    let mut rng = StdRng::seed_from_u64(7);
    let mut bp = BroadPhase::new(margin).expect("valid margin");
    for jitter in [0.0, 1e-12] {
        let mut boxes = Vec::new();
        for i in 0..12 {
            for j in 0..12 {
                for k in 0..12 {
                    let c = [
                        1234.567 + spacing * f64::from(i),
                        -987.25 + spacing * f64::from(j),
                        0.3 + spacing * f64::from(k),
                    ];
                    let c = c.map(|x| x + jitter * rng.random_range(-1.0..1.0));
                    boxes.push(Aabb { min: [c[0] - h, c[1] - h, c[2] - h], max: [c[0] + h, c[1] + h, c[2] + h] });
                }
            }
        }
        bp.update(&boxes, &[]).expect("finite boxes");
        let mut brute = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if boxes[i].inflated(0.5 * margin).intersects(&boxes[j].inflated(0.5 * margin)) {
                    brute.push((i, j));
                }
            }
        }
        assert!(brute.len() > 3 * 11 * 144, "jitter {jitter}: {} pairs", brute.len());
        assert_eq!(bp.pairs(), brute.as_slice(), "jitter {jitter}");
    }
}

/// Monte Carlo estimate of (volume, ∫ (y² + z²), ∫ (x² + z²), ∫ (x² + y²)) over the shape at
/// the identity pose, sampling its bounding box.
fn monte_carlo(shape: &Shape, samples: usize, rng: &mut StdRng) -> [f64; 4] {
    let b = shape.aabb(&Pose::identity()).expect("finite");
    let vol_box: f64 = (0..3).map(|k| b.max[k] - b.min[k]).product();
    let mut acc = [0.0; 4];
    for _ in 0..samples {
        let p = [
            rng.random_range(b.min[0]..b.max[0]),
            rng.random_range(b.min[1]..b.max[1]),
            rng.random_range(b.min[2]..b.max[2]),
        ];
        let inside = match *shape {
            Shape::Sphere { radius } => norm(p) <= radius,
            Shape::Box { .. } => true,
            Shape::Capsule { radius, half_length } => {
                let z = p[2].clamp(-half_length, half_length);
                norm([p[0], p[1], p[2] - z]) <= radius
            }
            Shape::HalfSpace => false,
            ref other => panic!("no sampled volume for a {}", other.kind_name()),
        };
        if inside {
            acc[0] += 1.0;
            acc[1] += p[1] * p[1] + p[2] * p[2];
            acc[2] += p[0] * p[0] + p[2] * p[2];
            acc[3] += p[0] * p[0] + p[1] * p[1];
        }
    }
    acc.map(|a| a * vol_box / samples as f64)
}

#[test]
fn mass_properties_match_monte_carlo() {
    let mut rng = StdRng::seed_from_u64(3);
    let rho = 2.5;
    for shape in [sphere(0.7), cuboid([0.3, 0.6, 1.1]), capsule(0.4, 0.9), capsule(0.5, 0.1)] {
        let m = shape.mass_properties(rho).expect("finite shape");
        let mc = monte_carlo(&shape, 400_000, &mut rng);
        assert!((m.volume - mc[0]).abs() < 0.01 * m.volume, "{shape:?}: {} vs {}", m.volume, mc[0]);
        assert!((m.mass - rho * m.volume).abs() < 1e-12 * m.mass);
        for k in 0..3 {
            let i_mc = rho * mc[k + 1];
            let i = m.principal_inertia[k];
            assert!((i - i_mc).abs() < 0.015 * i, "{shape:?} axis {k}: {i} vs {i_mc}");
        }
        eprintln!(
            "{shape:?}: inertia {:?}, Monte Carlo {:?}",
            m.principal_inertia,
            [rho * mc[1], rho * mc[2], rho * mc[3]]
        );
    }
    // Exact reference values.
    let s = sphere(1.0).mass_properties(1.0).expect("sphere");
    assert!((s.principal_inertia[0] - 0.4 * 4.0 / 3.0 * PI).abs() < 1e-14);
    // A capsule with a tiny cylinder tends to the sphere of the same radius.
    let c = capsule(1.0, 1e-9).mass_properties(1.0).expect("capsule");
    assert!((c.principal_inertia[0] - s.principal_inertia[0]).abs() < 1e-7);
    assert!((c.principal_inertia[2] - s.principal_inertia[2]).abs() < 1e-7);
}

#[test]
fn constructors_and_mass_reject_bad_input() {
    let invalid = |r: Result<Shape, MechanicsError>, want: &str| {
        assert!(
            matches!(r, Err(MechanicsError::Kernel(KernelError::InvalidOption { name, .. })) if name == want),
            "expected InvalidOption {{ {want} }}"
        );
    };
    invalid(Shape::sphere(0.0), "radius");
    invalid(Shape::sphere(f64::NAN), "radius");
    invalid(Shape::cuboid([1.0, -1.0, 1.0]), "half_extents");
    invalid(Shape::cuboid([1.0, f64::INFINITY, 1.0]), "half_extents");
    invalid(Shape::capsule(1.0, 0.0), "half_length");
    invalid(Shape::capsule(-1.0, 1.0), "radius");
    assert!(matches!(
        Shape::half_space().mass_properties(1.0),
        Err(MechanicsError::Kernel(KernelError::InvalidOption { name: "shape", .. }))
    ));
    assert!(matches!(
        sphere(1.0).mass_properties(0.0),
        Err(MechanicsError::Kernel(KernelError::InvalidOption { name: "density", .. }))
    ));
    assert!(Shape::half_space().aabb(&Pose::identity()).is_none());
}

#[test]
fn pose_transforms_round_trip_and_aabbs_are_tight() {
    let pose = Pose::from_axis_angle([1.0, -2.0, 0.5], [0.3, -0.4, 1.0], 1.1);
    let p = [0.2, 0.7, -1.3];
    assert!(close(pose.inverse_transform_point(pose.transform_point(p)), p, 1e-15));
    assert!((norm(pose.transform_vector(p)) - norm(p)).abs() < 1e-15);
    // AABB of a rotated box = bounds of its 8 corners; capsule = bounds of its end spheres.
    let h = [0.3, 0.6, 0.9];
    let b = cuboid(h).aabb(&pose).expect("finite");
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for k in 0..8 {
        let v = pose.transform_point([
            if k & 1 == 0 { -h[0] } else { h[0] },
            if k & 2 == 0 { -h[1] } else { h[1] },
            if k & 4 == 0 { -h[2] } else { h[2] },
        ]);
        for i in 0..3 {
            lo[i] = lo[i].min(v[i]);
            hi[i] = hi[i].max(v[i]);
        }
    }
    assert!(close(b.min, lo, 1e-14) && close(b.max, hi, 1e-14));
    let c = capsule(0.2, 0.8).aabb(&pose).expect("finite");
    let (e0, e1) = (pose.transform_point([0.0, 0.0, -0.8]), pose.transform_point([0.0, 0.0, 0.8]));
    for i in 0..3 {
        assert!((c.min[i] - (e0[i].min(e1[i]) - 0.2)).abs() < 1e-14);
        assert!((c.max[i] - (e0[i].max(e1[i]) + 0.2)).abs() < 1e-14);
    }
}

/// Whether the body-frame point `q` is inside the finite shape.
fn inside(shape: &Shape, q: V) -> bool {
    match *shape {
        Shape::Sphere { radius } => norm(q) <= radius,
        Shape::Box { half_extents: h } => (0..3).all(|i| q[i].abs() <= h[i]),
        Shape::Capsule { radius, half_length } => {
            norm([q[0], q[1], q[2] - q[2].clamp(-half_length, half_length)]) <= radius
        }
        Shape::HalfSpace => q[2] <= 0.0,
        ref other => panic!("no inside test for a {}", other.kind_name()),
    }
}

#[test]
fn overlapping_pairs_report_a_penetration() {
    // Random box/capsule pairs: when a sampled point lies inside both solids, collide (margin 0)
    // must report at least one contact with negative distance; when no contact is reported
    // with a margin of 10, the sampled points never lie in both.
    let mut rng = StdRng::seed_from_u64(9);
    let (mut overlapping, mut checked) = (0, 0);
    for trial in 0..400 {
        let (a, pa) = random_shape(&mut rng, 3);
        let (b, pb) = random_shape(&mut rng, 3);
        let a = if matches!(a, Shape::Sphere { .. }) { cuboid([0.5, 0.2, 0.8]) } else { a };
        let ba = a.aabb(&pa).expect("finite");
        let mut common = false;
        for _ in 0..4000 {
            let p = [
                rng.random_range(ba.min[0]..ba.max[0]),
                rng.random_range(ba.min[1]..ba.max[1]),
                rng.random_range(ba.min[2]..ba.max[2]),
            ];
            if inside(&a, pa.inverse_transform_point(p)) && inside(&b, pb.inverse_transform_point(p)) {
                common = true;
                break;
            }
        }
        let cs = contacts(&a, &pa, &b, &pb, 0.0);
        if common {
            overlapping += 1;
            assert!(cs.iter().any(|c| c.distance < 0.0), "trial {trial}: {a:?} {b:?} overlap but {cs:?}");
        }
        if contacts(&a, &pa, &b, &pb, 10.0).is_empty() {
            checked += 1;
            assert!(!common, "trial {trial}");
        }
    }
    eprintln!("{overlapping} overlapping pairs of 400, {checked} with no contact");
    assert!(overlapping > 100);
}
