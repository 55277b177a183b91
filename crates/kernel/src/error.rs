//! The error type of the kernel crate.

use nonsmooth_numerics::{NumericsError, SolverReport};
use thiserror::Error;

/// Errors raised by `nonsmooth-kernel`.
///
/// Bad input (shapes, non-finite data, a mass matrix that is not symmetric positive definite,
/// an unknown handle) is detected when the model or the simulation is built; the one error a
/// running simulation raises by itself is [`KernelError::NotConverged`], under the
/// [`NonConvergencePolicy::Fail`](crate::simulation::NonConvergencePolicy::Fail) policy.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum KernelError {
    /// An error of the one-step problem layer.
    #[error(transparent)]
    Numerics(#[from] NumericsError),
    /// A vector or matrix has the wrong size.
    #[error("dimension mismatch for {what}: expected {expected}, found {found}")]
    DimensionMismatch {
        /// What was measured.
        what: &'static str,
        /// The size required.
        expected: usize,
        /// The size given.
        found: usize,
    },
    /// A value is NaN or infinite.
    #[error("{what} is not finite")]
    NonFinite {
        /// What holds the value.
        what: &'static str,
    },
    /// A mass matrix (or an iteration matrix `W`) is not symmetric positive definite, or is
    /// singular.
    #[error("{what} is not symmetric positive definite")]
    NotPositiveDefinite {
        /// Which matrix.
        what: &'static str,
    },
    /// An iteration matrix could not be factorized (a zero pivot).
    #[error("{what} is singular")]
    Singular {
        /// Which matrix.
        what: &'static str,
    },
    /// A dynamical-system handle does not name a system of this model.
    #[error("unknown dynamical system {0}")]
    UnknownDs(usize),
    /// An interaction handle does not name an interaction of this model.
    #[error("unknown interaction {0}")]
    UnknownInteraction(usize),
    /// An option is out of range.
    #[error("invalid option {name}: {reason}")]
    InvalidOption {
        /// The option.
        name: &'static str,
        /// Why it is refused.
        reason: &'static str,
    },
    /// The model and the simulation do not fit together (e.g. a friction law with an LCP).
    #[error("invalid model: {0}")]
    InvalidModel(String),
    /// The one-step nonsmooth problem was not solved to its tolerance and the policy is
    /// [`NonConvergencePolicy::Fail`](crate::simulation::NonConvergencePolicy::Fail).
    #[error("the one-step problem did not converge at t = {time} (step {step}): {report:?}")]
    NotConverged {
        /// The time at the end of the step.
        time: f64,
        /// The step index (1 for the first step).
        step: usize,
        /// The solver's report.
        report: SolverReport,
    },
    /// The Newton loop of a nonlinear step reached its iteration cap and the policy is
    /// [`NonConvergencePolicy::Fail`](crate::simulation::NonConvergencePolicy::Fail).
    #[error(
        "the Newton loop did not converge at t = {time} (step {step}): residual {residual:e} after {iterations} iterations"
    )]
    NewtonNotConverged {
        /// The time at the end of the step.
        time: f64,
        /// The step index.
        step: usize,
        /// Newton iterations done.
        iterations: usize,
        /// The last residual.
        residual: f64,
    },
    /// The projection onto the constraints did not bring the violations below its tolerances
    /// (or, combined projection, the index set did not settle) and the policy is
    /// [`NonConvergencePolicy::Fail`](crate::simulation::NonConvergencePolicy::Fail).
    #[error(
        "the projection onto the constraints did not converge at t = {time} (step {step}): violations {unilateral:e} (unilateral), {bilateral:e} (bilateral) after {iterations} iterations"
    )]
    ProjectionNotConverged {
        /// The time at the end of the step.
        time: f64,
        /// The step index.
        step: usize,
        /// Projection iterations of the last pass.
        iterations: usize,
        /// `max(0, −y)` over the unilateral constraints after the projection.
        unilateral: f64,
        /// `‖y‖∞` over the bilateral constraints after the projection.
        bilateral: f64,
    },
    /// A system of a simulation with several one-step integrators was assigned to none of them.
    #[error("system {ds} is assigned to no one-step integrator of the simulation")]
    UnassignedSystem {
        /// The system's index.
        ds: usize,
    },
    /// A system was assigned to two one-step integrators, or an interaction links systems of
    /// two integrators (each interaction belongs to the integrator of its systems).
    #[error("{what} {index} belongs to two one-step integrators")]
    SharedBetweenIntegrators {
        /// `"system"` or `"interaction"`.
        what: &'static str,
        /// Its index.
        index: usize,
    },
    /// An event-driven simulation found a constraint violated beyond its tolerance (Siconos:
    /// "output of level 0 must be positive"), or an acceleration-level solution that breaks the
    /// complementarity it was solved for.
    #[error("event-driven simulation at t = {time}: interaction {interaction}: {reason}")]
    EventDriven {
        /// The event time.
        time: f64,
        /// The interaction's index.
        interaction: usize,
        /// What went wrong.
        reason: &'static str,
    },
    /// A user callback produced a non-finite value.
    #[error("the user function {what} returned a non-finite value at t = {time}")]
    NonFiniteCallback {
        /// Which function.
        what: &'static str,
        /// The time of the call.
        time: f64,
    },
    /// The ODE integrator of the event-driven scheme
    /// ([`OdeIntegrator`](crate::simulation::OdeIntegrator)) could not continue.
    #[error("the ODE integrator failed at t = {time}: {reason}")]
    OdeFailure {
        /// The time reached (the last accepted time, or the time of the failing evaluation).
        time: f64,
        /// Why.
        reason: OdeFailureReason,
    },
    /// A coefficient of the model is out of its range (a law's restitution or friction
    /// coefficient, a relay bound, a size).
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: f64,
        /// Why it is refused.
        reason: &'static str,
    },
}

/// Why an ODE integrator failed ([`KernelError::OdeFailure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OdeFailureReason {
    /// The step size fell below `4ε·|t|` (tolerance unattainable, or a singularity).
    StepSizeUnderflow,
    /// The integrator's step cap was reached before the end of the interval.
    MaxSteps,
    /// `f` returned a NaN or an infinity at an accepted state, or on every step-size reduction.
    NonFiniteDerivative,
}

impl std::fmt::Display for OdeFailureReason {
    fn fmt(&self, fm: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fm.write_str(match self {
            Self::StepSizeUnderflow => "step size underflow",
            Self::MaxSteps => "maximum number of steps reached",
            Self::NonFiniteDerivative => "the right-hand side is not finite",
        })
    }
}

/// Checks that `found == expected`.
pub(crate) fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), KernelError> {
    if expected == found { Ok(()) } else { Err(KernelError::DimensionMismatch { what, expected, found }) }
}

/// Checks that every value is finite.
pub(crate) fn check_finite(what: &'static str, values: &[f64]) -> Result<(), KernelError> {
    if values.iter().all(|v| v.is_finite()) { Ok(()) } else { Err(KernelError::NonFinite { what }) }
}
