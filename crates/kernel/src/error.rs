//! The error type of the kernel crate.

use nonsmooth_numerics::NumericsError;
use thiserror::Error;

/// Errors raised by `nonsmooth-kernel`.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum KernelError {
    /// An error of the one-step problem layer.
    #[error(transparent)]
    Numerics(#[from] NumericsError),
}
