//! Nonsmooth Gauss–Seidel (NSGS) over the contacts of a 3D frictional contact problem
//! (Siconos `fc3d_nsgs`, `numerics/src/FrictionContact/fc3d_nsgs.c`; M. Jean, "The non-smooth
//! contact dynamics method", Comput. Methods Appl. Mech. Engrg. 177, 1999; for the one-contact
//! problem each step solves, the Siconos developer documentation, "Quartic Formulation").
//!
//! Integration tests: `tests/it/fc_nsgs.rs`.

#![allow(non_snake_case)]

use rayon::prelude::*;
use sprs::CsMat;

use super::Fc3dProblem;
use super::colouring::{blocks_match_contacts, colour_contacts};
use super::compute_error::contact_error_squared;
use super::local::{
    AlartCurnierOptions, OneContactProblem, OneContactProjectionOptions, QuarticOptions, isotropic_inverse,
    solve_alart_curnier_checked, solve_isotropic, solve_projection, solve_quartic, take_off_or_stick,
};
use super::sweep::{self, ContactOperator, Contacts, Halves, Reactions, Schedule, Workspace};
use crate::matrix::{NumericsMatrix, SparseBlockMatrix, norm2};
use crate::options;
use crate::parallelism::{Executor, SolverThreads};
use crate::{NumericsError, Parallelism, SolverReport, SolverStatus};

/// The one-contact solver NSGS runs on each contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum NsgsLocalSolver {
    /// Semismooth Newton on the Alart–Curnier function with the projection fallback
    /// ([`solve_alart_curnier`](super::local::solve_alart_curnier); the analogue of Siconos' default local solver
    /// `SICONOS_FRICTION_3D_ONECONTACT_NSN_GP_HYBRID`) (the default).
    #[default]
    AlartCurnier,
    /// Fixed point on the cone projection ([`solve_projection`], Siconos
    /// `fc3d_projectionOnConeWithLocalIteration_solve`).
    Projection,
    /// The exact one-contact solution by enumeration of take-off, sticking and sliding, the
    /// sliding case through the roots of a quartic ([`solve_quartic`], Siconos
    /// `SICONOS_FRICTION_3D_ONECONTACT_QUARTIC`, `fc3d_unitary_enumerative_solve`). The best
    /// candidate is always taken, even when its local error exceeds `local_tolerance`.
    Quartic,
}

/// When NSGS evaluates which error (Siconos' `SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum NsgsErrorEvaluation {
    /// The full error [`Fc3dProblem::compute_error`] every `error_evaluation_frequency` sweeps
    /// and after the last one, tested against `tolerance` (Siconos
    /// `SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_FULL`) (the default).
    #[default]
    Full,
    /// Siconos' default `SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_LIGHT_WITH_FULL_FINAL`: after
    /// each sweep the light (increment) error `sqrt(Σ_c ‖r_c^new − r_c^old‖²) / ‖r‖` (unscaled
    /// when `‖r‖ ≤ DBL_EPSILON`) is compared with a working tolerance, initially `tolerance`.
    /// When it drops below, the full error is computed: at or below `tolerance` the solve has
    /// converged; otherwise the working tolerance becomes `light / full · tolerance` and the
    /// sweeps go on. `error_evaluation_frequency` is not used. Unlike Siconos 4.4, reaching the
    /// sweep cap is never reported as converged unless the final full error is at or below
    /// `tolerance`.
    LightWithFullFinal,
}

/// How the sweeps of [`Parallelism::Rayon`] ([`NsgsOptions::parallelism`]) run in parallel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum NsgsSchedule {
    /// Colour by colour ([`colour_contacts`]): a Gauss–Seidel sweep in colour order (the
    /// default). One parallel step per colour and sweep.
    #[default]
    Colours,
    /// Two halves and a separator: the contacts are split in natural order into a first part
    /// `A`, the contacts after it coupled with `A` (the separator `S`), and the rest `B`, which is
    /// not coupled with `A` (`A` ends at `(nc − s) / 2`, with `s` the size of the separator of
    /// the split at `nc / 2`, so that `A` and `B` are about as large). A sweep updates `A` and
    /// `B` at the same time (each in natural order; a `rayon::join` per sweep), then `S` in
    /// natural order: a Gauss–Seidel sweep in the order `A, B, S`, the same numbers for every
    /// thread count, with a single parallel step per sweep. With Anderson acceleration its two
    /// passes over the vectors run on the parts as well (the first-pass sums are added in the
    /// order `A, B, S`). It keeps the caller's order within
    /// each part (e.g. top-down in a pile ordered by height, where `S` is a layer at
    /// mid-height). For sparse-block `W` with 3×3 blocks, without shuffling (otherwise the
    /// colour schedule), from 4096 contacts on; smaller problems and other storages are swept
    /// sequentially in natural order.
    Halves,
}

