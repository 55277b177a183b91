//! Real roots of polynomials (the quartic of the one-contact frictional contact problem).
//!
//! The quartic formulation of the one-contact FC3D problem (the Siconos developer
//! documentation, "Quartic Formulation") reduces the sliding case to the real roots of a
//! degree-4 polynomial; [`real_roots_quartic`] computes them.

mod quartic;

pub use quartic::{RealRoots, real_roots_quartic};
