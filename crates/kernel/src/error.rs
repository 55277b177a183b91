//! The error type of the kernel crate.

use nonsmooth_numerics::{NumericsError, SolverReport};
use thiserror::Error;

/// Errors raised by `nonsmooth-kernel`.
///
/// Bad input (shapes, non-finite data, a mass matrix that is not symmetric positive definite,
/// an unknown handle) is detected when the model or the simulation is built. A running
/// simulation raises by itself the non-convergence errors ([`KernelError::NotConverged`] and
/// its kin, under the [`NonConvergencePolicy::Fail`](crate::simulation::NonConvergencePolicy::Fail)
/// policy) and [`KernelError::NonFiniteState`] when it diverges.
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
    /// A model the chosen simulation scheme does not handle yet (e.g. the event-driven scheme
    /// with a relay law, or with frictional and frictionless contacts together).
    #[error("{scheme} does not handle {what}")]
    Unsupported {
        /// The scheme.
        scheme: &'static str,
        /// What in the model it does not handle.
        what: String,
    },
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
    /// A step (time-stepping) or an integration or event (event-driven) left a NaN or an
    /// infinity in a system's state or in an interaction's multiplier: the simulation diverged
    /// (an unstable model, a time step too long for it, forces that overflow). The simulation
    /// stops there: every later step returns this error again.
    #[error("{what} is not finite at t = {time} (step {step}): the simulation diverged and is stopped")]
    NonFiniteState {
        /// The time at the end of the step (event-driven: the time reached).
        time: f64,
        /// The step index (1 for the first step; 0 in event-driven runs).
        step: usize,
        /// The first non-finite value found.
        what: NonFiniteValue,
    },
}

/// Where a running simulation found a non-finite value ([`KernelError::NonFiniteState`]): the
/// systems are checked first, in index order, then the interactions of the step's one-step
/// problems, in the problems' order; the first non-finite component is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NonFiniteValue {
    /// A component of a dynamical system's state.
    System {
        /// The system's index ([`DsId::index`](crate::model::DsId::index)).
        ds: usize,
        /// The vector that holds the value.
        quantity: StateQuantity,
        /// The index of the component in that vector.
        component: usize,
    },
    /// A component of an interaction's multiplier `λ[level]`.
    Multiplier {
        /// The interaction's index ([`InteractionId::index`](crate::model::InteractionId::index)).
        interaction: usize,
        /// The level of the multiplier (0: position, 1: velocity or impulse, 2: acceleration).
        level: usize,
        /// The index of the component in `λ[level]`.
        component: usize,
    },
}

/// A vector of a dynamical system's state ([`NonFiniteValue::System`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateQuantity {
    /// The positions `q` of a second-order system.
    Position,
    /// The velocities `v` of a second-order system.
    Velocity,
    /// The state `x` of a first-order system.
    State,
    /// The free state of a system: what its integrator predicts without the interactions'
    /// inputs (`v_free` of Moreau–Jean, `q_free` of Schatzman–Paoli, the partial state `x_p`
    /// of Euler–Moreau). Read when a step fails before updating the state, e.g. when its
    /// one-step problem refuses non-finite data.
    FreeState,
}

impl StateQuantity {
    /// How messages name the vector: `q`, `v`, `x` or `the free state`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Position => "q",
            Self::Velocity => "v",
            Self::State => "x",
            Self::FreeState => "the free state",
        }
    }
}

impl std::fmt::Display for NonFiniteValue {
    fn fmt(&self, fm: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::System { ds, quantity, component } => {
                write!(fm, "component {component} of {} of system {ds}", quantity.name())
            }
            Self::Multiplier { interaction, level, component } => {
                write!(fm, "component {component} of lambda[{level}] of interaction {interaction}")
            }
        }
    }
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
    /// The iteration matrix `P = I − h·l₀·J` of a stiff (BDF) integrator stayed singular
    /// through every step-size reduction.
    SingularIterationMatrix,
}

impl std::fmt::Display for OdeFailureReason {
    fn fmt(&self, fm: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fm.write_str(match self {
            Self::StepSizeUnderflow => "step size underflow",
            Self::MaxSteps => "maximum number of steps reached",
            Self::NonFiniteDerivative => "the right-hand side is not finite",
            Self::SingularIterationMatrix => "the iteration matrix I - h l0 J is singular",
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