/// Options of [`NsgsSolver`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NsgsOptions {
    /// Maximum number of sweeps over the contacts (default: 1000, Siconos' NSGS default). At
    /// least 1.
    pub max_iterations: usize,
    /// Stop when [`Fc3dProblem::compute_error`] is at or below this (default: 1e-4, Siconos' NSGS
    /// default). Positive and finite.
    pub tolerance: f64,
    /// The one-contact solver (default: [`NsgsLocalSolver::AlartCurnier`]).
    pub local_solver: NsgsLocalSolver,
    /// Tolerance of the one-contact solver on [`OneContactProblem::error`] (default: 1e-14, the
    /// tolerance of Siconos' internal solver). Positive and finite.
    pub local_tolerance: f64,
    /// Iteration cap of the one-contact solver per visit of a contact (default: 10, Siconos'
    /// internal solver cap; not used by [`NsgsLocalSolver::Quartic`]). At least 1.
    pub local_max_iterations: usize,
    /// Relaxation `ω ∈ (0, 2)`: `r_c ← ω r_c^local + (1 − ω) r_c` (default: 1, no relaxation).
    /// `ω < 1` under-relaxes; `ω > 1` over-relaxes (SOR), which pays on piles, where the weight
    /// has to travel through many contacts, but convergence is then no longer guaranteed for
    /// every problem (too large an `ω` diverges on some pile problems).
    pub relaxation: f64,
    /// Which error is evaluated when (default: [`NsgsErrorEvaluation::Full`]: the stopping test
    /// is then exactly the reported residual, and the sweep counts compare with Siconos'
    /// NSGS run with the full error).
    pub error_evaluation: NsgsErrorEvaluation,
    /// With [`NsgsErrorEvaluation::Full`], the full error [`Fc3dProblem::compute_error`] is
    /// evaluated (and tested) every this many sweeps, and always after the last one (default: 1,
    /// every sweep). At least 1.
    pub error_evaluation_frequency: usize,
    /// Visit the contacts in a new random order at each sweep (default: false, natural order).
    /// With [`Parallelism::Rayon`], the order of the colours and the order inside each colour
    /// are shuffled.
    pub shuffle: bool,
    /// Seed of the shuffling generator (`StdRng::seed_from_u64`), reset at each solve
    /// (default: 0).
    pub shuffle_seed: u64,
    /// Who runs the sweeps (default: [`Parallelism::Sequential`], the natural order on the
    /// calling thread). [`Parallelism::Rayon`] selects the parallel [`NsgsOptions::schedule`]
    /// and runs it on a thread pool that the solver owns (built at its first parallel solve
    /// with that many threads, kept for the next ones; never rayon's global pool): colour by
    /// colour ([`colour_contacts`]), a Gauss–Seidel sweep in colour order whose result differs
    /// from the natural-order sweep, or in two halves ([`NsgsSchedule::Halves`]). Either way the
    /// numbers are the same for every thread count. With the colours, without shuffling and
    /// from 1024 contacts on, the sweeps run on a copy of the problem whose contacts are
    /// renumbered colour by colour (each colour a contiguous range of `W`, `q`, `r`), and the
    /// stopping test is evaluated in parallel too; the returned `r`, `u` and residual are those
    /// of the original problem. In the halves schedule the solver times its sweeps with the two
    /// halves run at the same time and one after the other, and takes the faster (the numbers
    /// do not change): on a machine whose other cores are busy, the parallel sweeps can lose.
    pub parallelism: Parallelism,
    /// The parallel schedule of [`Parallelism::Rayon`] (default: [`NsgsSchedule::Colours`]).
    pub schedule: NsgsSchedule,
    /// With [`Parallelism::Rayon`], colours with fewer contacts than this are updated sequentially, where
    /// rayon's scheduling would cost more than it saves; the numbers are the same either way
    /// (default: 1024). A contact update is short next to rayon's scheduling cost, so only
    /// colours of many hundreds of contacts gain. 0 and 1 mean every colour goes through rayon.
    pub parallel_min_colour_size: usize,
    /// Anderson acceleration of the sweeps with this history length `m` (default: 0, off; at
    /// most 8). After each sweep `g_k = G(x_k)` the next iterate is `g_k − ΔG γ`,
    /// `γ = argmin ‖f_k − ΔF γ‖₂` over the last `m` differences of `f = G(x) − x` and `g`
    /// (Walker–Ni type II, see `fc/anderson.rs`), projected on the cones, with a restart when
    /// `‖f‖` grows by more than 1.5 in one sweep, and switched off for the rest of the solve
    /// when `‖f‖` has not halved in 50 sweeps (on a few pile problems the extrapolation
    /// stagnates where plain sweeps converge). The stopping tests are those of
    /// [`NsgsErrorEvaluation`], applied to the sweep's output `g_k` (which is what is returned).
    /// Not in Siconos. On the sphere piles it cuts the sweeps severalfold, with or without
    /// over-relaxation (`tests/it/fc_nsgs.rs` checks the gain on a column of spheres). It stores
    /// `2m + 3` vectors of the problem's size (one more with [`NsgsOptions::anderson_period`]
    /// above 1) and reads them in two passes per extrapolation, a fraction of a sweep's cost.
    pub anderson_memory: usize,
    /// With Anderson acceleration, extrapolate every this many sweeps (default: 1, after each
    /// sweep): the acceleration then works on the map `G^p` of `p` sweeps, with `f` the sum of
    /// their increments, and its two passes (and the stall count of 50, counted in
    /// extrapolations) come once per `p` sweeps. At least 1. The scenes of the mechanics crate
    /// use `p = 2`, which took fewer sweeps than 1, 3 or 4 on their sphere piles.
    pub anderson_period: usize,
    /// Every this many sweeps, evaluate the full error [`Fc3dProblem::compute_error`] and, when
    /// it is larger than at the previous evaluation, go on with plain Gauss–Seidel sweeps for
    /// the rest of the solve: `ω = 1` and no Anderson acceleration (Siconos' `fc3d_nsgs` with
    /// its defaults). Over-relaxation and extrapolation cut the sweeps on most pile problems but
    /// can make the iterates cycle around the solution without reaching the tolerance, where
    /// plain sweeps converge (the full error then goes up and down instead of decreasing); a
    /// solve whose error keeps decreasing is not touched. 0 never checks (default; Siconos'
    /// behaviour). The check costs one evaluation of `W r + q` per period and is skipped once
    /// the sweeps are plain (`ω = 1` without acceleration).
    pub plain_fallback_period: usize,
    /// With [`NsgsOptions::plain_fallback_period`]: when the plain sweeps' full error has grown
    /// too, start once more from zero reactions with the options' sweeps (default: false). A
    /// warm start far from every solution of a nearly singular problem (a settling heap) can
    /// trap the iterates in a slow cycle that a start from zero avoids.
    pub cold_restart: bool,
    /// While the sweeps are over-relaxed (`ω ≠ 1`), evaluate each full error on the output of
    /// one more, plain, sweep (`ω = 1`, no extrapolation) done on a copy of the iterate, and
    /// return that copy when it passes (default: false, Siconos' behaviour). A relaxed update
    /// `r_c ← r_c + ω (s_c − r_c)` (successive over-relaxation: Y. Saad, *Iterative Methods for
    /// Sparse Linear Systems*, 2nd ed., SIAM 2003, §4.1) leaves contact `c` off its local
    /// solution `s_c` by `(ω − 1)(s_c − r_c)`, so the full error of a relaxed iterate counts
    /// the relaxation's overshoot as well as the distance to a solution; after a plain sweep
    /// each contact's local problem holds up to the later updates of its neighbours. The
    /// iteration itself is unchanged (the copy is dropped when it does not pass); each check
    /// costs one more sweep, counted in the report's iterations. Meant for
    /// [`NsgsErrorEvaluation::LightWithFullFinal`], which evaluates the full error only once
    /// the increments are small; with [`NsgsErrorEvaluation::Full`] every `f` sweeps it adds a
    /// sweep per `f`.
    pub plain_check_sweep: bool,
}

impl Default for NsgsOptions {
    fn default() -> Self {
        Self {
            max_iterations: 1000,
            tolerance: 1e-4,
            local_solver: NsgsLocalSolver::AlartCurnier,
            local_tolerance: 1e-14,
            local_max_iterations: 10,
            relaxation: 1.0,
            error_evaluation: NsgsErrorEvaluation::Full,
            error_evaluation_frequency: 1,
            shuffle: false,
            shuffle_seed: 0,
            parallelism: Parallelism::Sequential,
            schedule: NsgsSchedule::Colours,
            parallel_min_colour_size: 1024,
            anderson_memory: 0,
            anderson_period: 1,
            plain_fallback_period: 0,
            cold_restart: false,
            plain_check_sweep: false,
        }
    }
}

