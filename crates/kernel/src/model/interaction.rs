//! Interactions: a relation and a nonsmooth law linking one or two dynamical systems, with
//! the output `y[i]` and multiplier `λ[i]` of each level `i` (Siconos developer documentation,
//! section "Computation of the number of Index Set and various levels").

use faer::Mat;
use petgraph::stable_graph::EdgeIndex;

use super::first_order_relation::FirstOrderRelation;
use super::ids::DsId;
use super::law::NonsmoothLaw;
use super::relation::LagrangianRelation;
use crate::linalg::copy_small;

/// The relation of an interaction: of second-order (Lagrangian) or of first-order systems.
pub enum Relation {
    /// A relation of second-order systems.
    Lagrangian(Box<dyn LagrangianRelation>),
    /// A relation of first-order systems.
    FirstOrder(Box<dyn FirstOrderRelation>),
}

/// The first-order linearization workspace of an interaction (the Newton linearization of
/// Euler–Moreau): Jacobians at the iterate and the values of `h` and `g` there.
#[derive(Debug)]
pub(crate) struct FirstOrderWork {
    /// `C = ∂h/∂x`, `m × Σn`.
    pub(crate) c: Mat<f64>,
    /// `D = ∂h/∂λ`, `m × m`.
    pub(crate) d: Mat<f64>,
    /// `K = ∂g/∂x`, `Σn × Σn`.
    pub(crate) k: Mat<f64>,
    /// `B = ∂g/∂λ`, `Σn × m`.
    pub(crate) b: Mat<f64>,
    /// The Jacobians are constant and already evaluated.
    pub(crate) constant: bool,
    /// `h(x^α, λ^α)`.
    pub(crate) h_alpha: Vec<f64>,
    /// `g(x^α, λ^α)` (`Σn`).
    pub(crate) g_alpha: Vec<f64>,
    /// Concatenated states (and free or partial states) of the linked systems.
    pub(crate) x_work: Vec<f64>,
    /// `x^α`, the concatenated states at the last linearization.
    pub(crate) x_alpha: Vec<f64>,
    /// `λ^α`, the multiplier of the previous Newton iterate.
    pub(crate) lambda_alpha: Vec<f64>,
}

/// One or two items, one per system an interaction links, stored inline (no allocation, and
/// read with the interaction itself); a slice through `Deref`.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Linked<T: Copy> {
    items: [T; 2],
    len: usize,
}

impl<T: Copy> Linked<T> {
    /// The items of `s`, which holds one or two (the linked systems are checked before).
    ///
    /// # Panics
    /// When `s` is empty or longer than 2.
    pub(crate) fn from_slice(s: &[T]) -> Self {
        assert!(!s.is_empty() && s.len() <= 2, "an interaction links one or two systems");
        Self { items: [s[0], s[s.len() - 1]], len: s.len() }
    }
}

impl<T: Copy> std::ops::Deref for Linked<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items[..self.len]
    }
}

impl<'a, T: Copy> IntoIterator for &'a Linked<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy> IntoIterator for Linked<T> {
    type Item = T;
    type IntoIter = std::iter::Take<std::array::IntoIter<T, 2>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter().take(self.len)
    }
}

