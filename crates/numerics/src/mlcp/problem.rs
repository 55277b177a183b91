//! The mixed linear complementarity problem.

use crate::NumericsError;
use crate::fc::problem::{check_finite, check_len, check_matrix};
use crate::matrix::NumericsMatrix;

/// Mixed linear complementarity problem (Siconos' `MixedLinearComplementarityProblem`,
/// `numerics/src/MLCP/MixedLinearComplementarityProblem.h`): with `n` equality unknowns `u`
/// and `m` complementarity unknowns `v`, find `z = (u, v)` and `w = (w₁, w₂)` with
///
/// `w = M z + q`, `w₁ = 0`, `0 ≤ w₂ ⊥ v ≥ 0`,
///
/// where in block form (Cottle, Pang, Stone, *The Linear Complementarity Problem*, §1.5)
/// `M = [[A, C], [D, B]]` and `q = (a, b)`, i.e. `A u + C v + a = 0` and
/// `0 ≤ D u + B v + b ⊥ v ≥ 0`.
///
/// Siconos stores either form or both (`isStorageType1`: the whole `M` and `q` with the row
/// blocks; `isStorageType2`: the blocks `A, B, C, D, a, b`), and the files of its collection
/// hold both. The problem keeps exactly what it was given, so a problem read from a file is
/// written back identically: [`MlcpProblem::matrix_form`] and [`MlcpProblem::block_form`].
/// The two forms are not cross-checked (some collection files, e.g. `Rectangular_mlcp.dat`,
/// hold a whole `M` with more rows than `n + m`).
#[derive(Clone, Debug)]
#[doc(alias = "MixedLinearComplementarityProblem")]
pub struct MlcpProblem {
    n: usize,
    m: usize,
    // Boxed: the forms are large and the problem travels inside `io::Problem`.
    matrix_form: Option<Box<MlcpMatrixForm>>,
    block_form: Option<Box<MlcpBlockForm>>,
}

/// The whole-matrix form of an MLCP (Siconos `isStorageType1`).
#[derive(Clone, Debug)]
pub struct MlcpMatrixForm {
    /// `M`, with `n + m` columns and at least `n + m` rows (more rows make a rectangular MLCP,
    /// whose extra rows are equalities).
    pub matrix: NumericsMatrix,
    /// `q` (`n + m`; Siconos reads as many entries as `M` has columns).
    pub q: Vec<f64>,
    /// Row blocks (Siconos `blocksRows`): block `k` is the rows `row_blocks[k] .. row_blocks[k + 1]`;
    /// strictly increasing from 0 to `n + m`.
    pub row_blocks: Vec<usize>,
    /// For each row block, `true` for a complementarity block and `false` for an equality block
    /// (Siconos `blocksIsComp`); one entry fewer than `row_blocks`.
    pub complementarity_blocks: Vec<bool>,
}

/// The block form `M = [[A, C], [D, B]]`, `q = (a, b)` of an MLCP (Siconos `isStorageType2`).
#[derive(Clone, Debug)]
pub struct MlcpBlockForm {
    /// `A` (`n × n`).
    pub mat_a: NumericsMatrix,
    /// `B` (`m × m`).
    pub mat_b: NumericsMatrix,
    /// `C` (`n × m`).
    pub mat_c: NumericsMatrix,
    /// `D` (`m × n`).
    pub mat_d: NumericsMatrix,
    /// `a` (`n`).
    pub vec_a: Vec<f64>,
    /// `b` (`m`).
    pub vec_b: Vec<f64>,
}

impl MlcpMatrixForm {
    /// The usual layout: one equality block of `n` rows (omitted when `n = 0`) followed by one
    /// complementarity block of `m` rows (omitted when `m = 0`).
    pub fn new(matrix: NumericsMatrix, q: Vec<f64>, n: usize, m: usize) -> Self {
        let mut row_blocks = vec![0];
        let mut complementarity_blocks = Vec::new();
        if n > 0 {
            row_blocks.push(n);
            complementarity_blocks.push(false);
        }
        if m > 0 {
            row_blocks.push(n + m);
            complementarity_blocks.push(true);
        }
        Self { matrix, q, row_blocks, complementarity_blocks }
    }
}

impl MlcpProblem {
    /// Builds an MLCP with `n` equality and `m` complementarity unknowns from one or both forms.
    ///
    /// # Errors
    /// [`NumericsError::EmptyProblem`] when `n + m = 0`; [`NumericsError::InvalidInput`] when no
    /// form is given or the row blocks are inconsistent; [`NumericsError::DimensionMismatch`]
    /// when a size disagrees; [`NumericsError::NonFinite`] for NaN or infinite data.
    pub fn new(
        n: usize,
        m: usize,
        matrix_form: Option<MlcpMatrixForm>,
        block_form: Option<MlcpBlockForm>,
    ) -> Result<Self, NumericsError> {
        let size =
            n.checked_add(m).ok_or(NumericsError::InvalidInput { what: "mlcp", reason: "n + m overflows".into() })?;
        if size == 0 {
            return Err(NumericsError::EmptyProblem { what: "mlcp" });
        }
        if matrix_form.is_none() && block_form.is_none() {
            return Err(NumericsError::InvalidInput {
                what: "mlcp",
                reason: "neither the whole matrix M nor the blocks A, B, C, D are given".into(),
            });
        }
        if let Some(f) = &matrix_form {
            check_matrix_form(f, size)?;
        }
        if let Some(f) = &block_form {
            check_matrix("mlcp block A", &f.mat_a, n, n)?;
            check_matrix("mlcp block B", &f.mat_b, m, m)?;
            check_matrix("mlcp block C", &f.mat_c, n, m)?;
            check_matrix("mlcp block D", &f.mat_d, m, n)?;
            check_len("mlcp vector a", &f.vec_a, n)?;
            check_len("mlcp vector b", &f.vec_b, m)?;
            check_finite("mlcp vector a", &f.vec_a)?;
            check_finite("mlcp vector b", &f.vec_b)?;
        }
        Ok(Self { n, m, matrix_form: matrix_form.map(Box::new), block_form: block_form.map(Box::new) })
    }

