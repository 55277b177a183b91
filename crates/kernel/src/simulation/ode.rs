//! Smooth integration with root finding: the role LSODAR plays in Siconos' event-driven
//! simulation (`LsodarOSI`).
//!
//! [`OdeIntegrator::integrate`] advances `y' = f(t, y)` from `t0` towards `t_end` and stops at
//! the first root of the constraint functions `g(t, y)` (the gaps of the event-driven scheme,
//! Siconos documentation, "Event-Driven schemes", the integration of the "Bilateral Smooth
//! Dynamics").
//!
//! Two methods, both with dense output:
//!
//! * **Explicit**: Dormand–Prince 5(4) with the FSAL property, Hairer's PI step-size control
//!   (β = 0.04) and Shampine's 4th-order continuous extension (Hairer, Nørsett, Wanner,
//!   *Solving ODE I*, §II.5 and II.6, the `DOPRI5` code), plus its stiffness test
//!   (§IV.2, with the threshold `h·λ̃ > 1` instead of 3.25: see `STIFFNESS_THRESHOLD`).
//! * **Stiff**: the 3-stage Radau IIA collocation method of order 5 (Hairer, Wanner, *Solving
//!   ODE II*, §IV.8, the `RADAU5` code): simplified Newton on the `3n × 3n` stage system with a
//!   forward-difference Jacobian and our partial-pivoting LU, the embedded order-3 error
//!   estimate filtered by `(I − γ₀hJ)⁻¹`, the collocation polynomial as dense output.
//! * **Auto** starts explicit and switches to Radau IIA when the stiffness test fires, as
//!   LSODA switches from Adams to BDF (one way, for the rest of the call: every call to
//!   `integrate` starts explicit, and nothing but the options is kept between calls).
//!
//! Roots: after each accepted step `g` is evaluated at the step end; when a component changed
//! sign (or became exactly zero) the root is bracketed on `φ(τ) = g(τ, Φ(τ))`, `Φ(τ)` the state
//! re-integrated from the step start by one step of length `τ − t` of the same method (so as
//! accurate as the step itself), with trial points located on the dense output by a safeguarded
//! Illinois iteration, until the bracket is `≤ 2ε·max(|t|, 1)` wide. The time returned is the
//! bracket's right end (where `g` has crossed, as LSODAR returns) and the state is `Φ` there
//! (re-integrated, not interpolated).

// Numerical loops index several same-length vectors at once.
#![allow(clippy::needless_range_loop)]

use faer::Mat;

use crate::KernelError;
use crate::linalg::DenseLu;

mod lsodar;
pub use lsodar::{LsodarIntegrator, LsodarMethod, LsodarStats};

const EPS: f64 = f64::EPSILON;

/// `Auto` switches to Radau IIA after 15 accepted DOPRI5 steps (without 6 in a row below) with
/// `h·λ̃ > 1`, `λ̃ = ‖f(t+h, y₇) − f(t+h, y₆)‖/‖y₇ − y₆‖`. Hairer's `DOPRI5` uses 3.25 (the
/// edge of the stability region); on stiff problems such as Robertson's `λ̃` underestimates the
/// stiff eigenvalue, so the test fires earlier. A non-stiff problem detected as stiff only costs
/// Jacobians.
const STIFFNESS_THRESHOLD: f64 = 1.0;

/// The integration method of [`OdeIntegrator`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OdeMethod {
    /// Dormand–Prince 5(4) with dense output (Hairer's `DOPRI5`).
    Explicit,
    /// Radau IIA of order 5 with a finite-difference Jacobian (Hairer's `RADAU5`).
    Stiff,
    /// Starts with [`OdeMethod::Explicit`] and switches to [`OdeMethod::Stiff`] for the rest of
    /// the call to `integrate` once `DOPRI5`'s stiffness test fires (each call starts explicit).
    #[default]
    Auto,
}

/// Options of [`OdeIntegrator`] (validated by [`OdeIntegrator::new`]).
///
/// The error of a step is measured as `‖err_i / (atol + rtol·max(|y_i|, |y_new,i|))‖_RMS ≤ 1`.
/// Radau IIA works internally with Hairer's transformed tolerances
/// `rtol' = 0.1·rtol^{2/3}`, `atol' = rtol'·atol/rtol` (its estimate is of order 3, its
/// solution of order 5). Siconos' `LsodarOSI` uses `rtol = 10ε`, `atol = 100ε`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct OdeOptions {
    /// Relative tolerance, `≥ 0` (default: `1e-12`).
    pub rtol: f64,
    /// Absolute tolerance, `> 0` (default: `1e-12`).
    pub atol: f64,
    /// Maximum number of attempted steps (accepted + rejected) per call (default: `100_000`).
    pub max_steps: usize,
    /// The method (default: [`OdeMethod::Auto`]).
    pub method: OdeMethod,
    /// First step size; `None` chooses it as Hairer's `HINIT` (default: `None`).
    pub initial_step: Option<f64>,
    /// Largest step size; `None` means `t_end − t0` (default: `None`).
    pub max_step: Option<f64>,
}

impl Default for OdeOptions {
    fn default() -> Self {
        Self {
            rtol: 1e-12,
            atol: 1e-12,
            max_steps: 100_000,
            method: OdeMethod::Auto,
            initial_step: None,
            max_step: None,
        }
    }
}

