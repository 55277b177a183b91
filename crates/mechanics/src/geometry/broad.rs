//! Broad phase: candidate pairs from axis-aligned bounding boxes on a uniform grid.
//!
//! Why a grid and not sweep-and-prune: the target scenes are dense granular piles of similar
//! bodies. Sweep-and-prune along one axis keeps every body whose x-interval overlaps the sweep
//! front active, about `N^{2/3}` of them for a cubic pile, so its cost grows like `N^{5/3}`; a
//! grid whose cell is the size of the largest (regular) box holds O(1) boxes per cell when sizes
//! are comparable, and the cost is the sort of `N` cell keys, `O(N log N)`, and a linear scan.
//!
//! Algorithm ([`BroadPhase::update`]):
//! 1. every box is inflated by `margin / 2` on each side (so a pair is reported iff the gap
//!    between the original boxes is `≤ margin` along every axis);
//! 2. boxes whose largest extent exceeds `LARGE_RATIO = 8` times the median extent are "large":
//!    they are tested against every other box directly (`O(N · L)` for `L` large boxes), so one
//!    container-sized body does not blow the cell up to the size of the scene;
//! 3. the cell edge is the largest extent of the remaining boxes, enlarged by `1e-8` relative
//!    (at least the span of the scene divided by `2^21 − 2`, so that cell coordinates fit in 21
//!    bits each and pack into one `u64` key without collisions); each regular box is entered once,
//!    in the cell of its lower corner;
//! 4. the `(key, index)` entries are sorted. Two overlapping boxes have lower corners less than
//!    the largest extent apart on every axis, so their cells are neighbours (the enlargement of
//!    the cell covers the rounding of the coordinates). Each pair is tested from the box whose
//!    cell comes first in key order: against the later boxes of its own cell and the boxes of
//!    the 13 neighbour cells that come later, found in five columns of cells by cursors that
//!    only move forward through the sorted entries;
//! 5. pairs are sorted `(i, j)` with `i < j`.
//!
//! Half-spaces (poses of [`Shape::HalfSpace`](super::Shape::HalfSpace)) are tested against every box:
//! `(shape, half-space)` is reported iff the lowest point of the (uninflated) box is at height
//! `≤ margin`, i.e. `(c − x_H)·n_H − Σ_k e_k |n_k| ≤ margin` with `c`, `e` the box centre and half
//! extents and `n_H` the half-space normal (`O(N · H)`).
//!
//! All buffers are kept in the [`BroadPhase`] and reused: after the first calls with the largest
//! sizes, `update` does not allocate.

use super::shapes::{Aabb, Pose};
use super::{dot, sub};
use crate::MechanicsError;
use nonsmooth_kernel::KernelError;

/// Boxes larger than this many times the median extent are handled outside the grid.
const LARGE_RATIO: f64 = 8.0;
/// Bits per cell coordinate in the packed key.
const KEY_BITS: u32 = 21;
/// Relative enlargement of the cell over the largest regular extent (see `shape_pairs`).
const CELL_SAFETY: f64 = 1e-8;

/// Uniform-grid broad phase with reusable buffers (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct BroadPhase {
    margin: f64,
    pairs: Vec<(usize, usize)>,
    half_space_pairs: Vec<(usize, usize)>,
    entries: Vec<(u64, usize)>,
    inflated: Vec<Aabb>,
    large: Vec<usize>,
    is_large: Vec<bool>,
    scratch: Vec<f64>,
    cell: f64,
}

impl BroadPhase {
    /// A broad phase reporting pairs whose boxes are within `margin` of each other on every axis
    /// (default use: the narrow-phase margin). Errors: `InvalidOption { name: "margin" }` unless
    /// `0 ≤ margin < ∞`.
    pub fn new(margin: f64) -> Result<Self, MechanicsError> {
        if margin.is_nan() || margin < 0.0 || margin.is_infinite() {
            return Err(MechanicsError::Kernel(KernelError::InvalidOption {
                name: "margin",
                reason: "must be finite and non-negative",
            }));
        }
        Ok(Self { margin, ..Self::default() })
    }

