//! The report every solver returns.

/// How a solver stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SolverStatus {
    /// The residual of the problem's `compute_error` is at or below the tolerance.
    Converged,
    /// The iteration cap was reached before the tolerance.
    MaxIterations,
    /// Lemke's method ended on a secondary ray: no solution was found from this start.
    RayTermination,
    /// The iterates stopped improving (line search failure, zero step).
    Stalled,
    /// A division by a (near) zero pivot or a non-finite iterate.
    NumericalBreakdown,
}

impl SolverStatus {
    /// A short lowercase name (`converged`, `max-iterations`, ...), used by the command-line tool.
    pub fn as_str(&self) -> &'static str {
        match self {
            SolverStatus::Converged => "converged",
            SolverStatus::MaxIterations => "max-iterations",
            SolverStatus::RayTermination => "ray-termination",
            SolverStatus::Stalled => "stalled",
            SolverStatus::NumericalBreakdown => "numerical-breakdown",
        }
    }
}

impl std::fmt::Display for SolverStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a solver reports: status, iterations done and the residual measured by the problem's
/// single `compute_error` (so reports of different solvers compare, as in Siconos).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SolverReport {
    /// How the solver stopped.
    pub status: SolverStatus,
    /// Iterations (pivots for Lemke, sweeps for Gauss–Seidel, Newton steps, enumerated cases).
    pub iterations: usize,
    /// The problem's `compute_error` at the returned point.
    pub residual: f64,
}

impl SolverReport {
    /// Builds a report.
    pub fn new(status: SolverStatus, iterations: usize, residual: f64) -> Self {
        Self { status, iterations, residual }
    }

    /// `true` when the status is [`SolverStatus::Converged`].
    pub fn is_converged(&self) -> bool {
        self.status == SolverStatus::Converged
    }
}
