//! One-step nonsmooth problems, assembled blockwise from the interaction graph (Siconos' `LCP`,
//! `MLCP`, `Relay`, `FrictionContact` and `GenericMechanical`, `LinearOSNS`; Siconos developer documentation,
//! "OneStepNSProblem formalisation for several interactions"; Acary and Brogliato 2008,
//! section 10.3). At velocity level,
//!
//! `w = M λ + q` with, for active interactions α, β,
//! - `M_αβ = Σ_{j ∈ DS_α ∩ DS_β} H_α^j W_j⁻¹ (H_β^j)ᵀ` (each block computed as
//!   `H_α^j (W_j⁻¹ (H_β^j)ᵀ)`, as Siconos does),
//! - `q_α = H_α v_free (+ ∂h/∂t at t_{k+1}) + e ẏ_k` (the restitution term of the Newton
//!   impact law; with friction, `e_n` on the normal component and `e_t` on the tangential ones
//!   when `e_t > 0`).
//!
//! The matrix goes to numerics in dense or sparse-block storage (blocks per interaction; the
//! off-diagonal blocks are those of interactions sharing a system), built by the block assembly
//! every one-step problem of the kernel shares (`BlockAssembly`). The position-level and
//! first-order problems are posed the same way; the integrators of a problem's systems hand it
//! their free states and `W⁻¹` through [`Contribution`].

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use faer::Mat;
use nonsmooth_numerics::fc::nsgs::NsgsOptions;
use nonsmooth_numerics::fc::{
    FactoredDelassus, FactoredFc3dProblem, FactoredNsgsSolver, Fc2dMethod, Fc2dProblem, Fc2dSolver, Fc3dMethod,
    Fc3dProblem, Fc3dSolver,
};
use nonsmooth_numerics::gmp::{GmpNsgsOptions, GmpNsgsSolver};
use nonsmooth_numerics::lcp::{LcpMethod, LcpProblem, LcpSolver, LemkeOptions};
use nonsmooth_numerics::matrix::NumericsMatrix;
use nonsmooth_numerics::mlcp::{MlcpMatrixForm, MlcpMethod, MlcpProblem, MlcpSolver};
use nonsmooth_numerics::relay::{RelayMethod, RelaySolver};
use nonsmooth_numerics::{NumericsError, SolverReport};

pub use contribution::{Contribution, FirstOrderContribution, ProblemLevel, SecondOrderContribution};
pub use global::{GlobalFrictionContact, GlobalSolver};

mod assembly;
mod contribution;
mod first_order;
mod global;
mod mixed;

pub(crate) use assembly::BlockAssembly;
use assembly::BlockShape;

/// Solves the MLCP `w = A z + q` whose rows flagged in `equality` are equalities (`w_i = 0`)
/// and the others complementarity rows, by permuting the equality rows first (the layout of
/// the numerics MLCP); `z` holds the start on entry and the solution on exit (original order).
pub(crate) fn solve_mlcp_equalities_first(
    solver: &mut (dyn MlcpSolver + Send),
    a: &Mat<f64>,
    q: &[f64],
    equality: &[bool],
    z: &mut [f64],
    w: &mut [f64],
) -> Result<SolverReport, KernelError> {
    let n = q.len();
    let mut order: Vec<usize> = (0..n).filter(|&i| equality[i]).collect();
    let n_eq = order.len();
    order.extend((0..n).filter(|&i| !equality[i]));
    let permuted = Mat::from_fn(n, n, |i, j| a[(order[i], order[j])]);
    let q_perm: Vec<f64> = order.iter().map(|&i| q[i]).collect();
    let mut z_perm: Vec<f64> = order.iter().map(|&i| z[i]).collect();
    let mut w_perm = vec![0.0; n];
    let form = MlcpMatrixForm::new(NumericsMatrix::Dense(permuted), q_perm, n_eq, n - n_eq);
    let problem = MlcpProblem::new(n_eq, n - n_eq, Some(form), None)?;
    let report = solver.solve(&problem, &mut z_perm, &mut w_perm)?;
    for (k, &i) in order.iter().enumerate() {
        z[i] = z_perm[k];
        w[i] = w_perm[k];
    }
    Ok(report)
}

use crate::KernelError;
use crate::linalg::{copy_small, extend_small};
use crate::model::{InteractionId, NonsmoothLaw, Nsds, Relation};

/// The level of a problem of second-order systems.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MechanicalLevel {
    /// Velocity level: `q_α = H_α v_free (+ ∂h/∂t) + e ẏ_k`, `λ[1]`.
    Velocity,
    /// Position level: `q_α = h(q_free) + e y_{k−1}`, `λ[0]`.
    Position,
}

/// Storage of the one-step problem's matrix handed to the solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixStorage {
    /// Dense `n × n` (Siconos' default for the kernel's LCP and FrictionContact).
    Dense,
    /// Sparse-block, one block row and column per interaction.
    SparseBlock,
}

enum Solver {
    Lcp(Box<dyn LcpSolver + Send>),
    Relay(Box<dyn RelaySolver + Send>),
    Mlcp(Box<dyn MlcpSolver + Send>),
    Fc2d(Box<dyn Fc2dSolver + Send>),
    Fc3d(Box<dyn Fc3dSolver + Send>),
    /// NSGS in body velocities on the factored `W = H W_ds⁻¹ Hᵀ`, with its operator's buffers.
    Fc3dFactored(Box<(FactoredNsgsSolver, FactoredDelassus)>),
    /// Block Gauss–Seidel of the mixed mechanical problem.
    Mixed(Box<GmpNsgsSolver>),
}

/// Which problem the interactions form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OsnsKind {
    /// Linear complementarity problem (Newton impact laws of second-order systems,
    /// complementarity laws of first-order ones).
    Lcp,
    /// Relay problem (relay laws of first-order systems).
    Relay,
    /// Mixed linear complementarity problem (equality, mixed and complementarity laws of
    /// first-order systems; the equality rows of all interactions go first).
    Mlcp,
    /// 2D frictional contact (Newton impact + Coulomb friction laws of dimension 2).
    FrictionContact2d,
    /// 3D frictional contact (laws of dimension 3).
    FrictionContact3d,
    /// Mixed mechanical problem (Siconos' `GenericMechanical`): equality laws (joints),
    /// Newton impact laws and Newton impact friction laws (2D or 3D) of second-order systems,
    /// each interaction a block of its own law.
    Mixed,
}