    /// The margin given to [`BroadPhase::new`].
    #[must_use]
    pub fn margin(&self) -> f64 {
        self.margin
    }

    /// The cell edge used by the last [`BroadPhase::update`] (0 before the first call).
    #[must_use]
    pub fn cell_size(&self) -> f64 {
        self.cell
    }

    /// Candidate pairs `(i, j)`, `i < j`, sorted, from the last [`BroadPhase::update`]: the boxes
    /// `i` and `j`, each inflated by `margin / 2`, intersect (closed boxes).
    #[must_use]
    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    /// Pairs `(shape, half_space)` sorted, from the last [`BroadPhase::update`]: the box of
    /// `shape` reaches within `margin` of the half-space (see the module documentation).
    #[must_use]
    pub fn half_space_pairs(&self) -> &[(usize, usize)] {
        &self.half_space_pairs
    }

    /// Recomputes the candidate pairs for the bounding boxes `aabbs` (one per finite shape) and
    /// the half-spaces `half_spaces` (their poses). Errors: `NonFinite { what: "aabbs" }` if a
    /// coordinate is not finite, `InvalidOption { name: "aabbs" }` if a box has `min > max`.
    pub fn update(&mut self, aabbs: &[Aabb], half_spaces: &[Pose]) -> Result<(), MechanicsError> {
        for b in aabbs {
            if b.min.iter().chain(b.max.iter()).any(|x| !x.is_finite()) {
                return Err(MechanicsError::Kernel(KernelError::NonFinite { what: "aabbs" }));
            }
            if (0..3).any(|k| b.min[k] > b.max[k]) {
                return Err(MechanicsError::Kernel(KernelError::InvalidOption {
                    name: "aabbs",
                    reason: "a box has min > max",
                }));
            }
        }
        self.pairs.clear();
        self.half_space_pairs.clear();
        self.shape_pairs(aabbs);
        self.pairs.sort_unstable();
        for (i, b) in aabbs.iter().enumerate() {
            let c = b.center();
            let e = b.half_extents();
            for (k, h) in half_spaces.iter().enumerate() {
                let n = h.axis(2);
                let lowest = dot(sub(c, h.position), n) - (e[0] * n[0].abs() + e[1] * n[1].abs() + e[2] * n[2].abs());
                if lowest <= self.margin {
                    self.half_space_pairs.push((i, k));
                }
            }
        }
        Ok(())
    }

