//! Relations of Lagrangian systems: the output `y = h(q, t)` (the gap), its Jacobian
//! `H = ∂h/∂q` (so `ẏ = H v + ∂h/∂t`) and the input `p = Hᵀ λ`
//! (Siconos developer documentation, section "Various second order dynamical systems with
//! input/output relations").
//!
//! A relation sees the concatenated positions `q = [q₁; q₂]` and velocities of the one or two
//! systems its interaction links, in the order they were linked; its Jacobian has one column
//! per velocity component (for Newton–Euler bodies, per twist component).

use faer::Mat;

use super::checks::{finite_matrix, finite_output};

use crate::KernelError;
use crate::error::{check_finite, check_len};

/// A relation between the state of one or two second-order systems and an interaction's
/// output (Siconos developer documentation, section "Various second order dynamical systems with
/// input/output relations").
///
/// A relation is [`std::any::Any`], so a model that updates its own relations between steps
/// gets them back with their type through
/// [`Nsds::relation_mut_as`](crate::model::Nsds::relation_mut_as).
pub trait LagrangianRelation: std::any::Any + Send {
    /// Size `m` of `y` and `λ`.
    fn size(&self) -> usize;

    /// Number of columns of the Jacobian when the relation knows it (then linking checks it
    /// against the systems' velocity sizes), `None` otherwise.
    fn velocity_size(&self) -> Option<usize> {
        None
    }

    /// Whether `h` is affine in `q` with a constant Jacobian and no explicit time dependence
    /// (then integrators compute `H` once).
    fn is_linear_time_invariant(&self) -> bool {
        false
    }

    /// Writes `y = h(q, t)` into `y`.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn output(&mut self, t: f64, q: &[f64], y: &mut [f64]) -> Result<(), KernelError>;

    /// Writes `H = ∂h/∂q(q, t)` (`m × nv`, zeroed on entry) into `h`.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn jacobian(&mut self, t: f64, q: &[f64], h: &mut Mat<f64>) -> Result<(), KernelError>;

    /// Writes every entry of `H = ∂h/∂q(q, t)` row-major (`m × nv`) into `rows` and returns
    /// `true`, or returns `false` (the default, `rows` untouched) to have
    /// [`LagrangianRelation::jacobian`] write it as a matrix. A relation evaluated at every
    /// step (a contact) implements it to spare the kernel the matrix and its copy; both must
    /// give the same values.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn jacobian_rows(&mut self, _t: f64, _q: &[f64], _rows: &mut [f64]) -> Result<bool, KernelError> {
        Ok(false)
    }

    /// Writes the explicit time derivative `∂h/∂t(q, t)` into `out` and returns `true`, or
    /// returns `false` for a relation without explicit time dependence.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn time_derivative(&mut self, _t: f64, _q: &[f64], _out: &mut [f64]) -> Result<bool, KernelError> {
        Ok(false)
    }

    /// Writes `dH/dt · v` (the acceleration-level term `ÿ = H v̇ + Ḣ v`) into `out` and returns
    /// `true`, or returns `false` when it is not available (it is zero for linear relations).
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn jacobian_time_derivative_times_v(
        &mut self,
        _t: f64,
        _q: &[f64],
        _v: &[f64],
        _out: &mut [f64],
    ) -> Result<bool, KernelError> {
        Ok(false)
    }

    /// Writes the explicit-time part of the output acceleration of a rheonomous relation,
    /// `∂²h/∂t²(q, t) + 2 ∂G/∂t(q, t) · v` (so that
    /// `ÿ = G v̇ + (∂G/∂q · v) v + ∂²h/∂t² + 2 ∂G/∂t · v`, the derivative of
    /// `ẏ = G(q, t) v + ∂h/∂t(q, t)`; Siconos developer documentation, section "Lagrangian
    /// Rheonomous relations"), into
    /// `out` and returns `true`, or returns `false` when it is not available (it is zero for
    /// relations without explicit time dependence). The event-driven scheme adds it to its
    /// acceleration-level problem.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn time_second_derivative(
        &mut self,
        _t: f64,
        _q: &[f64],
        _v: &[f64],
        _out: &mut [f64],
    ) -> Result<bool, KernelError> {
        Ok(false)
    }
}

/// Linear time-invariant relation `y = H q + b`, `p = Hᵀ λ` (Siconos' `LagrangianLinearTIR`;
/// Siconos developer documentation, section "Fully Linear case").
#[doc(alias = "LagrangianLinearTIR")]
#[derive(Clone, Debug)]
pub struct LagrangianLinearTir {
    h: Mat<f64>,
    b: Option<Vec<f64>>,
}

