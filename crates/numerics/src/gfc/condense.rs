//! Condensation of the global frictional contact problem onto the local one (Siconos
//! `globalFrictionContact_reformulation_FrictionContact` in `gfc3d_nsgs_wr.c` /
//! `gfc3d_solvers_wr.c`, and `globalFrictionContact_computeGlobalVelocity`).
//!
//! From `M v = q + H r` with `M` invertible, `v = M⁻¹ (q + H r)`, so `u = Hᵀ v + b = W r + q_loc`
//! with the Delassus matrix `W = Hᵀ M⁻¹ H` and `q_loc = Hᵀ M⁻¹ q + b` (the global formulation
//! and its reduction to local variables: the Siconos developer documentation, "Alart–Curnier
//! Formulation"; Acary & Brogliato, "Numerical Methods for Nonsmooth Dynamical Systems",
//! Springer 2008).

#![allow(non_snake_case)]

use faer::Mat;
use sprs::CsMat;

use super::factor::MassFactorization;
use super::problem::GlobalFcProblem;
use crate::NumericsError;
use crate::fc::LocalFcProblem;
use crate::fc::problem::check_len;
use crate::matrix::{DuplicateBlocks, NumericsMatrix, SparseBlockMatrix, uniform_block_ends};

/// Largest Delassus order `D·nc` stored dense by [`DelassusStorage::Auto`] when `M` is sparse:
/// 600 (200 contacts in 3D). Up to there a dense `W` costs at most 2.9 MB and the local solvers
/// read it fastest; beyond it, for the sparse (multi-body) problems where most contact pairs do
/// not share a body, a sparse-block `W` keeps memory and products proportional to the couplings.
pub const DENSE_DELASSUS_LIMIT: usize = 600;

/// Storage of the Delassus matrix `W` built by [`GlobalFcProblem::condense_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DelassusStorage {
    /// Dense when `M` is dense or `D·nc ≤` [`DENSE_DELASSUS_LIMIT`], sparse-block otherwise
    /// (the default).
    #[default]
    Auto,
    /// Always dense.
    Dense,
    /// Always sparse-block with `D×D` blocks (one block row and column per contact); a block is
    /// stored when one of its entries is nonzero.
    SparseBlock,
}

/// The local problem obtained by condensing a [`GlobalFcProblem`], with the factorization of
/// `M` kept to recover the global velocity.
#[derive(Clone, Debug)]
pub struct Condensed<'a, const D: usize> {
    problem: &'a GlobalFcProblem<D>,
    factor: MassFactorization,
    local: Option<LocalFcProblem<D>>,
}

/// Number of columns of `H` solved together (`M X = H[:, block]`) during condensation.
const CONTACTS_PER_BATCH: usize = 32;

impl<const D: usize> GlobalFcProblem<D> {
    /// Condenses the problem onto the local one, `W = Hᵀ M⁻¹ H`, `q_loc = Hᵀ M⁻¹ q + b`, with the
    /// Delassus storage chosen by [`DelassusStorage::Auto`]. See
    /// [`condense_with`](Self::condense_with).
    ///
    /// # Errors
    /// As [`condense_with`](Self::condense_with).
    #[doc(alias = "globalFrictionContact_reformulation_FrictionContact")]
    pub fn condense(&self) -> Result<Condensed<'_, D>, NumericsError> {
        self.condense_with(DelassusStorage::Auto)
    }

    /// Condenses the problem onto the local one (Siconos
    /// `globalFrictionContact_reformulation_FrictionContact`): factorizes `M` once
    /// ([`MassFactorization`]: Cholesky, or LU when `M` is not symmetric positive definite), then
    /// computes `X = M⁻¹ H` by solves on batches of 32 contacts' columns of `H` (never forming
    /// `M⁻¹`), `W = Hᵀ X` by scattering each column of `X` through the rows of `H` (CSR), and
    /// `q_loc = Hᵀ (M⁻¹ q) + b`. Cost: one factorization, `D·nc` solves and `Σ_c nnz(X_c)·(row
    /// length of H)` for the product. With `nc = 0` there is no local problem
    /// ([`Condensed::local`] is `None`) and only `M` is factorized.
    ///
    /// # Errors
    /// [`NumericsError::Singular`] when `M` is singular (see [`MassFactorization::new`]).
    pub fn condense_with(&self, storage: DelassusStorage) -> Result<Condensed<'_, D>, NumericsError> {
        let factor = MassFactorization::new(self.m())?;
        let nc = self.number_of_contacts();
        if nc == 0 {
            return Ok(Condensed { problem: self, factor, local: None });
        }
        let dense = self.dense_delassus(storage);
        let W = delassus::<D>(self.h(), &factor, dense)?;
        let mut y = self.q().to_vec();
        factor.solve_in_place(&mut y)?;
        let mut q_loc = self.b().to_vec();
        self.h().gemv_transpose(1.0, &y, 1.0, &mut q_loc);
        let local = LocalFcProblem::new(W, q_loc, self.mu().to_vec())?;
        Ok(Condensed { problem: self, factor, local: Some(local) })
    }
}

