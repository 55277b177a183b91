//! First-order dynamical systems `M ẋ = f(x, t) + r` and their relations
//! `y = h(x, λ, t)`, `r = g(x, λ, t)` (Siconos developer documentation, section "Newton's
//! linearization for First Order Systems").

use faer::Mat;

use super::checks::{check_matrix, finite_matrix, finite_output};

use crate::KernelError;
use crate::error::{check_finite, check_len};

/// The state of a first-order system and its memories: `x`, the input `r` (level 0), and at the
/// beginning of the step `x_k`, `r_k` and `f(x_k, t_k)`.
#[derive(Clone, Debug)]
pub struct FirstOrderState {
    pub(crate) x: Vec<f64>,
    pub(crate) x_memory: Vec<f64>,
    pub(crate) r: Vec<f64>,
    pub(crate) r_memory: Vec<f64>,
    pub(crate) f_memory: Vec<f64>,
}

impl FirstOrderState {
    /// The state at `t0`.
    ///
    /// # Errors
    /// [`KernelError::NonFinite`], or [`KernelError::DimensionMismatch`] for an empty `x0`.
    pub fn new(x0: Vec<f64>) -> Result<Self, KernelError> {
        if x0.is_empty() {
            return Err(KernelError::DimensionMismatch { what: "initial state x0", expected: 1, found: 0 });
        }
        check_finite("initial state x0", &x0)?;
        let n = x0.len();
        Ok(Self { x_memory: x0.clone(), x: x0, r: vec![0.0; n], r_memory: vec![0.0; n], f_memory: vec![0.0; n] })
    }

    /// Current state `x`.
    pub fn x(&self) -> &[f64] {
        &self.x
    }

    /// State at the beginning of the last step, `x_k`.
    pub fn x_memory(&self) -> &[f64] {
        &self.x_memory
    }

    /// The input `r = Σ g_α` of the interactions (level 0).
    pub fn r(&self) -> &[f64] {
        &self.r
    }
}

/// A first-order dynamical system `M ẋ = f(x, t) + r` (Siconos developer documentation, section
/// "Various first order dynamical systems with input/output relations").
pub trait FirstOrderDs: Send {
    /// Size `n` of `x`.
    fn size(&self) -> usize;

    /// The state and its memories.
    fn state(&self) -> &FirstOrderState;

    /// The state, mutably.
    fn state_mut(&mut self) -> &mut FirstOrderState;

    /// The constant matrix `M` (`None`: the identity).
    fn mass(&self) -> Option<&Mat<f64>>;

    /// Whether `f(x, t) = A x + b` with constant `A` and `b` (then the iteration matrix is
    /// factorized once).
    fn is_linear_time_invariant(&self) -> bool {
        false
    }

    /// Whether the free residual is accumulated in the order of Siconos' `FirstOrderLinearTIDS`
    /// (`(−h) b`, then the `A` terms, then `M(x − x_k)`) rather than `FirstOrderLinearDS`'s
    /// (`M(x − x_k)` first); the two differ in the last bit.
    fn tids_residual_order(&self) -> bool {
        false
    }

    /// Whether `f(x, t) = A(t) x + b(t)` (linear, possibly time-varying): one Newton pass.
    fn is_linear(&self) -> bool {
        self.is_linear_time_invariant()
    }

    /// Writes `f(x, t)` into `out`.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn f(&mut self, t: f64, x: &[f64], out: &mut [f64]) -> Result<(), KernelError>;

    /// Writes `A = ∂f/∂x (x, t)` into `out` (`n × n`, zeroed on entry).
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn jacobian_f(&mut self, t: f64, x: &[f64], out: &mut Mat<f64>) -> Result<(), KernelError>;

    /// For linear systems, `A(t)` and `b(t)` separately: writes `A(t)` into `a` and returns
    /// whether `b(t)` exists (written into `b`). `None` for nonlinear systems.
    ///
    /// # Errors
    /// [`KernelError::NonFiniteCallback`] when a user function returns NaN or infinity.
    fn linear_parts(&mut self, _t: f64, _a: &mut Mat<f64>, _b: &mut [f64]) -> Option<Result<bool, KernelError>> {
        None
    }
}

fn check_mass(mass: Option<&Mat<f64>>, n: usize) -> Result<(), KernelError> {
    if let Some(m) = mass {
        check_matrix("mass matrix M", m, n, n)?;
    }
    Ok(())
}

/// `t ↦ matrix` user function, written into a zeroed matrix.
pub type TimeMatrixFn = Box<dyn FnMut(f64, &mut Mat<f64>) + Send>;
/// `t ↦ vector` user function.
pub type TimeVectorFn = Box<dyn FnMut(f64, &mut [f64]) + Send>;

/// A constant or time-dependent matrix.
enum MatrixSource {
    Constant(Mat<f64>),
    Function(TimeMatrixFn),
}

/// A constant or time-dependent vector.
enum VectorSource {
    None,
    Constant(Vec<f64>),
    Function(TimeVectorFn),
}

