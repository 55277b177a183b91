//! The global frictional contact problem (2D and 3D).

use crate::NumericsError;
use crate::fc::problem::{check_contact_dimension, check_finite, check_len, check_matrix, check_mu};
use crate::matrix::NumericsMatrix;

/// Global frictional contact problem with `n` velocity unknowns and `nc` contacts in dimension
/// `D` (Siconos' `GlobalFrictionContactProblem`,
/// `numerics/src/FrictionContact/GlobalFrictionContactProblem.h`).
///
/// Find the global velocity `v ∈ Rⁿ`, the local velocities `u ∈ R^{D·nc}` and the reactions
/// `r ∈ R^{D·nc}` with
///
/// `M v = q + H r`, `u = Hᵀ v + b`, and for each contact `α`: `K_α ∋ r_α ⊥ û_α ∈ K_α*`,
///
/// where `K_α = { r : ‖r_T‖ ≤ μ_α r_N }` and `û_α = u_α + (μ_α ‖u_{α,T}‖, 0, …)` (De Saxcé's
/// modified velocity; the Siconos developer documentation, "Alart–Curnier Formulation", for
/// the global formulation). `M` is `n × n`, `H` is `n × D·nc`. Eliminating `v` gives the
/// local problem [`crate::fc::LocalFcProblem`] with `W = Hᵀ M⁻¹ H` and `q_loc = Hᵀ M⁻¹ q + b`.
///
/// A problem with no contact (`nc = 0`) is admitted: Siconos' collection holds such snapshots
/// (`gfc2d_granularflowonwall_00000_00117.dat`), where the problem reduces to `M v = q`.
#[derive(Clone, Debug)]
#[doc(alias = "GlobalFrictionContactProblem")]
pub struct GlobalFcProblem<const D: usize> {
    m: NumericsMatrix,
    h: NumericsMatrix,
    q: Vec<f64>,
    b: Vec<f64>,
    mu: Vec<f64>,
}

/// Planar global frictional contact problem (Siconos GFC2D, `dimension = 2`).
pub type GlobalFc2dProblem = GlobalFcProblem<2>;
/// Spatial global frictional contact problem (Siconos GFC3D, `dimension = 3`).
pub type GlobalFc3dProblem = GlobalFcProblem<3>;

impl<const D: usize> GlobalFcProblem<D> {
    /// Builds the problem from `M` (`n × n`, `n = q.len() > 0`), `H` (`n × D·nc`), `q`, `b`
    /// (`D·nc`) and `μ` (`nc = μ.len()`).
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] when `D` is not 2 or 3 or a `μ` is negative,
    /// [`NumericsError::EmptyProblem`] when `n = 0`,
    /// [`NumericsError::DimensionMismatch`] when the sizes disagree,
    /// [`NumericsError::NonFinite`] for NaN or infinite data.
    pub fn new(
        m: NumericsMatrix,
        h: NumericsMatrix,
        q: Vec<f64>,
        b: Vec<f64>,
        mu: Vec<f64>,
    ) -> Result<Self, NumericsError> {
        check_contact_dimension(D, "global frictional contact problem")?;
        let n = q.len();
        if n == 0 {
            return Err(NumericsError::EmptyProblem { what: "global frictional contact problem without velocities" });
        }
        let nc = mu.len();
        let nr = D.checked_mul(nc).ok_or(NumericsError::InvalidInput {
            what: "global frictional contact problem",
            reason: "number of contacts overflows".into(),
        })?;
        check_matrix("gfc matrix M", &m, n, n)?;
        check_matrix("gfc matrix H", &h, n, nr)?;
        check_len("gfc vector b", &b, nr)?;
        check_finite("gfc vector q", &q)?;
        check_finite("gfc vector b", &b)?;
        check_mu(&mu)?;
        Ok(Self { m, h, q, b, mu })
    }

    /// The contact dimension `D` (2 or 3).
    pub fn dimension(&self) -> usize {
        D
    }

    /// Number of contacts `nc`.
    pub fn number_of_contacts(&self) -> usize {
        self.mu.len()
    }

    /// Number of reaction unknowns `D·nc` (the length of `r`, `u` and `b`).
    pub fn size(&self) -> usize {
        self.b.len()
    }

    /// Number of global velocity unknowns `n` (the length of `v` and `q`).
    pub fn velocity_size(&self) -> usize {
        self.q.len()
    }

    /// The matrix `M` (`n × n`, usually the mass or iteration matrix).
    pub fn m(&self) -> &NumericsMatrix {
        &self.m
    }

    /// The matrix `H` (`n × D·nc`), mapping reactions to generalized forces.
    pub fn h(&self) -> &NumericsMatrix {
        &self.h
    }

    /// The vector `q` (`n`).
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The vector `b` (`D·nc`).
    pub fn b(&self) -> &[f64] {
        &self.b
    }

    /// The friction coefficients `μ`, one per contact.
    pub fn mu(&self) -> &[f64] {
        &self.mu
    }

    /// Splits the problem into `(M, H, q, b, μ)`.
    pub fn into_parts(self) -> (NumericsMatrix, NumericsMatrix, Vec<f64>, Vec<f64>, Vec<f64>) {
        (self.m, self.h, self.q, self.b, self.mu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    fn dense(r: usize, c: usize) -> NumericsMatrix {
        NumericsMatrix::Dense(Mat::from_fn(r, c, |i, j| if i == j { 2.0 } else { 0.0 }))
    }

    #[test]
    fn builds_a_problem_and_admits_no_contact() {
        let p = GlobalFc3dProblem::new(dense(4, 3), dense(4, 3), vec![0.0; 4], vec![0.0; 3], vec![0.1]);
        assert!(matches!(p, Err(NumericsError::DimensionMismatch { what: "gfc matrix M", .. })));
        let p = GlobalFc3dProblem::new(dense(4, 4), dense(4, 3), vec![0.0; 4], vec![0.0; 3], vec![0.1]).expect("valid");
        assert_eq!((p.size(), p.velocity_size(), p.number_of_contacts()), (3, 4, 1));
        let p = GlobalFc2dProblem::new(dense(4, 4), dense(4, 0), vec![1.0; 4], vec![], vec![]).expect("no contact");
        assert_eq!(p.size(), 0);
    }

    #[test]
    fn rejects_bad_data() {
        let r = GlobalFc2dProblem::new(dense(0, 0), dense(0, 0), vec![], vec![], vec![]);
        assert!(matches!(r, Err(NumericsError::EmptyProblem { .. })));
        let r = GlobalFc2dProblem::new(dense(2, 2), dense(2, 2), vec![0.0; 2], vec![0.0; 2], vec![-1.0]);
        assert!(matches!(r, Err(NumericsError::InvalidInput { .. })));
        let r = GlobalFc2dProblem::new(dense(2, 2), dense(2, 2), vec![0.0; 2], vec![f64::INFINITY, 0.0], vec![1.0]);
        assert!(matches!(r, Err(NumericsError::NonFinite { what: "gfc vector b" })));
        let r = GlobalFc2dProblem::new(dense(2, 2), dense(2, 3), vec![0.0; 2], vec![0.0; 2], vec![1.0]);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { what: "gfc matrix H", .. })));
    }
}