impl<const D: usize> GlobalFcProblem<D> {
    /// Whether [`GlobalFcProblem::condense_with`] stores `W` dense with `storage`.
    pub(crate) fn dense_delassus(&self, storage: DelassusStorage) -> bool {
        match storage {
            DelassusStorage::Dense => true,
            DelassusStorage::SparseBlock => false,
            DelassusStorage::Auto => {
                matches!(self.m(), NumericsMatrix::Dense(_)) || self.size() <= DENSE_DELASSUS_LIMIT
            }
        }
    }
}

impl<'a, const D: usize> Condensed<'a, D> {
    /// The global problem condensed.
    pub fn problem(&self) -> &'a GlobalFcProblem<D> {
        self.problem
    }

    /// The local problem `u = W r + q_loc` (`None` when the global problem has no contact).
    pub fn local(&self) -> Option<&LocalFcProblem<D>> {
        self.local.as_ref()
    }

    /// The factorization of `M`.
    pub fn factorization(&self) -> &MassFactorization {
        &self.factor
    }

    /// The global velocity `v = M⁻¹ (q + H r)` of the reactions `r` (Siconos
    /// `globalFrictionContact_computeGlobalVelocity`), with the kept factorization.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` is not of length `D·nc` or `v` not of
    /// length `n`; [`NumericsError::Singular`] when the solve gives non-finite values.
    #[doc(alias = "globalFrictionContact_computeGlobalVelocity")]
    pub fn global_velocity(&self, r: &[f64], v: &mut [f64]) -> Result<(), NumericsError> {
        let p = self.problem;
        check_len("gfc reaction r", r, p.size())?;
        check_len("gfc global velocity v", v, p.velocity_size())?;
        v.copy_from_slice(p.q());
        if p.size() > 0 {
            p.h().gemv(1.0, r, 1.0, v);
        }
        self.factor.solve_in_place(v)
    }

    /// The local velocity `u = Hᵀ v + b`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `v` is not of length `n` or `u` not of length
    /// `D·nc`.
    pub fn local_velocity(&self, v: &[f64], u: &mut [f64]) -> Result<(), NumericsError> {
        let p = self.problem;
        check_len("gfc global velocity v", v, p.velocity_size())?;
        check_len("gfc local velocity u", u, p.size())?;
        u.copy_from_slice(p.b());
        p.h().gemv_transpose(1.0, v, 1.0, u);
        Ok(())
    }
}

