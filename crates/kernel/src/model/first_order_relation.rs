//! Relations of first-order systems: `y = h(x, λ, t)` and the input `r = g(x, λ, t)` with
//! their Jacobians `C = ∂h/∂x`, `D = ∂h/∂λ`, `K = ∂g/∂x`, `B = ∂g/∂λ` (Siconos
//! developer documentation, section "Newton's linearization for First Order Systems").
//!
//! A relation sees the concatenated states `x = [x₁; x₂]` of the systems its interaction links
//! (in link order); `C` has `Σ n` columns and `B`, `K` have `Σ n` rows.

use faer::Mat;

use super::checks::{check_matrix, finite_matrix, finite_output};

use super::first_order::{TimeMatrixFn, TimeVectorFn};
use crate::KernelError;
use crate::error::{check_finite, check_len};

/// The structure of a first-order relation, which decides how Euler–Moreau linearizes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstOrderRelationKind {
    /// `y = C x + D λ + e`, `r = B λ` (constant or time-dependent matrices).
    Linear,
    /// `y = h(x, t)`, `r = g(λ, t)` (`D = 0`, `K = 0`).
    Type1,
    /// `y = h(x, λ, t)`, `r = g(λ, t)` (`K = 0`).
    Type2,
    /// `y = h(x, λ, t)`, `r = g(x, λ, t)`.
    NonLinear,
}

/// A relation of first-order systems (Siconos developer documentation, section "Various first
/// order dynamical systems with input/output relations").
pub trait FirstOrderRelation: Send {
    /// Size `m` of `y` and `λ`.
    fn size(&self) -> usize;

    /// `Σ n` of the linked systems when the relation knows it (checked at link time).
    fn state_size(&self) -> Option<usize> {
        None
    }

    /// The structure of the relation.
    fn kind(&self) -> FirstOrderRelationKind;

    /// Whether `C`, `D`, `B` and `e` are constant (linear time-invariant relation).
    fn is_time_invariant(&self) -> bool {
        false
    }

    /// Writes `y = h(x, λ, t)`.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn output(&mut self, t: f64, x: &[f64], lambda: &[f64], y: &mut [f64]) -> Result<(), KernelError>;

    /// Writes `C = ∂h/∂x` (`m × Σn`) and `D = ∂h/∂λ` (`m × m`), both zeroed on entry.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn output_jacobians(
        &mut self,
        t: f64,
        x: &[f64],
        lambda: &[f64],
        c: &mut Mat<f64>,
        d: &mut Mat<f64>,
    ) -> Result<(), KernelError>;

    /// Writes `r = g(x, λ, t)` (`Σn`).
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn input(&mut self, t: f64, x: &[f64], lambda: &[f64], r: &mut [f64]) -> Result<(), KernelError>;

    /// Writes `K = ∂g/∂x` (`Σn × Σn`) and `B = ∂g/∂λ` (`Σn × m`), both zeroed on entry.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn input_jacobians(
        &mut self,
        t: f64,
        x: &[f64],
        lambda: &[f64],
        k: &mut Mat<f64>,
        b: &mut Mat<f64>,
    ) -> Result<(), KernelError>;
}

/// `y = C x + D λ + e`, `r = B λ` with constant matrices (Siconos' `FirstOrderLinearTIR`;
/// Siconos developer documentation, section "Various first order dynamical systems with
/// input/output relations"). The term `F z` of Siconos is not modelled.
#[doc(alias = "FirstOrderLinearTIR")]
#[derive(Clone, Debug)]
pub struct FirstOrderLinearTir {
    c: Mat<f64>,
    d: Option<Mat<f64>>,
    b: Mat<f64>,
    e: Option<Vec<f64>>,
}

