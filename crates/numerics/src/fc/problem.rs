//! The local frictional contact problem (2D and 3D) and the checks shared by the problem types
//! read from Siconos files.

use crate::matrix::{NumericsMatrix, SparseBlockMatrix};
use crate::{NumericsError, SolverReport, SolverStatus};

/// Local frictional contact problem with `nc` contacts in dimension `D` (Siconos'
/// `FrictionContactProblem`, `numerics/src/FrictionContact/FrictionContactProblem.h`).
///
/// Find reactions `r ∈ R^{D·nc}` and relative velocities `u ∈ R^{D·nc}` with
///
/// `u = W r + q`, and for each contact `α` (components `α·D .. α·D + D`, the normal one first):
/// `K_α ∋ r_α ⊥ û_α ∈ K_α*`, where `K_α = { r : ‖r_T‖ ≤ μ_α r_N }` is the Coulomb cone,
/// `K_α*` its dual cone and `û_α = u_α + (μ_α ‖u_{α,T}‖, 0, …)` the modified velocity of
/// De Saxcé (G. De Saxcé, Z.-Q. Feng, "New inequality and functional for contact with
/// friction: the implicit standard material approach", Mech. Struct. Mach. 19, 1991; Coulomb
/// friction as a cone complementarity as in Acary & Brogliato, "Numerical Methods for Nonsmooth
/// Dynamical Systems", Springer 2008; the 3D local problem as in the Siconos developer
/// documentation, "Quartic Formulation").
///
/// `D = 2` is the planar problem (one tangential component), `D = 3` the spatial one; use the
/// aliases [`Fc2dProblem`] and [`Fc3dProblem`]. The problem owns its data.
#[derive(Clone, Debug)]
#[doc(alias = "FrictionContactProblem")]
pub struct LocalFcProblem<const D: usize> {
    w: NumericsMatrix,
    q: Vec<f64>,
    mu: Vec<f64>,
}

/// Planar local frictional contact problem (Siconos FC2D, `dimension = 2`).
pub type Fc2dProblem = LocalFcProblem<2>;
/// Spatial local frictional contact problem (Siconos FC3D, `dimension = 3`).
pub type Fc3dProblem = LocalFcProblem<3>;