/// A one-step nonsmooth problem of a time-stepping simulation (Siconos' `OneStepNSProblem`): posed
/// at a [`ProblemLevel`] on the interactions of the integrators of that level, from what they
/// hand it ([`Contribution`]); it solves for their multipliers and adds the inputs to their
/// systems. [`OneStepNsProblem`] holds the linear problems (LCP, MLCP, relay, FC2D, FC3D) and
/// the mixed mechanical problem; a new family (as the global frictional-contact problem) is a
/// new type.
pub trait OneStepProblem: std::any::Any + Send + std::fmt::Debug {
    /// Checks that the law of every interaction for which `belongs` holds fits this problem.
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] naming the first interaction whose law does not fit.
    fn check_laws(&self, nsds: &Nsds, belongs: &dyn Fn(&crate::model::Interaction) -> bool) -> Result<(), KernelError>;

    /// Assembles the problem of `level` on the interactions `ids` (in that order) from the
    /// contribution of their integrators, solves it, and stores `λ` in them (`λ[1]` at velocity
    /// level, `λ[0]` otherwise). Returns `None` when `ids` is empty. With `constant_operators`
    /// (every `W` and `H` constant) the problem may reuse what it built for the same
    /// interactions and topology.
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] when the contribution does not fit the level; errors of
    /// the assembly (non-finite values) and of the solver.
    fn compute(
        &mut self,
        nsds: &mut Nsds,
        contribution: Contribution<'_>,
        ids: &[InteractionId],
        t: f64,
        constant_operators: bool,
        level: ProblemLevel,
    ) -> Result<Option<SolverReport>, KernelError>;

    /// Adds the inputs of the last solution to the systems of its interactions `ids`:
    /// `p[1] += Σ Hᵀ λ[1]` at velocity level, `p[0] += Σ Hᵀ λ[0]` at position level, and
    /// `r = B λ[0]` for first-order systems (the default, from the interactions' `λ` and `H`).
    fn update_inputs(&self, nsds: &mut Nsds, ids: &[InteractionId], level: ProblemLevel) {
        match level {
            ProblemLevel::Velocity | ProblemLevel::GlobalVelocity => nsds.accumulate_inputs_at(ids, 1),
            ProblemLevel::Position => nsds.accumulate_inputs_at(ids, 0),
            ProblemLevel::FirstOrder => nsds.accumulate_first_order_inputs(ids),
        }
    }

    /// `w` of the last problem, split per interaction (in the problem's order): the outputs the
    /// linearized relations predict (read by the first-order Newton residual).
    fn last_w_blocks(&self) -> Vec<Vec<f64>>;

    /// Size of the last problem solved (0 when no interaction was active).
    fn last_size(&self) -> usize;

    /// Time spent assembling and solving since the last call, reset to zero (default: none
    /// measured).
    fn take_timings(&mut self) -> (std::time::Duration, std::time::Duration) {
        (std::time::Duration::ZERO, std::time::Duration::ZERO)
    }
}

/// A one-step nonsmooth problem at velocity level with its solver (warm started from the
/// previous step's `λ[1]` when the solver can use it) and its workspace.
pub struct OneStepNsProblem {
    solver: Solver,
    kind: OsnsKind,
    storage: MatrixStorage,
    warm_start: bool,
    z: Vec<f64>,
    w: Vec<f64>,
    q: Vec<f64>,
    mu: Vec<f64>,
    /// The interactions' shapes, rows `H_α` and the buffers of the block assembly.
    assembly: BlockAssembly,
    /// The output memories the problem's vector reads (`ẏ_k` or `y_{k−1}`), at the rows of
    /// the interactions.
    memory: Vec<f64>,
    /// The body number of each system slot in the factored operator (factored FC3D only).
    slot_body: Vec<usize>,
    /// The bodies of each contact of the factored operator (workspace).
    contact_bodies: Vec<(usize, Option<usize>)>,
    /// Concatenated free positions of an interaction's systems (position level).
    gathered: Vec<f64>,
    last_size: usize,
    /// The last matrix; with `matrix_reusable`, the interactions and topology it was built for,
    /// while they do not change and every operator (`W`, `H`) is constant it is reused.
    matrix: Option<NumericsMatrix>,
    matrix_reusable: bool,
    matrix_ids: Vec<InteractionId>,
    matrix_topology: u64,
    /// Time spent assembling (`q`, `W⁻¹Hᵀ`, the matrix) and in the solver since the last
    /// [`OneStepNsProblem::take_timings`].
    assembly_time: std::time::Duration,
    solve_time: std::time::Duration,
}

impl std::fmt::Debug for OneStepNsProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OneStepNsProblem")
            .field("kind", &self.kind)
            .field("storage", &self.storage)
            .field("warm_start", &self.warm_start)
            .finish_non_exhaustive()
    }
}

