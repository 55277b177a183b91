//! Cache hints for the passes that visit interactions and systems in scattered order.

/// Asks the processor to bring the cache line that holds `value` into every level of its caches,
/// without waiting for it (`prefetcht0` on x86-64; nothing on other targets). A hint only: it
/// reads nothing, cannot fault and changes no value, so a pass that issues it for the item it
/// will read a few iterations later overlaps that item's cache misses with the current work.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    safe_arch::prefetch_t0(value);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = value;
}

/// [`prefetch`] for the first and the last value of `values` (nothing when empty): the lines of
/// a short vector, such as one body's positions or velocities (at most two lines).
#[inline(always)]
pub(crate) fn prefetch_ends(values: &[f64]) {
    if let (Some(first), Some(last)) = (values.first(), values.last()) {
        prefetch(first);
        prefetch(last);
    }
}
