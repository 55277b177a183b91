//! The global frictional-contact one-step problem (Siconos' `GlobalFrictionContact`, kernel
//! source `GlobalFrictionContact.cpp`; V. Acary and B. Brogliato, *Numerical Methods for
//! Nonsmooth Dynamical Systems*, Springer 2008, section 10.3; the Siconos documentation of
//! `MoreauJeanGOSI`).
//!
//! At [`ProblemLevel::GlobalVelocity`], on the active interactions α (each one a frictional
//! contact of dimension `D`) and the systems `j` they link, the unknowns are the systems'
//! velocities `v_{k+1}` and the contact impulses `r = λ[1]`:
//!
//! - `M v = q + H r` with `M = diag(W_j)` (each system's iteration matrix,
//!   `W = M + hθC + h²θ²K`) and `q_j = W_j v_free,j` (the right-hand side of the smooth step;
//!   `v_free` is the velocity without impulse);
//! - `u = Hᵀ v + b`, where column block α of `H` holds `(H_α^j)ᵀ` on the rows of system `j`,
//!   and `b_α = (e_n ẏ_{N,k}, 0, …) (+ ∂h/∂t)`: the Newton restitution on the normal component
//!   only, as Siconos' `MoreauJeanGOSI::NSLcontrib` writes it (no tangential restitution in the
//!   global form);
//! - `K_α ∋ r_α ⊥ û_α ∈ K_α*` (Coulomb's cone with De Saxcé's modified velocity).
//!
//! `M` and `H` go to numerics' [`GlobalFcProblem`] in sparse-block storage (one block row per
//! system, one block column per contact). The solved velocities are written into the systems
//! (`v`), the impulses into the interactions (`λ[1]`); the inputs `p[1] = Σ Hᵀ λ[1]` follow
//! from [`OneStepProblem::update_inputs`]. Eliminating `v` gives back the local problem of
//! [`super::OneStepNsProblem`] (`W_loc = H_α W⁻¹ H_βᵀ`, `q_loc = H v_free + b`).

use faer::Mat;
use nonsmooth_numerics::gfc::{
    AdmmSolver, GlobalFc2dProblem, GlobalFc3dProblem, GlobalFcOptions, GlobalFcProblem, GlobalFcSolver,
    GlobalNsnAcSolver,
};
use nonsmooth_numerics::matrix::{DuplicateBlocks, NumericsMatrix, SparseBlockMatrix};
use nonsmooth_numerics::{NumericsError, SolverReport};

use super::{Contribution, OneStepProblem, ProblemLevel, SecondOrderContribution};
use crate::KernelError;
use crate::model::{DsId, InteractionId, NonsmoothLaw, Nsds};

/// The call of a [`GlobalSolver`] for the dimension `D`: solver, problem, `r`, `u`, `v`.
type SolveFn<const D: usize> = fn(
    &mut dyn GlobalSolver,
    &GlobalFcProblem<D>,
    &mut [f64],
    &mut [f64],
    &mut [f64],
) -> Result<SolverReport, NumericsError>;

/// A solver of the global frictional contact problem `M v = q + H r`, `u = Hᵀ v + b`,
/// `K ∋ r ⊥ û ∈ K*` in 2D and 3D, as [`GlobalFrictionContact`] calls it. Implemented by numerics'
/// [`GlobalFcSolver`] (by condensation, Siconos' `*_WR` solvers) and by the solvers on the global
/// form itself, [`GlobalNsnAcSolver`] (Siconos' `GFC3D_NSN_AC`) and [`AdmmSolver`] (Siconos'
/// `GFC3D_ADMM`), which are 3D only; another solver plugs in by implementing it.
pub trait GlobalSolver: Send + std::fmt::Debug {
    /// Solves the 2D problem: `r` is the warm start on entry and the reactions on exit; `u`
    /// and `v` are overwritten with the local and global velocities.
    ///
    /// # Errors
    /// Invalid data (lengths, non-finite values, a singular `M`); non-convergence is a status of
    /// the report.
    fn solve_2d(
        &mut self,
        problem: &GlobalFc2dProblem,
        r: &mut [f64],
        u: &mut [f64],
        v: &mut [f64],
    ) -> Result<SolverReport, NumericsError>;