impl LagrangianLinearTir {
    /// The relation `y = H q` (`H` is `m × nv`).
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] for an empty `H`, [`KernelError::NonFinite`].
    pub fn new(h: Mat<f64>) -> Result<Self, KernelError> {
        if h.nrows() == 0 || h.ncols() == 0 {
            return Err(KernelError::DimensionMismatch { what: "relation matrix H", expected: 1, found: 0 });
        }
        let finite = (0..h.ncols()).all(|j| (0..h.nrows()).all(|i| h[(i, j)].is_finite()));
        if !finite {
            return Err(KernelError::NonFinite { what: "relation matrix H" });
        }
        Ok(Self { h, b: None })
    }

    /// Adds the constant term `b` (Siconos' `e`): `y = H q + b`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_offset(mut self, b: Vec<f64>) -> Result<Self, KernelError> {
        check_len("relation offset b", self.h.nrows(), b.len())?;
        check_finite("relation offset b", &b)?;
        self.b = Some(b);
        Ok(self)
    }

    /// The matrix `H`.
    pub fn h(&self) -> &Mat<f64> {
        &self.h
    }
}

impl LagrangianRelation for LagrangianLinearTir {
    fn size(&self) -> usize {
        self.h.nrows()
    }

    fn velocity_size(&self) -> Option<usize> {
        Some(self.h.ncols())
    }

    fn is_linear_time_invariant(&self) -> bool {
        true
    }

    fn output(&mut self, _t: f64, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        let n = self.h.ncols();
        for (i, yi) in y.iter_mut().enumerate() {
            let mut s = 0.0;
            for (j, qj) in q.iter().enumerate().take(n) {
                s += self.h[(i, j)] * qj;
            }
            if let Some(b) = &self.b {
                s += b[i];
            }
            *yi = s;
        }
        Ok(())
    }

    fn jacobian(&mut self, _t: f64, _q: &[f64], h: &mut Mat<f64>) -> Result<(), KernelError> {
        h.copy_from(&self.h);
        Ok(())
    }

    fn jacobian_time_derivative_times_v(
        &mut self,
        _t: f64,
        _q: &[f64],
        _v: &[f64],
        out: &mut [f64],
    ) -> Result<bool, KernelError> {
        out.fill(0.0);
        Ok(true)
    }
}

/// `q ↦ vector` user function (e.g. `h(q)`).
pub type PositionFn = Box<dyn FnMut(&[f64], &mut [f64]) + Send>;
/// `q ↦ matrix` user function (e.g. `G(q) = ∂h/∂q`), written into a zeroed matrix.
pub type PositionMatrixFn = Box<dyn FnMut(&[f64], &mut Mat<f64>) + Send>;
/// `(q, v) ↦ vector` user function (e.g. `dG/dt · v`).
pub type PositionVelocityFn = Box<dyn FnMut(&[f64], &[f64], &mut [f64]) + Send>;
/// `(q, t) ↦ vector` user function (e.g. `h(q, t)`, `∂h/∂t`).
pub type PositionTimeFn = Box<dyn FnMut(&[f64], f64, &mut [f64]) + Send>;
/// `(q, t) ↦ matrix` user function (e.g. `G(q, t)`), written into a zeroed matrix.
pub type PositionTimeMatrixFn = Box<dyn FnMut(&[f64], f64, &mut Mat<f64>) + Send>;

/// Scleronomous relation `y = h(q)`, `ẏ = G(q) v`, `p = G(q)ᵀ λ` with `G = ∂h/∂q`
/// (Siconos' `LagrangianScleronomousR`; Siconos developer documentation, section "Lagrangian
/// Scleronomous relations"). The optional `dG/dt · v` serves acceleration-level problems.
pub struct LagrangianScleronomousR {
    size: usize,
    h: PositionFn,
    jacobian: PositionMatrixFn,
    jacobian_dot: Option<PositionVelocityFn>,
}

impl std::fmt::Debug for LagrangianScleronomousR {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LagrangianScleronomousR").field("size", &self.size).finish_non_exhaustive()
    }
}

impl LagrangianScleronomousR {
    /// The relation of size `size` with `h(q, y)` writing `y` and `jacobian(q, G)` writing `G`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] when `size` is 0.
    pub fn new(
        size: usize,
        h: impl FnMut(&[f64], &mut [f64]) + Send + 'static,
        jacobian: impl FnMut(&[f64], &mut Mat<f64>) + Send + 'static,
    ) -> Result<Self, KernelError> {
        if size == 0 {
            return Err(KernelError::DimensionMismatch { what: "relation size", expected: 1, found: 0 });
        }
        Ok(Self { size, h: Box::new(h), jacobian: Box::new(jacobian), jacobian_dot: None })
    }