impl<const D: usize> LocalFcProblem<D> {
    /// Builds the problem from the Delassus matrix `W` (`D·nc × D·nc`), `q` (`D·nc`) and the
    /// friction coefficients `μ` (`nc = μ.len()`, one per contact).
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] when `D` is not 2 or 3 or a `μ` is negative,
    /// [`NumericsError::EmptyProblem`] when there is no contact,
    /// [`NumericsError::DimensionMismatch`] when the sizes disagree,
    /// [`NumericsError::NonFinite`] for NaN or infinite data.
    pub fn new(w: NumericsMatrix, q: Vec<f64>, mu: Vec<f64>) -> Result<Self, NumericsError> {
        check_contact_dimension(D, "local frictional contact problem")?;
        let nc = mu.len();
        if nc == 0 {
            return Err(NumericsError::EmptyProblem { what: "local frictional contact problem without contacts" });
        }
        let n = D.checked_mul(nc).ok_or(NumericsError::InvalidInput {
            what: "local frictional contact problem",
            reason: "number of contacts overflows".into(),
        })?;
        check_len("fc vector q", &q, n)?;
        check_matrix("fc matrix W", &w, n, n)?;
        if let NumericsMatrix::SparseBlock(m) = &w {
            check_contact_blocks(m, D)?;
        }
        check_finite("fc vector q", &q)?;
        check_mu(&mu)?;
        Ok(Self { w, q, mu })
    }

    /// A problem from parts that satisfy every check of [`LocalFcProblem::new`] (a permuted
    /// copy of a valid problem).
    pub(crate) fn from_validated_parts(w: NumericsMatrix, q: Vec<f64>, mu: Vec<f64>) -> Self {
        debug_assert_eq!(q.len(), D * mu.len());
        Self { w, q, mu }
    }

    /// The checks every local solver makes on its arguments: `r` and `u` of length `D·nc` and a
    /// finite warm start `r`; `what` names `r`, `u` and the warm start in the errors.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] for a wrong length, [`NumericsError::NonFinite`] for
    /// a non-finite warm start.
    pub(crate) fn check_solver_vectors(
        &self,
        r: &[f64],
        u: &[f64],
        what: [&'static str; 3],
    ) -> Result<(), NumericsError> {
        let n = self.size();
        if r.len() != n {
            return Err(NumericsError::DimensionMismatch { what: what[0], expected: n, found: r.len() });
        }
        if u.len() != n {
            return Err(NumericsError::DimensionMismatch { what: what[1], expected: n, found: u.len() });
        }
        if !crate::matrix::all_finite(r) {
            return Err(NumericsError::NonFinite { what: what[2] });
        }
        Ok(())
    }

    /// Siconos' trivial case (`fc3d_checkTrivialCase` in `fc3d_driver`): when `q_N ≥ 0` for every
    /// contact, `r = 0`, `u = q` is a solution. Writes it and returns the report (0 iterations,
    /// the error of that `r`), or `None` when the case does not apply.
    ///
    /// # Errors
    /// As [`LocalFcProblem::compute_error`].
    pub(crate) fn trivial_solution(&self, r: &mut [f64], u: &mut [f64]) -> Result<Option<SolverReport>, NumericsError> {
        if !self.q.iter().step_by(D).all(|&qn| qn >= 0.0) {
            return Ok(None);
        }
        r.fill(0.0);
        let residual = self.compute_error(r, u)?;
        Ok(Some(SolverReport::new(SolverStatus::Converged, 0, residual)))
    }

    /// The contact dimension `D` (2 or 3).
    pub fn dimension(&self) -> usize {
        D
    }

    /// Number of contacts `nc`.
    pub fn number_of_contacts(&self) -> usize {
        self.mu.len()
    }

    /// Number of unknowns `D·nc` (the length of `r`, `u` and `q`).
    pub fn size(&self) -> usize {
        self.q.len()
    }

    /// The Delassus matrix `W`.
    pub fn w(&self) -> &NumericsMatrix {
        &self.w
    }

    /// The vector `q`.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The friction coefficients `μ`, one per contact.
    pub fn mu(&self) -> &[f64] {
        &self.mu
    }

    /// Splits the problem into `(W, q, μ)`.
    pub fn into_parts(self) -> (NumericsMatrix, Vec<f64>, Vec<f64>) {
        (self.w, self.q, self.mu)
    }
}

/// `D ∈ {2, 3}`.
pub(crate) fn check_contact_dimension(d: usize, what: &'static str) -> Result<(), NumericsError> {
    if d == 2 || d == 3 {
        Ok(())
    } else {
        Err(NumericsError::InvalidInput { what, reason: format!("contact dimension {d} is neither 2 nor 3") })
    }
}

/// `v.len() == expected`.
pub(crate) fn check_len(what: &'static str, v: &[f64], expected: usize) -> Result<(), NumericsError> {
    if v.len() == expected { Ok(()) } else { Err(NumericsError::DimensionMismatch { what, expected, found: v.len() }) }
}

/// Every entry of `v` is finite.
pub(crate) fn check_finite(what: &'static str, v: &[f64]) -> Result<(), NumericsError> {
    if crate::matrix::all_finite(v) { Ok(()) } else { Err(NumericsError::NonFinite { what }) }
}

/// `a` is `rows × cols` with finite entries.
pub(crate) fn check_matrix(
    what: &'static str,
    a: &NumericsMatrix,
    rows: usize,
    cols: usize,
) -> Result<(), NumericsError> {
    if a.nrows() != rows {
        return Err(NumericsError::DimensionMismatch { what, expected: rows, found: a.nrows() });
    }
    if a.ncols() != cols {
        return Err(NumericsError::DimensionMismatch { what, expected: cols, found: a.ncols() });
    }
    if !a.is_finite() {
        return Err(NumericsError::NonFinite { what });
    }
    Ok(())
}