impl NsgsOptions {
    /// Sets [`NsgsOptions::plain_fallback_period`].
    pub fn with_plain_fallback_period(mut self, period: usize) -> Self {
        self.plain_fallback_period = period;
        self
    }

    /// Sets [`NsgsOptions::cold_restart`].
    pub fn with_cold_restart(mut self, cold_restart: bool) -> Self {
        self.cold_restart = cold_restart;
        self
    }

    /// Sets [`NsgsOptions::plain_check_sweep`].
    pub fn with_plain_check_sweep(mut self, plain_check_sweep: bool) -> Self {
        self.plain_check_sweep = plain_check_sweep;
        self
    }

    /// Sets [`NsgsOptions::tolerance`].
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`NsgsOptions::max_iterations`].
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`NsgsOptions::local_solver`].
    pub fn with_local_solver(mut self, local_solver: NsgsLocalSolver) -> Self {
        self.local_solver = local_solver;
        self
    }

    /// Sets [`NsgsOptions::relaxation`].
    pub fn with_relaxation(mut self, relaxation: f64) -> Self {
        self.relaxation = relaxation;
        self
    }

    /// Sets [`NsgsOptions::shuffle`] and [`NsgsOptions::shuffle_seed`].
    pub fn with_shuffle(mut self, shuffle: bool, seed: u64) -> Self {
        self.shuffle = shuffle;
        self.shuffle_seed = seed;
        self
    }

    /// Sets [`NsgsOptions::error_evaluation`].
    pub fn with_error_evaluation(mut self, error_evaluation: NsgsErrorEvaluation) -> Self {
        self.error_evaluation = error_evaluation;
        self
    }

    /// Sets [`NsgsOptions::parallelism`].
    pub fn with_parallelism(mut self, parallelism: Parallelism) -> Self {
        self.parallelism = parallelism;
        self
    }

    /// Sets [`NsgsOptions::schedule`].
    pub fn with_schedule(mut self, schedule: NsgsSchedule) -> Self {
        self.schedule = schedule;
        self
    }

    /// Sets [`NsgsOptions::parallel_min_colour_size`].
    pub fn with_parallel_min_colour_size(mut self, size: usize) -> Self {
        self.parallel_min_colour_size = size;
        self
    }

    /// Sets [`NsgsOptions::anderson_memory`].
    pub fn with_anderson_memory(mut self, memory: usize) -> Self {
        self.anderson_memory = memory;
        self
    }

    /// Sets [`NsgsOptions::anderson_period`].
    pub fn with_anderson_period(mut self, period: usize) -> Self {
        self.anderson_period = period;
        self
    }

    pub(crate) fn validate(&self) -> Result<(), NumericsError> {
        if self.anderson_memory > super::anderson::MAX_MEMORY {
            return Err(NumericsError::InvalidOption { name: "anderson_memory", reason: "must be at most 8" });
        }
        options::positive_finite("tolerance", self.tolerance)?;
        options::positive_finite("local_tolerance", self.local_tolerance)?;
        options::at_least_one("max_iterations", self.max_iterations)?;
        options::at_least_one("local_max_iterations", self.local_max_iterations)?;
        if !(self.relaxation > 0.0 && self.relaxation < 2.0) {
            return Err(NumericsError::InvalidOption { name: "relaxation", reason: "must lie in (0, 2)" });
        }
        options::at_least_one("error_evaluation_frequency", self.error_evaluation_frequency)?;
        options::at_least_one("anderson_period", self.anderson_period)?;
        self.parallelism.validate()
    }
}

/// [`NsgsSchedule::Halves`] sweeps in parallel from this many contacts on, and sequentially
/// (in natural order) below: on smaller problems (whose `W` fits in a core's L2 cache) a sweep
/// in halves took as long as a sequential one and the split order needed a few more sweeps;
/// larger problems gain (figures in `docs/performance-notes.md`).
pub(crate) const HALVES_MIN_CONTACTS: usize = 4096;

/// Parallel NSGS renumbers the contacts colour by colour (see [`NsgsOptions::parallelism`]) from
/// this many contacts on; below, the copy costs more than the locality gains.
const RENUMBER_MIN_CONTACTS: usize = 1024;

/// How the off-diagonal row products `Σ_{d≠c} W_cd r_d` of a contact are taken.
#[derive(Debug)]
pub(crate) enum RowAccess {
    /// Dense `W`: a row-major copy made once per solve (`rows[i·n + j] = W_ij`), so that a
    /// contact's rows are contiguous slices (faer stores `W` column-major).
    Dense(Vec<f64>),
    /// Sparse-block `W` with `D×D` blocks, block row `c` = contact `c`, read in place.
    Blocks,
    /// Any other storage: a CSR copy made once per solve.
    Csr(CsMat<f64>),
}

/// Read access to the contact rows of `W` for Gauss–Seidel over contacts of dimension `D`
/// (Siconos `fc3d_local_problem_compute_q` and `fc3d_local_problem_fill_M`).
#[derive(Debug)]
pub(crate) struct ContactRows<'a, const D: usize> {
    w: &'a NumericsMatrix,
    access: RowAccess,
}

impl<'a, const D: usize> ContactRows<'a, D> {
    /// Chooses the access for `W` (`D·nc × D·nc`).
    pub(crate) fn new(w: &'a NumericsMatrix, nc: usize) -> Self {
        let access = match w {
            NumericsMatrix::Dense(m) => {
                let n = m.ncols();
                let mut rows = vec![0.0; m.nrows() * n];
                for j in 0..n {
                    for (i, &v) in m.col_as_slice(j).iter().enumerate() {
                        rows[i * n + j] = v;
                    }
                }
                RowAccess::Dense(rows)
            }
            NumericsMatrix::SparseBlock(m) if blocks_match_contacts(m, nc, D) => RowAccess::Blocks,
            other => RowAccess::Csr(other.to_csr()),
        };
        Self { w, access }
    }

