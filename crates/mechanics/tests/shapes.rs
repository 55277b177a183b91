//! Cylinders, convex hulls and static triangle meshes: contacts against every other shape in
//! configurations with a known distance and normal, bounding boxes, mass properties, the
//! unsupported pairs, and resting bodies in scenes.

use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::{ContactPoint, Pose, Shape, check_pair, collide};
use nonsmooth_mechanics::lie::Quaternion;
use nonsmooth_mechanics::scene::{BodySpec, Material, SceneBuilder};
use std::f64::consts::{FRAC_PI_2, PI};
use std::time::Instant;

type V = [f64; 3];

fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn norm(a: V) -> f64 {
    dot(a, a).sqrt()
}
fn at(p: V) -> Pose {
    Pose::from_translation(p)
}

/// The contacts of the pair, with the invariants of every contact checked: unit normal,
/// `distance = (point_b − point_a)·normal`, `distance ≤ margin`; and the reversed pair is
/// exactly the flip.
fn contacts(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, margin: f64) -> Vec<ContactPoint> {
    let mut out = Vec::new();
    let n = collide(a, pa, b, pb, margin, &mut out).expect("a supported pair");
    assert_eq!(n, out.len());
    for c in &out {
        assert!((norm(c.normal) - 1.0).abs() < 1e-12, "normal {:?}", c.normal);
        assert!((dot(sub(c.point_b, c.point_a), c.normal) - c.distance).abs() < 1e-12, "{c:?}");
        assert!(c.distance <= margin);
    }
    let mut back = Vec::new();
    collide(b, pb, a, pa, margin, &mut back).expect("a supported pair");
    assert_eq!(back.len(), out.len());
    for (x, y) in out.iter().zip(back.iter()) {
        assert_eq!(*x, y.flipped());
    }
    out
}

/// Every contact has distance `d` and normal `n` (to `tol`); at least `min` contacts.
fn assert_all(cs: &[ContactPoint], d: f64, n: V, min: usize, tol: f64, what: &str) {
    assert!(cs.len() >= min, "{what}: {} contacts, expected ≥ {min}: {cs:?}", cs.len());
    for c in cs {
        assert!((c.distance - d).abs() < tol, "{what}: distance {} ≠ {d}: {c:?}", c.distance);
        assert!(norm(sub(c.normal, n)) < tol, "{what}: normal {:?} ≠ {n:?}", c.normal);
    }
}

fn unit_cube_hull(h: f64) -> Shape {
    let mut pts = Vec::new();
    for k in 0..8 {
        let s = |bit: usize| if k & bit == 0 { -h } else { h };
        pts.push([s(1), s(2), s(4)]);
    }
    Shape::convex_hull(&pts).expect("a cube")
}

/// The square `[−s, s]²` at height 0 as two triangles, counter-clockwise seen from `+z`.
fn floor_mesh(s: f64) -> Shape {
    let v = [[-s, -s, 0.0], [s, -s, 0.0], [s, s, 0.0], [-s, s, 0.0]];
    Shape::triangle_mesh(&v, &[[0, 1, 2], [0, 2, 3]]).expect("a square")
}

/// A regular tetrahedron of edge `a` standing on a face, as a convex hull, and its height.
fn tetrahedron(a: f64) -> (Shape, f64) {
    let r = a / 3.0_f64.sqrt();
    let h = a * (2.0_f64 / 3.0).sqrt();
    let mut pts: Vec<V> =
        (0..3).map(|k| (2.0 * PI * k as f64 / 3.0).sin_cos()).map(|(s, c)| [r * c, r * s, 0.0]).collect();
    pts.push([0.0, 0.0, h]);
    (Shape::convex_hull(&pts).expect("a tetrahedron"), h)
}

