//! Nonsmooth (semismooth) Newton method on the Alart–Curnier function of the whole FC3D problem
//! (Siconos `fc3d_nonsmooth_Newton_AlartCurnier`, solver id 504,
//! `numerics/src/FrictionContact/fc3d_nonsmooth_Newton_solvers.c` and
//! `fc3d_AlartCurnier_functions.c`). The function, its generalized Jacobian and the global
//! formulation: P. Alart, A. Curnier, "A mixed formulation for frictional contact problems prone
//! to Newton like solution methods", Comput. Methods Appl. Mech. Engrg. 92, 1991, and the Siconos
//! developer documentation, "Alart–Curnier Formulation".
//!
//! Integration tests: `tests/it/fc_nsn_ac.rs`.

#![allow(non_snake_case)]

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::lu::partial_pivoting::{factor as dense_lu, solve as dense_solve};
use faer::perm::PermRef;
use faer::sparse::linalg::lu::{LuSymbolicParams, NumericLu, SymbolicLu, factorize_symbolic_lu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, Mat, MatMut, Par};

use super::Fc3dProblem;
use super::compute_error::contact_error_squared;
use crate::matrix::{NumericsMatrix, SparseBlockMatrix, norm2};
use crate::options;
use crate::{NumericsError, SolverReport, SolverStatus};

#[cfg(test)]
mod tests;

/// How the Alart–Curnier parameter `ρ` is chosen for each contact.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum NsnRhoStrategy {
    /// `ρ_N = ρ_T = 1/λ_max(W_cc)`, one over the largest eigenvalue of the (symmetric part of
    /// the) diagonal block of the contact (Siconos' `compute_rho_spectral_norm`, the 4.4 default
    /// "rho strategy = spectral norm"). Siconos' `eig_3x3` returns `W_NN` instead of the largest
    /// eigenvalue when the block is exactly diagonal; we take the largest diagonal entry there
    /// (the true spectral norm). When `λ_max` is not positive and finite (a contact without
    /// mass coupling), `ρ = 1` (Siconos' default constant `ρ`).
    SpectralNorm,
    /// The same `ρ > 0` for every contact and component (Siconos' `RHO_STRATEGY_CONSTANT`,
    /// `dparam[SICONOS_FRICTION_3D_NSN_RHO]`).
    Constant(f64),
}

/// The line search on the merit function `ψ(r) = ½‖Φ(r)‖²` along the Newton direction `Δ`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NsnLineSearch {
    /// Siconos' Goldstein–Price search (`fc3d_nonsmooth_Newton_linesearch_GoldsteinPrice`):
    /// with `ψ'(0) = −‖Φ‖²` (the slope along an exact Newton direction), accept `t` when
    /// `m₂ ψ'(0) ≤ (ψ(r + tΔ) − ψ(r))/t ≤ m₁ ψ'(0)`, `m₁ = 0.01`, `m₂ = 0.99`, bisecting the
    /// bracket `[t_min, t_max]` (`t_max = 10¹⁰` until set) from `t = 1`. When it fails, the
    /// full step `t = 1` is taken, as Siconos does.
    GoldsteinPrice,
    /// Non-monotone Armijo backtracking (Grippo–Lampariello–Lucidi 1986): accept the first
    /// `t ∈ {1, ½, ¼, …}` with `ψ(r + tΔ) ≤ max(ψ_{k−M+1}, …, ψ_k) − 2σ t ψ(r)`, `σ = 10⁻⁴`,
    /// over the last `M = nonmonotone_memory` merit values. When it fails, the full step
    /// `t = 1` is taken (as Siconos does); the non-monotone reference then lets the iteration
    /// leave the region where monotone searches stall.
    NonMonotoneArmijo,
}

/// Options of [`NsnAcSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NsnAcOptions {
    /// Stop when [`Fc3dProblem::compute_error`] is at or below this (default: 1e-3, Siconos'
    /// NSN_AC default). Positive and finite.
    pub tolerance: f64,
    /// Maximum number of Newton iterations (default: 200, Siconos' default). At least 1.
    pub max_iterations: usize,
    /// How `ρ` is chosen per contact (default: [`NsnRhoStrategy::SpectralNorm`]).
    pub rho_strategy: NsnRhoStrategy,
    /// The line search (default: [`NsnLineSearch::GoldsteinPrice`], as Siconos).
    pub line_search: NsnLineSearch,
    /// Maximal number of trial steps per line search (default: 100, Siconos' `iparam[12]`).
    /// At least 1.
    pub max_line_search: usize,
    /// Memory `M` of the non-monotone Armijo search (default: 10; 1 is the monotone search).
    /// At least 1.
    pub nonmonotone_memory: usize,
    /// Stagnation window: when the best error so far has not halved within this many
    /// iterations, the line search switches to the other kind (Goldstein–Price ↔ non-monotone
    /// Armijo) and the window restarts; 0 never switches (default: 100).
    pub stagnation_window: usize,
    /// Relative Tikhonov shift `ε` of the Newton system: the direction solves
    /// `(J + ε s I) Δ = −Φ`, `s = max(1, max_i |J_ii|)` (default: 1e-12; 0 gives the plain
    /// Newton step `J Δ = −Φ`). On frictional problems with more contacts than degrees of
    /// freedom, `J = A W + B` is singular up to rounding (MUMPS reports up to 26 null pivots
    /// on LMGC_100_PR_PerioBox, 180 unknowns, when Siconos solves it); an LU factorization
    /// then gives a step whose null-space part is rounding noise amplified by a pivot of order
    /// `10⁻¹⁶`, and the line search only accepts tiny steps. Siconos' MUMPS replaces such null
    /// pivots by a huge value (`ICNTL(24) = 1`), which sets that part to about zero; the shift
    /// `ε s`, far above rounding (`ε ≈ 4500 ε_mach`) and far below the nonzero pivots, does the
    /// same here. Finite and `≥ 0`.
    pub regularization: f64,
}

