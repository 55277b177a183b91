//! Run-time choice of an MLCP solver.

use super::{EnumOptions, EnumSolver, MlcpSolver, PgsOptions, PgsSolver, SchurLemkeOptions, SchurLemkeSolver};
use crate::NumericsError;

/// Chooses an MLCP solver at run time (replaces Siconos' `SICONOS_MLCP_*` ids and
/// iparam/dparam).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum MlcpMethod {
    /// Enumeration of the complementarity cases (`mlcp_enum`).
    Enum(EnumOptions),
    /// Projected Gauss–Seidel (`mlcp_pgs`).
    Pgs(PgsOptions),
    /// Reduction to an LCP by the Schur complement of `A`, solved by Lemke (`mlcp_lcp_lemke`).
    Lemke(SchurLemkeOptions),
}

impl MlcpMethod {
    /// The names accepted by [`MlcpMethod::from_name`].
    pub const NAMES: [&'static str; 3] = ["enum", "pgs", "lemke"];

    /// Builds the solver, validating its options.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when an option is out of range.
    pub fn build(self) -> Result<Box<dyn MlcpSolver + Send>, NumericsError> {
        Ok(match self {
            MlcpMethod::Enum(o) => Box::new(EnumSolver::new(o)?),
            MlcpMethod::Pgs(o) => Box::new(PgsSolver::new(o)?),
            MlcpMethod::Lemke(o) => Box::new(SchurLemkeSolver::new(o)?),
        })
    }

    /// The method named as the command-line tool spells it (`enum`, `pgs`, `lemke`), with
    /// default options and the given tolerance and iteration cap (cases, sweeps, pivots).
    /// An iteration cap of 0 is invalid for every method: `build` refuses it with
    /// [`NumericsError::InvalidOption`] naming `max_iterations`.
    pub fn from_name(name: &str, tolerance: Option<f64>, max_iterations: Option<usize>) -> Option<Self> {
        let mut method = match name {
            "enum" => MlcpMethod::Enum(EnumOptions::default()),
            "pgs" => MlcpMethod::Pgs(PgsOptions::default()),
            "lemke" => MlcpMethod::Lemke(SchurLemkeOptions::default()),
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
            MlcpMethod::Enum(o) => MlcpMethod::Enum(o.with_tolerance(tolerance)),
            MlcpMethod::Pgs(o) => MlcpMethod::Pgs(o.with_tolerance(tolerance)),
            MlcpMethod::Lemke(o) => MlcpMethod::Lemke(o.with_tolerance(tolerance)),
        }
    }

    /// Sets the iteration cap of the chosen method (cases, sweeps, Lemke pivots).
    pub fn with_max_iterations(self, max_iterations: usize) -> Self {
        match self {
            MlcpMethod::Enum(o) => MlcpMethod::Enum(o.with_max_iterations(max_iterations)),
            MlcpMethod::Pgs(o) => MlcpMethod::Pgs(o.with_max_iterations(max_iterations)),
            MlcpMethod::Lemke(o) => MlcpMethod::Lemke(o.with_max_iterations(max_iterations)),
        }
    }

    /// Sets the limit on the dense copy of a sparse MLCP (`8 (n + m)²` bytes), which every MLCP
    /// method makes.
    pub fn with_max_dense_bytes(self, max_dense_bytes: u64) -> Self {
        match self {
            MlcpMethod::Enum(o) => MlcpMethod::Enum(o.with_max_dense_bytes(max_dense_bytes)),
            MlcpMethod::Pgs(o) => MlcpMethod::Pgs(o.with_max_dense_bytes(max_dense_bytes)),
            MlcpMethod::Lemke(mut o) => {
                o.lemke = o.lemke.with_max_dense_bytes(max_dense_bytes);
                MlcpMethod::Lemke(o)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_refuses_a_zero_iteration_cap() {
        for name in MlcpMethod::NAMES {
            let method = MlcpMethod::from_name(name, None, Some(0)).expect("a listed name");
            let err = method.build().map(|s| s.name()).expect_err("0 iterations is invalid");
            assert!(matches!(err, NumericsError::InvalidOption { name: "max_iterations", .. }), "{name}: {err}");
            MlcpMethod::from_name(name, None, Some(1)).expect("a listed name").build().expect("1 is valid");
        }
    }
}