    /// Solves the 3D problem, as [`GlobalSolver::solve_2d`].
    ///
    /// # Errors
    /// As [`GlobalSolver::solve_2d`].
    fn solve_3d(
        &mut self,
        problem: &GlobalFc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
        v: &mut [f64],
    ) -> Result<SolverReport, NumericsError>;

    /// Whether the solver takes problems of contact dimension `dimension` (2 or 3); checked when
    /// the one-step problem is built. Default: both.
    fn supports(&self, dimension: usize) -> bool {
        dimension == 2 || dimension == 3
    }
}

impl GlobalSolver for GlobalFcSolver {
    fn solve_2d(
        &mut self,
        problem: &GlobalFc2dProblem,
        r: &mut [f64],
        u: &mut [f64],
        v: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        self.solve(problem, r, u, v)
    }

    fn solve_3d(
        &mut self,
        problem: &GlobalFc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
        v: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        self.solve(problem, r, u, v)
    }
}

/// The solvers on the global form itself are 3D only: [`GlobalSolver::supports`] keeps them out
/// of 2D problems, and a 2D solve is refused with [`NumericsError::InvalidOption`].
macro_rules! global_form_solver {
    ($($solver:ident),*) => {$(
        impl GlobalSolver for $solver {
            fn supports(&self, dimension: usize) -> bool {
                dimension == 3
            }

            /// Refused: [`NumericsError::InvalidOption`].
            fn solve_2d(
                &mut self,
                _problem: &GlobalFc2dProblem,
                _r: &mut [f64],
                _u: &mut [f64],
                _v: &mut [f64],
            ) -> Result<SolverReport, NumericsError> {
                Err(NumericsError::InvalidOption {
                    name: stringify!($solver),
                    reason: "solves 3D global problems only; use GlobalFcSolver in 2D",
                })
            }

            fn solve_3d(
                &mut self,
                problem: &GlobalFc3dProblem,
                r: &mut [f64],
                u: &mut [f64],
                v: &mut [f64],
            ) -> Result<SolverReport, NumericsError> {
                self.solve(problem, r, u, v)
            }
        }
    )*};
}

global_form_solver!(GlobalNsnAcSolver, AdmmSolver);

/// The global frictional-contact problem of a time-stepping simulation at
/// [`ProblemLevel::GlobalVelocity`] (Siconos' `GlobalFrictionContact`; the module documentation
/// gives the formulas). Its integrators hand it each system's iteration matrix and free
/// velocity ([`SecondOrderContribution::iteration_matrix`], [`SecondOrderContribution::free`]);
/// it solves for the velocities of the systems of the active interactions and the impulses
/// `λ[1]`, warm started from the previous `λ[1]`.
#[derive(Debug)]
pub struct GlobalFrictionContact {
    dimension: usize,
    solver: Box<dyn GlobalSolver>,
    warm_start: bool,
    /// Block row of each system slot in the last problem (`usize::MAX`: not in it).
    slot_block: Vec<usize>,
    /// The systems of the last problem, in the order of their rows.
    systems: Vec<DsId>,
    /// The end of each system's rows (the block rows of `M` and `H`).
    row_ends: Vec<usize>,
    r: Vec<f64>,
    u: Vec<f64>,
    v: Vec<f64>,
    q: Vec<f64>,
    b: Vec<f64>,
    mu: Vec<f64>,
    last_size: usize,
    assembly_time: std::time::Duration,
    solve_time: std::time::Duration,
}

