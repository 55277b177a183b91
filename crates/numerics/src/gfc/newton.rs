//! Semismooth Newton method on the Alart–Curnier function of the global frictional contact
//! problem, in the unknowns `(v, r)` (Siconos `gfc3d_nonsmooth_Newton_AlartCurnier`, solver
//! `SICONOS_GLOBAL_FRICTION_3D_NSN_AC`, `numerics/src/FrictionContact/gfc3d_nonsmooth_Newton_AlartCurnier.c`).
//! The Alart–Curnier function and its generalized Jacobian: P. Alart, A. Curnier, "A mixed
//! formulation for frictional contact problems prone to Newton like solution methods", Comput.
//! Methods Appl. Mech. Engrg. 92, 1991, and the Siconos developer documentation,
//! "Alart–Curnier Formulation" (its global form).
//!
//! Integration tests: `tests/it/gfc_solvers.rs`.

#![allow(non_snake_case)]

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::sparse::linalg::lu::{LuSymbolicParams, NumericLu, SymbolicLu, factorize_symbolic_lu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, MatMut, Par};
use sprs::CsMat;

use super::factor::MassFactorization;
use super::problem::GlobalFc3dProblem;
use crate::fc::nsn_ac::alart_curnier_ab;
use crate::fc::nsn_ac::{NsnLineSearch, NsnRhoStrategy, largest_eigenvalue_3x3};
use crate::fc::problem::{check_finite, check_len};
use crate::{NumericsError, SolverReport, SolverStatus, options};

/// Options of [`GlobalNsnAcSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GlobalNsnAcOptions {
    /// Stop when [`GlobalFcProblem::compute_error`](super::GlobalFcProblem::compute_error) is at
    /// or below this (default: `1e-10`, Siconos' GFC3D NSN_AC default). Positive and finite.
    pub tolerance: f64,
    /// Maximum number of Newton iterations (default: `200`, Siconos' default). At least 1.
    pub max_iterations: usize,
    /// How the Alart–Curnier parameter `ρ` is chosen per contact (default:
    /// [`NsnRhoStrategy::Constant`]`(1.0)`, Siconos' `dparam[SICONOS_FRICTION_3D_NSN_RHO]` for
    /// this solver). [`NsnRhoStrategy::SpectralNorm`] takes `ρ_c = 1/λ_max(W_cc)` with the
    /// Delassus block `W_cc = H_cᵀ M⁻¹ H_c`, computed from the factorization of `M` (three
    /// solves per contact).
    pub rho_strategy: NsnRhoStrategy,
    /// The line search on `ψ = ½‖F‖²` (default: [`NsnLineSearch::GoldsteinPrice`], as Siconos).
    pub line_search: NsnLineSearch,
    /// Maximal number of trial steps per line search (default: `1000`, Siconos'
    /// `iparam[SICONOS_FRICTION_3D_NSN_LINESEARCH_MAX_ITER]` for this solver). At least 1.
    pub max_line_search: usize,
    /// Relative Tikhonov shift `ε`: the direction solves `(J + ε s I) Δ = −F` with
    /// `s = max(1, max_i |J_ii|)` (default: `1e-12`; 0 gives the plain Newton step). `J` is
    /// singular when contacts outnumber the degrees of freedom that `H` reaches (all sticking
    /// rows `ρ Hᵀ` dependent); the shift, far above rounding and far below the other pivots,
    /// picks a bounded step there. Finite and `≥ 0`.
    pub regularization: f64,
}

impl Default for GlobalNsnAcOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 200,
            rho_strategy: NsnRhoStrategy::Constant(1.0),
            line_search: NsnLineSearch::GoldsteinPrice,
            max_line_search: 1000,
            regularization: 1e-12,
        }
    }
}

impl GlobalNsnAcOptions {
    /// Sets [`GlobalNsnAcOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`GlobalNsnAcOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`GlobalNsnAcOptions::rho_strategy`].
    pub fn with_rho_strategy(mut self, rho_strategy: NsnRhoStrategy) -> Self {
        self.rho_strategy = rho_strategy;
        self
    }

    /// Sets [`GlobalNsnAcOptions::line_search`].
    pub fn with_line_search(mut self, line_search: NsnLineSearch) -> Self {
        self.line_search = line_search;
        self
    }

