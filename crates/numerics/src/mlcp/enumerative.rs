//! Enumeration of the complementarity cases of an MLCP (Siconos `mlcp_enum`,
//! numerics/src/MLCP/mlcp_enum.c, and its case order, numerics/src/tools/enum_tool.c).

use super::dense::{DenseMlcp, Lu};
use super::{MlcpProblem, MlcpSolver};
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

/// Options of [`EnumSolver`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EnumOptions {
    /// Maximum number of cases tried (default: `1 << 20`, every case for `m ≤ 20`; Siconos'
    /// default is `10_000_000`).
    pub max_iterations: usize,
    /// Residual accepted as converged, measured by [`MlcpProblem::compute_error`]; also the
    /// sign tolerance of the acceptance test, `x ≥ −tolerance`, as in Siconos (default: `1e-10`).
    pub tolerance: f64,
    /// Largest dense copy of a sparse MLCP matrix (`8 (n + m)²` bytes) the solver makes; above
    /// it the solve is [`NumericsError::DenseTooLarge`] (default:
    /// [`crate::DEFAULT_MAX_DENSE_BYTES`], 1 GiB).
    pub max_dense_bytes: u64,
}

impl Default for EnumOptions {
    fn default() -> Self {
        Self { max_iterations: 1 << 20, tolerance: 1e-10, max_dense_bytes: crate::DEFAULT_MAX_DENSE_BYTES }
    }
}

impl EnumOptions {
    /// Sets [`EnumOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`EnumOptions::max_dense_bytes`].
    pub fn with_max_dense_bytes(mut self, max_dense_bytes: u64) -> Self {
        self.max_dense_bytes = max_dense_bytes;
        self
    }

    /// Sets [`EnumOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        Ok(())
    }
}

/// Enumerative MLCP solver (Siconos `mlcp_enum`).
///
/// Each complementarity pair `0 ≤ wᵢ ⊥ vᵢ ≥ 0` is either "`vᵢ` basic, `wᵢ = 0`" or
/// "`wᵢ` basic, `vᵢ = 0`". For a case, the `n + m` unknowns `x` (the equality unknowns `u`,
/// and per pair the basic one of `vᵢ`, `wᵢ`) solve the square system
///
/// `K x = −q`, where column `j` of `K` is column `j` of `M` for `u_j` and a basic `v_j`, and
/// `−e_j` for a basic `w_j` (from `M z + q − w = 0`, `w = 0` on the equality rows),
///
/// by LU with partial pivoting (a numerically singular `K` skips the case). The case is
/// accepted when every basic `vᵢ`, `wᵢ` is `≥ −tolerance` (Siconos' sign test) and the point's
/// [`MlcpProblem::compute_error`] is at or below the tolerance (Siconos accepts up to
/// `10 · tolerance`; we keep the report's rule "converged iff residual ≤ tolerance").
///
/// Case order (Siconos' `enum_next`): case `k = 0, 1, …`, bit `i` of `k` set meaning that `wᵢ`
/// is basic (`vᵢ = 0`) for the `i`-th complementarity unknown; case 0 has every `v` basic.
/// There are `2ᵐ` cases of `O((n + m)³)` each, capped by [`EnumOptions::max_iterations`];
/// the counter never overflows (beyond 64 complementarity unknowns the cap is reached first).
///
/// When the incoming `z` already has a residual at or below the tolerance it is returned with
/// 0 iterations; otherwise the start is ignored. `iterations` counts the cases tried (Siconos
/// does not report it). Status: [`SolverStatus::Converged`]; [`SolverStatus::MaxIterations`]
/// when the cap stopped the enumeration; [`SolverStatus::Stalled`] when all `2ᵐ` cases failed
/// (`z = 0` is then returned).
#[derive(Clone, Debug)]
#[doc(alias = "mlcp_enum")]
pub struct EnumSolver {
    options: EnumOptions,
    lu: Lu,
    rhs: Vec<f64>,
    scratch: Vec<f64>,
}

impl EnumSolver {
    /// Builds the solver, validating the options once.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] when `tolerance` is not positive or `max_iterations` is 0.
    pub fn new(options: EnumOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, lu: Lu::default(), rhs: Vec::new(), scratch: Vec::new() })
    }

    /// The options the solver was built with.
    pub fn options(&self) -> &EnumOptions {
        &self.options
    }
}

impl MlcpSolver for EnumSolver {
    fn solve(&mut self, problem: &MlcpProblem, z: &mut [f64], w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        problem.check_len("z", z.len())?;
        problem.check_len("w", w.len())?;
        let tolerance = self.options.tolerance;
        let residual = problem.compute_error(z, w)?;
        if residual <= tolerance {
            return Ok(SolverReport::new(SolverStatus::Converged, 0, residual));
        }
        let dense = DenseMlcp::new(problem, "the enumeration on a sparse MLCP", self.options.max_dense_bytes)?;
        let size = dense.size();
        let comp_index: Vec<usize> = (0..size).filter(|&j| dense.comp[j]).collect();
        let m = comp_index.len();
        // Whether `w_j` (rather than `v_j`) is basic, per unknown.
        let mut w_basic = vec![false; size];
        let mut iterations = 0;
        let mut status = SolverStatus::Stalled;
        let mut case: u64 = 0;
        loop {
            if iterations >= self.options.max_iterations {
                status = SolverStatus::MaxIterations;
                break;
            }
            iterations += 1;
            for (bit, &j) in comp_index.iter().enumerate() {
                w_basic[j] = bit < 64 && (case >> bit) & 1 == 1;
            }
            let column = |i: usize, j: usize| {
                if !w_basic[j] {
                    dense.mat[(i, j)]
                } else if i == j {
                    -1.0
                } else {
                    0.0
                }
            };
            if self.lu.factor(size, column) {
                self.rhs.clear();
                self.rhs.extend(dense.q.iter().map(|v| -v));
                self.lu.solve(&mut self.rhs, &mut self.scratch);
                let x = &self.rhs;
                let in_cone = comp_index.iter().all(|&j| x[j] >= -tolerance);
                if in_cone && x.iter().all(|v| v.is_finite()) {
                    for j in 0..size {
                        z[j] = if w_basic[j] { 0.0 } else { x[j] };
                    }
                    let residual = problem.compute_error(z, w)?;
                    if residual <= tolerance {
                        return Ok(SolverReport::new(SolverStatus::Converged, iterations, residual));
                    }
                }
            }
            // Next case; all 2^m done when the counter wraps past the last one.
            if m < 64 && case + 1 == 1u64 << m {
                break;
            }
            case += 1;
        }
        z.fill(0.0);
        let residual = problem.compute_error(z, w)?;
        let status = if residual <= tolerance { SolverStatus::Converged } else { status };
        Ok(SolverReport::new(status, iterations, residual))
    }

    fn name(&self) -> &'static str {
        "enum"
    }
}