impl GlobalFrictionContact {
    /// The problem of contact dimension `dimension` (2 or 3) solved by `solver`.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] when `dimension` is not 2 or 3, or when `solver` does not
    /// take that dimension ([`GlobalSolver::supports`]).
    pub fn new(dimension: usize, solver: impl GlobalSolver + 'static) -> Result<Self, KernelError> {
        if dimension != 2 && dimension != 3 {
            return Err(KernelError::InvalidOption { name: "dimension", reason: "must be 2 or 3" });
        }
        if !solver.supports(dimension) {
            return Err(KernelError::InvalidOption {
                name: "solver",
                reason: "the solver does not take global problems of this contact dimension",
            });
        }
        Ok(Self {
            dimension,
            solver: Box::new(solver),
            warm_start: true,
            slot_block: Vec::new(),
            systems: Vec::new(),
            row_ends: Vec::new(),
            r: Vec::new(),
            u: Vec::new(),
            v: Vec::new(),
            q: Vec::new(),
            b: Vec::new(),
            mu: Vec::new(),
            last_size: 0,
            assembly_time: std::time::Duration::ZERO,
            solve_time: std::time::Duration::ZERO,
        })
    }

    /// The problem of contact dimension `dimension` solved by condensation (numerics'
    /// [`GlobalFcSolver`] with `options`; Siconos' `SICONOS_GLOBAL_FRICTION_3D_NSGS_WR` with its
    /// default local NSGS).
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for a dimension other than 2 or 3,
    /// [`KernelError::Numerics`] for invalid solver options.
    pub fn condensed(dimension: usize, options: GlobalFcOptions) -> Result<Self, KernelError> {
        Self::new(dimension, GlobalFcSolver::new(options)?)
    }

    /// Turns the warm start from the previous `λ[1]` on or off (default: on).
    pub fn with_warm_start(mut self, warm_start: bool) -> Self {
        self.warm_start = warm_start;
        self
    }

    /// The contact dimension (2 or 3).
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// The global velocities of the last problem, `v_{k+1}` of its systems in the order of
    /// [`GlobalFrictionContact::last_systems`].
    pub fn last_velocities(&self) -> &[f64] {
        &self.v[..self.row_ends.last().copied().unwrap_or(0)]
    }

    /// The systems of the last problem, in the order of their velocities.
    pub fn last_systems(&self) -> &[DsId] {
        &self.systems
    }