impl Default for NsnAcOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-3,
            max_iterations: 200,
            rho_strategy: NsnRhoStrategy::SpectralNorm,
            line_search: NsnLineSearch::GoldsteinPrice,
            max_line_search: 100,
            nonmonotone_memory: 10,
            stagnation_window: 100,
            regularization: 1e-12,
        }
    }
}

impl NsnAcOptions {
    /// Sets [`NsnAcOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`NsnAcOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`NsnAcOptions::rho_strategy`].
    pub fn with_rho_strategy(mut self, rho_strategy: NsnRhoStrategy) -> Self {
        self.rho_strategy = rho_strategy;
        self
    }

    /// Sets [`NsnAcOptions::line_search`].
    pub fn with_line_search(mut self, line_search: NsnLineSearch) -> Self {
        self.line_search = line_search;
        self
    }

    /// Sets [`NsnAcOptions::stagnation_window`].
    pub fn with_stagnation_window(mut self, window: usize) -> Self {
        self.stagnation_window = window;
        self
    }

    /// Sets [`NsnAcOptions::regularization`].
    pub fn with_regularization(mut self, regularization: f64) -> Self {
        self.regularization = regularization;
        self
    }

    /// Sets [`NsnAcOptions::nonmonotone_memory`].
    pub fn with_nonmonotone_memory(mut self, memory: usize) -> Self {
        self.nonmonotone_memory = memory;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive_finite("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        options::at_least_one("max_line_search", self.max_line_search)?;
        options::at_least_one("nonmonotone_memory", self.nonmonotone_memory)?;
        if !self.regularization.is_finite() || self.regularization < 0.0 {
            return Err(NumericsError::InvalidOption {
                name: "regularization",
                reason: "must be finite and non-negative",
            });
        }
        if let NsnRhoStrategy::Constant(rho) = self.rho_strategy {
            options::positive_finite("rho_strategy", rho)?;
        }
        Ok(())
    }
}

/// The Alart–Curnier function of one contact in the variables `(u, r)` taken as independent,
/// with its generalized Jacobian split in two blocks (Siconos `fc3d_AlartCurnierFunctionGenerated`,
/// `numerics/src/FrictionContact/fc3d_AlartCurnier_functions.c`; Alart & Curnier 1991; the
/// Siconos developer documentation, "Alart–Curnier Formulation"): returns `(Φ, A, B)` with
/// `A = ∂Φ/∂u`, `B = ∂Φ/∂r` (row-major), so that the Jacobian through `u = W r + q` is
/// `A W + B`, the matrix
/// [`alart_curnier_function`](super::local::alart_curnier_function) returns.
///
/// With `d = r_N − ρ_N u_N`, `R = μ max(0, d)`, `z = r_T − ρ_T u_T`:
/// * `d > 0`: `Φ_N = ρ_N u_N`, `A_N = ρ_N e_Nᵀ`, `B_N = 0`; else `Φ_N = r_N`, `A_N = 0`,
///   `B_N = e_Nᵀ`;
/// * sticking `‖z‖ ≤ R` (including `z = 0, R = 0`): `Φ_T = ρ_T u_T`, `A_T = ρ_T E_T`, `B_T = 0`;
/// * sliding `‖z‖ > R`, with `s = R/‖z‖`, `ẑ = z/‖z‖`, `P = I − ẑẑᵀ`: `Φ_T = r_T − R ẑ`,
///   `A_T = s ρ_T P E_T + μ ρ_N ẑ e_Nᵀ [d > 0]`, `B_T = E_T − s P E_T − μ ẑ e_Nᵀ [d > 0]`.
///   The cases the Siconos documentation leaves "not taken into account", `d ≤ 0` with `z ≠ 0`,
///   are the sliding rows with `R = 0`: `A_T = 0`, `B_T = E_T`.
///
/// `E_T` selects the tangential components. The boundary cases `d = 0` and `‖z‖ = R` take the
/// take-off and sticking branches, both elements of the generalized Jacobian.
pub(crate) fn alart_curnier_ab(
    r: &[f64; 3],
    u: &[f64; 3],
    mu: f64,
    rho: [f64; 2],
) -> ([f64; 3], [[f64; 3]; 3], [[f64; 3]; 3]) {
    let [rho_n, rho_t] = rho;
    let mut phi = [0.0; 3];
    let mut a = [[0.0; 3]; 3];
    let mut b = [[0.0; 3]; 3];
    let d = r[0] - rho_n * u[0];
    if d > 0.0 {
        phi[0] = r[0] - d;
        a[0][0] = rho_n;
    } else {
        phi[0] = r[0];
        b[0][0] = 1.0;
    }
    let radius = mu * d.max(0.0);
    let z = [r[1] - rho_t * u[1], r[2] - rho_t * u[2]];
    let nz = (z[0] * z[0] + z[1] * z[1]).sqrt();
    if nz <= radius {
        phi[1] = r[1] - z[0];
        phi[2] = r[2] - z[1];
        a[1][1] = rho_t;
        a[2][2] = rho_t;
    } else {
        // nz > radius ≥ 0, so nz > 0.
        let zh = [z[0] / nz, z[1] / nz];
        let s = radius / nz;
        for k in 0..2 {
            phi[k + 1] = r[k + 1] - radius * zh[k];
            for l in 0..2 {
                let p = if k == l { 1.0 } else { 0.0 } - zh[k] * zh[l];
                a[k + 1][l + 1] = s * rho_t * p;
                b[k + 1][l + 1] = if k == l { 1.0 } else { 0.0 } - s * p;
            }
            if d > 0.0 {
                a[k + 1][0] = mu * rho_n * zh[k];
                b[k + 1][0] = -mu * zh[k];
            }
        }
    }
    (phi, a, b)
}

/// Largest eigenvalue of the symmetric part of a 3×3 block (row-major), by the trigonometric
/// formula of Siconos' `eig_3x3` (`numerics/src/tools/op3x3.h`; Smith 1961); for a diagonal
/// block, its largest diagonal entry.
pub(crate) fn largest_eigenvalue_3x3(w: &[[f64; 3]; 3]) -> f64 {
    let s = |i: usize, j: usize| 0.5 * (w[i][j] + w[j][i]);
    let (a00, a11, a22, a01, a02, a12) = (s(0, 0), s(1, 1), s(2, 2), s(0, 1), s(0, 2), s(1, 2));
    let p1 = a01 * a01 + a02 * a02 + a12 * a12;
    if p1 == 0.0 {
        return a00.max(a11).max(a22);
    }
    let q = (a00 + a11 + a22) / 3.0;
    let p2 = (a00 - q).powi(2) + (a11 - q).powi(2) + (a22 - q).powi(2) + 2.0 * p1;
    let p = (p2 / 6.0).sqrt();
    let (b00, b11, b22, b01, b02, b12) = ((a00 - q) / p, (a11 - q) / p, (a22 - q) / p, a01 / p, a02 / p, a12 / p);
    let det = b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02) + b02 * (b01 * b12 - b11 * b02);
    let half = det / 2.0;
    let phi = if half <= -1.0 {
        std::f64::consts::PI / 3.0
    } else if half >= 1.0 {
        0.0
    } else {
        half.acos() / 3.0
    };
    q + 2.0 * p * phi.cos()
}