#[test]
fn cylinder_standing_and_lying_on_a_half_space() {
    let (r, hh) = (0.3, 0.5);
    let cyl = Shape::cylinder(r, hh).expect("cylinder");
    let ground = Shape::half_space();
    for gap in [0.02, -0.01] {
        // Standing: the flat cap on the plane, a manifold of several points (stable support).
        let cs = contacts(&cyl, &at([0.1, -0.2, hh + gap]), &ground, &Pose::identity(), 0.05);
        assert_all(&cs, gap, [0.0, 0.0, -1.0], 3, 1e-9, "standing");
        // Lying: the axis along x, a line contact (two points at the ends of the segment).
        let lying = Pose::from_axis_angle([0.0, 0.0, r + gap], [0.0, 1.0, 0.0], FRAC_PI_2);
        let cs = contacts(&cyl, &lying, &ground, &Pose::identity(), 0.05);
        assert_all(&cs, gap, [0.0, 0.0, -1.0], 2, 1e-9, "lying");
        let xs: Vec<f64> = cs.iter().map(|c| c.point_a[0]).collect();
        let spread =
            xs.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x)) - xs.iter().fold(f64::INFINITY, |m, &x| m.min(x));
        assert!((spread - 2.0 * hh).abs() < 1e-9, "the line contact spans the length: {xs:?}");
    }
    // A tilted cylinder: the lowest rim point is at height z_c − hh cos θ − r sin θ; other rim
    // points within the margin may be reported too, each at its own height.
    for (theta, axis) in [(0.4_f64, [1.0, 0.0, 0.0]), (1.2, [1.0, 1.0, 0.0]), (0.1, [0.3, 1.0, 0.0])] {
        let d = 0.02;
        let zc = hh * theta.cos() + r * theta.sin() + d;
        let tilted = Pose::from_axis_angle([0.0, 0.0, zc], axis, theta);
        let cs = contacts(&cyl, &tilted, &ground, &Pose::identity(), 0.05);
        let lowest = cs.iter().map(|c| c.distance).fold(f64::INFINITY, f64::min);
        assert!((lowest - d).abs() < 1e-9, "tilted {theta}: lowest {lowest}: {cs:?}");
        for c in &cs {
            assert!((c.distance - c.point_a[2]).abs() < 1e-12 && norm(sub(c.normal, [0.0, 0.0, -1.0])) < 1e-12);
            let local = tilted.inverse_transform_point(c.point_a);
            let rim = (local[0] * local[0] + local[1] * local[1]).sqrt();
            assert!((rim - r).abs() < 1e-12 && (local[2] + hh).abs() < 1e-12, "a bottom rim point: {local:?}");
        }
    }
}

#[test]
fn sphere_on_a_cylinder_cap_and_side() {
    let (r, hh, rs) = (0.4, 0.6, 0.1);
    let cyl = Shape::cylinder(r, hh).expect("cylinder");
    let ball = Shape::sphere(rs).expect("sphere");
    // The cylinder is tilted: its cap normal is its body z.
    let pose = Pose::from_axis_angle([0.3, 0.2, -0.1], [1.0, 1.0, 0.0], 0.7);
    let (u, e) = (pose.axis(2), pose.axis(0));
    let place = |along: f64, out: f64| -> V { [0, 1, 2].map(|k| pose.position[k] + along * u[k] + out * e[k]) };
    // On the cap, off-centre.
    let c = contacts(&ball, &at(place(hh + rs + 0.03, 0.2)), &cyl, &pose, 0.05);
    assert_all(&c, 0.03, u.map(|x| -x), 1, 1e-9, "cap");
    // Against the side, penetrating.
    let c = contacts(&ball, &at(place(0.1, r + rs - 0.02)), &cyl, &pose, 0.05);
    assert_all(&c, -0.02, e.map(|x| -x), 1, 1e-9, "side");
    // Beyond the margin: nothing.
    let c = contacts(&ball, &at(place(0.0, r + rs + 0.2)), &cyl, &pose, 0.05);
    assert!(c.is_empty());
}

#[test]
fn cube_hull_against_a_box_matches_the_box_box_contacts() {
    let cube = unit_cube_hull(0.5);
    let slab = Shape::cuboid([2.0, 2.0, 0.5]).expect("box");
    let slab_pose = at([0.0, 0.0, -0.5]);
    for angle in [0.0, 0.3] {
        for gap in [0.02, -0.01] {
            let pose = Pose::from_axis_angle([0.2, 0.1, 0.5 + gap], [0.0, 0.0, 1.0], angle);
            let c = contacts(&cube, &pose, &slab, &slab_pose, 0.05);
            assert_all(&c, gap, [0.0, 0.0, -1.0], 4, 1e-9, "cube on slab");
            // The same geometry through the analytic box–box path.
            let b = contacts(&Shape::cuboid([0.5; 3]).expect("box"), &pose, &slab, &slab_pose, 0.05);
            assert_all(&b, gap, [0.0, 0.0, -1.0], 4, 1e-9, "box on slab");
        }
    }
    // Edge to edge: the cube rotated 45° about x, its lowest edge at height 0.05 over the slab.
    let pose = Pose::from_axis_angle([0.0, 0.0, 0.5 * 2.0_f64.sqrt() + 0.05], [1.0, 0.0, 0.0], PI / 4.0);
    let c = contacts(&cube, &pose, &slab, &slab_pose, 0.1);
    assert_all(&c, 0.05, [0.0, 0.0, -1.0], 1, 1e-9, "edge on slab");
}

