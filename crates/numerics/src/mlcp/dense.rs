//! Dense working copies of an MLCP and a small LU factorization, shared by the MLCP solvers.

use super::MlcpProblem;
use crate::NumericsError;
use crate::matrix::{NumericsMatrix, Storage};
use faer::Mat;

/// The MLCP as one dense square system `w = M z + q` with, for each unknown `j`, whether it is
/// a complementarity unknown (`comp[j]`, row and column `j`) or an equality unknown.
///
/// Built from the whole-matrix form when the problem has it (the form
/// [`MlcpProblem::compute_error`] uses), else from the block form, where the equality unknowns
/// are `0..n` and the complementarity unknowns `n..n+m`.
#[derive(Clone, Debug)]
pub(crate) struct DenseMlcp {
    pub(crate) mat: Mat<f64>,
    pub(crate) q: Vec<f64>,
    pub(crate) comp: Vec<bool>,
}

impl DenseMlcp {
    /// The dense system of `problem`, for the solver `what`; a problem with a sparse matrix is
    /// densified only when its `8 (n + m)²` bytes fit in `max_dense_bytes`.
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] for a rectangular MLCP (see [`MlcpProblem::compute_error`]);
    /// [`NumericsError::DenseTooLarge`] above the limit (every MLCP solver works on the dense
    /// system).
    pub(crate) fn new(problem: &MlcpProblem, what: &'static str, max_dense_bytes: u64) -> Result<Self, NumericsError> {
        problem.check_square()?;
        let size = problem.size();
        let is_sparse = |m: &NumericsMatrix| m.storage() != Storage::Dense;
        let sparse = problem.matrix_form().is_some_and(|f| is_sparse(&f.matrix))
            || problem
                .block_form()
                .is_some_and(|f| [&f.mat_a, &f.mat_b, &f.mat_c, &f.mat_d].into_iter().any(is_sparse));
        if sparse {
            crate::options::dense_fits(
                what,
                size,
                size,
                max_dense_bytes,
                "a dense or smaller MLCP (every MLCP solver densifies)",
            )?;
        }
        let (n, m) = (problem.n(), problem.m());
        if let Some(f) = problem.matrix_form() {
            let mut comp = vec![false; size];
            for (k, &is_comp) in f.complementarity_blocks.iter().enumerate() {
                for c in &mut comp[f.row_blocks[k]..f.row_blocks[k + 1]] {
                    *c = is_comp;
                }
            }
            return Ok(Self { mat: f.matrix.to_dense(), q: f.q.clone(), comp });
        }
        let f = problem.block_form().expect("MlcpProblem::new requires at least one form");
        let (a, b, c, d) = (f.mat_a.to_dense(), f.mat_b.to_dense(), f.mat_c.to_dense(), f.mat_d.to_dense());
        let mat = Mat::from_fn(size, size, |i, j| match (i < n, j < n) {
            (true, true) => a[(i, j)],
            (true, false) => c[(i, j - n)],
            (false, true) => d[(i - n, j)],
            (false, false) => b[(i - n, j - n)],
        });
        let mut q = f.vec_a.clone();
        q.extend_from_slice(&f.vec_b);
        let mut comp = vec![false; n];
        comp.resize(n + m, true);
        Ok(Self { mat, q, comp })
    }

    pub(crate) fn size(&self) -> usize {
        self.q.len()
    }
}

/// LU factorization with partial pivoting of a dense square matrix, row-major storage.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lu {
    n: usize,
    /// `L` (unit lower, below the diagonal) and `U`, row-major.
    lu: Vec<f64>,
    /// Row `k` of the factorization is row `perm[k]` of the matrix.
    perm: Vec<usize>,
}

impl Lu {
    /// Factorizes the `n × n` matrix with entries `entry(i, j)` (stored in the factorization's
    /// own buffer, reused across calls). Returns `false` when a pivot is at or below
    /// `n · ε · max|aᵢⱼ|` (numerically singular; the zero matrix is singular too).
    pub(crate) fn factor(&mut self, n: usize, mut entry: impl FnMut(usize, usize) -> f64) -> bool {
        self.n = n;
        self.lu.clear();
        for i in 0..n {
            for j in 0..n {
                self.lu.push(entry(i, j));
            }
        }
        self.perm.clear();
        self.perm.extend(0..n);
        let scale = self.lu.iter().fold(0.0_f64, |s, v| s.max(v.abs()));
        let threshold = (n as f64) * f64::EPSILON * scale;
        if n > 0 && scale == 0.0 {
            return false;
        }
        let lu = &mut self.lu;
        for k in 0..n {
            let (mut p, mut best) = (k, lu[k * n + k].abs());
            for i in k + 1..n {
                let v = lu[i * n + k].abs();
                if v > best {
                    (p, best) = (i, v);
                }
            }
            if best <= threshold || best.is_nan() {
                return false;
            }
            if p != k {
                for j in 0..n {
                    lu.swap(k * n + j, p * n + j);
                }
                self.perm.swap(k, p);
            }
            let pivot = lu[k * n + k];
            for i in k + 1..n {
                let f = lu[i * n + k] / pivot;
                lu[i * n + k] = f;
                if f != 0.0 {
                    for j in k + 1..n {
                        lu[i * n + j] -= f * lu[k * n + j];
                    }
                }
            }
        }
        true
    }

    /// Solves `A x = b` in place (`b` becomes `x`), using `scratch` (resized to `n`).
    pub(crate) fn solve(&self, b: &mut [f64], scratch: &mut Vec<f64>) {
        let n = self.n;
        scratch.clear();
        scratch.extend(self.perm.iter().map(|&p| b[p]));
        let lu = &self.lu;
        for i in 0..n {
            let mut s = scratch[i];
            for j in 0..i {
                s -= lu[i * n + j] * scratch[j];
            }
            scratch[i] = s;
        }
        for i in (0..n).rev() {
            let mut s = scratch[i];
            for j in i + 1..n {
                s -= lu[i * n + j] * scratch[j];
            }
            scratch[i] = s / lu[i * n + i];
        }
        b.copy_from_slice(scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::Lu;

    #[test]
    fn lu_solves_and_detects_singularity() {
        let mut lu = Lu::default();
        // [[0, 2], [3, 1]] x = (4, 5): x = (1, 2) (needs a row swap).
        let a = [0.0, 2.0, 3.0, 1.0];
        assert!(lu.factor(2, |i, j| a[2 * i + j]));
        let mut b = vec![4.0, 5.0];
        lu.solve(&mut b, &mut Vec::new());
        assert!((b[0] - 1.0).abs() < 1e-15 && (b[1] - 2.0).abs() < 1e-15);
        let a = [1.0, 2.0, 2.0, 4.0];
        assert!(!lu.factor(2, |i, j| a[2 * i + j]));
        assert!(!lu.factor(1, |_, _| 0.0));
    }
}