/// `true` when the sparse-block matrix has 3×3 blocks, one block row and column per contact.
fn contact_blocks(m: &SparseBlockMatrix, nc: usize) -> bool {
    m.uniform_block_size() == Some(3)
        && m.n_block_rows() == nc
        && m.n_block_cols() == nc
        && m.row_block_ends().iter().enumerate().all(|(i, &e)| e == 3 * (i + 1))
        && m.col_block_ends().iter().enumerate().all(|(i, &e)| e == 3 * (i + 1))
}

/// faer's scratch memory, allocated once per system.
struct Scratch(MemBuffer);

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

/// Dense Jacobian and its partial-pivoting LU (in place).
#[derive(Debug)]
struct DenseSystem {
    jac: Mat<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    mem: Scratch,
}

/// Sparse Jacobian `A W + B` in CSC with the pattern of `W`'s 3×3 blocks plus the diagonal
/// blocks, its symbolic LU (computed once per pattern) and the numeric LU (refactorized at each
/// Newton step).
#[derive(Debug)]
struct SparseSystem {
    /// The block pattern this system was built for (`row_ptr`, `col_idx` of `W`).
    row_ptr: Vec<usize>,
    col_idx: Vec<usize>,
    pattern: SymbolicSparseColMat<usize>,
    values: Vec<f64>,
    /// For each stored block `k` of `W`: `(offset, stride)`, entry `(a, b)` of the block is
    /// `values[offset + b·stride + a]`.
    slots: Vec<(usize, usize)>,
    /// The same for diagonal blocks that `W` does not store (`None` when it does).
    extra_diagonal: Vec<Option<(usize, usize)>>,
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
    mem: Scratch,
}

impl SparseSystem {
    fn new(w: &SparseBlockMatrix, nc: usize) -> Result<Self, NumericsError> {
        let row_ptr = w.row_ptr().to_vec();
        let col_idx = w.col_idx().to_vec();
        // (block column, block row, source): source k < nnz is W's block k, nnz + i is the
        // missing diagonal block i.
        let nnz = col_idx.len();
        let mut entries: Vec<(usize, usize, usize)> = Vec::with_capacity(nnz + nc);
        for i in 0..nc {
            for (k, &j) in col_idx.iter().enumerate().take(row_ptr[i + 1]).skip(row_ptr[i]) {
                entries.push((j, i, k));
            }
            if w.diagonal_block_index(i).is_none() {
                entries.push((i, i, nnz + i));
            }
        }
        entries.sort_unstable();
        let mut count = vec![0usize; nc];
        for e in &entries {
            count[e.0] += 1;
        }
        let n = 3 * nc;
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::with_capacity(9 * entries.len());
        let mut slots = vec![(0, 0); nnz];
        let mut extra_diagonal = vec![None; nc];
        col_ptr.push(0);
        let mut start = 0;
        let mut e = 0;
        for (j, &cnt) in count.iter().enumerate() {
            let col_entries = &entries[e..e + cnt];
            for b in 0..3 {
                for &(_, i, _) in col_entries {
                    row_idx.extend([3 * i, 3 * i + 1, 3 * i + 2]);
                }
                col_ptr.push(start + (b + 1) * 3 * cnt);
            }
            for (rank, &(_, i, src)) in col_entries.iter().enumerate() {
                let slot = (start + 3 * rank, 3 * cnt);
                if src < nnz {
                    slots[src] = slot;
                } else {
                    extra_diagonal[i] = Some(slot);
                }
            }
            let _ = j;
            start += 9 * cnt;
            e += cnt;
        }
        let values = vec![0.0; row_idx.len()];
        let pattern = SymbolicSparseColMat::new_checked(n, n, col_ptr, None, row_idx);
        let symbolic = factorize_symbolic_lu(pattern.as_ref(), LuSymbolicParams::default())
            .map_err(|_| NumericsError::Singular { what: "nsn-ac jacobian (symbolic lu)" })?;
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        Ok(Self {
            row_ptr,
            col_idx,
            pattern,
            values,
            slots,
            extra_diagonal,
            symbolic,
            numeric: NumericLu::new(),
            mem: Scratch(MemBuffer::new(req)),
        })
    }