/// Linear system `M ẋ = A(t) x + b(t) + r` (Siconos' `FirstOrderLinearDS`).
#[doc(alias = "FirstOrderLinearDS")]
pub struct FirstOrderLinearDs {
    state: FirstOrderState,
    mass: Option<Mat<f64>>,
    a: MatrixSource,
    b: VectorSource,
    work_a: Mat<f64>,
    work_b: Vec<f64>,
}

impl std::fmt::Debug for FirstOrderLinearDs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FirstOrderLinearDs").field("state", &self.state).finish_non_exhaustive()
    }
}

impl FirstOrderLinearDs {
    /// `ẋ = A x + r` with a constant `A` (`n × n`).
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn new(x0: Vec<f64>, a: Mat<f64>) -> Result<Self, KernelError> {
        let n = x0.len();
        check_matrix("matrix A", &a, n, n)?;
        Ok(Self {
            state: FirstOrderState::new(x0)?,
            mass: None,
            a: MatrixSource::Constant(a),
            b: VectorSource::None,
            work_a: Mat::zeros(n, n),
            work_b: vec![0.0; n],
        })
    }

    /// `ẋ = A(t) x + r` with `A(t)` written by `a(t, out)` into a zeroed matrix.
    ///
    /// # Errors
    /// As [`FirstOrderLinearDs::new`].
    pub fn with_time_varying_a(
        x0: Vec<f64>,
        a: impl FnMut(f64, &mut Mat<f64>) + Send + 'static,
    ) -> Result<Self, KernelError> {
        let n = x0.len();
        Ok(Self {
            state: FirstOrderState::new(x0)?,
            mass: None,
            a: MatrixSource::Function(Box::new(a)),
            b: VectorSource::None,
            work_a: Mat::zeros(n, n),
            work_b: vec![0.0; n],
        })
    }

    /// Adds a constant `b`.
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_b(mut self, b: Vec<f64>) -> Result<Self, KernelError> {
        check_len("vector b", self.state.x.len(), b.len())?;
        check_finite("vector b", &b)?;
        self.b = VectorSource::Constant(b);
        Ok(self)
    }

    /// Adds a time-dependent `b(t)`, written by `b(t, out)`.
    pub fn with_b_fn(mut self, b: impl FnMut(f64, &mut [f64]) + Send + 'static) -> Self {
        self.b = VectorSource::Function(Box::new(b));
        self
    }

    /// Sets a constant, invertible `M` (default: the identity).
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_mass(mut self, m: Mat<f64>) -> Result<Self, KernelError> {
        check_mass(Some(&m), self.state.x.len())?;
        self.mass = Some(m);
        Ok(self)
    }

    fn eval_a(&mut self, t: f64) -> Result<(), KernelError> {
        match &mut self.a {
            MatrixSource::Constant(a) => self.work_a.copy_from(&*a),
            MatrixSource::Function(f) => {
                self.work_a.fill(0.0);
                f(t, &mut self.work_a);
                finite_matrix("A(t)", t, &self.work_a)?;
            }
        }
        Ok(())
    }

    fn eval_b(&mut self, t: f64) -> Result<bool, KernelError> {
        match &mut self.b {
            VectorSource::None => Ok(false),
            VectorSource::Constant(b) => {
                self.work_b.copy_from_slice(b);
                Ok(true)
            }
            VectorSource::Function(f) => {
                f(t, &mut self.work_b);
                finite_output("b(t)", t, &self.work_b)?;
                Ok(true)
            }
        }
    }
}

impl FirstOrderDs for FirstOrderLinearDs {
    fn size(&self) -> usize {
        self.state.x.len()
    }

    fn state(&self) -> &FirstOrderState {
        &self.state
    }

    fn state_mut(&mut self) -> &mut FirstOrderState {
        &mut self.state
    }

    fn mass(&self) -> Option<&Mat<f64>> {
        self.mass.as_ref()
    }

    fn is_linear_time_invariant(&self) -> bool {
        matches!(self.a, MatrixSource::Constant(_)) && !matches!(self.b, VectorSource::Function(_))
    }

    fn is_linear(&self) -> bool {
        true
    }

    fn f(&mut self, t: f64, x: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        self.eval_a(t)?;
        let has_b = self.eval_b(t)?;
        for (i, o) in out.iter_mut().enumerate() {
            let mut s = 0.0;
            for (j, xj) in x.iter().enumerate() {
                s += self.work_a[(i, j)] * xj;
            }
            if has_b {
                s += self.work_b[i];
            }
            *o = s;
        }
        Ok(())
    }

    fn jacobian_f(&mut self, t: f64, _x: &[f64], out: &mut Mat<f64>) -> Result<(), KernelError> {
        self.eval_a(t)?;
        out.copy_from(&self.work_a);
        Ok(())
    }

    fn linear_parts(&mut self, t: f64, a: &mut Mat<f64>, b: &mut [f64]) -> Option<Result<bool, KernelError>> {
        let result = (|| {
            self.eval_a(t)?;
            a.copy_from(&self.work_a);
            let has_b = self.eval_b(t)?;
            if has_b {
                b.copy_from_slice(&self.work_b);
            }
            Ok(has_b)
        })();
        Some(result)
    }
}