impl OneStepProblem for OneStepNsProblem {
    /// Checks that the law of every interaction for which `belongs` holds fits this problem.
    fn check_laws(&self, nsds: &Nsds, belongs: &dyn Fn(&crate::model::Interaction) -> bool) -> Result<(), KernelError> {
        for id in nsds.interaction_ids() {
            if !belongs(nsds.interaction_ref(id)) {
                continue;
            }
            let law = nsds.interaction_ref(id).law;
            let first = nsds.interaction_ref(id).is_first_order();
            let ok = matches!(
                (self.kind, law, first),
                (OsnsKind::Lcp, NonsmoothLaw::NewtonImpact { .. }, false)
                    | (OsnsKind::Lcp, NonsmoothLaw::Complementarity { .. }, true)
                    | (OsnsKind::Relay, NonsmoothLaw::Relay { .. }, true)
                    | (
                        OsnsKind::Mlcp,
                        NonsmoothLaw::Complementarity { .. }
                            | NonsmoothLaw::Equality { .. }
                            | NonsmoothLaw::MixedComplementarity { .. },
                        true
                    )
                    | (OsnsKind::Mlcp, NonsmoothLaw::NewtonImpact { .. } | NonsmoothLaw::Equality { .. }, false)
            ) || matches!(
                (self.kind, law, first),
                (OsnsKind::FrictionContact2d, NonsmoothLaw::NewtonImpactFriction(f), false) if f.dimension() == 2
            ) || matches!(
                (self.kind, law, first),
                (OsnsKind::FrictionContact3d, NonsmoothLaw::NewtonImpactFriction(f), false) if f.dimension() == 3
            ) || (self.kind == OsnsKind::Mixed && mixed::accepts(law, first));
            if !ok {
                return Err(KernelError::InvalidModel(format!(
                    "interaction {} has the law {law:?}, which a {:?} problem cannot hold",
                    id.index(),
                    self.kind
                )));
            }
        }
        Ok(())
    }

    /// Assembles the problem of `level` on the interactions `ids` (in that order) from the
    /// contribution of their integrator, solves it, and stores `λ` in them (`λ[1]` at velocity
    /// level, `λ[0]` otherwise). Returns `None` when `ids` is empty. With `constant_operators`
    /// (every `W` and `H` constant), the matrix of the previous step is reused while the
    /// interactions and the topology are unchanged.
    ///
    /// # Errors
    /// [`KernelError::InvalidModel`] when the contribution does not fit the level; errors of
    /// the assembly (non-finite values) and of the solver.
    fn compute(
        &mut self,
        nsds: &mut Nsds,
        contribution: Contribution<'_>,
        ids: &[InteractionId],
        t: f64,
        constant_operators: bool,
        level: ProblemLevel,
    ) -> Result<Option<SolverReport>, KernelError> {
        match (level, contribution) {
            (ProblemLevel::Velocity, Contribution::SecondOrder(c)) => {
                self.compute_on(nsds, c, ids, t, constant_operators, MechanicalLevel::Velocity)
            }
            (ProblemLevel::Position, Contribution::SecondOrder(c)) => {
                self.compute_on(nsds, c, ids, t, constant_operators, MechanicalLevel::Position)
            }
            (ProblemLevel::FirstOrder, Contribution::FirstOrder(c)) => self.compute_first_order(nsds, c, ids, t),
            (level, contribution) => Err(KernelError::InvalidModel(format!(
                "a one-step problem at level {level:?} cannot hold the systems of {contribution:?}"
            ))),
        }
    }

    /// Adds the inputs of the last problem's solution to the systems of its interactions `ids`:
    /// `p[1] += Σ Hᵀ λ[1]` at velocity level, `p[0] += Σ Hᵀ λ[0]` at position level, and
    /// `r = B λ[0]` for first-order systems.
    fn update_inputs(&self, nsds: &mut Nsds, ids: &[InteractionId], level: ProblemLevel) {
        match level {
            ProblemLevel::Velocity => self.accumulate_inputs(nsds),
            ProblemLevel::GlobalVelocity => nsds.accumulate_inputs_at(ids, 1),
            ProblemLevel::Position => nsds.accumulate_inputs_at(ids, 0),
            ProblemLevel::FirstOrder => nsds.accumulate_first_order_inputs(ids),
        }
    }

    /// `w = M z + q` of the last problem, split per interaction (in the problem's order).
    fn last_w_blocks(&self) -> Vec<Vec<f64>> {
        let n = self.last_size;
        (0..self.assembly.positions.len())
            .map(|k| {
                let end = self.assembly.positions.get(k + 1).copied().unwrap_or(n);
                self.w[self.assembly.positions[k]..end].to_vec()
            })
            .collect()
    }

    /// Size of the last problem solved (0 when no interaction was active).
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

impl OneStepNsProblem {
    fn with_solver(solver: Solver, kind: OsnsKind, storage: MatrixStorage, warm_start: bool) -> Self {
        Self {
            solver,
            kind,
            storage,
            warm_start,
            z: Vec::new(),
            w: Vec::new(),
            q: Vec::new(),
            mu: Vec::new(),
            assembly: BlockAssembly::default(),
            memory: Vec::new(),
            slot_body: Vec::new(),
            contact_bodies: Vec::new(),
            gathered: Vec::new(),
            last_size: 0,
            matrix: None,
            matrix_reusable: false,
            matrix_ids: Vec::new(),
            matrix_topology: u64::MAX,
            assembly_time: std::time::Duration::ZERO,
            solve_time: std::time::Duration::ZERO,
        }
    }

    /// An LCP solved by `method`, dense storage. Warm start is on except for Lemke, which
    /// (as in Siconos) starts from scratch.
    ///
    /// # Errors
    /// [`KernelError::Numerics`] when the method's options are invalid.
    pub fn lcp(method: LcpMethod) -> Result<Self, KernelError> {
        let warm = !matches!(method, LcpMethod::Lemke(_));
        Ok(Self::with_solver(Solver::Lcp(method.build()?), OsnsKind::Lcp, MatrixStorage::Dense, warm))
    }

    /// Siconos' default LCP of the kernel: Lemke, tolerance 1e-6, 10 000 pivots, dense.
    ///
    /// # Errors
    /// None in practice (the options are valid); the signature follows [`OneStepNsProblem::lcp`].
    pub fn lcp_default() -> Result<Self, KernelError> {
        Self::lcp(LcpMethod::Lemke(LemkeOptions::default().with_tolerance(1e-6).with_max_iterations(10_000)))
    }

    /// A relay problem solved by `method`, dense, warm started from the previous `λ` (as
    /// Siconos' kernel passes its persistent `z` to the relay solvers).
    ///
    /// # Errors
    /// [`KernelError::Numerics`] when the method's options are invalid.
    pub fn relay(method: RelayMethod) -> Result<Self, KernelError> {
        Ok(Self::with_solver(Solver::Relay(method.build()?), OsnsKind::Relay, MatrixStorage::Dense, true))
    }