    fn matches(&self, w: &SparseBlockMatrix) -> bool {
        self.row_ptr == w.row_ptr() && self.col_idx == w.col_idx()
    }
}

/// The linear system of the Newton step, by storage of `W`.
#[derive(Debug, Default)]
enum LinearSystem {
    #[default]
    Unset,
    Dense(DenseSystem),
    Sparse(Box<SparseSystem>),
}

/// Buffers reused across iterations and solves (resized only when the problem grows).
#[derive(Debug, Default)]
struct Workspace {
    rho: Vec<[f64; 2]>,
    phi: Vec<f64>,
    direction: Vec<f64>,
    r_trial: Vec<f64>,
    u_trial: Vec<f64>,
    /// `(W + αI) Δ` for the current direction: trial velocities are `u + t (W + αI) Δ`.
    w_direction: Vec<f64>,
    a: Vec<[[f64; 3]; 3]>,
    b: Vec<[[f64; 3]; 3]>,
    /// `W_cc` for each contact (row-major).
    diag: Vec<[[f64; 3]; 3]>,
    history: Vec<f64>,
    /// A sparse-block copy of `W` with one 3×3 block per contact, when `W` is not stored so.
    converted: Option<SparseBlockMatrix>,
    system: LinearSystem,
}

/// The data of the problem actually solved: `u = (W + αI) r + q'` (`α = shift`, `q' = q`), the
/// proximal subproblem of [`ProxSolver`](super::prox::ProxSolver) when `α > 0`.
#[derive(Clone, Copy)]
pub(crate) struct Shifted<'a> {
    pub(crate) shift: f64,
    pub(crate) q: &'a [f64],
}

/// Nonsmooth Newton solver on the Alart–Curnier formulation of the FC3D problem (Siconos
/// `fc3d_nonsmooth_Newton_AlartCurnier`, solver id 504, with its "generated" function, its
/// default "spectral norm" `ρ` and a line search on `½‖Φ‖²`).
///
/// The equation is `Φ(r) = 0`, `Φ` stacking the one-contact Alart–Curnier functions
/// ([`alart_curnier_function`](super::local::alart_curnier_function)) at `u = W r + q` with
/// per-contact `ρ` ([`NsnRhoStrategy`]). Each iteration computes `Φ` and the block-diagonal
/// `A = ∂Φ/∂u`, `B = ∂Φ/∂r` (all cases of the generalized Jacobian, see the Siconos developer
/// documentation, "Alart–Curnier Formulation"), forms `J = A W + B` (Siconos
/// `fc3d_nonsmooth_Newton_computeAWpB`) and solves `(J + ε s I) Δ = −Φ`
/// (`ε` = [`NsnAcOptions::regularization`], `s = max(1, max|J_ii|)`; the shift stands in for
/// the null-pivot handling of Siconos' MUMPS on singular `J`):
/// * dense `W`: faer's dense LU with partial pivoting, in place;
/// * sparse-block or sparse `W`: faer's sparse LU on the pattern of `W`'s 3×3 contact blocks plus
///   the diagonal blocks; the symbolic analysis (COLAMD ordering) is done once per pattern and
///   kept across solves, the numeric factorization is redone at each iteration.
///
/// When the factorization fails or gives a non-finite step, `J + λI` is tried with the
/// larger shifts `λ = 10⁻¹²·s, 10⁻⁹·s, 10⁻⁶·s, 10⁻³·s` (those above `ε s`). Then the line search ([`NsnLineSearch`]) sets
/// `r ← r + tΔ`, and the stopping test is the full error [`Fc3dProblem::compute_error`]
/// `≤ tolerance`, evaluated at every iteration as Siconos does.
///
/// Warm start from the incoming `r`; trivial case (Siconos `fc3d_checkTrivialCase`): when
/// `q_N ≥ 0` for every contact, `r = 0`, `u = q` is returned after 0 iterations. A warm start
/// that already meets the tolerance is returned after 0 iterations.
///
/// Status: `Converged`; `MaxIterations` at the cap; `NumericalBreakdown` when no regularization
/// gives a finite Newton step or an iterate is not finite. The report's residual is
/// `compute_error` at the returned `r`, and `u = W r + q` on return.
#[derive(Debug)]
#[doc(alias = "fc3d_nonsmooth_Newton_AlartCurnier")]
#[doc(alias = "NSN_AC")]
pub struct NsnAcSolver {
    options: NsnAcOptions,
    ws: Workspace,
}

