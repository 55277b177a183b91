//! The runner and its HDF5 run record: a small run read back with `hdf5-pure` holds, at every
//! recorded step, what the scene's API says of a twin scene stepped by hand; the runner's errors
//! (an unwritable output, a diverged scene, a zero output period) are typed, and the record
//! keeps the steps before a failure.

use std::path::Path;

use nonsmooth_mechanics::MechanicsError;
use nonsmooth_mechanics::geometry::Shape;
use nonsmooth_mechanics::output::record::{PHASES, RecordQuantities};
use nonsmooth_mechanics::run::{RunProgress, RunSettings, remaining_steps, run_scene};
use nonsmooth_mechanics::scene::{
    BodySpec, ContactPartner, Material, Scene, SceneBuilder, SceneNonConvergence, SceneOptions,
};

/// Two spheres on the ground (one resting, one falling onto it from the side) and a third
/// sphere at `position` with `velocity`, `h = 1e-3`, to `t_end`.
fn spheres(position: [f64; 3], velocity: [f64; 3], t_end: f64) -> Result<Scene, MechanicsError> {
    let mut b = SceneBuilder::new()
        .with_options(SceneOptions::default().with_policy(SceneNonConvergence::Continue))
        .with_time_step(1e-3)
        .with_final_time(t_end);
    b.add_ground(0.0, Material::new(0.5, 0.0)?)?;
    let sphere = BodySpec::new(Shape::sphere(0.1)?, 1000.0)?.with_material(Material::new(0.5, 0.0)?);
    b.add_body(sphere.clone().with_position([0.0, 0.0, 0.1]));
    b.add_body(sphere.clone().with_position([0.05, 0.0, 0.3]).with_velocity([0.0, 0.0, -1.0]));
    b.add_body(sphere.with_position(position).with_velocity(velocity));
    b.build()
}