impl OdeOptions {
    /// Sets [`OdeOptions::rtol`].
    #[must_use]
    pub fn with_rtol(mut self, rtol: f64) -> Self {
        self.rtol = rtol;
        self
    }
    /// Sets [`OdeOptions::atol`].
    #[must_use]
    pub fn with_atol(mut self, atol: f64) -> Self {
        self.atol = atol;
        self
    }
    /// Sets [`OdeOptions::max_steps`].
    #[must_use]
    pub fn with_max_steps(mut self, max_steps: usize) -> Self {
        self.max_steps = max_steps;
        self
    }
    /// Sets [`OdeOptions::method`].
    #[must_use]
    pub fn with_method(mut self, method: OdeMethod) -> Self {
        self.method = method;
        self
    }
    /// Sets [`OdeOptions::initial_step`].
    #[must_use]
    pub fn with_initial_step(mut self, h: Option<f64>) -> Self {
        self.initial_step = h;
        self
    }
    /// Sets [`OdeOptions::max_step`].
    #[must_use]
    pub fn with_max_step(mut self, h: Option<f64>) -> Self {
        self.max_step = h;
        self
    }

    fn validate(&self) -> Result<(), KernelError> {
        let bad = |name, reason| Err(KernelError::InvalidOption { name, reason });
        if !(self.rtol.is_finite() && self.rtol >= 0.0) {
            return bad("rtol", "must be finite and >= 0");
        }
        if !(self.atol.is_finite() && self.atol > 0.0) {
            return bad("atol", "must be finite and > 0");
        }
        if self.max_steps == 0 {
            return bad("max_steps", "must be >= 1");
        }
        if let Some(h) = self.initial_step
            && !(h.is_finite() && h > 0.0)
        {
            return bad("initial_step", "must be finite and > 0");
        }
        if let Some(h) = self.max_step
            && !(h.is_finite() && h > 0.0)
        {
            return bad("max_step", "must be finite and > 0");
        }
        Ok(())
    }
}

/// Why [`OdeIntegrator::integrate`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OdeStop {
    /// `t_end` was reached; the state is at `t_end`.
    Reached,
    /// Component `index` of `g` changed sign or became zero; the state is at the returned time.
    Root {
        /// The component of `g` (the lowest index among those past their root at that time).
        index: usize,
    },
}

pub use crate::error::OdeFailureReason;

/// Counters of one call to [`OdeIntegrator::integrate`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OdeStats {
    /// Accepted steps.
    pub steps: usize,
    /// Rejected steps (error test or Newton failure).
    pub rejected: usize,
    /// Evaluations of `f` (Jacobian columns and the re-integrations of root location
    /// included; those re-integrations are not counted in `steps`).
    pub f_evaluations: usize,
    /// Finite-difference Jacobians computed (Radau IIA).
    pub jacobian_evaluations: usize,
}

/// The right-hand side or constraint callback type.
type Callback<'a> = dyn FnMut(f64, &[f64], &mut [f64]) -> Result<(), KernelError> + 'a;

/// Adaptive ODE integrator with dense output and root location (see the module documentation).
#[derive(Clone, Debug)]
pub struct OdeIntegrator {
    options: OdeOptions,
}

// Dormand–Prince 5(4) coefficients (Dormand & Prince 1980; Hairer–Nørsett–Wanner Table II.5.2).
const C2: f64 = 1.0 / 5.0;
const C3: f64 = 3.0 / 10.0;
const C4: f64 = 4.0 / 5.0;
const C5: f64 = 8.0 / 9.0;
const A21: f64 = 1.0 / 5.0;
const A31: f64 = 3.0 / 40.0;
const A32: f64 = 9.0 / 40.0;
const A41: f64 = 44.0 / 45.0;
const A42: f64 = -56.0 / 15.0;
const A43: f64 = 32.0 / 9.0;
const A51: f64 = 19372.0 / 6561.0;
const A52: f64 = -25360.0 / 2187.0;
const A53: f64 = 64448.0 / 6561.0;
const A54: f64 = -212.0 / 729.0;
const A61: f64 = 9017.0 / 3168.0;
const A62: f64 = -355.0 / 33.0;
const A63: f64 = 46732.0 / 5247.0;
const A64: f64 = 49.0 / 176.0;
const A65: f64 = -5103.0 / 18656.0;
const A71: f64 = 35.0 / 384.0;
const A73: f64 = 500.0 / 1113.0;
const A74: f64 = 125.0 / 192.0;
const A75: f64 = -2187.0 / 6784.0;
const A76: f64 = 11.0 / 84.0;
const E1: f64 = 71.0 / 57600.0;
const E3: f64 = -71.0 / 16695.0;
const E4: f64 = 71.0 / 1920.0;
const E5: f64 = -17253.0 / 339200.0;
const E6: f64 = 22.0 / 525.0;
const E7: f64 = -1.0 / 40.0;
// Shampine's dense output (Hairer's DOPRI5 `D1..D7`).
const D1: f64 = -12715105075.0 / 11282082432.0;
const D3: f64 = 87487479700.0 / 32700410799.0;
const D4: f64 = -10690763975.0 / 1880347072.0;
const D5: f64 = 701980252875.0 / 199316789632.0;
const D6: f64 = -1453857185.0 / 822651844.0;
const D7: f64 = 69997945.0 / 29380423.0;

/// Radau IIA (order 5) constants: nodes, Butcher matrix, the embedded-estimate weights
/// `DD = (−(13+7√6)/3, (−13+7√6)/3, −1/3)` and `u₁ = 1/γ₀`, the real eigenvalue of `A⁻¹`
/// (Hairer–Wanner §IV.8, eq. (8.19)).
struct RadauTableau {
    c: [f64; 3],
    a: [[f64; 3]; 3],
    dd: [f64; 3],
    u1: f64,
}

impl RadauTableau {
    fn new() -> Self {
        let s6 = 6.0_f64.sqrt();
        let u1 = 30.0 / (6.0 + 81.0_f64.cbrt() - 9.0_f64.cbrt());
        Self {
            c: [(4.0 - s6) / 10.0, (4.0 + s6) / 10.0, 1.0],
            a: [
                [(88.0 - 7.0 * s6) / 360.0, (296.0 - 169.0 * s6) / 1800.0, (-2.0 + 3.0 * s6) / 225.0],
                [(296.0 + 169.0 * s6) / 1800.0, (88.0 + 7.0 * s6) / 360.0, (-2.0 - 3.0 * s6) / 225.0],
                [(16.0 - s6) / 36.0, (16.0 + s6) / 36.0, 1.0 / 9.0],
            ],
            dd: [-(13.0 + 7.0 * s6) / 3.0, (-13.0 + 7.0 * s6) / 3.0, -1.0 / 3.0],
            u1,
        }
    }