    /// An MLCP solved by `method`, dense (Siconos' default MLCP solver is the enumeration).
    ///
    /// # Errors
    /// [`KernelError::Numerics`] when the method's options are invalid.
    pub fn mlcp(method: MlcpMethod) -> Result<Self, KernelError> {
        Ok(Self::with_solver(Solver::Mlcp(method.build()?), OsnsKind::Mlcp, MatrixStorage::Dense, true))
    }

    /// A 2D frictional-contact problem solved by `method`. The matrix is assembled dense for
    /// the methods that work on a dense `W` and sparse-block otherwise
    /// ([`Fc2dMethod::prefers_dense`]); the previous step's reactions are the warm start of the
    /// methods that use one ([`Fc2dMethod::uses_warm_start`]). Siconos' kernel default
    /// (`FrictionContact(2)`: dense NSGS, tolerance 1e-4, 1000 sweeps, from zero) is
    /// `Fc2dMethod::NsgsDense(Default::default())`; [`Fc2dMethod::default`] (NSGS, warm started,
    /// sparse-block) scales to many contacts.
    ///
    /// # Errors
    /// [`KernelError::Numerics`] when the method's options are invalid.
    pub fn friction_contact_2d(method: Fc2dMethod) -> Result<Self, KernelError> {
        let storage = if method.prefers_dense() { MatrixStorage::Dense } else { MatrixStorage::SparseBlock };
        let warm = method.uses_warm_start();
        Ok(Self::with_solver(Solver::Fc2d(method.build()?), OsnsKind::FrictionContact2d, storage, warm))
    }

    /// A 3D frictional-contact problem solved by `method` (warm started, sparse-block).
    ///
    /// # Errors
    /// [`KernelError::Numerics`] when the options are invalid.
    pub fn friction_contact_3d(method: Fc3dMethod) -> Result<Self, KernelError> {
        Ok(Self::with_solver(
            Solver::Fc3d(method.build()?),
            OsnsKind::FrictionContact3d,
            MatrixStorage::SparseBlock,
            true,
        ))
    }

    /// A 3D frictional-contact problem solved by NSGS in body velocities on the factored
    /// operator `W = H W_ds⁻¹ Hᵀ` (numerics' [`FactoredNsgsSolver`], warm started): the matrix
    /// is never assembled, only the rows `H_α` of the interactions and `W_j⁻¹` of their systems
    /// (stored as a diagonal when `W_j⁻¹` is diagonal) are handed to the solver. The same NSGS
    /// iteration as [`OneStepNsProblem::friction_contact_3d`] with `Fc3dMethod::Nsgs(options)`
    /// up to round-off; it reads about half the memory per contact on granular scenes, where each
    /// contact shares a body with about seven others. Interactions of one or two systems.
    ///
    /// # Errors
    /// [`KernelError::Numerics`] when the options are invalid (`Parallelism::Rayon` needs
    /// `NsgsSchedule::Halves`).
    pub fn friction_contact_3d_factored(options: NsgsOptions) -> Result<Self, KernelError> {
        Ok(Self::with_solver(
            Solver::Fc3dFactored(Box::new((FactoredNsgsSolver::new(options)?, FactoredDelassus::new()))),
            OsnsKind::FrictionContact3d,
            MatrixStorage::SparseBlock,
            true,
        ))
    }

    /// The mixed mechanical problem (Siconos' `GenericMechanical` one-step problem) solved by
    /// block Gauss–Seidel ([`GmpNsgsSolver`], Siconos' `SICONOS_GENERIC_MECHANICAL_NSGS`),
    /// sparse-block (one block per interaction), warm started from the previous `λ`: each
    /// interaction's block is an equality (equality law), a complementarity problem (Newton
    /// impact law) or a 2D/3D Coulomb contact (Newton impact friction law). Siconos' kernel
    /// default is `GmpNsgsOptions::default()` (tolerance 1e-4, 10 000 sweeps).
    ///
    /// # Errors
    /// [`KernelError::Numerics`] when the options are invalid.
    pub fn mixed(options: GmpNsgsOptions) -> Result<Self, KernelError> {
        Ok(Self::with_solver(
            Solver::Mixed(Box::new(GmpNsgsSolver::new(options)?)),
            OsnsKind::Mixed,
            MatrixStorage::SparseBlock,
            true,
        ))
    }

    /// Chooses the matrix storage (a mixed problem is always sparse-block: it keeps its own).
    pub fn with_storage(mut self, storage: MatrixStorage) -> Self {
        if self.kind != OsnsKind::Mixed {
            self.storage = storage;
        }
        self
    }

    /// Turns the warm start from the previous `λ[1]` on or off.
    pub fn with_warm_start(mut self, warm_start: bool) -> Self {
        self.warm_start = warm_start;
        self
    }

    /// The kind of problem.
    pub fn kind(&self) -> OsnsKind {
        self.kind
    }