#[test]
fn sphere_on_a_two_triangle_mesh_plane() {
    let floor = floor_mesh(1.0);
    let ball = Shape::sphere(0.1).expect("sphere");
    // Inside one triangle, on the shared diagonal, and at a vertex of the square's interior.
    for (x, y) in [(0.5, -0.3), (0.25, 0.25), (0.0, 0.0)] {
        for gap in [0.03, -0.02] {
            let c = contacts(&ball, &at([x, y, 0.1 + gap]), &floor, &Pose::identity(), 0.05);
            assert_all(&c, gap, [0.0, 0.0, -1.0], 1, 1e-9, "ball on floor");
            for p in &c {
                assert!(norm(sub(p.point_b, [x, y, 0.0])) < 1e-9, "contact under the centre: {p:?}");
            }
        }
    }
    // The mesh placed with a pose: tilted floor.
    let pose = Pose::from_axis_angle([0.0, 0.0, 1.0], [0.0, 1.0, 0.0], 0.2);
    let n = pose.axis(2);
    let centre = [0, 1, 2].map(|k| pose.position[k] + 0.14 * n[k]);
    let c = contacts(&ball, &at(centre), &floor, &pose, 0.05);
    assert_all(&c, 0.04, n.map(|x| -x), 1, 1e-9, "tilted floor");
    // Below the one-sided floor: no contact (the triangles face +z).
    let c = contacts(&ball, &at([0.3, 0.3, -0.5]), &floor, &Pose::identity(), 0.05);
    assert!(c.is_empty(), "{c:?}");
}

/// Every new pair in one configuration: a shape resting (gap `g`) with its flat or lowest part on
/// the flat top (`z = 0`) of a support. Supports: half-space, box, cylinder, convex hull, mesh;
/// upper shapes: sphere, capsule, box, cylinder, convex hull. All contacts must have distance `g`
/// and normal `−z` (from the upper shape to the support).
#[test]
fn every_new_pair_resting_on_a_flat_top() {
    let slab_hull = {
        let mut pts = Vec::new();
        for k in 0..8 {
            let s = |bit: usize, h: f64| if k & bit == 0 { -h } else { h };
            pts.push([s(1, 2.0), s(2, 2.0), s(4, 0.5) - 0.5]);
        }
        let shape = Shape::convex_hull(&pts).expect("slab");
        let Shape::ConvexHull(h) = &shape else { unreachable!("convex_hull builds a hull") };
        let pose = h.body_pose(&Pose::identity());
        (shape, pose)
    };
    let supports: Vec<(Shape, Pose)> = vec![
        (Shape::half_space(), Pose::identity()),
        (Shape::cuboid([2.0, 2.0, 0.5]).expect("box"), at([0.0, 0.0, -0.5])),
        (Shape::cylinder(2.0, 0.5).expect("cylinder"), at([0.0, 0.0, -0.5])),
        slab_hull,
        (floor_mesh(2.0), Pose::identity()),
    ];
    let (tet, _) = tetrahedron(0.6);
    let Shape::ConvexHull(tet_hull) = &tet else { unreachable!("a hull") };
    let tet_offset = tet_hull.body_pose(&Pose::identity()).position[2];
    // (shape, height of the body origin above its lowest point when upright, min contacts).
    let uppers: Vec<(Shape, f64, usize)> = vec![
        (Shape::sphere(0.2).expect("sphere"), 0.2, 1),
        (Shape::capsule(0.1, 0.3).expect("capsule"), 0.4, 1),
        (Shape::cuboid([0.3, 0.2, 0.1]).expect("box"), 0.1, 4),
        (Shape::cylinder(0.25, 0.3).expect("cylinder"), 0.3, 3),
        (unit_cube_hull(0.2), 0.2, 4),
        (tet.clone(), tet_offset, 3),
    ];
    let mut pairs = 0;
    for (support, sp) in &supports {
        for (upper, lift, min) in &uppers {
            let new_pair =
                |s: &Shape| matches!(s, Shape::Cylinder { .. } | Shape::ConvexHull(_) | Shape::TriangleMesh(_));
            if !new_pair(support) && !new_pair(upper) {
                continue;
            }
            for gap in [0.02, -0.005] {
                let pose = Pose::from_axis_angle([0.1, 0.05, lift + gap], [0.0, 0.0, 1.0], 0.3);
                let c = contacts(upper, &pose, support, sp, 0.05);
                let what = format!("{} on {} (gap {gap})", upper.kind_name(), support.kind_name());
                // A capsule on a mesh or a cylinder: the manifold may drop the single point
                // into two coincident ones; the count bound is the solver's need, not a rule.
                assert_all(&c, gap, [0.0, 0.0, -1.0], *min, 1e-7, &what);
            }
            pairs += 1;
        }
    }
    assert_eq!(pairs, 5 * 6 - 2 * 3, "the pairs tested");
}