    /// Sets [`GlobalNsnAcOptions::regularization`].
    pub fn with_regularization(mut self, regularization: f64) -> Self {
        self.regularization = regularization;
        self
    }

    fn validate(&self) -> Result<(), NumericsError> {
        options::positive_finite("tolerance", self.tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        options::at_least_one("max_line_search", self.max_line_search)?;
        if let NsnRhoStrategy::Constant(rho) = self.rho_strategy {
            options::positive_finite("rho_strategy", rho)?;
        }
        if !self.regularization.is_finite() || self.regularization < 0.0 {
            return Err(NumericsError::InvalidOption {
                name: "regularization",
                reason: "must be finite and non-negative",
            });
        }
        Ok(())
    }
}

/// Semismooth Newton solver of the global 3D frictional contact problem on the Alart–Curnier
/// formulation in `(v, r)` (Siconos `gfc3d_nonsmooth_Newton_AlartCurnier`,
/// `SICONOS_GLOBAL_FRICTION_3D_NSN_AC`).
///
/// With `u = Hᵀ v + b` eliminated, the equation is
///
/// `F(v, r) = [ M v − q − H r ; Φ(Hᵀ v + b, r) ] = 0`,
///
/// where `Φ` stacks the one-contact Alart–Curnier functions (the crate's local
/// [`NsnAcSolver`](crate::fc::nsn_ac::NsnAcSolver) uses the same function and its blocks
/// `A = ∂Φ/∂u`, `B = ∂Φ/∂r`). An element of the generalized Jacobian is
///
/// `J = [ M , −H ; A Hᵀ , B ]`   (`(n + 3nc) × (n + 3nc)`),
///
/// assembled in compressed columns on a fixed pattern (that of `M`, of `H`, of the 3 rows of
/// `A_c Hᵀ` on the rows of `H` each contact touches, of the 3×3 blocks `B_c`, and the diagonal),
/// and factorized by faer's sparse LU: the symbolic analysis (ordering, elimination structure)
/// is computed once per solve and kept, the numeric factorization is redone at each iteration.
/// The step solves `(J + ε s I) Δ = −F` (see [`GlobalNsnAcOptions::regularization`]; when it
/// fails or is not finite, the shifts `10⁻⁹ s, 10⁻⁶ s, 10⁻³ s` are tried). A line search on
/// `ψ = ½‖F‖²` ([`NsnLineSearch`], Goldstein–Price by default; the full step when it fails, as
/// Siconos) sets `(v, r) ← (v, r) + tΔ`. The stopping test is the global error
/// [`GlobalFcProblem::compute_error`](super::GlobalFcProblem::compute_error) `≤ tolerance`,
/// at every iteration.
///
/// Difference with Siconos 4.4: its default formulation is the "Jean–Moreau" variant of the
/// function (friction disk radius `μ r_N⁺` instead of `μ (r_N − ρ u_N)⁺`) and it keeps `u` as a
/// third unknown (`n + 6nc` unknowns); both functions vanish exactly at the solutions.
///
/// Status: `Converged`; `MaxIterations`; `NumericalBreakdown` when no shift gives a finite
/// step or an iterate is not finite. The report's residual is the global error at the returned
/// `(r, u, v)`.
#[derive(Debug)]
#[doc(alias = "gfc3d_nonsmooth_Newton_AlartCurnier")]
#[doc(alias = "GFC3D_NSN_AC")]
pub struct GlobalNsnAcSolver {
    options: GlobalNsnAcOptions,
}

impl GlobalNsnAcSolver {
    /// Builds a solver.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for a non-positive or non-finite tolerance or `ρ`, a
    /// zero iteration or line-search cap, or a negative or non-finite regularization.
    pub fn new(options: GlobalNsnAcOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self { options })
    }

    /// The options.
    pub fn options(&self) -> &GlobalNsnAcOptions {
        &self.options
    }