    /// The diagonal block `W_cc`, row-major (zero when a sparse-block `W` does not store it).
    ///
    /// # Errors
    /// As [`NumericsMatrix::diagonal_block`] (not for a problem's own `W`).
    pub(crate) fn diagonal_block(&self, c: usize) -> Result<[[f64; D]; D], NumericsError> {
        let mut b = [[0.0; D]; D];
        match (self.w, &self.access) {
            (NumericsMatrix::SparseBlock(m), RowAccess::Blocks) => {
                if let Some(blk) = m.diagonal_block(c) {
                    // Column-major D×D block.
                    for (i, row) in b.iter_mut().enumerate() {
                        for (j, v) in row.iter_mut().enumerate() {
                            *v = blk[i + D * j];
                        }
                    }
                }
            }
            (_, RowAccess::Dense(rows)) => {
                let n = self.w.ncols();
                for (i, row) in b.iter_mut().enumerate() {
                    let start = (D * c + i) * n + D * c;
                    row.copy_from_slice(&rows[start..start + D]);
                }
            }
            _ => {
                let blk = self.w.diagonal_block(D * c, D)?;
                for (i, row) in b.iter_mut().enumerate() {
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = blk[(i, j)];
                    }
                }
            }
        }
        Ok(b)
    }

    /// `q_loc += Σ_{d≠c} W_cd r_d` (the diagonal block is skipped).
    pub(crate) fn add_off_diagonal(&self, c: usize, r: &[f64], q_loc: &mut [f64; D]) {
        let s = D * c;
        let n = r.len();
        match (self.w, &self.access) {
            (_, RowAccess::Dense(rows)) => {
                for (k, ql) in q_loc.iter_mut().enumerate() {
                    let row = &rows[(s + k) * n..(s + k + 1) * n];
                    let before: f64 = row[..s].iter().zip(&r[..s]).map(|(a, b)| a * b).sum();
                    let after: f64 = row[s + D..].iter().zip(&r[s + D..]).map(|(a, b)| a * b).sum();
                    *ql += before + after;
                }
            }
            (NumericsMatrix::SparseBlock(m), RowAccess::Blocks) => {
                // `blocks_match_contacts` made every block D×D, so block `k` is
                // `values[D²k .. D²(k+1)]` (column-major) and block column `j` reads `r[Dj .. Dj+D]`;
                // the same sums, in the same order, as `SparseBlockMatrix::row_product`.
                let (row_ptr, cols, values) = (m.row_ptr(), m.col_idx(), m.values());
                for k in row_ptr[c]..row_ptr[c + 1] {
                    let j = cols[k];
                    if j == c {
                        continue;
                    }
                    let b = &values[D * D * k..D * D * (k + 1)];
                    let x = &r[D * j..D * j + D];
                    for (i, ql) in q_loc.iter_mut().enumerate() {
                        let mut s = b[i] * x[0];
                        for (l, xl) in x.iter().enumerate().skip(1) {
                            s += b[i + D * l] * xl;
                        }
                        *ql += s;
                    }
                }
            }
            (_, RowAccess::Csr(csr)) => {
                for (k, ql) in q_loc.iter_mut().enumerate() {
                    if let Some(row) = csr.outer_view(s + k) {
                        for (j, &v) in row.iter() {
                            if j < s || j >= s + D {
                                *ql += v * r[j];
                            }
                        }
                    }
                }
            }
            // `access` is `Blocks` only for sparse-block matrices (built in `new`).
            (_, RowAccess::Blocks) => {}
        }
    }
}

impl ContactRows<'_, 3> {
    /// `q_loc += Σ_{d≠c} W_cd r_d` with the reactions of a sweep's part `r` (the sums of
    /// [`ContactRows::add_off_diagonal`], in the same order). A part smaller than the whole
    /// problem is only swept on a sparse-block `W` (the halves schedule).
    #[inline(always)]
    pub(crate) fn add_off_diagonal_of(&self, c: usize, r: &Reactions<'_>, q_loc: &mut [f64; 3]) {
        match (self.w, &self.access) {
            (NumericsMatrix::SparseBlock(m), RowAccess::Blocks) => {
                let (row_ptr, cols, values) = (m.row_ptr(), m.col_idx(), m.values());
                for k in row_ptr[c]..row_ptr[c + 1] {
                    let j = cols[k];
                    if j == c {
                        continue;
                    }
                    let b = &values[9 * k..9 * (k + 1)];
                    let x = r.of(j);
                    for (i, ql) in q_loc.iter_mut().enumerate() {
                        let mut s = b[i] * x[0];
                        s += b[i + 3] * x[1];
                        s += b[i + 6] * x[2];
                        *ql += s;
                    }
                }
            }
            _ => self.add_off_diagonal(c, r.own, q_loc),
        }
    }
}

/// The one-contact solver with its options, built once per solve.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Local {
    AlartCurnier(AlartCurnierOptions),
    Projection(OneContactProjectionOptions),
    Quartic(QuarticOptions),
}

impl Local {
    /// The one-contact solver of `o` with its options.
    pub(crate) fn from_options(o: &NsgsOptions) -> Self {
        match o.local_solver {
            NsgsLocalSolver::AlartCurnier => Local::AlartCurnier(AlartCurnierOptions {
                tolerance: o.local_tolerance,
                max_iterations: o.local_max_iterations,
                ..AlartCurnierOptions::default()
            }),
            NsgsLocalSolver::Projection => Local::Projection(OneContactProjectionOptions {
                tolerance: o.local_tolerance,
                max_iterations: o.local_max_iterations,
                ..OneContactProjectionOptions::default()
            }),
            NsgsLocalSolver::Quartic => Local::Quartic(QuarticOptions { tolerance: o.local_tolerance }),
        }
    }
}

/// One NSGS contact update: the solution of the one-contact problem `u = W_cc r + q_loc`,
/// `K_μ ∋ r ⊥ û ∈ K_μ*`, by `local` started from `old` (in closed form when `isotropic`, the
/// [`isotropic_inverse`] of `W_cc = diag`, is given and the solver is Alart–Curnier), relaxed
/// as `ω r^local + (1 − ω) old`; `None` for non-finite data or a failed local solve.
#[inline(always)]
pub(crate) fn relaxed_local_solution(
    local: &Local,
    isotropic: Option<[f64; 2]>,
    diag: &[[f64; 3]; 3],
    q_loc: [f64; 3],
    mu: f64,
    omega: f64,
    old: [f64; 3],
) -> Option<[f64; 3]> {
    if !q_loc.iter().all(|v| v.is_finite()) {
        return None;
    }
    let w = omega;
    if let (Local::AlartCurnier(_), Some(inverse)) = (local, isotropic) {
        // W_cc = diag(a, b, b): the exact one-contact solution in closed form.
        let rc = solve_isotropic(inverse, &q_loc, mu);
        return Some([w * rc[0] + (1.0 - w) * old[0], w * rc[1] + (1.0 - w) * old[1], w * rc[2] + (1.0 - w) * old[2]]);
    }
    // The diagonal blocks and μ were validated once per solve (positive diagonal, finite).
    let problem = OneContactProblem::new_unchecked(*diag, q_loc, mu);
    let mut rc = old;
    let solved = match local {
        Local::AlartCurnier(o) => match take_off_or_stick(&problem) {
            Some(exact) => {
                rc = exact;
                Ok(())
            }
            None => solve_alart_curnier_checked(&problem, &mut rc, o).map(|_| ()),
        },
        Local::Projection(o) => solve_projection(&problem, &mut rc, o).map(|_| ()),
        Local::Quartic(o) => solve_quartic(&problem, &mut rc, o).map(|_| ()),
    };
    if solved.is_err() || !rc.iter().all(|v| v.is_finite()) {
        return None;
    }
    Some([w * rc[0] + (1.0 - w) * old[0], w * rc[1] + (1.0 - w) * old[1], w * rc[2] + (1.0 - w) * old[2]])
}

