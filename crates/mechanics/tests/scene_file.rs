//! Scene files: the round trip of a scene built in code (bit for bit over 200 steps), the
//! example scenes, typed errors with file, line and key, and a mutation test (no panics).

use std::path::PathBuf;
use std::str::FromStr;

use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::{Pose, Shape};
use nonsmooth_mechanics::lie::Quaternion;
use nonsmooth_mechanics::pile::uniform;
use nonsmooth_mechanics::scene::{BodySpec, Material, Scene, SceneBuilder, SceneJoint, StopSide};
use nonsmooth_mechanics::scene_file::SceneFile;

/// The repository's `examples/scenes` directory.
fn scenes_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes")
}

/// A small pile (27 spheres of two materials, jittered, with velocities) in an open box, a
/// tilted box and a capsule hanging from the ground by a pivot and a ball joint above it, a
/// stop on the pivot.
fn small_scene() -> SceneBuilder {
    let mut b = SceneBuilder::new().with_time_step(1e-3).with_final_time(1.0);
    let soft = Material::new(0.3, 0.0).unwrap();
    let hard = Material::new(0.7, 0.1).unwrap();
    b.add_open_box(0.4, soft).unwrap();
    let mut state = 7u64;
    for k in 0..27 {
        let (i, j, l) = (k % 3, (k / 3) % 3, k / 9);
        let r = 0.03 + 0.01 * uniform(&mut state);
        let p = [
            0.1 + 0.1 * i as f64 + 0.003 * uniform(&mut state),
            0.1 + 0.1 * j as f64 + 0.003 * uniform(&mut state),
            0.05 + 0.1 * l as f64,
        ];
        let v = [0.1 * uniform(&mut state) - 0.05, 0.1 * uniform(&mut state) - 0.05, -0.1 * uniform(&mut state)];
        let m = if k % 2 == 0 { soft } else { hard };
        b.add_body(
            BodySpec::new(Shape::sphere(r).unwrap(), 1000.0 + k as f64)
                .unwrap()
                .with_position(p)
                .with_velocity(v)
                .with_material(m),
        );
    }
    let q = Quaternion::from_axis_angle([0.3, 0.2, 1.0], 0.7).unwrap();
    let arm = b.add_body(
        BodySpec::new(Shape::cuboid([0.1, 0.02, 0.02]).unwrap(), 500.0)
            .unwrap()
            .with_position([0.3, 0.2, 0.6])
            .with_orientation(q)
            .with_angular_velocity([0.1, -0.2, 0.3]),
    );
    let bob =
        b.add_body(BodySpec::new(Shape::capsule(0.02, 0.03).unwrap(), 800.0).unwrap().with_position([0.45, 0.2, 0.6]));
    let pivot = b.add_joint(SceneJoint::Pivot { point: [0.2, 0.2, 0.6], axis: [0.0, 1.0, 0.0] }, arm, None).unwrap();
    b.add_joint(SceneJoint::Ball { point: [0.4, 0.2, 0.6] }, arm, Some(bob)).unwrap();
    b.add_joint_stop(pivot, StopSide::Lower, -0.8, 0.0).unwrap();
    b.set_pair_law(soft, hard, Material::new(0.05, 0.3).unwrap());
    b.add_static(
        Shape::cuboid([0.05, 0.05, 0.01]).unwrap(),
        Pose::from_axis_angle([0.2, 0.2, 0.01], [1.0, 1.0, 0.0], 0.1),
        hard,
    )
    .unwrap();
    b
}