#[test]
fn cylinder_against_capsule_and_cylinder_side_by_side() {
    let cyl = Shape::cylinder(0.3, 0.5).expect("cylinder");
    let cap = Shape::capsule(0.1, 0.4).expect("capsule");
    // Parallel axes, side by side along x: two points (the overlap of the axes).
    let c = contacts(&cyl, &Pose::identity(), &cap, &at([0.3 + 0.1 + 0.02, 0.0, 0.0]), 0.05);
    assert_all(&c, 0.02, [1.0, 0.0, 0.0], 1, 1e-9, "cylinder–capsule");
    let c = contacts(&cyl, &Pose::identity(), &cyl, &at([0.6 - 0.01, 0.0, 0.3]), 0.05);
    // Two curved surfaces: the penetration direction comes from EPA, to about 1e-6.
    assert_all(&c, -0.01, [1.0, 0.0, 0.0], 1, 1e-5, "cylinder–cylinder side");
    // Stacked coaxially: cap on cap.
    let c = contacts(&cyl, &Pose::identity(), &cyl, &at([0.05, 0.0, 1.0 + 0.02]), 0.05);
    assert_all(&c, 0.02, [0.0, 0.0, 1.0], 3, 1e-9, "cylinder–cylinder stacked");
}

#[test]
fn bounding_boxes_are_the_extremes_of_the_support_points() {
    let (tet, _) = tetrahedron(0.7);
    let shapes = [Shape::cylinder(0.3, 0.8).expect("cylinder"), tet, unit_cube_hull(0.4), floor_mesh(1.5)];
    for (k, shape) in shapes.iter().enumerate() {
        for angle in [0.0, 0.4, 1.3, 2.9] {
            let pose = Pose::from_axis_angle([0.3, -1.0, 2.0], [1.0, 2.0 - k as f64, 0.5], angle);
            let b = shape.aabb(&pose).expect("finite shape");
            for i in 0..3 {
                let mut e = [0.0; 3];
                e[i] = 1.0;
                let hi = shape.support_point(&pose, e).expect("support")[i];
                e[i] = -1.0;
                let lo = shape.support_point(&pose, e).expect("support")[i];
                assert!((b.max[i] - hi).abs() < 1e-12 && (b.min[i] - lo).abs() < 1e-12, "{shape:?} axis {i}");
            }
        }
    }
}