    /// Assembles and solves the problem at `level` on the interactions `ids` (in that order)
    /// and stores `λ[level]` in them. Returns `None` when `ids` is empty.
    fn compute_on(
        &mut self,
        nsds: &mut Nsds,
        osi: &dyn SecondOrderContribution,
        active: &[InteractionId],
        t: f64,
        constant_operators: bool,
        level: MechanicalLevel,
    ) -> Result<Option<SolverReport>, KernelError> {
        let started = std::time::Instant::now();
        self.last_size = 0;
        let reuse = self.reusable(constant_operators, nsds.topology_version, active);
        if active.is_empty() {
            return Ok(None);
        }
        // Positions of the interactions' rows, and the interactions' data the problem reads:
        // shapes, H, the output memories, the solver's start `z = λ[level]` of the interactions
        // (warm start) or 0 (one pass of copies, whose reads overlap).
        let slot = match level {
            MechanicalLevel::Velocity => 1,
            MechanicalLevel::Position => 0,
        };
        self.assembly.clear();
        self.memory.clear();
        self.z.clear();
        // The factored operator takes each interaction's rows straight from the interaction
        // (checked while in cache), instead of the problem's `h`; each system's `W⁻¹` when a
        // first interaction reaches it, and each interaction's bodies, in the pass of `q` (which
        // reads the same systems).
        let mut operator = match &mut self.solver {
            Solver::Fc3dFactored(factored) => {
                let mut delassus = std::mem::take(&mut factored.1);
                delassus.clear();
                self.slot_body.clear();
                self.slot_body.resize(nsds.ds_bound(), usize::MAX);
                self.contact_bodies.clear();
                Some(delassus)
            }
            _ => None,
        };
        self.q.clear();
        self.mu.clear();
        let mut gathered = std::mem::take(&mut self.gathered);
        let (mut column, mut inverse, mut bodies) = (Vec::new(), Vec::new(), [0usize; 2]);
        let mut rows = 0;
        let mut n = 0;
        // The interactions go by blocks of `GATHER_BLOCK`: the gather of a block (short
        // iterations, whose cache misses overlap), then `q` and the bodies of the same block,
        // which read its rows while they are still in cache.
        for first in (0..active.len()).step_by(GATHER_BLOCK) {
            let block = first..(first + GATHER_BLOCK).min(active.len());
            // The block's interactions first, in a short loop: looking one up reads its node
            // (whether the slot is occupied), and these reads overlap here, where inside the
            // gather each would hold up the iterations behind it; the hints below then need no
            // read of their own.
            let refs: smallvec::SmallVec<[&crate::model::Interaction; GATHER_BLOCK]> =
                active[block.clone()].iter().map(|&a| nsds.interaction_ref(a)).collect();
            for (i, inter) in refs.iter().enumerate() {
                if let Some(ahead) = refs.get(i + PREFETCH_INTERACTIONS_AHEAD) {
                    ahead.prefetch_gathered(slot);
                }
                if let Some(ahead) = refs.get(i + PREFETCH_INTERACTIONS_AHEAD / 2) {
                    ahead.prefetch_rows();
                    if law_reads_memory(ahead.law, level) {
                        crate::cache::prefetch(&ahead.y_memory[slot]);
                    }
                }
                self.assembly.positions.push(n);
                // `H` has `m · nv` values: its length is in the lines read here, the velocities'
                // workspace is not.
                let m = inter.size;
                let nv = inter.h_rows.len().checked_div(m).unwrap_or(0);
                let mut shape = BlockShape {
                    size: m,
                    columns: nv,
                    start: rows,
                    systems: inter.ds.len(),
                    slots: [0; 2],
                    offsets: [0; 2],
                    widths: [0; 2],
                    law: inter.law,
                    has_h_dot: inter.relation_has_time_derivative(),
                    diagonal: 0,
                };
                // System `jj`'s velocities are the columns of `H` from its offset to the next
                // system's (or to the last column): no call to the integrator per system.
                for (jj, &d) in inter.ds.iter().enumerate() {
                    let end = if jj + 1 < inter.ds.len() { inter.offsets[jj + 1] } else { nv };
                    (shape.slots[jj], shape.offsets[jj], shape.widths[jj]) =
                        (d.index(), inter.offsets[jj], end - inter.offsets[jj]);
                }
                self.assembly.blocks.push(shape);
                // The copies of a contact between 3D bodies have fixed sizes (`extend_small`): a few
                // vector moves instead of calls keep the loop short, so that the cache misses of
                // consecutive interactions overlap.
                match &mut operator {
                    Some(delassus) => delassus.push_rows(&inter.h_rows[..nv * m]),
                    None => extend_small(&mut self.assembly.h, &inter.h_rows[..nv * m]),
                }
                rows += nv * m;
                // The output memory of a law without a term from it is not read (its lines are
                // beyond those the gather waits for, [`crate::model::Interaction`]).
                if law_reads_memory(inter.law, level) {
                    extend_small(&mut self.memory, &inter.y_memory[slot]);
                } else {
                    self.memory.resize(self.memory.len() + m, 0.0);
                }
                if self.warm_start {
                    extend_small(&mut self.z, &inter.lambda[slot]);
                } else {
                    self.z.resize(n + m, 0.0);
                }
                n += m;
            }

            // q = H v_free (+ ∂h/∂t) + e ẏ_k (velocity level) or h(q_free) + e y_{k−1} (position
            // level); after all blocks, W_j⁻¹ H_jᵀ system by system.
            drop(refs);
            self.q.resize(n, 0.0);
            for k in block.clone() {
                if let Some(ahead) = self.assembly.blocks.get(k + PREFETCH_SYSTEMS_AHEAD) {
                    for &d in &ahead.slots[..ahead.systems] {
                        let id = nsds.ds_id_at(d);
                        crate::cache::prefetch_ends(osi.free(id));
                        if let Some(diagonal) = osi.diagonal_w(id) {
                            crate::cache::prefetch_ends(diagonal);
                        }
                    }
                }
                let a = active[k];
                let pos = self.assembly.positions[k];
                let shape = self.assembly.blocks[k];
                let (m, nv) = (shape.size, shape.columns);
                if let Some(delassus) = &mut operator {
                    if m != 3 {
                        return Err(KernelError::InvalidModel(format!(
                            "a factored 3D frictional-contact problem holds interactions of size 3, not {m}"
                        )));
                    }
                    for jj in 0..shape.systems {
                        let d = shape.slots[jj];
                        if self.slot_body[d] == usize::MAX {
                            let id = nsds.ds_id_at(d);
                            self.slot_body[d] =
                                push_body_inverse(delassus, osi, id, shape.widths[jj], &mut column, &mut inverse)?;
                        }
                        bodies[jj] = self.slot_body[d];
                    }
                    self.contact_bodies.push((bodies[0], (shape.systems == 2).then_some(bodies[1])));
                }
                let q_alpha = &mut self.q[pos..pos + m];
                let h = match &operator {
                    Some(delassus) => &delassus.rows()[shape.start..shape.start + m * nv],
                    None => &self.assembly.h[shape.start..shape.start + m * nv],
                };
                match level {
                    MechanicalLevel::Velocity => {
                        for jj in 0..shape.systems {
                            let (d, off) = (shape.slots[jj], shape.offsets[jj]);
                            let v_free = osi.free(nsds.ds_id_at(d));
                            for (i, qi) in q_alpha.iter_mut().enumerate() {
                                let row = &h[i * nv + off..i * nv + off + v_free.len()];
                                let mut s = 0.0;
                                for (h, vc) in row.iter().zip(v_free) {
                                    s += h * vc;
                                }
                                *qi += s;
                            }
                        }
                        if shape.has_h_dot {
                            let inter = nsds.interaction_mut(a);
                            inter.refresh_h_dot(t)?;
                            for (qi, hd) in q_alpha.iter_mut().zip(&inter.h_dot) {
                                *qi += hd;
                            }
                        }
                    }
                    MechanicalLevel::Position => {
                        // The output at the free positions, h(q_free, t_{k+1}) (H q_free + b for a
                        // linear relation).
                        let inter = nsds.interaction_mut(a);
                        gathered.clear();
                        for &d in &inter.ds {
                            gathered.extend_from_slice(osi.free(d));
                        }
                        let Relation::Lagrangian(relation) = &mut inter.relation else {
                            return Err(KernelError::InvalidModel(
                                "a position-level problem holds relations of second-order systems".into(),
                            ));
                        };
                        relation.output(t, &gathered, q_alpha)?;
                    }
                }
                if let Some(friction) = add_law_terms(shape.law, level, &self.memory[pos..pos + m], q_alpha) {
                    self.mu.push(friction);
                }
            }
        }
        self.last_size = n;
        if !reuse && operator.is_none() {
            self.assembly.index_by_system(nsds.ds_bound());
            self.assembly.compute_inv_w_ht(nsds, &|d, x| osi.solve_w(d, x));
        }

        if let Some(delassus) = operator {
            self.gathered = gathered;
            let report = self.solve_factored(delassus, n, started)?;
            self.write_back(nsds, active, slot);
            return Ok(Some(report));
        }

        // Blocks.
        // The matrix of the last step when it still holds, otherwise assembled (into the last
        // step's buffer when it has the same storage and size).
        let matrix = match self.matrix.take() {
            Some(m) if reuse => m,
            spare => self.assembly.assemble(n, self.storage, spare)?,
        };
        self.gathered = gathered;
        self.w.clear();
        self.w.resize(n, 0.0);

        let q = std::mem::take(&mut self.q);
        let assembled = std::time::Instant::now();
        self.assembly_time += assembled - started;
        let (report, matrix) = match &mut self.solver {
            Solver::Lcp(solver) => {
                let problem = LcpProblem::new(matrix, q)?;
                let report = solver.solve(&problem, &mut self.z, &mut self.w)?;
                let (matrix, q) = problem.into_parts();
                self.q = q;
                (report, matrix)
            }
            Solver::Fc2d(solver) => {
                let problem = Fc2dProblem::new(matrix, q, std::mem::take(&mut self.mu))?;
                let report = solver.solve(&problem, &mut self.z, &mut self.w)?;
                let (matrix, q, mu) = problem.into_parts();
                self.q = q;
                self.mu = mu;
                (report, matrix)
            }
            Solver::Mlcp(solver) => {
                // Bilateral (equality) and unilateral (Newton impact) constraints of
                // second-order systems.
                let mut equality = Vec::with_capacity(n);
                for &a in active {
                    let inter = nsds.interaction_ref(a);
                    let eq = matches!(inter.law, NonsmoothLaw::Equality { .. });
                    equality.extend(std::iter::repeat_n(eq, inter.size));
                }
                let dense = matrix.to_dense();
                let report =
                    solve_mlcp_equalities_first(&mut **solver, &dense, &q, &equality, &mut self.z, &mut self.w)?;
                self.q = q;
                (report, matrix)
            }
            Solver::Mixed(solver) => {
                let (report, matrix, q) =
                    mixed::solve(solver, matrix, q, &self.assembly.blocks, &mut self.z, &mut self.w)?;
                self.q = q;
                (report, matrix)
            }
            Solver::Relay(_) => {
                return Err(KernelError::InvalidModel(
                    "relay problems hold first-order interactions, not impact laws".into(),
                ));
            }
            Solver::Fc3dFactored(..) => {
                return Err(KernelError::InvalidModel("the factored problem has its own path".into()));
            }
            Solver::Fc3d(solver) => {
                let problem = Fc3dProblem::new(matrix, q, std::mem::take(&mut self.mu))?;
                let report = solver.solve(&problem, &mut self.z, &mut self.w)?;
                let (matrix, q, mu) = problem.into_parts();
                self.q = q;
                self.mu = mu;
                (report, matrix)
            }
        };
        self.keep_matrix(matrix, active, nsds.topology_version, constant_operators);

        self.solve_time += assembled.elapsed();
        self.write_back(nsds, active, slot);
        Ok(Some(report))
    }