impl NsnAcSolver {
    /// Builds a solver.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for a non-positive or non-finite tolerance or constant
    /// `ρ`, or a zero iteration cap, line-search cap or memory.
    pub fn new(options: NsnAcOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options, ws: Workspace::default() })
    }

    /// The options.
    pub fn options(&self) -> &NsnAcOptions {
        &self.options
    }

    /// Solves `problem` from the warm start `r`; on return `r` holds the reactions and
    /// `u = W r + q`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `3·nc`,
    /// [`NumericsError::NonFinite`] for a non-finite warm start.
    pub fn solve(
        &mut self,
        problem: &Fc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        problem.check_solver_vectors(r, u, ["nsn-ac reaction r", "nsn-ac velocity u", "nsn-ac initial reaction r"])?;
        if let Some(report) = problem.trivial_solution(r, u)? {
            return Ok(report);
        }
        let q = problem.q();
        let (tol, max_it) = (self.options.tolerance, self.options.max_iterations);
        self.solve_shifted(problem, Shifted { shift: 0.0, q }, r, u, tol, max_it)
    }

    /// Solves `u = (W + αI) r + q'` with the Coulomb law (`α = data.shift ≥ 0`, `q' = data.q`),
    /// with the given tolerance and iteration cap; the error is that of this problem
    /// (`fc3d_compute_error` with `W + αI`, `q'` and `norm = ‖q'‖`). `r`, `u` are checked.
    pub(crate) fn solve_shifted(
        &mut self,
        problem: &Fc3dProblem,
        data: Shifted<'_>,
        r: &mut [f64],
        u: &mut [f64],
        tolerance: f64,
        max_iterations: usize,
    ) -> Result<SolverReport, NumericsError> {
        let nc = problem.number_of_contacts();
        let mu = problem.mu();
        let norm_q = norm2(data.q);
        self.prepare(problem, data.shift)?;
        let ws = &mut self.ws;
        let mut error = shifted_error(problem, data, norm_q, r, u);
        if !error.is_finite() {
            return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, 0, error));
        }
        if error <= tolerance {
            return Ok(SolverReport::new(SolverStatus::Converged, 0, error));
        }
        ws.history.clear();
        let mut line_search = self.options.line_search;
        let mut memory = memory_of(line_search, self.options.nonmonotone_memory);
        // Stagnation watch: the best error must halve every `window` iterations, else the
        // line search is switched (Goldstein–Price ↔ non-monotone Armijo).
        let window = self.options.stagnation_window;
        let (mut best, mut checkpoint, mut since) = (error, error, 0usize);
        let w_sbm: Option<&SparseBlockMatrix> = match problem.w() {
            NumericsMatrix::Dense(_) => None,
            NumericsMatrix::SparseBlock(m) if contact_blocks(m, nc) => Some(m),
            _ => ws.converted.as_ref(),
        };
        for it in 1..=max_iterations {
            let psi0 = evaluate(r, u, mu, &ws.rho, Some((&mut ws.phi, &mut ws.a, &mut ws.b)));
            while ws.history.len() >= memory {
                ws.history.remove(0);
            }
            ws.history.push(psi0);
            // Newton direction J Δ = −Φ, with regularized retries.
            let scale = jacobian_diagonal_scale(&ws.a, &ws.b, &ws.diag, data.shift);
            let mut solved = false;
            // The first try uses the default shift ε; the retries only larger shifts.
            let first = self.options.regularization;
            for (k, lambda) in [first, 1e-12, 1e-9, 1e-6, 1e-3].into_iter().enumerate() {
                if k > 0 && lambda <= first {
                    continue;
                }
                for (d, p) in ws.direction.iter_mut().zip(&ws.phi) {
                    *d = -p;
                }
                let ok = match (&mut ws.system, problem.w()) {
                    (LinearSystem::Dense(sys), NumericsMatrix::Dense(w)) => {
                        solve_dense(sys, w, &ws.a, &ws.b, data.shift, lambda * scale, &mut ws.direction)
                    }
                    (LinearSystem::Sparse(sys), _) => match w_sbm {
                        Some(w) => solve_sparse(sys, w, &ws.a, &ws.b, data.shift, lambda * scale, &mut ws.direction),
                        None => false,
                    },
                    _ => false,
                };
                if ok && ws.direction.iter().all(|v| v.is_finite()) {
                    solved = true;
                    break;
                }
            }
            if !solved {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, error));
            }
            problem.w().gemv(1.0, &ws.direction, 0.0, &mut ws.w_direction);
            if data.shift > 0.0 {
                for (x, di) in ws.w_direction.iter_mut().zip(&ws.direction) {
                    *x += data.shift * di;
                }
            }
            // Line search on ψ = ½‖Φ‖² along Δ (ψ'(0) = −‖Φ‖² = −2ψ0 for the exact step).
            let slope = -2.0 * psi0;
            let reference = ws.history.iter().copied().fold(psi0, f64::max);
            let mut t = 1.0;
            let (mut t_min, mut t_max) = (0.0, 1e10);
            let mut accepted = false;
            for _ in 0..self.options.max_line_search {
                let psi = trial_merit(
                    problem,
                    &ws.rho,
                    (r, u),
                    (&ws.direction, &ws.w_direction),
                    t,
                    (&mut ws.r_trial, &mut ws.u_trial),
                );
                match line_search {
                    NsnLineSearch::NonMonotoneArmijo => {
                        if psi <= reference + 1e-4 * t * slope {
                            accepted = true;
                            break;
                        }
                        t *= 0.5;
                    }
                    NsnLineSearch::GoldsteinPrice => {
                        let s = (psi - psi0) / t;
                        let c1 = s >= 0.99 * slope;
                        let c2 = s <= 0.01 * slope;
                        if c1 && c2 {
                            accepted = true;
                            break;
                        } else if !c1 {
                            t_min = t;
                        } else {
                            t_max = t;
                        }
                        t = 0.5 * (t_min + t_max);
                    }
                }
            }
            if !accepted {
                t = 1.0;
            }
            for (ri, di) in r.iter_mut().zip(&ws.direction) {
                *ri += t * di;
            }
            error = shifted_error(problem, data, norm_q, r, u);
            if !error.is_finite() || !r.iter().all(|v| v.is_finite()) {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, error));
            }
            if error <= tolerance {
                return Ok(SolverReport::new(SolverStatus::Converged, it, error));
            }
            best = best.min(error);
            since += 1;
            if best <= 0.5 * checkpoint {
                (checkpoint, since) = (best, 0);
            } else if window > 0 && since >= window {
                line_search = match line_search {
                    NsnLineSearch::GoldsteinPrice => NsnLineSearch::NonMonotoneArmijo,
                    _ => NsnLineSearch::GoldsteinPrice,
                };
                memory = memory_of(line_search, self.options.nonmonotone_memory);
                ws.history.clear();
                (checkpoint, since) = (best, 0);
            }
        }
        Ok(SolverReport::new(SolverStatus::MaxIterations, max_iterations, error))
    }

    /// Sizes the buffers, extracts the diagonal blocks, computes `ρ` and sets up the linear
    /// system (its symbolic analysis is kept when the block pattern did not change).
    fn prepare(&mut self, problem: &Fc3dProblem, shift: f64) -> Result<(), NumericsError> {
        let n = problem.size();
        let nc = problem.number_of_contacts();
        let ws = &mut self.ws;
        for v in [&mut ws.phi, &mut ws.direction, &mut ws.r_trial, &mut ws.u_trial, &mut ws.w_direction] {
            v.resize(n, 0.0);
        }
        ws.a.resize(nc, [[0.0; 3]; 3]);
        ws.b.resize(nc, [[0.0; 3]; 3]);
        ws.rho.resize(nc, [1.0; 2]);
        ws.diag.clear();
        let W = problem.w();
        let ends: Vec<usize>;
        let sbm: Option<&SparseBlockMatrix> = match W {
            NumericsMatrix::Dense(_) => None,
            NumericsMatrix::SparseBlock(m) if contact_blocks(m, nc) => {
                ws.converted = None;
                Some(m)
            }
            other => {
                ends = (1..=nc).map(|c| 3 * c).collect();
                ws.converted = Some(other.to_sparse_block(&ends, &ends)?);
                ws.converted.as_ref()
            }
        };
        for c in 0..nc {
            let mut blk = [[0.0; 3]; 3];
            match sbm {
                Some(m) => {
                    if let Some(v) = m.diagonal_block(c) {
                        for (i, row) in blk.iter_mut().enumerate() {
                            for (j, x) in row.iter_mut().enumerate() {
                                *x = v[i + 3 * j];
                            }
                        }
                    }
                }
                None => {
                    for (i, row) in blk.iter_mut().enumerate() {
                        for (j, x) in row.iter_mut().enumerate() {
                            *x = W.get(3 * c + i, 3 * c + j);
                        }
                    }
                }
            }
            ws.diag.push(blk);
        }
        for (rho, blk) in ws.rho.iter_mut().zip(&ws.diag) {
            let value = match self.options.rho_strategy {
                NsnRhoStrategy::Constant(v) => v,
                NsnRhoStrategy::SpectralNorm => {
                    let lambda = largest_eigenvalue_3x3(blk) + shift;
                    if lambda.is_finite() && lambda > 0.0 { 1.0 / lambda } else { 1.0 }
                }
            };
            *rho = [value; 2];
        }
        match sbm {
            None => {
                let reuse = matches!(&ws.system, LinearSystem::Dense(s) if s.jac.nrows() == n);
                if !reuse {
                    let req = StackReq::any_of(&[
                        dense_lu::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Default::default()),
                        dense_solve::solve_in_place_scratch::<usize, f64>(n, 1, Par::Seq),
                    ]);
                    ws.system = LinearSystem::Dense(DenseSystem {
                        jac: Mat::zeros(n, n),
                        perm: vec![0; n],
                        perm_inv: vec![0; n],
                        mem: Scratch(MemBuffer::new(req)),
                    });
                }
            }
            Some(m) => {
                let reuse = matches!(&ws.system, LinearSystem::Sparse(s) if s.matches(m));
                if !reuse {
                    ws.system = LinearSystem::Sparse(Box::new(SparseSystem::new(m, nc)?));
                }
            }
        }
        Ok(())
    }
}