fn read_f64(file: &hdf5_pure::File, path: &str) -> (Vec<u64>, Vec<f64>) {
    let ds = file.dataset(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (ds.shape().expect("shape"), ds.read_f64().expect("f64 values"))
}

fn read_u64(file: &hdf5_pure::File, path: &str) -> (Vec<u64>, Vec<u64>) {
    let ds = file.dataset(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (ds.shape().expect("shape"), ds.read_u64().expect("u64 values"))
}

/// A contact as recorded: body, partner, point, normal, gap, impulse, active.
type ContactRow = (u64, i64, [f64; 3], [f64; 3], f64, [f64; 3], u8);

/// What the scene's API says of one recorded step.
struct Expected {
    step: u64,
    time: f64,
    frames: Vec<[f64; 13]>,
    contacts: Vec<ContactRow>,
    solver: (u8, u64, f64),
}

fn expected(scene: &Scene, r: &nonsmooth_mechanics::scene::SceneStepReport) -> Expected {
    let frames = scene
        .frames()
        .iter()
        .map(|f| {
            let mut v = [0.0; 13];
            v[..3].copy_from_slice(&f.position);
            v[3..7].copy_from_slice(&f.orientation);
            v[7..10].copy_from_slice(&f.velocity);
            v[10..].copy_from_slice(&f.angular_velocity);
            v
        })
        .collect();
    let contacts = scene
        .contacts()
        .map(|c| {
            let partner = match c.partner {
                ContactPartner::Body(j) => j as i64,
                ContactPartner::Static(s) => -1 - s as i64,
            };
            (c.body as u64, partner, c.point, c.normal(), c.gap, c.impulse, u8::from(c.active))
        })
        .collect();
    let solver = r
        .solver()
        .map_or((0, 0, f64::NAN), |s| (if s.is_converged() { 1 } else { 2 }, s.iterations as u64, s.residual));
    Expected { step: r.step.step as u64, time: scene.time(), frames, contacts, solver }
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn a_run_record_reads_back_as_the_scene_stepped_by_hand() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let every = 3;
    // The twin, stepped by hand: the expected records at steps 3, 6, ..., and the last (50).
    let mut twin = spheres([0.5, 0.0, 0.1], [0.2, 0.0, 0.0], 0.05)?;
    assert_eq!(remaining_steps(&twin), 50);
    let mut want = Vec::new();
    let mut k = 0;
    while twin.has_next_step() {
        let r = twin.step()?;
        k += 1;
        if k % every == 0 || !twin.has_next_step() {
            want.push(expected(&twin, &r));
        }
    }
    assert_eq!(k, 50);
    let mut scene = spheres([0.5, 0.0, 0.1], [0.2, 0.0, 0.0], 0.05)?;
    let settings = RunSettings {
        vtk_dir: Some(dir.path().join("out")),
        record: Some(dir.path().join("out/run.h5")),
        csv: Some(dir.path().join("csv/run.csv")),
        every,
        ..RunSettings::default()
    };
    let mut seen: Vec<RunProgress> = Vec::new();
    let report = run_scene(&mut scene, &settings, &mut |p| seen.push(*p))?;
    assert_eq!(report.steps, 50);
    assert_eq!(seen.len(), 50);
    assert!(seen.iter().enumerate().all(|(i, p)| p.step == i + 1 && p.steps == 50));
    assert_eq!(report.records, want.len());
    assert_eq!(want.len(), 17);
    // Initial frame plus one per record.
    assert_eq!(report.frames, want.len() + 1);
    assert_eq!(report.convergence, scene.run_summary());
    assert!(report.times.total() <= report.wall);
    assert!(report.times.solve > std::time::Duration::ZERO && report.times.output > std::time::Duration::ZERO);
    let record = report.record.clone().expect("a record");
    assert_eq!(record, dir.path().join("out/run.h5"));
    assert!(report.vtk.as_deref().is_some_and(Path::exists));

    let csv = std::fs::read_to_string(dir.path().join("csv/run.csv"))?;
    assert_eq!(csv.lines().count(), 1 + 3 * want.len(), "a header and three bodies per record");

    let file = hdf5_pure::File::open(&record)?;
    let n = want.len() as u64;
    let attrs = file.root().attrs()?;
    assert_eq!(attrs.get("time_step"), Some(&hdf5_pure::AttrValue::F64(1e-3)));
    assert_eq!(attrs.get("every"), Some(&hdf5_pure::AttrValue::U64(3)));
    let (shape, time) = read_f64(&file, "time");
    assert_eq!(shape, [n]);
    let (_, step) = read_u64(&file, "step");
    let mut states = Vec::new();
    for (name, k) in [("position", 3usize), ("orientation", 4), ("velocity", 3), ("angular_velocity", 3)] {
        let (shape, v) = read_f64(&file, &format!("bodies/{name}"));
        assert_eq!(shape, [n, 3, k as u64], "bodies/{name}");
        states.push((v, k));
    }
    let (shape, offset) = read_u64(&file, "contacts/offset");
    assert_eq!(shape, [n + 1]);
    let (_, body) = read_u64(&file, "contacts/body");
    let partner = file.dataset("contacts/partner")?.read_i64()?;
    let (pshape, point) = read_f64(&file, "contacts/point");
    let (_, normal) = read_f64(&file, "contacts/normal");
    let (_, gap) = read_f64(&file, "contacts/gap");
    let (_, impulse) = read_f64(&file, "contacts/impulse");
    let active = file.dataset("contacts/active")?.read_u8()?;
    let m = *offset.last().expect("offsets");
    assert_eq!(pshape, [m, 3]);
    assert!(m > 0, "the spheres touch the ground and each other");
    let status = file.dataset("solver/status")?.read_u8()?;
    let (_, iterations) = read_u64(&file, "solver/iterations");
    let (_, error) = read_f64(&file, "solver/error");
    let mut output = 0.0;
    for phase in PHASES {
        let (shape, t) = read_f64(&file, &format!("timings/{phase}"));
        assert_eq!(shape, [n]);
        assert!(t.iter().all(|x| x.is_finite() && *x >= 0.0), "timings/{phase}");
        if phase == "output" {
            output = t.iter().sum();
        }
    }
    assert!(output > 0.0, "the VTK frames take time");
    let mut any_impulse = false;
    for (k, w) in want.iter().enumerate() {
        assert_eq!(step[k], w.step);
        assert!(same(time[k], w.time));
        for (b, f) in w.frames.iter().enumerate() {
            let mut at = 0;
            for (v, len) in &states {
                let base = (k * 3 + b) * len;
                for i in 0..*len {
                    assert!(same(v[base + i], f[at + i]), "record {k} body {b}");
                }
                at += len;
            }
        }
        let (lo, hi) = (offset[k] as usize, offset[k + 1] as usize);
        assert_eq!(hi - lo, w.contacts.len(), "contacts of record {k}");
        for (c, (b, p, pt, nrm, g, imp, act)) in (lo..hi).zip(&w.contacts) {
            assert_eq!((body[c], partner[c], active[c]), (*b, *p, *act));
            assert!((0..3).all(|i| same(point[3 * c + i], pt[i]) && same(normal[3 * c + i], nrm[i])));
            assert!((0..3).all(|i| same(impulse[3 * c + i], imp[i])));
            assert!(same(gap[c], *g));
            any_impulse |= imp[0] > 0.0;
        }
        assert_eq!((status[k], iterations[k]), (w.solver.0, w.solver.1));
        assert!(same(error[k], w.solver.2));
    }
    assert!(any_impulse, "the ground carries the resting sphere");
    assert!(partner.contains(&-1) && partner.iter().any(|&p| p >= 0), "ground and sphere contacts");
    Ok(())
}

#[test]
fn a_run_without_outputs_writes_nothing_and_max_steps_bounds_it() -> Result<(), MechanicsError> {
    let mut scene = spheres([0.5, 0.0, 0.1], [0.0; 3], 0.05)?;
    let settings = RunSettings { max_steps: Some(7), ..RunSettings::default() };
    let report = run_scene(&mut scene, &settings, &mut |_| {}).map_err(|f| f.error)?;
    assert_eq!((report.steps, scene.steps_done(), report.records, report.frames), (7, 7, 0, 0));
    assert!(report.record.is_none() && report.vtk.is_none());
    Ok(())
}

#[test]
fn an_unwritable_output_folder_fails_before_any_step() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("a_file");
    std::fs::write(&file, "not a folder")?;
    let mut scene = spheres([0.5, 0.0, 0.1], [0.0; 3], 0.05)?;
    let settings = RunSettings { vtk_dir: Some(file.join("out")), ..RunSettings::default() };
    let failure = run_scene(&mut scene, &settings, &mut |_| {}).expect_err("the folder cannot be made");
    assert!(matches!(failure.error, MechanicsError::Io { .. }), "{failure}");
    assert_eq!((failure.report.steps, scene.steps_done()), (0, 0));
    let settings = RunSettings { every: 0, ..RunSettings::default() };
    let failure = run_scene(&mut scene, &settings, &mut |_| {}).expect_err("every = 0");
    assert!(matches!(failure.error, MechanicsError::Kernel(_)), "{failure}");
    Ok(())
}

#[test]
fn a_diverged_scene_stops_the_run_with_its_error_and_the_record_keeps_the_steps_before()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    // x = 1 + 1e305 k passes f64::MAX at step 1798.
    let mut scene = spheres([1.0, 0.0, 1.0], [1e308, 0.0, 0.0], 3.0)?;
    let settings = RunSettings { record: Some(dir.path().join("run.h5")), every: 100, ..RunSettings::default() };
    let failure = run_scene(&mut scene, &settings, &mut |_| {}).expect_err("the scene diverges");
    let MechanicsError::NonFiniteBody { step, body, .. } = failure.error else {
        panic!("expected NonFiniteBody, got {:?}", failure.error)
    };
    assert_eq!((body, failure.report.steps), (2, step - 1));
    assert_eq!(failure.report.records, (step - 1) / 100);
    let file = hdf5_pure::File::open(dir.path().join("run.h5"))?;
    let (shape, steps) = read_u64(&file, "step");
    assert_eq!(shape, [failure.report.records as u64]);
    assert_eq!(steps.last().copied(), Some(100 * failure.report.records as u64));
    Ok(())
}