impl<T: Copy + std::fmt::Debug> std::fmt::Debug for Linked<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The values of `y` or `λ` at one level: stored in the interaction itself up to 3 values (a
/// 3D contact), on the heap beyond. The one-step problem's assembly reads an interaction's `H`,
/// output memory and multiplier; kept inline, they are read from the interaction's own
/// memory, not through a pointer each to a separate allocation.
pub(crate) type LevelValues = smallvec::SmallVec<[f64; 3]>;

/// The rows of `H`, stored in the interaction itself up to `3 × 12` values (a contact between
/// two 3D bodies), on the heap beyond.
pub(crate) type JacobianRows = smallvec::SmallVec<[f64; 36]>;

/// Number of levels stored for `y` and `λ` (0: position, 1: velocity, 2: acceleration).
pub const LEVELS: usize = 3;

/// An interaction between one or two second-order systems.
///
/// `y[0]` is the gap `h(q, t)`, `y[1]` its velocity `H v + ∂h/∂t`; `λ[1]` is the impulse of the
/// last time-stepping step and `λ[2]` an acceleration-level force (event-driven). The previous
/// step's values are kept in the memories (`y_memory(1)` is the `ẏ_k` of the restitution law).
///
/// The fields are laid out in this order, from a cache line's start (`repr(C, align(64))`), for
/// the one-step problem's gather, which visits the active interactions scattered in memory and
/// is bound by how many cache lines of each it waits for: what it reads is the first 8 lines
/// (the relation's tag, which also says whether a slot of the interaction graph is occupied, the
/// law, the size, systems, offsets and whether `∂h/∂t` is present, then `H` and `λ`, `λ[1]` in
/// the eighth line); the output memory, read only by a law with restitution, and the fields of
/// the other passes follow.
#[repr(C, align(64))]
pub struct Interaction {
    pub(crate) relation: Relation,
    pub(crate) law: NonsmoothLaw,
    pub(crate) size: usize,
    pub(crate) ds: Linked<DsId>,
    /// Column offset of each linked system's velocity in `H`.
    pub(crate) offsets: Linked<usize>,
    pub(crate) has_h_dot: bool,
    /// `H` is valid and constant (linear time-invariant relation already evaluated).
    pub(crate) jacobian_constant: bool,
    /// Whether the interaction is in index set 1 (active in the velocity-level problem).
    pub(crate) active: bool,
    /// `H` at the current iterate, row-major (`size × Σ nv`), in the interaction itself up to
    /// the size of a contact between two 3D bodies.
    pub(crate) h_rows: JacobianRows,
    pub(crate) lambda: [LevelValues; LEVELS],
    pub(crate) y_memory: [LevelValues; LEVELS],
    pub(crate) y: [LevelValues; LEVELS],
    /// Concatenated velocities of the linked systems (workspace).
    pub(crate) v_work: Vec<f64>,
    /// Rank in index set 1 when the model orders it ([`Nsds::set_priority`](super::Nsds::set_priority)):
    /// lower first.
    pub(crate) priority: f64,
    /// Present for the interactions of first-order systems (boxed: the interactions of
    /// second-order systems stay small, which the passes over all interactions read faster).
    pub(crate) first_order: Option<Box<FirstOrderWork>>,
    /// Concatenated positions of the linked systems (workspace).
    pub(crate) q_work: Vec<f64>,
    /// `∂h/∂t` at the last output evaluation, when the relation has one (`has_h_dot`).
    pub(crate) h_dot: Vec<f64>,
    /// Scratch for `H = ∂h/∂q`, `size × Σ nv`, for the relations that write it as a matrix
    /// ([`LagrangianRelation::jacobian`]).
    pub(crate) jacobian: Mat<f64>,
    pub(crate) ds_edge: EdgeIndex,
}

impl std::fmt::Debug for Interaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interaction")
            .field("law", &self.law)
            .field("ds", &self.ds)
            .field("y", &self.y)
            .field("lambda", &self.lambda)
            .field("active", &self.active)
            .finish_non_exhaustive()
    }
}

impl Interaction {
    /// Asks the cache for the lines a one-step problem's gather will read of this interaction
    /// ([`crate::cache::prefetch`]): the relation's tag, the law, whether `∂h/∂t` is present, the
    /// systems and their offsets, the size, `λ` at `level`, and the first and last lines of `H`
    /// (the output memory, read only by a law with restitution, is hinted by the gather). The gather
    /// visits the interactions in the problem's order, scattered in memory: issued a few
    /// interactions ahead, these hints overlap their cache misses with the current copies. They
    /// read nothing of the record; the rest of `H`, whose extent is read from the record, is
    /// hinted a few interactions later ([`Interaction::prefetch_rows`]).
    pub(crate) fn prefetch_gathered(&self, level: usize) {
        use crate::cache::prefetch;
        // The lines before `H`, `H`'s first, the line of its last values and its length (that
        // of `λ[0]`), and `λ[level]`.
        prefetch(&self.relation);
        prefetch(&self.offsets);
        prefetch(&self.h_rows);
        prefetch(&self.lambda[0]);
        prefetch(&self.lambda[level]);
    }

    /// The hints for every line of `H` and for the systems' column offsets.
    pub(crate) fn prefetch_rows(&self) {
        use crate::cache::prefetch;
        prefetch(&self.h_rows);
        // One value per cache line of `H`.
        for value in self.h_rows.iter().step_by(F64_PER_LINE) {
            prefetch(value);
        }
        if let Some(last) = self.h_rows.last() {
            prefetch(last);
        }
        prefetch(&self.offsets);
    }

    /// Asks the cache for every line of this interaction ([`crate::cache::prefetch`]), for the
    /// passes that read and write all of it (outputs and Jacobians, [`super::Nsds`]'s batches).
    pub(crate) fn prefetch_all(&self) {
        use crate::cache::prefetch;
        prefetch(&self.relation);
        prefetch(&self.q_work);
        prefetch(&self.h_dot);
        prefetch(&self.jacobian);
        prefetch(&self.first_order);
        prefetch(&self.ds);
        for level in 0..LEVELS {
            prefetch(&self.y[level]);
            prefetch(&self.y_memory[level]);
            prefetch(&self.lambda[level]);
        }
        prefetch(&self.has_h_dot);
        self.prefetch_rows();
    }

    /// Size `m` of `y` and `λ`.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The nonsmooth law.
    pub fn law(&self) -> &NonsmoothLaw {
        &self.law
    }