/// The length of the merit history: `M` for the non-monotone search, 1 (monotone) otherwise.
fn memory_of(line_search: NsnLineSearch, memory: usize) -> usize {
    match line_search {
        NsnLineSearch::NonMonotoneArmijo => memory,
        NsnLineSearch::GoldsteinPrice => 1,
    }
}

/// `u ← (W + αI) r + q'` and Siconos' error of the shifted problem (`fc3d_compute_error` with
/// `norm = ‖q'‖`, see [`Fc3dProblem::compute_error_with_norm`]); for `α = 0` this is the same
/// sequence of operations, hence the same value.
fn shifted_error(problem: &Fc3dProblem, data: Shifted<'_>, norm_q: f64, r: &[f64], u: &mut [f64]) -> f64 {
    velocity(problem, data, r, u);
    let mut sum = 0.0;
    for ((rc, uc), &mu) in r.chunks_exact(3).zip(u.chunks_exact(3)).zip(problem.mu()) {
        let rc: &[f64; 3] = rc.try_into().expect("chunks_exact(3) yields slices of length 3");
        let uc: &[f64; 3] = uc.try_into().expect("chunks_exact(3) yields slices of length 3");
        sum += contact_error_squared(rc, uc, mu);
    }
    let err = sum.sqrt();
    let scale = norm_q.max(norm2(r)).max(norm2(u));
    if scale > f64::EPSILON { err / scale } else { err }
}

