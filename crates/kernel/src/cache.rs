//! Cache hints for the passes that visit interactions and systems in scattered order.

/// Bytes per cache line.
const LINE: usize = 64;

/// Most lines [`prefetch_object`] hints for one value.
const MAX_OBJECT_LINES: usize = 4;

/// Asks the processor to bring the cache line that holds `value` into every level of its caches,
/// without waiting for it (`prefetcht0` on x86-64; nothing on other targets). A hint only: it
/// reads nothing, cannot fault and changes no value, so a pass that issues it for the item it
/// will read a few iterations later overlaps that item's cache misses with the current work.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
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

/// [`prefetch`] for every 64-byte line that `value` covers, its
/// [`std::mem::size_of_val`] bytes from its address (at most [`MAX_OBJECT_LINES`] lines from
/// the first; nothing for a zero-sized value): the lines of an object whose fields the caller
/// does not know, such as a boxed relation.
#[inline(always)]
pub(crate) fn prefetch_object<T: ?Sized>(value: &T) {
    let size = std::mem::size_of_val(value);
    if size == 0 {
        return;
    }
    let start = std::ptr::from_ref(value).cast::<u8>();
    let offset = start.addr() % LINE;
    let lines = lines_covered(offset, size);
    // The start of the first line may lie before `value`: the address is only hinted, never
    // read, so it need not belong to `value`.
    let first_line = start.wrapping_sub(offset);
    for k in 0..lines {
        prefetch_address(first_line.wrapping_add(k * LINE));
    }
}

/// The number of lines [`prefetch_object`] hints for `size > 0` bytes that start `offset` bytes
/// into a line: those they cover, at most [`MAX_OBJECT_LINES`].
#[inline(always)]
fn lines_covered(offset: usize, size: usize) -> usize {
    (offset + size).div_ceil(LINE).min(MAX_OBJECT_LINES)
}

/// [`prefetch`] for the line that holds `address`, which need not point to a live value (the
/// instruction reads nothing and cannot fault). The workspace forbids `unsafe`: pulp's
/// `_mm_prefetch` is the safe wrapper of the instruction for a raw address.
#[inline(always)]
fn prefetch_address(address: *const u8) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    if let Some(sse) = pulp::core_arch::x86::Sse::try_new() {
        sse._mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast());
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = address;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_is_hinted_on_every_line_it_covers_up_to_the_cap() {
        assert_eq!(lines_covered(0, 1), 1);
        assert_eq!(lines_covered(0, 64), 1);
        assert_eq!(lines_covered(63, 2), 2);
        // A 128-byte relation spans two lines from a line's start, three from elsewhere.
        assert_eq!(lines_covered(0, 128), 2);
        assert_eq!(lines_covered(16, 128), 3);
        assert_eq!(lines_covered(8, 1000), MAX_OBJECT_LINES);
        // Any value, sized or not, zero-sized included: a hint changes nothing.
        let values = [1.0_f64; 40];
        prefetch_object(&values);
        prefetch_object(&values[3..]);
        prefetch_object(&());
        let boxed: Box<dyn std::fmt::Debug> = Box::new(values);
        prefetch_object(boxed.as_ref());
        assert!(values.iter().all(|v| v.to_bits() == 1.0_f64.to_bits()));
    }
}
