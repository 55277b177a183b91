//! `LcpProblem`: validation (typed errors for bad input) and Siconos' error measure.

use nonsmooth_numerics::NumericsError;
use nonsmooth_numerics::faer::Mat;
use nonsmooth_numerics::lcp::{LcpMethod, LcpProblem};
use nonsmooth_numerics::matrix::{NumericsMatrix, SparseBlockMatrix};

fn dense(rows: usize, cols: usize, value: f64) -> NumericsMatrix {
    NumericsMatrix::Dense(Mat::from_fn(rows, cols, |i, j| if i == j { 2.0 } else { value }))
}

#[test]
fn bad_problems_are_typed_errors() {
    let err = LcpProblem::new(dense(0, 0, 0.0), vec![]).expect_err("empty");
    assert!(matches!(err, NumericsError::EmptyProblem { .. }), "{err:?}");

    let err = LcpProblem::new(dense(3, 3, 0.5), vec![1.0, 2.0]).expect_err("q too short");
    assert!(matches!(err, NumericsError::DimensionMismatch { expected: 2, found: 3, .. }), "{err:?}");

    let err = LcpProblem::new(dense(2, 3, 0.5), vec![1.0, 2.0]).expect_err("M not square");
    assert!(matches!(err, NumericsError::DimensionMismatch { expected: 2, found: 3, .. }), "{err:?}");

    let err = LcpProblem::new(dense(2, 2, f64::NAN), vec![1.0, 2.0]).expect_err("NaN in M");
    assert!(matches!(err, NumericsError::NonFinite { what: "lcp matrix" }), "{err:?}");

    let err = LcpProblem::new(dense(2, 2, 0.5), vec![1.0, f64::INFINITY]).expect_err("inf in q");
    assert!(matches!(err, NumericsError::NonFinite { what: "lcp vector q" }), "{err:?}");

    let err = SparseBlockMatrix::new(vec![2], vec![2], vec![0, 1], vec![0], vec![1.0, f64::NAN, 0.0, 1.0])
        .expect_err("NaN in a block");
    assert!(matches!(err, NumericsError::NonFinite { .. }), "{err:?}");
}

#[test]
fn unknown_solver_names_are_refused() {
    assert!(LcpMethod::from_name("simplex", None, None).is_none());
    for name in LcpMethod::NAMES {
        assert!(LcpMethod::from_name(name, Some(1e-9), Some(10)).is_some(), "{name}");
    }
}

/// `‖z − max(0, z − w)‖₂ / ‖q‖₂` on a point computed by hand: M = [[2, 1], [1, 2]], q = (−5, 1),
/// z = (1, 1): w = (−2, 4), z − max(0, z − w) = (1 − 3, 1 − 0) = (−2, 1), error √5 / √26.
#[test]
fn compute_error_is_siconos_lcp_error() {
    let problem = LcpProblem::new(dense(2, 2, 1.0), vec![-5.0, 1.0]).expect("valid");
    let mut w = vec![0.0; 2];
    let err = problem.compute_error(&[1.0, 1.0], &mut w).expect("lengths agree");
    assert!((w[0] + 2.0).abs() < 1e-15 && (w[1] - 4.0).abs() < 1e-15);
    assert!((err - (5.0f64 / 26.0).sqrt()).abs() < 1e-15, "{err}");
    // At the solution z = (2.5, 0), w = (0, 3.5): zero.
    let err = problem.compute_error(&[2.5, 0.0], &mut w).expect("lengths agree");
    assert!(err.abs() < 1e-15);
    // NaN never measures as small.
    assert!(problem.compute_error(&[f64::NAN, 0.0], &mut w).expect("lengths agree").is_nan());
    // Lengths are checked.
    let err = problem.compute_error(&[1.0], &mut w).expect_err("z too short");
    assert!(matches!(err, NumericsError::DimensionMismatch { expected: 2, found: 1, .. }), "{err:?}");
}
