//! # nonsmooth-mechanics
//!
//! Newton–Euler rigid bodies with unit quaternions, contact geometry and contact relations
//! with local frames (seed `000_b50ea4bc6edb00b3.txt` lines 2848-5719).
//!
//! This crate is being built: so far it holds its error type, which wraps the kernel errors.

mod error;

pub use error::MechanicsError;