    /// Gathers `M`, `H`, `q`, `b`, `μ` and the start `r` of the problem on `ids`.
    fn assemble(
        &mut self,
        nsds: &mut Nsds,
        osi: &dyn SecondOrderContribution,
        ids: &[InteractionId],
        t: f64,
    ) -> Result<(SparseBlockMatrix, SparseBlockMatrix), KernelError> {
        let d = self.dimension;
        self.slot_block.clear();
        self.slot_block.resize(nsds.ds_bound(), usize::MAX);
        self.systems.clear();
        self.row_ends.clear();
        let mut m_blocks: Vec<(usize, usize, Mat<f64>)> = Vec::new();
        let mut n = 0;
        for &a in ids {
            let inter = nsds.interaction_ref(a);
            for &ds in inter.ds.iter() {
                if self.slot_block[ds.index()] != usize::MAX {
                    continue;
                }
                let w = osi.iteration_matrix(ds).ok_or_else(|| {
                    KernelError::InvalidModel(format!(
                        "the integrator of system {} gives no iteration matrix: a global \
                         frictional-contact problem needs one (Moreau–Jean global)",
                        ds.index()
                    ))
                })?;
                self.slot_block[ds.index()] = self.systems.len();
                m_blocks.push((self.systems.len(), self.systems.len(), w.clone()));
                // q_j = W_j v_free,j.
                let v_free = osi.free(ds);
                if v_free.len() != w.nrows() {
                    return Err(KernelError::DimensionMismatch {
                        what: "free velocity of a system of a global problem",
                        expected: w.nrows(),
                        found: v_free.len(),
                    });
                }
                self.q.extend((0..w.nrows()).map(|i| (0..w.ncols()).map(|c| w[(i, c)] * v_free[c]).sum::<f64>()));
                n += w.nrows();
                self.systems.push(ds);
                self.row_ends.push(n);
            }
        }
        let mut h_blocks: Vec<(usize, usize, Mat<f64>)> = Vec::new();
        for (k, &a) in ids.iter().enumerate() {
            let inter = nsds.interaction_mut(a);
            let NonsmoothLaw::NewtonImpactFriction(law) = inter.law else {
                return Err(KernelError::InvalidModel(format!(
                    "interaction {} has the law {:?}; a global frictional-contact problem holds \
                     Newton impact-friction laws",
                    a.index(),
                    inter.law
                )));
            };
            let m = inter.size;
            if m != d || law.dimension() != d {
                return Err(KernelError::InvalidModel(format!(
                    "interaction {} has size {m}; this global frictional-contact problem holds \
                     contacts of dimension {d}",
                    a.index()
                )));
            }
            let nv = inter.h_rows.len().checked_div(m).unwrap_or(0);
            for (jj, &ds) in inter.ds.iter().enumerate() {
                let off = inter.offsets[jj];
                let end = if jj + 1 < inter.ds.len() { inter.offsets[jj + 1] } else { nv };
                let row_block = self.slot_block[ds.index()];
                let block = Mat::from_fn(end - off, m, |c, i| inter.h_rows[i * nv + off + c]);
                h_blocks.push((row_block, k, block));
            }
            // b_α = e_n ẏ_{N,k} on the normal component (+ ∂h/∂t).
            let start = self.b.len();
            self.b.resize(start + m, 0.0);
            self.b[start] = law.normal_restitution() * inter.y_memory[1][0];
            if inter.relation_has_time_derivative() {
                inter.refresh_h_dot(t)?;
                for (bi, hd) in self.b[start..].iter_mut().zip(&inter.h_dot) {
                    *bi += hd;
                }
            }
            self.mu.push(law.friction());
            if self.warm_start {
                self.r.extend_from_slice(&inter.lambda[1]);
            } else {
                self.r.resize(start + m, 0.0);
            }
        }
        let col_ends: Vec<usize> = (1..=ids.len()).map(|k| k * d).collect();
        let m = SparseBlockMatrix::from_blocks(
            self.row_ends.clone(),
            self.row_ends.clone(),
            m_blocks,
            DuplicateBlocks::Sum,
        )?;
        let h = SparseBlockMatrix::from_blocks(self.row_ends.clone(), col_ends, h_blocks, DuplicateBlocks::Sum)?;
        Ok((m, h))
    }

    /// Solves the assembled problem with the solver of dimension `D`.
    fn solve_with<const D: usize>(
        &mut self,
        m: SparseBlockMatrix,
        h: SparseBlockMatrix,
        solve: SolveFn<D>,
    ) -> Result<SolverReport, KernelError> {
        let problem = GlobalFcProblem::<D>::new(
            NumericsMatrix::SparseBlock(m),
            NumericsMatrix::SparseBlock(h),
            std::mem::take(&mut self.q),
            std::mem::take(&mut self.b),
            std::mem::take(&mut self.mu),
        );
        let problem = problem?;
        let result = solve(&mut *self.solver, &problem, &mut self.r, &mut self.u, &mut self.v);
        let (_, _, q, b, mu) = problem.into_parts();
        (self.q, self.b, self.mu) = (q, b, mu);
        Ok(result?)
    }
}