    /// Number `n` of equality unknowns `u`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number `m` of complementarity unknowns `v`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Number of unknowns `n + m`.
    pub fn size(&self) -> usize {
        self.n + self.m
    }

    /// The whole-matrix form, if the problem has it.
    pub fn matrix_form(&self) -> Option<&MlcpMatrixForm> {
        self.matrix_form.as_deref()
    }

    /// The block form, if the problem has it.
    pub fn block_form(&self) -> Option<&MlcpBlockForm> {
        self.block_form.as_deref()
    }

    /// Splits the problem into `(n, m, matrix form, block form)`.
    pub fn into_parts(self) -> (usize, usize, Option<MlcpMatrixForm>, Option<MlcpBlockForm>) {
        (self.n, self.m, self.matrix_form.map(|f| *f), self.block_form.map(|f| *f))
    }
}

fn check_matrix_form(f: &MlcpMatrixForm, size: usize) -> Result<(), NumericsError> {
    let a = &f.matrix;
    if a.ncols() != size {
        return Err(NumericsError::DimensionMismatch {
            what: "mlcp matrix M columns",
            expected: size,
            found: a.ncols(),
        });
    }
    if a.nrows() < size {
        return Err(NumericsError::DimensionMismatch { what: "mlcp matrix M rows", expected: size, found: a.nrows() });
    }
    if !a.is_finite() {
        return Err(NumericsError::NonFinite { what: "mlcp matrix M" });
    }
    check_len("mlcp vector q", &f.q, size)?;
    check_finite("mlcp vector q", &f.q)?;
    let bad = |reason: String| NumericsError::InvalidInput { what: "mlcp row blocks", reason };
    let rows = &f.row_blocks;
    if rows.first() != Some(&0) || rows.last() != Some(&size) {
        return Err(bad(format!("the row blocks must run from 0 to n + m = {size}")));
    }
    if rows.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad("the row blocks must be strictly increasing".into()));
    }
    if f.complementarity_blocks.len() + 1 != rows.len() {
        return Err(bad(format!(
            "{} block types given for {} row blocks",
            f.complementarity_blocks.len(),
            rows.len() - 1
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    fn dense(r: usize, c: usize) -> NumericsMatrix {
        NumericsMatrix::Dense(Mat::from_fn(r, c, |i, j| (i + 2 * j) as f64))
    }

    #[test]
    fn builds_from_either_form() {
        let whole = MlcpMatrixForm::new(dense(3, 3), vec![1.0, 2.0, 3.0], 1, 2);
        assert_eq!(whole.row_blocks, vec![0, 1, 3]);
        assert_eq!(whole.complementarity_blocks, vec![false, true]);
        let p = MlcpProblem::new(1, 2, Some(whole), None).expect("valid");
        assert_eq!((p.n(), p.m(), p.size()), (1, 2, 3));
        let blocks = MlcpBlockForm {
            mat_a: dense(1, 1),
            mat_b: dense(2, 2),
            mat_c: dense(1, 2),
            mat_d: dense(2, 1),
            vec_a: vec![0.0],
            vec_b: vec![0.0; 2],
        };
        let p = MlcpProblem::new(1, 2, None, Some(blocks)).expect("valid");
        assert!(p.matrix_form().is_none() && p.block_form().is_some());
    }

    #[test]
    fn rejects_inconsistent_data() {
        assert!(matches!(MlcpProblem::new(0, 0, None, None), Err(NumericsError::EmptyProblem { .. })));
        assert!(matches!(MlcpProblem::new(1, 1, None, None), Err(NumericsError::InvalidInput { .. })));
        let mut whole = MlcpMatrixForm::new(dense(2, 2), vec![1.0, 2.0], 1, 1);
        whole.row_blocks = vec![0, 2, 1];
        let r = MlcpProblem::new(1, 1, Some(whole), None);
        assert!(matches!(r, Err(NumericsError::InvalidInput { what: "mlcp row blocks", .. })));
        let whole = MlcpMatrixForm::new(dense(2, 3), vec![1.0, 2.0], 1, 1);
        let r = MlcpProblem::new(1, 1, Some(whole), None);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { expected: 2, found: 3, .. })));
        let blocks = MlcpBlockForm {
            mat_a: dense(1, 1),
            mat_b: dense(1, 1),
            mat_c: dense(1, 2),
            mat_d: dense(1, 1),
            vec_a: vec![0.0],
            vec_b: vec![0.0],
        };
        let r = MlcpProblem::new(1, 1, None, Some(blocks));
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { what: "mlcp block C", .. })));
    }
}