    /// Lagrange basis on the nodes {0, c₁, c₂, c₃}, for the node `c_i` (zero at s = 0).
    fn basis(&self, i: usize, s: f64) -> f64 {
        let nodes = [0.0, self.c[0], self.c[1], self.c[2]];
        let ci = self.c[i];
        let mut v = 1.0;
        for (k, &ck) in nodes.iter().enumerate() {
            if k != i + 1 {
                v *= (s - ck) / (ci - ck);
            }
        }
        v
    }
}

/// Dense output of the last accepted step on `[t, t + h]`.
#[derive(Debug, Default)]
enum Dense {
    #[default]
    None,
    /// `y(t + θh) = r₀ + θ(r₁ + (1−θ)(r₂ + θ(r₃ + (1−θ)r₄)))`.
    Dopri { t: f64, h: f64, r: [Vec<f64>; 5] },
    /// `y(t + sh) = y₀ + Σ z_i ℓ_i(s)` (collocation polynomial).
    Radau { t: f64, h: f64, y0: Vec<f64>, z: [Vec<f64>; 3] },
}

impl Dense {
    fn eval(&self, tab: &RadauTableau, at: f64, out: &mut [f64]) {
        match self {
            Self::None => {}
            Self::Dopri { t, h, r } => {
                let th = (at - t) / h;
                let th1 = 1.0 - th;
                for (i, o) in out.iter_mut().enumerate() {
                    *o = r[0][i] + th * (r[1][i] + th1 * (r[2][i] + th * (r[3][i] + th1 * r[4][i])));
                }
            }
            Self::Radau { t, h, y0, z } => {
                let s = (at - t) / h;
                let l = [tab.basis(0, s), tab.basis(1, s), tab.basis(2, s)];
                for (i, o) in out.iter_mut().enumerate() {
                    *o = y0[i] + l[0] * z[0][i] + l[1] * z[1][i] + l[2] * z[2][i];
                }
            }
        }
    }
}

/// Calls `f` and counts it; `Ok(false)` when a value is not finite.
fn call_f(f: &mut Callback<'_>, stats: &mut OdeStats, t: f64, y: &[f64], out: &mut [f64]) -> Result<bool, KernelError> {
    stats.f_evaluations += 1;
    f(t, y, out)?;
    Ok(out.iter().all(|v| v.is_finite()))
}

/// Root-mean-square norm of `v_i / sc_i`.
fn rms(v: &[f64], sc: &[f64]) -> f64 {
    let s: f64 = v.iter().zip(sc).map(|(a, b)| (a / b) * (a / b)).sum();
    (s / v.len() as f64).sqrt()
}