impl OneStepProblem for GlobalFrictionContact {
    /// Checks that every interaction for which `belongs` holds is a frictional contact of the
    /// problem's dimension between second-order systems.
    fn check_laws(&self, nsds: &Nsds, belongs: &dyn Fn(&crate::model::Interaction) -> bool) -> Result<(), KernelError> {
        for id in nsds.interaction_ids() {
            let inter = nsds.interaction_ref(id);
            if !belongs(inter) {
                continue;
            }
            let ok = !inter.is_first_order()
                && matches!(inter.law, NonsmoothLaw::NewtonImpactFriction(f) if f.dimension() == self.dimension);
            if !ok {
                return Err(KernelError::InvalidModel(format!(
                    "interaction {} has the law {:?}, which a global {}D frictional-contact problem \
                     cannot hold (Newton impact-friction laws of dimension {} between second-order \
                     systems)",
                    id.index(),
                    inter.law,
                    self.dimension,
                    self.dimension
                )));
            }
        }
        Ok(())
    }

    /// Assembles the global problem on the interactions `ids` (in that order), solves it, stores
    /// `λ[1]` in the interactions and `v_{k+1}` in their systems. Returns `None` when `ids` is
    /// empty (the systems keep the velocity their integrator gave them).
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] at another level than
    /// [`ProblemLevel::GlobalVelocity`], for first-order systems or an integrator that gives no
    /// iteration matrix; errors of numerics (non-finite data, a singular `W`).
    fn compute(
        &mut self,
        nsds: &mut Nsds,
        contribution: Contribution<'_>,
        ids: &[InteractionId],
        t: f64,
        _constant_operators: bool,
        level: ProblemLevel,
    ) -> Result<Option<SolverReport>, KernelError> {
        let started = std::time::Instant::now();
        self.last_size = 0;
        let (ProblemLevel::GlobalVelocity, Contribution::SecondOrder(osi)) = (level, contribution) else {
            return Err(KernelError::InvalidModel(format!(
                "a global frictional-contact problem is posed at level GlobalVelocity on \
                 second-order systems, not at {level:?} on {contribution:?}"
            )));
        };
        self.systems.clear();
        self.row_ends.clear();
        if ids.is_empty() {
            return Ok(None);
        }
        self.q.clear();
        self.b.clear();
        self.mu.clear();
        self.r.clear();
        let (m, h) = self.assemble(nsds, osi, ids, t)?;
        let n = self.row_ends.last().copied().unwrap_or(0);
        let nr = self.b.len();
        self.u.clear();
        self.u.resize(nr, 0.0);
        self.v.clear();
        self.v.resize(n, 0.0);
        let assembled = std::time::Instant::now();
        self.assembly_time += assembled - started;
        let report = match self.dimension {
            2 => self.solve_with::<2>(m, h, |s, p, r, u, v| s.solve_2d(p, r, u, v))?,
            _ => self.solve_with::<3>(m, h, |s, p, r, u, v| s.solve_3d(p, r, u, v))?,
        };
        self.solve_time += assembled.elapsed();
        self.last_size = nr;
        // λ[1] of the interactions and v_{k+1} of their systems.
        let d = self.dimension;
        for (k, &a) in ids.iter().enumerate() {
            nsds.interaction_mut(a).lambda[1].copy_from_slice(&self.r[k * d..(k + 1) * d]);
        }
        let mut start = 0;
        for (&ds, &end) in self.systems.iter().zip(&self.row_ends) {
            if let Some(system) = nsds.ds_slot_mut(ds.index()) {
                system.state_mut().v.copy_from_slice(&self.v[start..end]);
            }
            start = end;
        }
        Ok(Some(report))
    }

    /// `u = Hᵀ v + b` of the last problem, split per interaction.
    fn last_w_blocks(&self) -> Vec<Vec<f64>> {
        self.u[..self.last_size].chunks(self.dimension).map(<[f64]>::to_vec).collect()
    }

    /// Number of impulse unknowns of the last problem (0 when no interaction was active).
    fn last_size(&self) -> usize {
        self.last_size
    }

    /// Time spent assembling and solving since the last call, reset to zero.
    fn take_timings(&mut self) -> (std::time::Duration, std::time::Duration) {
        let out = (self.assembly_time, self.solve_time);
        self.assembly_time = std::time::Duration::ZERO;
        self.solve_time = std::time::Duration::ZERO;
        out
    }
}
