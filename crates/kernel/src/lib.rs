//! # nonsmooth-kernel
//!
//! Modelling (dynamical systems, relations, nonsmooth laws, interactions, topology) and
//! simulation (one-step integrators, one-step nonsmooth problems, time-stepping and
//! event-driven simulations) of nonsmooth dynamical systems, in Siconos' vocabulary
//! (seed `004_92d6a38d23055e78.txt`).
//!
//! This crate is being built: so far it holds its error type, which wraps the numerics errors.

mod error;

pub use error::KernelError;
pub use nonsmooth_numerics as numerics;