fn sign(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// Whether component `i` is past its root: its reference sign is set and `g_i` is zero or of
/// the opposite sign.
fn crossed(reference: i8, value: f64) -> bool {
    reference != 0 && sign(value) != reference
}

/// Work vectors of one call.
struct Work {
    k: [Vec<f64>; 7],
    ytmp: Vec<f64>,
    ystage6: Vec<f64>,
    ynew: Vec<f64>,
    fnew: Vec<f64>,
    err: Vec<f64>,
    sc: Vec<f64>,
}

impl Work {
    fn new(n: usize) -> Self {
        let v = || vec![0.0; n];
        Self {
            k: [v(), v(), v(), v(), v(), v(), v()],
            ytmp: v(),
            ystage6: v(),
            ynew: v(),
            fnew: v(),
            err: v(),
            sc: v(),
        }
    }
}

/// Outcome of an attempted step.
enum Attempt {
    /// The scaled error norm (accept when `≤ 1`), and Newton iterations (Radau).
    Done { err: f64, newton: usize },
    /// A stage value of `f` was not finite, or the Newton iteration failed: retry smaller.
    Failed { nonfinite: bool },
}

impl OdeIntegrator {
    /// Validates `options` ([`KernelError::InvalidOption`] when a value is out of range).
    pub fn new(options: OdeOptions) -> Result<Self, KernelError> {
        options.validate()?;
        Ok(Self { options })
    }

    /// The options.
    pub fn options(&self) -> &OdeOptions {
        &self.options
    }

    /// Integrates `y' = f(t, y)` from `(t0, y)` towards `t_end > t0`.
    ///
    /// When `roots` is `Some((m, g))`, `g(t, y, out)` writes `m` constraint values and the
    /// integration stops at the first `t ∈ (t0, t_end]` where some `g_i` changes sign or becomes
    /// exactly zero; a zero at `t0` itself is not reported (as LSODAR): such a component is armed
    /// at the first later accepted step where it is non-zero. The root is bracketed to
    /// `|Δt| ≤ 2ε·max(|t|, 1)` and the returned time is the bracket's right end, where `g` has
    /// already crossed. `y` is then the state at that time re-integrated exactly to it (one step
    /// of the current method from the start of the step; see the module documentation).
    /// Two components crossing in the same step: the earlier root is returned. Two crossings of
    /// one component within one step are not seen (as LSODAR).
    ///
    /// Returns `(t_stop, stop, stats)` and overwrites `y` with the state at `t_stop`.
    ///
    /// # Errors
    /// [`KernelError::OdeFailure`] (step-size underflow, `max_steps`, non-finite `f`),
    /// [`KernelError::InvalidOption`] (`t_end ≤ t0`, non-finite times),
    /// [`KernelError::NonFinite`] (non-finite `y`), [`KernelError::DimensionMismatch`] (empty
    /// `y`), [`KernelError::NonFiniteCallback`] (non-finite `g`), and any error of `f` or `g`.
    /// On error `y` is left at the last accepted state.
    #[allow(clippy::type_complexity)] // the callback types are spelled out for the reader
    pub fn integrate(
        &mut self,
        f: &mut dyn FnMut(f64, &[f64], &mut [f64]) -> Result<(), KernelError>,
        roots: Option<(usize, &mut dyn FnMut(f64, &[f64], &mut [f64]) -> Result<(), KernelError>)>,
        t0: f64,
        y: &mut [f64],
        t_end: f64,
    ) -> Result<(f64, OdeStop, OdeStats), KernelError> {
        let n = y.len();
        if n == 0 {
            return Err(KernelError::DimensionMismatch {
                what: "ODE state (must not be empty)",
                expected: 1,
                found: 0,
            });
        }
        if !t0.is_finite() || !t_end.is_finite() {
            return Err(KernelError::InvalidOption { name: "t0/t_end", reason: "must be finite" });
        }
        if t_end <= t0 {
            return Err(KernelError::InvalidOption { name: "t_end", reason: "must be > t0" });
        }
        crate::error::check_finite("ODE initial state", y)?;
        let opts = self.options.clone();
        let mut stats = OdeStats::default();
        let tab = RadauTableau::new();
        let mut w = Work::new(n);
        let mut f0 = vec![0.0; n];
        if !call_f(f, &mut stats, t0, y, &mut f0)? {
            return Err(KernelError::OdeFailure { time: t0, reason: OdeFailureReason::NonFiniteDerivative });
        }

        // Roots: reference signs at t0 (0 = not armed yet).
        let (m, mut g) = match roots {
            Some((m, g)) if m > 0 => (m, Some(g)),
            _ => (0, None),
        };
        let mut g_prev = vec![0.0; m];
        let mut g_new = vec![0.0; m];
        let mut reference = vec![0_i8; m];
        if let Some(g) = g.as_mut() {
            eval_g(g, t0, y, &mut g_prev)?;
            for (r, v) in reference.iter_mut().zip(&g_prev) {
                *r = sign(*v);
            }
        }

        let hmax = opts.max_step.unwrap_or(t_end - t0).min(t_end - t0);
        let mut stiff = opts.method == OdeMethod::Stiff;
        let (rtol_r, atol_r) = radau_tolerances(opts.rtol, opts.atol);
        let mut h = match opts.initial_step {
            Some(h) => h,
            None => {
                let (rt, at, order) = if stiff { (rtol_r, atol_r, 3) } else { (opts.rtol, opts.atol, 5) };
                initial_step(f, &mut stats, t0, y, &f0, rt, at, order, hmax, &mut w)?
            }
        }
        .min(hmax);

        let mut t = t0;
        let mut dense = Dense::None;
        let mut first = true;
        let mut last_rejected = false;
        let mut last_failure_nonfinite = false;
        let mut facold: f64 = 1e-4;
        let (mut iasti, mut nonsti) = (0_usize, 0_usize);
        // Radau state.
        let mut jac = Mat::<f64>::zeros(n, n);
        let mut jac_valid = false;
        let mut faccon: f64 = 1.0;
        let mut radau = RadauWork::new(n);

        loop {
            if stats.steps + stats.rejected >= opts.max_steps {
                return Err(KernelError::OdeFailure { time: t, reason: OdeFailureReason::MaxSteps });
            }
            let mut last = false;
            if t + h >= t_end || t_end - (t + h) <= 4.0 * EPS * t_end.abs() {
                h = t_end - t;
                last = true;
            }
            if h <= 4.0 * EPS * t.abs() || h < f64::MIN_POSITIVE {
                let reason = if last_failure_nonfinite {
                    OdeFailureReason::NonFiniteDerivative
                } else {
                    OdeFailureReason::StepSizeUnderflow
                };
                return Err(KernelError::OdeFailure { time: t, reason });
            }

            // ---- one attempted step ----
            let attempt = if stiff {
                if !jac_valid {
                    jacobian(f, &mut stats, t, y, &f0, &mut jac, &mut w.ytmp, &mut w.fnew)?;
                    jac_valid = true;
                }
                let prev = if first { None } else { Some(&dense) };
                radau.step(
                    f,
                    &mut stats,
                    &tab,
                    &jac,
                    t,
                    y,
                    &f0,
                    h,
                    rtol_r,
                    atol_r,
                    &mut faccon,
                    prev,
                    first || last_rejected,
                    &mut w,
                )?
            } else {
                dopri_step(f, &mut stats, t, y, &f0, h, opts.rtol, opts.atol, &mut w)?
            };

            let (err, newton) = match attempt {
                Attempt::Failed { nonfinite } => {
                    last_failure_nonfinite = nonfinite;
                    stats.rejected += 1;
                    last_rejected = true;
                    h *= if nonfinite { 0.25 } else { 0.5 };
                    continue;
                }
                Attempt::Done { err, newton } => (err, newton),
            };
            last_failure_nonfinite = false;

            // ---- step-size control ----
            let (accept, hnew) = if stiff {
                let fac = (0.9 * 15.0 / (newton as f64 + 14.0)).min(0.9);
                let quot = (err.powf(0.25) / fac).clamp(0.125, 5.0);
                let hnew = h / quot;
                if err < 1.0 {
                    (true, if last_rejected { hnew.min(h) } else { hnew })
                } else {
                    (false, if first { 0.1 * h } else { hnew })
                }
            } else {
                let (beta, safe) = (0.04, 0.9);
                let fac11 = err.powf(0.2 - beta * 0.75);
                if err <= 1.0 {
                    let fac = (fac11 / facold.powf(beta) / safe).clamp(0.1, 5.0);
                    facold = err.max(1e-4);
                    let hnew = h / fac;
                    (true, if last_rejected { hnew.min(h) } else { hnew })
                } else {
                    (false, h / (fac11 / safe).min(5.0))
                }
            };
            if !accept {
                stats.rejected += 1;
                last_rejected = true;
                h = hnew;
                continue;
            }

            // ---- accepted: y_new, f_new, dense output on [t, t_new] ----
            stats.steps += 1;
            let t_new = if last { t_end } else { t + h };
            if stiff {
                let RadauWork { z, .. } = &radau;
                for i in 0..n {
                    w.ynew[i] = y[i] + z[2 * n + i];
                }
                if !call_f(f, &mut stats, t_new, &w.ynew, &mut w.fnew)? {
                    return Err(KernelError::OdeFailure { time: t_new, reason: OdeFailureReason::NonFiniteDerivative });
                }
                dense = radau_dense(t, h, y, z);
            } else {
                // Stiffness detection (DOPRI5): h·λ̃ with λ̃ = ‖k7 − k6‖/‖y_new − y_stage6‖.
                if opts.method == OdeMethod::Auto {
                    let num: f64 = w.k[6].iter().zip(&w.k[5]).map(|(a, b)| (a - b) * (a - b)).sum();
                    let den: f64 = w.ynew.iter().zip(&w.ystage6).map(|(a, b)| (a - b) * (a - b)).sum();
                    if den > 0.0 && h * (num / den).sqrt() > STIFFNESS_THRESHOLD {
                        nonsti = 0;
                        iasti += 1;
                        if iasti == 15 {
                            stiff = true;
                        }
                    } else {
                        nonsti += 1;
                        if nonsti == 6 {
                            iasti = 0;
                        }
                    }
                }
                w.fnew.copy_from_slice(&w.k[6]);
                dense = dopri_dense(t, h, y, &w);
            }

            // ---- roots on [t, t_new] ----
            if let Some(g) = g.as_mut() {
                eval_g(g, t_new, &w.ynew, &mut g_new)?;
                if (0..m).any(|i| crossed(reference[i], g_new[i])) {
                    let mut ctx = Restep {
                        f: &mut *f,
                        stats: &mut stats,
                        tab: &tab,
                        jac: &jac,
                        radau: &mut radau,
                        w: &mut w,
                        tols: (opts.rtol, opts.atol, rtol_r, atol_r),
                        faccon: &mut faccon,
                    };
                    let (t_root, index) =
                        refine_root(&mut ctx, &mut **g, &reference, &dense, t, y, &f0, t_new, &g_prev, &g_new)?;
                    return Ok((t_root, OdeStop::Root { index }, stats));
                }
                for i in 0..m {
                    if reference[i] == 0 {
                        reference[i] = sign(g_new[i]);
                    }
                }
                g_prev.copy_from_slice(&g_new);
            }

            t = t_new;
            y.copy_from_slice(&w.ynew);
            f0.copy_from_slice(&w.fnew);
            jac_valid = false;
            first = false;
            last_rejected = false;
            if last {
                return Ok((t, OdeStop::Reached, stats));
            }
            h = hnew.min(hmax);
        }
    }
}

/// Hairer's tolerance transformation for Radau IIA (`RADAU5`).
fn radau_tolerances(rtol: f64, atol: f64) -> (f64, f64) {
    if rtol > 0.0 {
        let r = 0.1 * rtol.powf(2.0 / 3.0);
        (r, r * atol / rtol)
    } else {
        (0.0, atol)
    }
}

fn eval_g(g: &mut Callback<'_>, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), KernelError> {
    g(t, y, out)?;
    if out.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(KernelError::NonFiniteCallback { what: "g (ODE root function)", time: t })
    }
}