    /// Stores the solution `z` as `λ[slot]` of the interactions `active`.
    fn write_back(&self, nsds: &mut Nsds, active: &[InteractionId], slot: usize) {
        for (k, &a) in active.iter().enumerate() {
            let pos = self.assembly.positions[k];
            let inter = nsds.interaction_mut(a);
            let m = inter.size;
            copy_small(&mut inter.lambda[slot], &self.z[pos..pos + m]);
        }
    }

    /// The factored path of [`OneStepNsProblem::compute_on`] (FC3D): the operator `delassus`
    /// holds the bodies with their `W_j⁻¹` ([`push_body_inverse`]) and the rows `H_α` the
    /// gather appended ([`FactoredDelassus::push_rows`]); their bodies make them its contacts
    /// ([`FactoredDelassus::set_contacts`]), then the solve from `z` with `q`, `μ` as
    /// assembled. Assembly time runs from `started`; the operator's buffers go back to the
    /// solver for the next step.
    fn solve_factored(
        &mut self,
        mut delassus: FactoredDelassus,
        n: usize,
        started: std::time::Instant,
    ) -> Result<SolverReport, KernelError> {
        let Solver::Fc3dFactored(factored) = &mut self.solver else {
            return Err(KernelError::InvalidModel("not a factored problem".into()));
        };
        let (solver, buffers) = &mut **factored;
        delassus.set_contacts(&self.contact_bodies)?;
        self.w.clear();
        self.w.resize(n, 0.0);
        let problem = FactoredFc3dProblem::new(delassus, std::mem::take(&mut self.q), std::mem::take(&mut self.mu))?;
        let assembled = std::time::Instant::now();
        self.assembly_time += assembled - started;
        let report = solver.solve(&problem, &mut self.z, &mut self.w);
        let (delassus, q, mu) = problem.into_parts();
        (*buffers, self.q, self.mu) = (delassus, q, mu);
        self.solve_time += assembled.elapsed();
        Ok(report?)
    }