    /// Adds `dG/dt · v`, written by `f(q, v, out)`.
    pub fn with_jacobian_time_derivative(mut self, f: impl FnMut(&[f64], &[f64], &mut [f64]) + Send + 'static) -> Self {
        self.jacobian_dot = Some(Box::new(f));
        self
    }
}

impl LagrangianRelation for LagrangianScleronomousR {
    fn size(&self) -> usize {
        self.size
    }

    fn output(&mut self, t: f64, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        (self.h)(q, y);
        finite_output("h(q)", t, y)
    }

    fn jacobian(&mut self, t: f64, q: &[f64], h: &mut Mat<f64>) -> Result<(), KernelError> {
        (self.jacobian)(q, h);
        finite_matrix("G(q)", t, h)
    }

    fn jacobian_time_derivative_times_v(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        out: &mut [f64],
    ) -> Result<bool, KernelError> {
        match &mut self.jacobian_dot {
            None => Ok(false),
            Some(f) => {
                f(q, v, out);
                finite_output("dG/dt v", t, out)?;
                Ok(true)
            }
        }
    }
}

/// `(q, v, t) ↦ vector` user function (`∂²h/∂t² + 2 ∂G/∂t · v`), private to the rheonomous
/// relation.
type PositionVelocityTimeFn = Box<dyn FnMut(&[f64], &[f64], f64, &mut [f64]) + Send>;

/// Rheonomous relation `y = h(q, t)`, `ẏ = G(q, t) v + ∂h/∂t(q, t)`, `p = G(q, t)ᵀ λ`
/// (Siconos' `LagrangianRheonomousR`; Siconos developer documentation, section "Lagrangian
/// Rheonomous relations").
/// Moreau–Jean adds `∂h/∂t` at `t_{k+1}` to the one-step problem's vector.
pub struct LagrangianRheonomousR {
    size: usize,
    h: PositionTimeFn,
    jacobian: PositionTimeMatrixFn,
    h_dot: PositionTimeFn,
    h_ddot: Option<PositionVelocityTimeFn>,
}

impl std::fmt::Debug for LagrangianRheonomousR {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LagrangianRheonomousR").field("size", &self.size).finish_non_exhaustive()
    }
}

impl LagrangianRheonomousR {
    /// The relation of size `size` from `h(q, t, y)`, `jacobian(q, t, G)` and
    /// `h_dot(q, t, ∂h/∂t)`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] when `size` is 0.
    pub fn new(
        size: usize,
        h: impl FnMut(&[f64], f64, &mut [f64]) + Send + 'static,
        jacobian: impl FnMut(&[f64], f64, &mut Mat<f64>) + Send + 'static,
        h_dot: impl FnMut(&[f64], f64, &mut [f64]) + Send + 'static,
    ) -> Result<Self, KernelError> {
        if size == 0 {
            return Err(KernelError::DimensionMismatch { what: "relation size", expected: 1, found: 0 });
        }
        Ok(Self { size, h: Box::new(h), jacobian: Box::new(jacobian), h_dot: Box::new(h_dot), h_ddot: None })
    }

    /// Adds the explicit-time part of the output acceleration, `∂²h/∂t² + 2 ∂G/∂t · v`, written
    /// by `f(q, v, t, out)` (see [`LagrangianRelation::time_second_derivative`]); the
    /// event-driven scheme needs it for its acceleration-level problem.
    pub fn with_time_second_derivative(
        mut self,
        f: impl FnMut(&[f64], &[f64], f64, &mut [f64]) + Send + 'static,
    ) -> Self {
        self.h_ddot = Some(Box::new(f));
        self
    }
}

impl LagrangianRelation for LagrangianRheonomousR {
    fn size(&self) -> usize {
        self.size
    }

    fn output(&mut self, t: f64, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        (self.h)(q, t, y);
        finite_output("h(q, t)", t, y)
    }

    fn jacobian(&mut self, t: f64, q: &[f64], h: &mut Mat<f64>) -> Result<(), KernelError> {
        (self.jacobian)(q, t, h);
        finite_matrix("G(q, t)", t, h)
    }

    fn time_derivative(&mut self, t: f64, q: &[f64], out: &mut [f64]) -> Result<bool, KernelError> {
        (self.h_dot)(q, t, out);
        finite_output("dh/dt(q, t)", t, out)?;
        Ok(true)
    }

    fn time_second_derivative(&mut self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) -> Result<bool, KernelError> {
        match &mut self.h_ddot {
            None => Ok(false),
            Some(f) => {
                f(q, v, t, out);
                finite_output("d²h/dt²(q, t) + 2 dG/dt v", t, out)?;
                Ok(true)
            }
        }
    }
}
