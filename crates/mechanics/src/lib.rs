//! # nonsmooth-mechanics
//!
//! Newton–Euler rigid bodies with unit quaternions, contact geometry and contact relations
//! with local frames (seed `000_b50ea4bc6edb00b3.txt` lines 2848-5719).

pub mod body;
pub mod contact;
mod error;
pub mod geometry;
pub mod lie;
pub mod output;
pub mod pile;
pub mod scene;

pub use error::MechanicsError;