impl FirstOrderLinearTir {
    /// `y = C x`, `r = B λ` (`C`: `m × n`, `B`: `n × m`).
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] when the shapes disagree, [`KernelError::NonFinite`].
    pub fn new(c: Mat<f64>, b: Mat<f64>) -> Result<Self, KernelError> {
        let (m, n) = (c.nrows(), c.ncols());
        if m == 0 || n == 0 {
            return Err(KernelError::DimensionMismatch { what: "relation matrix C", expected: 1, found: 0 });
        }
        check_matrix("relation matrix C", &c, m, n)?;
        check_matrix("relation matrix B", &b, n, m)?;
        Ok(Self { c, d: None, b, e: None })
    }

    /// Adds the feedthrough `D` (`m × m`).
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_d(mut self, d: Mat<f64>) -> Result<Self, KernelError> {
        let m = self.c.nrows();
        check_matrix("relation matrix D", &d, m, m)?;
        self.d = Some(d);
        Ok(self)
    }

    /// Adds the offset `e` (`m`).
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_e(mut self, e: Vec<f64>) -> Result<Self, KernelError> {
        check_len("relation offset e", self.c.nrows(), e.len())?;
        check_finite("relation offset e", &e)?;
        self.e = Some(e);
        Ok(self)
    }
}

impl FirstOrderRelation for FirstOrderLinearTir {
    fn size(&self) -> usize {
        self.c.nrows()
    }

    fn state_size(&self) -> Option<usize> {
        Some(self.c.ncols())
    }

    fn kind(&self) -> FirstOrderRelationKind {
        FirstOrderRelationKind::Linear
    }

    fn is_time_invariant(&self) -> bool {
        true
    }

    fn output(&mut self, _t: f64, x: &[f64], lambda: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        linear_output(&self.c, self.d.as_ref(), self.e.as_deref(), x, lambda, y);
        Ok(())
    }

    fn output_jacobians(
        &mut self,
        _t: f64,
        _x: &[f64],
        _lambda: &[f64],
        c: &mut Mat<f64>,
        d: &mut Mat<f64>,
    ) -> Result<(), KernelError> {
        c.copy_from(&self.c);
        if let Some(dd) = &self.d {
            d.copy_from(dd);
        }
        Ok(())
    }

    fn input(&mut self, _t: f64, _x: &[f64], lambda: &[f64], r: &mut [f64]) -> Result<(), KernelError> {
        mat_vec(&self.b, lambda, r);
        Ok(())
    }

    fn input_jacobians(
        &mut self,
        _t: f64,
        _x: &[f64],
        _lambda: &[f64],
        _k: &mut Mat<f64>,
        b: &mut Mat<f64>,
    ) -> Result<(), KernelError> {
        b.copy_from(&self.b);
        Ok(())
    }
}

/// `y = C x + D λ + e`, summed in that order.
fn linear_output(c: &Mat<f64>, d: Option<&Mat<f64>>, e: Option<&[f64]>, x: &[f64], lambda: &[f64], y: &mut [f64]) {
    for (i, yi) in y.iter_mut().enumerate() {
        let mut s = 0.0;
        for (j, xj) in x.iter().enumerate() {
            s += c[(i, j)] * xj;
        }
        if let Some(d) = d {
            let mut dl = 0.0;
            for (j, lj) in lambda.iter().enumerate() {
                dl += d[(i, j)] * lj;
            }
            s += dl;
        }
        if let Some(e) = e {
            s += e[i];
        }
        *yi = s;
    }
}

/// `out = m v`.
fn mat_vec(m: &Mat<f64>, v: &[f64], out: &mut [f64]) {
    for (i, o) in out.iter_mut().enumerate() {
        let mut s = 0.0;
        for (j, vj) in v.iter().enumerate() {
            s += m[(i, j)] * vj;
        }
        *o = s;
    }
}

/// `(t, x, λ) ↦ vector` user function.
pub type RelationFn = Box<dyn FnMut(f64, &[f64], &[f64], &mut [f64]) + Send>;
/// `(t, x, λ) ↦ (matrix, matrix)` user function (a pair of Jacobians), written into zeroed
/// matrices.
pub type RelationJacobianFn = Box<dyn FnMut(f64, &[f64], &[f64], &mut Mat<f64>, &mut Mat<f64>) + Send>;