    /// The linked systems, in the order their velocities appear in the relation.
    pub fn ds(&self) -> &[DsId] {
        &self.ds
    }

    /// The output at `level` (0: gap, 1: gap velocity, 2: acceleration).
    ///
    /// # Panics
    /// When `level > 2`.
    #[track_caller]
    pub fn y(&self, level: usize) -> &[f64] {
        assert!(level < LEVELS, "levels are 0, 1 and 2");
        &self.y[level]
    }

    /// The output at `level` at the beginning of the last step.
    ///
    /// # Panics
    /// When `level > 2`.
    #[track_caller]
    pub fn y_memory(&self, level: usize) -> &[f64] {
        assert!(level < LEVELS, "levels are 0, 1 and 2");
        &self.y_memory[level]
    }

    /// The multiplier at `level` (`λ[1]`: the impulse over the last step).
    ///
    /// # Panics
    /// When `level > 2`.
    #[track_caller]
    pub fn lambda(&self, level: usize) -> &[f64] {
        assert!(level < LEVELS, "levels are 0, 1 and 2");
        &self.lambda[level]
    }

    /// Whether the interaction links first-order systems.
    pub fn is_first_order(&self) -> bool {
        matches!(self.relation, Relation::FirstOrder(_))
    }

    /// Whether the relation is linear with constant operators.
    pub(crate) fn is_linear_time_invariant(&self) -> bool {
        match &self.relation {
            Relation::Lagrangian(r) => r.is_linear_time_invariant(),
            Relation::FirstOrder(r) => r.is_time_invariant(),
        }
    }

    /// Whether the interaction took part in the last velocity-level problem (index set 1).
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// The relation Jacobian `H` at the last evaluation (`size × Σ nv`; `0 × 0` for an
    /// interaction of first-order systems), a view of its row-major storage.
    pub fn jacobian(&self) -> faer::MatRef<'_, f64> {
        let columns = self.v_work.len();
        let rows = if columns == 0 { 0 } else { self.size };
        faer::MatRef::from_row_major_slice(&self.h_rows[..rows * columns], rows, columns)
    }

    /// Whether the relation had an explicit time derivative at the last output evaluation.
    pub(crate) fn relation_has_time_derivative(&self) -> bool {
        self.has_h_dot
    }

    /// `H[i, j]` from the row-major copy.
    #[inline]
    pub(crate) fn h(&self, i: usize, j: usize) -> f64 {
        self.h_rows[i * self.v_work.len() + j]
    }

    /// Copies the outputs into their memories.
    pub(crate) fn swap_output_memories(&mut self) {
        for level in 0..LEVELS {
            copy_small(&mut self.y_memory[level], &self.y[level]);
        }
    }

    /// Re-evaluates `∂h/∂t` at time `t` and the positions gathered at the last evaluation.
    pub(crate) fn refresh_h_dot(&mut self, t: f64) -> Result<(), crate::KernelError> {
        if let Relation::Lagrangian(relation) = &mut self.relation {
            self.has_h_dot = relation.time_derivative(t, &self.q_work, &mut self.h_dot)?;
        }
        Ok(())
    }
}

/// `f64` values per 64-byte cache line.
const F64_PER_LINE: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// What the one-step problem's gather reads of an interaction lies in its first 8 cache lines,
    /// from a line's start ([`Interaction`]'s layout): the relation's tag, the law, the size,
    /// systems and offsets, whether `∂h/∂t` is present, `H` (its inline values and length) and
    /// `λ[0]`, `λ[1]`.
    #[test]
    fn the_gathered_fields_are_the_first_eight_lines() {
        const LINE: usize = 64;
        assert_eq!(std::mem::align_of::<Interaction>(), LINE);
        let ends = [
            offset_of!(Interaction, relation) + size_of::<Relation>(),
            offset_of!(Interaction, law) + size_of::<NonsmoothLaw>(),
            offset_of!(Interaction, size) + size_of::<usize>(),
            offset_of!(Interaction, ds) + size_of::<Linked<DsId>>(),
            offset_of!(Interaction, offsets) + size_of::<Linked<usize>>(),
            offset_of!(Interaction, has_h_dot) + 1,
            offset_of!(Interaction, h_rows) + size_of::<JacobianRows>(),
            offset_of!(Interaction, lambda) + 2 * size_of::<LevelValues>(),
        ];
        for end in ends {
            assert!(end <= 8 * LINE, "a gathered field ends at byte {end}");
        }
        // The fields of the other passes come after them.
        for start in [
            offset_of!(Interaction, y_memory),
            offset_of!(Interaction, y),
            offset_of!(Interaction, v_work),
            offset_of!(Interaction, q_work),
        ] {
            assert!(start >= offset_of!(Interaction, lambda) + 2 * size_of::<LevelValues>());
        }
    }
}