    fn shape_pairs(&mut self, aabbs: &[Aabb]) {
        let n = aabbs.len();
        if n < 2 {
            return;
        }
        let half = 0.5 * self.margin;
        self.inflated.clear();
        self.inflated.extend(aabbs.iter().map(|b| b.inflated(half)));
        let extent = |b: &Aabb| (0..3).map(|k| b.max[k] - b.min[k]).fold(0.0_f64, f64::max);

        // Large boxes: extent > LARGE_RATIO × median extent.
        self.scratch.clear();
        self.scratch.extend(self.inflated.iter().map(extent));
        let mid = n / 2;
        let (_, median, _) = self.scratch.select_nth_unstable_by(mid, f64::total_cmp);
        let limit = LARGE_RATIO * *median;
        self.is_large.clear();
        self.large.clear();
        let mut cell = 0.0_f64;
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for (i, b) in self.inflated.iter().enumerate() {
            let e = extent(b);
            let large = e > limit;
            self.is_large.push(large);
            if large {
                self.large.push(i);
            } else {
                cell = cell.max(e);
                for k in 0..3 {
                    lo[k] = lo[k].min(b.min[k]);
                    hi[k] = hi[k].max(b.max[k]);
                }
            }
        }
        let span = (0..3).map(|k| hi[k] - lo[k]).fold(0.0_f64, f64::max);
        let max_cells = f64::from((1u32 << KEY_BITS) - 2);
        // A little more than the largest extent, so that the corner cells of two overlapping
        // boxes are neighbours whatever the rounding of the cell coordinates (≤ 2^21 cells:
        // their rounding error is below 1e-9 cell).
        cell = (cell * (1.0 + CELL_SAFETY)).max(span / max_cells);
        if cell.is_nan() || cell <= 0.0 {
            cell = 1.0;
        }
        self.cell = cell;
        let inv = 1.0 / cell;
        let coord = |x: f64, k: usize| -> u32 {
            // ≥ 0 since x ≥ lo[k]; ≤ 2^21 − 2 by the choice of the cell (clamped for rounding).
            ((x - lo[k]) * inv).floor().clamp(0.0, max_cells) as u32
        };

        // One entry per regular box: the cell of its lower corner.
        self.entries.clear();
        for (i, b) in self.inflated.iter().enumerate() {
            if !self.is_large[i] {
                self.entries.push((pack([coord(b.min[0], 0), coord(b.min[1], 1), coord(b.min[2], 2)]), i));
            }
        }
        self.entries.sort_unstable();

        // Two overlapping boxes have lower corners less than a cell apart on every axis, so
        // their corner cells are neighbours. Each pair is looked for from the box whose cell comes
        // first in key order (`x`, then `y`, then `z`): in its own cell (the boxes after it) and
        // in the neighbour cells that come later, which lie in five columns `(x + dx, y + dy)`:
        // `(0, 0)` (cell `z + 1`), `(0, 1)`, `(1, −1)`, `(1, 0)`, `(1, 1)` (cells `z − 1 ..= z + 1`).
        // The columns' first keys grow with the cell's key, so each column keeps a cursor into
        // the sorted entries that only moves forward.
        const COLUMNS: [(u32, i32, bool); 5] =
            [(0, 0, true), (0, 1, false), (1, -1, false), (1, 0, false), (1, 1, false)];
        let mut cursors = [0usize; 5];
        let entries = &self.entries;
        let mut start = 0;
        while start < entries.len() {
            let key = entries[start].0;
            let mut end = start + 1;
            while end < entries.len() && entries[end].0 == key {
                end += 1;
            }
            let [x, y, z] = unpack(key);
            for a in start..end {
                let i = entries[a].1;
                for &(_, j) in &entries[a + 1..end] {
                    if self.inflated[i].intersects(&self.inflated[j]) {
                        self.pairs.push((i.min(j), i.max(j)));
                    }
                }
            }
            for (cursor, &(dx, dy, own_column)) in cursors.iter_mut().zip(&COLUMNS) {
                let Some(cy) = y.checked_add_signed(dy) else { continue };
                let cx = x + dx;
                // Cells `z − 1 ..= z + 1` of the column (only `z + 1` in the own column).
                let z_lo = if own_column { z + 1 } else { z.saturating_sub(1) };
                let (first, last) = (pack([cx, cy, z_lo]), pack([cx, cy, z + 1]));
                while *cursor < entries.len() && entries[*cursor].0 < first {
                    *cursor += 1;
                }
                let mut c = *cursor;
                while c < entries.len() && entries[c].0 <= last {
                    let j = entries[c].1;
                    for &(_, i) in &entries[start..end] {
                        if self.inflated[i].intersects(&self.inflated[j]) {
                            self.pairs.push((i.min(j), i.max(j)));
                        }
                    }
                    c += 1;
                }
            }
            start = end;
        }

        // Large boxes against all others (each unordered pair once).
        for (a, &i) in self.large.iter().enumerate() {
            for j in 0..n {
                if j == i || (self.is_large[j] && self.large[..a].contains(&j)) {
                    continue;
                }
                if self.inflated[i].intersects(&self.inflated[j]) {
                    self.pairs.push((i.min(j), i.max(j)));
                }
            }
        }
    }
}

