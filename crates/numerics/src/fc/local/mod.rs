//! One-contact solvers of the 3D frictional contact problem (Siconos
//! `numerics/src/FrictionContact/fc3d_onecontact_nonsmooth_Newton_solvers.c`,
//! `fc3d_projection.c`).
//!
//! The problem ([`OneContactProblem`]): given a 3×3 `W`, `q ∈ R³` and `μ ≥ 0`, find `r` with
//! `u = W r + q` and `K_μ ∋ r ⊥ û ∈ K_μ*`, `û = (u_N + μ‖u_T‖, u_T)` (the Siconos developer
//! documentation, "Quartic Formulation"). Two solvers: [`solve_projection`] (fixed point on the
//! cone projection) and [`solve_alart_curnier`] (semismooth Newton on the Alart–Curnier
//! function: Alart & Curnier 1991; the Siconos developer documentation, "Alart–Curnier
//! Formulation").

#![allow(non_snake_case)]

mod alart_curnier;
mod projection;
mod quartic;
#[cfg(test)]
mod tests;

pub use alart_curnier::{AlartCurnierOptions, alart_curnier_function, solve_alart_curnier};
pub(crate) use alart_curnier::{isotropic_inverse, solve_alart_curnier_checked, solve_isotropic, take_off_or_stick};
pub use projection::{OneContactProjectionOptions, solve_projection};
pub use quartic::{QuarticOptions, solve_quartic};

use super::compute_error::contact_error_squared;
use crate::NumericsError;

/// One 3D frictional contact: `u = W r + q`, Coulomb's law with coefficient `μ` (the one-contact
/// block of Siconos' `FrictionContactProblem`, as built by `fc3d_local_problem_compute_q`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneContactProblem {
    w: [[f64; 3]; 3],
    q: [f64; 3],
    mu: f64,
}

impl OneContactProblem {
    /// Builds the problem from `W` (row-major, normal component first), `q` and `μ`.
    ///
    /// # Errors
    /// [`NumericsError::NonFinite`] for NaN or infinite data, [`NumericsError::InvalidInput`]
    /// when `μ < 0` or a diagonal entry of `W` is not positive (every solver divides by it).
    pub fn new(w: [[f64; 3]; 3], q: [f64; 3], mu: f64) -> Result<Self, NumericsError> {
        if !w.iter().flatten().all(|v| v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "one-contact matrix W" });
        }
        if !q.iter().all(|v| v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "one-contact vector q" });
        }
        if !mu.is_finite() {
            return Err(NumericsError::NonFinite { what: "one-contact friction coefficient mu" });
        }
        if mu < 0.0 {
            return Err(NumericsError::InvalidInput {
                what: "one-contact problem",
                reason: format!("negative friction coefficient {mu}"),
            });
        }
        if (0..3).any(|i| w[i][i] <= 0.0) {
            return Err(NumericsError::InvalidInput {
                what: "one-contact problem",
                reason: "W has a non-positive diagonal entry".into(),
            });
        }
        Ok(Self { w, q, mu })
    }

    /// Builds the problem without the checks of [`OneContactProblem::new`]: for callers that
    /// validated `W`'s diagonal block, `μ` and the finiteness of the data beforehand (NSGS
    /// validates the blocks once per solve and stops on the first non-finite iterate).
    pub(crate) fn new_unchecked(w: [[f64; 3]; 3], q: [f64; 3], mu: f64) -> Self {
        debug_assert!(Self::new(w, q, mu).is_ok());
        Self { w, q, mu }
    }

    /// The matrix `W` (row-major).
    pub fn w(&self) -> &[[f64; 3]; 3] {
        &self.w
    }

    /// The vector `q`.
    pub fn q(&self) -> &[f64; 3] {
        &self.q
    }

    /// The friction coefficient `μ`.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// `u = W r + q`.
    pub fn velocity(&self, r: &[f64; 3]) -> [f64; 3] {
        let mut u = self.q;
        for (ui, row) in u.iter_mut().zip(&self.w) {
            *ui += row[0] * r[0] + row[1] * r[1] + row[2] * r[2];
        }
        u
    }

    /// The relative error of `r`: `sqrt(contact_error_squared(r, u, μ)) / max(‖q‖, ‖r‖, ‖u‖, 1)`
    /// with `u = W r + q` (Siconos' `fc3d_unitary_compute_and_add_error` with `ρ = 1`, see
    /// [`contact_error_squared`]). Siconos divides by
    /// `max(‖q‖, ‖r‖, ‖u‖)`; the extra `1` keeps the measure absolute near `q = 0`, where the
    /// solution is `r = 0` and a relative measure would divide by zero.
    pub fn error(&self, r: &[f64; 3]) -> f64 {
        self.error_at(r, &self.velocity(r))
    }

    /// [`OneContactProblem::error`] with `u = W r + q` already at hand.
    pub(crate) fn error_at(&self, r: &[f64; 3], u: &[f64; 3]) -> f64 {
        let e2 = contact_error_squared(r, u, self.mu);
        // One square root: sqrt(e² / max(‖q‖², ‖r‖², ‖u‖², 1)).
        let scale2 = norm3_squared(&self.q).max(norm3_squared(r)).max(norm3_squared(u)).max(1.0);
        (e2 / scale2).sqrt()
    }
}

/// Squared Euclidean norm of a 3-vector.
fn norm3_squared(x: &[f64; 3]) -> f64 {
    x[0] * x[0] + x[1] * x[1] + x[2] * x[2]
}

/// Euclidean norm of a 3-vector.
pub(crate) fn norm3(x: &[f64; 3]) -> f64 {
    (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt()
}

/// Checks the common options: a positive finite tolerance and at least one iteration.
fn check_options(tolerance: f64, max_iterations: usize) -> Result<(), NumericsError> {
    crate::options::positive_finite("tolerance", tolerance)?;
    crate::options::at_least_one("max_iterations", max_iterations)
}

/// Checks that the starting point is finite.
fn check_start(r: &[f64; 3]) -> Result<(), NumericsError> {
    if r.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(NumericsError::NonFinite { what: "one-contact initial reaction r" })
    }
}