/// `y = C(t) x + D(t) λ + e(t)`, `r = B(t) λ` with time-dependent matrices (Siconos'
/// `FirstOrderLinearR`), each written by a user function `(t, out)`.
pub struct FirstOrderLinearR {
    size: usize,
    c: TimeMatrixFn,
    d: Option<TimeMatrixFn>,
    b: TimeMatrixFn,
    e: Option<TimeVectorFn>,
    work_c: Mat<f64>,
    work_d: Mat<f64>,
    work_b: Mat<f64>,
    work_e: Vec<f64>,
}

impl std::fmt::Debug for FirstOrderLinearR {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FirstOrderLinearR").field("size", &self.size).finish_non_exhaustive()
    }
}

impl FirstOrderLinearR {
    /// The relation of size `m` on systems of total size `n`, with `C(t)` and `B(t)`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] for `m = 0` or `n = 0`.
    pub fn new(
        m: usize,
        n: usize,
        c: impl FnMut(f64, &mut Mat<f64>) + Send + 'static,
        b: impl FnMut(f64, &mut Mat<f64>) + Send + 'static,
    ) -> Result<Self, KernelError> {
        if m == 0 || n == 0 {
            return Err(KernelError::DimensionMismatch { what: "relation size", expected: 1, found: 0 });
        }
        Ok(Self {
            size: m,
            c: Box::new(c),
            d: None,
            b: Box::new(b),
            e: None,
            work_c: Mat::zeros(m, n),
            work_d: Mat::zeros(m, m),
            work_b: Mat::zeros(n, m),
            work_e: vec![0.0; m],
        })
    }

    /// Adds `D(t)`.
    pub fn with_d(mut self, d: impl FnMut(f64, &mut Mat<f64>) + Send + 'static) -> Self {
        self.d = Some(Box::new(d));
        self
    }

    /// Adds `e(t)`.
    pub fn with_e(mut self, e: impl FnMut(f64, &mut [f64]) + Send + 'static) -> Self {
        self.e = Some(Box::new(e));
        self
    }

    fn evaluate(&mut self, t: f64) -> Result<(), KernelError> {
        self.work_c.fill(0.0);
        (self.c)(t, &mut self.work_c);
        finite_matrix("C(t)", t, &self.work_c)?;
        self.work_b.fill(0.0);
        (self.b)(t, &mut self.work_b);
        finite_matrix("B(t)", t, &self.work_b)?;
        if let Some(d) = &mut self.d {
            self.work_d.fill(0.0);
            d(t, &mut self.work_d);
            finite_matrix("D(t)", t, &self.work_d)?;
        }
        if let Some(e) = &mut self.e {
            e(t, &mut self.work_e);
            finite_output("e(t)", t, &self.work_e)?;
        }
        Ok(())
    }
}

impl FirstOrderRelation for FirstOrderLinearR {
    fn size(&self) -> usize {
        self.size
    }

    fn state_size(&self) -> Option<usize> {
        Some(self.work_c.ncols())
    }

    fn kind(&self) -> FirstOrderRelationKind {
        FirstOrderRelationKind::Linear
    }

    fn output(&mut self, t: f64, x: &[f64], lambda: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        self.evaluate(t)?;
        let d = self.d.is_some().then_some(&self.work_d);
        let e = self.e.is_some().then_some(self.work_e.as_slice());
        linear_output(&self.work_c, d, e, x, lambda, y);
        Ok(())
    }

    fn output_jacobians(
        &mut self,
        t: f64,
        _x: &[f64],
        _lambda: &[f64],
        c: &mut Mat<f64>,
        d: &mut Mat<f64>,
    ) -> Result<(), KernelError> {
        self.evaluate(t)?;
        c.copy_from(&self.work_c);
        if self.d.is_some() {
            d.copy_from(&self.work_d);
        }
        Ok(())
    }

