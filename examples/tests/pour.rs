//! The main example's model: spheres poured into a box come to rest inside it, and its
//! command line rejects bad values.

use clap::Parser as _;
use nonsmooth_examples::cli::mechanics::PourSpheresArgs;
use nonsmooth_examples::mechanics::pour::Pour;

#[test]
fn poured_spheres_settle_inside_the_box() {
    let pour = Pour { n: 27, t_end: 0.6, ..Pour::default() };
    let mut scene = pour.build().unwrap();
    let start = pour.initial_positions();
    let mut samples = Vec::new();
    while scene.has_next_step() {
        let report = scene.step().unwrap();
        samples.push(pour.sample(&scene, &report).unwrap());
    }
    assert_eq!(samples.len(), 600);
    let peak = samples.iter().map(|s| s.kinetic_energy).fold(0.0, f64::max);
    let last = samples.last().unwrap();
    // Free fall from the top of the column before the first impact: ½ m v² grows from 0.
    assert!(peak > 0.1 * pour.mass() * 9.81 * pour.radius, "peak kinetic energy {peak}");
    assert!(last.kinetic_energy < 1e-2 * peak, "still moving: {} of {peak}", last.kinetic_energy);
    let start_mean = start.iter().map(|p| p[2]).sum::<f64>() / start.len() as f64;
    assert!(last.mean_height < start_mean, "{} >= {start_mean}", last.mean_height);
    assert!(last.contacts >= 27, "a resting heap touches the floor: {} contacts", last.contacts);
    let deepest = samples.iter().map(|s| s.penetration).fold(0.0, f64::max);
    assert!(deepest < 0.1 * pour.radius, "penetration {deepest}");
    let side = pour.box_side();
    for i in 0..scene.number_of_bodies() {
        let (q, _) = scene.body_state(i).unwrap();
        assert!(q[0] > 0.0 && q[0] < side && q[1] > 0.0 && q[1] < side && q[2] > 0.0, "sphere {i} at {q:?}");
    }
}

#[test]
fn the_command_line_names_bad_values() {
    let args = PourSpheresArgs::try_parse_from(["pour_spheres"]).unwrap();
    assert_eq!((args.n, args.time, args.every), (400, 1.0, 20));
    for (flag, value) in [("--n", "0"), ("--n", "abc"), ("--time", "-1"), ("--time", "nan"), ("--every", "0")] {
        let error = PourSpheresArgs::try_parse_from(["pour_spheres", flag, value]).unwrap_err().to_string();
        assert!(error.contains(flag), "{flag} {value}: {error}");
    }
    assert!(PourSpheresArgs::try_parse_from(["pour_spheres", "--outptu", "x"]).is_err());
}