#[test]
fn mass_properties_of_the_new_solids() -> Result<(), MechanicsError> {
    // Cylinder: m = ρ π r² L, I_zz = m r²/2, I_xx = m (3 r² + L²)/12.
    let (r, hh, rho) = (0.3, 0.5, 700.0);
    let m = Shape::cylinder(r, hh)?.mass_properties(rho)?;
    let mass = rho * PI * r * r * 2.0 * hh;
    assert!((m.mass - mass).abs() < 1e-9 * mass);
    let ixx = mass * (3.0 * r * r + 4.0 * hh * hh) / 12.0;
    let want = [ixx, ixx, 0.5 * mass * r * r];
    for (got, want) in m.principal_inertia.into_iter().zip(want) {
        assert!((got - want).abs() < 1e-9 * want);
    }
    // A cube hull has the box's mass properties, and keeps its axes.
    let cube = unit_cube_hull(0.5);
    let m = cube.mass_properties(2.0)?;
    assert!((m.volume - 1.0).abs() < 1e-12 && (m.mass - 2.0).abs() < 1e-12);
    for i in m.principal_inertia {
        assert!((i - 2.0 * 2.0 / 12.0).abs() < 1e-12, "{:?}", m.principal_inertia);
    }
    // A regular tetrahedron on its face: centroid at a quarter of the height, V = a³/(6√2).
    let a = 0.6;
    let (tet, h) = tetrahedron(a);
    let Shape::ConvexHull(hull) = &tet else { unreachable!("a hull") };
    let f = hull.input_frame();
    assert!(norm(sub(f.position, [0.0, 0.0, -h / 4.0])) < 1e-12, "{f:?}");
    assert!((hull.volume() - a.powi(3) / (6.0 * 2.0_f64.sqrt())).abs() < 1e-12);
    // The regular tetrahedron's inertia is isotropic: m a²/20 about every centroidal axis.
    let m = tet.mass_properties(1.0)?;
    for i in m.principal_inertia {
        assert!((i - m.mass * a * a / 20.0).abs() < 1e-12, "{:?}", m.principal_inertia);
    }
    // An off-axis box hull is re-expressed in its principal frame: the same inertia as the box.
    let rot = Pose::from_axis_angle([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], 0.8);
    let mut pts = Vec::new();
    for k in 0..8 {
        let s = |bit: usize, h: f64| if k & bit == 0 { -h } else { h };
        pts.push(rot.transform_point([s(1, 0.1), s(2, 0.2), s(4, 0.4)]));
    }
    let hull = Shape::convex_hull(&pts)?;
    let mut got = hull.mass_properties(1.0)?.principal_inertia;
    let mut want = Shape::cuboid([0.1, 0.2, 0.4])?.mass_properties(1.0)?.principal_inertia;
    got.sort_by(f64::total_cmp);
    want.sort_by(f64::total_cmp);
    for k in 0..3 {
        assert!((got[k] - want[k]).abs() < 1e-10 * want[2], "{got:?} {want:?}");
    }
    // The body pose that puts the input frame back at the identity places the vertices where
    // they were given.
    let Shape::ConvexHull(h) = &hull else { unreachable!("a hull") };
    let body = h.body_pose(&Pose::identity());
    for v in h.vertices() {
        let w = body.transform_point(v);
        assert!(pts.iter().any(|p| norm(sub(*p, w)) < 1e-12), "{w:?}");
    }
    // A mesh has no mass: static only.
    assert!(floor_mesh(1.0).mass_properties(1.0).is_err());
    assert!(BodySpec::new(floor_mesh(1.0), 1.0).is_err());
    Ok(())
}

