//! The error type of the mechanics crate.

use nonsmooth_kernel::{KernelError, NonFiniteValue};
use thiserror::Error;

/// Errors raised by `nonsmooth-mechanics`.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MechanicsError {
    /// An error of the kernel layer.
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// A file could not be written or read.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A step left a NaN or an infinity in a body's state or in the impulse of one of its
    /// contacts (the kernel's [`KernelError::NonFiniteState`], with the body named): the scene
    /// diverged and is stopped, every later step returns this error again.
    #[error("body {body}: {what} is not finite at t = {time} (step {step}): the scene diverged and is stopped")]
    NonFiniteBody {
        /// The time at the end of the step.
        time: f64,
        /// The step index (1 for the first step).
        step: usize,
        /// The body's index in the scene (the order of
        /// [`SceneBuilder::add_body`](crate::scene::SceneBuilder::add_body)); for an impulse,
        /// the contact's body (the first, for a contact between two bodies).
        body: usize,
        /// The value as the kernel names it (the body's system, or the contact's interaction).
        what: NonFiniteValue,
    },
    /// A scene file ([`crate::scene_file`]) is not valid: a TOML syntax error, an unknown key,
    /// a value of the wrong type, or a value the scene refuses (a negative mass, `μ < 0`, an
    /// unknown shape, a joint on a missing body, ...).
    #[error("{path}:{line}: {key}: {reason}")]
    SceneFile {
        /// The file (`<string>` for a scene read from a string).
        path: std::path::PathBuf,
        /// The line (1-based) of the offending key or table (0 when unknown).
        line: usize,
        /// The offending key, as a dotted path (`body[3].mass`), or the text at the error.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// The narrow phase has no contact detection for this pair of shapes: two static-only
    /// shapes (half-spaces and triangle meshes), or a pair the geometry back-end rejects.
    /// Raised by [`SceneBuilder::build`](crate::scene::SceneBuilder::build) when the scene
    /// could pair the two shapes, else by the detection itself
    /// ([`collide`](crate::geometry::collide)).
    #[error("no contact detection between a {a} and a {b}")]
    UnsupportedShapePair {
        /// The kind of the first shape ([`Shape::kind_name`](crate::geometry::Shape::kind_name)).
        a: &'static str,
        /// The kind of the second shape.
        b: &'static str,
    },
}
