//! The mixed mechanical problem and its validation.

use crate::NumericsError;
use crate::matrix::{NumericsMatrix, SparseBlockMatrix, all_finite};

/// The nonsmooth law of one diagonal block of a [`MixedProblem`] (Siconos'
/// `SICONOS_NUMERICS_PROBLEM_TYPE` of each sub-problem).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum BlockKind {
    /// `w_i = 0`, `z_i` free (Siconos `SICONOS_NUMERICS_PROBLEM_EQUALITY`, type 2). Any size.
    Equality,
    /// `0 ≤ z_i ⊥ w_i ≥ 0` (Siconos `SICONOS_NUMERICS_PROBLEM_LCP`, type 0). Any size.
    Complementarity,
    /// One 2D Coulomb contact, `z_i = (r_N, r_T)` (Siconos `SICONOS_NUMERICS_PROBLEM_FC2D`,
    /// type 3). Size 2.
    Fc2d {
        /// Friction coefficient `μ ≥ 0`.
        mu: f64,
    },
    /// One 3D Coulomb contact, `z_i = (r_N, r_T1, r_T2)` (Siconos
    /// `SICONOS_NUMERICS_PROBLEM_FC3D`, type 4). Size 3.
    Fc3d {
        /// Friction coefficient `μ ≥ 0`.
        mu: f64,
    },
}

impl BlockKind {
    /// Siconos' problem-type number of the law (`SICONOS_NUMERICS_PROBLEM_TYPE`): 0 LCP,
    /// 2 equality, 3 FC2D, 4 FC3D; the number a problem file gives each block.
    pub fn siconos_type(&self) -> i64 {
        match self {
            BlockKind::Complementarity => 0,
            BlockKind::Equality => 2,
            BlockKind::Fc2d { .. } => 3,
            BlockKind::Fc3d { .. } => 4,
        }
    }

    /// The law's name in Siconos' words (`ns_problem_id_to_name`) for a type number, including
    /// the types this crate does not handle in a mixed problem (MLCP, NCP, MCP, VI, AVI, relay).
    pub fn siconos_name(code: i64) -> Option<&'static str> {
        Some(match code {
            0 => "LCP",
            1 => "MLCP",
            2 => "EQUALITY",
            3 => "FC2D",
            4 => "FC3D",
            5 => "NCP",
            6 => "MCP",
            7 => "VI",
            8 => "AVI",
            9 => "RELAY",
            _ => return None,
        })
    }

    /// The size the law imposes on its block: 2 (FC2D), 3 (FC3D), none for equality and
    /// complementarity blocks.
    pub fn required_size(&self) -> Option<usize> {
        match self {
            BlockKind::Fc2d { .. } => Some(2),
            BlockKind::Fc3d { .. } => Some(3),
            BlockKind::Equality | BlockKind::Complementarity => None,
        }
    }

    /// The friction coefficient of a contact block.
    pub fn mu(&self) -> Option<f64> {
        match self {
            BlockKind::Fc2d { mu } | BlockKind::Fc3d { mu } => Some(*mu),
            BlockKind::Equality | BlockKind::Complementarity => None,
        }
    }
}

/// Mixed mechanical problem (Siconos `GenericMechanicalProblem`): find `z` with `w = M z + q`
/// and, for each block row `i` of the sparse-block `M`, `(z_i, w_i)` in the law of
/// `blocks[i]` (see the [module documentation](super)).
///
/// `M` is square by blocks (the same block sizes for rows and columns) and every diagonal block
/// `M_ii` is stored: the Gauss–Seidel solver solves each block's local problem on it.
#[derive(Clone, Debug)]
#[doc(alias = "GenericMechanicalProblem")]
pub struct MixedProblem {
    /// Always [`NumericsMatrix::SparseBlock`] (so that [`MixedProblem::matrix`] can lend it
    /// as the other problems lend theirs).
    matrix: NumericsMatrix,
    q: Vec<f64>,
    blocks: Vec<BlockKind>,
}