/// `‖a − b‖²` of two 3-vectors (one term of the light error).
pub(crate) fn increment_squared(a: &[f64; 3], b: &[f64]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
}

/// NSGS solver of the FC3D problem `u = W r + q`, `K_μ ∋ r_c ⊥ û_c ∈ K_μ*` for each contact
/// (Siconos `fc3d_nsgs`).
///
/// One sweep visits every contact `c` (in order, or shuffled) and, with the newest reactions,
/// forms the local problem `u_c = W_cc r_c + q_loc`, `q_loc = q_c + Σ_{d≠c} W_cd r_d`
/// (Siconos `fc3d_local_problem_compute_q`), solves it from the current `r_c` with the chosen
/// one-contact solver, and writes back `r_c ← ω r_c^local + (1 − ω) r_c`. The diagonal blocks
/// `W_cc` are extracted once per solve. The incoming `r` is the warm start.
///
/// With [`Parallelism::Rayon`] ([`NsgsOptions::parallelism`]) and the colour schedule, the contact graph is coloured once per solve
/// ([`colour_contacts`]); a sweep visits the colours in order, and the contacts of one colour,
/// which do not read each other's reactions, are solved in parallel from the same `r` and then
/// written back. That is exactly a sequential sweep in colour order.
///
/// Stopping test (see [`NsgsErrorEvaluation`]): by default the full error
/// [`Fc3dProblem::compute_error`] (Siconos' `fc3d_compute_error`, normalised by `‖q‖`)
/// `≤ tolerance`, evaluated every `error_evaluation_frequency` sweeps (Siconos'
/// `NSGS_ERROR_EVALUATION_FULL` mode); or Siconos' light error with full final check. The
/// report's residual is always the full error at the returned `r`, and `u = W r + q` on return.
///
/// Trivial case (Siconos `fc3d_checkTrivialCase` in `fc3d_driver`): when `q_N ≥ 0` for every
/// contact, `r = 0`, `u = q` is a solution; it is returned with 0 iterations.
///
/// Status: `Converged`, `MaxIterations` at the sweep cap, `Stalled` when (light error mode) a
/// sweep leaves `r` unchanged but the full error is above the tolerance, `NumericalBreakdown`
/// when a diagonal block has a non-positive diagonal entry (no one-contact problem can be built;
/// reported after 0 sweeps) or an iterate becomes non-finite.
#[derive(Debug)]
pub struct NsgsSolver {
    options: NsgsOptions,
    diag: Vec<[[f64; 3]; 3]>,
    isotropic: Vec<Option<[f64; 2]>>,
    /// Per-contact error terms of [`parallel_error`].
    terms: Vec<f64>,
    /// The buffers of the sweeps (orders, colours, Anderson acceleration).
    workspace: Workspace,
    /// The thread pool of [`Parallelism::Rayon`].
    threads: SolverThreads,
}

/// The schedule a solve takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// [`NsgsSchedule::Halves`] on a renumbered copy.
    Halves,
    /// [`NsgsSchedule::Colours`] on a copy renumbered colour by colour.
    Renumbered,
    /// [`NsgsSchedule::Colours`] in place.
    Colours,
    /// Natural (or shuffled) order on the calling thread.
    Natural,
}

/// The parallel layout of a renumbered problem.
enum Layout {
    /// The colour classes (contiguous ranges of contacts), [`NsgsSchedule::Colours`].
    Colours(Vec<Vec<usize>>),
    /// Contacts `0..na` (`A`), `na..na + nb` (`B`) and the rest (`S`), [`NsgsSchedule::Halves`].
    Halves { na: usize, nb: usize },
}

impl NsgsSolver {
    /// Builds a solver.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for a non-positive or non-finite tolerance, a zero
    /// iteration cap (global or local), a relaxation outside `(0, 2)`, a zero evaluation
    /// frequency or [`Parallelism::Rayon`] with 0 threads.
    pub fn new(options: NsgsOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        Ok(Self {
            options,
            diag: Vec::new(),
            isotropic: Vec::new(),
            terms: Vec::new(),
            workspace: Workspace::default(),
            threads: SolverThreads::default(),
        })
    }

    /// The options.
    pub fn options(&self) -> &NsgsOptions {
        &self.options
    }

    /// Solves `problem` from the warm start `r`; on return `r` holds the reactions and `u = W r + q`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `3·nc`,
    /// [`NumericsError::NonFinite`] for a non-finite warm start, [`NumericsError::ThreadPool`]
    /// when the pool of [`Parallelism::Rayon`] cannot be built.
    pub fn solve(
        &mut self,
        problem: &Fc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        // Renumbering pays only on large problems; the rule depends on the problem alone (not on
        // the thread count or the threshold), so the result does not either.
        let nc = problem.number_of_contacts();
        let large = nc >= RENUMBER_MIN_CONTACTS;
        let sizes_match = r.len() == problem.size() && u.len() == problem.size();
        let o = &self.options;
        let path = match (o.parallelism.is_parallel() && !o.shuffle, o.schedule, problem.w()) {
            (true, NsgsSchedule::Halves, NumericsMatrix::SparseBlock(m))
                if nc >= HALVES_MIN_CONTACTS && sizes_match && blocks_match_contacts(m, nc, 3) =>
            {
                Path::Halves
            }
            // Smaller problems and other storages: sequential sweeps in natural order.
            (true, NsgsSchedule::Halves, _) => Path::Natural,
            (true, _, _) if large && sizes_match => Path::Renumbered,
            _ if o.parallelism.is_parallel() => Path::Colours,
            _ => Path::Natural,
        };
        let parallelism = if path == Path::Natural { Parallelism::Sequential } else { o.parallelism };
        let mut threads = std::mem::take(&mut self.threads);
        let report = threads.run(parallelism, |exec| match (path, problem.w()) {
            (Path::Halves, NumericsMatrix::SparseBlock(m)) => self.solve_in_halves(problem, m, r, u, exec),
            (Path::Renumbered, _) => self.solve_renumbered(problem, r, u, exec),
            (Path::Colours, _) => self.solve_impl(problem, r, u, None, true, exec),
            _ => self.solve_impl(problem, r, u, None, false, exec),
        });
        self.threads = threads;
        report?
    }

