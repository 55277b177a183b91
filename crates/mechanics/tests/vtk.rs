//! The ParaView time series of a scene read back with an independent VTK reader (the `vtkio`
//! crate): the collections list every frame, and every file holds the points, cells and arrays
//! the scene's API gives.

use std::collections::HashMap;
use std::path::Path;

use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::{Pose, Shape};
use nonsmooth_mechanics::lie::Quaternion;
use nonsmooth_mechanics::output::vtk::{VtkSeries, VtkSeriesOptions};
use nonsmooth_mechanics::scene::{BodySpec, ContactPartner, ContactView, Material, Scene, SceneBuilder};
use vtkio::model::{Attribute, DataSet, IOBuffer, Piece, PolyDataPiece, VertexNumbers};

/// Three spheres, a box and a capsule dropped on the ground next to a wall and a fixed box.
fn small_scene() -> Result<Scene, MechanicsError> {
    let r = 0.05;
    let mut b = SceneBuilder::new().with_time_step(1e-3).with_final_time(0.3);
    let material = Material::new(0.4, 0.0)?;
    b.add_ground(0.0, material)?;
    b.add_wall([-0.2, 0.0, 0.0], [1.0, 0.0, 0.0], material)?;
    b.add_static(Shape::cuboid([0.05, 0.05, 0.05])?, Pose::from_translation([0.5, 0.0, 0.05]), material)?;
    let sphere = BodySpec::new(Shape::sphere(r)?, 1000.0)?.with_material(material);
    b.add_body(sphere.clone().with_position([0.0, 0.0, r]));
    b.add_body(sphere.clone().with_position([0.0, 0.0, 3.2 * r]).with_velocity([0.1, 0.0, 0.0]));
    b.add_body(sphere.with_position([-0.12, 0.02, 0.2]));
    let tilt = Quaternion::from_axis_angle([1.0, 0.3, 0.0], 0.2)?;
    b.add_body(
        BodySpec::new(Shape::cuboid([0.08, 0.05, 0.03])?, 500.0)?
            .with_position([0.25, 0.0, 0.1])
            .with_orientation(tilt),
    );
    b.add_body(
        BodySpec::new(Shape::capsule(0.03, 0.06)?, 800.0)?
            .with_position([0.25, 0.25, 0.1])
            .with_orientation(Quaternion::from_axis_angle([0.0, 1.0, 0.0], 1.2)?),
    );
    b.build()
}

/// What the scene's API says of one frame.
struct Expected {
    time: f64,
    states: Vec<(Vec<f64>, Vec<f64>)>,
    contacts: Vec<ContactView>,
}

