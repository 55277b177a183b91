//! The mechanics examples reproduce Siconos' reference trajectories (`$NONSMOOTH_DATA/reference`).

use nonsmooth::kernel::io::read_trajectory;
use nonsmooth_examples::data_dir;
use nonsmooth_examples::mechanics::bouncing_ball_nets;

#[test]
fn bouncing_ball_nets_reproduces_siconos() {
    let Some(data) = data_dir() else { return };
    let reference = read_trajectory(&data.join("reference/BouncingBallNETS.ref")).expect("readable reference");
    let ours = bouncing_ball_nets::simulate(10.0).expect("the model runs");
    assert_eq!((ours.rows(), ours.columns()), (2001, 16));
    let diff = ours.max_abs_difference(&reference).expect("same shape as the reference");
    println!("BouncingBallNETS: max |difference| = {diff:e}");
    assert!(diff <= 1e-12, "max |difference| = {diff:e}");
}

/// A Newton–Euler body in free flight with rotation (unequal inertia: gyroscopic moment and
/// its Jacobian in W, two Newton iterations per step) against Siconos 4.4 itself
/// (`examples/data/siconos/NewtonEulerRotation*.txt`, written by
/// `examples/data/siconos/generate/newton_euler_rotation.cpp`): with Siconos' quaternion
/// exponential the run is equal to the last bit, Newton iteration counts included; with the exact
/// exponential, the slow run (half angles below Siconos' 1e-3 series threshold) drifts by the
/// `tan x/x` series error.
#[test]
fn newton_euler_rotation_reproduces_siconos() {
    use nonsmooth::kernel::model::Nsds;
    use nonsmooth::kernel::simulation::{
        MoreauJeanOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
    };
    use nonsmooth::mechanics::body::{NewtonEulerDs, QuaternionExponential};

    let run = |scale: f64, exponential: QuaternionExponential| -> Vec<Vec<f64>> {
        let q0 = [1.0, -0.5, 0.25, 0.3f64.cos(), 0.3f64.sin() * 0.6, 0.0, 0.3f64.sin() * 0.8];
        let v0 = [2.0, 0.1, -0.3, scale, -2.0 * scale, 3.0 * scale];
        let inertia = [[0.1, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.35]];
        let body = NewtonEulerDs::new(q0, v0, 2.0, inertia)
            .and_then(|b| b.with_external_force([-2.0 * 9.81, 0.0, 0.0]))
            .expect("valid body")
            .with_exponential(exponential);
        let mut nsds = Nsds::new();
        let id = nsds.add_ds(body);
        let mut sim = TimeStepping::new(
            nsds,
            MoreauJeanOsi::with_theta(0.5).expect("θ"),
            OneStepNsProblem::lcp_default().expect("lcp"),
            TimeDiscretisation::new(0.0, 0.005, 2.0).expect("grid"),
            TimeSteppingOptions::default().with_newton_tolerance(1e-10).with_newton_max_iterations(10),
        )
        .expect("simulation");
        let mut rows = Vec::new();
        let state_row = |sim: &TimeStepping, iterations: f64| {
            let s = sim.nsds().ds(id).expect("body").state();
            let mut r = vec![sim.time()];
            r.extend_from_slice(s.q());
            r.extend_from_slice(s.v());
            r.push(iterations);
            r
        };
        rows.push(state_row(&sim, 0.0));
        while sim.has_next_step() {
            let report = sim.step().expect("step");
            rows.push(state_row(&sim, report.newton_iterations as f64));
        }
        rows
    };
    let read = |name: &str| -> Vec<Vec<f64>> {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/siconos").join(name);
        std::fs::read_to_string(path)
            .expect("readable reference")
            .lines()
            .map(|l| l.split_whitespace().map(|x| x.parse::<f64>().expect("a number")).collect())
            .collect()
    };
    let compare = |ours: &[Vec<f64>], theirs: &[Vec<f64>]| -> f64 {
        assert_eq!(ours.len(), theirs.len());
        let mut worst = 0.0f64;
        for (a, b) in ours.iter().zip(theirs) {
            for j in 0..14 {
                worst = worst.max((a[j] - b[j]).abs());
            }
            assert_eq!(a[14].to_bits(), b[14].to_bits(), "Newton iterations at t = {}", a[0]);
        }
        worst
    };
    for (scale, file) in [(1.0, "NewtonEulerRotation.txt"), (0.05, "NewtonEulerRotationSlow.txt")] {
        let theirs = read(file);
        let siconos = compare(&run(scale, QuaternionExponential::Siconos), &theirs);
        let exact = run(scale, QuaternionExponential::Exact);
        let exact_diff =
            exact.iter().zip(&theirs).flat_map(|(a, b)| (0..14).map(move |j| (a[j] - b[j]).abs())).fold(0.0, f64::max);
        println!("{file}: max |difference| {siconos:e} (Siconos exponential), {exact_diff:e} (exact exponential)");
        assert!(siconos <= 0.0, "{file}: {siconos:e}");
        if scale < 0.1 {
            assert!(exact_diff > 1e-10 && exact_diff < 1e-6, "{file}: exact exponential differs by {exact_diff:e}");
        }
    }
}