    /// Solves `problem`: `r` (`3nc`) and `v` (`n`) are the warm start on entry and the solution
    /// on exit; `u` (`3nc`) is overwritten with `Hᵀ v + b`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] for wrong lengths, [`NumericsError::NonFinite`] for
    /// a non-finite warm start, [`NumericsError::Singular`] when `M` is singular (checked by one
    /// factorization, [`MassFactorization`]) or the symbolic analysis of `J` fails. Non-convergence is a status of the report.
    pub fn solve(
        &mut self,
        problem: &GlobalFc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
        v: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        let (n, m) = (problem.velocity_size(), problem.size());
        check_len("global nsn-ac reaction r", r, m)?;
        check_len("global nsn-ac local velocity u", u, m)?;
        check_len("global nsn-ac global velocity v", v, n)?;
        check_finite("global nsn-ac reaction r (warm start)", r)?;
        check_finite("global nsn-ac global velocity v (warm start)", v)?;
        let o = &self.options;
        // The method needs M invertible (as Siconos assumes): checked once by factorizing it.
        let factor = MassFactorization::new(problem.m())?;
        let mut sys = JacobianSystem::new(problem)?;
        let total = n + m;
        let nc = problem.number_of_contacts();
        let rho = contact_rho(problem, &factor, o.rho_strategy)?;
        let mu = problem.mu();
        let mut f = vec![0.0; total];
        let mut direction = vec![0.0; total];
        let mut linear_step = vec![0.0; n];
        let mut ht_step = vec![0.0; m];
        let mut f_trial = vec![0.0; total];
        let mut u_trial = vec![0.0; m];
        let mut r_trial = vec![0.0; m];
        let mut a = vec![[[0.0; 3]; 3]; nc];
        let mut b = vec![[[0.0; 3]; 3]; nc];

        let mut error = problem.compute_error(r, u, v)?;
        if !error.is_finite() {
            return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, 0, error));
        }
        if error <= o.tolerance {
            return Ok(SolverReport::new(SolverStatus::Converged, 0, error));
        }
        for it in 1..=o.max_iterations {
            // F = [M v − q − H r ; Φ(u, r)], u = Hᵀ v + b (set by compute_error).
            equilibrium(problem, v, r, &mut f[..n]);
            for c in 0..nc {
                let s = 3 * c;
                let (phi, ac, bc) =
                    alart_curnier_ab(&[r[s], r[s + 1], r[s + 2]], &[u[s], u[s + 1], u[s + 2]], mu[c], rho[c]);
                f[n + s..n + s + 3].copy_from_slice(&phi);
                a[c] = ac;
                b[c] = bc;
            }
            let psi0 = 0.5 * f.iter().map(|x| x * x).sum::<f64>();
            sys.fill(&a, &b);
            let scale = sys.diagonal_scale();
            let mut solved = false;
            let first = o.regularization;
            for (k, lambda) in [first, 1e-9, 1e-6, 1e-3].into_iter().enumerate() {
                if k > 0 && lambda <= first {
                    continue;
                }
                for (d, x) in direction.iter_mut().zip(&f) {
                    *d = -x;
                }
                if sys.factor_and_solve(lambda * scale, &mut direction) && direction.iter().all(|x| x.is_finite()) {
                    solved = true;
                    break;
                }
            }
            if !solved {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, error));
            }
            let (dv, dr) = direction.split_at(n);
            // The equilibrium rows are linear: F_eq(x + tΔ) = F_eq + t (M Δv − H Δr).
            equilibrium_linear(problem, dv, dr, &mut linear_step);
            ht_step.fill(0.0);
            problem.h().gemv_transpose(1.0, dv, 0.0, &mut ht_step);
            let slope = -2.0 * psi0;
            let mut t = 1.0;
            let (mut t_min, mut t_max) = (0.0, 1e10);
            let mut accepted = false;
            for _ in 0..o.max_line_search {
                let psi = trial_merit(
                    problem,
                    &rho,
                    t,
                    (&f[..n], &linear_step),
                    (r, dr, &mut r_trial),
                    (u, &ht_step, &mut u_trial),
                    &mut f_trial,
                );
                match o.line_search {
                    NsnLineSearch::NonMonotoneArmijo => {
                        if psi <= psi0 + 1e-4 * t * slope {
                            accepted = true;
                            break;
                        }
                        t *= 0.5;
                    }
                    _ => {
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
            for (x, d) in v.iter_mut().zip(dv) {
                *x += t * d;
            }
            for (x, d) in r.iter_mut().zip(dr) {
                *x += t * d;
            }
            error = problem.compute_error(r, u, v)?;
            if !error.is_finite() || !r.iter().chain(v.iter()).all(|x| x.is_finite()) {
                return Ok(SolverReport::new(SolverStatus::NumericalBreakdown, it, error));
            }
            if error <= o.tolerance {
                return Ok(SolverReport::new(SolverStatus::Converged, it, error));
            }
        }
        Ok(SolverReport::new(SolverStatus::MaxIterations, o.max_iterations, error))
    }
}

