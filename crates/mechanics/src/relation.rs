//! User-defined relations on Newton–Euler bodies (Siconos' `NewtonEulerR`; Siconos developer
//! notes, chapter "NewtonEuler Dynamical Systems", section "Mechanical systems with bilateral
//! and unilateral constraints").
//!
//! A relation `y = h(q)` on one body (`q ∈ R⁷`) or two (`q = [q₁; q₂] ∈ R¹⁴`) gives its
//! Jacobian in twist space, `H(q) = ∇_q h(q) T(q)`, with 6 columns per body (the velocity of the
//! centre in the inertial frame, then the angular velocity in the body frame), so that
//! `ẏ = H(q) v` and the impulse `λ` acts on the bodies as the wrench `Hᵀ λ` (force in the
//! inertial frame, moment in the body frame). `H` is what the kernel's one-step problems need
//! (`W⁻¹`-weighted `H M⁻¹ Hᵀ`); Siconos computes `∇_q h` on the 7 columns of `q` and multiplies by
//! `T(q)`, we ask the relation for `H` directly.
//!
//! [`NewtonEulerR`] turns any [`NewtonEulerRelation`] into a kernel
//! [`LagrangianRelation`] (link it to the bodies with `Nsds::link`, with an equality law for a
//! joint, a Newton impact law for a unilateral constraint).

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::LagrangianRelation;

use crate::MechanicsError;

/// A relation `y = h(q)` on one or two Newton–Euler bodies with its Jacobian in twist space
/// `H = ∇_q h · T(q)` (module documentation; Siconos' `NewtonEulerR`, whose `jachq · T` is our
/// `H`).
///
/// `q` is `[q₁]` or `[q₁; q₂]`, each `qᵢ = (x, y, z, p0, p1, p2, p3)`; the rows of `H` have 6
/// columns per body in the same order.
#[doc(alias = "NewtonEulerR")]
pub trait NewtonEulerRelation: Send + 'static {
    /// Number `m` of components of `y`.
    fn size(&self) -> usize;

    /// Number of bodies, 1 or 2 (a relation with the fixed world has one).
    fn bodies(&self) -> usize;

    /// Writes `y = h(q)` (`m` entries).
    ///
    /// # Errors
    /// Whatever the relation reports where `h` is not defined (for instance
    /// [`KernelError::InvalidModel`] for a degenerate configuration); the simulation stops with
    /// it. [`NewtonEulerR`] also reports values that are not finite.
    fn output(&mut self, q: &[f64], y: &mut [f64]) -> Result<(), KernelError>;

    /// Writes every entry of `H(q)` row-major (`m × 6·bodies`), zeros included.
    ///
    /// # Errors
    /// As [`NewtonEulerRelation::output`].
    fn jacobian(&mut self, q: &[f64], rows: &mut [f64]) -> Result<(), KernelError>;
}

/// A [`NewtonEulerRelation`] as a kernel [`LagrangianRelation`] (Siconos' `NewtonEulerR` in an
/// `Interaction`): `y = h(q)`, `ẏ = H v`, `p = Hᵀ λ`; outputs and Jacobians that are not finite
/// are reported as [`KernelError::NonFiniteCallback`].
#[derive(Clone, Debug)]
pub struct NewtonEulerR<R> {
    relation: R,
    /// Scratch for [`LagrangianRelation::jacobian`] (`m × 6·bodies`, row-major).
    rows: Vec<f64>,
}

impl<R: NewtonEulerRelation> NewtonEulerR<R> {
    /// Wraps `relation`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] for a relation of size 0 or on a number of bodies
    /// other than 1 or 2.
    pub fn new(relation: R) -> Result<Self, MechanicsError> {
        if relation.size() == 0 {
            return Err(KernelError::DimensionMismatch { what: "relation size", expected: 1, found: 0 }.into());
        }
        if !(1..=2).contains(&relation.bodies()) {
            return Err(KernelError::DimensionMismatch {
                what: "bodies of a relation",
                expected: 2,
                found: relation.bodies(),
            }
            .into());
        }
        let rows = vec![0.0; relation.size() * 6 * relation.bodies()];
        Ok(Self { relation, rows })
    }

    /// The wrapped relation.
    pub fn relation(&self) -> &R {
        &self.relation
    }

    /// The wrapped relation, mutable.
    pub fn relation_mut(&mut self) -> &mut R {
        &mut self.relation
    }

    /// The wrapped relation, by value.
    pub fn into_inner(self) -> R {
        self.relation
    }

    fn columns(&self) -> usize {
        6 * self.relation.bodies()
    }

    fn check_positions(&self, q: &[f64]) -> Result<(), KernelError> {
        let expected = 7 * self.relation.bodies();
        if q.len() != expected {
            return Err(KernelError::DimensionMismatch {
                what: "positions of a Newton–Euler relation",
                expected,
                found: q.len(),
            });
        }
        Ok(())
    }
}

fn finite(what: &'static str, t: f64, values: &[f64]) -> Result<(), KernelError> {
    if values.iter().all(|x| x.is_finite()) { Ok(()) } else { Err(KernelError::NonFiniteCallback { what, time: t }) }
}

impl<R: NewtonEulerRelation> LagrangianRelation for NewtonEulerR<R> {
    fn size(&self) -> usize {
        self.relation.size()
    }

    fn velocity_size(&self) -> Option<usize> {
        Some(self.columns())
    }

    fn output(&mut self, t: f64, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        self.check_positions(q)?;
        self.relation.output(q, y)?;
        finite("h(q) of a Newton–Euler relation", t, y)
    }

    fn jacobian(&mut self, t: f64, q: &[f64], h: &mut Mat<f64>) -> Result<(), KernelError> {
        self.check_positions(q)?;
        let columns = self.columns();
        self.relation.jacobian(q, &mut self.rows)?;
        finite("H(q) of a Newton–Euler relation", t, &self.rows)?;
        for (i, row) in self.rows.chunks_exact(columns).enumerate() {
            for (j, x) in row.iter().enumerate() {
                h[(i, j)] = *x;
            }
        }
        Ok(())
    }

    fn jacobian_rows(&mut self, t: f64, q: &[f64], rows: &mut [f64]) -> Result<bool, KernelError> {
        self.check_positions(q)?;
        self.relation.jacobian(q, rows)?;
        finite("H(q) of a Newton–Euler relation", t, rows)?;
        Ok(true)
    }
}
