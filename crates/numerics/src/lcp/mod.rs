//! Linear complementarity problems `w = M z + q, 0 ≤ z ⊥ w ≥ 0` and their solvers.
//!
//! Solvers (the Siconos kernel documentation, "Non smooth solvers"; Siconos
//! `numerics/src/LCP`):
//! - [`LemkeSolver`]: lexicographic Lemke pivoting (Siconos `lcp_lexicolemke`);
//! - [`PgsSolver`]: projected Gauss–Seidel with relaxation, i.e. PGS/NLGS and PSOR (`lcp_pgs`, `lcp_psor`);
//! - [`EnumSolver`]: enumeration of the complementary index sets, for small `n` (`lcp_enum`);
//! - [`NewtonSolver`]: semismooth Newton on the Fischer–Burmeister or the min function, with a
//!   line search (`lcp_newton_FB`, `lcp_newton_min`);
//! - [`BppSolver`]: block principal pivoting (Júdice & Pires 1994) with sparse factorizations,
//!   for large sparse SPD problems warm started from the previous active set (no Siconos
//!   counterpart).
//!
//! Every solver measures its residual with [`LcpProblem::compute_error`].

#![allow(non_snake_case)]

mod bpp;
mod enumerative;
mod lemke;
mod newton;
mod pgs;
mod problem;

pub use bpp::{BppOptions, BppSolver};
pub use enumerative::{EnumOptions, EnumSolver};
pub use lemke::{LemkeOptions, LemkeSolver};
pub use newton::{NewtonFunction, NewtonOptions, NewtonSolver};
pub use pgs::{PgsOptions, PgsSolver};
pub use problem::LcpProblem;

use crate::{NumericsError, SolverReport};

/// A solver of linear complementarity problems.
pub trait LcpSolver {
    /// Solves `problem`. `z` is the warm start on entry (solvers that cannot use one ignore it)
    /// and the solution on exit; `w` is overwritten with `M z + q`.
    ///
    /// The report's residual is [`LcpProblem::compute_error`] at the returned `z`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `z` or `w` do not have length `n`;
    /// [`NumericsError::UnsupportedStorage`] when the solver cannot use the problem's matrix
    /// storage. Non-convergence is a status of the report, not an error.
    fn solve(&mut self, problem: &LcpProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError>;

    /// The solver's name as the command-line tool spells it (`lemke`, `pgs`, ...).
    fn name(&self) -> &'static str;
}

/// Chooses an LCP solver at run time (replaces Siconos' `SICONOS_LCP_*` ids and iparam/dparam).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum LcpMethod {
    /// Lexicographic Lemke.
    Lemke(LemkeOptions),
    /// Projected Gauss–Seidel (relaxation 1) or PSOR (relaxation ≠ 1).
    Pgs(PgsOptions),
    /// Enumeration of the complementary index sets.
    Enum(EnumOptions),
    /// Semismooth Newton (Fischer–Burmeister or min function) with line search.
    Newton(NewtonOptions),
    /// Block principal pivoting (Júdice & Pires) with Murty's fall-back.
    Bpp(BppOptions),
}

impl LcpMethod {
    /// Builds the solver, validating its options.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when an option is out of range.
    pub fn build(self) -> Result<Box<dyn LcpSolver + Send>, NumericsError> {
        Ok(match self {
            LcpMethod::Lemke(o) => Box::new(LemkeSolver::new(o)?),
            LcpMethod::Pgs(o) => Box::new(PgsSolver::new(o)?),
            LcpMethod::Enum(o) => Box::new(EnumSolver::new(o)?),
            LcpMethod::Newton(o) => Box::new(NewtonSolver::new(o)?),
            LcpMethod::Bpp(o) => Box::new(BppSolver::new(o)?),
        })
    }

    /// The method named as the command-line tool spells it, with default options and the
    /// given tolerance and iteration cap (where the method has them):
    /// `lemke`, `pgs`, `psor`, `enum`, `newton-fb`, `newton-min`, `bpp`.
    /// An iteration cap of 0 is invalid for every method: `build` refuses it with
    /// [`NumericsError::InvalidOption`] naming `max_iterations`.
    pub fn from_name(name: &str, tolerance: Option<f64>, max_iterations: Option<usize>) -> Option<Self> {
        let mut method = match name {
            "lemke" => LcpMethod::Lemke(LemkeOptions::default()),
            "pgs" => LcpMethod::Pgs(PgsOptions::default()),
            "psor" => LcpMethod::Pgs(PgsOptions::psor()),
            "enum" => LcpMethod::Enum(EnumOptions::default()),
            "newton-fb" => LcpMethod::Newton(NewtonOptions::default()),
            "newton-min" => LcpMethod::Newton(NewtonOptions::default().with_function(NewtonFunction::Min)),
            "bpp" => LcpMethod::Bpp(BppOptions::default()),
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

    /// The names accepted by [`LcpMethod::from_name`].
    pub const NAMES: [&'static str; 7] = ["lemke", "pgs", "psor", "enum", "newton-fb", "newton-min", "bpp"];

    /// Sets the tolerance of the chosen method.
    pub fn with_tolerance(self, tolerance: f64) -> Self {
        match self {
            LcpMethod::Lemke(o) => LcpMethod::Lemke(o.with_tolerance(tolerance)),
            LcpMethod::Pgs(o) => LcpMethod::Pgs(o.with_tolerance(tolerance)),
            LcpMethod::Enum(o) => LcpMethod::Enum(o.with_tolerance(tolerance)),
            LcpMethod::Newton(o) => LcpMethod::Newton(o.with_tolerance(tolerance)),
            LcpMethod::Bpp(o) => LcpMethod::Bpp(o.with_tolerance(tolerance)),
        }
    }

    /// Sets the limit on dense copies of a sparse `M` of the methods that make one (Lemke and the
    /// enumeration; see [`LemkeOptions::max_dense_bytes`]); the other methods are unchanged.
    pub fn with_max_dense_bytes(self, max_dense_bytes: u64) -> Self {
        match self {
            LcpMethod::Lemke(o) => LcpMethod::Lemke(o.with_max_dense_bytes(max_dense_bytes)),
            LcpMethod::Enum(o) => LcpMethod::Enum(o.with_max_dense_bytes(max_dense_bytes)),
            other => other,
        }
    }

    /// Sets the iteration cap of the chosen method (pivots, sweeps, enumerated cases, Newton steps).
    pub fn with_max_iterations(self, max_iterations: usize) -> Self {
        match self {
            LcpMethod::Lemke(o) => LcpMethod::Lemke(o.with_max_iterations(max_iterations)),
            LcpMethod::Pgs(o) => LcpMethod::Pgs(o.with_max_iterations(max_iterations)),
            LcpMethod::Enum(o) => LcpMethod::Enum(o.with_max_iterations(max_iterations)),
            LcpMethod::Newton(o) => LcpMethod::Newton(o.with_max_iterations(max_iterations)),
            LcpMethod::Bpp(o) => LcpMethod::Bpp(o.with_max_iterations(max_iterations)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_refuses_a_zero_iteration_cap() {
        for name in LcpMethod::NAMES {
            let method = LcpMethod::from_name(name, None, Some(0)).expect("a listed name");
            let err = method.build().map(|s| s.name()).expect_err("0 iterations is invalid");
            assert!(matches!(err, NumericsError::InvalidOption { name: "max_iterations", .. }), "{name}: {err}");
            LcpMethod::from_name(name, None, Some(1)).expect("a listed name").build().expect("1 is valid");
        }
    }
}
