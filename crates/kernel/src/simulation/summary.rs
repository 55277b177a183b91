//! What a whole run did about convergence: how many steps ended above a tolerance and the
//! worst of them ([`RunSummary`]), kept by [`TimeStepping`](super::TimeStepping) step after
//! step and printed in one line by its `Display`.

use std::fmt;

use nonsmooth_numerics::SolverReport;

/// A step that ended above a tolerance: where and how far.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Miss {
    /// Index of the step (1 for the first).
    pub step: usize,
    /// Time at the end of the step.
    pub time: f64,
    /// The residual the step ended with (the one-step problem's `compute_error`, or the
    /// Newton residual `max_DS ‖R‖₂`).
    pub residual: f64,
}

/// Convergence of a run: the steps done, those whose one-step problem, Newton loop or
/// projection stopped above its tolerance (which the non-convergence policy let go on), and
/// the worst residual of each kind with the step and the time it occurred at.
///
/// Its `Display` is one line, e.g. `1000 steps; 3 stopped above the tolerance 1e-4, worst
/// error 2.3e-4 at t = 0.614 s (step 614)` or `1000 steps, all converged to 1e-4`. The
/// one-step problems' tolerance belongs to their solvers, which the time-stepping does not
/// read: give it with [`RunSummary::with_tolerance`] to have it printed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct RunSummary {
    /// Steps recorded.
    pub steps: usize,
    /// Steps that ended above a tolerance (one-step problem, Newton loop or projection).
    pub unconverged: usize,
    /// Steps whose one-step problem stopped unconverged.
    pub problem_misses: usize,
    /// The one of them with the largest residual (the first on ties).
    pub worst_problem: Option<Miss>,
    /// Steps whose Newton loop stopped at its iteration cap above the Newton tolerance.
    pub newton_misses: usize,
    /// The one of them with the largest Newton residual (the first on ties).
    pub worst_newton: Option<Miss>,
    /// Steps whose projection onto the constraints did not converge (projection schemes).
    pub projection_misses: usize,
    /// The one-step problems' solver tolerance, when given, for the display.
    pub tolerance: Option<f64>,
    /// The Newton tolerance, when given, for the display.
    pub newton_tolerance: Option<f64>,
}

impl RunSummary {
    /// An empty summary (no step).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the one-step problems' solver tolerance shown by the display.
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = Some(tolerance);
        self
    }

    /// Sets the Newton tolerance shown by the display.
    pub fn with_newton_tolerance(mut self, tolerance: f64) -> Self {
        self.newton_tolerance = Some(tolerance);
        self
    }

    /// Whether every recorded step converged.
    pub fn all_converged(&self) -> bool {
        self.unconverged == 0
    }

    /// Adds one step numbered `step` ending at `time`: the report of its unconverged one-step
    /// problem (the worst when several were), the residual of its unconverged Newton loop,
    /// whether its projection failed.
    pub(crate) fn record(
        &mut self,
        step: usize,
        time: f64,
        problem: Option<SolverReport>,
        newton: Option<f64>,
        projection: bool,
    ) {
        self.steps += 1;
        if problem.is_some() || newton.is_some() || projection {
            self.unconverged += 1;
        }
        if let Some(report) = problem {
            self.problem_misses += 1;
            keep_worst(&mut self.worst_problem, Miss { step, time, residual: report.residual });
        }
        if let Some(residual) = newton {
            self.newton_misses += 1;
            keep_worst(&mut self.worst_newton, Miss { step, time, residual });
        }
        if projection {
            self.projection_misses += 1;
        }
    }
}

/// Replaces `worst` by `miss` when `miss` has the larger residual (a NaN is the largest).
fn keep_worst(worst: &mut Option<Miss>, miss: Miss) {
    let larger = match worst {
        None => true,
        Some(w) => !w.residual.is_nan() && (miss.residual.is_nan() || miss.residual > w.residual),
    };
    if larger {
        *worst = Some(miss);
    }
}

/// A time with at most six decimals, without trailing zeros (`0.614`, `1`).
struct Time(f64);

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{:.6}", self.0);
        let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
        f.write_str(text)
    }
}