impl MixedProblem {
    /// Builds and validates the problem.
    ///
    /// # Errors
    /// - [`NumericsError::EmptyProblem`] when `M` has no rows;
    /// - [`NumericsError::DimensionMismatch`] when `M` is not square by blocks, `q` does not have
    ///   `M`'s size, `blocks` does not have one law per block row, or a contact block is not of
    ///   its law's size (2 for FC2D, 3 for FC3D);
    /// - [`NumericsError::InvalidInput`] when a diagonal block is missing, or a contact block's
    ///   diagonal is not positive (the local solvers divide by it), or `μ < 0`;
    /// - [`NumericsError::NonFinite`] for NaN or infinite entries of `M`, `q` or a `μ`.
    pub fn new(m: SparseBlockMatrix, q: Vec<f64>, blocks: Vec<BlockKind>) -> Result<Self, NumericsError> {
        if m.nrows() == 0 || m.n_block_rows() == 0 {
            return Err(NumericsError::EmptyProblem { what: "mixed problem (M has no rows)" });
        }
        if m.ncols() != m.nrows() {
            return Err(NumericsError::DimensionMismatch {
                what: "columns of the mixed problem's M",
                expected: m.nrows(),
                found: m.ncols(),
            });
        }
        if m.row_block_ends() != m.col_block_ends() {
            return Err(NumericsError::InvalidInput {
                what: "mixed problem",
                reason: "M's row and column blocks differ: M must be square by blocks".into(),
            });
        }
        if q.len() != m.nrows() {
            return Err(NumericsError::DimensionMismatch {
                what: "mixed problem vector q",
                expected: m.nrows(),
                found: q.len(),
            });
        }
        if blocks.len() != m.n_block_rows() {
            return Err(NumericsError::DimensionMismatch {
                what: "mixed problem laws (one per block row of M)",
                expected: m.n_block_rows(),
                found: blocks.len(),
            });
        }
        if !m.is_finite() {
            return Err(NumericsError::NonFinite { what: "mixed problem matrix M" });
        }
        if !all_finite(&q) {
            return Err(NumericsError::NonFinite { what: "mixed problem vector q" });
        }
        for (i, kind) in blocks.iter().enumerate() {
            let size = m.row_block_size(i);
            let Some(diag) = m.diagonal_block(i) else {
                return Err(NumericsError::InvalidInput {
                    what: "mixed problem",
                    reason: format!("the diagonal block of block row {i} is not stored"),
                });
            };
            if let Some(expected) = kind.required_size()
                && size != expected
            {
                return Err(NumericsError::DimensionMismatch {
                    what: if expected == 2 { "size of an FC2D block" } else { "size of an FC3D block" },
                    expected,
                    found: size,
                });
            }
            if let Some(mu) = kind.mu() {
                if !mu.is_finite() {
                    return Err(NumericsError::NonFinite { what: "mixed problem friction coefficient mu" });
                }
                if mu < 0.0 {
                    return Err(NumericsError::InvalidInput {
                        what: "mixed problem",
                        reason: format!("negative friction coefficient {mu} in block {i}"),
                    });
                }
                if (0..size).any(|k| diag[k * size + k] <= 0.0) {
                    return Err(NumericsError::InvalidInput {
                        what: "mixed problem",
                        reason: format!("the diagonal of contact block {i} is not positive"),
                    });
                }
            }
        }
        Ok(Self { matrix: NumericsMatrix::SparseBlock(m), q, blocks })
    }

    /// The matrix `M`.
    pub fn m(&self) -> &SparseBlockMatrix {
        match &self.matrix {
            NumericsMatrix::SparseBlock(m) => m,
            _ => unreachable!("a mixed problem is built from a sparse-block matrix"),
        }
    }

    /// The matrix `M` as a [`NumericsMatrix`] (always [`NumericsMatrix::SparseBlock`]).
    pub fn matrix(&self) -> &NumericsMatrix {
        &self.matrix
    }

    /// The vector `q`.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The law of each block row, in order.
    pub fn blocks(&self) -> &[BlockKind] {
        &self.blocks
    }

    /// Number of unknowns (`M`'s size).
    pub fn size(&self) -> usize {
        self.q.len()
    }

    /// The matrix, vector and laws, giving the problem up.
    pub fn into_parts(self) -> (SparseBlockMatrix, Vec<f64>, Vec<BlockKind>) {
        match self.matrix {
            NumericsMatrix::SparseBlock(m) => (m, self.q, self.blocks),
            _ => unreachable!("a mixed problem is built from a sparse-block matrix"),
        }
    }

    /// The unknowns of block `i`: `start..end`.
    pub(crate) fn range(&self, i: usize) -> std::ops::Range<usize> {
        let start = self.m().row_block_start(i);
        start..start + self.m().row_block_size(i)
    }

    /// The largest block size.
    pub(crate) fn max_block_size(&self) -> usize {
        (0..self.blocks.len()).map(|i| self.m().row_block_size(i)).max().unwrap_or(0)
    }

    /// `z` and `w` have the problem's size.
    pub(crate) fn check_vectors(&self, z: &[f64], w: &[f64]) -> Result<(), NumericsError> {
        for (what, v) in [("mixed problem unknowns z", z), ("mixed problem velocities w", w)] {
            if v.len() != self.size() {
                return Err(NumericsError::DimensionMismatch { what, expected: self.size(), found: v.len() });
            }
        }
        Ok(())
    }
}

/// Equal matrices (structure and values), vectors and laws.
impl PartialEq for MixedProblem {
    fn eq(&self, other: &Self) -> bool {
        self.m() == other.m() && self.q == other.q && self.blocks == other.blocks
    }
}