/// Linear time-invariant system `M ẋ = A x + b + r` with constant `A`, `b` (Siconos'
/// `FirstOrderLinearTIDS`): [`FirstOrderLinearDs`] restricted to constant data.
#[doc(alias = "FirstOrderLinearTIDS")]
#[derive(Debug)]
pub struct FirstOrderLinearTids(FirstOrderLinearDs);

impl FirstOrderLinearTids {
    /// `M ẋ = A x + r` (add `b` and `M` with the `with_*` methods).
    ///
    /// # Errors
    /// As [`FirstOrderLinearDs::new`].
    pub fn new(x0: Vec<f64>, a: Mat<f64>) -> Result<Self, KernelError> {
        Ok(Self(FirstOrderLinearDs::new(x0, a)?))
    }

    /// Adds a constant `b`.
    ///
    /// # Errors
    /// As [`FirstOrderLinearDs::with_b`].
    pub fn with_b(self, b: Vec<f64>) -> Result<Self, KernelError> {
        Ok(Self(self.0.with_b(b)?))
    }

    /// Sets a constant `M`.
    ///
    /// # Errors
    /// As [`FirstOrderLinearDs::with_mass`].
    pub fn with_mass(self, m: Mat<f64>) -> Result<Self, KernelError> {
        Ok(Self(self.0.with_mass(m)?))
    }
}

impl FirstOrderDs for FirstOrderLinearTids {
    fn size(&self) -> usize {
        self.0.size()
    }

    fn tids_residual_order(&self) -> bool {
        true
    }

    fn state(&self) -> &FirstOrderState {
        self.0.state()
    }

    fn state_mut(&mut self) -> &mut FirstOrderState {
        self.0.state_mut()
    }

    fn mass(&self) -> Option<&Mat<f64>> {
        self.0.mass()
    }

    fn is_linear_time_invariant(&self) -> bool {
        true
    }

    fn f(&mut self, t: f64, x: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        self.0.f(t, x, out)
    }

    fn jacobian_f(&mut self, t: f64, x: &[f64], out: &mut Mat<f64>) -> Result<(), KernelError> {
        self.0.jacobian_f(t, x, out)
    }

    fn linear_parts(&mut self, t: f64, a: &mut Mat<f64>, b: &mut [f64]) -> Option<Result<bool, KernelError>> {
        self.0.linear_parts(t, a, b)
    }
}

/// `(t, x) ↦ vector` user function.
pub type StateTimeFn = Box<dyn FnMut(f64, &[f64], &mut [f64]) + Send>;
/// `(t, x) ↦ matrix` user function.
pub type StateTimeMatrixFn = Box<dyn FnMut(f64, &[f64], &mut Mat<f64>) + Send>;

/// Nonlinear system `M ẋ = f(x, t) + r` with user `f` and `∂f/∂x` (Siconos'
/// `FirstOrderNonLinearDS`).
#[doc(alias = "FirstOrderNonLinearDS")]
pub struct FirstOrderNonLinearDs {
    state: FirstOrderState,
    mass: Option<Mat<f64>>,
    f: StateTimeFn,
    jacobian: StateTimeMatrixFn,
}

impl std::fmt::Debug for FirstOrderNonLinearDs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FirstOrderNonLinearDs").field("state", &self.state).finish_non_exhaustive()
    }
}

impl FirstOrderNonLinearDs {
    /// The system from `f(t, x, out)` and its Jacobian `jacobian(t, x, A)`.
    ///
    /// # Errors
    /// [`KernelError::NonFinite`], [`KernelError::DimensionMismatch`] for an empty `x0`.
    pub fn new(
        x0: Vec<f64>,
        f: impl FnMut(f64, &[f64], &mut [f64]) + Send + 'static,
        jacobian: impl FnMut(f64, &[f64], &mut Mat<f64>) + Send + 'static,
    ) -> Result<Self, KernelError> {
        Ok(Self { state: FirstOrderState::new(x0)?, mass: None, f: Box::new(f), jacobian: Box::new(jacobian) })
    }

    /// Sets a constant, invertible `M` (default: the identity).
    ///
    /// # Errors
    /// [`KernelError::DimensionMismatch`], [`KernelError::NonFinite`].
    pub fn with_mass(mut self, m: Mat<f64>) -> Result<Self, KernelError> {
        check_mass(Some(&m), self.state.x.len())?;
        self.mass = Some(m);
        Ok(self)
    }
}

impl FirstOrderDs for FirstOrderNonLinearDs {
    fn size(&self) -> usize {
        self.state.x.len()
    }

    fn state(&self) -> &FirstOrderState {
        &self.state
    }

    fn state_mut(&mut self) -> &mut FirstOrderState {
        &mut self.state
    }

    fn mass(&self) -> Option<&Mat<f64>> {
        self.mass.as_ref()
    }

    fn f(&mut self, t: f64, x: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
        (self.f)(t, x, out);
        finite_output("f(x, t)", t, out)
    }

    fn jacobian_f(&mut self, t: f64, x: &[f64], out: &mut Mat<f64>) -> Result<(), KernelError> {
        (self.jacobian)(t, x, out);
        finite_matrix("∂f/∂x", t, out)
    }
}
