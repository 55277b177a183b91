//! Real roots of polynomials (the quartic of the one-contact frictional contact problem).
//!
//! The quartic formulation of the one-contact FC3D problem (seed `000_b50ea4bc6edb00b3.txt`,
//! lines 6285-6518, "Quartic Formulation") reduces the sliding case to the real roots of a
//! degree-4 polynomial; [`real_roots_quartic`] computes them.

mod quartic;

pub use quartic::{RealRoots, real_roots_quartic};