fn states(scene: &Scene) -> Vec<u64> {
    (0..scene.number_of_bodies())
        .flat_map(|i| {
            let (q, v) = scene.body_state(i).unwrap();
            q.iter().chain(v).map(|x| x.to_bits()).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn a_scene_written_and_read_back_steps_bit_for_bit() {
    let builder = small_scene();
    let file = SceneFile::from_builder(&builder).unwrap();
    let text = file.to_string().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.toml");
    builder.to_file(&path).unwrap();
    let (mut b, read) = Scene::from_file(&path).unwrap();
    // Writing the file read back gives the same text: every float came back the same.
    assert_eq!(read.to_string().unwrap(), text);
    let mut a = builder.build().unwrap();
    assert_eq!(a.number_of_bodies(), 29);
    assert_eq!(a.number_of_joints(), b.number_of_joints());
    let mut contacts = 0;
    for step in 0..200 {
        a.step().unwrap();
        b.step().unwrap();
        contacts = contacts.max(a.number_of_contacts());
        assert!(states(&a) == states(&b), "states differ after step {}", step + 1);
    }
    assert!(contacts > 0, "the pile has contacts");
}

#[test]
fn floats_round_trip_exactly() {
    let mut state = 3u64;
    let mut b = SceneBuilder::new();
    for _ in 0..50 {
        let x = (uniform(&mut state) - 0.5) * 10f64.powi((uniform(&mut state) * 40.0) as i32 - 20);
        b.add_body(BodySpec::new(Shape::sphere(0.1).unwrap(), 1.0).unwrap().with_position([x, 1.0 / 3.0, 0.1 + 0.2]));
    }
    let text = SceneFile::from_builder(&b).unwrap().to_string().unwrap();
    let back = SceneFile::from_str(&text).unwrap().builder().unwrap();
    for (p, q) in b.bodies().iter().zip(back.bodies()) {
        assert_eq!(p.position().map(f64::to_bits), q.position().map(f64::to_bits));
        assert_eq!(p.mass().to_bits(), q.mass().to_bits());
    }
}

#[test]
fn the_example_scenes_load_build_and_run() {
    let pile = SceneFile::from_path(scenes_dir().join("pile.toml")).unwrap();
    assert_eq!(pile.output.every, 10);
    assert_eq!(pile.output.record.as_deref(), Some("pile.h5"));
    let mut scene = pile.build().unwrap();
    assert_eq!(scene.number_of_bodies(), 1000);
    assert_eq!(scene.statics().len(), 5);
    // The generator gives the pile of the benchmarks: the same lattice, jitter and seed.
    let reference = nonsmooth_mechanics::pile::SpherePile::default().initial_positions();
    for (i, p) in reference.iter().enumerate() {
        let (q, _) = scene.body_state(i).unwrap();
        for k in 0..3 {
            assert!((q[k] - p[k]).abs() < 1e-12, "sphere {i}: {q:?} vs {p:?}");
        }
    }
    for _ in 0..3 {
        scene.step().unwrap();
    }
    let chain = SceneFile::from_path(scenes_dir().join("pendulum_chain.toml")).unwrap();
    let mut scene = chain.build().unwrap();
    assert_eq!((scene.number_of_bodies(), scene.number_of_joints()), (4, 4));
    let z0 = scene.body_state(3).unwrap().0[2];
    for _ in 0..50 {
        scene.step().unwrap();
    }
    let z = scene.body_state(3).unwrap().0[2];
    assert!(z < z0 - 1e-3, "the chain falls: z {z0} → {z}");
    let drift = scene.joint_drift().unwrap();
    assert!(drift < 1e-4, "drift {drift}");
    let crank = SceneFile::from_path(scenes_dir().join("slider_crank.toml")).unwrap();
    let mut scene = crank.build().unwrap();
    assert_eq!((scene.number_of_bodies(), scene.number_of_joints()), (3, 4));
    let x0 = scene.body_state(2).unwrap().0[0];
    let mut x_max = x0;
    for _ in 0..100 {
        scene.step().unwrap();
        x_max = x_max.max(scene.body_state(2).unwrap().0[0]);
    }
    let drift = scene.joint_drift().unwrap();
    println!("slider-crank: slider x {x0} → max {x_max}, drift {drift:e}");
    // The slider moves out and is held by the stop at x_C(0) + 0.135.
    assert!(x_max > x0 + 0.05 && x_max < x0 + 0.135 + 1e-3, "slider x {x0} → max {x_max}");
    let drift = scene.joint_drift().unwrap();
    assert!(drift < 1e-4, "drift {drift}");
}

#[test]
fn generators_are_deterministic_and_place_spheres_apart() {
    let text = r#"
[[static]]
shape = "half_space"

[[generate]]
kind = "random"
count = 400
radius = [0.01, 0.02]
box_min = [0.0, 0.0, 0.0]
box_max = [0.5, 0.5, 0.5]
seed = 9
"#;
    let a = SceneFile::from_str(text).unwrap().builder().unwrap();
    let b = SceneFile::from_str(text).unwrap().builder().unwrap();
    assert_eq!(a.bodies(), b.bodies());
    assert_eq!(a.bodies().len(), 400);
    let rad = |s: &BodySpec| match s.shape() {
        Shape::Sphere { radius } => *radius,
        _ => panic!("not a sphere"),
    };
    for (i, p) in a.bodies().iter().enumerate() {
        let r = rad(p);
        assert!((0.01..=0.02).contains(&r));
        for k in 0..3 {
            assert!(p.position()[k] >= r && p.position()[k] <= 0.5 - r);
        }
        for q in &a.bodies()[..i] {
            let d: f64 = (0..3).map(|k| (p.position()[k] - q.position()[k]).powi(2)).sum::<f64>().sqrt();
            assert!(d >= r + rad(q), "overlap");
        }
    }
    let other = SceneFile::from_str(&text.replace("seed = 9", "seed = 10")).unwrap().builder().unwrap();
    assert_ne!(a.bodies(), other.bodies());
}

/// The error of loading and building `text`, with its line and key.
fn error(text: &str) -> (usize, String, String) {
    match SceneFile::from_str(text).and_then(|f| f.build().map(|_| ())) {
        Err(MechanicsError::SceneFile { path, line, key, reason }) => {
            assert_eq!(path, PathBuf::from("<string>"));
            (line, key, reason)
        }
        other => panic!("expected a scene file error, got {other:?}"),
    }
}

#[test]
fn bad_files_name_the_line_and_the_key() {
    let body = "[simulation]\nh = 1e-3\n\n[[body]]\nshape = \"sphere\"\nradius = 0.1\ndensity = 1000.0\n";
    // Unknown key.
    let (line, key, reason) = error(&format!("{body}colour = \"red\"\n"));
    assert_eq!((line, key.as_str()), (8, "colour"), "{reason}");
    assert!(reason.contains("unknown field"), "{reason}");
    // Wrong type.
    let (line, key, _) = error(&body.replace("radius = 0.1", "radius = \"big\""));
    assert_eq!((line, key.as_str()), (6, "\"big\""));
    // Syntax error.
    let (line, _, _) = error("[simulation]\nh = = 1\n");
    assert_eq!(line, 2);
    // Negative mass.
    let (line, key, reason) = error(&body.replace("density = 1000.0", "mass = -1.0\ninertia = [1.0, 1.0, 1.0]"));
    assert_eq!((line, key.as_str()), (7, "body[0].mass"), "{reason}");
    // μ < 0.
    let (line, key, reason) = error(&format!("{body}material = \"ice\"\n\n[materials.ice]\nfriction = -0.1\n"));
    assert_eq!((line, key.as_str()), (11, "materials.ice.friction"), "{reason}");
    assert!(reason.contains("friction"), "{reason}");
    // Unknown shape.
    let (line, key, reason) = error(&body.replace("\"sphere\"", "\"torus\""));
    assert_eq!((line, key.as_str()), (5, "body[0].shape"), "{reason}");
    // A joint on a missing body.
    let (line, key, reason) =
        error(&format!("{body}\n[[joint]]\nkind = \"ball\"\nbody = 0\nother = 5\npoint = [0.0, 0.0, 0.0]\n"));
    assert_eq!((line, key.as_str()), (12, "joint[0].other"), "{reason}");
    // Bad options.
    let (line, key, _) = error(&body.replace("h = 1e-3", "h = -1e-3"));
    assert_eq!((line, key.as_str()), (2, "simulation.h"));
    let (line, key, _) = error(&format!("{body}\n[solver]\nmethod = \"magic\"\n"));
    assert_eq!((line, key.as_str()), (10, "solver.method"));
    // The file's name is in the error.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, body.replace("\"sphere\"", "\"torus\"")).unwrap();
    let e = SceneFile::from_path(&path).and_then(|f| f.build().map(|_| ())).unwrap_err();
    assert!(e.to_string().starts_with(&format!("{}:5: body[0].shape:", path.display())), "{e}");
}

/// Mutates `text` once: deletes, duplicates or swaps a line, changes a character, or replaces a
/// value with a random one.
fn mutate(text: &str, state: &mut u64) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let pick = |state: &mut u64, n: usize| ((uniform(state) * n as f64) as usize).min(n.saturating_sub(1));
    let i = pick(state, lines.len());
    match pick(state, 5) {
        0 => {
            lines.remove(i);
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 => {
            let j = pick(state, lines.len());
            lines.swap(i, j);
        }
        3 => {
            let mut chars: Vec<char> = lines[i].chars().collect();
            if !chars.is_empty() {
                let k = pick(state, chars.len());
                let set = ['0', '9', '-', '.', 'e', '"', '[', ']', '=', ' ', 'x', ',', '#', '\u{e9}'];
                chars[k] = set[pick(state, set.len())];
            }
            lines[i] = chars.into_iter().collect();
        }
        _ => {
            if let Some(eq) = lines[i].find('=') {
                let values = [
                    "-1",
                    "0",
                    "1",
                    "1e300",
                    "-0.0",
                    "nan",
                    "inf",
                    "\"x\"",
                    "true",
                    "[]",
                    "[1.0, 2.0]",
                    "12345678",
                    "[0.0, 0.0, 0.0]",
                    "-1e-3",
                    "\"lattice\"",
                    "\"random\"",
                    "2.5",
                    "{ a = 1 }",
                ];
                lines[i] = format!("{}= {}", &lines[i][..eq], values[pick(state, values.len())]);
            }
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_scene_files_load_or_fail_with_a_typed_error() {
    let dir = scenes_dir();
    // The pile with fewer spheres, so that thousands of builds stay fast.
    let pile = std::fs::read_to_string(dir.join("pile.toml")).unwrap().replace("count = 1000", "count = 27");
    let chain = std::fs::read_to_string(dir.join("pendulum_chain.toml")).unwrap();
    let crank = std::fs::read_to_string(dir.join("slider_crank.toml")).unwrap();
    let mut state = 2026u64;
    let (mut ok, mut failed) = (0, 0);
    for n in 0..3000 {
        let mut text = [&pile, &chain, &crank][n % 3].clone();
        for _ in 0..1 + (n / 3) % 3 {
            text = mutate(&text, &mut state);
        }
        let outcome = std::panic::catch_unwind(|| SceneFile::from_str(&text).and_then(|f| f.build().map(|_| ())));
        match outcome {
            Ok(Ok(())) => ok += 1,
            Ok(Err(MechanicsError::SceneFile { .. })) => failed += 1,
            Ok(Err(e)) => panic!("untyped error {e} for\n{text}"),
            Err(_) => panic!("panic for\n{text}"),
        }
    }
    println!("mutations: {ok} built, {failed} refused");
    assert!(ok > 100 && failed > 100, "{ok} built, {failed} refused");
}

#[test]
fn the_documented_example_builds() {
    let doc =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/scene-format.md")).unwrap();
    let start = doc.find("```toml\n").expect("an example") + "```toml\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let file = SceneFile::from_str(&doc[start..end]).unwrap();
    let mut scene = file.build().unwrap();
    assert_eq!((scene.number_of_bodies(), scene.number_of_joints()), (1002, 2));
    scene.step().unwrap();
}

#[test]
fn a_pile_of_twenty_thousand_spheres_is_a_few_lines() {
    for kind in ["lattice", "random"] {
        let text = format!(
            "[[static]]\nshape = \"open_box\"\nside = 3.0\n\n[[generate]]\nkind = \"{kind}\"\ncount = 20000\n\
             radius = [0.03, 0.05]\nbox_min = [0.0, 0.0, 0.0]\nbox_max = [3.0, 3.0, 6.0]\nseed = 1\n"
        );
        let start = std::time::Instant::now();
        let scene = SceneFile::from_str(&text).unwrap().build().unwrap();
        println!("{kind}: 20000 spheres built in {:.3} s", start.elapsed().as_secs_f64());
        assert_eq!(scene.number_of_bodies(), 20000);
    }
}

#[test]
fn a_pair_law_replaces_the_mean_of_two_materials() {
    let text = |pair: &str| {
        format!(
            "[materials.floor]\nfriction = 0.8\n\n[materials.puck]\nfriction = 0.8\n\n{pair}\
             [[static]]\nshape = \"half_space\"\nmaterial = \"floor\"\n\n[[body]]\nshape = \"sphere\"\n\
             radius = 0.1\ndensity = 1000.0\nposition = [0.0, 0.0, 0.1]\nvelocity = [1.0, 0.0, 0.0]\n\
             material = \"puck\"\n"
        )
    };
    let slide = |text: String| {
        let mut scene = SceneFile::from_str(&text).unwrap().build().unwrap();
        for _ in 0..100 {
            scene.step().unwrap();
        }
        let (_, v) = scene.body_state(0).unwrap();
        v[0]
    };
    // μ = 0.8 rolls the sphere at once (v = 5/7 of 1 m/s); a frictionless pair keeps it sliding.
    let mean = slide(text(""));
    let pair = slide(text("[[material_pair]]\na = \"puck\"\nb = \"floor\"\nfriction = 0.0\n\n"));
    assert!((mean - 5.0 / 7.0).abs() < 1e-3, "mean law: v = {mean}");
    assert!((pair - 1.0).abs() < 1e-9, "pair law: v = {pair}");
    let (line, key, _) = error(&text("[[material_pair]]\na = \"puck\"\nb = \"ice\"\nfriction = 0.0\n\n"));
    assert_eq!((line, key.as_str()), (9, "material_pair[0].b"));
}