/// A sparse-block `W` has square diagonal blocks (the same row and column partition) whose
/// boundaries fall between contacts (multiples of `d`), so that each contact's `d × d` block
/// `W_cc` lies inside one diagonal block, as Siconos' solvers assume.
fn check_contact_blocks(m: &SparseBlockMatrix, d: usize) -> Result<(), NumericsError> {
    if m.row_block_ends() != m.col_block_ends() {
        return Err(NumericsError::InvalidInput {
            what: "fc matrix W",
            reason: "sparse-block W has non-square diagonal blocks (row and column block sizes differ)".into(),
        });
    }
    if let Some(e) = m.row_block_ends().iter().find(|&&e| e % d != 0) {
        return Err(NumericsError::InvalidInput {
            what: "fc matrix W",
            reason: format!("a block boundary of sparse-block W (at row {e}) splits a contact of dimension {d}"),
        });
    }
    Ok(())
}

/// Friction coefficients are finite and `μ ≥ 0`.
pub(crate) fn check_mu(mu: &[f64]) -> Result<(), NumericsError> {
    check_finite("friction coefficients mu", mu)?;
    match mu.iter().position(|&m| m < 0.0) {
        None => Ok(()),
        Some(i) => Err(NumericsError::InvalidInput {
            what: "friction coefficients mu",
            reason: format!("mu[{i}] = {} is negative", mu[i]),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    fn identity(n: usize) -> NumericsMatrix {
        NumericsMatrix::Dense(Mat::from_fn(n, n, |i, j| if i == j { 1.0 } else { 0.0 }))
    }

    #[test]
    fn builds_a_two_contact_fc3d_problem() {
        let p = Fc3dProblem::new(identity(6), vec![-1.0; 6], vec![0.3, 0.5]).expect("valid problem");
        assert_eq!((p.dimension(), p.number_of_contacts(), p.size()), (3, 2, 6));
        assert_eq!(p.w().nrows(), 6);
    }

    #[test]
    fn rejects_bad_data_with_typed_errors() {
        let r = Fc2dProblem::new(identity(4), vec![0.0; 4], vec![]);
        assert!(matches!(r, Err(NumericsError::EmptyProblem { .. })));
        let r = Fc2dProblem::new(identity(4), vec![0.0; 3], vec![0.1, 0.1]);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { expected: 4, found: 3, .. })));
        let r = Fc2dProblem::new(identity(3), vec![0.0; 4], vec![0.1, 0.1]);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { expected: 4, found: 3, .. })));
        let r = Fc2dProblem::new(identity(4), vec![0.0; 4], vec![0.1, -0.1]);
        assert!(matches!(r, Err(NumericsError::InvalidInput { .. })));
        let r = Fc2dProblem::new(identity(4), vec![0.0, f64::NAN, 0.0, 0.0], vec![0.1, 0.1]);
        assert!(matches!(r, Err(NumericsError::NonFinite { .. })));
        let r = LocalFcProblem::<4>::new(identity(4), vec![0.0; 4], vec![0.1]);
        assert!(matches!(r, Err(NumericsError::InvalidInput { .. })));
    }

    #[test]
    fn rejects_sparse_block_w_with_non_square_or_straddling_blocks() {
        let dense = Mat::from_fn(6, 6, |i, j| if i == j { 2.0 } else { 0.1 });
        // Rows split 3 + 3 but columns 2 + 4: non-square diagonal blocks.
        let w = SparseBlockMatrix::from_dense(dense.as_ref(), &[3, 6], &[2, 6]).expect("valid SBM");
        let r = Fc3dProblem::new(NumericsMatrix::SparseBlock(w), vec![-1.0; 6], vec![0.3, 0.3]);
        assert!(
            matches!(r, Err(NumericsError::InvalidInput { ref reason, .. }) if reason.contains("non-square")),
            "{r:?}"
        );
        // Square blocks 2 + 4 straddle the contacts {0,1,2} and {3,4,5}.
        let w = SparseBlockMatrix::from_dense(dense.as_ref(), &[2, 6], &[2, 6]).expect("valid SBM");
        let r = Fc3dProblem::new(NumericsMatrix::SparseBlock(w), vec![-1.0; 6], vec![0.3, 0.3]);
        assert!(matches!(r, Err(NumericsError::InvalidInput { ref reason, .. }) if reason.contains("splits")), "{r:?}");
        // One 6×6 block holding both contacts is fine.
        let w = SparseBlockMatrix::from_dense(dense.as_ref(), &[6], &[6]).expect("valid SBM");
        assert!(Fc3dProblem::new(NumericsMatrix::SparseBlock(w), vec![-1.0; 6], vec![0.3, 0.3]).is_ok());
    }
}