    fn input(&mut self, t: f64, _x: &[f64], lambda: &[f64], r: &mut [f64]) -> Result<(), KernelError> {
        self.evaluate(t)?;
        mat_vec(&self.work_b, lambda, r);
        Ok(())
    }

    fn input_jacobians(
        &mut self,
        t: f64,
        _x: &[f64],
        _lambda: &[f64],
        _k: &mut Mat<f64>,
        b: &mut Mat<f64>,
    ) -> Result<(), KernelError> {
        self.evaluate(t)?;
        b.copy_from(&self.work_b);
        Ok(())
    }
}

/// A nonlinear relation given by user functions (the common part of Type1R, Type2R and
/// NonLinearR).
struct UserRelation {
    size: usize,
    h: RelationFn,
    jacobian_h: RelationJacobianFn,
    g: RelationFn,
    jacobian_g: RelationJacobianFn,
}

impl UserRelation {
    fn output(&mut self, t: f64, x: &[f64], lambda: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        (self.h)(t, x, lambda, y);
        finite_output("h(x, λ, t)", t, y)
    }

    fn output_jacobians(
        &mut self,
        t: f64,
        x: &[f64],
        lambda: &[f64],
        c: &mut Mat<f64>,
        d: &mut Mat<f64>,
    ) -> Result<(), KernelError> {
        (self.jacobian_h)(t, x, lambda, c, d);
        finite_matrix("∂h/∂x", t, c)?;
        finite_matrix("∂h/∂λ", t, d)
    }

    fn input(&mut self, t: f64, x: &[f64], lambda: &[f64], r: &mut [f64]) -> Result<(), KernelError> {
        (self.g)(t, x, lambda, r);
        finite_output("g(x, λ, t)", t, r)
    }

    fn input_jacobians(
        &mut self,
        t: f64,
        x: &[f64],
        lambda: &[f64],
        k: &mut Mat<f64>,
        b: &mut Mat<f64>,
    ) -> Result<(), KernelError> {
        (self.jacobian_g)(t, x, lambda, k, b);
        finite_matrix("∂g/∂x", t, k)?;
        finite_matrix("∂g/∂λ", t, b)
    }
}

macro_rules! user_relation_impl {
    ($ty:ident, $kind:expr) => {
        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty)).field("size", &self.0.size).finish_non_exhaustive()
            }
        }

        impl FirstOrderRelation for $ty {
            fn size(&self) -> usize {
                self.0.size
            }

            fn kind(&self) -> FirstOrderRelationKind {
                $kind
            }

            fn output(&mut self, t: f64, x: &[f64], lambda: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
                self.0.output(t, x, lambda, y)
            }

            fn output_jacobians(
                &mut self,
                t: f64,
                x: &[f64],
                lambda: &[f64],
                c: &mut Mat<f64>,
                d: &mut Mat<f64>,
            ) -> Result<(), KernelError> {
                self.0.output_jacobians(t, x, lambda, c, d)
            }

            fn input(&mut self, t: f64, x: &[f64], lambda: &[f64], r: &mut [f64]) -> Result<(), KernelError> {
                self.0.input(t, x, lambda, r)
            }

            fn input_jacobians(
                &mut self,
                t: f64,
                x: &[f64],
                lambda: &[f64],
                k: &mut Mat<f64>,
                b: &mut Mat<f64>,
            ) -> Result<(), KernelError> {
                self.0.input_jacobians(t, x, lambda, k, b)
            }
        }
    };
}

fn check_size(size: usize) -> Result<(), KernelError> {
    if size == 0 {
        Err(KernelError::DimensionMismatch { what: "relation size", expected: 1, found: 0 })
    } else {
        Ok(())
    }
}

/// `y = h(x, t)`, `r = g(λ, t)` (Siconos' `FirstOrderType1R`).
pub struct FirstOrderType1R(UserRelation);

