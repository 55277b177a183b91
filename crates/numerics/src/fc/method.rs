//! Choosing an FC3D or FC2D solver at run time (replaces Siconos' `SICONOS_FRICTION_3D_*` and
//! `SICONOS_FRICTION_2D_*` solver ids and their iparam/dparam arrays), and the trait every
//! solver of each family implements ([`Fc3dSolver`], [`Fc2dSolver`]).

use super::fc2d_lcp::{Fc2dLemkeOptions, Fc2dLemkeSolver};
use super::nsgs::{NsgsLocalSolver, NsgsOptions, NsgsSolver};
use super::nsgs2d::{Nsgs2dOptions, Nsgs2dSolver};
use super::nsn_ac::{NsnAcOptions, NsnAcSolver};
use super::prox::{ProxOptions, ProxSolver};
use super::{Fc2dNsgsDenseOptions, Fc2dNsgsDenseSolver, Fc2dProblem, Fc3dProblem};
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
    /// `nsgs-quartic` (exact one-contact solver), `nsn-ac`, `prox`.
    /// An iteration cap of 0 is invalid for every method: `build` refuses it with
    /// [`NumericsError::InvalidOption`] naming `max_iterations`.
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

    /// The tolerance of the chosen method, on Siconos' FC3D error (the error measure of
    /// Siconos' `fc3d_compute_error`).
    pub fn tolerance(&self) -> f64 {
        match self {
            Fc3dMethod::Nsgs(o) => o.tolerance,
            Fc3dMethod::NsnAc(o) => o.tolerance,
            Fc3dMethod::Prox(o) => o.tolerance,
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

/// A solver of local 2D frictional contact problems `u = W r + q`, `|r_T| ≤ μ r_N` per contact
/// with Coulomb's law (Siconos' `FrictionContactProblem` of dimension 2).
pub trait Fc2dSolver {
    /// Solves `problem`: `r` is the warm start on entry (solvers that start from zero say so)
    /// and the reactions on exit; `u` holds the velocities on exit (`W r + q`, except for
    /// [`Fc2dNsgsDenseSolver`], which leaves Siconos' last local velocities). The report's
    /// residual is the solver's stopping measure, [`super::Fc2dProblem::compute_error`] (Siconos'
    /// `fc2d_compute_error`) except for [`Fc2dNsgsDenseSolver`] (Siconos' own `normr`).
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `2·nc`,
    /// [`NumericsError::NonFinite`] for a non-finite warm start,
    /// [`NumericsError::DenseTooLarge`] when a dense reformulation exceeds its limit.
    /// Non-convergence is a status of the report, not an error.
    fn solve(&mut self, problem: &Fc2dProblem, r: &mut [f64], u: &mut [f64]) -> Result<SolverReport, NumericsError>;

    /// The solver's name as the command-line tool spells it (`nsgs`, `nsgs-dense`, `lemke`).
    fn name(&self) -> &'static str;
}

impl Fc2dSolver for Nsgs2dSolver {
    fn solve(&mut self, problem: &Fc2dProblem, r: &mut [f64], u: &mut [f64]) -> Result<SolverReport, NumericsError> {
        Nsgs2dSolver::solve(self, problem, r, u)
    }

    fn name(&self) -> &'static str {
        "nsgs"
    }
}

impl Fc2dSolver for Fc2dNsgsDenseSolver {
    fn solve(&mut self, problem: &Fc2dProblem, r: &mut [f64], u: &mut [f64]) -> Result<SolverReport, NumericsError> {
        Fc2dNsgsDenseSolver::solve(self, problem, r, u)
    }

    fn name(&self) -> &'static str {
        "nsgs-dense"
    }
}

impl Fc2dSolver for Fc2dLemkeSolver {
    fn solve(&mut self, problem: &Fc2dProblem, r: &mut [f64], u: &mut [f64]) -> Result<SolverReport, NumericsError> {
        Fc2dLemkeSolver::solve(self, problem, r, u)
    }

    fn name(&self) -> &'static str {
        "lemke"
    }
}