/// `W = Hᵀ M⁻¹ H`, dense or sparse-block with `D×D` blocks.
fn delassus<const D: usize>(
    H: &NumericsMatrix,
    factor: &MassFactorization,
    dense: bool,
) -> Result<NumericsMatrix, NumericsError> {
    let (n, m) = (H.nrows(), H.ncols());
    let nc = m / D;
    let h_csc = H.to_csc();
    let h_csr: CsMat<f64> = h_csc.to_csr();
    let mut W_dense = if dense { Mat::zeros(m, m) } else { Mat::zeros(0, 0) };
    let mut blocks: Vec<(usize, usize, Mat<f64>)> = Vec::new();
    // Sparse path scratch: D accumulated columns of W and the block rows they touch.
    let mut acc = if dense { Vec::new() } else { vec![0.0; m * D] };
    let mut touched_mark = if dense { Vec::new() } else { vec![false; nc] };
    let mut touched = Vec::new();
    let mut X = Mat::<f64>::zeros(n, CONTACTS_PER_BATCH * D);
    for batch_start in (0..nc).step_by(CONTACTS_PER_BATCH) {
        let batch_end = (batch_start + CONTACTS_PER_BATCH).min(nc);
        let cols = (batch_end - batch_start) * D;
        X.fill(0.0);
        for c in 0..cols {
            let col = h_csc.outer_view(batch_start * D + c).expect("column index < ncols of H");
            let x = X.col_as_slice_mut(c);
            for (&k, &val) in col.indices().iter().zip(col.data()) {
                x[k] += val;
            }
        }
        factor.solve_columns_in_place(X.as_mut().subcols_mut(0, cols))?;
        for contact in batch_start..batch_end {
            for d in 0..D {
                let c = contact * D + d;
                let x = X.col_as_slice(c - batch_start * D);
                let out: &mut [f64] = if dense { W_dense.col_as_slice_mut(c) } else { &mut acc[d * m..(d + 1) * m] };
                for (k, &xk) in x.iter().enumerate() {
                    if xk == 0.0 {
                        continue;
                    }
                    let row = h_csr.outer_view(k).expect("row index < nrows of H");
                    for (&i, &hk) in row.indices().iter().zip(row.data()) {
                        out[i] += hk * xk;
                        if !dense && !touched_mark[i / D] {
                            touched_mark[i / D] = true;
                            touched.push(i / D);
                        }
                    }
                }
            }
            if !dense {
                touched.sort_unstable();
                for &bi in &touched {
                    let block = Mat::from_fn(D, D, |r, c| acc[c * m + bi * D + r]);
                    if (0..D).any(|c| block.col_as_slice(c).iter().any(|&v| v != 0.0)) {
                        blocks.push((bi, contact, block));
                    }
                    for c in 0..D {
                        acc[c * m + bi * D..c * m + bi * D + D].fill(0.0);
                    }
                    touched_mark[bi] = false;
                }
                touched.clear();
            }
        }
    }
    if dense {
        Ok(NumericsMatrix::Dense(W_dense))
    } else {
        let ends = uniform_block_ends(m, D)?;
        Ok(NumericsMatrix::SparseBlock(SparseBlockMatrix::from_blocks(
            ends.clone(),
            ends,
            blocks,
            DuplicateBlocks::Error,
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfc::factor::FactorizationKind;

    /// Two bodies with 3 dofs each, M = diag blocks, three contacts.
    fn problem(dense_m: bool) -> GlobalFcProblem<3> {
        let m = Mat::from_fn(6, 6, |i, j| match (i / 3 == j / 3, i == j) {
            (_, true) => 2.0 + i as f64,
            (true, false) => 0.3,
            _ => 0.0,
        });
        let h = Mat::from_fn(6, 9, |i, j| if (i + 2 * j) % 4 == 0 { 1.0 + 0.1 * (i + j) as f64 } else { 0.0 });
        let M = if dense_m {
            NumericsMatrix::Dense(m)
        } else {
            let e = uniform_block_ends(6, 3).expect("positive");
            NumericsMatrix::SparseBlock(SparseBlockMatrix::from_dense(m.as_ref(), &e, &e).expect("valid"))
        };
        let q = vec![1.0, -2.0, 0.5, 0.0, 3.0, -1.0];
        let b = (0..9).map(|i| 0.1 * i as f64).collect();
        GlobalFcProblem::new(M, NumericsMatrix::Dense(h), q, b, vec![0.3, 0.5, 0.1]).expect("valid")
    }

    /// Dense reference: W = Hᵀ M⁻¹ H by a dense LU solve of all columns.
    fn reference(p: &GlobalFcProblem<3>) -> (Mat<f64>, Vec<f64>) {
        let m = p.m().to_dense();
        let h = p.h().to_dense();
        let lu = faer::linalg::solvers::PartialPivLu::new(m.as_ref());
        let x = faer::linalg::solvers::Solve::solve(&lu, h.as_ref());
        let w = h.transpose() * &x;
        let qv = faer::linalg::solvers::Solve::solve(&lu, Mat::from_fn(p.velocity_size(), 1, |i, _| p.q()[i]).as_ref());
        let ql = (0..p.size()).map(|i| p.b()[i] + (0..p.velocity_size()).map(|k| h[(k, i)] * qv[(k, 0)]).sum::<f64>());
        (w, ql.collect())
    }

    #[test]
    fn condensation_matches_dense_reference_in_every_storage() {
        for dense_m in [true, false] {
            let p = problem(dense_m);
            let (w_ref, q_ref) = reference(&p);
            for storage in [DelassusStorage::Auto, DelassusStorage::Dense, DelassusStorage::SparseBlock] {
                let c = p.condense_with(storage).expect("M is SPD");
                let kind = c.factorization().kind();
                let expected_kind =
                    if dense_m { FactorizationKind::DenseCholesky } else { FactorizationKind::SparseCholesky };
                assert_eq!(kind, expected_kind);
                let local = c.local().expect("three contacts");
                let w = local.w().to_dense();
                for i in 0..9 {
                    assert!((local.q()[i] - q_ref[i]).abs() <= 1e-14 * (1.0 + q_ref[i].abs()));
                    for j in 0..9 {
                        assert!((w[(i, j)] - w_ref[(i, j)]).abs() <= 1e-14, "{storage:?} ({i}, {j})");
                    }
                }
                let is_sbm = matches!(local.w(), NumericsMatrix::SparseBlock(_));
                assert_eq!(is_sbm, storage == DelassusStorage::SparseBlock);
                // v and u recovered from some r satisfy M v = q + H r and u = W r + q_loc.
                let r: Vec<f64> = (0..9).map(|i| 0.2 * i as f64 - 0.5).collect();
                let mut v = vec![0.0; 6];
                c.global_velocity(&r, &mut v).expect("sizes match");
                let mut mv = vec![0.0; 6];
                p.m().gemv(1.0, &v, 0.0, &mut mv);
                let mut rhs = p.q().to_vec();
                p.h().gemv(1.0, &r, 1.0, &mut rhs);
                assert!(mv.iter().zip(&rhs).all(|(a, b)| (a - b).abs() <= 1e-13));
                let mut u = vec![0.0; 9];
                c.local_velocity(&v, &mut u).expect("sizes match");
                let mut u2 = local.q().to_vec();
                local.w().gemv(1.0, &r, 1.0, &mut u2);
                assert!(u.iter().zip(&u2).all(|(a, b)| (a - b).abs() <= 1e-13));
            }
        }
    }

    #[test]
    fn no_contact_and_singular_m() {
        let p = GlobalFcProblem::<2>::new(
            NumericsMatrix::Dense(faer::mat![[2.0, 0.0], [0.0, 4.0]]),
            NumericsMatrix::Dense(Mat::zeros(2, 0)),
            vec![2.0, 2.0],
            vec![],
            vec![],
        )
        .expect("valid");
        let c = p.condense().expect("SPD");
        assert!(c.local().is_none());
        let mut v = [0.0; 2];
        c.global_velocity(&[], &mut v).expect("sizes match");
        assert!((v[0] - 1.0).abs() <= 1e-15 && (v[1] - 0.5).abs() <= 1e-15);
        assert!(matches!(c.global_velocity(&[1.0], &mut v), Err(NumericsError::DimensionMismatch { .. })));

        let p = GlobalFcProblem::<2>::new(
            NumericsMatrix::Dense(faer::mat![[1.0, 1.0], [1.0, 1.0]]),
            NumericsMatrix::Dense(faer::mat![[1.0, 0.0], [0.0, 1.0]]),
            vec![2.0, 2.0],
            vec![0.0, 0.0],
            vec![0.1],
        )
        .expect("valid");
        assert!(matches!(p.condense(), Err(NumericsError::Singular { .. })));
    }
}
