//! Choosing an FC3D solver at run time (replaces Siconos' `SICONOS_FRICTION_3D_*` solver ids and
//! their iparam/dparam arrays), and the trait every FC3D solver implements.

use super::Fc3dProblem;
use super::nsgs::{NsgsLocalSolver, NsgsOptions, NsgsSolver};
use super::nsn_ac::{NsnAcOptions, NsnAcSolver};
use super::prox::{ProxOptions, ProxSolver};
use crate::{NumericsError, SolverReport};

/// A solver of local 3D frictional contact problems `u = W r + q`, `K_μ ∋ r_c ⊥ û_c ∈ K_μ*`.
pub trait Fc3dSolver {
    /// Solves `problem`: `r` is the warm start on entry and the reactions on exit; `u` is
    /// overwritten with `W r + q`. The report's residual is [`Fc3dProblem::compute_error`] at the
    /// returned `r` (Siconos' `fc3d_compute_error`).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `3·nc`,
    /// [`NumericsError::NonFinite`] for a non-finite warm start. Non-convergence is a status of
    /// the report, not an error.
    fn solve(&mut self, problem: &Fc3dProblem, r: &mut [f64], u: &mut [f64]) -> Result<SolverReport, NumericsError>;

    /// The solver's name as the command-line tool spells it (`nsgs`, `nsn-ac`, ...).
    fn name(&self) -> &'static str;
}

impl Fc3dSolver for NsgsSolver {
    fn solve(&mut self, problem: &Fc3dProblem, r: &mut [f64], u: &mut [f64]) -> Result<SolverReport, NumericsError> {
        NsgsSolver::solve(self, problem, r, u)
    }

    fn name(&self) -> &'static str {
        match self.options().local_solver {
            NsgsLocalSolver::AlartCurnier => "nsgs",
            NsgsLocalSolver::Projection => "nsgs-projection",
            NsgsLocalSolver::Quartic => "nsgs-quartic",
        }
    }
}

impl Fc3dSolver for NsnAcSolver {
    fn solve(&mut self, problem: &Fc3dProblem, r: &mut [f64], u: &mut [f64]) -> Result<SolverReport, NumericsError> {
        NsnAcSolver::solve(self, problem, r, u)
    }

    fn name(&self) -> &'static str {
        "nsn-ac"
    }
}

impl Fc3dSolver for ProxSolver {
    fn solve(&mut self, problem: &Fc3dProblem, r: &mut [f64], u: &mut [f64]) -> Result<SolverReport, NumericsError> {
        ProxSolver::solve(self, problem, r, u)
    }

    fn name(&self) -> &'static str {
        "prox"
    }
}

/// Chooses an FC3D solver at run time.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Fc3dMethod {
    /// Nonsmooth Gauss–Seidel over the contacts with a one-contact solver.
    Nsgs(NsgsOptions),
    /// Nonsmooth Newton on the Alart–Curnier function (Siconos NSN_AC, 504).
    NsnAc(NsnAcOptions),
    /// Proximal point iterations with NSN-AC inside (Siconos PROX, 502).
    Prox(ProxOptions),
}

impl Fc3dMethod {
    /// The names accepted by [`Fc3dMethod::from_name`].
    pub const NAMES: [&'static str; 5] = ["nsgs", "nsgs-projection", "nsgs-quartic", "nsn-ac", "prox"];

    /// Builds the solver, validating its options.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when an option is out of range.
    pub fn build(self) -> Result<Box<dyn Fc3dSolver + Send>, NumericsError> {
        Ok(match self {
            Fc3dMethod::Nsgs(o) => Box::new(NsgsSolver::new(o)?),
            Fc3dMethod::NsnAc(o) => Box::new(NsnAcSolver::new(o)?),
            Fc3dMethod::Prox(o) => Box::new(ProxSolver::new(o)?),
        })
    }

    /// The method named as the command-line tool spells it, with default options and the given
    /// tolerance and iteration cap: `nsgs` (Alart–Curnier local solver), `nsgs-projection`,
    /// `nsgs-quartic` (exact one-contact solver).
    pub fn from_name(name: &str, tolerance: Option<f64>, max_iterations: Option<usize>) -> Option<Self> {
        let mut method = match name {
            "nsgs" => Fc3dMethod::Nsgs(NsgsOptions::default()),
            "nsgs-projection" => {
                Fc3dMethod::Nsgs(NsgsOptions::default().with_local_solver(NsgsLocalSolver::Projection))
            }
            "nsgs-quartic" => Fc3dMethod::Nsgs(NsgsOptions::default().with_local_solver(NsgsLocalSolver::Quartic)),
            "nsn-ac" => Fc3dMethod::NsnAc(NsnAcOptions::default()),
            "prox" => Fc3dMethod::Prox(ProxOptions::default()),
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
            Fc3dMethod::Nsgs(o) => Fc3dMethod::Nsgs(o.with_tolerance(tolerance)),
            Fc3dMethod::NsnAc(o) => Fc3dMethod::NsnAc(o.with_tolerance(tolerance)),
            Fc3dMethod::Prox(o) => Fc3dMethod::Prox(o.with_tolerance(tolerance)),
        }
    }

    /// Sets the iteration cap of the chosen method (sweeps, Newton steps, proximal steps).
    pub fn with_max_iterations(self, max_iterations: usize) -> Self {
        match self {
            Fc3dMethod::Nsgs(o) => Fc3dMethod::Nsgs(o.with_max_iterations(max_iterations)),
            Fc3dMethod::NsnAc(o) => Fc3dMethod::NsnAc(o.with_max_iterations(max_iterations)),
            Fc3dMethod::Prox(o) => Fc3dMethod::Prox(o.with_max_iterations(max_iterations)),
        }
    }
}