/// Chooses an FC2D solver at run time (replaces Siconos' `SICONOS_FRICTION_2D_*` solver ids and
/// their iparam/dparam arrays).
///
/// The default is NSGS ([`Fc2dMethod::Nsgs`]): it reads the sparse `W` as it is stored, so its
/// memory is linear in the number of contacts. Lemke on the LCP reformulation (Acary &
/// Brogliato 2008; Siconos `fc2d_lexicolemke`) is exact but dense and quadratic in
/// memory, bounded by [`Fc2dLemkeOptions::with_max_dense_bytes`].
///
/// # Examples
/// ```
/// use nonsmooth_numerics::fc::{Fc2dMethod, Fc2dProblem};
/// use nonsmooth_numerics::matrix::NumericsMatrix;
///
/// // One contact, W = I, q = (−1, 0.2), μ = 0.5: sticking, r = (1, −0.2).
/// let w = nonsmooth_numerics::faer::mat![[1.0, 0.0], [0.0, 1.0]];
/// let problem = Fc2dProblem::new(NumericsMatrix::Dense(w), vec![-1.0, 0.2], vec![0.5])?;
/// let mut solver = Fc2dMethod::from_name("lemke", Some(1e-12), None).expect("a known name").build()?;
/// let (mut r, mut u) = (vec![0.0; 2], vec![0.0; 2]);
/// let report = solver.solve(&problem, &mut r, &mut u)?;
/// assert!(report.is_converged());
/// assert!((r[0] - 1.0).abs() < 1e-12 && (r[1] + 0.2).abs() < 1e-12);
/// # Ok::<(), nonsmooth_numerics::NumericsError>(())
/// ```
///
/// # References
/// V. Acary, B. Brogliato, *Numerical Methods for Nonsmooth Dynamical Systems*, Springer 2008
/// (the LCP formulation of the 2D Coulomb law, NSGS); the Siconos numerics documentation,
/// "Friction-contact problems (2D or 3D)".
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Fc2dMethod {
    /// Nonsmooth Gauss–Seidel over the contacts, each solved exactly (Siconos `fc2d_nsgs`),
    /// warm started, on any storage of `W`.
    Nsgs(Nsgs2dOptions),
    /// Siconos 4.4's `fc2d_nsgs_dense` reproduced operation by operation (from zero, Siconos'
    /// own stopping residual): the solver of the Siconos kernel's `FrictionContact(2)`.
    NsgsDense(Fc2dNsgsDenseOptions),
    /// Lexicographic Lemke on the `3nc` LCP reformulation (Siconos `fc2d_lexicolemke`), dense.
    Lemke(Fc2dLemkeOptions),
}

impl Default for Fc2dMethod {
    /// NSGS with its default options.
    fn default() -> Self {
        Fc2dMethod::Nsgs(Nsgs2dOptions::default())
    }
}