    /// `p[1] += Σ_α H_αᵀ λ_α[1]` over the interactions of the last problem (at velocity level),
    /// from the problem's copies of `H` and of its solution, interaction after interaction in
    /// the problem's order: the values of [`Nsds::accumulate_inputs_at`] on them.
    pub(crate) fn accumulate_inputs(&self, nsds: &mut Nsds) {
        if self.last_size == 0 {
            return;
        }
        // The factored path appends the rows to its operator instead of `h`.
        let rows = match &self.solver {
            Solver::Fc3dFactored(factored) => factored.1.rows(),
            _ => &self.assembly.h[..],
        };
        for (k, (shape, &pos)) in self.assembly.blocks.iter().zip(&self.assembly.positions).enumerate() {
            if k % INPUT_BATCH == 0 {
                self.prefetch_inputs(nsds, k);
            }
            let lambda = &self.z[pos..pos + shape.size];
            let h = &rows[shape.start..shape.start + shape.size * shape.columns];
            for jj in 0..shape.systems {
                let off = shape.offsets[jj];
                let ds = nsds.ds_slot_mut(shape.slots[jj]).expect("a linked system exists");
                let p = &mut ds.state_mut().p[1];
                if let (Ok(p), Ok(lambda), 6) =
                    (<&mut [f64; 6]>::try_from(&mut p[..]), <&[f64; 3]>::try_from(lambda), shape.widths[jj])
                {
                    // Contacts of 3D bodies (fixed sizes: the same sums, unrolled).
                    for (c, pc) in p.iter_mut().enumerate() {
                        let mut s = 0.0;
                        for (i, l) in lambda.iter().enumerate() {
                            s += h[i * shape.columns + off + c] * l;
                        }
                        *pc += s;
                    }
                    continue;
                }
                for (c, pc) in p.iter_mut().enumerate() {
                    let mut s = 0.0;
                    for (i, l) in lambda.iter().enumerate() {
                        s += h[i * shape.columns + off + c] * l;
                    }
                    *pc += s;
                }
            }
        }
    }

    /// The cache hints of [`OneStepNsProblem::accumulate_inputs`] before block `k` (a batch of
    /// [`INPUT_BATCH`] blocks starts there): the state records of the systems of the batch
    /// after next, and the inputs `p[1]` of the systems of the next batch (whose records were
    /// hinted a batch earlier). The systems are visited in the problem's order, scattered in
    /// memory; without the hints each block waits for its systems' records, then for their
    /// inputs.
    fn prefetch_inputs(&self, nsds: &Nsds, k: usize) {
        let batch = |b: usize| self.assembly.blocks.chunks(INPUT_BATCH).nth(k / INPUT_BATCH + b).unwrap_or(&[]);
        for shape in batch(2) {
            for &slot in &shape.slots[..shape.systems] {
                nsds.prefetch_state_at(slot);
            }
        }
        for shape in batch(1) {
            for &slot in &shape.slots[..shape.systems] {
                nsds.prefetch_input_at(slot, 1);
            }
        }
    }

    /// Whether the matrix of the last problem is that of a problem on `ids` with constant
    /// operators (`constant_operators`) under the same topology.
    fn reusable(&self, constant_operators: bool, topology: u64, ids: &[InteractionId]) -> bool {
        constant_operators
            && self.matrix_reusable
            && self.matrix.is_some()
            && self.matrix_topology == topology
            && self.matrix_ids == ids
    }

    /// Keeps the matrix `m` of the problem on `ids`: for the next steps when every operator is
    /// constant, as a buffer to assemble into otherwise.
    fn keep_matrix(&mut self, m: NumericsMatrix, ids: &[InteractionId], topology: u64, constant: bool) {
        self.matrix = Some(m);
        self.matrix_reusable = constant;
        if constant {
            self.matrix_ids.clear();
            self.matrix_ids.extend_from_slice(ids);
            self.matrix_topology = topology;
        }
    }