    /// [`NsgsSchedule::Halves`]: the parts `A`, `B`, `S` (see there) of `W = m`, then the sweeps
    /// on the problem renumbered in the order `A, B, S` ([`NsgsSolver::solve_permuted`]).
    fn solve_in_halves(
        &mut self,
        problem: &Fc3dProblem,
        m: &SparseBlockMatrix,
        r: &mut [f64],
        u: &mut [f64],
        exec: &mut Executor<'_>,
    ) -> Result<SolverReport, NumericsError> {
        problem.check_solver_vectors(r, u, ["nsgs reaction r", "nsgs velocity u", "nsgs initial reaction r"])?;
        let nc = problem.number_of_contacts();
        let separator_of = |half: usize| -> Vec<bool> {
            (0..nc).map(|d| d >= half && m.row_blocks(d).any(|k| m.col_idx()[k] < half)).collect()
        };
        // Split so that A and B have about the same size: `A` = the first `(nc − |S|) / 2`
        // contacts, with `|S|` the separator of the split at `nc / 2`.
        let first = separator_of(nc / 2).iter().filter(|&&s| s).count();
        let half = (nc - first) / 2;
        let separator = separator_of(half);
        let mut perm: Vec<usize> = (0..half).collect();
        perm.extend((half..nc).filter(|&d| !separator[d]));
        let nb = perm.len() - half;
        perm.extend((half..nc).filter(|&d| separator[d]));
        self.solve_permuted(problem, &perm, Layout::Halves { na: half, nb }, r, u, exec)
    }

    /// The parallel sweep on a copy of the problem whose contacts are renumbered colour by
    /// colour, so that each colour class is a contiguous range of `W`'s block rows, `q`, `μ` and
    /// `r` (the sweeps then stream through memory instead of striding across it). The sweep
    /// order and the arithmetic of each contact update are those of [`NsgsSolver::solve_impl`]
    /// in colour order; the stopping test is evaluated on the renumbered copy, and the returned
    /// `r`, `u` and residual on the original problem (a copy's error differs from the
    /// original's only by the order of the sums; if that puts it above the tolerance, the sweeps
    /// resume with a halved tolerance).
    fn solve_renumbered(
        &mut self,
        problem: &Fc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
        exec: &mut Executor<'_>,
    ) -> Result<SolverReport, NumericsError> {
        problem.check_solver_vectors(r, u, ["nsgs reaction r", "nsgs velocity u", "nsgs initial reaction r"])?;
        let nc = problem.number_of_contacts();
        let colouring = colour_contacts(problem.w(), nc, 3)?;
        let perm: Vec<usize> = colouring.classes().concat();
        let mut classes = Vec::with_capacity(colouring.number_of_colours());
        let mut start = 0;
        for class in colouring.classes() {
            classes.push((start..start + class.len()).collect::<Vec<usize>>());
            start += class.len();
        }
        self.solve_permuted(problem, &perm, Layout::Colours(classes), r, u, exec)
    }

    /// The sweeps on a copy of `problem` whose contact `i` is contact `perm[i]`, with the parallel
    /// `layout` of the copy; the stopping test is evaluated on the copy, and the returned `r`,
    /// `u` and residual on the original problem (a copy's error differs from the original's only
    /// by the order of the sums; if that puts it above the tolerance, the sweeps resume with a
    /// halved tolerance).
    fn solve_permuted(
        &mut self,
        problem: &Fc3dProblem,
        perm: &[usize],
        layout: Layout,
        r: &mut [f64],
        u: &mut [f64],
        exec: &mut Executor<'_>,
    ) -> Result<SolverReport, NumericsError> {
        let nc = problem.number_of_contacts();
        let mut inverse = vec![0; nc];
        for (i, &c) in perm.iter().enumerate() {
            inverse[c] = i;
        }
        // A permutation of a valid problem (no second validation pass over its data).
        let permuted = Fc3dProblem::from_validated_parts(
            permute_contacts(problem.w(), perm, &inverse)?,
            perm.iter().flat_map(|&c| problem.q()[3 * c..3 * c + 3].iter().copied()).collect(),
            perm.iter().map(|&c| problem.mu()[c]).collect(),
        );
        let mut rp: Vec<f64> = perm.iter().flat_map(|&c| r[3 * c..3 * c + 3].iter().copied()).collect();
        let mut up = vec![0.0; rp.len()];
        let tolerance = self.options.tolerance;
        let mut iterations = 0;
        let mut attempts = 0;
        loop {
            let report = self.solve_impl(&permuted, &mut rp, &mut up, Some(&layout), true, exec);
            // Restore the caller's options (the retry below tightens the tolerance).
            self.options.tolerance = tolerance;
            let report = report?;
            iterations += report.iterations;
            for (i, &c) in perm.iter().enumerate() {
                r[3 * c..3 * c + 3].copy_from_slice(&rp[3 * i..3 * i + 3]);
            }
            let residual = problem.compute_error(r, u)?;
            if residual <= tolerance {
                return Ok(SolverReport::new(SolverStatus::Converged, iterations, residual));
            }
            let budget_left = iterations < self.options.max_iterations;
            if report.status != SolverStatus::Converged || !budget_left || attempts == 3 {
                let status =
                    if report.status == SolverStatus::Converged { SolverStatus::Stalled } else { report.status };
                return Ok(SolverReport::new(status, iterations, residual));
            }
            attempts += 1;
            self.options.tolerance = tolerance * 0.5f64.powi(attempts);
        }
    }

