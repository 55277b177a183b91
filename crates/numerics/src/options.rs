//! The checks shared by every solver's `*Options` validation: one place for the rules and the
//! messages of [`NumericsError::InvalidOption`].

use crate::NumericsError;

/// `value` must be positive: NaN and `value ≤ 0` are refused (`+∞` is accepted).
pub(crate) fn positive(name: &'static str, value: f64) -> Result<(), NumericsError> {
    if value.is_nan() || value <= 0.0 {
        return Err(NumericsError::InvalidOption { name, reason: "must be positive" });
    }
    Ok(())
}

/// `value` must be positive and finite: NaN, `±∞` and `value ≤ 0` are refused.
pub(crate) fn positive_finite(name: &'static str, value: f64) -> Result<(), NumericsError> {
    if !value.is_finite() || value <= 0.0 {
        return Err(NumericsError::InvalidOption { name, reason: "must be positive and finite" });
    }
    Ok(())
}

/// A count (iterations, a frequency) must be at least 1.
pub(crate) fn at_least_one(name: &'static str, count: usize) -> Result<(), NumericsError> {
    if count == 0 {
        return Err(NumericsError::InvalidOption { name, reason: "must be at least 1" });
    }
    Ok(())
}

/// Default of every `max_dense_bytes` option: 1 GiB.
pub const DEFAULT_MAX_DENSE_BYTES: u64 = 1 << 30;

/// A dense `rows × cols` matrix of `f64` must fit in `limit` bytes; otherwise
/// [`NumericsError::DenseTooLarge`] naming `alternative`.
pub(crate) fn dense_fits(
    what: &'static str,
    rows: usize,
    cols: usize,
    limit: u64,
    alternative: &'static str,
) -> Result<(), NumericsError> {
    let bytes = (rows as u64).saturating_mul(cols as u64).saturating_mul(8);
    if bytes > limit {
        return Err(NumericsError::DenseTooLarge { what, rows, cols, bytes, limit, alternative });
    }
    Ok(())
}