/// Locates the first root in `(a, b]` on the dense output: a safeguarded Illinois iteration
/// (regula falsi on the crossing components, taking the earliest secant point; a bisection
/// whenever the same end moved twice) until `b − a ≤ 2ε·max(|b|, 1)`. Returns `(b, index)`.
#[allow(clippy::too_many_arguments)]
fn locate_root(
    g: &mut Callback<'_>,
    dense: &Dense,
    tab: &RadauTableau,
    reference: &[i8],
    (mut a, ga): (f64, &[f64]),
    (mut b, gb): (f64, &[f64]),
    n: usize,
) -> Result<(f64, usize), KernelError> {
    let m = reference.len();
    let mut gm = vec![0.0; m];
    let mut ytmp = vec![0.0; n];
    let mut ga = ga.to_vec();
    let mut gb = gb.to_vec();
    // Illinois weights on the stale end.
    let (mut wa, mut wb) = (1.0_f64, 1.0_f64);
    let mut last_side = 0_i8;
    let mut same_side = 0_usize;
    for _ in 0..500 {
        if b - a <= 2.0 * EPS * b.abs().max(1.0) {
            break;
        }
        let mut guess = f64::INFINITY;
        if same_side < 2 {
            for i in 0..m {
                if crossed(reference[i], gb[i]) {
                    let (fa, fb) = (wa * ga[i], wb * gb[i]);
                    let s = a + (b - a) * fa / (fa - fb);
                    if s.is_finite() {
                        guess = guess.min(s);
                    }
                }
            }
        }
        let mid = 0.5 * (a + b);
        if !guess.is_finite() || same_side >= 2 {
            guess = mid;
            same_side = 0;
        }
        // Keep strictly inside (a, b), away from the ends by a tenth of an ulp-scale margin.
        let margin = 0.5 * EPS * b.abs().max(1.0);
        guess = guess.clamp(a + margin, b - margin);
        if guess <= a || guess >= b {
            guess = mid;
        }
        if guess <= a || guess >= b {
            break;
        }
        dense.eval(tab, guess, &mut ytmp);
        eval_g(g, guess, &ytmp, &mut gm)?;
        let side = if (0..m).any(|i| crossed(reference[i], gm[i])) {
            b = guess;
            gb.copy_from_slice(&gm);
            wb = 1.0;
            wa *= 0.5;
            1
        } else {
            a = guess;
            ga.copy_from_slice(&gm);
            wa = 1.0;
            wb *= 0.5;
            -1
        };
        if side == last_side {
            same_side += 1;
        } else {
            same_side = 1;
            last_side = side;
        }
    }
    let index = first_crossed(reference, &gb).expect("b is always past a root of some component");
    Ok((b, index))
}