/// `u ← (W + αI) r + q'`.
fn velocity(problem: &Fc3dProblem, data: Shifted<'_>, r: &[f64], u: &mut [f64]) {
    u.copy_from_slice(data.q);
    problem.w().gemv(1.0, r, 1.0, u);
    if data.shift > 0.0 {
        for (ui, ri) in u.iter_mut().zip(r) {
            *ui += data.shift * ri;
        }
    }
}

/// The per-contact blocks `Φ_c`, `A_c`, `B_c` written by [`evaluate`].
type Blocks<'a> = (&'a mut [f64], &'a mut [[[f64; 3]; 3]], &'a mut [[[f64; 3]; 3]]);

/// Stacks the Alart–Curnier functions of all contacts (into `out.0`, with their `A`, `B` blocks
/// when `out` is given) and returns `ψ = ½‖Φ‖²`.
fn evaluate(r: &[f64], u: &[f64], mu: &[f64], rho: &[[f64; 2]], out: Option<Blocks<'_>>) -> f64 {
    let mut sum = 0.0;
    let ac = |c: usize| {
        let s = 3 * c;
        alart_curnier_ab(&[r[s], r[s + 1], r[s + 2]], &[u[s], u[s + 1], u[s + 2]], mu[c], rho[c])
    };
    match out {
        Some((phi, a, b)) => {
            for c in 0..mu.len() {
                let (f, ac, bc) = ac(c);
                phi[3 * c..3 * c + 3].copy_from_slice(&f);
                sum += f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
                a[c] = ac;
                b[c] = bc;
            }
        }
        None => {
            for c in 0..mu.len() {
                let f = ac(c).0;
                sum += f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
            }
        }
    }
    0.5 * sum
}

/// `ψ(r + tΔ)` (`+∞` when not finite), using the trial buffers `(r_trial, u_trial)`. The
/// velocity is affine in `t`: `u(r + tΔ) = u + t (W + αI) Δ`, so each trial costs `O(n)` once
/// `(W + αI) Δ` is known (the accepted iterate's `u` is then recomputed from `W` exactly).
fn trial_merit(
    problem: &Fc3dProblem,
    rho: &[[f64; 2]],
    (r, u): (&[f64], &[f64]),
    (direction, w_direction): (&[f64], &[f64]),
    t: f64,
    (r_trial, u_trial): (&mut [f64], &mut [f64]),
) -> f64 {
    for ((x, ri), di) in r_trial.iter_mut().zip(r).zip(direction) {
        *x = ri + t * di;
    }
    for ((x, ui), wdi) in u_trial.iter_mut().zip(u).zip(w_direction) {
        *x = ui + t * wdi;
    }
    let psi = evaluate(r_trial, u_trial, problem.mu(), rho, None);
    if psi.is_finite() { psi } else { f64::INFINITY }
}

/// `max(1, max_i |J_ii|)` over the diagonal of `J = A (W + αI) + B`, the scale of the
/// regularization `λ`.
fn jacobian_diagonal_scale(a: &[[[f64; 3]; 3]], b: &[[[f64; 3]; 3]], diag: &[[[f64; 3]; 3]], shift: f64) -> f64 {
    let mut scale = 1.0_f64;
    for ((ac, bc), wc) in a.iter().zip(b).zip(diag) {
        for k in 0..3 {
            let jkk: f64 = (0..3).map(|m| ac[k][m] * wc[m][k]).sum::<f64>() + bc[k][k] + shift * ac[k][k];
            scale = scale.max(jkk.abs());
        }
    }
    scale
}

/// The diagonal block of `J` for contact `c`, `B_c + α A_c + λ I` (row-major), to which
/// `A_c W_cc` is added.
fn diagonal_addition(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3], shift: f64, lambda: f64) -> [[f64; 3]; 3] {
    let mut d = *b;
    for (k, row) in d.iter_mut().enumerate() {
        for (m, x) in row.iter_mut().enumerate() {
            *x += shift * a[k][m];
        }
        row[k] += lambda;
    }
    d
}

/// Builds the dense `J = A (W + αI) + B + λI`, factorizes it in place and solves `J x = rhs`
/// (`rhs` overwritten). `false` when a pivot is zero or not finite.
fn solve_dense(
    sys: &mut DenseSystem,
    W: &Mat<f64>,
    a: &[[[f64; 3]; 3]],
    b: &[[[f64; 3]; 3]],
    shift: f64,
    lambda: f64,
    rhs: &mut [f64],
) -> bool {
    let n = W.nrows();
    let jac = &mut sys.jac;
    for col in 0..n {
        for (c, ac) in a.iter().enumerate() {
            let s = 3 * c;
            let (w0, w1, w2) = (W[(s, col)], W[(s + 1, col)], W[(s + 2, col)]);
            for k in 0..3 {
                jac[(s + k, col)] = ac[k][0] * w0 + ac[k][1] * w1 + ac[k][2] * w2;
            }
        }
    }
    for (c, (ac, bc)) in a.iter().zip(b).enumerate() {
        let d = diagonal_addition(ac, bc, shift, lambda);
        for (k, row) in d.iter().enumerate() {
            for (m, v) in row.iter().enumerate() {
                jac[(3 * c + k, 3 * c + m)] += v;
            }
        }
    }
    if n <= SMALL_DENSE {
        return small_lu_solve(jac, rhs);
    }
    let stack = MemStack::new(&mut sys.mem.0);
    let (_, perm) =
        dense_lu::lu_in_place(jac.as_mut(), &mut sys.perm, &mut sys.perm_inv, Par::Seq, stack, Default::default());
    if (0..n).any(|i| {
        let p = jac[(i, i)];
        p == 0.0 || !p.is_finite()
    }) {
        return false;
    }
    let rhs = MatMut::from_column_major_slice_mut(rhs, n, 1);
    let perm: PermRef<'_, usize> = perm;
    dense_solve::solve_in_place(jac.as_ref(), jac.as_ref(), perm, rhs, Par::Seq, stack);
    true
}

