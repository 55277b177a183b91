//! Colouring of the contact graph of a frictional contact problem, for the parallel
//! Gauss–Seidel sweep of [`NsgsSolver`](super::nsgs::NsgsSolver) (the approach of Siconos'
//! `lcp_pgs_graph`: contacts that do not interact can be updated at the same time).
//!
//! Two contacts `c ≠ d` are adjacent when the `D×D` block `W_cd` or `W_dc` has a nonzero
//! entry, whatever the storage (for sparse-block storage with one block per contact: a stored
//! block that is not entirely zero; stored zeros of a sparse matrix do not count). The
//! colouring therefore depends only on the nonzero pattern, not on the storage. Contacts of one colour are pairwise non-adjacent, so the local problem of
//! each (`q_c + Σ_{d≠c} W_cd r_d`) does not read the reactions of the others: updating them one
//! after the other or all at once gives the same numbers.
//!
//! Integration tests: `tests/it/fc_nsgs_parallel.rs`.

use crate::NumericsError;
use crate::matrix::NumericsMatrix;

/// A proper colouring of the contact graph: contacts of one colour are pairwise independent.
///
/// Built by [`colour_contacts`] with the greedy Welsh–Powell rule: contacts are visited by
/// decreasing degree (ties by increasing index) and each takes the smallest colour that none of
/// its neighbours has. The result depends only on the sparsity pattern of `W`, never on timing
/// or thread count. At most `max_degree + 1` colours are used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Colouring {
    colour_of: Vec<usize>,
    classes: Vec<Vec<usize>>,
    max_degree: usize,
}

impl Colouring {
    /// The number of colours.
    pub fn number_of_colours(&self) -> usize {
        self.classes.len()
    }

    /// The number of contacts coloured.
    pub fn number_of_contacts(&self) -> usize {
        self.colour_of.len()
    }

    /// The colour of contact `c` (`0 .. number_of_colours()`), `None` when `c` is out of range.
    pub fn colour_of(&self, c: usize) -> Option<usize> {
        self.colour_of.get(c).copied()
    }

    /// The colour classes: `classes()[k]` lists the contacts of colour `k` in increasing order.
    pub fn classes(&self) -> &[Vec<usize>] {
        &self.classes
    }

    /// The largest number of neighbours of a contact in the contact graph.
    pub fn max_degree(&self) -> usize {
        self.max_degree
    }
}

/// Colours the contact graph of `W` (`dim·nc × dim·nc`, contact `c` owning rows and columns
/// `dim·c .. dim·c + dim`) greedily, see [`Colouring`] for the rule and the module
/// documentation for adjacency.
///
/// Cost: one pass over the stored entries (blocks) of `W` plus `O(nc log nc + edges)`; the
/// adjacency lists hold at most one entry per stored off-diagonal entry of `W`.
///
/// # Errors
/// [`NumericsError::InvalidInput`] when `dim` is 0, [`NumericsError::DimensionMismatch`] when
/// `W` is not `dim·nc × dim·nc`.
pub fn colour_contacts(w: &NumericsMatrix, nc: usize, dim: usize) -> Result<Colouring, NumericsError> {
    if dim == 0 {
        return Err(NumericsError::InvalidInput { what: "contact colouring", reason: "contact dimension 0".into() });
    }
    let n = nc.checked_mul(dim).ok_or(NumericsError::InvalidInput {
        what: "contact colouring",
        reason: "number of contacts overflows".into(),
    })?;
    if w.nrows() != n {
        return Err(NumericsError::DimensionMismatch {
            what: "contact colouring: rows of W",
            expected: n,
            found: w.nrows(),
        });
    }
    if w.ncols() != n {
        return Err(NumericsError::DimensionMismatch {
            what: "contact colouring: columns of W",
            expected: n,
            found: w.ncols(),
        });
    }
    let adjacency = adjacency(w, nc, dim);
    Ok(greedy(&adjacency))
}

/// Symmetric adjacency lists (sorted, without duplicates or self loops) of the contact graph.
fn adjacency(w: &NumericsMatrix, nc: usize, dim: usize) -> Vec<Vec<usize>> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); nc];
    let mut add = |c: usize, d: usize| {
        if c != d {
            adj[c].push(d);
            adj[d].push(c);
        }
    };
    match w {
        NumericsMatrix::Dense(m) => {
            for j in 0..m.ncols() {
                for (i, &v) in m.col_as_slice(j).iter().enumerate() {
                    if v != 0.0 {
                        add(i / dim, j / dim);
                    }
                }
            }
        }
        NumericsMatrix::SparseBlock(m) if blocks_match_contacts(m, nc, dim) => {
            for c in 0..nc {
                for k in m.row_blocks(c) {
                    if m.block(k).iter().any(|&v| v != 0.0) {
                        add(c, m.col_idx()[k]);
                    }
                }
            }
        }
        NumericsMatrix::SparseBlock(_) => {
            let csr = w.to_csr();
            for (&v, (i, j)) in csr.iter() {
                if v != 0.0 {
                    add(i / dim, j / dim);
                }
            }
        }
        NumericsMatrix::Sparse(m) => {
            for (&v, (i, j)) in m.iter() {
                if v != 0.0 {
                    add(i / dim, j / dim);
                }
            }
        }
    }
    for list in &mut adj {
        list.sort_unstable();
        list.dedup();
    }
    adj
}

