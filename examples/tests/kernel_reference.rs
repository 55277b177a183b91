//! The kernel examples reproduce the trajectories Siconos 4.4 computed (`$NONSMOOTH_DATA/reference`),
//! with the tolerances of Siconos' own drivers (`ioMatrix::compareRefFile`: max |difference|).

use nonsmooth::kernel::io::read_trajectory;
use nonsmooth_examples::data_dir;
use nonsmooth_examples::kernel::{bouncing_ball::BouncingBall, diode_bridge, simple_example_relay, woodpecker};

#[test]
fn bouncing_ball_ts_reproduces_siconos() {
    let Some(data) = data_dir() else { return };
    let reference = read_trajectory(&data.join("reference/BouncingBallTS.ref")).expect("readable reference");
    let ours = BouncingBall::default().simulate().expect("the model runs");
    assert_eq!((ours.rows(), ours.columns()), (2001, 5));
    let diff = ours.max_abs_difference(&reference).expect("same shape as the reference");
    println!("BouncingBallTS: max |difference| = {diff:e}");
    assert!(diff <= 1e-12, "max |difference| = {diff:e}");
}

#[test]
fn woodpecker_reproduces_siconos() {
    let Some(data) = data_dir() else { return };
    let reference = read_trajectory(&data.join("reference/Woodpecker.ref")).expect("readable reference");
    let ours = woodpecker::simulate(woodpecker::reference_steps()).expect("the model runs");
    assert_eq!((ours.rows(), ours.columns()), (15000, 7));
    let diff = ours.max_abs_difference(&reference).expect("same shape as the reference");
    println!("Woodpecker: max |difference| = {diff:e}");
    assert!(diff <= 1e-11, "max |difference| = {diff:e}");
}

#[test]
fn diode_bridge_reproduces_siconos() {
    let Some(data) = data_dir() else { return };
    let reference = read_trajectory(&data.join("reference/DiodeBridge.ref")).expect("readable reference");
    let ours = diode_bridge::simulate().expect("the model runs");
    assert_eq!((ours.rows(), ours.columns()), (5000, 8));
    let diff = ours.max_abs_difference(&reference).expect("same shape as the reference");
    println!("DiodeBridge: max |difference| = {diff:e}");
    assert!(diff <= 1e-12, "max |difference| = {diff:e}");
}

#[test]
fn simple_example_relay_reproduces_siconos() {
    let Some(data) = data_dir() else { return };
    let reference = read_trajectory(&data.join("reference/SimpleExampleRelay.ref")).expect("readable reference");
    let ours = simple_example_relay::simulate().expect("the model runs");
    assert_eq!((ours.rows(), ours.columns()), (800, 7));
    let diff = ours.max_abs_difference(&reference).expect("same shape as the reference");
    println!("SimpleExampleRelay: max |difference| = {diff:e}");
    assert!(diff <= 1e-12, "max |difference| = {diff:e}");
}
