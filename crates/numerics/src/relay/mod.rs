//! Relay (box-constrained) problems (Siconos `numerics/src/Relay`): `w = M z + q` with
//! `lb ≤ z ≤ ub` and `−w` in the normal cone of the box at `z`.
//!
//! Only the problem type lives here for now; solvers come with a later issue.

mod problem;

pub use problem::RelayProblem;