    /// The sweeps ([`sweep::iterate`] on the assembled operator) run by `exec`: in the
    /// parallel `layout` of a renumbered problem, colour by colour (`colours`), or in natural
    /// (or shuffled) order.
    fn solve_impl(
        &mut self,
        problem: &Fc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
        layout: Option<&Layout>,
        colours: bool,
        exec: &mut Executor<'_>,
    ) -> Result<SolverReport, NumericsError> {
        let nc = problem.number_of_contacts();
        problem.check_solver_vectors(r, u, ["nsgs reaction r", "nsgs velocity u", "nsgs initial reaction r"])?;
        if let Some(report) = problem.trivial_solution(r, u)? {
            return Ok(report);
        }
        let rows = ContactRows::<3>::new(problem.w(), nc);
        self.diag.clear();
        for c in 0..nc {
            self.diag.push(rows.diagonal_block(c)?);
        }
        if self.diag.iter().any(|b| (0..3).any(|i| b[i][i].is_nan() || b[i][i] <= 0.0)) {
            let residual = problem.compute_error(r, u)?;
            let status = if residual <= self.options.tolerance {
                SolverStatus::Converged
            } else {
                SolverStatus::NumericalBreakdown
            };
            return Ok(SolverReport::new(status, 0, residual));
        }
        let o = &self.options;
        let schedule = match layout {
            Some(&Layout::Halves { na, nb }) => Schedule::Halves(Halves { na, nb, va: 0, vb: 0 }),
            Some(Layout::Colours(given)) => {
                self.workspace.classes.clear();
                self.workspace.classes.extend(given.iter().cloned());
                Schedule::Colours { min_parallel: o.parallel_min_colour_size }
            }
            None if colours => {
                self.workspace.classes.clear();
                self.workspace.classes.extend(colour_contacts(problem.w(), nc, 3)?.classes().iter().cloned());
                Schedule::Colours { min_parallel: o.parallel_min_colour_size }
            }
            None => Schedule::Natural,
        };
        self.isotropic.clear();
        self.isotropic.extend(self.diag.iter().map(isotropic_inverse));
        let contacts = Contacts {
            diag: &self.diag,
            isotropic: &self.isotropic,
            mu: problem.mu(),
            local: Local::from_options(o),
            omega: o.relaxation,
        };
        let operator = Assembled { rows: &rows, q: problem.q() };
        let terms = &mut self.terms;
        // A renumbered copy (parallel mode) evaluates its stopping test in parallel; its caller
        // reports the exact error of the original problem. The sizes were checked.
        let parallel_full = layout.is_some() && o.error_evaluation == NsgsErrorEvaluation::Full;
        let mut full_error = |r: &[f64]| {
            if parallel_full {
                parallel_error(problem, r, u, terms)
            } else {
                problem.compute_error(r, u).unwrap_or(f64::NAN)
            }
        };
        Ok(sweep::iterate(
            &operator,
            &contacts,
            o,
            o.tolerance,
            schedule,
            r,
            &mut [],
            &mut self.workspace,
            exec,
            &mut full_error,
        ))
    }
}

/// The assembled `W` as a [`ContactOperator`]: the state is `r` alone, and contact `c`'s local
/// vector is `q_c + Σ_{d≠c} W_cd r_d` from its block row (Siconos
/// `fc3d_local_problem_compute_q`).
struct Assembled<'a> {
    rows: &'a ContactRows<'a, 3>,
    q: &'a [f64],
}

impl ContactOperator for Assembled<'_> {
    const SWEEP_SUMS_SQUARES: bool = false;

    #[inline(always)]
    fn local_q(
        &self,
        c: usize,
        _w_cc: &[[f64; 3]; 3],
        _rc: [f64; 3],
        r: &Reactions<'_>,
        _w: &[f64],
        _w_base: usize,
    ) -> Option<[f64; 3]> {
        let s = 3 * c;
        let mut q_loc = [self.q[s], self.q[s + 1], self.q[s + 2]];
        self.rows.add_off_diagonal_of(c, r, &mut q_loc);
        Some(q_loc)
    }
}

/// The stopping test of NSGS after each sweep ([`NsgsErrorEvaluation`]), shared by
/// [`NsgsSolver`] and the factored NSGS.
pub(crate) struct StoppingTest {
    evaluation: NsgsErrorEvaluation,
    frequency: usize,
    max_iterations: usize,
    tolerance: f64,
    /// The light error's tolerance, lowered as Siconos does.
    working_tolerance: f64,
    /// The last full error evaluated (NaN before the first).
    pub(crate) residual: f64,
}

impl StoppingTest {
    /// The test of `o` at `tolerance`.
    pub(crate) fn new(o: &NsgsOptions, tolerance: f64) -> Self {
        Self {
            evaluation: o.error_evaluation,
            frequency: o.error_evaluation_frequency,
            max_iterations: o.max_iterations,
            tolerance,
            working_tolerance: tolerance,
            residual: f64::NAN,
        }
    }

    /// After sweep `it` (with `Σ‖Δr_c‖² = increment`), the report to stop with, if any;
    /// `norm_r()` gives `‖r‖₂` of the reactions (asked for by the light error only) and
    /// `full_error()` evaluates the full error on them (NaN when it cannot).
    pub(crate) fn check(
        &mut self,
        it: usize,
        increment: f64,
        norm_r: &mut dyn FnMut() -> f64,
        full_error: &mut dyn FnMut() -> f64,
    ) -> Option<SolverReport> {
        let tolerance = self.tolerance;
        let last = it == self.max_iterations;
        let converged_or_broken = |residual: f64| {
            if residual <= tolerance {
                Some(SolverReport::new(SolverStatus::Converged, it, residual))
            } else if !residual.is_finite() {
                Some(SolverReport::new(SolverStatus::NumericalBreakdown, it, residual))
            } else {
                None
            }
        };
        match self.evaluation {
            NsgsErrorEvaluation::Full => {
                if it.is_multiple_of(self.frequency) || last {
                    self.residual = full_error();
                    return converged_or_broken(self.residual);
                }
                None
            }
            NsgsErrorEvaluation::LightWithFullFinal => {
                let norm_r = norm_r();
                let mut light = increment.sqrt();
                if norm_r > f64::EPSILON {
                    light /= norm_r;
                }
                if !light.is_finite() {
                    return Some(SolverReport::new(SolverStatus::NumericalBreakdown, it, full_error()));
                }
                if light < self.working_tolerance || last {
                    self.residual = full_error();
                    let residual = self.residual;
                    if let Some(report) = converged_or_broken(residual) {
                        return Some(report);
                    }
                    if light < self.working_tolerance {
                        // Siconos lowers the light tolerance so that, if the full error
                        // shrinks with the increments, it reaches `tolerance`.
                        self.working_tolerance = light / residual * tolerance;
                        if self.working_tolerance.is_nan() || self.working_tolerance <= 0.0 {
                            // A sweep that changes nothing: a fixed point that is not a solution.
                            return Some(SolverReport::new(SolverStatus::Stalled, it, residual));
                        }
                    }
                }
                None
            }
        }
    }
}

/// [`Fc3dProblem::compute_error`] with the velocity `u = W r + q` and the per-contact terms
/// computed in parallel (rayon, one task per contact block row) and summed sequentially in
/// contact order, so the value does not depend on the thread count. For a `W` stored with one
/// 3×3 block row per contact; any other storage takes the sequential path.
fn parallel_error(problem: &Fc3dProblem, r: &[f64], u: &mut [f64], terms: &mut Vec<f64>) -> f64 {
    let nc = problem.number_of_contacts();
    let m = match problem.w() {
        NumericsMatrix::SparseBlock(m) if blocks_match_contacts(m, nc, 3) => m,
        // The sizes were checked by the caller; NaN marks an impossible failure as "not converged".
        _ => return problem.compute_error(r, u).unwrap_or(f64::NAN),
    };
    let (q, mu) = (problem.q(), problem.mu());
    terms.resize(nc, 0.0);
    u.par_chunks_mut(3).zip(terms.par_iter_mut()).enumerate().for_each(|(c, (uc, term))| {
        uc.copy_from_slice(&q[3 * c..3 * c + 3]);
        m.row_product(c, r, uc, true);
        let rc = [r[3 * c], r[3 * c + 1], r[3 * c + 2]];
        *term = contact_error_squared(&rc, &[uc[0], uc[1], uc[2]], mu[c]);
    });
    let err = terms.iter().fold(0.0, |acc, t| acc + t).sqrt();
    let scale = norm2(q).max(norm2(r)).max(norm2(u));
    if scale > f64::EPSILON { err / scale } else { err }
}