impl FirstOrderType1R {
    /// From `h(t, x, y)`, `C(t, x)`, `g(t, λ, r)` and `B(t, λ)`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] when `size` is 0.
    pub fn new(
        size: usize,
        mut h: impl FnMut(f64, &[f64], &mut [f64]) + Send + 'static,
        mut c: impl FnMut(f64, &[f64], &mut Mat<f64>) + Send + 'static,
        mut g: impl FnMut(f64, &[f64], &mut [f64]) + Send + 'static,
        mut b: impl FnMut(f64, &[f64], &mut Mat<f64>) + Send + 'static,
    ) -> Result<Self, KernelError> {
        check_size(size)?;
        Ok(Self(UserRelation {
            size,
            h: Box::new(move |t, x, _l, y| h(t, x, y)),
            jacobian_h: Box::new(move |t, x, _l, cm, _d| c(t, x, cm)),
            g: Box::new(move |t, _x, l, r| g(t, l, r)),
            jacobian_g: Box::new(move |t, _x, l, _k, bm| b(t, l, bm)),
        }))
    }
}

user_relation_impl!(FirstOrderType1R, FirstOrderRelationKind::Type1);

/// `y = h(x, λ, t)`, `r = g(λ, t)` (Siconos' `FirstOrderType2R`; Siconos developer
/// documentation, section "The special case of Newton's linearization of (eq:toto1) with
/// FirstOrderType2R").
pub struct FirstOrderType2R(UserRelation);

impl FirstOrderType2R {
    /// From `h(t, x, λ, y)`, its Jacobians `(t, x, λ, C, D)`, `g(t, λ, r)` and `B(t, λ)`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] when `size` is 0.
    pub fn new(
        size: usize,
        h: impl FnMut(f64, &[f64], &[f64], &mut [f64]) + Send + 'static,
        jacobian_h: impl FnMut(f64, &[f64], &[f64], &mut Mat<f64>, &mut Mat<f64>) + Send + 'static,
        mut g: impl FnMut(f64, &[f64], &mut [f64]) + Send + 'static,
        mut b: impl FnMut(f64, &[f64], &mut Mat<f64>) + Send + 'static,
    ) -> Result<Self, KernelError> {
        check_size(size)?;
        Ok(Self(UserRelation {
            size,
            h: Box::new(h),
            jacobian_h: Box::new(jacobian_h),
            g: Box::new(move |t, _x, l, r| g(t, l, r)),
            jacobian_g: Box::new(move |t, _x, l, _k, bm| b(t, l, bm)),
        }))
    }
}

user_relation_impl!(FirstOrderType2R, FirstOrderRelationKind::Type2);

/// `y = h(x, λ, t)`, `r = g(x, λ, t)` (Siconos' `FirstOrderNonLinearR`).
pub struct FirstOrderNonLinearR(UserRelation);

impl FirstOrderNonLinearR {
    /// From `h(t, x, λ, y)`, `(t, x, λ, C, D)`, `g(t, x, λ, r)` and `(t, x, λ, K, B)`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`] when `size` is 0.
    pub fn new(
        size: usize,
        h: impl FnMut(f64, &[f64], &[f64], &mut [f64]) + Send + 'static,
        jacobian_h: impl FnMut(f64, &[f64], &[f64], &mut Mat<f64>, &mut Mat<f64>) + Send + 'static,
        g: impl FnMut(f64, &[f64], &[f64], &mut [f64]) + Send + 'static,
        jacobian_g: impl FnMut(f64, &[f64], &[f64], &mut Mat<f64>, &mut Mat<f64>) + Send + 'static,
    ) -> Result<Self, KernelError> {
        check_size(size)?;
        Ok(Self(UserRelation {
            size,
            h: Box::new(h),
            jacobian_h: Box::new(jacobian_h),
            g: Box::new(g),
            jacobian_g: Box::new(jacobian_g),
        }))
    }
}

user_relation_impl!(FirstOrderNonLinearR, FirstOrderRelationKind::NonLinear);