impl fmt::Display for RunSummary {
    /// One line: the steps, then either `all converged` (`to` the tolerance when given) or,
    /// for each kind of miss, how many steps and the worst residual with its time and step.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} step{}", self.steps, if self.steps == 1 { "" } else { "s" })?;
        if self.all_converged() {
            f.write_str(", all converged")?;
            if let Some(tolerance) = self.tolerance {
                write!(f, " to {tolerance:e}")?;
            }
            return Ok(());
        }
        let tolerance = |f: &mut fmt::Formatter<'_>, t: Option<f64>, fallback: &str| match t {
            Some(t) => write!(f, "the tolerance {t:e}"),
            None => f.write_str(fallback),
        };
        if self.problem_misses > 0 {
            write!(f, "; {} stopped above ", self.problem_misses)?;
            tolerance(f, self.tolerance, "the solver's tolerance")?;
            if let Some(w) = self.worst_problem {
                write!(f, ", worst error {:.1e} at t = {} s (step {})", w.residual, Time(w.time), w.step)?;
            }
        }
        if self.newton_misses > 0 {
            write!(f, "; {} Newton loop{} stopped above ", self.newton_misses, plural(self.newton_misses))?;
            tolerance(f, self.newton_tolerance, "the Newton tolerance")?;
            if let Some(w) = self.worst_newton {
                write!(f, ", worst residual {:.1e} at t = {} s (step {})", w.residual, Time(w.time), w.step)?;
            }
        }
        if self.projection_misses > 0 {
            write!(f, "; {} projection{} did not converge", self.projection_misses, plural(self.projection_misses))?;
        }
        Ok(())
    }
}

/// `"s"` unless `n` is 1.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use nonsmooth_numerics::SolverStatus;

    use super::*;

    fn report(status: SolverStatus, residual: f64) -> SolverReport {
        SolverReport::new(status, 10, residual)
    }

    #[test]
    fn an_all_converged_run_says_so() {
        let mut summary = RunSummary::new().with_tolerance(1e-4);
        for k in 1..=1000 {
            summary.record(k, k as f64 * 1e-3, None, None, false);
        }
        assert!(summary.all_converged());
        assert_eq!(summary.to_string(), "1000 steps, all converged to 1e-4");
        assert_eq!(RunSummary::new().to_string(), "0 steps, all converged");
    }

    #[test]
    fn a_step_above_the_tolerance_is_counted_with_the_worst_error_and_its_time() {
        let mut summary = RunSummary::new().with_tolerance(1e-4);
        for k in 1..=1000 {
            let t = k as f64 * 1e-3;
            let problem = match k {
                20 => Some(report(SolverStatus::MaxIterations, 1.5e-4)),
                614 => Some(report(SolverStatus::MaxIterations, 2.3e-4)),
                700 => Some(report(SolverStatus::MaxIterations, 2.3e-4)),
                _ => None,
            };
            summary.record(k, t, problem, None, false);
        }
        assert_eq!((summary.steps, summary.unconverged, summary.problem_misses), (1000, 3, 3));
        let worst = summary.worst_problem.expect("a miss");
        assert_eq!(worst.step, 614);
        assert_eq!(worst.residual.to_bits(), 2.3e-4f64.to_bits());
        assert_eq!(
            summary.to_string(),
            "1000 steps; 3 stopped above the tolerance 1e-4, worst error 2.3e-4 at t = 0.614 s (step 614)"
        );
    }

    #[test]
    fn newton_and_projection_misses_are_told_apart() {
        let mut summary = RunSummary::new().with_newton_tolerance(1e-10);
        summary.record(1, 0.5, None, Some(3e-9), false);
        summary.record(2, 1.0, Some(report(SolverStatus::MaxIterations, f64::NAN)), Some(1e-9), true);
        summary.record(3, 1.5, Some(report(SolverStatus::MaxIterations, 1.0)), None, false);
        assert_eq!((summary.unconverged, summary.newton_misses, summary.projection_misses), (3, 2, 1));
        assert_eq!(summary.worst_problem.map(|w| w.step), Some(2), "a NaN residual is the worst");
        assert_eq!(
            summary.to_string(),
            "3 steps; 2 stopped above the solver's tolerance, worst error NaN at t = 1 s (step 2); 2 Newton loops \
             stopped above the tolerance 1e-10, worst residual 3.0e-9 at t = 0.5 s (step 1); 1 projection did not \
             converge"
        );
    }
}