/// The per-contact `[ρ_N, ρ_T]`: constant, or `1/λ_max(W_cc)` with `W_cc = H_cᵀ M⁻¹ H_c`
/// (`ρ = 1` when that is not positive and finite), computed by solving `M X = H_c` for the
/// three columns of each contact.
fn contact_rho(
    problem: &GlobalFc3dProblem,
    factor: &MassFactorization,
    strategy: NsnRhoStrategy,
) -> Result<Vec<[f64; 2]>, NumericsError> {
    let nc = problem.number_of_contacts();
    let value = match strategy {
        NsnRhoStrategy::Constant(rho) => return Ok(vec![[rho; 2]; nc]),
        _ => 1.0,
    };
    let n = problem.velocity_size();
    let H: CsMat<f64> = problem.h().to_csc();
    let mut x = faer::Mat::<f64>::zeros(n, 3);
    let mut out = Vec::with_capacity(nc);
    for c in 0..nc {
        x.fill(0.0);
        for l in 0..3 {
            if let Some(col) = H.outer_view(3 * c + l) {
                for (i, &h) in col.iter() {
                    x[(i, l)] = h;
                }
            }
        }
        factor.solve_columns_in_place(x.as_mut())?;
        let mut w = [[0.0; 3]; 3];
        for (k, row) in w.iter_mut().enumerate() {
            if let Some(col) = H.outer_view(3 * c + k) {
                for (l, wkl) in row.iter_mut().enumerate() {
                    *wkl = col.iter().map(|(i, &h)| h * x[(i, l)]).sum();
                }
            }
        }
        let lambda = largest_eigenvalue_3x3(&w);
        let rho = if lambda.is_finite() && lambda > 0.0 { 1.0 / lambda } else { value };
        out.push([rho; 2]);
    }
    Ok(out)
}

/// `out ← M v − q − H r`.
fn equilibrium(problem: &GlobalFc3dProblem, v: &[f64], r: &[f64], out: &mut [f64]) {
    for (o, q) in out.iter_mut().zip(problem.q()) {
        *o = -q;
    }
    problem.m().gemv(1.0, v, 1.0, out);
    if !r.is_empty() {
        problem.h().gemv(-1.0, r, 1.0, out);
    }
}

/// `out ← M Δv − H Δr`.
fn equilibrium_linear(problem: &GlobalFc3dProblem, dv: &[f64], dr: &[f64], out: &mut [f64]) {
    problem.m().gemv(1.0, dv, 0.0, out);
    if !dr.is_empty() {
        problem.h().gemv(-1.0, dr, 1.0, out);
    }
}

/// `ψ(x + tΔ) = ½‖F(x + tΔ)‖²` (`+∞` when not finite), using that the equilibrium rows and
/// `u = Hᵀ v + b` are affine in `t`.
fn trial_merit(
    problem: &GlobalFc3dProblem,
    rho: &[[f64; 2]],
    t: f64,
    (f_eq, linear_step): (&[f64], &[f64]),
    (r, dr, r_trial): (&[f64], &[f64], &mut [f64]),
    (u, ht_step, u_trial): (&[f64], &[f64], &mut [f64]),
    f_trial: &mut [f64],
) -> f64 {
    let n = f_eq.len();
    let mut sum = 0.0;
    for ((x, f), l) in f_trial[..n].iter_mut().zip(f_eq).zip(linear_step) {
        *x = f + t * l;
        sum += *x * *x;
    }
    for ((x, ri), di) in r_trial.iter_mut().zip(r).zip(dr) {
        *x = ri + t * di;
    }
    for ((x, ui), di) in u_trial.iter_mut().zip(u).zip(ht_step) {
        *x = ui + t * di;
    }
    for (c, &mu) in problem.mu().iter().enumerate() {
        let s = 3 * c;
        let (phi, _, _) = alart_curnier_ab(
            &[r_trial[s], r_trial[s + 1], r_trial[s + 2]],
            &[u_trial[s], u_trial[s + 1], u_trial[s + 2]],
            mu,
            rho[c],
        );
        sum += phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2];
    }
    let psi = 0.5 * sum;
    if psi.is_finite() { psi } else { f64::INFINITY }
}