/// The lowest index of a component past its root.
fn first_crossed(reference: &[i8], g: &[f64]) -> Option<usize> {
    (0..reference.len()).find(|&i| crossed(reference[i], g[i]))
}

/// What a re-integration from the start of the step needs.
struct Restep<'a, 'c> {
    f: &'a mut Callback<'c>,
    stats: &'a mut OdeStats,
    tab: &'a RadauTableau,
    jac: &'a Mat<f64>,
    radau: &'a mut RadauWork,
    w: &'a mut Work,
    /// (rtol, atol, Radau rtol', Radau atol').
    tols: (f64, f64, f64, f64),
    faccon: &'a mut f64,
}

impl Restep<'_, '_> {
    /// One step of the method that produced `dense` from `(t, y)` of length `h` (shorter than
    /// the accepted step, so at least as accurate): the new state and its dense output, or
    /// `None` when the Radau Newton iteration fails.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        dense: &Dense,
        t: f64,
        y: &[f64],
        f0: &[f64],
        h: f64,
    ) -> Result<Option<(Vec<f64>, Dense)>, KernelError> {
        let (rtol, atol, rtol_r, atol_r) = self.tols;
        if matches!(dense, Dense::Radau { .. }) {
            let a = self.radau.step(
                self.f,
                self.stats,
                self.tab,
                self.jac,
                t,
                y,
                f0,
                h,
                rtol_r,
                atol_r,
                self.faccon,
                Some(dense),
                false,
                self.w,
            )?;
            if let Attempt::Done { .. } = a {
                let n = y.len();
                let ynew: Vec<f64> = (0..n).map(|i| y[i] + self.radau.z[2 * n + i]).collect();
                return Ok(Some((ynew, radau_dense(t, h, y, &self.radau.z))));
            }
            Ok(None)
        } else {
            match dopri_step(self.f, self.stats, t, y, f0, h, rtol, atol, self.w)? {
                Attempt::Done { .. } => Ok(Some((self.w.ynew.clone(), dopri_dense(t, h, y, self.w)))),
                Attempt::Failed { .. } => Ok(None),
            }
        }
    }
}

/// Locates the first root in `(t, t_new]` and writes the state there into `y` (which holds
/// the state at `t` on entry).
///
/// The function bracketed is `φ(τ) = g(τ, Φ(τ))`, `Φ(τ)` the state re-integrated from `(t, y)`
/// by one step of length `τ − t` of the method that made the step (so as accurate as the step
/// itself, and a smooth function of `τ`). The bracket `[a, b]` starts as `[t, t_new]`; each
/// trial point is the root located on the dense output of the step that ends at `b` (accurate
/// near its end, where the root is), or a bisection when the same end moved twice in a row;
/// it stops when `b − a ≤ 2ε·max(|b|, 1)`.
#[allow(clippy::too_many_arguments)]
fn refine_root(
    ctx: &mut Restep<'_, '_>,
    g: &mut Callback<'_>,
    reference: &[i8],
    dense: &Dense,
    t: f64,
    y: &mut [f64],
    f0: &[f64],
    t_new: f64,
    g_prev: &[f64],
    g_new: &[f64],
) -> Result<(f64, usize), KernelError> {
    let n = y.len();
    let tab = ctx.tab;
    let (mut a, mut ga) = (t, g_prev.to_vec());
    let (mut b, mut gb) = (t_new, g_new.to_vec());
    let mut y_b = ctx.w.ynew.clone();
    let mut d_b: Option<Dense> = None;
    let mut gm = vec![0.0; reference.len()];
    let (mut last_side, mut same_side) = (0_i8, 0_usize);
    for _ in 0..100 {
        let width = 2.0 * EPS * b.abs().max(1.0);
        if b - a <= width {
            break;
        }
        let d = d_b.as_ref().unwrap_or(dense);
        let mut guess = if same_side >= 2 {
            same_side = 0;
            0.5 * (a + b)
        } else {
            locate_root(g, d, tab, reference, (a, &ga), (b, &gb), n)?.0
        };
        if guess >= b {
            guess = b - width;
        }
        if guess <= a {
            guess = 0.5 * (a + b);
        }
        if guess <= a || guess >= b {
            break;
        }
        let Some((y_g, d_g)) = ctx.step(d, t, y, f0, guess - t)? else {
            break;
        };
        eval_g(g, guess, &y_g, &mut gm)?;
        let side = if first_crossed(reference, &gm).is_some() {
            b = guess;
            gb.copy_from_slice(&gm);
            y_b = y_g;
            d_b = Some(d_g);
            1
        } else {
            a = guess;
            ga.copy_from_slice(&gm);
            -1
        };
        if side == last_side {
            same_side += 1;
        } else {
            (last_side, same_side) = (side, 1);
        }
    }
    y.copy_from_slice(&y_b);
    let index = first_crossed(reference, &gb).expect("b is always past a root of some component");
    Ok((b, index))
}

/// The DOPRI5 dense output of the step `[t, t + h]` from `y` (stages in `w.k`, end in `w.ynew`).
fn dopri_dense(t: f64, h: f64, y: &[f64], w: &Work) -> Dense {
    let n = y.len();
    let mut r: [Vec<f64>; 5] = Default::default();
    for ri in r.iter_mut() {
        ri.resize(n, 0.0);
    }
    let k = &w.k;
    for i in 0..n {
        let dy = w.ynew[i] - y[i];
        let bspl = h * k[0][i] - dy;
        r[0][i] = y[i];
        r[1][i] = dy;
        r[2][i] = bspl;
        r[3][i] = dy - h * k[6][i] - bspl;
        r[4][i] = h * (D1 * k[0][i] + D3 * k[2][i] + D4 * k[3][i] + D5 * k[4][i] + D6 * k[5][i] + D7 * k[6][i]);
    }
    Dense::Dopri { t, h, r }
}