/// `true` when the sparse-block matrix has `dim×dim` blocks, one block row/column per contact.
pub(crate) fn blocks_match_contacts(m: &crate::matrix::SparseBlockMatrix, nc: usize, dim: usize) -> bool {
    m.uniform_block_size() == Some(dim)
        && m.n_block_rows() == nc
        && m.n_block_cols() == nc
        && m.row_block_ends().iter().enumerate().all(|(i, &e)| e == dim * (i + 1))
        && m.col_block_ends().iter().enumerate().all(|(i, &e)| e == dim * (i + 1))
}

/// Greedy colouring by decreasing degree, ties by increasing index.
fn greedy(adj: &[Vec<usize>]) -> Colouring {
    let nc = adj.len();
    let mut order: Vec<usize> = (0..nc).collect();
    // Stable sort: equal degrees keep increasing index order.
    order.sort_by(|&a, &b| adj[b].len().cmp(&adj[a].len()));
    let mut colour_of = vec![usize::MAX; nc];
    // `taken[k] == c + 1` marks colour `k` as used by a neighbour of contact `c`.
    let mut taken: Vec<usize> = Vec::new();
    let mut n_colours = 0;
    for &c in &order {
        for &d in &adj[c] {
            let k = colour_of[d];
            if k != usize::MAX {
                taken[k] = c + 1;
            }
        }
        let k = (0..n_colours).find(|&k| taken[k] != c + 1).unwrap_or(n_colours);
        if k == n_colours {
            n_colours += 1;
            taken.push(0);
        }
        colour_of[c] = k;
    }
    let mut classes = vec![Vec::new(); n_colours];
    for (c, &k) in colour_of.iter().enumerate() {
        classes[k].push(c);
    }
    let max_degree = adj.iter().map(Vec::len).max().unwrap_or(0);
    Colouring { colour_of, classes, max_degree }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    /// A chain of `nc` contacts in dimension `dim`: contact `c` coupled with `c ± 1`.
    fn chain(nc: usize, dim: usize) -> Mat<f64> {
        Mat::from_fn(dim * nc, dim * nc, |i, j| {
            let (c, d) = (i / dim, j / dim);
            if i == j {
                4.0
            } else if c.abs_diff(d) == 1 && i % dim == j % dim {
                -1.0
            } else {
                0.0
            }
        })
    }

    fn assert_proper(col: &Colouring, w: &Mat<f64>, dim: usize) {
        for class in col.classes() {
            for &c in class {
                for &d in class {
                    if c != d {
                        for a in 0..dim {
                            for b in 0..dim {
                                assert!(w[(dim * c + a, dim * d + b)] == 0.0, "{c} {d} coupled");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn chain_needs_two_colours_in_every_storage() {
        let w = chain(7, 3);
        let dense = NumericsMatrix::Dense(w.clone());
        let ends: Vec<usize> = (1..=7).map(|k| 3 * k).collect();
        let sbm = NumericsMatrix::SparseBlock(dense.to_sparse_block(&ends, &ends).expect("3x3 blocks"));
        let csr = NumericsMatrix::Sparse(dense.to_csr());
        let reference = colour_contacts(&dense, 7, 3).expect("sizes match");
        assert_eq!(reference.number_of_colours(), 2);
        assert_eq!(reference.max_degree(), 2);
        assert_proper(&reference, &w, 3);
        for m in [&sbm, &csr] {
            assert_eq!(colour_contacts(m, 7, 3).expect("sizes match"), reference);
        }
        // Interior contacts (degree 2) come first: 1, 3, 5 take colour 0.
        assert_eq!(reference.classes()[0], vec![1, 3, 5]);
        assert_eq!(reference.colour_of(0), Some(1));
        assert_eq!(reference.colour_of(7), None);
    }

    #[test]
    fn full_coupling_gives_one_contact_per_colour() {
        let w = Mat::from_fn(8, 8, |i, j| if i == j { 2.0 } else { 0.1 });
        let col = colour_contacts(&NumericsMatrix::Dense(w), 4, 2).expect("sizes match");
        assert_eq!(col.number_of_colours(), 4);
        assert_eq!(col.classes(), &[vec![0], vec![1], vec![2], vec![3]]);
    }

    #[test]
    fn one_sided_coupling_is_an_edge() {
        // Only W_01 ≠ 0 (not W_10): the contacts still interact.
        let w = Mat::from_fn(4, 4, |i, j| {
            if i == j {
                1.0
            } else if i == 0 && j == 3 {
                0.5
            } else {
                0.0
            }
        });
        let col = colour_contacts(&NumericsMatrix::Dense(w), 2, 2).expect("sizes match");
        assert_eq!(col.number_of_colours(), 2);
    }

    #[test]
    fn bad_sizes_are_typed_errors() {
        let w = NumericsMatrix::Dense(chain(3, 3));
        assert!(matches!(colour_contacts(&w, 4, 3), Err(NumericsError::DimensionMismatch { .. })));
        assert!(matches!(colour_contacts(&w, 3, 0), Err(NumericsError::InvalidInput { .. })));
        assert!(matches!(colour_contacts(&w, usize::MAX, 3), Err(NumericsError::InvalidInput { .. })));
    }
}