/// Packs three 21-bit cell coordinates into one key.
fn pack(c: [u32; 3]) -> u64 {
    (u64::from(c[0]) << (2 * KEY_BITS)) | (u64::from(c[1]) << KEY_BITS) | u64::from(c[2])
}

/// The cell coordinates of a key ([`pack`]).
fn unpack(key: u64) -> [u32; 3] {
    let mask = (1u64 << KEY_BITS) - 1;
    [(key >> (2 * KEY_BITS)) as u32, ((key >> KEY_BITS) & mask) as u32, (key & mask) as u32]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(c: [f64; 3], h: f64) -> Aabb {
        Aabb { min: [c[0] - h, c[1] - h, c[2] - h], max: [c[0] + h, c[1] + h, c[2] + h] }
    }

    #[test]
    fn pairs_with_margin_and_large_box() {
        let mut bp = BroadPhase::new(0.1).expect("valid margin");
        let boxes = [
            cube([0.0, 0.0, 0.0], 0.5),
            cube([1.05, 0.0, 0.0], 0.5),   // gap 0.05 ≤ 0.1 with 0
            cube([2.3, 0.0, 0.0], 0.5),    // gap 0.25 with 1
            cube([0.0, 0.0, -50.0], 50.0), // large: touches 0, 1, 2 (top at z = 0)
        ];
        bp.update(&boxes, &[Pose::identity()]).expect("finite boxes");
        assert_eq!(bp.pairs(), &[(0, 1), (0, 3), (1, 3), (2, 3)]);
        // Ground at z = 0 (normal +z): the large box lies below; the cubes reach z = −0.5.
        assert_eq!(bp.half_space_pairs(), &[(0, 0), (1, 0), (2, 0), (3, 0)]);
        assert!(bp.cell_size() < 2.0, "the large box must not set the cell: {}", bp.cell_size());
    }

    #[test]
    fn buffers_are_reused_once_warm() {
        let boxes: Vec<Aabb> = (0..500)
            .map(|i| cube([0.3 * f64::from(i % 10), 0.3 * f64::from(i / 10 % 10), 0.3 * f64::from(i / 100)], 0.16))
            .collect();
        let mut bp = BroadPhase::new(0.01).expect("valid margin");
        bp.update(&boxes, &[Pose::identity()]).expect("finite boxes");
        let first = bp.pairs().to_vec();
        let ptrs = (bp.pairs.as_ptr(), bp.entries.as_ptr(), bp.inflated.as_ptr(), bp.scratch.as_ptr());
        let caps = (bp.pairs.capacity(), bp.entries.capacity(), bp.inflated.capacity(), bp.scratch.capacity());
        for _ in 0..3 {
            bp.update(&boxes, &[Pose::identity()]).expect("finite boxes");
        }
        assert_eq!(bp.pairs(), first.as_slice());
        assert_eq!((bp.pairs.as_ptr(), bp.entries.as_ptr(), bp.inflated.as_ptr(), bp.scratch.as_ptr()), ptrs);
        assert_eq!((bp.pairs.capacity(), bp.entries.capacity(), bp.inflated.capacity(), bp.scratch.capacity()), caps);
        // Face neighbours on the 10 × 10 × 5 lattice (spacing 0.3 < 0.32 + 0.01): 3 · 10 · 10 · 5 − 100 − 50 − 50.
        assert!(first.len() >= 1300, "{}", first.len());
    }

    #[test]
    fn bad_input_is_typed() {
        assert!(matches!(
            BroadPhase::new(-1.0),
            Err(MechanicsError::Kernel(KernelError::InvalidOption { name: "margin", .. }))
        ));
        let mut bp = BroadPhase::new(0.0).expect("valid margin");
        let bad = Aabb { min: [0.0, f64::NAN, 0.0], max: [1.0; 3] };
        assert!(matches!(
            bp.update(&[bad], &[]),
            Err(MechanicsError::Kernel(KernelError::NonFinite { what: "aabbs" }))
        ));
    }
}