/// The collocation polynomial of the Radau IIA step `[t, t + h]` from `y` with stage
/// increments `z` (3n).
fn radau_dense(t: f64, h: f64, y: &[f64], z: &[f64]) -> Dense {
    let n = y.len();
    let zs = [z[..n].to_vec(), z[n..2 * n].to_vec(), z[2 * n..3 * n].to_vec()];
    Dense::Radau { t, h, y0: y.to_vec(), z: zs }
}

/// Hairer's `HINIT`: an initial step from `‖y‖`, `‖f‖` and a finite difference of `f`.
#[allow(clippy::too_many_arguments)]
fn initial_step(
    f: &mut Callback<'_>,
    stats: &mut OdeStats,
    t: f64,
    y: &[f64],
    f0: &[f64],
    rtol: f64,
    atol: f64,
    order: i32,
    hmax: f64,
    w: &mut Work,
) -> Result<f64, KernelError> {
    for (s, v) in w.sc.iter_mut().zip(y) {
        *s = atol + rtol * v.abs();
    }
    let d0 = rms(y, &w.sc);
    let d1 = rms(f0, &w.sc);
    let mut h0 = if d0 < 1e-10 || d1 < 1e-10 { 1e-6 } else { 0.01 * d0 / d1 };
    h0 = h0.min(hmax);
    for i in 0..y.len() {
        w.ytmp[i] = y[i] + h0 * f0[i];
    }
    if !call_f(f, stats, t + h0, &w.ytmp, &mut w.fnew)? {
        return Ok(h0 * 1e-3);
    }
    for i in 0..y.len() {
        w.err[i] = w.fnew[i] - f0[i];
    }
    let d2 = rms(&w.err, &w.sc) / h0;
    let dm = d1.max(d2);
    let h1 = if dm <= 1e-15 { (h0 * 1e-3).max(1e-6) } else { (0.01 / dm).powf(1.0 / f64::from(order)) };
    Ok((100.0 * h0).min(h1).min(hmax))
}

/// One Dormand–Prince 5(4) step of size `h` from `(t, y)` with `k1 = f0`; writes `w.ynew`,
/// `w.k[6] = f(t + h, y_new)`, `w.ystage6`, and returns the scaled error norm.
#[allow(clippy::too_many_arguments)]
fn dopri_step(
    f: &mut Callback<'_>,
    stats: &mut OdeStats,
    t: f64,
    y: &[f64],
    f0: &[f64],
    h: f64,
    rtol: f64,
    atol: f64,
    w: &mut Work,
) -> Result<Attempt, KernelError> {
    let n = y.len();
    w.k[0].copy_from_slice(f0);
    let stages: [(f64, &[f64]); 5] = [
        (C2, &[A21]),
        (C3, &[A31, A32]),
        (C4, &[A41, A42, A43]),
        (C5, &[A51, A52, A53, A54]),
        (1.0, &[A61, A62, A63, A64, A65]),
    ];
    for (s, (c, a)) in stages.iter().enumerate() {
        for i in 0..n {
            let mut acc = 0.0;
            for (j, aj) in a.iter().enumerate() {
                acc += aj * w.k[j][i];
            }
            w.ytmp[i] = y[i] + h * acc;
        }
        let ts = if s == 4 { t + h } else { t + c * h };
        let (ytmp, k) = (&w.ytmp, &mut w.k[s + 1]);
        if !call_f(f, stats, ts, ytmp, k)? {
            return Ok(Attempt::Failed { nonfinite: true });
        }
    }
    w.ystage6.copy_from_slice(&w.ytmp);
    for i in 0..n {
        let k = &w.k;
        w.ynew[i] = y[i] + h * (A71 * k[0][i] + A73 * k[2][i] + A74 * k[3][i] + A75 * k[4][i] + A76 * k[5][i]);
    }
    let (ynew, k7) = (&w.ynew, &mut w.k[6]);
    if !call_f(f, stats, t + h, ynew, k7)? {
        return Ok(Attempt::Failed { nonfinite: true });
    }
    for i in 0..n {
        let k = &w.k;
        w.err[i] = h * (E1 * k[0][i] + E3 * k[2][i] + E4 * k[3][i] + E5 * k[4][i] + E6 * k[5][i] + E7 * k[6][i]);
        w.sc[i] = atol + rtol * y[i].abs().max(w.ynew[i].abs());
    }
    Ok(Attempt::Done { err: rms(&w.err, &w.sc), newton: 0 })
}

/// Forward-difference Jacobian `J_ij ≈ (f_i(y + δ_j e_j) − f_i(y))/δ_j`,
/// `δ_j = √(ε·max(1e-5, |y_j|))` (`RADAU5`).
#[allow(clippy::too_many_arguments)]
fn jacobian(
    f: &mut Callback<'_>,
    stats: &mut OdeStats,
    t: f64,
    y: &[f64],
    f0: &[f64],
    jac: &mut Mat<f64>,
    ytmp: &mut [f64],
    ftmp: &mut [f64],
) -> Result<(), KernelError> {
    stats.jacobian_evaluations += 1;
    ytmp.copy_from_slice(y);
    for j in 0..y.len() {
        let delta = (EPS * y[j].abs().max(1e-5)).sqrt();
        ytmp[j] = y[j] + delta;
        if !call_f(f, stats, t, ytmp, ftmp)? {
            return Err(KernelError::OdeFailure { time: t, reason: OdeFailureReason::NonFiniteDerivative });
        }
        for i in 0..y.len() {
            jac[(i, j)] = (ftmp[i] - f0[i]) / delta;
        }
        ytmp[j] = y[j];
    }
    Ok(())
}

