//! # nonsmooth-numerics
//!
//! Finite-dimensional nonsmooth problems and their solvers: linear complementarity (LCP),
//! mixed LCP, relay, frictional contact; the matrices they are built on (dense, sparse-block,
//! sparse) and the Siconos problem files they are read from.
//!
//! This crate knows nothing of time, dynamical systems or bodies: it is usable alone, as
//! Siconos/Numerics is.
//!
//! ```
//! use nonsmooth_numerics::lcp::{LcpProblem, LcpMethod, LemkeOptions};
//! use nonsmooth_numerics::matrix::NumericsMatrix;
//!
//! // w = M z + q, 0 ≤ z ⊥ w ≥ 0 with M = [[2, 1], [1, 2]], q = (-5, -6).
//! let m = faer::mat![[2.0, 1.0], [1.0, 2.0]];
//! let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![-5.0, -6.0]).unwrap();
//! let mut solver = LcpMethod::Lemke(LemkeOptions::default()).build().unwrap();
//! let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
//! let report = solver.solve(&problem, &mut z, &mut w).unwrap();
//! assert!(report.is_converged());
//! assert!((z[0] - 4.0 / 3.0).abs() < 1e-12 && (z[1] - 7.0 / 3.0).abs() < 1e-12);
//! ```

mod error;
mod options;
mod report;

pub mod fc;
pub mod gfc;
pub mod gmp;
pub mod io;
pub mod lcp;
pub mod matrix;
pub mod mlcp;
mod parallelism;
#[cfg(feature = "proptest-support")]
pub mod proptest;
pub mod relay;
pub mod roots;

pub use error::NumericsError;
pub use options::DEFAULT_MAX_DENSE_BYTES;
pub use parallelism::Parallelism;
pub use report::{SolverReport, SolverStatus};

/// The dense linear algebra crate our dense matrices come from (`faer::Mat`, `faer::mat!`).
pub use faer;
/// The sparse matrix crate our general sparse matrices come from (`sprs::CsMat`).
pub use sprs;
