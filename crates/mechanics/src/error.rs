//! The error type of the mechanics crate.

use nonsmooth_kernel::KernelError;
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
}