#[test]
fn invalid_new_shapes_are_typed_errors() {
    assert!(Shape::cylinder(0.0, 1.0).is_err());
    assert!(Shape::cylinder(1.0, f64::NAN).is_err());
    let flat = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]];
    assert!(Shape::convex_hull(&flat).is_err(), "a flat hull");
    assert!(Shape::convex_hull(&flat[..3]).is_err(), "three points");
    assert!(
        Shape::convex_hull(&[[0.0, 0.0, f64::INFINITY], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).is_err()
    );
    let v = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    assert!(Shape::triangle_mesh(&v, &[]).is_err(), "no triangle");
    assert!(Shape::triangle_mesh(&v, &[[0, 1, 3]]).is_err(), "index out of range");
    assert!(Shape::triangle_mesh(&v, &[[0, 1, 1]]).is_err(), "repeated vertex");
    assert!(Shape::triangle_mesh(&[[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], &[[0, 1, 2]]).is_err(), "zero area");
}

#[test]
fn pairs_of_static_only_shapes_are_unsupported_pair_errors() {
    let mesh = floor_mesh(1.0);
    let plane = Shape::half_space();
    for (a, b) in [(&mesh, &plane), (&plane, &mesh), (&mesh, &mesh), (&plane, &plane)] {
        let mut out =
            vec![ContactPoint { point_a: [0.0; 3], point_b: [0.0; 3], normal: [0.0, 0.0, 1.0], distance: 0.0 }];
        let err = collide(a, &Pose::identity(), b, &at([0.0, 0.0, -0.1]), 0.1, &mut out).expect_err("unsupported");
        match err {
            MechanicsError::UnsupportedShapePair { a: x, b: y } => {
                assert_eq!((x, y), (a.kind_name(), b.kind_name()));
            }
            e => panic!("expected UnsupportedShapePair, got {e}"),
        }
        assert_eq!(out.len(), 1, "nothing appended on error");
        assert!(check_pair(a, b).is_err());
    }
    // Every pair with a finite solid is supported.
    let solids = [Shape::sphere(0.1).expect("s"), Shape::cylinder(0.1, 0.2).expect("y"), unit_cube_hull(0.1)];
    for s in &solids {
        assert!(check_pair(s, &mesh).is_ok() && check_pair(&plane, s).is_ok());
    }
}

/// Runs `steps` steps of a scene with one body resting on a static support; returns the largest
/// penetration (−gap) seen, the body's final displacement and final speed.
fn rest(body: BodySpec, support: Shape, support_pose: Pose, steps: usize) -> Result<(f64, f64, f64), MechanicsError> {
    let h = 1e-3;
    let mut builder = SceneBuilder::new().with_time_step(h).with_final_time(steps as f64 * h + 0.5 * h);
    let start = body.clone();
    builder.add_body(body);
    builder.add_static(support, support_pose, Material::new(0.5, 0.0)?)?;
    let mut scene = builder.build()?;
    let q0 = {
        let (q, _) = scene.body_state(0)?;
        [q[0], q[1], q[2]]
    };
    drop(start);
    let mut deepest = 0.0_f64;
    let mut done = 0;
    while scene.has_next_step() {
        scene.step()?;
        done += 1;
        for c in scene.contacts() {
            deepest = deepest.max(-c.gap);
        }
        assert!(scene.number_of_contacts() > 0, "the body lost its support at step {done}");
    }
    assert_eq!(done, steps);
    let (q, v) = scene.body_state(0)?;
    let drift = norm(sub([q[0], q[1], q[2]], q0));
    let speed = norm([v[0], v[1], v[2]]) + norm([v[3], v[4], v[5]]);
    Ok((deepest, drift, speed))
}

#[test]
fn a_cylinder_stands_still_on_the_ground() -> Result<(), MechanicsError> {
    let (r, hh) = (0.1, 0.15);
    let body = BodySpec::new(Shape::cylinder(r, hh)?, 1000.0)?.with_position([0.0, 0.0, hh]);
    let (deepest, drift, speed) = rest(body, Shape::half_space(), Pose::identity(), 1000)?;
    eprintln!(
        "cylinder on the ground, 1000 steps: max penetration {deepest:.3e}, drift {drift:.3e}, speed {speed:.3e}"
    );
    assert!(deepest < 1e-3 * hh, "penetration {deepest}");
    assert!(drift < 1e-3 * hh, "drift {drift}");
    assert!(speed < 1e-3, "speed {speed}");
    Ok(())
}

#[test]
fn a_tetrahedron_rests_on_a_mesh_floor() -> Result<(), MechanicsError> {
    let (tet, _) = tetrahedron(0.2);
    let Shape::ConvexHull(hull) = &tet else { unreachable!("a hull") };
    // The input frame (base triangle at z = 0) at the floor, rotated about z so that the base
    // crosses the floor's diagonal.
    let body_pose = hull.body_pose(&Pose::from_axis_angle([0.05, 0.02, 0.0], [0.0, 0.0, 1.0], 0.4));
    let q = Quaternion::from_axis_angle([0.0, 0.0, 1.0], 0.4)?;
    assert!(
        body_pose
            .rotation
            .iter()
            .flatten()
            .zip(q.to_rotation_matrix().iter().flatten())
            .all(|(a, b)| (a - b).abs() < 1e-12)
    );
    let body = BodySpec::new(tet.clone(), 1000.0)?.with_position(body_pose.position).with_orientation(q);
    let (deepest, drift, speed) = rest(body, floor_mesh(1.0), Pose::identity(), 1000)?;
    eprintln!(
        "tetrahedron on a mesh floor, 1000 steps: max penetration {deepest:.3e}, drift {drift:.3e}, speed {speed:.3e}"
    );
    assert!(deepest < 1e-3 * 0.2, "penetration {deepest}");
    assert!(drift < 1e-3 * 0.2, "drift {drift}");
    assert!(speed < 1e-3, "speed {speed}");
    Ok(())
}

/// The same configurations through the analytic paths and through parry (a cube as a convex
/// hull): contacts agree; the time per call is printed (run with `--nocapture`).
#[test]
fn analytic_and_parry_paths_agree_and_are_timed() {
    let boxed = Shape::cuboid([0.5; 3]).expect("box");
    let hull = unit_cube_hull(0.5);
    let ball = Shape::sphere(0.2).expect("sphere");
    let ground = Shape::half_space();
    let tilted = Pose::from_axis_angle([0.0, 0.0, 0.49], [0.0, 0.0, 1.0], 0.3);
    let cases: [(&str, &Shape, Pose, &Shape, &Shape, Pose); 3] = [
        ("cube–half-space", &ground, Pose::identity(), &boxed, &hull, tilted),
        ("sphere–cube", &ball, at([0.3, 0.1, 0.69]), &boxed, &hull, Pose::identity()),
        ("cube–cube", &boxed, at([0.1, 0.2, 1.0 - 0.01]), &boxed, &hull, Pose::identity()),
    ];
    let n = 20_000;
    for (name, other, po, analytic, general, pose) in cases {
        let a = contacts(other, &po, analytic, &pose, 0.05);
        let g = contacts(other, &po, general, &pose, 0.05);
        // The same supporting face; parry may add a point inside the analytic quadrilateral.
        assert!(!a.is_empty() && g.len() >= a.len(), "{name}: {a:?} vs {g:?}");
        let deepest = |cs: &[ContactPoint]| cs.iter().map(|c| c.distance).fold(f64::INFINITY, f64::min);
        assert!((deepest(&a) - deepest(&g)).abs() < 1e-9, "{name}");
        let mut out = Vec::with_capacity(16);
        let mut time = |s: &Shape| {
            let t = Instant::now();
            for _ in 0..n {
                out.clear();
                collide(other, &po, s, &pose, 0.05, &mut out).expect("supported");
            }
            t.elapsed().as_secs_f64() / n as f64 * 1e9
        };
        let (ta, tg) = (time(analytic), time(general));
        eprintln!("{name}: analytic {ta:.0} ns/call, parry {tg:.0} ns/call ({:.1}x)", tg / ta);
    }
}

/// The VTK series draws the new shapes: the mesh floor's two triangles among the statics, the
/// cylinder's vertices on its surface and the tetrahedron's four faces among the bodies.
#[test]
fn the_vtk_series_draws_the_new_shapes() -> Result<(), MechanicsError> {
    use nonsmooth_mechanics::output::vtk::VtkSeries;
    use vtkio::model::{Attribute, DataSet, IOBuffer, Piece, VertexNumbers};
    let piece = |path: &std::path::Path| {
        let vtk = vtkio::Vtk::import(path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let DataSet::PolyData { pieces, .. } = vtk.data else { panic!("not PolyData") };
        match pieces.into_iter().next() {
            Some(Piece::Inline(p)) => *p,
            _ => panic!("not an inline piece"),
        }
    };
    let offsets = |v: &Option<VertexNumbers>| match v {
        Some(VertexNumbers::XML { offsets, .. }) => offsets.clone(),
        _ => panic!("XML cells expected"),
    };
    let array = |attributes: &[Attribute], name: &str| -> Vec<f64> {
        attributes
            .iter()
            .find_map(|a| match a {
                Attribute::DataArray(d) if d.name == name => Some(match &d.data {
                    IOBuffer::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
                    IOBuffer::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
                    IOBuffer::F64(v) => v.clone(),
                    other => panic!("unexpected buffer {other:?}"),
                }),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no array {name}"))
    };
    let (r, hh) = (0.1, 0.15);
    let (tet, _) = tetrahedron(0.2);
    let mut b = SceneBuilder::new().with_time_step(1e-3).with_final_time(0.01);
    b.add_static(floor_mesh(1.0), Pose::identity(), Material::default())?;
    b.add_body(BodySpec::new(Shape::cylinder(r, hh)?, 1000.0)?.with_position([0.3, 0.0, hh]));
    b.add_body(BodySpec::new(tet, 1000.0)?.with_position([-0.3, 0.0, 0.2]));
    let scene = b.build()?;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut series = VtkSeries::create(dir.path(), "run")?;
    series.write_frame(&scene)?;

    let statics = piece(&dir.path().join(series.file_name("statics", 0)));
    assert_eq!(statics.num_points(), 4);
    assert_eq!(offsets(&statics.polys).len(), 2);
    assert_eq!(array(&statics.data.cell, "shape"), vec![6.0, 6.0]);

    let bodies = piece(&dir.path().join(series.file_name("bodies", 0)));
    let ids = array(&bodies.data.point, "body");
    let points = match &bodies.points {
        IOBuffer::F32(v) => v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>(),
        IOBuffer::F64(v) => v.clone(),
        other => panic!("unexpected points {other:?}"),
    };
    let cylinder: Vec<usize> = (0..ids.len()).filter(|&v| ids[v] == 0.0).collect();
    assert!(cylinder.len() >= 2 * 8, "the cylinder has rings of vertices: {}", cylinder.len());
    for v in cylinder {
        let p = [points[3 * v] - 0.3, points[3 * v + 1], points[3 * v + 2] - hh];
        let rho = (p[0] * p[0] + p[1] * p[1]).sqrt();
        let on_side = (rho - r).abs() < 1e-6 && p[2].abs() <= hh + 1e-6;
        let on_cap = (p[2].abs() - hh).abs() < 1e-6 && rho <= r + 1e-6;
        assert!(on_side || on_cap, "a cylinder vertex off the surface: {p:?}");
    }
    assert!(ids.contains(&1.0), "the tetrahedron is drawn");
    Ok(())
}

/// Random poses of every pair with a new shape: the contact invariants and the flip symmetry of
/// [`contacts`] hold, every value is finite, and a pair whose bounding boxes are farther apart
/// than the margin has no contact.
#[test]
fn random_pairs_with_the_new_shapes_are_consistent() {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    let mut rng = StdRng::seed_from_u64(19);
    let (tet, _) = tetrahedron(0.5);
    let shapes = [
        Shape::sphere(0.2).expect("s"),
        Shape::capsule(0.1, 0.3).expect("c"),
        Shape::cuboid([0.3, 0.2, 0.1]).expect("b"),
        Shape::cylinder(0.2, 0.3).expect("y"),
        unit_cube_hull(0.25),
        tet,
        floor_mesh(0.6),
        Shape::half_space(),
    ];
    let mut total = 0;
    for _ in 0..3000 {
        let i = rng.random_range(0..shapes.len());
        let j = rng.random_range(0..shapes.len());
        let (a, b) = (&shapes[i], &shapes[j]);
        let new = |s: &Shape| matches!(s, Shape::Cylinder { .. } | Shape::ConvexHull(_) | Shape::TriangleMesh(_));
        if a.is_static_only() && b.is_static_only() || !(new(a) || new(b)) {
            continue;
        }
        let mut pose = || {
            let p: V = [0, 1, 2].map(|_| rng.random_range(-0.6..0.6));
            let axis: V = [0, 1, 2].map(|_| rng.random_range(-1.0..1.0));
            Pose::from_axis_angle(p, axis, rng.random_range(0.0..PI))
        };
        let (pa, pb) = (pose(), pose());
        let margin = 0.05;
        let cs = contacts(a, &pa, b, &pb, margin);
        for c in &cs {
            assert!(c.point_a.iter().chain(&c.point_b).chain(&c.normal).all(|x| x.is_finite()));
            assert!(c.distance.is_finite());
        }
        if let (Some(ba), Some(bb)) = (a.aabb(&pa), b.aabb(&pb))
            && !ba.inflated(margin).intersects(&bb)
        {
            assert!(cs.is_empty(), "{} and {}: contacts between boxes apart: {cs:?}", a.kind_name(), b.kind_name());
        }
        total += cs.len();
    }
    assert!(total > 500, "too few contacts to test anything: {total}");
}