/// Work space of the Radau IIA step: stage increments `z` (3n), stage derivatives, the LU of
/// the `3n × 3n` iteration matrix `I − h(A ⊗ J)` and of `u₁/h·I − J`.
struct RadauWork {
    z: Vec<f64>,
    fz: Vec<f64>,
    r: Vec<f64>,
    sc3: Vec<f64>,
    lu: DenseLu,
    lu1: DenseLu,
}

impl RadauWork {
    fn new(n: usize) -> Self {
        Self {
            z: vec![0.0; 3 * n],
            fz: vec![0.0; 3 * n],
            r: vec![0.0; 3 * n],
            sc3: vec![0.0; 3 * n],
            lu: DenseLu::default(),
            lu1: DenseLu::default(),
        }
    }

    /// One Radau IIA step of size `h` (simplified Newton, `RADAU5`'s convergence test
    /// `η·‖Δz‖ ≤ κ`, `κ = max(10ε/rtol', min(0.03, √rtol'))`, at most 7 iterations).
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        f: &mut Callback<'_>,
        stats: &mut OdeStats,
        tab: &RadauTableau,
        jac: &Mat<f64>,
        t: f64,
        y: &[f64],
        f0: &[f64],
        h: f64,
        rtol: f64,
        atol: f64,
        faccon: &mut f64,
        prev: Option<&Dense>,
        careful: bool,
        w: &mut Work,
    ) -> Result<Attempt, KernelError> {
        let n = y.len();
        let e = Mat::from_fn(3 * n, 3 * n, |r, c| {
            let (bi, i, bj, j) = (r / n, r % n, c / n, c % n);
            let id = if r == c { 1.0 } else { 0.0 };
            id - h * tab.a[bi][bj] * jac[(i, j)]
        });
        if self.lu.factorize(&e, "Radau IIA iteration matrix").is_err() {
            return Ok(Attempt::Failed { nonfinite: false });
        }
        for i in 0..n {
            w.sc[i] = atol + rtol * y[i].abs();
        }
        for s in 0..3 {
            self.sc3[s * n..(s + 1) * n].copy_from_slice(&w.sc);
        }
        // Starting values: the previous collocation polynomial extrapolated, or zero.
        match prev {
            Some(d @ Dense::Radau { .. }) => {
                for s in 0..3 {
                    d.eval(tab, t + tab.c[s] * h, &mut w.ytmp);
                    for i in 0..n {
                        self.z[s * n + i] = w.ytmp[i] - y[i];
                    }
                }
            }
            _ => self.z.fill(0.0),
        }
        let fnewt = (10.0 * EPS / rtol.max(EPS)).max(0.03_f64.min(rtol.sqrt()));
        *faccon = faccon.max(EPS).powf(0.8);
        let mut dz_old = 0.0;
        let mut converged = None;
        for it in 0..7 {
            for s in 0..3 {
                for i in 0..n {
                    w.ytmp[i] = y[i] + self.z[s * n + i];
                }
                if !call_f(f, stats, t + tab.c[s] * h, &w.ytmp, &mut self.fz[s * n..(s + 1) * n])? {
                    return Ok(Attempt::Failed { nonfinite: true });
                }
            }
            for s in 0..3 {
                for i in 0..n {
                    let mut acc = 0.0;
                    for q in 0..3 {
                        acc += tab.a[s][q] * self.fz[q * n + i];
                    }
                    self.r[s * n + i] = h * acc - self.z[s * n + i];
                }
            }
            self.lu.solve_in_place(&mut self.r);
            let dz = rms(&self.r, &self.sc3);
            for (zi, ri) in self.z.iter_mut().zip(&self.r) {
                *zi += ri;
            }
            if !dz.is_finite() {
                return Ok(Attempt::Failed { nonfinite: false });
            }
            if it > 0 {
                let theta = dz / dz_old;
                if theta >= 0.99 {
                    return Ok(Attempt::Failed { nonfinite: false });
                }
                *faccon = theta / (1.0 - theta);
            }
            if *faccon * dz <= fnewt {
                converged = Some(it + 1);
                break;
            }
            dz_old = dz.max(EPS);
        }
        let Some(newton) = converged else {
            return Ok(Attempt::Failed { nonfinite: false });
        };

        // Error estimate: (u₁/h·I − J)⁻¹ (f0 + Σ dd_i z_i / h).
        let e1 = Mat::from_fn(n, n, |i, j| if i == j { tab.u1 / h } else { 0.0 } - jac[(i, j)]);
        if self.lu1.factorize(&e1, "Radau IIA error matrix").is_err() {
            return Ok(Attempt::Failed { nonfinite: false });
        }
        let mut f2 = vec![0.0; n];
        for (i, v) in f2.iter_mut().enumerate() {
            *v = (tab.dd[0] * self.z[i] + tab.dd[1] * self.z[n + i] + tab.dd[2] * self.z[2 * n + i]) / h;
            w.err[i] = f0[i] + *v;
        }
        self.lu1.solve_in_place(&mut w.err);
        for i in 0..n {
            w.sc[i] = atol + rtol * y[i].abs().max((y[i] + self.z[2 * n + i]).abs());
        }
        let mut err = rms(&w.err, &w.sc).max(1e-10);
        if err >= 1.0 && careful {
            for i in 0..n {
                w.ytmp[i] = y[i] + w.err[i];
            }
            if call_f(f, stats, t, &w.ytmp, &mut w.fnew)? {
                for i in 0..n {
                    w.err[i] = w.fnew[i] + f2[i];
                }
                self.lu1.solve_in_place(&mut w.err);
                err = rms(&w.err, &w.sc).max(1e-10);
            }
        }
        Ok(Attempt::Done { err, newton })
    }
}

#[cfg(test)]
mod tests;