fn polydata(path: &Path) -> PolyDataPiece {
    let vtk = vtkio::Vtk::import(path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    let DataSet::PolyData { pieces, .. } = vtk.data else { panic!("{}: not PolyData", path.display()) };
    assert_eq!(pieces.len(), 1);
    match pieces.into_iter().next() {
        Some(Piece::Inline(piece)) => *piece,
        _ => panic!("{}: not an inline piece", path.display()),
    }
}

fn f64s(data: &IOBuffer) -> Vec<f64> {
    match data {
        IOBuffer::F64(v) => v.clone(),
        IOBuffer::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        other => panic!("unexpected buffer {other:?}"),
    }
}

fn ints(data: &IOBuffer) -> Vec<i64> {
    match data {
        IOBuffer::I32(v) => v.iter().map(|&x| i64::from(x)).collect(),
        other => panic!("expected Int32 values, found {other:?}"),
    }
}

/// The arrays of `attributes` by name: (components, values).
fn arrays(attributes: &[Attribute]) -> HashMap<String, (u32, IOBuffer)> {
    attributes
        .iter()
        .map(|a| match a {
            Attribute::DataArray(d) => (d.name.clone(), (d.elem.num_comp(), d.data.clone())),
            Attribute::Field { name, .. } => panic!("unexpected field {name}"),
        })
        .collect()
}

fn cells(v: &Option<VertexNumbers>) -> (Vec<u64>, Vec<u64>) {
    match v {
        Some(VertexNumbers::XML { connectivity, offsets }) => (connectivity.clone(), offsets.clone()),
        Some(VertexNumbers::Legacy { .. }) => panic!("legacy cells"),
        None => (Vec::new(), Vec::new()),
    }
}

/// `(timestep, part, file)` of every dataset of a collection.
fn collection(path: &Path) -> Vec<(f64, usize, String)> {
    let text = std::fs::read_to_string(path).expect("a collection");
    assert!(text.contains("<VTKFile type=\"Collection\"") && text.trim_end().ends_with("</VTKFile>"));
    let attribute = |line: &str, key: &str| -> String {
        let start = line.find(&format!(" {key}=\"")).expect("an attribute") + key.len() + 3;
        line[start..].split('"').next().expect("a value").to_owned()
    };
    text.lines()
        .filter(|l| l.starts_with("<DataSet"))
        .map(|l| {
            (
                attribute(l, "timestep").parse().expect("a time"),
                attribute(l, "part").parse().expect("a part"),
                attribute(l, "file"),
            )
        })
        .collect()
}

#[test]
fn a_series_reads_back_with_vtkio() -> Result<(), MechanicsError> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut scene = small_scene()?;
    let options = VtkSeriesOptions::default().with_sphere_subdivisions(1);
    let mut series = VtkSeries::with_options(dir.path(), "run", options)?;
    assert!(collection(&dir.path().join("run.pvd")).is_empty(), "an empty collection is written up front");
    let every = 60;
    let mut expected = Vec::new();
    let mut record = |scene: &Scene, series: &mut VtkSeries| -> Result<(), MechanicsError> {
        series.write_frame(scene)?;
        let states = (0..scene.number_of_bodies())
            .map(|i| scene.body_state(i).map(|(q, v)| (q.to_vec(), v.to_vec())))
            .collect::<Result<_, _>>()?;
        expected.push(Expected { time: scene.time(), states, contacts: scene.contacts().collect() });
        // The collection is valid after every frame.
        assert_eq!(collection(&dir.path().join("run.pvd")).len(), 4 * expected.len());
        Ok(())
    };
    record(&scene, &mut series)?;
    while scene.has_next_step() {
        scene.step()?;
        if scene.steps_done() % every == 0 {
            record(&scene, &mut series)?;
        }
    }
    let frames = expected.len();
    assert_eq!(frames, 6);
    assert_eq!(series.frames(), frames);
    assert!(!expected[frames - 1].contacts.is_empty());
    assert!(expected[frames - 1].contacts.iter().any(|c| matches!(c.partner, ContactPartner::Body(_))));

    // The collections: all parts, then one per kind.
    let all = collection(&series.collection_path());
    for (k, e) in expected.iter().enumerate() {
        for part in 0..4 {
            let (t, p, file) = &all[4 * k + part];
            assert_eq!((t.to_bits(), *p), (e.time.to_bits(), part));
            assert_eq!(*file, series.file_name(["bodies", "centres", "contacts", "statics"][part], k));
        }
    }
    for kind in ["bodies", "centres", "contacts"] {
        let list = collection(&dir.path().join(format!("run_{kind}.pvd")));
        assert_eq!(list.len(), frames);
        assert!(list.iter().enumerate().all(|(k, (_, _, f))| *f == series.file_name(kind, k)));
    }

    // Sizes of the tessellations: icosphere of one subdivision, box, capsule of 3 rings of 12.
    let radius = [0.05, 0.05, 0.05];
    let vertices_per_body = [42, 42, 42, 8, 2 + 2 * 3 * 12];
    let polygons_per_body = [80, 80, 80, 6, 2 * 12 + (2 * 3 - 1) * 12];
    for (k, e) in expected.iter().enumerate() {
        // Centres: exact values.
        let centres = polydata(&dir.path().join(series.file_name("centres", k)));
        assert_eq!(centres.num_points(), 5);
        let points = f64s(&centres.points);
        let a = arrays(&centres.data.point);
        assert_eq!(a.len(), 8, "{:?}", a.keys());
        let (_, velocity) = &a["velocity"];
        let (_, orientation) = &a["orientation"];
        let (_, omega) = &a["angular_velocity_body"];
        let (velocity, orientation, omega) = (f64s(velocity), f64s(orientation), f64s(omega));
        for (i, (q, v)) in e.states.iter().enumerate() {
            for c in 0..3 {
                assert_eq!(points[3 * i + c].to_bits(), q[c].to_bits());
                assert_eq!(velocity[3 * i + c].to_bits(), v[c].to_bits());
                assert_eq!(omega[3 * i + c].to_bits(), v[3 + c].to_bits());
            }
            for c in 0..4 {
                assert_eq!(orientation[4 * i + c].to_bits(), q[3 + c].to_bits());
            }
        }
        assert_eq!(ints(&a["shape"].1), vec![0, 0, 0, 1, 2]);
        assert_eq!(a["orientation"].0, 4);
        assert_eq!(cells(&centres.verts).1.len(), 5);

        // Contacts: exact values.
        let contacts = polydata(&dir.path().join(series.file_name("contacts", k)));
        assert_eq!(contacts.num_points(), e.contacts.len());
        let a = arrays(&contacts.data.point);
        assert_eq!(a.len(), 10, "{:?}", a.keys());
        let points = f64s(&contacts.points);
        let (normal, gap, force, impulse) =
            (f64s(&a["normal"].1), f64s(&a["gap"].1), f64s(&a["normal_force"].1), f64s(&a["impulse"].1));
        let (body, partner_body, partner_static) =
            (ints(&a["body"].1), ints(&a["partner_body"].1), ints(&a["partner_static"].1));
        for (j, c) in e.contacts.iter().enumerate() {
            assert_eq!(gap[j].to_bits(), c.gap.to_bits());
            assert_eq!(body[j], c.body as i64);
            match c.partner {
                ContactPartner::Body(b) => assert_eq!((partner_body[j], partner_static[j]), (b as i64, -1)),
                ContactPartner::Static(s) => assert_eq!((partner_body[j], partner_static[j]), (-1, s as i64)),
            }
            for d in 0..3 {
                assert_eq!(points[3 * j + d].to_bits(), c.midpoint()[d].to_bits());
                assert_eq!(normal[3 * j + d].to_bits(), c.normal()[d].to_bits());
                assert_eq!(force[3 * j + d].to_bits(), c.normal_force()[d].to_bits());
                assert_eq!(impulse[3 * j + d].to_bits(), c.impulse[d].to_bits());
            }
        }

        // Bodies: the surfaces around the centres (single precision).
        let bodies = polydata(&dir.path().join(series.file_name("bodies", k)));
        assert_eq!(bodies.num_points(), vertices_per_body.iter().sum::<usize>());
        let (connectivity, offsets) = cells(&bodies.polys);
        assert_eq!(offsets.len(), polygons_per_body.iter().sum::<usize>());
        assert_eq!(offsets.last().copied(), Some(connectivity.len() as u64));
        assert!(connectivity.iter().all(|&v| (v as usize) < bodies.num_points()));
        let a = arrays(&bodies.data.point);
        assert_eq!(a.len(), 4, "{:?}", a.keys());
        let ids = ints(&a["body"].1);
        let points = f64s(&bodies.points);
        let mut first = 0;
        for (i, &count) in vertices_per_body.iter().enumerate() {
            assert!(ids[first..first + count].iter().all(|&b| b == i as i64));
            if i < 3 {
                let q = &e.states[i].0;
                for v in first..first + count {
                    let d = (0..3).map(|c| (points[3 * v + c] - q[c]).powi(2)).sum::<f64>().sqrt();
                    assert!((d - radius[i]).abs() < 1e-6, "sphere {i}: vertex at {d}");
                }
            }
            first += count;
        }
    }

    // Static shapes: the ground and the wall as squares, the fixed box as six faces.
    let statics = polydata(&dir.path().join(series.file_name("statics", 0)));
    assert_eq!(statics.num_points(), 4 + 4 + 8);
    let (_, offsets) = cells(&statics.polys);
    assert_eq!(offsets.len(), 1 + 1 + 6);
    let a = arrays(&statics.data.cell);
    assert_eq!(ints(&a["static"].1), vec![0, 1, 2, 2, 2, 2, 2, 2]);
    assert_eq!(ints(&a["shape"].1), vec![3, 3, 1, 1, 1, 1, 1, 1]);
    let points = f64s(&statics.points);
    assert!((0..4).all(|v| points[3 * v + 2] == 0.0), "the ground square lies in z = 0");
    assert!((4..8).all(|v| (points[3 * v] + 0.2).abs() < 1e-15), "the wall square lies in x = −0.2");
    Ok(())
}

#[test]
fn bad_directories_and_names_are_typed_errors() -> Result<(), MechanicsError> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("missing");
    assert!(matches!(VtkSeries::create(&missing, "run"), Err(MechanicsError::Io { .. })));
    let file = dir.path().join("file");
    std::fs::write(&file, "x").expect("a file");
    assert!(matches!(VtkSeries::create(&file, "run"), Err(MechanicsError::Io { .. })));
    assert!(matches!(VtkSeries::create(dir.path(), ""), Err(MechanicsError::Kernel(_))));
    assert!(matches!(VtkSeries::create(dir.path(), "a/b"), Err(MechanicsError::Kernel(_))));
    let nan = VtkSeriesOptions::default().with_half_space_extent(f64::NAN);
    assert!(matches!(VtkSeries::with_options(dir.path(), "run", nan), Err(MechanicsError::Kernel(_))));

    Ok(())
}
