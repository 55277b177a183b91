//! The relay solver trait and the run-time choice of a relay method.

use super::{LemkeSolver, PgsOptions, PgsSolver, RelayProblem};
use crate::lcp::LemkeOptions;
use crate::{NumericsError, SolverReport};

/// A solver of relay problems.
pub trait RelaySolver {
    /// Solves `problem`. `z` is the warm start on entry (solvers that cannot use one ignore it)
    /// and the solution on exit; `w` is overwritten with `M z + q`.
    ///
    /// The report's residual is [`RelayProblem::compute_error`] at the returned `z`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `z` or `w` do not have length `n`;
    /// [`NumericsError::NonFinite`] when a used warm start is not finite. Non-convergence is a
    /// status of the report, not an error.
    fn solve(&mut self, problem: &RelayProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError>;

    /// The solver's name as the command-line tool spells it (`lemke`, `pgs`).
    fn name(&self) -> &'static str;
}

/// Chooses a relay solver at run time (replaces Siconos' `SICONOS_RELAY_*` ids and
/// iparam/dparam).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum RelayMethod {
    /// Lemke on the LCP reformulation (`SICONOS_RELAY_LEMKE`), see [`LemkeSolver`].
    Lemke(LemkeOptions),
    /// Projected Gauss–Seidel (`SICONOS_RELAY_PGS`), see [`PgsSolver`].
    Pgs(PgsOptions),
}

impl RelayMethod {
    /// The names accepted by [`RelayMethod::from_name`].
    pub const NAMES: [&'static str; 2] = ["lemke", "pgs"];

    /// Builds the solver, validating its options.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when an option is out of range.
    pub fn build(self) -> Result<Box<dyn RelaySolver + Send>, NumericsError> {
        Ok(match self {
            RelayMethod::Lemke(o) => Box::new(LemkeSolver::new(o)?),
            RelayMethod::Pgs(o) => Box::new(PgsSolver::new(o)?),
        })
    }

    /// The method named as the command-line tool spells it (`lemke`, `pgs`), with default
    /// options and the given tolerance and iteration cap (pivots for Lemke, sweeps for PGS).
    /// `None` for an unknown name.
    /// An iteration cap of 0 is invalid for every method: `build` refuses it with
    /// [`NumericsError::InvalidOption`] naming `max_iterations`.
    pub fn from_name(name: &str, tolerance: Option<f64>, max_iterations: Option<usize>) -> Option<Self> {
        let mut method = match name {
            "lemke" => RelayMethod::Lemke(LemkeOptions::default()),
            "pgs" => RelayMethod::Pgs(PgsOptions::default()),
            _ => return None,
        };
        if let Some(t) = tolerance {
            method = method.with_tolerance(t);
        }
        if let Some(k) = max_iterations {
            method = method.with_max_iterations(k);
        }
        Some(method)
    }

    /// Sets the tolerance of the chosen method.
    pub fn with_tolerance(self, tolerance: f64) -> Self {
        match self {
            RelayMethod::Lemke(o) => RelayMethod::Lemke(o.with_tolerance(tolerance)),
            RelayMethod::Pgs(o) => RelayMethod::Pgs(o.with_tolerance(tolerance)),
        }
    }

    /// Sets the iteration cap of the chosen method (pivots for Lemke, sweeps for PGS).
    pub fn with_max_iterations(self, max_iterations: usize) -> Self {
        match self {
            RelayMethod::Lemke(o) => RelayMethod::Lemke(o.with_max_iterations(max_iterations)),
            RelayMethod::Pgs(o) => RelayMethod::Pgs(o.with_max_iterations(max_iterations)),
        }
    }

    /// Sets the limit on the dense LCP reformulation of Lemke (`8 (2n)²` bytes, see
    /// [`crate::lcp::LemkeOptions::max_dense_bytes`]); PGS is unchanged.
    pub fn with_max_dense_bytes(self, max_dense_bytes: u64) -> Self {
        match self {
            RelayMethod::Lemke(o) => RelayMethod::Lemke(o.with_max_dense_bytes(max_dense_bytes)),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::NumericsMatrix;

    #[test]
    fn names_build_solvers_with_the_given_settings() {
        let p = RelayProblem::new(
            NumericsMatrix::Dense(faer::mat![[2.0, 1.0], [1.0, 2.0]]),
            vec![-5.0, 1.0],
            vec![-1.0; 2],
            vec![1.0; 2],
        )
        .expect("valid");
        for name in RelayMethod::NAMES {
            let method = RelayMethod::from_name(name, Some(1e-12), Some(100)).expect("known name");
            match &method {
                RelayMethod::Lemke(o) => assert!(o.max_iterations == 100 && (o.tolerance - 1e-12).abs() < 1e-25),
                RelayMethod::Pgs(o) => assert!(o.max_iterations == 100 && (o.tolerance - 1e-12).abs() < 1e-25),
            }
            let mut solver = method.build().expect("valid options");
            assert_eq!(solver.name(), name);
            let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
            let report = solver.solve(&p, &mut z, &mut w).expect("sizes agree");
            assert!(report.is_converged() && report.residual <= 1e-12, "{name}: {report:?}");
            assert!((z[0] - 1.0).abs() < 1e-11 && (z[1] + 1.0).abs() < 1e-11, "{name}: {z:?}");
        }
        assert!(RelayMethod::from_name("enum", None, None).is_none());
        assert!(matches!(
            RelayMethod::from_name("pgs", Some(-1.0), None).expect("known").build(),
            Err(NumericsError::InvalidOption { name: "tolerance", .. })
        ));
    }

    #[test]
    fn every_method_refuses_a_zero_iteration_cap() {
        for name in RelayMethod::NAMES {
            let method = RelayMethod::from_name(name, None, Some(0)).expect("a listed name");
            let err = method.build().map(|s| s.name()).expect_err("0 iterations is invalid");
            assert!(matches!(err, NumericsError::InvalidOption { name: "max_iterations", .. }), "{name}: {err}");
            RelayMethod::from_name(name, None, Some(1)).expect("a listed name").build().expect("1 is valid");
        }
    }
}