/// A record asked for positions and the solver only holds those groups (with time, step and
/// timings), and their values are those of the full record.
#[test]
fn a_record_holds_the_quantities_asked_for() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let quantities = RecordQuantities { positions: true, velocities: false, contacts: false, solver: true };
    let run = |name: &str, quantities: RecordQuantities| -> Result<(), Box<dyn std::error::Error>> {
        let mut scene = spheres([0.5, 0.0, 0.1], [0.2, 0.0, 0.0], 0.05)?;
        let settings = RunSettings {
            record: Some(dir.path().join(name)),
            every: 5,
            max_steps: Some(20),
            quantities,
            ..RunSettings::default()
        };
        run_scene(&mut scene, &settings, &mut |_| {})?;
        Ok(())
    };
    run("some.h5", quantities)?;
    run("all.h5", RecordQuantities::default())?;
    let (some, all) =
        (hdf5_pure::File::open(dir.path().join("some.h5"))?, hdf5_pure::File::open(dir.path().join("all.h5"))?);
    for path in ["time", "step", "bodies/position", "bodies/orientation", "solver/error", "timings/solve"] {
        assert!(some.dataset(path).is_ok(), "{path} missing");
    }
    for path in ["bodies/velocity", "bodies/angular_velocity", "contacts/gap", "contacts/offset"] {
        assert!(some.dataset(path).is_err(), "{path} written though not asked for");
        assert!(all.dataset(path).is_ok(), "{path} missing from the full record");
    }
    assert_eq!(read_f64(&some, "bodies/position"), read_f64(&all, "bodies/position"));
    assert_eq!(read_f64(&some, "solver/error").0, read_f64(&all, "solver/error").0);
    Ok(())
}