/// Below this size the dense Newton systems are solved by [`small_lu_solve`]: faer's blocked LU
/// pays a fixed setup cost that dominates for a few contacts (instruction counts in
/// `docs/performance-notes.md`).
const SMALL_DENSE: usize = 48;

/// Solves `J x = rhs` in place (`rhs` overwritten, `J` overwritten by its LU factors) by Gaussian
/// elimination with partial pivoting (rows swapped in place), column by column on faer's
/// column-major storage. `false` on a zero or non-finite pivot.
fn small_lu_solve(jac: &mut Mat<f64>, rhs: &mut [f64]) -> bool {
    let n = jac.nrows();
    for k in 0..n {
        // Pivot: the largest |J_ik|, i ≥ k.
        let col = jac.col_as_slice(k);
        let mut p = k;
        for i in k + 1..n {
            if col[i].abs() > col[p].abs() {
                p = i;
            }
        }
        let pivot = col[p];
        if pivot == 0.0 || !pivot.is_finite() {
            return false;
        }
        if p != k {
            for j in 0..n {
                let c = jac.col_as_slice_mut(j);
                c.swap(k, p);
            }
            rhs.swap(k, p);
        }
        // Multipliers l_i = J_ik / J_kk, stored below the diagonal of column k.
        let mut l = [0.0; SMALL_DENSE];
        {
            let c = jac.col_as_slice_mut(k);
            for (v, li) in c[k + 1..n].iter_mut().zip(&mut l[k + 1..n]) {
                *v /= pivot;
                *li = *v;
            }
        }
        for j in k + 1..n {
            let c = jac.col_as_slice_mut(j);
            let ukj = c[k];
            if ukj != 0.0 {
                for (v, li) in c[k + 1..n].iter_mut().zip(&l[k + 1..n]) {
                    *v -= li * ukj;
                }
            }
        }
        let bk = rhs[k];
        if bk != 0.0 {
            for (v, li) in rhs[k + 1..n].iter_mut().zip(&l[k + 1..n]) {
                *v -= li * bk;
            }
        }
    }
    for k in (0..n).rev() {
        let c = jac.col_as_slice(k);
        let x = rhs[k] / c[k];
        rhs[k] = x;
        if x != 0.0 {
            for i in 0..k {
                rhs[i] -= c[i] * x;
            }
        }
    }
    true
}

// Block entries are addressed by (row, column) in both the 3×3 blocks and the CSC slots.
/// Fills the CSC values of `J = A (W + αI) + B + λI` on the fixed pattern, refactorizes it
/// numerically and solves `J x = rhs` (`rhs` overwritten). `false` when the factorization fails.
#[allow(clippy::needless_range_loop)]
fn solve_sparse(
    sys: &mut SparseSystem,
    W: &SparseBlockMatrix,
    a: &[[[f64; 3]; 3]],
    b: &[[[f64; 3]; 3]],
    shift: f64,
    lambda: f64,
    rhs: &mut [f64],
) -> bool {
    let n = W.nrows();
    let row_ptr = W.row_ptr();
    let col_idx = W.col_idx();
    for (i, (ai, bi)) in a.iter().zip(b).enumerate() {
        for k in row_ptr[i]..row_ptr[i + 1] {
            let j = col_idx[k];
            let w = W.block(k);
            let (off, stride) = sys.slots[k];
            let d = if i == j { Some(diagonal_addition(ai, bi, shift, lambda)) } else { None };
            for col in 0..3 {
                let (w0, w1, w2) = (w[3 * col], w[3 * col + 1], w[3 * col + 2]);
                for row in 0..3 {
                    let mut v = ai[row][0] * w0 + ai[row][1] * w1 + ai[row][2] * w2;
                    if let Some(d) = &d {
                        v += d[row][col];
                    }
                    sys.values[off + col * stride + row] = v;
                }
            }
        }
        if let Some((off, stride)) = sys.extra_diagonal[i] {
            let d = diagonal_addition(ai, bi, shift, lambda);
            for col in 0..3 {
                for row in 0..3 {
                    sys.values[off + col * stride + row] = d[row][col];
                }
            }
        }
    }
    let mat = SparseColMatRef::new(sys.pattern.as_ref(), &sys.values);
    let stack = MemStack::new(&mut sys.mem.0);
    let Ok(lu) = sys.symbolic.factorize_numeric_lu(&mut sys.numeric, mat, Par::Seq, stack, Default::default()) else {
        return false;
    };
    let rhs = MatMut::from_column_major_slice_mut(rhs, n, 1);
    lu.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, stack);
    true
}