/// faer's scratch memory.
struct Scratch(MemBuffer);

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

/// Where each term of `J` goes in the compressed-column values (entries with the same position
/// are summed).
#[derive(Debug)]
struct JacobianSystem {
    n: usize,
    pattern: SymbolicSparseColMat<usize>,
    values: Vec<f64>,
    /// `(slot, value)` of each stored entry of `M` (block `(0, 0)`).
    m_slots: Vec<(usize, f64)>,
    /// `(slot, value)` of each stored entry of `−H` (block `(0, 1)`).
    h_slots: Vec<(usize, f64)>,
    /// Per contact: the rows `j` of `H` its 3 columns touch, with `(H_{j,3c}, H_{j,3c+1},
    /// H_{j,3c+2})` and the slots of `(A_c Hᵀ)_{k, j}`, `k = 0, 1, 2`.
    ah: Vec<Vec<([f64; 3], [usize; 3])>>,
    /// Per contact: the slots of `B_c` (row-major).
    b_slots: Vec<[[usize; 3]; 3]>,
    /// The slot of each diagonal entry.
    diag_slots: Vec<usize>,
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
    mem: Scratch,
    /// `J` without the shift (the values are refilled from it at each retry).
    base: Vec<f64>,
}

impl JacobianSystem {
    fn new(problem: &GlobalFc3dProblem) -> Result<Self, NumericsError> {
        let (n, m) = (problem.velocity_size(), problem.size());
        let total = n + m;
        let nc = problem.number_of_contacts();
        let M: CsMat<f64> = problem.m().to_csc();
        let H: CsMat<f64> = problem.h().to_csc();
        // Entries (col, row, source); sources are resolved to slots after sorting.
        #[derive(Clone, Copy)]
        enum Src {
            M(usize),
            H(usize),
            Ah(usize, usize, usize),
            B(usize, usize, usize),
            Diag(usize),
        }
        let mut entries: Vec<(usize, usize, Src)> = Vec::new();
        let mut m_vals = Vec::new();
        for (j, col) in M.outer_iterator().enumerate() {
            for (i, &x) in col.iter() {
                entries.push((j, i, Src::M(m_vals.len())));
                m_vals.push(x);
            }
        }
        let mut h_vals = Vec::new();
        for (j, col) in H.outer_iterator().enumerate() {
            for (i, &x) in col.iter() {
                entries.push((n + j, i, Src::H(h_vals.len())));
                h_vals.push(-x);
            }
        }
        let mut ah: Vec<Vec<([f64; 3], [usize; 3])>> = Vec::with_capacity(nc);
        for c in 0..nc {
            let mut rows: Vec<(usize, [f64; 3])> = Vec::new();
            for l in 0..3 {
                if let Some(col) = H.outer_view(3 * c + l) {
                    for (i, &x) in col.iter() {
                        match rows.iter_mut().find(|(j, _)| *j == i) {
                            Some((_, h)) => h[l] = x,
                            None => {
                                let mut h = [0.0; 3];
                                h[l] = x;
                                rows.push((i, h));
                            }
                        }
                    }
                }
            }
            for (idx, &(j, _)) in rows.iter().enumerate() {
                for k in 0..3 {
                    entries.push((j, n + 3 * c + k, Src::Ah(c, idx, k)));
                }
            }
            ah.push(rows.into_iter().map(|(_, h)| (h, [0; 3])).collect());
            for k in 0..3 {
                for l in 0..3 {
                    entries.push((n + 3 * c + l, n + 3 * c + k, Src::B(c, k, l)));
                }
            }
        }
        for i in 0..total {
            entries.push((i, i, Src::Diag(i)));
        }
        entries.sort_by_key(|e| (e.0, e.1));
        let mut col_ptr = vec![0usize; total + 1];
        let mut row_idx: Vec<usize> = Vec::with_capacity(entries.len());
        let mut m_slots: Vec<(usize, f64)> = m_vals.iter().map(|&x| (0, x)).collect();
        let mut h_slots: Vec<(usize, f64)> = h_vals.iter().map(|&x| (0, x)).collect();
        let mut b_slots = vec![[[0usize; 3]; 3]; nc];
        let mut diag_slots = vec![0usize; total];
        let mut last: Option<(usize, usize)> = None;
        for &(col, row, src) in &entries {
            if last != Some((col, row)) {
                row_idx.push(row);
                col_ptr[col + 1] += 1;
                last = Some((col, row));
            }
            let slot = row_idx.len() - 1;
            match src {
                Src::M(k) => m_slots[k].0 = slot,
                Src::H(k) => h_slots[k].0 = slot,
                Src::Ah(c, idx, k) => ah[c][idx].1[k] = slot,
                Src::B(c, k, l) => b_slots[c][k][l] = slot,
                Src::Diag(i) => diag_slots[i] = slot,
            }
        }
        for j in 0..total {
            col_ptr[j + 1] += col_ptr[j];
        }
        let nnz = row_idx.len();
        let pattern = SymbolicSparseColMat::new_checked(total, total, col_ptr, None, row_idx);
        let symbolic = factorize_symbolic_lu(pattern.as_ref(), LuSymbolicParams::default())
            .map_err(|_| NumericsError::Singular { what: "global nsn-ac jacobian (symbolic lu)" })?;
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        Ok(Self {
            n,
            pattern,
            values: vec![0.0; nnz],
            m_slots,
            h_slots,
            ah,
            b_slots,
            diag_slots,
            symbolic,
            numeric: NumericLu::new(),
            mem: Scratch(MemBuffer::new(req)),
            base: vec![0.0; nnz],
        })
    }

