//! The checks every model type applies to user data and to the values of user functions.

use faer::Mat;

use crate::KernelError;
use crate::error::check_len;

/// A user function's vector output must be finite (`NonFiniteCallback` at `time` otherwise).
pub(crate) fn finite_output(what: &'static str, time: f64, out: &[f64]) -> Result<(), KernelError> {
    if out.iter().all(|v| v.is_finite()) { Ok(()) } else { Err(KernelError::NonFiniteCallback { what, time }) }
}

/// A user function's matrix output must be finite (`NonFiniteCallback` at `time` otherwise).
pub(crate) fn finite_matrix(what: &'static str, time: f64, m: &Mat<f64>) -> Result<(), KernelError> {
    let ok = (0..m.ncols()).all(|j| (0..m.nrows()).all(|i| m[(i, j)].is_finite()));
    if ok { Ok(()) } else { Err(KernelError::NonFiniteCallback { what, time }) }
}

/// A user matrix must be `rows × cols` and finite.
pub(crate) fn check_matrix(what: &'static str, m: &Mat<f64>, rows: usize, cols: usize) -> Result<(), KernelError> {
    check_len(what, rows, m.nrows())?;
    check_len(what, cols, m.ncols())?;
    finite_matrix(what, 0.0, m).map_err(|_| KernelError::NonFinite { what })
}
