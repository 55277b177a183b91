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
}