/// `P W Pᵀ` for the contact permutation `perm` (new contact `i` is old contact `perm[i]`,
/// `inverse[perm[i]] = i`), as a sparse-block matrix with 3×3 blocks (a dense `W` stays dense).
fn permute_contacts(w: &NumericsMatrix, perm: &[usize], inverse: &[usize]) -> Result<NumericsMatrix, NumericsError> {
    let nc = perm.len();
    let index = |i: usize| 3 * perm[i / 3] + i % 3;
    let converted;
    let m = match w {
        NumericsMatrix::Dense(d) => {
            return Ok(NumericsMatrix::Dense(faer::Mat::from_fn(3 * nc, 3 * nc, |i, j| d[(index(i), index(j))])));
        }
        NumericsMatrix::SparseBlock(m) if blocks_match_contacts(m, nc, 3) => m,
        other => {
            let ends: Vec<usize> = (1..=nc).map(|c| 3 * c).collect();
            converted = other.to_sparse_block(&ends, &ends)?;
            &converted
        }
    };
    let mut row_ptr = Vec::with_capacity(nc + 1);
    let mut col_idx = Vec::with_capacity(m.col_idx().len());
    let mut values = Vec::with_capacity(m.values().len());
    let mut row: Vec<(usize, usize)> = Vec::new();
    row_ptr.push(0);
    for &old in perm {
        row.clear();
        row.extend(m.row_blocks(old).map(|k| (inverse[m.col_idx()[k]], k)));
        row.sort_unstable();
        for &(j, k) in &row {
            col_idx.push(j);
            values.extend_from_slice(m.block(k));
        }
        row_ptr.push(col_idx.len());
    }
    let ends: Vec<usize> = (1..=nc).map(|c| 3 * c).collect();
    // A permutation of a valid matrix of 3×3 blocks, rows sorted above: valid (and finite).
    let offsets: Vec<usize> = (0..=col_idx.len()).map(|k| 9 * k).collect();
    Ok(NumericsMatrix::SparseBlock(SparseBlockMatrix::from_validated_parts(
        ends.clone(),
        ends,
        row_ptr,
        col_idx,
        offsets,
        values,
        m.is_finite(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    fn two_contacts(storage: u8) -> Fc3dProblem {
        let w = Mat::from_fn(6, 6, |i, j| {
            if i == j {
                2.0
            } else if (i == 0 && j == 3) || (i == 3 && j == 0) {
                0.5
            } else {
                0.0
            }
        });
        let m = NumericsMatrix::Dense(w);
        let m = match storage {
            0 => m,
            1 => NumericsMatrix::Sparse(m.to_csr()),
            _ => NumericsMatrix::SparseBlock(m.to_sparse_block(&[3, 6], &[3, 6]).expect("6x6 splits in 3x3 blocks")),
        };
        Fc3dProblem::new(m, vec![-1.0, 0.3, 0.0, -2.0, 0.0, -0.1], vec![0.5, 0.3]).expect("valid problem")
    }

    #[test]
    fn options_are_validated() {
        assert!(matches!(
            NsgsSolver::new(NsgsOptions::default().with_relaxation(2.0)),
            Err(NumericsError::InvalidOption { name: "relaxation", .. })
        ));
        assert!(matches!(
            NsgsSolver::new(NsgsOptions::default().with_tolerance(0.0)),
            Err(NumericsError::InvalidOption { name: "tolerance", .. })
        ));
        assert!(matches!(
            NsgsSolver::new(NsgsOptions::default().with_anderson_memory(3).with_anderson_period(0)),
            Err(NumericsError::InvalidOption { name: "anderson_period", .. })
        ));
        let no_threads = NsgsOptions::default().with_parallelism(Parallelism::Rayon { threads: 0 });
        assert!(matches!(
            NsgsSolver::new(no_threads.clone()),
            Err(NumericsError::InvalidOption { name: "parallelism", .. })
        ));
        assert!(matches!(
            super::super::FactoredNsgsSolver::new(no_threads.with_schedule(NsgsSchedule::Halves)),
            Err(NumericsError::InvalidOption { name: "parallelism", .. })
        ));
    }

    #[test]
    fn storages_agree_and_converge() {
        let mut sols = Vec::new();
        for storage in 0..3 {
            let p = two_contacts(storage);
            let mut s = NsgsSolver::new(NsgsOptions::default().with_tolerance(1e-12)).expect("valid options");
            let (mut r, mut u) = (vec![0.0; 6], vec![0.0; 6]);
            let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
            assert!(rep.is_converged() && rep.residual <= 1e-12, "storage {storage}: {rep:?}");
            sols.push(r);
        }
        for s in &sols[1..] {
            for (a, b) in s.iter().zip(&sols[0]) {
                assert!((a - b).abs() < 1e-10);
            }
        }
    }

    #[test]
    fn trivial_case_and_bad_sizes() {
        let p = Fc3dProblem::new(NumericsMatrix::Dense(Mat::identity(3, 3)), vec![1.0, 2.0, 0.0], vec![0.3])
            .expect("valid problem");
        let mut s = NsgsSolver::new(NsgsOptions::default()).expect("valid options");
        let (mut r, mut u) = (vec![5.0; 3], vec![0.0; 3]);
        let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
        assert_eq!(rep.iterations, 0);
        assert!(rep.is_converged() && r.iter().all(|v| v.abs() < 1e-300));
        assert!(matches!(s.solve(&p, &mut [0.0; 2], &mut u), Err(NumericsError::DimensionMismatch { .. })));
    }

    #[test]
    fn zero_diagonal_is_a_breakdown() {
        let w = Mat::from_fn(3, 3, |i, j| if i == j && i > 0 { 1.0 } else { 0.0 });
        let p = Fc3dProblem::new(NumericsMatrix::Dense(w), vec![-1.0, 0.0, 0.0], vec![0.5]).expect("valid problem");
        let mut s = NsgsSolver::new(NsgsOptions::default()).expect("valid options");
        let (mut r, mut u) = (vec![0.0; 3], vec![0.0; 3]);
        let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
        assert_eq!(rep.status, SolverStatus::NumericalBreakdown);
        assert_eq!(rep.iterations, 0);
    }
}