impl Fc2dMethod {
    /// The names accepted by [`Fc2dMethod::from_name`].
    pub const NAMES: [&'static str; 3] = ["nsgs", "nsgs-dense", "lemke"];

    /// The name of the default method, [`Fc2dMethod::default`].
    pub const DEFAULT_NAME: &'static str = "nsgs";

    /// Builds the solver, validating its options.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when an option is out of range.
    pub fn build(self) -> Result<Box<dyn Fc2dSolver + Send>, NumericsError> {
        Ok(match self {
            Fc2dMethod::Nsgs(o) => Box::new(Nsgs2dSolver::new(o)?),
            Fc2dMethod::NsgsDense(o) => Box::new(Fc2dNsgsDenseSolver::new(o)?),
            Fc2dMethod::Lemke(o) => Box::new(Fc2dLemkeSolver::new(o)?),
        })
    }

    /// The method named as the command-line tool spells it, with default options and the given
    /// tolerance and iteration cap (sweeps; pivots for `lemke`): `nsgs`, `nsgs-dense`, `lemke`.
    /// An iteration cap of 0 is invalid for every method: `build` refuses it with
    /// [`NumericsError::InvalidOption`] naming `max_iterations`.
    pub fn from_name(name: &str, tolerance: Option<f64>, max_iterations: Option<usize>) -> Option<Self> {
        let mut method = match name {
            "nsgs" => Fc2dMethod::Nsgs(Nsgs2dOptions::default()),
            "nsgs-dense" => Fc2dMethod::NsgsDense(Fc2dNsgsDenseOptions::default()),
            "lemke" => Fc2dMethod::Lemke(Fc2dLemkeOptions::default()),
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

    /// The method's name, as [`Fc2dMethod::from_name`] reads it.
    pub fn name(&self) -> &'static str {
        match self {
            Fc2dMethod::Nsgs(_) => "nsgs",
            Fc2dMethod::NsgsDense(_) => "nsgs-dense",
            Fc2dMethod::Lemke(_) => "lemke",
        }
    }

    /// Sets the tolerance of the chosen method.
    pub fn with_tolerance(self, tolerance: f64) -> Self {
        match self {
            Fc2dMethod::Nsgs(o) => Fc2dMethod::Nsgs(o.with_tolerance(tolerance)),
            Fc2dMethod::NsgsDense(o) => Fc2dMethod::NsgsDense(o.with_tolerance(tolerance)),
            Fc2dMethod::Lemke(o) => Fc2dMethod::Lemke(o.with_tolerance(tolerance)),
        }
    }

    /// Sets the iteration cap of the chosen method (sweeps; Lemke's pivots).
    pub fn with_max_iterations(self, max_iterations: usize) -> Self {
        match self {
            Fc2dMethod::Nsgs(o) => Fc2dMethod::Nsgs(o.with_max_iterations(max_iterations)),
            Fc2dMethod::NsgsDense(o) => Fc2dMethod::NsgsDense(o.with_max_iterations(max_iterations)),
            Fc2dMethod::Lemke(o) => {
                let lemke = o.lemke.clone().with_max_iterations(max_iterations);
                Fc2dMethod::Lemke(o.with_lemke(lemke))
            }
        }
    }

    /// Sets the limit on dense reformulations (Lemke's LCP, see
    /// [`Fc2dLemkeOptions::with_max_dense_bytes`]); the NSGS methods make none.
    pub fn with_max_dense_bytes(self, max_dense_bytes: u64) -> Self {
        match self {
            Fc2dMethod::Lemke(o) => Fc2dMethod::Lemke(o.with_max_dense_bytes(max_dense_bytes)),
            other => other,
        }
    }

    /// Whether the solver starts from the incoming `r` (NSGS) rather than from zero (the dense
    /// NSGS and Lemke, as in Siconos): a time-stepping simulation passes the previous step's
    /// reactions only then.
    pub fn uses_warm_start(&self) -> bool {
        matches!(self, Fc2dMethod::Nsgs(_))
    }

    /// Whether the solver works on a dense `W` (the dense NSGS, as Siconos' kernel assembles it,
    /// and Lemke, which densifies anyway): a simulation then assembles `W` dense, otherwise
    /// sparse-block.
    pub fn prefers_dense(&self) -> bool {
        !matches!(self, Fc2dMethod::Nsgs(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::NumericsMatrix;

    fn one_contact() -> Fc2dProblem {
        let w = faer::mat![[1.0, 0.0], [0.0, 1.0]];
        Fc2dProblem::new(NumericsMatrix::Dense(w), vec![-1.0, 0.2], vec![0.5]).expect("a valid problem")
    }

    #[test]
    fn fc2d_names_round_trip_and_default_is_nsgs() {
        for name in Fc2dMethod::NAMES {
            let method = Fc2dMethod::from_name(name, Some(1e-10), Some(50)).expect("a listed name");
            assert_eq!(method.name(), name);
            let mut solver = method.build().expect("valid options");
            assert_eq!(solver.name(), name);
            let (mut r, mut u) = (vec![0.0; 2], vec![0.0; 2]);
            let report = solver.solve(&one_contact(), &mut r, &mut u).expect("sizes agree");
            assert!(report.is_converged(), "{name}: {report:?}");
            assert!((r[0] - 1.0).abs() < 1e-9 && (r[1] + 0.2).abs() < 1e-9, "{name}: {r:?}");
        }
        assert!(Fc2dMethod::from_name("pgs", None, None).is_none());
        assert_eq!(Fc2dMethod::default().name(), Fc2dMethod::DEFAULT_NAME);
        assert!(Fc2dMethod::default().uses_warm_start() && !Fc2dMethod::default().prefers_dense());
    }

    #[test]
    fn fc2d_lemke_above_the_dense_limit_names_nsgs() {
        // The reformulation of one contact is 3 × 3: 72 bytes.
        let mut solver = Fc2dMethod::from_name("lemke", None, None)
            .expect("a listed name")
            .with_max_dense_bytes(71)
            .build()
            .expect("valid options");
        let (mut r, mut u) = (vec![0.0; 2], vec![0.0; 2]);
        match solver.solve(&one_contact(), &mut r, &mut u) {
            Err(NumericsError::DenseTooLarge { rows: 3, cols: 3, bytes: 72, limit: 71, alternative, .. }) => {
                assert!(alternative.contains("nsgs"), "{alternative}");
            }
            other => panic!("expected DenseTooLarge, got {other:?}"),
        }
        // NSGS makes no dense conversion: the limit does not apply.
        let mut nsgs = Fc2dMethod::default().with_max_dense_bytes(0).build().expect("valid options");
        assert!(nsgs.solve(&one_contact(), &mut r, &mut u).expect("sizes agree").is_converged());
    }

    #[test]
    fn every_method_refuses_a_zero_iteration_cap() {
        let is_cap_error = |e: &NumericsError| matches!(e, NumericsError::InvalidOption { name: "max_iterations", .. });
        for name in Fc3dMethod::NAMES {
            let method = Fc3dMethod::from_name(name, None, Some(0)).expect("a listed name");
            let err = method.build().map(|s| s.name()).expect_err("0 iterations is invalid");
            assert!(is_cap_error(&err), "fc3d {name}: {err}");
            Fc3dMethod::from_name(name, None, Some(1)).expect("a listed name").build().expect("1 is valid");
        }
        for name in Fc2dMethod::NAMES {
            let method = Fc2dMethod::from_name(name, None, Some(0)).expect("a listed name");
            let err = method.build().map(|s| s.name()).expect_err("0 iterations is invalid");
            assert!(is_cap_error(&err), "fc2d {name}: {err}");
            Fc2dMethod::from_name(name, None, Some(1)).expect("a listed name").build().expect("1 is valid");
        }
    }
}