    /// The solver's start: `z = λ[level]` of the interactions (warm start) or 0, `w = 0`.
    fn start_from(&mut self, nsds: &Nsds, ids: &[InteractionId], level: usize, n: usize) {
        self.z.clear();
        self.z.resize(n, 0.0);
        if self.warm_start {
            for (k, &id) in ids.iter().enumerate() {
                let pos = self.assembly.positions[k];
                let inter = nsds.interaction_ref(id);
                self.z[pos..pos + inter.size].copy_from_slice(&inter.lambda[level]);
            }
        }
        self.w.clear();
        self.w.resize(n, 0.0);
    }
}

/// Interactions per block of the one-step problem's gather ([`OneStepNsProblem::compute_on`]):
/// the rows `H` of a block of 3D contacts (256 × 288 bytes) stay in the 2 MB L2 cache of a core
/// until the pass of `q` reads them.
const GATHER_BLOCK: usize = 256;

/// How many interactions ahead the gather of [`OneStepNsProblem::compute_on`] asks the cache for
/// the next interactions' lines ([`Interaction::prefetch_gathered`]), and the pass of `q` for the
/// next interactions' systems (their free states and diagonals of `W`). The interactions sit in the
/// problem's order, scattered in memory; beyond the caches of a core each one's lines would miss
/// one after the other. The lines of `H` beyond its first are hinted half as far ahead
/// ([`Interaction::prefetch_rows`] reads `H`'s length from the record, hinted by then), so that
/// the hints 8 ahead read nothing.
const PREFETCH_INTERACTIONS_AHEAD: usize = 8;
/// See [`PREFETCH_INTERACTIONS_AHEAD`].
const PREFETCH_SYSTEMS_AHEAD: usize = 4;

/// Blocks per batch of the cache hints of [`OneStepNsProblem::accumulate_inputs`].
const INPUT_BATCH: usize = 16;

/// Adds system `id` (velocity size `nj`) to the factored operator with its `W⁻¹`: `1/d` of the
/// diagonal [`SecondOrderContribution::diagonal_w`] when the integrator divides by it (`solve_w` on the
/// unit vector `e_l` gives `1/d_l` at `l` and zeros elsewhere: the same values without the
/// `nj` solves); otherwise its columns by [`SecondOrderContribution::solve_w`] on the unit vectors, kept as a
/// diagonal when the off-diagonal entries vanish (the same values). Returns its body number;
/// `column` and `inverse` are workspaces.
fn push_body_inverse(
    delassus: &mut FactoredDelassus,
    osi: &dyn SecondOrderContribution,
    id: crate::model::DsId,
    nj: usize,
    column: &mut Vec<f64>,
    inverse: &mut Vec<f64>,
) -> Result<usize, NumericsError> {
    column.clear();
    if let Some(diagonal) = osi.diagonal_w(id) {
        column.extend(diagonal.iter().map(|d| 1.0 / d));
        return delassus.push_body_diagonal(column);
    }
    inverse.clear();
    inverse.resize(nj * nj, 0.0);
    for l in 0..nj {
        column.clear();
        column.resize(nj, 0.0);
        column[l] = 1.0;
        osi.solve_w(id, column);
        // Row-major W⁻¹: column l goes to entries (i, l).
        for (i, x) in column.iter().enumerate() {
            inverse[i * nj + l] = *x;
        }
    }
    let off_diagonal_vanishes = (0..nj).all(|i| (0..nj).all(|l| i == l || inverse[i * nj + l].abs() <= 0.0));
    if off_diagonal_vanishes {
        column.clear();
        column.extend((0..nj).map(|i| inverse[i * nj + i]));
        delassus.push_body_diagonal(column)
    } else {
        delassus.push_body_dense(nj, inverse)
    }
}

/// Whether [`add_law_terms`] reads the output memory for `law` at `level`: a Newton impact law,
/// and a frictional one at position level or with a positive restitution coefficient.
fn law_reads_memory(law: NonsmoothLaw, level: MechanicalLevel) -> bool {
    match law {
        NonsmoothLaw::NewtonImpact(_) => true,
        NonsmoothLaw::NewtonImpactFriction(law) => {
            level == MechanicalLevel::Position || law.normal_restitution() > 0.0 || law.tangential_restitution() > 0.0
        }
        _ => false,
    }
}

/// Adds the terms of the nonsmooth law `law` to `q_alpha`, the rows of an interaction in `q`,
/// from its output memory `memory` (`ẏ_k` at velocity level, `y_{k−1}` at position level):
/// `e ẏ_k` of a Newton impact law; with friction, `e_n` on the normal component and `e_t` on the
/// tangential ones when positive (the normal one only at position level, as Siconos 4.4).
/// Returns the friction coefficient of a frictional law.
fn add_law_terms(law: NonsmoothLaw, level: MechanicalLevel, memory: &[f64], q_alpha: &mut [f64]) -> Option<f64> {
    match law {
        NonsmoothLaw::NewtonImpact(law) => {
            let restitution = law.restitution();
            for (qi, yd) in q_alpha.iter_mut().zip(memory) {
                *qi += restitution * yd;
            }
            None
        }
        NonsmoothLaw::NewtonImpactFriction(law) => {
            let (normal_restitution, tangential_restitution) = (law.normal_restitution(), law.tangential_restitution());
            if level == MechanicalLevel::Position {
                q_alpha[0] += normal_restitution * memory[0];
            } else {
                if normal_restitution > 0.0 {
                    q_alpha[0] += normal_restitution * memory[0];
                }
                if tangential_restitution > 0.0 {
                    for (qi, yd) in q_alpha.iter_mut().zip(memory).skip(1) {
                        *qi += tangential_restitution * yd;
                    }
                }
            }
            Some(law.friction())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gather skips the output memory exactly when the law's terms do not read it: with a
    /// memory of NaN, those terms leave `q` as it was; with a law that reads it, they do not.
    #[test]
    fn the_law_terms_read_the_memory_only_when_said() {
        let laws = [
            NonsmoothLaw::newton_impact(0.0).unwrap(),
            NonsmoothLaw::newton_impact(0.5).unwrap(),
            NonsmoothLaw::newton_impact_friction(0.0, 0.0, 0.3, 3).unwrap(),
            NonsmoothLaw::newton_impact_friction(0.5, 0.0, 0.3, 3).unwrap(),
            NonsmoothLaw::newton_impact_friction(0.0, 0.2, 0.3, 3).unwrap(),
            NonsmoothLaw::complementarity(3).unwrap(),
            NonsmoothLaw::equality(3).unwrap(),
        ];
        let mut skipped = 0;
        for law in laws {
            for level in [MechanicalLevel::Velocity, MechanicalLevel::Position] {
                let mut q = [1.0, -2.0, 3.0];
                add_law_terms(law, level, &[f64::NAN; 3], &mut q);
                let untouched = q.map(f64::to_bits) == [1.0_f64, -2.0, 3.0].map(f64::to_bits);
                assert_eq!(untouched, !law_reads_memory(law, level), "{law:?} at {level:?}");
                skipped += usize::from(untouched);
            }
        }
        // The frictional law without restitution at velocity level, and the laws without terms.
        assert_eq!(skipped, 5);
    }
}