    /// Fills `J = [M, −H; A Hᵀ, B]` (unshifted) into `base`.
    fn fill(&mut self, a: &[[[f64; 3]; 3]], b: &[[[f64; 3]; 3]]) {
        let base = &mut self.base;
        base.fill(0.0);
        for &(slot, x) in self.m_slots.iter().chain(&self.h_slots) {
            base[slot] += x;
        }
        for (c, rows) in self.ah.iter().enumerate() {
            let ac = &a[c];
            for (h, slots) in rows {
                for k in 0..3 {
                    base[slots[k]] += ac[k][0] * h[0] + ac[k][1] * h[1] + ac[k][2] * h[2];
                }
            }
            for k in 0..3 {
                for l in 0..3 {
                    base[self.b_slots[c][k][l]] += b[c][k][l];
                }
            }
        }
    }

    /// `max(1, max_i |J_ii|)`.
    fn diagonal_scale(&self) -> f64 {
        self.diag_slots.iter().fold(1.0f64, |s, &k| s.max(self.base[k].abs()))
    }

    /// Factorizes `J + λ I` and solves `(J + λ I) x = rhs` in place; `false` when the
    /// factorization fails.
    fn factor_and_solve(&mut self, lambda: f64, rhs: &mut [f64]) -> bool {
        self.values.copy_from_slice(&self.base);
        for &k in &self.diag_slots {
            self.values[k] += lambda;
        }
        let mat = SparseColMatRef::new(self.pattern.as_ref(), &self.values);
        let stack = MemStack::new(&mut self.mem.0);
        let Ok(lu) = self.symbolic.factorize_numeric_lu(&mut self.numeric, mat, Par::Seq, stack, Default::default())
        else {
            return false;
        };
        let total = rhs.len();
        debug_assert!(total >= self.n);
        let rhs = MatMut::from_column_major_slice_mut(rhs, total, 1);
        lu.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, stack);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::NumericsMatrix;
    use faer::Mat;

    fn diag(d: &[f64]) -> NumericsMatrix {
        NumericsMatrix::Dense(Mat::from_fn(d.len(), d.len(), |i, j| if i == j { d[i] } else { 0.0 }))
    }

    #[test]
    fn jacobian_pattern_holds_every_block() {
        // M = diag(1, 2, 3, 4), H couples contact 0 to rows 0..3 and row 3.
        let h = NumericsMatrix::Dense(Mat::from_fn(4, 3, |i, j| if i == j || (i == 3 && j == 0) { 1.0 } else { 0.0 }));
        let p = GlobalFc3dProblem::new(diag(&[1.0, 2.0, 3.0, 4.0]), h, vec![-1.0; 4], vec![0.0; 3], vec![0.5])
            .expect("valid");
        let sys = JacobianSystem::new(&p).expect("pattern");
        // Rows of H touched by contact 0: 0, 1, 2, 3.
        assert_eq!(sys.ah[0].len(), 4);
        assert_eq!(sys.diag_slots.len(), 7);
        assert_eq!(sys.m_slots.len(), 4);
        assert_eq!(sys.h_slots.len(), 4);
    }
}
